//! TCP Vegas (Brakmo & Peterson, IEEE JSAC 13(8), 1995) as the thesis (seed 001) describes it in
//! §2.2.6 and §2.2.7.
//!
//! Congestion avoidance (thesis §2.2.6): Expected = WindowSize / BaseRTT, BaseRTT the minimum of
//! all measured RTTs; Actual = segments sent within the RTT of a tagged segment / that RTT. Once per
//! RTT the difference, in segments, diff = (Expected − Actual)·BaseRTT, is compared with α < β:
//! diff < α → cwnd += 1 segment; diff > β → cwnd −= 1 segment; otherwise cwnd is kept.
//! Slow start (Brakmo & Peterson §3.3): the window doubles only every other RTT, and is held in
//! between so that Expected and Actual can be compared; slow start ends when diff > γ.
//! Losses: on fast retransmit "it reduces the congestion window to 3/4 instead of 1/2" (thesis
//! §2.2.7, line 411); on a timeout the sender "switches to slow start" (§2.2.6): Reno's timeout
//! (ssthresh = FlightSize/2, cwnd = 1 segment), then Vegas's slow start.
//! "Vegas expiry" (§2.2.6): the sender records the send time of every segment; on a duplicate ACK
//! before the DupThresh-th, if the oldest unacknowledged segment has been out longer than the
//! fine-grained timeout computed from fine-grained RTT samples, it fast-retransmits at once
//! ([`CongestionControl::expired`]; the sender records the send times in its scoreboard).
//!
//! Readings where the seeds are silent (tested in `tests`):
//! - α = 1, β = 3, γ = 1 segments (Brakmo & Peterson's values; the thesis gives none).
//! - "Once per RTT" is an epoch: it opens at an ACK and closes at the first ACK that covers all
//!   data outstanding when it opened. The RTT in Actual is the smallest RTT sample of the epoch
//!   (the tagged segment's sample: with Karn's rule there is about one per RTT; with timestamps the
//!   minimum filters delayed-ACK noise, as Linux does), or the latest sample when the epoch had
//!   none. WindowSize is cwnd (Brakmo & Peterson assume it equals the bytes in transit), so
//!   diff = cwnd·(RTT − BaseRTT)/(RTT·MSS).
//! - Leaving slow start sets cwnd = min(cwnd, cwnd·BaseRTT/RTT + 1 segment) — the window that
//!   fills the pipe plus α of backlog (Linux's rule) — and ssthresh = cwnd. Whenever Vegas lowers
//!   cwnd it lowers ssthresh with it, so that linear mode does not fall back into slow start.
//! - cwnd never goes below 2 segments by Vegas's own decrease.
//! - The 3/4 reduction applies to cwnd (not FlightSize): ssthresh = max(3·cwnd/4, 2 segments); the
//!   recovery strategy then sets cwnd (NewReno: ssthresh + dupACKs·MSS while recovering). The
//!   thesis's condition "when the segment that triggered fast retransmit has not been transmitted
//!   more than once" is left to the recovery's `recover` guard, which already keeps a second fast
//!   retransmit (and reduction) out of the same window.
//! - The fine-grained timeout is RFC 6298's SRTT + 4·RTTVAR over the same RTT samples, with no
//!   minimum and 1-ns granularity (the sender's own RTO has a 200-ms floor). Brakmo & Peterson's
//!   second check, on the first and second new ACK after a retransmission, is not implemented:
//!   NewReno's partial-ACK retransmission covers those losses.
//! - During loss recovery (`no_growth`) Vegas leaves cwnd to the recovery strategy and restarts
//!   its epoch afterwards; an ECN echo is answered as Reno does.

use serde::Deserialize;

use super::reno::Reno;
use super::{AckInfo, CongestionControl, LossKind, LossSignal, Reaction, Window};
use crate::tcp::rto::RttEstimator;
use crate::time::SimTime;

