//! CAIAD: Corruption-Aware Adaptive Increase and Adaptive Decrease (Cui & Koh 2008, §3.2–3.3).
//!
//! The sender half of CAIAD; the receiver half (corruption and No-Congestion options on duplicate
//! ACKs, §3.1) is `tcp::receiver` with `caiad` on, which this scheme asks for through
//! [`Needs::caiad_receiver`]. The algorithm, as the paper's pseudocode gives it:
//!
//! - Bandwidth, per RTT period k (§3.2): D_k integral bytes and C_k corrupted bytes reported,
//!   α = D_k/(D_k + C_k) (eq. 1), bwe_k = (D_k + α·C_k)/T_k (eq. 2), smoothed with the Tustin
//!   filter of eq. 3, τ = 0.5 s.
//! - Case 1, a normal ACK: reset the duplicate-ACK counter, update D_k, Reno's additive increase.
//! - Case 2, a duplicate ACK with neither option: count it, D_k += MSS; at the third, if the first
//!   missing segment is not one reported corrupted, retransmit and apply Westwood+'s adaptive
//!   decrease, ssthresh = BWE·RTT_min/MSS (eq. 4), cwnd = min(cwnd, ssthresh); if it is, reset the
//!   counter.
//! - Case 3, a duplicate ACK with the corruption option: retransmit the indicated segment at once,
//!   C_k += MSS.
//! - Case 4, a duplicate ACK with the No-Congestion option: reset the counter, D_k += MSS, and on
//!   every other one the adaptive increase cwnd += α (slow start) or α/cwnd (avoidance), in segments.
//! - A duplicate ACK with both options runs cases 3 and 4.
//! - A timeout: ssthresh by eq. 4 (at least 2 segments), cwnd = 1 segment (Westwood+, the scheme
//!   CAIAD was built on).
//!
//! Readings where the paper is silent or ambiguous (each tested below):
//! - "When the current RTT is larger than the minimum RTT: reestimate α, BWE_k; reset C_k and
//!   D_k": we read "the current RTT" as the current sampling period. A period opens at an ACK and
//!   closes at the first ACK or duplicate ACK at which more than RTT_min (the smallest RTT sample
//!   so far) has elapsed; T_k is its length, and the closing ACK's bytes belong to it. No sample
//!   is taken before the first RTT sample.
//! - t_k of eq. 3 ("the recent ACK interval") is T_k, the interval between two samples, as in the
//!   Tustin filter Westwood applies per ACK (Jersey eq. 2), but at most 2τ: beyond it the
//!   filter's weight of the old estimate, (2τ − t_k)/(2τ + t_k), turns negative, and after a long
//!   period (an idle spell, a backed-off timeout) the estimate swung below zero — a negative
//!   bandwidth (found by the invariant campaign, the `airtcp-testkit` crate). At t_k = 2τ the old estimate
//!   is forgotten (BWE_k is the mean of the last two samples), which is what a low-pass filter of
//!   time constant τ has all but done after 2τ; Westwood's filter never meets the case, since it
//!   feeds a zero sample every τ/m of silence.
//! - The first sample initializes the filter (BWE_1 = bwe_1, and bwe_0 = bwe_1), as our
//!   Westwood+ and Linux's `tcp_westwood.c` do; from 0 the estimate would need about 2τ to rise.
//! - D_k counts acknowledged bytes by Mascolo's AckedCount (a duplicate ACK counts one segment;
//!   a cumulative ACK only what duplicates did not already count), the accounting of the ns-2
//!   Westwood+ module CAIAD was built on. With it, cases 3 + 4 on one duplicate ACK count the
//!   corrupted segment in C_k and its later intact copy once in D_k: D_k + C_k is what crossed the
//!   link.
//! - α is kept from the previous period when a period saw no ACKed bytes at all (D_k + C_k = 0);
//!   it starts at 1 (no corruption seen).
//! - The adaptive increase applies outside fast recovery only: during recovery cwnd belongs to the
//!   recovery strategy (NewReno inflates it by one segment per duplicate ACK, and deflates it on exit).
//! - "The first missing segment is corrupted one": the segment at the cumulative ACK was reported
//!   by a corruption option and is not yet acknowledged.
//! - Every loss signal CAIAD answers (third counted duplicate, timeout) is a congestion verdict;
//!   corruptions never reach `on_congestion`.

