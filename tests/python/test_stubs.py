"""python/airtcp/_core.pyi matches the built extension (crates/airtcp-py): mypy's stubtest, run when
mypy is installed (requirements-dev.txt installs it), fails on any error."""

from __future__ import annotations

import subprocess
import sys

import pytest


def test_core_stub_matches_the_extension(tmp_path):
    pytest.importorskip("mypy.stubtest")
    r = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "airtcp._core"],
        cwd=tmp_path,  # its .mypy_cache goes there
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, f"mypy.stubtest airtcp._core:\n{r.stdout}{r.stderr}"
