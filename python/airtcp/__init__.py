"""airtcp: a deterministic packet-level TCP simulator (Rust engine, Python front end).

>>> import airtcp
>>> r = airtcp.run("examples/jersey_fig10.toml", seed=2)      # doctest: +SKIP
>>> r = airtcp.run(text=toml_text)                            # doctest: +SKIP
>>> r.flows.select("name", "goodput_bps")                     # doctest: +SKIP
"""

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


def _package_version() -> str:
    """The installed distribution's version (its metadata: Cargo's workspace version, via maturin);
    the extension's own when the package runs from a source tree without metadata."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("airtcp")
    except PackageNotFoundError:
        from . import _core

        return _core.__version__


__version__ = _package_version()

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
    "validate",
    "__version__",
]
