//! TCP Prairie (Parvez 2004: the thesis's chapter 5, "TCP Prairie: A New TCP Variant Based on
//! Adaptive Bandwidth Estimation"): TCP New-Reno whose slow-down reactions use a bandwidth
//! estimate built from a burst-aware sample (thesis §5.3.1, eqs. 5.1–5.6) and an EWMA filter with
//! an adaptive gain (§5.3.2, eq. 5.7).
//!
//! The sample, one per ACK (thesis eq. 5.6):
//!   BW_f = Δd / (Δt + c·diffRTT/acwnd + α·c·gap/acwnd + (1 − α)·c·v),
//! with diffRTT = currRTT − minRTT, α = min(1, γ·diffRTT/minRTT) (γ = 1.5), (1 + acwnd) the ACKs
//! of a burst, gap the part of the off period that is not diffRTT, v the measured variance of the
//! ACK inter-arrival times, c = Δd/seg_size. The filter (thesis eq. 5.7):
//!   P_i = (1 − K_{i−1})·P_{i−1} + (δ + |prevRTT − currRTT|)/δ,  R_i = minRTT/δ,
//!   K_i = P_i/(P_i + R_i),  b̂_i = (1 − K_i)·b̂_{i−1} + K_i·b_i,
//! δ the minimum ACK inter-arrival time. Window reaction (thesis §5.4 pseudocode): on three
//! duplicate ACKs ssthresh = EB·minRTT/seg_size, then New-Reno's fast retransmit/recovery (the
//! recovery strategy sets cwnd); on a timeout ssthresh = max(2, EB·minRTT/seg_size), cwnd = 1.
//! Growth is New-Reno's (RFC 5681, [`Reno`]).
//!
//! Readings where the thesis leaves a choice (each tested in `tests`):
//! - **RTT periods and "tagged".** The thesis assumes one burst per RTT period whose first
//!   segment is "tagged for RTT", so that consecutive bursts start one RTT apart (Fig. 5.1). We
//!   tag, at the ACK that opens a period, the first byte not yet sent (snd_max = ack +
//!   flight_bytes): the segment sent in answer to that ACK. The first ACK that acknowledges it
//!   (ack > tag) closes the period and opens the next. All ACKs (duplicates too) of a period form
//!   its single burst — "multiple burst can be converted into a single burst period" — so
//!   acwnd = (ACKs in the period) − 1 and burst period = last ACK − opening ACK.
//! - **currRTT, prevRTT.** At a period's close prevRTT ← currRTT and currRTT ← the last RTT sample
//!   the sender took during that period (the closing ACK's included), or the period's length if
//!   it took none. minRTT is the sender's lifetime minimum RTT.
//! - **Which period's acwnd, gap, v.** They are known only when a period ends; as with currRTT
//!   ("measured ... from previous RTT period", §5.3.1) every sample uses those of the last closed
//!   period: gap = max(0, period length − burst period − diffRTT), acwnd at least 1, v the
//!   population variance of its inter-arrival times (those that produced samples). No sample is
//!   taken before the first period has closed.
//! - **The opening ACK.** The ACK that opens a period is t_k of eq. (5.1), the reference of the
//!   burst: its Δt spans the off period, which the sample's other terms already stand for, so it
//!   yields no sample.
//! - **v's units.** The thesis adds a variance (time²) to a time; ns-2, its simulator, measures
//!   time in seconds, so we take the variance in s² as a number of seconds (v_ns = var_ns² / 10⁹).
//!   A 1 ms spread of inter-arrivals thus adds 1 µs: the term matters only for inter-arrival
//!   spreads near a second.
//! - **c.** Δd counts Westwood's "AckedCount" ([`AckedCount`]): a duplicate ACK reports one
//!   segment, a later cumulative ACK only what duplicates did not; c = Δd/seg_size as a real.
//!   ACKs in the same nanosecond are merged into the next sample (Δt = 0 has no rate).
//! - **δ** is the smallest positive ACK inter-arrival time seen over the flow's life (like minRTT);
//!   the opening ACK's inter-arrival counts too.
//! - **Initial values.** P_0 = 0, K_0 = 0; the first sample initializes the estimate (b̂_1 = b_1),
//!   as a filter with no prior has nothing to weigh it against; P_1 is computed by eq. (5.7).
//! - **Floors and fallbacks.** ssthresh is at least 2 segments on duplicate ACKs too (RFC 5681's
//!   floor; the thesis states it for timeouts). Before the first sample a loss halves as New-Reno
//!   does. An ECN echo (outside the thesis) is answered like Westwood's: ssthresh = EB·minRTT,
//!   cwnd = min(cwnd, ssthresh).

