//! Loss recovery as ns-2.35's TCP-Linux does it (`Agent/TCP/Linux`, D. X. Wei's port of Linux
//! 2.6's congestion-control modules: `tcp/linux/tcp-linux.cc` and `tcp/scoreboard1.cc`, which "loosely
//! follow" Linux 2.6's `tcp_clean_rtx_queue`, `tcp_sacktag_write_queue` and
//! `tcp_fastretrans_alert` in `net/ipv4/tcp_input.c`). Needs `sack = true`.
//!
//! Rules, each as the port has it (the Linux 2.6 function it follows in brackets):
//! - **Loss marking on every ACK** (`ScoreBoard1::UpdateScoreBoard`; Linux's FACK marking,
//!   `tcp_mark_head_lost`/`tcp_update_scoreboard` with `fackets_out`): with fack the highest
//!   SACKed segment, an un-SACKed segment that was not retransmitted in this episode is lost when
//!   fack − seg ≥ DupThresh + 1 segments (`lost_seq_threshold = fack_ − (dupack_threshold + 1)`;
//!   with one loss, on the 4th SACKed segment above it — Linux's `fackets_out > reordering` fires
//!   on the 3rd). No duplicate ACKs are counted.
//! - **Lost retransmissions** (the same function; Linux `tcp_sacktag_write_queue`'s `lost_retrans`,
//!   which compares a SACK with the `ack_seq` = snd_nxt recorded at the retransmission): a segment
//!   retransmitted in this episode is lost again when data sent after that retransmission is SACKed
//!   (`GetSndNxt() <= fack_`: here the highest SACKed byte passes snd_max at the retransmission), or
//!   when a retransmission sent more than DupThresh + 1 after it was ACKed or SACKed
//!   (`GetRtx() + dupack_threshold + 1 < acked_rtx_id_`). It is then retransmitted again.
//! - **Entry** (`tcp_fastretrans_alert` step F): from Open, and from Loss (after a timeout), an
//!   ACK that marks a segment lost starts Recovery: `recover = HighData` (`recover_ = maxseq_`),
//!   ssthresh from the window policy (`ssthresh()` of the Linux module), cwnd = ssthresh (the
//!   policy's kept window when it keeps one). There is no `recover` guard (RFC 6582's, ns-2's
//!   `bugfix_`): a loss right after a recovery starts the next one.
//! - **Sending** (`LinuxTcpAgent::send_much`; Linux `tcp_packets_in_flight`, `tcp_xmit_retransmit_queue`):
//!   packets in flight = outstanding − SACKed − lost (a lost segment leaves the count until it is
//!   sent again); while in flight < max(cwnd, next) send the lowest lost segment, else new data.
//!   `next` (`next_pkts_in_flight_`) is the port's rate halving ("Linux uses a CWR process to halve
//!   rate, we have a simpler one"): the cwnd before the reduction at entry, then before each
//!   sending round `next = min(next, in_flight + 1)` and after each segment sent
//!   `next = min(next, max(in_flight − 1, 1))`, so one segment leaves per two ACKs until in flight
//!   is down to cwnd; 0 outside recovery. Outside recovery the same rule lets each SACKed segment
//!   release one new segment (so the flow's `limited_transmit` is not used).
//! - **Exit** (step E): when the cumulative ACK reaches `recover`, in Recovery or Loss: the
//!   scoreboard is cleared (`ClearScoreBoard`: lost and retransmitted marks and the SACKs too, so
//!   the next ACK rebuilds it from its own, at most three, blocks), and if cwnd < ssthresh, cwnd = ssthresh moderated
//!   to at most in flight + 3 segments (`tcp_moderate_cwnd`, `tcp_max_burst`; in flight counted on
//!   the cleared scoreboard: everything outstanding). No marking on that ACK (the port returns).
//! - **Timeout** (`LinuxTcpAgent::timeout`/`enter_loss`; Linux `tcp_enter_loss`): the policy's
//!   timeout reaction (cwnd 1), state Loss, `recover = HighData`, every un-SACKed outstanding
//!   segment marked lost (`MarkLoss`, which keeps SACK information: "In Linux, we don't clear
//!   scoreboard in timeout"), rate halving off; then the sending rule retransmits them lowest first
//!   as cwnd opens (no go-back-N over SACKed data). The window grows in Loss (slow start), not in
//!   Recovery (`tcp_may_raise_cwnd`).
//!
//! Readings where the port is loose or silent:
//! - The port walks its scoreboard only up to the last SACK block of the ACK (or wholly when an
//!   acknowledged retransmission "changed" it); here every ACK re-examines every segment up to the
//!   highest SACKed one, which marks the same segments, at most one ACK sooner.
//! - `acked_rtx_id_` is the highest id of any retransmission ACKed or SACKed in the episode (the
//!   port assigns the id of the latest one SACKed, which can move it down).
//! - Not in the port and not here: Linux's undo (DSACK, Eifel timestamps, F-RTO), its
//!   reordering estimate, the Disorder and CWR states.
//!
//! The retransmission timer of the port restarts on every ACK, duplicate ones too: the flow option
//! `rto_restart = "every-ack"` (see `SenderConfig::rto_restart_every_ack`), set with this
//! strategy in the ns-2 twin of TCP-Linux.

