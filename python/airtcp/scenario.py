"""Scenario files as Python data: load, override (``--set a.b.0.c=v``), dump back to TOML text.

The Rust engine is the only judge of what a scenario *means* (``airtcp.validate``); this module only
moves TOML around. Scenario values with units are strings ("45ms", "10Mbps", "64KB").
"""

from __future__ import annotations

import contextlib
import datetime
import os
import re
import stat
import sys
import unicodedata
from pathlib import Path
from collections.abc import Iterator
from typing import Any, Union

import tomli_w

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python < 3.11
    import tomli as tomllib

__all__ = [
    "OverrideError",
    "ScenarioFileError",
    "load",
    "loads",
    "read_with_overrides",
    "located_errors",
    "safe_name",
    "dumps",
    "apply_overrides",
    "set_path",
    "parse_value",
    "parse_duration_s",
    "to_text",
    "base_dir",
    "resolve",
    "ScenarioLike",
]

ScenarioLike = Union[str, os.PathLike, dict]


def _visible(text: str) -> str:
    """``text`` with the characters that would break an error message's one line (line breaks and
    other control characters, the Unicode line and paragraph separators: everything
    ``str.splitlines`` breaks at) or could not be printed (lone surrogates) written as Python
    escapes; tabs are kept. Messages echo file names, keys and ``--set`` text as given (fuzzing
    finding, issue 25 part 6: ``--set $'\\r='`` gave a two-line OverrideError)."""
    if text.isprintable():
        return text
    return "".join(
        c.encode("unicode_escape", "backslashreplace").decode("ascii")
        if c != "\t" and unicodedata.category(c) in ("Cc", "Cs", "Zl", "Zp")
        else c
        for c in text
    )


class ScenarioFileError(ValueError):
    """A scenario file that is missing, unreadable or not valid TOML (one-line message)."""

    def __init__(self, message: str):
        super().__init__(_visible(str(message)))


class OverrideError(ValueError):
    """A ``--set KEY=VALUE`` override that cannot be applied (one-line message)."""

    def __init__(self, message: str):
        super().__init__(_visible(str(message)))


def _one_line(text: object) -> str:
    return " ".join(part.strip() for part in str(text).splitlines() if part.strip())


#: The largest scenario file airtcp reads (a 10 000-flow scenario written out flow by flow is
#: under 2 MiB). Larger files, and anything that is not a regular file (a FIFO would block the
#: reader forever, ``/dev/zero`` would fill memory), are refused before reading.
SCENARIO_FILE_MAX_BYTES = 16 * 2**20


