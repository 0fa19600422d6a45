"""``airtcp sweep``, the command: checks its options, plans the grid, runs it with a progress bar
(``sweep.run_sweep``) and prints the table of means and 95% intervals. cli.py parses the options
and turns the errors into one line (a ``SweepError`` is an ``OverrideError``: exit code 2)."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Optional

from rich.console import Console
from rich.table import Table
from rich.text import Text

from . import api, outputs
from . import sweep as sw
from .presets import notice
from .progress import eta_bar
from .reproduce.backend import make_backend
from .reproduce.metrics import MIN_CI_SEEDS
from .scenario import located_errors, read_with_overrides, safe_name

__all__ = ["sweep_command"]


def sweep_command(
    console: Console,
    scenario: Path,
    grid: list[str],
    seeds: int,
    out: Optional[Path],
    jobs: int,
    backend: str,
    ray_address: Optional[str],
    sets: Optional[list[str]],
    force: bool = False,
) -> None:
    """``airtcp sweep`` with its options as cli.py parses them (``grid``: the ``--grid`` axes,
    ``sets``: the ``--set`` overrides); writes its outputs in ``out`` (see ``sweep``)."""
    try:
        api.resolve_jobs(jobs, 1, "--jobs")  # the range, checked before any work
    except ValueError as e:
        raise sw.SweepError(str(e)) from None
    if not 1 <= seeds <= sw.MAX_SEEDS:
        raise sw.SweepError(f"--seeds {seeds}: must be an integer from 1 to {sw.MAX_SEEDS}")
    text, doc = read_with_overrides(scenario, sets)
    axes = [sw.parse_grid(g) for g in grid]
    with located_errors(scenario, sets, regenerated=True):  # an error of the file or a --set, not a --grid
        plan = sw.plan_sweep(doc, str(scenario.resolve().parent), axes, seeds)
    if plan.notes:
        print(f"note: {notice(list(plan.notes))}", file=sys.stderr)
    name = str(doc.get("name") or scenario.stem)
    out_dir = outputs.check_path(out if out is not None else Path("results") / f"sweep-{safe_name(name)}")
    threads = api.resolve_jobs(jobs, len(plan.tasks), "--jobs")
    try:
        be = make_backend(backend, threads, ray_address)
    except RuntimeError as e:
        raise sw.SweepError(str(e)) from None
    console.print(
        Text(
            f"{name}: {len(plan.points)} grid points × {len(plan.seeds)} seeds = {len(plan.tasks)} runs, "
            f"{threads} parallel on {backend}"
        )
    )
    started = time.monotonic()
    with eta_bar(console) as bar:
        task = bar.add_task("sweep", total=len(plan.tasks))
        outcome = sw.run_sweep(
            plan,
            out_dir,
            be,
            progress=lambda d, t: bar.update(task, completed=d, total=t),
            scenario_name=name,
            invocation={
                "command": "sweep",
                "scenario": str(scenario.resolve()),
                "grid": list(grid),
                "seeds": seeds,
                "set": list(sets or []),
            },
            force=force,
            scenario_text=text,
            overrides=sets,
        )
    frame = sw.summary_frame(outcome)
    n = len(plan.seeds)
    how = "mean [95% CI] n=seeds" if n >= MIN_CI_SEEDS else "mean (each seed's value: too few seeds for an interval)"
    t = Table(title=Text(f"{name}: {how}"), title_justify="left")
    for i, c in enumerate(frame.columns):
        t.add_column(c, justify="right" if i >= len(plan.axes) + 1 else "left", overflow="fold")
    shown = frame.height
    for row in frame.head(40).iter_rows():
        t.add_row(*(Text(x) for x in row))
    console.print(t)
    if shown > 40:
        console.print(f"(first 40 of {shown} rows: all in {out_dir}/aggregated.csv)")
    console.print(
        f"{outcome.executed} runs executed, {outcome.total - outcome.executed} from the cache, "
        f"{time.monotonic() - started:.1f} s; wrote {out_dir}/runs.parquet, aggregated.csv, figure.png"
        + (", scatter.csv" if outcome.scatter else "")
    )
