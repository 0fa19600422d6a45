"""Holding Ctrl-C back for a few renames (shared by ``outputs`` and ``RunResult.write``; a module
of its own so that the API does not import the output-folder machinery)."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator


@contextlib.contextmanager
def sigint_held() -> Iterator[None]:
    """Holds Ctrl-C back for a short critical section and raises KeyboardInterrupt after it when
    one came (main thread only; elsewhere nothing to hold). Re-installing Python's handler also
    undoes any handler a native library installed behind Python's back (polars does on import)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    got: list[int] = []
    old = signal.signal(signal.SIGINT, lambda signum, frame: got.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old if old is not None else signal.default_int_handler)
        if got:
            raise KeyboardInterrupt
