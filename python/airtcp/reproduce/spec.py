"""Sweep specs (``experiments/<paper>/<name>.sweep.toml``) and claims files as typed data.

Everything an experiment does is written in these files: the base scenario, the parameter grid
(``[[axes]]``, each point a set of ``--set``-style dotted-path assignments), the seeds, the quick
mode, the metrics extracted from each run, the figure layout and, in ``claims.toml``, the paper's
numbers. This module only reads and checks them; a bad file raises ``SpecError`` with one line that
names the file and the field (and the allowed values).

The format is documented in ``docs/reproduce.md``.
"""

from __future__ import annotations

import builtins
import fnmatch
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from ..scenario import ScenarioFileError, loads, parse_duration_s, read_text
from ..traces import TRACES_ENV, traces_dir  # the traces folder: $AIRTCP_TRACES or the per-user default

__all__ = [
    "SpecError",
    "Point",
    "Axis",
    "Need",
    "Metric",
    "Figure",
    "Check",
    "Experiment",
    "Claim",
    "load_experiment",
    "load_claims",
    "discover",
    "all_claims",
    "paper_files",
    "default_root",
    "packaged_root",
    "is_packaged",
    "traces_dir",
    "TRACES_ENV",
]

METRIC_SOURCES = ("run", "flows", "links", "hosts", "flow_series", "link_series", "trace_capacity")
AGGS = ("sum", "mean", "min", "max", "jain", "ratio_of_sums", "count")
SERIES_STATS = ("mean", "mean_abs", "std", "max", "median")
FIGURE_KINDS = ("line", "bar", "timeseries", "scatter", "none")
CLAIM_KINDS = ("value", "ratio", "gain", "reduction", "spread", "min", "max", "lowest", "highest")
CHECKS = ("within", "at_least", "at_most")


class SpecError(ValueError):
    """A sweep spec or claims file that cannot be used (one-line message naming file and field)."""


# --------------------------------------------------------------------------------------------
# small typed readers: each names the field it rejects


