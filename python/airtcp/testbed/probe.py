"""UDP probes for the link emulator's accuracy: packets stamped with the sender's clock, received
with kernel receive timestamps (SO_TIMESTAMPNS). Both namespaces share the host's CLOCK_REALTIME,
so the one-way delay is measured, not assumed.

    python probe.py sink   --bind 10.78.2.1 --port 6001 --seconds 5
    python probe.py source --to 10.78.2.1 --port 6001 --rate-bps 2.6e6 --size 1000 --count 500

The sink prints one JSON line: per packet [sequence, sent_ns, received_ns, ip_bytes].
"""

from __future__ import annotations

import argparse
import json
import socket
import struct
import sys
import time

IP_UDP_HEADER_BYTES = 28
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)
HEAD = struct.Struct("!QQ")  # sequence, send time (ns, CLOCK_REALTIME)


def sink(bind: str, port: int, seconds: float, ready_file: str | None) -> dict:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.bind((bind, port))
    if ready_file:
        with open(ready_file, "w") as f:
            f.write("ready\n")
    s.settimeout(1.0)
    got: list[list[int]] = []
    end = time.monotonic() + seconds
    idle_after_first = None
    while time.monotonic() < end:
        try:
            data, anc, _, _ = s.recvmsg(65536, 1024)
        except socket.timeout:
            if got:
                idle_after_first = (idle_after_first or 0) + 1
                if idle_after_first >= 2:  # the source has finished
                    break
            continue
        rx = None
        for level, kind, val in anc:
            if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                sec, nsec = struct.unpack("qq", val[:16])
                rx = sec * 1_000_000_000 + nsec
        if rx is None:
            rx = time.time_ns()
        seq, tx = HEAD.unpack_from(data)
        got.append([seq, tx, rx, len(data) + IP_UDP_HEADER_BYTES])
    return {"packets": got}


def source(to: str, port: int, rate_bps: float, size: int, count: int) -> dict:
    """Sends `count` datagrams of `size` payload bytes, paced to `rate_bps` of IP bytes."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
    interval = (size + IP_UDP_HEADER_BYTES) * 8 / rate_bps
    pad = b"\0" * (size - HEAD.size)
    t = time.monotonic()
    for seq in range(count):
        now = time.monotonic()
        if t > now:
            time.sleep(t - now)
        s.sendto(HEAD.pack(seq, time.time_ns()) + pad, (to, port))
        t += interval
    return {"sent": count}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="probe.py")
    p.add_argument("role", choices=["sink", "source"])
    p.add_argument("--bind", default="0.0.0.0")
    p.add_argument("--to")
    p.add_argument("--port", type=int, default=6001)
    p.add_argument("--seconds", type=float, default=30)
    p.add_argument("--rate-bps", type=float)
    p.add_argument("--size", type=int, default=1000)
    p.add_argument("--count", type=int, default=100)
    p.add_argument("--ready-file")
    a = p.parse_args(argv)
    try:
        if a.role == "sink":
            out = sink(a.bind, a.port, a.seconds, a.ready_file)
        else:
            out = source(a.to, a.port, a.rate_bps, a.size, a.count)
    except OSError as e:
        sys.stderr.write(f"error: {a.role}: {e}\n")
        return 2
    print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
