"""The BPF congestion controls in the running kernel (issue 7): each registers, appears in
tcp_available_congestion_control, carries a real transfer between two namespaces over veth (shaped
to 10 Mb/s by tbf so that the window matters), shows in `ss -ti` on that connection — and afterwards
no namespace, interface, struct_ops or process of ours remains, also when the body fails.

Skipped, with the reason, where root, BPF (clang/bpftool/BTF) or network namespaces are missing.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from airtcp import testbed as tb

REASON = tb.unavailable_reason()
pytestmark = pytest.mark.skipif(REASON is not None, reason=f"kernel testbed unavailable: {REASON}")

SECONDS = 1.5


def _leftovers(prefix: str, pids: list[int], names: list[str], ids: list[int]) -> list[str]:
    left = [f"netns {n}" for n in tb.list_netns() if n.startswith(prefix)]
    left += [f"struct_ops id {i}" for i, _ in tb.struct_ops_maps() if i in ids]
    left += [f"cc {n}" for n in tb.available_cc() if n in names]
    left += [f"pid {p}" for p in pids if not tb.process_gone(p)]
    return left


def _transfer(bed: tb.Testbed, cc: str, port: int) -> tuple[dict, list[dict]]:
    snd, rcv = bed.netns("s"), bed.netns("r")
    a, b = bed.veth(snd, "10.79.0.1", rcv, "10.79.0.2")
    for ns, dev in ((snd, a), (rcv, b)):
        bed.run_in(
            ns, ["tc", "qdisc", "add", "dev", dev, "root", "tbf", "rate", "10mbit", "burst", "20kb", "latency", "50ms"]
        )
    bed.register(cc)
    assert cc in tb.available_cc()
    ready = Path(f"/tmp/{bed.prefix}.ready")
    ready.unlink(missing_ok=True)
    sink = bed.spawn(rcv, tb.bulk_argv("sink", bind="10.79.0.2", port=port, cc=cc, seconds=SECONDS, ready_file=ready))
    tb.wait_file(ready)
    ready.unlink()
    src = bed.spawn(snd, tb.bulk_argv("source", to="10.79.0.2", port=port, cc=cc, seconds=SECONDS))
    time.sleep(SECONDS / 2)
    seen = tb.ss_connections(bed, snd, "10.79.0.2")
    src_out = tb.read_json_line(src, timeout=SECONDS + 30)
    sink_out = tb.read_json_line(sink, timeout=30)
    assert src_out["cc"] == cc and sink_out["cc"] == cc
    return sink_out, seen


@pytest.mark.parametrize("cc", ["atcp_westwood", "atcp_jersey", "atcp_newjersey", "atcp_njplus"])
def test_bpf_cc_carries_a_transfer_and_leaves_nothing(cc: str) -> None:
    with tb.Testbed() as bed:
        prefix = bed.prefix
        sink_out, seen = _transfer(bed, cc, 5201)
        pids, ids = bed.pids(), bed.struct_ops_ids()
    # ss saw our algorithm on the data connection, with a window.
    assert any(c["cc"] == cc and int(c.get("cwnd", "0")) > 0 for c in seen), seen
    # The transfer went through the 10 Mb/s shaper at a sane rate (not a stall).
    assert 2e6 < sink_out["goodput_bps"] < 10.5e6, sink_out
    assert _leftovers(prefix, pids, [cc], ids) == []


def test_teardown_after_an_error_inside() -> None:
    """An exception in the body (after namespaces, a registration and a process exist) still
    removes all of them."""
    with pytest.raises(RuntimeError, match="boom"):
        with tb.Testbed() as bed:
            prefix = bed.prefix
            ns = bed.netns("s")
            bed.register("atcp_jersey")
            p = bed.spawn(ns, ["sleep", "60"])
            pids, ids = [p.pid], bed.struct_ops_ids()
            raise RuntimeError("boom")
    assert _leftovers(prefix, pids, ["atcp_jersey"], ids) == []


def test_default_cc_outside_the_allowed_list_is_refused() -> None:
    """The issue's caution: never make a non-allowed BPF algorithm a namespace default."""
    allowed = tb.ALLOWED.read_text().split()
    if "atcp_jersey" in allowed:
        pytest.skip("atcp_jersey is in tcp_allowed_congestion_control on this machine")
    with pytest.raises(tb.TestbedError, match="cc: atcp_jersey is not in net.ipv4.tcp_allowed_congestion_control"):
        tb.set_default_cc("unused", "atcp_jersey")


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_teardown_on_interrupt(sig: str) -> None:
    """Ctrl-C (SIGINT) or SIGTERM while a testbed is up: the process exits and leaves nothing."""
    import json
    import subprocess
    import sys

    code = f"""
import json, os, signal, sys, time
from airtcp import testbed as tb
with tb.Testbed() as bed:
    ns = bed.netns("s")
    bed.register("atcp_westwood")
    p = bed.spawn(ns, ["sleep", "60"])
    print(json.dumps({{"prefix": bed.prefix, "pids": bed.pids(), "ids": bed.struct_ops_ids()}}), flush=True)
    os.kill(os.getpid(), signal.{sig})
    time.sleep(30)
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode != 0 and "KeyboardInterrupt" in r.stderr, r.stderr[-500:]
    info = json.loads(r.stdout.splitlines()[0])
    assert _leftovers(info["prefix"], info["pids"], ["atcp_westwood"], info["ids"]) == []


def test_testbed_run_cli_over_the_emulated_path(tmp_path: Path) -> None:
    """`airtcp testbed run` on the Fig. 10 path (CW queue, 1% loss) with BPF jersey for 4 s: ss shows
    atcp_jersey on the connection, data got through the relay (goodput below the 2 Mb/s bottleneck),
    the relay's own counters saw the transfer, and nothing of ours remains."""
    import json

    from conftest import REPO, run_cli

    if tb.unavailable_reason(need_tun=True):
        pytest.skip(f"kernel testbed unavailable: {tb.unavailable_reason(need_tun=True)}")
    before = set(tb.list_netns())
    maps_before = set(tb.struct_ops_maps())
    out = tmp_path / "runs.json"
    r = run_cli(
        "testbed",
        "run",
        str(REPO / "experiments" / "jersey" / "fig10.toml"),
        "--cc",
        "jersey",
        "--set",
        'flows.0.cc="jersey"',
        "--set",
        "flows.0.ecn=true",
        "--duration",
        "4s",
        "--out",
        str(out),
    )
    assert r.returncode == 0, r.stderr
    res = json.loads(out.read_text())
    f = res[0]["flows"][0]
    assert f["ss_cc"] == ["atcp_jersey"]
    assert 100e3 < f["goodput_bps"] < 2e6
    bottleneck = next(h for h in res[0]["links"] if h["link"] == "BS->D")
    assert bottleneck["packets_sent"] > 0 and bottleneck["bytes_sent"] >= f["delivered_bytes"]
    assert set(tb.list_netns()) == before
    assert "atcp_jersey" not in tb.available_cc()
    assert maps_before >= set(tb.struct_ops_maps())


