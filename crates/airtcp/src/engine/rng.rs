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

/// The integer form of probability `p` ∈ [0, 1] for [`RngStream::bernoulli_by_threshold`]:
/// `⌈p·2⁵³⌉`.
pub(crate) fn bernoulli_threshold(p: f64) -> u64 {
    debug_assert!((0.0..=1.0).contains(&p), "probability {p}");
    (p * (1u64 << 53) as f64).ceil() as u64
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

    /// [`RngStream::bernoulli`] of a probability given as its [`bernoulli_threshold`]: the same
    /// draw (none when the threshold is 0, as none for p = 0) and the same answer, by an integer
    /// comparison (issue 42: a uniform-loss hop's draw per packet).
    ///
    /// `uniform()` is `(u >> 11)·2⁻⁵³` for the stream's next `u64` `u` (rand's 53-bit
    /// multiply method), exact in `f64`; so `uniform() < p` holds exactly when the integer
    /// `u >> 11` is below the real `p·2⁵³`, that is below `⌈p·2⁵³⌉` (itself exact: a scaling by
    /// a power of two).
    #[inline]
    pub(crate) fn bernoulli_by_threshold(&mut self, threshold: u64) -> bool {
        threshold > 0 && (rand::RngCore::next_u64(&mut self.0) >> 11) < threshold
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

    proptest::proptest! {
        /// The integer form of a Bernoulli draw is the float one: the same answers and the same
        /// stream afterwards, for any probability (0 and 1, tiny ones, the seeds' 1%) and seed.
        #[test]
        fn bernoulli_by_threshold_is_bernoulli(
            p in proptest::prop_oneof![proptest::sample::select(vec![0.0, 1.0, 0.01, 1e-300, 0.5, f64::EPSILON, 1.0 - f64::EPSILON]), 0.0..=1.0f64],
            seed in 0u64..1000,
        ) {
            let (mut a, mut b) = (RngStream::new(seed, "x"), RngStream::new(seed, "x"));
            let t = super::bernoulli_threshold(p);
            // At the threshold itself, where a draw rarely lands: the 53-bit values k around it
            // compare below p as floats (rand's `k·2⁻⁵³`) exactly when below t as integers.
            for k in t.saturating_sub(2)..(t + 2).min(1 << 53) {
                proptest::prop_assert_eq!((k as f64) * (1.0 / (1u64 << 53) as f64) < p, k < t, "k {}", k);
            }
            for _ in 0..2000 {
                proptest::prop_assert_eq!(a.bernoulli(p), b.bernoulli_by_threshold(t));
            }
            proptest::prop_assert_eq!(a.uniform().to_bits(), b.uniform().to_bits());
        }
    }
}