def read_text(path: str | os.PathLike) -> str:
    """Reads a scenario file's text; a missing, unreadable, non-regular or too large file (over
    ``SCENARIO_FILE_MAX_BYTES``) raises ScenarioFileError. A UTF-8 byte-order mark is dropped
    (editors on Windows write one; TOML itself does not allow it)."""
    p = Path(path)
    try:
        st = p.stat()
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(str(p))
        if not stat.S_ISREG(st.st_mode):
            raise ScenarioFileError(f"{p}: not a regular file (a FIFO, device or socket); give a scenario file")
        if st.st_size > SCENARIO_FILE_MAX_BYTES:
            raise ScenarioFileError(
                f"{p}: {st.st_size} bytes, more than a scenario file may have (allowed: up to {SCENARIO_FILE_MAX_BYTES} bytes)"
            )
        with open(p, "rb") as f:
            data = f.read(SCENARIO_FILE_MAX_BYTES + 1)  # bounded even if the file grows meanwhile
        if len(data) > SCENARIO_FILE_MAX_BYTES:
            raise ScenarioFileError(f"{p}: grew past {SCENARIO_FILE_MAX_BYTES} bytes while being read")
        return data.decode("utf-8-sig")
    except FileNotFoundError:
        raise ScenarioFileError(f"{p}: no such file") from None
    except IsADirectoryError:
        raise ScenarioFileError(f"{p}: is a directory, not a scenario file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ScenarioFileError(f"{p}: cannot read: {_one_line(e)}") from None


#: The deepest nesting of arrays and tables a scenario may have (no scenario needs more than a few
#: levels; the engine's TOML reader has a limit of its own).
MAX_DEPTH = 64
#: The longest ``--set``/``--grid`` value and dotted key read (a scenario file itself may be up to
#: ``SCENARIO_FILE_MAX_BYTES``).
MAX_VALUE_CHARS = 1 << 20
MAX_KEY_PARTS = MAX_DEPTH


def loads(text: str, source: str = "<scenario>") -> dict[str, Any]:
    """Parses TOML text into a dict; a syntax error raises ScenarioFileError naming line and column."""
    try:
        return tomllib.loads(text.removeprefix("\ufeff"))
    except tomllib.TOMLDecodeError as e:
        raise ScenarioFileError(f"{source}: invalid TOML: {_one_line(e)}") from None
    except RecursionError:
        raise ScenarioFileError(f"{source}: invalid TOML: {_TOO_DEEP}") from None
    except ValueError:  # Python's int-from-text limit (4300 digits), hit before any range check
        raise ScenarioFileError(f"{source}: invalid TOML: {_TOO_LONG_INT}") from None


#: The one-line reasons for the two TOML inputs Python's parser itself cannot take (issue 39 item
#: 16): the engine's own TOML reader refuses both too, and neither may reach the user as a
#: RecursionError or ValueError traceback.
_TOO_DEEP = "arrays or tables nested too deeply"
_TOO_LONG_INT = "an integer out of range (TOML integers are 64-bit: -2^63 to 2^63-1)"


def load(path: str | os.PathLike) -> dict[str, Any]:
    """Loads a scenario file into a dict (no semantic validation: see ``airtcp.validate``)."""
    return loads(read_text(path), source=str(path))


_TOML_SCALARS = (bool, int, float, str, datetime.datetime, datetime.date, datetime.time)


def _check_tree(node: Any, where: str, depth: int = 0) -> None:
    """Raises ScenarioError naming the first place in a scenario dict that TOML cannot hold: a
    None, a non-string key, a string that is not valid Unicode (a lone surrogate), a value of
    another Python type, or nesting deeper than any scenario needs."""
    from ._core import ScenarioError  # the engine's error type, so callers catch one class

    at = _visible(where or "scenario")
    if depth > MAX_DEPTH:
        raise ScenarioError(f"{at[:200]}: nested more than {MAX_DEPTH} levels deep")
    if node is None:
        raise ScenarioError(f"{at}: None is not a TOML value (leave the key out for its default)")
    if isinstance(node, str):
        try:
            node.encode("utf-8")
        except UnicodeEncodeError:
            raise ScenarioError(f"{at}: the string is not valid Unicode (it holds a lone surrogate)") from None
        return
    if isinstance(node, dict):
        for k, v in node.items():
            if not isinstance(k, str):
                raise ScenarioError(f"{at}: key {k!r} is not a string")
            _check_tree(k, f"{where}.{k}" if where else "<key>", depth + 1)
            _check_tree(v, f"{where}.{k}" if where else k, depth + 1)
        return
    if isinstance(node, (list, tuple)):
        for i, v in enumerate(node):
            _check_tree(v, f"{where}.{i}" if where else str(i), depth + 1)
        return
    if isinstance(node, int) and not isinstance(node, bool) and not -(2**63) <= node < 2**63:
        raise ScenarioError(f"{at}: {_TOO_LONG_INT}")
    if not isinstance(node, _TOML_SCALARS):
        raise ScenarioError(f"{at}: a Python {type(node).__name__} is not a TOML value")


def dumps(doc: dict[str, Any]) -> str:
    """Dumps a scenario dict back to TOML text; a value TOML cannot hold raises ScenarioError
    naming where it is."""
    _check_tree(doc, "")
    return tomli_w.dumps(doc)


def _engine_edit(edit: Any) -> Any:
    """Runs one of the engine's override functions, its ValueError as OverrideError."""
    try:
        return edit()
    except ValueError as e:
        raise OverrideError(str(e)) from None


def parse_value(text: str) -> Any:
    """Parses an override value as a TOML value (``3``, ``0.01``, ``true``, ``"x"``, ``[1, 2]``,
    ``{kind = "uniform", loss = 0.01}``); anything that is not valid TOML is kept as a string, so
    ``sack``, ``20s`` and ``10Mbps`` need no quotes. The engine reads the value
    (``_core.override_value``, the rule of ``airtcp run --set``); a value over
    ``MAX_VALUE_CHARS`` characters, nested too deeply or an integer out of range raises
    OverrideError."""
    from . import _core

    return loads(_engine_edit(lambda: _core.override_value(text)), source="<value>")["v"]


def apply_override(doc: dict[str, Any], assignment: str) -> None:
    """Applies one ``dotted.path=value`` assignment to ``doc`` in place (the value is read by
    ``parse_value``; see ``set_path`` for the path rules). ``apply_overrides`` is the copying form."""
    new = apply_overrides(doc, [assignment])
    doc.clear()
    doc.update(new)


def set_path(doc: dict[str, Any], key: str, value: Any) -> None:
    """Sets ``doc[a][b][0][c] = value`` for the dotted path ``key = "a.b.0.c"``, in place.

    Path parts index tables by key and arrays by integer (negative counts from the end). Missing
    tables along the way are created; a missing array index is an error (OverrideError). Used by
    the sweeps and the specs of ``airtcp reproduce``, whose values are already typed TOML values.
    The engine applies the rule (``_core.set_values``): the one implementation ``--set`` uses.
    """
    from . import _core

    # The engine gets only the containers along the path (a 10 000-flow document written out and
    # read back for every grid point took seconds): other keys and array entries are left out or
    # stand in as empty tables, which keeps every index, type and message the rule depends on.
    # It returns the path it set, indices resolved; the value is put there in ``doc``.
    text = dumps(_skeleton(doc, key.strip().split(".")))
    value_doc = dumps({"v": value})
    out, paths = _engine_edit(lambda: _core.set_values(text, [(key, value_doc)]))
    node, src = doc, loads(out)
    path = paths[0]
    for part in path[:-1]:
        i: Any = int(part) if isinstance(node, list) else part
        if isinstance(node, dict) and part not in node:
            node[part] = {}  # a table the engine created on the way
        node, src = node[i], src[i]
    i = int(path[-1]) if isinstance(node, list) else path[-1]
    node[i] = src[i]


def _skeleton(node: Any, parts: list[str]) -> Any:
    """The containers of ``node`` along ``parts`` (see ``set_path``); anything else is left out
    (table keys) or an empty table (array entries)."""
    if not parts:
        return 0  # the value there is replaced: any stands in
    if isinstance(node, dict):
        return {parts[0]: _skeleton(node[parts[0]], parts[1:])} if parts[0] in node else {}
    if isinstance(node, list):
        out: list[Any] = [{} for _ in node]
        try:
            i = int(parts[0])
            out[i] = _skeleton(node[i], parts[1:])
        except (ValueError, IndexError):
            pass  # the engine says what is wrong with the index
        return out
    return node  # a value the path goes through: the engine names its type


def apply_overrides(doc: dict[str, Any], sets: list[str] | tuple[str, ...]) -> dict[str, Any]:
    """Returns a copy of ``doc`` with ``--set`` style overrides applied in order by the engine's
    rule (``_core.apply_overrides``, the one ``airtcp run --set`` uses); ``doc`` itself is left
    untouched, so variants of one loaded scenario do not accumulate overrides.

    >>> base = {"flows": [{"recovery": "reno"}]}
    >>> apply_overrides(base, ["flows.0.recovery=sack", "duration=20s"])
    {'flows': [{'recovery': 'sack'}], 'duration': '20s'}
    >>> base
    {'flows': [{'recovery': 'reno'}]}
    """
    from . import _core

    text = dumps(doc)
    return loads(_engine_edit(lambda: _core.apply_overrides(text, list(sets))))


def parse_duration_s(text: str) -> float:
    """Parses a scenario duration string ("20s", "100ms") into seconds by the engine's own parser
    (``_core.parse_duration_ns``: the units, range and messages a run applies; a second parser in
    Python could accept what the engine refuses). Raises ValueError."""
    from . import _core

    return _core.parse_duration_ns(str(text)) / 1e9


def _looks_like_text(s: str) -> bool:
    """A string that can only be TOML text: it has a line break, or an ``=`` and no file of that
    name exists. Any other string is a path (``run("examples/jersey_fig10")`` is a missing file,
    not one-line TOML)."""
    return "\n" in s or ("=" in s and not os.path.exists(s))


def _missing_hint(s: str) -> str:
    """ " (did you mean X.toml?)" when ``s`` names no file but ``s + ".toml"`` does."""
    return f" (did you mean {s}.toml?)" if not s.endswith(".toml") and os.path.isfile(s + ".toml") else ""


def resolve(scenario: ScenarioLike | None = None, text: str | None = None) -> tuple[str, str | None]:
    """The engine's TOML text for a scenario, and the folder its relative paths (trace files)
    resolve against (the file's folder; None, the working directory, for text and dicts).

    ``scenario`` is a path (``str`` or ``os.PathLike``) or a dict; TOML text is passed as
    ``text=``. For backwards compatibility a ``str`` with a line break (or an ``=`` and no such
    file) is still read as TOML text; every other ``str`` is a path, and a missing one raises
    ScenarioFileError naming it (with "did you mean X.toml?" when that file exists)."""
    if text is not None:
        if scenario is not None:
            raise TypeError("give a scenario (a path or a dict) or text=, not both")
        if not isinstance(text, str):
            raise TypeError(f"text= is TOML text (a str), not {type(text).__name__}")
        return text, None
    if isinstance(scenario, dict):
        return dumps(scenario), None
    if isinstance(scenario, str) and _looks_like_text(scenario):
        return scenario, None
    if isinstance(scenario, (str, os.PathLike)):
        path = os.fspath(scenario)
        if isinstance(path, bytes):
            raise TypeError("a scenario path is a str or a pathlib.Path, not bytes")
        if not os.path.exists(path):
            raise ScenarioFileError(f"{path}: no such file{_missing_hint(path)}")
        return read_text(path), os.path.dirname(os.path.abspath(path))
    if scenario is None:
        raise TypeError("give a scenario: a path, a dict, or text=TOML text")
    raise TypeError(
        f"a scenario is a path (str or pathlib.Path), a dict, or text= TOML text, not {type(scenario).__name__}"
    )


def base_dir(scenario: ScenarioLike) -> str | None:
    """The folder relative paths inside a scenario (trace files) are resolved against: the
    scenario file's folder when it is given as a path, else None (the working directory)."""
    if isinstance(scenario, os.PathLike) or (isinstance(scenario, str) and not _looks_like_text(scenario)):
        return os.path.dirname(os.path.abspath(os.fspath(scenario)))
    return None


def to_text(scenario: ScenarioLike) -> str:
    """Turns a path, a dict or TOML text into TOML text for the engine (see ``resolve``)."""
    return resolve(scenario)[0]


def read_with_overrides(path: str | os.PathLike, sets: list[str] | None) -> tuple[str, dict[str, Any]]:
    """Reads a scenario file, checks its TOML syntax and applies ``--set`` overrides: what every
    command that takes a scenario file does first.

    Returns (text for the engine, parsed document). Without overrides the engine gets the file's
    text unchanged; with them, the file's text with the assigned values replaced or added (its
    layout and comments kept). Wrap the engine's checks of that text in ``located_errors`` so
    that its errors name the ``--set`` or the line of the user's file.
    """
    from . import _core

    text = read_text(path)
    doc = loads(text, source=str(path))
    if sets:
        text = _engine_edit(lambda: _core.apply_overrides(text, list(sets)))
        doc = loads(text, source=str(path))
    return text, doc


@contextlib.contextmanager
def located_errors(path: str | os.PathLike, sets: list[str] | None, regenerated: bool = False) -> Iterator[None]:
    """Within it, a ScenarioError about a scenario read by ``read_with_overrides(path, sets)``
    names what the user wrote: the ``--set`` that caused it (the file itself, checked without the
    overrides, does not have the error), or ``path`` and the line of the user's file (the engine
    saw the regenerated text, whose lines may differ). Without ``sets`` the engine's lines are the
    file's own and its errors pass unchanged, unless ``regenerated``: the engine saw the document
    written out again (a sweep's), whose lines are not the file's either."""
    from ._core import ScenarioError, locate_override_error, validate

    try:
        yield
    except ScenarioError as e:
        if not sets and not regenerated:
            raise
        try:
            original = read_text(path)
        except ScenarioFileError:
            raise e from None
        try:  # does the user's file say the same without the overrides?
            validate(original, os.path.dirname(os.path.abspath(path)))
            original_error = None
        except ScenarioError as o:
            original_error = str(o)
        located = locate_override_error(str(e), original, str(path), list(sets or []), original_error)
        raise ScenarioError(located) from None


def safe_name(name: str) -> str:
    """``name`` (a scenario's) made fit for a file or folder name: runs of other characters than
    letters, digits, ``.``, ``_`` and ``-`` become ``_``."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "scenario"
