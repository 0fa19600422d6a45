//! Queue disciplines at the head of a link: DropTail, RED (with optional ECN marking) and
//! TCP-Jersey's congestion warning (CW). All share one FIFO buffer; they differ in the admission
//! decision and in marking.

pub mod cw;
pub mod droptail;
pub mod red;

use std::collections::VecDeque;

use crate::engine::RngStream;
use crate::net::{Ecn, PacketId};
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

/// A FIFO of waiting packets with a packet-count limit and an admission policy.
#[derive(Debug, Clone)]
pub struct Queue {
    pub buf: VecDeque<PacketId>,
    pub limit_pkts: u32,
    pub aqm: Aqm,
}

impl Queue {
    pub fn new(limit_pkts: u32, aqm: Aqm) -> Self {
        Queue { buf: VecDeque::with_capacity(limit_pkts.min(4096) as usize), limit_pkts, aqm }
    }

    /// Packets waiting (the one being serialized is not counted).
    #[inline]
    pub fn len(&self) -> u32 {
        self.buf.len() as u32
    }

    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// The admission decision for an arriving packet with ECN field `ecn`; does not enqueue.
    /// `link_idle` says whether the transmitter is idle (RED's idle-period rule needs it).
    pub fn admit(&mut self, now: SimTime, ecn: Ecn, link_idle: bool, rng: &mut RngStream) -> Admission {
        let q = self.len();
        let decision = match &mut self.aqm {
            Aqm::DropTail => droptail::admit(q, self.limit_pkts),
            Aqm::Red(st) => st.admit(now, q, link_idle, self.limit_pkts, ecn, rng),
            Aqm::Cw(st) => st.admit(q, self.limit_pkts, ecn),
        };
        decision
    }

    /// Called when the transmitter becomes idle with nothing waiting (starts RED's idle clock).
    pub fn on_idle(&mut self, now: SimTime) {
        if let Aqm::Red(st) = &mut self.aqm {
            st.idle_since = Some(now);
        }
    }

    /// The EWMA average queue (RED, CW) or the instantaneous length (DropTail).
    pub fn avg_pkts(&self) -> f64 {
        match &self.aqm {
            Aqm::DropTail => self.len() as f64,
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
