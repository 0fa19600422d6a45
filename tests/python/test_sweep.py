"""`airtcp sweep` (issue 24 part 4): a grid over any scenario; runs.parquet, aggregated.csv
recomputed here by hand from runs.parquet, the Pantheon scatter's points checked against the
aggregated numbers, null (never 0) where a metric does not apply, determinism over --jobs,
resuming from the cache, and one-line errors naming the --grid field."""

from __future__ import annotations

import csv
import math
import statistics
from pathlib import Path

import polars as pl
import pytest
from scipy.stats import t as student

from conftest import GOOD, REPO, run_cli
from fixtures import assert_legends_clear

import airtcp
from airtcp import sweep as sw
from airtcp.plots import sweep_figure
from airtcp.reproduce.backend import LocalBackend
from airtcp.scenario import loads

GRID = ["flows.0.cc=reno,cubic", "links.1.channel.loss=0.005,0.03"]


def _plan(grid=GRID, seeds=3, path: Path = GOOD, duration="4s"):
    doc = loads(path.read_text())
    doc["duration"] = duration
    return sw.plan_sweep(doc, str(path.parent), [sw.parse_grid(g) for g in grid], seeds)


def _read_agg(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def _by_hand(xs: list[float]) -> tuple[float, float, float, float]:
    m = statistics.fmean(xs)
    if len(xs) < 2:
        return m, math.nan, math.nan, math.nan
    half = student.ppf(0.975, len(xs) - 1) * statistics.stdev(xs) / math.sqrt(len(xs))
    return m, half, max(0.0, m - half), m + half


def test_cli_sweep_writes_tables_recomputed_by_hand(tmp_path):
    out = tmp_path / "s"
    args = ["sweep", str(GOOD), "--set", "duration=4s", "--seeds", "3", "--jobs", "2", "--out", str(out)]
    for g in GRID:
        args += ["--grid", g]
    r = run_cli(*args, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    for name in ("runs.parquet", "aggregated.csv", "figure.png", "scatter.csv", "run.json"):
        assert (out / name).stat().st_size > 0, name
    runs = pl.read_parquet(out / "runs.parquet")
    assert runs.height == 2 * 2 * 3 * 2  # points × seeds × flows
    assert runs["seed"].to_list()[:6] == [1, 1, 2, 2, 3, 3]
    agg = _read_agg(out / "aggregated.csv")
    metrics = [
        c for c in runs.columns if c not in ("flows.0.cc", "links.1.channel.loss", "seed", "key", "flow", "kind", "cc")
    ]
    assert {"goodput_bps", "mean_rtt_s", "retransmissions"} <= set(metrics)
    assert len(agg) == 4 * 2 * len(metrics)
    for row in agg:
        xs = (
            runs.filter(
                (pl.col("flows.0.cc") == row["flows.0.cc"])
                & (pl.col("links.1.channel.loss") == row["links.1.channel.loss"])
                & (pl.col("flow") == row["flow"])
            )[row["metric"]]
            .drop_nulls()
            .to_list()
        )
        assert int(row["n"]) == len(xs)
        if not xs:
            assert row["mean"] == row["ci95"] == ""
            continue
        m, half, lo, hi = _by_hand(xs)
        assert float(row["mean"]) == pytest.approx(m, rel=1e-12, abs=1e-15)
        assert float(row["ci95"]) == pytest.approx(half, rel=1e-9, abs=1e-12)
        assert float(row["ci_low"]) == pytest.approx(lo, rel=1e-9, abs=1e-12) and float(row["ci_low"]) >= 0
        assert float(row["ci_high"]) == pytest.approx(hi, rel=1e-9, abs=1e-12)
    # the cc axis really changed the flow: the summary's cc column follows the grid label
    first = runs.filter(pl.col("flow") == "a")
    assert (first["cc"] == first["flows.0.cc"]).all()
    assert "reno" in r.stdout and "cubic" in r.stdout


def test_the_scatter_shows_the_aggregated_numbers(tmp_path):
    plan = _plan()
    o = sw.run_sweep(plan, tmp_path / "s", LocalBackend(2))
    agg = {(r["flows.0.cc"], r["links.1.channel.loss"], r["flow"], r["metric"]): r for r in o.aggregated}
    delay = "rtt_p95_s" if "rtt_p95_s" in o.metrics else "mean_rtt_s"
    assert [p["scheme"] for p in o.scatter] == ["reno", "reno", "cubic", "cubic"]
    fig = sweep_figure(plan, o.aggregated, o.scatter, o.runs, o.metrics, "t")
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in panels] == ["links.1.channel.loss=0.005", "links.1.channel.loss=0.03"]
    assert_legends_clear(fig)
    for ax in panels:
        assert ax.xaxis_inverted()  # less delay to the right, as Pantheon draws it
        loss = ax.get_title().split("=")[1]
        assert ("95th percentile" in ax.get_xlabel()) == (delay == "rtt_p95_s")
        for scheme in ("reno", "cubic"):
            (line,) = [ln for ln in ax.lines if ln.get_gid() == f"scheme:{scheme}"]
            ((x, y),) = line.get_xydata().tolist()
            # flow entry 0 is the flow "a" (no count): its aggregated row is the point
            assert x == pytest.approx(agg[(scheme, loss, "a", delay)]["mean"] * 1e3, rel=1e-12)
            assert y == pytest.approx(agg[(scheme, loss, "a", "goodput_bps")]["mean"] / 1e6, rel=1e-12)
    # the scatter's x is the p95 when the summaries have it, mean_rtt_s (labelled so) when not:
    # a p95 column made from 1.5 x mean_rtt_s gives 1.5 x the mean-RTT points
    without = tuple(m for m in o.metrics if m != "rtt_p95_s")
    runs = o.runs.drop("rtt_p95_s", strict=False)
    by_mean = sw.scatter_points(plan, runs, without)
    assert all(p["delay_metric"] == "mean_rtt_s" for p in by_mean)
    fake = runs.with_columns((pl.col("mean_rtt_s") * 1.5).alias("rtt_p95_s"))
    pts = sw.scatter_points(plan, fake, without + ("rtt_p95_s",))
    assert all(p["delay_metric"] == "rtt_p95_s" for p in pts)
    assert [p["delay_mean_s"] for p in pts] == pytest.approx([1.5 * p["delay_mean_s"] for p in by_mean], rel=1e-12)
    fig2 = sweep_figure(plan, o.aggregated, pts, fake, without + ("rtt_p95_s",), "t")
    assert "95th percentile" in fig2.axes[0].get_xlabel()


def test_jobs_do_not_change_the_tables_and_the_cache_resumes(tmp_path):
    plan = _plan(seeds=2)
    a = sw.run_sweep(plan, tmp_path / "a", LocalBackend(1))
    b = sw.run_sweep(plan, tmp_path / "b", LocalBackend(2))
    assert a.executed == b.executed == 8
    assert pl.read_parquet(a.out_dir / "runs.parquet").equals(pl.read_parquet(b.out_dir / "runs.parquet"))
    assert (a.out_dir / "runs.parquet").read_bytes() == (b.out_dir / "runs.parquet").read_bytes()
    for name in ("aggregated.csv", "scatter.csv"):
        assert (a.out_dir / name).read_bytes() == (b.out_dir / name).read_bytes(), name
    assert sw.run_sweep(plan, tmp_path / "a", LocalBackend(2)).executed == 0
    for p in sorted((tmp_path / "a" / ".cache").rglob("*.json"))[:3]:
        p.unlink()
    again = sw.run_sweep(plan, tmp_path / "a", LocalBackend(2))
    assert (
        again.executed == 3
        and (again.out_dir / "aggregated.csv").read_bytes() == (b.out_dir / "aggregated.csv").read_bytes()
    )


def test_metrics_that_do_not_apply_are_null_never_zero(tmp_path):
    """A UDP (VoIP) flow has no RTT: its mean_rtt_s is null in runs.parquet (as in the engine's
    summary) and n = 0 with an empty mean in aggregated.csv; a TCP flow has no one-way delay."""
    plan = _plan(
        grid=["flows.0.cc=reno,cubic"], seeds=2, path=REPO / "examples" / "voip_congestion.toml", duration="12s"
    )
    o = sw.run_sweep(plan, tmp_path / "v", LocalBackend(2))
    voip = o.runs.filter(pl.col("kind") != "tcp")
    assert voip.height == 4 and voip["mean_rtt_s"].null_count() == 4 and voip["retransmissions"].null_count() == 4
    tcp = o.runs.filter(pl.col("kind") == "tcp")
    assert tcp["mean_rtt_s"].null_count() == 0 and (tcp["mean_rtt_s"] > 0).all()
    for m in ("owd_p50_s", "owd_p95_s", "owd_p99_s", "jitter_s"):
        if m in o.metrics:  # the engine's new UDP fields, once merged
            assert tcp[m].null_count() == tcp.height
    agg = _read_agg(o.out_dir / "aggregated.csv")
    row = next(r for r in agg if r["flow"] == "voip" and r["metric"] == "mean_rtt_s")
    assert row["n"] == "0" and row["mean"] == "" and row["ci_low"] == ""


def test_flow_values_follow_the_flow_kind():
    tcp = {"kind": "tcp", "rtt_samples": 5, "mean_rtt_s": 0.1, "rtt_p95_s": 0.2, "owd_p95_s": 0.05}
    udp = {"kind": "cbr", "rtt_samples": 0, "mean_rtt_s": None, "rtt_p95_s": None, "owd_p95_s": 0.03, "jitter_s": 0.0}
    assert sw._flow_value(tcp, "rtt_p95_s") == 0.2 and sw._flow_value(tcp, "owd_p95_s") is None
    assert sw._flow_value(udp, "mean_rtt_s") is None and sw._flow_value(udp, "rtt_p95_s") is None
    assert (
        sw._flow_value(udp, "owd_p95_s") == 0.03 and sw._flow_value(udp, "jitter_s") == 0.0
    )  # a real zero jitter stays
    # a summary cached by an older build, which reported 0.0 without samples, still reads null
    assert sw._flow_value({"kind": "tcp", "rtt_samples": 0, "mean_rtt_s": 0.0}, "mean_rtt_s") is None
    assert sw._flow_value(tcp, "rtt_p99_s") is None  # absent from this build: null


def test_grid_values_are_read_like_set_values():
    a = sw.parse_grid('links.1.channel={kind = "uniform", loss = 0.01}, {kind = "none"},x')
    assert a.labels == ('{kind = "uniform", loss = 0.01}', '{kind = "none"}', "x")
    assert a.values == ({"kind": "uniform", "loss": 0.01}, {"kind": "none"}, "x")
    b = sw.parse_grid("links.1.channel.loss=0,0.01, 1e-3")
    assert b.values == (0, 0.01, 0.001) and b.labels == ("0", "0.01", "1e-3")


@pytest.mark.parametrize(
    "args, message",
    [
        (["--grid", "flows.5.cc=reno"], "error: --grid flows.5.cc=reno: 'flows' has 2 entries: no index 5"),
        (
            ["--grid", "links.1.channel.loss=0,2"],
            "error: --grid links.1.channel.loss=2: links[1].channel.loss: 2 is out of range (allowed: 0 to 1)",
        ),
        (
            ["--grid", "flows.0.cc=reno,vegasx"],
            "error: --grid flows.0.cc=vegasx: flows[0].cc: unknown window policy 'vegasx' (did you mean 'vegas'?) (allowed: reno,",
        ),
        (["--grid", "flows.0.ccx=reno"], "error: --grid flows.0.ccx=reno: flows[0].ccx: unknown field `ccx`"),
        (["--grid", "flows.0.cc"], "error: --grid 'flows.0.cc': expected PATH=V1,V2,..."),
        (["--grid", "flows.0.cc=reno,,cubic"], "error: --grid 'flows.0.cc=reno,,cubic': empty value"),
        (["--grid", "flows.0.cc=reno", "--grid", "flows.0.cc=cubic"], "error: --grid flows.0.cc: given twice"),
        (["--grid", "foo.bar=1"], "error: --grid foo.bar=1: foo: unknown field `foo`, expected one of"),
        (
            ["--grid", "duration.x=1"],
            "error: --grid duration.x=1: 'duration' is a value (string), not a table or array",
        ),
        ([], "error: --grid: give at least one"),
        (["--grid", "seed=1,2"], "error: --grid seed: every point runs seeds 1..--seeds"),
        (["--grid", "flows.0.cc=reno", "--seeds", "0"], "error: --seeds 0: must be an integer from 1 to 1000"),
        (
            ["--grid", "flows.0.cc=reno", "--backend", "slurm"],
            "error: Invalid value for '--backend'",  # Typer's choice; test_help checks the choices are named
        ),
    ],
)
def test_bad_grids_are_one_line_naming_the_field(tmp_path, args, message):
    r = run_cli("sweep", str(GOOD), "--out", str(tmp_path / "o"), *args, cwd=tmp_path)
    assert r.returncode == 2, r.stdout + r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(message), r.stderr
    assert not (tmp_path / "o").exists()


def test_ray_backend_without_ray_is_one_line(tmp_path):
    try:
        import ray  # noqa: F401

        pytest.skip("ray is installed here")
    except ImportError:
        pass
    r = run_cli(
        "sweep", str(GOOD), "--grid", "flows.0.cc=reno", "--backend", "ray", "--out", str(tmp_path / "o"), cwd=tmp_path
    )
    assert (
        r.returncode == 2
        and r.stderr.strip() == "error: --backend ray: the 'ray' package is not installed (pip install 'ray[default]')"
    )


def test_sweep_grid_from_python_matches_the_cli_and_resumes_from_its_cache(tmp_path):
    """``airtcp.sweep_grid`` (issue 40 item 9): a dict grid (Python values) gives the same runs as
    the CLI's ``--grid`` texts (same cache keys, same numbers), the same call again runs nothing,
    and its notebook view names n and shows the figure."""
    grid = {"flows.0.cc": ["reno", "cubic"], "links.1.channel.loss": [0.005, 0.03]}
    assert sw.grid_specs(grid) == GRID
    o = airtcp.sweep_grid(GOOD, grid, seeds=2, overrides=["duration=4s"], out=tmp_path / "py", jobs=2)
    r = run_cli(
        *["sweep", str(GOOD), "--set", "duration=4s", "--seeds", "2", "--jobs", "2", "--out", str(tmp_path / "cli")],
        *[a for g in GRID for a in ("--grid", g)],
    )
    assert r.returncode == 0, r.stderr
    cli = pl.read_parquet(tmp_path / "cli" / "runs.parquet")
    assert o.runs.equals(cli)
    assert (tmp_path / "py" / "aggregated.csv").read_bytes() == (tmp_path / "cli" / "aggregated.csv").read_bytes()
    assert o.executed == o.total == 8
    again = airtcp.sweep_grid(GOOD, grid, seeds=2, overrides=["duration=4s"], out=tmp_path / "py", jobs=2)
    assert again.executed == 0 and again.runs.equals(o.runs)
    # the table as a DataFrame is aggregated.csv
    t = o.table
    assert t.height == len(o.aggregated) and set(t["metric"]) >= {"goodput_bps"}
    html = o._repr_html_()
    assert "8 runs (8 executed, 0 from the cache)" in html and "data:image/png;base64," in html
    # two seeds: the seeds' values, not a t(1) interval
    assert "(seeds " in html and "[" not in sw.summary_frame(o)["goodput Mb/s"][0]
    # a bad Python value is one line naming it
    with pytest.raises(sw.SweepError, match="not a scenario value"):
        sw.grid_specs({"flows.0.cc": [object()]})


def test_describe_shows_seeds_below_three_and_the_interval_with_n_from_three():
    from airtcp.reproduce.metrics import describe

    assert describe({"n": 2, "mean": 1.5, "ci_low": 0.0, "ci_high": 7.8}, 1.0, [1.0, 2.0]) == "1.5 (seeds 1, 2)"
    assert describe({"n": 1, "mean": 2.0, "ci_low": math.nan, "ci_high": math.nan}, 1e3, [2.0]) == "2000 (1 seed)"
    assert describe({"n": 3, "mean": 2.0, "ci_low": 1.0, "ci_high": 3.0}, 1.0, [1.0, 2.0, 3.0]) == "2 [1, 3] n=3"
    assert describe({"n": 0, "mean": math.nan, "ci_low": math.nan, "ci_high": math.nan}, 1.0, []) == "-"


def test_scheme_styles_never_repeat_and_stay_the_same_across_figures():
    from airtcp.plots import PALETTE, scheme_styles, style

    assert len(set(PALETTE)) == len(PALETTE)
    styles = [style(i) for i in range(100)]
    assert len(set(styles)) == 100  # colour and marker pairs: no two series alike
    assert len({c for c, _ in styles[:22]}) == 22  # the first 22 differ by colour alone
    a = scheme_styles(["cubic", "reno"])
    b = scheme_styles(["reno", "x;y=1", "cubic"])
    assert a["reno"] == b["reno"] and a["cubic"] == b["cubic"] and b["x;y=1"] not in (a["reno"], a["cubic"])


def test_the_goodput_figure_draws_one_point_grids_as_points_and_two_seeds_as_their_values(tmp_path):
    """Issue 40 item 6 for a grid without ``cc``: one x value is a point (no line), and with two
    seeds each seed's goodput is drawn (hollow) with no t(1) error bar; the mean is aggregated.csv's."""
    plan = _plan(grid=["links.1.channel.loss=0.01"], seeds=2, duration="2s")
    o = sw.run_sweep(plan, tmp_path / "s", LocalBackend(2))
    fig = sweep_figure(plan, o.aggregated, o.scatter, o.runs, o.metrics, "t")
    ax = fig.axes[0]
    assert "n = 2 seeds" in ax.get_title() and not ax.collections  # no error bars
    for flow in ("a", "b"):
        (mean,) = [ln for ln in ax.lines if ln.get_gid() == f"line:{flow}"]
        assert mean.get_linestyle() == "None"
        (row,) = [r for r in o.aggregated if r["flow"] == flow and r["metric"] == "goodput_bps"]
        assert mean.get_ydata()[0] == pytest.approx(row["mean"] / 1e6, rel=1e-12)
        (seeds,) = [ln for ln in ax.lines if ln.get_gid() is None and ln.get_color() == mean.get_color()]
        want = o.runs.filter(pl.col("flow") == flow)["goodput_bps"].to_list()
        assert list(seeds.get_ydata()) == pytest.approx([v / 1e6 for v in want], rel=1e-12)
