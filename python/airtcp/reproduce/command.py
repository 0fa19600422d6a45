"""``airtcp reproduce``, the command: checks its options, lists the catalogue or runs the chosen
experiments with a progress bar, prints the summary table and writes results/index.html and
REPRODUCTION.md's claims table. cli.py parses the options and turns the errors into one line."""

from __future__ import annotations

import functools
import time
from pathlib import Path
from typing import Any, Optional

from rich.console import Console
from rich.progress import Progress, TaskID
from rich.table import Table

from .. import outputs
from ..api import resolve_jobs
from ..progress import eta_bar

from .backend import Cache, cache_key, make_backend
from .claims import check_claims
from .plan import availability, estimate_total, plan
from .report import update_reproduction as update_reproduction_table
from .report import write_index
from .runner import run_experiment
from .spec import Experiment, all_claims, default_root, discover, is_packaged
from .text import INCONCLUSIVE, NOT_REPRODUCED, NOT_RUN, REPRODUCED, SAME_DIRECTION
from .why import all_why

__all__ = ["UsageError", "reproduce_command"]


class UsageError(Exception):
    """A bad combination or value of the command's options (one line, exit status 2)."""


def _list(console: Console, root: Path, exps: list[Experiment], long: bool) -> None:
    """``--list``: one line per experiment (id, runs, status, title cut to the terminal), so the
    list fits 80 columns (it wrapped to 562 lines); ``--long`` adds the source and every part each
    needs, wrapped."""
    t = Table(title=f"experiments in {root}", title_justify="left")
    for col in ("id", "paper / what", "runs (full / quick)", "needs", "status"):
        t.add_column(col, overflow="fold")
    rows: list[tuple[str, str, str, str]] = []
    for e in exps:
        av = availability(e)
        full = len(plan(e).tasks) if av.runnable else _grid_size(e, False) * e.seeds
        fast = len(plan(e, quick=True).tasks) if av.runnable else _grid_size(e, True) * e.quick_seeds
        if long:
            needs = ", ".join(f"{s.part} ({'present' if s.present else 'missing'})" for s in av.parts) or "-"
            status = "ready" if av.runnable else f"skipped: needs {', '.join(av.missing)} (missing)"
            if av.runnable and av.dropped:
                status += "; leaves out " + ", ".join(f"{a}={p} (needs {', '.join(n)})" for a, p, n in av.dropped)
            t.add_row(e.id, f"{e.source}: {e.title}", f"{full} / {fast}", needs, status)
        else:
            status = "ready" if av.runnable else "needs " + ", ".join(m.split(" ", 1)[0] for m in av.missing)
            if av.runnable and av.dropped:
                status += f" ({len(av.dropped)} pts out)"
            rows.append((e.id, f"{full}/{fast}", status, e.title))
    if long:
        console.print(t)
        return
    # One line each at any width: the first three columns keep their width, the title takes what
    # is left of the terminal and is cut with "…" (a rich table shrank or dropped the numbers).
    head = ("id", "runs", "status", "what")
    widths = [max([len(head[i])] + [len(r[i]) for r in rows]) for i in range(3)]
    room = max(10, console.width - sum(widths) - 3 * 2)

    def line(cells: tuple[str, ...]) -> str:
        what = cells[3] if len(cells[3]) <= room else cells[3][: room - 1] + "…"
        return "  ".join([cells[0].ljust(widths[0]), cells[1].rjust(widths[1]), cells[2].ljust(widths[2]), what])

    console.print(f"{len(exps)} experiments in {root}", markup=False, highlight=False, overflow="fold")
    console.print(line(head), markup=False, highlight=False, style="bold")
    for r in rows:
        console.print(line(r), markup=False, highlight=False, no_wrap=True, overflow="crop")
    console.print(
        "runs: full/--quick; source and needs of each: airtcp reproduce --list --long", markup=False, highlight=False
    )


