//! Random Early Detection, Floyd & Jacobson, "Random Early Detection Gateways for Congestion
//! Avoidance", IEEE/ACM ToN 1993, Fig. 2 (the algorithm with `count`).
//!
//! ```text
//! for each packet arrival
//!   if the queue is nonempty: avg ← (1 − w_q)·avg + w_q·q
//!   else: m ← f(time − q_time); avg ← (1 − w_q)^m · avg
//!   if min_th ≤ avg < max_th
//!     increment count; p_b ← max_p (avg − min_th)/(max_th − min_th); p_a ← p_b/(1 − count·p_b)
//!     with probability p_a: mark the arriving packet; count ← 0
//!   else if max_th ≤ avg: mark the arriving packet; count ← 0
//!   else count ← −1
//! when the queue becomes empty: q_time ← time
//! ```
//! "Mark" is a drop, or with `ecn` a CE mark of an ECT packet (RFC 3168 §7); non-ECT packets and
//! the forced region above max_th are dropped. f(t) = t / s with s the transmission time of a
//! typical small packet (ns-2's `mean_pktsize` of 500 B at the link rate). Gentle RED (Floyd 2000)
//! replaces the forced region by p_b rising linearly from max_p at max_th to 1 at 2·max_th.

use super::{default_limit, Admission, Aqm, AqmRules, Queue, QueueKind};
use crate::engine::RngStream;
use crate::net::Ecn;
use crate::spec::{err, pkts, ScenarioError};
use crate::time::SimTime;

/// `kind = "red"`: Random Early Detection, optionally marking ECT packets instead of dropping.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RedSpec {
    #[serde(default = "default_limit")]
    limit_pkts: u32,
    min_th_pkts: f64,
    max_th_pkts: f64,
    #[serde(default = "default_red_weight")]
    weight: f64,
    #[serde(default = "default_max_p")]
    max_p: f64,
    /// Mark ECT packets with CE instead of dropping them early.
    #[serde(default)]
    ecn: bool,
    /// Gentle RED: probability rises from max_p to 1 between max_th and 2·max_th.
    #[serde(default)]
    gentle: bool,
    /// Whose drop rules: Floyd & Jacobson's Fig. 2 (`"paper"`, the default) or ns-2.35's
    /// `red.cc` (`"ns2"`), see [`AqmRules`].
    #[serde(default)]
    rules: AqmRules,
}

fn default_red_weight() -> f64 {
    0.002
}
fn default_max_p() -> f64 {
    0.1
}

impl QueueKind for RedSpec {
    fn check(&self, field: &str) -> Result<(), ScenarioError> {
        let RedSpec { limit_pkts, min_th_pkts, max_th_pkts, weight, max_p, .. } = *self;
        pkts(format!("{field}.limit_pkts"), limit_pkts)?;
        // Thresholds above the buffer would never be reached by the average queue: RED would
        // silently be DropTail.
        if !(min_th_pkts >= 0.0 && min_th_pkts < limit_pkts as f64) {
            return err(
                format!("{field}.min_th_pkts"),
                format!("{min_th_pkts} is out of range (allowed: 0 to below limit_pkts = {limit_pkts})"),
            );
        }
        if !(max_th_pkts > min_th_pkts && max_th_pkts <= limit_pkts as f64) {
            return err(
                format!("{field}.max_th_pkts"),
                format!("{max_th_pkts} is out of range (allowed: above min_th_pkts = {min_th_pkts}, up to limit_pkts = {limit_pkts})"),
            );
        }
        if !(weight > 0.0 && weight <= 1.0) {
            return err(format!("{field}.weight"), format!("{weight} is out of range (allowed: 0 < weight <= 1)"));
        }
        if !(max_p > 0.0 && max_p <= 1.0) {
            return err(format!("{field}.max_p"), format!("{max_p} is out of range (allowed: 0 < max_p <= 1)"));
        }
        Ok(())
    }

    fn build(&self, small_pkt_tx_ns: u64) -> Queue {
        let RedSpec { limit_pkts, min_th_pkts, max_th_pkts, weight, max_p, ecn, gentle, rules } = *self;
        let ns2_rules = rules == AqmRules::Ns2;
        let p = RedParams { min_th: min_th_pkts, max_th: max_th_pkts, weight, max_p, ecn, gentle, small_pkt_tx_ns, ns2_rules };
        Queue::new(limit_pkts, Aqm::Red(RedState::new(p)))
    }
}

