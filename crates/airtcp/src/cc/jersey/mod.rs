//! TCP-Jersey (Xu, Tian, Ansari, IEEE JSAC 22(4), 2004): the sender's available bandwidth
//! estimator (ABE, §II-A eq. (5)/(6), Fig. 6) joined with the routers' congestion warning (CW,
//! §II-B: every packet is CE-marked while the queue average exceeds a threshold) to tell
//! congestion losses from link errors (§III, Fig. 7).
//!
//! Fig. 6 (ABE), with k = 1:
//!   TW = RTT·k;  if (now − T_last) ≥ RTT:  ABE = (TW·ABE + L)/(Δ + TW);  T_last = now
//! Eq. (6): ownd = RTT·R / seg_size (segments).
//! Fig. 7 (receive procedure), ABE run on every ACK and duplicate ACK (line 3):
//!   ACK, CW = 0       → slow start or congestion avoidance as Reno (lines 4–6);
//!   ACK, CW = 1       → rate control, then SS/CA (lines 7–10);
//!   n-th DUPACK, CW=1 → rate control, explicit retransmit, fast recovery (lines 11–15);
//!   n-th DUPACK, CW=0 → explicit retransmit (no window cut), fast recovery (lines 16–19).
//! Rate control (§III-C): "sets the ssthresh to ownd … and sets the cwnd to be the same as ssthresh
//! if the connection is in the CA phase". Explicit retransmit is Reno's fast retransmit that keeps
//! cwnd ([`Reaction::KeepWindow`]); fast recovery is the flow's recovery strategy (Reno's in the
//! paper).
//!
//! Readings where the paper is ambiguous or silent (tested below; REPRODUCTION.md lists them):
//! - **Fig. 6 line 6.** Taken literally, Δ = now − T_prev is the gap since the *previous ACK* and L
//!   the bytes of *this* ACK, so the once-per-RTT update would sample one inter-ACK gap and ignore
//!   every other ACK of the RTT. We read the update as the TSW estimator of eq. (4) applied to the
//!   aggregate since the last update: L = bytes acknowledged since T_last, Δ = now − T_last
//!   (`abe_update = "per-rtt"`, the default). Both readings have the same fixed point for a
//!   steady ACK stream (L/Δ = the delivery rate). The literal reading is `abe_update = "literal"`,
//!   and eq. (5) applied on every ACK (NJ+ Fig. 2) is `abe_update = "per-ack"`.
//! - **L on duplicate ACKs.** ABE runs on DUPACKs too (§III-C); a duplicate ACK reports one segment
//!   delivered and the cumulative ACK after it counts only the rest ("AckedCount", as Westwood).
//! - **RTT** is the smoothed RTT (SRTT, "TCP's estimation of the end-to-end RTT"); no update and no
//!   estimate-based window before the first RTT sample (a loss then halves as Reno does).
//! - **ownd** is rounded down to whole segments (eq. (6) is in segments) and is at least 2 segments
//!   (RFC 5681's smallest ssthresh).
//! - **Rate control's "CA phase"** is judged after ssthresh = ownd: cwnd = min(cwnd, ownd). This is
//!   how NJ+ §3.3 describes the same procedure of TCP New Jersey ("the current cwnd value is
//!   maintained if cwnd is lower than ssthresh, or the ownd value is used … if it is higher").
//! - **Marked** means the ACK carries ECN-Echo, echoed per segment: an ACK (or duplicate ACK) is
//!   marked exactly when a segment it reports crossed a queue above the CW threshold
//!   ([`EcnEcho::PerSegment`]).
//! - **ACKs during fast recovery** update ABE but leave the window to the recovery strategy.
//! - **Timeouts** (the paper is silent): TCP New Jersey's rule (NJ+ Fig. 3a): CW on the last ACK →
//!   cwnd = 1, ssthresh = ownd; no CW → cwnd = ssthresh = ownd. ownd is the estimate as of the last
//!   ACK: ABE runs only "upon receiving an ACK or DUPACK" (§III-C), so the silence before the
//!   timeout does not decay it.
//! - **ECN-Echo handled once per window by the sender** (RFC 3168) is answered by rate control; the
//!   per-ACK rate control of Fig. 7 line 8 is applied on every marked ACK regardless.

pub mod new_jersey;

use serde::Deserialize;

use crate::cc::estimators::{Abe, AbeUpdate, AckedCount};
use crate::cc::reno::{halve, Reno};
use crate::cc::{AckInfo, CongestionControl, EcnEcho, LossKind, LossSignal, Needs, Reaction, Window};
use crate::time::NS_PER_S;

