"""The package's version, in a module of its own so that modules which record it (outputs'
provenance, the cache's engine id) do not import the package ``__init__`` (an import cycle)."""

from __future__ import annotations


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
