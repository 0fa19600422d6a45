//! TCP Westwood+ (Grieco & Mascolo, "Performance evaluation and comparison of Westwood+, New Reno,
//! and Vegas TCP congestion control", ACM CCR 34(2), 2004; Mascolo et al., Performance Evaluation
//! 55, 2004): Westwood with the bandwidth sampled once per RTT instead of once per ACK.
//!
//! The TCP Prairie thesis (Parvez 2004) describes only the original Westwood (§4.2, eqs. 4.1–4.2: one sample per
//! ACK, Tustin filter); it shows (§4.3) how per-ACK samples overestimate the bandwidth when ACKs
//! are compressed — the flaw Westwood+ was designed to remove. Westwood+ as Grieco & Mascolo give it:
//! - sample, once per RTT: b_k = d_k / Δ_k, where d_k is the data acknowledged during the last
//!   interval Δ_k ≈ RTT (the interval closes at the first ACK at least one RTT after it opened);
//! - filter: the discrete EWMA b̂_k = α·b̂_{k−1} + (1 − α)·b_k with α = 0.9;
//! - decrease exactly as Westwood (thesis §4.2 pseudocode, Jersey eq. 3): on n duplicate ACKs
//!   ssthresh = b̂·RTT_min, cwnd = min(cwnd, ssthresh); on a timeout ssthresh likewise (at least 2
//!   segments) and cwnd = 1 segment. Growth is Reno's. That part, and the AckedCount of duplicate
//!   ACKs, is the code of [`super::westwood::Westwood`], which this scheme instantiates with
//!   [`PerRttEstimator`].
//!
//! Readings where the sources are silent (tested in `tests`):
//! - "RTT" is the sender's smoothed RTT (RFC 6298 SRTT) at the time of the ACK, floored at
//!   `min_interval` = 50 ms by default: Linux's `tcp_westwood.c` (written by the Westwood+
//!   authors) uses max(SRTT, 50 ms), because samples over shorter intervals are dominated by ACK
//!   burstiness. Before the first RTT sample (SRTT unknown) the interval is `min_interval`.
//! - d_k counts the ACKs in (t_{k−1}, t_k]: the ACK that opens an interval belongs to the previous
//!   one, the ACK that closes it to this one. The very first ACK only opens the first interval.
//! - The first sample initializes the estimate (b̂_1 = b_1), as Linux does; from 0 the estimate
//!   would need ~20 RTTs at α = 0.9 to approach the rate.
//! - Silence produces no sample (no τ/m zero samples as in Westwood): the interval simply grows
//!   until the next ACK, whose sample is then correspondingly low.

use serde::Deserialize;

use super::estimators::BandwidthEstimator;
use super::reno::{Growth, LinuxNs2Growth};
use super::westwood::{Decrease, Westwood};
use crate::time::{SimDuration, SimTime, NS_PER_S};

/// Westwood+'s parameters (`[flows.cc_params]` with `cc = "westwood-plus"`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct WestwoodPlusParams {
    /// EWMA weight of the previous estimate, 0 ≤ α < 1 (Grieco & Mascolo: 0.9).
    #[serde(default = "default_alpha")]
    pub alpha: f64,
    /// Shortest sampling interval: a sample spans max(SRTT, min_interval) (Linux: 50 ms).
    #[serde(default = "default_min_interval")]
    pub min_interval: SimDuration,
    /// One EWMA (Grieco & Mascolo) or two cascaded ones (Linux `tcp_westwood.c`).
    #[serde(default)]
    pub filter: PlusFilter,
    /// How a loss cuts the window.
    #[serde(default)]
    pub decrease: Decrease,
    /// Where RTT_min comes from.
    #[serde(default)]
    pub rtt_min: RttMinSource,
    /// How the window grows between losses (Reno's per-ACK growth, or ns-2.35 TCP-Linux's byte
    /// counting).
    #[serde(default)]
    pub growth: Growth,
    /// The estimator's arithmetic: real numbers, or the module's integers as ns-2.35 runs it.
    #[serde(default)]
    pub arithmetic: Arithmetic,
}