/// Configuration of a RED queue.
#[derive(Debug, Clone)]
pub(crate) struct RedParams {
    pub min_th: f64,
    pub max_th: f64,
    pub weight: f64,
    pub max_p: f64,
    pub ecn: bool,
    pub gentle: bool,
    /// s of f(t) = t/s: transmission time of a typical small packet, ns.
    pub small_pkt_tx_ns: u64,
    /// ns-2.35's `red.cc` instead of Fig. 2 (`rules = "ns2"`, see `RedState::admit`).
    pub ns2_rules: bool,
}

/// ns-2.35's `Queue/RED set mark_p_ 0.1` (`ns-default.tcl`): with `use_mark_p_ true`, the
/// default, RED marks an ECT packet only while its p_b is below this, and drops it above.
const NS2_MARK_P: f64 = 0.1;

/// State of a RED queue.
#[derive(Debug, Clone)]
pub(crate) struct RedState {
    pub p: RedParams,
    pub avg: f64,
    /// Packets since the last mark (−1 after leaving the marking region).
    pub count: i64,
    /// The average has been decayed for idle time up to here (so arrivals dropped during one
    /// idle period do not decay it twice).
    decayed_to: SimTime,
    /// ns-2 rules: the average was above min_th with packets waiting at the last arrival
    /// (`edv_.old`).
    old: bool,
}

impl RedState {
    /// A RED queue with parameters `p`, average 0.
    pub(crate) fn new(p: RedParams) -> Self {
        let count = if p.ns2_rules { 0 } else { -1 };
        RedState { p, avg: 0.0, count, decayed_to: 0, old: false }
    }

    /// p_b for the current average (before count spacing).
    pub(crate) fn base_probability(&self) -> f64 {
        let p = &self.p;
        if self.avg < p.min_th {
            0.0
        } else if self.avg < p.max_th {
            p.max_p * (self.avg - p.min_th) / (p.max_th - p.min_th)
        } else if p.gentle && self.avg < 2.0 * p.max_th {
            p.max_p + (1.0 - p.max_p) * (self.avg - p.max_th) / p.max_th
        } else {
            1.0
        }
    }

    /// p_a = p_b / (1 − count·p_b), clamped to 1 once count·p_b ≥ 1.
    pub(crate) fn spaced_probability(pb: f64, count: i64) -> f64 {
        let denom = 1.0 - count as f64 * pb;
        if denom <= pb {
            1.0
        } else {
            (pb / denom).min(1.0)
        }
    }

    fn update_avg(&mut self, now: SimTime, q: u32, idle_since: Option<SimTime>) {
        match idle_since {
            Some(since) if q == 0 => {
                // q_time = when the transmitter went idle; an arrival dropped during the idle
                // period leaves it idle, so the next one decays only over the time since.
                let from = since.max(self.decayed_to);
                let m = (now - from.min(now)) as f64 / self.p.small_pkt_tx_ns.max(1) as f64;
                self.avg *= (1.0 - self.p.weight).powf(m);
                self.decayed_to = now;
            }
            _ => self.avg = (1.0 - self.p.weight) * self.avg + self.p.weight * q as f64,
        }
    }

    /// ns-2.35 `REDQueue::enque`'s average: after an idle period, `estimator(q, m + 1, ave, w)`
    /// with `m = int(ptc * (now - idletime_))` whole small-packet times, i.e. (1 − w)^(m+1) and
    /// then + w·q (q = 0 for an arrival to an idle queue).
    fn update_avg_ns2(&mut self, now: SimTime, q: u32, idle_since: Option<SimTime>) {
        let mut steps = 1;
        if let Some(since) = idle_since.filter(|_| q == 0) {
            let from = since.max(self.decayed_to);
            steps += (now - from.min(now)) / self.p.small_pkt_tx_ns.max(1);
            self.decayed_to = now;
        }
        self.avg *= (1.0 - self.p.weight).powi(steps.min(i32::MAX as u64) as i32);
        self.avg += self.p.weight * q as f64;
    }

