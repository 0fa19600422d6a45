"""The shape of a cache entry (``Cache.get``), checked on every read with pydantic.

A cache entry is a file anyone can edit or damage; valid JSON of the wrong shape was trusted
(issue 39 item 3: ``{"summary": 1}`` made every later run fail until deleted by hand,
``{"summary": {"flows": []}}`` silently changed aggregated.csv). An entry is used only when it has
the fields the tables read with the engine's types (strict: no "1" for 1, no true for 1), the
run's seed and as many flows as the run's scenario has; any other entry is redone, as if absent.
Fields beyond these (what a newer engine adds) are allowed.
"""

from __future__ import annotations

from typing import Any, Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

__all__ = ["valid_entry"]

_U64 = Field(ge=0, lt=2**64)


class _Flow(BaseModel):
    model_config = ConfigDict(strict=True, extra="allow")

    name: str
    kind: str
    src: str
    dst: str
    cc: Optional[str] = None
    recovery: Optional[str] = None
    goodput_bps: float = Field(ge=0)
    delivered_bytes: int = _U64
    packets_sent: int = _U64
    packets_received: int = _U64
    retransmissions: int = _U64
    timeouts: int = _U64
    fast_retransmits: int = _U64
    rtt_samples: int = _U64
    mean_rtt_s: Optional[float] = None
    min_rtt_s: Optional[float] = None


class _Link(BaseModel):
    model_config = ConfigDict(strict=True, extra="allow")

    name: str
    rate_bps: int = _U64
    queue: str
    overflow_drops: int = _U64
    early_drops: int = _U64
    ce_marks: int = _U64
    channel_losses: int = _U64
    utilization: float


class _Summary(BaseModel):
    model_config = ConfigDict(strict=True, extra="allow")

    scenario: str
    seed: int = _U64
    end_time_s: float
    warmup_s: float
    events: int = _U64
    flows: list[_Flow]
    links: list[_Link]
    jain_fairness_tcp: Optional[float] = None


class _Entry(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")

    summary: _Summary
    flow_series: Optional[dict[str, list[Any]]] = None
    link_series: Optional[dict[str, list[Any]]] = None

    @model_validator(mode="after")
    def _columns_of_one_length(self) -> _Entry:
        for series in (self.flow_series, self.link_series):
            if series is not None and len({len(col) for col in series.values()}) > 1:
                raise ValueError("series columns of different lengths")
        return self


def valid_entry(doc: Any, seed: Optional[int], flows: Optional[int]) -> bool:
    """Whether ``doc`` (a cache entry's JSON) is a payload of a run with ``seed`` (None: the
    scenario's own, not checked) and ``flows`` flows (None: not checked)."""
    try:
        entry = _Entry.model_validate(doc)
    except ValidationError:
        return False
    if seed is not None and entry.summary.seed != seed:
        return False
    return flows is None or len(entry.summary.flows) == flows
