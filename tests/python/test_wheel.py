"""The wheel carries what its commands read (issue 24 part 1): built with maturin (reusing the
release build of `make develop`, so only the extension is relinked: ~10 s cold, ~2 s warm), installed
into a fresh virtual environment, and run from a folder with no checkout around it.

The fresh environment gets the wheel and nothing of the checkout; the third-party dependencies
(polars, matplotlib, ...) are borrowed from the test's own environment through a .pth file, so the
test needs no network and no reinstall of them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import pytest

from conftest import REPO

pytestmark = pytest.mark.wheel


def _sh(args: list[str], cwd: Path, env: dict[str, str], timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def wheel_env(tmp_path_factory):
    if shutil.which("cargo") is None:
        pytest.skip("no cargo: the wheel cannot be built here")
    import pip

    if tuple(int(x) for x in pip.__version__.split(".")[:2]) < (22, 3):
        pytest.skip(f"pip {pip.__version__} has no --python option (22.3 and later)")
    tmp = tmp_path_factory.mktemp("wheel")
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.pop("AIRTCP_DEBUG", None)
    t0 = time.monotonic()
    r = _sh([sys.executable, "-m", "maturin", "build", "--release", "-o", str(tmp / "wheels")], REPO, env)
    assert r.returncode == 0, r.stderr[-3000:]
    build_s = time.monotonic() - t0
    (wheel,) = (tmp / "wheels").glob("airtcp-*.whl")
    venv = tmp / "fresh"
    r = _sh([sys.executable, "-m", "venv", "--without-pip", str(venv)], tmp, env)
    assert r.returncode == 0, r.stderr
    py = venv / "bin" / "python"
    r = _sh(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(py),
            "install",
            "-q",
            "--no-deps",
            "--no-index",
            "--no-compile",
            str(wheel),
        ],
        tmp,
        env,
    )
    assert r.returncode == 0, r.stderr
    site = Path(
        _sh([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], tmp, env).stdout.strip()
    )
    (site / "_borrowed_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    run_env = {k: v for k, v in env.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    run_env["PATH"] = f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"
    run_env["COLUMNS"] = "200"
    work = tmp / "elsewhere"  # no experiments/ here and no checkout above
    work.mkdir()
    print(f"wheel built in {build_s:.1f} s")
    return venv, site, work, run_env


def test_the_installed_package_is_the_wheel_not_the_checkout(wheel_env):
    venv, site, work, env = wheel_env
    r = _sh([str(venv / "bin" / "python"), "-c", "import airtcp, airtcp._core; print(airtcp.__file__)"], work, env)
    assert r.returncode == 0, r.stderr
    assert Path(r.stdout.strip()).resolve().is_relative_to(site.resolve()), r.stdout
    for rel in (
        "airtcp/data/examples/jersey_fig10.toml",
        "airtcp/data/experiments/jersey/fig11.sweep.toml",
        "airtcp/data/experiments/jersey/claims.toml",
    ):
        assert (site / rel).is_file() and not (site / rel).is_symlink(), rel
    # package data are the checkout's files, byte for byte
    assert (site / "airtcp/data/experiments/jersey/claims.toml").read_bytes() == (
        REPO / "experiments/jersey/claims.toml"
    ).read_bytes()


def test_reproduce_list_and_demo_work_from_the_wheel_alone(wheel_env):
    venv, site, work, env = wheel_env
    airtcp = str(venv / "bin" / "airtcp")
    r = _sh([airtcp, "reproduce", "--list"], work, env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "data/experiments" in "".join(r.stdout.split()), r.stdout[:400]  # the table's title names the folder
    for exp_id in ("jersey-fig11", "caiad-fig15", "hsdpa-fig6"):
        assert exp_id in r.stdout, exp_id
    r = _sh([airtcp, "demo", "--help"], work, env)
    assert r.returncode == 0 and "--duration" in r.stdout, r.stderr
    r = _sh([airtcp, "demo", "--duration", "2s", "--jobs", "2", "--out", str(work / "demo")], work, env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert (work / "demo" / "demo.json").is_file() and (work / "demo" / "demo.png").stat().st_size > 0
    # the installed copy is read-only material: regenerating REPRODUCTION.md needs a file named
    r = _sh([airtcp, "reproduce", "--update-reproduction"], work, env)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "--reproduction FILE" in r.stderr, r.stderr
