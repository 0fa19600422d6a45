//! The network: packets (in an arena), one-way links with a queue and a channel, and static routes.

pub(crate) mod arq;
pub mod capacity;
pub(crate) mod link;
pub mod packet;
pub(crate) mod pcap;
pub(crate) mod queue;
pub(crate) mod ring;
pub(crate) mod routing;

pub use link::{Link, LinkStats, Offer};
pub use packet::{AckHeader, Ecn, SackBlock, TcpHeader};
pub(crate) use packet::{Packet, PacketArena, PacketId, PacketKind};
pub(crate) use routing::{Paths, RoutingTable};

/// Index of a node in the scenario's node list.
pub type NodeId = u32;
