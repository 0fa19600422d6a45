"""A bulk-transfer client and sink with a chosen congestion control on both ends.

Our own instead of iperf3 because the *receiver* must run the same congestion-control module: the
Jersey family's BPF programs echo ECN marks per segment from the receiver side (kernel/README.md),
and a listening socket's TCP_CONGESTION is inherited by the connection it accepts.

    python -m airtcp.testbed.bulk sink   --bind 10.78.2.1 --port 5001 --cc atcp_jersey --seconds 10
    python -m airtcp.testbed.bulk source --to 10.78.2.1 --port 5001 --cc atcp_jersey --seconds 10

The sink prints one JSON line: bytes received, first/last byte times, the goodput in bit/s over the
transfer, and the congestion control the accepted socket reported.
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
import time

CHUNK = 64 * 1024


def _set_cc(s: socket.socket, cc: str) -> None:
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())


def _cc_of(s: socket.socket) -> str:
    return s.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).split(b"\0", 1)[0].decode()


def sink(bind: str, port: int, cc: str, seconds: float, ready_file: str | None) -> dict:
    """Accepts one connection and counts what it receives until the peer closes or time is up."""
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    _set_cc(ls, cc)
    ls.bind((bind, port))
    ls.listen(1)
    if ready_file:
        with open(ready_file, "w") as f:
            f.write("ready\n")
    ls.settimeout(seconds + 30)
    conn, _ = ls.accept()
    accepted_cc = _cc_of(conn)
    conn.settimeout(5)
    total = 0
    first = last = None
    deadline = time.monotonic() + seconds + 30
    buf = bytearray(CHUNK)
    while time.monotonic() < deadline:
        try:
            n = conn.recv_into(buf)
        except socket.timeout:
            break
        if n == 0:
            break
        now = time.monotonic()
        if first is None:
            first = now
        last = now
        total += n
    conn.close()
    ls.close()
    span = (last - first) if first is not None and last is not None else 0.0
    return {
        "bytes": total,
        "span_s": span,
        "goodput_bps": (total * 8 / span) if span > 0 else 0.0,
        "cc": accepted_cc,
    }


def source(to: str, port: int, cc: str, seconds: float) -> dict:
    """Connects and sends as fast as the window allows for `seconds`."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    _set_cc(s, cc)
    s.settimeout(10)
    s.connect((to, port))
    used_cc = _cc_of(s)
    payload = b"\x5a" * CHUNK
    sent = 0
    end = time.monotonic() + seconds
    s.settimeout(1.0)
    while time.monotonic() < end:
        try:
            sent += s.send(payload)
        except socket.timeout:
            continue
    s.shutdown(socket.SHUT_WR)
    s.settimeout(30)
    try:
        s.recv(1)  # wait for the sink to close: everything sent was delivered
    except OSError:
        pass
    s.close()
    return {"bytes_sent": sent, "cc": used_cc}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="airtcp.testbed.bulk", description=__doc__.splitlines()[0])
    p.add_argument("role", choices=["sink", "source"])
    p.add_argument("--bind", default="0.0.0.0")
    p.add_argument("--to")
    p.add_argument("--port", type=int, default=5001)
    p.add_argument("--cc", required=True)
    p.add_argument("--seconds", type=float, required=True)
    p.add_argument("--ready-file")
    a = p.parse_args(argv)
    try:
        if a.role == "sink":
            out = sink(a.bind, a.port, a.cc, a.seconds, a.ready_file)
        else:
            if not a.to:
                p.error("--to is required for source")
            out = source(a.to, a.port, a.cc, a.seconds)
    except OSError as e:
        sys.stderr.write(f"error: {a.role}: {e}\n")
        return 2
    print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
