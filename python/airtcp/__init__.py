"""airtcp: a deterministic packet-level TCP simulator (Rust engine, Python front end).

>>> import airtcp
>>> r = airtcp.run("examples/jersey_fig10.toml", seed=2)      # doctest: +SKIP
>>> r = airtcp.run(text=toml_text)                            # doctest: +SKIP
>>> r.flows.select("name", "goodput_bps")                     # doctest: +SKIP

The names below are loaded on first use (PEP 562), so ``import airtcp`` costs almost nothing and
the ``airtcp`` command can catch a Ctrl-C while its libraries (polars, rich, typer) load.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from . import presets, scenario
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
    from .scenario import OverrideError, ScenarioFileError, apply_overrides
    from .summary import Summary
    from .sweep import SweepError, SweepOutcome, sweep_grid

    __version__: str

#: Where each public name lives: ``None`` for a submodule of that name.
_LAZY: dict[str, str | None] = {
    "FLOW_SCHEMA": ".api",
    "LINK_SCHEMA": ".api",
    "InternalError": ".api",
    "PresetWarning": ".api",
    "RunResult": ".api",
    "ScenarioError": ".api",
    "jain_fairness": ".api",
    "run": ".api",
    "run_many": ".api",
    "validate": ".api",
    "OverrideError": ".scenario",
    "ScenarioFileError": ".scenario",
    "apply_overrides": ".scenario",
    "Summary": ".summary",
    "SweepError": ".sweep",
    "SweepOutcome": ".sweep",
    "sweep_grid": ".sweep",
    "__version__": "._version",
    "presets": None,
    "scenario": None,
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        where = _LAZY[name]
        value: Any = importlib.import_module(f".{name}" if where is None else where, __name__)
        if where is not None:
            value = getattr(value, name)
    else:
        raise AttributeError(f"module 'airtcp' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


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
