"""``airtcp reproduce``: re-run the seed papers' experiments and set their numbers beside ours.

An experiment is data, not code: ``experiments/<paper>/<name>.sweep.toml`` (grid, seeds, metrics,
figure) over a base scenario ``experiments/<paper>/<name>.toml``, and the paper's numbers in
``experiments/<paper>/claims.toml``. This package reads those files (``spec``), expands the grid
(``plan``), runs what the cache lacks on a backend (``backend``: local threads or Ray), extracts
metrics (``metrics``), compares with the claims (``claims``) and writes tables, figure and report
(``runner``, ``report``). See docs/reproduce.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from .backend import Cache, LocalBackend, RayBackend, cache_key, engine_id, execute, make_backend
from .plan import Availability, Plan, RunTask, availability, plan
from .runner import Outcome, run_experiment
from .spec import Claim, Experiment, SpecError, discover, load_claims, load_experiment

__all__ = [
    "Availability",
    "Cache",
    "Claim",
    "Experiment",
    "LocalBackend",
    "Outcome",
    "Plan",
    "RayBackend",
    "RunTask",
    "SpecError",
    "all_claims",
    "availability",
    "cache_key",
    "default_root",
    "discover",
    "engine_id",
    "execute",
    "load_claims",
    "load_experiment",
    "make_backend",
    "plan",
    "run_experiment",
    "estimate_seconds",
    "packaged_root",
    "is_packaged",
]


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


def all_claims(root: Path) -> list:
    """Every paper's claims (``<root>/*/claims.toml``), papers in catalogue order."""
    from .spec import PAPER_ORDER

    def order(p: Path) -> tuple:
        name = p.parent.name
        return (PAPER_ORDER.index(name) if name in PAPER_ORDER else len(PAPER_ORDER), name)

    out: list = []
    for p in sorted(root.glob("*/claims.toml"), key=order):
        out.extend(load_claims(p))
    return out


# Fitted to `airtcp reproduce --all` (full and quick) on the 2-core development machine: the cost
# of one run on one core is about SECONDS_PER_RUN plus SECONDS_PER_PACKET_HOP for every packet
# the bottleneck can carry during the run times the number of links it may cross.
SECONDS_PER_RUN = 0.01
SECONDS_PER_PACKET_HOP = 6.5e-8


def estimate_seconds(p: Plan, jobs: int) -> float:
    """A rough wall-time estimate of a plan's runs on ``jobs`` cores (stated up front by ``--all``;
    the real time is printed at the end): per run, a fixed cost plus the simulated duration × the
    bottleneck's packet rate (slowest link, 1000-byte packets) × the number of links."""
    from ..scenario import loads

    total = 0.0
    for t in p.tasks:
        doc = loads(t.text)
        rates = [_rate_bps(link["rate"]) for link in doc.get("links") or [] if isinstance(link.get("rate"), str)]
        rates = [r for r in rates if r > 0]
        hops = p.duration_s * (min(rates) / 8000.0 if rates else 0.0) * len(rates)
        total += SECONDS_PER_RUN + hops * SECONDS_PER_PACKET_HOP
    return total / max(1, jobs)


def _rate_bps(text: str) -> float:
    import re

    m = re.match(r"^\s*([0-9.]+)\s*(Gbps|Mbps|kbps|bps)\s*$", text)
    if not m:
        return 0.0
    return float(m.group(1)) * {"Gbps": 1e9, "Mbps": 1e6, "kbps": 1e3, "bps": 1.0}[m.group(2)]


def find(root: Path, exp_id: str) -> Optional[Experiment]:
    return next((e for e in discover(root) if e.id == exp_id), None)
