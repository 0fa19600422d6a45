"""Every malformed scenario in tests/scenarios/bad/ fails with ONE line that names the culprit.

EXPECTED maps each file to substrings its error message must contain: the field's path (as the
engine writes it) and, where it helps a user, the offending value. A message that does not name
the field is a bug in the engine's message, not in this table.
"""

from __future__ import annotations

import pytest

import airtcp
from airtcp import _core

from conftest import BAD_DIR, GOOD, run_cli
from fixtures import good, minimal

EXPECTED: dict[str, list[str]] = {
    "bad_rate_unit.toml": ["links[0].rate", "Mbit", "Mbps"],
    "bare_number_rate.toml": ["links[1].rate", "unit"],
    "duplicate_flow_name.toml": ["flows[1]", "'a'"],
    "duplicate_node.toml": ["nodes", "BS"],
    "flow_unknown_node.toml": ["flows[1].src", "Q"],
    "link_unknown_node.toml": ["links[0].to", "X"],
    "loss_above_one.toml": ["links[1].channel.loss", "1.5"],
    "missing_duration.toml": ["duration"],
    "negative_delay.toml": ["links[0].delay", "-5ms"],
    "no_route.toml": ["flows[0]", "route", "E"],
    "sack_without_option.toml": ["flows[1]", "sack"],
    "toml_syntax.toml": ["line 20"],
    "trace_offset_beyond_period.toml": ["links[0].capacity.start_offset", "0ms to 19ms"],
    "unknown_cc.toml": ["flows[0].cc", "cubical"],
    "unknown_channel_kind.toml": ["links[1].channel", "rayleigh"],
    "unknown_flow_kind.toml": ["flows[1]", "quic"],
    "unknown_key.toml": ["links[0]", "bandwidth"],
    "unknown_queue_kind.toml": ["links[1].queue", "fifo"],
    "unknown_recovery.toml": ["flows[0].recovery", "vegas"],
    "vegas_ns2_without_reno.toml": ["flows[1].recovery", 'variant = "ns2"', 'needs recovery = "reno"'],
    "warmup_after_end.toml": ["warmup"],
    "zero_mss.toml": ["flows[0].mss_bytes"],
    "zero_rate.toml": ["links[1].rate"],
}

BAD_FILES = sorted(p.name for p in BAD_DIR.glob("*.toml"))


def test_table_covers_every_bad_file():
    assert len(BAD_FILES) >= 10
    assert sorted(EXPECTED) == BAD_FILES


def test_the_good_base_file_is_valid():
    """Each bad file is the good file with one defect, so the defect is what gets reported."""
    _core.validate(GOOD.read_text())


@pytest.mark.parametrize("name", BAD_FILES)
def test_engine_rejects_with_one_line(name):
    with pytest.raises(airtcp.ScenarioError) as e:
        _core.validate((BAD_DIR / name).read_text())
    msg = str(e.value)
    assert "\n" not in msg.strip(), f"multi-line message:\n{msg}"
    for fragment in EXPECTED[name]:
        assert fragment in msg, f"{name}: {fragment!r} not in {msg!r}"
    assert isinstance(e.value, ValueError)


@pytest.mark.parametrize("name", BAD_FILES)
@pytest.mark.parametrize("command", ["run", "validate"])
def test_cli_rejects_with_one_stderr_line(name, command, tmp_path):
    r = run_cli(command, str(BAD_DIR / name), *(["--out", str(tmp_path / "o")] if command == "run" else []))
    assert r.returncode == 2, (r.returncode, r.stderr)
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("error: ")
    assert "Traceback" not in r.stderr + r.stdout
    for fragment in EXPECTED[name]:
        assert fragment in lines[0], f"{name}: {fragment!r} not in {lines[0]!r}"
    assert not (tmp_path / "o").exists()


# --- Inputs that used to escape the one-line promise (issue 25, "Not one clean line") ---------


def test_deeply_nested_toml_is_one_line(tmp_path):
    """TOML nested 1000 deep used to end in 'internal error: RecursionError', exit 1."""
    deep = tmp_path / "deep.toml"
    deep.write_text("a = " + "[" * 1000 + "]" * 1000 + "\n")
    r = run_cli("validate", str(deep))
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert r.stderr.splitlines() == [f"error: {deep}: invalid TOML: arrays or tables nested too deeply"]
    with pytest.raises(airtcp.ScenarioError):
        airtcp.validate(deep.read_text())


@pytest.mark.parametrize("seed", ["18446744073709551616", "-1"])
def test_out_of_range_seed_is_one_line(seed, tmp_path):
    r = run_cli("run", str(GOOD), "--seed", seed, "--out", str(tmp_path / "o"))
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert r.stderr.splitlines() == [f"error: --seed {seed}: out of range (allowed: 0 to 18446744073709551615)"]
    assert not (tmp_path / "o").exists()


def test_byte_order_mark_is_accepted_by_cli_and_api(tmp_path):
    """A UTF-8 BOM (Windows editors) used to pass through the API but fail the CLI's TOML parse."""
    bom = tmp_path / "bom.toml"
    bom.write_bytes(b"\xef\xbb\xbf" + GOOD.read_bytes())
    r = run_cli("validate", str(bom))
    assert r.returncode == 0, r.stderr
    airtcp.validate(bom)


