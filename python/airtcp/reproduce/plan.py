"""From an experiment to its runs: which parts it needs, and the grid × seeds expansion.

A run is a pure function of (scenario text, seed): the text is the base scenario with the quick
mode's duration and the grid point's assignments applied, dumped back to TOML, and the trace files
it reads. Nothing else goes into a run, so its cache key can be the hash of exactly that (the
text, the seed, the trace files' contents) plus the engine build.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import itertools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from .. import api
from ..scenario import OverrideError, dumps, loads, parse_duration_s, read_text, set_path
from .spec import Axis, Experiment, SpecError, traces_dir

__all__ = [
    "PartStatus",
    "Availability",
    "RunTask",
    "Plan",
    "availability",
    "plan",
    "estimate_seconds",
    "estimate_total",
]


@dataclass(frozen=True)
class PartStatus:
    """A part (a window policy, a recovery, a declared need) and whether this build has it."""

    part: str
    present: bool
    detail: str = ""


@dataclass(frozen=True)
class Availability:
    """What an experiment needs, what is missing, and which optional points are left out."""

    parts: tuple[PartStatus, ...]
    missing: tuple[str, ...]  # missing parts that stop the whole experiment
    dropped: tuple[tuple[str, str, tuple[str, ...]], ...]  # (axis, point label, its missing parts)

    @property
    def runnable(self) -> bool:
        return not self.missing


# A scenario just big enough to ask the engine whether it knows a window policy or a recovery.
_PROBE = """duration = "1s"
nodes = ["A", "B"]
[[links]]
from = "A"
to = "B"
rate = "1Mbps"
delay = "1ms"
[[flows]]
kind = "tcp"
src = "A"
dst = "B"
"""


@functools.lru_cache(maxsize=None)
def _engine_has(key: str, name: str) -> tuple[bool, str]:
    """Whether the engine knows ``cc``/``recovery`` ``name``: it does unless validation says
    "unknown" about exactly that field. (A known policy may still need other fields, e.g. Jersey's
    ``ecn = true``; those errors are the experiment's, reported when its scenarios are checked.)"""
    text = _PROBE + f'{key} = "{name}"\n'
    try:
        api.validate(text=text, presets=False)
    except api.ScenarioError as e:
        msg = str(e)
        if msg.startswith(f"flows[0].{key}") and "unknown" in msg:
            return False, msg
    return True, ""


def _names_used(doc: dict[str, Any], sets: list[tuple[str, Any]]) -> dict[str, set[str]]:
    """The ``cc`` and ``recovery`` names a scenario uses after assignments (TCP flows only)."""
    d = copy.deepcopy(doc)
    for k, v in sets:
        try:
            set_path(d, k, v)
        except OverrideError:
            pass  # reported with its point when the scenario is checked
    out: dict[str, set[str]] = {"cc": set(), "recovery": set()}
    for f in d.get("flows") or []:
        if isinstance(f, dict) and f.get("kind", "tcp") == "tcp":
            out["cc"].add(str(f.get("cc", "reno")))
            out["recovery"].add(str(f.get("recovery", "newreno")))
    return out


def _base_doc(exp: Experiment) -> dict[str, Any]:
    return loads(read_text(exp.scenario_path), source=str(exp.scenario_path))


_NEEDS: dict[tuple[Path, str, Path], tuple[bool, str]] = {}


def _need_present(exp: Experiment, part: str) -> tuple[bool, str]:
    """Whether a declared need is present: its probe assignments on the base scenario validate."""
    key = (exp.spec_path, part, files_dir(exp))
    if key not in _NEEDS:
        _NEEDS[key] = _probe_need(exp, part)
    return _NEEDS[key]


def _probe_need(exp: Experiment, part: str) -> tuple[bool, str]:
    need = next(n for n in exp.needs if n.part == part)
    doc = _base_doc(exp)
    try:
        for k, v in need.probe:
            set_path(doc, k, v)
        api.validate(text=dumps(doc), base_dir=files_dir(exp), presets=False)
    except (api.ScenarioError, OverrideError) as e:
        return False, str(e)
    return True, ""


def files_dir(exp: Experiment) -> Path:
    """The folder a run's relative paths (trace files) resolve against: the scenario's folder, or
    the traces folder (``spec.traces_dir``) for an experiment with ``external_traces = true``."""
    return traces_dir() if exp.external_traces else exp.scenario_path.parent


def flow_entry_sizes(doc: dict[str, Any]) -> list[int]:
    """How many summary flows each ``[[flows]]`` entry of a scenario stands for, in order: a TCP
    entry ``count`` flows, each way when its ``direction`` is "both"; any other entry one (the
    engine's ``flow_instances``, which lists them in entry order)."""
    sizes = []
    for f in doc.get("flows") or []:
        c = 1
        if isinstance(f, dict) and f.get("kind", "tcp") == "tcp":
            k = f.get("count", 1)
            c = k if isinstance(k, int) and not isinstance(k, bool) and k > 0 else 1
            if f.get("direction") == "both":
                c *= 2
        sizes.append(c)
    return sizes


def flow_count(doc: dict[str, Any]) -> int:
    """How many flows the engine makes of a scenario (the engine's ``flow_count``)."""
    return sum(flow_entry_sizes(doc))


def _file_digest(path: str) -> str:
    """sha256 of a file's content. Read every time a plan is made, never remembered by path and
    modification time: a trace rewritten within one timestamp tick, or with its time restored,
    must still change the key (issue 39 item 2)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def input_digest(doc: dict[str, Any], base_dir: Path, memo: Optional[dict[str, str]] = None) -> str:
    """sha256 over the contents of the trace files a scenario reads (its capacities' ``file``),
    so that a run's cache key changes with them; "" when it reads none. ``memo`` (path → digest)
    spares reading a file twice within one plan."""
    h = hashlib.sha256()
    n = 0
    for link in doc.get("links") or []:
        for key in ("capacity", "reverse_capacity"):
            cap = link.get(key) if isinstance(link, dict) else None
            if isinstance(cap, dict) and isinstance(cap.get("file"), str):
                path = (base_dir / cap["file"]).resolve()
                digest = memo.get(str(path)) if memo is not None else None
                if digest is None:
                    try:
                        digest = _file_digest(str(path))
                    except OSError:
                        digest = "unreadable"  # the scenario check reports it
                    if memo is not None:
                        memo[str(path)] = digest
                h.update(f"{cap['file']}\0{digest}\0".encode())
                n += 1
    return h.hexdigest() if n else ""


def availability(exp: Experiment) -> Availability:
    """Which parts ``exp`` needs and whether each exists in this build.

    Window policies and recoveries are found in the scenario and the points' assignments and
    asked of the engine; other parts are the spec's ``[[needs]]``, probed by validating the base
    scenario with the need's ``probe`` assignments. A point marked ``optional`` whose parts are
    missing is left out; any other missing part stops the experiment.
    """
    doc = _base_doc(exp)
    statuses: dict[str, PartStatus] = {}
    missing: set[str] = set()
    dropped: list[tuple[str, str, tuple[str, ...]]] = []

    def check(part: str, present: bool, detail: str) -> bool:
        statuses.setdefault(part, PartStatus(part, present, detail))
        return present

    base_names = _names_used(doc, [])
    for key, names in base_names.items():
        for n in sorted(names):
            ok, why = _engine_has(key, n)
            if not check(f"{key} {n}", ok, why):
                missing.add(f"{key} {n}")
    for need in exp.needs:
        if not any(need.part in p.needs for a in exp.axes for p in a.points):
            ok, why = _need_present(exp, need.part)
            if not check(need.part, ok, why):
                missing.add(need.part)
    for axis in exp.axes:
        for p in axis.points:
            lacking: list[str] = []
            for key, names in _names_used(doc, list(p.sets)).items():
                for n in sorted(names - base_names[key]):
                    ok, why = _engine_has(key, n)
                    if not check(f"{key} {n}", ok, why):
                        lacking.append(f"{key} {n}")
            for part in p.needs:
                ok, why = _need_present(exp, part)
                if not check(part, ok, why):
                    lacking.append(part)
            if lacking:
                if p.optional:
                    dropped.append((axis.name, p.label, tuple(lacking)))
                else:
                    missing.update(lacking)
    return Availability(parts=tuple(statuses.values()), missing=tuple(sorted(missing)), dropped=tuple(dropped))


@dataclass(frozen=True)
class RunTask:
    """One run: the scenario text, the seed, where relative paths resolve, and which series the
    metrics and figure read (the only series kept in the cache)."""

    text: str
    seed: int
    base_dir: str
    series: tuple[tuple[str, str, str], ...]  # (flow_series|link_series, column, select pattern)
    inputs: str = ""  # digest of the trace files' contents the scenario reads (input_digest), "" for none


@dataclass(frozen=True)
class Plan:
    """The expanded sweep: ``points`` are the grid points (axis name → label), ``tasks`` the runs
    in order (point-major, then seed)."""

    experiment: Experiment
    quick: bool
    axes: tuple[Axis, ...]  # the axes with the points actually run
    points: tuple[dict[str, str], ...]
    seeds: tuple[int, ...]
    tasks: tuple[RunTask, ...]
    duration_s: float
    availability: Availability

    def task_index(self, point_index: int, seed_index: int) -> int:
        return point_index * len(self.seeds) + seed_index


def _series_requests(exp: Experiment) -> tuple[tuple[str, str, str], ...]:
    """The (source, column, select) triples the experiment's series metrics and figure read."""
    req: set[tuple[str, str, str]] = set()
    for m in exp.metrics:
        if m.is_series:
            req.add((m.source, m.field, m.select))
            if m.minus:
                req.add((m.source, m.minus, m.select))
    f = exp.figure
    if f.kind == "timeseries":
        req.add((f.source, f.column, f.select))
        if f.minus:
            req.add((f.source, f.minus, f.select))
    return tuple(sorted(req))


def plan(exp: Experiment, quick: bool = False, seeds: Optional[int] = None) -> Plan:
    """Expands ``exp`` into its runs. Raises SpecError when an assignment does not apply or an
    expanded scenario is invalid (checked once per grid point, with the first seed)."""
    avail = availability(exp)
    dropped = {(a, p) for a, p, _ in avail.dropped}
    axes: list[Axis] = []
    for a in exp.axes:
        pts = [p for p in a.points if (a.name, p.label) not in dropped]
        if quick and a.quick:
            pts = [p for p in pts if p.label in a.quick]
        axes.append(Axis(a.name, a.label, tuple(pts), a.quick, a.scale))
    n_seeds = seeds if seeds is not None else (exp.quick_seeds if quick else exp.seeds)
    if n_seeds < 1:
        raise SpecError(f"--seeds {n_seeds}: must be at least 1")
    seed_list = tuple(range(1, n_seeds + 1))
    base = _base_doc(exp)
    if quick:
        if exp.quick_duration:
            base["duration"] = exp.quick_duration
        if exp.quick_warmup:
            base["warmup"] = exp.quick_warmup
    duration_s = parse_duration_s(str(base.get("duration", "0s")))
    series = _series_requests(exp)
    base_dir = str(files_dir(exp))
    points: list[dict[str, str]] = []
    tasks: list[RunTask] = []
    digests: dict[str, str] = {}
    for combo in itertools.product(*[a.points for a in axes]):
        doc = copy.deepcopy(base)
        where = ", ".join(f"{a.name}={p.label}" for a, p in zip(axes, combo))
        for p in combo:
            for k, v in p.sets:
                try:
                    set_path(doc, k, copy.deepcopy(v))
                except OverrideError as e:
                    raise SpecError(f"{exp.spec_path}: point {where}: {k}: {e}") from None
        text = dumps(doc)
        if avail.runnable:
            try:
                api.validate(text=text, base_dir=base_dir, presets=False)
            except api.ScenarioError as e:
                raise SpecError(f"{exp.spec_path}: point {where}: scenario invalid: {e}") from None
        points.append({a.name: p.label for a, p in zip(axes, combo)})
        inputs = input_digest(doc, Path(base_dir), digests)
        tasks.extend(RunTask(text=text, seed=s, base_dir=base_dir, series=series, inputs=inputs) for s in seed_list)
    return Plan(exp, quick, tuple(axes), tuple(points), seed_list, tuple(tasks), duration_s, avail)


def scenario_text(path: Path) -> str:
    return read_text(path)


# Fitted to `airtcp reproduce --all` (full and quick) on the 2-core development machine: the cost
# of one run on one core is about SECONDS_PER_RUN plus SECONDS_PER_PACKET_HOP for every packet
# the bottleneck can carry during the run times the number of links it may cross.
SECONDS_PER_RUN = 0.01
SECONDS_PER_PACKET_HOP = 6.5e-8
# Measured on the same machine with `/usr/bin/time` (CPU seconds, issue 40 item 6: "expected about
# 0 s" took 11.6 s): a command pays about 2.5 s once for its imports (polars, scipy's t, matplotlib)
# and about 1.5 s per experiment for its tables, figure and report, whatever its runs; a quick
# experiment whose runs take under a second (jersey-fig11, caiad-fig3, njplus-fig8) spent 4.0-6.0 s.
SECONDS_STARTUP = 2.5
SECONDS_PER_EXPERIMENT = 1.5


def estimate_total(plans: list[Plan], jobs: int, fraction_to_run: float = 1.0) -> float:
    """The whole command's wall-time estimate: the start-up, each experiment's tables and figure
    (one core), and the runs still to do (``fraction_to_run`` of all) on ``jobs`` cores."""
    runs = sum(estimate_seconds(p, jobs) for p in plans) * fraction_to_run
    return SECONDS_STARTUP + SECONDS_PER_EXPERIMENT * len(plans) + runs


def estimate_seconds(p: Plan, jobs: int) -> float:
    """A rough wall-time estimate of a plan's runs on ``jobs`` cores (stated up front by ``--all``;
    the real time is printed at the end): per run, a fixed cost plus the simulated duration × the
    bottleneck's packet rate (slowest link, 1000-byte packets) × the number of links."""
    total = 0.0
    for t in p.tasks:
        doc = loads(t.text)
        rates = [_rate_bps(link["rate"]) for link in doc.get("links") or [] if isinstance(link.get("rate"), str)]
        rates = [r for r in rates if r > 0]
        hops = p.duration_s * (min(rates) / 8000.0 if rates else 0.0) * len(rates)
        total += SECONDS_PER_RUN + hops * SECONDS_PER_PACKET_HOP
    return total / max(1, jobs)


def _rate_bps(text: str) -> float:
    m = re.match(r"^\s*([0-9.]+)\s*(Gbps|Mbps|kbps|bps)\s*$", text)
    if not m:
        return 0.0
    return float(m.group(1)) * {"Gbps": 1e9, "Mbps": 1e6, "kbps": 1e3, "bps": 1.0}[m.group(2)]