def test_relay_carries_corruption_and_the_kernel_drops_it_by_checksum() -> None:
    """Issue 27 part 3: a corrupting channel on the wireless hop (2% of data packets hit, the
    engine's `effect = "corruption"`) makes the relay deliver those segments with a damaged payload;
    the receiving kernel's TCP checksum catches every one (its InCsumErrors equals the relay's
    count), and the transfer goes on around them."""
    import copy

    from airtcp import scenario as sc
    from airtcp.testbed import emulate
    from conftest import REPO

    if tb.unavailable_reason(need_tun=True):
        pytest.skip(f"kernel testbed unavailable: {tb.unavailable_reason(need_tun=True)}")
    doc = copy.deepcopy(sc.load(REPO / "examples" / "jersey_fig10.toml"))
    doc["duration"], doc["warmup"] = "4s", "0s"
    doc["links"][1]["channel"] = {"kind": "uniform", "loss": 0.02, "effect": "corruption"}
    r = emulate.run_scenario(doc, "reno", seed=3, sample_ms=500)
    f = r["flows"][0]
    hop = next(h for h in r["links"] if h["link"] == "BS->D")
    assert hop["corruptions"] > 5, hop
    assert f["corrupted_delivered"] == hop["corruptions"]
    assert f["receiver_checksum_errors"] == f["corrupted_delivered"]
    assert f["retransmissions"] >= f["corrupted_delivered"] and f["goodput_bps"] > 100e3, f


