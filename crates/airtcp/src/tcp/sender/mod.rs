//! The TCP sender: sequence space, retransmission timer (RFC 6298), RTT sampling (Karn or RFC
//! 7323 timestamps), duplicate-ACK counting, SACK scoreboard and ECN (RFC 3168). The window policy
//! ([`crate::cc`]) and the loss-recovery strategy ([`crate::tcp::recovery`]) are plugged in.
//!
//! There is no connection handshake: the flow starts in ESTABLISHED at its start time with the
//! options of its configuration (as ns-2's one-way TCP agents do). Sequence numbers are absolute
//! byte offsets starting at 0, and segments are cut at multiples of the MSS.
//!
//! The settings, the segments handed to the engine, the counters, and the sender's state with its
//! send and retransmit primitives live one level down, in `crate::tcp::core`, with the narrow
//! context a recovery strategy gets (`RecoveryCtx`; the strategies so never import this file);
//! this file is [`Sender`]: the ACK path, the timers and the hooks that call the window policy
//! and the recovery strategy (wrapping its state in a `RecoveryCtx` for each call).

#[cfg(test)]
mod differential;
#[cfg(test)]
pub(crate) mod tests;

pub(crate) use crate::tcp::core::{EcnState, RecoveryState, RtoUndo, SeqSpace};
pub use crate::tcp::core::{OutSegment, RtoUndoPolicy, RttSampling, SenderConfig, SenderCore, SenderStats};

use crate::cc::{CongestionControl, DupAckCount, LossKind, LossSignal, Reaction, Window};
use crate::net::{AckHeader, SackBlock, TcpHeader};
use crate::tcp::rate::RateSampler;
use crate::tcp::recovery::{LossRecovery, RecoveryCtx};
use crate::tcp::rto::RttEstimator;
use crate::tcp::scoreboard::Scoreboard;
use crate::time::SimTime;

/// A sender: the core plus its recovery strategy.
pub struct Sender {
    /// The state the recovery strategies act on: crate-private; readers outside the engine get
    /// [`Sender::view`].
    pub(crate) core: SenderCore,
    pub(crate) recovery: Box<dyn LossRecovery>,
    /// `recovery.marks_losses()`, asked once.
    marks_losses: bool,
    /// `cc.reads_send_times()`, asked once: only then are the head's and the newest acknowledged
    /// segment's send times looked up on each ACK (they cost every other scheme ~2% per event).
    cc_reads_send_times: bool,
    /// `cc.reads_in_flight()`, asked once: only then is the recovery's in-flight count taken
    /// before each ACK ([`crate::cc::AckInfo::in_flight_before_bytes`]).
    cc_reads_in_flight: bool,
    /// `marks_losses || cc_reads_send_times || cc_reads_in_flight || core.paced`, or a rate
    /// sampler (`core.rate`, for a policy that reads rate samples): which of the
    /// two copies of the ACK path runs (see [`Sender::on_ack`]).
    hooks: bool,
    /// The flow may take the common-case ACK path ([`Sender::fast_ack`]): no hooks, and none of
    /// SACK, timestamps, ECN or every-ACK RTT sampling, fixed for the flow's life. Each ACK then
    /// checks the few per-ACK conditions of that path.
    fast: bool,
    /// `cc.grows_as_reno()`, asked once: [`Sender::fast_ack`] then grows the window as RFC 5681
    /// does without calling the policy.
    cc_grows_as_reno: bool,
    /// `fast` and `cc.counts_every_dup_ack()`: a duplicate ACK takes [`Sender::fast_dup_ack`],
    /// which does not call the policy's duplicate-ACK hooks.
    fast_dup_acks: bool,
    /// `recovery.sends_window_limited()`, asked once: the sends that end an ACK in a recovery are
    /// then the window-limited sends, pulled by the engine as outside one (see
    /// [`Sender::on_ack_pulled`]), instead of a call of the strategy's `send`.
    recovery_window_limited: bool,
}

/// The flow options under which [`Sender::fast_ack`] may take an ACK (with no hooks besides):
/// none of SACK, timestamps or ECN, and Karn's timed-segment RTT sampling.
fn fast_path_options(cfg: &SenderConfig) -> bool {
    !cfg.sack && !cfg.timestamps && !cfg.ecn && cfg.rtt_sampling == RttSampling::TimedSegment
}

impl Sender {
    /// A read-only view of the sender's state (sequence space, window, timers, counters) for
    /// tools outside the engine (tests, the fuzz targets); only the engine changes it.
    #[inline]
    pub fn view(&self) -> &SenderCore {
        &self.core
    }

