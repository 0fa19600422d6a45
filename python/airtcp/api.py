"""The Python API: run scenarios, get the summary and time series as polars DataFrames."""

from __future__ import annotations

import contextlib
import difflib
import html
import json
import os
import signal
import threading
import re
import tempfile
import warnings
from collections.abc import Callable, Iterable, Sequence
from typing import Any, cast

from . import _core
from ._signals import sigint_held
from ._modes import umask
from .presets import PresetWarning, notice, text_with_presets
from .scenario import ScenarioLike, resolve
from .summary import Summary

# polars installs a native SIGINT handler of its own on import (seen with polars 2.1), in place of
# Python's; a Ctrl-C it catches ends the process silently (status 130 or killed by SIGINT),
# whatever was being written (issue 39 item 13). So SIGINT is held back (blocked) while polars is
# imported, Python's handler is set again (the same Python-level handler, which puts Python's
# native one back), and only then is SIGINT let through: a Ctrl-C during the import becomes a
# KeyboardInterrupt right after it (the CLI: "nothing written", status 130).
_MAIN = threading.current_thread() is threading.main_thread()
_SIGINT = signal.getsignal(signal.SIGINT) if _MAIN else None
_MASK = (
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if _MAIN and hasattr(signal, "pthread_sigmask") else None
)
try:
    import polars as pl  # noqa: E402
finally:
    if _SIGINT is not None:
        signal.signal(signal.SIGINT, _SIGINT)
    if _MASK is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, _MASK)

ScenarioError = _core.ScenarioError

__all__ = [
    "RunResult",
    "Summary",
    "PresetWarning",
    "ScenarioError",
    "InternalError",
    "run",
    "run_many",
    "validate",
    "jain_fairness",
    "max_jobs",
    "resolve_jobs",
    "FLOW_SCHEMA",
    "LINK_SCHEMA",
]

#: Column types of ``RunResult.flow_series`` (one row per sample instant and flow; the TCP-only
#: columns are null for UDP flows).
FLOW_SCHEMA: dict[str, type[pl.DataType]] = {
    "time_s": pl.Float64,
    "flow": pl.String,
    "cwnd_bytes": pl.UInt64,
    "ssthresh_bytes": pl.UInt64,
    "srtt_s": pl.Float64,
    "rto_s": pl.Float64,
    "sent_bytes": pl.UInt64,
    "delivered_bytes": pl.UInt64,
    "goodput_bps": pl.Float64,
    "acked_bytes": pl.UInt64,
    "bwe_bps": pl.Float64,
}

#: Column types of ``RunResult.link_series`` (one row per sample instant and one-way link).
LINK_SCHEMA: dict[str, type[pl.DataType]] = {
    "time_s": pl.Float64,
    "link": pl.String,
    "queue_pkts": pl.UInt32,
    "avg_queue_pkts": pl.Float64,
    "drops": pl.UInt64,
    "ce_marks": pl.UInt64,
}


def _frame(columns: dict[str, list], schema: dict[str, type[pl.DataType]]) -> pl.DataFrame:
    # Columns beyond the schema are the window policies' further estimates (e.g. CAIAD's alpha):
    # numbers, null where a flow's policy does not declare them.
    full: dict[str, type[pl.DataType]] = dict(schema)
    full.update((name, pl.Float64) for name in columns if name not in schema)
    return pl.DataFrame({name: columns.get(name, []) for name in full}, schema=full)


