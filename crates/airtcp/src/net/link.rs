//! A one-way link: a transmitter fed by a queue, serialization at `rate`, propagation `delay`,
//! then a channel model that decides whether the packet arrives. A duplex link is two of these.

use super::queue::Queue;
use super::{NodeId, PacketId};
use crate::channel::Channel;
use crate::engine::RngStream;
use crate::time::DataRate;

/// Counters of one link.
#[derive(Debug, Clone, Default)]
pub struct LinkStats {
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub overflow_drops: u64,
    pub early_drops: u64,
    pub ce_marks: u64,
    pub channel_losses: u64,
    /// Nanoseconds the transmitter spent serializing.
    pub busy_ns: u64,
}

/// One direction of a link.
#[derive(Debug)]
pub struct Link {
    pub name: String,
    pub from: NodeId,
    pub to: NodeId,
    pub rate: DataRate,
    pub delay_ns: u64,
    pub queue: Queue,
    pub channel: Channel,
    /// Stream for the queue's random decisions (RED).
    pub queue_rng: RngStream,
    /// The packet being serialized and the time serialization started.
    pub in_tx: Option<(PacketId, u64)>,
    pub stats: LinkStats,
}

impl Link {
    /// Whether the transmitter is idle.
    #[inline]
    pub fn idle(&self) -> bool {
        self.in_tx.is_none()
    }
}
