"""Running one experiment end to end: plan → cached/executed runs → tables → figure → report.

Outputs in ``<out>/<id>/``: ``runs.parquet`` (one row per run: grid labels, seed, cache key,
every metric), ``aggregated.csv`` (per grid point and metric: n, mean, sd, 95% CI half-width and bounds),
``claims.csv`` (each of the paper's claims beside ours), ``checks.csv`` (the spec's bounds on every
run, when it has ``[[checks]]``), ``figure.png``/``figure.svg``,
``report.md`` and ``run.json`` (mode, seeds, counts). The cache is ``<out>/.cache``.
"""

from __future__ import annotations

import json
import math
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import polars as pl

from .. import outputs
from ..scenario import read_text
from .backend import Backend, Cache, LocalBackend, Progress, engine_id, run_missing
from .claims import Agg, ClaimResult, evaluate_claim
from .metrics import ci_bounds, evaluate, mean_ci
from .plan import Plan, plan
from .report import claim_text, plot, write_report
from .spec import Check, Claim, Experiment, SpecError
from .text import fmt

__all__ = ["Outcome", "run_experiment", "Progress"]


@dataclass(frozen=True)
class Outcome:
    """What a sweep did: runs in total, executed now, found in the cache, and where it wrote."""

    experiment: Experiment
    plan: Plan
    total: int
    executed: int
    cached: int
    wall_s: float
    out_dir: Path
    claims: tuple[ClaimResult, ...]