class RunResult:
    """The result of one run: ``summary`` (a dict typed as :class:`airtcp.summary.Summary`),
    ``flows``/``links`` (per-flow / per-link totals as DataFrames), ``flow_series``/``link_series``
    (time series DataFrames). In a notebook it shows as a table of its flows (``_repr_html_``)."""

    def __init__(self, raw: Any):
        #: The engine's summary exactly as it serialized it (byte-identical for equal inputs).
        self.summary_json: str = raw["summary_json"]
        self.summary: Summary = json.loads(self.summary_json)
        self.flow_series: pl.DataFrame = _frame(raw["flow_series"], FLOW_SCHEMA)
        self.link_series: pl.DataFrame = _frame(raw["link_series"], LINK_SCHEMA)

    @property
    def flows(self) -> pl.DataFrame:
        """Per-flow totals (goodput_bps, retransmissions, timeouts, ...), one row per flow."""
        return pl.DataFrame(cast(list[dict[str, Any]], self.summary["flows"]), infer_schema_length=None)

    @property
    def links(self) -> pl.DataFrame:
        """Per one-way link totals (drops, marks, channel losses, utilization), one row per link."""
        return pl.DataFrame(cast(list[dict[str, Any]], self.summary["links"]), infer_schema_length=None)

    @property
    def scenario(self) -> str:
        return self.summary["scenario"]

    @property
    def seed(self) -> int:
        return self.summary["seed"]

    def to_json(self, indent: int | None = 2) -> str:
        """The summary as JSON text (pretty-printed unless ``indent`` is None)."""
        if indent is None:
            return self.summary_json
        return json.dumps(self.summary, indent=indent) + "\n"

    def write(self, out_dir: str | os.PathLike, provenance: dict[str, Any] | None = None) -> dict[str, str]:
        """Writes summary.json, flow_series.parquet and link_series.parquet; returns their paths.
        ``provenance`` (how the run was made: see ``airtcp.outputs``), if given, is recorded in
        summary.json under the key "provenance", after the engine's fields.

        The three files appear together or not at all: each is written under a temporary name in
        ``out_dir`` and the three are renamed into place only when all are complete (with Ctrl-C
        held back for those renames), so an error or Ctrl-C while writing leaves the folder as it
        was. The folder's other entries are left alone."""
        os.makedirs(out_dir, exist_ok=True)
        paths = {
            "summary": os.path.join(out_dir, "summary.json"),
            "flow_series": os.path.join(out_dir, "flow_series.parquet"),
            "link_series": os.path.join(out_dir, "link_series.parquet"),
        }
        temps: dict[str, str] = {}
        try:
            for key, path in paths.items():
                fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.airtcp-tmp-", dir=out_dir)
                os.close(fd)
                temps[key] = tmp
            with open(temps["summary"], "w", encoding="utf-8") as f:
                if provenance is None:
                    f.write(self.to_json())
                else:
                    f.write(json.dumps({**self.summary, "provenance": provenance}, indent=2) + "\n")
            self.flow_series.write_parquet(temps["flow_series"])
            self.link_series.write_parquet(temps["link_series"])
            with sigint_held():
                for key, path in paths.items():
                    # as open() would make it (mkstemp's 0600 would stay on the renamed file)
                    os.chmod(temps[key], 0o666 & ~umask())
                    os.replace(temps.pop(key), path)
        finally:
            for tmp in temps.values():
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
        return paths

    def _repr_html_(self) -> str:
        """Jupyter's view: a title line and a table of the flows' main figures (polars renders it)."""
        s = self.summary
        head = (
            f"<p><b>{html.escape(s['scenario'])}</b>, seed {s['seed']}: {s['end_time_s']:g} s simulated "
            f"(goodput after {s['warmup_s']:g} s), {len(s['flows'])} flows, {len(s['links'])} links</p>"
        )
        flows = pl.DataFrame(
            {
                "flow": [f["name"] for f in s["flows"]],
                "kind": [f["kind"] for f in s["flows"]],
                "cc": [f["cc"] for f in s["flows"]],
                "recovery": [f["recovery"] for f in s["flows"]],
                "goodput Mb/s": [f["goodput_bps"] / 1e6 for f in s["flows"]],
                "retransmissions": [f["retransmissions"] for f in s["flows"]],
                "timeouts": [f["timeouts"] for f in s["flows"]],
                "mean RTT ms": [None if f["mean_rtt_s"] is None else f["mean_rtt_s"] * 1e3 for f in s["flows"]],
            },
            schema={
                "flow": pl.String,
                "kind": pl.String,
                "cc": pl.String,
                "recovery": pl.String,
                "goodput Mb/s": pl.Float64,
                "retransmissions": pl.Int64,
                "timeouts": pl.Int64,
                "mean RTT ms": pl.Float64,
            },
        )
        return head + flows._repr_html_()

    def __repr__(self) -> str:
        return (
            f"RunResult(scenario={self.scenario!r}, seed={self.seed}, flows={len(self.summary['flows'])}, "
            f"links={len(self.summary['links'])}, samples={self.flow_series.height})"
        )


class InternalError(RuntimeError):
    """The engine hit a bug (a Rust panic): never the input's fault, so not a ScenarioError. The
    message is one line and asks for a report with the scenario and seed."""


# The engine's messages for a name it does not know: serde's "unknown field `x`, expected one of
# `a`, `b`" (also "unknown variant") and the registries' "unknown window policy 'x' (allowed: a, b)".
_UNKNOWN_SERDE = re.compile(r"unknown (?:field|variant) `([^`]*)`, expected (?:one of )?((?:`[^`]*`(?:, | or )?)+)")
_UNKNOWN_LISTED = re.compile(r"unknown [^'`]*'([^']*)' \(allowed(?: units)?: ([^)]*)\)")


