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
import struct
import sys
import time

CHUNK = 64 * 1024


def _set_cc(s: socket.socket, cc: str) -> None:
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())


def _cc_of(s: socket.socket) -> str:
    return s.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).split(b"\0", 1)[0].decode()


def tcp_info(s: socket.socket) -> dict:
    """A few fields of the kernel's struct tcp_info (include/uapi/linux/tcp.h offsets)."""
    b = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 232)
    u32 = lambda off: struct.unpack_from("I", b, off)[0]  # noqa: E731
    return {
        "ca_state": b[1],
        "options": b[5],
        "rtt_us": u32(68),
        "ssthresh": u32(76),
        "cwnd": u32(80),
        "total_retrans": u32(100),
        "delivered": u32(192) if len(b) >= 200 else None,
        "delivered_ce": u32(196) if len(b) >= 200 else None,
    }


def sink(bind: str, port: int, cc: str, seconds: float, ready_file: str | None, warmup: float = 0.0) -> dict:
    """Accepts one connection and counts what it receives until the peer closes or time is up;
    goodput is over the transfer after the first `warmup` seconds (from the first byte)."""
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
    # Until the source's FIN or the deadline, however long the path is silent: a recorded cellular
    # trace has outages of several seconds, and the retransmission timer backs off through them
    # (a 5-s silence used to end the transfer here and reset the source's connection).
    conn.settimeout(seconds + 30)
    total = 0
    after_warmup = 0
    # Bytes read in [first + warmup, first + seconds]: the fixed window a simulated run measures
    # (its goodput counts [warmup, duration]), whatever arrives after the source stops.
    in_window = 0
    first = last = None
    # (CLOCK_MONOTONIC seconds, bytes read so far) at the last read of each 10-ms bin of that clock:
    # the relay reports when its model clock started on the same clock, so the caller can count
    # the bytes of any model-time window (`emulate.bytes_between`).
    arrivals: list[list[float]] = []
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
        if arrivals and int(arrivals[-1][0] * 100) == int(now * 100):
            arrivals[-1] = [now, total]
        else:
            arrivals.append([now, total])
        if now - first >= warmup:
            after_warmup += n
            if now - first <= seconds:
                in_window += n
    conn.close()
    ls.close()
    span = (last - first) if first is not None and last is not None else 0.0
    measured = span - warmup
    return {
        "bytes": total,
        "span_s": span,
        "warmup_s": warmup,
        "bytes_after_warmup": after_warmup,
        "goodput_bps": (after_warmup * 8 / measured) if measured > 0 else 0.0,
        "window_goodput_bps": in_window * 8 / (seconds - warmup) if seconds > warmup else 0.0,
        "cc": accepted_cc,
        "arrivals": arrivals,
    }


def source(to: str, port: int, cc: str, seconds: float, sample_ms: float = 0.0) -> dict:
    """Connects and sends as fast as the window allows for `seconds`; every `sample_ms` (0: never)
    records the socket's tcp_info (cwnd and ssthresh in segments)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    _set_cc(s, cc)
    s.settimeout(10)
    s.connect((to, port))
    used_cc = _cc_of(s)
    payload = b"\x5a" * CHUNK
    sent = 0
    start = time.monotonic()
    end = start + seconds
    samples = []
    next_sample = start
    s.settimeout(0.05 if sample_ms > 0 else 1.0)
    while True:
        now = time.monotonic()
        if now >= end:
            break
        if sample_ms > 0 and now >= next_sample:
            samples.append({"t_s": round(now - start, 4), **tcp_info(s)})
            next_sample += sample_ms / 1000
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
    final = tcp_info(s)
    s.close()
    return {"bytes_sent": sent, "cc": used_cc, "final": final, "samples": samples}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="airtcp.testbed.bulk", description=__doc__.splitlines()[0])
    p.add_argument("role", choices=["sink", "source"])
    p.add_argument("--bind", default="0.0.0.0")
    p.add_argument("--to")
    p.add_argument("--port", type=int, default=5001)
    p.add_argument("--cc", required=True)
    p.add_argument("--seconds", type=float, required=True)
    p.add_argument("--ready-file")
    p.add_argument("--warmup", type=float, default=0.0)
    p.add_argument("--sample-ms", type=float, default=0.0)
    a = p.parse_args(argv)
    try:
        if a.role == "sink":
            out = sink(a.bind, a.port, a.cc, a.seconds, a.ready_file, a.warmup)
        else:
            if not a.to:
                p.error("--to is required for source")
            out = source(a.to, a.port, a.cc, a.seconds, a.sample_ms)
    except OSError as e:
        sys.stderr.write(f"error: {a.role}: {e}\n")
        return 2
    print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
