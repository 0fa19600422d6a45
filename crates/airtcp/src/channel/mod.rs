//! Channel models: what happens to a packet after it is serialized onto a link.
//! Each channel owns its random stream and attaches to one direction of a link, so data-path and
//! ACK-path errors are configured (and studied) independently.
//!
//! A channel decides *whether* a packet is hit; its [`Effect`] decides *what* a hit does: the
//! packet vanishes (loss), or it arrives with a bad checksum (corruption) — the distinction CAIAD's
//! corruption-aware receiver exploits.
//!
//! Only error models live here; how fast a link serves packets (a constant rate, a rate schedule, a
//! trace, an HSDPA cell) is the link's capacity model, in `net::capacity`.

pub mod fading;
pub mod gilbert_elliott;
pub mod uniform;

pub use gilbert_elliott::{GilbertElliott, Transitions};
pub use uniform::UniformLoss;

use crate::engine::RngStream;
use crate::scenario::EffectSpec;

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
    /// Corruption only: draws whether a corruption hit the header (its own stream, so the error
    /// model's draws do not depend on packet sizes).
    pub header_rng: Option<RngStream>,
}

impl Channel {
    /// A lossless channel.
    pub const PERFECT: Channel = Channel { model: ErrorModel::Perfect, effect: Effect::Loss, header_rng: None };

    /// Decides the fate of the next packet, of `size_bytes` of which `header_bytes` are headers,
    /// whose serialization starts at `start_ns` (non-decreasing across calls on one channel).
    ///
    /// A corruption lands anywhere in the packet with equal chance per byte, so it hits the header
    /// with probability `header_bytes / size_bytes`; the receiver then cannot tell whose segment
    /// it was, and the packet is lost (CAIAD §4: only payload corruption is recoverable
    /// information). A pure ACK is all header.
    #[inline]
    pub fn fate(&mut self, size_bytes: u32, header_bytes: u32, start_ns: u64) -> Fate {
        let hit = match &mut self.model {
            ErrorModel::Perfect => false,
            ErrorModel::Uniform(c) => c.hit(size_bytes),
            ErrorModel::GilbertElliott(c) => c.hit(start_ns),
        };
        match (hit, self.effect) {
            (false, _) => Fate::Delivered,
            (true, Effect::Loss) => Fate::Lost,
            (true, Effect::Corruption) => {
                let rng = self.header_rng.as_mut().expect("a corrupting channel has a header stream");
                if header_bytes >= size_bytes || rng.uniform() * (size_bytes as f64) < header_bytes as f64 {
                    Fate::Lost
                } else {
                    Fate::Corrupted
                }
            }
        }
    }
}

/// A channel's parameters, resolved once from its scenario table (by
/// `scenario::validate::resolve_channel`): the alternatives a table may give — Gilbert–Elliott
/// per packet or in continuous time, fading by `fd_t` or by speed — are settled into the one
/// model the channel runs, so building a channel cannot meet a combination it would have to trust
/// validation about.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChannelParams {
    /// Which packets are hit.
    pub model: ModelParams,
    /// What a hit does.
    pub effect: Effect,
}

/// The parameters of an [`ErrorModel`], without its random stream (which depends on the seed).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ModelParams {
    /// Never.
    Perfect,
    /// Independently with probability `loss`.
    Uniform { loss: f64 },
    /// By a two-state Markov chain (a fading channel is one, with errors 0 and 1).
    GilbertElliott { transitions: Transitions, error_good: f64, error_bad: f64 },
}

impl ChannelParams {
    /// A lossless channel (`kind = "none"`).
    pub const PERFECT: ChannelParams = ChannelParams { model: ModelParams::Perfect, effect: Effect::Loss };
}

impl From<EffectSpec> for Effect {
    fn from(e: EffectSpec) -> Effect {
        match e {
            EffectSpec::Loss => Effect::Loss,
            EffectSpec::Corruption => Effect::Corruption,
        }
    }
}

impl Channel {
    /// Builds the channel `params` describe, its random streams derived from `seed` and `label`.
    pub fn new(params: &ChannelParams, seed: u64, label: &str) -> Channel {
        let model = match params.model {
            ModelParams::Perfect => return Channel::PERFECT,
            ModelParams::Uniform { loss } => ErrorModel::Uniform(UniformLoss::new(loss, RngStream::new(seed, label))),
            ModelParams::GilbertElliott { transitions, error_good, error_bad } => {
                ErrorModel::GilbertElliott(GilbertElliott::new(transitions, error_good, error_bad, RngStream::new(seed, label)))
            }
        };
        let header_rng = (params.effect == Effect::Corruption).then(|| RngStream::new(seed, &format!("{label}:header")));
        Channel { model, effect: params.effect, header_rng }
    }
}
