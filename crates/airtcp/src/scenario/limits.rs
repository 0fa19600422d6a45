//! The run's size against its `limits`: the memory the scenario's settings alone decide, checked
//! before anything is built, and the limits' own settings.

use super::model::*;
use super::plan::Plan;
use super::ScenarioError;
use crate::spec::err;

/// Bytes of one HSDPA UE's state at rest (its RLC, HARQ processes, fading paths and queue),
/// rounded up from the structures' sizes (checked by a test of `net::capacity::hsdpa`).
pub const UE_STATE_BYTES: u64 = 4096;

/// Engine bytes per flow besides its time series: sender, receiver, window policy and their
/// buffers at rest (2.9 kB measured with 10⁵ Reno flows; rounded up).
pub(super) const FLOW_STATE_BYTES: u64 = 4096;

/// The engine's memory that a scenario's settings alone decide (bytes): what
/// `limits.max_memory` is checked against before the run, and what it leaves for packets.
#[derive(Debug, Clone, Copy)]
pub struct MemoryEstimate {
    /// Next hops: nodes² × 4 bytes.
    pub routing: u64,
    /// Per-flow state besides the series (`FLOW_STATE_BYTES` a flow, and the largest its delay
    /// histogram can grow to in the run's duration, `metrics::delay::histogram_bytes`).
    pub flow_state: u64,
    /// Time series rows × their bytes.
    pub series: u64,
    /// Trace capacities' delivery opportunities (held in milliseconds and nanoseconds).
    pub trace_bytes: u64,
    /// HSDPA cells' UEs ([`UE_STATE_BYTES`] each, one per cell and flow crossing it).
    pub hsdpa_bytes: u64,
    /// The sum.
    pub total: u64,
}

/// Flows the scenario's entries stand for (a TCP group `count` each way).
fn flow_count(s: &Scenario) -> u64 {
    s.flows
        .iter()
        .map(|f| match f {
            FlowSpec::Tcp(t) => t.count as u64 * if t.direction == Direction::Both { 2 } else { 1 },
            _ => 1,
        })
        .sum()
}

/// Time-series samples: at 0, Δ, 2Δ, … up to the end (the engine's `Event::Sample`).
fn sample_count(s: &Scenario) -> u64 {
    s.duration.as_nanos() / s.sample_interval.as_nanos() + 1
}

/// [`MemoryEstimate`] of a validated scenario with `one_way_links` link directions.
pub(crate) fn memory_estimate(s: &Scenario, one_way_links: u64, plan: &Plan) -> MemoryEstimate {
    use crate::output::{FlowSeries, LinkSeries};
    let (flows, samples) = (flow_count(s), sample_count(s));
    let n = s.nodes.len() as u64;
    let routing = n * n * 4;
    // A delay (RTT or one-way) is at most the run's duration: the histogram's bound.
    let per_flow = FLOW_STATE_BYTES + crate::metrics::delay::histogram_bytes(s.duration.as_nanos());
    let flow_state = flows.saturating_mul(per_flow);
    // Saturating: a user may raise max_series_rows to anything, and an estimate that saturates
    // is above every limit, which is the right answer.
    // A flow row has the fixed columns and one f64 per extra estimate column.
    let row_bytes = FlowSeries::ROW_BYTES + 8 * plan.extra_estimate_columns();
    let series = (samples.saturating_mul(flows))
        .saturating_mul(row_bytes)
        .saturating_add(samples.saturating_mul(one_way_links).saturating_mul(LinkSeries::ROW_BYTES))
        .saturating_add(samples.saturating_mul(FlowSeries::SAMPLE_BYTES + LinkSeries::SAMPLE_BYTES));
    let trace_bytes: u64 = plan.trace_opportunities() * 16;
    let hsdpa_bytes = plan.hsdpa_ues.saturating_mul(UE_STATE_BYTES);
    let total = routing.saturating_add(flow_state).saturating_add(series).saturating_add(trace_bytes).saturating_add(hsdpa_bytes);
    MemoryEstimate { routing, flow_state, series, trace_bytes, hsdpa_bytes, total }
}

/// Checks the settings of `limits` and the run's size against them, before anything is built: the
/// time series' rows against `max_series_rows`, the memory estimate against `max_memory`.
pub(super) fn check_limits(s: &Scenario, one_way_links: u64, plan: &Plan) -> Result<(), ScenarioError> {
    let l = &s.limits;
    if l.max_events == 0 {
        return err("limits.max_events", "must be at least 1");
    }
    if l.max_memory.0 == 0 {
        return err("limits.max_memory", "must be greater than 0B");
    }
    if l.wall_clock.is_some_and(|w| w.as_nanos() == 0) {
        return err("limits.wall_clock", "must be greater than 0s");
    }
    if l.max_capture_bytes.0 == 0 {
        return err("limits.max_capture_bytes", "must be greater than 0B");
    }
    let (flows, samples) = (flow_count(s), sample_count(s));
    let (flow_rows, link_rows) = (samples * flows, samples * one_way_links);
    let rows = flow_rows + link_rows;
    if rows > l.max_series_rows {
        return err(
            "limits.max_series_rows",
            format!(
                "the time series would have {rows} rows ({samples} samples x ({flows} flows + {one_way_links} links)), above the limit of {} (raise limits.max_series_rows or lengthen sample_interval)",
                l.max_series_rows
            ),
        );
    }
    let MemoryEstimate { routing, flow_state, series, trace_bytes, hsdpa_bytes, total } = memory_estimate(s, one_way_links, plan);
    if total > l.max_memory.0 {
        let mb = |b: u64| format!("{:.0}MB", b as f64 / 1e6);
        return err(
            "limits.max_memory",
            format!(
                "the run needs about {} (routing {}, flow state {}, time series {}, traces {}{}), above the limit of {} (raise limits.max_memory)",
                mb(total),
                mb(routing),
                mb(flow_state),
                mb(series),
                mb(trace_bytes),
                if hsdpa_bytes > 0 { format!(", HSDPA UEs {}", mb(hsdpa_bytes)) } else { String::new() },
                mb(l.max_memory.0)
            ),
        );
    }
    Ok(())
}
