//! [`RecoveryCtx`]: what a loss-recovery strategy may read and change of the sender.
//!
//! ns-3 splits a TCP socket's loss handling from its window policy (`TcpRecoveryOps` beside
//! `TcpCongestionOps`) and hands each recovery hook only the socket state (`TcpSocketState`: the
//! window, ssthresh, the sequence numbers), never the socket with its RTT estimator and timers.
//! This is the same wall for airtcp's strategies: each hook gets a `RecoveryCtx` built by the
//! sender around its state, and the context's field is private to this module, so a strategy
//! reaches only the parts listed below; it cannot touch the RTT estimator, the retransmission
//! timer's deadline, the window policy, the ECN state, the RTT timing (Karn), the counters or the
//! pacing clock except through the send hook, which keeps them consistent.
//!
//! The parts, and why each strategy needs them:
//! - **The scoreboard and the sequence space, to read** ([`RecoveryCtx::board`],
//!   [`RecoveryCtx::seq`]): every SACK-based strategy (sack, fack, prr, linux) chooses what to send
//!   from which segments are SACKed, lost or retransmitted; all of them compare snd_una with the
//!   recovery point. Changes are two named moves of snd_nxt ([`RecoveryCtx::go_back_n`]: Tahoe's
//!   slow-start restart from snd_una; [`RecoveryCtx::stop_go_back_n`]: a SACK recovery sends from
//!   HighData, ending a timeout's go-back-N) and Linux's exit, which forgets the SACK marks
//!   ([`RecoveryCtx::forget_sacks`], see `linux.rs`).
//! - **The recovery episode** ([`RecoveryCtx::rec`]): the recovery point, the window to restore,
//!   how the policy reacted, cwnd before it did (rate halving, PRR's RecoverFS), HighRxt. A
//!   strategy sets only the episode's start ([`RecoveryCtx::begin_recovery`]), HighRxt
//!   ([`RecoveryCtx::set_high_rxt`], RFC 6675 §4 NextSeg) and Tahoe's recovery point
//!   ([`RecoveryCtx::set_recover_to_high_data`]); the duplicate-ACK count, limited transmit and the Eifel undo
//!   record belong to the sender's ACK path.
//! - **The window it may set** ([`RecoveryCtx::w`], [`RecoveryCtx::set_cwnd`]): fast recovery
//!   inflates and deflates cwnd (Reno, NewReno), sets it to the restored window (SACK, FACK, PRR,
//!   Linux). ssthresh is the window policy's ([`crate::cc`]); a strategy reads it (Linux's exit
//!   moderation) but does not set it.
//! - **The settings, to read** ([`RecoveryCtx::cfg`], [`RecoveryCtx::dupthresh`]): the MSS, the
//!   receiver's window (NextSeg rule 2), `max_cwnd_bytes` (PRR's send quota),
//!   `rto_reset_every_partial_ack` (NewReno).
//! - **The minimum RTT, to read** ([`RecoveryCtx::min_rtt`]): RACK's test of a retransmission's
//!   delivery (PRR with RACK) needs it; the estimator itself stays out of reach.
//! - **One timer flag it owns** ([`RecoveryCtx::set_restart_timer_on_ack`]): NewReno's "Impatient"
//!   variant (RFC 6582 §4) stops restarting the retransmission timer after the first partial ACK.
//! - **The send hook** ([`RecoveryCtx::retransmit`], [`RecoveryCtx::send_new`],
//!   [`RecoveryCtx::send_window_limited`], [`RecoveryCtx::pacing_allows`]): every transmission goes
//!   through the sender's one `emit`, which marks the scoreboard, advances snd_max, tells the
//!   pacing clock and the rate sampler, keeps Karn's rule, counts, and starts the timer (RFC 6298
//!   5.1) — what the strategy must not do by hand.
//!
//! The context is one pointer wide and its methods are inlined, so it costs the ACK path nothing
//! over handing the strategy the whole `SenderCore` (BENCHMARKS.md).

use super::{RecoveryState, SenderConfig, SenderCore, SeqSpace};
use crate::cc::{Reaction, Window};
use crate::tcp::scoreboard::Scoreboard;
use crate::time::SimTime;

/// What a loss-recovery strategy may read and change of the sender (see the module doc); built
/// by the sender for each hook. Only the engine constructs one.
pub struct RecoveryCtx<'a> {
    core: &'a mut SenderCore,
}

impl<'a> RecoveryCtx<'a> {
    /// Wraps the sender's state for one hook.
    #[inline(always)]
    pub(crate) fn new(core: &'a mut SenderCore) -> Self {
        Self { core }
    }

    /// The sequence space (snd_una, snd_nxt, snd_max, the application's limit).
    #[inline(always)]
    pub(crate) fn seq(&self) -> &SeqSpace {
        &self.core.seq
    }

    /// The SACK scoreboard: one entry per outstanding segment.
    #[inline(always)]
    pub(crate) fn board(&self) -> &Scoreboard {
        &self.core.board
    }

    /// The recovery episode.
    #[inline(always)]
    pub(crate) fn rec(&self) -> &RecoveryState {
        &self.core.rec
    }

    /// The window (cwnd, ssthresh, MSS).
    #[inline(always)]
    pub(crate) fn w(&self) -> &Window {
        &self.core.w
    }

