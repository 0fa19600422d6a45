"""The Python API's inputs and outputs (issue 40 part 9): a path or text= instead of a guess, a
clear error for a missing file, the typed summary checked against what the engine writes, the
notebook view, and "did you mean" for unknown names."""

from __future__ import annotations

import typing
from pathlib import Path

import pytest
from conftest import GOOD, REPO
from fixtures import good

import airtcp
from airtcp import summary as st
from airtcp.api import did_you_mean


def test_a_path_a_str_path_and_text_are_the_same_run():
    text = GOOD.read_text()
    by_path = airtcp.run(GOOD, seed=3)
    assert airtcp.run(str(GOOD), seed=3).summary_json == by_path.summary_json
    assert airtcp.run(text=text, seed=3).summary_json == by_path.summary_json
    assert airtcp.run(text, seed=3).summary_json == by_path.summary_json  # a multi-line str: still text
    airtcp.validate(text=text)


def test_a_missing_file_is_named_not_parsed_as_toml(tmp_path, monkeypatch):
    monkeypatch.chdir(REPO)
    with pytest.raises(airtcp.ScenarioFileError) as e:
        airtcp.run("examples/jersey_fig10")  # the example: was "key with no value"
    assert str(e.value) == "examples/jersey_fig10: no such file (did you mean examples/jersey_fig10.toml?)"
    with pytest.raises(airtcp.ScenarioFileError, match=r"^nowhere\.toml: no such file$"):
        airtcp.validate("nowhere.toml")
    with pytest.raises(airtcp.ScenarioFileError, match="no such file"):
        airtcp.run(Path("examples/jersey_fig10"))
    # a file whose name has '=' is still a file
    odd = tmp_path / "a=b.toml"
    odd.write_text(GOOD.read_text())
    airtcp.validate(str(odd))


def test_ambiguous_or_wrong_arguments_are_type_errors():
    with pytest.raises(TypeError, match="not both"):
        airtcp.run(GOOD, text="x = 1")
    with pytest.raises(TypeError, match="give a scenario"):
        airtcp.run()
    with pytest.raises(TypeError, match="text= is TOML text"):
        airtcp.validate(text=GOOD)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="not int"):
        airtcp.run(42)  # type: ignore[arg-type]


def _keys(td: type) -> tuple[frozenset[str], frozenset[str]]:
    return td.__required_keys__, td.__optional_keys__  # type: ignore[attr-defined]


def _check(value: dict, td: type, where: str) -> None:
    """Every key the engine wrote is declared, every required key is there, and nested tables
    follow their own declaration."""
    required, optional = _keys(td)
    assert set(value) <= required | optional, (where, set(value) - required - optional)
    assert required <= set(value), (where, required - set(value))
    hints = typing.get_type_hints(td)
    for k, v in value.items():
        hint = hints[k]
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        inner = args[0] if args else hint
        if isinstance(v, dict) and hasattr(inner, "__required_keys__"):
            _check(v, inner, f"{where}.{k}")


@pytest.mark.parametrize(
    "path",
    [GOOD, REPO / "examples" / "voip_congestion.toml", REPO / "experiments" / "hsdpa" / "cell9.toml"],
    ids=lambda p: p.stem,
)
def test_the_typed_summary_matches_the_engines(path):
    doc = airtcp.scenario.load(path)
    doc["duration"] = "2s"
    doc["warmup"] = "0s"
    s = airtcp.run(doc, seed=1, base_dir=path.parent).summary
    _check(dict(s), st.Summary, "summary")
    for f in s["flows"]:
        _check(dict(f), st.FlowSummary, f"flow {f['name']}")
    for link in s["links"]:
        _check(dict(link), st.LinkSummary, f"link {link['name']}")


def test_the_typed_summary_is_exported():
    assert airtcp.Summary is st.Summary
    assert "from" in st.LinkSummary.__required_keys__  # a Python keyword, still declared
    assert st.FlowSummary.__optional_keys__ == frozenset({"spurious_timeouts", "redundant_segments", "hsdpa"})


def test_repr_html_shows_the_flows():
    r = airtcp.run(GOOD, seed=2)
    html = r._repr_html_()
    assert html.startswith("<p><b>") and "<table" in html
    assert r.summary["scenario"] in html
    for f in r.summary["flows"]:
        assert f["name"] in html
        assert f"{f['goodput_bps'] / 1e6:.3f}"[:4] in html  # the goodput, in Mb/s
    escaped = airtcp.run(good('name="<b>&"'), seed=2)._repr_html_()
    assert "<b>&lt;b&gt;&amp;</b>" in escaped and "<b><b>&" not in escaped


def test_did_you_mean_for_unknown_keys_and_names():
    with pytest.raises(airtcp.ScenarioError) as e:
        airtcp.validate(good("flows.0.mss_byte=1000"))
    assert "unknown field `mss_byte` (did you mean `mss_bytes`?), expected one of" in str(e.value)
    with pytest.raises(airtcp.ScenarioError) as e:
        airtcp.validate(good("flows.0.cc=vegass"))
    assert "unknown window policy 'vegass' (did you mean 'vegas'?) (allowed: reno," in str(e.value)
    with pytest.raises(airtcp.ScenarioError) as e:
        airtcp.validate(good("flows.0.recovery=newrneo"))
    assert "(did you mean 'newreno'?)" in str(e.value)
    # nothing close: the message is the engine's own
    assert did_you_mean("x: unknown field `zzzz`, expected one of `name`, `src`") == (
        "x: unknown field `zzzz`, expected one of `name`, `src`"
    )
    assert did_you_mean("nothing unknown here") == "nothing unknown here"


def test_to_pandas_with_the_pandas_extra():
    """`pip install 'airtcp[pandas]'` gives what polars needs to hand the frames to pandas."""
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    r = airtcp.run(GOOD, seed=2)
    flows = r.flows.to_pandas()
    assert isinstance(flows, pd.DataFrame) and list(flows["name"]) == [f["name"] for f in r.summary["flows"]]
    assert r.flow_series.to_pandas().shape == r.flow_series.shape
