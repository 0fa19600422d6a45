//! Congestion warning (CW), TCP-Jersey §III-B.
//!
//! "We propose that the router shall mark all the packets when the average queue length exceeds a
//! threshold (thresh)" (Fig. 4: marking probability 0 below thresh, 1 above). The average is the
//! RED-style EWMA with a large weight: "a queue weight of 0.2 would be good enough to track and
//! smooth the instantaneous queue length", and "setting the threshold at 1/3 of the link buffer
//! capacity is satisfactory".
//!
//! Reading: the EWMA is updated on every arrival with the number of packets waiting at that
//! moment (as RED does), marking applies at avg >= thresh ("at or above"), and only ECT packets
//! can be marked: routers "implement the original ECN mechanism and its parameters can be
//! configured to reflect the CW scheme", i.e. RED with min_th = max_th = thresh, max_p = 1 and
//! ECN on — which drops a non-ECT packet where it would mark an ECT one (RFC 3168 §5; ns-2's RED
//! with `setbit_`). So by default non-ECT arrivals above the threshold are dropped early
//! (`drop_non_ect = true`); `false` lets them pass unmarked. A full buffer drops. RED's idle-time decay is not applied: the paper describes
//! only the EWMA, and with weight 0.2 the average follows the queue within a few arrivals anyway.

use super::{default_limit, Admission, Aqm, AqmRules, Queue, QueueKind};
use crate::net::Ecn;
use crate::spec::{err, pkts, ScenarioError};

/// `kind = "cw"`: CE-mark every ECT packet while the EWMA queue is at or above a threshold.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CwSpec {
    #[serde(default = "default_limit")]
    limit_pkts: u32,
    /// EWMA weight; the paper's 0.2.
    #[serde(default = "default_cw_weight")]
    weight: f64,
    /// Marking threshold in packets; default one third of `limit_pkts` (the paper's setting).
    threshold_pkts: Option<f64>,
    /// Drop non-ECT packets where ECT ones are marked (CW as RED/ECN configured; default true).
    #[serde(default = "yes")]
    drop_non_ect: bool,
    /// `"paper"` (the default) or `"ns2"`: CW as ns-2.35's RED configured for it marks or drops
    /// nothing while at most one packet waits ([`AqmRules::Ns2`]).
    #[serde(default)]
    rules: AqmRules,
}

fn default_cw_weight() -> f64 {
    0.2
}
fn yes() -> bool {
    true
}

impl QueueKind for CwSpec {
    fn check(&self, field: &str) -> Result<(), ScenarioError> {
        let CwSpec { limit_pkts, weight, threshold_pkts, .. } = *self;
        pkts(format!("{field}.limit_pkts"), limit_pkts)?;
        if !(weight > 0.0 && weight <= 1.0) {
            return err(format!("{field}.weight"), format!("{weight} is out of range (allowed: 0 < weight <= 1)"));
        }
        if let Some(t) = threshold_pkts {
            if !(t >= 0.0 && t <= limit_pkts as f64) {
                return err(format!("{field}.threshold_pkts"), format!("{t} is out of range (allowed: 0 to limit_pkts = {limit_pkts})"));
            }
        }
        Ok(())
    }

    fn build(&self, _small_pkt_tx_ns: u64) -> Queue {
        let CwSpec { limit_pkts, weight, threshold_pkts, drop_non_ect, rules } = *self;
        // TCP-Jersey §III-B: "setting the threshold at 1/3 of the link buffer capacity".
        let th = threshold_pkts.unwrap_or(limit_pkts as f64 / 3.0);
        let mut cw = CwState::new(weight, th, drop_non_ect);
        cw.ns2_rules = rules == AqmRules::Ns2;
        Queue::new(limit_pkts, Aqm::Cw(cw))
    }
}

/// State of a CW queue.
#[derive(Debug, Clone)]
pub(crate) struct CwState {
    /// EWMA weight w: avg ← (1−w)·avg + w·q.
    pub weight: f64,
    /// Marking threshold in packets.
    pub threshold_pkts: f64,
    /// Current average queue length in packets.
    pub avg: f64,
    /// Drop non-ECT arrivals where ECT ones are marked (RED/ECN behaviour).
    pub drop_non_ect: bool,
    /// ns-2.35's RED as the CW queue (`rules = "ns2"`): nothing is marked or dropped early while
    /// at most one packet waits (`red.cc` `enque`: `if (qavg >= th_min && qlen > 1)`), and the
    /// first arrival after the average crosses the threshold passes untested (`edv_.old`; the
    /// forced drop above max_th that would skip it is off at ns-2.35's default `use_mark_p_
    /// true`, see `RedState::admit_ns2`).
    pub ns2_rules: bool,
    /// ns-2 rules: the last arrival found the average at or above the threshold with more than
    /// one packet waiting (`edv_.old`).
    old: bool,
}

impl CwState {
    /// A CW queue with EWMA weight `weight` and threshold `threshold_pkts`, the paper's rules.
    pub(crate) fn new(weight: f64, threshold_pkts: f64, drop_non_ect: bool) -> Self {
        CwState { weight, threshold_pkts, avg: 0.0, drop_non_ect, ns2_rules: false, old: false }
    }