use serde::Deserialize;

use super::estimators::AckedCount;
use super::reno::{halve, Reno};
use super::{AckInfo, CongestionControl, DupAckCount, LossKind, LossSignal, Needs, Reaction, Window};
use crate::time::{SimDuration, SimTime, NS_PER_S};

/// CAIAD's parameters (`[flows.cc_params]` with `cc = "caiad"`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CaiadParams {
    /// Tustin filter time constant τ of eq. 3 ("a typical value of τ is 0.5 s").
    #[serde(default = "default_tau")]
    pub tau: SimDuration,
    /// Inflate cwnd by one segment for each No-Congestion duplicate ACK outside fast recovery,
    /// and deflate it as the cumulative ACK covers those segments (our reading; module docs).
    /// `false` is the literal pseudocode: the window only grows by the adaptive increase.
    #[serde(default = "default_inflate")]
    pub inflate_on_no_congestion: bool,
}

fn default_inflate() -> bool {
    true
}

fn default_tau() -> SimDuration {
    SimDuration::from_millis(500)
}

impl CaiadParams {
    /// One-line error naming the field and its allowed range.
    pub(crate) fn check(&self) -> Result<(), String> {
        if self.tau.as_nanos() == 0 {
            return Err("tau: must be greater than 0s".into());
        }
        Ok(())
    }
}