/// TCP-Jersey's parameters (`[flows.cc_params]`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JerseyParams {
    /// Fig. 6 line 3: TW = RTT·k, the weight of the past estimate ("usually set to 1").
    #[serde(default = "default_k")]
    pub k: f64,
    /// How Fig. 6 line 6 is read; default "per-rtt".
    #[serde(default = "default_update")]
    pub abe_update: AbeUpdate,
}

fn default_k() -> f64 {
    1.0
}
fn default_update() -> AbeUpdate {
    AbeUpdate::PerRtt
}

/// Checks the scaling factor k of Fig. 6 (shared by the Jersey family).
pub(crate) fn check_k(k: f64) -> Result<(), String> {
    if !(k.is_finite() && k > 0.0 && k <= 100.0) {
        return Err(format!("k: {k} is out of range (allowed: 0 < k <= 100)"));
    }
    Ok(())
}

impl JerseyParams {
    pub(crate) fn check(&self) -> Result<(), String> {
        check_k(self.k)
    }
}

/// Largest ownd, bytes: the engine's window without bound (`max_cwnd_bytes` when a scenario sets
/// none), far above any window a run reaches and low enough that window arithmetic on it
/// (ssthresh + DupThresh·MSS) cannot overflow.
pub(crate) const OWND_MAX_BYTES: u64 = u64::MAX / 4;

/// Eq. (6) in bytes: ownd = RTT·R/seg_size segments, rounded down, at least 2 segments, at most
/// [`OWND_MAX_BYTES`]. (An estimate from a burst of ACKs over a tiny interval — `k = 1e-9`, or
/// timestamps a nanosecond apart — reaches 10^300 B/s: segments × MSS overflowed; fuzzing
/// finding, issue 25 part 6.)
pub(crate) fn ownd_bytes(rate: f64, rtt_ns: u64, mss: u64) -> u64 {
    // 1e-9 segment of slack: a quotient that is whole in exact arithmetic but computes as
    // 9.999999999… must not lose a segment to rounding. (The cast saturates: +∞ → u64::MAX,
    // NaN → 0.)
    let segs = (rate * rtt_ns as f64 / NS_PER_S as f64 / mss as f64 + 1e-9).floor() as u64;
    segs.max(2).saturating_mul(mss).min(OWND_MAX_BYTES)
}

/// Rate control (§III-C): ssthresh = ownd; cwnd = ssthresh if in congestion avoidance
/// (judged after the new ssthresh: cwnd = min(cwnd, ownd), see the module doc).
pub(crate) fn rate_control(w: &mut Window, ownd: u64) {
    w.ssthresh = ownd;
    if w.cwnd > w.ssthresh {
        w.cwnd = w.ssthresh;
    }
}

/// Window growth of Fig. 7 lines 5 and 9 (Reno's SS/CA), also on an ACK the sender flagged
/// `no_growth` only because of an ECN reduction: the Jersey family answers ECN itself.
pub(crate) fn grow(w: &mut Window, ack: &AckInfo) {
    Reno.on_ack(w, &AckInfo { no_growth: false, ..*ack });
}

/// What the whole Jersey family needs: CW marks through ECN, echoed per segment, and ECT on
/// retransmissions so that a CW router does not drop them as non-ECT packets.
pub(crate) fn jersey_family_needs() -> Needs {
    Needs {
        ecn: true,
        timestamps: false,
        ecn_echo: EcnEcho::PerSegment,
        ect_on_retransmissions: true,
        sack: false,
        caiad_receiver: false,
        loss_verdicts: true,
        recovery: None,
    }
}

/// The family's verdict on a loss: congestion exactly when it carried the congestion warning.
pub(crate) fn cw_verdict(s: &LossSignal) -> Option<bool> {
    match s.kind {
        LossKind::DupAcks | LossKind::Timeout => Some(s.marked),
        LossKind::Ecn => None,
    }
}

