"""Issue 39's hostile inputs on the engine side, through the CLI as a user meets them: each ends
in one ``error:`` line naming the field (exit status 2), or is read exactly; none prints a file's
content or more than a few dozen characters of a name.

The Rust tests (``crates/airtcp/tests/engine/hostile_engine.rs``, ``interrupt.rs``, ``cut_through.rs``)
check the mechanisms; these check what the command line shows.
"""

from __future__ import annotations

from pathlib import Path

from conftest import run_cli
from fixtures import good


def _one_error(tmp_path: Path, text: str) -> str:
    f = tmp_path / "s.toml"
    f.write_text(text)
    r = run_cli("validate", str(f))
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("error: "), lines[0]
    return lines[0]


def test_duration_with_42_decimals_is_exact(tmp_path: Path) -> None:
    f = tmp_path / "s.toml"
    f.write_text(good(f"duration=2.{'0' * 42}s", "warmup=1s"))
    r = run_cli("validate", str(f))
    assert r.returncode == 0, r.stderr


def test_subnormal_fading_speed_is_refused(tmp_path: Path) -> None:
    text = good() + '\n[[links]]\nfrom = "A2"\nto = "B2"\nrate = "1Mbps"\ndelay = "1ms"\n'
    text += 'channel = { kind = "fading", error_rate = 0.01, speed_kmh = 5e-324 }\n'
    text = text.replace("nodes = [", 'nodes = ["A2", "B2", ', 1)
    line = _one_error(tmp_path, text)
    assert "channel.speed_kmh: 5e-324 is out of range" in line
    assert "allowed: speed_kmh >= " in line


def test_a_trace_file_is_quoted_briefly(tmp_path: Path) -> None:
    secret = tmp_path / "shadow"
    secret.write_text("root:$6$saltsalt$" + "h" * 86 + ":19000:0:99999:7:::\n")
    text = (
        good()
        + f'\n[[links]]\nfrom = "A2"\nto = "B2"\ndelay = "1ms"\ncapacity = {{ kind = "trace", file = "{secret}" }}\n'
    )
    text = text.replace("nodes = [", 'nodes = ["A2", "B2", ', 1)
    line = _one_error(tmp_path, text)
    assert "line 1: 'root:$6$saltsalt$" in line
    assert ":19000:" not in line and len(line) < 400


def test_capture_limit_must_be_positive(tmp_path: Path) -> None:
    line = _one_error(tmp_path, good() + '\n[limits]\nmax_capture_bytes = "0B"\n')
    assert line == "error: limits.max_capture_bytes: must be greater than 0B"