use std::collections::VecDeque;

use super::LossRecovery;
use crate::cc::Reaction;
use crate::tcp::core::RecoveryCtx;
use crate::time::SimTime;

/// What the port's scoreboard keeps per outstanding segment beyond SACKed (kept here, beside the
/// sender's [`crate::tcp::scoreboard::Scoreboard`] and indexed alike, so that other strategies
/// carry none of it).
#[derive(Debug, Clone, Copy, Default)]
struct Marks {
    /// Marked lost and not yet sent again (`SKB_FLAG_LOST`).
    lost: bool,
    /// snd_max when it was last retransmitted in this episode, 0 if not (ScoreBoardNode1's
    /// `snd_nxt_`; Linux's `TCP_SKB_CB(skb)->ack_seq`).
    rtx_snd_max: u64,
    /// That retransmission's order in the episode (`rtx_id_`).
    rtx_id: u32,
}

/// ns-2.35 TCP-Linux's loss recovery.
#[derive(Debug, Default)]
pub struct Linux {
    /// Per outstanding segment, front = the segment at snd_una (as the sender's scoreboard).
    marks: VecDeque<Marks>,
    /// `next_pkts_in_flight_`, in segments: the rate-halving allowance (0 outside recovery).
    next_pif: u64,
    /// TCP_CA_Loss: after a timeout, until the cumulative ACK reaches `recover`.
    loss_state: bool,
    /// `rtx_id_`: the order number the next retransmission of the episode gets.
    next_rtx_id: u32,
    /// `acked_rtx_id_`: the highest order number of a retransmission ACKed or SACKed.
    acked_rtx_id: Option<u32>,
    /// The episode ended on this ACK: no marking on it.
    just_exited: bool,
}

impl Linux {
    /// One entry per outstanding segment (segments sent since the last call start unmarked).
    fn sync(&mut self, s: &RecoveryCtx<'_>) {
        self.marks.resize(s.board().len(), Marks::default());
    }

    /// Packets in flight (`ScoreBoard1::packets_in_flight`): outstanding − SACKed − lost.
    fn in_flight(&self, s: &RecoveryCtx<'_>) -> u64 {
        s.board().iter().zip(&self.marks).filter(|(b, m)| !b.sacked && !m.lost).count() as u64
    }

    /// Forgets the episode's marks and counters (`ClearScoreBoard`, `MarkLoss`'s reset of ids).
    fn clear_marks(&mut self) {
        self.marks.iter_mut().for_each(|m| *m = Marks::default());
        self.next_rtx_id = 0;
        self.acked_rtx_id = None;
    }

