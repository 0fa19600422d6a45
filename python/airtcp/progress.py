"""The progress bar the long-running commands share (``reproduce``, ``sweep``): description, bar,
done/total, elapsed and remaining time (rich)."""

from __future__ import annotations

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)


def eta_bar(console: Console) -> Progress:
    """A rich ``Progress`` with an ETA column, printed to ``console`` and left on screen."""
    return Progress(
        # markup=False: a description holds an experiment id or scenario name, printed as text
        TextColumn("{task.description}", style="progress.description", markup=False),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
        console=console,
        transient=False,
    )
