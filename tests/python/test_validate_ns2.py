"""airtcp against the committed ns-2.35 reference (bench/ns2/reference.json, made by
`make validate-ns2` where ns-2 is installed; issue 23): the reference covers every cell the harness
lists (the Fig. 10 path with windows 1000 and 20, the 20-flow dumbbell), and on the 20-flow
DropTail dumbbell (TCP-Jersey Table I path) and Fig. 10's window-20 Westwood+ cells airtcp meets the
targets against it, each two-sided (issue 38 item 5) — timeouts within 2x ± 3 of ns-2's, retransmissions
within 1.5x ± 10, total goodput within 10%, Jain within 0.02.
No ns-2 needed: the ns-2 side is the committed file."""

from __future__ import annotations

import json
import math
import statistics
import sys

import pytest

from conftest import REPO

sys.path.insert(0, str(REPO / "bench"))
import validate_ns2 as vn  # noqa: E402

import airtcp  # noqa: E402
from airtcp.scenario import dumps  # noqa: E402

REFERENCE = REPO / "bench" / "ns2" / "reference.json"
FIELDS = {"seed": int, "goodput_bps": float, "jain": float, "timeouts": int, "retransmissions": int, "drops": int}
#: The dumbbell cells checked here: DropTail bottleneck, every scheme and loss of the harness.
#: The DropTail dumbbell cells, every scheme: ns-2's own TCP agents (Reno, NewReno, Sack1), which
#: meet every target since the TCP core follows ns-2's timer rules, and Westwood+ against ns-2's
#: TCP-Linux agent, which meets them with that agent's recovery and timer (recovery "linux",
#: rto_restart "every-ack"; with RFC 6675 SACK recovery it timed out 25 and 69 times where ns-2
#: times out 0 and 0.4).
DROPTAIL = [c for c in vn.cells({"dumbbell"}) if c["queue"] == "droptail"]
#: And the CW cells that ns-2.35's `use_mark_p_` rule decides (issue 38): NewReno and SACK at 0%,
#: where airtcp timed out 45 and 6 times against ns-2's 204.6 and 56.6 while its CW queue dropped
#: the arrival that crossed the threshold (ns-2's RED at its defaults lets it pass).
CHECKED = DROPTAIL + [
    c for c in vn.cells({"dumbbell"}) if c["queue"] == "cw" and c["loss"] == 0 and c["scheme"] in ("newreno", "sack")
]
#: And Fig. 10's window-20 Westwood+ cells with loss, which ns-2.35's TCP-Linux rule decides
#: (`window_` bounds the packets in flight, not the sequence space: vn.IN_FLIGHT_WINDOW): with the
#: window as a receiver's (`rwnd_pkts = 20`) airtcp had 1302 / 893 / 717 kb/s at 1 / 3 / 5% loss
#: against ns-2's 1580 / 1265 / 821.
CHECKED += [c for c in vn.cells({"fig10"}) if c["window"] == 20 and c["scheme"] == "westwood-plus" and c["loss"] > 0]
#: Seeds of airtcp's side: all five of the reference's, as the harness runs them (each 20-flow 100-s run takes
#: ~0.1 s; with two, SACK at 1% times out 65.5 times against ns-2's 29 on those two seeds, outside 2x ± 3).
TEST_SEEDS = 5


@pytest.fixture(scope="module")
def reference() -> dict:
    return json.loads(REFERENCE.read_text())


