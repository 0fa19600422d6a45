"""Issue 39, the Python side: hostile inputs the Python layer met before the engine could refuse
them (items 10, 14, 16), names printed as markup (6), stale or damaged cache entries (2, 3), the
sweep scatter's flow (4), and outputs that were deleted, half-written or written elsewhere (12).
The output folders' provenance, --force and Ctrl-C are in test_outputs.py."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from conftest import GOOD, run_cli

import airtcp
from airtcp import api
from airtcp import sweep as sw
from airtcp.reproduce import backend as be
from airtcp.reproduce.entry import valid_entry
from airtcp.scenario import OverrideError, ScenarioFileError, apply_overrides, loads

from test_reproduce import make_root

BIG_INT = "9" * 5000
DEEP = "[" * 1000 + "]" * 1000


def _one_error_line(r: subprocess.CompletedProcess[str], *words: str) -> str:
    """The command failed with status 2 and exactly one ``error:`` line naming ``words``."""
    assert r.returncode == 2, (r.returncode, r.stderr[-2000:])
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr[-2000:]
    assert "internal error" not in lines[0] and "Traceback" not in r.stderr
    for w in words:
        assert w in lines[0], (w, lines[0])
    return lines[0]


# ---- item 16: what Python's own parser cannot take ----------------------------------------------


def test_a_5000_digit_integer_in_a_scenario_file_is_one_line(tmp_path):
    f = tmp_path / "big.toml"
    f.write_text(GOOD.read_text().replace("seed = 7", f"seed = {BIG_INT}"))
    for cmd in (["run", str(f), "--no-write"], ["validate", str(f)], ["run", str(f), "--set", "duration=1s"]):
        _one_error_line(run_cli(*cmd, cwd=tmp_path), "integer out of range")


def test_a_5000_digit_integer_in_set_and_grid_is_one_line(tmp_path):
    _one_error_line(run_cli("run", str(GOOD), "--no-write", "--set", f"seed={BIG_INT}"), "--set", "integer")
    _one_error_line(run_cli("validate", str(GOOD), "--set", f"duration={BIG_INT}"), "--set", "integer")
    r = run_cli("sweep", str(GOOD), "--grid", f"seed=1,{BIG_INT}", "--out", str(tmp_path / "s"), cwd=tmp_path)
    _one_error_line(r, "integer")
    assert not (tmp_path / "s").exists()


def test_1000_deep_values_and_3000_deep_keys_are_one_line(tmp_path):
    _one_error_line(run_cli("run", str(GOOD), "--no-write", "--set", f"x={DEEP}"), "--set", "nested too deeply")
    _one_error_line(run_cli("validate", str(GOOD), "--set", f"flows.0.cc={DEEP}"), "nested too deeply")
    r = run_cli("sweep", str(GOOD), "--grid", f"flows.0.cc=reno,{DEEP}", "--out", str(tmp_path / "s"), cwd=tmp_path)
    _one_error_line(r, "nested too deeply")
    key = ".".join(["a"] * 3000)
    _one_error_line(run_cli("run", str(GOOD), "--no-write", "--set", f"{key}=1"), "--set", "3000 parts", "up to 64")
    r = run_cli("sweep", str(GOOD), "--grid", f"{key}=1,2", "--out", str(tmp_path / "s"), cwd=tmp_path)
    _one_error_line(r, "3000 parts")
    # a 1000-deep scenario file: Python's parser runs out of stack, the message is the same kind
    f = tmp_path / "deep.toml"
    f.write_text(GOOD.read_text() + f"\nx = {DEEP}\n")
    _one_error_line(run_cli("run", str(f), "--set", "duration=1s", "--no-write"), "nested too deeply")


def test_the_api_raises_scenario_error_where_python_could_not_parse():
    base = loads(GOOD.read_text())
    with pytest.raises(api.ScenarioError, match="integer out of range"):
        airtcp.run({**base, "seed": 10**5000})
    with pytest.raises(api.ScenarioError, match="integer out of range"):
        airtcp.validate({**base, "duration": -(2**63) - 1})
    deep: list = []
    node = deep
    for _ in range(1000):
        node.append([])
        node = node[0]
    with pytest.raises(api.ScenarioError, match="nested more than 64 levels"):
        airtcp.validate({**base, "x": deep})
    with pytest.raises(OverrideError, match="3000 parts"):
        apply_overrides(base, [".".join(["a"] * 3000) + "=1"])
    with pytest.raises(OverrideError, match="nested too deeply"):
        apply_overrides(base, [f"x={DEEP}"])
    with pytest.raises(OverrideError, match="integer out of range"):
        apply_overrides(base, [f"seed={BIG_INT}"])
    with pytest.raises(ScenarioFileError, match="integer out of range"):
        loads(f"seed = {BIG_INT}")
    # each is also a ValueError (ScenarioError, OverrideError and ScenarioFileError all are)
    assert issubclass(api.ScenarioError, ValueError) and issubclass(OverrideError, ValueError)


# ---- item 10: --jobs and jobs= -----------------------------------------------------------------


def test_jobs_beyond_4_per_core_are_refused_in_one_line(tmp_path):
    top = str(api.max_jobs())
    for cmd in (
        ["demo", "--jobs", "1000000", "--out", str(tmp_path / "d")],
        ["demo", "--jobs", "-1", "--out", str(tmp_path / "d")],
        ["sweep", str(GOOD), "--grid", "flows.0.cc=reno", "--jobs", "1000000", "--out", str(tmp_path / "s")],
        ["reproduce", "--all", "--jobs", str(2**64), "--out", str(tmp_path / "r")],
    ):
        r = run_cli(*cmd, cwd=tmp_path, timeout=60)
        _one_error_line(r, "--jobs", f"1 to {top}")
    assert not any(tmp_path.iterdir())  # refused before anything was written


@pytest.mark.parametrize("jobs", [2**64, 1.5, True, -1, "2", 10**6])
def test_run_many_jobs_out_of_range_is_a_value_error(jobs):
    with pytest.raises(ValueError, match=r"^jobs .*: must be an integer from 1 to \d+"):
        airtcp.run_many([GOOD], jobs=jobs)


def test_threads_never_exceed_the_work_or_4_per_core():
    assert api.resolve_jobs(api.max_jobs(), 3) == 3
    assert api.resolve_jobs(0, 10**6) == (os.cpu_count() or 1)
    assert api.resolve_jobs(None, 1) == 1
    assert api.max_jobs() == 4 * (os.cpu_count() or 1)
    with pytest.raises(ValueError):
        be.LocalBackend(api.max_jobs() + 1)


# ---- item 6: names are text, never markup ------------------------------------------------------


def test_names_that_look_like_markup_are_printed_as_text(tmp_path):
    f = tmp_path / "markup.toml"
    names = ["[/]", "[link=https://example.com]x[/link]", ":smile: [bold]b"]
    doc = loads(GOOD.read_text())
    doc["name"] = "[red]scenario[/red]"
    doc["duration"] = "2s"
    doc["flows"][0]["name"] = names[0]
    doc["flows"][1]["name"] = names[1]
    doc["flows"].append({**doc["flows"][1], "name": names[2]})
    f.write_text(airtcp.scenario.dumps(doc))
    r = run_cli("run", str(f), "--out", str(tmp_path / "o"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "[red]scenario[/red]" in r.stdout
    for n in names:
        assert n in r.stdout, n  # the table shows the name itself
    assert "\x1b]8;" not in r.stdout and "😄" not in r.stdout  # no hyperlink, no emoji
    r = run_cli(
        "sweep", str(f), "--grid", "flows.0.cc=reno,cubic", "--seeds", "1", "--out", str(tmp_path / "s"), cwd=tmp_path
    )
    assert r.returncode == 0, r.stderr
    assert "[red]scenario[/red]" in r.stdout and "[/]" in r.stdout


# ---- item 14: an experiment id is a name --------------------------------------------------------


@pytest.mark.parametrize("bad", ["/tmp/airtcp-escape", "../escape", "a/b", ".hidden", "", "x\\y", "a\nb"])
def test_an_experiment_id_that_is_a_path_is_refused(tmp_path, bad):
    from test_reproduce import SPEC

    spec = SPEC.replace('id = "tiny-sweep"', f"id = {json.dumps(bad)}")
    root = make_root(tmp_path, spec=spec, claims='paper = "Tiny"\nseed = "none"\n')
    out = tmp_path / "results"
    r = run_cli("reproduce", "--all", "--quick", "--experiments", str(root), "--out", str(out), cwd=tmp_path)
    _one_error_line(r, "tiny.sweep.toml: id:", "is not a name")
    assert not out.exists() and not Path("/tmp/airtcp-escape").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["experiments"]


# ---- item 2: the cache key covers the trace files' contents -------------------------------------

TRACE_SCENARIO = """
name = "trace-cache"
duration = "3s"
sample_interval = "100ms"
nodes = ["S", "D"]