class _Table:
    """A TOML table being read, remembering its file and path for error messages, and refusing
    keys nobody read (a typo is an error, as in scenario files)."""

    def __init__(self, data: Any, where: str, source: str):
        if not isinstance(data, dict):
            raise SpecError(f"{source}: {where}: must be a table, got {_kind(data)}")
        self.data = data
        self.where = where
        self.source = source
        self.read: set[str] = set()

    def path(self, key: str) -> str:
        return f"{self.where}.{key}" if self.where else key

    def fail(self, key: str, message: str) -> SpecError:
        return SpecError(f"{self.source}: {self.path(key)}: {message}")

    def has(self, key: str) -> bool:
        return key in self.data

    def get(self, key: str, default: Any = None) -> Any:
        self.read.add(key)
        return self.data.get(key, default)

    def str(
        self, key: builtins.str, default: Optional[builtins.str] = None, choices: tuple[builtins.str, ...] = ()
    ) -> builtins.str:
        v = self.get(key, default)
        if v is None:
            raise self.fail(key, "is required (a string)")
        if not isinstance(v, str):
            raise self.fail(key, f"must be a string, got {_kind(v)}")
        if choices and v not in choices:
            raise self.fail(key, f"'{v}' is not one of: {', '.join(choices)}")
        return v

    def opt_str(self, key: builtins.str) -> Optional[builtins.str]:
        return self.str(key) if self.data.get(key) is not None else self.get(key)

    def int(
        self, key: builtins.str, default: Optional[builtins.int] = None, lo: builtins.int = 0, hi: builtins.int = 10**9
    ) -> builtins.int:
        v = self.get(key, default)
        if v is None:
            raise self.fail(key, f"is required (an integer from {lo} to {hi})")
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise self.fail(key, f"must be an integer from {lo} to {hi}, got {v!r}")
        return v

    def num(self, key: builtins.str, default: Optional[float] = None) -> float:
        v = self.get(key, default)
        if v is None:
            raise self.fail(key, "is required (a number)")
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise self.fail(key, f"must be a finite number, got {v!r}")
        return float(v)

    def opt_num(self, key: builtins.str) -> Optional[float]:
        return self.num(key) if self.data.get(key) is not None else self.get(key)

    def bool(self, key: builtins.str, default: builtins.bool = False) -> builtins.bool:
        v = self.get(key, default)
        if not isinstance(v, bool):
            raise self.fail(key, f"must be true or false, got {v!r}")
        return v

    def duration(self, key: builtins.str, default: Optional[builtins.str] = None) -> Optional[builtins.str]:
        v = self.get(key, default)
        if v is None:
            return None
        if not isinstance(v, str):
            raise self.fail(key, f'must be a duration string such as "30s", got {_kind(v)}')
        try:
            parse_duration_s(v)
        except ValueError as e:
            raise self.fail(key, str(e)) from None
        return v

    def list(self, key: builtins.str, default: Any = None) -> builtins.list[Any]:
        v = self.get(key, default)
        if v is None:
            return []
        if not isinstance(v, list):
            raise self.fail(key, f"must be an array, got {_kind(v)}")
        return v

    def str_list(self, key: builtins.str) -> builtins.list[builtins.str]:
        out = self.list(key)
        for i, x in enumerate(out):
            if not isinstance(x, str):
                raise self.fail(f"{key}[{i}]", f"must be a string, got {_kind(x)}")
        return out

    def table(self, key: builtins.str, required: builtins.bool = False) -> Optional["_Table"]:
        v = self.get(key)
        if v is None:
            if required:
                raise self.fail(key, "is required (a table)")
            return None
        return _Table(v, self.path(key), self.source)

    def tables(self, key: builtins.str) -> builtins.list[_Table]:
        return [_Table(x, f"{self.path(key)}[{i}]", self.source) for i, x in enumerate(self.list(key))]

    def done(self) -> None:
        """Refuses keys nobody read, naming the first and listing the allowed ones."""
        extra = sorted(set(self.data) - self.read)
        if extra:
            raise self.fail(extra[0], f"unknown key (allowed here: {', '.join(sorted(self.read))})")


def _kind(v: Any) -> str:
    return {
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        str: "a string",
        list: "an array",
        dict: "a table",
    }.get(type(v), type(v).__name__)


def _label(v: Any) -> str:
    """The label of a grid value: ``0.01`` → ``"0.01"``, ``1e-05`` stays compact."""
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


# --------------------------------------------------------------------------------------------
# the experiment


@dataclass(frozen=True)
class Point:
    """One point of an axis: its label (used in tables, legends and claims), its numeric x (for
    plots; None for categorical points), the scenario assignments it makes, and the parts it
    needs beyond those visible in the assignments."""

    label: str
    x: Optional[float]
    sets: tuple[tuple[str, Any], ...]
    needs: tuple[str, ...] = ()
    optional: bool = False


@dataclass(frozen=True)
class Axis:
    """A grid dimension. ``quick`` lists the labels kept in quick mode (all when empty)."""

    name: str
    label: str
    points: tuple[Point, ...]
    quick: tuple[str, ...] = ()
    scale: str = "linear"

    def labels(self) -> list[str]:
        return [p.label for p in self.points]


@dataclass(frozen=True)
class Need:
    """A part of airtcp an experiment needs that no scheme name reveals (a channel model, a link
    feature). ``probe`` are assignments applied to the base scenario: the part is present when the
    result validates."""

    part: str
    what: str
    probe: tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class Metric:
    """How one number is extracted from one run (see docs/reproduce.md, "Metrics")."""

    name: str
    label: str
    source: str
    field: str
    select: str = "*"
    per: Optional[str] = None
    agg: str = "sum"
    scale: float = 1.0
    per_second: bool = False
    stat: str = "mean"
    window: Optional[tuple[float, float]] = None
    reference: tuple[tuple[float, float], ...] = ()
    minus: Optional[str] = None
    settle_s: float = 0.0
    unit: str = ""
    per_capacity: Optional[str] = None

    @property
    def is_series(self) -> bool:
        return self.source in ("flow_series", "link_series")


