"""Issue 38 item 4: the CE marks a link's summary counts (`ce_marks`) against its capture.

A queue marks a packet when it admits it; the channel may lose it afterwards, on the wire. The
capture, taken at the transmitter, holds that frame with the mark (as tcpdump on the sending
interface would) and the event log names its loss. A marked packet still waiting in the queue at
the end was never on the wire: the summary counts those in `ce_marks_unsent`. So the capture's
CE-marked frames are exactly `ce_marks − ce_marks_unsent`, the lost ones included. The capture is
read here without tshark: classic libpcap, nanosecond timestamps, LINKTYPE_RAW (IPv4 first).
"""

from __future__ import annotations

import csv
import json
import struct
from pathlib import Path

import pytest

from conftest import run_cli

# TCP-Jersey on the Fig. 10 path behind a CW queue at the base station, 1% channel loss on the
# marked hop: marked segments are lost there too.
SCENARIO = """
name = "jersey-cw-pcap"
duration = "30s"
nodes = ["S", "BS", "D"]

[[links]]
from = "S"
to = "BS"
rate = "10Mbps"
delay = "45ms"
queue = { kind = "droptail", limit_pkts = 50 }

[[links]]
from = "BS"
to = "D"
rate = "2Mbps"
delay = "1ms"
queue = { kind = "cw", limit_pkts = 50 }
channel = { kind = "uniform", loss = 0.01 }

[[flows]]
kind = "tcp"
name = "jersey"
src = "S"
dst = "D"
cc = "jersey"
ecn = true
recovery = "reno"
mss_bytes = 1000
"""


def _frames(path: Path) -> list[tuple[int, int, int]]:
    """(time in ns, ECN field, TCP sequence number) of every IPv4/TCP record."""
    data = path.read_bytes()
    magic, _, _, _, _, _, linktype = struct.unpack("<IHHiIII", data[:24])
    assert magic == 0xA1B23C4D and linktype == 101
    out, i = [], 24
    while i < len(data):
        sec, nsec, incl, _ = struct.unpack("<IIII", data[i : i + 16])
        rec = data[i + 16 : i + 16 + incl]
        i += 16 + incl
        if rec[9] != 6:  # not TCP
            continue
        ihl = (rec[0] & 0x0F) * 4
        (seq,) = struct.unpack(">I", rec[ihl + 4 : ihl + 8])
        out.append((sec * 1_000_000_000 + nsec, rec[1] & 0x03, seq))
    return out


@pytest.mark.parametrize("duration", ["30s", "100s"])
def test_every_ce_mark_sent_is_in_the_capture_lost_ones_included(tmp_path, duration):
    """30 s ends with no marked packet queued at BS (seed 1), 100 s with 13 (`ce_marks_unsent`);
    both lose marked segments on the channel (19 of 2237 marks in 100 s)."""
    scen = tmp_path / "s.toml"
    scen.write_text(SCENARIO.replace('duration = "30s"', f'duration = "{duration}"'))
    out = tmp_path / "out"
    r = run_cli("run", str(scen), "--out", str(out), "--pcap", "--seed", "1")
    assert r.returncode == 0, r.stderr
    summary = json.loads((out / "summary.json").read_text())
    bs_d = next(ln for ln in summary["links"] if ln["name"] == "BS->D")
    frames = _frames(out / "pcap" / "BS-to-D.pcap")
    ce = [(t, seq) for t, ecn, seq in frames if ecn == 3]
    assert bs_d["ce_marks"] > 100 and len(ce) == bs_d["ce_marks"] - bs_d.get("ce_marks_unsent", 0)
    # Some of them the channel lost: the event log names those frames (same instant, same segment).
    with open(out / "pcap" / "events.csv", newline="") as fh:
        lost = {
            (int(row["time_s"].replace(".", "")), int(row["seq"]) % 2**32)
            for row in csv.DictReader(fh)
            if row["link"] == "BS->D" and row["fate"] == "channel-loss"
        }
    lost_marked = [f for f in ce if f in lost]
    assert len(lost) == bs_d["channel_losses"] > 0
    assert lost_marked, "the scenario must lose some marked segments on the channel"
    if duration == "100s":
        assert bs_d["ce_marks_unsent"] > 0, "the long run must end with marked packets queued"
