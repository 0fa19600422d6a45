//! Channel models: what happens to a packet after it is serialized onto a link.
//! Each channel owns its random stream and attaches to one direction of a link, so data-path and
//! ACK-path errors are configured (and studied) independently.
//!
//! A channel decides *whether* a packet is hit; its `Effect` decides *what* a hit does: the
//! packet vanishes (loss), or it arrives with a bad checksum (corruption) — the distinction CAIAD's
//! corruption-aware receiver exploits.
//!
//! Each kind is a plug-in: its file owns its scenario table (serde), the checks of that table with
//! field paths, and what it resolves into (`ChannelParams`); `REGISTRY` lists the kinds, one
//! line each. A new channel is one file plus one line there: a model the built-in error models
//! cannot express resolves into `ModelParams::Custom` with its own `HitModel`.
//!
//! Only error models live here; how fast a link serves packets (a constant rate, a rate schedule, a
//! trace, an HSDPA cell) is the link's capacity model, in `net::capacity`.

pub(crate) mod fading;
pub(crate) mod gilbert_elliott;
pub(crate) mod uniform;

pub(crate) use gilbert_elliott::{GilbertElliott, Transitions};
pub(crate) use uniform::UniformLoss;

use std::sync::Arc;

use crate::engine::RngStream;
use crate::spec::{Entry, ScenarioError};

/// A channel kind's scenario table, deserialized: it checks its values (errors name
/// `<field>.<key>`) and resolves the one model it describes.
pub(crate) trait ChannelKind: std::fmt::Debug + Send + Sync {
    fn resolve(&self, field: &str) -> Result<ChannelParams, ScenarioError>;
}

/// Every channel kind a scenario may name, in the order error messages list them. Adding a
/// channel is one file in this folder and one line here.
pub(crate) const REGISTRY: &[Entry<dyn ChannelKind>] = &[
    kind::<NoChannelSpec>("none"),
    kind::<uniform::UniformSpec>("uniform"),
    kind::<gilbert_elliott::GilbertElliottSpec>("gilbert-elliott"),
    kind::<fading::FadingSpec>("fading"),
];

/// The registry line of the channel kind whose table deserializes into `T`.
const fn kind<T: serde::de::DeserializeOwned + ChannelKind + 'static>(name: &'static str) -> Entry<dyn ChannelKind> {
    fn parse<T: serde::de::DeserializeOwned + ChannelKind + 'static>(v: toml::Value) -> Result<Arc<dyn ChannelKind>, String> {
        Ok(Arc::new(crate::spec::table::<T>(v)?))
    }
    Entry { name, parse: parse::<T> }
}

/// A link direction's `channel` table as the scenario gives it: its kind and that kind's spec.
#[derive(Debug, Clone)]
pub(crate) struct ChannelSpec {
    kind: &'static str,
    spec: Arc<dyn ChannelKind>,
}

impl Default for ChannelSpec {
    /// `kind = "none"`: every packet arrives.
    fn default() -> Self {
        ChannelSpec { kind: "none", spec: Arc::new(NoChannelSpec {}) }
    }
}

impl<'de> serde::Deserialize<'de> for ChannelSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        crate::spec::tagged(d, "channel", REGISTRY).map(|(kind, spec)| ChannelSpec { kind, spec })
    }
}

impl ChannelSpec {
    /// Whether this is `kind = "none"` (a lossless channel).
    pub(crate) fn is_none(&self) -> bool {
        self.kind == "none"
    }

    /// Checks the table and resolves it into the parameters of the one model it describes
    /// (`p_stay_good`/`q_stay_bad` or `mean_good`/`mean_bad`; `fd_t` or `speed_kmh`); errors name
    /// `field` and the key.
    pub(crate) fn resolve(&self, field: &str) -> Result<ChannelParams, ScenarioError> {
        self.spec.resolve(field)
    }
}

/// `kind = "none"` takes no other keys.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct NoChannelSpec {}

impl ChannelKind for NoChannelSpec {
    fn resolve(&self, _field: &str) -> Result<ChannelParams, ScenarioError> {
        Ok(ChannelParams::PERFECT)
    }
}

/// A channel model that is not one of the built-in ones ([`ModelParams::Custom`]): whether the
/// next packet, of `size_bytes`, whose serialization starts at `start_ns`, is hit. The built-in
/// models are enum-dispatched instead, since they are on every packet's path in the experiments.
pub(crate) trait HitModel: std::fmt::Debug + Send {
    fn hit(&mut self, size_bytes: u32, start_ns: u64) -> bool;
    /// A copy (a channel is cloned with the link it serves).
    fn clone_box(&self) -> Box<dyn HitModel>;
}