@dataclass(frozen=True)
class Figure:
    """The figure layout: ``line``/``bar`` plot a metric's mean (with 95% CI bars) against axis
    ``x``, one line/bar group per point of axis ``series``, one subplot per point of ``panels`` and
    per metric in ``y`` (all metrics in one plot with ``overlay``); ``timeseries`` plots a series column of the first seed's runs against
    time; ``scatter`` (Pantheon's throughput/delay plot) plots metric ``y`` against metric ``x``,
    one point per grid point with its spread over seeds (mean ± one standard deviation both ways,
    and each seed as a dot), the x axis inverted with ``x_invert``, and the mean of metric
    ``ceiling`` as a dashed line."""

    kind: str
    x: Optional[str] = None
    y: tuple[str, ...] = ()
    series: Optional[str] = None
    panels: Optional[str] = None
    x_scale: str = "linear"
    y_scale: str = "linear"
    x_label: str = ""
    y_label: str = ""
    title: str = ""
    overlay: bool = False
    # scatter only
    x_invert: bool = False
    ceiling: Optional[str] = None
    # timeseries only
    source: str = "flow_series"
    column: str = ""
    select: str = "*"
    minus: Optional[str] = None
    reference: tuple[tuple[float, float], ...] = ()
    scale: float = 1.0


@dataclass(frozen=True)
class Check:
    """A bound every single run must meet, from independent truth rather than a paper (e.g. a
    conservation law: no goodput above the capacity the link offered): ``metric`` of every run
    of every grid point is at most ``at_most`` and at least ``at_least`` (either may be None)."""

    id: str
    text: str
    metric: str
    at_most: Optional[float]
    at_least: Optional[float]


@dataclass(frozen=True)
class Experiment:
    """One experiment: a base scenario, a grid of axes, seeds, metrics and a figure."""

    id: str
    paper: str
    title: str
    source: str
    design: str
    scenario_path: Path
    spec_path: Path
    notes: str
    seeds: int
    quick_seeds: int
    quick_duration: Optional[str]
    quick_warmup: Optional[str]
    axes: tuple[Axis, ...]
    needs: tuple[Need, ...]
    metrics: tuple[Metric, ...]
    figure: Figure
    external_traces: bool = False
    checks: tuple[Check, ...] = ()

    def axis(self, name: str) -> Axis:
        for a in self.axes:
            if a.name == name:
                return a
        raise KeyError(name)

    def metric(self, name: str) -> Metric:
        for m in self.metrics:
            if m.name == name:
                return m
        raise KeyError(name)


def _point_sets(t: _Table, key: str) -> tuple[tuple[str, Any], ...]:
    sets = t.table(key)
    if sets is None:
        return ()
    sets.read |= set(sets.data)
    for k in sets.data:
        if not k or any(not p for p in k.split(".")):
            raise sets.fail(k, 'a scenario path such as "flows.0.cc" (dotted, no empty parts)')
    return tuple(sets.data.items())


def _schedule(t: _Table, key: str) -> tuple[tuple[float, float], ...]:
    """A piecewise-constant reference: ``[{ at = "0s", value = 1.0e6 }, ...]``, times increasing."""
    out: list[tuple[float, float]] = []
    for step in t.tables(key):
        at = parse_duration_s(step.duration("at", None) or _missing(step, "at"))
        out.append((at, step.num("value")))
        step.done()
        if len(out) > 1 and out[-1][0] <= out[-2][0]:
            raise step.fail("at", "times must increase")
    return tuple(out)


def _missing(t: _Table, key: str) -> str:
    raise t.fail(key, "is required")


def _window(t: _Table, key: str) -> Optional[tuple[float, float]]:
    w = t.get(key)
    if w is None:
        return None
    if not (isinstance(w, list) and len(w) == 2 and all(isinstance(x, str) for x in w)):
        raise t.fail(key, 'must be two duration strings [from, to], e.g. ["10s", "30s"]')
    try:
        a, b = parse_duration_s(w[0]), parse_duration_s(w[1])
    except ValueError as e:
        raise t.fail(key, str(e)) from None
    if not a < b:
        raise t.fail(key, f"from ({w[0]}) must be before to ({w[1]})")
    return (a, b)


