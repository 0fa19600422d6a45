//! Gilbert–Elliott two-state channel: a hidden good/bad state, each with its own per-packet error
//! probability (Gilbert 1960; Elliott 1963).
//!
//! Two ways to drive the state, because the seeds use both:
//! - **per packet** (thesis §2.3.1, the matrix M_c = [[p, 1-p], [1-q, q]] of its ref. \[24\]): before
//!   each packet the chain takes one step; p = P(good → good), q = P(bad → bad). The Rayleigh-fading
//!   model (`fading`) is this chain with error probability 0 in good and 1 in bad.
//! - **continuous time** (CAIAD §4, Table I: "average 'good' period of t1 seconds and 'bad' period
//!   of t2 seconds"): the state holds for exponentially distributed sojourns with the given means,
//!   and a packet sees the state in force when its serialization starts. Our reading of Table I's
//!   "p = q = 0.5" is the stationary share of each state, t1/(t1+t2) — see REPRODUCTION.md.
//!
//! Per-state error probabilities are λ (good) and β (bad) in CAIAD's names. The chain starts in
//! its stationary distribution, so the long-run error rate holds from the first packet.

use crate::engine::RngStream;
use crate::spec::{err, period, probability, ScenarioError};
use crate::time::SimDuration;

use super::{ChannelKind, ChannelParams, Effect, ModelParams};

/// `kind = "gilbert-elliott"`: the chain per packet (`p_stay_good`, `q_stay_bad`) or in
/// continuous time (`mean_good`, `mean_bad`).
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct GilbertElliottSpec {
    /// P(good → good) per packet: the thesis's p.
    p_stay_good: Option<f64>,
    /// P(bad → bad) per packet: the thesis's q.
    q_stay_bad: Option<f64>,
    /// Mean sojourn in the good state (exponential): CAIAD's t1.
    mean_good: Option<SimDuration>,
    /// Mean sojourn in the bad state (exponential): CAIAD's t2.
    mean_bad: Option<SimDuration>,
    /// Error probability in the good state (CAIAD's λ).
    #[serde(default)]
    error_good: f64,
    /// Error probability in the bad state (CAIAD's β).
    #[serde(default = "one")]
    error_bad: f64,
    #[serde(default)]
    effect: Effect,
}

fn one() -> f64 {
    1.0
}

impl ChannelKind for GilbertElliottSpec {
    fn resolve(&self, field: &str) -> Result<ChannelParams, ScenarioError> {
        probability(format!("{field}.error_good"), self.error_good)?;
        probability(format!("{field}.error_bad"), self.error_bad)?;
        let transitions = match (self.p_stay_good, self.q_stay_bad, self.mean_good, self.mean_bad) {
            (Some(p), Some(q), None, None) => {
                probability(format!("{field}.p_stay_good"), p)?;
                probability(format!("{field}.q_stay_bad"), q)?;
                // Both 1: the chain never leaves its first state, and its stationary share of
                // bad packets, (1 − p)/(2 − p − q), is 0/0.
                if p == 1.0 && q == 1.0 {
                    return err(
                        format!("{field}.q_stay_bad"),
                        "p_stay_good and q_stay_bad are both 1: the channel never changes state (allowed: p_stay_good + q_stay_bad < 2)",
                    );
                }
                Transitions::PerPacket { p_stay_good: p, q_stay_bad: q }
            }
            (None, None, Some(g), Some(b)) => {
                period(format!("{field}.mean_good"), g)?;
                period(format!("{field}.mean_bad"), b)?;
                Transitions::ContinuousTime { mean_good_ns: g.as_nanos() as f64, mean_bad_ns: b.as_nanos() as f64 }
            }
            _ => {
                return err(
                    field,
                    "give either p_stay_good and q_stay_bad (per-packet transitions) or mean_good and mean_bad (continuous time)",
                )
            }
        };
        let model = ModelParams::GilbertElliott { transitions, error_good: self.error_good, error_bad: self.error_bad };
        Ok(ChannelParams { model, effect: self.effect })
    }
}

/// How the good/bad state evolves.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Transitions {
    /// One Markov step per packet: `p_stay_good` = p, `q_stay_bad` = q of the thesis's M_c.
    PerPacket { p_stay_good: f64, q_stay_bad: f64 },
    /// Exponential sojourns with these means, in nanoseconds.
    ContinuousTime { mean_good_ns: f64, mean_bad_ns: f64 },
}

impl Transitions {
    /// Long-run fraction of packets (per packet) or of time (continuous) spent in the bad state.
    pub(crate) fn stationary_bad(&self) -> f64 {
        match *self {
            // π_B = (1-p) / ((1-p) + (1-q)).
            Transitions::PerPacket { p_stay_good, q_stay_bad } => {
                let (g2b, b2g) = (1.0 - p_stay_good, 1.0 - q_stay_bad);
                if g2b + b2g == 0.0 {
                    0.0 // both states absorbing: we start (and stay) in good
                } else {
                    g2b / (g2b + b2g)
                }
            }
            Transitions::ContinuousTime { mean_good_ns, mean_bad_ns } => mean_bad_ns / (mean_good_ns + mean_bad_ns),
        }
    }
}

/// A Gilbert–Elliott channel's state and parameters.
#[derive(Debug, Clone)]
pub(crate) struct GilbertElliott {
    pub transitions: Transitions,
    /// Error probability of a packet sent in the good state (λ).
    pub error_good: f64,
    /// Error probability of a packet sent in the bad state (β).
    pub error_bad: f64,
    bad: bool,
    /// Continuous time: end of the current sojourn (ns). Unused per packet.
    sojourn_end_ns: f64,
    started: bool,
    rng: RngStream,
}

