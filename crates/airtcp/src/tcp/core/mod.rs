//! The sender's state ([`SenderCore`]: sequence space, scoreboard, timers, recovery episode, ECN)
//! with its send and retransmit primitives, the narrow view of it that a loss-recovery strategy
//! gets ([`RecoveryCtx`], `ctx.rs`), and the sender's settings and counters (`config`). It sits
//! below both [`crate::tcp::recovery`] and [`crate::tcp::sender`] (which drives the ACK path and
//! calls the recovery strategy), so that neither of those imports the other's file:
//! recovery -> core <- sender. A strategy never holds a `SenderCore`: the sender wraps it in a
//! `RecoveryCtx` for each hook, whose field is private to `ctx.rs`.

mod config;
mod ctx;

pub use self::config::{OutSegment, RtoUndoPolicy, RttSampling, SenderConfig, SenderStats};
pub use self::ctx::RecoveryCtx;
use crate::cc::{AckInfo, CongestionControl, Head, LossSignal, RateSample, Reaction, RecoverGuard, SendInfo, Window};
use crate::net::{AckHeader, SackBlock};
use crate::tcp::rate::RateSampler;
use crate::tcp::rto::RttEstimator;
use crate::tcp::scoreboard::{Scoreboard, SegMeta};
use crate::time::SimTime;

/// The sender's sequence space, in absolute byte offsets.
#[derive(Debug, Clone)]
pub struct SeqSpace {
    /// Oldest unacknowledged byte (SND.UNA, RFC 6675 HighACK).
    pub snd_una: u64,
    /// Next byte to send; below snd_max while going back after a timeout.
    pub snd_nxt: u64,
    /// One past the highest byte ever sent (RFC 6675 HighData + 1).
    pub snd_max: u64,
    /// The application has offered bytes [0, app_limit).
    pub app_limit: u64,
}

/// The state a loss-recovery strategy works on: duplicate ACKs, the recovery episode, what it
/// retransmitted, and the window it restores.
#[derive(Debug, Clone)]
pub struct RecoveryState {
    pub dupacks: u32,
    /// Bytes sent by limited transmit since the last new ACK (RFC 5681 §3.2 step 2: not part of
    /// the FlightSize that ssthresh is computed from).
    pub(crate) limited_sent: u64,
    pub in_recovery: bool,
    /// snd_max when recovery or the last timeout began (RFC 6582 "recover", exclusive end).
    pub recover: Option<u64>,
    /// `recover` was set by a timeout (not by a fast retransmit): see [`RecoverGuard`].
    pub(crate) recover_by_timeout: bool,
    /// snd_una before the latest cumulative ACK advance (RFC 6582 prev_highest_ack).
    pub(crate) prev_highest_ack: u64,
    /// How the policy reacted to the loss that started the current recovery.
    pub(crate) reaction: Reaction,
    /// cwnd restored when recovery ends (ssthresh, or the kept window).
    pub(crate) recovery_base: u64,
    /// One past the highest byte retransmitted in this recovery (RFC 6675 HighRxt).
    pub(crate) high_rxt: u64,
    /// cwnd just before the window policy reacted to the loss that started the current recovery
    /// (rate halving starts from it, see [`crate::tcp::recovery::linux`]).
    pub(crate) prior_cwnd: u64,
    /// With `rto_undo = "eifel"`: what the latest timeout changed, until the first ACK after it
    /// says whether it was spurious.
    pub(crate) rto_undo: Option<RtoUndo>,
}

/// The window before a retransmission timeout, kept so that the timeout can be undone if the
/// first acceptable ACK after it proves it spurious (RFC 3522 Eifel detection).
#[derive(Debug, Clone, Copy)]
pub(crate) struct RtoUndo {
    /// cwnd before the timeout (Linux `prior_cwnd`).
    pub(crate) prior_cwnd: u64,
    /// Linux `prior_ssthresh` = `tcp_current_ssthresh`: max(ssthresh, 3/4·cwnd).
    pub(crate) prior_ssthresh: u64,
    /// When the timeout's retransmission left (its TSval; Linux `retrans_stamp`).
    pub(crate) retransmitted_at: SimTime,
}