    /// ns-2.35 `REDQueue::enque`'s drop logic at its defaults (`drop_tail_`, not `wait_`, no
    /// `cautious`, `use_mark_p_ true`): `++count` on every arrival; only if avg ≥ min_th and more
    /// than one packet waits (`qlen > 1`): the first arrival after crossing sets count = 1
    /// untested (`edv_.old`), else drop with p_b/(1 − count·p_b) (`modify_p`; `u <= p`), count = 0
    /// at a drop or mark; otherwise `old = 0`.
    ///
    /// Above max_th (2·max_th gentle) `enque`'s forced drop is guarded by `!edp_.use_mark_p`,
    /// and `use_mark_p_` is `true` in ns-2.35's `ns-default.tcl`: such an arrival takes the same
    /// `edv_.old` test, so the first one after crossing passes, and later ones reach
    /// `drop_early` with `calculate_p_new` = 1 — always dropped (`u <= 1`; we draw no number
    /// for it), count = 0. It matters where the average can cross min_th and max_th at once: a
    /// CW queue set up as RED (max_th just above min_th), or an average above max_th when the
    /// queue drains to one packet (`old = 0`). Measured on bench/ns2/dumbbell.tcl's CW queue, 20
    /// NewReno flows at 0% loss, seed 1: ns-2.35 times out 197 times at its default and 37 with
    /// `use_mark_p_ false`; airtcp with the forced drop (before this reading) 45.
    fn admit_ns2(&mut self, now: SimTime, q: u32, idle_since: Option<SimTime>, limit: u32, ecn: Ecn, rng: &mut RngStream) -> Admission {
        self.update_avg_ns2(now, q, idle_since);
        self.count += 1;
        let p = &self.p;
        let mut mark = false;
        if self.avg >= p.min_th && q > 1 {
            if !self.old {
                self.count = 1;
                self.old = true;
            } else if (!p.gentle && self.avg >= p.max_th) || (p.gentle && self.avg >= 2.0 * p.max_th) {
                self.count = 0;
                return if q >= limit { Admission::OverflowDrop } else { Admission::EarlyDrop };
            } else {
                let pa = Self::spaced_probability(self.base_probability(), self.count);
                if rng.uniform() <= pa {
                    self.count = 0;
                    mark = true;
                }
            }
        } else {
            self.old = false;
        }
        if q >= limit {
            Admission::OverflowDrop
        } else if !mark {
            Admission::Queued
        } else if self.p.ecn && ecn != Ecn::NotEct && self.base_probability() < NS2_MARK_P {
            // `drop_early`: with `use_mark_p_` an ECT packet is marked only while
            // `v_prob1` (p_b) < `mark_p_`, and dropped above it.
            Admission::QueuedMarked
        } else {
            Admission::EarlyDrop
        }
    }

