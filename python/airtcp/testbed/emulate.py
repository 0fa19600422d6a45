"""The emulated path and the runs on it: `airtcp testbed run` and `airtcp testbed accuracy`.

Two namespaces, a TUN device in each, joined by ``airtcp-relay`` (crates/airtcp-testbed), which
carries every packet through the scenario's links between the flow's end nodes with the
simulator's own queue, capacity and channel code. The sender lives in ``<prefix>s`` at 10.78.1.1,
the receiver in ``<prefix>r`` at 10.78.2.1.
"""

from __future__ import annotations

import bisect
import json
import selectors
import shutil
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Optional

from .. import scenario as sc
from .bed import Testbed, bulk_argv, read_json_line, ss_connections, wait_file
from .kernel import KERNEL_CC, TestbedError

REPO = Path(__file__).resolve().parents[3]
SRC_ADDR, DST_ADDR = "10.78.1.1", "10.78.2.1"
#: TCP/IP header bytes of a Linux data segment with timestamps (20 IP + 20 TCP + 12 option).
LINUX_HEADER_BYTES = 52


def _relay_binary() -> Path:
    """target/release/airtcp-relay, built (cargo, a no-op when fresh) where cargo exists."""
    if shutil.which("cargo"):
        p = subprocess.run(
            ["cargo", "build", "--release", "-q", "-p", "airtcp-testbed"], cwd=REPO, capture_output=True, text=True
        )
        if p.returncode != 0:
            raise TestbedError(f"cargo build -p airtcp-testbed: {p.stderr.strip().splitlines()[-1:]}")
    b = REPO / "target" / "release" / "airtcp-relay"
    if not b.exists():
        raise TestbedError(f"{b} not found (cargo build --release -p airtcp-testbed)")
    return b


def _readline(p: subprocess.Popen[str], timeout: float) -> str:
    sel = selectors.DefaultSelector()
    assert p.stdout is not None
    sel.register(p.stdout, selectors.EVENT_READ)
    if not sel.select(timeout):
        raise TestbedError("relay: no answer")
    line = p.stdout.readline()
    if not line:
        err = p.stderr.read() if p.stderr else ""
        raise TestbedError(f"relay: {err.strip() or 'exited'}")
    return line.strip()


class EmulatedPath:
    """Sender and receiver namespaces joined by the relay over a scenario's links."""

    def __init__(
        self, bed: Testbed, scenario_text: str, src: str, dst: str, seed: int, mtu: int, usec_timestamps: bool = False
    ) -> None:
        self.bed = bed
        self.snd = bed.netns("s")
        self.rcv = bed.netns("r")
        for ns in (self.snd, self.rcv):
            bed.run_in(
                ns, ["sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1"]
            )
        path = Path(f"/tmp/{bed.prefix}.toml")
        path.write_text(scenario_text)
        bed.files.append(path)
        self.tun_s, self.tun_r = f"{bed.prefix}ts"[-15:], f"{bed.prefix}tr"[-15:]
        self.relay = bed.spawn(
            None,
            [
                str(_relay_binary()),
                "--scenario",
                str(path),
                "--seed",
                str(seed),
                "--src",
                src,
                "--dst",
                dst,
                "--src-netns",
                self.snd,
                "--src-tun",
                self.tun_s,
                "--dst-netns",
                self.rcv,
                "--dst-tun",
                self.tun_r,
            ],
        )
        if _readline(self.relay, 10) != "ready":
            raise TestbedError("relay: unexpected first line")
        for ns, dev, me, peer in (
            (self.snd, self.tun_s, SRC_ADDR, DST_ADDR),
            (self.rcv, self.tun_r, DST_ADDR, SRC_ADDR),
        ):
            bed.run_in(ns, ["ip", "link", "set", dev, "mtu", str(mtu), "up"])
            bed.run_in(ns, ["ip", "addr", "add", f"{me}/32", "dev", dev])
            bed.run_in(ns, ["ip", "route", "add", f"{peer}/32", "dev", dev])
            if usec_timestamps:
                # Microsecond TSvals (Linux 6.7+), negotiated per route: what Debian 12's `ip`
                # cannot name yet, set over rtnetlink (route.py, standard library, run by path).
                route = str(Path(__file__).with_name("route.py"))
                bed.run_in(ns, [sys.executable, route, "--dst", peer, "--dev", dev, "--features", "tcp_usec_ts"])

    def stop(self) -> dict[str, Any]:
        """Stops the relay (SIGTERM) and returns its counters."""
        self.relay.send_signal(signal.SIGTERM)
        return read_json_line(self.relay, timeout=10)