/// Westwood+'s estimator arithmetic (`cc_params.arithmetic`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Arithmetic {
    /// Real numbers: times in ns, rates in bytes per second.
    #[default]
    Exact,
    /// Linux 2.6.22 `tcp_westwood.c` in ns-2.35's TCP-Linux, whose clock is the 1-ms jiffy
    /// (`tcp_time_stamp = trunc(now·1000)`, `JIFFY_RATIO 1000`): the interval in whole jiffies,
    /// closed by the first ACK with Δ > max(RTT, `min_interval`) in jiffies (RTT = SRTT in whole
    /// ms, `w->rtt = srtt >> 3`), the closing ACK's bytes counted in the next interval
    /// (`westwood_update_window` runs before `bk +=`), the sample ⌊bk/Δ⌋ bytes per jiffy and each
    /// filter step rounded down (`(7a + b) >> 3` with α = 7/8); the filter refills from a sample
    /// whenever both stages are 0. With `decrease = "linux-ns2"`, BWE·RTT_min =
    /// ⌊bw_est·rtt_min/MSS⌋ as before.
    LinuxNs2,
}

/// Westwood+'s filter (`cc_params.filter`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum PlusFilter {
    /// Grieco & Mascolo: b̂_k = α·b̂_{k−1} + (1 − α)·b_k.
    #[default]
    Ewma,
    /// Linux `westwood_filter`: bw_ns_est = α·bw_ns_est + (1 − α)·b_k, then
    /// bw_est = α·bw_est + (1 − α)·bw_ns_est (two cascaded EWMAs, α = 7/8 in Linux); the first
    /// sample fills both.
    Cascade,
}

/// Where Westwood+'s RTT_min comes from (`cc_params.rtt_min`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum RttMinSource {
    /// The least RTT sample (the sender's min RTT).
    #[default]
    Sample,
    /// The least smoothed RTT seen on an ACK (Linux 2.6.22 `tcp_westwood.c`: `w->rtt = srtt`).
    Srtt,
}

fn default_alpha() -> f64 {
    0.9
}
fn default_min_interval() -> SimDuration {
    SimDuration::from_millis(50)
}

impl WestwoodPlusParams {
    /// One-line error naming the field and its allowed range.
    pub(crate) fn check(&self) -> Result<(), String> {
        if !(0.0..1.0).contains(&self.alpha) {
            return Err(format!("alpha: {} is out of range (allowed: 0 <= alpha < 1)", self.alpha));
        }
        Ok(())
    }
}

/// Westwood+'s bandwidth estimator: one sample per RTT, EWMA-filtered.
#[derive(Debug, Clone)]
pub(crate) struct PerRttEstimator {
    alpha: f64,
    min_interval_ns: u64,
    /// b̂, bytes per second (0 before the first sample).
    pub estimate: f64,
    /// The first stage of the cascade (Linux `bw_ns_est`), when [`PlusFilter::Cascade`].
    first_stage: Option<f64>,
    /// t_{k−1}: when the current interval opened (None before the first ACK).
    interval_start: Option<SimTime>,
    /// d_k so far: bytes reported delivered since `interval_start`.
    interval_bytes: u64,
    /// Number of samples taken.
    pub samples: u64,
    /// [`Arithmetic::LinuxNs2`]: `interval_start` is in whole jiffies (ms), the stages in bytes
    /// per jiffy.
    jiffies: bool,
}

impl PerRttEstimator {
    /// An estimator with no interval open and no estimate (0) yet.
    pub(crate) fn new(p: &WestwoodPlusParams) -> Self {
        PerRttEstimator {
            alpha: p.alpha,
            min_interval_ns: p.min_interval.as_nanos(),
            estimate: 0.0,
            first_stage: (p.filter == PlusFilter::Cascade).then_some(0.0),
            interval_start: None,
            interval_bytes: 0,
            samples: 0,
            jiffies: p.arithmetic == Arithmetic::LinuxNs2,
        }
    }
}

