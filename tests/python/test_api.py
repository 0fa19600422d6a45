"""The Python API: RunResult shape and types, errors, jain_fairness."""

from __future__ import annotations

import json
import math

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

import airtcp
from airtcp import _core

from conftest import EXAMPLE, GOOD
from fixtures import good


@pytest.fixture(scope="module")
def result() -> airtcp.RunResult:
    return airtcp.run(GOOD, seed=5)


def test_summary_shape(result):
    s = result.summary
    assert s["scenario"] == "small-lossy"
    assert s["seed"] == 5
    assert s["end_time_s"] == pytest.approx(10.0)
    assert s["warmup_s"] == pytest.approx(1.0)
    assert [f["name"] for f in s["flows"]] == ["a", "b"]
    assert [f["recovery"] for f in s["flows"]] == ["newreno", "sack"]
    assert {link["name"] for link in s["links"]} >= {"S->BS", "BS->D"}
    assert json.loads(result.to_json()) == s
    assert result.to_json(indent=None) == result.summary_json


def test_frames(result):
    assert result.flows.height == 2
    assert {"name", "goodput_bps", "retransmissions", "timeouts", "fast_retransmits"} <= set(result.flows.columns)
    assert result.links.height == len(result.summary["links"])
    assert result.flow_series.schema == pl.Schema(airtcp.FLOW_SCHEMA)
    assert result.link_series.schema == pl.Schema(airtcp.LINK_SCHEMA)
    assert set(result.flow_series["flow"].unique()) == {"a", "b"}
    # cumulative counters never decrease
    for name in ["a", "b"]:
        d = result.flow_series.filter(pl.col("flow") == name)["delivered_bytes"]
        assert (d.diff().drop_nulls() >= 0).all()
    delivered = {f["name"]: f["delivered_bytes"] for f in result.summary["flows"]}
    assert delivered["a"] > 0
    assert "RunResult(scenario='small-lossy'" in repr(result)


def test_goodput_series_matches_delivered_bytes(result):
    from airtcp.plots import goodput_series

    gp = goodput_series(result.flow_series)
    fs = result.flow_series.filter(pl.col("flow") == "a")
    g = gp.filter(pl.col("flow") == "a")
    # integrating per-interval goodput gives back the last cumulative count
    t = fs["time_s"].to_list()
    spans = [t1 - t0 for t0, t1 in zip([0.0] + t[:-1], t) if t1 > t0]
    assert len(spans) == g.height
    total_bits = sum(x * 1e6 * dt for x, dt in zip(g["goodput_mbps"].to_list(), spans))
    assert total_bits / 8 == pytest.approx(fs["delivered_bytes"][-1], rel=1e-9)


def test_write(result, tmp_path):
    paths = result.write(tmp_path / "o")
    assert json.loads(open(paths["summary"]).read()) == result.summary
    assert pl.read_parquet(paths["flow_series"]).equals(result.flow_series)
    assert pl.read_parquet(paths["link_series"]).equals(result.link_series)


def test_scenario_error_is_a_value_error():
    assert issubclass(airtcp.ScenarioError, ValueError)
    assert airtcp.ScenarioError is _core.ScenarioError
    with pytest.raises(airtcp.ScenarioError):
        airtcp.run('duration = "1s"\nnodes = ["A"]\nlinks = [{from = "A", to = "A", rate = "10Mbit", delay = "1ms"}]\n')
    with pytest.raises(airtcp.ScenarioError):
        airtcp.validate('duration = "1s"')


def test_bad_seeds_are_value_errors(good_text):
    for seed in (-1, 2**64, 1.5, True):
        with pytest.raises(ValueError, match="seed"):
            airtcp.run(good_text, seed=seed)
    with pytest.raises(ValueError, match="seed"):
        airtcp.run_many([good_text], seeds=[-3])
    assert airtcp.run(good_text, seed=2**64 - 1).seed == 2**64 - 1


def test_validate_accepts_the_example():
    airtcp.validate(EXAMPLE)


