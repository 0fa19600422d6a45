"""The types of a run's summary (``RunResult.summary``, ``summary.json``): what the engine's
``output::Summary`` serializes (crates/airtcp/src/output.rs), as TypedDicts, so that an editor
completes ``summary["flows"][0]["goodput_bps"]`` and mypy checks it. At runtime a summary is a
plain ``dict`` parsed from the engine's JSON; tests/python/test_api.py checks these declarations
against what the engine really writes.

The keys of the ``total=False`` parts are left out of the JSON when they do not apply (e.g. ``hsdpa`` for a
flow that does not cross an HSDPA cell); ``Optional`` values are ``null`` where a figure does not
apply (an RTT of a UDP flow, a flow without samples).
"""

from __future__ import annotations

from typing import Optional, TypedDict

__all__ = [
    "Summary",
    "FlowSummary",
    "LinkSummary",
    "LossDifferentiation",
    "CallStats",
    "CaiadOptionCounts",
    "HsdpaUeSummary",
]


class LossDifferentiation(TypedDict):
    """How a scheme that tells congestion from link errors judged each loss, by its true cause."""

    queue_drops_as_congestion: int
    queue_drops_as_link_error: int
    channel_losses_as_congestion: int
    channel_losses_as_link_error: int
    undropped_as_congestion: int
    undropped_as_link_error: int


class CallStats(TypedDict):
    """VoIP calls offered and blocked (``kind = "voip"`` flows)."""

    offered: int
    blocked: int


class CaiadOptionCounts(TypedDict):
    """CAIAD's ACK options the receiver sent."""

    corruption_only: int
    no_congestion_only: int
    both: int
    option_bytes: int


class HsdpaUeSummary(TypedDict):
    """A flow's user equipment in an HSDPA cell."""

    geometry_db: float
    channel_model: str
    mean_cqi: float
    new_blocks: int
    harq_retransmissions: int
    first_tx_bler: float
    harq_given_up: int
    decoded_bps: float
    rlc_pdus_sent: int
    rlc_pdus_retransmitted: int
    rlc_sdus_dropped: int
    queue_drops: int
    ce_marks: int


class _FlowRequired(TypedDict):
    name: str
    kind: str
    src: str
    dst: str
    cc: Optional[str]
    recovery: Optional[str]
    segment_bytes: int
    goodput_bps: float
    goodput_acked_bps: float
    delivered_bytes: int
    acked_bytes: int
    packets_sent: int
    packets_received: int
    retransmissions: int
    timeouts: int
    fast_retransmits: int
    ecn_reductions: int
    rtt_samples: int
    mean_rtt_s: Optional[float]
    min_rtt_s: Optional[float]
    mean_rto_s: Optional[float]
    rtt_p50_s: Optional[float]
    rtt_p95_s: Optional[float]
    rtt_p99_s: Optional[float]
    owd_p50_s: Optional[float]
    owd_p95_s: Optional[float]
    owd_p99_s: Optional[float]
    jitter_s: Optional[float]
    final_cwnd_bytes: int
    loss_differentiation: Optional[LossDifferentiation]
    sent_bytes: int
    corrupted_received: int
    calls: Optional[CallStats]
    caiad_options: Optional[CaiadOptionCounts]


class FlowSummary(_FlowRequired, total=False):
    """One flow's totals (``kind``: "tcp", "cbr", "onoff" or "voip"; TCP-only figures are 0 or
    null for the others)."""

    spurious_timeouts: int
    #: TCP only: data segments that reached the receiver when it already held them.
    redundant_segments: int
    hsdpa: HsdpaUeSummary


# `from` is a Python keyword: the functional form declares it.
_LinkRequired = TypedDict(
    "_LinkRequired",
    {
        "name": str,
        "from": str,
        "to": str,
        "rate_bps": int,
        "delay_s": float,
        "queue": str,
        "packets_sent": int,
        "bytes_sent": int,
        "overflow_drops": int,
        "early_drops": int,
        "ce_marks": int,
        "channel_losses": int,
        "corruptions": int,
        "link_retransmissions": int,
        "offered_packets": int,
        "arrived_packets": int,
        "lost_packets": int,
        "held_packets": int,
        "utilization": float,
    },
)


class LinkSummary(_LinkRequired, total=False):
    """One one-way link's totals."""

    trace_offset_s: float


class Summary(TypedDict):
    """A run's summary: the scenario's name, the seed, the simulated time, and the totals per flow
    and per link."""

    scenario: str
    seed: int
    end_time_s: float
    warmup_s: float
    events: int
    flows: list[FlowSummary]
    links: list[LinkSummary]
    jain_fairness_tcp: Optional[float]
