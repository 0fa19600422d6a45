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
    "presets": None,
    "scenario": None,
}


def _package_version() -> str:
    """The installed distribution's version (its metadata: Cargo's workspace version, via maturin);
    the extension's own when the package runs from a source tree without metadata."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("airtcp")
    except PackageNotFoundError:
        from . import _core

        return _core.__version__


def __getattr__(name: str) -> Any:
    if name == "__version__":
        value: Any = _package_version()
    elif name in _LAZY:
        where = _LAZY[name]
        value = importlib.import_module(f".{name}" if where is None else where, __name__)
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
    "validate",
    "__version__",
]
