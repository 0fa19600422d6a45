//! Independent random streams, one per random component.
//!
//! Each stream is seeded from (scenario seed, a stable label such as "channel:BS->D"), so adding a
//! flow or a link does not change the random draws of any other component.

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// 64-bit FNV-1a of a label: stable across platforms and releases (unlike `std`'s hasher).
fn fnv1a(label: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in label.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// SplitMix64 finalizer: spreads nearby inputs (seed 1, seed 2) over the whole 64-bit space.
fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The seed of the stream named `label` in a run seeded with `seed`.
pub(crate) fn stream_seed(seed: u64, label: &str) -> u64 {
    splitmix64(splitmix64(seed) ^ fnv1a(label))
}

/// One component's random stream.
#[derive(Debug, Clone)]
pub struct RngStream(Xoshiro256PlusPlus);

impl RngStream {
    pub fn new(seed: u64, label: &str) -> Self {
        RngStream(Xoshiro256PlusPlus::seed_from_u64(stream_seed(seed, label)))
    }

    /// Uniform draw in [0, 1).
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        self.0.random::<f64>()
    }

    /// True with probability `p`.
    #[inline]
    pub fn bernoulli(&mut self, p: f64) -> bool {
        p > 0.0 && self.uniform() < p
    }

    /// Exponential draw with the given mean.
    pub(crate) fn exponential(&mut self, mean: f64) -> f64 {
        -mean * (1.0 - self.uniform()).ln()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let mut a = RngStream::new(7, "channel:A->B");
        let mut b = RngStream::new(7, "channel:A->B");
        let mut c = RngStream::new(7, "channel:B->A");
        let xa: Vec<f64> = (0..4).map(|_| a.uniform()).collect();
        let xb: Vec<f64> = (0..4).map(|_| b.uniform()).collect();
        let xc: Vec<f64> = (0..4).map(|_| c.uniform()).collect();
        assert_eq!(xa, xb);
        assert_ne!(xa, xc);
    }
}
