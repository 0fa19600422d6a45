"""`airtcp run --pcap`: every capture file read by tshark without a complaint, its totals equal
to the run's summary, Wireshark's own TCP analysis agreeing with airtcp's counters, every TCP flow
opening with a handshake that announces the options it uses (window scale, SACK-permitted,
timestamps, ECN setup), and a file per host holding exactly the frames the host sent and received.

tshark is Debian's `tshark` (`make test-deps` installs it; CI does). Without it these tests
skip, except under CI, where a missing tshark fails them.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import struct
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from conftest import run_cli

TSHARK = shutil.which("tshark")
if TSHARK is None and os.environ.get("CI") != "true":
    pytest.skip("tshark not installed (make test-deps installs it)", allow_module_level=True)

# The Fig. 10 path with everything the capture must show: a SACK + timestamps + ECN TCP flow
# and a CBR sharing a small RED/ECN queue at BS (drops and CE marks), 1% channel loss on the
# wireless hop, 0.5% corruption on the wired one, and a big buffer at S (every segment the sender emits is on the
# S->BS wire, so Wireshark sees all its retransmissions there). Both flows end well before the
# run does, so no packet is still inside a link at the end and the captures hold everything.
SCENARIO = """
name = "pcap-check"
duration = "40s"
nodes = ["S", "BS", "D"]

[[links]]
from = "S"
to = "BS"
rate = "10Mbps"
delay = "45ms"
queue = { kind = "droptail", limit_pkts = 1000 }
channel = { kind = "uniform", loss = 0.005, effect = "corruption" }

[[links]]
from = "BS"
to = "D"
rate = "2Mbps"
delay = "1ms"
queue = { kind = "red", limit_pkts = 25, min_th_pkts = 3, max_th_pkts = 10, weight = 0.02, ecn = true }
channel = { kind = "uniform", loss = 0.01 }

[[flows]]
kind = "tcp"
name = "ftp"
src = "S"
dst = "D"
recovery = "sack"
sack = true
timestamps = true
ecn = true
bytes = "3MB"

