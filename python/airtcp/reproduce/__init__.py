"""``airtcp reproduce``: re-run the seed papers' experiments and set their numbers beside ours.

An experiment is data, not code: ``experiments/<paper>/<name>.sweep.toml`` (grid, seeds, metrics,
figure) over a base scenario ``experiments/<paper>/<name>.toml``, and the paper's numbers in
``experiments/<paper>/claims.toml``. This package reads those files (``spec``), expands the grid
(``plan``), runs what the cache lacks on a backend (``backend``: local threads or Ray), extracts
metrics (``metrics``), compares with the claims (``claims``) and writes tables, figure and report
(``runner``, ``report``); ``command`` is ``airtcp reproduce`` itself. Imports go one way, from
``command`` and ``runner`` down to ``spec`` and ``text``: no module imports one that imports it
(tests/python/test_imports.py). See docs/reproduce.md.
"""

from __future__ import annotations

from .backend import Cache, LocalBackend, cache_key, make_backend
from .plan import Availability, Plan, availability, estimate_seconds, plan
from .runner import Outcome, run_experiment
from .spec import Claim, Experiment, SpecError, all_claims, default_root, discover, is_packaged, load_experiment

__all__ = [
    "Availability",
    "Cache",
    "Claim",
    "Experiment",
    "LocalBackend",
    "Outcome",
    "Plan",
    "SpecError",
    "all_claims",
    "availability",
    "cache_key",
    "default_root",
    "discover",
    "estimate_seconds",
    "is_packaged",
    "load_experiment",
    "make_backend",
    "plan",
    "run_experiment",
]
