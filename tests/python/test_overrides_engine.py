"""The one ``--set`` implementation (the engine's ``scenario/overrides.rs`` through ``_core``)
against the Python implementation it replaced, kept here as the second implementation: on every
key and value form, both give the same document or the same one-line error.

Known, intended differences (each checked below): an integer TOML cannot hold is refused at the
``--set`` (the old code failed later, when the document was written out); the Rust reader takes
TOML 1.1 spellings (a trailing comma in an inline table), which the old one kept as strings.
"""

from __future__ import annotations

import copy
import math
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import airtcp
from conftest import run_cli
from airtcp.scenario import OverrideError, apply_overrides, dumps, parse_value, set_path

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python < 3.11
    import tomli as tomllib


REPO_EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "jersey_fig10.toml"

# ---- the replaced Python implementation (python/airtcp/scenario.py at a835bf1), as the oracle ----

_INDEX = re.compile(r"^-?\d+$")


def _old_parse_value(text: str) -> Any:
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def _old_type_name(v: Any) -> str:
    return {bool: "boolean", int: "integer", float: "float", str: "string"}.get(type(v), type(v).__name__)


def _old_step(node: Any, key: str, walked: str) -> Any:
    if isinstance(node, list):
        if not _INDEX.match(key):
            raise OverrideError(f"'{walked}' is an array: index it with an integer, not '{key}'")
        i = int(key)
        if not -len(node) <= i < len(node):
            raise OverrideError(f"'{walked}' has {len(node)} entries: no index {i}")
        return node[i]
    if isinstance(node, dict):
        return node[key]
    raise OverrideError(f"'{walked}' is a value ({_old_type_name(node)}), not a table or array")


def _old_set_path(doc: dict[str, Any], key: str, value: Any) -> None:
    key = key.strip()
    parts = key.split(".")
    if not key or any(not p for p in parts):
        raise OverrideError(f"empty key or empty part in '{key}'")
    node: Any = doc
    walked: list[str] = []
    for part in parts[:-1]:
        if isinstance(node, dict) and part not in node:
            node[part] = {}
        node = _old_step(node, part, ".".join(walked) or "<root>")
        walked.append(part)
    last = parts[-1]
    where = ".".join(walked) or "<root>"
    if isinstance(node, list):
        _old_step(node, last, where)
        node[int(last)] = value
    elif isinstance(node, dict):
        node[last] = value
    else:
        raise OverrideError(f"'{where}' is a value ({_old_type_name(node)}), not a table or array")


def _old_apply(doc: dict[str, Any], sets: list[str]) -> dict[str, Any]:
    out = copy.deepcopy(doc)
    for assignment in sets:
        if "=" not in assignment:
            raise OverrideError(f"--set '{assignment}': expected KEY=VALUE, e.g. flows.0.recovery=sack")
        key, raw = assignment.split("=", 1)
        try:
            _old_set_path(out, key, _old_parse_value(raw.strip()))
        except OverrideError as e:
            raise OverrideError(f"--set '{assignment}': {e}") from None
    return out


# ---- the forms compared ----

BASE = {
    "name": "t",
    "duration": "10s",
    "nodes": ["a", "b"],
    "links": [{"from": "a", "to": "b", "rate": "1Mbps", "channel": {"kind": "uniform", "loss": 0.01}}],
    "flows": [{"src": "a", "dst": "b", "cc": "reno"}, {"src": "b", "dst": "a", "sack": True}],
}

