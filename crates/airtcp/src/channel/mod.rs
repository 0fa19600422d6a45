//! Channel models: what happens to a packet after it is serialized onto a link.
//! Each channel owns its random stream and attaches to one direction of a link.

pub mod fading;
pub mod uniform;

pub use uniform::UniformLoss;

/// The fate of one packet on a channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    Delivered,
    Lost,
}

/// A channel model (enum-dispatched: it is on every packet's path).
#[derive(Debug, Clone)]
pub enum Channel {
    /// Lossless.
    Perfect,
    Uniform(UniformLoss),
}

impl Channel {
    /// Decides the fate of the next packet of `size_bytes` on this channel.
    #[inline]
    pub fn fate(&mut self, size_bytes: u32) -> Fate {
        match self {
            Channel::Perfect => Fate::Delivered,
            Channel::Uniform(c) => c.fate(size_bytes),
        }
    }
}