use serde::Deserialize;

use super::estimators::AckedCount;
use super::reno::Reno;
use super::{AckInfo, CongestionControl, LossKind, LossSignal, Reaction, Window};
use crate::time::{SimTime, NS_PER_S};

/// Prairie's parameters (`[flows.cc_params]` with `cc = "prairie"`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PrairieParams {
    /// γ, the scaling factor of the normalized diffRTT in α = min(1, γ·diffRTT/minRTT)
    /// (thesis §5.3.1: 1.5 in all its simulations).
    #[serde(default = "default_gamma")]
    pub gamma: f64,
}

fn default_gamma() -> f64 {
    1.5
}

impl PrairieParams {
    /// One-line error naming the field and its allowed range.
    pub(crate) fn check(&self) -> Result<(), String> {
        if !(self.gamma.is_finite() && self.gamma >= 0.0) {
            return Err(format!("gamma: {} is out of range (allowed: finite, >= 0)", self.gamma));
        }
        Ok(())
    }
}

/// What eq. (5.6) takes from the last closed RTT period.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct PeriodStats {
    /// acwnd: ACKs of the period's burst after the first (at least 1 when used).
    pub acwnd: u64,
    /// Burst period: last ACK of the period − its opening ACK.
    pub burst_ns: u64,
    /// Gap period: period length − burst period − diffRTT, at least 0.
    pub gap_ns: u64,
    /// v: the variance of the period's ACK inter-arrival times, in s² taken as seconds, in ns.
    pub v_ns: f64,
}

/// Eq. (5.7)'s adaptive gain: P (load-change estimate) and K (the gain of the last step).
#[derive(Debug, Clone, Default)]
pub(crate) struct AdaptiveGain {
    /// P_i, the estimate of the change of bottleneck load (P_0 = 0).
    pub p: f64,
    /// K_i, the filter gain of the last step (K_0 = 0).
    pub k: f64,
}

impl AdaptiveGain {
    /// One step of eq. (5.7) with δ = `delta_ns`; returns K_i.
    pub(crate) fn step(&mut self, delta_ns: u64, prev_rtt_ns: u64, curr_rtt_ns: u64, min_rtt_ns: u64) -> f64 {
        let delta = delta_ns as f64;
        // Thesis eq. (5.7): P_i = (1 − K_{i−1})·P_{i−1} + (δ + |prevRTT − currRTT|)/δ.
        self.p = (1.0 - self.k) * self.p + (delta + prev_rtt_ns.abs_diff(curr_rtt_ns) as f64) / delta;
        // Thesis eq. (5.7): R_i = minRTT/δ.
        let r = min_rtt_ns as f64 / delta;
        // Thesis eq. (5.7): K_i = P_i/(P_i + R_i).
        self.k = self.p / (self.p + r);
        self.k
    }
}

/// Prairie's bandwidth estimator: burst-aware samples (eq. 5.6) through the adaptive EWMA (eq. 5.7).
#[derive(Debug, Clone)]
pub(crate) struct PrairieEstimator {
    gamma: f64,
    /// When the current RTT period opened (None before the first ACK).
    period_start_ns: Option<SimTime>,
    /// The tagged byte: the period closes at the first ACK with ack > tag.
    tag_seq: u64,
    /// ACKs of the current period, its opening ACK included.
    period_acks: u64,
    /// Sum and sum of squares of the current period's sampled inter-arrival times (ns, ns²).
    ia_count: u64,
    ia_sum_ns: f64,
    ia_sum_sq_ns2: f64,
    /// Time of the last ACK.
    last_ack_ns: SimTime,
    /// Bytes of ACKs that arrived at `last_ack_ns` and await the next Δt > 0.
    carried_bytes: u64,
    /// The last RTT sample the sender took in the current period.
    period_rtt_ns: Option<u64>,
    /// The last closed period's acwnd, gap period and v.
    pub prev: Option<PeriodStats>,
    /// currRTT and prevRTT (0 before the first period closes).
    pub curr_rtt_ns: u64,
    /// prevRTT: the RTT measured before currRTT.
    pub prev_rtt_ns: u64,
    /// minRTT as the sender last reported it.
    pub min_rtt_ns: u64,
    /// δ: the minimum positive ACK inter-arrival time (0 before the second ACK).
    pub min_interarrival_ns: u64,
    /// The filter gain state of eq. (5.7).
    pub gain: AdaptiveGain,
    /// b̂: the estimate, bytes per second (0 before the first sample).
    pub estimate_bytes_per_s: f64,
    /// b: the last sample, bytes per second.
    pub last_sample_bytes_per_s: f64,
    /// Number of samples taken.
    pub samples: u64,
}