impl BandwidthEstimator for PerRttEstimator {
    fn on_delivered(&mut self, now: SimTime, bytes: u64, srtt_ns: u64) {
        if self.jiffies {
            self.on_delivered_jiffies(now, bytes, srtt_ns);
            return;
        }
        let Some(start) = self.interval_start else {
            self.interval_start = Some(now);
            return;
        };
        self.interval_bytes += bytes;
        let delta = now - start;
        if delta == 0 || delta < srtt_ns.max(self.min_interval_ns) {
            return;
        }
        // Grieco & Mascolo: b_k = d_k / Δ_k, b̂_k = α·b̂_{k−1} + (1 − α)·b_k.
        let b = self.interval_bytes as f64 * NS_PER_S as f64 / delta as f64;
        let a = self.alpha;
        match &mut self.first_stage {
            // Grieco & Mascolo: b̂_k = α·b̂_{k−1} + (1 − α)·b_k.
            None => self.estimate = if self.samples == 0 { b } else { a * self.estimate + (1.0 - a) * b },
            // tcp_westwood.c `westwood_filter`: "If the filter is empty fill it with the first
            // sample", else bw_ns_est = filter(bw_ns_est, b), bw_est = filter(bw_est, bw_ns_est).
            Some(ns) => {
                if self.samples == 0 {
                    *ns = b;
                    self.estimate = b;
                } else {
                    *ns = a * *ns + (1.0 - a) * b;
                    self.estimate = a * self.estimate + (1.0 - a) * *ns;
                }
            }
        }
        self.samples += 1;
        self.interval_start = Some(now);
        self.interval_bytes = 0;
    }

    fn bytes_per_s(&self) -> f64 {
        self.estimate
    }
}

impl PerRttEstimator {
    /// [`Arithmetic::LinuxNs2`]: `tcp_westwood.c`'s `westwood_update_window`, `westwood_filter`
    /// and `bk +=` in whole jiffies and bytes per jiffy (`estimate` keeps bytes per second, a
    /// whole number of bytes per jiffy × 1000).
    fn on_delivered_jiffies(&mut self, now: SimTime, bytes: u64, srtt_ns: u64) {
        const NS_PER_JIFFY: u64 = 1_000_000;
        let now_j = now / NS_PER_JIFFY;
        let Some(start) = self.interval_start else {
            self.interval_start = Some(now_j);
            return;
        };
        let delta = now_j - start;
        let rtt = srtt_ns / NS_PER_JIFFY;
        if rtt > 0 && delta > rtt.max(self.min_interval_ns / NS_PER_JIFFY) {
            let b = (self.interval_bytes / delta) as f64;
            let a = self.alpha;
            let est = self.estimate / 1000.0;
            let step = |old: f64, new: f64| (a * old + (1.0 - a) * new).floor();
            self.estimate = 1000.0
                * match &mut self.first_stage {
                    None if est == 0.0 => b,
                    None => step(est, b),
                    Some(ns) if *ns == 0.0 && est == 0.0 => {
                        *ns = b;
                        b
                    }
                    Some(ns) => {
                        *ns = step(*ns, b);
                        step(est, *ns)
                    }
                };
            self.samples += 1;
            self.interval_start = Some(now_j);
            self.interval_bytes = 0;
        }
        self.interval_bytes += bytes;
    }
}

/// TCP Westwood+: Westwood's rules around the per-RTT estimator.
pub(crate) type WestwoodPlus = Westwood<PerRttEstimator>;

