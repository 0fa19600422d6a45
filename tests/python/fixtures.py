"""The Python tests' scenarios, in one place, and the way to derive a variant of one.

A test that needs "the good scenario, but ..." derives it here with ``--set``-style assignments
(``airtcp.apply_overrides``, the same code as ``airtcp run --set``) instead of editing a copy of
the TOML text: a variant names the fields it changes, and a change to the base file reaches every
test. The files themselves stay in tests/scenarios/ (shared with the Rust tests).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from airtcp import apply_overrides
from airtcp.scenario import dumps, loads

REPO = Path(__file__).resolve().parents[2]
SCENARIOS = REPO / "tests" / "scenarios"
#: S --10 Mb/s 20 ms-- BS --2 Mb/s 1 ms, 2% loss-- D, two TCP flows for 10 s (seed 7).
GOOD = SCENARIOS / "good" / "small_lossy.toml"
#: Each file is GOOD with exactly one defect.
BAD_DIR = SCENARIOS / "bad"
EXAMPLE = REPO / "examples" / "jersey_fig10.toml"


def doc(path: Path = GOOD, *sets: str, drop: tuple[str, ...] = ()) -> dict[str, Any]:
    """A scenario file as a dict, with ``sets`` (``"links.1.rate=2Mbit"``, as for ``--set``)
    applied and the ``drop`` paths (``"links.1.rate"``) removed."""
    d = apply_overrides(loads(path.read_text(), source=str(path)), list(sets))
    for p in drop:
        *parents, last = p.split(".")
        node: Any = d
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        del node[int(last) if isinstance(node, list) else last]
    return d


def good(*sets: str, drop: tuple[str, ...] = ()) -> str:
    """GOOD's TOML text, or a variant of it: ``good("flows.1.count=40", "duration=2s")``."""
    if not sets and not drop:
        return GOOD.read_text()
    return dumps(doc(GOOD, *sets, drop=drop))


def minimal(**fields: Any) -> dict[str, Any]:
    """The smallest scenario the parser gets past (one node, 1 s), plus ``fields``: for tests of
    one bad value, which the engine must name."""
    return {"duration": "1s", "nodes": ["A"], **fields}


def assert_legends_clear(fig: Any) -> None:
    """No legend of ``fig`` covers its suptitle or a panel's title, and each lies inside the figure
    (drawn first, so that constrained layout has placed everything). Issue 40: jersey-fig3's
    legend, hung from the figure's top edge, covered a long suptitle."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    r = canvas.get_renderer()
    titles = [t for t in [fig._suptitle] + [ax.title for ax in fig.axes if ax.get_visible()] if t and t.get_text()]
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
    assert legends, "no legend drawn"
    whole = fig.bbox
    for lg in legends:
        box = lg.get_window_extent(r)
        assert whole.x0 - 1 <= box.x0 and box.x1 <= whole.x1 + 1 and whole.y0 - 1 <= box.y0 and box.y1 <= whole.y1 + 1
        for t in titles:
            assert not box.overlaps(t.get_window_extent(r)), f"legend covers {t.get_text()!r}"