/// Builds a [`HitModel`] with its random stream: what a custom channel kind resolves into.
pub(crate) trait MakeHitModel: std::fmt::Debug + Send + Sync {
    fn make(&self, rng: RngStream) -> Box<dyn HitModel>;
}

impl Clone for Box<dyn HitModel> {
    fn clone(&self) -> Self {
        self.clone_box()
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

/// What a hit does to the packet (a channel table's `effect`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Effect {
    /// The packet vanishes.
    #[default]
    Loss,
    /// The packet arrives with a damaged payload (a checksum failure at the receiver).
    Corruption,
}

/// Which packets a channel hits (enum-dispatched: it is on every packet's path).
#[derive(Debug, Clone)]
pub(crate) enum ErrorModel {
    /// Never.
    Perfect,
    /// Independently with a fixed probability.
    Uniform(UniformLoss),
    /// By a two-state (good/bad) Markov chain.
    GilbertElliott(GilbertElliott),
    /// By a model of a plug-in channel kind.
    Custom(Box<dyn HitModel>),
}

/// One direction's channel: an error model and the effect of its hits.
#[derive(Debug, Clone)]
pub struct Channel {
    pub(crate) model: ErrorModel,
    pub(crate) effect: Effect,
    /// Corruption only: draws whether a corruption hit the header (its own stream, so the error
    /// model's draws do not depend on packet sizes).
    pub(crate) header_rng: Option<RngStream>,
}

impl Channel {
    /// A lossless channel.
    pub(crate) const PERFECT: Channel = Channel { model: ErrorModel::Perfect, effect: Effect::Loss, header_rng: None };

    /// Decides the fate of the next packet, of `size_bytes` of which `header_bytes` are headers,
    /// whose serialization starts at `start_ns` (non-decreasing across calls on one channel).
    ///
    /// A corruption lands anywhere in the packet with equal chance per byte, so it hits the header
    /// with probability `header_bytes / size_bytes`; the receiver then cannot tell whose segment
    /// it was, and the packet is lost (CAIAD §4: only payload corruption is recoverable
    /// information). A pure ACK is all header.
    ///
    /// A perfect channel (`kind = "none"`, most links) is decided here, inline, without a call:
    /// the offer path of a lossless link pays one test of the model's tag (issue 42: the
    /// out-of-line call cost 22 instructions per packet).
    #[inline(always)]
    pub fn fate(&mut self, size_bytes: u32, header_bytes: u32, start_ns: u64) -> Fate {
        self.fate_with(size_bytes, || header_bytes, start_ns)
    }

    /// [`Channel::fate`] with the header's size worked out only by the models that read it
    /// (corruption): a link's offer path then computes it only there (issue 42: some 15
    /// instructions per packet on a lossy hop, for the payload's size by the packet's kind).
    #[inline(always)]
    pub(crate) fn fate_with(&mut self, size_bytes: u32, header_bytes: impl FnOnce() -> u32, start_ns: u64) -> Fate {
        if let ErrorModel::Perfect = self.model {
            return Fate::Delivered;
        }
        // Uniform loss, the seeds' wireless hop, is one draw: inline too (issue 42: the call,
        // the prologue its other models need and the match cost some 25 instructions per packet).
        if let (ErrorModel::Uniform(c), Effect::Loss) = (&mut self.model, self.effect) {
            return if c.hit(size_bytes) { Fate::Lost } else { Fate::Delivered };
        }
        self.draw_fate(size_bytes, header_bytes(), start_ns)
    }

    /// Whether every packet is delivered (`kind = "none"`): the link's offer path then skips the
    /// fate altogether.
    #[inline(always)]
    pub(crate) fn is_perfect(&self) -> bool {
        matches!(self.model, ErrorModel::Perfect)
    }

