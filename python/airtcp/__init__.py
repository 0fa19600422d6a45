"""airtcp: a deterministic packet-level TCP simulator (Rust engine, Python front end).

>>> import airtcp
>>> r = airtcp.run("examples/jersey_fig10.toml", seed=2)      # doctest: +SKIP
>>> r = airtcp.run(text=toml_text)                            # doctest: +SKIP
>>> r.flows.select("name", "goodput_bps")                     # doctest: +SKIP
"""

from typing import TYPE_CHECKING

from .api import (
    FLOW_SCHEMA,
    LINK_SCHEMA,
    InternalError,
    PresetWarning,
    RunResult,
    ScenarioError,
    jain_fairness,
    run,
    run_many,
    validate,
)
from . import presets, scenario
from .summary import Summary
from .scenario import OverrideError, ScenarioFileError, apply_overrides
from ._version import __version__

if TYPE_CHECKING:  # for type checkers; at run time loaded on first use (below)
    from .sweep import SweepError, SweepOutcome, sweep_grid

#: Loaded on first use (``airtcp.sweep_grid``): the sweep machinery imports the reproduce package,
#: and a plain ``import airtcp`` should not pay for it.
_LAZY = {"sweep_grid", "SweepOutcome", "SweepError"}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        from . import sweep as _sweep

        return getattr(_sweep, name)
    raise AttributeError(f"module 'airtcp' has no attribute {name!r}")


__all__ = [
    "FLOW_SCHEMA",
    "LINK_SCHEMA",
    "InternalError",
    "OverrideError",
    "PresetWarning",
    "RunResult",
    "ScenarioError",
    "ScenarioFileError",
    "apply_overrides",
    "jain_fairness",
    "run",
    "run_many",
    "presets",
    "scenario",
    "Summary",
    "SweepError",
    "SweepOutcome",
    "sweep_grid",
    "validate",
    "__version__",
]
