"""Type stubs of the compiled extension (crates/airtcp-py)."""

from typing import Any, TypedDict

__version__: str

class ScenarioError(ValueError):
    """A scenario that cannot be parsed, validated or built; the message is one line."""

class RawRun(TypedDict):
    summary_json: str
    flow_series: dict[str, list[Any]]
    link_series: dict[str, list[Any]]

def run(scenario_text: str, seed: int | None = None) -> RawRun: ...
def run_many(jobs: list[tuple[str, int | None]], jobs_n: int = 0) -> list[RawRun]: ...
def validate(scenario_text: str) -> None: ...