[[flows]]
kind = "cbr"
name = "cbr"
src = "S"
dst = "D"
packet_bytes = 500
rate = "300kbps"
stop = "20s"
"""


def _tshark(*args: str) -> subprocess.CompletedProcess[str]:
    assert TSHARK is not None, "tshark is required under CI (make test-deps)"
    return subprocess.run([TSHARK, *args], capture_output=True, text=True, timeout=120)


def _flag(v: str) -> bool:
    """A boolean field as tshark prints it: 1/0 (Wireshark 4.0), True/False (4.2 on)."""
    assert v in ("0", "1", "False", "True"), v
    return v in ("1", "True")


def _complaints(stderr: str) -> list[str]:
    # tshark's note about running as root is about the machine, not the file.
    return [ln for ln in stderr.splitlines() if ln.strip() and "Running as user" not in ln]


@pytest.fixture(scope="module")
def captured(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    tmp = tmp_path_factory.mktemp("pcap")
    scen = tmp / "pcap.toml"
    scen.write_text(SCENARIO)
    out = tmp / "out"
    r = run_cli("run", str(scen), "--out", str(out), "--pcap", "--seed", "3")
    assert r.returncode == 0, r.stderr
    return out / "pcap", json.loads((out / "summary.json").read_text())


def test_every_file_reads_without_complaint_and_its_totals_match_the_summary(captured):
    pcap, summary = captured
    links = {ln["name"]: ln for ln in summary["links"]}
    files = sorted(pcap.glob("*.pcap"))
    assert len(files) == 4
    for f in files:
        name = f.stem.replace("-to-", "->")
        link = links[name]
        assert link["held_packets"] == 0, "the scenario must let every link drain"
        # The engine's packets: every frame but the synthetic handshake (module doc of pcap.rs).
        r = _tshark("-r", str(f), "-Y", "!(tcp.flags.syn == 1)", "-T", "fields", "-e", "frame.len")
        assert r.returncode == 0 and not _complaints(r.stderr), (f, r.stderr)
        lens = [int(x) for x in r.stdout.split()]
        assert (len(lens), sum(lens)) == (link["packets_sent"], link["bytes_sent"]), name
        # One handshake segment for the one TCP flow: its SYN on the data's way, its SYN-ACK back.
        r = _tshark("-r", str(f), "-Y", "tcp.flags.syn == 1", "-T", "fields", "-e", "tcp.flags.ack")
        assert [_flag(x) for x in r.stdout.split()] == [name in ("BS->S", "D->BS")], name
        # Dissection itself reports nothing malformed.
        r = _tshark("-r", str(f), "-Y", "_ws.malformed || _ws.expert.severity == error")
        assert r.returncode == 0 and r.stdout.strip() == "", (f, r.stdout[:500])


def test_the_event_log_accounts_for_every_drop_loss_and_corruption(captured):
    pcap, summary = captured
    with open(pcap / "events.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    by = Counter((r["link"], r["fate"]) for r in rows)
    for link in summary["links"]:
        n = link["name"]
        assert by[(n, "queue-drop")] == link["overflow_drops"] + link["early_drops"], n
        assert by[(n, "channel-loss")] == link["channel_losses"], n
        assert by[(n, "corrupted")] == link["corruptions"], n
    bs_d = next(ln for ln in summary["links"] if ln["name"] == "BS->D")
    s_bs = next(ln for ln in summary["links"] if ln["name"] == "S->BS")
    exercised = (
        bs_d["overflow_drops"] + bs_d["early_drops"] > 0 and bs_d["channel_losses"] > 0 and s_bs["corruptions"] > 0
    )
    assert exercised, "the scenario must exercise every fate"
    times = [float(r["time_s"]) for r in rows]
    assert all(0 <= t <= summary["end_time_s"] for t in times)


def test_wireshark_tcp_analysis_agrees_with_airtcp(captured):
    pcap, summary = captured
    ftp = next(f for f in summary["flows"] if f["name"] == "ftp")
    assert ftp["retransmissions"] > 0
    # The sender's own file: what tcpdump on S sees.
    merged = pcap / "hosts" / "S.pcap"
    tcp_data = "tcp && ip.src == 10.0.0.1 && tcp.len > 0"
    r = _tshark("-r", str(merged), "-Y", tcp_data)
    assert len(r.stdout.splitlines()) == ftp["packets_sent"]
    r = _tshark("-r", str(merged), "-Y", "tcp.analysis.retransmission && ip.src == 10.0.0.1")
    assert len(r.stdout.splitlines()) == ftp["retransmissions"]
    # Every byte the receiver delivered is acknowledged: the highest ACK on the wire is the
    # flow's byte count (the first data byte is sequence number 0, so the raw ACK number is the
    # offset; Wireshark's relative one is one more, the SYN's).
    r = _tshark("-r", str(merged), "-Y", "ip.src == 10.0.0.3 && tcp", "-T", "fields", "-e", "tcp.ack_raw")
    acks = [int(x) for x in r.stdout.split()]
    assert max(acks) == ftp["delivered_bytes"] == 3_000_000
    r = _tshark("-r", str(merged), "-Y", "ip.src == 10.0.0.3 && tcp", "-T", "fields", "-e", "tcp.ack")
    assert max(int(x) for x in r.stdout.split()) == 3_000_001
    # The options are on the wire: SACK blocks in some ACKs, timestamps on every segment.
    r = _tshark("-r", str(merged), "-Y", "tcp.options.sack_le", "-T", "fields", "-e", "frame.number")
    assert len(r.stdout.split()) > 0
    r = _tshark("-r", str(merged), "-Y", "tcp && !tcp.options.timestamp.tsval")
    assert r.stdout.strip() == ""


def test_ce_marks_are_on_the_wire_after_the_marking_queue(captured):
    pcap, summary = captured
    bs_d = next(ln for ln in summary["links"] if ln["name"] == "BS->D")
    assert bs_d["ce_marks"] > 0
    r = _tshark("-r", str(pcap / "BS-to-D.pcap"), "-Y", "ip.dsfield.ecn == 3", "-T", "fields", "-e", "frame.number")
    assert len(r.stdout.split()) == bs_d["ce_marks"]


def test_pcap_needs_the_output_folder(tmp_path):
    scen = tmp_path / "s.toml"
    scen.write_text(SCENARIO)
    r = run_cli("run", str(scen), "--pcap", "--no-write")
    assert r.returncode == 2
    assert r.stderr.strip().count("\n") == 0 and "--pcap" in r.stderr


# Two TCP flows without SACK, timestamps or ECN, across a router, each with its own window: 20 x
# 1460 B = 29,200 B fits the 16-bit field (shift 0), 3000 x 1000 B = 3 MB needs shift 6
# (3e6 >> 5 = 93,750 > 65,535 >= 3e6 >> 6 = 46,875).
PLAIN = """
name = "pcap-plain"
duration = "3s"
nodes = ["A", "R", "B"]

[[links]]
from = "A"
to = "R"
rate = "10Mbps"
delay = "5ms"

[[links]]
from = "R"
to = "B"
rate = "5Mbps"
delay = "10ms"

