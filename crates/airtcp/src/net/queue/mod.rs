//! Queue disciplines at the head of a link: DropTail, RED (with optional ECN marking) and
//! TCP-Jersey's congestion warning (CW). All feed one FIFO transmitter (see `net::link`); they
//! differ in the admission decision and in marking.

pub mod cw;
pub mod droptail;
pub mod red;

use crate::engine::RngStream;
use crate::net::Ecn;
use crate::time::SimTime;

pub use cw::CwState;
pub use red::{RedParams, RedState};

/// The admission policy of a queue.
#[derive(Debug, Clone)]
pub enum Aqm {
    DropTail,
    Red(RedState),
    Cw(CwState),
}

/// Outcome of offering a packet to a queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    /// Queued unchanged.
    Queued,
    /// Queued with CE set.
    QueuedMarked,
    /// Dropped because `limit_pkts` packets were already waiting.
    OverflowDrop,
    /// Dropped by an AQM decision before the buffer was full.
    EarlyDrop,
}

/// The buffer limit and admission policy of a link's FIFO.
#[derive(Debug, Clone)]
pub struct Queue {
    pub limit_pkts: u32,
    pub aqm: Aqm,
}

impl Queue {
    pub fn new(limit_pkts: u32, aqm: Aqm) -> Self {
        Queue { limit_pkts, aqm }
    }

    /// The admission decision for a packet with ECN field `ecn` arriving when `q` packets wait.
    /// `idle_since` is when the transmitter went idle, if it is idle with nothing waiting (RED's
    /// idle-period rule needs it).
    #[inline]
    pub fn admit(&mut self, now: SimTime, q: u32, idle_since: Option<SimTime>, ecn: Ecn, rng: &mut RngStream) -> Admission {
        match &mut self.aqm {
            Aqm::DropTail => droptail::admit(q, self.limit_pkts),
            Aqm::Red(st) => st.admit(now, q, idle_since, self.limit_pkts, ecn, rng),
            Aqm::Cw(st) => st.admit(q, self.limit_pkts, ecn),
        }
    }

    /// The EWMA average queue (RED, CW) or the instantaneous length `q` (DropTail).
    pub fn avg_pkts(&self, q: u32) -> f64 {
        match &self.aqm {
            Aqm::DropTail => q as f64,
            Aqm::Red(st) => st.avg,
            Aqm::Cw(st) => st.avg,
        }
    }

    /// Short name for reports.
    pub fn kind_name(&self) -> &'static str {
        match self.aqm {
            Aqm::DropTail => "droptail",
            Aqm::Red(_) => "red",
            Aqm::Cw(_) => "cw",
        }
    }
}