[[links]]
from = "S"
to = "D"
capacity = { kind = "trace", file = "cell.trace" }
delay = "10ms"
queue = { kind = "droptail", limit_pkts = 100 }

[[flows]]
kind = "tcp"
name = "down"
src = "S"
dst = "D"
"""


def _trace_sweep(tmp_path: Path, out: Path) -> sw.SweepOutcome:
    doc = loads(TRACE_SCENARIO)
    plan = sw.plan_sweep(doc, str(tmp_path), [sw.parse_grid("flows.0.cc=reno,cubic")], 2)
    return sw.run_sweep(plan, out, be.LocalBackend(2), scenario_name="trace-cache")


def test_a_changed_trace_file_is_run_again_not_served_from_the_cache(tmp_path):
    trace = tmp_path / "cell.trace"
    trace.write_text("".join(f"{ms}\n" for ms in range(1, 11)))  # 10 × 1500 B per 10 ms: 12 Mb/s
    out = tmp_path / "s"
    first = _trace_sweep(tmp_path, out)
    assert first.executed == first.total == 4
    fast = first.runs["goodput_bps"].mean()
    assert 6e6 < fast < 12e6
    again = _trace_sweep(tmp_path, out)
    assert again.executed == 0  # unchanged inputs: all from the cache
    stamp = trace.stat()
    trace.write_text("10\n" + "\n" * 18)  # one opportunity per 10 ms: 1.2 Mb/s, the same size
    os.utime(trace, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))  # and the same modification time
    assert trace.stat().st_size == stamp.st_size
    slow = _trace_sweep(tmp_path, out)
    assert slow.executed == slow.total == 4
    assert slow.runs["goodput_bps"].mean() < 1.2e6 < fast / 5
    # a fresh folder agrees with the rerun (nothing stale left in the tables)
    fresh = _trace_sweep(tmp_path, tmp_path / "fresh")
    assert fresh.runs.drop("key").equals(slow.runs.drop("key"))


# ---- item 3: cache entries are checked against a schema -----------------------------------------


def _small_plan(seeds: int = 2) -> sw.SweepPlan:
    doc = loads(GOOD.read_text())
    doc["duration"] = "2s"
    return sw.plan_sweep(doc, str(GOOD.parent), [sw.parse_grid("flows.0.cc=reno,cubic")], seeds)


def test_cache_entries_of_the_wrong_shape_are_redone(tmp_path):
    plan = _small_plan()
    out = tmp_path / "s"
    first = sw.run_sweep(plan, out, be.LocalBackend(2))
    agg = (out / "aggregated.csv").read_bytes()
    cache = be.Cache(out / ".cache")
    keys = [be.cache_key(t) for t in plan.tasks]
    good_entry = json.loads(cache.path(keys[1]).read_text())
    damaged = {
        0: {"summary": 1},
        1: {"summary": {"flows": []}},
        2: json.loads(cache.path(keys[3]).read_text()),  # another seed's valid entry
        3: {**good_entry, "summary": {**good_entry["summary"], "flows": good_entry["summary"]["flows"][:1]}},
    }
    for i, doc in damaged.items():
        cache.path(keys[i]).write_text(json.dumps(doc))
    again = sw.run_sweep(plan, out, be.LocalBackend(2))
    assert again.executed == 4 and first.executed == 4
    assert (out / "aggregated.csv").read_bytes() == agg
    assert again.runs.equals(first.runs)
    third = sw.run_sweep(plan, out, be.LocalBackend(2))
    assert third.executed == 0  # the redone entries were written back, valid


def test_cache_entry_schema():
    plan = _small_plan(1)
    payload = be.execute(plan.tasks[0])
    assert valid_entry(payload, 1, 2)
    assert valid_entry(json.loads(json.dumps(payload)), None, None)
    assert not valid_entry(payload, 2, 2)  # another seed
    assert not valid_entry(payload, 1, 3)  # another number of flows
    f0 = payload["summary"]["flows"][0]
    for bad in (
        {"summary": 1},
        {"summary": {"flows": []}},
        [],
        {**payload, "summary": {**payload["summary"], "seed": True}},
        {**payload, "summary": {**payload["summary"], "seed": "1"}},
        {**payload, "summary": {**payload["summary"], "flows": [{**f0, "goodput_bps": "fast"}, f0]}},
        {**payload, "summary": {**payload["summary"], "flows": [{**f0, "timeouts": -1}, f0]}},
        {**payload, "extra": 1},
        {**payload, "flow_series": {"time_s": [0.0, 1.0], "flow": ["a"]}},
    ):
        assert not valid_entry(bad, None, None), bad


# ---- item 4: the scatter plots the varied entry's flows -----------------------------------------


def test_scatter_plots_the_varied_entry_after_a_both_ways_entry():
    doc = loads(GOOD.read_text())
    doc["duration"] = "3s"
    bg = {k: v for k, v in doc["flows"][1].items() if k != "start"}
    doc["flows"] = [{**bg, "name": "bg", "direction": "both", "count": 2}, {**doc["flows"][0], "name": "main"}]
    plan = sw.plan_sweep(doc, str(GOOD.parent), [sw.parse_grid("flows.1.cc=reno,cubic")], 2)
    runs, metrics = sw._runs_table(plan, *_payloads(plan))
    assert runs.filter(pl.col("seed") == 1)["flow"].to_list()[:5] == ["bg.0", "bg.1", "bg.rev0", "bg.rev1", "main"]
    points = sw.scatter_points(plan, runs, metrics)
    assert [p["scheme"] for p in points] == ["reno", "cubic"]
    for p in points:
        main = runs.filter((pl.col("flows.1.cc") == p["scheme"]) & (pl.col("flow") == "main"))
        per_seed = [float(x) for x in p["goodput_per_seed_bps"].split()]
        assert per_seed == main["goodput_bps"].to_list()
        assert [float(x) for x in p["delay_per_seed_s"].split()] == main[p["delay_metric"]].to_list()


def _payloads(plan: sw.SweepPlan) -> tuple[list[str], list[dict]]:
    return [be.cache_key(t) for t in plan.tasks], [be.execute(t) for t in plan.tasks]


# ---- item 12: captures and the user's own files -------------------------------------------------


def _pcap_tmp() -> set[str]:
    import tempfile

    return {p.name for p in Path(tempfile.gettempdir()).glob("airtcp-pcap-*")}


@pytest.mark.parametrize("kind", ["folder", "file", "link"])
def test_pcap_never_touches_the_users_own_pcap_entry(tmp_path, kind):
    out = tmp_path / "o"
    out.mkdir()
    mine = out / "pcap"
    if kind == "folder":
        mine.mkdir()
        (mine / "notes.txt").write_text("mine")
    elif kind == "file":
        mine.write_text("mine")
    else:
        (tmp_path / "elsewhere").mkdir()
        mine.symlink_to(tmp_path / "elsewhere")
    before = _pcap_tmp()
    r = run_cli("run", str(GOOD), "--set", "duration=2s", "--pcap", "--out", str(out), cwd=tmp_path)
    _one_error_line(r, "pcap", "airtcp did not write", "never deletes")
    assert sorted(p.name for p in out.iterdir()) == ["pcap"]  # nothing else written
    if kind == "folder":
        assert (mine / "notes.txt").read_text() == "mine"
    elif kind == "file":
        assert mine.read_text() == "mine"
    else:
        assert mine.is_symlink() and not any((tmp_path / "elsewhere").iterdir())
    assert _pcap_tmp() == before
    assert not [p for p in tmp_path.iterdir() if "airtcp-tmp" in p.name]


def _no_signal_xfsz() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG) instead
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))


def test_a_full_disk_leaves_no_truncated_capture(tmp_path):
    # a file-size limit stands in for a full disk: the capture's write fails part-way
    out = tmp_path / "o"
    env = {k: v for k, v in os.environ.items() if k != "AIRTCP_DEBUG"}
    r = subprocess.run(
        [sys.executable, "-m", "airtcp", "run", str(GOOD), "--pcap", "--out", str(out)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_no_signal_xfsz,
    )
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and r.stderr.startswith("error: ")
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_an_empty_out_is_refused(tmp_path):
    for cmd in (
        ["run", str(GOOD), "--set", "duration=1s", "--out", ""],
        ["demo", "--duration", "1s", "--out", ""],
        ["sweep", str(GOOD), "--grid", "flows.0.cc=reno", "--out", ""],
        ["reproduce", "--all", "--out", ""],
        ["run", str(GOOD), "--set", "duration=1s", "--out", "."],
        ["run", str(GOOD), "--set", "duration=1s", "--out", ".."],
    ):
        _one_error_line(run_cli(*cmd, cwd=tmp_path, timeout=60), "--out")
    assert not any(tmp_path.iterdir())
