//! SACK-based loss recovery with Proportional Rate Reduction: RFC 6675's loss detection and
//! NextSeg(), with the amount sent on each ACK set by PRR (RFC 9937, which obsoletes RFC 6937), as
//! Linux recovers (`tcp_cwnd_reduction` since 3.2).
//!
//! Why it matters: RFC 6675 sets cwnd = ssthresh on entry and then sends while cwnd − pipe ≥ 1 SMSS,
//! so a window policy whose ssthresh lies above the flight (Westwood's BWE·RTT_min under ACK
//! compression, a scheme that keeps its window) sends the difference at once, into the queue that
//! just overflowed. PRR sends in proportion to what the receiver reports delivered, whatever
//! ssthresh is, and converges to ssthresh by the end of the recovery.
//!
//! The algorithm (RFC 9937 §4), in this file's names:
//! - On entering recovery: ssthresh = CongCtrlAlg() (the window policy's reaction; the kept window
//!   for a policy that keeps it: [`crate::tcp::sender::RecoveryState::recovery_base`]),
//!   `prr_delivered = 0`, `prr_out = 0`, `recover_fs = snd.nxt − snd.una` ("RecoverFS").
//! - On every ACK during recovery: `DeliveredData = change_in(snd.una) + change_in(SACKd)`;
//!   nothing delivered, nothing sent; else `prr_delivered += DeliveredData`, and with
//!   pipe from RFC 6675's SetPipe:
//!   - `pipe > ssthresh` (proportional rate reduction):
//!     `SndCnt = CEIL(prr_delivered · ssthresh / RecoverFS) − prr_out`;
//!   - else (the reduction bound): `SndCnt = MAX(prr_delivered − prr_out, DeliveredData)`, plus one
//!     SMSS on a "safe" ACK, one that advances snd.una and indicates no further loss (PRR-SSRB;
//!     otherwise PRR-CRB), then `SndCnt = MIN(ssthresh − pipe, SndCnt)`;
//!   - `prr_out == 0 && SndCnt == 0`: `SndCnt = SMSS` (the fast retransmit itself);
//!   - `cwnd = pipe + SndCnt`, and RFC 6675 step (C) sends while cwnd − pipe ≥ 1 SMSS;
//!     every byte sent, new or retransmitted, adds to `prr_out`.
//! - At the end of recovery (the cumulative ACK reaches RecoveryPoint): cwnd = ssthresh.
//!
//! Readings (where the RFC leaves the sender's bookkeeping open):
//! - The ACK that starts recovery is counted as one SMSS delivered: the engine enters recovery
//!   on the DupThresh-th duplicate ACK, which with airtcp's receivers (one ACK per segment) SACKs
//!   one new segment. Linux counts that ACK's newly SACKed packets alike.
//! - "No further loss indicated" is read on RFC 6675's IsLost: the ACK made no segment lost that
//!   was not lost before (the highest lost segment did not move up).
//! - The fast retransmit is RFC 6675 §5 step (4)'s: HighACK + 1 goes out on entry whatever the
//!   first ACK's SndCnt (Linux counts packets, where that SndCnt rounds up to one), and counts in
//!   `prr_out`.
//! - In `prr`, as in RFC 6675 (`sack`), a lost retransmission is found only by the
//!   retransmission timer: PRR changes how much is sent, not what is found lost. The rescue
//!   retransmission (RFC 6675 NextSeg rule 4) is not sent. ECN's window reduction stays immediate
//!   (Linux runs PRR in its CWR state too).
//!
//! `prr-rack` adds what Linux finds lost beyond IsLost on an overflowing path: a lost
//! retransmission, by RACK's time order (RFC 8985 §6.2). RACK.xmit_ts (with RACK.end_seq as the tie
//! break) is the latest send time of a segment the receiver has SACKed, a retransmitted one only
//! when `now − xmit_ts ≥ min_RTT` (step 2: else the SACK may be the original's); a segment
//! retransmitted in this recovery and not SACKed is lost when it was sent before RACK.xmit_ts
//! (step 5 with `RACK.reo_wnd = 0`, which §6.2 step 4 sets during recovery when no reordering has
//! been seen). It then leaves pipe, is sent again before any other segment, and counts as a new
//! loss for PRR (no PRR-SSRB on that ACK). Readings: original transmissions are still found lost
//! by IsLost alone (RFC 6675's DupThresh rule, which RACK replaces in Linux); segments delivered
//! only by the cumulative ACK do not move RACK.xmit_ts (a segment sent after a retransmission lies
//! above its hole and is SACKed first); no reordering timer and no tail loss probe.

