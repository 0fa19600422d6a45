"""``airtcp sweep``: an ad-hoc grid over any scenario, no spec file and no paper needed.

``--grid PATH=V1,V2,...`` names a scenario path (as ``--set`` does) and its values (each read as a
``--set`` value); a value may carry more fields of the same table after ``;``
(``flows.0.cc=reno,jersey;ecn=false;sack=true`` sets ``flows.0.ecn`` and ``flows.0.sack`` with
``jersey``). Each point gets the scheme presets (``airtcp.presets``: the options its ``cc`` and
``recovery`` need and it does not set), listed in ``SweepPlan.notes``. The grid is the product of the ``--grid`` options in order, times seeds
1..``--seeds``. Runs go through the machinery of ``airtcp reproduce`` (``reproduce.backend``: the
pure ``execute``, the per-run JSON cache, the local or Ray backend), so a sweep is cached and
resumable and its outputs do not depend on ``--jobs`` or the backend.

Outputs in ``--out``: ``runs.parquet`` (one row per run and flow: grid labels, seed, cache key,
flow, kind, cc and the flow's metrics, null where a metric does not apply), ``aggregated.csv``
(per grid point, flow and metric: n, mean, sd, 95% CI half-width and bounds), ``figure.png``
(a Pantheon-style throughput/delay scatter when the grid varies a flow's ``cc``, else goodput per
flow over the first axis), ``scatter.csv`` (the scatter's points) and ``run.json``. See docs/sweep.md.
"""

from __future__ import annotations

import copy
import itertools
import json
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Mapping, Sequence
from typing import Any, Optional

import polars as pl

from . import api, outputs
from .reproduce.backend import Backend, Cache, LocalBackend, Progress, engine_id, run_missing
from .reproduce.metrics import ci_bounds, mean_ci
from .presets import complete
from .reproduce.plan import RunTask, flow_entry_sizes, input_digest
from .scenario import OverrideError, ScenarioLike, dumps, parse_value, set_path

__all__ = [
    "GridAxis",
    "SweepError",
    "SweepPlan",
    "parse_grid",
    "plan_sweep",
    "run_sweep",
    "sweep_grid",
    "grid_specs",
    "SweepOutcome",
    "summary_frame",
    "FLOW_METRICS",
    "scatter_points",
    "MAX_SEEDS",
]

#: Per-flow fields read from each run's summary (with ``.get``: a field this engine build does not
#: report is left out of the tables). RTT fields apply to TCP flows with RTT samples, one-way delay
#: and jitter to UDP flows; elsewhere they are null, never 0.
FLOW_METRICS = (
    "goodput_bps",
    "retransmissions",
    "redundant_segments",
    "timeouts",
    "fast_retransmits",
    "mean_rtt_s",
    "min_rtt_s",
    "rtt_p50_s",
    "rtt_p95_s",
    "rtt_p99_s",
    "owd_p50_s",
    "owd_p95_s",
    "owd_p99_s",
    "jitter_s",
)
_RTT = {"mean_rtt_s", "min_rtt_s", "rtt_p50_s", "rtt_p95_s", "rtt_p99_s"}
_TCP_ONLY = _RTT | {"retransmissions", "redundant_segments", "timeouts", "fast_retransmits"}
_UDP_ONLY = {"owd_p50_s", "owd_p95_s", "owd_p99_s", "jitter_s"}
MAX_SEEDS = 1000
_CC = re.compile(r"^flows\.(\d+)\.cc$")


class SweepError(OverrideError):
    """A bad ``--grid`` (or a grid point the engine refuses): one line naming the field."""


@dataclass(frozen=True)
class GridAxis:
    path: str
    labels: tuple[str, ...]
    values: tuple[Any, ...]
    #: Per value, the further fields it sets, as (path relative to ``path``'s table, value).
    extras: tuple[tuple[tuple[str, Any], ...], ...] = ()

    def apply(self, doc: dict[str, Any], i: int) -> None:
        """Sets value ``i`` (and its further fields) in ``doc``, in place; raises OverrideError."""
        set_path(doc, self.path, copy.deepcopy(self.values[i]))
        parent = self.path.rsplit(".", 1)[0] + "." if "." in self.path else ""
        for key, v in self.extras[i] if self.extras else ():
            set_path(doc, parent + key, copy.deepcopy(v))