/// Vegas's parameters (`[flows.cc_params]` with `cc = "vegas"`), in segments.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VegasParams {
    /// Grow when diff < α (too little backlog).
    #[serde(default = "default_alpha")]
    pub alpha: f64,
    /// Shrink when diff > β (too much backlog); α ≤ β.
    #[serde(default = "default_beta")]
    pub beta: f64,
    /// Leave slow start when diff > γ.
    #[serde(default = "default_gamma")]
    pub gamma: f64,
    /// Vegas expiry: fast retransmit on an early duplicate ACK when the fine-grained timer expired.
    #[serde(default = "default_expiry")]
    pub expiry: bool,
}

fn default_alpha() -> f64 {
    1.0
}
fn default_beta() -> f64 {
    3.0
}
fn default_gamma() -> f64 {
    1.0
}
fn default_expiry() -> bool {
    true
}

impl VegasParams {
    /// One-line error naming the field and its allowed range.
    pub fn check(&self) -> Result<(), String> {
        if !(self.alpha >= 0.0 && self.alpha.is_finite()) {
            return Err(format!("alpha: {} is out of range (allowed: alpha >= 0)", self.alpha));
        }
        if !(self.beta >= self.alpha && self.beta.is_finite()) {
            return Err(format!("beta: {} is out of range (allowed: beta >= alpha = {})", self.beta, self.alpha));
        }
        if !(self.gamma >= 0.0 && self.gamma.is_finite()) {
            return Err(format!("gamma: {} is out of range (allowed: gamma >= 0)", self.gamma));
        }
        Ok(())
    }
}

/// What Vegas decides at the end of an epoch (returned for tests and traces).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// No RTT known yet: nothing decided.
    NoMeasurement,
    /// Slow start goes on (the next epoch grows or holds).
    KeepSlowStart,
    /// diff > γ: slow start ends.
    LeaveSlowStart,
    /// diff < α: one segment more.
    Increase,
    /// α ≤ diff ≤ β: keep the window.
    Hold,
    /// diff > β: one segment less.
    Decrease,
}

/// TCP Vegas window policy.
#[derive(Debug, Clone)]
pub struct Vegas {
    alpha: f64,
    beta: f64,
    gamma: f64,
    expiry: bool,
    /// The current epoch ends when the cumulative ACK reaches this (None: no epoch open).
    epoch_end: Option<u64>,
    /// Smallest RTT sample in the current epoch.
    epoch_min_rtt_ns: Option<u64>,
    /// The latest RTT sample.
    last_rtt_ns: u64,
    /// BaseRTT: the smallest RTT sample so far.
    base_rtt_ns: u64,
    /// Slow start grows during this epoch (it alternates with holding epochs).
    grow: bool,
    /// Fine-grained RTT estimator for Vegas expiry.
    fine: RttEstimator,
    /// The last diff computed, in segments (for tests and traces).
    pub last_diff: f64,
    /// Fast retransmits started by Vegas expiry.
    pub expiries: u64,
}

impl Vegas {
    /// Vegas with checked parameters, before any RTT sample (no BaseRTT, no expiry yet).
    pub fn new(p: &VegasParams) -> Self {
        Vegas {
            alpha: p.alpha,
            beta: p.beta,
            gamma: p.gamma,
            expiry: p.expiry,
            epoch_end: None,
            epoch_min_rtt_ns: None,
            last_rtt_ns: 0,
            base_rtt_ns: 0,
            grow: true,
            // No expiry before the first sample: the initial timeout is "infinite".
            fine: RttEstimator::new(u64::MAX, 0, u64::MAX, 1),
            last_diff: 0.0,
            expiries: 0,
        }
    }

    /// diff = (Expected − Actual)·BaseRTT in segments, Expected = cwnd/BaseRTT, Actual = cwnd/RTT
    /// (thesis §2.2.6).
    pub fn diff_segments(cwnd: u64, mss: u64, base_rtt_ns: u64, rtt_ns: u64) -> f64 {
        let expected = cwnd as f64 / base_rtt_ns as f64;
        let actual = cwnd as f64 / rtt_ns as f64;
        (expected - actual) * base_rtt_ns as f64 / mss as f64
    }