def test_testbed_carries_kernel_tcp_over_a_recorded_cellular_trace() -> None:
    """Issue 27 part 2: kernel Reno over `cellular-verizon-lte-short`'s trace pair for 4 s. The
    relay replays the traces from the same start offset as the simulator for that seed (the
    simulator's summary reports it), and never sends more on the trace link than the trace offered
    while it ran (its model time starts with it), counted from the trace file: one 1500-B
    opportunity per line."""
    import copy

    import airtcp
    from airtcp import scenario as sc
    from airtcp.reproduce.capacity import opportunities_in, parse_trace
    from airtcp.reproduce.spec import traces_dir
    from airtcp.testbed import emulate
    from conftest import REPO

    if tb.unavailable_reason(need_tun=True):
        pytest.skip(f"kernel testbed unavailable: {tb.unavailable_reason(need_tun=True)}")
    down = traces_dir() / "Verizon-LTE-short.down"
    if not down.exists():
        pytest.skip(f"mahimahi traces not found in {traces_dir()} (set AIRTCP_TRACES)")
    doc = copy.deepcopy(sc.load(REPO / "experiments" / "cellular" / "verizon-lte-short.toml"))
    doc["duration"], doc["warmup"] = "4s", "0s"
    for key in ("capacity", "reverse_capacity"):
        doc["links"][1][key]["file"] = str(traces_dir() / doc["links"][1][key]["file"])
    r = emulate.run_scenario(doc, "reno", seed=2, sample_ms=500)
    f = r["flows"][0]
    assert f["ss_cc"] == ["reno"] and f["goodput_bps"] > 0, f
    offset_s = next(lk for lk in airtcp.run(sc.dumps(doc), seed=2).summary["links"] if lk["name"] == "bs->phone")[
        "trace_offset_s"
    ]
    end_ns = round(r["relay_elapsed_s"] * 1e9)
    offered = opportunities_in(parse_trace(down.read_text()), round(offset_s * 1e9), 0, end_ns)
    hop = next(h for h in r["links"] if h["link"] == "bs->phone")
    assert 0 < hop["bytes_sent"] <= (offered + 1) * 1500, (hop, offered)
    assert f["delivered_bytes"] <= hop["bytes_sent"]
    # The model-time window [0 s, 4 s] counts what the sink read by model time 4 s: some, and at
    # most everything it read.
    assert 0 < f["model_window_goodput_bps"] * 4 / 8 <= f["delivered_bytes"], f
    assert f["tcp_options"] & 1, "timestamps negotiated"


def test_usec_timestamps_are_negotiated_through_the_route_feature() -> None:
    """`run_scenario(..., usec_timestamps=True)` gives both routes the `tcp_usec_ts` feature:
    the connection then reports TCPI_OPT_USEC_TS (64) in tcpi_options; without it, it does not."""
    import copy
    import platform

    from airtcp import scenario as sc
    from airtcp.testbed import emulate
    from conftest import REPO

    if tb.unavailable_reason(need_tun=True):
        pytest.skip(f"kernel testbed unavailable: {tb.unavailable_reason(need_tun=True)}")
    if tuple(int(x) for x in platform.release().split(".")[:2]) < (6, 7):
        pytest.skip(f"tcp_usec_ts needs Linux 6.7 (this is {platform.release()})")
    doc = copy.deepcopy(sc.load(REPO / "examples" / "jersey_fig10.toml"))
    doc["duration"], doc["warmup"] = "2s", "0s"
    for usec in (False, True):
        f = emulate.run_scenario(doc, "reno", seed=1, sample_ms=500, usec_timestamps=usec)["flows"][0]
        assert bool(f["tcp_options"] & 64) == usec, f


