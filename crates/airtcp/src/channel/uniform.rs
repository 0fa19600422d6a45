//! Uniform (Bernoulli) packet errors: each packet is hit (lost or corrupted) independently with probability `loss`,
//! whatever its size. This is the "packet loss rate instead of the BER" of TCP-Jersey §IV-A fn. 2.

use crate::engine::RngStream;

use super::{ChannelKind, ChannelParams, Effect, ModelParams};
use crate::spec::{probability, ScenarioError};

/// `kind = "uniform"`: each packet is hit independently with probability `loss`.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct UniformSpec {
    #[serde(alias = "error_rate")]
    loss: f64,
    #[serde(default)]
    effect: Effect,
}

impl ChannelKind for UniformSpec {
    fn resolve(&self, field: &str) -> Result<ChannelParams, ScenarioError> {
        probability(format!("{field}.loss"), self.loss)?;
        Ok(ChannelParams { model: ModelParams::Uniform { loss: self.loss }, effect: self.effect })
    }
}

#[derive(Debug, Clone)]
pub(crate) struct UniformLoss {
    /// The loss probability as the integer threshold of its draw
    /// ([`crate::engine::rng::bernoulli_threshold`]).
    threshold: u64,
    pub rng: RngStream,
}

impl UniformLoss {
    pub(crate) fn new(loss: f64, rng: RngStream) -> Self {
        UniformLoss { threshold: crate::engine::rng::bernoulli_threshold(loss), rng }
    }

    /// Whether the next packet is hit: `rng.bernoulli(loss)`, drawn as an integer comparison.
    #[inline]
    pub(crate) fn hit(&mut self, _size_bytes: u32) -> bool {
        self.rng.bernoulli_by_threshold(self.threshold)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loss_rate_matches_binomial_bounds() {
        // 10^5 Bernoulli(0.01) trials: mean 1000, sd ≈ 31.5; ±5 sd.
        let mut c = UniformLoss::new(0.01, RngStream::new(11, "u"));
        let lost = (0..100_000).filter(|_| c.hit(1000)).count();
        assert!((843..=1157).contains(&lost), "lost {lost}");
    }
}
