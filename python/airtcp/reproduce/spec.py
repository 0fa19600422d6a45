"""Sweep specs (``experiments/<paper>/<name>.sweep.toml``) and claims files as typed data.

Everything an experiment does is written in these files: the base scenario, the parameter grid
(``[[axes]]``, each point a set of ``--set``-style dotted-path assignments), the seeds, the quick
mode, the metrics extracted from each run, the figure layout and, in ``claims.toml``, the paper's
numbers. This module only reads and checks them; a bad file raises ``SpecError`` with one line that
names the file and the field (and the allowed values).

The format is documented in ``docs/reproduce.md``.
"""

from __future__ import annotations

import fnmatch
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Optional, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, PlainValidator, ValidationError
from pydantic_core import PydanticCustomError

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
# the file's shape as pydantic models: each scalar type checks itself and says what it wants in
# one line; `_spec_error` turns pydantic's first error into SpecError "<file>: <field path>: <why>"


def _kind(v: Any) -> str:
    return {
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        str: "a string",
        list: "an array",
        dict: "a table",
    }.get(type(v), type(v).__name__)


def _bad(message: str) -> PydanticCustomError:
    return PydanticCustomError("spec", "{m}", {"m": message})


def _typed(what: str, check: Callable[[Any], Any]) -> Any:
    """A field type read by ``check`` (which raises ``_bad``); ``what`` completes "is required
    (...)" when the field is missing."""
    v = PlainValidator(check)
    _WHAT[id(v)] = what
    return v


_WHAT: dict[int, str] = {}


def _str(v: Any) -> str:
    if not isinstance(v, str):
        raise _bad(f"must be a string, got {_kind(v)}")
    return v


def _choice(*choices: str) -> Any:
    def check(v: Any) -> str:
        _str(v)
        if v not in choices:
            raise _bad(f"'{v}' is not one of: {', '.join(choices)}")
        return v

    return Annotated[str, _typed("a string", check)]


def _int_range(lo: int, hi: int) -> Any:
    def check(v: Any) -> int:
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise _bad(f"must be an integer from {lo} to {hi}, got {v!r}")
        return v

    return Annotated[int, _typed(f"an integer from {lo} to {hi}", check)]