def _split_values(text: str, sep: str = ",") -> list[str]:
    """Splits at the ``sep`` outside quotes, brackets and braces (so ``[1, 2]`` is one value)."""
    out: list[str] = []
    cur: list[str] = []
    depth, quote = 0, ""
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == sep and depth == 0:
            out.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    out.append("".join(cur))
    return [v.strip() for v in out]


def _parse_label(spec: str, lab: str) -> tuple[Any, tuple[tuple[str, Any], ...]]:
    """One grid value's text → (value, further fields after ``;``); read like ``--set`` values."""
    head, *more = _split_values(lab, ";")
    fields = []
    for m in more:
        key, eq, raw_value = m.partition("=")
        if not eq or not key.strip() or any(not p for p in key.strip().split(".")):
            raise SweepError(
                f"--grid '{spec}': '{m}' in value '{lab}': expected KEY=VALUE after ';', e.g. flows.0.cc=jersey;ecn=true"
            )
        fields.append((key.strip(), parse_value(raw_value.strip())))
    if not head:
        raise SweepError(f"--grid '{spec}': value '{lab}' has nothing before ';'")
    return parse_value(head), tuple(fields)


def parse_grid(spec: str) -> GridAxis:
    """``PATH=V1,V2,...`` → a grid axis; values are read like ``--set`` values (TOML, else text)."""
    if "=" not in spec:
        raise SweepError(f"--grid '{spec}': expected PATH=V1,V2,..., e.g. flows.0.cc=reno,cubic")
    path, raw = spec.split("=", 1)
    path = path.strip()
    if not path or any(not p for p in path.split(".")):
        raise SweepError(f"--grid '{spec}': empty path or empty part in '{path}'")
    labels = _split_values(raw)
    if any(not lab for lab in labels):
        raise SweepError(f"--grid '{spec}': empty value (give PATH=V1,V2,... with no empty entry)")
    if len(set(labels)) != len(labels):
        raise SweepError(f"--grid '{spec}': a value is given twice")
    values: list[Any] = []
    extras: list[tuple[tuple[str, Any], ...]] = []
    for lab in labels:
        value, fields = _parse_label(spec, lab)
        values.append(value)
        extras.append(fields)
    return GridAxis(path, tuple(labels), tuple(values), tuple(extras))


@dataclass(frozen=True)
class SweepPlan:
    axes: tuple[GridAxis, ...]
    points: tuple[dict[str, str], ...]  # axis path → label, in grid order
    seeds: tuple[int, ...]
    tasks: tuple[RunTask, ...]  # point-major, then seed
    docs: tuple[dict[str, Any], ...]  # the scenario of each point
    #: What the scheme presets added, one note per addition (``presets.notice`` makes the line).
    notes: tuple[str, ...] = ()

    def task_index(self, point: int, seed: int) -> int:
        return point * len(self.seeds) + seed


def _check(doc: dict[str, Any], base_dir: str, where: str) -> str:
    try:
        text = dumps(doc)
        api.validate(text=text, base_dir=base_dir, presets=False)
    except api.ScenarioError as e:
        # "(line N)" would point into the generated text, not into any file the user has
        raise SweepError(f"{where}: {re.sub(r' [(]line [0-9]+[)]', '', str(e))}") from None
    return text


def _raise_if_the_base_has_it(base: dict[str, Any], base_dir: str, message: str) -> None:
    """Raises the engine's error about the base scenario itself (its ``--set``s applied, no grid
    value) when it is ``message``: then no ``--grid`` value caused it, and the caller's
    ``located_errors`` names the ``--set`` or the user's file and line instead."""
    d = copy.deepcopy(base)
    complete(d)
    try:
        api.validate(text=dumps(d), base_dir=base_dir, presets=False)
    except api.ScenarioError as e:
        if re.sub(r" [(]line [0-9]+[)]", "", str(e)) == message:
            raise