impl PrairieEstimator {
    /// An estimator with no period open and no estimate yet, with α's scaling factor `gamma`.
    pub(crate) fn new(gamma: f64) -> Self {
        PrairieEstimator {
            gamma,
            period_start_ns: None,
            tag_seq: 0,
            period_acks: 0,
            ia_count: 0,
            ia_sum_ns: 0.0,
            ia_sum_sq_ns2: 0.0,
            last_ack_ns: 0,
            carried_bytes: 0,
            period_rtt_ns: None,
            prev: None,
            curr_rtt_ns: 0,
            prev_rtt_ns: 0,
            min_rtt_ns: 0,
            min_interarrival_ns: 0,
            gain: AdaptiveGain::default(),
            estimate_bytes_per_s: 0.0,
            last_sample_bytes_per_s: 0.0,
            samples: 0,
        }
    }

    /// diffRTT = currRTT − minRTT (thesis §5.3.1), at least 0.
    pub(crate) fn diff_rtt_ns(&self) -> u64 {
        self.curr_rtt_ns.saturating_sub(self.min_rtt_ns)
    }

    /// α = min(1, γ·diffRTT/minRTT) (thesis §5.3.1); 0 while minRTT is unknown.
    pub(crate) fn alpha(&self) -> f64 {
        if self.min_rtt_ns == 0 {
            return 0.0;
        }
        (self.gamma * self.diff_rtt_ns() as f64 / self.min_rtt_ns as f64).min(1.0)
    }

    fn open_period(&mut self, now: SimTime, ack: &AckInfo) {
        self.period_start_ns = Some(now);
        // The tagged segment: the first byte not yet sent when the opening ACK arrives.
        self.tag_seq = ack.ack() + ack.flight_bytes;
        self.period_acks = 1;
        self.ia_count = 0;
        self.ia_sum_ns = 0.0;
        self.ia_sum_sq_ns2 = 0.0;
        self.period_rtt_ns = None;
        self.last_ack_ns = now;
        self.carried_bytes = 0;
    }

    fn note_interarrival(&mut self, dt_ns: u64) {
        if dt_ns > 0 && (self.min_interarrival_ns == 0 || dt_ns < self.min_interarrival_ns) {
            self.min_interarrival_ns = dt_ns;
        }
    }

    /// Closes the current period at `now` (opened at `start`) and records what eq. (5.6) needs.
    fn close_period(&mut self, now: SimTime, start: SimTime) {
        let length_ns = now - start;
        let rtt = self.period_rtt_ns.unwrap_or(length_ns);
        self.prev_rtt_ns = if self.curr_rtt_ns == 0 { rtt } else { self.curr_rtt_ns };
        self.curr_rtt_ns = rtt;
        // Thesis §5.3.1: (1 + acwnd) ACKs form the burst, from t_k to t_{k+acwnd}.
        let acwnd = self.period_acks - 1;
        let burst_ns = self.last_ack_ns - start;
        // Thesis §5.3.1: RTT period = diffRTT + burst period + gap period.
        let gap_ns = length_ns.saturating_sub(burst_ns + self.diff_rtt_ns());
        // v: variance of the inter-arrival times, s² read as seconds (module doc).
        let v_ns = if self.ia_count == 0 {
            0.0
        } else {
            let n = self.ia_count as f64;
            let mean = self.ia_sum_ns / n;
            (self.ia_sum_sq_ns2 / n - mean * mean).max(0.0) / NS_PER_S as f64
        };
        self.prev = Some(PeriodStats { acwnd, burst_ns, gap_ns, v_ns });
    }