    /// The once-per-RTT decision at the end of an epoch whose RTT was `rtt_ns`.
    pub fn decide(&mut self, w: &mut Window, rtt_ns: u64) -> Decision {
        if self.base_rtt_ns == 0 || rtt_ns == 0 {
            return Decision::NoMeasurement;
        }
        let diff = Self::diff_segments(w.cwnd, w.mss, self.base_rtt_ns, rtt_ns.max(self.base_rtt_ns));
        self.last_diff = diff;
        if w.in_slow_start() {
            if diff > self.gamma {
                // Target: the window that fills the pipe (cwnd·BaseRTT/RTT) plus one segment.
                let target = (w.cwnd as u128 * self.base_rtt_ns as u128 / rtt_ns as u128) as u64 + w.mss;
                w.cwnd = w.cwnd.min(target).max(2 * w.mss);
                w.ssthresh = w.cwnd;
                return Decision::LeaveSlowStart;
            }
            self.grow = !self.grow;
            return Decision::KeepSlowStart;
        }
        if diff < self.alpha {
            w.cwnd += w.mss;
            Decision::Increase
        } else if diff > self.beta {
            w.cwnd = w.cwnd.saturating_sub(w.mss).max(2 * w.mss);
            w.ssthresh = w.ssthresh.min(w.cwnd);
            Decision::Decrease
        } else {
            Decision::Hold
        }
    }

    fn reset_epoch(&mut self) {
        self.epoch_end = None;
        self.epoch_min_rtt_ns = None;
    }
}