def _axis(t: _Table, names: set[str]) -> Axis:
    name = t.str("name")
    # Column names of runs.parquet and aggregated.csv: an axis of the same name would be overwritten.
    reserved = ("seed", "key", "metric", "n", "mean", "sd", "ci95")
    if name in names or name in reserved:
        raise t.fail("name", f"'{name}' is used twice or reserved ({', '.join(reserved)})")
    label = t.str("label", name)
    scale = t.str("scale", "linear", ("linear", "log"))
    points: list[Point] = []
    if t.has("values") == t.has("points"):
        raise t.fail("values", "give exactly one of values (with set) and points")
    if t.has("values"):
        path = t.str("set")
        for i, v in enumerate(t.list("values")):
            if isinstance(v, (dict, list)):
                raise t.fail(f"values[{i}]", "must be a number, string or boolean (use points for tables)")
            x = float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None
            points.append(Point(label=_label(v), x=x, sets=((path, v),)))
    else:
        for p in t.tables("points"):
            x = p.opt_num("x")
            points.append(
                Point(
                    label=p.str("label"),
                    x=x,
                    sets=_point_sets(p, "set"),
                    needs=tuple(p.str_list("needs")),
                    optional=p.bool("optional"),
                )
            )
            p.done()
    if not points:
        raise t.fail("values" if t.has("values") else "points", "must not be empty")
    labels = [p.label for p in points]
    if len(set(labels)) != len(labels):
        raise t.fail("points", f"labels must be unique, got {labels}")
    quick_raw = t.list("quick")
    quick = tuple(_label(v) for v in quick_raw)
    for q in quick:
        if q not in labels:
            raise t.fail("quick", f"'{q}' is not a point of this axis (points: {', '.join(labels)})")
    t.done()
    return Axis(name=name, label=label, points=tuple(points), quick=quick, scale=scale)


def _metric(t: _Table) -> Metric:
    source = t.str("from", "flows", METRIC_SOURCES)
    series = source in ("flow_series", "link_series")
    m = Metric(
        name=t.str("name"),
        label=t.str("label", t.data.get("name", "")),
        source=source,
        field=t.str("field", "capacity_bps" if source == "trace_capacity" else None),
        select=t.str("select", "*"),
        per=t.opt_str("per"),
        agg=t.str("agg", "sum", AGGS),
        scale=t.num("scale", 1.0),
        per_second=t.bool("per_second"),
        stat=t.str("stat", "mean", SERIES_STATS) if series else "mean",
        window=_window(t, "window") if series else None,
        reference=_schedule(t, "reference") if series else (),
        minus=t.opt_str("minus") if series else None,
        settle_s=parse_duration_s(t.duration("settle", "0s") or "0s") if series else 0.0,
        unit=t.str("unit", ""),
        per_capacity=t.opt_str("per_capacity") if not series else None,
    )
    if m.source == "trace_capacity" and (m.per or m.per_capacity):
        raise t.fail("per", 'give no per or per_capacity with from = "trace_capacity"')
    if m.agg == "ratio_of_sums" and not m.per:
        raise t.fail("per", 'is required with agg = "ratio_of_sums" (the denominator field)')
    if m.reference and m.minus:
        raise t.fail("minus", "give at most one of reference and minus")
    t.done()
    return m