def test_run_many_names_the_failing_job(good_text):
    bad = good("links.1.rate=2Mbit")
    with pytest.raises(airtcp.ScenarioError, match=r"^job 2: "):
        airtcp.run_many([good_text, good_text, bad], jobs=2)
    with pytest.raises(airtcp.ScenarioError, match=r"^job 2: "):
        airtcp.run_many([good_text, good_text, bad], jobs=2, progress=lambda d, t: None)
    with pytest.raises(ValueError, match="seeds"):
        airtcp.run_many([good_text], seeds=[1, 2])


def test_core_run_many_raw():
    text = GOOD.read_text()
    raw = _core.run_many([(text, 1, None), (text, None, None)], 2)
    assert len(raw) == 2 and set(raw[0]) == {"summary_json", "flow_series", "link_series"}
    assert raw[0]["summary_json"] == _core.run(text, 1)["summary_json"]


def test_jain_fairness():
    assert airtcp.jain_fairness([1, 1, 1, 1]) == pytest.approx(1.0)
    assert airtcp.jain_fairness([1, 0, 0, 0]) == pytest.approx(0.25)
    assert airtcp.jain_fairness([0, 0]) == 1.0
    assert airtcp.jain_fairness([3, 1]) == pytest.approx(16 / 20)
    with pytest.raises(ValueError):
        airtcp.jain_fairness([])
    with pytest.raises(ValueError):
        airtcp.jain_fairness([1, -1])


@given(st.lists(st.floats(min_value=0, max_value=1e12, allow_nan=False), min_size=1, max_size=50))
def test_jain_fairness_bounds(xs):
    j = airtcp.jain_fairness(xs)
    assert 1 / len(xs) - 1e-9 <= j <= 1 + 1e-9 or math.isclose(j, 1.0)


def test_engine_jain_matches_python(result):
    goodputs = [f["goodput_bps"] for f in result.summary["flows"] if f["kind"] == "tcp"]
    assert result.summary["jain_fairness_tcp"] == pytest.approx(airtcp.jain_fairness(goodputs))


def test_a_plot_of_many_flows_draws_the_first_ones_and_their_total():
    """A line and a legend entry per flow made 10 001 flows take over 300 s to draw (issue 25): past
    PLOT_MAX_FLOWS the plot draws the first ones and the total goodput of all."""
    from airtcp.plots import PLOT_LEGEND_FLOWS, PLOT_MAX_FLOWS, run_figure

    text = good("flows.1.count=40", "duration=2s")
    result = airtcp.run(text)
    assert result.flow_series["flow"].n_unique() == 41
    fig = run_figure(result)
    ax_c, ax_g, ax_r, ax_q = fig.axes
    # one legend of flows (the same colour in every panel), capped so that it stays readable
    cwnd_labels = [t.get_text() for t in ax_c.get_legend().get_texts()]
    assert cwnd_labels == ["a"] + [f"b.{k}" for k in range(PLOT_LEGEND_FLOWS - 1)]
    assert ax_c.get_legend().get_title().get_text() == f"flows (first {PLOT_LEGEND_FLOWS} of {PLOT_MAX_FLOWS} drawn)"
    assert [ln.get_label() for ln in ax_c.get_lines()] == ["a"] + [f"b.{k}" for k in range(PLOT_MAX_FLOWS - 1)]
    from airtcp.plots import bottleneck_bps

    marks = [t.get_text() for t in ax_g.get_legend().get_texts()]
    cap = bottleneck_bps(result.summary)
    want_marks = ["total, all 41 flows"]
    want_marks += [f"capacity {cap / 1e6:g} Mb/s (slowest link of the path)"] if cap is not None else []
    want_marks += [f"warm-up {result.summary['warmup_s']:g} s (not in goodput)"] if result.summary["warmup_s"] else []
    assert marks == want_marks
    assert "first 20 of 41 flows" in ax_c.get_title()
    # The total is the sum over every flow, not only the ones drawn.
    total_line = ax_g.get_lines()[-1]
    from airtcp.plots import goodput_series

    gp = goodput_series(result.flow_series)
    want = gp.group_by("time_s", maintain_order=True).agg(pl.col("goodput_mbps").sum()).sort("time_s")
    assert list(total_line.get_ydata()) == pytest.approx(want["goodput_mbps"].to_list())