def reproduce_command(
    console: Console,
    experiment: Optional[str],
    all_: bool,
    list_: bool,
    quick: bool,
    jobs: int,
    seeds: Optional[int],
    out: Path,
    experiments: Optional[Path],
    backend: str,
    ray_address: Optional[str],
    update_reproduction: bool,
    reproduction: Optional[Path],
    force: bool = False,
    long: bool = False,
) -> None:
    """``airtcp reproduce`` (its options, as cli.py parses them): --list, one experiment, --all,
    --update-reproduction. Raises UsageError, SpecError or RuntimeError (an unusable backend), each
    one line for the user."""
    given = experiments or default_root()
    packaged = is_packaged(given)
    root = given.resolve()
    if not root.is_dir():
        raise UsageError(f"--experiments {root}: no such folder")
    if update_reproduction and reproduction is None and packaged:
        raise UsageError(
            "--update-reproduction: the experiments are the installed package's copy "
            f"({given}); give --reproduction FILE, or run from a checkout"
        )
    chosen = sum([experiment is not None, all_, list_])
    if chosen > 1:
        raise UsageError("give one of ID, --all and --list")
    if chosen == 0 and not update_reproduction:
        raise UsageError("give an experiment ID, --all, --list or --update-reproduction (see: airtcp reproduce --help)")
    try:
        threads = resolve_jobs(jobs, 1 << 30, "--jobs")  # each backend also caps it at its work
    except ValueError as bad:
        raise UsageError(str(bad)) from None
    if seeds is not None and not 1 <= seeds <= 1000:
        raise UsageError(f"--seeds {seeds}: must be an integer from 1 to 1000")
    if not list_:
        try:
            outputs.check_path(out, own=False)
        except outputs.OutputError as bad_out:
            raise UsageError(str(bad_out)) from None
    exps = discover(root)
    claims = all_claims(root)
    check_claims(claims, exps)
    whys = all_why(root, claims)

    if list_:
        _list(console, root, exps, long)
        return

    mk = lambda: make_backend(backend, threads, ray_address)  # noqa: E731
    skipped: dict[str, str] = {}
    if experiment is not None:
        exp = next((e for e in exps if e.id == experiment), None)
        if exp is None:
            raise UsageError(f"unknown experiment '{experiment}' (see: airtcp reproduce --list)")
        av = availability(exp)
        if not av.runnable:
            raise UsageError(f"{exp.id}: needs {', '.join(av.missing)} {_why_missing(exp)}")
        todo = [exp]
    elif all_:
        todo = []
        for e in exps:
            av = availability(e)
            if av.runnable:
                todo.append(e)
            else:
                skipped[e.id] = f"needs {', '.join(av.missing)}"
                console.print(f"skip {e.id}: needs {', '.join(av.missing)} {_why_missing(e)}", markup=False)
    else:
        todo = []
        for e in exps:
            av = availability(e)
            if not av.runnable:
                skipped[e.id] = f"needs {', '.join(av.missing)}"

    if todo:
        plans = {e.id: plan(e, quick=quick, seeds=seeds) for e in todo}
        total_runs = sum(len(p.tasks) for p in plans.values())
        cache = Cache(out / ".cache")
        to_do = [t for p in plans.values() for t in p.tasks if cache.get(cache_key(t), t) is None]
        est = estimate_total(list(plans.values()), threads, len(to_do) / max(1, total_runs))
        console.print(
            f"{len(todo)} experiment{'s' if len(todo) != 1 else ''}, {total_runs} runs "
            f"({total_runs - len(to_do)} cached), {'quick' if quick else 'full'} mode, {threads} parallel on "
            f"{backend}: expected about {_minutes(est)} on an idle machine (rough: start-up, tables and figures, "
            "link rates × durations)"
        )
        started = time.monotonic()
        outcomes = []
        with eta_bar(console) as bar:
            for e in todo:
                task = bar.add_task(f"{e.id:<20}", total=len(plans[e.id].tasks))
                outcome = run_experiment(
                    e,
                    out,
                    claims,
                    quick=quick,
                    seeds=seeds,
                    backend=mk(),
                    repo=root.parent,
                    progress=functools.partial(_advance, bar, task),
                    force=force,
                )
                outcomes.append(outcome)
        # headers short enough for 80 columns: the claims' four counts are named in the caption
        t = Table(
            title=f"reproduce ({'quick' if quick else 'full'})",
            title_justify="left",
            caption="claims: reproduced / same direction / inconclusive / not reproduced",
            caption_justify="left",
        )
        t.add_column("id", no_wrap=True)
        for col in ("runs", "ran", "s"):
            t.add_column(col, justify="right", no_wrap=True)
        t.add_column("claims", no_wrap=True)
        t.add_column("report", overflow="fold")
        for o in outcomes:
            st = [r.status for r in o.claims]
            counts = (
                f"{st.count(REPRODUCED)}/{st.count(SAME_DIRECTION)}/{st.count(INCONCLUSIVE)}/{st.count(NOT_REPRODUCED)}"
            )
            if st.count(NOT_RUN):
                counts += f" ({st.count(NOT_RUN)} not run)"
            t.add_row(
                o.experiment.id, str(o.total), str(o.executed), f"{o.wall_s:.1f}", counts, str(o.out_dir / "report.md")
            )
        console.print(t)
        console.print(f"done in {time.monotonic() - started:.1f} s")
    if all_:
        out.mkdir(parents=True, exist_ok=True)
        index = write_index(out, exps, claims, skipped)
        console.print(f"wrote {index}: every experiment's figure and its claims beside ours on one page")
    if update_reproduction:
        target = reproduction or (root.parent / "REPRODUCTION.md")
        missing: list[str] = []
        n = update_reproduction_table(target, exps, claims, out, skipped, whys, missing)
        console.print(f"updated {target}: {n} claim rows")
        if missing:
            console.print(
                f"{len(missing)} not-reproduced row(s) without a why.toml paragraph: {', '.join(missing)}",
                style="yellow",
                markup=False,
            )


def _advance(bar: Progress, task: TaskID, done: int, total: int) -> None:
    bar.update(task, completed=done, total=total)


def _grid_size(exp: Experiment, quick: bool) -> int:
    n = 1
    for a in exp.axes:
        n *= len(a.quick) if quick and a.quick else len(a.points)
    return n


def _minutes(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.1f} min"


def _why_missing(exp: Any) -> str:
    """Why an experiment's parts are missing, and for recorded traces what to do about it."""
    if getattr(exp, "external_traces", False):
        from ..traces import traces_dir

        return (
            f"(no valid trace files in {traces_dir()}: `airtcp traces` says where to get them; "
            "then --traces DIR or AIRTCP_TRACES=DIR)"
        )
    return "(missing in this build)"