use std::collections::BTreeSet;

use super::LossRecovery;
use crate::cc::Reaction;
use crate::tcp::core::RecoveryCtx;
use crate::time::SimTime;

/// RFC 6675 recovery paced by Proportional Rate Reduction (RFC 9937); with `rack_rtx`, lost
/// retransmissions found by RACK's rule (`prr-rack`).
#[derive(Debug, Default)]
pub(crate) struct Prr {
    /// Find lost retransmissions by RFC 8985's time order (`prr-rack`).
    rack_rtx: bool,
    /// (RACK.xmit_ts, RACK.end_seq): the latest-sent segment known delivered in this recovery.
    rack_sent: (SimTime, u64),
    /// Retransmissions found lost, by first byte, not yet sent again.
    lost_rtx: BTreeSet<u64>,
    /// Bytes delivered to the receiver since recovery began (`prr_delivered`).
    prr_delivered: u64,
    /// Bytes sent since recovery began, new and retransmitted (`prr_out`).
    prr_out: u64,
    /// The flight when recovery began (`RecoverFS`).
    recover_fs: u64,
    /// Bytes of the scoreboard SACKed after the last ACK seen in recovery (SACKd).
    sacked_bytes: u64,
    /// One past the highest segment IsLost after the last ACK seen in recovery.
    lost_end: u64,
    /// What the latest ACK lets this recovery send (`SndCnt`), less what has been sent of it.
    sndcnt: u64,
}

/// What one pass over the scoreboard gives [`Prr`] (see [`Prr::view`]).
struct View {
    sacked: u64,
    lost_end: u64,
    pipe: u64,
}

impl Prr {
    /// `prr-rack`: PRR with RACK's detection of lost retransmissions.
    pub(crate) fn with_rack() -> Self {
        Self { rack_rtx: true, ..Self::default() }
    }

    /// NextSeg(): a retransmission found lost first, then RFC 6675's rules.
    fn next_seg(&self, s: &RecoveryCtx<'_>) -> Option<(u64, bool)> {
        match self.lost_rtx.first() {
            Some(&seq) => Some((seq, true)),
            None => s.next_seg(),
        }
    }

    /// RFC 8985 §6.2 steps 2 and 5 for the retransmissions of this recovery (see the module
    /// docs): true when one was newly found lost.
    fn rack_detect(&mut self, s: &RecoveryCtx<'_>, now: SimTime) -> bool {
        let mss = s.cfg().mss as u64;
        let min_rtt = s.min_rtt();
        let una = s.seq().snd_una;
        self.lost_rtx.retain(|&seq| seq >= una && !s.board().get(((seq - una) / mss) as usize).sacked);
        for (i, m) in s.board().iter().enumerate() {
            if m.sacked && (!m.retransmitted || now.saturating_sub(m.sent_at) >= min_rtt) {
                let seq = una + i as u64 * mss;
                self.rack_sent = self.rack_sent.max((m.sent_at, seq + s.seg_len(seq)));
            }
        }
        let mut newly = false;
        for (i, m) in s.board().iter().enumerate() {
            let seq = una + i as u64 * mss;
            let end = seq + s.seg_len(seq);
            if end > s.rec().high_rxt {
                break;
            }
            if !m.sacked && m.retransmitted && (m.sent_at, end) < self.rack_sent && self.lost_rtx.insert(seq) {
                newly = true;
            }
        }
        newly
    }

