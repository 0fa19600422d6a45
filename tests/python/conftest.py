"""Shared helpers of the Python tests (run with the package installed: `make setup`); the scenarios
and their variants are in fixtures.py."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from fixtures import BAD_DIR, EXAMPLE, GOOD, REPO, SCENARIOS  # noqa: F401 (the tests import them from here)

# mahimahi's traces for the cellular tests: $AIRTCP_TRACES when set, else the copy this project's
# development machines and CI keep beside the checkout. Only the tests know that folder; the
# product reads $AIRTCP_TRACES or the per-user folder (airtcp/traces.py, `airtcp traces`).
_DEV_TRACES = REPO.parent / "shared" / "traces"
if not os.environ.get("AIRTCP_TRACES") and _DEV_TRACES.is_dir():
    os.environ["AIRTCP_TRACES"] = str(_DEV_TRACES)


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