/// The CAIAD window policy.
#[derive(Debug, Clone)]
pub(crate) struct Caiad {
    tau_ns: u64,
    reno: Reno,
    acked: AckedCount,
    /// D_k: integral bytes reported in the current period.
    pub d_bytes: u64,
    /// C_k: corrupted bytes reported in the current period.
    pub c_bytes: u64,
    /// When the current period opened (None before the first ACK).
    period_start: Option<SimTime>,
    /// α of eq. 1 from the last closed period.
    pub alpha: f64,
    /// bwe_{k−1}, bytes per second.
    last_sample: f64,
    /// BWE_k of eq. 3, bytes per second.
    pub bwe: f64,
    /// Samples taken.
    pub samples: u64,
    min_rtt_ns: u64,
    /// Segments reported corrupted (first byte) and not yet cumulatively acknowledged.
    corrupted: Vec<u64>,
    /// Duplicate ACKs with the No-Congestion option so far (the increase applies on every other).
    nc_dupacks: u64,
    inflate: bool,
    /// Bytes by which cwnd is inflated for No-Congestion duplicates not yet cumulatively acked.
    pub inflation_bytes: u64,
    estimates: [(&'static str, f64); 2],
}

impl Caiad {
    /// CAIAD with its (checked) parameters.
    pub(crate) fn new(p: &CaiadParams) -> Self {
        Caiad {
            tau_ns: p.tau.as_nanos(),
            reno: Reno,
            acked: AckedCount::default(),
            d_bytes: 0,
            c_bytes: 0,
            period_start: None,
            alpha: 1.0,
            last_sample: 0.0,
            bwe: 0.0,
            samples: 0,
            min_rtt_ns: 0,
            corrupted: Vec::new(),
            nc_dupacks: 0,
            inflate: p.inflate_on_no_congestion,
            inflation_bytes: 0,
            estimates: [("bwe_bps", 0.0), ("alpha", 1.0)],
        }
    }

    /// "When the current RTT is larger than the minimum RTT": closes the period at `now` if it
    /// has lasted longer than RTT_min, taking one sample (eqs. 1–3) and resetting D_k and C_k.
    fn maybe_sample(&mut self, now: SimTime, min_rtt_ns: u64) {
        self.min_rtt_ns = min_rtt_ns;
        let Some(start) = self.period_start else {
            // The first ACK only opens the first period (its bytes crossed before it).
            self.period_start = Some(now);
            self.d_bytes = 0;
            self.c_bytes = 0;
            return;
        };
        let t_k = now - start;
        if min_rtt_ns == 0 || t_k <= min_rtt_ns {
            return;
        }
        let (d, c) = (self.d_bytes as f64, self.c_bytes as f64);
        if d + c > 0.0 {
            // Eq. (1): α = D_k / (D_k + C_k).
            self.alpha = d / (d + c);
        }
        // Eq. (2): bwe_k = (D_k + α·C_k) / T_k, bytes per second.
        let sample = (d + self.alpha * c) * NS_PER_S as f64 / t_k as f64;
        if self.samples == 0 {
            self.bwe = sample;
            self.last_sample = sample;
        } else {
            // Eq. (3): BWE_k = (2τ − t_k)/(2τ + t_k)·BWE_{k−1} + t_k·(bwe_k + bwe_{k−1})/(2τ + t_k),
            // with t_k at most 2τ (module docs).
            let two_tau = 2.0 * self.tau_ns as f64;
            let t = (t_k as f64).min(two_tau);
            self.bwe = (two_tau - t) / (two_tau + t) * self.bwe + t * (sample + self.last_sample) / (two_tau + t);
            self.last_sample = sample;
        }
        self.samples += 1;
        self.d_bytes = 0;
        self.c_bytes = 0;
        self.period_start = Some(now);
        self.estimates = [("bwe_bps", self.bwe * 8.0), ("alpha", self.alpha)];
    }

    /// Eq. (4) in bytes: BWE·RTT_min, at least 2 segments (before any RTT sample: Reno's half).
    fn ssthresh_bytes(&self, flight_bytes: u64, mss: u64) -> u64 {
        if self.min_rtt_ns == 0 {
            return halve(flight_bytes, mss);
        }
        ((self.bwe * self.min_rtt_ns as f64 / NS_PER_S as f64).round() as u64).max(2 * mss)
    }
}

impl CongestionControl for Caiad {
    fn name(&self) -> &'static str {
        "caiad"
    }

    /// Case 1: a normal ACK.
    fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        self.corrupted.retain(|&s| s >= ack.ack());
        // The segments this ACK covers no longer hold the inflation their duplicates gave.
        let deflate = self.inflation_bytes.min(ack.acked_bytes);
        self.inflation_bytes -= deflate;
        w.cwnd = w.cwnd.saturating_sub(deflate).max(w.mss);
        self.d_bytes += self.acked.on_ack(ack.acked_bytes, w.mss);
        self.maybe_sample(ack.now, ack.min_rtt_ns);
        self.reno.on_ack(w, ack);
    }

    fn classify_dup_ack(&mut self, ack: &AckInfo) -> DupAckCount {
        if ack.no_congestion() {
            // Case 4: "reset the counter of DUPACK to zero".
            DupAckCount::Reset
        } else if ack.corrupt_seq().is_some() {
            // Case 3 alone: the duplicate reports a corruption, not a loss; it is not counted.
            DupAckCount::Ignore
        } else if ack.dupacks == 3 && self.corrupted.contains(&ack.ack()) {
            // Case 2: "if ((the counter of DUPACK=3) and (the first missing segment is corrupted
            // one)) { reset the counter of DUPACK to zero; }"
            DupAckCount::Reset
        } else {
            // Case 2: "increase the counter of DUPACK by 1".
            DupAckCount::Count
        }
    }