/// TCP-Jersey's window policy.
#[derive(Debug, Clone)]
pub struct Jersey {
    pub abe: Abe,
    acked: AckedCount,
    srtt_ns: u64,
    estimates: [(&'static str, f64); 1],
}

impl Jersey {
    pub fn new(p: &JerseyParams) -> Self {
        Jersey { abe: Abe::new(p.abe_update, p.k), acked: AckedCount::default(), srtt_ns: 0, estimates: [("bwe_bps", 0.0)] }
    }

    /// ownd in bytes from the current estimate; `None` before the first RTT sample.
    pub(crate) fn ownd(&self, mss: u64) -> Option<u64> {
        (self.srtt_ns > 0).then(|| ownd_bytes(self.abe.rate, self.srtt_ns, mss))
    }

    fn publish(&mut self) {
        self.estimates[0].1 = self.abe.rate * 8.0;
    }
}

/// The shared timeout rule of the Jersey family (NJ+ Fig. 3a): CW → cwnd = 1 segment,
/// ssthresh = ownd; no CW → cwnd = ssthresh = `ownd_no_cw_cwnd`. Without an RTT sample, Reno's.
pub(crate) fn on_timeout(w: &mut Window, s: &LossSignal, ownd: Option<u64>, no_cw_cwnd: Option<u64>) {
    match ownd {
        None => {
            w.ssthresh = halve(s.flight_bytes, w.mss);
            w.cwnd = w.mss;
        }
        Some(ownd) => {
            w.ssthresh = ownd;
            w.cwnd = if s.marked { w.mss } else { no_cw_cwnd.unwrap_or(ownd) };
        }
    }
}

/// Fig. 7 after ABE (lines 4–10): during fast recovery nothing (the recovery strategy owns
/// cwnd); a marked ACK gets rate control; then slow start or congestion avoidance.
pub(crate) fn on_ack_window(w: &mut Window, ack: &AckInfo, ownd: Option<u64>) {
    if ack.recovering {
        return;
    }
    if let (true, Some(ownd)) = (ack.ece(), ownd) {
        rate_control(w, ownd); // lines 7–8
    }
    grow(w, ack); // lines 5 and 9
}

/// The n-th duplicate ACK. Marked (Fig. 7 lines 11–15): rate control, then explicit retransmit
/// and fast recovery. Unmarked (lines 16–19): a link error, explicit retransmit keeps cwnd — and
/// with NJ+'s BERR (§3.3) ssthresh = ownd, cwnd += 1 MSS. Before any RTT sample there is no ownd:
/// a marked loss halves as Reno.
pub(crate) fn on_dupacks(w: &mut Window, s: &LossSignal, ownd: Option<u64>, berr: bool) -> Reaction {
    match (ownd, s.marked) {
        (Some(ownd), true) => rate_control(w, ownd),
        (None, true) => {
            w.ssthresh = halve(s.flight_bytes, w.mss);
            return Reaction::Reduce;
        }
        (Some(ownd), false) if berr => {
            w.ssthresh = ownd;
            w.cwnd += w.mss;
        }
        _ => {}
    }
    Reaction::KeepWindow
}

/// ECN-Echo handled once per window by the sender: answered by rate control.
pub(crate) fn on_ecn(w: &mut Window, ownd: Option<u64>) -> Reaction {
    if let Some(ownd) = ownd {
        rate_control(w, ownd);
    }
    Reaction::Reduce
}

impl CongestionControl for Jersey {
    fn name(&self) -> &'static str {
        "jersey"
    }

    fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        self.srtt_ns = ack.srtt_ns;
        let d = self.acked.on_ack(ack.acked_bytes, w.mss);
        self.abe.on_ack(ack.now, d, self.srtt_ns); // Fig. 7 line 3
        self.publish();
        on_ack_window(w, ack, self.ownd(w.mss));
    }

