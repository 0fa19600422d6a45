"""Setting the papers' numbers beside ours: each claim is evaluated from the aggregated table only.

Status words (docs/reproduce.md, "Claims"):

- ``reproduced``: within the claim's stated tolerance (``within``), or the bound holds
  (``at_least``/``at_most``), or the named point is the lowest/highest;
- ``inconclusive``: outside the tolerance, but the 95% interval of ours holds both the paper's
  value and the neutral value (1 for a ratio, 0 for a gain or reduction): the seeds run cannot
  tell the paper's effect from none, in either direction;
- ``same direction, different size``: outside the tolerance, but on the same side of the neutral
  value as the paper;
- ``not reproduced``: otherwise;
- ``not run``: the experiment (or the claim's point) was not run, e.g. a missing part.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

from .spec import Axis, Claim, SpecError
from .text import INCONCLUSIVE, NOT_REPRODUCED, NOT_RUN, REPRODUCED, SAME_DIRECTION, fmt

__all__ = ["Agg", "ClaimResult", "evaluate_claim", "check_claims", "status"]

#: The aggregated table as a mapping: (point labels in axis order, metric) → (n, mean, sd, ci95).
Agg = dict[tuple[tuple[str, ...], str], tuple[int, float, float, float]]

_NEUTRAL = {"ratio": 1.0, "gain": 0.0, "reduction": 0.0}


@dataclass(frozen=True)
class ClaimResult:
    claim: Claim
    ours: float
    ci: float
    status: str
    detail: str = ""

    @property
    def ratio(self) -> float:
        """ours / paper (NaN where the paper's value is 0 or the claim is an ordering)."""
        if self.claim.kind in ("lowest", "highest") or self.claim.value == 0 or not math.isfinite(self.ours):
            return math.nan
        return self.ours / self.claim.value


def _resolve(
    claim: Claim, coords: dict[str, str], full_axes: tuple[Axis, ...], run_axes: tuple[Axis, ...], star_ok: bool
) -> Optional[list[tuple[str, ...]]]:
    """The run points a claim's coordinates name (several when one axis is "*"), or None when
    they exist in the spec but were not run (quick grid, optional point left out)."""
    for k in coords:
        if k != "metric" and k not in [a.name for a in full_axes]:
            raise SpecError(
                f"{claim.source}: claim {claim.id}: at/over names axis '{k}', which "
                f"{claim.experiment} does not have (axes: {', '.join(a.name for a in full_axes)})"
            )
    choices: list[list[str]] = []
    for full, ran in zip(full_axes, run_axes):
        want = coords.get(full.name)
        if want is None:
            if len(full.points) != 1:
                raise SpecError(
                    f"{claim.source}: claim {claim.id}: at/over must give axis '{full.name}' "
                    f"(points: {', '.join(full.labels())})"
                )
            want = full.points[0].label
        if want == "*":
            if not star_ok:
                raise SpecError(
                    f'{claim.source}: claim {claim.id}: "*" is only allowed in at for spread/min/max/lowest/highest'
                )
            choices.append(ran.labels())
            continue
        if want not in full.labels():
            raise SpecError(
                f"{claim.source}: claim {claim.id}: {full.name} = '{want}' is not a point "
                f"(points: {', '.join(full.labels())})"
            )
        if want not in ran.labels():
            return None
        choices.append([want])
    out: list[tuple[str, ...]] = [()]
    for c in choices:
        out = [p + (x,) for p in out for x in c]
    return out


def evaluate_claim(claim: Claim, agg: Agg, full_axes: tuple[Axis, ...], run_axes: tuple[Axis, ...]) -> ClaimResult:
    """Evaluates one claim against the aggregated table (see the module doc for the status)."""
    metric_a = claim.at.get("metric", claim.metric)
    metric_b = claim.over.get("metric", claim.metric)
    star = claim.kind in ("spread", "min", "max", "lowest", "highest")
    pts_a = _resolve(claim, claim.at, full_axes, run_axes, star)
    pts_b = _resolve(claim, claim.over, full_axes, run_axes, False) if claim.over else [()]
    if pts_a is None or pts_b is None:
        return ClaimResult(
            claim,
            math.nan,
            math.nan,
            NOT_RUN,
            "its grid point was not run (not in the quick grid, or left out for a missing part)",
        )
    for p, m in [(p, metric_a) for p in pts_a] + ([(p, metric_b) for p in pts_b] if claim.over else []):
        if (p, m) not in agg:
            raise SpecError(f"{claim.source}: claim {claim.id}: metric '{m}' is not a metric of {claim.experiment}")

    def stat(p: tuple[str, ...], m: str) -> tuple[float, float]:
        _, mean, _, ci = agg[(p, m)]
        return mean, ci

    detail = ""
    if claim.kind == "value":
        ours, ci = stat(pts_a[0], metric_a)
    elif claim.kind in ("ratio", "gain", "reduction"):
        a, ca = stat(pts_a[0], metric_a)
        b, cb = stat(pts_b[0], metric_b)
        r = a / b if b else math.nan
        # delta method: relative half-widths add in quadrature (seeds treated as independent)
        ci = (
            abs(r) * math.sqrt((ca / a) ** 2 + (cb / b) ** 2)
            if a and b and math.isfinite(ca) and math.isfinite(cb)
            else math.nan
        )
        ours = {"ratio": r, "gain": r - 1, "reduction": 1 - r}[claim.kind]
        detail = f"{fmt(a)} vs {fmt(b)}"
    else:
        vals = [(p, *stat(p, metric_a)) for p in pts_a]
        finite = [v for v in vals if math.isfinite(v[1])]
        if not finite:
            return ClaimResult(claim, math.nan, math.nan, NOT_REPRODUCED, "no finite value")
        lo = min(finite, key=lambda v: v[1])
        hi = max(finite, key=lambda v: v[1])
        star_axis = [k for k, v in claim.at.items() if v == "*"][0]
        ax_pos = [a.name for a in full_axes].index(star_axis)
        if claim.kind == "spread":
            ours, ci = ((hi[1] - lo[1]) / hi[1] if hi[1] else math.nan), math.nan
            detail = f"min {lo[0][ax_pos]} {fmt(lo[1])}, max {hi[0][ax_pos]} {fmt(hi[1])}"
        elif claim.kind in ("min", "max"):
            pick = lo if claim.kind == "min" else hi
            ours, ci = pick[1], pick[2]
            detail = f"{claim.kind} at {star_axis} = {pick[0][ax_pos]}"
        else:
            target = [v for v in vals if v[0][ax_pos] == claim.target]
            if not target:
                return ClaimResult(claim, math.nan, math.nan, NOT_RUN, f"{claim.target} was not run")
            pick = lo if claim.kind == "lowest" else hi
            ours, ci = target[0][1], target[0][2]
            ok = pick[0][ax_pos] == claim.target
            others = [v for v in finite if v[0][ax_pos] != claim.target]
            detail = f"{claim.kind}: {pick[0][ax_pos]} {fmt(pick[1])}"
            if ok and others:
                nxt = min(others, key=lambda v: v[1]) if claim.kind == "lowest" else max(others, key=lambda v: v[1])
                detail += f" (next: {nxt[0][ax_pos]} {fmt(nxt[1])})"
            return ClaimResult(claim, ours, ci, REPRODUCED if ok else NOT_REPRODUCED, detail)
    return ClaimResult(claim, ours, ci, status(claim, ours, ci), detail)


def status(claim: Claim, ours: float, ci: float = math.nan) -> str:
    """The status of ``ours`` ± ``ci`` (the 95% half-width; NaN when unknown) against ``claim``
    (the module doc's rules, in its order)."""
    if not math.isfinite(ours):
        return NOT_REPRODUCED
    if claim.check == "at_least":
        return REPRODUCED if ours >= claim.value else NOT_REPRODUCED
    if claim.check == "at_most":
        return REPRODUCED if ours <= claim.value else NOT_REPRODUCED
    tol = claim.abs_tol if claim.abs_tol is not None else (claim.rel_tol or 0.0) * abs(claim.value)
    if abs(ours - claim.value) <= tol:
        return REPRODUCED
    neutral = _NEUTRAL.get(claim.kind)
    if neutral is not None:
        if math.isfinite(ci) and abs(ours - claim.value) <= ci and abs(ours - neutral) <= ci:
            return INCONCLUSIVE
        a, b = ours - neutral, claim.value - neutral
        if a * b > 0:
            return SAME_DIRECTION
    return NOT_REPRODUCED


def check_claims(claims: list[Claim], experiments: list) -> None:
    """Checks every claim against its experiment's spec before anything runs: the experiment
    exists, the coordinates name existing axes and points, the metrics exist. Raises SpecError
    (one line naming the claim) at the first problem."""
    by_id = {e.id: e for e in experiments}
    for c in claims:
        exp = by_id.get(c.experiment)
        if exp is None:
            raise SpecError(f"{c.source}: claim {c.id}: experiment '{c.experiment}' does not exist")
        names = [m.name for m in exp.metrics]
        for m in (c.metric, c.at.get("metric", c.metric), c.over.get("metric", c.metric)):
            if m not in names:
                raise SpecError(
                    f"{c.source}: claim {c.id}: metric '{m}' is not a metric of {exp.id} ({', '.join(names)})"
                )
        _resolve(c, c.at, exp.axes, exp.axes, c.kind in ("spread", "min", "max", "lowest", "highest"))
        if c.over:
            _resolve(c, c.over, exp.axes, exp.axes, False)
        if c.target is not None:
            star = [k for k, v in c.at.items() if v == "*"][0]
            labels = next(a for a in exp.axes if a.name == star).labels()
            if c.target not in labels:
                raise SpecError(
                    f"{c.source}: claim {c.id}: target '{c.target}' is not a point of {star} ({', '.join(labels)})"
                )
