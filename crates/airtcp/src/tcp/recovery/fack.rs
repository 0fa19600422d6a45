//! Forward Acknowledgment (FACK) recovery (Mathis & Mahdavi, SIGCOMM 1996) as the TCP Prairie
//! thesis (Parvez 2004) describes it in §2.2.5 and §2.2.7.
//!
//! snd.fack is "the forward most data held by the receiver" (thesis §2.2.5): snd.una outside
//! recovery, the highest SACKed byte + 1 once SACK blocks arrive. retran_data is "the size of the
//! retransmitted data outstanding in the network". The outstanding data is estimated as
//!   awnd = (snd.nxt − snd.fack) + retran_data,
//! and the sender transmits while awnd < cwnd (Mathis & Mahdavi §3). Recovery starts on the
//! DupThresh-th duplicate ACK or when snd.fack − snd.una > DupThresh·MSS (thesis §2.2.5, footnote
//! 2), whichever comes first, and ends when the cumulative ACK covers everything outstanding when
//! it started (the recovery point). Every un-SACKed segment below snd.fack is taken as lost and
//! retransmitted once, lowest first; when there is no such hole, new data is sent. A lost
//! retransmission is repaired by the retransmission timer ("a timeout is forced", §2.2.5).
//!
//! Readings where the seeds are silent (tested in `sender.rs`-style by hand below):
//! - snd.nxt is HighData + 1 (snd_max): during recovery the sender sends new data only there.
//! - retran_data: the un-SACKed bytes retransmitted in this recovery (below HighRxt, which only
//!   moves up through holes below snd.fack). A retransmission leaves retran_data when it is
//!   cumulatively ACKed or SACKed. This equals the second term of RFC 6675's pipe.
//! - "while awnd < cwnd" is taken literally in bytes: a segment may be sent when awnd is at least
//!   one byte below cwnd (RFC 6675's "sack" asks for a whole SMSS of room).
//! - The window policy (`cc`) sets ssthresh as at any fast retransmit (Reno: FlightSize/2), and
//!   cwnd = ssthresh at the start of recovery, as the "sack" strategy does; neither of Mathis &
//!   Mahdavi's refinements — "rampdown" (reduce cwnd gradually, one segment per two ACKs) nor
//!   "overdamping" protection (a second reduction for losses sent before the first) — is
//!   implemented: rampdown only smooths the same halving over one RTT, and the `recover` guard
//!   (RFC 6582 §3.2) already keeps a second reduction out of one window of data.
//! - The snd.fack trigger is evaluated on duplicate ACKs (a new ACK never starts recovery).
//! - Entry and exit are those of the "sack" strategy ([`super::sack::Sack`]); only the estimate of
//!   outstanding data and the choice of what to send differ.

use super::sack::Sack;
use super::LossRecovery;
use crate::cc::Reaction;
use crate::tcp::core::RecoveryCtx;
use crate::time::SimTime;

/// FACK recovery.
#[derive(Debug, Default)]
pub(crate) struct Fack;

/// snd.fack: one past the forward-most byte the receiver holds.
pub(crate) fn snd_fack(s: &RecoveryCtx<'_>) -> u64 {
    s.seq().snd_una.max(s.board().high_sacked)
}

/// retran_data: bytes retransmitted in this recovery that are neither ACKed nor SACKed.
pub(crate) fn retran_data(s: &RecoveryCtx<'_>) -> u64 {
    let mss = s.cfg().mss as u64;
    let (una, high_rxt) = (s.seq().snd_una, s.rec().high_rxt);
    s.board()
        .iter()
        .enumerate()
        .map(|(i, m)| (una + i as u64 * mss, m.sacked))
        .take_while(|&(seq, _)| seq < high_rxt)
        .filter(|&(_, sacked)| !sacked)
        .map(|(seq, _)| s.seg_len(seq).min(high_rxt - seq))
        .sum()
}

/// awnd = (snd.nxt − snd.fack) + retran_data (Mathis & Mahdavi §3; thesis §2.2.5).
pub(crate) fn awnd(s: &RecoveryCtx<'_>) -> u64 {
    s.seq().snd_max.saturating_sub(snd_fack(s)) + retran_data(s)
}

/// The lowest un-SACKed segment at or above HighRxt and below snd.fack: the next hole to resend.
pub(crate) fn next_hole(s: &RecoveryCtx<'_>) -> Option<u64> {
    let mss = s.cfg().mss as u64;
    let fack = snd_fack(s);
    let una = s.seq().snd_una;
    let first = (s.rec().high_rxt.max(una) - una).div_ceil(mss) as usize;
    s.board()
        .iter()
        .enumerate()
        .skip(first)
        .map(|(i, m)| (una + i as u64 * mss, m.sacked))
        .take_while(|&(seq, _)| seq < fack)
        .find(|&(_, sacked)| !sacked)
        .map(|(seq, _)| seq)
}

