"""airtcp: a deterministic packet-level TCP simulator (Rust engine, Python front end).

>>> import airtcp
>>> r = airtcp.run("examples/jersey_fig10.toml", seed=2)      # doctest: +SKIP
>>> r.flows.select("name", "goodput_bps")                     # doctest: +SKIP
"""

from .api import (
    FLOW_SCHEMA,
    LINK_SCHEMA,
    RunResult,
    ScenarioError,
    jain_fairness,
    run,
    run_many,
    validate,
)
from . import scenario
from .scenario import OverrideError, ScenarioFileError, apply_overrides

__version__ = "0.1.0"

__all__ = [
    "FLOW_SCHEMA",
    "LINK_SCHEMA",
    "OverrideError",
    "RunResult",
    "ScenarioError",
    "ScenarioFileError",
    "apply_overrides",
    "jain_fairness",
    "run",
    "run_many",
    "scenario",
    "validate",
    "__version__",
]