def test_reference_is_well_formed_and_covers_the_harness_cells(reference):
    assert reference["ns2"].startswith("ns-2.35")
    assert reference["durations"] == vn.reference_durations()
    assert reference["dumbbell"] == {
        "flows": vn.DB_FLOWS,
        "limit_pkts": vn.DB_LIMIT,
        "red": vn.RED,
        "cw": vn.CW,
        "jitter_ms_at_0": vn.DB_JITTER_MS,
    }
    keys = [vn.cell_key(c) for c in reference["cells"]]
    assert len(keys) == len(set(keys)), "duplicate cells"
    by_key = dict(zip(keys, reference["cells"]))
    wanted = [vn.cell_key(c) for c in vn.cells()]
    assert sorted(wanted) == sorted(keys), f"missing {set(wanted) - set(keys)}, extra {set(keys) - set(wanted)}"
    for key in wanted:
        cell = by_key[key]
        scen = cell["scenario"]
        assert (cell["duration_s"], cell["warmup_s"]) == vn.DURATIONS[scen], key
        assert cell["flows"] == (1 if scen == "fig10" else vn.DB_FLOWS)
        assert cell["seeds"] == list(range(1, vn.SEEDS[scen] + 1)), key
        assert [r["seed"] for r in cell["runs"]] == cell["seeds"], key
        for run in cell["runs"]:
            for field, kind in FIELDS.items():
                assert isinstance(run[field], (int, float) if kind is float else int), (key, field, run[field])
            capacity = 2e6 if scen == "fig10" else 20e6
            assert 0 < run["goodput_bps"] <= capacity * 1000 / 1040 * 1.0001, (key, run)
            assert 1 / cell["flows"] - 1e-9 <= run["jain"] <= 1 + 1e-9, (key, run)
            assert run["timeouts"] >= 0 and run["retransmissions"] >= 0 and run["drops"] >= 0, (key, run)
            assert math.isfinite(run["wall_s"]) and run["wall_s"] > 0


def test_the_fig10_cells_run_windows_1000_and_20_on_both_sides():
    """Every Fig. 10 scheme and loss at window 1000 and at ns-2.35's default 20, and each cell's
    window reaches airtcp's flow: as `rwnd_pkts` (a bound on the outstanding data, as ns-2's own
    agents apply `window_`), or, for TCP-Linux's Westwood+, as `max_cwnd_pkts` beside a
    non-binding `rwnd_pkts` (that agent bounds the packets in flight by it). The dumbbell keeps 1000."""
    fig10 = vn.cells({"fig10"})
    for window in (1000, 20):
        got = sorted((c["scheme"], c["loss"]) for c in fig10 if c["window"] == window)
        assert got == sorted((s, x) for s in vn.FIG10_SCHEMES for x in vn.FIG10_LOSSES), window
    assert len(fig10) == 2 * len(vn.FIG10_SCHEMES) * len(vn.FIG10_LOSSES)
    assert {c["window"] for c in vn.cells({"dumbbell"})} == {1000}
    for cell in fig10 + vn.cells({"dumbbell"})[:1]:
        flow = vn.airtcp_doc(cell)["flows"][0]
        if cell["scheme"] == "westwood-plus":
            assert (flow["rwnd_pkts"], flow["max_cwnd_pkts"]) == (1000, cell["window"]), vn.cell_key(cell)
        else:
            assert flow["rwnd_pkts"] == cell["window"] and "max_cwnd_pkts" not in flow, vn.cell_key(cell)
    keys = [vn.cell_key(c) for c in vn.cells()]
    assert len(keys) == len(set(keys))


def test_ns2s_window_20_cells_are_held_to_the_windows_rate(reference):
    """ns-2's side honours `window_` 20: by hand, Fig. 10's RTT is 2 × (45 + 1) ms of propagation, a
    1040-B segment's serialization at 10 and 2 Mb/s (0.832 + 4.16 ms) and a 40-B ACK's (0.16 +
    0.032 ms) = 97.184 ms (TCP-Linux's segments carry 10 B of timestamps more: 97.232 ms), so 20
    segments of 8000 b per RTT give 1646.4 kb/s (1645.5): every run stays at or below that, and at 0%
    loss, with nothing to slow it, every run is at it."""
    for cell in (c for c in reference["cells"] if c["scenario"] == "fig10" and c.get("window") == 20):
        wire = 1050 if cell["scheme"] == "westwood-plus" else 1040
        rtt = 2 * 46e-3 + wire * 8 / 10e6 + wire * 8 / 2e6 + 40 * 8 / 2e6 + 40 * 8 / 10e6
        bound = 20 * 8000 / rtt
        for run in cell["runs"]:
            assert run["goodput_bps"] <= bound * 1.0001, (vn.cell_key(cell), run, bound)
            if cell["loss"] == 0:
                assert run["goodput_bps"] >= bound * 0.999, (vn.cell_key(cell), run, bound)


def test_targets_are_the_issues():
    assert (vn.RTO_FACTOR, vn.RTO_SLACK, vn.RTX_FACTOR, vn.RTX_SLACK) == (2.0, 3.0, 1.5, 10.0)
    assert (vn.GOODPUT_TOL, vn.JAIN_TOL) == (0.10, 0.02)