_PART = st.sampled_from(
    ["flows", "links", "nodes", "duration", "channel", "cc", "x", "0", "1", "-1", "-2", "2", "-3", "007", "first", ""]
)
KEYS = st.lists(_PART, min_size=1, max_size=4).map(".".join) | st.sampled_from(
    ["flows.0.cc", "links.0.channel.loss", "flows.-1.cc_params.gain", " seed ", "nodes.1", "flows.1"]
)
_WORD = st.from_regex(r"[A-Za-z][A-Za-z0-9_+-]{0,8}", fullmatch=True)
_SAFE_TEXT = st.text(st.characters(min_codepoint=32, max_codepoint=126, exclude_characters='"\\'), max_size=12)
VALUES = st.one_of(
    st.integers(min_value=-(2**63), max_value=2**63 - 1).map(str),
    st.floats(allow_nan=False).map(repr),
    st.booleans().map(lambda b: str(b).lower()),
    _WORD,
    st.sampled_from(["20s", "10Mbps", "64KB", "1.5ms", "", "nan", "-inf", "1979-05-27", "1979-05-27T07:32:00Z"]),
    _SAFE_TEXT.map(lambda t: f'"{t}"'),
    _SAFE_TEXT,
    st.lists(st.integers(-5, 5), max_size=3).map(lambda v: "[" + ", ".join(map(str, v)) + "]"),
    st.dictionaries(_WORD, st.integers(-5, 5), max_size=3).map(
        lambda d: "{ " + ", ".join(f'"{k}" = {v}' for k, v in d.items()) + " }"
    ),
    st.sampled_from(["[1, 2", "{ a = 1", "a=b", '[{ kind = "x" }, { kind = "y" }]', "[[1], [2, [3]]]"]),
)
SPACE = st.sampled_from(["", " ", "  ", "\t"])