    /// Thesis eq. (5.6): the fair-share sample for `d_bytes` acknowledged `dt_ns` after the
    /// previous ACK, with the last closed period's `stats`; bytes per second.
    pub(crate) fn sample_bytes_per_s(&self, d_bytes: u64, dt_ns: u64, mss: u64, stats: &PeriodStats) -> f64 {
        // Thesis eq. (5.6): c = (d_{k+1} − d_k)/seg_size.
        let c = d_bytes as f64 / mss as f64;
        let acwnd = stats.acwnd.max(1) as f64;
        let alpha = self.alpha();
        // Thesis eq. (5.6): denominator Δt + c·diffRTT/acwnd + α·c·gap/acwnd + (1 − α)·c·v.
        let denom_ns =
            dt_ns as f64 + c * self.diff_rtt_ns() as f64 / acwnd + alpha * c * stats.gap_ns as f64 / acwnd + (1.0 - alpha) * c * stats.v_ns;
        d_bytes as f64 * NS_PER_S as f64 / denom_ns
    }

    /// An ACK (new or duplicate) reporting `d_bytes` delivered (AckedCount), with segment size `mss`.
    pub(crate) fn on_ack(&mut self, ack: &AckInfo, d_bytes: u64, mss: u64) {
        let now = ack.now;
        if ack.min_rtt_ns > 0 {
            self.min_rtt_ns = ack.min_rtt_ns;
        }
        let Some(start) = self.period_start_ns else {
            self.open_period(now, ack);
            self.period_rtt_ns = ack.rtt_sample_ns;
            return;
        };
        if let Some(r) = ack.rtt_sample_ns {
            self.period_rtt_ns = Some(r);
        }
        self.note_interarrival(now - self.last_ack_ns);
        if ack.ack() > self.tag_seq {
            // The tagged segment is acknowledged: this ACK opens the next burst (no sample).
            self.close_period(now, start);
            self.open_period(now, ack);
            return;
        }
        self.period_acks += 1;
        let dt_ns = now - self.last_ack_ns;
        if dt_ns == 0 {
            self.carried_bytes += d_bytes;
            return;
        }
        self.last_ack_ns = now;
        self.ia_count += 1;
        self.ia_sum_ns += dt_ns as f64;
        self.ia_sum_sq_ns2 += (dt_ns as f64) * (dt_ns as f64);
        let d = d_bytes + std::mem::take(&mut self.carried_bytes);
        let Some(stats) = self.prev else { return };
        if d == 0 || self.min_rtt_ns == 0 {
            return;
        }
        let b = self.sample_bytes_per_s(d, dt_ns, mss, &stats);
        self.last_sample_bytes_per_s = b;
        let k = self.gain.step(self.min_interarrival_ns, self.prev_rtt_ns, self.curr_rtt_ns, self.min_rtt_ns);
        self.estimate_bytes_per_s = if self.samples == 0 {
            b
        } else {
            // Thesis eq. (5.7): b̂_i = (1 − K_i)·b̂_{i−1} + K_i·b_i.
            (1.0 - k) * self.estimate_bytes_per_s + k * b
        };
        self.samples += 1;
    }
}

/// TCP Prairie window policy: New-Reno growth and recovery, Prairie's estimate on slow-downs.
#[derive(Debug, Clone)]
pub(crate) struct Prairie {
    /// The bandwidth estimator (public for tests).
    pub bwe: PrairieEstimator,
    reno: Reno,
    acked: AckedCount,
    estimates: [(&'static str, f64); 1],
}

impl Prairie {
    /// Prairie with the (checked) parameters `p`.
    pub(crate) fn new(p: &PrairieParams) -> Self {
        Prairie { bwe: PrairieEstimator::new(p.gamma), reno: Reno, acked: AckedCount::default(), estimates: [("bwe_bps", 0.0)] }
    }

    /// EB·minRTT in bytes (thesis §5.4: EB × minRTT/seg_size segments), at least 2 segments.
    fn eb_min_rtt_bytes(&self, mss: u64) -> u64 {
        let bytes = self.bwe.estimate_bytes_per_s * self.bwe.min_rtt_ns as f64 / NS_PER_S as f64;
        (bytes.round() as u64).max(2 * mss)
    }

    fn feed(&mut self, ack: &AckInfo, d_bytes: u64, mss: u64) {
        self.bwe.on_ack(ack, d_bytes, mss);
        self.estimates[0].1 = self.bwe.estimate_bytes_per_s * 8.0;
    }
}

impl CongestionControl for Prairie {
    fn name(&self) -> &'static str {
        "prairie"
    }

    fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        let d = self.acked.on_ack(ack.acked_bytes, w.mss);
        self.feed(ack, d, w.mss);
        self.reno.on_ack(w, ack);
    }

