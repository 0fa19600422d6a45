"""Metrics: one number per run from its summary or its kept series, exactly as the spec says.

A metric selects rows (flows or links by name pattern, hosts by node name, or the run itself), reads a field of each
(a dotted path into the summary entry, e.g. ``loss_differentiation.channel_losses_as_link_error``;
for series, a per-sample value reduced over a time window), combines the rows with ``agg`` and
multiplies by ``scale`` (and divides by the simulated duration with ``per_second``). The
definitions are in docs/reproduce.md; nothing here knows about any particular experiment.
"""

from __future__ import annotations

import math
import statistics
from typing import Any, Optional

from ..api import jain_fairness
from .capacity import trace_capacity_bps
from .spec import Metric, SpecError, matches

__all__ = ["evaluate", "jain", "mean_ci", "ci_bounds", "describe", "MIN_CI_SEEDS"]


def _get(entry: dict[str, Any], path: str, metric: Metric) -> float:
    """The value at a dotted path of a summary entry; ``a + b`` sums several paths. A null on the
    way (e.g. ``loss_differentiation`` of a scheme that does not differentiate) gives NaN."""
    if "+" in path:
        return sum(_get(entry, p.strip(), metric) for p in path.split("+"))
    node: Any = entry
    for part in path.split("."):
        if node is None:
            return math.nan
        if not isinstance(node, dict) or part not in node:
            raise SpecError(
                f"metric {metric.name}: field '{path}' is not in the run summary "
                f"(available: {', '.join(sorted(entry))})"
            )
        node = node[part]
    if node is None:
        return math.nan
    if isinstance(node, bool) or not isinstance(node, (int, float)):
        raise SpecError(f"metric {metric.name}: field '{path}' is not a number ({node!r})")
    return float(node)


def jain(xs: list[float]) -> float:
    """Jain's index (Σx)²/(n·Σx²) of a metric's rows: the API's ``airtcp.jain_fairness`` (one
    implementation for both), NaN where a spec metric needs a value and there is none (no rows,
    or a NaN among them)."""
    if not xs or any(math.isnan(x) for x in xs):
        return math.nan
    return jain_fairness(xs)


def _combine(values: list[float], denoms: Optional[list[float]], agg: str) -> float:
    if agg == "count":
        return float(len(values))
    if not values:
        return math.nan
    if agg == "ratio_of_sums":
        assert denoms is not None
        d = sum(denoms)
        return sum(values) / d if d else math.nan
    if denoms is not None:
        values = [v / d if d else math.nan for v, d in zip(values, denoms)]
    if agg == "sum":
        return sum(values)
    if agg == "mean":
        return sum(values) / len(values)
    if agg == "min":
        return min(values)
    if agg == "max":
        return max(values)
    if agg == "jain":
        return jain(values)
    raise AssertionError(agg)


def _reference_at(schedule: tuple[tuple[float, float], ...], t: float) -> float:
    """The piecewise-constant reference in force at time t (the last step with at ≤ t)."""
    value = math.nan
    for at, v in schedule:
        if at <= t:
            value = v
    return value


def _settled(schedule: tuple[tuple[float, float], ...], t: float, settle: float) -> bool:
    """False within ``settle`` seconds after a change of the reference (an estimator needs time)."""
    return all(not (at <= t < at + settle) for at, _ in schedule)


def _series_value(metric: Metric, series: dict[str, list], name: str, key: str) -> float:
    times, names, col = series["time_s"], series[key], series[metric.field]
    other = series[metric.minus] if metric.minus else None
    xs: list[float] = []
    for i, n in enumerate(names):
        if n != name:
            continue
        t = times[i]
        if metric.window and not (metric.window[0] < t <= metric.window[1]):
            continue
        v = col[i]
        if v is None:
            continue
        v = float(v)
        if metric.reference:
            if not _settled(metric.reference, t, metric.settle_s):
                continue
            v -= _reference_at(metric.reference, t)
        elif other is not None:
            if other[i] is None:
                continue
            v -= float(other[i])
        xs.append(v)
    if not xs:
        return math.nan
    if metric.stat == "mean":
        return sum(xs) / len(xs)
    if metric.stat == "mean_abs":
        return sum(abs(x) for x in xs) / len(xs)
    if metric.stat == "max":
        return max(xs)
    if metric.stat == "median":
        return statistics.median(xs)
    m = sum(xs) / len(xs)  # std: population standard deviation over the window
    return math.sqrt(sum((x - m) ** 2 for x in xs) / len(xs))