/// ECN state (RFC 3168 §6.1.2).
#[derive(Debug, Clone)]
pub(crate) struct EcnState {
    /// No ECN reaction until snd_una passes this (once per window, RFC 3168 §6.1.2).
    pub(crate) ecn_recover: Option<u64>,
    pub(crate) cwr_pending: bool,
    /// The last ACK received (new or duplicate) carried ECN-Echo: the congestion-warning state a
    /// timeout is judged by (TCP New Jersey, NJ+ Fig. 3: "if (Congestion Warning)").
    pub(crate) last_ack_ece: bool,
}

/// The sender's state: what the ACK path, the timers and the send primitives work on. Recovery
/// strategies see it only through [`RecoveryCtx`].
pub struct SenderCore {
    pub cfg: SenderConfig,
    pub w: Window,
    pub cc: Box<dyn CongestionControl>,
    pub rtt: RttEstimator,
    /// The sequence space: what was acknowledged, sent, and offered.
    pub seq: SeqSpace,
    /// Loss-recovery state: what the recovery strategies (`tcp::recovery`) read and change.
    pub rec: RecoveryState,
    /// ECN state (RFC 3168): the once-per-window reaction and the CWR flag.
    pub(crate) ecn: EcnState,
    pub(crate) dupthresh: u32,
    pub board: Scoreboard,
    /// Karn: the byte whose ACK ends the RTT measurement in progress, and when it was sent.
    pub(super) timing: Option<(u64, SimTime)>,
    /// Restart the timer on this ACK of new data (NewReno turns it off after the first partial ACK).
    pub(crate) restart_timer_on_ack: bool,
    /// Deadline of the retransmission timer.
    pub rto_deadline: Option<SimTime>,
    /// Loss verdicts of a loss-differentiating policy, (first byte of the segment retransmitted,
    /// answered as congestion), for the engine to compare with the real cause; drained by it.
    pub(crate) verdicts: Vec<(u64, bool)>,
    pub(crate) out: Vec<OutSegment>,
    /// The window-limited sends that end an ACK's processing are due and left to the engine,
    /// which pulls them one at a time ([`crate::tcp::Sender::next_segment`]) straight into their
    /// packets; only [`crate::tcp::Sender::on_ack_pulled`] sets it.
    pub(crate) pull_window: bool,
    pub stats: SenderStats,
    /// The window policy paces (`cc.pacing_rate()` was `Some` when the flow was built): each
    /// transmission is told to it and pushes `next_send_at` on. Fixed for the flow's life.
    pub(crate) paced: bool,
    /// Earliest time the next segment may leave (pacing; stays 0 for a flow that does not pace,
    /// so that [`SenderCore::pacing_allows`] always answers yes).
    pub(crate) next_send_at: SimTime,
    /// Pacing held back a segment that the window allowed: the sender wants to be woken at
    /// `next_send_at` (the engine's pacing timer). Always `None` for a flow that does not pace.
    pub pacing_deadline: Option<SimTime>,
    /// A send loop stopped for pacing since the last [`Sender::after_send`].
    pub(super) pace_blocked: bool,
    /// The delivery-rate sampler, for a window policy that reads rate samples
    /// ([`CongestionControl::reads_rate_sample`]); `None` for the others.
    pub(super) rate: Option<Box<RateSampler>>,
    /// `paced || rate.is_some()`, fixed for the flow's life: each transmission tests this one flag
    /// and only then tells the pacing clock and the rate sampler (out of line), so that the
    /// schemes that neither pace nor sample rates (all but BBR) pay one test per segment.
    pub(super) send_hooks: bool,
}

impl SenderCore {
    /// Bytes outstanding: FlightSize of RFC 5681.
    #[inline]
    pub(crate) fn flight(&self) -> u64 {
        self.seq.snd_max - self.seq.snd_una
    }

    /// Length of the segment starting at `seq`.
    #[inline]
    pub(crate) fn seg_len(&self, seq: u64) -> u64 {
        (self.cfg.mss as u64).min(self.seq.app_limit.max(self.seq.snd_max) - seq)
    }

