"""The notebooks in notebooks/ (issue 40 item 9) run from top to bottom in a fresh kernel, as a
reader would run them, and show what their text says: the run's table of flows, each figure as
an image, the sweep's table and its second call served from the cache (asserted inside)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import REPO

nbformat = pytest.importorskip("nbformat", reason="the notebook tests need nbformat, nbclient and ipykernel")
nbclient = pytest.importorskip("nbclient", reason="the notebook tests need nbformat, nbclient and ipykernel")
pytest.importorskip("ipykernel", reason="the notebook tests need nbformat, nbclient and ipykernel")

NOTEBOOKS = REPO / "notebooks"


def _execute(name: str, cwd: Path):
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    # in a scratch folder: the sweep notebook writes results/ where it runs
    shutil.copy(NOTEBOOKS / name, cwd / name)
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(cwd)}})
    client.execute()
    return nb


def _outputs(nb, mime: str) -> list[str]:
    return [
        o["data"][mime]
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if o.get("output_type") in ("execute_result", "display_data") and mime in o.get("data", {})
    ]


def test_every_notebook_is_tested():
    assert sorted(p.name for p in NOTEBOOKS.glob("*.ipynb")) == ["quickstart.ipynb", "sweep.ipynb"]


def test_quickstart_runs_and_shows_the_flows_and_the_figure(tmp_path):
    nb = _execute("quickstart.ipynb", tmp_path)
    html = _outputs(nb, "text/html")
    assert any("jersey-fig10</b>, seed 1: 20 s simulated" in h for h in html)
    assert len(_outputs(nb, "image/png")) >= 1  # run_figure's figure
    text = "\n".join(o.get("text", "") for c in nb.cells for o in c.get("outputs", []) if o.get("name") == "stderr")
    assert "Traceback" not in text


def test_sweep_notebook_runs_the_grid_and_reads_its_cache(tmp_path):
    nb = _execute("sweep.ipynb", tmp_path)
    html = _outputs(nb, "text/html")
    assert any("15 runs (15 executed, 0 from the cache)" in h and "data:image/png;base64," in h for h in html)
    assert any("0 runs executed, 15 from the cache" in t for t in _outputs(nb, "text/plain"))
    assert (tmp_path / "results" / "sweep-quick" / "figure.png").is_file()
    assert len(_outputs(nb, "image/png")) >= 1  # the figure drawn again