def test_count_targets_are_two_sided():
    """By hand: against ns-2's 10 timeouts, 2x ± 3 allows [10/2 − 3, 2·10 + 3] = [2, 23]; against
    its 200 retransmissions, 1.5x ± 10 allows [200/1.5 − 10, 1.5·200 + 10] = [123.3, 310]; against
    0, [−3, 3] and [−10, 10]. Far fewer than ns-2 misses as far more does."""
    assert vn.within(2, 10, 2, 3) and vn.within(23, 10, 2, 3)
    assert not vn.within(1.9, 10, 2, 3) and not vn.within(23.1, 10, 2, 3)
    assert vn.within(124, 200, 1.5, 10) and vn.within(310, 200, 1.5, 10)
    assert not vn.within(123, 200, 1.5, 10) and not vn.within(311, 200, 1.5, 10)
    assert vn.within(3, 0, 2, 3) and not vn.within(3.1, 0, 2, 3) and not vn.within(11, 0, 1.5, 10)
    cell = {"scenario": "fig10"}
    ns = [{"timeouts": 10, "retransmissions": 200, "goodput_bps": 1e6, "jain": 1.0}]
    few = [{"timeouts": 1, "retransmissions": 100, "goodput_bps": 1e6, "jain": 1.0}]
    assert vn.verdict(cell, few, ns) == {"timeouts": False, "retransmissions": False, "goodput": True}


#: Cells whose gap to ns-2 is measured and open (VALIDATION.md; strict: a fix makes the test fail
#: until the mark goes). None on the DropTail dumbbell since SACK runs ns-2's Sack1 guard
#: (`recover_guard = "timeout-only"`): at 1% it had 65.4 timeouts per 5 runs of 20 flows against
#: ns-2's 31.0 with RFC 6675's guard, 41.2 with Sack1's.
KNOWN_GAPS: dict[str, str] = {}


@pytest.mark.parametrize(
    "cell",
    [
        pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=KNOWN_GAPS[vn.cell_key(c)]))
        if vn.cell_key(c) in KNOWN_GAPS
        else c
        for c in CHECKED
    ],
    ids=[vn.cell_key(c) for c in CHECKED],
)
def test_airtcp_meets_the_targets_against_ns2(reference, cell):
    ref = next(c for c in reference["cells"] if vn.cell_key(c) == vn.cell_key(cell))
    seeds = ref["seeds"][:TEST_SEEDS]
    ns = [r for r in ref["runs"] if r["seed"] in seeds]
    text = dumps(vn.airtcp_doc(cell))
    at = [vn.airtcp_totals(r.summary, cell) for r in airtcp.run_many([text] * len(seeds), jobs=2, seeds=seeds)]

    def m(runs, field):
        return statistics.fmean(r[field] for r in runs)

    got = {f: (m(at, f), m(ns, f)) for f in ("timeouts", "goodput_bps", "jain", "retransmissions", "drops")}
    msg = f"{vn.cell_key(cell)} seeds {seeds}: airtcp vs ns-2 " + ", ".join(
        f"{f} {a:.4g} / {n:.4g}" for f, (a, n) in got.items()
    )
    a_rto, n_rto = got["timeouts"]
    a_g, n_g = got["goodput_bps"]
    a_j, n_j = got["jain"]
    a_x, n_x = got["retransmissions"]
    failures = []
    if not vn.within(a_rto, n_rto, 2, 3):
        failures.append(f"timeouts {a_rto:.1f} not within 2x ± 3 of {n_rto:.1f}")
    if not vn.within(a_x, n_x, 1.5, 10):
        failures.append(f"retransmissions {a_x:.1f} not within 1.5x ± 10 of {n_x:.1f}")
    if not abs(a_g - n_g) <= 0.10 * n_g:
        failures.append(f"goodput {a_g / 1e3:.1f} kb/s not within 10% of {n_g / 1e3:.1f}")
    if not abs(a_j - n_j) <= 0.02:
        failures.append(f"Jain {a_j:.4f} not within 0.02 of {n_j:.4f}")
    assert not failures, "; ".join(failures) + " -- " + msg