def _figure(t: Optional[_Table], axes: tuple[Axis, ...], metrics: tuple[Metric, ...]) -> Figure:
    if t is None:
        return Figure(kind="none")
    kind = t.str("kind", None, FIGURE_KINDS)
    axis_names = [a.name for a in axes]
    metric_names = [m.name for m in metrics]

    def metric_ref(key: str, required: bool) -> Optional[str]:
        v = t.opt_str(key) if not required else t.str(key)
        if v is not None and v not in metric_names:
            raise t.fail(key, f"'{v}' is not a metric (metrics: {', '.join(metric_names)})")
        return v

    def axis_ref(key: str, required: bool) -> Optional[str]:
        v = t.opt_str(key) if not required else t.str(key)
        if v is not None and v not in axis_names:
            raise t.fail(key, f"'{v}' is not an axis (axes: {', '.join(axis_names)})")
        return v

    y = t.get("y", [])
    y = [y] if isinstance(y, str) else y
    if not isinstance(y, list) or not all(isinstance(v, str) for v in y):
        raise t.fail("y", "must be a metric name or an array of them")
    for v in y:
        if v not in metric_names:
            raise t.fail("y", f"'{v}' is not a metric (metrics: {', '.join(metric_names)})")
    scatter = kind == "scatter"
    f = Figure(
        kind=kind,
        x=metric_ref("x", True) if scatter else axis_ref("x", kind in ("line", "bar")),
        y=tuple(y),
        series=axis_ref("series", False),
        panels=axis_ref("panels", False),
        x_scale=t.str("x_scale", "linear", ("linear", "log")),
        y_scale=t.str("y_scale", "linear", ("linear", "log")),
        x_label=t.str("x_label", ""),
        y_label=t.str("y_label", ""),
        title=t.str("title", ""),
        overlay=t.bool("overlay"),
        x_invert=t.bool("x_invert") if scatter else False,
        ceiling=metric_ref("ceiling", False) if scatter else None,
        source=t.str("source", "flow_series", ("flow_series", "link_series")),
        column=t.str("column", ""),
        select=t.str("select", "*"),
        minus=t.opt_str("minus"),
        reference=_schedule(t, "reference"),
        scale=t.num("scale", 1.0),
    )
    if kind in ("line", "bar") and not f.y:
        raise t.fail("y", "is required for a line or bar figure (metric names)")
    if scatter and len(f.y) != 1:
        raise t.fail("y", "a scatter figure needs exactly one metric (the vertical axis)")
    if kind == "timeseries" and not f.column:
        raise t.fail("column", "is required for a timeseries figure (a series column, e.g. bwe_bps)")
    t.done()
    return f


#: What an experiment id may be: a name, never a path (no '/', '\\', '..' or leading '.').
_ID_MAX = 100
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,%d}" % (_ID_MAX - 1))


