"""The capacity a trace link offered during a run's measured interval, computed from the trace
itself (not from the engine), for metrics that compare a flow's goodput with it.

mahimahi's format (Netravali et al., "Mahimahi", USENIX ATC 2015; its traces/README): each line
is a time in milliseconds at which one packet of ``opportunity_bytes`` may leave, equal lines
are several opportunities in that millisecond, and the trace repeats with a period equal to its
last timestamp (opportunity i of repetition c is at c·period + t_i). A run that replays the trace
from an offset o (``start_offset``, ``random_start_offset``; the summary's ``trace_offset_s``) sees
at simulated time s the trace time s + o. The capacity offered during [warmup, end] is then the
opportunities whose trace time lies in [warmup + o, end + o] (both ends counted: an upper bound on
what can cross the link in that interval), times ``opportunity_bytes`` × 8 bits, over the
interval's length.
"""

from __future__ import annotations

import bisect
import functools
from pathlib import Path
from typing import Any, Optional

from ..scenario import loads
from .spec import SpecError

__all__ = ["trace_capacity_bps", "opportunities_in", "parse_trace"]


def parse_trace(text: str) -> tuple[int, ...]:
    """The opportunities of a mahimahi trace, ms, by the engine's own parser
    (``_core.parse_mahimahi``: the checks a run applies; ValueError naming the line)."""
    from .. import _core

    return tuple(_core.parse_mahimahi(text))


@functools.lru_cache(maxsize=16)
def _read_trace(path: str, mtime_ns: int) -> tuple[int, ...]:
    return parse_trace(Path(path).read_text(encoding="ascii"))


def _count_before(opps_ns: list[int], period_ns: int, t: int, inclusive: bool) -> int:
    """How many opportunities (over all repetitions) lie before trace time t (at or before with
    ``inclusive``). Repetition c holds c·P + o_i with 0 ≤ o_i ≤ P: those of repetitions up to
    q − 2 (q = t // P) are all before t, repetition q − 1 those with o_i < P + r (r = t % P),
    repetition q those with o_i < r, later ones none."""
    side = bisect.bisect_right if inclusive else bisect.bisect_left
    q, r = divmod(t, period_ns)
    n = len(opps_ns)
    total = side(opps_ns, r)
    if q >= 1:
        total += (q - 1) * n + side(opps_ns, period_ns + r)
    return total


def opportunities_in(opps_ms: tuple[int, ...], offset_ns: int, start_ns: int, end_ns: int) -> int:
    """Opportunities at simulated times in [start_ns, end_ns] of a trace replayed from offset_ns."""
    opps = [m * 1_000_000 for m in opps_ms]
    period = opps[-1]
    a, b = start_ns + offset_ns, end_ns + offset_ns
    return _count_before(opps, period, b, True) - _count_before(opps, period, a, False)


def _link_capacity(doc: dict[str, Any], link: str) -> Optional[dict[str, Any]]:
    """The capacity table of the one-way link named ``FROM->TO`` (a duplex link's reverse
    direction uses ``reverse_capacity``, else the forward one's)."""
    for spec in doc.get("links") or []:
        fwd = f"{spec.get('from')}->{spec.get('to')}"
        rev = f"{spec.get('to')}->{spec.get('from')}"
        if link == fwd:
            return spec.get("capacity")
        if link == rev and spec.get("duplex", True):
            return spec.get("reverse_capacity") or spec.get("capacity")
    return None


def trace_capacity_bps(text: str, base_dir: str, summary: dict[str, Any], link: str, metric: str) -> float:
    """The bit rate the trace of one-way link ``link`` offered over the run's measured interval
    [warmup_s, end_time_s], from the trace file (resolved against ``base_dir``) or the inline
    ``opportunities_ms``, and the offset the run reports. SpecError when the link has no trace."""
    cap = _link_capacity(loads(text), link)
    if not isinstance(cap, dict) or cap.get("kind") != "trace":
        raise SpecError(f"metric {metric}: link '{link}' has no trace capacity (a link FROM->TO of the scenario)")
    if "file" in cap:
        path = (Path(base_dir) / str(cap["file"])).resolve()
        opps = _read_trace(str(path), path.stat().st_mtime_ns)
    else:
        opps = tuple(int(x) for x in cap["opportunities_ms"])
    entry = next((e for e in summary["links"] if e["name"] == link), None)
    if entry is None:
        raise SpecError(f"metric {metric}: link '{link}' is not in the run summary")
    offset_ns = round(float(entry.get("trace_offset_s") or 0.0) * 1e9)
    start, end = round(float(summary["warmup_s"]) * 1e9), round(float(summary["end_time_s"]) * 1e9)
    n = opportunities_in(opps, offset_ns, start, end)
    return n * int(cap.get("opportunity_bytes", 1500)) * 8 / ((end - start) / 1e9)