def test_the_run_plot_has_rtt_and_queue_panels_from_the_series(result):
    """Issue 24 part 5: plot.png shows RTT and queues too: the RTT lines are the flows' srtt in ms,
    the queue lines the links that ever queue, longest peak first, in packets."""
    from airtcp.plots import run_figure

    fig = run_figure(result)
    ax_c, ax_g, ax_r, ax_q = fig.axes
    assert ax_r.get_ylabel() == "smoothed RTT (ms)" and ax_q.get_ylabel() == "queue (packets)"
    fs = result.flow_series
    for line in ax_r.get_lines():
        f = fs.filter(pl.col("flow") == line.get_label())
        assert list(line.get_xdata()) == f["time_s"].to_list()
        want = [v * 1e3 if v else math.nan for v in f["srtt_s"].to_list()]  # no RTT before the first sample
        assert math.isnan(line.get_ydata()[0]) and f["srtt_s"][0] == 0
        assert list(line.get_ydata()) == pytest.approx(want, nan_ok=True)
    assert sorted(ln.get_label() for ln in ax_r.get_lines()) == sorted(
        f["name"] for f in result.summary["flows"] if f["kind"] == "tcp"
    )
    ls = result.link_series
    peaks = {k: max(g["queue_pkts"].to_list()) for (k,), g in ls.partition_by("link", as_dict=True).items()}
    want = sorted((k for k, v in peaks.items() if v > 0), key=lambda k: -peaks[k])
    assert [ln.get_label() for ln in ax_q.get_lines()] == want
    for line in ax_q.get_lines():
        assert (
            list(line.get_ydata())
            == ls.filter(pl.col("link") == line.get_label())["queue_pkts"].cast(pl.Float64).to_list()
        )


def test_flow_series_carries_every_declared_estimate():
    """CAIAD declares a bandwidth estimate and alpha: flow_series has an ``alpha`` column beside
    ``bwe_bps``, a fraction for the CAIAD flow and null for a Reno flow on the same path."""
    from fixtures import REPO, doc

    d = doc(REPO / "examples" / "caiad_fig3.toml", "duration=10s", "flows.0.name=caiad")
    d["flows"].append({**d["flows"][0], "name": "reno", "cc": "reno"})
    r = airtcp.run(d, seed=1, base_dir=REPO / "examples")
    fs = r.flow_series
    assert "alpha" in fs.columns and fs.schema["alpha"] == pl.Float64
    caiad = fs.filter(pl.col("flow") == "caiad")
    reno = fs.filter(pl.col("flow") == "reno")
    assert caiad["alpha"].null_count() == 0 and caiad["alpha"].is_between(0.0, 1.0).all()
    assert reno["alpha"].null_count() == reno.height


def test_a_run_shorter_than_its_sample_interval_still_plots():
    """A flow whose only sample is at t = 0 has no goodput interval: plot.png drew a KeyError
    ('internal error') for `airtcp run experiments/prairie/scenario3.toml --set duration=5s`."""
    from airtcp.plots import run_figure

    result = airtcp.run(good("duration=2s", "sample_interval=10s", "warmup=0s"))
    fig = run_figure(result)
    assert fig.axes[1].get_ylabel().startswith("goodput")


def test_the_reproduce_metric_jain_is_the_api_one():
    """One Jain's index (issue 40): the spec metric ``agg = "jain"`` calls airtcp.jain_fairness,
    and gives NaN (no value) where a spec needs one and has none."""
    import math

    from airtcp.reproduce.metrics import jain

    for xs in ([3.0, 1.0], [1e-300, 2e-300, 0.0], [1e300, 1e300], [0.0, 0.0, 0.0]):
        assert jain(xs) == airtcp.jain_fairness(xs)
    assert jain([3.0, 1.0]) == pytest.approx(16 / 20)
    assert math.isnan(jain([])) and math.isnan(jain([1.0, math.nan]))
