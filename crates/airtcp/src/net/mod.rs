//! The network: packets (in an arena), one-way links with a queue and a channel, and static routes.

pub mod arq;
pub mod capacity;
pub mod link;
pub mod packet;
pub mod pcap;
pub mod queue;
pub mod routing;

pub use link::{Link, LinkStats, Offer};
pub use packet::{Ecn, Packet, PacketArena, PacketId, PacketKind, SackBlock, TcpHeader};
pub use routing::RoutingTable;

/// Index of a node in the scenario's node list.
pub(crate) type NodeId = u32;