    /// The sender's settings.
    #[inline(always)]
    pub(crate) fn cfg(&self) -> &SenderConfig {
        &self.core.cfg
    }

    /// The duplicate-ACK threshold (DupThresh).
    #[inline(always)]
    pub(crate) fn dupthresh(&self) -> u32 {
        self.core.dupthresh
    }

    /// The minimum RTT measured so far (0 before the first sample).
    #[inline(always)]
    pub(crate) fn min_rtt(&self) -> u64 {
        self.core.rtt.min_rtt.unwrap_or(0)
    }

    /// Bytes outstanding (FlightSize).
    #[inline(always)]
    pub(crate) fn flight(&self) -> u64 {
        self.core.flight()
    }

    /// Length of the segment starting at `seq`.
    #[inline(always)]
    pub(crate) fn seg_len(&self, seq: u64) -> u64 {
        self.core.seg_len(seq)
    }

    /// Whether a fast retransmit may start ([`SenderCore::recover_guard_passes`]).
    #[inline(always)]
    pub(crate) fn recover_guard_passes(&self) -> bool {
        self.core.recover_guard_passes()
    }

    /// RFC 6675 IsLost for every outstanding segment ([`SenderCore::lost_flags`]).
    #[inline(always)]
    pub(crate) fn lost_flags(&self) -> impl Iterator<Item = (usize, bool, bool)> + '_ {
        self.core.lost_flags()
    }

    /// RFC 6675 SetPipe ([`SenderCore::pipe`]).
    #[inline(always)]
    pub(crate) fn pipe(&self) -> u64 {
        self.core.pipe()
    }

    /// RFC 6675 NextSeg ([`SenderCore::next_seg`]).
    #[inline(always)]
    pub(crate) fn next_seg(&self) -> Option<(u64, bool)> {
        self.core.next_seg()
    }

    /// Whether a new segment at snd_max may go: the application has data and the receiver's window
    /// has room for it (RFC 6675 NextSeg rule 2's test, used by FACK and Linux as well).
    #[inline]
    pub(crate) fn new_data_fits(&self) -> bool {
        let q = &self.core.seq;
        q.snd_max < q.app_limit && q.snd_max + self.core.seg_len(q.snd_max) - q.snd_una <= self.core.cfg.rwnd_bytes
    }

    /// Sets cwnd (the window the strategy may set).
    #[inline(always)]
    pub(crate) fn set_cwnd(&mut self, cwnd: u64) {
        self.core.w.cwnd = cwnd;
    }

    /// Records the start of a recovery episode ([`SenderCore::begin_recovery`]).
    #[inline]
    pub(crate) fn begin_recovery(&mut self, reaction: Reaction) {
        self.core.begin_recovery(reaction);
    }

    /// Sets HighRxt, one past the highest byte retransmitted in this recovery.
    #[inline(always)]
    pub(crate) fn set_high_rxt(&mut self, high_rxt: u64) {
        self.core.rec.high_rxt = high_rxt;
    }

    /// Sets the recovery point (RFC 6582 "recover") to HighData without starting an episode
    /// (Tahoe, which has no fast recovery).
    #[inline]
    pub(crate) fn set_recover_to_high_data(&mut self) {
        self.core.rec.recover = Some(self.core.seq.snd_max);
    }

    /// Goes back to snd_una: the window-limited sends resend from there (Tahoe's restart).
    #[inline]
    pub(crate) fn go_back_n(&mut self) {
        self.core.seq.snd_nxt = self.core.seq.snd_una;
    }

    /// Sends from HighData on: ends the go-back-N resends a timeout started (a SACK recovery
    /// chooses its retransmissions itself).
    #[inline]
    pub(crate) fn stop_go_back_n(&mut self) {
        self.core.seq.snd_nxt = self.core.seq.snd_max;
    }

    /// Forgets every SACK mark and the highest SACKed byte (Linux's exit from recovery).
    #[inline]
    pub(crate) fn forget_sacks(&mut self) {
        self.core.board.clear_sacked();
    }

    /// Whether the next ACK of new data restarts the retransmission timer (NewReno turns it off
    /// after the first partial ACK; the sender turns it back on after each ACK).
    #[inline(always)]
    pub(crate) fn set_restart_timer_on_ack(&mut self, restart: bool) {
        self.core.restart_timer_on_ack = restart;
    }

    /// Send hook: whether pacing lets a segment leave now ([`SenderCore::pacing_allows`]).
    #[inline(always)]
    pub(crate) fn pacing_allows(&mut self, now: SimTime) -> bool {
        self.core.pacing_allows(now)
    }

    /// Send hook: retransmits the segment starting at `seq`.
    #[inline(always)]
    pub(crate) fn retransmit(&mut self, now: SimTime, seq: u64) {
        self.core.retransmit(now, seq);
    }

    /// Send hook: sends the next new segment at snd_max.
    #[inline(always)]
    pub(crate) fn send_new(&mut self, now: SimTime) {
        self.core.send_new(now);
    }

    /// Send hook: sends from snd_nxt while min(cwnd, rwnd) allows.
    #[inline(always)]
    pub(crate) fn send_window_limited(&mut self, now: SimTime) {
        self.core.send_window_limited(now);
    }
}