    /// Admission of an arrival that finds `q` packets waiting.
    pub(crate) fn admit(&mut self, q: u32, limit: u32, ecn: Ecn) -> Admission {
        self.avg = (1.0 - self.weight) * self.avg + self.weight * q as f64;
        if self.ns2_rules {
            // `red.cc` `enque`: the `edv_.old` test comes before the buffer-limit one, so an
            // arrival to a full buffer still updates it.
            let above = self.avg >= self.threshold_pkts && q > 1;
            let first = above && !self.old;
            self.old = above;
            if q >= limit {
                return Admission::OverflowDrop;
            }
            if !above || first {
                return Admission::Queued;
            }
        } else if q >= limit {
            return Admission::OverflowDrop;
        } else if self.avg < self.threshold_pkts {
            return Admission::Queued;
        }
        if ecn != Ecn::NotEct {
            Admission::QueuedMarked
        } else if self.drop_non_ect {
            Admission::EarlyDrop
        } else {
            Admission::Queued
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand-worked EWMA with w = 0.2, threshold 2 packets, over arrivals that see
    /// q = 0, 5, 5, 5, 0, 0, 0:
    ///   avg = 0, 1.0, 1.8, 2.44, 1.952, 1.5616, 1.24928
    /// so only the 4th arrival (avg 2.44 >= 2) is marked.
    #[test]
    fn marks_exactly_while_average_at_or_above_threshold() {
        let mut cw = CwState::new(0.2, 2.0, false);
        let qs = [0u32, 5, 5, 5, 0, 0, 0];
        let expect_avg = [0.0, 1.0, 1.8, 2.44, 1.952, 1.5616, 1.24928];
        let expect_mark = [false, false, false, true, false, false, false];
        for i in 0..qs.len() {
            let a = cw.admit(qs[i], 100, Ecn::Ect);
            assert!((cw.avg - expect_avg[i]).abs() < 1e-12, "arrival {i}: avg {}", cw.avg);
            assert_eq!(a == Admission::QueuedMarked, expect_mark[i], "arrival {i}");
        }
    }

    #[test]
    fn never_marks_non_ect_and_drops_when_full() {
        let mut cw = CwState::new(0.2, 0.0, false);
        assert_eq!(cw.admit(3, 10, Ecn::NotEct), Admission::Queued);
        let mut red_like = CwState::new(0.2, 0.0, true);
        assert_eq!(red_like.admit(3, 10, Ecn::NotEct), Admission::EarlyDrop);
        let mut below = CwState::new(0.2, 5.0, true);
        assert_eq!(below.admit(3, 10, Ecn::NotEct), Admission::Queued);
        assert_eq!(cw.admit(3, 10, Ecn::Ect), Admission::QueuedMarked);
        assert_eq!(cw.admit(10, 10, Ecn::Ect), Admission::OverflowDrop);
    }

    /// ns-2's rules, w = 1 and threshold 0 (avg = the queue seen, always at or above it):
    /// - an arrival that finds 0 or 1 packet waiting passes (paper rules: marked) and resets
    ///   `old`;
    /// - the first arrival that finds 2 or more after that passes untested (`edv_.old`), the
    ///   next ones are marked (ECT) or dropped (non-ECT);
    /// - an arrival to a full buffer is dropped and still sets `old`, so the one after it is not
    ///   spared.
    #[test]
    fn ns2_rules_spare_the_crossing_arrival_and_an_almost_empty_queue() {
        for (q, paper) in [(0, true), (1, true), (2, true)] {
            let mut a = CwState::new(1.0, 0.0, true);
            assert_eq!(a.admit(q, 10, Ecn::Ect) == Admission::QueuedMarked, paper, "paper, q {q}");
        }
        let mut b = CwState { ns2_rules: true, ..CwState::new(1.0, 0.0, true) };
        let seq = [
            (2, Ecn::Ect, Admission::Queued),
            (2, Ecn::Ect, Admission::QueuedMarked),
            (3, Ecn::NotEct, Admission::EarlyDrop),
            (1, Ecn::Ect, Admission::Queued),
            (0, Ecn::NotEct, Admission::Queued),
            (5, Ecn::NotEct, Admission::Queued),
            (5, Ecn::NotEct, Admission::EarlyDrop),
            (1, Ecn::NotEct, Admission::Queued),
            (10, Ecn::NotEct, Admission::OverflowDrop),
            (9, Ecn::NotEct, Admission::EarlyDrop),
        ];
        for (i, (q, ecn, want)) in seq.into_iter().enumerate() {
            assert_eq!(b.admit(q, 10, ecn), want, "arrival {i}: q {q}");
        }
    }

    /// avg exactly equal to the threshold marks ("at or above").
    #[test]
    fn threshold_is_inclusive() {
        let mut cw = CwState::new(1.0, 4.0, false);
        assert_eq!(cw.admit(4, 10, Ecn::Ect), Admission::QueuedMarked);
        assert_eq!(cw.admit(3, 10, Ecn::Ect), Admission::Queued);
    }
}
