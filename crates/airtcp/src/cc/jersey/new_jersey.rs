//! TCP New Jersey and TCP NJ+ (Lee, Kim, Park, Koo, Choo, KSII TIIS 2(6), 2008, the NJ+ paper, which describes both).
//!
//! **TCP New Jersey** (NJ+ §2.5, §3.1): TCP-Jersey whose estimator is fed with the *receiver's*
//! data arrival times carried back in the timestamp option ("TABE": t_n, t_{n−1} in eq. (1) "refer
//! to the time at which the nth and (n−1)th packets are received"), so ACK compression, delay or
//! loss on the reverse path do not distort it. Reactions (NJ+ Fig. 3a and §3.3):
//!   RTO, CW:        cwnd = 1, ssthresh = ownd_n;       RTO, no CW: cwnd = ssthresh = ownd_n;
//!   3 DUPACKs, CW:  ssthresh = ownd_n, cwnd kept if below ssthresh else ownd_n;
//!   3 DUPACKs, no CW: cwnd and ssthresh kept (explicit retransmit, as TCP-Jersey).
//! Marked ACKs get TCP-Jersey's rate control (Fig. 7 lines 7–10; New Jersey keeps Jersey's
//! procedure and changes only the estimator).
//!
//! **TCP NJ+** adds three mechanisms:
//! - MABE (§3.1, Fig. 2): R_s from ACK arrival times at the sender and R_r from data arrival times
//!   at the receiver, each by eq. (1) on every ACK; "R_n ← max(R_sn, R_rn)".
//! - EASR (§3.2, Fig. 3b line 8): an RTO without CW sets cwnd = (ownd_n + ownd_{n−1})/2,
//!   ssthresh = ownd_n.
//! - BERR (§3.3): 3 DUPACKs without CW set ssthresh = ownd_n and cwnd += 1 MSS.
//!
//! Readings (tested below; REPRODUCTION.md lists them):
//! - The receiver's data arrival time is the TSval of the ACK it caused: our receiver stamps an
//!   ACK with its clock when it sends it, which is the arrival time of the segment that triggered
//!   an immediate ACK (duplicate ACKs, every second segment); a delayed-ACK timer adds its delay.
//! - The per-RTT update of TCP-Jersey's Fig. 6 is kept for New Jersey (`abe_update = "per-rtt"`,
//!   same reading as in `jersey.rs`); NJ+ Fig. 2 updates on every ACK (`"per-ack"`). Either can be
//!   chosen with `abe_update`.
//! - ownd_n at an RTO is computed from the latest estimate R_n (the estimator runs only on ACKs, so
//!   the silence before the RTO does not change it) and ownd_{n−1} from the estimate before its
//!   latest update, R_{n−1} ("the value effective immediately prior", §3.2), both with the current
//!   RTT; for MABE each is max(R_s, R_r) of its step. (ownd_n + ownd_{n−1})/2 is rounded down to
//!   whole segments. The paper expects ownd_{n−1} > ownd_n because the estimate falls while the
//!   link deteriorates; when it does not, EASR's cwnd is simply the mean of the two.
//! - "Congestion Warning" at an RTO is the CW mark of the last ACK received (as for TCP-Jersey).

use serde::Deserialize;

use super::{cw_verdict, jersey_family_needs, ownd_bytes};
use crate::cc::estimators::{Abe, AbeUpdate, AckedCount};
use crate::cc::jersey;
use crate::cc::{AckInfo, CongestionControl, LossKind, LossSignal, Needs, Reaction, Window};

/// Which of the two schemes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// TCP New Jersey: TABE (receiver clock), Jersey's reactions, NJ's RTO rule.
    NewJersey,
    /// TCP NJ+: MABE, EASR, BERR.
    NjPlus,
}

/// Parameters of TCP New Jersey / NJ+ (`[flows.cc_params]`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewJerseyParams {
    /// TW = RTT·k (TCP-Jersey Fig. 6 line 3); default 1.
    #[serde(default = "default_k")]
    pub k: f64,
    /// Estimator update rule; default "per-rtt" for New Jersey, "per-ack" for NJ+ (Fig. 2).
    #[serde(default)]
    pub abe_update: Option<AbeUpdate>,
}

fn default_k() -> f64 {
    1.0
}