    fn on_dup_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        if ack.no_congestion() {
            // Case 4: "update the amount of integral data (D_k) by D_k + MSS".
            self.d_bytes += self.acked.on_dup_ack(w.mss);
            self.nc_dupacks += 1;
            if self.inflate && !ack.recovering {
                // Reading: the duplicate reports a segment that left the network (RFC 5681 §3.2
                // step 4's reason to inflate), and nothing is lost: one more may be sent.
                w.cwnd += w.mss;
                self.inflation_bytes += w.mss;
            }
            if self.nc_dupacks.is_multiple_of(2) && !ack.recovering {
                // "for (every other DUPACK with 'No-Congestion' option) { if (cwnd < ssthresh)
                // cwnd = cwnd + α; else cwnd = cwnd + α/cwnd; }" — in segments.
                let inc = if w.in_slow_start() { self.alpha * w.mss as f64 } else { self.alpha * (w.mss * w.mss) as f64 / w.cwnd as f64 };
                w.cwnd += (inc.round() as u64).max(1);
            }
        } else if ack.corrupt_seq().is_none() {
            // Case 2: "update the amount of integral data (D_k) by D_k + MSS".
            self.d_bytes += self.acked.on_dup_ack(w.mss);
        }
        self.maybe_sample(ack.now, ack.min_rtt_ns);
    }

    /// Case 3: "retransmit the indicated data segment immediately; update the amount of corrupted
    /// data (C_k) by C_k + MSS".
    fn on_corruption_report(&mut self, w: &mut Window, _ack: &AckInfo, seq: u64) -> bool {
        self.c_bytes += w.mss;
        if !self.corrupted.contains(&seq) {
            self.corrupted.push(seq);
        }
        true
    }

    fn on_congestion(&mut self, w: &mut Window, s: &LossSignal) -> Reaction {
        // Eq. (4): ssthresh = BWE·RTT_min/MSS for "a packet loss (but not corrupted) or the
        // expiration of RTO timer".
        w.cwnd = w.cwnd.saturating_sub(std::mem::take(&mut self.inflation_bytes)).max(w.mss);
        w.ssthresh = self.ssthresh_bytes(s.flight_bytes, w.mss);
        match s.kind {
            LossKind::Timeout => w.cwnd = w.mss,
            // Case 2: "if (cwnd > ssthresh) cwnd = ssthresh".
            LossKind::DupAcks | LossKind::Ecn => w.cwnd = w.cwnd.min(w.ssthresh),
        }
        Reaction::Reduce
    }

    fn estimates(&self) -> &[(&'static str, f64)] {
        &self.estimates
    }

    fn needs(&self) -> Needs {
        Needs { caiad_receiver: true, loss_verdicts: true, ..Needs::default() }
    }

    fn loss_verdict(&self, _signal: &LossSignal) -> Option<bool> {
        Some(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::westwood::tests::{ack_at, header};
    use crate::net::TcpHeader;

    const MS: u64 = 1_000_000;

    fn caiad() -> Caiad {
        Caiad::new(&CaiadParams { tau: SimDuration::from_millis(500), inflate_on_no_congestion: false })
    }

    fn dup(now_ms: u64, ackno: u64, corrupt: Option<u64>, nc: bool, dupacks: u32) -> AckInfo<'static> {
        let h = TcpHeader { ack: ackno, corrupt_seq: corrupt, no_congestion: nc, ..TcpHeader::default() };
        AckInfo { dupacks, header: header(h), ..ack_at(now_ms * MS, 0, 50 * MS) }
    }

    /// A period longer than 2τ (here 1 s of silence with τ = 50 ms) forgets the old estimate
    /// instead of weighting it negatively: the estimate is the mean of the last two samples, not
    /// the (2τ − T)/(2τ + T) = −0.82 × 100 kB/s + … < 0 the literal eq. (3) gives.
    #[test]
    fn a_long_period_forgets_the_estimate_without_going_negative() {
        let mut c = Caiad::new(&CaiadParams { tau: SimDuration::from_millis(50), inflate_on_no_congestion: false });
        let mut w = Window { cwnd: 10_000, ssthresh: 5_000, mss: 1000 };
        c.on_ack(&mut w, &ack_at(0, 1000, 50 * MS));
        // 6000 B over 60 ms: the first sample, 100 000 B/s.
        c.on_ack(&mut w, &ack_at(30 * MS, 3000, 50 * MS));
        c.on_ack(&mut w, &ack_at(60 * MS, 3000, 50 * MS));
        assert!((c.bwe - 100_000.0).abs() < 1e-6, "{}", c.bwe);
        // 1000 B after 1 s: sample 1000 B/s; BWE = (1000 + 100 000)/2.
        c.on_ack(&mut w, &ack_at(1060 * MS, 1000, 50 * MS));
        assert_eq!(c.samples, 2);
        assert!((c.bwe - 50_500.0).abs() < 1e-6, "{}", c.bwe);
        // And from there on eq. (3) as printed (T = 60 ms < 2τ).
        c.on_ack(&mut w, &ack_at(1120 * MS, 6000, 50 * MS));
        let want = (0.1 - 0.06) / (0.1 + 0.06) * 50_500.0 + 0.06 * (100_000.0 + 1000.0) / 0.16;
        assert!((c.bwe - want).abs() < 1e-6, "{} vs {want}", c.bwe);
    }

    /// Eqs. (1)–(3) by hand, RTT_min = 50 ms, MSS 1000, τ = 0.5 s:
    /// - ACK at 0 opens period 1.
    /// - ACKs at 20 and 40 ms (1000 B each), a corruption report at 45 ms, a No-Congestion
    ///   duplicate at 55 ms (D += 1000): 55 > 50 ms closes period 1 with D = 3000, C = 1000:
    ///   α = 0.75, bwe_1 = (3000 + 750)/0.055 = 68 181.8 B/s = BWE_1 (first sample).
    /// - ACK at 100 ms acknowledging 4000 B of which the duplicate counted 1000 (D = 3000), ACK at
    ///   110 ms (1000 B, D = 4000): T_2 = 55 ms, C = 0 → α = 1, bwe_2 = 4000/0.055 = 72 727.3;
    ///   BWE_2 = (1 − 0.055)/(1 + 0.055)·68 181.8 + 0.055·(72 727.3 + 68 181.8)/1.055.
    #[test]
    fn bandwidth_estimate_by_hand() {
        let mut c = caiad();
        let mut w = Window { cwnd: 10_000, ssthresh: 5_000, mss: 1000 };
        c.on_ack(&mut w, &ack_at(0, 1000, 50 * MS));
        c.on_ack(&mut w, &ack_at(20 * MS, 1000, 50 * MS));
        c.on_ack(&mut w, &ack_at(40 * MS, 1000, 50 * MS));
        assert_eq!(c.classify_dup_ack(&dup(45, 0, Some(7000), false, 1)), DupAckCount::Ignore);
        assert!(c.on_corruption_report(&mut w, &dup(45, 0, Some(7000), false, 1), 7000));
        c.on_dup_ack(&mut w, &dup(45, 0, Some(7000), false, 1));
        assert_eq!((c.d_bytes, c.c_bytes, c.samples), (2000, 1000, 0));
        c.on_dup_ack(&mut w, &dup(55, 0, None, true, 1));
        let b1 = 3750.0 / 0.055;
        assert_eq!(c.samples, 1);
        assert!((c.alpha - 0.75).abs() < 1e-12);
        assert!((c.bwe - b1).abs() < 1e-6, "{}", c.bwe);
        c.on_ack(&mut w, &ack_at(100 * MS, 4000, 50 * MS));
        assert_eq!(c.d_bytes, 3000);
        c.on_ack(&mut w, &ack_at(110 * MS, 1000, 50 * MS));
        let b2 = 4000.0 / 0.055;
        let want = (1.0 - 0.055) / (1.0 + 0.055) * b1 + 0.055 * (b2 + b1) / 1.055;
        assert_eq!(c.samples, 2);
        assert_eq!(c.alpha, 1.0);
        assert!((c.bwe - want).abs() < 1e-6, "{} vs {want}", c.bwe);
        assert!((c.estimates()[0].1 - 8.0 * want).abs() < 1e-6);
        // Eq. (4): ssthresh = BWE·RTT_min = want·0.05 bytes; cwnd cut to it.
        let s = LossSignal { now: 120 * MS, kind: LossKind::DupAcks, marked: false, flight_bytes: 10_000 };
        c.on_congestion(&mut w, &s);
        assert_eq!(w.ssthresh, (want * 0.05).round() as u64);
        assert_eq!(w.cwnd, w.ssthresh);
        let s = LossSignal { kind: LossKind::Timeout, ..s };
        c.on_congestion(&mut w, &s);
        assert_eq!(w.cwnd, 1000);
    }

    /// Cases 2–4 on the duplicate-ACK counter, and case 4's adaptive increase on every other
    /// No-Congestion duplicate: α = 0.75 in slow start adds 750 B, in avoidance α·MSS²/cwnd.
    #[test]
    fn duplicate_ack_cases() {
        let mut c = caiad();
        let mut w = Window { cwnd: 4000, ssthresh: 8000, mss: 1000 };
        // Case 2: plain duplicates are counted.
        assert_eq!(c.classify_dup_ack(&dup(1, 0, None, false, 1)), DupAckCount::Count);
        assert_eq!(c.classify_dup_ack(&dup(1, 0, None, false, 3)), DupAckCount::Count);
        // Case 3 registers segment 0 as corrupted; the third plain duplicate then resets.
        c.on_corruption_report(&mut w, &dup(1, 0, Some(0), true, 1), 0);
        assert_eq!(c.classify_dup_ack(&dup(1, 0, None, false, 3)), DupAckCount::Reset);
        assert_eq!(c.classify_dup_ack(&dup(1, 0, None, false, 2)), DupAckCount::Count);
        // Case 4 resets, with or without the corruption option.
        assert_eq!(c.classify_dup_ack(&dup(1, 0, Some(0), true, 1)), DupAckCount::Reset);
        assert_eq!(c.classify_dup_ack(&dup(1, 0, None, true, 1)), DupAckCount::Reset);
        // Once segment 0 is acknowledged it no longer counts as the corrupted first missing one.
        let h = header(TcpHeader { ack: 1000, ..TcpHeader::default() });
        c.on_ack(&mut w, &AckInfo { no_growth: true, header: h, ..ack_at(2 * MS, 1000, 50 * MS) });
        assert_eq!(c.classify_dup_ack(&dup(3, 1000, None, false, 3)), DupAckCount::Count);
        // Adaptive increase, every other No-Congestion duplicate.
        c.alpha = 0.75;
        c.on_dup_ack(&mut w, &dup(4, 1000, None, true, 1));
        assert_eq!(w.cwnd, 4000);
        c.on_dup_ack(&mut w, &dup(4, 1000, None, true, 1));
        assert_eq!(w.cwnd, 4750);
        w.ssthresh = 4000; // avoidance: + α·MSS²/cwnd = 750 000/4750 = 157.9 → 158
        c.on_dup_ack(&mut w, &dup(5, 1000, None, true, 1));
        c.on_dup_ack(&mut w, &dup(5, 1000, None, true, 1));
        assert_eq!(w.cwnd, 4908);
        // Not during fast recovery.
        let rec = AckInfo { recovering: true, ..dup(6, 1000, None, true, 1) };
        c.on_dup_ack(&mut w, &rec);
        c.on_dup_ack(&mut w, &rec);
        assert_eq!(w.cwnd, 4908);
    }

    #[test]
    fn no_sample_before_rtt_min_is_known() {
        let mut c = caiad();
        let mut w = Window { cwnd: 4000, ssthresh: 8000, mss: 1000 };
        c.on_ack(&mut w, &ack_at(0, 1000, 0));
        c.on_ack(&mut w, &ack_at(500 * MS, 1000, 0));
        assert_eq!(c.samples, 0);
        let s = LossSignal { now: 0, kind: LossKind::DupAcks, marked: false, flight_bytes: 10_000 };
        c.on_congestion(&mut w, &s);
        assert_eq!(w.ssthresh, 5000);
    }

    #[test]
    fn tau_is_checked() {
        assert_eq!(
            CaiadParams { tau: SimDuration::from_nanos(0), inflate_on_no_congestion: true }.check().unwrap_err(),
            "tau: must be greater than 0s"
        );
    }
}