def did_you_mean(message: str) -> str:
    """``message`` with " (did you mean `mss_bytes`?)" after the unknown name it reports, when one
    of the names it allows is close (``difflib``, as Python's own NameError does); unchanged
    otherwise."""
    m = _UNKNOWN_SERDE.search(message)
    if m:
        allowed = re.findall(r"`([^`]*)`", m.group(2))
    else:
        m = _UNKNOWN_LISTED.search(message)
        if not m:
            return message
        allowed = [a.strip() for a in m.group(2).split(",")]
    close = difflib.get_close_matches(m.group(1), allowed, n=1, cutoff=0.6)
    if not close:
        return message
    at = m.end(1) + 1  # just after the closing quote of the unknown name
    quote = "`" if m.re is _UNKNOWN_SERDE else "'"
    return f"{message[:at]} (did you mean {quote}{close[0]}{quote}?){message[at:]}"


def _engine(call: Callable[..., Any], *args: Any) -> Any:
    """Calls into the engine, turning a Rust panic (PyO3's PanicException, a BaseException that
    ``except Exception`` would miss) into an InternalError, and adding "did you mean" to an
    error that names an unknown key or name (:func:`did_you_mean`)."""
    try:
        return call(*args)
    except ScenarioError as e:
        hinted = did_you_mean(str(e))
        if hinted == str(e):
            raise
        raise ScenarioError(hinted) from None
    except BaseException as e:
        if type(e).__name__ != "PanicException":
            raise
        first = str(e).strip().splitlines()[0] if str(e).strip() else "panic"
        raise InternalError(
            f"internal error in the engine ({first}); please report it with the scenario file and seed"
        ) from None


def _check_seed(seed: int | None) -> int | None:
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise ValueError(f"seed {seed!r}: must be an integer from 0 to 2**64 - 1, or None")
    return seed


def max_jobs() -> int:
    """The most parallel runs a call may ask for: 4 per core (a thread per run; more only costs
    memory and start-up time, issue 39 item 10)."""
    return 4 * (os.cpu_count() or 1)


def resolve_jobs(jobs: Any, work: int, option: str = "jobs") -> int:
    """The number of threads for ``work`` runs: ``jobs`` (1 to ``max_jobs()``; 0 or None: all
    cores), never more than the work needs. Anything else (a bool, a float, a negative or too large
    number) raises ValueError, one line naming ``option`` and the allowed range."""
    cores = os.cpu_count() or 1
    if jobs is None or (type(jobs) is int and jobs == 0):
        n = cores
    elif isinstance(jobs, bool) or not isinstance(jobs, int) or not 1 <= jobs <= max_jobs():
        shown = repr(jobs)
        shown = shown if len(shown) <= 40 else shown[:40] + "..."
        raise ValueError(
            f"{option} {shown}: must be an integer from 1 to {max_jobs()} (4 per core, {cores} cores), "
            "or 0 for all cores"
        )
    else:
        n = jobs
    return max(1, min(n, work))


def _prepare(
    scenario: ScenarioLike | None, text: str | None, base_dir: str | os.PathLike | None, presets: bool, stacklevel: int
) -> tuple[str, str | None]:
    """The engine's text and base folder for one scenario, with the scheme presets applied (a
    PresetWarning says what they added)."""
    body, folder = resolve(scenario, text)
    if presets:
        body, notes = text_with_presets(body)
        if notes:
            warnings.warn(notice(notes), PresetWarning, stacklevel=stacklevel + 1)
    return body, (os.fspath(base_dir) if base_dir is not None else folder)


def run(
    scenario: ScenarioLike | None = None,
    seed: int | None = None,
    base_dir: str | os.PathLike | None = None,
    pcap_dir: str | os.PathLike | None = None,
    *,
    text: str | None = None,
    presets: bool = True,
) -> RunResult:
    """Runs one scenario: a path to a .toml file (``str`` or ``pathlib.Path``), a dict, or TOML
    text given as ``text=``. (A ``str`` with a line break is still read as TOML text, as before;
    any other ``str`` is a path, and a missing file raises ScenarioFileError naming it.)
    ``seed`` overrides the scenario's own seed. Relative paths inside it (trace files) resolve
    against ``base_dir`` (default: the scenario file's folder, or the working directory for text
    and dicts). With ``presets`` (the default), a TCP flow gets the options its scheme needs and
    does not set (``ecn`` for TCP-Jersey, ...; see ``airtcp.presets``), with a PresetWarning.
    With ``pcap_dir``, writes the run's packet capture there: one libpcap file per link direction
    (``<link>.pcap``, as tcpdump at the link's transmitter), one per host (``hosts/<node>.pcap``,
    what it sent and received), each TCP flow opened by a SYN and SYN-ACK with its options, and
    ``events.csv`` (queue drops, channel losses and corruptions); see docs/pcap.md.
    Raises ScenarioError (one-line message) when the scenario is invalid (a dict: also a value TOML
    cannot hold, such as an integer beyond 64 bits or nesting deeper than 64 levels), ValueError
    for a seed out of range, TypeError when ``scenario`` is none of text, path and dict."""
    pcap = os.fspath(pcap_dir) if pcap_dir is not None else None
    body, folder = _prepare(scenario, text, base_dir, presets, 2)
    return RunResult(_engine(_core.run, body, _check_seed(seed), folder, pcap))


