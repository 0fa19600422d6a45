"""Shared helpers of the Python tests (run with the package installed: `make setup`); the scenarios
and their variants are in fixtures.py."""

from __future__ import annotations

import os
import signal
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

# A test run started in the background of a non-interactive shell (`make test &`, a CI runner's
# job) inherits SIGINT ignored, and every process it starts would inherit that through exec: the
# Ctrl-C tests' SIGINT would never arrive, and their runs would go on to their limits. A handler
# (unlike "ignored") is reset by exec, so with Python's own handler here each child starts with
# the default disposition, as under a terminal.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


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
