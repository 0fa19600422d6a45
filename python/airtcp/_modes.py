"""The process's file-creation mask, for files and folders made under temporary names and then
moved into place (``mkstemp``/``mkdtemp`` make them 0600/0700 whatever the umask says). Shared by
``outputs`` and ``RunResult.write``; a module of its own so that the API does not import the
output-folder machinery (as ``_signals``)."""

from __future__ import annotations

import os


def umask() -> int:
    """The process's umask (read by setting it, then setting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
