"""The ``airtcp`` command's entry point (``[project.scripts]``).

It loads the command line (typer, rich, and through the API polars: most of a second) inside a
guard, so that a Ctrl-C in that first second ends like one at any later moment: one
``error: interrupted`` line and status 130, nothing written, no traceback. ``import airtcp`` itself
loads nothing (see the package's ``__getattr__``), so the window before this guard is Python's own
start-up.
"""

from __future__ import annotations

import os
import sys


def main() -> None:
    try:
        if "import" in os.environ.get("AIRTCP_TEST_PAUSE", "").split(","):
            # for the tests (see ``airtcp.outputs.TEST_PAUSE_ENV``): a mark just before the
            # libraries load, with no sleep, so that a SIGINT sent on reading it lands while they load
            sys.stderr.write("airtcp-pause import\n")
            sys.stderr.flush()
        from .cli import app
    except KeyboardInterrupt:
        sys.stderr.write("error: interrupted\n")
        # A Ctrl-C while a module is imported sets CPython's "unhandled KeyboardInterrupt" flag,
        # which makes the process kill itself with SIGINT at exit; evaluating a string clears it
        # (the same rule as in ``cli._App``), so the status is 130 as documented.
        eval("0")
        sys.exit(130)
    app()