    /// The scoreboard index of the segment holding byte `seq`, (seq − snd_una) / mss.
    #[inline]
    pub(super) fn seg_index(&self, seq: u64) -> usize {
        let (offset, mss) = (seq - self.seq.snd_una, self.cfg.mss as u64);
        // A new segment starts at snd_max, one past the board's last entry while the bytes
        // outstanding are whole segments: a multiplication proves the quotient, and the division
        // runs only otherwise (issue 42: a division per segment sent, ~10 cycles of latency).
        let n = self.board.len();
        if offset == n as u64 * mss {
            return n;
        }
        (offset / mss) as usize
    }

    /// Whether a fast retransmit may start (RFC 6582 §3.2 step 2: "checks the value of recover to
    /// see if the Cumulative Acknowledgment field covers more than recover"; ns-2.35 `bugfix_`:
    /// `highest_ack_ > recover_`), or, with `recover_ack_heuristic`, whether the ACK heuristic says
    /// the duplicate ACKs are from a new loss (cwnd > SMSS and the last advance of the cumulative
    /// ACK was at most 4·SMSS). `recover` is set at every fast retransmit and timeout, so the
    /// duplicate ACKs that go-back-N resends of held data provoke start no second reduction.
    /// A window policy whose guard is [`RecoverGuard::TimeoutOnly`] (ns-2.35 Vegas) is held back
    /// only by a `recover` that a timeout set, and so is a flow with `recover_guard_timeout_only`
    /// (ns-2.35 Sack1).
    pub(crate) fn recover_guard_passes(&self) -> bool {
        match self.rec.recover {
            None => true,
            Some(r) => {
                self.seq.snd_una > r
                    || (!self.rec.recover_by_timeout
                        && (self.cc.recover_guard() == RecoverGuard::TimeoutOnly || self.cfg.recover_guard_timeout_only))
                    || (self.cfg.recover_ack_heuristic
                        && self.w.cwnd > self.w.mss
                        && self.seq.snd_una - self.rec.prev_highest_ack <= 4 * self.w.mss)
            }
        }
    }

    /// Linux's RTT sample for a cumulative ACK that acknowledges the first `advance` segments:
    /// none if any of them was retransmitted, else from the send time of the oldest one that was
    /// not SACKed before (`tcp_clean_rtx_queue`'s `first_ackt`).
    pub(super) fn every_ack_sample(&self, now: SimTime, advance: usize) -> Option<u64> {
        let mut first_sent = None;
        for m in self.board.iter().take(advance) {
            if m.retransmitted {
                return None;
            }
            if first_sent.is_none() && !m.sacked {
                first_sent = Some(m.sent_at);
            }
        }
        first_sent.map(|t| now - t)
    }

    /// Counts RTT sample `r` (just fed to the estimator) in the flow's statistics.
    pub(super) fn count_rtt_sample(&mut self, r: u64) {
        self.stats.rtt_samples += 1;
        self.stats.rtt_sum_ns += r as u128;
        self.stats.rto_sum_ns += self.rtt.base_rto() as u128;
        self.stats.rtt_hist.record(r);
    }

    /// The oldest unacknowledged segment (there must be one).
    pub(crate) fn head(&self) -> Head {
        let m = self.board.get(0);
        Head { sent_at: m.sent_at, retransmitted: m.retransmitted }
    }

