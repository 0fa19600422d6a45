"""Unit tests of scenario loading, `--set` overrides and TOML round trips (no engine needed)."""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from airtcp.scenario import (
    OverrideError,
    ScenarioFileError,
    apply_overrides,
    dumps,
    load,
    loads,
    parse_duration_s,
    parse_value,
    to_text,
)

from conftest import EXAMPLE, GOOD


def doc() -> dict:
    return {
        "name": "t",
        "duration": "10s",
        "nodes": ["S", "D"],
        "links": [{"from": "S", "to": "D", "rate": "1Mbps", "delay": "1ms", "queue": {"kind": "droptail"}}],
        "flows": [{"kind": "tcp", "src": "S", "dst": "D", "recovery": "reno"}, {"kind": "tcp", "src": "S", "dst": "D"}],
    }


def test_set_string_in_array_of_tables():
    d = apply_overrides(doc(), ["flows.0.recovery=sack", "flows.0.sack=true"])
    assert d["flows"][0]["recovery"] == "sack"
    assert d["flows"][0]["sack"] is True
    assert "sack" not in d["flows"][1]


def test_values_are_toml_scalars_when_possible():
    d = apply_overrides(
        doc(),
        [
            "seed=42",
            "links.0.channel.loss=0.01",
            "flows.1.timestamps=false",
            'name="quoted name"',
            "duration=20s",
            "links.0.rate=10Mbps",
            "flows.1.cc=westwood",
        ],
    )
    assert d["seed"] == 42 and isinstance(d["seed"], int)
    assert d["links"][0]["channel"] == {"loss": 0.01}  # missing tables are created
    assert d["flows"][1]["timestamps"] is False
    assert d["name"] == "quoted name"
    assert d["duration"] == "20s"
    assert d["links"][0]["rate"] == "10Mbps"
    assert d["flows"][1]["cc"] == "westwood"


def test_inline_tables_and_arrays_and_negative_index():
    d = apply_overrides(
        doc(), ['links.-1.channel={kind = "uniform", loss = 0.05}', 'nodes=["A", "B"]', "flows.-1.cc=vegas"]
    )
    assert d["links"][0]["channel"] == {"kind": "uniform", "loss": 0.05}
    assert d["nodes"] == ["A", "B"]
    assert d["flows"][1]["cc"] == "vegas"


def test_value_may_contain_equals_and_spaces_around_key():
    d = apply_overrides(doc(), [" name = a=b"])
    assert d["name"] == "a=b"


def test_whole_array_element_replaced_by_index():
    d = apply_overrides(doc(), ["nodes.1=X"])
    assert d["nodes"] == ["S", "X"]


def test_overrides_apply_in_order():
    d = apply_overrides(doc(), ["seed=1", "seed=2"])
    assert d["seed"] == 2


@pytest.mark.parametrize(
    "assignment, fragment",
    [
        ("flows.0.recovery", "expected KEY=VALUE"),
        ("=3", "empty key"),
        ("flows..cc=reno", "empty key or empty part"),
        ("flows.5.cc=reno", "has 2 entries: no index 5"),
        ("flows.-3.cc=reno", "has 2 entries: no index -3"),
        ("flows.first.cc=reno", "index it with an integer"),
        ("duration.unit=s", "'duration' is a value (string)"),
        ("flows.0.recovery.kind=x", "'flows.0.recovery' is a value (string)"),
        ("nodes.2=X", "has 2 entries"),
    ],
)
def test_bad_overrides_raise_one_line_errors(assignment, fragment):
    before = doc()
    with pytest.raises(OverrideError) as e:
        apply_overrides(before, [assignment])
    msg = str(e.value)
    assert fragment in msg, msg
    assert "\n" not in msg
    assert msg.startswith(f"--set '{assignment}'")


def test_parse_value():
    assert parse_value("3") == 3
    assert parse_value("-3") == -3
    assert parse_value("0.5") == 0.5
    assert parse_value("1e-3") == 0.001
    assert parse_value("true") is True
    assert parse_value("sack") == "sack"
    assert parse_value("10Mbps") == "10Mbps"
    assert parse_value("'x y'") == "x y"
    assert parse_value("") == ""
    assert parse_value("[1, 2") == "[1, 2"  # not valid TOML: kept as text


