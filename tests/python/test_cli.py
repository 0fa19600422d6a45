"""The `airtcp` command line: run, validate, demo, and its one-line errors."""

from __future__ import annotations

import json
import shutil
import subprocess
from importlib import resources

import polars as pl
import pytest

from conftest import EXAMPLE, GOOD, REPO, run_cli


def test_packaged_demo_scenario_is_the_example():
    packaged = resources.files("airtcp").joinpath("data/examples/jersey_fig10.toml").read_bytes()
    assert packaged == EXAMPLE.read_bytes()
    # package data are links to the top-level folders, not copies that could drift
    for name in ("examples", "experiments"):
        link = REPO / "python" / "airtcp" / "data" / name
        assert link.is_symlink() and link.resolve() == (REPO / name).resolve(), name


def test_run_writes_outputs(tmp_path):
    out = tmp_path / "o"
    r = run_cli("run", str(GOOD), "--seed", "3", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    for name in ["summary.json", "flow_series.parquet", "link_series.parquet", "plot.png"]:
        assert (out / name).is_file() and (out / name).stat().st_size > 0, name
    summary = json.loads((out / "summary.json").read_text())
    assert summary["seed"] == 3 and summary["scenario"] == "small-lossy"
    fs = pl.read_parquet(out / "flow_series.parquet")
    assert set(fs["flow"].unique()) == {"a", "b"}
    assert (out / "plot.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # the table names every flow and link
    for word in ["a", "b", "newreno", "sack", "S->BS", "BS->D", "goodput"]:
        assert word in r.stdout


def test_run_default_out_dir_is_named_after_the_scenario(tmp_path):
    r = run_cli("run", str(GOOD), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "out" / "small-lossy" / "summary.json").is_file()


def test_run_no_write(tmp_path):
    r = run_cli("run", str(GOOD), "--no-write", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert not (tmp_path / "out").exists()


def test_set_overrides(tmp_path):
    out = tmp_path / "o"
    r = run_cli(
        "run",
        str(GOOD),
        "--out",
        str(out),
        "--set",
        "flows.0.recovery=sack",
        "--set",
        "flows.0.sack=true",
        "-s",
        "duration=5s",
        "--set",
        "name=overridden",
        "--set",
        "seed=99",
    )
    assert r.returncode == 0, r.stderr
    s = json.loads((out / "summary.json").read_text())
    assert s["flows"][0]["recovery"] == "sack"
    assert s["end_time_s"] == 5.0
    assert s["scenario"] == "overridden"
    assert s["seed"] == 99
    # --seed beats the (overridden) file seed
    # (another command's output: replaced only with --force, see test_outputs.py)
    r = run_cli("run", str(GOOD), "--out", str(out), "--set", "seed=99", "--seed", "4", "--force")
    assert json.loads((out / "summary.json").read_text())["seed"] == 4


def test_cli_output_equals_api(tmp_path):
    import airtcp

    out = tmp_path / "o"
    assert run_cli("run", str(GOOD), "--seed", "8", "--out", str(out)).returncode == 0
    api = airtcp.run(GOOD, seed=8)
    written = json.loads((out / "summary.json").read_text())
    assert written.pop("provenance")["seed"] == 8  # how it was made, after the engine's fields
    assert written == api.summary
    assert pl.read_parquet(out / "flow_series.parquet").equals(api.flow_series)


def test_validate_ok():
    r = run_cli("validate", str(EXAMPLE))
    assert r.returncode == 0, r.stderr
    assert "ok" in r.stdout


def one_error_line(r) -> str:
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("error: ")
    assert "Traceback" not in r.stderr
    return lines[0]


def test_missing_file(tmp_path):
    line = one_error_line(run_cli("run", str(tmp_path / "nope.toml")))
    assert "nope.toml" in line and "no such file" in line
    line = one_error_line(run_cli("validate", str(tmp_path)))
    assert "directory" in line


def test_bad_set():
    line = one_error_line(run_cli("run", str(GOOD), "--set", "flows.7.cc=reno"))
    assert "flows.7.cc" in line and "no index 7" in line
    line = one_error_line(run_cli("run", str(GOOD), "--set", "flows.0.recovery"))
    assert "KEY=VALUE" in line
    # a well-formed override to an invalid value is the engine's error
    line = one_error_line(run_cli("validate", str(GOOD), "--set", "links.1.rate=2Mbit"))
    assert "rate" in line and "Mbit" in line
    line = one_error_line(run_cli("validate", str(GOOD), "--set", "flows.0.colour=red"))
    assert "colour" in line


def test_testbed_run_rejects_a_malformed_sysctl():
    """Checked before the testbed is touched, so without root too."""
    line = one_error_line(run_cli("testbed", "run", str(GOOD), "--sysctl", "tcp_frto"))
    assert "--sysctl" in line and "tcp_frto: expected NAME=VALUE" in line


def test_toml_syntax_error(tmp_path):
    p = tmp_path / "s.toml"
    p.write_text('name = "x"\nduration = 10s\n')
    line = one_error_line(run_cli("run", str(p)))
    assert "line 2" in line


def test_unwritable_out_dir(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    line = one_error_line(run_cli("run", str(GOOD), "--out", str(blocker / "sub")))
    assert "file" in line


def test_demo_runs_six_variants(tmp_path):
    out = tmp_path / "demo"
    r = run_cli("demo", "--duration", "5s", "--seed", "2", "--jobs", "2", "--out", str(out))
    assert r.returncode == 0, r.stderr
    for word in ["reno", "cubic", "bbr", "westwood", "jersey", "nj+"]:
        assert word in r.stdout
    report = json.loads((out / "demo.json").read_text())
    assert [v["cc"] for v in report["variants"]] == ["reno", "cubic", "bbr", "westwood", "jersey", "nj+"]
    ccs = ["reno", "cubic", "bbr", "westwood", "jersey", "nj+"]
    assert [v["summary"]["flows"][0]["cc"] for v in report["variants"]] == ccs
    assert all(v["summary"]["flows"][0]["recovery"] == "reno" for v in report["variants"])
    # The Jersey family reports its loss verdicts; the others do not.
    assert [v["summary"]["flows"][0]["loss_differentiation"] is not None for v in report["variants"]] == [
        False,
        False,
        False,
        False,
        True,
        True,
    ]
    assert all(v["summary"]["links"][2]["queue"] == "cw" for v in report["variants"])
    assert all(v["summary"]["end_time_s"] == 5.0 for v in report["variants"])
    # the table says what every variant shares (the summaries above check it is true) and counts
    # the redundant retransmissions as the summaries do
    assert "Reno fast recovery (recovery = reno), a CW queue on the lossy" in " ".join(r.stdout.split())
    for v in report["variants"]:
        assert (v["recovery"], v["queue"]) == ("reno", "cw")
        assert v["redundant_segments"] == sum(f["redundant_segments"] for f in v["summary"]["flows"])
        assert 0 <= v["redundant_segments"] <= v["retransmissions"]
    assert report["seed"] == 2
    assert (out / "demo.png").read_bytes()[:4] == b"\x89PNG"


def test_demo_bad_duration(tmp_path):
    line = one_error_line(run_cli("demo", "--duration", "5", "--out", str(tmp_path)))
    assert "duration" in line


def test_console_script_is_installed():
    import subprocess
    import sysconfig
    from pathlib import Path

    import pytest

    # the script installed for *this* interpreter (a virtualenv's bin/ need not be on PATH)
    exe = Path(sysconfig.get_path("scripts")) / "airtcp"
    if not exe.exists():
        if shutil.which("airtcp") is None:  # e.g. PYTHONPATH-only use; `make setup` installs it
            pytest.skip("airtcp console script not installed")
        exe = Path(shutil.which("airtcp"))

    r = subprocess.run([str(exe), "--help"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "demo" in r.stdout


def test_usage_errors_are_one_line_too():
    for args in (["run"], ["run", str(GOOD), "--seed", "abc"], ["run", str(GOOD), "--set"], ["bogus"]):
        one_error_line(run_cli(*args))


def test_no_arguments_shows_help():
    r = run_cli()
    assert r.returncode == 0 and "demo" in r.stdout


def _cargo_version() -> str:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python < 3.11
        import tomli as tomllib  # type: ignore[no-redef]
    return tomllib.loads((REPO / "Cargo.toml").read_text())["workspace"]["package"]["version"]


def test_version_is_cargos():
    import airtcp
    from airtcp import _core

    version = _cargo_version()
    r = run_cli("--version")
    assert r.returncode == 0 and r.stdout == f"airtcp {version}\n", (r.stdout, r.stderr)
    assert airtcp.__version__ == _core.__version__ == version


def test_help_shows_defaults():
    r = run_cli("run", "--help")
    assert r.returncode == 0
    assert "[default: (out/<scenario name>)]" in r.stdout and "[default: write]" in r.stdout, r.stdout


def test_no_help_text_has_brackets():
    """rich reads `[...]` in help text as markup and drops it: defaults go in show_default instead."""
    import typer

    from airtcp.cli import app

    def walk(cmd, path):
        yield path, cmd.help or ""
        for p in cmd.params:
            yield f"{path} {p.name}", getattr(p, "help", None) or ""
        for name, sub in (getattr(cmd, "commands", None) or {}).items():
            yield from walk(sub, f"{path} {name}")

    bad = [where for where, text in walk(typer.main.get_command(app), "airtcp") if "[" in text]
    assert not bad, f"help text with '[' (rich markup eats it): {bad}"


# A run of 10^7 simulated seconds (several minutes of wall time) that only an interrupt ends soon.
_ENDLESS = ["--set", "duration=10000000s", "--set", "sample_interval=1000s"]

_API_SCRIPT = """
import sys, time, airtcp
from airtcp.scenario import load, set_path
doc = load(sys.argv[1])
set_path(doc, "duration", "10000000s")
set_path(doc, "sample_interval", "1000s")
print("ready", flush=True)
t0 = time.monotonic()
try:
    if sys.argv[2] == "run":
        airtcp.run(doc)
    else:
        airtcp.run_many([doc, doc, doc], jobs=2)
except KeyboardInterrupt:
    print("KeyboardInterrupt", flush=True)
"""


def _interrupt(args: list[str], tmp_path, wait_for_ready: bool) -> tuple[subprocess.CompletedProcess[str], float]:
    """Starts `python ARGS`, sends SIGINT once the run is under way, returns its result and how
    many seconds it took to end after the signal."""
    import signal
    import sys
    import time

    p = subprocess.Popen(
        [sys.executable, *args], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    if wait_for_ready:
        assert p.stdout is not None and p.stdout.readline().strip() == "ready"
        time.sleep(0.5)
    else:
        time.sleep(4.0)  # imports done, the engine running
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    try:
        out, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:  # still running (a 10^7-s run): never left behind the test
            p.kill()
            p.communicate()
    return subprocess.CompletedProcess(p.args, p.returncode, out, err), time.monotonic() - t0


def test_ctrl_c_stops_a_long_cli_run_with_one_line_and_no_output(tmp_path):
    r, took = _interrupt(["-m", "airtcp", "run", str(EXAMPLE), *_ENDLESS, "--out", "out"], tmp_path, False)
    assert r.returncode == 130, r.stderr
    assert r.stderr == "error: interrupted\n"
    assert not (tmp_path / "out").exists()
    assert took < 10, f"ended {took:.1f} s after SIGINT"


@pytest.mark.parametrize("how", ["run", "run_many"])
def test_ctrl_c_raises_keyboardinterrupt_from_the_api(tmp_path, how):
    r, took = _interrupt(["-c", _API_SCRIPT, str(EXAMPLE), how], tmp_path, True)
    assert r.stdout.strip() == "KeyboardInterrupt", r.stderr
    assert r.returncode == 0
    assert took < 10, f"ended {took:.1f} s after SIGINT"


def test_scenario_must_be_a_regular_file_of_bounded_size(tmp_path):
    """A FIFO (would block forever), /dev/zero (would fill memory) and a file over the cap are
    refused with one line before anything is read."""
    import os

    from airtcp.scenario import SCENARIO_FILE_MAX_BYTES

    fifo = tmp_path / "s.fifo"
    os.mkfifo(fifo)
    for p in (fifo, "/dev/zero"):
        r = run_cli("validate", str(p), timeout=60)
        assert r.returncode == 2
        assert r.stderr == f"error: {p}: not a regular file (a FIFO, device or socket); give a scenario file\n"
    big = tmp_path / "big.toml"
    with open(big, "wb") as f:
        f.truncate(SCENARIO_FILE_MAX_BYTES + 1)  # sparse: nothing written
    r = run_cli("run", str(big), timeout=60)
    assert r.returncode == 2
    assert r.stderr == (
        f"error: {big}: {SCENARIO_FILE_MAX_BYTES + 1} bytes, more than a scenario file may have "
        f"(allowed: up to {SCENARIO_FILE_MAX_BYTES} bytes)\n"
    )
