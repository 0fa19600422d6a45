"""The cellular-* experiments (issue 27): the trace capacity a run's goodput is compared with,
computed from the trace file, against hand-worked counts and against the engine's own saturated
link; and a short slice of `airtcp reproduce cellular-verizon-lte-short --quick` end to end
(structure of its outputs and the conservation bound on every run). The slice reads the mahimahi
traces from the default folder or $AIRTCP_TRACES and is skipped, saying so, where they are absent."""

from __future__ import annotations

import csv
import math

import polars as pl
import pytest

import airtcp
from airtcp import reproduce as rp
from airtcp.reproduce.capacity import opportunities_in, trace_capacity_bps
from airtcp.reproduce.spec import traces_dir

from conftest import REPO, run_cli

MS = 1_000_000
HAND = (5, 10, 20)  # tests/traces/hand-worked.trace: opportunities at 5, 10, 20 ms, period 20 ms


@pytest.mark.parametrize(
    "offset_ms, start_ms, end_ms, count",
    [
        (0, 0, 20, 3),  # 5, 10, 20
        (0, 0, 19, 2),
        (0, 5, 25, 4),  # 5, 10, 20, 25 (the next period's 5)
        (0, 6, 24, 2),  # 10, 20
        (7, 0, 20, 3),  # trace 7..27: 10, 20, 25
        (7, 3, 3, 1),  # trace 10 exactly
        (12, 0, 8, 1),  # trace 12..20: 20
        (15, 0, 100, 15),  # trace 15..115: 20 | 25 30 40 | ... | 85 90 100 | 105 110
    ],
)
def test_opportunities_in_an_interval_by_hand(offset_ms, start_ms, end_ms, count):
    assert opportunities_in(HAND, offset_ms * MS, start_ms * MS, end_ms * MS) == count


def test_many_periods_by_brute_force():
    opps = (0, 3, 3, 7, 9, 9, 9, 12)
    period = 12
    times = [c * period + o for c in range(40) for o in opps]
    for offset in (0, 1, 3, 11):
        for a, b in ((0, 0), (0, 12), (5, 77), (12, 24), (100, 300)):
            want = sum(1 for t in times if a + offset <= t <= b + offset)
            assert opportunities_in(opps, offset * MS, a * MS, b * MS) == want, (offset, a, b)


SATURATED = """
duration = "7s"
nodes = ["A", "B"]
[[links]]
from = "A"
to = "B"
capacity = { kind = "trace", file = "hand-worked.trace", random_start_offset = true }
delay = "0ms"
duplex = false
queue = { kind = "droptail", limit_pkts = 100000 }
[[flows]]
kind = "cbr"
name = "u"
src = "A"
dst = "B"
packet_bytes = 1472
rate = "2Mbps"
"""


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_the_trace_capacity_is_what_a_saturated_link_sends(seed):
    """A UDP source offering 2 Mb/s of 1500-B packets into the 1.8 Mb/s hand-worked trace sends
    exactly one packet per opportunity; the capacity computed from the trace file at the run's
    offset counts the same opportunities (the last one, at the end, is still being sent)."""
    base = str(REPO / "tests" / "traces")
    r = airtcp.run(SATURATED, seed=seed, base_dir=base)
    link = r.summary["links"][0]
    offset = round(link.get("trace_offset_s", 0.0) * 1000)
    assert 0 <= offset < 20
    bps = trace_capacity_bps(SATURATED, base, r.summary, "A->B", "test")
    n = round(bps * 7 / 12000)
    assert n == opportunities_in(HAND, offset * MS, 0, 7000 * MS)
    assert link["packets_sent"] in (n - 1, n)


SLICE = "cellular-verizon-lte-short"


