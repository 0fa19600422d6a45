"""Scheme presets: the flow options a window policy or a loss recovery needs, added where a flow
leaves them out.

TCP-Jersey needs ``ecn = true``, TCP New Jersey and NJ+ need ``timestamps = true`` too, the
IE2 envelope and the SACK-based recoveries need ``sack = true``. The engine declares these needs
(``cc::CongestionControl::needs``, ``tcp::recovery::Strategy::needs_sack``) and rejects a flow
without them, naming the field; ``_core.flow_requirements()`` reads that declaration, so this
module holds no table of its own. ``airtcp run``/``validate``/``sweep``, ``--set``, the demo and
the Python API (``run``, ``run_many``, ``validate``) call :func:`complete` on every scenario, so
``--grid flows.0.cc=reno,jersey,ie2-envelope`` needs no per-scheme option.

The user's word wins: an option the flow sets itself (in the file, by ``--set`` or in a grid
value), even to ``false``, is never changed; the engine then says what the scheme needs. A scenario
the engine accepts as written is never changed (nothing it needs is missing), so presets leave
every valid scenario's results as they were. Each addition is reported in one line (``notice``).
"""

from __future__ import annotations

import copy
import functools
import re
from typing import Any

__all__ = ["OPTIONS", "requirements", "complete", "with_presets", "text_with_presets", "notice", "PresetWarning"]

#: The flow options presets may add (each only ever set to true).
OPTIONS = ("ecn", "timestamps", "sack")


class PresetWarning(UserWarning):
    """The Python API added options a flow's scheme needs (see :mod:`airtcp.presets`)."""


@functools.lru_cache(maxsize=1)
def requirements() -> dict[str, dict[str, dict[str, bool]]]:
    """The engine's declaration: ``{"cc": {name: {option: needed}}, "recovery": {name: {...}}}``."""
    from . import _core

    req = _core.flow_requirements()
    return {"cc": dict(req["cc"]), "recovery": dict(req["recovery"])}


def complete(doc: dict[str, Any]) -> list[str]:
    """Adds, in place, to every TCP flow entry of ``doc`` each option of :data:`OPTIONS` that its
    ``cc`` or ``recovery`` needs and that the entry does not set; returns one note per addition,
    e.g. ``flows.0.ecn = true (cc = "jersey")``. Entries that are not tables, unknown scheme
    names and options of the wrong type are left for the engine to report."""
    flows = doc.get("flows") if isinstance(doc, dict) else None
    if not isinstance(flows, list):
        return []
    req = requirements()
    notes: list[str] = []
    for i, f in enumerate(flows):
        if not isinstance(f, dict) or f.get("kind") != "tcp":
            continue
        for part, default in (("cc", "reno"), ("recovery", "newreno")):
            name = f.get(part, default)
            needs = req[part].get(name) if isinstance(name, str) else None
            for opt in OPTIONS:
                if needs and needs.get(opt) and opt not in f:
                    f[opt] = True
                    notes.append(f'flows.{i}.{opt} = true ({part} = "{name}")')
    return notes


def with_presets(doc: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """A copy of ``doc`` completed by :func:`complete` (``doc`` itself is left as it is), and the notes."""
    out = copy.deepcopy(doc)
    return out, complete(out)


def text_with_presets(text: str, source: str = "<scenario>") -> tuple[str, list[str]]:
    """TOML text completed by :func:`complete`: the text itself when nothing is added (so error
    line numbers still point into it), else the completed document dumped back to TOML. Text that
    is not TOML is returned as it is, for the engine to report."""
    from .scenario import ScenarioFileError, dumps, loads

    try:
        doc = loads(text, source)
    except ScenarioFileError:
        return text, []
    notes = complete(doc)
    return (dumps(doc) if notes else text), notes


_NOTE = re.compile(r'^(?P<what>.*) \((?P<part>cc|recovery) = "(?P<name>.*)"\)$')


def notice(notes: list[str]) -> str:
    """One line saying what presets added, each option once with the schemes that needed it:
    ``presets: flows.0.ecn = true for cc jersey, nj+; flows.0.sack = true for cc ie2-envelope
    (...)``; empty when nothing was added."""
    if not notes:
        return ""
    groups: dict[str, list[str]] = {}
    for n in notes:
        m = _NOTE.match(n)
        what, who = (m["what"], f"{m['part']} {m['name']}") if m else (n, "")
        names = groups.setdefault(what, [])
        if who and who not in names:
            names.append(who)
    parts = []
    for what, names in groups.items():
        by = [names[0]] + [
            n.split(" ", 1)[1] if n.split(" ", 1)[0] == names[0].split(" ", 1)[0] else n for n in names[1:]
        ]
        parts.append(f"{what} for {', '.join(by)}" if names else what)
    return "presets: " + "; ".join(parts) + " (what each scheme needs; set the option yourself to change it)"