@pytest.mark.parametrize(
    "patch, where, says",
    [
        ({"name": "\ud800"}, "name", "lone surrogate"),
        ({"name": None}, "name", "None is not a TOML value"),
        ({"links": [{"from": object()}]}, "links.0.from", "a Python object is not a TOML value"),
        ({"flows": [{"cc_params": {1: 2}}]}, "flows.0.cc_params", "key 1 is not a string"),
    ],
)
def test_dicts_toml_cannot_hold_raise_scenario_error(patch, where, says):
    """airtcp.run on such dicts used to raise UnicodeEncodeError / TypeError."""
    doc = minimal(**patch)
    for call in (airtcp.run, airtcp.validate):
        with pytest.raises(airtcp.ScenarioError) as e:
            call(doc)
        msg = str(e.value)
        assert msg.startswith(f"{where}: ") and says in msg and "\n" not in msg, msg


def test_engine_panic_becomes_internal_error():
    """A Rust panic (PyO3's PanicException, a BaseException) becomes airtcp.InternalError with one
    line asking for a report, not a traceback through `except Exception`."""
    from airtcp import api

    class PanicException(BaseException):  # the name PyO3 gives its panic type
        pass

    def boom(*_args):
        raise PanicException("attempt to divide by zero\nmore")

    with pytest.raises(airtcp.InternalError) as e:
        api._engine(boom, "x")
    assert str(e.value) == (
        "internal error in the engine (attempt to divide by zero); please report it with the scenario file and seed"
    )
    assert not isinstance(e.value, airtcp.ScenarioError)
    with pytest.raises(KeyboardInterrupt):  # other BaseExceptions pass through untouched
        api._engine(lambda: (_ for _ in ()).throw(KeyboardInterrupt()))


def test_capacity_averaging_under_one_bit_per_second_is_one_line(tmp_path):
    """Used to divide by zero in time.rs while building (a panic, ~250 lines of traceback)."""
    bad = tmp_path / "slow.toml"
    capacity = '{kind = "schedule", steps = [{at = "0s", rate = "1kbps"}, {at = "1ms", rate = "0bps"}], repeat = "2s"}'
    bad.write_text(good(f"links.1.capacity={capacity}", drop=("links.1.rate",)))
    r = run_cli("validate", str(bad))
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert len(r.stderr.splitlines()) == 1 and "below 1 bit/s" in r.stderr, r.stderr


# Issue 25's inputs that wrapped time, hung or exhausted memory: each is now one line naming the
# field and its range, from `airtcp run` (before anything is built, so well within the timeout).
# Each is GOOD with these --set assignments.
HOSTILE = {
    "delay_584_years": (["links.0.delay=18000000000s"], "links[0].delay"),
    "spacing_near_2_63_ns": (["flows.1.count=3", "flows.1.start_spacing=9000000s"], "flows[1].start_spacing"),
    "rto_1ns": (["flows.0.min_rto=1ns", "flows.0.max_rto=1ns"], "flows[0].max_rto"),
    "gilbert_elliott_1ns": (
        ['links.1.channel={kind = "gilbert-elliott", mean_good = "1ns", mean_bad = "1ns"}'],
        "links[1].channel.mean_good",
    ),
    "count_2_32": (["flows.1.count=4294967295"], "flows[1].count"),
    "windows_2_32": (["flows.0.rwnd_pkts=4294967295", "flows.0.initial_cwnd_pkts=4294967295"], "flows[0].rwnd_pkts"),
    "ten_million_samples": (["sample_interval=1us"], "limits.max_series_rows"),
    "red_above_buffer": (
        ['links.1.queue={kind = "red", limit_pkts = 30, min_th_pkts = 40, max_th_pkts = 50}'],
        "links[1].queue.min_th_pkts",
    ),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_inputs_that_wrapped_hung_or_exhausted_memory_are_one_line(name, tmp_path):
    sets, field = HOSTILE[name]
    path = tmp_path / f"{name}.toml"
    path.write_text(good(*sets))
    r = run_cli("run", str(path), "--out", str(tmp_path / "out"), timeout=60)
    assert r.returncode == 2, (r.returncode, r.stderr[-2000:])
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {field}"), lines
    assert "allowed" in lines[0] or "above the limit" in lines[0], lines
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("assignment", ["\r=", "\n", "a\u2028..b=1", "flows.9\x85=1"])
def test_override_errors_echoing_line_breaks_are_one_line(assignment):
    """OverrideError echoed a --set text with a line break as two lines (fuzzing, issue 25 part 6)."""
    with pytest.raises(airtcp.OverrideError) as e:
        airtcp.apply_overrides({"flows": []}, [assignment])
    assert len(str(e.value).splitlines()) == 1, str(e.value)


def test_file_and_dict_errors_echoing_line_breaks_are_one_line(tmp_path):
    """ScenarioFileError and the dict checks echo file names and keys: one line whatever they hold."""
    with pytest.raises(airtcp.ScenarioFileError) as e:
        airtcp.validate(tmp_path / "a\nb.toml")
    assert len(str(e.value).splitlines()) == 1 and "a\\nb.toml: no such file" in str(e.value)
    with pytest.raises(airtcp.ScenarioError) as e:
        airtcp.validate(minimal(**{"x\ry": None}))
    assert str(e.value) == "x\\ry: None is not a TOML value (leave the key out for its default)"