    /// Hands over the segments the sender emitted since the last call (the engine turns them into
    /// packets), oldest first.
    pub fn drain_segments(&mut self) -> std::vec::Drain<'_, OutSegment> {
        self.core.out.drain(..)
    }

    /// Hands over the window policy's loss verdicts since the last call: (segment, congestion?).
    pub fn drain_verdicts(&mut self) -> std::vec::Drain<'_, (u64, bool)> {
        self.core.verdicts.drain(..)
    }

    /// Whether loss verdicts wait for [`Sender::drain_verdicts`].
    #[inline]
    pub(crate) fn has_verdicts(&self) -> bool {
        !self.core.verdicts.is_empty()
    }

    /// Whether segments were emitted since the last [`Sender::take_segments`].
    #[inline]
    pub(crate) fn has_segments(&self) -> bool {
        !self.core.out.is_empty()
    }

    /// Takes the segments emitted since the last call as a whole buffer; give the emptied buffer
    /// back with [`Sender::recycle_segments`], so that steady state allocates nothing.
    #[inline]
    pub(crate) fn take_segments(&mut self) -> Vec<OutSegment> {
        std::mem::take(&mut self.core.out)
    }

    /// Returns a buffer from [`Sender::take_segments`] (emptied) for the next segments.
    #[inline]
    pub(crate) fn recycle_segments(&mut self, mut buf: Vec<OutSegment>) {
        buf.clear();
        self.core.out = buf;
    }

    /// The measurement window starts (the end of the warm-up): the RTT percentiles count the
    /// samples from here on.
    pub(crate) fn start_measurement(&mut self) {
        self.core.stats.rtt_hist.clear();
    }

    pub fn new(cfg: SenderConfig, mut cc: Box<dyn CongestionControl>, recovery: Box<dyn LossRecovery>) -> Self {
        let mut w = Window { cwnd: cfg.initial_cwnd_bytes, ssthresh: cfg.initial_ssthresh_bytes, mss: cfg.mss as u64 };
        cc.on_start(&mut w, cfg.rwnd_bytes);
        let rtt = RttEstimator::with_formula(cfg.rto_formula, cfg.initial_rto_ns, cfg.min_rto_ns, cfg.max_rto_ns, cfg.granularity_ns);
        let dupthresh = cfg.dupthresh;
        let cc_reads_send_times = cc.reads_send_times();
        let paced = cc.pacing_rate().is_some();
        let cc_reads_in_flight = cc.reads_in_flight();
        let rate = cc.reads_rate_sample().then(|| Box::new(RateSampler::new(cfg.mss as u64)));
        let marks_losses = recovery.marks_losses();
        let hooks = marks_losses || cc_reads_send_times || cc_reads_in_flight || paced || rate.is_some();
        let fast = !hooks && fast_path_options(&cfg);
        let cc_grows_as_reno = cc.grows_as_reno();
        let fast_dup_acks = fast && cc.counts_every_dup_ack();
        let recovery_window_limited = recovery.sends_window_limited();
        let mut s = Sender {
            core: SenderCore {
                cfg,
                w,
                cc,
                rtt,
                seq: SeqSpace { snd_una: 0, snd_nxt: 0, snd_max: 0, app_limit: 0 },
                rec: RecoveryState {
                    dupacks: 0,
                    limited_sent: 0,
                    in_recovery: false,
                    recover: None,
                    recover_by_timeout: false,
                    prev_highest_ack: 0,
                    reaction: Reaction::Reduce,
                    recovery_base: 0,
                    high_rxt: 0,
                    prior_cwnd: 0,
                    rto_undo: None,
                },
                ecn: EcnState { ecn_recover: None, cwr_pending: false, last_ack_ece: false },
                dupthresh,
                board: Scoreboard::default(),
                timing: None,
                restart_timer_on_ack: true,
                rto_deadline: None,
                verdicts: Vec::new(),
                out: Vec::with_capacity(16),
                pull_window: false,
                stats: SenderStats::default(),
                paced,
                next_send_at: 0,
                pacing_deadline: None,
                pace_blocked: false,
                send_hooks: paced || rate.is_some(),
                rate,
            },
            marks_losses,
            cc_reads_send_times,
            cc_reads_in_flight,
            hooks,
            fast,
            cc_grows_as_reno,
            fast_dup_acks,
            recovery_window_limited,
            recovery,
        };
        // `max_cwnd_bytes` bounds the first window too: an initial window (or one a policy sets in
        // `on_start`) above it used to go out whole, the bound applying from the first ACK on.
        s.clamp();
        s
    }

    /// The application offers data up to byte `limit` (u64::MAX for an infinite source).
    pub fn offer(&mut self, now: SimTime, limit: u64) {
        self.core.seq.app_limit = limit;
        self.send(now);
        self.after_send();
    }

    /// The pacing timer fired (`pacing_deadline` reached): send what the window allows.
    pub fn on_pacing_timer(&mut self, now: SimTime) {
        self.core.pacing_deadline = None;
        self.send(now);
        self.after_send();
    }

    /// Sends what the window allows: the strategy's own `send` during a recovery (always, for a
    /// strategy that marks losses), else min(cwnd, rwnd) from snd_nxt, as every strategy's
    /// [`LossRecovery::send`] does outside a recovery.
    #[inline]
    fn send(&mut self, now: SimTime) {
        if self.marks_losses || self.core.rec.in_recovery {
            self.recovery.send(RecoveryCtx::new(&mut self.core), now);
        } else {
            self.core.send_window_limited(now);
        }
    }

    /// After a send opportunity of a paced flow: ask for the pacing timer if pacing held a
    /// segment back.
    #[inline]
    fn after_send(&mut self) {
        let s = &mut self.core;
        if s.paced {
            s.pacing_deadline = std::mem::take(&mut s.pace_blocked).then_some(s.next_send_at);
        }
    }

    /// The application stops offering new data: what was already sent is still made reliable.
    pub fn stop(&mut self) {
        self.core.seq.app_limit = self.core.seq.snd_max;
    }

    fn clamp(&mut self) {
        let max = self.core.cfg.max_cwnd_bytes;
        if self.core.w.cwnd > max {
            self.core.w.cwnd = max;
        }
        self.core.w.cwnd = self.core.w.cwnd.max(1);
    }

    /// Processes an ACK.
    ///
    /// The ACK path is compiled twice: with `HOOKS = false` for the flows whose window policy
    /// reads neither send times nor the in-flight count, does not pace, and whose recovery
    /// strategy marks no losses (every combination but Vegas, BBR, TCP-Linux recovery and
    /// Westwood+'s `linux-ns2` growth), so that their ACKs do not test those per-flow options
    /// (~8 instructions per ACK; the choice is one branch).
    pub fn on_ack(&mut self, now: SimTime, h: &TcpHeader) {
        debug_assert!(!self.core.pull_window, "the previous ACK's segments were not all pulled");
        // (An `n_sack` past the array, which no receiver writes, reads as all of its blocks.)
        let (a, sack) = (AckHeader::from(h), || &h.sack[..(h.n_sack as usize).min(h.sack.len())]);
        if self.hooks {
            self.process_ack::<true, false>(now, &a, sack);
        } else {
            self.process_ack::<false, false>(now, &a, sack);
        }
    }

    /// [`Sender::on_ack`] for the engine: the window-limited sends that end the ACK's processing
    /// outside a recovery are left to [`Sender::next_segment`], which the caller must call until
    /// it answers `None` before anything else touches the sender. The segments, their order and
    /// the sender's state afterwards are those of `on_ack`; the engine so writes each one
    /// straight into its packet instead of going through the `out` buffer. (Flows with hooks —
    /// pacing, rate samples, send times, loss marking — send at once, as `on_ack` does.) The
    /// ACK comes as the fields a packet holds: `h`, and its SACK blocks `sack`.
    #[inline]
    pub(crate) fn on_ack_pulled<'s>(&mut self, now: SimTime, h: &AckHeader, sack: impl FnOnce() -> &'s [SackBlock]) {
        debug_assert!(!self.core.pull_window, "the previous ACK's segments were not all pulled");
        if self.hooks {
            self.process_ack::<true, false>(now, h, sack);
        } else {
            self.process_ack::<false, true>(now, h, sack);
        }
    }

    /// The next segment an [`Sender::on_ack_pulled`] left to send, or `None` once the window is
    /// full (or nothing was left): one step of the window-limited send loop (always inlined:
    /// see [`SenderCore::window_step`]).
    #[inline(always)]
    pub(crate) fn next_segment(&mut self, now: SimTime) -> Option<OutSegment> {
        if !self.core.pull_window {
            return None;
        }
        let seg = self.core.window_step(now);
        if seg.is_none() {
            self.core.pull_window = false;
        }
        seg
    }

    /// Turns the common-case ACK paths (new and duplicate ACKs) and the pulled sends of a
    /// recovery off (`false`) or back on, for the differential tests that hold them against the
    /// general path.
    #[cfg(test)]
    pub(crate) fn set_fast_path(&mut self, on: bool) {
        self.fast = on && !self.hooks && fast_path_options(&self.core.cfg);
        self.fast_dup_acks = self.fast && self.core.cc.counts_every_dup_ack();
        self.recovery_window_limited = on && self.recovery.sends_window_limited();
    }

    /// [`Sender::on_ack`]; with `HOOKS = false`, `marks_losses` and `cc_reads_send_times` are
    /// known to be false. With `PULL`, the final window-limited sends are left to
    /// [`Sender::next_segment`].
    #[inline(always)]
    fn process_ack<'s, const HOOKS: bool, const PULL: bool>(
        &mut self,
        now: SimTime,
        h: &AckHeader,
        sack: impl FnOnce() -> &'s [SackBlock],
    ) {
        if !HOOKS && self.fast {
            let s = &self.core;
            let (una, max) = (s.seq.snd_una, s.seq.snd_max);
            if h.ack() > una && h.ack() <= max && !s.rec.in_recovery && !h.has_corrupt_seq && s.rec.rto_undo.is_none() {
                let mss = s.cfg.mss as u64;
                // Mostly one segment per ACK (two with delayed ACKs): those without a division.
                let acked = h.ack() - una;
                let advance = if h.ack() == max {
                    s.board.len()
                } else if acked == mss {
                    1
                } else if acked == 2 * mss {
                    2
                } else {
                    (acked / mss) as usize
                };
                if h.ack() == max || una + advance as u64 * mss == h.ack() {
                    self.fast_ack::<PULL>(now, h, advance);
                    return;
                }
            } else if h.ack() == una && max > una && self.fast_dup_acks && !h.has_corrupt_seq {
                self.fast_dup_ack::<PULL>(now, h);
                return;
            }
        }
        // The SACK blocks, read once the fast path is ruled out (from the packet's side table).
        let sack = sack();
        let marks_losses = HOOKS && self.marks_losses;
        let reads_send_times = HOOKS && self.cc_reads_send_times;
        // ns-2.35 TCP-Linux `recv`: `prior_in_flight = packets_in_flight()` before the ACK.
        let in_flight_before =
            if HOOKS && self.cc_reads_in_flight { self.recovery.in_flight_bytes(&RecoveryCtx::new(&mut self.core)) } else { 0 };
        let s = &mut self.core;
        if h.ack() > s.seq.snd_max {
            return; // acknowledges data never sent: ignore (RFC 793)
        }
        let mss = s.cfg.mss as u64;
        // Segments are MSS-aligned except a finite transfer's last one, which ends at snd_max: the
        // whole segments this ACK acknowledges.
        let advance = if h.ack() == s.seq.snd_max {
            s.board.len()
        } else if h.ack() > s.seq.snd_una {
            s.seg_index(h.ack())
        } else {
            0
        };
        // The scoreboard holds one entry per segment, so an ACK number inside a segment (never sent
        // by airtcp's receivers, which acknowledge whole segments) acknowledges only the whole
        // segments below it: it is read as that segment's first byte. Inside the first segment it
        // acknowledges nothing new, and it is no duplicate either (RFC 5681 §2: its number is not
        // SND.UNA). Fuzzing finding (issue 25 part 6): the sender carried on from the byte inside,
        // resending as "retransmissions" bytes above snd_max that it had never sent.
        let inside = h.ack() > s.seq.snd_una && h.ack() < s.seq.snd_max && s.seq.snd_una + advance as u64 * mss != h.ack();
        let rounded;
        let h = if inside {
            rounded = AckHeader { number: s.seq.snd_una + advance as u64 * mss, ..*h };
            &rounded
        } else {
            h
        };
        s.ecn.last_ack_ece = h.ece;
        // TCP HACK / CAIAD §3.3 Case 3: "retransmit the indicated data segment immediately" —
        // the segment reached the receiver with an intact header and a corrupted payload. The
        // option names a segment by its first byte (CAIAD Fig. 1(a)); a number inside a segment is
        // no segment of this sender's and is ignored, as above.
        if let Some(seq) = h.corrupt_seq() {
            if seq >= h.ack().max(s.seq.snd_una) && seq < s.seq.snd_max && (seq - s.seq.snd_una).is_multiple_of(mss) {
                let info = s.ack_info(now, h, 0, None, true, s.rec.in_recovery, s.rec.dupacks, None);
                if s.cc.on_corruption_report(&mut s.w, &info, seq) {
                    s.retransmit(now, seq);
                }
            }
        }
        // SACK scoreboard update (RFC 6675 §5 step (A)/(B) "update the scoreboard").
        if s.cfg.sack {
            for b in sack {
                let start = b.start.max(h.ack()).max(s.seq.snd_una);
                let end = b.end.min(s.seq.snd_max);
                if start >= end {
                    continue;
                }
                let first = (start - s.seq.snd_una).div_ceil(mss) as usize;
                // A segment counts as SACKed when the block covers all of it.
                let mut last = ((end - s.seq.snd_una) / mss) as usize;
                if end == s.seq.snd_max {
                    last = s.board.len();
                }
                s.board.mark_sacked(first, last);
                s.board.high_sacked = s.board.high_sacked.max(end);
            }
        }
        if h.ack() > s.seq.snd_una {
            let acked = h.ack() - s.seq.snd_una;
            // RTT sample: RFC 7323 §4.1 from TSecr, else by `rtt_sampling` under Karn's rule.
            let mut sample = None;
            if s.cfg.timestamps && h.has_ts && h.ts_ecr <= now {
                sample = Some(now - h.ts_ecr);
            } else if s.cfg.rtt_sampling == RttSampling::EveryAck {
                sample = s.every_ack_sample(now, advance);
            } else if let Some((end, t0)) = s.timing {
                if h.ack() >= end {
                    sample = Some(now - t0);
                    s.timing = None;
                }
            }
            // The highest newly acknowledged segment's send time, if it was sent once (Vegas).
            let newest =
                (reads_send_times && advance > 0).then(|| s.board.get(advance - 1)).filter(|m| !m.retransmitted).map(|m| m.sent_at);
            if let Some(r) = sample {
                s.rtt.sample(r, h.ack(), s.seq.snd_max);
                s.count_rtt_sample(r);
            }
            if marks_losses {
                self.recovery.before_cumulative_ack(&RecoveryCtx::new(s), advance);
            }
            s.board.advance(advance);
            s.rec.prev_highest_ack = s.seq.snd_una;
            s.seq.snd_una = h.ack();
            if s.seq.snd_nxt < s.seq.snd_una {
                s.seq.snd_nxt = s.seq.snd_una;
            }
            s.stats.acked_bytes += acked;
            // RFC 3522 §2: the first acceptable ACK after a timeout's retransmission decides. Its
            // TSecr older than the retransmission means the original arrived: the timeout was
            // spurious. The response is Linux's undo (`tcp_try_undo_loss`,
            // `tcp_undo_cwnd_reduction`): cwnd = max(cwnd, prior_cwnd) (`tcp_reno_undo_cwnd`),
            // ssthresh = max(ssthresh, prior_ssthresh), and the segments the timeout would have
            // resent are no longer lost (no go-back-N: snd_nxt back to snd_max).
            if let Some(u) = s.rec.rto_undo.take() {
                if h.has_ts && h.ts_ecr < u.retransmitted_at {
                    s.w.cwnd = s.w.cwnd.max(u.prior_cwnd);
                    s.w.ssthresh = s.w.ssthresh.max(u.prior_ssthresh);
                    s.seq.snd_nxt = s.seq.snd_max;
                    s.rec.recover = None;
                    s.rec.recover_by_timeout = false;
                    s.stats.spurious_timeouts += 1;
                    self.recovery.on_spurious_timeout(RecoveryCtx::new(s));
                }
            }
            s.rec.dupacks = 0;
            s.rec.limited_sent = 0;
            let was_in_recovery = s.rec.in_recovery;
            if was_in_recovery && self.recovery.on_ack(RecoveryCtx::new(s), now, acked) {
                s.rec.in_recovery = false;
                s.cc.on_recovery_exit(&mut s.w);
            }
            // RFC 3168 §6.1.2: react to ECE at most once per window of data, not during recovery.
            let ecn_reduce = s.cfg.ecn && h.ece && !was_in_recovery && s.ecn.ecn_recover.is_none_or(|r| s.seq.snd_una > r);
            if ecn_reduce {
                let sig = LossSignal { now, kind: LossKind::Ecn, marked: true, flight_bytes: s.flight() + acked };
                s.cc.on_congestion(&mut s.w, &sig);
                s.ecn.ecn_recover = Some(s.seq.snd_max);
                s.ecn.cwr_pending = true;
                s.stats.ecn_reductions += 1;
            }
            let rs = if HOOKS { s.rate_sample(now, h, sack) } else { None };
            let mut info = s.ack_info(now, h, acked, sample, was_in_recovery || ecn_reduce, was_in_recovery, 0, newest);
            info.in_flight_before_bytes = in_flight_before;
            info.rate = rs.as_ref();
            s.cc.on_ack(&mut s.w, &info);
            if HOOKS {
                s.after_rate_sample();
            }
            // RFC 6298 (5.2)/(5.3): stop the timer when all is acknowledged, else restart it.
            if s.seq.snd_una == s.seq.snd_max {
                s.rto_deadline = None;
            } else if s.restart_timer_on_ack {
                s.rto_deadline = Some(now + s.rtt.rto());
            }
            s.restart_timer_on_ack = true;
            // The policy's own check on a new ACK (TCP Vegas: the first and second new ACK after a
            // retransmission): resend the head now, without a window reaction.
            if reads_send_times && s.seq.snd_una < s.seq.snd_max && s.cc.retransmit_head(now, s.head(), &info) {
                if s.rec.in_recovery {
                    s.retransmit(now, s.seq.snd_una);
                } else {
                    s.stats.fast_retransmits += 1;
                    self.recovery.enter(RecoveryCtx::new(s), now, Reaction::KeepWindow);
                }
            }
            self.clamp();
        } else if !inside && h.ack() == self.core.seq.snd_una && self.core.seq.snd_max > self.core.seq.snd_una {
            // A duplicate ACK (RFC 5681 §2: same ACK number, outstanding data).
            let s = &mut self.core;
            let rs = if HOOKS { s.rate_sample(now, h, sack) } else { None };
            let mut info = s.ack_info(now, h, 0, None, true, s.rec.in_recovery, s.rec.dupacks + 1, None);
            info.in_flight_before_bytes = in_flight_before;
            info.rate = rs.as_ref();
            let count = s.cc.classify_dup_ack(&info);
            match count {
                DupAckCount::Count => s.rec.dupacks += 1,
                DupAckCount::Ignore => {}
                DupAckCount::Reset => s.rec.dupacks = 0,
            }
            s.cc.on_dup_ack(&mut s.w, &info);
            if HOOKS {
                s.after_rate_sample();
            }
            if s.cfg.rtt_sample_duplicate_acks && s.cfg.timestamps && h.has_ts && h.ts_ecr <= now {
                let r = now - h.ts_ecr;
                s.rtt.sample_keeping_backoff(r, s.seq.snd_una, s.seq.snd_max);
                s.count_rtt_sample(r);
            }
            if s.cfg.rto_restart_every_ack {
                // ns-2.35 TCP-Linux `renew_timer` on a duplicate ACK (data is outstanding).
                s.rto_deadline = Some(now + s.rtt.rto());
            }
            // The policy's own retransmission check (TCP Vegas's fine-grained timeout).
            let head_due = reads_send_times && count == DupAckCount::Count && s.cc.retransmit_head(now, s.head(), &info);
            self.after_dup_ack(now, h.ece, count == DupAckCount::Count, head_due, marks_losses);
        }
        if marks_losses && h.ack() == self.core.seq.snd_una {
            // ns-2.35 TCP-Linux `recv`: the scoreboard update marks losses on every ACK, then
            // `tcp_fastretrans_alert` enters TCP_CA_Recovery from Open or Loss on FLAG_DATA_LOST.
            let newly_lost = self.recovery.mark_losses(RecoveryCtx::new(&mut self.core), now);
            if newly_lost && !self.core.rec.in_recovery {
                self.fast_retransmit(now, h.ece);
            }
            // Marking may also end a Loss episode, whose cwnd moderation can exceed max_cwnd
            // (fuzzing finding, issue 25 part 6): the bound holds after it too.
            self.clamp();
        }
        self.end_ack::<HOOKS, PULL>(now);
    }

    /// The sends that end an ACK: the strategy's own during a recovery (always, for one that
    /// marks losses), else what min(cwnd, rwnd) allows — sent now, or with `PULL` left to
    /// [`Sender::next_segment`]; the same for a strategy whose `send` is that one
    /// ([`LossRecovery::sends_window_limited`]).
    #[inline(always)]
    fn end_ack<const HOOKS: bool, const PULL: bool>(&mut self, now: SimTime) {
        if (HOOKS && self.marks_losses) || (self.core.rec.in_recovery && !self.recovery_window_limited) {
            self.recovery.send(RecoveryCtx::new(&mut self.core), now);
        } else if PULL {
            self.core.pull_window = true;
        } else {
            self.core.send_window_limited(now);
        }
        if HOOKS {
            self.after_send();
        }
    }

    /// The common-case duplicate ACK (RFC 5681 §2: the ACK number is snd_una, data is
    /// outstanding) of a flow that may take the common-case path ([`Sender::fast`]) and whose
    /// policy counts every duplicate and leaves the window to the recovery
    /// ([`crate::cc::CongestionControl::counts_every_dup_ack`]), without a CAIAD corruption
    /// report. It does what [`Sender::process_ack`]'s duplicate-ACK branch does for such an ACK
    /// and nothing else: the policy's two hooks are the trait's (counted; nothing), and without
    /// hooks, timestamps or a policy reading send times there is no rate sample, no RTT sample
    /// and no early retransmission of the head (the differential tests hold the two paths
    /// against each other).
    #[inline(always)]
    fn fast_dup_ack<const PULL: bool>(&mut self, now: SimTime, h: &AckHeader) {
        let s = &mut self.core;
        s.ecn.last_ack_ece = h.ece;
        s.rec.dupacks += 1;
        if s.cfg.rto_restart_every_ack {
            // ns-2.35 TCP-Linux `renew_timer` on a duplicate ACK (data is outstanding).
            s.rto_deadline = Some(now + s.rtt.rto());
        }
        self.after_dup_ack(now, h.ece, true, false, false);
        self.end_ack::<false, PULL>(now);
    }

    /// What a duplicate ACK does once counted (`counted`: the policy counted it) — in a
    /// recovery, the strategy's inflation, or the head's retransmission when the policy's own
    /// check says it is due (`head_due`); outside one, fast retransmit at the DupThresh-th
    /// duplicate (or the strategy's or the policy's earlier detection), else limited transmit
    /// (RFC 3042); nothing for a strategy that marks losses (`marks_losses`), which starts its
    /// recovery from its marks — then the window's bound. Both duplicate-ACK paths end here.
    #[inline(always)]
    fn after_dup_ack(&mut self, now: SimTime, ece: bool, counted: bool, head_due: bool, marks_losses: bool) {
        let s = &mut self.core;
        if s.rec.in_recovery {
            if head_due {
                // A retransmission on a duplicate ACK: the timer as at a fast retransmit
                // (ns-2.35's Vegas takes its fast-retransmit branch for it).
                s.retransmit(now, s.seq.snd_una);
                s.fast_retransmit_timers(now);
            } else {
                self.recovery.on_dup_ack(RecoveryCtx::new(s), now);
            }
        } else if marks_losses {
            // Recovery starts from the strategy's loss marks (see `process_ack`), not a count.
        } else if counted
            && (s.rec.dupacks == s.dupthresh || self.recovery.detects_loss(&RecoveryCtx::new(s)) || head_due)
            && self.recovery.may_enter(&RecoveryCtx::new(s))
        {
            self.fast_retransmit(now, ece);
        } else if s.cfg.limited_transmit && counted && s.rec.dupacks < s.dupthresh {
            s.limited_transmit(now);
        }
        self.clamp();
    }

    /// The common-case ACK: in order, new data (snd_una < ack <= snd_max, on a segment
    /// boundary), outside a recovery, on a flow without hooks, SACK, timestamps, ECN or every-ACK
    /// RTT sampling ([`Sender::fast`]), with no CAIAD corruption report and no Eifel undo record
    /// (set only with timestamps). It does what [`Sender::process_ack`] does for such an ACK and
    /// nothing else: the checks it leaves out all come out false for it, so the window policy
    /// hears the same [`crate::cc::AckInfo`] and the sender ends in the same state with the same
    /// segments (the differential tests in `differential.rs` drive both paths with random ACKs). What it
    /// touches: ECE's last value, the timed segment (Karn's RTT sample), the scoreboard, snd_una,
    /// the counters, the policy's window, the retransmission deadline (a stored time: the engine
    /// re-arms its timer lazily, only when the deadline moves earlier) and the window-limited send.
    #[inline(always)]
    fn fast_ack<const PULL: bool>(&mut self, now: SimTime, h: &AckHeader, advance: usize) {
        let s = &mut self.core;
        s.ecn.last_ack_ece = h.ece;
        let acked = h.ack() - s.seq.snd_una;
        let mut sample = None;
        if let Some((end, t0)) = s.timing {
            if h.ack() >= end {
                sample = Some(now - t0);
                s.timing = None;
            }
        }
        if let Some(r) = sample {
            s.rtt.sample(r, h.ack(), s.seq.snd_max);
            s.count_rtt_sample(r);
        }
        s.board.advance(advance);
        s.rec.prev_highest_ack = s.seq.snd_una;
        s.seq.snd_una = h.ack();
        if s.seq.snd_nxt < s.seq.snd_una {
            s.seq.snd_nxt = s.seq.snd_una;
        }
        s.stats.acked_bytes += acked;
        s.rec.dupacks = 0;
        s.rec.limited_sent = 0;
        if self.cc_grows_as_reno {
            // The policy's `on_ack` of this ACK (no_growth false: not in a recovery, and without
            // ECN no reduction) is this growth alone (`CongestionControl::grows_as_reno`).
            crate::cc::reno::grow(&mut s.w, acked);
        } else {
            let info = s.ack_info(now, h, acked, sample, false, false, 0, None);
            s.cc.on_ack(&mut s.w, &info);
        }
        if s.seq.snd_una == s.seq.snd_max {
            s.rto_deadline = None;
        } else if s.restart_timer_on_ack {
            s.rto_deadline = Some(now + s.rtt.rto());
        }
        s.restart_timer_on_ack = true;
        self.clamp();
        // Not in a recovery (the policy's `on_ack` cannot start one): min(cwnd, rwnd) decides.
        if PULL {
            self.core.pull_window = true;
        } else {
            self.core.send_window_limited(now);
        }
    }

    /// Starts a fast retransmit / loss recovery: the window policy reacts, the recovery strategy
    /// enters (and retransmits, or leaves that to its `send`).
    fn fast_retransmit(&mut self, now: SimTime, ece: bool) {
        let s = &mut self.core;
        s.stats.fast_retransmits += 1;
        let sig = LossSignal { now, kind: LossKind::DupAcks, marked: ece, flight_bytes: s.flight() - s.rec.limited_sent };
        s.rec.prior_cwnd = s.w.cwnd;
        let reaction = s.signal(&sig);
        if s.cfg.ecn {
            // This reduction answers any congestion echoed in the same window.
            s.ecn.ecn_recover = Some(s.seq.snd_max);
            s.ecn.cwr_pending = true;
        }
        self.recovery.enter(RecoveryCtx::new(s), now, reaction);
        s.fast_retransmit_timers(now);
    }

    /// The retransmission timer fired at `now` (the caller checked the deadline).
    pub fn on_timeout(&mut self, now: SimTime) {
        let s = &mut self.core;
        s.rto_deadline = None;
        if s.seq.snd_una == s.seq.snd_max {
            return;
        }
        s.stats.timeouts += 1;
        // RFC 3522 §2 (Eifel detection): remember the window so that the timeout can be undone if
        // the first acceptable ACK after its retransmission echoes an older timestamp. Only from
        // outside a recovery (where no loss has been detected yet), and the first timeout of a
        // backed-off series keeps its record (Linux: `retrans_stamp` is the first retransmission).
        if s.cfg.rto_undo == RtoUndoPolicy::Eifel && s.cfg.timestamps && !s.rec.in_recovery && s.rec.rto_undo.is_none() {
            // Linux `tcp_enter_loss`: prior_ssthresh = tcp_current_ssthresh(), prior_cwnd = cwnd.
            let prior_ssthresh = s.w.ssthresh.max(s.w.cwnd / 2 + s.w.cwnd / 4);
            s.rec.rto_undo = Some(RtoUndo { prior_cwnd: s.w.cwnd, prior_ssthresh, retransmitted_at: now });
        }
        // What the policy halves: RFC 5681 eq. (4)'s FlightSize, or with `timeout_ssthresh = "ns2"`
        // ns-2.35's `int(window() / 2)`, window() = min(cwnd_, wnd_) without fast recovery's
        // inflation (Reno/NewReno keep it in `dupwnd_`, zeroed by their `timeout` first): in a
        // recovery, the window it set, ssthresh; else cwnd. Whole segments, as ns-2 counts them.
        let flight_bytes = if s.cfg.timeout_ssthresh_from_window {
            let window = if s.rec.in_recovery { s.w.ssthresh } else { s.w.cwnd };
            window.min(s.cfg.rwnd_bytes) / s.w.mss * s.w.mss
        } else {
            s.flight()
        };
        let sig = LossSignal { now, kind: LossKind::Timeout, marked: s.ecn.last_ack_ece, flight_bytes };
        s.signal(&sig);
        if s.cfg.ecn {
            s.ecn.cwr_pending = true;
            s.ecn.ecn_recover = Some(s.seq.snd_max);
        }
        // RFC 6582 §3.2 step 1 / RFC 6675 §5.1: after a timeout, recover = HighData.
        s.rec.recover = Some(s.seq.snd_max);
        s.rec.recover_by_timeout = true;
        s.rec.in_recovery = false;
        s.rec.dupacks = 0;
        s.rec.limited_sent = 0;
        s.rec.high_rxt = s.seq.snd_una;
        s.timing = None;
        // (5.5) back off, (5.4) retransmit from snd_una (go-back-N), (5.6) restart the timer.
        s.rtt.on_timeout();
        s.seq.snd_nxt = s.seq.snd_una;
        self.clamp();
        if self.marks_losses {
            self.recovery.on_timeout(RecoveryCtx::new(&mut self.core), now);
            self.recovery.send(RecoveryCtx::new(&mut self.core), now);
        } else {
            self.core.send_window_limited(now);
        }
        self.after_send();
        let s = &mut self.core;
        s.rto_deadline = Some(now + s.rtt.rto());
    }
}