def load_experiment(spec_path: Path) -> Experiment:
    """Reads and checks one ``*.sweep.toml``; raises SpecError naming the file and field."""
    source = str(spec_path)
    try:
        doc = loads(read_text(spec_path), source=source)
    except ScenarioFileError as e:
        raise SpecError(str(e)) from None
    t = _Table(doc, "", source)
    exp_id = t.str("id")
    if not _ID.fullmatch(exp_id):
        # the id names the results folder <out>/<id>/: a path ("/tmp/x", "../x", "a/b") would put
        # results outside --out (issue 39 item 14)
        raise t.fail(
            "id",
            f"{exp_id[:60]!r}{'...' if len(exp_id) > 60 else ''} is not a name: use letters, digits, '.', '_', '+' and '-' "
            f"(starting with a letter or digit), at most {_ID_MAX} characters",
        )
    scenario_path = (spec_path.parent / t.str("scenario")).resolve()
    if not scenario_path.is_file():
        raise t.fail("scenario", f"{scenario_path}: no such file")
    runs = t.table("runs", required=True)
    assert runs is not None
    seeds = runs.int("seeds", None, 1, 1000)
    quick_seeds = runs.int("quick_seeds", min(seeds, 3), 1, 1000)
    quick_duration = runs.duration("quick_duration")
    quick_warmup = runs.duration("quick_warmup")
    runs.done()
    axes: list[Axis] = []
    for ta in t.tables("axes"):
        axes.append(_axis(ta, {x.name for x in axes}))
    needs: list[Need] = []
    for n in t.tables("needs"):
        probe = _point_sets(n, "probe")
        needs.append(Need(part=n.str("part"), what=n.str("what", ""), probe=probe))
        n.done()
    known_parts = {n.part for n in needs}
    for a in axes:
        for p in a.points:
            for part in p.needs:
                if part not in known_parts:
                    raise SpecError(
                        f"{source}: axes ({a.name}) point '{p.label}': needs '{part}' is not "
                        f"declared in [[needs]] (declared: {', '.join(sorted(known_parts)) or 'none'})"
                    )
    metrics = tuple(_metric(m) for m in t.tables("metrics"))
    if not metrics:
        raise t.fail("metrics", "at least one [[metrics]] table is required")
    names = [m.name for m in metrics]
    if len(set(names)) != len(names):
        raise t.fail("metrics", f"metric names must be unique, got {names}")
    figure = _figure(t.table("figure"), tuple(axes), metrics)
    checks: list[Check] = []
    for c in t.tables("checks"):
        metric = c.str("metric")
        if metric not in names:
            raise c.fail("metric", f"'{metric}' is not a metric (metrics: {', '.join(names)})")
        check = Check(
            id=c.str("id"),
            text=c.str("text"),
            metric=metric,
            at_most=c.opt_num("at_most"),
            at_least=c.opt_num("at_least"),
        )
        if check.at_most is None and check.at_least is None:
            raise c.fail("at_most", "give at_most, at_least or both (the bound every run must meet)")
        c.done()
        checks.append(check)
    if len({c.id for c in checks}) != len(checks):
        raise t.fail("checks", f"check ids must be unique, got {[c.id for c in checks]}")
    exp = Experiment(
        id=exp_id,
        paper=t.str("paper"),
        title=t.str("title"),
        source=t.str("source"),
        design=t.str("design"),
        scenario_path=scenario_path,
        spec_path=spec_path.resolve(),
        notes=t.str("notes", "").strip(),
        seeds=seeds,
        quick_seeds=quick_seeds,
        quick_duration=quick_duration,
        quick_warmup=quick_warmup,
        axes=tuple(axes),
        needs=tuple(needs),
        metrics=metrics,
        figure=figure,
        external_traces=t.bool("external_traces"),
        checks=tuple(checks),
    )
    t.done()
    return exp


#: Papers in the order of the catalogue, ``experiments/catalogue.toml`` (others follow, alphabetically;
#: tests/python/test_reproduce.py checks that the two agree).
PAPER_ORDER = ("jersey", "njplus", "caiad", "prairie", "hsdpa", "cellular")


def _paper_rank(paper: str) -> int:
    return PAPER_ORDER.index(paper) if paper in PAPER_ORDER else len(PAPER_ORDER)