def evaluate(metric: Metric, payload: dict[str, Any], task: Any = None) -> float:
    """The metric's value for one run (NaN when nothing is selected or defined). ``task`` (the
    run's ``RunTask``: its scenario text and folder) is needed by ``from = "trace_capacity"`` and
    ``per_capacity``, which read the scenario's trace files (``capacity.trace_capacity_bps``)."""
    s = payload["summary"]

    def capacity(link: str) -> float:
        if task is None:
            raise SpecError(f"metric {metric.name}: needs the run's scenario (its trace files)")
        return trace_capacity_bps(task.text, task.base_dir, s, link, metric.name)

    if metric.source == "trace_capacity":
        values, denoms = [capacity(e["name"]) for e in s["links"] if matches(metric.select, e["name"])], None
    elif metric.source == "run":
        values, denoms = [_get(s, metric.field, metric)], ([_get(s, metric.per, metric)] if metric.per else None)
    elif metric.source in ("flows", "links", "hosts"):
        if metric.source not in s:  # hosts: only with the scenario's [energy] table
            raise SpecError(
                f"metric {metric.name}: the run summary has no {metric.source} (does the scenario have [energy]?)"
            )
        key = "node" if metric.source == "hosts" else "name"
        rows = [e for e in s[metric.source] if matches(metric.select, e[key])]
        values = [_get(e, metric.field, metric) for e in rows]
        denoms = [_get(e, metric.per, metric) for e in rows] if metric.per else None
    else:
        series = payload.get(metric.source)
        if not series:
            raise SpecError(f"metric {metric.name}: the cached run has no {metric.source} (stale cache entry?)")
        key = "flow" if metric.source == "flow_series" else "link"
        names = sorted({n for n in series[key] if matches(metric.select, n)})
        values = [_series_value(metric, series, n, key) for n in names]
        denoms = None
    v = _combine(values, denoms, metric.agg)
    if metric.per_capacity:
        c = capacity(metric.per_capacity)
        v = v / c if c else math.nan
    v *= metric.scale
    if metric.per_second:
        v /= float(s["end_time_s"])
    return v


# --------------------------------------------------------------------------------------------
# statistics over seeds


def _t975(df: int) -> float:
    """Student's t quantile t_{0.975}(df) (two-sided 95%), from scipy; NaN for df < 1."""
    if df < 1:
        return math.nan
    from scipy.stats import t

    return float(t.ppf(0.975, df))


def mean_ci(xs: list[float]) -> tuple[int, float, float, float]:
    """(n, mean, sample standard deviation, half-width of the 95% CI of the mean) over the finite
    values; the CI is NaN with fewer than two values."""
    ys = [x for x in xs if x is not None and math.isfinite(x)]
    n = len(ys)
    if n == 0:
        return 0, math.nan, math.nan, math.nan
    m = sum(ys) / n
    if n == 1:
        return 1, m, math.nan, math.nan
    sd = math.sqrt(sum((y - m) ** 2 for y in ys) / (n - 1))
    return n, m, sd, _t975(n - 1) * sd / math.sqrt(n)


def ci_bounds(xs: list[float], mean: float, ci: float) -> tuple[float, float]:
    """The 95% interval (mean - ci, mean + ci), with the lower bound clipped at 0 when every finite
    value is >= 0: a metric that cannot be negative (goodput, delay, a count) never shows a
    negative bound, as the symmetric Student interval does with few, spread seeds. NaNs stay NaN."""
    if not (math.isfinite(mean) and math.isfinite(ci)):
        return math.nan, math.nan
    lo, hi = mean - ci, mean + ci
    if all(x >= 0 for x in xs if x is not None and math.isfinite(x)):
        lo = max(0.0, lo)
    return lo, hi


#: Fewest values for which a Student interval is shown. With two seeds t(1) = 12.7 makes the
#: interval 12.7 standard errors wide either way: it spans the whole axis and says nothing a
#: reader can use (issue 40 item 6), so tables and figures show the seeds' own values instead.
MIN_CI_SEEDS = 3


def describe(row: Optional[dict[str, Any]], scale: float, values: list[float]) -> str:
    """An aggregated row (n, mean, ci_low, ci_high) as text, scaled: ``mean [low, high] n=N`` with
    ``MIN_CI_SEEDS`` or more values, else the mean and each seed's value (``values``, in seed
    order): ``mean (seeds a, b)`` or ``a (1 seed)``; ``-`` when nothing applies."""
    if row is None or not row["n"] or not math.isfinite(row["mean"]):
        return "-"
    m, n = row["mean"] * scale, row["n"]
    if n >= MIN_CI_SEEDS and math.isfinite(row["ci_low"]):
        return f"{_num(m)} [{_num(row['ci_low'] * scale)}, {_num(row['ci_high'] * scale)}] n={n}"
    if n == 1:
        return f"{_num(m)} (1 seed)"
    return f"{_num(m)} (seeds " + ", ".join(_num(v * scale) for v in values) + ")"


def _num(v: float) -> str:
    """Four significant digits, never in exponent form below 10^6 (``1.242``, ``357.4``, ``12345``)."""
    return f"{v:.0f}" if abs(v) >= 1000 else f"{v:.4g}"
