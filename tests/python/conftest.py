"""Shared paths and helpers of the Python tests (run with the package installed: `make setup`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCENARIOS = REPO / "tests" / "scenarios"
GOOD = SCENARIOS / "good" / "small_lossy.toml"
BAD_DIR = SCENARIOS / "bad"
EXAMPLE = REPO / "examples" / "jersey_fig10.toml"


def run_cli(*args: str, cwd: Path | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Runs `python -m airtcp ARGS...` the way a user would, capturing stdout and stderr."""
    env = dict(os.environ)
    env.pop("AIRTCP_DEBUG", None)
    env["COLUMNS"] = "120"
    return subprocess.run(
        [sys.executable, "-m", "airtcp", *args],
        cwd=cwd or REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture(scope="session")
def good_text() -> str:
    return GOOD.read_text()