def test_tcp_checksum_errors_reads_the_snmp_table() -> None:
    from airtcp.testbed import emulate

    snmp = "Ip: Forwarding DefaultTTL\nIp: 1 64\nTcp: RtoAlgorithm InErrs InCsumErrors\nTcp: 1 7 5\n"
    assert emulate.tcp_checksum_errors(snmp) == 5
    with pytest.raises(tb.TestbedError, match="InCsumErrors"):
        emulate.tcp_checksum_errors("Tcp: RtoAlgorithm\nTcp: 1\n")


def test_testbed_run_rejects_a_scheme_without_kernel_counterpart() -> None:
    from conftest import REPO, run_cli

    r = run_cli("testbed", "run", str(REPO / "examples" / "jersey_fig10.toml"), "--cc", "vegas", "--duration", "1s")
    assert r.returncode == 2
    assert r.stderr.strip().startswith("error: cc: vegas has no kernel counterpart"), r.stderr


def test_tcp_counters_reads_snmp_and_netstat_tables() -> None:
    from airtcp.testbed import emulate

    text = (
        "Tcp: RtoAlgorithm RetransSegs InCsumErrors\nTcp: 1 68 0\n"
        "TcpExt: SyncookiesSent TCPTimeouts TCPLossUndo\nTcpExt: 0 3 2\n"
        "IpExt: InNoRoutes\nIpExt: 4\n"
    )
    assert emulate.tcp_counters(text) == {
        "TcpRtoAlgorithm": 1,
        "TcpRetransSegs": 68,
        "TcpExtTCPTimeouts": 3,
        "TcpExtTCPLossUndo": 2,
    }


def test_model_window_goodput_counts_the_relays_model_time_window() -> None:
    """The sink's arrivals are on CLOCK_MONOTONIC; the relay's model time 0 is at 100.0 s there.
    Bytes read by 103.0 s: 1000; by 120.0 s: 18000 -> 17000 B over the 17-s window [3 s, 20 s]."""
    from airtcp.testbed import emulate

    arrivals = [[100.5, 200], [102.99, 1000], [103.01, 1500], [110.0, 9000], [120.0, 18000], [121.0, 19000]]
    assert emulate.bytes_between(arrivals, 103.0, 120.0) == 17000
    assert emulate.bytes_between(arrivals, 0.0, 100.0) == 0
    relay = {"model_start_monotonic_ns": 100_000_000_000}
    got = emulate.model_window_goodput({"arrivals": arrivals}, relay, 3.0, 20.0)
    assert got == pytest.approx(17000 * 8 / 17)
    assert emulate.model_window_goodput({"arrivals": arrivals}, {"model_start_monotonic_ns": None}, 3.0, 20.0) is None


def test_route_request_carries_the_features_metric() -> None:
    """RTM_NEWROUTE for 10.78.2.1/32 via ifindex 7 with tcp_usec_ts (RTAX_FEATURE_TCP_USEC_TS = 0x10):
    nlmsghdr (16 B) + rtmsg (12 B) + RTA_DST (8 B) + RTA_OIF (8 B) + RTA_METRICS{RTAX_FEATURES} (4 + 8 B)."""
    import struct

    from airtcp.testbed import route

    msg = route.route_request("10.78.2.1", 7, route.FEATURES["tcp_usec_ts"], seq=9)
    length, kind, flags, seq, _ = struct.unpack_from("=IHHII", msg)
    assert (length, kind, seq) == (len(msg), 24, 9) == (56, 24, 9)
    assert flags & 0x100 and flags & 0x1  # NLM_F_REPLACE, NLM_F_REQUEST
    assert msg[16:18] == bytes([2, 32])  # AF_INET, dst_len 32
    assert msg[28:36] == struct.pack("=HH", 8, 1) + bytes([10, 78, 2, 1])
    assert msg[36:44] == struct.pack("=HHi", 8, 4, 7)
    assert msg[44:56] == struct.pack("=HHHHI", 12, 8, 8, 12, 0x10)
    with pytest.raises(ValueError, match="features: sack unknown"):
        route.set_route_features("10.78.2.1", "lo", ["sack"])