def plan_sweep(base: dict[str, Any], base_dir: str, axes: list[GridAxis], seeds: int) -> SweepPlan:
    """Expands the grid; every value is checked alone on the base scenario first (so an error names
    the ``--grid`` value), then every point. Raises SweepError."""
    if not axes:
        raise SweepError("--grid: give at least one, e.g. --grid flows.0.cc=reno,cubic")
    if not 1 <= seeds <= MAX_SEEDS:
        raise SweepError(f"--seeds {seeds}: must be an integer from 1 to {MAX_SEEDS}")
    paths = [a.path for a in axes]
    for p in paths:
        if paths.count(p) > 1:
            raise SweepError(f"--grid {p}: given twice (one --grid per path)")
    if "seed" in paths:
        # Each run's seed (1..--seeds) replaces the scenario's `seed`: a grid over it would run the
        # same seeds at every point (and its label column would clash with the runs' seed column).
        raise SweepError(
            "--grid seed: every point runs seeds 1..--seeds, which replace the scenario's seed; use --seeds N"
        )
    notes: list[str] = []
    for a in axes:
        for i, lab in enumerate(a.labels):
            d = copy.deepcopy(base)
            try:
                a.apply(d, i)
            except OverrideError as e:
                raise SweepError(f"--grid {a.path}={lab}: {e}") from None
            complete(d)
            try:
                _check(d, base_dir, f"--grid {a.path}={lab}")
            except SweepError as e:
                _raise_if_the_base_has_it(base, base_dir, str(e).split(": ", 1)[1])
                raise
    seed_list = tuple(range(1, seeds + 1))
    points: list[dict[str, str]] = []
    tasks: list[RunTask] = []
    docs: list[dict[str, Any]] = []
    digests: dict[str, str] = {}
    for combo in itertools.product(*[list(enumerate(a.labels)) for a in axes]):
        d = copy.deepcopy(base)
        for a, (k, _) in zip(axes, combo):
            a.apply(d, k)
        notes.extend(complete(d))
        where = "--grid point " + ", ".join(f"{a.path}={lab}" for a, (_, lab) in zip(axes, combo))
        text = _check(d, base_dir, where)
        points.append({a.path: lab for a, (_, lab) in zip(axes, combo)})
        docs.append(d)
        # the trace files' contents go into the cache key: a changed trace is a new run (issue 39 item 2)
        inputs = input_digest(d, Path(base_dir), digests)
        tasks.extend(RunTask(text=text, seed=s, base_dir=base_dir, series=(), inputs=inputs) for s in seed_list)
    return SweepPlan(tuple(axes), tuple(points), seed_list, tuple(tasks), tuple(docs), tuple(dict.fromkeys(notes)))


def _flow_value(flow: dict[str, Any], field: str) -> Optional[float]:
    """A flow's metric, or None where it does not apply (RTT of UDP or with no samples; one-way
    delay of TCP) or this build does not report it. Never 0.0 for "does not apply"."""
    tcp = flow.get("kind") == "tcp"
    if (field in _TCP_ONLY and not tcp) or (field in _UDP_ONLY and tcp):
        return None
    if field in ("mean_rtt_s", "min_rtt_s", "mean_rto_s") and not flow.get("rtt_samples"):
        return None  # the engine reports null here; cached summaries of older builds have 0.0
    v = flow.get(field)
    if v is None or isinstance(v, bool):
        return None
    return float(v)


