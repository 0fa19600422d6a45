"""Executing runs: the pure run function, the results cache and the backends that call it.

``execute(task)`` is the only place a simulation happens. It is a pure function of the task (the
scenario text, the seed, and which series to keep), so a backend may run tasks anywhere, in any
order, on any number of workers: results are stored by task index and aggregated in grid order,
never in completion order, which makes every output independent of ``--jobs`` and the backend.

The cache holds one small JSON file per run, ``<cache>/<key[:2]>/<key>.json``, written atomically
(temporary file + rename), so a sweep killed half-way leaves only complete entries and a re-run
executes exactly the missing ones. An entry is checked against the summary's schema on every read
(``entry.py``); one of the wrong shape is run again like a missing one.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any, Optional, Protocol

from .. import _core, api
from .._version import __version__
from ..scenario import loads
from .plan import RunTask, flow_count
from .spec import matches

__all__ = ["execute", "engine_id", "cache_key", "Cache", "Backend", "LocalBackend", "RayBackend", "make_backend"]

Payload = dict[str, Any]


def execute(task: RunTask) -> Payload:
    """Runs one task and returns what is kept of it: the engine's summary and the requested series
    columns, restricted to the flows/links the requests select (JSON-ready)."""
    r = api.run(text=task.text, seed=task.seed, base_dir=task.base_dir, presets=False)
    out: Payload = {"summary": r.summary, "flow_series": None, "link_series": None}
    for source in ("flow_series", "link_series"):
        reqs = [(col, sel) for src, col, sel in task.series if src == source]
        if not reqs:
            continue
        frame = r.flow_series if source == "flow_series" else r.link_series
        key = "flow" if source == "flow_series" else "link"
        names = frame[key].to_list()
        patterns = sorted({sel for _, sel in reqs})
        keep = [i for i, n in enumerate(names) if any(matches(p, n) for p in patterns)]
        cols = {"time_s": frame["time_s"].to_list(), key: names}
        for col, _ in reqs:
            cols[col] = frame[col].to_list()
        out[source] = {c: [v[i] for i in keep] for c, v in cols.items()}
    return out


_ENGINE_ID: Optional[str] = None


def engine_id() -> str:
    """The package version plus a hash of the compiled engine: the engine's own version number
    does not change with every commit, and a rebuilt engine must never be served stale results."""
    global _ENGINE_ID
    if _ENGINE_ID is None:
        h = hashlib.sha256()
        path = getattr(_core, "__file__", None)
        if path and os.path.exists(path):
            with open(path, "rb") as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    h.update(chunk)
        _ENGINE_ID = f"{__version__}+{_core.__version__}.{h.hexdigest()[:16]}"
    return _ENGINE_ID


def cache_key(task: RunTask) -> str:
    """sha256 of (scenario text, seed, airtcp version and engine build, kept series, and the
    digest of the trace files' contents it reads, if any: ``plan.input_digest``)."""
    h = hashlib.sha256()
    # The inputs' digest (external trace files) only when there is one: other keys stay as they were.
    for part in (task.text, str(task.seed), engine_id(), json.dumps(task.series)) + (
        (task.inputs,) if task.inputs else ()
    ):
        h.update(part.encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()


class Cache:
    """One JSON file per run under ``root`` (``results/.cache``). Kept hand-written rather than
    taken from a library (diskcache: SQLite): one file per run, written by atomic rename, is safe
    for many processes and Ray workers on a shared file system with no lock or database, and a
    person can inspect or delete single runs (docs/reproduce.md, "Cache, determinism, backends")."""

    def __init__(self, root: Path):
        self.root = Path(root)

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str, task: Optional[RunTask] = None) -> Optional[Payload]:
        """The cached payload, or None when absent, unreadable or of the wrong shape (then the run
        is simply redone): the entry must have the summary's fields and types (``entry.py``) and,
        given the ``task``, its seed and its scenario's number of flows."""
        p = self.path(key)
        try:
            with open(p, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError, RecursionError):
            return None
        from .entry import valid_entry

        seed, flows = (task.seed, _flows_of(task.text)) if task is not None else (None, None)
        return doc if valid_entry(doc, seed, flows) else None

    def put(self, key: str, payload: Payload) -> None:
        p = self.path(key)
        p.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=p.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(payload, f, separators=(",", ":"))
            os.chmod(tmp, 0o644)
            os.replace(tmp, p)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise


@functools.lru_cache(maxsize=256)
def _flows_of(text: str) -> Optional[int]:
    """How many flows the engine makes of a scenario's text (None if it is not TOML)."""
    try:
        return flow_count(loads(text))
    except ValueError:
        return None


OnResult = Callable[[int, Payload], None]


class Backend(Protocol):
    """Runs ``tasks`` and calls ``on_result(index, payload)`` in the calling thread as each one
    finishes (in any order). An exception from ``on_result`` stops the sweep: pending tasks are
    cancelled and the exception propagates."""

    name: str

    def run(self, tasks: Sequence[RunTask], on_result: OnResult) -> None: ...


class LocalBackend:
    """All local cores: a thread pool (the engine releases the GIL while it simulates), one run
    per task so that the progress bar and the cache advance run by run."""

    name = "local"

    def __init__(self, jobs: int = 0):
        self.jobs = api.resolve_jobs(jobs, 1 << 30)  # ValueError for a jobs out of range

    def run(self, tasks: Sequence[RunTask], on_result: OnResult) -> None:
        threads = max(1, min(self.jobs, len(tasks)))  # never a thread without a run
        if threads == 1:
            for i, t in enumerate(tasks):
                on_result(i, execute(t))
            return
        with ThreadPoolExecutor(max_workers=threads) as pool:
            pending: dict[Future, int] = {}
            queue = iter(enumerate(tasks))

            def submit_next() -> None:
                nxt = next(queue, None)
                if nxt is not None:
                    pending[pool.submit(execute, nxt[1])] = nxt[0]

            # Keep only a few tasks in flight, so an interruption wastes little work.
            for _ in range(2 * threads):
                submit_next()
            try:
                while pending:
                    done, _ = wait(pending, return_when=FIRST_COMPLETED)
                    for fut in sorted(done, key=lambda f: pending[f]):
                        i = pending.pop(fut)
                        on_result(i, fut.result())
                        submit_next()
            except BaseException:
                for fut in pending:
                    fut.cancel()
                raise


class RayBackend:
    """A Ray cluster (``ray.init(address)``; None starts or joins a local one). Each task is a Ray
    remote call of the same pure ``execute``; ray is imported only when this backend is used."""

    name = "ray"

    def __init__(self, address: Optional[str] = None, jobs: int = 0):
        try:
            import ray  # noqa: F401
        except ImportError:
            raise RuntimeError(
                "--backend ray: the 'ray' package is not installed (pip install 'ray[default]')"
            ) from None
        self.address = address
        self.jobs = jobs

    def run(self, tasks: Sequence[RunTask], on_result: OnResult) -> None:
        import ray

        if not ray.is_initialized():
            ray.init(address=self.address, ignore_reinit_error=True, log_to_driver=False)
        remote = ray.remote(execute)
        refs = {remote.remote(t): i for i, t in enumerate(tasks)}
        try:
            while refs:
                done, _ = ray.wait(list(refs), num_returns=1)
                for ref in done:
                    on_result(refs.pop(ref), ray.get(ref))
        except BaseException:
            for ref in refs:
                ray.cancel(ref)
            raise


def make_backend(name: str, jobs: int = 0, address: Optional[str] = None) -> Backend:
    """``local`` or ``ray``; anything else is a one-line error."""
    if name == "local":
        return LocalBackend(jobs)
    if name == "ray":
        return RayBackend(address, jobs)
    raise ValueError(f"--backend {name!r}: must be one of local, ray")


#: ``progress(done, total)``: called once before the first run and after every run; an exception
#: raised from it stops the sweep (what is already done stays in the cache).
Progress = Callable[[int, int], None]


def run_missing(
    tasks: Sequence[RunTask],
    cache: Cache,
    backend: Backend,
    progress: Optional[Progress] = None,
) -> tuple[list[str], list[Payload], int]:
    """Runs the ``tasks`` that ``cache`` lacks on ``backend``, caching each result as it arrives;
    returns every task's cache key and payload, in task order, and how many ran now (``reproduce`` and ``sweep`` both
    resume this way). ``progress(done, total)`` is called at the start and after each run."""
    keys = [cache_key(t) for t in tasks]
    payloads: list[Optional[Payload]] = [cache.get(k, t) for k, t in zip(keys, tasks)]
    missing = [i for i, p in enumerate(payloads) if p is None]
    total, done = len(tasks), len(tasks) - len(missing)
    if progress:
        progress(done, total)

    def on_result(j: int, payload: Payload) -> None:
        nonlocal done
        i = missing[j]
        cache.put(keys[i], payload)
        payloads[i] = payload
        done += 1
        if progress:
            progress(done, total)

    if missing:
        backend.run([tasks[i] for i in missing], on_result)
    return keys, payloads, len(missing)  # type: ignore[return-value]
