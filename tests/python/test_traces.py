"""`airtcp traces` (issue 40 part 11): where airtcp looks for mahimahi's traces, a check that a
folder holds mahimahi's files (size and SHA-256), a download that keeps only those, and an error
that says what to do; no product file names the development folder layout."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from conftest import REPO, run_cli

from airtcp import traces as tr

NAMES = {t.name for t in tr.TRACE_FILES}


def _dev_traces() -> Path:
    d = tr.traces_dir()
    if not all((d / n).is_file() for n in NAMES):
        pytest.skip(f"no mahimahi traces in {d} (set AIRTCP_TRACES to the mahimahi repository's traces/)")
    return d


def test_the_table_names_what_the_experiments_read():
    read = set()
    for spec in (REPO / "experiments" / "cellular").glob("*.toml"):
        text = spec.read_text()
        read |= {n for n in NAMES if f'"{n}"' in text}
    assert read == NAMES


def test_the_digests_are_those_of_the_files():
    d = _dev_traces()
    for t in tr.TRACE_FILES:
        data = (d / t.name).read_bytes()
        assert len(data) == t.size and hashlib.sha256(data).hexdigest() == t.sha256, t.name


def test_check_tells_missing_short_and_altered_files(tmp_path):
    d = _dev_traces()
    for n in NAMES:
        shutil.copy(d / n, tmp_path / n)
    assert all(s.ok for s in tr.check(tmp_path))
    first, second, third = sorted(NAMES)[:3]
    (tmp_path / first).unlink()
    (tmp_path / second).write_bytes((d / second).read_bytes()[:-1])
    data = bytearray((d / third).read_bytes())
    data[0] = ord("9") if data[0] != ord("9") else ord("8")
    (tmp_path / third).write_bytes(bytes(data))
    states = {s.file.name: s.state for s in tr.check(tmp_path)}
    assert states[first] == "missing"
    assert states[second].startswith(f"{(d / second).stat().st_size - 1} bytes, expected")
    assert states[third] == "different content from mahimahi's file (SHA-256 differs)"
    assert sum(s == "ok" for s in states.values()) == len(NAMES) - 3


def test_download_keeps_only_mahimahis_files(tmp_path):
    d = _dev_traces()
    source = tmp_path / "mirror"
    source.mkdir()
    for n in NAMES:
        shutil.copy(d / n, source / n)
    bad = sorted(NAMES)[0]
    (source / bad).write_bytes(b"0\n1\n")
    into = tmp_path / "into"
    states = {s.file.name: s.ok for s in tr.download(into, source.as_uri())}
    assert states == {n: n != bad for n in NAMES}
    assert sorted(p.name for p in into.iterdir()) == sorted(NAMES - {bad})  # no temporary file left
    assert oct((into / sorted(NAMES)[1]).stat().st_mode & 0o777) == "0o644"


def test_the_default_folder_is_per_user(monkeypatch, tmp_path):
    monkeypatch.delenv("AIRTCP_TRACES", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    (tmp_path / "airtcp" / "traces").mkdir(parents=True)
    assert tr.traces_dir() == tmp_path / "airtcp" / "traces"
    monkeypatch.setenv("AIRTCP_TRACES", str(tmp_path / "mine"))
    assert tr.traces_dir() == tmp_path / "mine"


def test_the_command_checks_and_says_where_to_get_them(tmp_path):
    d = _dev_traces()
    r = run_cli("traces", str(d))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "all present and checked" in r.stdout and f"--traces {d}" in r.stdout
    empty = tmp_path / "empty"
    empty.mkdir()
    r = run_cli("traces", str(empty))
    assert r.returncode == 1
    assert "8 of 8 missing or wrong" in r.stdout and "github.com/ravinet/mahimahi" in r.stdout
    for n in NAMES:
        assert f"curl -fLO {tr.DOWNLOAD_BASE}/{n}" in r.stdout
    r = run_cli("traces", str(GOOD_FILE))
    assert r.returncode == 2 and r.stderr == f"error: {GOOD_FILE}: not a folder\n"


GOOD_FILE = REPO / "examples" / "jersey_fig10.toml"


def test_reproduce_without_traces_says_what_to_do(tmp_path):
    env_dir = tmp_path / "none"
    r = run_cli("reproduce", "cellular-verizon-lte-short", "--quick", "--traces", str(tmp_path), cwd=tmp_path)
    assert r.returncode == 2
    assert r.stderr.startswith("error: cellular-verizon-lte-short: needs mahimahi-traces (no valid trace files in ")
    assert "`airtcp traces` says where to get them" in r.stderr and len(r.stderr.splitlines()) == 1
    assert not env_dir.exists()


def test_no_product_file_names_the_development_layout():
    """Only the tests know where this project keeps its copy of the traces."""
    product = [REPO / "README.md", *(REPO / "docs").glob("*.md"), *(REPO / "python" / "airtcp").rglob("*.py")]
    product += [*(REPO / "experiments").rglob("*.toml")]
    for p in product:
        text = p.read_text()
        assert "shared/traces" not in text and "../shared" not in text, p