[[flows]]
kind = "tcp"
name = "small"
src = "A"
dst = "B"
mss_bytes = 1460
rwnd_pkts = 20
bytes = "200KB"

[[flows]]
kind = "tcp"
name = "big"
src = "B"
dst = "A"
cc = "cubic"
rwnd_pkts = 3000
start = "0.5s"
bytes = "300KB"
"""

FIELDS = (
    "frame.number",
    "ip.src",
    "tcp.srcport",
    "tcp.dstport",
    "tcp.flags.syn",
    "tcp.flags.ack",
    "tcp.flags.ece",
    "tcp.flags.cwr",
    "tcp.options.mss_val",
    "tcp.options.wscale.shift",
    "tcp.options.sack_perm",
    "tcp.options.timestamp.tsval",
    "tcp.window_size",
    "tcp.window_size_scalefactor",
    "tcp.len",
)


def _rows(path: Path) -> list[dict[str, str]]:
    """One dict per TCP frame of the file, the FIELDS as tshark reads them."""
    args = ["-r", str(path), "-Y", "tcp", "-T", "fields", "-E", "separator=;"]
    for f in FIELDS:
        args += ["-e", f]
    r = _tshark(*args)
    assert r.returncode == 0 and not _complaints(r.stderr), r.stderr
    return [dict(zip(FIELDS, ln.split(";"))) for ln in r.stdout.splitlines()]


def _shift(rwnd: int) -> int:
    """RFC 7323's window scale for a receive window of `rwnd` bytes: the smallest that fits."""
    return next(s for s in range(15) if rwnd >> s <= 65535)


def _check_flow(rows: list[dict[str, str]], sender_ip: str, port: int, rwnd: int, opts: dict) -> None:
    """The flow's frames in a host's file: SYN then SYN-ACK first, with the flow's options; every
    later segment's window the receive window as the announced scale gives it back."""
    flow = [r for r in rows if port in (int(r["tcp.srcport"]), int(r["tcp.dstport"]))]
    syn, syn_ack, rest = flow[0], flow[1], flow[2:]
    flags = lambda r, *names: tuple(_flag(r[f"tcp.flags.{n}"]) for n in names)  # noqa: E731
    assert flags(syn, "syn", "ack") == (True, False) and syn["ip.src"] == sender_ip
    assert flags(syn_ack, "syn", "ack") == (True, True)
    assert (int(syn["tcp.srcport"]), int(syn["tcp.dstport"])) == (port, 5001), "ephemeral port to iperf's"
    shift = _shift(rwnd)
    for h in (syn, syn_ack):
        assert int(h["tcp.options.wscale.shift"]) == shift
        assert int(h["tcp.options.mss_val"]) == opts["mss"]
        assert (h["tcp.options.sack_perm"] != "") == opts["sack"]
        assert (h["tcp.options.timestamp.tsval"] != "") == opts["timestamps"]
        assert int(h["tcp.window_size"]) == min(rwnd, 65535), "a SYN's window is never scaled"
    # RFC 3168 §6.1.1: an ECN-setup SYN has ECE and CWR, an ECN-setup SYN-ACK ECE only.
    assert flags(syn, "ece", "cwr") == (opts["ecn"], opts["ecn"])
    assert flags(syn_ack, "ece", "cwr") == (opts["ecn"], False)
    assert rest and not any(flags(r, "syn")[0] for r in rest), "one handshake, before the rest"
    for r in rest:
        assert int(r["tcp.window_size_scalefactor"]) == 2**shift
        assert int(r["tcp.window_size"]) == (rwnd >> shift) << shift


def test_every_tcp_flow_opens_with_a_handshake_announcing_its_options(captured, tmp_path):
    pcap, _ = captured
    # ftp: flow 0, S (10.0.0.1) -> D, SACK + timestamps + ECN, the default 1000 x 1000 B window.
    for host in ("S", "D"):
        opts = {"mss": 1000, "sack": True, "timestamps": True, "ecn": True}
        _check_flow(_rows(pcap / "hosts" / f"{host}.pcap"), "10.0.0.1", 49152, 1000 * 1000, opts)
    scen = tmp_path / "plain.toml"
    scen.write_text(PLAIN)
    out = tmp_path / "out"
    r = run_cli("run", str(scen), "--out", str(out), "--pcap", "--seed", "1")
    assert r.returncode == 0, r.stderr
    plain = {"sack": False, "timestamps": False, "ecn": False}
    for host in ("A", "B"):
        rows = _rows(out / "pcap" / "hosts" / f"{host}.pcap")
        _check_flow(rows, "10.0.0.1", 49152, 20 * 1460, {"mss": 1460, **plain})
        _check_flow(rows, "10.0.0.3", 49153, 3000 * 1000, {"mss": 1000, **plain})
    # The router sees each handshake segment arrive and leave: two SYNs and two SYN-ACKs a flow.
    rows = _rows(out / "pcap" / "hosts" / "R.pcap")
    for port in (49152, 49153):
        ours = [r for r in rows if port in (int(r["tcp.srcport"]), int(r["tcp.dstport"]))]
        hs = [_flag(r["tcp.flags.ack"]) for r in ours if _flag(r["tcp.flags.syn"])]
        assert hs == [False, False, True, True], port
    # A link's own file has the scale from its one handshake segment (the SYN-ACK on the ACKs' way).
    rows = _rows(out / "pcap" / "R-to-A.pcap")
    acks = [r for r in rows if int(r["tcp.dstport"]) == 49152 and not _flag(r["tcp.flags.syn"])]
    assert acks and all(int(r["tcp.window_size"]) == 20 * 1460 for r in acks)