@given(
    st.integers(min_value=0, max_value=2**63 - 1)
    | st.booleans()
    | st.text(min_size=1, max_size=20).filter(lambda s: s == s.strip() and "\n" not in s and "\r" not in s)
)
def test_round_trip_of_any_scalar(value):
    """Setting a value written as TOML gives that value back, and the result dumps to valid TOML."""
    d = doc()
    text = dumps({"v": value}).split("=", 1)[1].strip()
    d = apply_overrides(d, [f"flows.1.x={text}"])
    assert d["flows"][1]["x"] == value
    assert tomllib.loads(dumps(d)) == d


@given(st.lists(st.sampled_from(["tahoe", "reno", "newreno", "sack"]), min_size=2, max_size=2))
def test_each_flow_can_be_set_independently(recs):
    d = apply_overrides(doc(), [f"flows.{i}.recovery={r}" for i, r in enumerate(recs)])
    assert [f["recovery"] for f in d["flows"]] == recs


def test_apply_overrides_keeps_untouched_parts():
    d = doc()
    expected = copy.deepcopy(d)
    out = apply_overrides(d, ["flows.0.cc=vegas"])
    expected["flows"][0]["cc"] = "vegas"
    assert out == expected


def test_apply_overrides_leaves_its_input_alone():
    """Variants of one loaded scenario do not accumulate each other's overrides."""
    base = doc()
    before = copy.deepcopy(base)
    a = apply_overrides(base, ["flows.0.cc=vegas", "links.0.channel.loss=0.01"])
    b = apply_overrides(base, ["flows.1.cc=westwood"])
    assert base == before
    assert a["flows"][0]["cc"] == "vegas" and "cc" not in a["flows"][1]
    assert b["flows"][1]["cc"] == "westwood" and "cc" not in b["flows"][0] and "channel" not in b["links"][0]
    assert a["flows"] is not base["flows"] and a["links"][0] is not base["links"][0]


def test_load_and_dump_round_trip_of_example():
    d = load(EXAMPLE)
    assert d["name"] == "jersey-fig10"
    assert tomllib.loads(dumps(d)) == d


def test_load_errors_are_one_line(tmp_path: Path):
    with pytest.raises(ScenarioFileError, match="no such file"):
        load(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text('a = "unterminated\n')
    with pytest.raises(ScenarioFileError) as e:
        load(bad)
    assert "invalid TOML" in str(e.value) and "line 1" in str(e.value) and "\n" not in str(e.value)
    with pytest.raises(ScenarioFileError):
        loads("x = = 1")


def test_to_text_accepts_text_path_and_dict(tmp_path: Path):
    text = GOOD.read_text()
    assert to_text(text) == text
    assert to_text(GOOD) == text
    assert to_text(str(GOOD)) == text
    assert tomllib.loads(to_text({"duration": "1s"})) == {"duration": "1s"}
    with pytest.raises(ScenarioFileError):
        to_text(str(tmp_path / "nope.toml"))
    with pytest.raises(TypeError):
        to_text(42)  # type: ignore[arg-type]


def test_parse_duration_s():
    assert parse_duration_s("20s") == 20.0
    assert parse_duration_s("100ms") == pytest.approx(0.1)
    assert parse_duration_s("1.5s") == 1.5
    assert parse_duration_s("250us") == pytest.approx(250e-6)
    for bad in ["20", "-1s", "1h", "s", ""]:
        with pytest.raises(ValueError):
            parse_duration_s(bad)


@pytest.mark.parametrize("text", ["20s", " 20s ", ".5s", "5.s", "1e3s", "20 s", "0.0000000001s", "1h", "20", "-1s"])
def test_parse_duration_s_accepts_exactly_what_a_run_accepts(text):
    """One duration parser (issue 40): parse_duration_s is the engine's, so it accepts a text iff a
    scenario with that duration validates, whatever the text."""
    import airtcp

    doc = loads(GOOD.read_text())
    doc["duration"], doc["warmup"] = text, "0s"
    try:
        airtcp.validate(doc, base_dir=GOOD.parent)
        engine_ok = True
    except airtcp.ScenarioError as e:
        engine_ok = "duration" not in str(e)
    try:
        parse_duration_s(text)
        python_ok = True
    except ValueError:
        python_ok = False
    assert python_ok == engine_ok


def test_parse_trace_is_the_engines_mahimahi_parser():
    from airtcp.reproduce.capacity import parse_trace

    assert parse_trace("1\n2\n\n2\n30\n") == (1, 2, 2, 30)
    with pytest.raises(ValueError, match="line 2: 'x' is not a whole number of milliseconds"):
        parse_trace("1\nx\n")
    with pytest.raises(ValueError, match="line 3"):
        parse_trace("5\n6\n4\n")  # not non-decreasing: the engine refuses it, as a run would