impl CongestionControl for Vegas {
    fn name(&self) -> &'static str {
        "vegas"
    }

    fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        if let Some(r) = ack.rtt_sample_ns {
            self.fine.sample(r);
            self.last_rtt_ns = r;
            self.epoch_min_rtt_ns = Some(self.epoch_min_rtt_ns.map_or(r, |m| m.min(r)));
        }
        self.base_rtt_ns = ack.min_rtt_ns;
        if ack.no_growth {
            // The recovery strategy owns cwnd; measure afresh once it is done.
            self.reset_epoch();
            return;
        }
        // Slow start: Reno's per-ACK growth, but only in every other epoch.
        if w.in_slow_start() && self.grow {
            w.cwnd += ack.acked_bytes.min(w.mss);
        }
        let snd_max = ack.ack + ack.flight_bytes;
        match self.epoch_end {
            None => {
                self.epoch_end = Some(snd_max);
                self.epoch_min_rtt_ns = None;
            }
            Some(end) if ack.ack >= end => {
                let rtt = self.epoch_min_rtt_ns.unwrap_or(self.last_rtt_ns);
                self.decide(w, rtt);
                self.epoch_end = Some(snd_max);
                self.epoch_min_rtt_ns = None;
            }
            Some(_) => {}
        }
    }

    fn on_congestion(&mut self, w: &mut Window, s: &LossSignal) -> Reaction {
        self.reset_epoch();
        match s.kind {
            LossKind::DupAcks => {
                // thesis §2.2.7: the window is reduced to 3/4 instead of 1/2.
                w.ssthresh = (w.cwnd * 3 / 4).max(2 * w.mss);
                Reaction::Reduce
            }
            // thesis §2.2.6: a timeout switches to slow start (Reno's timeout); ECN as Reno.
            LossKind::Timeout | LossKind::Ecn => {
                self.grow = true;
                Reno.on_congestion(w, s)
            }
        }
    }

    fn expired(&mut self, now: SimTime, oldest_sent_at: SimTime) -> bool {
        // thesis §2.2.6: "For each duplicate acknowledgement received, the sender checks the Vegas
        // expiry" against the fine-grained timeout.
        let fire = self.expiry && self.fine.srtt().is_some() && now.saturating_sub(oldest_sent_at) > self.fine.base_rto();
        self.expiries += fire as u64;
        fire
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::westwood::tests::ack_at;

    const MS: u64 = 1_000_000;

    fn vegas() -> Vegas {
        Vegas::new(&VegasParams { alpha: 1.0, beta: 3.0, gamma: 1.0, expiry: true })
    }

    /// diff by hand, MSS 1000, BaseRTT 100 ms:
    /// - cwnd 10 segments, RTT 105 ms: Expected = 10/0.1 = 100 seg/s, Actual = 10/0.105 = 95.238,
    ///   diff = 4.762·0.1 = 0.476 < α = 1 → +1 segment;
    /// - cwnd 10, RTT 120 ms: Actual = 83.333, diff = 1.667, α ≤ diff ≤ β → hold;
    /// - cwnd 10, RTT 150 ms: Actual = 66.667, diff = 3.333 > β = 3 → −1 segment, ssthresh follows;
    /// - slow start, cwnd 10, RTT 110 ms: diff = 0.909 ≤ γ → stays; RTT 125 ms: diff = 2 > γ →
    ///   leave with cwnd = min(10, 10·100/125 + 1) = 9 segments, ssthresh = cwnd.
    #[test]
    fn diff_rule_by_hand() {
        let mut v = vegas();
        v.base_rtt_ns = 100 * MS;
        assert!((Vegas::diff_segments(10_000, 1000, 100 * MS, 105 * MS) - 10.0 / 21.0).abs() < 1e-9);
        let mut w = Window { cwnd: 10_000, ssthresh: 5_000, mss: 1000 };
        assert_eq!(v.decide(&mut w, 105 * MS), Decision::Increase);
        assert_eq!(w.cwnd, 11_000);
        w.cwnd = 10_000;
        assert_eq!(v.decide(&mut w, 120 * MS), Decision::Hold);
        assert!((v.last_diff - 5.0 / 3.0).abs() < 1e-9);
        assert_eq!(w.cwnd, 10_000);
        w.ssthresh = 10_000;
        assert_eq!(v.decide(&mut w, 150 * MS), Decision::Decrease);
        assert!((v.last_diff - 10.0 / 3.0).abs() < 1e-9);
        assert_eq!((w.cwnd, w.ssthresh), (9_000, 9_000));
        // Slow start.
        let mut w = Window { cwnd: 10_000, ssthresh: 64_000, mss: 1000 };
        assert_eq!(v.decide(&mut w, 110 * MS), Decision::KeepSlowStart);
        assert_eq!(w.cwnd, 10_000);
        assert_eq!(v.decide(&mut w, 125 * MS), Decision::LeaveSlowStart);
        assert!((v.last_diff - 2.0).abs() < 1e-9);
        assert_eq!((w.cwnd, w.ssthresh), (9_000, 9_000));
        assert!(!w.in_slow_start());
    }

    /// Slow start doubles in one epoch and holds in the next: IW 2 segments, BaseRTT = RTT =
    /// 100 ms (diff 0, never above γ).
    #[test]
    fn slow_start_doubles_every_other_rtt() {
        let mut v = vegas();
        let mut w = Window { cwnd: 2000, ssthresh: 1_000_000, mss: 1000 };
        let ack = |t: u64, ackno: u64, flight: u64| AckInfo {
            ack: ackno,
            flight_bytes: flight,
            rtt_sample_ns: Some(100 * MS),
            ..ack_at(t * MS, 1000, 100 * MS)
        };
        // Epoch 1 (a growing one) opens at ACK 1000 with [1000, 2000) outstanding: it ends at 2000.
        v.on_ack(&mut w, &ack(100, 1000, 1000));
        assert_eq!(w.cwnd, 3000);
        // ACK 2000 grows, then closes epoch 1; epoch 2 (holding) ends at 2000 + 2000 outstanding.
        v.on_ack(&mut w, &ack(101, 2000, 2000));
        assert_eq!(w.cwnd, 4000);
        v.on_ack(&mut w, &ack(200, 3000, 3000));
        v.on_ack(&mut w, &ack(201, 4000, 2000));
        assert_eq!(w.cwnd, 4000);
        // ACK 4000 closed epoch 2: epoch 3 grows again.
        v.on_ack(&mut w, &ack(300, 5000, 1000));
        assert_eq!(w.cwnd, 5000);
    }

    /// 3/4 on fast retransmit, Reno's on timeout; Vegas expiry against SRTT + 4·RTTVAR.
    #[test]
    fn reductions_and_expiry() {
        let mut v = vegas();
        let mut w = Window { cwnd: 16_000, ssthresh: 16_000, mss: 1000 };
        let s = LossSignal { now: 0, kind: LossKind::DupAcks, marked: false, flight_bytes: 16_000 };
        assert_eq!(v.on_congestion(&mut w, &s), Reaction::Reduce);
        assert_eq!(w.ssthresh, 12_000);
        let s = LossSignal { kind: LossKind::Timeout, flight_bytes: 10_000, ..s };
        v.on_congestion(&mut w, &s);
        assert_eq!((w.cwnd, w.ssthresh), (1000, 5000));
        // No RTT sample yet: never expires.
        assert!(!v.expired(10_000 * MS, 0));
        // Samples 100 then 100 ms: SRTT 100, RTTVAR (3·50 + 0)/4 = 37.5 → timeout 250 ms.
        for _ in 0..2 {
            v.on_ack(&mut w, &AckInfo { rtt_sample_ns: Some(100 * MS), ..ack_at(0, 1000, 100 * MS) });
        }
        assert!(!v.expired(250 * MS, 0));
        assert!(v.expired(250 * MS + 1, 0));
        assert_eq!(v.expiries, 1);
        v.expiry = false;
        assert!(!v.expired(1000 * MS, 0));
    }

    /// Vegas expiry through the sender: IW 10 segments sent at 0; the ACK of segment 0 at 100 ms
    /// gives the first RTT sample (SRTT 100, RTTVAR 50 → fine timeout 300 ms; the sender's own RTO,
    /// also 300 ms, restarts at 100 ms). A first duplicate ACK at 299 ms finds segment 1000 out for
    /// 299 ms: nothing. The next, at 301 ms: expired → fast retransmit on the 2nd duplicate ACK,
    /// ssthresh = 3/4 of cwnd 11 000 = 8250, NewReno's cwnd = 8250 + 2 segments.
    #[test]
    fn expiry_retransmits_before_three_dupacks() {
        use crate::tcp::sender::tests::{ack, cfg, sent};
        use crate::tcp::Sender;
        let mut s = Sender::new(cfg(false, 10), Box::new(vegas()), crate::tcp::recovery::by_name("newreno").unwrap());
        s.offer(0, u64::MAX);
        assert_eq!(sent(&mut s).len(), 10);
        s.on_ack(100 * MS, &ack(1000));
        assert_eq!(s.core.w.cwnd, 11_000);
        sent(&mut s);
        s.on_ack(299 * MS, &ack(1000));
        assert!(!s.core.in_recovery);
        assert_eq!(sent(&mut s), vec![]);
        s.on_ack(301 * MS, &ack(1000));
        assert!(s.core.in_recovery);
        assert_eq!(s.core.stats.fast_retransmits, 1);
        assert_eq!(sent(&mut s), vec![(1000, true)]);
        assert_eq!((s.core.w.ssthresh, s.core.w.cwnd), (8250, 10_250));
    }

    #[test]
    fn params_are_checked() {
        let p = VegasParams { alpha: 2.0, beta: 1.0, gamma: 1.0, expiry: true };
        assert_eq!(p.check().unwrap_err(), "beta: 1 is out of range (allowed: beta >= alpha = 2)");
        assert!(VegasParams { alpha: -1.0, ..p.clone() }.check().unwrap_err().starts_with("alpha:"));
        assert!(VegasParams { beta: 3.0, gamma: f64::NAN, ..p }.check().unwrap_err().starts_with("gamma:"));
    }
}