impl NewJerseyParams {
    pub(crate) fn check(&self) -> Result<(), String> {
        jersey::check_k(self.k)
    }
}

/// TCP New Jersey / NJ+ window policy.
#[derive(Debug, Clone)]
pub struct NewJersey {
    variant: Variant,
    /// R_s: ABE on the sender's clock (ACK arrivals), used by NJ+'s MABE.
    pub sender_abe: Abe,
    /// R_r: TABE on the receiver's clock (data arrivals, from TSval).
    pub receiver_abe: Abe,
    acked: AckedCount,
    srtt_ns: u64,
    estimates: [(&'static str, f64); 1],
}

impl NewJersey {
    pub fn new(variant: Variant, p: &NewJerseyParams) -> Self {
        let update = p.abe_update.unwrap_or(match variant {
            Variant::NewJersey => AbeUpdate::PerRtt,
            Variant::NjPlus => AbeUpdate::PerAck,
        });
        NewJersey {
            variant,
            sender_abe: Abe::new(update, p.k),
            receiver_abe: Abe::new(update, p.k),
            acked: AckedCount::default(),
            srtt_ns: 0,
            estimates: [("bwe_bps", 0.0)],
        }
    }

    /// The available bandwidth estimate, bytes/s: TABE, or MABE's max(R_s, R_r) for NJ+.
    pub fn rate(&self) -> f64 {
        match self.variant {
            Variant::NewJersey => self.receiver_abe.rate,
            Variant::NjPlus => self.sender_abe.rate.max(self.receiver_abe.rate),
        }
    }

    /// The estimate before the latest update (R_{n−1}), bytes/s.
    pub fn previous_rate(&self) -> f64 {
        match self.variant {
            Variant::NewJersey => self.receiver_abe.previous_rate(),
            Variant::NjPlus => self.sender_abe.previous_rate().max(self.receiver_abe.previous_rate()),
        }
    }

    /// ownd in bytes (eq. (2) of NJ+ = Jersey eq. (6)); `None` before the first RTT sample.
    pub(crate) fn ownd(&self, mss: u64) -> Option<u64> {
        (self.srtt_ns > 0).then(|| ownd_bytes(self.rate(), self.srtt_ns, mss))
    }

    fn feed(&mut self, ack: &AckInfo, bytes: u64) {
        self.srtt_ns = ack.srtt_ns;
        if let Some(ts) = ack.ts_val() {
            self.receiver_abe.on_ack(ts, bytes, self.srtt_ns);
        }
        if self.variant == Variant::NjPlus {
            self.sender_abe.on_ack(ack.now, bytes, self.srtt_ns);
        }
        self.estimates[0].1 = self.rate() * 8.0;
    }
}

impl CongestionControl for NewJersey {
    fn name(&self) -> &'static str {
        match self.variant {
            Variant::NewJersey => "new-jersey",
            Variant::NjPlus => "nj+",
        }
    }

    fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        let d = self.acked.on_ack(ack.acked_bytes, w.mss);
        self.feed(ack, d);
        jersey::on_ack_window(w, ack, self.ownd(w.mss));
    }