    /// What the window policy is told about an ACK (`h`'s own fields are read through it).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(super) fn ack_info<'h>(
        &self,
        now: SimTime,
        h: &'h AckHeader,
        acked_bytes: u64,
        rtt_sample_ns: Option<u64>,
        no_growth: bool,
        recovering: bool,
        dupacks: u32,
        newest_sent_at: Option<SimTime>,
    ) -> AckInfo<'h> {
        AckInfo {
            now,
            acked_bytes,
            rtt_sample_ns,
            srtt_ns: self.rtt.srtt().unwrap_or(0),
            min_rtt_ns: self.rtt.min_rtt.unwrap_or(0),
            flight_bytes: self.flight(),
            no_growth,
            recovering,
            dupacks,
            newest_sent_at,
            in_flight_before_bytes: 0,
            snd_nxt: self.seq.snd_nxt,
            rate: None,
            header: h,
        }
    }

    /// The delivery-rate sample of ACK `h` (advancing the sampler), when the policy reads them.
    /// Taken right before the policy hears of the ACK, after what the ACK made the sender resend.
    #[inline]
    pub(super) fn rate_sample(&mut self, now: SimTime, h: &AckHeader, sack: &[SackBlock]) -> Option<RateSample> {
        let min_rtt = self.rtt.min_rtt.unwrap_or(0);
        self.rate.as_deref_mut().map(|r| r.on_ack(now, h.ack(), sack, min_rtt))
    }

    /// After the policy has heard of an ACK: hands the sampler its application-limited mark.
    #[inline]
    pub(super) fn after_rate_sample(&mut self) {
        if let Some(r) = self.rate.as_deref_mut() {
            if let Some(mark) = self.cc.take_app_limited() {
                r.set_app_limited(mark);
            }
        }
    }

    /// Hands a loss signal to the window policy and logs its verdict, if it gives one.
    pub(super) fn signal(&mut self, sig: &LossSignal) -> Reaction {
        if let Some(congestion) = self.cc.loss_verdict(sig) {
            self.verdicts.push((self.seq.snd_una, congestion));
        }
        self.cc.on_congestion(&mut self.w, sig)
    }

    /// Records the start of a recovery episode.
    pub(crate) fn begin_recovery(&mut self, reaction: Reaction) {
        self.rec.in_recovery = true;
        self.rec.recover = Some(self.seq.snd_max);
        self.rec.recover_by_timeout = false;
        self.rec.reaction = reaction;
        self.rec.recovery_base = match reaction {
            Reaction::Reduce => self.w.ssthresh,
            Reaction::KeepWindow => self.w.cwnd,
        };
        self.rec.high_rxt = self.seq.snd_una;
    }

    /// Whether pacing lets a segment leave at `now` (always, for a flow that does not pace). Every
    /// loop that sends what the window allows asks this before each segment and stops on a no;
    /// the pacing timer resumes it at `next_send_at`. Single retransmissions that a loss event
    /// forces (the fast retransmit itself, NewReno's partial-ACK retransmission, a corruption
    /// report) are not held, but they use up pacing time like any other segment.
    #[inline]
    pub(crate) fn pacing_allows(&mut self, now: SimTime) -> bool {
        if now >= self.next_send_at {
            true
        } else {
            self.pace_blocked = true;
            false
        }
    }

    /// A transmission of a flow that paces or samples delivery rates: told to the pacing clock and
    /// the rate sampler (before the segment's scoreboard entry and snd_max change).
    #[cold]
    #[inline(never)]
    fn on_send_hooks(&mut self, now: SimTime, seq: u64, len: u64, retransmission: bool) {
        if self.paced {
            self.pace(now, seq, len, retransmission);
        }
        if self.rate.is_some() {
            let flight = self.flight();
            if let Some(r) = self.rate.as_deref_mut() {
                r.on_send(now, seq, len, retransmission, flight);
            }
        }
    }

    /// A paced flow's transmission of `len` bytes at `now`: told to the policy, and the next slot
    /// is `len`/rate later (integer ns, rounded down; from `now` if the flow was idle).
    #[inline]
    fn pace(&mut self, now: SimTime, seq: u64, len: u64, retransmission: bool) {
        self.cc.on_send(&SendInfo { now, seq, len, retransmission, flight_bytes: self.flight() });
        if let Some(rate) = self.cc.pacing_rate().filter(|&r| r > 0) {
            let gap = (len as u128 * crate::time::NS_PER_S as u128 / rate as u128).min(u64::MAX as u128) as u64;
            self.next_send_at = self.next_send_at.max(now).saturating_add(gap);
        }
    }

    /// Sends the segment starting at `seq`: into `out`, for the engine to turn into a packet.
    #[inline]
    pub(super) fn emit(&mut self, now: SimTime, seq: u64, retransmission: bool) {
        let seg = self.emit_seg(now, seq, retransmission);
        self.out.push(seg);
    }

    /// Sends the segment starting at `seq` and returns it (`emit` without the buffer): the
    /// scoreboard, snd_max, the counters, Karn's timing and the timer are updated as for any
    /// transmission.
    #[inline(always)]
    pub(super) fn emit_seg(&mut self, now: SimTime, seq: u64, retransmission: bool) -> OutSegment {
        let len = self.seg_len(seq);
        debug_assert!(len > 0 && seq < self.seq.app_limit.max(self.seq.snd_max));
        if self.send_hooks {
            self.on_send_hooks(now, seq, len, retransmission);
        }
        let i = self.seg_index(seq);
        if i == self.board.len() {
            // The next new segment (what `get_mut` would make: not SACKed).
            self.board.push(SegMeta { sacked: false, retransmitted: retransmission, sent_at: now });
        } else {
            let m = self.board.get_mut(i);
            m.retransmitted |= retransmission;
            m.sent_at = now;
        }
        let cwr = !retransmission && std::mem::take(&mut self.ecn.cwr_pending);
        let seg = OutSegment {
            seq,
            len: len as u32,
            retransmission,
            ect: self.cfg.ecn && (!retransmission || self.cfg.ect_on_retransmissions),
            cwr,
            ts_val: self.cfg.timestamps.then_some(now),
        };
        self.stats.segments_sent += 1;
        if retransmission {
            self.stats.retransmissions += 1;
            // Karn (RFC 6298 §3): the timed segment was resent, so its ACK is ambiguous. Resending
            // another segment leaves the measurement alone (BSD and ns-2 time one new segment and
            // keep timing it across other retransmissions).
            if self.timing.is_some_and(|(end, _)| seq < end && end <= seq + len) {
                self.timing = None;
            }
        } else if self.timing.is_none() && !self.cfg.timestamps && self.cfg.rtt_sampling == RttSampling::TimedSegment {
            self.timing = Some((seq + len, now));
        }
        if seq + len > self.seq.snd_max {
            self.seq.snd_max = seq + len;
        }
        // RFC 6298 (5.1): start the timer when data is sent and it is not running.
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(now + self.rtt.rto());
        }
        seg
    }

    /// The timers at a fast retransmit: ns-2.35's `reset_rtx_timer(1, backoff)` restarts the
    /// retransmission timer (`fast_retransmit_restarts_rto`; backed off first with
    /// `fast_retransmit_rto_backoff`, Vegas's `reset_rtx_timer(1)`) and stops the RTT timing
    /// (`rtt_active_ = 0`), as 4.4BSD's fast retransmit does (`t_rtttime = 0`).
    pub(super) fn fast_retransmit_timers(&mut self, now: SimTime) {
        if self.cfg.fast_retransmit_restarts_rto {
            if self.cfg.fast_retransmit_rto_backoff {
                self.rtt.on_timeout();
            }
            self.rto_deadline = Some(now + self.rtt.rto());
        }
        self.timing = None;
    }

    /// Retransmits the segment starting at `seq`.
    pub(crate) fn retransmit(&mut self, now: SimTime, seq: u64) {
        if seq < self.seq.snd_max {
            self.emit(now, seq, true);
        }
    }

    /// Sends the next new segment at snd_max.
    pub(crate) fn send_new(&mut self, now: SimTime) {
        let seq = self.seq.snd_max;
        self.emit(now, seq, false);
        self.seq.snd_nxt = self.seq.snd_max;
    }

    /// RFC 3042 §2: on the first or second duplicate ACK, send one segment of new data if the
    /// receiver's window allows it and the flight stays within cwnd + 2·SMSS; cwnd is not
    /// changed. (ns-2's `send_one` for `singledup_`: one packet per such duplicate.)
    pub(super) fn limited_transmit(&mut self, now: SimTime) {
        if self.seq.snd_max >= self.seq.app_limit || self.seq.snd_nxt < self.seq.snd_max {
            return;
        }
        let len = self.seg_len(self.seq.snd_max);
        let end = self.seq.snd_max + len - self.seq.snd_una;
        if end <= self.cfg.rwnd_bytes && end <= self.w.cwnd + 2 * self.w.mss && self.pacing_allows(now) {
            self.send_new(now);
            self.rec.limited_sent += len;
        }
    }

    /// Sends from snd_nxt while the window min(cwnd, rwnd) allows: new data, or after a timeout
    /// the go-back-N retransmissions (skipping SACKed segments).
    pub(crate) fn send_window_limited(&mut self, now: SimTime) {
        while let Some(seg) = self.window_step(now) {
            self.out.push(seg);
        }
    }

    /// One step of [`SenderCore::send_window_limited`]: the next segment that min(cwnd, rwnd)
    /// allows from snd_nxt (skipping SACKed segments), sent and returned, or `None` where the loop
    /// stops. Sending changes neither cwnd nor rwnd, so the window read at each step is the one
    /// the loop started with; the engine pulls the segments of an ACK one by one with it
    /// ([`crate::tcp::Sender::next_segment`]), each written straight into its packet. Always
    /// inlined, with [`SenderCore::emit_seg`]: into the engine's send loop the compiler's own
    /// choice flipped with unrelated changes elsewhere in the crate (issue 42: ±3% of a run's
    /// instructions).
    #[inline(always)]
    pub(crate) fn window_step(&mut self, now: SimTime) -> Option<OutSegment> {
        let win = self.w.cwnd.min(self.cfg.rwnd_bytes);
        while self.seq.snd_nxt < self.seq.snd_max && self.board.get(self.seg_index(self.seq.snd_nxt)).sacked {
            self.seq.snd_nxt += self.seg_len(self.seq.snd_nxt);
        }
        if self.seq.snd_nxt >= self.seq.app_limit.max(self.seq.snd_max) {
            return None;
        }
        let len = self.seg_len(self.seq.snd_nxt);
        if self.seq.snd_nxt + len - self.seq.snd_una > win || !self.pacing_allows(now) {
            return None;
        }
        let seq = self.seq.snd_nxt;
        let seg = self.emit_seg(now, seq, seq < self.seq.snd_max);
        self.seq.snd_nxt = seq + len;
        Some(seg)
    }

    /// RFC 6675 IsLost for every outstanding segment, computed in one backward pass: a segment is
    /// lost when at least DupThresh SACKed segments lie above it (with MSS-aligned segments this is
    /// equivalent to the byte rule (DupThresh − 1)·SMSS + 1).
    pub(crate) fn lost_flags(&self) -> impl Iterator<Item = (usize, bool, bool)> + '_ {
        let mut sacked_above = 0u32;
        let n = self.board.len();
        self.board.iter().rev().enumerate().map(move |(k, m)| {
            let i = n - 1 - k;
            let lost = !m.sacked && sacked_above >= self.dupthresh;
            if m.sacked {
                sacked_above += 1;
            }
            (i, m.sacked, lost)
        })
    }

    /// RFC 6675 §4 SetPipe: octets not SACKed and not lost, plus octets retransmitted in this
    /// recovery (below HighRxt) that are not SACKed.
    pub fn pipe(&self) -> u64 {
        let mut pipe = 0;
        for (i, sacked, lost) in self.lost_flags() {
            if sacked {
                continue;
            }
            let seq = self.seq.snd_una + i as u64 * self.cfg.mss as u64;
            let len = self.seg_len(seq);
            if !lost {
                pipe += len;
            }
            if seq + len <= self.rec.high_rxt {
                pipe += len;
            }
        }
        pipe
    }

    /// RFC 6675 §4 NextSeg(): (seq, is_retransmission), or None when nothing may be sent.
    pub fn next_seg(&self) -> Option<(u64, bool)> {
        let mss = self.cfg.mss as u64;
        let seq_of = |i: usize| self.seq.snd_una + i as u64 * mss;
        // Rule (1): lowest unSACKed segment above HighRxt that is lost.
        let mut rule1 = None;
        for (i, _, lost) in self.lost_flags() {
            if lost && seq_of(i) >= self.rec.high_rxt {
                rule1 = Some(seq_of(i));
            }
        }
        if let Some(s) = rule1 {
            return Some((s, true));
        }
        // Rule (2): new data, within the receiver's window.
        if self.seq.snd_max < self.seq.app_limit {
            let len = self.seg_len(self.seq.snd_max);
            if self.seq.snd_max + len - self.seq.snd_una <= self.cfg.rwnd_bytes {
                return Some((self.seq.snd_max, false));
            }
        }
        // Rule (3): lowest unSACKed segment above HighRxt below the highest SACKed byte.
        for (i, m) in self.board.iter().enumerate() {
            let s = seq_of(i);
            if s >= self.board.high_sacked {
                break;
            }
            if !m.sacked && s >= self.rec.high_rxt {
                return Some((s, true));
            }
        }
        None
    }
}