def _no_nan(v: Any) -> Any:
    if isinstance(v, float) and math.isnan(v):
        return "<nan>"
    if isinstance(v, dict):
        return {k: _no_nan(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_no_nan(x) for x in v]
    return v


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Equal documents, NaN equal to NaN. (Key order may differ where TOML itself orders: a
    table's sub-tables follow its values.)"""
    return _no_nan(a) == _no_nan(b)


def _outcome(fn: Any) -> tuple[str, Any]:
    try:
        return "ok", fn()
    except OverrideError as e:
        return "error", str(e)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(key=KEYS, value=VALUES, pad=SPACE)
@example(key="flows.0.cc", value="00", pad="")  # not a TOML integer: a string, not "out of range"
@example(key="flows.-2.cc.x", value="1", pad=" ")  # a message shows the index as typed
def test_set_agrees_with_the_replaced_python_code(key, value, pad):
    assignment = f"{key}={pad}{value}{pad}"
    old = _outcome(lambda: _old_apply(BASE, [assignment]))
    new = _outcome(lambda: apply_overrides(BASE, [assignment]))
    if old[0] == "ok" and new[0] == "ok":
        assert _same(old[1], new[1]), (assignment, old, new)
    else:
        assert old == new, assignment


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=VALUES)
def test_value_reading_agrees(value):
    old, new = _old_parse_value(value), parse_value(value)
    assert dumps({"v": old}) == dumps({"v": new}), value


TOML_VALUES = st.recursive(
    st.integers(-(2**63), 2**63 - 1) | st.floats() | st.booleans() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(key=KEYS, value=TOML_VALUES)
def test_set_path_of_typed_values_agrees(key, value):
    """The sweeps' and experiments' typed values, set by path in place."""
    a, b = copy.deepcopy(BASE), copy.deepcopy(BASE)
    old = _outcome(lambda: _old_set_path(a, key, copy.deepcopy(value)))
    new = _outcome(lambda: set_path(b, key, copy.deepcopy(value)))
    assert old[0] == new[0], (key, value, old, new)
    if old[0] == "ok":
        assert _same(a, b), (key, value)
    else:
        assert old[1] == new[1]


@pytest.mark.parametrize("text", ["99999999999999999999", "-9223372036854775809", "1_000_000_000_000_000_000_000"])
def test_an_integer_toml_cannot_hold_is_refused_at_the_set(text):
    """The old code kept the Python int and failed only when the document was written out."""
    with pytest.raises(airtcp.ScenarioError):
        dumps(_old_apply(BASE, [f"seed={text}"]))
    with pytest.raises(OverrideError, match=r"^--set 'seed=.*': value '.*': an integer out of range"):
        apply_overrides(BASE, [f"seed={text}"])


def test_toml_1_1_values_are_read_as_the_engine_reads_a_file():
    """A trailing comma in an inline table (TOML 1.1, which the engine reads in a file) gives the
    table; the old reader, TOML 1.0, kept the text as a string."""
    assert _old_parse_value("{ a = 1, }") == "{ a = 1, }"
    assert parse_value("{ a = 1, }") == {"a": 1}


def test_limits():
    with pytest.raises(OverrideError, match=r"value of 1048577 characters \(allowed: up to 1048576\)"):
        parse_value("x" * (2**20 + 1))
    with pytest.raises(OverrideError, match=r"has 65 parts \(allowed: up to 64\)"):
        apply_overrides(BASE, [".".join(["a"] * 65) + "=1"])
    with pytest.raises(OverrideError, match="nested too deeply"):
        parse_value("[" * 100 + "]" * 100)
    assert math.isnan(parse_value("nan"))


def test_the_users_layout_and_comments_survive(tmp_path):
    path = tmp_path / "s.toml"
    text = REPO_EXAMPLE.read_text()
    path.write_text(text)
    new, doc = airtcp.scenario.read_with_overrides(path, ["flows.0.cc=bbr"])
    assert doc["flows"][0]["cc"] == "bbr"
    changed = [(a, b) for a, b in zip(text.splitlines(), new.splitlines()) if a != b]
    assert len(text.splitlines()) == len(new.splitlines()) and len(changed) == 1, changed
    assert "bbr" in changed[0][1] and "#" in "".join(new.splitlines())


# ---- issue 40 item 12: --set errors point at what the user wrote ----

SCENARIO = """\
# a user's scenario: the comment lines shift nothing
name = "mine"
duration = "2s"
nodes = ["S", "D"]

[[links]]
from = "S"
to = "D"
rate = "1Mbps"
delay = "10ms"

[[flows]]
kind = "tcp"
src = "S"
dst = "D"
cc = "reno"
"""


def _error_line(args: list[str]) -> str:
    r = run_cli(*args)
    assert r.returncode == 2, (r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    return lines[0]


def test_an_invalid_override_names_its_set(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text(SCENARIO)
    line = _error_line(["validate", str(path), "--set", "flows.0.mss_bytes=-3"])
    assert line == "error: --set 'flows.0.mss_bytes=-3': flows[0].mss_bytes: invalid value: integer `-3`, expected u32"
    line = _error_line(["validate", str(path), "--set", "flows.-1.cc=nope"])
    assert line.startswith("error: --set 'flows.-1.cc=nope': flows[0].cc: unknown window policy 'nope'")


def test_an_error_in_an_untouched_part_names_the_users_file_and_line(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text(SCENARIO.replace('delay = "10ms"', 'delay = "10ms"\nbogus = 1'))
    # Without --set the engine reads the file itself: its line is the file's (line 11).
    plain = _error_line(["validate", str(path)])
    assert plain.startswith("error: links[0].bogus (line 11): unknown field `bogus`"), plain
    # With --set (a key added above it) the line is still the user's, and the file is named.
    line = _error_line(["validate", str(path), "--set", "links.0.duplex=true", "--set", "seed=3"])
    assert line.startswith(f"error: links[0].bogus ({path}:11): unknown field `bogus`"), line


def test_a_sweep_names_the_set_or_the_file_not_the_grid(tmp_path):
    """A sweep checks each --grid value on the base scenario: an error the base has without any
    grid value is the --set's or the file's, and says so."""
    path = tmp_path / "mine.toml"
    path.write_text(SCENARIO)
    sweep = ["sweep", str(path), "--grid", "flows.0.cc=reno,cubic", "--out", str(tmp_path / "o")]
    line = _error_line([*sweep, "--set", "flows.0.mss_bytes=-3"])
    assert line == "error: --set 'flows.0.mss_bytes=-3': flows[0].mss_bytes: invalid value: integer `-3`, expected u32"
    path.write_text(SCENARIO.replace('delay = "10ms"', 'delay = "10ms"\nbogus = 1'))
    line = _error_line(sweep)
    assert line.startswith(f"error: links[0].bogus ({path}:11): unknown field `bogus`"), line
    path.write_text(SCENARIO)
    line = _error_line(["sweep", str(path), "--grid", "flows.0.mss_bytes=5,-3", "--out", str(tmp_path / "o")])
    assert line.startswith("error: --grid flows.0.mss_bytes=-3: flows[0].mss_bytes: invalid value"), line