def _records(path: Path) -> list[tuple[int, int, bytes]]:
    """(time in ns, original length, captured bytes) of every record of a classic pcap file."""
    data = path.read_bytes()
    magic, _, _, _, _, _, linktype = struct.unpack("<IHHiIII", data[:24])
    assert magic == 0xA1B23C4D and linktype == 101
    out, i = [], 24
    while i < len(data):
        sec, nsec, incl, orig = struct.unpack("<IIII", data[i : i + 16])
        out.append((sec * 1_000_000_000 + nsec, orig, data[i + 16 : i + 16 + incl]))
        i += 16 + incl
    return out


def _is_handshake(rec: bytes) -> bool:
    return rec[9] == 6 and bool(rec[20 + 13] & 0x02)  # TCP with SYN set


def test_each_host_file_holds_what_the_host_sent_and_received_in_time_order(captured):
    pcap, summary = captured
    links = summary["links"]
    # Handshake records per host for the one TCP flow S -> BS -> D: a router sees both arrive and leave.
    handshakes = {"S": 2, "BS": 4, "D": 2}
    for host in ("S", "BS", "D"):
        recs = _records(pcap / "hosts" / f"{host}.pcap")
        times = [t for t, _, _ in recs]
        assert times == sorted(times), host
        sent = sum(ln["packets_sent"] for ln in links if ln["name"].split("->")[0] == host)
        received = sum(ln["arrived_packets"] for ln in links if ln["name"].split("->")[1] == host)
        assert len(recs) == sent + received + handshakes[host], host
        assert sum(_is_handshake(b) for _, _, b in recs) == handshakes[host]
    # What S sent is its outgoing link's file, record for record (handshake aside); what it
    # received, the frames of BS->S (the channel lost none there), each after it was sent.
    s = [r for r in _records(pcap / "hosts" / "S.pcap") if not _is_handshake(r[2])]
    s_ip = bytes([10, 0, 0, 1])
    out_link = [r for r in _records(pcap / "S-to-BS.pcap") if not _is_handshake(r[2])]
    assert [r for r in s if r[2][12:16] == s_ip] == out_link
    back = [r for r in _records(pcap / "BS-to-S.pcap") if not _is_handshake(r[2])]
    got = [r for r in s if r[2][12:16] != s_ip]
    assert [(o, b) for _, o, b in got] == [(o, b) for _, o, b in back]
    assert all(g[0] > b[0] for g, b in zip(got, back))


@pytest.mark.parametrize("umask", [0o022, 0o077])
def test_capture_folders_and_files_are_readable_like_the_other_outputs(tmp_path, umask):
    """Every folder and file of the output as mkdir and open make them under the user's umask
    (the capture's folder was 0700 under the usual 022, issue 40)."""
    scen = tmp_path / "s.toml"
    scen.write_text(PLAIN)
    out = tmp_path / "out"
    old = os.umask(umask)
    try:
        r = run_cli("run", str(scen), "--out", str(out), "--pcap")
    finally:
        os.umask(old)
    assert r.returncode == 0, r.stderr
    dirs = [p for p in out.rglob("*") if p.is_dir()] + [out]
    files = [p for p in out.rglob("*") if p.is_file()]
    assert {p.relative_to(out).as_posix() for p in dirs} == {".", "pcap", "pcap/hosts"}
    assert len([f for f in files if "pcap" in f.parts]) == 4 + 3 + 1  # four link directions, three hosts, events.csv
    assert "summary.json" in {f.name for f in files}
    assert {p.stat().st_mode & 0o777 for p in dirs} == {0o777 & ~umask}
    assert {p.stat().st_mode & 0o777 for p in files} == {0o666 & ~umask}