def validate(
    scenario: ScenarioLike | None = None,
    base_dir: str | os.PathLike | None = None,
    *,
    text: str | None = None,
    presets: bool = True,
) -> None:
    """Parses and validates a scenario without running it (``scenario``, ``text``, ``base_dir``
    and ``presets`` as for ``run``); raises ScenarioError when invalid."""
    body, folder = _prepare(scenario, text, base_dir, presets, 2)
    _engine(_core.validate, body, folder)


def run_many(
    scenarios: Iterable[ScenarioLike],
    jobs: int | None = None,
    seeds: Sequence[int | None] | None = None,
    progress: Callable[[int, int], None] | None = None,
    base_dir: str | os.PathLike | None = None,
    *,
    presets: bool = True,
) -> list[RunResult]:
    """Runs many scenarios in parallel on ``jobs`` threads (default or 0: all cores; at most
    ``max_jobs()``, and never more threads than scenarios); results keep the order of ``scenarios``
    (each a path, a dict or TOML text with a line break, as for ``run``). ``seeds`` (same length)
    overrides each scenario's seed; ``base_dir`` (for all of them) and ``presets`` (one
    PresetWarning for all the additions) as for ``run``.

    Results equal those of running each scenario alone with ``run``. If ``progress`` is given, the
    jobs are submitted in batches of ``jobs`` and ``progress(done, total)`` is called after each.
    If a job fails, ScenarioError names its index. A ``jobs`` or seed out of range raises
    ValueError (one line).
    """
    prepared = [_prepare(s, None, base_dir, False, 2) for s in scenarios]
    dirs = [folder for _, folder in prepared]
    texts = [body for body, _ in prepared]
    if presets:
        completed = [text_with_presets(body) for body in texts]
        texts = [body for body, _ in completed]
        notes = [n for _, ns in completed for n in ns]
        if notes:
            warnings.warn(notice(notes), PresetWarning, stacklevel=2)
    if seeds is None:
        seeds = [None] * len(texts)
    seeds = [_check_seed(s) for s in seeds]
    if len(seeds) != len(texts):
        raise ValueError(f"run_many: {len(texts)} scenarios but {len(seeds)} seeds")
    threads = resolve_jobs(jobs, len(texts))
    work = list(zip(texts, seeds, dirs))
    if progress is None:
        return [RunResult(r) for r in _engine(_core.run_many, work, threads)]
    results: list[RunResult] = []
    progress(0, len(work))
    for start in range(0, len(work), threads):
        batch = work[start : start + threads]
        try:
            raw = _engine(_core.run_many, batch, threads)
        except ScenarioError as e:
            raise ScenarioError(_renumber(str(e), start)) from None
        results.extend(RunResult(r) for r in raw)
        progress(len(results), len(work))
    return results


def _renumber(message: str, offset: int) -> str:
    """Turns 'job 1: ...' of a batch into the job's index in the whole list."""
    if message.startswith("job "):
        head, sep, rest = message[4:].partition(":")
        if sep and head.isdigit():
            return f"job {int(head) + offset}:{rest}"
    return message


def jain_fairness(values: Iterable[float]) -> float:
    """Jain's fairness index (Σx)² / (n·Σx²) of non-negative allocations: 1 when all are equal,
    1/n when one takes everything. All-zero allocations are equal, so they give 1."""
    xs = [float(v) for v in values]
    if not xs:
        raise ValueError("jain_fairness of no values")
    if any(x < 0 for x in xs):
        raise ValueError("jain_fairness needs non-negative values")
    top = max(xs)
    if top == 0:
        return 1.0
    xs = [x / top for x in xs]  # scale to [0, 1] so tiny or huge values neither underflow nor overflow
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs))