def run_experiment(
    exp: Experiment,
    out: Path,
    claims: list[Claim],
    quick: bool = False,
    seeds: Optional[int] = None,
    backend: Optional[Backend] = None,
    progress: Optional[Progress] = None,
    repo: Optional[Path] = None,
    force: bool = False,
) -> Outcome:
    """Runs ``exp`` (only the runs missing from the cache) and writes its outputs under ``out``:
    ``<out>/<id>/`` is written complete or not at all and replaces an earlier reproduction of the
    same experiment, never another command's output unless ``force`` (``outputs.staged``).
    Raises SpecError for a bad spec or a missing part (check ``plan(exp).availability`` first)."""
    t0 = time.monotonic()
    p = plan(exp, quick=quick, seeds=seeds)
    if not p.availability.runnable:
        raise SpecError(f"{exp.id}: needs {', '.join(p.availability.missing)} (missing in this build)")
    backend = backend or LocalBackend()
    total = len(p.tasks)
    keys, payloads, executed = run_missing(p.tasks, Cache(out / ".cache"), backend, progress)

    final = outputs.check_path(out / exp.id)
    invocation = {"command": "reproduce", "experiment": exp.id}
    with outputs.staged(final, "run.json", _OUTPUTS, invocation, force) as out_dir:
        results = _write_outputs(exp, p, out_dir, claims, quick, keys, payloads, executed, repo or out.parent)
        outputs.pause_point("writing")
        meta = json.loads((out_dir / "run.json").read_text(encoding="utf-8"))
        meta[outputs.PROVENANCE_KEY] = outputs.provenance(
            invocation,
            os.listdir(out_dir),
            scenario=read_text(exp.scenario_path),
            seed=None,
            seeds=list(p.seeds),
            quick=quick,
            spec=read_text(exp.spec_path),
        )
        (out_dir / "run.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    return Outcome(exp, p, total, executed, total - executed, time.monotonic() - t0, final, results)


#: The entries ``run_experiment`` may write in ``<out>/<id>/``.
_OUTPUTS = (
    "runs.parquet",
    "aggregated.csv",
    "claims.csv",
    "checks.csv",
    "figure.png",
    "figure.svg",
    "report.md",
    "run.json",
)


def _write_outputs(
    exp: Experiment,
    p: Plan,
    out_dir: Path,
    claims: list[Claim],
    quick: bool,
    keys: list[str],
    payloads: list[dict[str, Any]],
    executed: int,
    repo: Path,
) -> tuple[ClaimResult, ...]:
    total = len(p.tasks)
    raw = _raw_table(p, keys, payloads)
    raw.write_parquet(out_dir / "runs.parquet")
    agg_rows = _aggregate(p, raw)
    outputs.write_csv(
        out_dir / "aggregated.csv",
        agg_rows,
        [a.name for a in p.axes] + ["metric", "n", "mean", "sd", "ci95", "ci_low", "ci_high"],
    )
    agg: Agg = {
        (tuple(r[a.name] for a in p.axes), r["metric"]): (r["n"], r["mean"], r["sd"], r["ci95"]) for r in agg_rows
    }
    results = tuple(evaluate_claim(c, agg, exp.axes, p.axes) for c in claims if c.experiment == exp.id)
    _write_claims(out_dir / "claims.csv", results)
    checks = [evaluate_check(c, raw) for c in exp.checks]
    if checks:
        outputs.write_csv(out_dir / "checks.csv", checks, list(checks[0]))
    meta = {
        "id": exp.id,
        "quick": quick,
        "seeds": list(p.seeds),
        "duration": _duration_text(p.duration_s),
        "full_seeds": exp.seeds,
        "full_duration": _base_duration(exp),
        "quick_points": {a.name: list(a.quick) for a in exp.axes if quick and a.quick},
        "runs": total,
        "executed": executed,
        "cached": total - executed,
        "engine": engine_id(),
        "dropped": [list(d[:2]) + [list(d[2])] for d in p.availability.dropped],
        "checks": checks,
    }
    (out_dir / "run.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    first_seed = [(pt, payloads[p.task_index(i, 0)]) for i, pt in enumerate(p.points)]
    subtitle = _mode_short(meta)
    mine = [c for c in claims if c.experiment == exp.id]
    figure = plot(exp, p.axes, agg_rows, first_seed, out_dir, subtitle, mine, runs=raw)
    write_report(exp, meta, p.axes, agg_rows, list(results), figure, out_dir, repo)
    return results


def evaluate_check(c: Check, raw: pl.DataFrame) -> dict[str, Any]:
    """A check over every run: how many runs have a value, how many break the bound, the value
    nearest to breaking it (the largest for ``at_most``, else the smallest) and the status,
    ``holds`` (every run within the bound), ``violated`` or ``no values``."""
    xs = [x for x in raw[c.metric].to_list() if x is not None and math.isfinite(x)]
    bad = [x for x in xs if (c.at_most is not None and x > c.at_most) or (c.at_least is not None and x < c.at_least)]
    worst = (max(xs) if c.at_most is not None else min(xs)) if xs else math.nan
    bound = " and ".join(
        ([f"≤ {c.at_most:g}"] if c.at_most is not None else [])
        + ([f"≥ {c.at_least:g}"] if c.at_least is not None else [])
    )
    return {
        "check": c.id,
        "text": c.text,
        "metric": c.metric,
        "bound": bound,
        "runs": len(xs),
        "violations": len(bad),
        "worst": worst,
        "status": "no values" if not xs else ("violated" if bad else "holds"),
    }


def _duration_text(s: float) -> str:
    return f"{s:g}s"


def _base_duration(exp: Experiment) -> str:
    from ..scenario import loads, read_text

    return str(loads(read_text(exp.scenario_path)).get("duration", "?"))


def _mode_short(meta: dict[str, Any]) -> str:
    return f"{'quick' if meta['quick'] else 'full'}, {len(meta['seeds'])} seeds × {meta['duration']}"


def _raw_table(p: Plan, keys: list[str], payloads: list[dict[str, Any]]) -> pl.DataFrame:
    """One row per run, in grid order then seed: the grid labels, seed, cache key, metrics."""
    exp = p.experiment
    cols: dict[str, list[Any]] = {a.name: [] for a in p.axes}
    cols["seed"] = []
    cols["key"] = []
    for m in exp.metrics:
        cols[m.name] = []
    for i, point in enumerate(p.points):
        for j, seed in enumerate(p.seeds):
            k = p.task_index(i, j)
            for a in p.axes:
                cols[a.name].append(point[a.name])
            cols["seed"].append(seed)
            cols["key"].append(keys[k])
            for m in exp.metrics:
                cols[m.name].append(evaluate(m, payloads[k], p.tasks[k]))
    schema = {
        **{a.name: pl.String for a in p.axes},
        "seed": pl.Int64,
        "key": pl.String,
        **{m.name: pl.Float64 for m in exp.metrics},
    }
    return pl.DataFrame(cols, schema=schema)


def _aggregate(p: Plan, raw: pl.DataFrame) -> list[dict[str, Any]]:
    """Per grid point and metric: n, mean, sample sd, the 95% CI half-width over seeds (Student t) and
    the interval's bounds, the lower one clipped at 0 when no seed's value is negative."""
    rows: list[dict[str, Any]] = []
    n_seeds = len(p.seeds)
    for i, point in enumerate(p.points):
        block = raw.slice(i * n_seeds, n_seeds)
        for m in p.experiment.metrics:
            xs = block[m.name].to_list()
            n, mean, sd, ci = mean_ci(xs)
            lo, hi = ci_bounds(xs, mean, ci)
            rows.append(
                {**point, "metric": m.name, "n": n, "mean": mean, "sd": sd, "ci95": ci, "ci_low": lo, "ci_high": hi}
            )
    return rows


def _write_claims(path: Path, results: tuple[ClaimResult, ...]) -> None:
    header = [
        "claim",
        "figure",
        "condition",
        "kind",
        "paper_value",
        "units",
        "ours",
        "ci95",
        "ratio",
        "status",
        "detail",
        "ours_text",
        "ratio_text",
    ]
    rows = [
        {
            "claim": r.claim.id,
            "figure": r.claim.figure,
            "condition": r.claim.condition,
            "kind": r.claim.kind,
            "paper_value": r.claim.value,
            "units": r.claim.units,
            "ours": r.ours,
            "ci95": r.ci,
            "ratio": r.ratio,
            "status": r.status,
            "detail": r.detail,
            "ours_text": claim_text(r),
            "ratio_text": fmt(r.ratio),
        }
        for r in results
    ]
    outputs.write_csv(path, rows, header)
