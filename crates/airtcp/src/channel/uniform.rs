//! Uniform (Bernoulli) packet loss: each packet is lost independently with probability `loss`,
//! whatever its size. This is the "packet loss rate instead of the BER" of TCP-Jersey §IV-A fn. 2.

use super::Fate;
use crate::engine::RngStream;

#[derive(Debug, Clone)]
pub struct UniformLoss {
    pub loss: f64,
    pub rng: RngStream,
}

impl UniformLoss {
    pub fn new(loss: f64, rng: RngStream) -> Self {
        UniformLoss { loss, rng }
    }

    #[inline]
    pub fn fate(&mut self, _size_bytes: u32) -> Fate {
        if self.rng.bernoulli(self.loss) {
            Fate::Lost
        } else {
            Fate::Delivered
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loss_rate_matches_binomial_bounds() {
        // 10^5 Bernoulli(0.01) trials: mean 1000, sd ≈ 31.5; ±5 sd.
        let mut c = UniformLoss::new(0.01, RngStream::new(11, "u"));
        let lost = (0..100_000).filter(|_| c.fate(1000) == Fate::Lost).count();
        assert!((843..=1157).contains(&lost), "lost {lost}");
    }
}