    /// One pass over the scoreboard: bytes SACKed above snd.una, one past the highest segment
    /// IsLost (snd.una if none), and pipe: RFC 6675 SetPipe, less the retransmissions found lost
    /// (which are no longer in the network).
    fn view(&self, s: &RecoveryCtx<'_>) -> View {
        let mss = s.cfg().mss as u64;
        let mut v = View { sacked: 0, lost_end: s.seq().snd_una, pipe: 0 };
        for (i, is_sacked, lost) in s.lost_flags() {
            let seq = s.seq().snd_una + i as u64 * mss;
            let len = s.seg_len(seq);
            if is_sacked {
                v.sacked += len;
                continue;
            }
            if lost {
                v.lost_end = v.lost_end.max(seq + len);
            } else {
                v.pipe += len;
            }
            if seq + len <= s.rec().high_rxt && !self.lost_rtx.contains(&seq) {
                v.pipe += len;
            }
        }
        v
    }

    /// RFC 9937 §4, "on every ACK during recovery": `delivered` bytes reached the receiver;
    /// `safe_ack` (snd.una advanced and no loss was newly found) picks PRR-SSRB over PRR-CRB.
    fn on_delivery(&mut self, s: &RecoveryCtx<'_>, pipe: u64, delivered: u64, safe_ack: bool) {
        self.sndcnt = 0;
        if delivered == 0 {
            return;
        }
        let mss = s.w().mss;
        self.prr_delivered += delivered;
        let ssthresh = s.rec().recovery_base;
        let mut sndcnt = if pipe > ssthresh {
            // RFC 9937 §4: SndCnt = CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out
            let target = (self.prr_delivered as u128 * ssthresh as u128).div_ceil(self.recover_fs.max(1) as u128) as u64;
            target.saturating_sub(self.prr_out)
        } else {
            // RFC 9937 §4: SndCnt = MAX(prr_delivered - prr_out, DeliveredData), + SMSS if safeACK
            let mut limit = self.prr_delivered.saturating_sub(self.prr_out).max(delivered);
            if safe_ack {
                limit += mss;
            }
            // SndCnt = MIN(ssthresh - pipe, SndCnt)
            (ssthresh - pipe).min(limit)
        };
        // "Force a fast retransmit upon entering recovery"
        if self.prr_out == 0 && sndcnt == 0 {
            sndcnt = mss;
        }
        self.sndcnt = sndcnt;
    }

    /// The scoreboard after an ACK in recovery: DeliveredData = change_in(snd.una) +
    /// change_in(SACKd), and whether the ACK is "safe" (advanced snd.una, found no new loss).
    fn after_ack(&mut self, s: &RecoveryCtx<'_>, now: SimTime, acked: u64) {
        let rtx_lost = self.rack_rtx && self.rack_detect(s, now);
        let v = self.view(s);
        let delivered = (acked + v.sacked).saturating_sub(self.sacked_bytes);
        let newly_lost = rtx_lost || v.lost_end > self.lost_end.max(s.seq().snd_una);
        self.sacked_bytes = v.sacked;
        self.lost_end = v.lost_end;
        self.on_delivery(s, v.pipe, delivered, acked > 0 && !newly_lost);
    }
}