    /// [`Channel::fate`] of a channel that may hit the packet: its model draws.
    #[inline(never)]
    fn draw_fate(&mut self, size_bytes: u32, header_bytes: u32, start_ns: u64) -> Fate {
        let hit = match &mut self.model {
            ErrorModel::Perfect => false,
            ErrorModel::Uniform(c) => c.hit(size_bytes),
            ErrorModel::GilbertElliott(c) => c.hit(start_ns),
            ErrorModel::Custom(c) => custom_hit(c, size_bytes, start_ns),
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

/// A plug-in model's decision, out of line so that the built-in models' path stays as it was.
#[cold]
#[inline(never)]
fn custom_hit(model: &mut Box<dyn HitModel>, size_bytes: u32, start_ns: u64) -> bool {
    model.hit(size_bytes, start_ns)
}

/// A channel's parameters, resolved once from its scenario table (by its kind's
/// `ChannelKind::resolve`): the alternatives a table may give — Gilbert–Elliott
/// per packet or in continuous time, fading by `fd_t` or by speed — are settled into the one
/// model the channel runs, so building a channel cannot meet a combination it would have to trust
/// validation about.
#[derive(Debug, Clone)]
pub(crate) struct ChannelParams {
    /// Which packets are hit.
    pub model: ModelParams,
    /// What a hit does.
    pub effect: Effect,
}

/// The parameters of an [`ErrorModel`], without its random stream (which depends on the seed).
#[derive(Debug, Clone)]
pub(crate) enum ModelParams {
    /// Never.
    Perfect,
    /// Independently with probability `loss`.
    Uniform { loss: f64 },
    /// By a two-state Markov chain (a fading channel is one, with errors 0 and 1).
    GilbertElliott { transitions: Transitions, error_good: f64, error_bad: f64 },
    /// By a plug-in kind's own model: the hook a new channel kind's file uses without touching
    /// this enum (none of the built-in kinds needs it).
    #[allow(dead_code, reason = "the plug-in hook of channel kinds; no built-in kind uses it")]
    Custom(Arc<dyn MakeHitModel>),
}

impl ChannelParams {
    /// A lossless channel (`kind = "none"`).
    pub(crate) const PERFECT: ChannelParams = ChannelParams { model: ModelParams::Perfect, effect: Effect::Loss };
}

impl Channel {
    /// Builds the channel `params` describe, its random streams derived from `seed` and `label`.
    pub(crate) fn new(params: &ChannelParams, seed: u64, label: &str) -> Channel {
        let model = match &params.model {
            ModelParams::Perfect => return Channel::PERFECT,
            // A uniform channel of loss 0 never hits (`RngStream::bernoulli(0)` does not even
            // draw), so it is the perfect channel, and the link's offer path skips its fate
            // (issue 42: the lossless Fig. 10 path's wireless hop is `uniform` with loss 0).
            // Its stream is its own: no other component's draws move.
            ModelParams::Uniform { loss } if *loss == 0.0 => return Channel::PERFECT,
            ModelParams::Uniform { loss } => ErrorModel::Uniform(UniformLoss::new(*loss, RngStream::new(seed, label))),
            ModelParams::GilbertElliott { transitions, error_good, error_bad } => {
                ErrorModel::GilbertElliott(GilbertElliott::new(*transitions, *error_good, *error_bad, RngStream::new(seed, label)))
            }
            ModelParams::Custom(m) => ErrorModel::Custom(m.make(RngStream::new(seed, label))),
        };
        let header_rng = (params.effect == Effect::Corruption).then(|| RngStream::new(seed, &format!("{label}:header")));
        Channel { model, effect: params.effect, header_rng }
    }
}

#[cfg(test)]
mod tests {
    use super::{Channel, ChannelParams, Effect, Fate, ModelParams};
    use crate::channel::uniform::UniformLoss;
    use crate::engine::RngStream;

    /// A uniform channel of loss 0 is built as the perfect channel (whose fate the link decides
    /// inline). That is exact: the model it replaces never hits, and never draws from its stream,
    /// so no later draw of the run could have differed.
    #[test]
    fn a_uniform_channel_of_loss_0_is_the_perfect_one() {
        for effect in [Effect::Loss, Effect::Corruption] {
            let c = Channel::new(&ChannelParams { model: ModelParams::Uniform { loss: 0.0 }, effect }, 7, "l");
            assert!(c.is_perfect());
            let lossy = Channel::new(&ChannelParams { model: ModelParams::Uniform { loss: 1e-9 }, effect }, 7, "l");
            assert!(!lossy.is_perfect());
        }
        let mut replaced = UniformLoss::new(0.0, RngStream::new(7, "l"));
        assert!((0..100_000).all(|_| !replaced.hit(1000)));
        // Its stream has not moved: its next draw is a fresh stream's first.
        assert_eq!(replaced.rng.uniform().to_bits(), RngStream::new(7, "l").uniform().to_bits());
        assert_eq!(
            Channel::new(&ChannelParams { model: ModelParams::Uniform { loss: 0.0 }, effect: Effect::Loss }, 7, "l").fate(1000, 40, 0),
            Fate::Delivered
        );
    }
}
