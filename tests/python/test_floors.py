"""The dependency floors (issue 40 part 5): requirements-floors.txt, which `make test-floors`
installs to run the tests against the lowest allowed versions, pins exactly the floors that
pyproject.toml declares, so the two cannot drift apart."""

from __future__ import annotations

import sys

from conftest import REPO
from packaging.requirements import Requirement
from packaging.version import Version

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python < 3.11
    import tomli as tomllib


def _floor(req: Requirement) -> str:
    lows = [s.version for s in req.specifier if s.operator == ">="]
    assert len(lows) == 1, f"{req}: give exactly one >= floor"
    return lows[0]


def test_floors_file_pins_the_declared_floors():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    declared = [Requirement(r) for r in project["dependencies"] + project["optional-dependencies"]["pandas"]]
    pinned = [
        Requirement(line)
        for line in (REPO / "requirements-floors.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    want = {(r.name, Version(_floor(r)), str(r.marker)) for r in declared}
    got = set()
    for r in pinned:
        (spec,) = r.specifier
        assert spec.operator == "==", r
        got.add((r.name, Version(spec.version), str(r.marker)))  # 1.21 == 1.21.0
    assert got == want
    assert "pyarrow" not in {r.name for r in map(Requirement, project["dependencies"])}  # only for pandas


def test_polars_floor_has_what_the_plots_use():
    """plots.py smooths goodput with rolling_mean(min_samples=), added in polars 1.21."""
    import polars as pl

    s = pl.Series([1.0, 3.0, 5.0])
    assert s.rolling_mean(window_size=2, min_samples=1).to_list() == [1.0, 2.0, 4.0]