def _order(e: "Experiment") -> tuple:
    natural = [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", e.id)]
    return (_paper_rank(e.paper), e.paper, natural)


def paper_files(root: Path, name: str) -> list[Path]:
    """``<root>/<paper>/<name>`` of every paper that has one, papers in catalogue order."""
    return sorted(root.glob(f"*/{name}"), key=lambda p: (_paper_rank(p.parent.name), p.parent.name))


def discover(root: Path) -> list[Experiment]:
    """All experiments under ``root`` (``<paper>/<name>.sweep.toml``), in catalogue order;
    duplicate ids are an error."""
    exps = sorted((load_experiment(p) for p in sorted(root.glob("*/*.sweep.toml"))), key=_order)
    seen: dict[str, Path] = {}
    for e in exps:
        if e.id in seen:
            raise SpecError(f"{e.spec_path}: id: '{e.id}' is also the id of {seen[e.id]}")
        seen[e.id] = e.spec_path
    return exps


# --------------------------------------------------------------------------------------------
# claims


@dataclass(frozen=True)
class Claim:
    """One number (or ordering) a paper states, and what "reproduced" means for it.

    ``at`` (and ``over`` for ratio, gain and reduction) name a grid point by axis label, plus
    optionally ``metric``; one axis of ``at`` may be ``"*"`` for spread / min / max / lowest /
    highest, which reduce over that axis (``lowest``/``highest``: is ``at.<axis> = target`` the
    lowest/highest mean?).
    """

    id: str
    paper: str
    experiment: str
    figure: str
    condition: str
    quote: str
    kind: str
    metric: str
    at: dict[str, str]
    over: dict[str, str]
    value: float
    shown: str
    units: str
    check: str
    abs_tol: Optional[float]
    rel_tol: Optional[float]
    target: Optional[str]
    note: str
    source: str


def _coords(t: _Table, key: str) -> dict[str, str]:
    c = t.table(key)
    if c is None:
        return {}
    c.read |= set(c.data)
    out = {}
    for k, v in c.data.items():
        if isinstance(v, (dict, list)):
            raise c.fail(k, "must be an axis label (string or number)")
        out[k] = _label(v)
    return out


def load_claims(path: Path) -> list[Claim]:
    """Reads ``experiments/<paper>/claims.toml``; raises SpecError naming file and field."""
    source = str(path)
    try:
        doc = loads(read_text(path), source=source)
    except ScenarioFileError as e:
        raise SpecError(str(e)) from None
    t = _Table(doc, "", source)
    paper = t.str("paper")
    t.str("seed")
    claims = []
    for c in t.tables("claims"):
        kind = c.str("kind", None, CLAIM_KINDS)
        check = c.str("check", "within", CHECKS)
        claim = Claim(
            id=c.str("id"),
            paper=paper,
            experiment=c.str("experiment"),
            figure=c.str("figure"),
            condition=c.str("condition"),
            quote=c.str("quote"),
            kind=kind,
            metric=c.str("metric"),
            at=_coords(c, "at"),
            over=_coords(c, "over"),
            value=c.num("value"),
            shown=c.str("shown", ""),
            units=c.str("units", ""),
            check=check,
            abs_tol=c.opt_num("abs_tol"),
            rel_tol=c.opt_num("rel_tol"),
            target=c.opt_str("target"),
            note=c.str("note", ""),
            source=source,
        )
        if (
            check == "within"
            and kind not in ("lowest", "highest")
            and (claim.abs_tol is None) == (claim.rel_tol is None)
        ):
            raise c.fail("abs_tol", 'check = "within" needs exactly one of abs_tol and rel_tol')
        if kind in ("ratio", "gain", "reduction") and not claim.over:
            raise c.fail("over", f'kind = "{kind}" needs over (the grid point it is compared with)')
        if kind in ("spread", "min", "max", "lowest", "highest") and list(claim.at.values()).count("*") != 1:
            raise c.fail("at", f'kind = "{kind}" needs exactly one axis given as "*"')
        if kind in ("lowest", "highest") and claim.target is None:
            raise c.fail("target", f'kind = "{kind}" needs target (the label expected to be {kind})')
        c.done()
        claims.append(claim)
    t.done()
    ids = [c.id for c in claims]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        raise SpecError(f"{source}: claims: duplicate id(s) {', '.join(sorted(dup))}")
    return claims


def matches(pattern: str, name: str) -> bool:
    """Flow/link selection: a shell-style pattern (``ftp``, ``reno.*``, ``*``)."""
    return fnmatch.fnmatchcase(name, pattern)


def all_claims(root: Path) -> list[Claim]:
    """Every paper's claims (``<root>/*/claims.toml``), papers in catalogue order."""
    out: list[Claim] = []
    for p in paper_files(root, "claims.toml"):
        out.extend(load_claims(p))
    return out


# --------------------------------------------------------------------------------------------
# where the experiments are


def default_root() -> Path:
    """``./experiments`` when it exists, else the source checkout's ``experiments/`` folder, else
    the copy installed with the package (``airtcp/data/experiments``, e.g. from a wheel)."""
    here = Path("experiments")
    if here.is_dir():
        return here.absolute()
    checkout = Path(__file__).resolve().parents[3] / "experiments"
    if checkout.is_dir():
        return checkout
    return packaged_root()


def packaged_root() -> Path:
    """The experiments installed with the package (in a checkout: a link to ``experiments/``)."""
    return Path(__file__).resolve().parent.parent / "data" / "experiments"


def is_packaged(root: Path) -> bool:
    """Whether ``root`` (as given, before resolving links) is the installed package's copy."""
    return Path(root).absolute() == packaged_root()