impl LossRecovery for Prr {
    fn name(&self) -> &'static str {
        if self.rack_rtx {
            "prr-rack"
        } else {
            "prr"
        }
    }

    fn enter(&mut self, mut s: RecoveryCtx<'_>, now: SimTime, reaction: Reaction) {
        s.begin_recovery(reaction);
        s.stop_go_back_n();
        // RFC 9937 §4, on entering recovery.
        self.recover_fs = s.flight();
        self.prr_delivered = 0;
        self.prr_out = 0;
        self.rack_sent = (0, 0);
        self.lost_rtx.clear();
        let v = self.view(&s);
        (self.sacked_bytes, self.lost_end) = (v.sacked, v.lost_end);
        // The entering duplicate ACK delivered one segment (the reading above).
        self.on_delivery(&s, v.pipe, s.w().mss, false);
        // RFC 6675 §5 step (4): retransmit HighACK + 1, out of this ACK's SndCnt.
        let head = s.seq().snd_una;
        let len = s.seg_len(head);
        s.retransmit(now, head);
        s.set_high_rxt(head + len);
        self.prr_out += len;
        self.sndcnt = self.sndcnt.saturating_sub(len);
    }

    fn on_dup_ack(&mut self, s: RecoveryCtx<'_>, now: SimTime) {
        self.after_ack(&s, now, 0);
    }

    fn on_ack(&mut self, mut s: RecoveryCtx<'_>, now: SimTime, acked: u64) -> bool {
        s.set_high_rxt(s.rec().high_rxt.max(s.seq().snd_una));
        if s.seq().snd_una >= s.rec().recover.unwrap_or(0) {
            // RFC 9937 §4: at the end of recovery, cwnd = ssthresh.
            s.set_cwnd(s.rec().recovery_base);
            self.sndcnt = 0;
            return true;
        }
        self.after_ack(&s, now, acked);
        false
    }

    fn send(&mut self, mut s: RecoveryCtx<'_>, now: SimTime) {
        if !s.rec().in_recovery {
            s.send_window_limited(now);
            return;
        }
        let mut pipe = self.view(&s).pipe;
        // RFC 9937 §4: cwnd = pipe + SndCnt; RFC 6675 step (C) sends while cwnd - pipe >= 1 SMSS.
        // The window stays within the flow's bounds: at most `max_cwnd`, and at least 1 SMSS
        // (Linux's `tcp_snd_cwnd_set` refuses 0), so that with nothing in flight and nothing
        // delivered SndCnt = 0 sends nothing but leaves cwnd nonzero.
        let max = s.cfg().max_cwnd_bytes;
        let allowed = (pipe + self.sndcnt).min(max);
        s.set_cwnd(allowed.max(s.w().mss).min(max).max(1));
        while allowed >= pipe + s.w().mss {
            let Some((seq, retx)) = self.next_seg(&s) else { break };
            if !s.pacing_allows(now) {
                break;
            }
            let len = s.seg_len(seq);
            if retx {
                s.retransmit(now, seq);
                self.lost_rtx.remove(&seq);
                s.set_high_rxt(s.rec().high_rxt.max(seq + len));
            } else {
                s.send_new(now);
            }
            pipe += len;
            self.prr_out += len;
            self.sndcnt = self.sndcnt.saturating_sub(len);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::net::SackBlock;
    use crate::tcp::sender::tests::{ack, sender, sent};

    const MS: u64 = 1_000_000;

    /// A duplicate ACK of 0 SACKing segments [first, last) (MSS 1000).
    fn dup(first: u64, last: u64) -> crate::net::TcpHeader {
        let mut h = ack(0);
        h.n_sack = 1;
        h.sack[0] = SackBlock { start: first * 1000, end: last * 1000 };
        h
    }

    /// Proportional rate reduction worked by hand (RFC 9937 §4, pipe > ssthresh throughout):
    /// 20 segments outstanding, segment 0 lost, every later segment SACKed in turn.
    /// On the third duplicate ACK Reno sets ssthresh = 20 000 / 2 = 10 000; RecoverFS = 20 000;
    /// prr_delivered = 1000 and SndCnt = CEIL(1000·10 000/20 000) − 0 = 500; the fast retransmit of
    /// segment 0 goes out (RFC 6675 step (4)) and prr_out = 1000. Duplicate ACK k (k = 4, 5, ...) makes
    /// prr_delivered = 1000·(k − 2) and SndCnt = CEIL(prr_delivered/2) − prr_out: 0 at k = 4, 500 at
    /// k = 5 (less than a segment: nothing), 1000 at k = 6 → new segment 20 (prr_out 2000), 500 at
    /// k = 7, 1000 at k = 8 → segment 21: one segment per two ACKs, half the delivery rate.
    #[test]
    fn prr_sends_half_the_delivered_data_by_hand() {
        let mut s = sender("prr", true, 20);
        s.offer(0, u64::MAX);
        assert_eq!(sent(&mut s).len(), 20);
        s.on_ack(MS, &dup(1, 2));
        s.on_ack(2 * MS, &dup(1, 3));
        assert_eq!(sent(&mut s), vec![]);
        s.on_ack(3 * MS, &dup(1, 4));
        assert!(s.core.rec.in_recovery);
        assert_eq!(s.core.w.ssthresh, 10_000);
        assert_eq!(sent(&mut s), vec![(0, true)]);
        let mut got = vec![];
        for k in 4..=10u64 {
            s.on_ack(k * MS, &dup(1, k + 1));
            got.push((k, sent(&mut s)));
        }
        let expect: Vec<(u64, Vec<(u64, bool)>)> = vec![
            (4, vec![]),
            (5, vec![]),
            (6, vec![(20_000, false)]),
            (7, vec![]),
            (8, vec![(21_000, false)]),
            (9, vec![]),
            (10, vec![(22_000, false)]),
        ];
        assert_eq!(got, expect);
    }

    /// RFC 6675 alone (`sack`) on the same ACKs, for contrast: cwnd = ssthresh = 10 000 and pipe =
    /// 16 000 at k = 4 (segments 5–19 and the retransmission), one less per ACK: nothing is sent
    /// until pipe = 9000 at k = 11, then one segment per ACK — the same count as PRR's by k = 12
    /// (3), but none in the first seven ACKs and then at the full delivery rate.
    #[test]
    fn sack_alone_waits_for_pipe_below_ssthresh() {
        let mut s = sender("sack", true, 20);
        s.offer(0, u64::MAX);
        sent(&mut s);
        for k in 1..=3u64 {
            s.on_ack(k * MS, &dup(1, k + 1));
        }
        assert_eq!(sent(&mut s), vec![(0, true)]);
        let firsts: Vec<(u64, usize)> = (4..=12u64)
            .map(|k| {
                s.on_ack(k * MS, &dup(1, k + 1));
                (k, sent(&mut s).len())
            })
            .collect();
        assert_eq!(firsts, vec![(4, 0), (5, 0), (6, 0), (7, 0), (8, 0), (9, 0), (10, 0), (11, 1), (12, 1)]);
    }

    /// The reduction bound worked by hand (pipe ≤ ssthresh): 10 segments, 0–5 lost, 6, 7 and 8
    /// SACKed by three duplicate ACKs. ssthresh = 5000, RecoverFS = 10 000.
    /// - Entry: pipe = 1000 (segment 9; 0–5 are lost) ≤ 5000, not safe (snd.una did not move):
    ///   PRR-CRB, SndCnt = MIN(5000 − 1000, MAX(1000 − 0, 1000)) = 1000: the fast retransmit of 0,
    ///   after which pipe = 2000.
    /// - Duplicate ACK SACKing 9: delivered 1000, prr_delivered 2000; pipe = 1000 (the
    ///   retransmission); SndCnt = MIN(4000, MAX(2000 − 1000, 1000)) = 1000: segment 1.
    /// - ACK of 1000 (segment 0's retransmission arrived): delivered 1000, prr_delivered 3000, no
    ///   new loss and snd.una advanced: safe, PRR-SSRB; pipe = 1000 (segment 1's retransmission);
    ///   SndCnt = MIN(4000, MAX(3000 − 2000, 1000) + 1000) = 2000: segments 2 and 3.
    /// - ACK of 2000: prr_delivered 4000, pipe 2000 (2 and 3); SndCnt = MIN(3000, MAX(4000 − 4000,
    ///   1000) + 1000) = 2000: segments 4 and 5.
    /// - ACK of 10 000 reaches RecoveryPoint: recovery ends with cwnd = ssthresh = 5000.
    #[test]
    fn prr_reduction_bound_by_hand() {
        let mut s = sender("prr", true, 10);
        s.offer(0, u64::MAX);
        sent(&mut s);
        for k in 7..=9 {
            s.on_ack(k * MS, &dup(6, k));
        }
        assert!(s.core.rec.in_recovery);
        assert_eq!((s.core.w.ssthresh, s.core.pipe()), (5000, 2000));
        assert_eq!(sent(&mut s), vec![(0, true)]);
        s.on_ack(10 * MS, &dup(6, 10));
        assert_eq!(sent(&mut s), vec![(1000, true)]);
        let mut h = dup(6, 10);
        h.ack = 1000;
        s.on_ack(11 * MS, &h);
        assert_eq!(sent(&mut s), vec![(2000, true), (3000, true)]);
        h.ack = 2000;
        s.on_ack(12 * MS, &h);
        assert_eq!(sent(&mut s), vec![(4000, true), (5000, true)]);
        s.on_ack(13 * MS, &ack(10_000));
        assert!(!s.core.rec.in_recovery);
        assert_eq!(s.core.w.cwnd, 5000);
    }

    /// RACK's lost-retransmission rule worked by hand (`prr-rack` beside `prr`): 10 segments,
    /// segment 0 lost and its retransmission R0 (sent at 3 ms, on the third duplicate ACK) lost
    /// too; duplicate ACK k at k ms SACKs segments 1..k. ssthresh 5000, RecoverFS 10 000.
    /// - k = 4: pipe = 6000 (segments 5–9 and R0) > ssthresh: SndCnt = CEIL(2000/2) − 1000 = 0.
    /// - k = 5: pipe = 5000, the reduction bound: SndCnt = MIN(0, MAX(3000 − 1000, 1000)) = 0.
    /// - k = 6..9: pipe = 4000 each time (three unSACKed segments above 0, and R0), so SndCnt =
    ///   MIN(1000, MAX(prr_delivered − prr_out, 1000)) = 1000: new segments 10, 11, 12, 13 at
    ///   6, 7, 8, 9 ms, one per ACK (prr_out 5000).
    /// - k = 10 SACKs segment 10, sent at 6 ms, after R0 (3 ms): RACK.xmit_ts = 6 ms, so R0 is
    ///   lost. prr_delivered = 8000; pipe = 11, 12, 13 = 3000 (R0 left it); a new loss, so no SSRB:
    ///   SndCnt = MIN(5000 − 3000, MAX(8000 − 5000, 1000)) = 2000: R0 again first, then segment 14.
    /// - `prr` on the same ACK still counts R0 in pipe (4000) and cannot see it lost: SndCnt =
    ///   MIN(1000, 3000) = 1000, new segment 14 only; segment 0 waits for the timer.
    #[test]
    fn rack_finds_the_lost_retransmission_by_hand() {
        for (name, expect) in [("prr-rack", vec![(0, true), (14_000, false)]), ("prr", vec![(14_000, false)])] {
            let mut s = sender(name, true, 10);
            s.offer(0, u64::MAX);
            sent(&mut s);
            let mut sends = vec![];
            for k in 1..=9u64 {
                s.on_ack(k * MS, &dup(1, k + 1));
                sends.push(sent(&mut s));
            }
            assert_eq!(
                sends,
                vec![
                    vec![],
                    vec![],
                    vec![(0, true)],
                    vec![],
                    vec![],
                    vec![(10_000, false)],
                    vec![(11_000, false)],
                    vec![(12_000, false)],
                    vec![(13_000, false)],
                ],
                "{name}"
            );
            s.on_ack(10 * MS, &dup(1, 11));
            assert_eq!(sent(&mut s), expect, "{name}");
        }
    }

    /// Fuzzing finding (`fuzz/regressions/sender/prr-cwnd-zero-with-nothing-in-flight`): one
    /// segment outstanding, and duplicate ACKs that SACK that very segment (a receiver that SACKs
    /// what it does not acknowledge). Recovery starts on the third; the head goes out again, but
    /// the segment is SACKed, so pipe = 0 and SndCnt = 0: cwnd = pipe + SndCnt was 0. The window
    /// stays at 1 SMSS; nothing more is sent.
    #[test]
    fn cwnd_stays_one_segment_with_nothing_in_flight() {
        let mut s = sender("prr", true, 1);
        s.offer(0, u64::MAX);
        assert_eq!(sent(&mut s), vec![(0, false)]);
        for k in 1..=3u64 {
            s.on_ack(k * MS, &dup(0, 1));
        }
        assert!(s.core.rec.in_recovery);
        assert_eq!(s.core.pipe(), 0);
        assert_eq!(sent(&mut s), vec![(0, true)]);
        assert_eq!(s.core.w.cwnd, 1000);
    }
}
