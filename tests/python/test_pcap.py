"""`airtcp run --pcap`: every capture file read by tshark without a complaint, its totals equal
to the run's summary, and Wireshark's own TCP analysis agreeing with airtcp's counters.

tshark is Debian's `tshark` (`make test-deps` installs it; CI does). Without it these tests
skip, except under CI, where a missing tshark fails them.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
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
        r = _tshark("-r", str(f), "-q", "-z", "io,stat,0")
        assert r.returncode == 0 and not _complaints(r.stderr), (f, r.stderr)
        # The io,stat table's one row: | 0.0 <> end | frames | bytes |
        row = [ln for ln in r.stdout.splitlines() if "<>" in ln and "|" in ln][-1]
        frames, nbytes = (int(c.strip()) for c in row.split("|")[2:4])
        assert (frames, nbytes) == (link["packets_sent"], link["bytes_sent"]), (name, row)
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


def test_wireshark_tcp_analysis_agrees_with_airtcp(captured, tmp_path):
    pcap, summary = captured
    ftp = next(f for f in summary["flows"] if f["name"] == "ftp")
    assert ftp["retransmissions"] > 0
    # The sender's access link, both directions, merged into one capture as tcpdump on S would
    # see it.
    merged = tmp_path / "S.pcapng"
    mergecap = shutil.which("mergecap")
    assert mergecap is not None
    subprocess.run([mergecap, "-w", str(merged), str(pcap / "S-to-BS.pcap"), str(pcap / "BS-to-S.pcap")], check=True)
    tcp_data = "tcp && ip.src == 10.0.0.1 && tcp.len > 0"
    r = _tshark("-r", str(merged), "-Y", tcp_data)
    assert len(r.stdout.splitlines()) == ftp["packets_sent"]
    r = _tshark("-r", str(merged), "-Y", "tcp.analysis.retransmission && ip.src == 10.0.0.1")
    assert len(r.stdout.splitlines()) == ftp["retransmissions"]
    # Every byte the receiver delivered is acknowledged: the highest ACK on the wire is the
    # flow's byte count (sequence numbers start at 0, so the raw ACK number is the offset).
    r = _tshark("-r", str(merged), "-Y", "ip.src == 10.0.0.3 && tcp", "-T", "fields", "-e", "tcp.ack_raw")
    acks = [int(x) for x in r.stdout.split()]
    assert max(acks) == ftp["delivered_bytes"] == 3_000_000
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