    /// Admission of an arrival that finds `q` packets waiting.
    pub(crate) fn admit(
        &mut self,
        now: SimTime,
        q: u32,
        idle_since: Option<SimTime>,
        limit: u32,
        ecn: Ecn,
        rng: &mut RngStream,
    ) -> Admission {
        if self.p.ns2_rules {
            return self.admit_ns2(now, q, idle_since, limit, ecn, rng);
        }
        self.update_avg(now, q, idle_since);
        let mark = if self.avg < self.p.min_th {
            self.count = -1;
            false
        } else if self.avg < self.p.max_th || (self.p.gentle && self.avg < 2.0 * self.p.max_th) {
            self.count += 1;
            let pa = Self::spaced_probability(self.base_probability(), self.count);
            let hit = rng.uniform() < pa;
            if hit {
                self.count = 0;
            }
            hit
        } else {
            self.count = 0;
            // Forced region: always drop, even ECT packets.
            return if q >= limit { Admission::OverflowDrop } else { Admission::EarlyDrop };
        };
        if q >= limit {
            return Admission::OverflowDrop;
        }
        if !mark {
            Admission::Queued
        } else if self.p.ecn && ecn != Ecn::NotEct {
            Admission::QueuedMarked
        } else {
            Admission::EarlyDrop
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> RedParams {
        RedParams {
            min_th: 5.0,
            max_th: 15.0,
            weight: 0.002,
            max_p: 0.1,
            ecn: false,
            gentle: false,
            small_pkt_tx_ns: 1000,
            ns2_rules: false,
        }
    }

    /// Hand-worked: avg = 10 with min 5, max 15, max_p 0.1 → p_b = 0.1·5/10 = 0.05;
    /// count = 0 → p_a = 0.05; count = 10 → 0.05/(1−0.5) = 0.1; count = 19 → 0.05/0.05 = 1.
    #[test]
    fn drop_probability_by_hand() {
        let mut st = RedState::new(params());
        st.avg = 10.0;
        let pb = st.base_probability();
        assert!((pb - 0.05).abs() < 1e-12);
        assert!((RedState::spaced_probability(pb, 0) - 0.05).abs() < 1e-12);
        assert!((RedState::spaced_probability(pb, 10) - 0.1).abs() < 1e-12);
        assert_eq!(RedState::spaced_probability(pb, 19), 1.0);
        st.avg = 4.9;
        assert_eq!(st.base_probability(), 0.0);
        st.avg = 15.0;
        assert_eq!(st.base_probability(), 1.0);
        let mut g = RedState::new(RedParams { gentle: true, ..params() });
        g.avg = 22.5; // halfway between max_th and 2·max_th: 0.1 + 0.9·0.5 = 0.55
        assert!((g.base_probability() - 0.55).abs() < 1e-12);
    }

    /// ns-2 rules by hand, w = 1 (avg = the queue seen), min 5, max 15, max_p 0.1:
    /// - q = 6 (first crossing): untested, count = 1 (`edv_.old`);
    /// - q = 10: count 2, p_b = 0.05, p_a = 0.05/(1 − 0.1) = 0.0556: the stream's draw decides;
    /// - q = 1 (avg 1 < min): passes, old = 0; q = 20 (avg 20 ≥ max): crosses both thresholds
    ///   at once, so it too passes untested (`use_mark_p_`: no forced drop), count = 1; the next
    ///   q = 20 is dropped (p = 1), count = 0;
    /// - with w = 0.5, max 8, from avg 20 and `old` set: q = 1 gives avg 10.5 ≥ max but passes
    ///   (`qlen > 1` fails) and clears `old`; then q = 20 gives avg 15.25, spared again; q = 20
    ///   (avg 17.625) is dropped;
    /// - an idle period of 10 small-packet times decays by (1 − w)^11 before adding w·q.
    #[test]
    fn ns2_rules_by_hand() {
        let ns2 = RedParams { weight: 1.0, ns2_rules: true, ..params() };
        let mut st = RedState::new(ns2.clone());
        let mut rng = RngStream::new(1, "t");
        assert_eq!(st.admit(0, 6, None, 100, Ecn::NotEct, &mut rng), Admission::Queued);
        assert_eq!((st.count, st.old), (1, true));
        let u = RngStream::new(1, "t").uniform();
        let want = if u <= 0.05 / 0.9 { Admission::EarlyDrop } else { Admission::Queued };
        assert_eq!(st.admit(0, 10, None, 100, Ecn::NotEct, &mut rng), want);
        assert_eq!(st.admit(0, 1, None, 100, Ecn::NotEct, &mut rng), Admission::Queued);
        assert!(!st.old);
        assert_eq!(st.admit(0, 20, None, 100, Ecn::NotEct, &mut rng), Admission::Queued);
        assert_eq!((st.count, st.old), (1, true));
        assert_eq!(st.admit(0, 20, None, 100, Ecn::NotEct, &mut rng), Admission::EarlyDrop);
        assert_eq!(st.count, 0);
        let mut half = RedState::new(RedParams { weight: 0.5, max_th: 8.0, ..ns2.clone() });
        (half.avg, half.old) = (20.0, true);
        assert_eq!(half.admit(0, 1, None, 100, Ecn::NotEct, &mut rng), Admission::Queued); // avg 10.5, q 1
        assert!((half.avg - 10.5).abs() < 1e-12);
        assert!(!half.old);
        assert_eq!(half.admit(0, 20, None, 100, Ecn::NotEct, &mut rng), Admission::Queued);
        assert!((half.avg - 15.25).abs() < 1e-12);
        assert_eq!(half.admit(0, 20, None, 100, Ecn::NotEct, &mut rng), Admission::EarlyDrop);
        assert!((half.avg - 17.625).abs() < 1e-12);
        // ECN (`setbit_`): an ECT packet is marked while p_b < mark_p_ = 0.1, dropped above. With
        // w = 1, min 5, max 15, max_p 0.2 and count spacing at q = 14 (p_b = 0.18) every hit drops;
        // at q = 7 (p_b = 0.04) every hit marks.
        let mut ecn = RedState::new(RedParams { ecn: true, max_p: 0.2, ..ns2.clone() });
        let mut seen = [[0u32; 2]; 2]; // [high p_b, low p_b] x [marked, dropped]
        for _ in 0..200 {
            for (q, row) in [(14, 0), (7, 1)] {
                ecn.old = true;
                match ecn.admit(0, q, None, 100, Ecn::Ect, &mut rng) {
                    Admission::QueuedMarked => seen[row][0] += 1,
                    Admission::EarlyDrop => seen[row][1] += 1,
                    _ => {}
                }
            }
        }
        assert!(seen[0][0] == 0 && seen[0][1] > 0 && seen[1][0] > 0 && seen[1][1] == 0, "{seen:?}");
        let mut idle = RedState::new(RedParams { weight: 0.5, ..ns2 });
        idle.avg = 1.0;
        idle.admit(10_000, 0, Some(0), 100, Ecn::NotEct, &mut rng);
        assert!((idle.avg - 0.5f64.powi(11)).abs() < 1e-15);
    }

    /// Hand-worked EWMA: w = 0.5, arrivals seeing q = 4, 4, 0 → avg 2, 3, 1.5.
    #[test]
    fn ewma_by_hand() {
        let mut st = RedState::new(RedParams { weight: 0.5, ..params() });
        let mut rng = RngStream::new(1, "t");
        for (q, want) in [(4, 2.0), (4, 3.0), (0, 1.5)] {
            st.admit(0, q, None, 100, Ecn::NotEct, &mut rng);
            assert!((st.avg - want).abs() < 1e-12);
        }
        // Idle for 10 small-packet times: avg ← 1.5·0.5^10.
        st.admit(10_000, 0, Some(0), 100, Ecn::NotEct, &mut rng);
        assert!((st.avg - 1.5 * 0.5f64.powi(10)).abs() < 1e-12);
    }

    /// With p_b fixed, Fig. 2's spacing makes the gap between marks uniform (F&J §7). Worked by
    /// hand for this exact algorithm (count reset to 0 at a mark and incremented before p_a):
    /// P(gap = 1) = p_b/(1−p_b), P(gap = 2) = (1 − p_b/(1−p_b))·p_b/(1−2p_b) = p_b/(1−p_b), …, so
    /// the gap is uniform on {1, …, 1/p_b − 1}. p_b = 0.05 → uniform on 1..19, mean 10, mark rate
    /// 0.1 (vs 0.05 for independent marking with p_b).
    #[test]
    fn count_spacing_gives_uniform_gaps() {
        let mut st = RedState::new(RedParams { weight: 0.0, ..params() });
        st.avg = 10.0; // weight 0 keeps avg fixed
        let mut rng = RngStream::new(3, "red-test");
        let n = 200_000;
        let mut drops = 0;
        for _ in 0..n {
            if st.admit(0, 10, None, 100, Ecn::NotEct, &mut rng) == Admission::EarlyDrop {
                drops += 1;
            }
        }
        let rate = drops as f64 / n as f64;
        assert!((rate - 0.1).abs() < 0.003, "mark rate {rate}");
    }

    /// Regression: a packet dropped on arrival at an idle link must not end the idle period,
    /// or avg stays above max_th and every later arrival is dropped forever.
    #[test]
    fn idle_decay_continues_after_a_dropped_arrival() {
        let mut st = RedState::new(RedParams { weight: 0.5, ..params() });
        let mut rng = RngStream::new(1, "t");
        st.avg = 40.0;
        // Idle since 0; m = 1: avg 20 ≥ max_th → forced drop; the link stays idle.
        assert_eq!(st.admit(1000, 0, Some(0), 100, Ecn::NotEct, &mut rng), Admission::EarlyDrop);
        assert!((st.avg - 20.0).abs() < 1e-12);
        // m = 3 more small-packet times: avg = 20 · 0.5³ = 2.5 (not 20 · 0.5⁴ nor a plain EWMA step).
        assert_eq!(st.admit(4000, 0, Some(0), 100, Ecn::NotEct, &mut rng), Admission::Queued);
        assert!((st.avg - 2.5).abs() < 1e-12);
    }

    #[test]
    fn ecn_marks_ect_instead_of_dropping() {
        let mut st = RedState::new(RedParams { weight: 0.0, ecn: true, max_p: 1.0, ..params() });
        st.avg = 14.99;
        let mut rng = RngStream::new(3, "red-test");
        assert_eq!(st.admit(0, 10, None, 100, Ecn::Ect, &mut rng), Admission::QueuedMarked);
        st.count = 5;
        assert_eq!(st.admit(0, 10, None, 100, Ecn::NotEct, &mut rng), Admission::EarlyDrop);
    }
}