    fn on_dup_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        let d = self.acked.on_dup_ack(w.mss);
        self.feed(ack, d);
    }

    fn on_congestion(&mut self, w: &mut Window, s: &LossSignal) -> Reaction {
        match s.kind {
            // §3.3: CW → ssthresh = ownd, cwnd kept if below it, else ownd; no CW → both kept
            // (New Jersey) or BERR (NJ+).
            LossKind::DupAcks => jersey::on_dupacks(w, s, self.ownd(w.mss), self.variant == Variant::NjPlus),
            LossKind::Ecn => jersey::on_ecn(w, self.ownd(w.mss)),
            LossKind::Timeout => {
                let now = self.ownd(w.mss);
                let before = (self.srtt_ns > 0).then(|| ownd_bytes(self.previous_rate(), self.srtt_ns, w.mss));
                let no_cw_cwnd = match (self.variant, now, before) {
                    // EASR (Fig. 3b line 8): cwnd = (ownd_n + ownd_{n−1})/2, whole segments.
                    (Variant::NjPlus, Some(n), Some(p)) => Some((n + p) / 2 / w.mss * w.mss),
                    _ => None,
                };
                jersey::on_timeout(w, s, now, no_cw_cwnd);
                Reaction::Reduce
            }
        }
    }

    fn estimates(&self) -> &[(&'static str, f64)] {
        &self.estimates
    }

    fn needs(&self) -> Needs {
        Needs { timestamps: true, ..jersey_family_needs() }
    }

    fn loss_verdict(&self, s: &LossSignal) -> Option<bool> {
        cw_verdict(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::jersey::tests::{ack_at, MS};

    fn params() -> NewJerseyParams {
        NewJerseyParams { k: 1.0, abe_update: None }
    }

    /// An ACK at sender time `now` stamped by the receiver at `ts`.
    fn ack_ts(now: u64, ts: u64, acked: u64) -> AckInfo<'static> {
        let header = crate::cc::westwood::tests::header(crate::net::TcpHeader { has_ts: true, ts_val: ts, ..Default::default() });
        AckInfo { header, ..ack_at(now, acked, 100 * MS, false) }
    }

    /// TABE ignores ACK compression: segments reach the receiver every 10 ms (100 kB/s), but the
    /// ten ACKs of each 100-ms round arrive at the sender together. New Jersey's TABE (per-RTT) and
    /// NJ+'s R_r (per ACK) converge to 100 000 B/s. NJ+'s sender-clock R_s sees one 100-ms gap
    /// (R → R/2 + 5000) then nine zero gaps (each adds L/RTT = 10 000 B/s) per round: it cycles
    /// between 100 000 and 190 000 B/s.
    #[test]
    fn tabe_is_immune_to_ack_compression() {
        let mut nj = NewJersey::new(Variant::NewJersey, &params());
        let mut nj_plus = NewJersey::new(Variant::NjPlus, &params());
        let mut w = Window { cwnd: 100_000, ssthresh: 1_000_000, mss: 1000 };
        let mut peak_sender = 0.0f64;
        for i in 0..=3000u64 {
            let ts = i * 10 * MS;
            let arrival = (i / 10 + 1) * 100 * MS; // compressed: ten ACKs at the same instant
            nj.on_ack(&mut w, &ack_ts(arrival, ts, 1000));
            nj_plus.on_ack(&mut w, &ack_ts(arrival, ts, 1000));
            peak_sender = peak_sender.max(nj_plus.sender_abe.rate);
        }
        assert!((nj.rate() - 100_000.0).abs() < 1.0, "TABE {}", nj.rate());
        assert!((nj_plus.receiver_abe.rate - 100_000.0).abs() < 1.0);
        // Ten compressed ACKs each add L/RTT = 10 000 B/s: the sender-clock estimate peaks ~1.5×.
        assert!(peak_sender > 140_000.0, "{peak_sender}");
    }

    /// MABE takes the larger estimate: data arrive every 10 ms (100 kB/s) but the ACKs are spread
    /// by a slower reverse path to one per 20 ms (50 kB/s on the sender's clock): NJ+ uses 100 kB/s;
    /// with the clocks swapped it uses the sender's 100 kB/s.
    #[test]
    fn mabe_takes_the_maximum() {
        for swap in [false, true] {
            let mut nj = NewJersey::new(Variant::NjPlus, &params());
            let mut w = Window { cwnd: 100_000, ssthresh: 1_000_000, mss: 1000 };
            for i in 0..=3000u64 {
                let (fast, slow) = (i * 10 * MS, i * 20 * MS);
                let a = if swap { ack_ts(fast, slow, 1000) } else { ack_ts(slow, fast, 1000) };
                nj.on_ack(&mut w, &a);
            }
            let (s, r) = (nj.sender_abe.rate, nj.receiver_abe.rate);
            let (hi, lo) = if swap { (s, r) } else { (r, s) };
            assert!((hi - 100_000.0).abs() < 1.0 && (lo - 50_000.0).abs() < 1.0, "{s} {r}");
            assert_eq!(nj.rate(), hi);
        }
    }

    fn converged(variant: Variant) -> (NewJersey, Window) {
        let mut nj = NewJersey::new(variant, &params());
        let mut w = Window { cwnd: 100_000, ssthresh: 1_000_000, mss: 1000 };
        for i in 0..=2000u64 {
            nj.on_ack(&mut w, &ack_ts(i * 10 * MS, i * 10 * MS, 1000));
        }
        assert!((nj.rate() - 100_000.0).abs() < 1e-3);
        w.cwnd = 30_000;
        w.ssthresh = 20_000;
        (nj, w)
    }

    /// RTO with R_n = 100 kB/s after R_{n−1} = 150 kB/s (the link deteriorated), RTT = 100 ms:
    /// ownd_n = 10 segments, ownd_{n−1} = 15 segments.
    /// NJ (Fig. 3a), no CW: cwnd = ssthresh = ownd_n = 10 000.
    /// NJ+ EASR (Fig. 3b), no CW: cwnd = (10 + 15)/2 = 12.5 → 12 segments, ssthresh = 10 000.
    /// Both with CW: cwnd = 1 segment, ssthresh = 10 000.
    /// The per-ACK estimator gets there from 150 kB/s (a 1000-B ACK every 6.667 ms) by one ACK
    /// with Δ = 0.1·(150 000 − 100 000)/100 000 + 1000/100 000 = 0.06 s:
    /// (0.1·150 000 + 1000)/(0.06 + 0.1) = 100 000.
    #[test]
    fn rto_rules_nj_and_easr() {
        let sig = LossSignal { now: 30_000 * MS, kind: LossKind::Timeout, marked: false, flight_bytes: 30_000 };
        let deteriorated = |v: Variant| {
            let mut nj = NewJersey::new(v, &NewJerseyParams { k: 1.0, abe_update: Some(AbeUpdate::PerAck) });
            let mut w = Window { cwnd: 100_000, ssthresh: 1_000_000, mss: 1000 };
            let gap = 20 * MS / 3;
            for i in 0..=3000u64 {
                nj.on_ack(&mut w, &ack_ts(i * gap, i * gap, 1000));
            }
            let t = 3000 * gap + 60 * MS;
            nj.on_ack(&mut w, &ack_ts(t, t, 1000));
            assert!((nj.rate() - 100_000.0).abs() < 1.0, "{}", nj.rate());
            assert!((nj.previous_rate() - 150_000.0).abs() < 1.0);
            w.cwnd = 30_000;
            (nj, w)
        };
        let (mut nj, mut w) = deteriorated(Variant::NewJersey);
        nj.on_congestion(&mut w, &sig);
        assert_eq!((w.cwnd, w.ssthresh), (10_000, 10_000));
        let (mut njp, mut w) = deteriorated(Variant::NjPlus);
        njp.on_congestion(&mut w, &sig);
        assert_eq!((w.cwnd, w.ssthresh), (12_000, 10_000));
        for v in [Variant::NewJersey, Variant::NjPlus] {
            let (mut c, mut w) = deteriorated(v);
            c.on_congestion(&mut w, &LossSignal { marked: true, ..sig });
            assert_eq!((w.cwnd, w.ssthresh), (1000, 10_000), "{v:?}");
        }
    }

    /// Three DUPACKs with ownd = 10 segments, cwnd 30 000, ssthresh 20 000.
    /// NJ, no CW: both kept. NJ+ BERR, no CW: ssthresh = 10 000, cwnd = 31 000.
    /// Both with CW: ssthresh = 10 000, cwnd = min(30 000, 10 000); with cwnd 6000: kept.
    #[test]
    fn dupack_rules_nj_and_berr() {
        let sig = LossSignal { now: 20_001 * MS, kind: LossKind::DupAcks, marked: false, flight_bytes: 30_000 };
        let (mut nj, mut w) = converged(Variant::NewJersey);
        assert_eq!(nj.on_congestion(&mut w, &sig), Reaction::KeepWindow);
        assert_eq!((w.cwnd, w.ssthresh), (30_000, 20_000));
        let (mut njp, mut w) = converged(Variant::NjPlus);
        assert_eq!(njp.on_congestion(&mut w, &sig), Reaction::KeepWindow);
        assert_eq!((w.cwnd, w.ssthresh), (31_000, 10_000));
        for v in [Variant::NewJersey, Variant::NjPlus] {
            let (mut c, mut w) = converged(v);
            c.on_congestion(&mut w, &LossSignal { marked: true, ..sig });
            assert_eq!((w.cwnd, w.ssthresh), (10_000, 10_000));
            w.cwnd = 6000;
            c.on_congestion(&mut w, &LossSignal { marked: true, ..sig });
            assert_eq!((w.cwnd, w.ssthresh), (6000, 10_000));
        }
    }
}
