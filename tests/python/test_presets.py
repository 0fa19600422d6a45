"""Scheme presets (issue 40 part 3): the options a window policy or a recovery needs come from the
engine's own declaration and are added where a flow leaves them out, in a sweep, a `--set` run,
`run_many` and the demo, with a one-line notice; the user's own value always wins."""

from __future__ import annotations

import copy
import warnings

import polars as pl
import pytest
from conftest import REPO, run_cli

import airtcp
from airtcp import presets
from airtcp import sweep as sw
from airtcp.demo import demo_variants
from airtcp.scenario import load, loads

FIG10 = REPO / "examples" / "jersey_fig10.toml"
ALL_CC = "reno,cubic,bbr,westwood,jersey,new-jersey,nj+,prairie,ie2-envelope,caiad"


def _short(doc: dict) -> dict:
    d = copy.deepcopy(doc)
    d["duration"], d["warmup"] = "3s", "1s"
    return d


def _rejects(doc: dict) -> str | None:
    try:
        airtcp.validate(doc, base_dir=REPO / "examples", presets=False)
    except airtcp.ScenarioError as e:
        return str(e)
    return None


def test_the_declaration_is_what_the_engine_enforces():
    """For every window policy and recovery: with one option off and the other two on, the engine
    rejects the flow, naming that option, exactly when flow_requirements says the scheme needs it."""
    req = presets.requirements()
    assert set(req["cc"]) == set(airtcp._core.flow_requirements()["cc"]) and len(req["cc"]) >= 12
    base = _short(load(FIG10))
    for part, names in req.items():
        for name, needs in names.items():
            for opt in presets.OPTIONS:
                d = copy.deepcopy(base)
                d["flows"][0][part] = name
                d["flows"][0].update({o: o != opt for o in presets.OPTIONS})
                err = _rejects(d)
                if needs.get(opt, False):
                    assert err is not None and f"flows[0].{opt}" in err and f"needs {opt} = true" in err, (
                        part,
                        name,
                        err,
                    )
                else:
                    assert err is None, (part, name, opt, err)
    # the ones the issue names
    assert req["cc"]["jersey"]["ecn"] and req["cc"]["nj+"]["timestamps"] and req["cc"]["new-jersey"]["timestamps"]
    assert req["cc"]["ie2-envelope"]["sack"] and req["recovery"]["sack"]["sack"] and not req["cc"]["reno"]["ecn"]


def test_complete_adds_only_what_is_missing():
    doc = {
        "flows": [
            {"kind": "tcp", "cc": "nj+"},
            {"kind": "tcp", "cc": "jersey", "ecn": False},  # the user's word
            {"kind": "tcp", "cc": "reno", "recovery": "sack"},
            {"kind": "cbr", "cc": "jersey"},  # not TCP: untouched
            {"kind": "tcp", "cc": "no-such-cc"},  # for the engine to report
            "not a table",
        ]
    }
    notes = presets.complete(doc)
    assert doc["flows"][0] == {"kind": "tcp", "cc": "nj+", "ecn": True, "timestamps": True}
    assert doc["flows"][1] == {"kind": "tcp", "cc": "jersey", "ecn": False}
    assert doc["flows"][2] == {"kind": "tcp", "cc": "reno", "recovery": "sack", "sack": True}
    assert doc["flows"][3:] == [{"kind": "cbr", "cc": "jersey"}, {"kind": "tcp", "cc": "no-such-cc"}, "not a table"]
    assert notes == [
        'flows.0.ecn = true (cc = "nj+")',
        'flows.0.timestamps = true (cc = "nj+")',
        'flows.2.sack = true (recovery = "sack")',
    ]
    assert presets.complete(doc) == []  # idempotent
    line = presets.notice(notes)
    assert "\n" not in line
    assert line.startswith("presets: flows.0.ecn = true for cc nj+; flows.0.timestamps = true for cc nj+; ")
    assert "flows.2.sack = true for recovery sack" in line
    assert presets.notice([]) == ""


def test_valid_scenarios_are_left_as_they_are():
    """Presets only add what the engine would reject without: every shipped example passes through
    unchanged, text and all (so results and error line numbers are as before)."""
    for path in sorted((REPO / "examples").glob("*.toml")) + sorted((REPO / "experiments").rglob("*.toml")):
        text = path.read_text()
        try:
            doc = loads(text)
        except airtcp.ScenarioFileError:
            continue
        if not isinstance(doc.get("flows"), list):
            continue  # a spec file, not a scenario
        out, notes = presets.text_with_presets(text)
        assert notes == [] and out is text, (path, notes)


