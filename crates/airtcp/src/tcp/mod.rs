//! TCP: sender, receiver, RTO estimation, SACK scoreboard and loss-recovery strategies.

pub mod core;
pub(crate) mod rate;
pub(crate) mod receiver;
pub mod recovery;
pub mod rto;
pub mod scoreboard;
pub mod sender;

pub use receiver::{AckDecision, Receiver, ReceiverConfig};
pub use sender::{OutSegment, Sender, SenderConfig};