def _num(v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise _bad(f"must be a finite number, got {v!r}")
    return float(v)


def _bool(v: Any) -> bool:
    if not isinstance(v, bool):
        raise _bad(f"must be true or false, got {v!r}")
    return v


def _duration(v: Any) -> str:
    if not isinstance(v, str):
        raise _bad(f'must be a duration string such as "30s", got {_kind(v)}')
    try:
        parse_duration_s(v)
    except ValueError as e:
        raise _bad(str(e)) from None
    return v


def _str_list(v: Any) -> tuple[str, ...]:
    if not isinstance(v, list):
        raise _bad(f"must be an array, got {_kind(v)}")
    for i, x in enumerate(v):
        if not isinstance(x, str):
            raise _bad(f"[{i}] must be a string, got {_kind(x)}")
    return tuple(v)


def _array(v: Any) -> list[Any]:
    if not isinstance(v, list):
        raise _bad(f"must be an array, got {_kind(v)}")
    return v


def _table(v: Any) -> dict[str, Any]:
    if not isinstance(v, dict):
        raise _bad(f"must be a table, got {_kind(v)}")
    return v


Str = Annotated[str, _typed("a string", _str)]
Num = Annotated[float, _typed("a number", _num)]
Bool = Annotated[bool, _typed("true or false", _bool)]
Duration = Annotated[str, _typed('a duration string such as "30s"', _duration)]
StrList = Annotated[tuple[str, ...], _typed("an array of strings", _str_list)]
AnyList = Annotated[list[Any], _typed("an array", _array)]
AnyTable = Annotated[dict[str, Any], _typed("a table", _table)]


class _Model(BaseModel):
    """A table of a spec: unknown keys are errors (a typo is an error, as in scenario files)."""

    model_config = ConfigDict(extra="forbid")


class _RunsDoc(_Model):
    seeds: _int_range(1, 1000)  # type: ignore[valid-type]
    quick_seeds: Optional[_int_range(1, 1000)] = None  # type: ignore[valid-type]
    quick_duration: Optional[Duration] = None
    quick_warmup: Optional[Duration] = None


class _PointDoc(_Model):
    label: Str
    x: Optional[Num] = None
    set: Optional[AnyTable] = None
    needs: StrList = ()
    optional: Bool = False


class _AxisDoc(_Model):
    name: Str
    label: Optional[Str] = None
    scale: _choice("linear", "log") = "linear"  # type: ignore[valid-type]
    values: Optional[AnyList] = None
    set: Optional[Str] = None
    points: Optional[list[_PointDoc]] = None
    quick: AnyList = []


class _NeedDoc(_Model):
    part: Str
    what: Str = ""
    probe: Optional[AnyTable] = None


class _StepDoc(_Model):
    at: Duration
    value: Num


class _MetricDoc(_Model):
    name: Str
    label: Optional[Str] = None
    source: _choice(*METRIC_SOURCES) = Field("flows", alias="from")  # type: ignore[valid-type]
    field: Optional[Str] = None
    select: Str = "*"
    per: Optional[Str] = None
    agg: _choice(*AGGS) = "sum"  # type: ignore[valid-type]
    scale: Num = 1.0
    per_second: Bool = False
    unit: Str = ""
    per_capacity: Optional[Str] = None
    # series metrics only (from = "flow_series" or "link_series")
    stat: Optional[_choice(*SERIES_STATS)] = None  # type: ignore[valid-type]
    window: Optional[AnyList] = None
    reference: Optional[list[_StepDoc]] = None
    minus: Optional[Str] = None
    settle: Optional[Duration] = None


class _FigureDoc(_Model):
    kind: _choice(*FIGURE_KINDS)  # type: ignore[valid-type]
    x: Optional[Str] = None
    y: Any = []
    series: Optional[Str] = None
    panels: Optional[Str] = None
    x_scale: _choice("linear", "log") = "linear"  # type: ignore[valid-type]
    y_scale: _choice("linear", "log") = "linear"  # type: ignore[valid-type]
    x_label: Str = ""
    y_label: Str = ""
    title: Str = ""
    overlay: Bool = False
    source: _choice("flow_series", "link_series") = "flow_series"  # type: ignore[valid-type]
    column: Str = ""
    select: Str = "*"
    minus: Optional[Str] = None
    reference: list[_StepDoc] = []
    scale: Num = 1.0
    # scatter figures only
    x_invert: Optional[Bool] = None
    ceiling: Optional[Str] = None


class _CheckDoc(_Model):
    id: Str
    text: Str
    metric: Str
    at_most: Optional[Num] = None
    at_least: Optional[Num] = None


class _ExperimentDoc(_Model):
    id: Str
    paper: Str
    title: Str
    source: Str
    design: Str
    scenario: Str
    notes: Str = ""
    runs: _RunsDoc
    axes: list[_AxisDoc] = []
    needs: list[_NeedDoc] = []
    metrics: list[_MetricDoc] = []
    figure: Optional[_FigureDoc] = None
    checks: list[_CheckDoc] = []
    external_traces: Bool = False


class _ClaimDoc(_Model):
    id: Str
    experiment: Str
    figure: Str
    condition: Str
    quote: Str
    kind: _choice(*CLAIM_KINDS)  # type: ignore[valid-type]
    metric: Str
    at: Optional[AnyTable] = None
    over: Optional[AnyTable] = None
    value: Num
    shown: Str = ""
    units: Str = ""
    check: _choice(*CHECKS) = "within"  # type: ignore[valid-type]
    abs_tol: Optional[Num] = None
    rel_tol: Optional[Num] = None
    target: Optional[Str] = None
    note: Str = ""


class _ClaimsDoc(_Model):
    paper: Str
    seed: Str
    claims: list[_ClaimDoc] = []


M = TypeVar("M", bound=BaseModel)


def _read(model: type[M], doc: Any, source: str) -> M:
    """``doc`` (a parsed TOML file) as ``model``, or SpecError for its first problem."""
    try:
        return model.model_validate(doc)
    except ValidationError as e:
        raise _spec_error(e, model, source) from None


def _path(loc: Sequence[Union[int, str]]) -> str:
    """("axes", 0, "name") as "axes[0].name"."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _spec_error(e: ValidationError, model: type[BaseModel], source: str) -> SpecError:
    """SpecError "<file>: <field path>: <why>" for the first of pydantic's errors."""
    err = e.errors(include_url=False)[0]
    loc = err["loc"]
    where = _path(loc)
    kind = err["type"]
    if kind == "spec":
        why = str(err["ctx"]["m"])
        if why.startswith("[") and "] " in why:  # an array entry: "[2] must be a string"
            i, why = why[1:].split("] ", 1)
            where += f"[{i}]"
    elif kind == "missing":
        field = _field(model, loc)
        what = next((_WHAT[id(m)] for m in (field.metadata if field else ()) if id(m) in _WHAT), None)
        if what is None and field is not None:
            what = next((_WHAT[id(m)] for m in _metadata(field.annotation) if id(m) in _WHAT), "a table")
        why = f"is required ({what})" if what else "is required"
    elif kind == "extra_forbidden":
        parent = _owner(model, loc)
        allowed = sorted((f.alias or n) for n, f in parent.model_fields.items()) if parent else []
        why = f"unknown key (allowed here: {', '.join(allowed)})"
    elif kind in ("list_type", "tuple_type"):
        why = f"must be an array, got {_kind(err['input'])}"
    elif kind in ("model_type", "model_attributes_type", "dict_type"):
        why = f"must be a table, got {_kind(err['input'])}"
    else:
        why = " ".join(str(err["msg"]).split())
    return SpecError(f"{source}: {where}: {why}" if where else f"{source}: {why}")


def _metadata(annotation: Any) -> list[Any]:
    """The validators of an ``Annotated`` type, also inside ``Optional``."""
    out: list[Any] = []
    if get_origin(annotation) is Annotated:
        out.extend(get_args(annotation)[1:])
    for a in get_args(annotation) if get_origin(annotation) is not Annotated else ():
        out.extend(_metadata(a))
    return out


def _inner_model(annotation: Any) -> Optional[type[BaseModel]]:
    """The model class inside ``list[M]``, ``Optional[M]`` or ``M``."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for a in get_args(annotation):
        m = _inner_model(a)
        if m is not None:
            return m
    return None


def _owner(model: type[BaseModel], loc: Sequence[Union[int, str]]) -> Optional[type[BaseModel]]:
    """The model class of the table that holds the key at ``loc``."""
    node: Optional[type[BaseModel]] = model
    for part in loc[:-1]:
        if isinstance(part, int) or node is None:
            continue
        field = next((f for n, f in node.model_fields.items() if (f.alias or n) == part), None)
        node = _inner_model(field.annotation) if field else None
    return node


def _field(model: type[BaseModel], loc: Sequence[Union[int, str]]) -> Any:
    """The pydantic FieldInfo of the key at ``loc``."""
    owner = _owner(model, loc)
    if owner is None or not loc or isinstance(loc[-1], int):
        return None
    return next((f for n, f in owner.model_fields.items() if (f.alias or n) == loc[-1]), None)


class _Where:
    """Names a table's fields in errors of the checks that span fields (references, orderings),
    made after the shape is read: "<file>: <path>.<key>: <why>"."""

    def __init__(self, source: str, path: str):
        self.source = source
        self.path = path

    def at(self, key: Union[int, str]) -> "_Where":
        if isinstance(key, int):
            return _Where(self.source, f"{self.path}[{key}]")
        return _Where(self.source, f"{self.path}.{key}" if self.path else key)

    def fail(self, key: str, message: str) -> SpecError:
        where = self.at(key).path
        return SpecError(f"{self.source}: {where}: {message}")


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


def _label(v: Any) -> str:
    """The label of a grid value: ``0.01`` → ``"0.01"``, ``1e-05`` stays compact."""
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


def _point_sets(sets: Optional[dict[str, Any]], w: _Where) -> tuple[tuple[str, Any], ...]:
    if sets is None:
        return ()
    for k in sets:
        if not k or any(not p for p in k.split(".")):
            raise w.fail(k, 'a scenario path such as "flows.0.cc" (dotted, no empty parts)')
    return tuple(sets.items())


def _schedule(steps: Optional[list[_StepDoc]], w: _Where) -> tuple[tuple[float, float], ...]:
    """A piecewise-constant reference: ``[{ at = "0s", value = 1.0e6 }, ...]``, times increasing."""
    out: list[tuple[float, float]] = []
    for i, step in enumerate(steps or ()):
        out.append((parse_duration_s(step.at), step.value))
        if len(out) > 1 and out[-1][0] <= out[-2][0]:
            raise w.at(i).fail("at", "times must increase")
    return tuple(out)


def _window(w: Optional[list[Any]], where: _Where) -> Optional[tuple[float, float]]:
    if w is None:
        return None
    if not (len(w) == 2 and all(isinstance(x, str) for x in w)):
        raise where.fail("window", 'must be two duration strings [from, to], e.g. ["10s", "30s"]')
    try:
        a, b = parse_duration_s(w[0]), parse_duration_s(w[1])
    except ValueError as e:
        raise where.fail("window", str(e)) from None
    if not a < b:
        raise where.fail("window", f"from ({w[0]}) must be before to ({w[1]})")
    return (a, b)


def _axis(d: _AxisDoc, w: _Where, names: set[str]) -> Axis:
    # Column names of runs.parquet and aggregated.csv: an axis of the same name would be overwritten.
    reserved = ("seed", "key", "metric", "n", "mean", "sd", "ci95")
    if d.name in names or d.name in reserved:
        raise w.fail("name", f"'{d.name}' is used twice or reserved ({', '.join(reserved)})")
    points: list[Point] = []
    if (d.values is None) == (d.points is None):
        raise w.fail("values", "give exactly one of values (with set) and points")
    if d.values is not None:
        if d.set is None:
            raise w.fail("set", 'is required with values (a scenario path such as "flows.0.cc")')
        for i, v in enumerate(d.values):
            if isinstance(v, (dict, list)):
                raise w.fail(f"values[{i}]", "must be a number, string or boolean (use points for tables)")
            x = float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None
            points.append(Point(label=_label(v), x=x, sets=((d.set, v),)))
    else:
        if d.set is not None:
            raise w.fail("set", "goes with values; a point of points has its own set")
        for i, p in enumerate(d.points or ()):
            sets = _point_sets(p.set, w.at("points").at(i).at("set"))
            points.append(Point(label=p.label, x=p.x, sets=sets, needs=p.needs, optional=p.optional))
    if not points:
        raise w.fail("values" if d.values is not None else "points", "must not be empty")
    labels = [p.label for p in points]
    if len(set(labels)) != len(labels):
        raise w.fail("points", f"labels must be unique, got {labels}")
    quick = tuple(_label(v) for v in d.quick)
    for q in quick:
        if q not in labels:
            raise w.fail("quick", f"'{q}' is not a point of this axis (points: {', '.join(labels)})")
    return Axis(name=d.name, label=d.label or d.name, points=tuple(points), quick=quick, scale=d.scale)


#: The fields of a metric read only for series metrics (``from = "flow_series"`` or
#: ``"link_series"``), and only for the others.
_SERIES_ONLY = ("stat", "window", "reference", "minus", "settle")
_NOT_SERIES_ONLY = ("per_capacity",)


def _metric(d: _MetricDoc, w: _Where) -> Metric:
    series = d.source in ("flow_series", "link_series")
    for key in _SERIES_ONLY if not series else _NOT_SERIES_ONLY:
        if getattr(d, key) is not None:
            kinds = 'from = "flow_series" or "link_series"'
            raise w.fail(key, f"only with {kinds}" if not series else f"not with {kinds}")
    if d.field is None and d.source != "trace_capacity":
        raise w.fail("field", "is required (a string)")
    m = Metric(
        name=d.name,
        label=d.name if d.label is None else d.label,
        source=d.source,
        field="capacity_bps" if d.field is None else d.field,
        select=d.select,
        per=d.per,
        agg=d.agg,
        scale=d.scale,
        per_second=d.per_second,
        stat=d.stat or "mean",
        window=_window(d.window, w),
        reference=_schedule(d.reference, w.at("reference")),
        minus=d.minus,
        settle_s=parse_duration_s(d.settle or "0s"),
        unit=d.unit,
        per_capacity=d.per_capacity,
    )
    if m.source == "trace_capacity" and (m.per or m.per_capacity):
        raise w.fail("per", 'give no per or per_capacity with from = "trace_capacity"')
    if m.agg == "ratio_of_sums" and not m.per:
        raise w.fail("per", 'is required with agg = "ratio_of_sums" (the denominator field)')
    if m.reference and m.minus:
        raise w.fail("minus", "give at most one of reference and minus")
    return m


def _figure(d: Optional[_FigureDoc], w: _Where, axes: tuple[Axis, ...], metrics: tuple[Metric, ...]) -> Figure:
    if d is None:
        return Figure(kind="none")
    axis_names = [a.name for a in axes]
    metric_names = [m.name for m in metrics]
    scatter = d.kind == "scatter"

    def ref(key: str, v: Optional[str], required: bool, names: list[str], what: str, plural: str) -> Optional[str]:
        if v is None and required:
            raise w.fail(key, "is required (a string)")
        if v is not None and v not in names:
            raise w.fail(key, f"'{v}' is not {what} ({plural}: {', '.join(names)})")
        return v

    def metric_ref(key: str, v: Optional[str], required: bool) -> Optional[str]:
        return ref(key, v, required, metric_names, "a metric", "metrics")

    def axis_ref(key: str, v: Optional[str], required: bool) -> Optional[str]:
        return ref(key, v, required, axis_names, "an axis", "axes")

    if not scatter:
        for key in ("x_invert", "ceiling"):
            if getattr(d, key) is not None:
                raise w.fail(key, 'only with kind = "scatter"')
    y = [d.y] if isinstance(d.y, str) else d.y
    if not isinstance(y, list) or not all(isinstance(v, str) for v in y):
        raise w.fail("y", "must be a metric name or an array of them")
    for v in y:
        metric_ref("y", v, True)
    f = Figure(
        kind=d.kind,
        x=metric_ref("x", d.x, True) if scatter else axis_ref("x", d.x, d.kind in ("line", "bar")),
        y=tuple(y),
        series=axis_ref("series", d.series, False),
        panels=axis_ref("panels", d.panels, False),
        x_scale=d.x_scale,
        y_scale=d.y_scale,
        x_label=d.x_label,
        y_label=d.y_label,
        title=d.title,
        overlay=d.overlay,
        x_invert=bool(d.x_invert),
        ceiling=metric_ref("ceiling", d.ceiling, False),
        source=d.source,
        column=d.column,
        select=d.select,
        minus=d.minus,
        reference=_schedule(d.reference, w.at("reference")),
        scale=d.scale,
    )
    if d.kind in ("line", "bar") and not f.y:
        raise w.fail("y", "is required for a line or bar figure (metric names)")
    if scatter and len(f.y) != 1:
        raise w.fail("y", "a scatter figure needs exactly one metric (the vertical axis)")
    if d.kind == "timeseries" and not f.column:
        raise w.fail("column", "is required for a timeseries figure (a series column, e.g. bwe_bps)")
    return f


#: What an experiment id may be: a name, never a path (no '/', '\\', '..' or leading '.').
_ID_MAX = 100
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,%d}" % (_ID_MAX - 1))


def _read_toml(path: Path) -> Any:
    try:
        return loads(read_text(path), source=str(path))
    except ScenarioFileError as e:
        raise SpecError(str(e)) from None


def load_experiment(spec_path: Path) -> Experiment:
    """Reads and checks one ``*.sweep.toml`` (its shape by the pydantic models above, then the
    references between its fields); raises SpecError naming the file and field."""
    source = str(spec_path)
    d = _read(_ExperimentDoc, _read_toml(spec_path), source)
    top = _Where(source, "")
    if not _ID.fullmatch(d.id):
        # the id names the results folder <out>/<id>/: a path ("/tmp/x", "../x", "a/b") would put
        # results outside --out (issue 39 item 14)
        raise top.fail(
            "id",
            f"{d.id[:60]!r}{'...' if len(d.id) > 60 else ''} is not a name: use letters, digits, '.', '_', '+' and '-' "
            f"(starting with a letter or digit), at most {_ID_MAX} characters",
        )
    scenario_path = (spec_path.parent / d.scenario).resolve()
    if not scenario_path.is_file():
        raise top.fail("scenario", f"{scenario_path}: no such file")
    axes: list[Axis] = []
    for i, ad in enumerate(d.axes):
        axes.append(_axis(ad, top.at("axes").at(i), {x.name for x in axes}))
    needs = tuple(
        Need(part=n.part, what=n.what, probe=_point_sets(n.probe, top.at("needs").at(i).at("probe")))
        for i, n in enumerate(d.needs)
    )
    known_parts = {n.part for n in needs}
    for a in axes:
        for p in a.points:
            for part in p.needs:
                if part not in known_parts:
                    raise SpecError(
                        f"{source}: axes ({a.name}) point '{p.label}': needs '{part}' is not "
                        f"declared in [[needs]] (declared: {', '.join(sorted(known_parts)) or 'none'})"
                    )
    metrics = tuple(_metric(m, top.at("metrics").at(i)) for i, m in enumerate(d.metrics))
    if not metrics:
        raise top.fail("metrics", "at least one [[metrics]] table is required")
    names = [m.name for m in metrics]
    if len(set(names)) != len(names):
        raise top.fail("metrics", f"metric names must be unique, got {names}")
    figure = _figure(d.figure, top.at("figure"), tuple(axes), metrics)
    checks: list[Check] = []
    for i, c in enumerate(d.checks):
        w = top.at("checks").at(i)
        if c.metric not in names:
            raise w.fail("metric", f"'{c.metric}' is not a metric (metrics: {', '.join(names)})")
        if c.at_most is None and c.at_least is None:
            raise w.fail("at_most", "give at_most, at_least or both (the bound every run must meet)")
        checks.append(Check(id=c.id, text=c.text, metric=c.metric, at_most=c.at_most, at_least=c.at_least))
    if len({c.id for c in checks}) != len(checks):
        raise top.fail("checks", f"check ids must be unique, got {[c.id for c in checks]}")
    return Experiment(
        id=d.id,
        paper=d.paper,
        title=d.title,
        source=d.source,
        design=d.design,
        scenario_path=scenario_path,
        spec_path=spec_path.resolve(),
        notes=d.notes.strip(),
        seeds=d.runs.seeds,
        quick_seeds=min(d.runs.seeds, 3) if d.runs.quick_seeds is None else d.runs.quick_seeds,
        quick_duration=d.runs.quick_duration,
        quick_warmup=d.runs.quick_warmup,
        axes=tuple(axes),
        needs=needs,
        metrics=metrics,
        figure=figure,
        external_traces=d.external_traces,
        checks=tuple(checks),
    )


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


def _coords(c: Optional[dict[str, Any]], w: _Where) -> dict[str, str]:
    out: dict[str, str] = {}
    for k, v in (c or {}).items():
        if isinstance(v, (dict, list)):
            raise w.fail(k, "must be an axis label (string or number)")
        out[k] = _label(v)
    return out


def load_claims(path: Path) -> list[Claim]:
    """Reads ``experiments/<paper>/claims.toml`` (its shape by the pydantic models above, then the
    rules between a claim's fields); raises SpecError naming file and field."""
    source = str(path)
    d = _read(_ClaimsDoc, _read_toml(path), source)
    claims = []
    for i, c in enumerate(d.claims):
        w = _Where(source, f"claims[{i}]")
        claim = Claim(
            id=c.id,
            paper=d.paper,
            experiment=c.experiment,
            figure=c.figure,
            condition=c.condition,
            quote=c.quote,
            kind=c.kind,
            metric=c.metric,
            at=_coords(c.at, w.at("at")),
            over=_coords(c.over, w.at("over")),
            value=c.value,
            shown=c.shown,
            units=c.units,
            check=c.check,
            abs_tol=c.abs_tol,
            rel_tol=c.rel_tol,
            target=c.target,
            note=c.note,
            source=source,
        )
        kind = c.kind
        if (
            c.check == "within"
            and kind not in ("lowest", "highest")
            and (claim.abs_tol is None) == (claim.rel_tol is None)
        ):
            raise w.fail("abs_tol", 'check = "within" needs exactly one of abs_tol and rel_tol')
        if kind in ("ratio", "gain", "reduction") and not claim.over:
            raise w.fail("over", f'kind = "{kind}" needs over (the grid point it is compared with)')
        if kind in ("spread", "min", "max", "lowest", "highest") and list(claim.at.values()).count("*") != 1:
            raise w.fail("at", f'kind = "{kind}" needs exactly one axis given as "*"')
        if kind in ("lowest", "highest") and claim.target is None:
            raise w.fail("target", f'kind = "{kind}" needs target (the label expected to be {kind})')
        claims.append(claim)
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