    /// Step E: the cumulative ACK reached `recover`.
    fn exit(&mut self, mut s: RecoveryCtx<'_>) {
        self.clear_marks();
        s.forget_sacks();
        self.next_pif = 0;
        self.loss_state = false;
        self.just_exited = true;
        if s.w().cwnd < s.w().ssthresh {
            // tcp_moderate_cwnd on the cleared scoreboard: in flight = everything outstanding.
            let outstanding = s.board().len() as u64;
            s.set_cwnd(s.w().ssthresh.min((outstanding + 3) * s.w().mss));
        }
    }
}

impl LossRecovery for Linux {
    fn name(&self) -> &'static str {
        "linux"
    }

    fn marks_losses(&self) -> bool {
        true
    }

    fn may_enter(&self, _s: &RecoveryCtx<'_>) -> bool {
        true
    }

    fn mark_losses(&mut self, s: RecoveryCtx<'_>, _now: SimTime) -> bool {
        self.sync(&s);
        if std::mem::take(&mut self.just_exited) {
            return false;
        }
        if self.loss_state && s.seq().snd_una >= s.rec().recover.unwrap_or(0) {
            self.exit(s);
            self.just_exited = false;
            return false;
        }
        let mss = s.cfg().mss as u64;
        let high_sacked = s.board().high_sacked;
        if high_sacked <= s.seq().snd_una || s.board().is_empty() {
            return false;
        }
        let fack = (((high_sacked - 1 - s.seq().snd_una) / mss) as usize).min(s.board().len() - 1);
        for (b, m) in s.board().iter().zip(&self.marks).take(fack + 1) {
            if b.sacked && m.rtx_snd_max > 0 {
                self.acked_rtx_id = Some(self.acked_rtx_id.map_or(m.rtx_id, |a| a.max(m.rtx_id)));
            }
        }
        let thresh = s.dupthresh() as usize + 1;
        let acked_rtx = self.acked_rtx_id;
        let mut newly = false;
        for (i, (b, m)) in s.board().iter().zip(self.marks.iter_mut()).enumerate().take(fack + 1) {
            if b.sacked || m.lost {
                continue;
            }
            let lost = if m.rtx_snd_max > 0 {
                high_sacked > m.rtx_snd_max || acked_rtx.is_some_and(|a| m.rtx_id as usize + thresh < a as usize)
            } else {
                fack - i >= thresh
            };
            if lost {
                m.lost = true;
                newly = true;
            }
        }
        newly
    }

    /// `LinuxTcpAgent::packets_in_flight`: outstanding − SACKed − lost (segments sent since the
    /// last `Linux::sync` are unmarked).
    fn in_flight_bytes(&self, s: &RecoveryCtx<'_>) -> u64 {
        let lost = |i: usize| self.marks.get(i).is_some_and(|m| m.lost);
        s.board().iter().enumerate().filter(|&(i, b)| !b.sacked && !lost(i)).count() as u64 * s.w().mss
    }

    fn before_cumulative_ack(&mut self, _s: &RecoveryCtx<'_>, n: usize) {
        let n = n.min(self.marks.len());
        for m in self.marks.iter().take(n) {
            if m.rtx_snd_max > 0 {
                self.acked_rtx_id = Some(self.acked_rtx_id.map_or(m.rtx_id, |a| a.max(m.rtx_id)));
            }
        }
        self.marks.drain(..n);
    }

    fn enter(&mut self, mut s: RecoveryCtx<'_>, _now: SimTime, reaction: Reaction) {
        s.begin_recovery(reaction);
        s.set_cwnd(s.rec().recovery_base);
        s.stop_go_back_n();
        self.loss_state = false;
        self.next_pif = s.rec().prior_cwnd / s.w().mss;
    }

    fn on_dup_ack(&mut self, _s: RecoveryCtx<'_>, _now: SimTime) {}

    fn on_ack(&mut self, s: RecoveryCtx<'_>, _now: SimTime, _acked: u64) -> bool {
        if s.seq().snd_una >= s.rec().recover.unwrap_or(0) {
            self.exit(s);
            return true;
        }
        false
    }

    fn on_timeout(&mut self, s: RecoveryCtx<'_>, _now: SimTime) {
        self.sync(&s);
        self.clear_marks();
        for (b, m) in s.board().iter().zip(self.marks.iter_mut()) {
            m.lost = !b.sacked;
        }
        self.loss_state = true;
        self.next_pif = 0;
        self.just_exited = false;
    }

    fn on_spurious_timeout(&mut self, s: RecoveryCtx<'_>) {
        // Linux `tcp_undo_cwnd_reduction(sk, true)` clears every LOST mark, and the state is Open.
        self.sync(&s);
        self.clear_marks();
        self.loss_state = false;
        self.next_pif = 0;
    }

    fn send(&mut self, mut s: RecoveryCtx<'_>, now: SimTime) {
        self.sync(&s);
        let mss = s.w().mss;
        let cwnd = s.w().cwnd / mss;
        let mut pif = self.in_flight(&s);
        self.next_pif = self.next_pif.min(pif + 1);
        let mut first_lost = 0;
        while pif < cwnd.max(self.next_pif) && s.pacing_allows(now) {
            while first_lost < self.marks.len() && (!self.marks[first_lost].lost || s.board().get(first_lost).sacked) {
                first_lost += 1;
            }
            if first_lost < self.marks.len() {
                let seq = s.seq().snd_una + first_lost as u64 * mss;
                let m = &mut self.marks[first_lost];
                m.lost = false;
                m.rtx_snd_max = s.seq().snd_max;
                m.rtx_id = self.next_rtx_id;
                self.next_rtx_id += 1;
                s.retransmit(now, seq);
            } else if s.new_data_fits() {
                s.send_new(now);
                self.marks.push_back(Marks::default());
            } else {
                break;
            }
            pif += 1;
            self.next_pif = self.next_pif.min(pif.saturating_sub(1).max(1));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::net::{SackBlock, TcpHeader};
    use crate::tcp::sender::tests::{ack, cfg, sent};
    use crate::tcp::sender::Sender;

    const MS: u64 = 1_000_000;

    fn linux_sender(iw: u64, every_ack: bool) -> Sender {
        let mut c = cfg(true, iw);
        c.rto_restart_every_ack = every_ack;
        Sender::new(c, crate::cc::build("reno", None).unwrap(), crate::tcp::recovery::by_name("linux").unwrap())
    }

    /// An ACK of `n` with SACK blocks `blocks` (start, end).
    fn sack(n: u64, blocks: &[(u64, u64)]) -> TcpHeader {
        let mut h = ack(n);
        h.n_sack = blocks.len() as u8;
        for (k, &(start, end)) in blocks.iter().enumerate() {
            h.sack[k] = SackBlock { start, end };
        }
        h
    }

    /// Segments 0..9 out (IW 10, Reno window policy), segment 0 lost; the receiver SACKs 1, 2, 3,
    /// ... one per ACK. Worked by hand:
    /// - SACK of 1, 2, 3 (fack − 0 = 1, 2, 3 < DupThresh + 1 = 4): nothing lost; in flight =
    ///   outstanding − SACKed = 9 < cwnd 10 each time, so each ACK releases one new segment
    ///   (10, 11, 12): 13 outstanding.
    /// - SACK of 4: fack − 0 = 4 → segment 0 lost → Recovery: ssthresh = 13000/2 = 6500 = cwnd,
    ///   recover = 13000, next = 10 (cwnd before). In flight = 13 − 4 − 1 = 8; next = min(10, 9)
    ///   = 9; 8 < max(6, 9): retransmit 0 (in flight 9, next = min(9, 8) = 8); 9 < 8 no.
    /// - SACK of 5: in flight 8, next = min(8, 9) = 8: nothing. SACK of 6: in flight 7, next
    ///   = min(8, 8) = 8: new segment 13, next = 7. SACK of 7: 7, next 7: nothing. SACK of 8:
    ///   6 < 7: segment 14, next 6. SACK of 9: 6, next 6, cwnd 6: nothing. One segment per two
    ///   ACKs (rate halving) until in flight is down to cwnd.
    fn one_loss_in_recovery(every_ack: bool) -> Sender {
        let mut s = linux_sender(10, every_ack);
        s.offer(0, u64::MAX);
        assert_eq!(sent(&mut s).len(), 10);
        let mut released = vec![];
        for k in 1..=3u64 {
            s.on_ack((100 + k) * MS, &sack(0, &[(1000, 1000 + k * 1000)]));
            released.extend(sent(&mut s));
        }
        assert_eq!(released, vec![(10_000, false), (11_000, false), (12_000, false)]);
        assert!(!s.core.rec.in_recovery, "3 SACKed segments above do not mark it lost");
        s.on_ack(104 * MS, &sack(0, &[(1000, 5000)]));
        assert!(s.core.rec.in_recovery);
        assert_eq!(s.core.stats.fast_retransmits, 1);
        assert_eq!((s.core.w.ssthresh, s.core.w.cwnd, s.core.rec.recover), (6500, 6500, Some(13_000)));
        assert_eq!(sent(&mut s), vec![(0, true)]);
        let mut by_ack = vec![];
        for k in 5..=9u64 {
            s.on_ack((100 + k) * MS, &sack(0, &[(1000, 1000 + k * 1000)]));
            by_ack.push(sent(&mut s));
        }
        assert_eq!(by_ack, vec![vec![], vec![(13_000, false)], vec![], vec![(14_000, false)], vec![]]);
        s
    }

    /// The port's `packets_in_flight` at the end of the trace above: 15 outstanding (0..14), 9
    /// SACKed (1..9), 0 retransmitted and no longer marked lost: 6 segments.
    #[test]
    fn in_flight_counts_outstanding_minus_sacked_minus_lost() {
        let mut s = one_loss_in_recovery(false);
        assert_eq!(s.recovery.in_flight_bytes(&crate::tcp::recovery::RecoveryCtx::new(&mut s.core)), 6000);
    }

    /// Westwood+ with `growth = "linux-ns2"` gets the in-flight count before each ACK: IW 2, both
    /// segments out; the ACK of the first finds 2 in flight = cwnd (cwnd-limited), slow start
    /// (2 ≤ ssthresh): cwnd 3, and 2 + 1 = 3 segments go out (1000 + 2 new ones).
    #[test]
    fn growth_reads_the_in_flight_count_before_the_ack() {
        let table: toml::Table = toml::from_str("growth = \"linux-ns2\"").unwrap();
        let cc = crate::cc::build("westwood-plus", Some(&table)).unwrap();
        let mut s = Sender::new(cfg(true, 2), cc, crate::tcp::recovery::by_name("linux").unwrap());
        s.offer(0, u64::MAX);
        assert_eq!(sent(&mut s).len(), 2);
        s.on_ack(100 * MS, &ack(1000));
        assert_eq!(s.core.w.cwnd, 3000);
        assert_eq!(sent(&mut s).iter().map(|x| x.0).collect::<Vec<_>>(), vec![2000, 3000]);
    }

    #[test]
    fn fack_marking_entry_and_rate_halving_by_hand() {
        let mut s = one_loss_in_recovery(false);
        // The retransmission arrives: ACK 13000 = recover ends Recovery; cwnd 6500 = ssthresh is
        // kept (no growth on that ACK); in flight 2 (13, 14) < 6: new segments 15..18.
        s.on_ack(200 * MS, &ack(13_000));
        assert!(!s.core.rec.in_recovery);
        assert_eq!(s.core.w.cwnd, 6500);
        assert_eq!(sent(&mut s).iter().map(|x| x.0).collect::<Vec<_>>(), vec![15_000, 16_000, 17_000, 18_000]);
        assert_eq!(s.core.stats.retransmissions, 1);
    }

    /// Continuing the trace with the retransmission of 0 (sent when snd_max was 13000) lost:
    /// segment 13 arrives and is SACKed, so data sent after that retransmission is SACKed
    /// (13000 .. 14000 > 13000): 0 is lost again (no second window cut) and resent. In flight =
    /// 15 − 10 SACKed − 1 lost = 4, next = min(6, 5) = 5; 4 < 6: retransmit 0 (5, next 4), 5 < 6:
    /// new segment 15 (6, next 4); 6 < 6 no.
    #[test]
    fn lost_retransmission_is_sent_again() {
        let mut s = one_loss_in_recovery(false);
        s.on_ack(150 * MS, &sack(0, &[(13_000, 14_000), (1000, 10_000)]));
        assert_eq!(sent(&mut s), vec![(0, true), (15_000, false)]);
        assert_eq!((s.core.stats.fast_retransmits, s.core.stats.retransmissions), (1, 2));
        assert_eq!(s.core.w.cwnd, 6500);
        // ... and the second retransmission's ACK ends the recovery.
        s.on_ack(250 * MS, &sack(14_000, &[]));
        assert!(!s.core.rec.in_recovery);
    }

    /// The exit forgets the SACKs too (`ClearScoreBoard` frees every node and sets `fack_` to 0):
    /// the next ACK rebuilds the board from its own blocks, so a segment SACKed before the exit
    /// that this ACK does not report counts as not received. Continuing the trace:
    /// - ACK 0, SACK 10..12, 14, 1..9 (150 ms): 0's retransmission is lost again (14 was sent
    ///   after it); in flight = 15 − 13 SACKed − 1 lost = 1, next = min(6, 2) = 2: resend 0, then
    ///   new 15..18 while in flight < cwnd 6.
    /// - ACK 13000 = recover, SACK 14 (250 ms): exit, board cleared: in flight = all 6 outstanding
    ///   (13..18) = cwnd: nothing sent (with 14 still SACKed it would be 5 and 19 would go out).
    /// - ACK 13000, SACK 16..18 only (260 ms): fack = 18; 13 and 14 are 5 and 4 below it: lost,
    ///   a second recovery (Reno: ssthresh = cwnd = flight 6000 / 2, recover 19000); in flight = 6 − 3 − 2 = 1:
    ///   resend 13 and 14 (in flight 3 = cwnd 3) — 14 needlessly, as the port does.
    #[test]
    fn exit_forgets_sacks_and_the_next_ack_rebuilds_them() {
        let mut s = one_loss_in_recovery(false);
        s.on_ack(150 * MS, &sack(0, &[(10_000, 13_000), (14_000, 15_000), (1000, 10_000)]));
        assert_eq!(sent(&mut s), vec![(0, true), (15_000, false), (16_000, false), (17_000, false), (18_000, false)]);
        s.on_ack(250 * MS, &sack(13_000, &[(14_000, 15_000)]));
        assert!(!s.core.rec.in_recovery);
        assert_eq!(s.core.board.high_sacked, 0);
        assert_eq!(sent(&mut s), vec![]);
        s.on_ack(260 * MS, &sack(13_000, &[(16_000, 19_000)]));
        assert!(s.core.rec.in_recovery);
        assert_eq!(s.core.stats.fast_retransmits, 2);
        assert_eq!((s.core.w.ssthresh, s.core.w.cwnd, s.core.rec.recover), (3000, 3000, Some(19_000)));
        assert_eq!(sent(&mut s), vec![(13_000, true), (14_000, true)]);
    }

    /// No `recover` guard: after the recovery above ends at 13000, segment 13 (the first sent
    /// during the recovery, at `recover` itself) is lost. SACKs of 14..17 put fack 4 segments
    /// above it: a second recovery starts (Reno/NewReno/SACK would wait for the timer, their
    /// cumulative ACK not being past `recover`).
    #[test]
    fn loss_at_the_recovery_point_starts_a_new_recovery() {
        let mut s = one_loss_in_recovery(false);
        s.on_ack(200 * MS, &ack(13_000));
        sent(&mut s);
        assert!(!s.core.recover_guard_passes());
        for k in 1..=4u64 {
            s.on_ack((210 + k) * MS, &sack(13_000, &[(14_000, 14_000 + k * 1000)]));
        }
        assert_eq!(s.core.stats.fast_retransmits, 2);
        assert!(s.core.rec.in_recovery);
        assert!(sent(&mut s).contains(&(13_000, true)));
    }

    /// Timeout (Loss): segments 0..9 out, SACKs of 2 and 3 release 10 and 11 (in flight 8 < 10
    /// each). The timer (1 s, started at t = 0; duplicate ACKs do not restart it here) expires:
    /// Reno ssthresh = 12000/2 = 6000, cwnd 1 segment, recover = 12000, every un-SACKed segment
    /// lost, so in flight 0: only segment 0 is resent. Its ACK (1000, SACK 2..3) opens cwnd to 2
    /// (slow start): in flight 0, the lowest lost segments 1000 and 4000 are resent — SACKed 2000
    /// and 3000 are skipped. ACK 12000 reaches recover: Loss ends, cwnd 3000 (slow start) <
    /// ssthresh is raised to ssthresh and moderated to in flight 0 + 3 segments = 3000.
    #[test]
    fn timeout_marks_unsacked_lost_and_resends_them_lowest_first() {
        let mut s = linux_sender(10, false);
        s.offer(0, u64::MAX);
        sent(&mut s);
        s.on_ack(100 * MS, &sack(0, &[(2000, 3000)]));
        s.on_ack(101 * MS, &sack(0, &[(2000, 4000)]));
        assert_eq!(sent(&mut s), vec![(10_000, false), (11_000, false)]);
        assert_eq!(s.core.rto_deadline, Some(1000 * MS));
        s.on_timeout(1000 * MS);
        assert_eq!((s.core.w.ssthresh, s.core.w.cwnd), (6000, 1000));
        assert_eq!(sent(&mut s), vec![(0, true)]);
        assert_eq!(s.core.rto_deadline, Some(3000 * MS), "backed off: 2 s");
        s.on_ack(1100 * MS, &sack(1000, &[(2000, 4000)]));
        assert_eq!(s.core.w.cwnd, 2000);
        assert_eq!(sent(&mut s), vec![(1000, true), (4000, true)]);
        assert_eq!(s.core.stats.fast_retransmits, 0);
        s.on_ack(1200 * MS, &ack(12_000));
        assert_eq!(s.core.w.cwnd, 3000);
        assert_eq!(sent(&mut s), vec![(12_000, false), (13_000, false), (14_000, false)]);
        assert_eq!(s.core.stats.timeouts, 1);
    }

    /// The Loss episode above ends with cwnd moderated to 3000, above a 2000-byte `max_cwnd`:
    /// the bound holds after loss marking too (fuzzing finding, issue 25 part 6; the sender
    /// clamped cwnd only when marking started a recovery, so 3 segments went out).
    #[test]
    fn loss_exit_respects_max_cwnd() {
        let mut s = linux_sender(10, false);
        s.offer(0, u64::MAX);
        sent(&mut s);
        s.on_ack(100 * MS, &sack(0, &[(2000, 3000)]));
        s.on_ack(101 * MS, &sack(0, &[(2000, 4000)]));
        s.on_timeout(1000 * MS);
        s.on_ack(1100 * MS, &sack(1000, &[(2000, 4000)]));
        sent(&mut s);
        s.core.cfg.max_cwnd_bytes = 2000;
        s.on_ack(1200 * MS, &ack(12_000));
        assert_eq!(s.core.w.cwnd, 2000);
        assert_eq!(sent(&mut s), vec![(12_000, false), (13_000, false)]);
    }

    /// `rto_restart = "every-ack"` (ns-2.35 TCP-Linux `renew_timer`): segments 0..9 out at t = 0,
    /// initial RTO 1 s (no RTT sample yet). Each duplicate ACK (at 101..109 ms) restarts the timer:
    /// the last one at 109 ms gives 109 + 1000 ms. Without the option only the fast retransmit at
    /// 104 ms restarted it (`fast_retransmit_restarts_rto`): 1104 ms.
    #[test]
    fn every_ack_restarts_the_timer_on_duplicates() {
        for every in [false, true] {
            let s = one_loss_in_recovery(every);
            assert_eq!(s.core.rto_deadline, Some(if every { 1109 * MS } else { 1104 * MS }));
        }
    }
}
