"""Help that reads well (issue 40 part 12): flags without a type, choices listed and checked,
positionals named once, shell completion offered."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from conftest import GOOD, REPO, run_cli

COMMANDS = ["run", "validate", "demo", "reproduce", "sweep", "traces"]


@pytest.mark.parametrize("command", COMMANDS)
def test_flags_show_no_type(command):
    r = run_cli(command, "--help")
    assert r.returncode == 0, r.stderr
    assert "<bool>" not in r.stdout
    assert "[[" not in r.stdout and "]]" not in r.stdout  # an optional positional is bracketed once
    assert max(len(line) for line in r.stdout.splitlines()) <= 120


@pytest.mark.parametrize("command", ["sweep", "reproduce"])
def test_backend_is_a_listed_choice(command, tmp_path):
    r = run_cli(command, "--help")
    assert re.search(r"--backend <?\[?local\|ray", r.stdout), r.stdout
    args = [str(GOOD), "--grid", "flows.0.cc=reno"] if command == "sweep" else ["jersey-fig10"]
    r = run_cli(command, *args, "--backend", "slurm", cwd=tmp_path)
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1, r.stderr
    assert r.stderr.startswith("error: Invalid value for '--backend'") and "'local', 'ray'" in r.stderr


def test_shell_completion_is_offered():
    r = run_cli("--help")
    assert "--install-completion" in r.stdout and "--show-completion" in r.stdout
    # Typer detects the shell from the process tree (under make: sh, which has no completion);
    # its own switch for tests makes --show-completion take the shell's name instead
    env = {k: v for k, v in os.environ.items() if k != "AIRTCP_DEBUG"}
    env["_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION"] = "1"
    r = subprocess.run(
        [sys.executable, "-m", "airtcp", "--show-completion", "bash"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0 and "AIRTCP_COMPLETE=complete_bash" in r.stdout and "complete -o default -F" in r.stdout