/// Builds Westwood+ with its (checked) parameters.
pub(crate) fn new(p: &WestwoodPlusParams) -> WestwoodPlus {
    let mut w = Westwood::with_estimator("westwood-plus", PerRttEstimator::new(p));
    w.decrease = p.decrease;
    w.rtt_min_from_srtt = p.rtt_min == RttMinSource::Srtt;
    w.growth = (p.growth == Growth::LinuxNs2).then(LinuxNs2Growth::default);
    w
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::westwood::tests::ack_at;
    use crate::cc::{CongestionControl, LossKind, LossSignal, Window};

    const MS: u64 = 1_000_000;

    fn params() -> WestwoodPlusParams {
        WestwoodPlusParams {
            alpha: 0.9,
            min_interval: SimDuration::from_millis(50),
            filter: PlusFilter::Ewma,
            decrease: Decrease::Westwood,
            rtt_min: RttMinSource::Sample,
            growth: Growth::Reno,
            arithmetic: Arithmetic::Exact,
        }
    }

    /// One sample per RTT on a crafted ACK sequence, SRTT = 100 ms, MSS 1000:
    /// - ACK at 0 (1000 B): opens interval 1, not counted.
    /// - ACKs at 30, 60, 90 ms (1000 B each): 90 < 100 ms, no sample yet.
    /// - ACK at 120 ms (2000 B): Δ_1 = 120 ms ≥ 100 ms → d_1 = 5000 B, b_1 = 5000/0.12 =
    ///   41 666.67 B/s = b̂_1 (the first sample initializes).
    /// - duplicate ACK at 150 ms (counts 1000 B), ACK at 200 ms covering 3000 B of which the
    ///   duplicate already counted 1000 (counts 2000), ACK at 230 ms (1000 B): Δ_2 = 110 ms →
    ///   d_2 = 4000 B, b_2 = 36 363.64 B/s, b̂_2 = 0.9·41 666.67 + 0.1·36 363.64 = 41 136.36 B/s.
    ///
    /// With RTT_min = 80 ms, three duplicate ACKs then set ssthresh = round(41 136.36·0.08) = 3291 B.
    #[test]
    fn per_rtt_sample_by_hand() {
        let mut ww = new(&params());
        let mut w = Window { cwnd: 10_000, ssthresh: 5_000, mss: 1000 };
        let ack = |t: u64, bytes: u64| crate::cc::AckInfo { srtt_ns: 100 * MS, min_rtt_ns: 80 * MS, ..ack_at(t * MS, bytes, 80 * MS) };
        ww.on_ack(&mut w, &ack(0, 1000));
        for t in [30, 60, 90] {
            ww.on_ack(&mut w, &ack(t, 1000));
        }
        assert_eq!((ww.bwe.samples, ww.bwe.estimate), (0, 0.0));
        ww.on_ack(&mut w, &ack(120, 2000));
        let b1 = 5000.0 / 0.12;
        assert_eq!(ww.bwe.samples, 1);
        assert!((ww.bwe.estimate - b1).abs() < 1e-6, "{}", ww.bwe.estimate);
        ww.on_dup_ack(&mut w, &ack(150, 0));
        ww.on_ack(&mut w, &ack(200, 3000));
        assert_eq!(ww.bwe.samples, 1);
        ww.on_ack(&mut w, &ack(230, 1000));
        let b2 = 0.9 * b1 + 0.1 * (4000.0 / 0.11);
        assert_eq!(ww.bwe.samples, 2);
        assert!((ww.bwe.estimate - b2).abs() < 1e-6, "{} vs {b2}", ww.bwe.estimate);
        assert!((ww.estimates()[0].1 - 8.0 * b2).abs() < 1e-6);
        assert_eq!(ww.name(), "westwood-plus");
        w.cwnd = 10_000;
        let s = LossSignal { now: 240 * MS, kind: LossKind::DupAcks, marked: false, flight_bytes: 10_000 };
        ww.on_congestion(&mut w, &s);
        assert_eq!((w.ssthresh, w.cwnd), (3291, 3291));
    }

    /// Linux `tcp_westwood.c` readings (`filter = "cascade"`, `rtt_min = "srtt"`,
    /// `decrease = "linux-ns2"`), α = 7/8, MSS 1000, by hand:
    /// - ACKs at 0 (opens), 60 ms (6000 B, SRTT 50 ms): Δ = 60 ms ≥ 50 ms → b_1 = 100 000 B/s
    ///   fills both stages (bw_ns_est = bw_est = 100 000).
    /// - ACK at 160 ms (4000 B, SRTT 120 ms; the sender's least sample is 40 ms): Δ = 100 ms < 120 ms,
    ///   no sample; RTT_min = least SRTT = 50 ms (not the 40-ms sample).
    /// - ACK at 200 ms (1000 B): Δ = 140 ms → b_2 = 5000/0.14 = 35 714.29; bw_ns_est =
    ///   7/8·100 000 + 1/8·35 714.29 = 91 964.29; bw_est = 7/8·100 000 + 1/8·91 964.29 = 98 995.54.
    /// - cwnd 20 segments, three duplicate ACKs: ssthresh = Reno's 20/2 = 10 segments; cwnd =
    ///   floor(98 995.54·0.05/1000) = 4 segments (`min_cwnd`), below ssthresh: KeepWindow.
    /// - At cwnd 3 segments a timeout: ssthresh = max(3/2, 2) = 2 segments, cwnd 1.
    /// - With BWE·RTT_min above the old window the fast retransmit raises cwnd to it.
    #[test]
    fn linux_readings_by_hand() {
        let p = WestwoodPlusParams {
            alpha: 0.875,
            filter: PlusFilter::Cascade,
            decrease: Decrease::LinuxNs2,
            rtt_min: RttMinSource::Srtt,
            ..params()
        };
        let mut ww = new(&p);
        let mut w = Window { cwnd: 20_000, ssthresh: 100_000, mss: 1000 };
        let ack = |t: u64, bytes: u64, srtt: u64| crate::cc::AckInfo {
            srtt_ns: srtt * MS,
            min_rtt_ns: 40 * MS,
            ..ack_at(t * MS, bytes, 40 * MS)
        };
        ww.on_ack(&mut w, &ack(0, 1000, 50));
        ww.on_ack(&mut w, &ack(60, 6000, 50));
        assert_eq!(ww.bwe.samples, 1);
        assert!((ww.bwe.estimate - 100_000.0).abs() < 1e-6);
        ww.on_ack(&mut w, &ack(160, 4000, 120));
        assert_eq!(ww.bwe.samples, 1);
        ww.on_ack(&mut w, &ack(200, 1000, 120));
        let ns = 0.875 * 100_000.0 + 0.125 * (5000.0 / 0.14);
        let est = 0.875 * 100_000.0 + 0.125 * ns;
        assert!((ww.bwe.estimate - est).abs() < 1e-6, "{} vs {est}", ww.bwe.estimate);
        w.cwnd = 20_000;
        let s = LossSignal { now: 210 * MS, kind: LossKind::DupAcks, marked: false, flight_bytes: 20_000 };
        assert_eq!(ww.on_congestion(&mut w, &s), crate::cc::Reaction::KeepWindow);
        assert_eq!((w.ssthresh, w.cwnd), (10_000, 4000));
        w.cwnd = 3000;
        ww.on_congestion(&mut w, &LossSignal { kind: LossKind::Timeout, ..s });
        assert_eq!((w.ssthresh, w.cwnd), (2000, 1000));
        w.cwnd = 2000;
        ww.on_congestion(&mut w, &s);
        assert_eq!((w.ssthresh, w.cwnd), (2000, 4000));
    }

    /// `arithmetic = "linux-ns2"` (with the Linux readings above), α = 7/8, MSS 1000, by hand:
    /// - ACK at 0.4 ms opens the interval at jiffy 0.
    /// - ACK at 30.7 ms (6000 B, SRTT 40.9 ms → RTT 40 jiffies): Δ = 30 ≤ max(40, 50), counted.
    /// - ACK at 50.9 ms (1000 B): Δ = 50, not > 50: counted (7000 B).
    /// - ACK at 51.2 ms (2000 B): Δ = 51 > 50 → b = ⌊7000/51⌋ = 137 B/jiffy fills both stages
    ///   (137 000 B/s); its own 2000 B open the next interval (jiffy 51).
    /// - ACK at 120 ms (5000 B, SRTT 60.5 ms): Δ = 69 > 60 → b = ⌊2000/69⌋ = 28;
    ///   bw_ns_est = ⌊(7·137 + 28)/8⌋ = ⌊123.375⌋ = 123, bw_est = ⌊(7·137 + 123)/8⌋ = ⌊135.25⌋
    ///   = 135 B/jiffy = 135 000 B/s.
    /// - cwnd 20 segments, fast retransmit: RTT_min = 40 ms (least SRTT in whole ms), cwnd =
    ///   ⌊135·40/1000⌋ = 5 segments, ssthresh 10.
    /// - With `growth = "linux-ns2"` the policy asks for the in-flight count, and the loss reset
    ///   the byte count: an ACK of 1000 B in Recovery (`no_growth`) counts 1000 B.
    #[test]
    fn linux_ns2_arithmetic_and_growth_by_hand() {
        let p = WestwoodPlusParams {
            alpha: 0.875,
            filter: PlusFilter::Cascade,
            decrease: Decrease::LinuxNs2,
            rtt_min: RttMinSource::Srtt,
            arithmetic: Arithmetic::LinuxNs2,
            growth: Growth::LinuxNs2,
            ..params()
        };
        let mut ww = new(&p);
        assert!(ww.reads_in_flight() && !new(&params()).reads_in_flight());
        let mut w = Window { cwnd: 20_000, ssthresh: 100_000, mss: 1000 };
        let ack = |t_us: u64, bytes: u64, srtt_us: u64| crate::cc::AckInfo {
            srtt_ns: srtt_us * 1000,
            no_growth: true,
            ..ack_at(t_us * 1000, bytes, 40 * MS)
        };
        ww.on_ack(&mut w, &ack(400, 1000, 40_900));
        ww.on_ack(&mut w, &ack(30_700, 6000, 40_900));
        ww.on_ack(&mut w, &ack(50_900, 1000, 40_900));
        assert_eq!(ww.bwe.samples, 0);
        ww.on_ack(&mut w, &ack(51_200, 2000, 40_900));
        assert_eq!((ww.bwe.samples, ww.bwe.estimate), (1, 137_000.0));
        ww.on_ack(&mut w, &ack(120_000, 5000, 60_500));
        assert_eq!((ww.bwe.samples, ww.bwe.estimate), (2, 135_000.0));
        let s = LossSignal { now: 121 * MS, kind: LossKind::DupAcks, marked: false, flight_bytes: 20_000 };
        ww.on_congestion(&mut w, &s);
        assert_eq!((w.ssthresh, w.cwnd), (10_000, 5000));
        ww.on_ack(&mut w, &ack(122_000, 1000, 60_500));
        assert_eq!(ww.growth.as_ref().map(|g| g.bytes_acked), Some(1000));
        assert_eq!(w.cwnd, 5000);
    }

    /// Before the first RTT sample the interval is `min_interval`; with a short SRTT the 50 ms
    /// floor holds the sample back.
    #[test]
    fn interval_floor() {
        let mut e = PerRttEstimator::new(&params());
        e.on_delivered(0, 1000, 0);
        e.on_delivered(40 * MS, 1000, 0);
        assert_eq!(e.samples, 0);
        e.on_delivered(50 * MS, 1000, 10 * MS); // Δ = 50 ms = max(10 ms, 50 ms)
        assert_eq!(e.samples, 1);
        assert!((e.estimate - 2000.0 / 0.05).abs() < 1e-6);
    }

    #[test]
    fn alpha_is_checked() {
        let p = WestwoodPlusParams { alpha: 1.0, ..params() };
        assert_eq!(p.check().unwrap_err(), "alpha: 1 is out of range (allowed: 0 <= alpha < 1)");
        assert!(WestwoodPlusParams { alpha: f64::NAN, ..params() }.check().is_err());
    }
}
