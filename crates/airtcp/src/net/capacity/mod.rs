//! Capacity models: how fast a link's transmitter serves packets. A constant rate, a piecewise
//! rate schedule ([`rate_schedule`]), a trace of delivery opportunities ([`trace`], mahimahi's
//! format), or an HSDPA cell ([`hsdpa`]), whose MAC with its per-UE queues and scheduler replaces
//! the link's transmitter and queue altogether. What happens to a packet once it is on the wire
//! (loss, corruption) is the channel's business (`channel`).

pub mod hsdpa;
pub mod rate_schedule;
pub mod trace;

pub use rate_schedule::RateSchedule;
pub use trace::TraceCapacity;

use crate::time::DataRate;

/// How fast a link's transmitter serves packets: a constant rate, a rate schedule, or a trace of
/// delivery opportunities. Every model is a work-conserving FIFO whose future is known, so a
/// packet's departure is computed when it is admitted (see `net::link`).
#[derive(Debug, Clone)]
pub enum Capacity {
    Constant(DataRate),
    Schedule(RateSchedule),
    Trace(TraceCapacity),
}

impl Capacity {
    /// Serves a packet of `bytes` that reached the transmitter at `arrival` ns, the transmitter
    /// being busy until `busy_until` with earlier packets; returns (start, end) of its service.
    #[inline]
    pub fn serve(&mut self, arrival: u64, busy_until: u64, bytes: u32) -> (u64, u64) {
        let start = arrival.max(busy_until);
        let end = match self {
            Capacity::Constant(r) => start + r.tx_time_ns(bytes),
            Capacity::Schedule(s) => s.finish(start, bytes),
            Capacity::Trace(t) => t.serve(arrival, bytes).max(start),
        };
        (start, end)
    }

    /// Long-run mean rate (the nominal rate of a constant link), for summaries and RED's idle rule.
    pub fn mean_rate(&self) -> DataRate {
        match self {
            Capacity::Constant(r) => *r,
            Capacity::Schedule(s) => DataRate(s.mean_bps()),
            Capacity::Trace(t) => DataRate(t.mean_bps()),
        }
    }
}
