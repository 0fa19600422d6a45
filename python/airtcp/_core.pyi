"""Type stubs of the compiled extension (crates/airtcp-py/src/lib.rs); checked against the built
module by tests/python/test_stubs.py (mypy.stubtest)."""

import os
from collections.abc import Sequence
from typing import Any, TypedDict, type_check_only

__all__ = [
    "ScenarioError",
    "apply_overrides",
    "locate_override_error",
    "override_value",
    "set_values",
    "flow_requirements",
    "parse_duration_ns",
    "parse_mahimahi",
    "run",
    "run_many",
    "validate",
    "_live_threads",
    "__version__",
]

__version__: str

class ScenarioError(ValueError):
    """A scenario file that cannot be parsed, validated or built; the message is one line."""

@type_check_only
class RawRun(TypedDict):
    """One run's output as plain Python values (a dict at runtime)."""

    summary_json: str
    flow_series: dict[str, list[Any]]
    link_series: dict[str, list[Any]]

_Dir = str | os.PathLike[str] | None

def run(scenario_text: str, seed: int | None = None, base_dir: _Dir = None, pcap_dir: _Dir = None) -> RawRun:
    """Parses, validates and runs one scenario (TOML text). `seed` overrides the file's seed."""

def run_many(jobs: Sequence[tuple[str, int | None, _Dir]], jobs_n: int = 0) -> list[RawRun]:
    """Runs many (scenario text, seed, base dir) jobs on `jobs_n` threads (0 = all cores); results
    keep job order. If any job fails, raises ScenarioError naming the first failing job's index."""

def validate(scenario_text: str, base_dir: _Dir = None) -> None:
    """Parses and validates a scenario without running it; raises ScenarioError when it is invalid."""

def _live_threads() -> int:
    """How many engine threads of the extension are alive (a call's worker, a sweep's pool
    threads): 0 once every call has returned or raised (for the tests)."""

@type_check_only
class FlowRequirements(TypedDict):
    """What each window policy (``cc``) and loss recovery needs from its flow's options."""

    cc: dict[str, dict[str, bool]]
    recovery: dict[str, dict[str, bool]]

def parse_duration_ns(text: str) -> int:
    """A scenario duration ("20s", "1.5ms") in nanoseconds, by the engine's parser; ValueError."""

def parse_mahimahi(text: str) -> list[int]:
    """A mahimahi trace's delivery opportunities, ms, by the engine's parser; ValueError naming the line."""

def flow_requirements() -> FlowRequirements:
    """What each window policy and loss recovery needs from its flow (ecn, timestamps, sack), read
    from the engine's registries."""

def apply_overrides(scenario_text: str, sets: Sequence[str]) -> str:
    """``--set KEY=VALUE`` assignments applied to scenario text by the engine's rule (layout and
    comments kept); ValueError with a one-line message naming the assignment."""

def set_values(scenario_text: str, values: Sequence[tuple[str, str]]) -> tuple[str, list[list[str]]]:
    """Typed values set at dotted paths; each value is a TOML document whose key ``v`` holds it.
    Returns the text and the path each value was set at (indices counted from the start)."""

def override_value(text: str) -> str:
    """An override value as ``--set`` reads it, as a TOML document whose key ``v`` holds it."""

def locate_override_error(
    message: str, scenario_text: str, source: str, sets: Sequence[str], original_error: str | None = None
) -> str:
    """An engine error about a scenario made with ``--set``, pointed at the ``--set`` that caused
    it or at the user's file (``source``) and line; ``original_error``: the engine's error about
    the user's file itself (None when it is valid)."""
