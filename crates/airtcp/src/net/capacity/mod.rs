//! Capacity models: how fast a link's transmitter serves packets. A constant rate, a piecewise
//! rate schedule (`rate_schedule`), a trace of delivery opportunities ([`trace`], mahimahi's
//! format), or an HSDPA cell ([`hsdpa`]), whose MAC with its per-UE queues and scheduler replaces
//! the link's transmitter and queue altogether. What happens to a packet once it is on the wire
//! (loss, corruption) is the channel's business (`channel`).
//!
//! Each kind is a plug-in: its file owns its scenario table (serde), the checks of that table with
//! field paths, and what it resolves into (`ResolvedCapacity`); `REGISTRY` lists the kinds,
//! one line each. A new capacity model is one file plus one line there.

pub mod hsdpa;
pub(crate) mod rate_schedule;
pub mod trace;

pub(crate) use rate_schedule::RateSchedule;
pub(crate) use trace::TraceCapacity;

use std::sync::Arc;

use crate::spec::{err, Entry, ScenarioError};
use crate::time::DataRate;

/// A capacity kind's scenario table, deserialized: it checks its values (errors name
/// `<field>.<key>`) and resolves the model it describes.
pub(crate) trait CapacityKind: std::fmt::Debug + Send + Sync {
    fn resolve(&self, field: &str, ctx: &mut CapacityContext) -> Result<ResolvedCapacity, ScenarioError>;
    /// The kind is a cell that replaces the link's transmitter and queue (downlink only).
    fn is_cell(&self) -> bool {
        false
    }
}

/// Every capacity kind a scenario may name, in the order error messages list them. Adding a
/// capacity model is one file in this folder and one line here.
pub(crate) const REGISTRY: &[Entry<dyn CapacityKind>] = &[
    kind::<ConstantCapacitySpec>("constant"),
    kind::<rate_schedule::ScheduleCapacitySpec>("schedule"),
    kind::<trace::TraceCapacitySpec>("trace"),
    kind::<hsdpa::HsdpaSpec>("hsdpa"),
];

/// The registry line of the capacity kind whose table deserializes into `T`.
const fn kind<T: serde::de::DeserializeOwned + CapacityKind + 'static>(name: &'static str) -> Entry<dyn CapacityKind> {
    fn parse<T: serde::de::DeserializeOwned + CapacityKind + 'static>(v: toml::Value) -> Result<Arc<dyn CapacityKind>, String> {
        Ok(Arc::new(crate::spec::table::<T>(v)?))
    }
    Entry { name, parse: parse::<T> }
}

/// A link direction's `capacity` table as the scenario gives it: the spec of its kind.
#[derive(Debug, Clone)]
pub(crate) struct CapacitySpec {
    spec: Arc<dyn CapacityKind>,
}

impl<'de> serde::Deserialize<'de> for CapacitySpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        crate::spec::tagged(d, "capacity", REGISTRY).map(|(_, spec)| CapacitySpec { spec })
    }
}

impl CapacitySpec {
    /// Checks the table and resolves the model it describes (a trace's file is read here, once
    /// per file however many links name it); errors name `field` and the key.
    pub(crate) fn resolve(&self, field: &str, ctx: &mut CapacityContext) -> Result<ResolvedCapacity, ScenarioError> {
        self.spec.resolve(field, ctx)
    }

    /// A cell that replaces the link's transmitter and queue (downlink only).
    pub(crate) fn is_cell(&self) -> bool {
        self.spec.is_cell()
    }
}

/// What resolving a scenario's capacities shares: the folder relative trace files are read from,
/// and the trace files read so far.
pub(crate) struct CapacityContext<'a> {
    pub(crate) base_dir: Option<&'a std::path::Path>,
    pub(crate) traces: trace::TraceFiles,
}

/// A capacity table resolved: the transmitter's model, whether its start is drawn per seed when
/// the network is built (a trace's `random_start_offset`), and the cell that replaces the
/// transmitter altogether (an HSDPA capacity).
pub(crate) struct ResolvedCapacity {
    pub(crate) capacity: Capacity,
    pub(crate) random_start: bool,
    pub(crate) cell: Option<hsdpa::CellParams>,
}

impl ResolvedCapacity {
    /// A constant rate (a link's `rate`).
    pub(crate) fn constant(rate: DataRate) -> Self {
        ResolvedCapacity { capacity: Capacity::Constant(rate), random_start: false, cell: None }
    }
}

/// `kind = "constant"`: a constant serialization rate, the same as the link's `rate`.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ConstantCapacitySpec {
    rate: DataRate,
}

impl CapacityKind for ConstantCapacitySpec {
    fn resolve(&self, field: &str, _ctx: &mut CapacityContext) -> Result<ResolvedCapacity, ScenarioError> {
        if self.rate.bps() == 0 {
            return err(format!("{field}.rate"), "must be greater than 0bps");
        }
        Ok(ResolvedCapacity::constant(self.rate))
    }
}

/// How fast a link's transmitter serves packets: a constant rate, a rate schedule, or a trace of
/// delivery opportunities. Every model is a work-conserving FIFO whose future is known, so a
/// packet's departure is computed when it is admitted (see `net::link`).
#[derive(Debug, Clone)]
pub(crate) enum Capacity {
    Constant(DataRate),
    Schedule(RateSchedule),
    Trace(TraceCapacity),
}

impl Capacity {
    /// Serves a packet of `bytes` that reached the transmitter at `arrival` ns, the transmitter
    /// being busy until `busy_until` with earlier packets; returns (start, end) of its service.
    #[inline]
    pub(crate) fn serve(&mut self, arrival: u64, busy_until: u64, bytes: u32) -> (u64, u64) {
        let start = arrival.max(busy_until);
        let end = match self {
            Capacity::Constant(r) => start + r.tx_time_ns(bytes),
            Capacity::Schedule(s) => s.finish(start, bytes),
            Capacity::Trace(t) => t.serve(arrival, bytes).max(start),
        };
        (start, end)
    }

    /// Long-run mean rate (the nominal rate of a constant link), for summaries and RED's idle rule.
    pub(crate) fn mean_rate(&self) -> DataRate {
        match self {
            Capacity::Constant(r) => *r,
            Capacity::Schedule(s) => DataRate(s.mean_bps()),
            Capacity::Trace(t) => DataRate(t.mean_bps()),
        }
    }
}