impl GilbertElliott {
    pub(crate) fn new(transitions: Transitions, error_good: f64, error_bad: f64, rng: RngStream) -> Self {
        GilbertElliott { transitions, error_good, error_bad, bad: false, sojourn_end_ns: 0.0, started: false, rng }
    }

    /// Long-run packet error rate: π_G·λ + π_B·β (per packet; per unit time in continuous time,
    /// which equals the per-packet rate when packets are sent independently of the state).
    #[cfg(test)]
    pub(crate) fn mean_error_rate(&self) -> f64 {
        let b = self.transitions.stationary_bad();
        (1.0 - b) * self.error_good + b * self.error_bad
    }

    /// Whether the state is bad now (for tests and traces).
    #[cfg(test)]
    pub(crate) fn is_bad(&self) -> bool {
        self.bad
    }

    /// Advances the state to the packet whose serialization starts at `t_ns` (non-decreasing per
    /// channel) and draws whether that packet is hit.
    #[inline]
    pub(crate) fn hit(&mut self, t_ns: u64) -> bool {
        self.advance(t_ns as f64);
        let p = if self.bad { self.error_bad } else { self.error_good };
        // Certain outcomes draw nothing, so a 0/1 channel consumes only the state's randomness.
        if p >= 1.0 {
            true
        } else {
            self.rng.bernoulli(p)
        }
    }

    fn advance(&mut self, t: f64) {
        match self.transitions {
            Transitions::PerPacket { p_stay_good, q_stay_bad } => {
                if !self.started {
                    // The first packet's state comes from the stationary distribution.
                    self.started = true;
                    self.bad = self.rng.bernoulli(self.transitions.stationary_bad());
                } else {
                    // Thesis §2.3.1: P(good | good) = p, P(good | bad) = 1 - q.
                    let stay = if self.bad { q_stay_bad } else { p_stay_good };
                    if !(stay >= 1.0 || self.rng.uniform() < stay) {
                        self.bad = !self.bad;
                    }
                }
            }
            Transitions::ContinuousTime { mean_good_ns, mean_bad_ns } => {
                if !self.started {
                    // Stationary start; by memorylessness the residual sojourn has the full mean.
                    self.started = true;
                    self.bad = self.rng.bernoulli(self.transitions.stationary_bad());
                    let mean = if self.bad { mean_bad_ns } else { mean_good_ns };
                    self.sojourn_end_ns = self.rng.exponential(mean);
                }
                while self.sojourn_end_ns <= t {
                    self.bad = !self.bad;
                    let mean = if self.bad { mean_bad_ns } else { mean_good_ns };
                    self.sojourn_end_ns += self.rng.exponential(mean);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Loss rate and mean burst (run of consecutive hits) over `n` packets one `gap_ns` apart.
    pub(crate) fn measure(c: &mut GilbertElliott, n: u64, gap_ns: u64) -> (f64, f64) {
        let (mut hits, mut bursts, mut prev) = (0u64, 0u64, false);
        for i in 0..n {
            let h = c.hit(i * gap_ns);
            hits += h as u64;
            if h && !prev {
                bursts += 1;
            }
            prev = h;
        }
        (hits as f64 / n as f64, hits as f64 / bursts.max(1) as f64)
    }

    #[test]
    fn per_packet_gilbert_matches_analytic_rate_and_burst_length() {
        // Classic Gilbert (β = 1, λ = 0): rate π_B = (1-p)/(2-p-q), mean burst 1/(1-q).
        let (p, q) = (0.95, 0.7);
        let mut c = GilbertElliott::new(Transitions::PerPacket { p_stay_good: p, q_stay_bad: q }, 0.0, 1.0, RngStream::new(3, "ge"));
        let (rate, burst) = measure(&mut c, 1_000_000, 1);
        let want_rate = 0.05 / 0.35;
        let want_burst = 1.0 / 0.3;
        assert!((rate / want_rate - 1.0).abs() < 0.02, "rate {rate} vs {want_rate}");
        assert!((burst / want_burst - 1.0).abs() < 0.02, "burst {burst} vs {want_burst}");
    }

    #[test]
    fn continuous_time_error_rate_is_time_share_times_beta() {
        // CAIAD Table I: t1 = t2 = 0.1 s, λ = 0, β = 0.2; packets every 4 ms for 10^6 packets
        // (4000 s, ~20000 sojourns): rate = 0.5 · 0.2.
        let t = Transitions::ContinuousTime { mean_good_ns: 1e8, mean_bad_ns: 1e8 };
        let mut c = GilbertElliott::new(t, 0.0, 0.2, RngStream::new(5, "ge"));
        assert_eq!(c.mean_error_rate(), 0.1);
        let (rate, _) = measure(&mut c, 1_000_000, 4_000_000);
        assert!((rate / 0.1 - 1.0).abs() < 0.03, "rate {rate}");
    }

    #[test]
    fn certain_states_consume_no_error_draws() {
        // With λ = 0 and β = 1 the hit sequence is exactly the state sequence.
        let t = Transitions::PerPacket { p_stay_good: 0.9, q_stay_bad: 0.5 };
        let mut c = GilbertElliott::new(t, 0.0, 1.0, RngStream::new(9, "ge"));
        for i in 0..1000 {
            let h = c.hit(i);
            assert_eq!(h, c.is_bad());
        }
    }
}