def _wait_closed(bed: Testbed, namespaces: list[str], timeout: float = 5.0) -> None:
    """Waits until no TCP socket but TIME-WAIT ones remains in `namespaces` (a closing socket needs
    the path for its last segments; without it, it would linger as an orphan)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        busy = [
            line
            for ns in namespaces
            for line in bed.run_in(ns, ["ss", "-tanH"]).stdout.splitlines()
            if line.strip() and not line.startswith("TIME-WAIT")
        ]
        if not busy:
            return
        time.sleep(0.05)


def _first_tcp_flow(doc: dict[str, Any]) -> dict[str, Any]:
    for f in doc.get("flows", []):
        if f.get("kind", "tcp") == "tcp":
            return f
    raise TestbedError("flows: the scenario has no tcp flow")


def run_scenario(
    doc: dict[str, Any],
    cc: str,
    seed: Optional[int] = None,
    sample_ms: float = 100.0,
    sysctls: tuple[str, ...] = (),
    usec_timestamps: bool = False,
) -> dict[str, Any]:
    """One bulk transfer over the emulated path of `doc` (a scenario dict) with kernel congestion
    control for scheme `cc`; returns a summary like the simulator's (flows, links) plus samples.
    `sysctls`: more `name=value` settings for both namespaces, e.g. `net.ipv4.tcp_frto=0` to tell
    which kernel feature a difference from the simulator comes from. `usec_timestamps`: negotiate
    microsecond TCP timestamps (the routes' `tcp_usec_ts` feature, Linux 6.7+), so that the
    receiver's TSval, which New Jersey and NJ+ read as its clock, is not in whole milliseconds."""
    if cc not in KERNEL_CC:
        raise TestbedError(f"cc: {cc} has no kernel counterpart (allowed: {', '.join(KERNEL_CC)})")
    kernel_cc = KERNEL_CC[cc]
    flow = _first_tcp_flow(doc)
    duration = sc.parse_duration_s(str(doc.get("duration", "10s")))
    warmup = sc.parse_duration_s(str(doc.get("warmup", "0s")))
    mss = int(flow.get("mss_bytes", 1000))
    seed = int(doc.get("seed", 1) if seed is None else seed)
    text = sc.dumps(doc)
    with Testbed() as bed:
        path = EmulatedPath(bed, text, flow["src"], flow["dst"], seed, mss + LINUX_HEADER_BYTES, usec_timestamps)
        # The scenario's transport options, per namespace (never the default congestion control).
        sack = "1" if flow.get("recovery") == "sack" or flow.get("sack") else "0"
        ecn = "1" if flow.get("ecn") else "2"
        for ns in (path.snd, path.rcv):
            bed.run_in(
                ns,
                [
                    "sysctl",
                    "-qw",
                    f"net.ipv4.tcp_sack={sack}",
                    f"net.ipv4.tcp_ecn={ecn}",
                    "net.ipv4.tcp_timestamps=1",
                    "net.ipv4.tcp_no_metrics_save=1",
                    *sysctls,
                ],
            )
        bed.register(kernel_cc)
        ready = Path(f"/tmp/{bed.prefix}.ready")
        ready.unlink(missing_ok=True)
        bed.files.append(ready)
        sink = bed.spawn(
            path.rcv,
            bulk_argv(
                "sink", bind=DST_ADDR, port=5001, cc=kernel_cc, seconds=duration, warmup=warmup, ready_file=ready
            ),
        )
        wait_file(ready)
        src = bed.spawn(
            path.snd, bulk_argv("source", to=DST_ADDR, port=5001, cc=kernel_cc, seconds=duration, sample_ms=sample_ms)
        )
        time.sleep(min(1.0, duration / 2))
        seen = ss_connections(bed, path.snd, DST_ADDR)
        src_out = read_json_line(src, timeout=duration + 60)
        sink_out = read_json_line(sink, timeout=60)
        _wait_closed(bed, [path.snd, path.rcv])  # the last FIN/ACK still needs the relay
        relay = path.stop()
        csum_errors = tcp_checksum_errors(bed.run_in(path.rcv, ["cat", "/proc/net/snmp"]).stdout)
        counters = tcp_counters(bed.run_in(path.snd, ["cat", "/proc/net/snmp", "/proc/net/netstat"]).stdout)
    final = src_out["final"]
    return {
        "scenario": doc.get("name", ""),
        "seed": seed,
        "duration_s": duration,
        "warmup_s": warmup,
        "flows": [
            {
                "name": flow.get("name", "flow0"),
                "cc": cc,
                "kernel_cc": kernel_cc,
                "goodput_bps": sink_out["goodput_bps"],
                # Over [warm-up, duration] from the first byte.
                "window_goodput_bps": sink_out["window_goodput_bps"],
                # Over [warm-up, duration] of model time (from the relay's first packet, the SYN):
                # the simulator's measuring window, whose flow starts at 0. On a trace with
                # outages the first byte can come seconds after the SYN, and a window from it
                # measures a later stretch of the trace than the simulator does.
                "model_window_goodput_bps": model_window_goodput(sink_out, relay, warmup, duration),
                "delivered_bytes": sink_out["bytes"],
                "retransmissions": final["total_retrans"],
                "delivered_ce": final["delivered_ce"],
                # tcpi_options: TCPI_OPT_TIMESTAMPS (1), SACK (2), ECN (8), USEC_TS (64).
                "tcp_options": final["options"],
                "ss_cc": [c["cc"] for c in seen],
                # Segments the relay delivered with a damaged payload (a corrupting channel) and
                # the receiving kernel's count of TCP checksum failures: the kernel discards them.
                "corrupted_delivered": relay["forward"]["corrupted_delivered"],
                "receiver_checksum_errors": csum_errors,
                # The sending namespace's nonzero TCP counters (`Tcp*` of /proc/net/snmp and
                # `TcpExt*` of /proc/net/netstat, as `nstat` names them): timeouts, loss probes,
                # undos, SACK/RACK recoveries -- what a difference from the simulator comes from.
                "sender_counters": counters,
            }
        ],
        "links": relay["forward"]["hops"] + relay["reverse"]["hops"],
        # Model time runs from the relay's start: the links' counters cover [0, this].
        "relay_elapsed_s": relay["elapsed_ns"] / 1e9,
        "samples": src_out["samples"],
    }


def bytes_between(arrivals: list[list[float]], start_s: float, end_s: float) -> float:
    """Bytes a sink read in (start_s, end_s] from its `arrivals` ([CLOCK_MONOTONIC s, bytes read
    so far] points, in order): the count at the last point at or before each end."""

    times = [when for when, _ in arrivals]

    def upto(t: float) -> float:
        i = bisect.bisect_right(times, t)
        return arrivals[i - 1][1] if i else 0.0

    return upto(end_s) - upto(start_s)


def model_window_goodput(
    sink_out: dict[str, Any], relay: dict[str, Any], warmup: float, duration: float
) -> Optional[float]:
    """Goodput in bit/s over [warmup, duration] of the relay's model time, or None when the relay
    saw no packet (its model clock never started)."""
    start_ns = relay.get("model_start_monotonic_ns")
    if start_ns is None or duration <= warmup:
        return None
    t0 = start_ns / 1e9
    return bytes_between(sink_out["arrivals"], t0 + warmup, t0 + duration) * 8 / (duration - warmup)


def snmp_tables(text: str, tables: tuple[str, ...] = ("Tcp", "TcpExt")) -> dict[str, int]:
    """The integer counters of the named tables in /proc/net/snmp and /proc/net/netstat text (each
    a header row of names, then a row of values), named as `nstat` names them (`TcpRetransSegs`,
    `TcpExtTCPTimeouts`, ...)."""
    out: dict[str, int] = {}
    rows: dict[str, list[list[str]]] = {}
    for line in text.splitlines():
        table, _, rest = line.partition(":")
        if table in tables:
            rows.setdefault(table, []).append(rest.split())
    for table, pairs in rows.items():
        for names, values in zip(pairs[0::2], pairs[1::2]):
            for name, value in zip(names, values):
                if value.lstrip("-").isdigit():
                    out[table + name] = int(value)
    return out


def tcp_counters(text: str) -> dict[str, int]:
    """The nonzero counters of the `Tcp:` and `TcpExt:` tables (see [`snmp_tables`])."""
    return {name: value for name, value in snmp_tables(text).items() if value != 0}


def tcp_checksum_errors(snmp: str) -> int:
    """`Tcp: InCsumErrors` of a /proc/net/snmp text (per network namespace): TCP segments the
    kernel received with a bad checksum and discarded."""
    errors = snmp_tables(snmp, ("Tcp",)).get("TcpInCsumErrors")
    if errors is None:
        raise TestbedError("/proc/net/snmp has no Tcp InCsumErrors counter")
    return errors


def accuracy(rate_bps: float, delay_s: float, seconds: float = 3.0) -> dict[str, Any]:
    """The relay's delivered rate and added one-way delay on a one-link path, measured with UDP
    probes (kernel receive timestamps; both namespaces share the host clock).

    - delay: 100 sparse 200-B datagrams (one per 20 ms, so none queues): one-way delay minus the
      setting's propagation plus serialization of that datagram (the model's own time).
    - rate: datagrams of 1000 B offered at 1.25x the rate for `seconds` into a 1000-packet buffer:
      IP bytes delivered per second between the first and last arrival, against the setting.
    """
    probe = str(Path(__file__).with_name("probe.py"))
    doc = {
        "name": "accuracy",
        "duration": "3600s",
        "seed": 1,
        "nodes": ["A", "B"],
        "links": [
            {
                "from": "A",
                "to": "B",
                "rate": f"{rate_bps:.0f}bps",
                "delay": f"{delay_s * 1e3:g}ms",
                "queue": {"kind": "droptail", "limit_pkts": 1000},
            }
        ],
        "flows": [{"kind": "tcp", "src": "A", "dst": "B", "cc": "reno"}],
    }
    out: dict[str, Any] = {"rate_bps": rate_bps, "delay_s": delay_s}
    with Testbed() as bed:
        path = EmulatedPath(bed, sc.dumps(doc), "A", "B", 1, 1500)
        for name, size, count, rate in (
            ("delay", 200, 100, (200 + 28) * 8 / 0.02),
            ("rate", 1000, int(seconds * 1.25 * rate_bps / (1028 * 8)), 1.25 * rate_bps),
        ):
            ready = Path(f"/tmp/{bed.prefix}.{name}.ready")
            bed.files.append(ready)
            sink = bed.spawn(
                path.rcv,
                [
                    "python3",
                    probe,
                    "sink",
                    "--bind",
                    DST_ADDR,
                    "--port",
                    "6001",
                    "--seconds",
                    str(seconds + 30),
                    "--ready-file",
                    str(ready),
                ],
            )
            wait_file(ready)
            src = bed.spawn(
                path.snd,
                [
                    "python3",
                    probe,
                    "source",
                    "--to",
                    DST_ADDR,
                    "--port",
                    "6001",
                    "--rate-bps",
                    str(rate),
                    "--size",
                    str(size),
                    "--count",
                    str(count),
                ],
            )
            read_json_line(src, timeout=seconds * 3 + 60)
            pkts = read_json_line(sink, timeout=seconds + 60)["packets"]
            if name == "delay":
                model = [delay_s + p[3] * 8 / rate_bps for p in pkts]
                err_ms = [((p[2] - p[1]) / 1e9 - m) * 1e3 for p, m in zip(pkts, model)]
                out["delay_packets"] = len(pkts)
                out["one_way_ms_median"] = statistics.median((p[2] - p[1]) / 1e6 for p in pkts)
                out["delay_error_ms_median"] = statistics.median(err_ms)
                out["delay_error_ms_p95"] = sorted(abs(e) for e in err_ms)[int(0.95 * (len(err_ms) - 1))]
                out["delay_error_ms_max"] = max(err_ms, key=abs)
            else:
                pkts.sort(key=lambda p: p[2])
                span = (pkts[-1][2] - pkts[0][2]) / 1e9
                out["rate_packets"] = len(pkts)
                out["delivered_bps"] = sum(p[3] for p in pkts[1:]) * 8 / span
                out["rate_error"] = out["delivered_bps"] / rate_bps - 1
        out["relay"] = path.stop()
    return out


def dump(obj: Any, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj, indent=1) + "\n")