    fn on_dup_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        let d = self.acked.on_dup_ack(w.mss);
        self.feed(ack, d, w.mss);
    }

    fn on_congestion(&mut self, w: &mut Window, s: &LossSignal) -> Reaction {
        if self.bwe.samples == 0 || self.bwe.min_rtt_ns == 0 {
            return self.reno.on_congestion(w, s);
        }
        match s.kind {
            // Thesis §5.4: three DUPACKs → ssthresh = EB × minRTT/seg_size; fast retransmit and
            // recovery follow (the recovery strategy sets cwnd).
            LossKind::DupAcks => w.ssthresh = self.eb_min_rtt_bytes(w.mss),
            // Thesis §5.4: timeout → ssthresh = max(2, EB × minRTT/seg_size), cwnd = 1.
            LossKind::Timeout => {
                w.ssthresh = self.eb_min_rtt_bytes(w.mss);
                w.cwnd = w.mss;
            }
            // Outside the thesis: as Westwood answers ECN.
            LossKind::Ecn => {
                w.ssthresh = self.eb_min_rtt_bytes(w.mss);
                w.cwnd = w.cwnd.min(w.ssthresh);
            }
        }
        Reaction::Reduce
    }

    fn estimates(&self) -> &[(&'static str, f64)] {
        &self.estimates
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::westwood::tests::{ack_at, header};
    use crate::net::TcpHeader;

    const MS: u64 = 1_000_000;

    /// An ACK at `t_ns` with cumulative number `ack`, `flight` bytes outstanding, minRTT 100 ms
    /// and the RTT sample `rtt_ms`, if any.
    fn ack(t_ns: u64, ack: u64, flight: u64, rtt_ms: Option<u64>) -> AckInfo<'static> {
        AckInfo {
            header: header(TcpHeader { ack, ..TcpHeader::default() }),
            flight_bytes: flight,
            rtt_sample_ns: rtt_ms.map(|r| r * MS),
            ..ack_at(t_ns, 1000, 100 * MS)
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    /// Eq. (5.6) on a bursty ACK train (MSS 1000 B, minRTT 100 ms, γ = 1.5):
    /// - Period 1: ACKs at 0, 1, 3, 6 ms (acks 1000…4000). The ACK at 0 has 4000 B in flight, so
    ///   the tagged byte is 5000. acwnd = 3, burst period = 6 ms, inter-arrivals 1, 2, 3 ms:
    ///   mean 2 ms, variance 14/3 − 4 = 2/3 ms² = 6.667e−7 s² → v = 666.67 ns (module doc).
    ///   No sample: no period has closed yet.
    /// - 110 ms: ack 6000 > 5000 closes period 1 with an RTT sample of 110 ms: currRTT = 110 ms,
    ///   diffRTT = 10 ms, α = min(1, 1.5·10/100) = 0.15, gap = 110 − 6 − 10 = 94 ms. It opens
    ///   period 2 (tag 10 000) and gives no sample.
    /// - 112 ms: a (delayed) ACK of 2000 B, c = 2, Δt = 2 ms: denominator = 2 + 2·10/3 +
    ///   0.15·2·94/3 + 0.85·2·0.00066667 = 2 + 6.66667 + 9.4 + 0.00113333 = 18.0678 ms, so
    ///   b_1 = 2000 B / 18.0678 ms = 110 694.2 B/s (Westwood's Δd/Δt would be 1 000 000 B/s).
    ///   The first sample initializes b̂. Gain: δ = 1 ms, R = 100, prevRTT = currRTT:
    ///   P_1 = 1, K_1 = 1/101.
    /// - 115 ms: 1000 B, c = 1, Δt = 3 ms: denominator = 3 + 3.33333 + 4.7 + 0.00056667 =
    ///   11.0339 ms, b_2 = 90 629.8 B/s; P_2 = (100/101)·1 + 1 = 201/101, K_2 = 201/10301,
    ///   b̂_2 = (1 − K_2)·b_1 + K_2·b_2.
    #[test]
    fn sample_on_a_bursty_train_by_hand() {
        let mut e = PrairieEstimator::new(1.5);
        e.on_ack(&ack(0, 1000, 4000, Some(100)), 1000, 1000);
        for (t, a) in [(1, 2000), (3, 3000), (6, 4000)] {
            e.on_ack(&ack(t * MS, a, 4000, None), 1000, 1000);
        }
        assert_eq!((e.samples, e.prev), (0, None));
        e.on_ack(&ack(110 * MS, 6000, 4000, Some(110)), 1000, 1000);
        let stats = e.prev.unwrap();
        assert_eq!((stats.acwnd, stats.burst_ns, stats.gap_ns), (3, 6 * MS, 94 * MS));
        assert!(close(stats.v_ns, 2.0 / 3.0 * 1e12 / 1e9), "{}", stats.v_ns);
        assert_eq!((e.curr_rtt_ns, e.diff_rtt_ns(), e.samples), (110 * MS, 10 * MS, 0));
        assert!(close(e.alpha(), 0.15));
        let v: f64 = 2.0 / 3.0 * 1e3; // ns
        e.on_ack(&ack(112 * MS, 8000, 4000, None), 2000, 1000);
        let b1: f64 = 2000.0 * 1e9 / (2e6 + 2.0 * 10e6 / 3.0 + 0.15 * 2.0 * 94e6 / 3.0 + 0.85 * 2.0 * v);
        assert!((b1 - 110_694.2).abs() < 0.1, "{b1}");
        assert_eq!(e.samples, 1);
        assert!(close(e.estimate_bytes_per_s, b1), "{} vs {b1}", e.estimate_bytes_per_s);
        assert!(close(e.gain.k, 1.0 / 101.0));
        e.on_ack(&ack(115 * MS, 9000, 4000, None), 1000, 1000);
        let b2: f64 = 1000.0 * 1e9 / (3e6 + 10e6 / 3.0 + 0.15 * 94e6 / 3.0 + 0.85 * v);
        assert!((b2 - 90_629.8).abs() < 0.1, "{b2}");
        let k2 = 201.0 / 10301.0;
        assert!(close(e.gain.k, k2), "{}", e.gain.k);
        assert!(close(e.estimate_bytes_per_s, (1.0 - k2) * b1 + k2 * b2));
    }

    /// Feeds an evenly spaced train: a window of 10 segments (9000 B in flight when an ACK
    /// arrives), one 1000-B ACK every `spacing_ms`, RTT = 10·`spacing_ms` (the tagged segment is
    /// sent at an ACK and acknowledged 10 ACKs later). Returns the estimator after the first
    /// sample, at t = 11·spacing.
    fn even_train(spacing_ms: u64) -> PrairieEstimator {
        let mut e = PrairieEstimator::new(1.5);
        for k in 0..=11u64 {
            let rtt = (k == 10).then_some(10 * spacing_ms);
            e.on_ack(&ack(k * spacing_ms * MS, 1000 * (k + 1), 9000, rtt), 1000, 1000);
        }
        e
    }

    /// Eq. (5.6) on evenly spaced ACKs (thesis: "the gap period vanishes ... v also vanishes, however,
    /// the term c × diffRTT/acwnd does not vanish"):
    /// - uncongested, one ACK every 10 ms, RTT = minRTT = 100 ms: period 1 = ACKs at 0…90 ms,
    ///   acwnd = 9, burst = 90 ms, gap = 100 − 90 − 0 = 10 ms (one inter-arrival), v = 0,
    ///   diffRTT = 0 so α = 0. Sample at 110 ms: 1000 B / (10 ms + 0 + 0·… + 1·0) = 100 000 B/s,
    ///   the true rate (10 segments per 100 ms).
    /// - congested, one ACK every 12 ms, RTT = 120 ms, minRTT = 100 ms: diffRTT = 20 ms, α = 0.3,
    ///   burst = 108 ms, gap = max(0, 120 − 108 − 20) = 0, v = 0. Sample at 132 ms:
    ///   1000 B / (12 + 20/9 ms) = 9000/0.128 = 70 312.5 B/s, below the 83 333 B/s achieved:
    ///   the conservative sample of a congested path.
    #[test]
    fn sample_on_an_even_train_by_hand() {
        let e = even_train(10);
        let s = e.prev.unwrap();
        assert_eq!((s.acwnd, s.burst_ns, s.gap_ns, s.v_ns), (9, 90 * MS, 10 * MS, 0.0));
        assert_eq!((e.alpha(), e.samples), (0.0, 1));
        assert!(close(e.estimate_bytes_per_s, 100_000.0), "{}", e.estimate_bytes_per_s);

        let e = even_train(12);
        let s = e.prev.unwrap();
        assert_eq!((s.acwnd, s.burst_ns, s.gap_ns, s.v_ns), (9, 108 * MS, 0, 0.0));
        assert!(close(e.alpha(), 0.3));
        assert!(close(e.estimate_bytes_per_s, 70_312.5), "{}", e.estimate_bytes_per_s);
    }

    /// Eq. (5.7) on a crafted RTT sequence, δ = 1 ms, minRTT = 100 ms (R = 100), P_0 = K_0 = 0:
    /// - step 1, prevRTT = currRTT = 100 ms: P_1 = 0 + (1 + 0)/1 = 1, K_1 = 1/101;
    /// - step 2, 100 → 103 ms: P_2 = (100/101)·1 + (1 + 3)/1 = 504/101,
    ///   K_2 = (504/101)/(504/101 + 100) = 504/10604;
    /// - step 3, 103 → 103 ms: P_3 = (10100/10604)·(504/101) + 1 = 61004/10604,
    ///   K_3 = 61004/(61004 + 1060400) = 61004/1121404.
    ///
    /// An RTT change (load change) raises the gain: K_2 ≈ 0.0475 against K_1 ≈ 0.0099.
    /// With samples 100 000, 50 000, 50 000 B/s: b̂_1 = 100 000 (the first initializes),
    /// b̂_2 = (1 − K_2)·100 000 + K_2·50 000 = 97 623.5, b̂_3 = (1 − K_3)·b̂_2 + K_3·50 000 = 95 032.8
    /// (K_2 = 0.047529, K_3 = 0.054400).
    #[test]
    fn filter_gain_by_hand() {
        let mut g = AdaptiveGain::default();
        let k1 = g.step(MS, 100 * MS, 100 * MS, 100 * MS);
        assert!(close(g.p, 1.0) && close(k1, 1.0 / 101.0));
        let k2 = g.step(MS, 100 * MS, 103 * MS, 100 * MS);
        assert!(close(g.p, 504.0 / 101.0) && close(k2, 504.0 / 10604.0), "{} {k2}", g.p);
        let k3 = g.step(MS, 103 * MS, 103 * MS, 100 * MS);
        assert!(close(g.p, 61004.0 / 10604.0) && close(k3, 61004.0 / 1121404.0), "{} {k3}", g.p);
        assert!(k2 > 4.0 * k1);

        // The same through the estimator's filter: steady RTTs keep K small, so b̂ moves slowly.
        let b2: f64 = (1.0 - k2) * 100_000.0 + k2 * 50_000.0;
        let b3 = (1.0 - k3) * b2 + k3 * 50_000.0;
        assert!((b2 - 97_623.5).abs() < 0.1 && (b3 - 95_032.8).abs() < 0.1, "{b2} {b3}");
    }

    /// Reading "tagged": an ACK for exactly the tagged byte (ack = tag) stays in the period; the
    /// first ACK beyond it closes it. Without an RTT sample in the period, currRTT is the
    /// period's length. ACKs in the same nanosecond merge into one sample.
    #[test]
    fn periods_close_at_the_tagged_segment() {
        let mut e = PrairieEstimator::new(1.5);
        e.on_ack(&ack(0, 1000, 2000, None), 1000, 1000); // tag = 3000
        e.on_ack(&ack(5 * MS, 3000, 2000, None), 2000, 1000);
        assert!(e.prev.is_none());
        e.on_ack(&ack(130 * MS, 4000, 2000, None), 1000, 1000); // closes; tag = 6000
        let s = e.prev.unwrap();
        assert_eq!((s.acwnd, s.burst_ns, e.curr_rtt_ns), (1, 5 * MS, 130 * MS));
        // diffRTT = 30 ms: gap = 130 − 5 − 30 = 95 ms.
        assert_eq!(s.gap_ns, 95 * MS);
        // Two ACKs at 131 ms: the first (Δt = 1 ms) is sampled, the second (Δt = 0) is carried
        // into the next sample.
        e.on_ack(&ack(131 * MS, 5000, 2000, None), 1000, 1000);
        assert_eq!(e.samples, 1);
        e.on_ack(&ack(131 * MS, 6000, 2000, None), 1000, 1000);
        assert_eq!(e.samples, 1);
        e.on_ack(&ack(133 * MS, 6000, 2000, None), 1000, 1000); // ack = tag: same period
        assert_eq!(e.samples, 2);
        // c = 2 (1000 carried + 1000), Δt = 2 ms, α = min(1, 1.5·0.3) = 0.45, acwnd = 1.
        let b = 2000.0 * 1e9 / (2e6 + 2.0 * 30e6 + 0.45 * 2.0 * 95e6);
        assert!(close(e.last_sample_bytes_per_s, b), "{} vs {b}", e.last_sample_bytes_per_s);
    }

    fn prairie_with_estimate(bytes_per_s: f64) -> Prairie {
        let mut p = Prairie::new(&PrairieParams { gamma: 1.5 });
        p.bwe.estimate_bytes_per_s = bytes_per_s;
        p.bwe.samples = 1;
        p.bwe.min_rtt_ns = 100 * MS;
        p
    }

    /// Thesis §5.4: 3 DUPACKs → ssthresh = EB·minRTT (cwnd left to New-Reno's recovery);
    /// timeout → ssthresh = max(2, EB·minRTT/seg), cwnd = 1 segment.
    #[test]
    fn window_reaction_by_thesis_pseudocode() {
        let mut p = prairie_with_estimate(100_000.0); // ·0.1 s = 10 000 B
        let mut w = Window { cwnd: 30_000, ssthresh: u64::MAX, mss: 1000 };
        let s = LossSignal { now: 0, kind: LossKind::DupAcks, marked: false, flight_bytes: 30_000 };
        assert_eq!(p.on_congestion(&mut w, &s), Reaction::Reduce);
        assert_eq!((w.ssthresh, w.cwnd), (10_000, 30_000));
        let s = LossSignal { kind: LossKind::Timeout, ..s };
        p.on_congestion(&mut w, &s);
        assert_eq!((w.ssthresh, w.cwnd), (10_000, 1000));
        // Floor of 2 segments: 5000 B/s · 0.1 s = 500 B.
        let mut p = prairie_with_estimate(5_000.0);
        p.on_congestion(&mut w, &s);
        assert_eq!((w.ssthresh, w.cwnd), (2000, 1000));
        // Before any sample: New-Reno halving.
        let mut p = Prairie::new(&PrairieParams { gamma: 1.5 });
        w.cwnd = 30_000;
        p.on_congestion(&mut w, &LossSignal { kind: LossKind::DupAcks, ..s });
        assert_eq!(w.ssthresh, 15_000);
    }

    /// The engine's view: estimates() reports b̂ in bit/s first; AckedCount counts a duplicate
    /// ACK once.
    #[test]
    fn reports_bit_per_second_and_counts_duplicates_once() {
        let mut p = Prairie::new(&PrairieParams { gamma: 1.5 });
        let mut w = Window { cwnd: 10_000, ssthresh: 5_000, mss: 1000 };
        let e = even_train(10);
        for k in 0..=11u64 {
            let a = AckInfo { acked_bytes: 1000, ..ack(k * 10 * MS, 1000 * (k + 1), 9000, (k == 10).then_some(100)) };
            p.on_ack(&mut w, &a);
        }
        assert!(close(p.estimates()[0].1, 8.0 * e.estimate_bytes_per_s));
        assert_eq!(p.estimates()[0].0, "bwe_bps");
        assert_eq!(p.name(), "prairie");
        assert!(PrairieParams { gamma: -1.0 }.check().is_err());
        assert!(PrairieParams { gamma: f64::NAN }.check().is_err());
    }
}