@dataclass(frozen=True)
class SweepOutcome:
    """A finished sweep: what ``sweep_grid`` (and ``airtcp sweep``) wrote, in memory. ``runs`` is
    runs.parquet, ``aggregated`` the rows of aggregated.csv (``table`` as a DataFrame),
    ``scatter`` those of scatter.csv; ``figure()`` draws figure.png again. In a notebook it shows
    as its headline, the table of goodput and delay per point and the figure (``_repr_html_``)."""

    plan: SweepPlan
    total: int
    executed: int
    out_dir: Path
    runs: pl.DataFrame
    aggregated: list[dict[str, Any]]
    metrics: tuple[str, ...]
    scatter: list[dict[str, Any]]
    scenario_name: str = "sweep"

    @property
    def table(self) -> pl.DataFrame:
        """aggregated.csv as a DataFrame: per grid point, flow and metric, n, mean, sd, ci95 and
        the interval's bounds (null where a metric does not apply)."""
        names = [a.path for a in self.plan.axes]
        cols = names + ["flow", "metric", "n", "mean", "sd", "ci95", "ci_low", "ci_high"]
        rows = [
            {c: (None if isinstance(r[c], float) and math.isnan(r[c]) else r[c]) for c in cols} for r in self.aggregated
        ]
        schema = {
            **{c: pl.String for c in names + ["flow", "metric"]},
            "n": pl.Int64,
            **{c: pl.Float64 for c in ("mean", "sd", "ci95", "ci_low", "ci_high")},
        }
        return pl.DataFrame(rows, schema=schema, orient="row") if rows else pl.DataFrame(schema=schema)

    def figure(self) -> Any:
        """figure.png's figure (a matplotlib ``Figure``), drawn again from these numbers."""
        from .plots import sweep_figure

        title = f"{self.scenario_name}: {len(self.plan.points)} points × {len(self.plan.seeds)} seeds"
        return sweep_figure(self.plan, self.aggregated, self.scatter, self.runs, self.metrics, title)

    def _repr_html_(self) -> str:
        """Jupyter's view: the headline, goodput and delay per point and flow (mean, 95% interval
        and n; the seeds' values when n < 3, see ``reproduce.metrics.describe``) and figure.png."""
        import base64
        import html

        p = self.plan
        head = (
            f"<p><b>{html.escape(self.scenario_name)}</b>: {len(p.points)} grid points × {len(p.seeds)} seeds "
            f"= {self.total} runs ({self.executed} executed, {self.total - self.executed} from the cache); "
            f"outputs in <code>{html.escape(str(self.out_dir))}</code></p>"
        )
        png = self.out_dir / "figure.png"
        img = ""
        if png.is_file():
            data = base64.b64encode(png.read_bytes()).decode("ascii")
            img = f'<img alt="figure.png" style="max-width:100%" src="data:image/png;base64,{data}"/>'
        return head + summary_frame(self)._repr_html_() + img


def summary_frame(outcome: SweepOutcome) -> pl.DataFrame:
    """Per grid point and flow: goodput (Mb/s) and the delay the figure uses (ms), each as
    ``mean [low, high] n=N`` text (``describe``); the table ``airtcp sweep`` prints."""
    from .reproduce.metrics import describe

    delay = "rtt_p95_s" if "rtt_p95_s" in outcome.metrics else "mean_rtt_s"
    names = [a.path for a in outcome.plan.axes]
    by = {(tuple(r[n] for n in names), r["flow"], r["metric"]): r for r in outcome.aggregated}
    xs = _per_seed(outcome)
    cols: dict[str, list[str]] = {n: [] for n in names}
    cols["flow"], cols["goodput Mb/s"], cols[f"{'RTT p95' if delay == 'rtt_p95_s' else 'mean RTT'} ms"] = [], [], []
    for (point, flow, metric), r in by.items():
        if metric != "goodput_bps":
            continue
        for n, v in zip(names, point):
            cols[n].append(v)
        cols["flow"].append(flow)
        cols["goodput Mb/s"].append(describe(r, 1e-6, xs.get((point, flow, metric), [])))
        d = by.get((point, flow, delay))
        key = list(cols)[-1]
        cols[key].append(describe(d, 1e3, xs.get((point, flow, delay), [])) if d else "-")
    return pl.DataFrame(cols, schema={c: pl.String for c in cols})


def _per_seed(outcome: SweepOutcome) -> dict[tuple[tuple[str, ...], str, str], list[float]]:
    """Per (point labels, flow, metric): the seeds' values, in seed order (None left out)."""
    names = [a.path for a in outcome.plan.axes]
    out: dict[tuple[tuple[str, ...], str, str], list[float]] = {}
    metrics: list[str] = [m for m in ("goodput_bps", "rtt_p95_s", "mean_rtt_s") if m in outcome.metrics]
    for row in outcome.runs.select(names + ["flow"] + metrics).iter_rows(named=True):
        point = tuple(row[n] for n in names)
        for m in metrics:
            if row[m] is not None:
                out.setdefault((point, row["flow"], m), []).append(row[m])
    return out


