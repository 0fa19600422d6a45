"""Sets a route's TCP features over rtnetlink, for what Debian 12's `ip` (iproute2 6.1) cannot name.

    python -m airtcp.testbed.route --dst 10.78.2.1 --dev tun0 --features tcp_usec_ts

Microsecond TCP timestamps (`tcp_usec_ts`, Linux 6.7+) are negotiated per route: the route's
`RTAX_FEATURES` metric carries `RTAX_FEATURE_TCP_USEC_TS`, which `ip route ... features` learned to
name only in iproute2 6.7. This replaces the host route to `--dst` through `--dev` (in the calling
network namespace) with the same route carrying the features, in one RTM_NEWROUTE request.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import socket
import struct

#: include/uapi/linux/rtnetlink.h
RTM_NEWROUTE = 24
NLM_F_REQUEST, NLM_F_ACK, NLM_F_REPLACE, NLM_F_CREATE = 0x1, 0x4, 0x100, 0x400
NLMSG_ERROR = 2
RT_TABLE_MAIN, RTPROT_BOOT, RT_SCOPE_LINK, RTN_UNICAST = 254, 3, 253, 1
RTA_DST, RTA_OIF, RTA_METRICS = 1, 4, 8
RTAX_FEATURES = 12
FEATURES = {"ecn": 1 << 0, "tcp_usec_ts": 1 << 4}


def _attr(kind: int, payload: bytes) -> bytes:
    """One rtattr (length, type, payload), padded to 4 bytes."""
    length = 4 + len(payload)
    return struct.pack("=HH", length, kind) + payload + b"\0" * (-length % 4)


def route_request(dst: str, ifindex: int, features: int, seq: int = 1) -> bytes:
    """The RTM_NEWROUTE message replacing the host route to `dst` via `ifindex` with `features`."""
    rtmsg = struct.pack(
        "=BBBBBBBBI", socket.AF_INET, 32, 0, 0, RT_TABLE_MAIN, RTPROT_BOOT, RT_SCOPE_LINK, RTN_UNICAST, 0
    )
    attrs = (
        _attr(RTA_DST, ipaddress.IPv4Address(dst).packed)
        + _attr(RTA_OIF, struct.pack("=i", ifindex))
        + _attr(RTA_METRICS, _attr(RTAX_FEATURES, struct.pack("=I", features)))
    )
    body = rtmsg + attrs
    flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_REPLACE | NLM_F_CREATE
    return struct.pack("=IHHII", 16 + len(body), RTM_NEWROUTE, flags, seq, 0) + body


def set_route_features(dst: str, dev: str, names: list[str]) -> None:
    """Replaces the host route to `dst` through `dev` with one carrying the named features."""
    unknown = [n for n in names if n not in FEATURES]
    if unknown:
        raise ValueError(f"features: {', '.join(unknown)} unknown (allowed: {', '.join(FEATURES)})")
    features = 0
    for n in names:
        features |= FEATURES[n]
    with socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE) as s:
        s.bind((0, 0))
        s.send(route_request(dst, socket.if_nametoindex(dev), features))
        reply = s.recv(65536)
    kind = struct.unpack_from("=H", reply, 4)[0]
    if kind == NLMSG_ERROR:
        errno = -struct.unpack_from("=i", reply, 16)[0]
        if errno:
            raise OSError(errno, f"RTM_NEWROUTE {dst} dev {dev}: {os.strerror(errno)}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dst", required=True)
    ap.add_argument("--dev", required=True)
    ap.add_argument("--features", required=True, help="comma-separated: " + ", ".join(FEATURES))
    a = ap.parse_args(argv)
    set_route_features(a.dst, a.dev, a.features.split(","))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