def test_the_cellular_slice_runs_and_no_goodput_exceeds_the_trace(tmp_path):
    if not (traces_dir() / "Verizon-LTE-short.down").is_file():
        pytest.skip(f"no mahimahi traces in {traces_dir()} (set AIRTCP_TRACES to the mahimahi repository's traces/)")
    out = tmp_path / "results"
    r = run_cli("reproduce", SLICE, "--quick", "--out", str(out), "--jobs", "2", timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    d = out / SLICE
    for name in ("runs.parquet", "aggregated.csv", "checks.csv", "claims.csv", "figure.png", "figure.svg", "report.md"):
        assert (d / name).is_file(), name
    runs = pl.read_parquet(d / "runs.parquet")
    assert runs.height == 4 and sorted(set(runs["scheme"])) == ["bbr", "newreno"]
    # Every run: a positive goodput, at most the capacity the trace offered (payload 1448 of 1500).
    for row in runs.iter_rows(named=True):
        assert 0 < row["goodput_share"] <= 1448 / 1500, row
        assert math.isclose(row["goodput_mbps"], row["goodput_share"] * row["capacity_mbps"], rel_tol=1e-9)
        assert row["rtt_p50_ms"] >= 40 and row["rtt_p95_ms"] >= row["rtt_p50_ms"]
    # Seeds replay different stretches of the trace: different capacities.
    assert len(set(runs.filter(pl.col("scheme") == "bbr")["capacity_mbps"])) == 2
    with open(d / "checks.csv", newline="", encoding="utf-8") as f:
        (check,) = list(csv.DictReader(f))
    assert check["check"] == "conservation" and check["status"] == "holds" and check["runs"] == "4"
    report = (d / "report.md").read_text(encoding="utf-8")
    assert "## Checks" in report and "| holds |" in report and "![figure](figure.png)" in report


def test_a_missing_traces_folder_skips_the_cellular_experiments(tmp_path, monkeypatch):
    monkeypatch.setenv("AIRTCP_TRACES", str(tmp_path / "nowhere"))
    exp = rp.load_experiment(REPO / "experiments" / "cellular" / "verizon-lte-short.sweep.toml")
    av = rp.availability(exp)
    assert not av.runnable and av.missing == ("mahimahi-traces",)
    bad = run_cli("reproduce", SLICE, "--traces", str(tmp_path / "nowhere"), "--out", str(tmp_path / "o"))
    assert bad.returncode != 0 and "--traces" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
    missing = run_cli("reproduce", SLICE, "--out", str(tmp_path / "o"))  # run_cli passes the environment on
    assert missing.returncode != 0 and "needs mahimahi-traces" in missing.stderr


def test_sim_only_variants_reread_the_recorded_table():
    """`bench/cellular_vs_kernel.py --sim-only` sets the simulator beside the kernel means recorded in
    VALIDATION.md. Its reading of that table is checked against a second path to the same numbers:
    the simulator's goodput column the full kernel run wrote there, recomputed now from the same
    scenario, seeds and window (the engine is deterministic, so every row must agree to the kb/s)."""
    import statistics
    import sys

    traces = traces_dir()
    if not (traces / "Verizon-LTE-short.down").is_file():
        pytest.skip(f"no mahimahi traces in {traces} (set AIRTCP_TRACES to the mahimahi repository's traces/)")
    sys.path.insert(0, str(REPO / "bench"))
    import cellular_vs_kernel as cvk

    setup, rows = cvk.recorded_kernel((REPO / "VALIDATION.md").read_text(encoding="utf-8"))
    assert setup == {"runs": 3, "duration": "20s", "warmup": "3s"}
    assert len(rows) == len(cvk.TRACES) * len(cvk.SCHEMES)
    for row in rows:
        doc = cvk.scenario(row["trace"], row["scheme"], setup["duration"], setup["warmup"], traces)
        goodputs = [airtcp.run(doc, seed).summary["flows"][0]["goodput_bps"] for seed in range(1, setup["runs"] + 1)]
        assert round(statistics.mean(goodputs) / 1e3) == row["sim_kbps"], row