impl LossRecovery for Fack {
    fn name(&self) -> &'static str {
        "fack"
    }

    fn detects_loss(&self, s: &RecoveryCtx<'_>) -> bool {
        // thesis §2.2.5: enter recovery when snd.fack − snd.una > tcp_rexmt_thresh·MSS.
        snd_fack(s) - s.seq().snd_una > s.dupthresh() as u64 * s.cfg().mss as u64
    }

    fn enter(&mut self, s: RecoveryCtx<'_>, now: SimTime, reaction: Reaction) {
        Sack.enter(s, now, reaction);
    }

    fn on_dup_ack(&mut self, _s: RecoveryCtx<'_>, _now: SimTime) {}

    fn on_ack(&mut self, s: RecoveryCtx<'_>, now: SimTime, acked: u64) -> bool {
        Sack.on_ack(s, now, acked)
    }

    fn send(&mut self, mut s: RecoveryCtx<'_>, now: SimTime) {
        if !s.rec().in_recovery {
            s.send_window_limited(now);
            return;
        }
        let mut awnd = awnd(&s);
        // Mathis & Mahdavi: while (awnd < cwnd) send something.
        while awnd < s.w().cwnd && s.pacing_allows(now) {
            if let Some(seq) = next_hole(&s) {
                let len = s.seg_len(seq);
                s.retransmit(now, seq);
                s.set_high_rxt(seq + len);
                awnd += len;
            } else if s.new_data_fits() {
                awnd += s.seg_len(s.seq().snd_max);
                s.send_new(now);
            } else {
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::SackBlock;
    use crate::tcp::sender::tests::{ack, sacked_4_5_6_8, sender, sent};

    const MS: u64 = 1_000_000;

    /// awnd worked by hand on the scoreboard of `rfc6675_pipe_and_nextseg_by_hand`: segments 0..9
    /// outstanding, 4, 5, 6 and 8 SACKed, 0 and 1 already retransmitted (HighRxt = 2000).
    /// snd.fack = 9000 (end of the block 8000–9000); retran_data = segments 0 and 1 = 2000;
    /// awnd = (10 000 − 9000) + 2000 = 3000 — where RFC 6675's pipe is 4000, because FACK counts
    /// segment 7 (a hole below snd.fack) as lost while IsLost does not (1 SACKed segment above).
    /// Holes below snd.fack from HighRxt: 2, then 3, then 7 (NextSeg would send new data after 3).
    #[test]
    fn fack_awnd_by_hand() {
        let mut s = sacked_4_5_6_8("fack");
        let mut c = RecoveryCtx::new(&mut s.core);
        c.set_high_rxt(2000);
        assert_eq!(snd_fack(&c), 9000);
        assert_eq!(retran_data(&c), 2000);
        assert_eq!(awnd(&c), 3000);
        assert_eq!(c.pipe(), 4000);
        assert_eq!(next_hole(&c), Some(2000));
        c.set_high_rxt(4000); // segments 2 and 3 retransmitted as well
        assert_eq!(awnd(&c), 5000);
        assert_eq!(next_hole(&c), Some(7000));
        c.set_high_rxt(8000); // and segment 7
        assert_eq!((retran_data(&c), awnd(&c)), (5000, 6000));
        assert_eq!(next_hole(&c), None); // 8 is SACKed, 9 is above snd.fack: new data next
                                         // A SACK of segment 2's retransmission takes it out of retran_data.
        let mut h = ack(0);
        h.n_sack = 1;
        h.sack[0] = SackBlock { start: 2000, end: 3000 };
        s.on_ack(2 * MS, &h);
        assert_eq!(retran_data(&RecoveryCtx::new(&mut s.core)), 4000);
    }

    /// The snd.fack trigger: segments 0–3 lost, the first duplicate ACK SACKs segment 4, so
    /// snd.fack − snd.una = 5000 > 3·MSS: recovery starts on that first duplicate ACK.
    /// cwnd = ssthresh = 10 000/2; awnd = (10 000 − 5000) + 1000 (segment 0 resent) = 6000 ≥ cwnd,
    /// so nothing more is sent until awnd falls below 5000: the next duplicate ACK (SACKing
    /// segment 5) makes snd.fack 6000 and awnd 5000 — still not below cwnd — and the one after
    /// (segment 6) makes awnd 4000: hole 1000 goes out.
    #[test]
    fn fack_trigger_before_three_dupacks() {
        let mut s = sender("fack", true, 10);
        s.offer(0, u64::MAX);
        sent(&mut s);
        let dup = |k: u64| {
            let mut h = ack(0);
            h.n_sack = 1;
            h.sack[0] = SackBlock { start: 4000, end: 5000 + k * 1000 };
            h
        };
        s.on_ack(MS, &dup(0));
        assert!(s.core.rec.in_recovery);
        assert_eq!(s.core.rec.dupacks, 1);
        assert_eq!((s.core.w.ssthresh, s.core.w.cwnd), (5000, 5000));
        assert_eq!(sent(&mut s), vec![(0, true)]);
        assert_eq!(awnd(&RecoveryCtx::new(&mut s.core)), 6000);
        s.on_ack(2 * MS, &dup(1));
        assert_eq!(sent(&mut s), vec![]);
        s.on_ack(3 * MS, &dup(2));
        assert_eq!(sent(&mut s), vec![(1000, true)]);
        assert_eq!(awnd(&RecoveryCtx::new(&mut s.core)), 5000);
    }
}
