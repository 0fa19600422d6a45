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
    "unknown_cc.toml": ["flows[0].cc", "cubical"],
    "unknown_channel_kind.toml": ["links[1].channel", "rayleigh"],
    "unknown_flow_kind.toml": ["flows[1]", "quic"],
    "unknown_key.toml": ["links[0]", "bandwidth"],
    "unknown_queue_kind.toml": ["links[1].queue", "fifo"],
    "unknown_recovery.toml": ["flows[0].recovery", "vegas"],
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