def _toml_inline(v: Any) -> str:
    """A Python grid value as the TOML text ``--grid`` would take (its label)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return v if _BARE.match(v) else json.dumps(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_inline(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k} = {_toml_inline(x)}" for k, x in v.items()) + "}"
    raise SweepError(
        f"grid value {v!r}: a {type(v).__name__} is not a scenario value (give text, a number, a list or a dict)"
    )


_BARE = re.compile(r"^[A-Za-z0-9_.+\-]+$")


def grid_specs(grid: Mapping[str, Any] | Sequence[str] | str) -> list[str]:
    """``sweep_grid``'s ``grid`` as ``--grid`` texts: a mapping ``{"flows.0.cc": ["reno", "cubic"],
    "links.1.channel.loss": [0, 0.01]}`` (a text value is read as on the command line, ``;`` and
    all: ``"jersey;ecn=true"``; a whole axis may be one text ``"reno,cubic"``), or the texts
    themselves (``["flows.0.cc=reno,cubic"]``)."""
    if isinstance(grid, str):
        return [grid]
    if isinstance(grid, Mapping):
        specs = []
        for path, values in grid.items():
            if isinstance(values, str):
                specs.append(f"{path}={values}")
            elif isinstance(values, Sequence) and values:
                specs.append(f"{path}=" + ",".join(_toml_inline(v) if not isinstance(v, str) else v for v in values))
            else:
                raise SweepError(f"grid {path!r}: give a list of values, e.g. {{{path!r}: [...]}}")
        return specs
    return [str(g) for g in grid]


def sweep_grid(
    scenario: ScenarioLike | None = None,
    grid: Mapping[str, Any] | Sequence[str] | str = (),
    *,
    text: Optional[str] = None,
    seeds: int = 5,
    out: str | os.PathLike | None = None,
    jobs: Optional[int] = None,
    backend: str = "local",
    ray_address: Optional[str] = None,
    overrides: Sequence[str] = (),
    force: bool = False,
    progress: Optional[Progress] = None,
) -> SweepOutcome:
    """``airtcp sweep`` from Python: runs ``scenario`` (a path, a dict, or ``text=``) over the
    product of ``grid`` (see ``grid_specs``) times seeds 1..``seeds``, through the cache in
    ``<out>/.cache`` (the same command again runs only what is missing), and writes the sweep's
    outputs into ``out`` (default ``results/sweep-<scenario name>``); returns the SweepOutcome.
    ``overrides`` are ``--set`` texts applied to the scenario first. A grid point's scheme gets
    the options it needs (presets) with one PresetWarning. Raises SweepError (a bad grid value,
    naming it and the engine's field), ScenarioError, ValueError (``jobs``)."""
    import warnings

    from .presets import PresetWarning, notice
    from .reproduce.backend import make_backend
    from .scenario import apply_overrides, loads, resolve, safe_name

    body, folder = resolve(scenario, text)
    doc = loads(body)
    if overrides:
        doc = apply_overrides(doc, list(overrides))
        body = dumps(doc)
    specs = grid_specs(grid)
    plan = plan_sweep(doc, folder or os.getcwd(), [parse_grid(g) for g in specs], seeds)
    if plan.notes:
        warnings.warn(notice(list(plan.notes)), PresetWarning, stacklevel=2)
    name = str(
        doc.get("name")
        or (Path(os.fspath(scenario)).stem if isinstance(scenario, (str, os.PathLike)) and folder else "sweep")
    )
    out_dir = Path(out) if out is not None else Path("results") / f"sweep-{safe_name(name)}"
    threads = api.resolve_jobs(jobs, len(plan.tasks), "jobs")
    be = make_backend(backend, threads, ray_address)
    where = (
        os.path.abspath(os.fspath(scenario))
        if folder and scenario is not None and not isinstance(scenario, dict)
        else name
    )
    invocation = {"command": "sweep", "scenario": where, "grid": specs, "seeds": seeds, "set": list(overrides)}
    return run_sweep(
        plan,
        out_dir,
        be,
        progress=progress,
        scenario_name=name,
        invocation=invocation,
        force=force,
        scenario_text=body,
        overrides=list(overrides) or None,
    )


def run_sweep(
    plan: SweepPlan,
    out: Path,
    backend: Optional[Backend] = None,
    progress: Optional[Progress] = None,
    scenario_name: str = "sweep",
    invocation: Optional[dict[str, Any]] = None,
    force: bool = False,
    scenario_text: Optional[str] = None,
    overrides: Optional[list[str]] = None,
) -> SweepOutcome:
    """Runs what the cache (``<out>/.cache``) lacks and writes the outputs into ``out``: complete or
    not at all, never over another command's output unless ``force`` (``outputs.staged``;
    ``invocation`` identifies this sweep, by default its scenario name, grid and seeds). The cache
    is written run by run, so an interrupted sweep resumes."""
    backend = backend or LocalBackend()
    if invocation is None:
        invocation = {
            "command": "sweep",
            "scenario": scenario_name,
            "grid": {a.path: list(a.labels) for a in plan.axes},
            "seeds": len(plan.seeds),
        }
    outputs.check_path(out)
    names = ("runs.parquet", "aggregated.csv", "figure.png", "run.json") + (("scatter.csv",) if _cc_axis(plan) else ())
    with outputs.staged(out, "run.json", names, invocation, force) as tmp:
        outcome = _run_sweep(plan, out, tmp, backend, progress, scenario_name)
        meta = json.loads((tmp / "run.json").read_text(encoding="utf-8"))
        meta[outputs.PROVENANCE_KEY] = outputs.provenance(
            invocation, os.listdir(tmp), scenario=scenario_text, overrides=overrides, seed=None, seeds=list(plan.seeds)
        )
        outputs.pause_point("writing")
        (tmp / "run.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    return outcome


def _run_sweep(
    plan: SweepPlan,
    out: Path,
    tmp: Path,
    backend: Backend,
    progress: Optional[Progress],
    scenario_name: str,
) -> SweepOutcome:
    """``run_sweep``'s work: the runs (cache in ``out/.cache``), the outputs written into ``tmp``."""
    out.mkdir(parents=True, exist_ok=True)
    total = len(plan.tasks)
    keys, payloads, executed = run_missing(plan.tasks, Cache(out / ".cache"), backend, progress)
    runs, metrics = _runs_table(plan, keys, payloads)
    runs.write_parquet(tmp / "runs.parquet")
    agg = _aggregate(plan, runs, metrics)
    names = [a.path for a in plan.axes]
    outputs.write_csv(
        tmp / "aggregated.csv", agg, names + ["flow", "metric", "n", "mean", "sd", "ci95", "ci_low", "ci_high"]
    )
    scatter = scatter_points(plan, runs, metrics)
    if scatter:
        outputs.write_csv(tmp / "scatter.csv", scatter, list(scatter[0]))
    meta = {
        "scenario": scenario_name,
        "grid": {a.path: list(a.labels) for a in plan.axes},
        "seeds": list(plan.seeds),
        "runs": total,
        "executed": executed,
        "cached": total - executed,
        "engine": engine_id(),
        "metrics": list(metrics),
    }
    (tmp / "run.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    from .plots import sweep_figure

    fig = sweep_figure(
        plan, agg, scatter, runs, metrics, f"{scenario_name}: {len(plan.points)} points × {len(plan.seeds)} seeds"
    )
    from .plots import _save

    _save(fig, tmp / "figure.png")
    return SweepOutcome(plan, total, executed, out, runs, agg, metrics, scatter, scenario_name)


def _runs_table(
    plan: SweepPlan, keys: list[str], payloads: list[dict[str, Any]]
) -> tuple[pl.DataFrame, tuple[str, ...]]:
    """One row per run and flow, in grid order, then seed, then the summary's flow order."""
    present = [m for m in FLOW_METRICS if any(m in f for p in payloads for f in p["summary"]["flows"])]
    cols: dict[str, list[Any]] = {a.path: [] for a in plan.axes}
    for c in ("seed", "key", "flow", "kind", "cc"):
        cols[c] = []
    for m in present:
        cols[m] = []
    for i, point in enumerate(plan.points):
        for j, seed in enumerate(plan.seeds):
            k = plan.task_index(i, j)
            for f in payloads[k]["summary"]["flows"]:
                for a in plan.axes:
                    cols[a.path].append(point[a.path])
                cols["seed"].append(seed)
                cols["key"].append(keys[k])
                cols["flow"].append(f["name"])
                cols["kind"].append(f["kind"])
                cols["cc"].append(f.get("cc"))
                for m in present:
                    cols[m].append(_flow_value(f, m))
    schema = {
        **{a.path: pl.String for a in plan.axes},
        "seed": pl.Int64,
        "key": pl.String,
        "flow": pl.String,
        "kind": pl.String,
        "cc": pl.String,
        **{m: pl.Float64 for m in present},
    }
    return pl.DataFrame(cols, schema=schema), tuple(present)


def _aggregate(plan: SweepPlan, runs: pl.DataFrame, metrics: tuple[str, ...]) -> list[dict[str, Any]]:
    """Per grid point, flow (summary order) and metric: n (seeds with a value), mean, sd, the 95%
    Student-t half-width and the interval's bounds (the lower one clipped at 0: every metric here
    is nonnegative). Metrics that do not apply to a flow have n = 0 and empty values."""
    # One polars group_by in place of a filter per point and flow: maintain_order keeps the groups
    # in order of first appearance (grid order, then the summary's flow order) and each group's
    # values in seed order; the interval is mean_ci's (Student t, as `airtcp reproduce` computes it).
    names = [a.path for a in plan.axes]
    rows: list[dict[str, Any]] = []
    if runs.height == 0:
        return rows
    grouped = runs.group_by(names + ["flow"], maintain_order=True).agg([pl.col(m).drop_nulls() for m in metrics])
    for g in grouped.iter_rows(named=True):
        point = {n: g[n] for n in names}
        for m in metrics:
            xs = list(g[m])
            n, mean, sd, ci = mean_ci(xs)
            lo, hi = ci_bounds(xs, mean, ci)
            rows.append(
                {
                    **point,
                    "flow": g["flow"],
                    "metric": m,
                    "n": n,
                    "mean": mean,
                    "sd": sd,
                    "ci95": ci,
                    "ci_low": lo,
                    "ci_high": hi,
                }
            )
    return rows


def _cc_axis(plan: SweepPlan) -> Optional[tuple[GridAxis, int]]:
    """The grid's first ``flows.N.cc`` axis and its N, if any."""
    for a in plan.axes:
        m = _CC.match(a.path)
        if m:
            return a, int(m.group(1))
    return None


def _entry_flows(doc: dict[str, Any], entry: int) -> tuple[int, int]:
    """The summary positions [start, end) of scenario flow entry ``entry``: a TCP entry stands for
    ``count`` flows, each way when its ``direction`` is "both" (the engine's ``flow_instances``,
    in entry order); any other entry for one. (Counting "both" as one plotted a neighbour's flow,
    issue 39 item 4.)"""
    start = 0
    for i, c in enumerate(flow_entry_sizes(doc)):
        if i == entry:
            return start, start + c
        start += c
    return start, start


def scatter_points(plan: SweepPlan, runs: pl.DataFrame, metrics: tuple[str, ...]) -> list[dict[str, Any]]:
    """The Pantheon scatter's points: one per grid point (a scheme, in the panel of the other axes'
    labels): x = the p95 RTT of the flows of the varied entry (``mean_rtt_s`` when this build has
    no ``rtt_p95_s``), y = their goodput; per seed the mean over the entry's flows (one flow unless
    it has a ``count``), then mean and 95% interval over seeds, exactly as aggregated.csv does."""
    found = _cc_axis(plan)
    if found is None:
        return []
    axis, entry = found
    delay = "rtt_p95_s" if "rtt_p95_s" in metrics else "mean_rtt_s"
    others = [a for a in plan.axes if a is not axis]
    out: list[dict[str, Any]] = []
    for i, point in enumerate(plan.points):
        lo, hi = _entry_flows(plan.docs[i], entry)
        block = runs
        for a in plan.axes:
            block = block.filter(pl.col(a.path) == point[a.path])
        xs_seed, ys_seed = [], []
        for seed in plan.seeds:
            rows = block.filter(pl.col("seed") == seed).slice(lo, hi - lo)
            x = [v for v in rows[delay].to_list() if v is not None]
            y = [v for v in rows["goodput_bps"].to_list() if v is not None]
            xs_seed.append(sum(x) / len(x) if x else math.nan)
            ys_seed.append(sum(y) / len(y) if y else math.nan)
        nx, mx, _, cx = mean_ci(xs_seed)
        ny, my, _, cy = mean_ci(ys_seed)
        xlo, xhi = ci_bounds(xs_seed, mx, cx)
        ylo, yhi = ci_bounds(ys_seed, my, cy)
        out.append(
            {
                "scheme": point[axis.path],
                "panel": ", ".join(f"{a.path}={point[a.path]}" for a in others),
                "delay_metric": delay,
                "n": min(nx, ny),
                "delay_mean_s": mx,
                "delay_ci_low_s": xlo,
                "delay_ci_high_s": xhi,
                "goodput_mean_bps": my,
                "goodput_ci_low_bps": ylo,
                "goodput_ci_high_bps": yhi,
                "delay_per_seed_s": " ".join(repr(v) for v in xs_seed),
                "goodput_per_seed_bps": " ".join(repr(v) for v in ys_seed),
            }
        )
    return out
