"""Output folders that are complete or absent, record how they were made, and never replace what
is not theirs (issue 39 items 12-13, issue 40 item 4).

Every command that writes a folder (``run``, ``sweep``, ``demo``, ``reproduce``'s ``<out>/<id>/``)
goes through ``staged``:

1. Before any work, ``check`` looks at the folder: absent, empty, or an earlier airtcp output of
   *the same invocation* (its recorded ``provenance.invocation``) may be written; an airtcp output
   of another invocation needs ``--force``; an entry airtcp did not write that has a name the
   command writes (e.g. the user's own ``pcap/`` folder, file or link) is refused even with
   ``--force``. Entries with other names (the user's notes, the sweep's ``.cache``) are left alone.
2. Everything is written into a fresh temporary folder beside it (``.<name>.airtcp-tmp-*``,
   same file system, so the final moves are renames).
3. Only when every file is complete are they moved into place, with Ctrl-C held back during the
   moves (a handful of renames); an error or Ctrl-C before that removes the temporary folder and
   leaves the output folder as it was. The earlier output's own entries that the new one does not
   have are removed, so a folder never mixes two runs.

The provenance (``provenance`` in summary.json, run.json or demo.json) records the airtcp
version and engine build, the command line, the invocation that identifies it (the options that
decide the results), the overrides, the seed, the effective scenario and the entries written.
"""

from __future__ import annotations

import contextlib
import csv
import json
import math
import os
import shlex
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Optional

from ._modes import umask
from ._signals import sigint_held

__all__ = [
    "OutputError",
    "check",
    "check_path",
    "provenance",
    "staged",
    "write_json",
    "write_text_atomic",
    "PROVENANCE_KEY",
    "TEST_PAUSE_ENV",
]

PROVENANCE_KEY = "provenance"

#: For the tests only: ``<point>[,<point>...]``; at each named point of writing an output the
#: command prints ``airtcp-pause <point>`` on stderr and sleeps up to 30 s, so that a test can
#: send SIGINT exactly there. Points: ``staged`` (nothing written yet), ``writing`` (part of the
#: files written), ``complete`` (all written, not yet moved into place); and ``import`` (the
#: `airtcp` command, just before it loads its libraries: a mark without a sleep, see ``_launch``).
TEST_PAUSE_ENV = "AIRTCP_TEST_PAUSE"


class OutputError(Exception):
    """An output folder that cannot or may not be written (one line, exit status 2)."""


def pause_point(point: str) -> None:
    """The test hook of ``TEST_PAUSE_ENV`` (nothing unless it names ``point``)."""
    if point in os.environ.get(TEST_PAUSE_ENV, "").split(","):
        sys.stderr.write(f"airtcp-pause {point}\n")
        sys.stderr.flush()
        time.sleep(30)


def check_path(out: Path, option: str = "--out", own: bool = True) -> Path:
    """Refuses an output path that is no folder of its own: empty (``--out ""`` meant the current
    folder; a Path cannot tell it from "."), and with ``own`` (a folder the outputs are moved
    into, not a parent of such folders) the current folder or one above it (its contents are the
    user's), or a path whose last part is a link or a file."""
    if str(out) in ("", "."):
        raise OutputError(f"{option} {str(out)!r}: give a folder name (outputs go into a folder of their own)")
    if not own:
        return out
    here = Path.cwd().resolve()
    full = out.resolve()
    if full == here or full in here.parents:
        raise OutputError(f"{option} {out}: is the current folder or one above it; give a folder of its own")
    if out.is_symlink():
        raise OutputError(f"{option} {out}: is a symbolic link; give the folder itself")
    if out.exists() and not out.is_dir():
        raise OutputError(f"{option} {out}: exists and is not a folder")
    return out


def _read_provenance(out: Path, main: str) -> Optional[dict[str, Any]]:
    """The provenance recorded in ``out/main``, or None (absent, unreadable, or not airtcp's)."""
    p = out / main
    try:
        if p.is_symlink() or not p.is_file() or p.stat().st_size > 64 << 20:
            return None
        doc = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    prov = doc.get(PROVENANCE_KEY) if isinstance(doc, dict) else None
    if isinstance(prov, dict) and isinstance(prov.get("outputs"), list) and "invocation" in prov:
        return prov
    return None


#: The files that hold an output folder's provenance (run: summary.json; sweep and reproduce:
#: run.json; demo: demo.json).
_MAINS = ("summary.json", "run.json", "demo.json")


def _owned(out: Path, main: str, names: tuple[str, ...]) -> tuple[set[str], list[dict[str, Any]]]:
    """The entries of ``out`` that earlier airtcp outputs wrote, and their provenances. Without a
    provenance (a folder written before airtcp recorded one: ``main`` is there, a regular file)
    the regular files with the file names (``name.ext``) this command writes count as its own;
    folders (``pcap``) and links never do."""
    owned: set[str] = set()
    provs = []
    for m in dict.fromkeys((main, *_MAINS)):
        prov = _read_provenance(out, m)
        if prov is not None:
            provs.append(prov)
            owned |= {n for n in prov["outputs"] if isinstance(n, str) and "/" not in n and n not in ("", ".", "..")}
    if not provs and (out / main).is_file() and not (out / main).is_symlink():
        for n in names:
            p = out / n
            if "." in n and p.is_file() and not p.is_symlink():
                owned.add(n)
    return owned, provs