    fn on_dup_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        self.srtt_ns = ack.srtt_ns;
        let d = self.acked.on_dup_ack(w.mss);
        self.abe.on_ack(ack.now, d, self.srtt_ns); // Fig. 7 line 3: ABE on DUPACKs too
        self.publish();
    }

    fn on_congestion(&mut self, w: &mut Window, s: &LossSignal) -> Reaction {
        match s.kind {
            LossKind::DupAcks => on_dupacks(w, s, self.ownd(w.mss), false),
            LossKind::Ecn => on_ecn(w, self.ownd(w.mss)),
            LossKind::Timeout => {
                on_timeout(w, s, self.ownd(w.mss), None);
                Reaction::Reduce
            }
        }
    }

    fn estimates(&self) -> &[(&'static str, f64)] {
        &self.estimates
    }

    fn needs(&self) -> Needs {
        Needs { timestamps: false, ..jersey_family_needs() }
    }

    fn loss_verdict(&self, s: &LossSignal) -> Option<bool> {
        cw_verdict(s)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) const MS: u64 = 1_000_000;

    pub(crate) fn ack_at(now: u64, acked: u64, srtt: u64, ece: bool) -> AckInfo<'static> {
        let header = crate::cc::westwood::tests::header(crate::net::TcpHeader { ece, ..Default::default() });
        AckInfo { header, ..crate::cc::westwood::tests::ack_at(now, acked, srtt) }
    }

    /// Fig. 6, per-RTT reading, by hand. RTT = 100 ms, k = 1. ACKs of 1000 B every 10 ms from t = 0.
    /// t = 0 opens the interval. At t = 100 ms (10 ACKs, 10 000 B since T_last = 0, Δ = 100 ms):
    ///   ABE = (0.1·0 + 10 000)/(0.1 + 0.1) = 50 000 B/s.
    /// At t = 200 ms: ABE = (0.1·50 000 + 10 000)/0.2 = 75 000 B/s; then 87 500, … → 100 000.
    #[test]
    fn abe_per_rtt_by_hand() {
        let mut a = Abe::new(AbeUpdate::PerRtt, 1.0);
        for i in 0..=10u64 {
            a.on_ack(i * 10 * MS, 1000, 100 * MS);
        }
        assert!((a.rate - 50_000.0).abs() < 1e-6, "{}", a.rate);
        for i in 11..=20u64 {
            a.on_ack(i * 10 * MS, 1000, 100 * MS);
        }
        assert!((a.rate - 75_000.0).abs() < 1e-6, "{}", a.rate);
        for i in 21..=1000u64 {
            a.on_ack(i * 10 * MS, 1000, 100 * MS);
        }
        assert!((a.rate - 100_000.0).abs() < 1e-3);
    }

    /// Eq. (5) on every ACK (per-ack) and Fig. 6 as printed (literal), by hand.
    /// per-ack, RTT = 100 ms: ACK at 0 opens; ACK at 10 ms with 1000 B:
    ///   R = (0.1·0 + 1000)/(0.01 + 0.1) = 9090.909… B/s; ACK at 20 ms:
    ///   R = (0.1·9090.909 + 1000)/0.11 = 17355.37… B/s.
    /// literal: updates only when now − T_last ≥ RTT, from the last gap: ACKs every 10 ms, the first
    ///   update at 100 ms: R = (0 + 1000)/(0.01 + 0.1) = 9090.909…
    #[test]
    fn abe_per_ack_and_literal_by_hand() {
        let mut a = Abe::new(AbeUpdate::PerAck, 1.0);
        a.on_ack(0, 1000, 100 * MS);
        a.on_ack(10 * MS, 1000, 100 * MS);
        assert!((a.rate - 1000.0 / 0.11).abs() < 1e-6);
        a.on_ack(20 * MS, 1000, 100 * MS);
        assert!((a.rate - (0.1 * 1000.0 / 0.11 + 1000.0) / 0.11).abs() < 1e-6);
        let mut l = Abe::new(AbeUpdate::Literal, 1.0);
        for i in 0..10u64 {
            l.on_ack(i * 10 * MS, 1000, 100 * MS);
            assert_eq!(l.rate, 0.0);
        }
        l.on_ack(100 * MS, 1000, 100 * MS);
        assert!((l.rate - 1000.0 / 0.11).abs() < 1e-6);
    }

    /// k scales TW: with k = 2, TW = 200 ms: (0.2·0 + 10 000)/(0.1 + 0.2) = 33 333.3 B/s.
    #[test]
    fn abe_k_scales_the_window() {
        let mut a = Abe::new(AbeUpdate::PerRtt, 2.0);
        for i in 0..=10u64 {
            a.on_ack(i * 10 * MS, 1000, 100 * MS);
        }
        assert!((a.rate - 10_000.0 / 0.3).abs() < 1e-6);
    }

    /// Eq. (6): 100 000 B/s · 0.1 s / 1000 B = 10 segments; 25 999 B/s → 2.5999 → 2; at least 2.
    #[test]
    fn ownd_by_hand() {
        assert_eq!(ownd_bytes(100_000.0, 100 * MS, 1000), 10_000);
        assert_eq!(ownd_bytes(25_999.0, 100 * MS, 1000), 2000);
        assert_eq!(ownd_bytes(1_000.0, 100 * MS, 1000), 2000);
        assert_eq!(ownd_bytes(259_999.0, 100 * MS, 1000), 25_000);
        // A runaway estimate gives the largest window, not an overflow; NaN the smallest.
        assert_eq!(ownd_bytes(1e300, 100 * MS, 65_000), OWND_MAX_BYTES);
        assert_eq!(ownd_bytes(f64::INFINITY, 100 * MS, 65_000), OWND_MAX_BYTES);
        assert_eq!(ownd_bytes(1e15, 100 * MS, 65_000), 1_538_461_538 * 65_000);
        assert_eq!(ownd_bytes(f64::NAN, 100 * MS, 1000), 2000);
    }

    fn converged(cwnd: u64, ssthresh: u64) -> (Jersey, Window) {
        let mut j = Jersey::new(&JerseyParams { k: 1.0, abe_update: AbeUpdate::PerRtt });
        let mut w = Window { cwnd: 100_000, ssthresh: 1_000_000, mss: 1000 };
        for i in 0..=2000u64 {
            j.on_ack(&mut w, &ack_at(i * 10 * MS, 1000, 100 * MS, false));
        }
        assert!((j.abe.rate - 100_000.0).abs() < 1e-3);
        w.cwnd = cwnd;
        w.ssthresh = ssthresh;
        (j, w)
    }

    /// Fig. 7 with ABE = 100 kB/s and RTT = 100 ms (ownd = 10 segments):
    /// lines 16–19: unmarked 3rd DUPACK keeps cwnd and ssthresh, answers KeepWindow;
    /// lines 11–15: marked: ssthresh = 10 000, cwnd 30 000 → 10 000 (CA), KeepWindow;
    /// a marked DUPACK with cwnd 6000 < ownd keeps cwnd 6000 (slow start after the new ssthresh).
    #[test]
    fn fig7_dupack_reactions() {
        let (mut j, mut w) = converged(30_000, 20_000);
        let sig = LossSignal { now: 20_001 * MS, kind: LossKind::DupAcks, marked: false, flight_bytes: 30_000 };
        assert_eq!(j.on_congestion(&mut w, &sig), Reaction::KeepWindow);
        assert_eq!((w.cwnd, w.ssthresh), (30_000, 20_000));
        assert_eq!(j.loss_verdict(&sig), Some(false));
        let marked = LossSignal { marked: true, ..sig };
        assert_eq!(j.on_congestion(&mut w, &marked), Reaction::KeepWindow);
        assert_eq!((w.cwnd, w.ssthresh), (10_000, 10_000));
        assert_eq!(j.loss_verdict(&marked), Some(true));
        w.cwnd = 6000;
        j.on_congestion(&mut w, &marked);
        assert_eq!((w.cwnd, w.ssthresh), (6000, 10_000));
    }

    /// Fig. 7 lines 7–10: a marked ACK applies rate control then CA: cwnd 30 000 → 10 000 →
    /// 10 000 + 1000·1000/10 000 = 10 100. An unmarked ACK only grows (CA: +100 B at 10 000).
    /// During fast recovery the window is left to the recovery strategy.
    #[test]
    fn fig7_ack_reactions() {
        let (mut j, mut w) = converged(30_000, 20_000);
        j.on_ack(&mut w, &ack_at(20_010 * MS, 1000, 100 * MS, true));
        assert_eq!((w.cwnd, w.ssthresh), (10_100, 10_000));
        j.on_ack(&mut w, &ack_at(20_020 * MS, 1000, 100 * MS, false));
        assert_eq!(w.cwnd, 10_100 + 1000 * 1000 / 10_100);
        let before = w;
        j.on_ack(&mut w, &AckInfo { recovering: true, ..ack_at(20_030 * MS, 1000, 100 * MS, true) });
        assert_eq!(w, before);
    }

    /// Timeouts (NJ reading) with ownd = 10 segments from the last ACK's estimate:
    /// no CW: cwnd = ssthresh = 10 000; CW: cwnd = 1 segment, ssthresh = 10 000.
    #[test]
    fn timeout_sets_ownd() {
        let (mut j, mut w) = converged(30_000, 20_000);
        let sig = LossSignal { now: 20_300 * MS, kind: LossKind::Timeout, marked: false, flight_bytes: 30_000 };
        j.on_congestion(&mut w, &sig);
        assert_eq!((w.cwnd, w.ssthresh), (10_000, 10_000));
        assert_eq!(j.loss_verdict(&sig), Some(false));
        let (mut j, mut w) = converged(30_000, 20_000);
        j.on_congestion(&mut w, &LossSignal { marked: true, ..sig });
        assert_eq!((w.cwnd, w.ssthresh), (1000, 10_000));
    }

    #[test]
    fn params_are_checked() {
        assert!(check_k(0.0).unwrap_err().starts_with("k: 0 is out of range"));
        assert!(check_k(f64::NAN).is_err());
        assert!(check_k(1.0).is_ok());
    }
}