def test_every_scheme_in_one_sweep_line(tmp_path):
    """The issue's command: a grid over ten schemes with no per-scheme option (shortened runs)."""
    r = run_cli(
        "sweep",
        str(FIG10),
        "--grid",
        f"flows.0.cc={ALL_CC}",
        "--seeds",
        "2",
        "--set",
        "duration=4s",
        "--set",
        "warmup=1s",
        "--out",
        str(tmp_path / "o"),
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    notes = [line for line in r.stderr.splitlines() if line.startswith("note: presets:")]
    assert len(notes) == 1, r.stderr
    assert "flows.0.ecn = true for cc jersey, new-jersey, nj+" in notes[0]
    assert "flows.0.timestamps = true for cc new-jersey, nj+" in notes[0]
    assert "flows.0.sack = true for cc ie2-envelope" in notes[0]
    runs = pl.read_parquet(tmp_path / "o" / "runs.parquet")
    assert runs["flows.0.cc"].unique(maintain_order=True).to_list() == ALL_CC.split(",")
    assert runs["cc"].to_list() == runs["flows.0.cc"].to_list()  # each run really used its scheme
    assert runs.height == 20


def test_a_grid_value_carries_more_fields():
    doc = _short(load(FIG10))
    axis = sw.parse_grid('flows.0.cc=reno;sack=true;recovery="sack",jersey;ecn=true;cc_params.x=1,new-jersey')
    assert axis.labels == ('reno;sack=true;recovery="sack"', "jersey;ecn=true;cc_params.x=1", "new-jersey")
    assert axis.values == ("reno", "jersey", "new-jersey")
    assert axis.extras == ((("sack", True), ("recovery", "sack")), (("ecn", True), ("cc_params.x", 1)), ())
    axis = sw.parse_grid('flows.0.cc=reno;recovery="sack",new-jersey;delayed_ack=true')
    plan = sw.plan_sweep(doc, str(FIG10.parent), [axis], 1)
    assert plan.docs[0]["flows"][0]["recovery"] == "sack" and plan.docs[0]["flows"][0]["sack"] is True
    f1 = plan.docs[1]["flows"][0]
    assert f1["delayed_ack"] is True and f1["ecn"] is True and f1["timestamps"] is True
    assert plan.notes == (
        'flows.0.sack = true (recovery = "sack")',
        'flows.0.ecn = true (cc = "new-jersey")',
        'flows.0.timestamps = true (cc = "new-jersey")',
    )


@pytest.mark.parametrize(
    "grid, message",
    [
        # the user's own `ecn = false` wins, and the engine says what jersey needs
        ("flows.0.cc=reno,jersey;ecn=false", 'flows[0].ecn: cc = "jersey" needs ecn = true'),
        ("flows.0.cc=reno,jersey;ecn", "'ecn' in value 'jersey;ecn': expected KEY=VALUE after ';'"),
        ("flows.0.cc=reno,;ecn=true", "value ';ecn=true' has nothing before ';'"),
    ],
)
def test_grid_value_fields_errors(grid, message):
    with pytest.raises(sw.SweepError) as e:
        sw.plan_sweep(_short(load(FIG10)), str(FIG10.parent), [sw.parse_grid(grid)], 1)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_set_run_gets_the_presets(tmp_path):
    r = run_cli(
        "run", str(FIG10), "--set", "flows.0.cc=nj+", "--set", "duration=3s", "--set", "warmup=1s", "--no-write"
    )
    assert r.returncode == 0, r.stderr
    assert r.stderr.strip() == (
        "note: presets: flows.0.ecn = true for cc nj+; flows.0.timestamps = true for cc nj+ "
        "(what each scheme needs; set the option yourself to change it)"
    )
    r = run_cli("validate", str(FIG10), "--set", "flows.0.cc=nj+", "--set", "flows.0.timestamps=false")
    assert r.returncode == 2
    assert r.stderr.startswith("note: presets: flows.0.ecn = true for cc nj+ (")
    # the error names the --set that caused it (issue 40 item 12)
    assert r.stderr.splitlines()[1] == (
        "error: --set 'flows.0.timestamps=false': "
        'flows[0].timestamps: cc = "nj+" needs timestamps = true (its estimator reads the receiver\'s clock)'
    )


def test_run_many_and_run_warn_once_and_match_explicit_options():
    base = _short(load(FIG10))
    implicit = copy.deepcopy(base)
    implicit["flows"][0]["cc"] = "new-jersey"
    explicit = copy.deepcopy(implicit)
    explicit["flows"][0].update(ecn=True, timestamps=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        a, b = airtcp.run_many([implicit, implicit], seeds=[1, 2], base_dir=FIG10.parent)
    got = [w for w in caught if issubclass(w.category, airtcp.PresetWarning)]
    assert len(got) == 1 and "flows.0.timestamps = true for cc new-jersey" in str(got[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing added: no warning
        c = airtcp.run(explicit, seed=1, base_dir=FIG10.parent)
    assert a.summary_json == c.summary_json  # the preset is exactly the explicit option
    assert b.seed == 2
    with pytest.raises(airtcp.ScenarioError, match="needs ecn = true"):
        airtcp.run(implicit, base_dir=FIG10.parent, presets=False)


def test_demo_variants_get_what_the_hand_table_gave():
    """The demo's variants completed by presets are the options the demo listed by hand before."""
    variants = dict(demo_variants(load(FIG10)))
    for d in variants.values():
        presets.complete(d)
    assert {k: v for k, v in variants["nj+"]["flows"][0].items() if k in presets.OPTIONS} == {
        "ecn": True,
        "timestamps": True,
    }
    assert {k: v for k, v in variants["jersey"]["flows"][0].items() if k in presets.OPTIONS} == {"ecn": True}
    assert not any(k in variants["reno"]["flows"][0] for k in presets.OPTIONS)
