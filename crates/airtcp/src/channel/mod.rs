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
use crate::scenario::{ChannelSpec, EffectSpec};

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

fn effect_of(e: EffectSpec) -> Effect {
    match e {
        EffectSpec::Loss => Effect::Loss,
        EffectSpec::Corruption => Effect::Corruption,
    }
}

impl Channel {
    /// Builds the channel a scenario's channel table describes, its random streams derived from
    /// `seed` and `label`.
    pub fn from_spec(spec: &ChannelSpec, seed: u64, label: &str) -> Channel {
        let mut c = Self::model_from_spec(spec, RngStream::new(seed, label));
        if c.effect == Effect::Corruption {
            c.header_rng = Some(RngStream::new(seed, &format!("{label}:header")));
        }
        c
    }

    fn model_from_spec(spec: &ChannelSpec, rng: RngStream) -> Channel {
        match spec {
            ChannelSpec::None => Channel::PERFECT,
            ChannelSpec::Uniform(u) => {
                Channel { model: ErrorModel::Uniform(UniformLoss::new(u.loss, rng)), effect: effect_of(u.effect), header_rng: None }
            }
            ChannelSpec::GilbertElliott(g) => {
                let tr = match (g.p_stay_good, g.q_stay_bad, g.mean_good, g.mean_bad) {
                    (Some(p), Some(q), _, _) => Transitions::PerPacket { p_stay_good: p, q_stay_bad: q },
                    (_, _, Some(mg), Some(mb)) => {
                        Transitions::ContinuousTime { mean_good_ns: mg.as_nanos() as f64, mean_bad_ns: mb.as_nanos() as f64 }
                    }
                    _ => unreachable!("validated"),
                };
                Channel {
                    model: ErrorModel::GilbertElliott(GilbertElliott::new(tr, g.error_good, g.error_bad, rng)),
                    effect: effect_of(g.effect),
                    header_rng: None,
                }
            }
            ChannelSpec::Fading(f) => {
                let fd_t = match (f.fd_t, f.speed_kmh) {
                    (Some(d), _) => d,
                    (None, Some(v)) => fading::doppler_fd_t(
                        v,
                        f.carrier_hz.unwrap_or(fading::THESIS_EFFECTIVE_CARRIER_HZ),
                        f.packet_time.map_or(fading::THESIS_PACKET_TIME_NS, |t| t.as_nanos()),
                    ),
                    (None, None) => unreachable!("validated"),
                };
                // Thesis §2.3.1 [24]: error probability 0 in the good state, 1 in the bad one.
                let (leave_good, leave_bad) = fading::markov_complements(f.error_rate, fd_t);
                let tr = Transitions::PerPacket { p_stay_good: 1.0 - leave_good, q_stay_bad: 1.0 - leave_bad };
                Channel {
                    model: ErrorModel::GilbertElliott(GilbertElliott::new(tr, 0.0, 1.0, rng)),
                    effect: effect_of(f.effect),
                    header_rng: None,
                }
            }
        }
    }
}