def check(out: Path, main: str, names: tuple[str, ...], invocation: dict[str, Any], force: bool) -> None:
    """Raises OutputError unless ``out`` may receive this command's outputs (``names``, the
    entries it may write; ``main`` the one holding the provenance): see the module docstring."""
    if not out.exists():
        return
    owned, provs = _owned(out, main, names)
    for n in names:
        p = out / n
        if (p.exists() or p.is_symlink()) and n not in owned:
            what = "link" if p.is_symlink() else "folder" if p.is_dir() else "file"
            raise OutputError(
                f"{p}: a {what} airtcp did not write is where an output goes; "
                "move it away or choose another --out (airtcp never deletes what it did not write)"
            )
    other = next((p for p in provs if p.get("invocation") != invocation), None)
    if other is not None and not force:
        earlier = other.get("command") or "another command"
        raise OutputError(
            f"{out} holds the output of another command ({earlier}); "
            "choose another --out, or give --force to replace it"
        )


def provenance(
    invocation: dict[str, Any],
    outputs: list[str],
    scenario: Optional[str | dict[str, str]] = None,
    overrides: Optional[list[str]] = None,
    seed: Optional[int] = None,
    **extra: Any,
) -> dict[str, Any]:
    """What an output folder records of how it was made (module docstring)."""
    from ._version import __version__
    from .reproduce.backend import engine_id

    prov: dict[str, Any] = {
        "airtcp": __version__,
        "engine": engine_id(),
        "command": _command_line(),
        "invocation": invocation,
        "overrides": list(overrides or []),
        "seed": seed,
    }
    prov.update(extra)
    if scenario is not None:
        prov["scenario"] = scenario
    prov["outputs"] = sorted(outputs)
    return prov


def _command_line() -> str:
    argv = list(sys.argv)
    if argv and os.path.basename(argv[0]) in ("airtcp", "__main__.py", "-m"):
        argv[0] = "airtcp"
    return shlex.join(argv)


def write_text_atomic(path: Path, text: str) -> None:
    """Writes one file complete or not at all: a temporary file beside it, renamed over it."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.airtcp-tmp-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o666 & ~umask())  # as open() would make it: mkstemp's is 0600
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_json(path: Path, doc: Any) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")


@contextlib.contextmanager
def staged(out: Path, main: str, names: tuple[str, ...], invocation: dict[str, Any], force: bool) -> Iterator[Path]:
    """Yields a fresh temporary folder beside ``out``; when the block ends normally, moves its
    entries into ``out`` (module docstring), else removes it. ``check`` runs first and again just
    before the move (another process may have written meanwhile)."""
    check(out, main, names, invocation, force)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.airtcp-tmp-", dir=out.parent))
    os.chmod(tmp, 0o777 & ~umask())  # as mkdir would make it: mkdtemp's 0700 would stay on the moved folder
    try:
        pause_point("staged")
        yield tmp
        pause_point("complete")
        with sigint_held():
            _commit(tmp, out, main, names, invocation, force)
    finally:
        with sigint_held():
            shutil.rmtree(tmp, ignore_errors=True)


def _commit(tmp: Path, out: Path, main: str, names: tuple[str, ...], invocation: dict[str, Any], force: bool) -> None:
    new = sorted(os.listdir(tmp))
    if not out.exists():
        os.rename(tmp, out)  # one rename: the whole folder appears at once
        return
    check(out, main, names, invocation, force)
    owned, _ = _owned(out, main, names)
    trash = Path(tempfile.mkdtemp(prefix=f".{out.name}.airtcp-old-", dir=out.parent))
    try:
        # the earlier output's entries first (moved aside, removed below), the provenance file last
        for n in sorted(owned - set(new)) + [n for n in new if n != main] + ([main] if main in new else []):
            dest = out / n
            if n in owned and (dest.exists() or dest.is_symlink()):
                os.rename(dest, trash / n)
            if n in new:
                os.rename(tmp / n, dest)
    finally:
        shutil.rmtree(trash, ignore_errors=True)


def csv_cell(v: Any) -> str:
    """One CSV cell: floats in full precision (``repr``, so a reader gets exactly our numbers); a
    value that does not apply (``None``, NaN) is an empty cell, which CSV readers (polars, pandas,
    spreadsheets) take as missing."""
    if v is None:
        return ""
    if isinstance(v, float):
        return "" if math.isnan(v) else repr(v)
    return str(v)


def write_csv(path: Path, rows: list[dict[str, Any]], header: list[str]) -> None:
    """The CSV files airtcp writes (the sweep's and ``reproduce``'s): a header row, then one row per
    dict in ``header``'s order, each cell by ``csv_cell``."""
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(header)
        for r in rows:
            w.writerow([csv_cell(r[h]) for h in header])
