//! Channel models: what happens to a packet after it is serialized onto a link.
//! Each channel owns its random stream and attaches to one direction of a link, so data-path and
//! ACK-path errors are configured (and studied) independently.
//!
//! A channel decides *whether* a packet is hit; its [`Effect`] decides *what* a hit does: the
//! packet vanishes (loss), or it arrives with a bad checksum (corruption) — the distinction CAIAD's
//! corruption-aware receiver exploits.

pub mod gilbert_elliott;
pub mod rate_schedule;
pub mod trace;
pub mod uniform;

pub use gilbert_elliott::{GilbertElliott, Transitions};
pub use rate_schedule::RateSchedule;
pub use trace::TraceCapacity;
pub use uniform::UniformLoss;

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

/// The fate of one packet on a channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    Delivered,
    /// Gone: nothing reaches the far end.
    Lost,
    /// Reaches the far end with its payload damaged (header intact, checksum wrong).
    Corrupted,
}

/// What a hit does to the packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Effect {
    #[default]
    Loss,
    Corruption,
}

/// Which packets a channel hits (enum-dispatched: it is on every packet's path).
#[derive(Debug, Clone)]
pub enum ErrorModel {
    /// Never.
    Perfect,
    /// Independently with a fixed probability.
    Uniform(UniformLoss),
    /// By a two-state (good/bad) Markov chain.
    GilbertElliott(GilbertElliott),
}

/// One direction's channel: an error model and the effect of its hits.
#[derive(Debug, Clone)]
pub struct Channel {
    pub model: ErrorModel,
    pub effect: Effect,
}

impl Channel {
    /// A lossless channel.
    pub const PERFECT: Channel = Channel { model: ErrorModel::Perfect, effect: Effect::Loss };

    /// Decides the fate of the next packet, of `size_bytes`, whose serialization starts at
    /// `start_ns` (non-decreasing across calls on one channel).
    #[inline]
    pub fn fate(&mut self, size_bytes: u32, start_ns: u64) -> Fate {
        let hit = match &mut self.model {
            ErrorModel::Perfect => false,
            ErrorModel::Uniform(c) => c.hit(size_bytes),
            ErrorModel::GilbertElliott(c) => c.hit(start_ns),
        };
        match (hit, self.effect) {
            (false, _) => Fate::Delivered,
            (true, Effect::Loss) => Fate::Lost,
            (true, Effect::Corruption) => Fate::Corrupted,
        }
    }
}
