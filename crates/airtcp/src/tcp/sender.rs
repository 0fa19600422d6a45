//! The TCP sender: sequence space, retransmission timer (RFC 6298), RTT sampling (Karn or RFC
//! 7323 timestamps), duplicate-ACK counting, SACK scoreboard and ECN (RFC 3168). The window policy
//! ([`crate::cc`]) and the loss-recovery strategy ([`crate::tcp::recovery`]) are plugged in.
//!
//! There is no connection handshake: the flow starts in ESTABLISHED at its start time with the
//! options of its configuration (as ns-2's one-way TCP agents do). Sequence numbers are absolute
//! byte offsets starting at 0, and segments are cut at multiples of the MSS.

use crate::cc::{AckInfo, CongestionControl, DupAckCount, Head, LossKind, LossSignal, Reaction, RecoverGuard, SendInfo, Window};
use crate::net::TcpHeader;
use crate::tcp::recovery::LossRecovery;
use crate::tcp::rto::RttEstimator;
use crate::tcp::scoreboard::Scoreboard;
use crate::time::SimTime;

/// Sender settings (from the scenario's flow).
#[derive(Debug, Clone)]
pub struct SenderConfig {
    pub mss: u32,
    pub rwnd_bytes: u64,
    pub max_cwnd_bytes: u64,
    pub initial_cwnd_bytes: u64,
    pub initial_ssthresh_bytes: u64,
    pub dupthresh: u32,
    pub sack: bool,
    pub timestamps: bool,
    pub ecn: bool,
    pub initial_rto_ns: u64,
    pub min_rto_ns: u64,
    pub max_rto_ns: u64,
    pub granularity_ns: u64,
    /// NewReno resets the RTO timer on every partial ACK (slow-but-steady) instead of only the
    /// first (impatient, RFC 6582's recommendation).
    pub rto_reset_every_partial_ack: bool,
    /// RFC 3042 limited transmit (ns-2's `singledup_`): a new segment on each of the first two
    /// duplicate ACKs, so that a small window still collects DupThresh duplicates.
    pub limited_transmit: bool,
    /// Retransmissions are sent ECT as well (window policies that need it, see `cc::Needs`).
    pub ect_on_retransmissions: bool,
    /// How RTT samples are taken when timestamps are off.
    pub rtt_sampling: RttSampling,
    /// Restart the retransmission timer when fast retransmit sends its segment (the RTT
    /// measurement in progress is voided either way, see [`RttSampling::TimedSegment`]).
    ///
    /// ns-2.35 `dupack_action` (Tahoe, Reno, NewReno, Sack1, FACK) calls `reset_rtx_timer(1, 0)`
    /// before `output(last_ack_ + 1)`; 4.4BSD `tcp_input` clears `TCPT_REXMT` before it resends;
    /// Linux re-arms the RTO when it retransmits the head (`tcp_xmit_retransmit_queue`). RFC 6298
    /// says nothing of fast retransmit, so `false` keeps the timer that the last new ACK armed,
    /// which then expires about one RTT into the recovery when RTO is close to the RTT.
    pub fast_retransmit_restarts_rto: bool,
    /// With `fast_retransmit_restarts_rto`: back the timer off first (RTO doubled until a valid
    /// RTT sample, as at a timeout). ns-2.35's `Agent/TCP/Vegas` calls `reset_rtx_timer(1)`, whose
    /// `backoff` defaults to 1, where its Reno, NewReno, Sack1 and FACK agents pass 0; a run of
    /// fast retransmits without a valid sample between them (each voids the measurement) then
    /// ratchets its RTO up to 64 times.
    pub fast_retransmit_rto_backoff: bool,
    /// RFC 6582 §3.2 step 2's ACK heuristic: duplicate ACKs that do not pass `recover` still
    /// start a fast retransmit when cwnd > SMSS and the last cumulative advance was at most
    /// 4·SMSS. ns-2.35's `bugfix_ack_` (off by default there, as here); without it a fast
    /// retransmit needs the cumulative ACK to pass `recover` (ns-2's `bugfix_`, Linux's CA_Loss).
    pub recover_ack_heuristic: bool,
    /// Restart the retransmission timer on every ACK that is new or duplicate while data is
    /// outstanding, not only on ACKs of new data (RFC 6298 (5.3)). ns-2.35's TCP-Linux
    /// (`LinuxTcpAgent::time_processing`, its `renew_timer`: `set_rtx_timer()` whenever
    /// `t_seqno_ > highest_ack_`, on every ACK that is neither old nor beyond `t_seqno_`, so on
    /// duplicate ACKs too). The timer then expires only after an RTO without any ACK.
    pub rto_restart_every_ack: bool,
    /// With timestamps, duplicate ACKs give RTT samples too (now − TSecr, the TSval the receiver
    /// holds as TS.Recent: the last segment that advanced its left edge, so during a loss the
    /// samples grow by the time since the hole). ns-2.35's TCP-Linux does this
    /// (`LinuxTcpAgent::time_processing` calls `rtt_update(now - ts_echo)` on every ACK with a
    /// timestamp); RFC 7323 §4.1 and Linux (`tcp_ack_update_rtt` only under FLAG_ACKED) take
    /// samples from ACKs of new data only, as airtcp does by default.
    pub rtt_sample_duplicate_acks: bool,
}

/// Which ACKs give an RTT sample when RFC 7323 timestamps are off (RFC 6298 §3: Karn's
/// algorithm, "RTT samples MUST NOT be made using segments that were retransmitted").
/// In a scenario: `rtt_sampling = "timed-segment"` (the default) or `"every-ack"`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RttSampling {
    /// One segment of new data is timed at a time (4.4BSD `t_rtt`/`t_rtseq`, ns-2.35
    /// `rtt_active_`/`rtt_seq_`): a sample when the cumulative ACK covers it. The measurement is
    /// voided at a timeout and at a fast retransmit (ns-2 `reset_rtx_timer` clears `rtt_active_`)
    /// and, by Karn's rule, when the timed segment itself is resent (ns-2 does not check this
    /// last case and would take the ambiguous sample).
    #[default]
    TimedSegment,
    /// Linux `tcp_clean_rtx_queue`: every ACK that newly acknowledges data gives a sample from
    /// the oldest newly acknowledged segment that was not SACKed before, unless any newly
    /// acknowledged segment was retransmitted (`FLAG_RETRANS_DATA_ACKED`). (Linux's SACK RTT
    /// samples are not modelled.)
    EveryAck,
}

/// A segment the sender asks the network to carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutSegment {
    pub seq: u64,
    pub len: u32,
    pub retransmission: bool,
    /// Send with ECT (RFC 3168 §6.1.5: never on retransmissions).
    pub ect: bool,
    pub cwr: bool,
    /// TSval (the sender's clock), when timestamps are on.
    pub ts_val: Option<u64>,
}

/// Counters of one sender.
#[derive(Debug, Clone, Default)]
pub struct SenderStats {
    pub segments_sent: u64,
    pub retransmissions: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub ecn_reductions: u64,
    pub rtt_samples: u64,
    pub rtt_sum_ns: u128,
    pub rto_sum_ns: u128,
    pub acked_bytes: u64,
    /// The RTT samples' distribution (the same samples as `rtt_samples`), for the summary's
    /// percentiles; cleared at the end of the warm-up.
    pub rtt_hist: crate::metrics::delay::DelayHistogram,
}

/// The sender state shared by all recovery strategies.
pub struct SenderCore {
    pub cfg: SenderConfig,
    pub w: Window,
    pub cc: Box<dyn CongestionControl>,
    pub rtt: RttEstimator,
    /// Oldest unacknowledged byte (SND.UNA, RFC 6675 HighACK).
    pub snd_una: u64,
    /// Next byte to send; below snd_max while going back after a timeout.
    pub snd_nxt: u64,
    /// One past the highest byte ever sent (RFC 6675 HighData + 1).
    pub snd_max: u64,
    /// The application has offered bytes [0, app_limit).
    pub app_limit: u64,
    pub dupacks: u32,
    /// Bytes sent by limited transmit since the last new ACK (RFC 5681 §3.2 step 2: not part of
    /// the FlightSize that ssthresh is computed from).
    pub limited_sent: u64,
    pub dupthresh: u32,
    pub in_recovery: bool,
    /// snd_max when recovery or the last timeout began (RFC 6582 "recover", exclusive end).
    pub recover: Option<u64>,
    /// `recover` was set by a timeout (not by a fast retransmit): see [`RecoverGuard`].
    pub recover_by_timeout: bool,
    /// snd_una before the latest cumulative ACK advance (RFC 6582 prev_highest_ack).
    pub prev_highest_ack: u64,
    /// How the policy reacted to the loss that started the current recovery.
    pub reaction: Reaction,
    /// cwnd restored when recovery ends (ssthresh, or the kept window).
    pub recovery_base: u64,
    /// One past the highest byte retransmitted in this recovery (RFC 6675 HighRxt).
    pub high_rxt: u64,
    pub board: Scoreboard,
    /// Karn: the byte whose ACK ends the RTT measurement in progress, and when it was sent.
    timing: Option<(u64, SimTime)>,
    /// No ECN reaction until snd_una passes this (once per window, RFC 3168 §6.1.2).
    ecn_recover: Option<u64>,
    cwr_pending: bool,
    /// Restart the timer on this ACK of new data (NewReno turns it off after the first partial ACK).
    pub restart_timer_on_ack: bool,
    /// Deadline of the retransmission timer.
    pub rto_deadline: Option<SimTime>,
    /// The last ACK received (new or duplicate) carried ECN-Echo: the congestion-warning state a
    /// timeout is judged by (TCP New Jersey, NJ+ Fig. 3: "if (Congestion Warning)").
    pub last_ack_ece: bool,
    /// Loss verdicts of a loss-differentiating policy, (first byte of the segment retransmitted,
    /// answered as congestion), for the engine to compare with the real cause; drained by it.
    pub verdicts: Vec<(u64, bool)>,
    pub out: Vec<OutSegment>,
    pub stats: SenderStats,
    /// cwnd just before the window policy reacted to the loss that started the current recovery
    /// (rate halving starts from it, see [`crate::tcp::recovery::linux`]).
    pub prior_cwnd: u64,
    /// The window policy paces (`cc.pacing_rate()` was `Some` when the flow was built): each
    /// transmission is told to it and pushes `next_send_at` on. Fixed for the flow's life.
    pub paced: bool,
    /// Earliest time the next segment may leave (pacing; stays 0 for a flow that does not pace,
    /// so that [`SenderCore::pacing_allows`] always answers yes).
    pub next_send_at: SimTime,
    /// Pacing held back a segment that the window allowed: the sender wants to be woken at
    /// `next_send_at` (the engine's pacing timer). Always `None` for a flow that does not pace.
    pub pacing_deadline: Option<SimTime>,
    /// A send loop stopped for pacing since the last [`Sender::after_send`].
    pace_blocked: bool,
}

impl SenderCore {
    /// Bytes outstanding: FlightSize of RFC 5681.
    #[inline]
    pub fn flight(&self) -> u64 {
        self.snd_max - self.snd_una
    }

    /// Length of the segment starting at `seq`.
    #[inline]
    pub fn seg_len(&self, seq: u64) -> u64 {
        (self.cfg.mss as u64).min(self.app_limit.max(self.snd_max) - seq)
    }

    #[inline]
    fn seg_index(&self, seq: u64) -> usize {
        ((seq - self.snd_una) / self.cfg.mss as u64) as usize
    }

    /// Whether a fast retransmit may start (RFC 6582 §3.2 step 2: "checks the value of recover to
    /// see if the Cumulative Acknowledgment field covers more than recover"; ns-2.35 `bugfix_`:
    /// `highest_ack_ > recover_`), or, with `recover_ack_heuristic`, whether the ACK heuristic says
    /// the duplicate ACKs are from a new loss (cwnd > SMSS and the last advance of the cumulative
    /// ACK was at most 4·SMSS). `recover` is set at every fast retransmit and timeout, so the
    /// duplicate ACKs that go-back-N resends of held data provoke start no second reduction.
    /// A window policy whose guard is [`RecoverGuard::TimeoutOnly`] (ns-2.35 Vegas) is held back
    /// only by a `recover` that a timeout set.
    pub fn recover_guard_passes(&self) -> bool {
        match self.recover {
            None => true,
            Some(r) => {
                self.snd_una > r
                    || (!self.recover_by_timeout && self.cc.recover_guard() == RecoverGuard::TimeoutOnly)
                    || (self.cfg.recover_ack_heuristic
                        && self.w.cwnd > self.w.mss
                        && self.snd_una - self.prev_highest_ack <= 4 * self.w.mss)
            }
        }
    }

    /// Linux's RTT sample for a cumulative ACK that acknowledges the first `advance` segments:
    /// none if any of them was retransmitted, else from the send time of the oldest one that was
    /// not SACKed before (`tcp_clean_rtx_queue`'s `first_ackt`).
    fn every_ack_sample(&self, now: SimTime, advance: usize) -> Option<u64> {
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
    fn count_rtt_sample(&mut self, r: u64) {
        self.stats.rtt_samples += 1;
        self.stats.rtt_sum_ns += r as u128;
        self.stats.rto_sum_ns += self.rtt.base_rto() as u128;
        self.stats.rtt_hist.record(r);
    }

    /// The oldest unacknowledged segment (there must be one).
    pub fn head(&self) -> Head {
        let m = self.board.get(0);
        Head { sent_at: m.sent_at, retransmitted: m.retransmitted }
    }

    /// What the window policy is told about an ACK (`h`'s own fields are read through it).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn ack_info<'h>(
        &self,
        now: SimTime,
        h: &'h TcpHeader,
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
            header: h,
        }
    }

    /// Hands a loss signal to the window policy and logs its verdict, if it gives one.
    fn signal(&mut self, sig: &LossSignal) -> Reaction {
        if let Some(congestion) = self.cc.loss_verdict(sig) {
            self.verdicts.push((self.snd_una, congestion));
        }
        self.cc.on_congestion(&mut self.w, sig)
    }

    /// Records the start of a recovery episode.
    pub fn begin_recovery(&mut self, reaction: Reaction) {
        self.in_recovery = true;
        self.recover = Some(self.snd_max);
        self.recover_by_timeout = false;
        self.reaction = reaction;
        self.recovery_base = match reaction {
            Reaction::Reduce => self.w.ssthresh,
            Reaction::KeepWindow => self.w.cwnd,
        };
        self.high_rxt = self.snd_una;
    }

    /// Whether pacing lets a segment leave at `now` (always, for a flow that does not pace). Every
    /// loop that sends what the window allows asks this before each segment and stops on a no;
    /// the pacing timer resumes it at `next_send_at`. Single retransmissions that a loss event
    /// forces (the fast retransmit itself, NewReno's partial-ACK retransmission, a corruption
    /// report) are not held, but they use up pacing time like any other segment.
    #[inline]
    pub fn pacing_allows(&mut self, now: SimTime) -> bool {
        if now >= self.next_send_at {
            true
        } else {
            self.pace_blocked = true;
            false
        }
    }

    /// A paced flow's transmission of `len` bytes at `now`: told to the policy, and the next slot
    /// is `len`/rate later (integer ns, rounded down; from `now` if the flow was idle).
    #[cold]
    fn pace(&mut self, now: SimTime, seq: u64, len: u64, retransmission: bool) {
        self.cc.on_send(&SendInfo { now, seq, len, retransmission, flight_bytes: self.flight() });
        if let Some(rate) = self.cc.pacing_rate().filter(|&r| r > 0) {
            let gap = (len as u128 * crate::time::NS_PER_S as u128 / rate as u128).min(u64::MAX as u128) as u64;
            self.next_send_at = self.next_send_at.max(now).saturating_add(gap);
        }
    }

    fn emit(&mut self, now: SimTime, seq: u64, retransmission: bool) {
        let len = self.seg_len(seq);
        debug_assert!(len > 0 && seq < self.app_limit.max(self.snd_max));
        if self.paced {
            self.pace(now, seq, len, retransmission);
        }
        let i = self.seg_index(seq);
        let m = self.board.get_mut(i);
        m.retransmitted |= retransmission;
        m.sent_at = now;
        let cwr = !retransmission && std::mem::take(&mut self.cwr_pending);
        self.out.push(OutSegment {
            seq,
            len: len as u32,
            retransmission,
            ect: self.cfg.ecn && (!retransmission || self.cfg.ect_on_retransmissions),
            cwr,
            ts_val: self.cfg.timestamps.then_some(now),
        });
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
        if seq + len > self.snd_max {
            self.snd_max = seq + len;
        }
        // RFC 6298 (5.1): start the timer when data is sent and it is not running.
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(now + self.rtt.rto());
        }
    }

    /// The timers at a fast retransmit: ns-2.35's `reset_rtx_timer(1, backoff)` restarts the
    /// retransmission timer (`fast_retransmit_restarts_rto`; backed off first with
    /// `fast_retransmit_rto_backoff`, Vegas's `reset_rtx_timer(1)`) and stops the RTT timing
    /// (`rtt_active_ = 0`), as 4.4BSD's fast retransmit does (`t_rtttime = 0`).
    fn fast_retransmit_timers(&mut self, now: SimTime) {
        if self.cfg.fast_retransmit_restarts_rto {
            if self.cfg.fast_retransmit_rto_backoff {
                self.rtt.on_timeout();
            }
            self.rto_deadline = Some(now + self.rtt.rto());
        }
        self.timing = None;
    }

    /// Retransmits the segment starting at `seq`.
    pub fn retransmit(&mut self, now: SimTime, seq: u64) {
        if seq < self.snd_max {
            self.emit(now, seq, true);
        }
    }

    /// Sends the next new segment at snd_max.
    pub fn send_new(&mut self, now: SimTime) {
        let seq = self.snd_max;
        self.emit(now, seq, false);
        self.snd_nxt = self.snd_max;
    }

    /// RFC 3042 §2: on the first or second duplicate ACK, send one segment of new data if the
    /// receiver's window allows it and the flight stays within cwnd + 2·SMSS; cwnd is not
    /// changed. (ns-2's `send_one` for `singledup_`: one packet per such duplicate.)
    fn limited_transmit(&mut self, now: SimTime) {
        if self.snd_max >= self.app_limit || self.snd_nxt < self.snd_max {
            return;
        }
        let len = self.seg_len(self.snd_max);
        let end = self.snd_max + len - self.snd_una;
        if end <= self.cfg.rwnd_bytes && end <= self.w.cwnd + 2 * self.w.mss && self.pacing_allows(now) {
            self.send_new(now);
            self.limited_sent += len;
        }
    }

    /// Sends from snd_nxt while the window min(cwnd, rwnd) allows: new data, or after a timeout
    /// the go-back-N retransmissions (skipping SACKed segments).
    pub fn send_window_limited(&mut self, now: SimTime) {
        let win = self.w.cwnd.min(self.cfg.rwnd_bytes);
        loop {
            while self.snd_nxt < self.snd_max && self.board.get(self.seg_index(self.snd_nxt)).sacked {
                self.snd_nxt += self.seg_len(self.snd_nxt);
            }
            if self.snd_nxt >= self.app_limit.max(self.snd_max) {
                break;
            }
            let len = self.seg_len(self.snd_nxt);
            if self.snd_nxt + len - self.snd_una > win || !self.pacing_allows(now) {
                break;
            }
            let seq = self.snd_nxt;
            self.emit(now, seq, seq < self.snd_max);
            self.snd_nxt = seq + len;
        }
    }

    /// RFC 6675 IsLost for every outstanding segment, computed in one backward pass: a segment is
    /// lost when at least DupThresh SACKed segments lie above it (with MSS-aligned segments this is
    /// equivalent to the byte rule (DupThresh − 1)·SMSS + 1).
    fn lost_flags(&self) -> impl Iterator<Item = (usize, bool, bool)> + '_ {
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
            let seq = self.snd_una + i as u64 * self.cfg.mss as u64;
            let len = self.seg_len(seq);
            if !lost {
                pipe += len;
            }
            if seq + len <= self.high_rxt {
                pipe += len;
            }
        }
        pipe
    }

    /// RFC 6675 §4 NextSeg(): (seq, is_retransmission), or None when nothing may be sent.
    pub fn next_seg(&self) -> Option<(u64, bool)> {
        let mss = self.cfg.mss as u64;
        let seq_of = |i: usize| self.snd_una + i as u64 * mss;
        // Rule (1): lowest unSACKed segment above HighRxt that is lost.
        let mut rule1 = None;
        for (i, _, lost) in self.lost_flags() {
            if lost && seq_of(i) >= self.high_rxt {
                rule1 = Some(seq_of(i));
            }
        }
        if let Some(s) = rule1 {
            return Some((s, true));
        }
        // Rule (2): new data, within the receiver's window.
        if self.snd_max < self.app_limit {
            let len = self.seg_len(self.snd_max);
            if self.snd_max + len - self.snd_una <= self.cfg.rwnd_bytes {
                return Some((self.snd_max, false));
            }
        }
        // Rule (3): lowest unSACKed segment above HighRxt below the highest SACKed byte.
        for (i, m) in self.board.iter().enumerate() {
            let s = seq_of(i);
            if s >= self.board.high_sacked {
                break;
            }
            if !m.sacked && s >= self.high_rxt {
                return Some((s, true));
            }
        }
        None
    }
}

/// A sender: the core plus its recovery strategy.
pub struct Sender {
    pub core: SenderCore,
    pub recovery: Box<dyn LossRecovery>,
    /// `recovery.marks_losses()`, asked once.
    marks_losses: bool,
    /// `cc.reads_send_times()`, asked once: only then are the head's and the newest acknowledged
    /// segment's send times looked up on each ACK (they cost every other scheme ~2% per event).
    cc_reads_send_times: bool,
    /// `cc.reads_in_flight()`, asked once: only then is the recovery's in-flight count taken
    /// before each ACK ([`crate::cc::AckInfo::in_flight_before_bytes`]).
    cc_reads_in_flight: bool,
    /// `marks_losses || cc_reads_send_times || cc_reads_in_flight || core.paced`: which of the
    /// two copies of the ACK path runs (see [`Sender::on_ack`]).
    hooks: bool,
}

impl Sender {
    pub fn new(cfg: SenderConfig, mut cc: Box<dyn CongestionControl>, recovery: Box<dyn LossRecovery>) -> Self {
        let mut w = Window { cwnd: cfg.initial_cwnd_bytes, ssthresh: cfg.initial_ssthresh_bytes, mss: cfg.mss as u64 };
        cc.on_start(&mut w, cfg.rwnd_bytes);
        let rtt = RttEstimator::new(cfg.initial_rto_ns, cfg.min_rto_ns, cfg.max_rto_ns, cfg.granularity_ns);
        let dupthresh = cfg.dupthresh;
        let cc_reads_send_times = cc.reads_send_times();
        let paced = cc.pacing_rate().is_some();
        let cc_reads_in_flight = cc.reads_in_flight();
        let marks_losses = recovery.marks_losses();
        let mut s = Sender {
            core: SenderCore {
                cfg,
                w,
                cc,
                rtt,
                snd_una: 0,
                snd_nxt: 0,
                snd_max: 0,
                app_limit: 0,
                dupacks: 0,
                limited_sent: 0,
                dupthresh,
                in_recovery: false,
                recover: None,
                recover_by_timeout: false,
                prev_highest_ack: 0,
                reaction: Reaction::Reduce,
                recovery_base: 0,
                high_rxt: 0,
                board: Scoreboard::default(),
                timing: None,
                ecn_recover: None,
                cwr_pending: false,
                restart_timer_on_ack: true,
                rto_deadline: None,
                last_ack_ece: false,
                verdicts: Vec::new(),
                out: Vec::with_capacity(16),
                stats: SenderStats::default(),
                prior_cwnd: 0,
                paced,
                next_send_at: 0,
                pacing_deadline: None,
                pace_blocked: false,
            },
            marks_losses,
            cc_reads_send_times,
            cc_reads_in_flight,
            hooks: marks_losses || cc_reads_send_times || cc_reads_in_flight || paced,
            recovery,
        };
        // `max_cwnd_bytes` bounds the first window too: an initial window (or one a policy sets in
        // `on_start`) above it used to go out whole, the bound applying from the first ACK on.
        s.clamp();
        s
    }

    /// The application offers data up to byte `limit` (u64::MAX for an infinite source).
    pub fn offer(&mut self, now: SimTime, limit: u64) {
        self.core.app_limit = limit;
        self.recovery.send(&mut self.core, now);
        self.after_send();
    }

    /// The pacing timer fired (`pacing_deadline` reached): send what the window allows.
    pub fn on_pacing_timer(&mut self, now: SimTime) {
        self.core.pacing_deadline = None;
        self.recovery.send(&mut self.core, now);
        self.after_send();
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
        self.core.app_limit = self.core.snd_max;
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
        if self.hooks {
            self.process_ack::<true>(now, h);
        } else {
            self.process_ack::<false>(now, h);
        }
    }

    /// [`Sender::on_ack`]; with `HOOKS = false`, `marks_losses` and `cc_reads_send_times` are
    /// known to be false.
    #[inline(always)]
    fn process_ack<const HOOKS: bool>(&mut self, now: SimTime, h: &TcpHeader) {
        let marks_losses = HOOKS && self.marks_losses;
        let reads_send_times = HOOKS && self.cc_reads_send_times;
        // ns-2.35 TCP-Linux `recv`: `prior_in_flight = packets_in_flight()` before the ACK.
        let in_flight_before = if HOOKS && self.cc_reads_in_flight { self.recovery.in_flight_bytes(&self.core) } else { 0 };
        let s = &mut self.core;
        if h.ack > s.snd_max {
            return; // acknowledges data never sent: ignore (RFC 793)
        }
        let mss = s.cfg.mss as u64;
        // Segments are MSS-aligned except a finite transfer's last one, which ends at snd_max: the
        // whole segments this ACK acknowledges.
        let advance = if h.ack == s.snd_max {
            s.board.len()
        } else if h.ack > s.snd_una {
            s.seg_index(h.ack)
        } else {
            0
        };
        // The scoreboard holds one entry per segment, so an ACK number inside a segment (never sent
        // by airtcp's receivers, which acknowledge whole segments) acknowledges only the whole
        // segments below it: it is read as that segment's first byte. Inside the first segment it
        // acknowledges nothing new, and it is no duplicate either (RFC 5681 §2: its number is not
        // SND.UNA). Fuzzing finding (issue 25 part 6): the sender carried on from the byte inside,
        // resending as "retransmissions" bytes above snd_max that it had never sent.
        let inside = h.ack > s.snd_una && h.ack < s.snd_max && s.snd_una + advance as u64 * mss != h.ack;
        let rounded;
        let h = if inside {
            rounded = TcpHeader { ack: s.snd_una + advance as u64 * mss, ..*h };
            &rounded
        } else {
            h
        };
        s.last_ack_ece = h.ece;
        // TCP HACK / CAIAD §3.3 Case 3: "retransmit the indicated data segment immediately" —
        // the segment reached the receiver with an intact header and a corrupted payload. The
        // option names a segment by its first byte (CAIAD Fig. 1(a)); a number inside a segment is
        // no segment of this sender's and is ignored, as above.
        if let Some(seq) = h.corrupt_seq {
            if seq >= h.ack.max(s.snd_una) && seq < s.snd_max && (seq - s.snd_una).is_multiple_of(mss) {
                let info = s.ack_info(now, h, 0, None, true, s.in_recovery, s.dupacks, None);
                if s.cc.on_corruption_report(&mut s.w, &info, seq) {
                    s.retransmit(now, seq);
                }
            }
        }
        // SACK scoreboard update (RFC 6675 §5 step (A)/(B) "update the scoreboard").
        if s.cfg.sack {
            for b in &h.sack[..h.n_sack as usize] {
                let start = b.start.max(h.ack).max(s.snd_una);
                let end = b.end.min(s.snd_max);
                if start >= end {
                    continue;
                }
                let first = (start - s.snd_una).div_ceil(mss) as usize;
                // A segment counts as SACKed when the block covers all of it.
                let mut last = ((end - s.snd_una) / mss) as usize;
                if end == s.snd_max {
                    last = s.board.len();
                }
                s.board.mark_sacked(first, last);
                s.board.high_sacked = s.board.high_sacked.max(end);
            }
        }
        if h.ack > s.snd_una {
            let acked = h.ack - s.snd_una;
            // RTT sample: RFC 7323 §4.1 from TSecr, else by `rtt_sampling` under Karn's rule.
            let mut sample = None;
            if s.cfg.timestamps && h.has_ts && h.ts_ecr <= now {
                sample = Some(now - h.ts_ecr);
            } else if s.cfg.rtt_sampling == RttSampling::EveryAck {
                sample = s.every_ack_sample(now, advance);
            } else if let Some((end, t0)) = s.timing {
                if h.ack >= end {
                    sample = Some(now - t0);
                    s.timing = None;
                }
            }
            // The highest newly acknowledged segment's send time, if it was sent once (Vegas).
            let newest =
                (reads_send_times && advance > 0).then(|| s.board.get(advance - 1)).filter(|m| !m.retransmitted).map(|m| m.sent_at);
            if let Some(r) = sample {
                s.rtt.sample(r);
                s.count_rtt_sample(r);
            }
            if marks_losses {
                self.recovery.before_cumulative_ack(s, advance);
            }
            s.board.advance(advance);
            s.prev_highest_ack = s.snd_una;
            s.snd_una = h.ack;
            if s.snd_nxt < s.snd_una {
                s.snd_nxt = s.snd_una;
            }
            s.stats.acked_bytes += acked;
            s.dupacks = 0;
            s.limited_sent = 0;
            let was_in_recovery = s.in_recovery;
            if was_in_recovery && self.recovery.on_ack(s, now, acked) {
                s.in_recovery = false;
                s.cc.on_recovery_exit(&mut s.w);
            }
            // RFC 3168 §6.1.2: react to ECE at most once per window of data, not during recovery.
            let ecn_reduce = s.cfg.ecn && h.ece && !was_in_recovery && s.ecn_recover.is_none_or(|r| s.snd_una > r);
            if ecn_reduce {
                let sig = LossSignal { now, kind: LossKind::Ecn, marked: true, flight_bytes: s.flight() + acked };
                s.cc.on_congestion(&mut s.w, &sig);
                s.ecn_recover = Some(s.snd_max);
                s.cwr_pending = true;
                s.stats.ecn_reductions += 1;
            }
            let mut info = s.ack_info(now, h, acked, sample, was_in_recovery || ecn_reduce, was_in_recovery, 0, newest);
            info.in_flight_before_bytes = in_flight_before;
            s.cc.on_ack(&mut s.w, &info);
            // RFC 6298 (5.2)/(5.3): stop the timer when all is acknowledged, else restart it.
            if s.snd_una == s.snd_max {
                s.rto_deadline = None;
            } else if s.restart_timer_on_ack {
                s.rto_deadline = Some(now + s.rtt.rto());
            }
            s.restart_timer_on_ack = true;
            // The policy's own check on a new ACK (TCP Vegas: the first and second new ACK after a
            // retransmission): resend the head now, without a window reaction.
            if reads_send_times && s.snd_una < s.snd_max && s.cc.retransmit_head(now, s.head(), &info) {
                if s.in_recovery {
                    s.retransmit(now, s.snd_una);
                } else {
                    s.stats.fast_retransmits += 1;
                    self.recovery.enter(s, now, Reaction::KeepWindow);
                }
            }
            self.clamp();
        } else if !inside && h.ack == self.core.snd_una && self.core.snd_max > self.core.snd_una {
            // A duplicate ACK (RFC 5681 §2: same ACK number, outstanding data).
            let s = &mut self.core;
            let mut info = s.ack_info(now, h, 0, None, true, s.in_recovery, s.dupacks + 1, None);
            info.in_flight_before_bytes = in_flight_before;
            let count = s.cc.classify_dup_ack(&info);
            match count {
                DupAckCount::Count => s.dupacks += 1,
                DupAckCount::Ignore => {}
                DupAckCount::Reset => s.dupacks = 0,
            }
            s.cc.on_dup_ack(&mut s.w, &info);
            if s.cfg.rtt_sample_duplicate_acks && s.cfg.timestamps && h.has_ts && h.ts_ecr <= now {
                let r = now - h.ts_ecr;
                s.rtt.sample_keeping_backoff(r);
                s.count_rtt_sample(r);
            }
            if s.cfg.rto_restart_every_ack {
                // ns-2.35 TCP-Linux `renew_timer` on a duplicate ACK (data is outstanding).
                s.rto_deadline = Some(now + s.rtt.rto());
            }
            // The policy's own retransmission check (TCP Vegas's fine-grained timeout).
            let head_due = reads_send_times && count == DupAckCount::Count && s.cc.retransmit_head(now, s.head(), &info);
            if s.in_recovery {
                if head_due {
                    // A retransmission on a duplicate ACK: the timer as at a fast retransmit
                    // (ns-2.35's Vegas takes its fast-retransmit branch for it).
                    s.retransmit(now, s.snd_una);
                    s.fast_retransmit_timers(now);
                } else {
                    self.recovery.on_dup_ack(s, now);
                }
            } else if marks_losses {
                // Recovery starts from the strategy's loss marks (below), not a count.
            } else if count == DupAckCount::Count
                && (s.dupacks == s.dupthresh || self.recovery.detects_loss(s) || head_due)
                && self.recovery.may_enter(s)
            {
                self.fast_retransmit(now, h.ece);
            } else if s.cfg.limited_transmit && count == DupAckCount::Count && s.dupacks < s.dupthresh {
                s.limited_transmit(now);
            }
            self.clamp();
        }
        if marks_losses && h.ack == self.core.snd_una {
            // ns-2.35 TCP-Linux `recv`: the scoreboard update marks losses on every ACK, then
            // `tcp_fastretrans_alert` enters TCP_CA_Recovery from Open or Loss on FLAG_DATA_LOST.
            let newly_lost = self.recovery.mark_losses(&mut self.core, now);
            if newly_lost && !self.core.in_recovery {
                self.fast_retransmit(now, h.ece);
            }
            // Marking may also end a Loss episode, whose cwnd moderation can exceed max_cwnd
            // (fuzzing finding, issue 25 part 6): the bound holds after it too.
            self.clamp();
        }
        self.recovery.send(&mut self.core, now);
        if HOOKS {
            self.after_send();
        }
    }

    /// Starts a fast retransmit / loss recovery: the window policy reacts, the recovery strategy
    /// enters (and retransmits, or leaves that to its `send`).
    fn fast_retransmit(&mut self, now: SimTime, ece: bool) {
        let s = &mut self.core;
        s.stats.fast_retransmits += 1;
        let sig = LossSignal { now, kind: LossKind::DupAcks, marked: ece, flight_bytes: s.flight() - s.limited_sent };
        s.prior_cwnd = s.w.cwnd;
        let reaction = s.signal(&sig);
        if s.cfg.ecn {
            // This reduction answers any congestion echoed in the same window.
            s.ecn_recover = Some(s.snd_max);
            s.cwr_pending = true;
        }
        self.recovery.enter(s, now, reaction);
        s.fast_retransmit_timers(now);
    }

    /// The retransmission timer fired at `now` (the caller checked the deadline).
    pub fn on_timeout(&mut self, now: SimTime) {
        let s = &mut self.core;
        s.rto_deadline = None;
        if s.snd_una == s.snd_max {
            return;
        }
        s.stats.timeouts += 1;
        let sig = LossSignal { now, kind: LossKind::Timeout, marked: s.last_ack_ece, flight_bytes: s.flight() };
        s.signal(&sig);
        if s.cfg.ecn {
            s.cwr_pending = true;
            s.ecn_recover = Some(s.snd_max);
        }
        // RFC 6582 §3.2 step 1 / RFC 6675 §5.1: after a timeout, recover = HighData.
        s.recover = Some(s.snd_max);
        s.recover_by_timeout = true;
        s.in_recovery = false;
        s.dupacks = 0;
        s.limited_sent = 0;
        s.high_rxt = s.snd_una;
        s.timing = None;
        // (5.5) back off, (5.4) retransmit from snd_una (go-back-N), (5.6) restart the timer.
        s.rtt.on_timeout();
        s.snd_nxt = s.snd_una;
        self.clamp();
        if self.marks_losses {
            self.recovery.on_timeout(&mut self.core, now);
            self.recovery.send(&mut self.core, now);
        } else {
            self.core.send_window_limited(now);
        }
        self.after_send();
        let s = &mut self.core;
        s.rto_deadline = Some(now + s.rtt.rto());
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::net::SackBlock;

    const MS: u64 = 1_000_000;

    pub(crate) fn cfg(sack: bool, iw: u64) -> SenderConfig {
        SenderConfig {
            mss: 1000,
            rwnd_bytes: 1_000_000,
            max_cwnd_bytes: u64::MAX / 4,
            initial_cwnd_bytes: iw * 1000,
            initial_ssthresh_bytes: 1_000_000,
            dupthresh: 3,
            sack,
            timestamps: false,
            ecn: false,
            initial_rto_ns: 1000 * MS,
            min_rto_ns: 200 * MS,
            max_rto_ns: 60_000 * MS,
            granularity_ns: MS,
            rto_reset_every_partial_ack: false,
            limited_transmit: false,
            ect_on_retransmissions: false,
            rtt_sampling: RttSampling::TimedSegment,
            fast_retransmit_restarts_rto: true,
            fast_retransmit_rto_backoff: false,
            recover_ack_heuristic: false,
            rto_restart_every_ack: false,
            rtt_sample_duplicate_acks: false,
        }
    }

    pub(crate) fn sender(recovery: &str, sack: bool, iw: u64) -> Sender {
        Sender::new(
            cfg(sack, iw),
            crate::cc::build("reno", None).unwrap_or_else(|_| unreachable!()),
            crate::tcp::recovery::by_name(recovery).unwrap(),
        )
    }

    pub(crate) fn ack(n: u64) -> TcpHeader {
        TcpHeader { ack: n, ..TcpHeader::default() }
    }

    pub(crate) fn sent(s: &mut Sender) -> Vec<(u64, bool)> {
        s.core.out.drain(..).map(|o| (o.seq, o.retransmission)).collect()
    }

    /// `rtt_sample_duplicate_acks` (ns-2.35 TCP-Linux): 4 segments sent at t = 0 with TSval 0.
    /// ACK 1000 at 100 ms (TSecr 0): first sample, SRTT 100 ms. Segment 1 lost; duplicate ACKs
    /// at 150 and 200 ms echo TS.Recent = 0 (the segment that last advanced the receiver's left
    /// edge): samples of 150 and 200 ms with the option, SRTT = 7/8·(7/8·100 + 1/8·150) + 1/8·200
    /// = 7/8·106.25 + 25 = 117.968 75 ms; without it the duplicates give none and SRTT stays 100 ms.
    #[test]
    fn duplicate_ack_rtt_samples_by_hand() {
        for on in [false, true] {
            let mut c = cfg(false, 4);
            c.timestamps = true;
            c.rtt_sample_duplicate_acks = on;
            let mut s = Sender::new(c, crate::cc::build("reno", None).unwrap(), crate::tcp::recovery::by_name("reno").unwrap());
            s.offer(0, u64::MAX);
            assert!(sent(&mut s).len() >= 4);
            let ts = |n: u64| TcpHeader { has_ts: true, ts_ecr: 0, ..ack(n) };
            s.on_ack(100 * MS, &ts(1000));
            assert_eq!(s.core.rtt.srtt(), Some(100 * MS));
            s.on_ack(150 * MS, &ts(1000));
            s.on_ack(200 * MS, &ts(1000));
            let want = if on { 117_968_750 } else { 100 * MS };
            assert_eq!((s.core.rtt.srtt(), s.core.stats.rtt_samples), (Some(want), if on { 3 } else { 1 }));
        }
    }

    /// RFC 6582 worked by hand: 10 segments in flight, segments 2 and 5 lost.
    #[test]
    fn newreno_partial_and_full_ack() {
        let mut s = sender("newreno", false, 10);
        s.offer(0, u64::MAX);
        assert_eq!(sent(&mut s).len(), 10);
        s.on_ack(100 * MS, &ack(1000)); // slow start: cwnd 11000, sends 10 and 11
        s.on_ack(101 * MS, &ack(2000)); // cwnd 12000, sends 12 and 13
        assert_eq!(sent(&mut s), vec![(10_000, false), (11_000, false), (12_000, false), (13_000, false)]);
        assert_eq!(s.core.snd_max, 14_000);
        // Segment 2 lost: three duplicate ACKs → fast retransmit.
        for k in 0..3 {
            s.on_ack((102 + k) * MS, &ack(2000));
        }
        // Step 3: ssthresh = max(FlightSize/2, 2 SMSS) = 12000/2; cwnd = ssthresh + 3 SMSS.
        assert_eq!(s.core.w.ssthresh, 6000);
        assert_eq!(s.core.w.cwnd, 9000);
        assert_eq!(s.core.recover, Some(14_000));
        assert_eq!(sent(&mut s), vec![(2000, true)]);
        // Step 4: 8 more duplicates (segments 6..13) inflate cwnd to 17000 → new data up to 19000.
        for k in 0..8 {
            s.on_ack((105 + k) * MS, &ack(2000));
        }
        assert_eq!(s.core.w.cwnd, 17_000);
        assert_eq!(sent(&mut s).iter().map(|x| x.0).collect::<Vec<_>>(), vec![14_000, 15_000, 16_000, 17_000, 18_000]);
        // Step 5: partial ACK for 5000 (3000 newly acked): retransmit 5000,
        // cwnd = 17000 − 3000 + 1000 = 15000, which allows one more new segment.
        s.on_ack(200 * MS, &ack(5000));
        assert!(s.core.in_recovery);
        assert_eq!(s.core.w.cwnd, 15_000);
        assert_eq!(sent(&mut s), vec![(5000, true), (19_000, false)]);
        // Step 6: full ACK → cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS) = min(6000, 1000 + 1000).
        s.on_ack(300 * MS, &ack(20_000));
        assert!(!s.core.in_recovery);
        assert_eq!(s.core.w.cwnd, 2000);
        assert_eq!(s.core.stats.fast_retransmits, 1);
        assert_eq!(s.core.stats.retransmissions, 2);
    }

    /// RFC 3042 worked by hand: 4 segments outstanding (cwnd 4000), segment 0 lost. The first two
    /// duplicates each release one new segment (flight 5000 and 6000 ≤ cwnd + 2 SMSS); the third
    /// starts fast retransmit with ssthresh = (FlightSize − limited-transmit bytes)/2 =
    /// max(4000/2, 2 SMSS) (RFC 5681 §3.2 step 2), cwnd = ssthresh + 3 SMSS, in both modes.
    #[test]
    fn limited_transmit_by_hand() {
        for lt in [false, true] {
            let mut c = cfg(false, 4);
            c.limited_transmit = lt;
            let mut s = Sender::new(c, crate::cc::build("reno", None).unwrap(), crate::tcp::recovery::by_name("newreno").unwrap());
            s.offer(0, u64::MAX);
            assert_eq!(sent(&mut s).len(), 4);
            s.on_ack(MS, &ack(0));
            s.on_ack(2 * MS, &ack(0));
            let early = sent(&mut s);
            assert_eq!(early, if lt { vec![(4000, false), (5000, false)] } else { vec![] });
            assert_eq!(s.core.w.cwnd, 4000, "limited transmit leaves cwnd alone");
            s.on_ack(3 * MS, &ack(0));
            // cwnd 5000: without limited transmit the flight (4000) leaves room for segment 4
            // now; with it, segments 4 and 5 already went out (flight 6000).
            assert_eq!(sent(&mut s), if lt { vec![(0, true)] } else { vec![(0, true), (4000, false)] });
            assert_eq!((s.core.w.ssthresh, s.core.w.cwnd), (2000, 5000));
        }
        // The receiver's window caps it: rwnd 5000 admits one extra segment only.
        let mut c = cfg(false, 4);
        c.limited_transmit = true;
        c.rwnd_bytes = 5000;
        let mut s = Sender::new(c, crate::cc::build("reno", None).unwrap(), crate::tcp::recovery::by_name("newreno").unwrap());
        s.offer(0, u64::MAX);
        sent(&mut s);
        s.on_ack(MS, &ack(0));
        s.on_ack(2 * MS, &ack(0));
        assert_eq!(sent(&mut s), vec![(4000, false)]);
    }

    /// Tahoe's recover guard is ns-2's `bugfix_` (ACK must pass `recover`), not RFC 6582's ACK
    /// heuristic: segments 0..7 out, 0 lost → fast retransmit, recover = 8000, go back N. A
    /// cumulative ACK of 2000 (a 2-SMSS advance, cwnd 2000 > SMSS) followed by three duplicates
    /// would pass the heuristic, but 2000 ≤ recover, so no second fast retransmit. (With limited
    /// transmit the heuristic turned go-back-N duplicates into hundreds of spurious ones.)
    #[test]
    fn tahoe_recover_guard_is_strict() {
        let mut s = sender("tahoe", false, 8);
        s.offer(0, u64::MAX);
        assert_eq!(sent(&mut s).len(), 8);
        for k in 0..3 {
            s.on_ack(k * MS, &ack(0));
        }
        assert_eq!(s.core.stats.fast_retransmits, 1);
        assert_eq!(s.core.recover, Some(8000));
        assert_eq!(sent(&mut s), vec![(0, true)]);
        s.on_ack(10 * MS, &ack(2000));
        assert_eq!(s.core.w.cwnd, 2000);
        assert!(!s.core.recover_guard_passes());
        s.core.cfg.recover_ack_heuristic = true;
        assert!(s.core.recover_guard_passes(), "the RFC 6582 ACK heuristic would allow it");
        s.core.cfg.recover_ack_heuristic = false;
        for k in 0..3 {
            s.on_ack((11 + k) * MS, &ack(2000));
        }
        assert_eq!(s.core.stats.fast_retransmits, 1);
    }

    /// Reno (RFC 5681) leaves recovery on the first new ACK even when it is partial.
    #[test]
    fn reno_exits_on_partial_ack() {
        let mut s = sender("reno", false, 8);
        s.offer(0, u64::MAX);
        sent(&mut s);
        for k in 0..3 {
            s.on_ack(k * MS, &ack(0));
        }
        assert!(s.core.in_recovery);
        assert_eq!((s.core.w.ssthresh, s.core.w.cwnd), (4000, 7000));
        s.on_ack(10 * MS, &ack(3000)); // partial
        assert!(!s.core.in_recovery);
        assert_eq!(s.core.w.cwnd, 4000);
    }

    /// Segments 0..9 outstanding (MSS 1000), and an ACK of 0 SACKing 4, 5, 6 and 8 (the scoreboard
    /// of the hand-worked SACK and FACK tests).
    pub(crate) fn sacked_4_5_6_8(recovery: &str) -> Sender {
        let mut s = sender(recovery, true, 10);
        s.offer(0, u64::MAX);
        sent(&mut s);
        let mut h = ack(0);
        h.n_sack = 2;
        h.sack[0] = SackBlock { start: 8000, end: 9000 };
        h.sack[1] = SackBlock { start: 4000, end: 7000 };
        s.on_ack(MS, &h);
        s
    }

    /// RFC 6675 SetPipe and NextSeg worked by hand: segments 0..9 outstanding, 4, 5, 6 and 8
    /// SACKed, 0 and 1 already retransmitted (HighRxt = 2000), DupThresh 3.
    /// IsLost: segments 0–3 have 4 SACKed above → lost; 7 has 1, 9 has 0 → not lost.
    /// pipe = seg 0 (lost, retransmitted: +1) + seg 1 (+1) + 2, 3 (lost, not retransmitted: 0)
    ///      + seg 7 (not lost: +1) + seg 9 (+1) = 4 segments.
    /// NextSeg rule (1): the first lost unSACKed segment at or above HighRxt = segment 2.
    #[test]
    fn rfc6675_pipe_and_nextseg_by_hand() {
        let mut s = sacked_4_5_6_8("sack");
        let c = &mut s.core;
        assert_eq!(c.board.iter().filter(|m| m.sacked).count(), 4);
        c.high_rxt = 2000;
        assert_eq!(c.pipe(), 4000);
        assert_eq!(c.next_seg(), Some((2000, true)));
        c.high_rxt = 4000; // segments 2 and 3 retransmitted as well
        assert_eq!(c.pipe(), 6000);
        // No more lost segments above HighRxt: rule (2) new data.
        assert_eq!(c.next_seg(), Some((10_000, false)));
    }

    /// Entering SACK recovery: cwnd = ssthresh = FlightSize/2, first unSACKed segment resent,
    /// then nothing more while pipe ≥ cwnd.
    #[test]
    fn sack_recovery_entry() {
        let mut s = sender("sack", true, 10);
        s.offer(0, u64::MAX);
        sent(&mut s);
        for k in 0..3u64 {
            let mut h = ack(0);
            h.n_sack = 1;
            h.sack[0] = SackBlock { start: 1000, end: 2000 + k * 1000 };
            s.on_ack((k + 1) * MS, &h);
        }
        assert!(s.core.in_recovery);
        assert_eq!((s.core.w.ssthresh, s.core.w.cwnd), (5000, 5000));
        // pipe: seg 0 lost & retransmitted (1) + segs 4..9 not lost (6) = 7000 ≥ cwnd.
        assert_eq!(s.core.pipe(), 7000);
        assert_eq!(sent(&mut s), vec![(0, true)]);
    }

    /// Karn's rule: no RTT sample from an ACK of a retransmitted segment; the backed-off RTO is
    /// kept until a segment sent once is acknowledged.
    #[test]
    fn karn_rule_and_backoff() {
        let mut s = sender("newreno", false, 1);
        s.offer(0, u64::MAX);
        assert_eq!(sent(&mut s), vec![(0, false)]);
        assert_eq!(s.core.rto_deadline, Some(1000 * MS));
        s.on_timeout(1000 * MS);
        assert_eq!(sent(&mut s), vec![(0, true)]);
        assert_eq!(s.core.rtt.rto(), 2000 * MS);
        assert_eq!(s.core.rto_deadline, Some(3000 * MS));
        // The ACK of the retransmission (ambiguous) gives no sample and keeps the back-off.
        s.on_ack(1100 * MS, &ack(1000));
        assert_eq!(s.core.stats.rtt_samples, 0);
        assert_eq!(s.core.rtt.rto(), 2000 * MS);
        // Segment 1000 was sent once (at 1100 ms): its ACK is a valid sample of 80 ms.
        assert_eq!(sent(&mut s).first(), Some(&(1000, false)));
        s.on_ack(1180 * MS, &ack(2000));
        assert_eq!(s.core.stats.rtt_samples, 1);
        assert_eq!(s.core.rtt.srtt(), Some(80 * MS));
        // RFC 6298 (2.2): SRTT 80, RTTVAR 40 → RTO = 80 + 4·40 = 240 ms, back-off cleared.
        assert_eq!(s.core.rtt.rto(), 240 * MS);
    }

    /// Segments 0..9 out at t = 0 (IW 10); the ACK of segment 0 at 100 ms gives SRTT 100,
    /// RTTVAR 50, RTO = 100 + 4·50 = 300 ms, restarts the timer (400 ms) and releases segments
    /// 10 and 11 (segment 10 is timed from 100 ms); segment 1 is lost.
    fn one_loss_after_first_sample(restart: bool) -> Sender {
        let mut c = cfg(false, 10);
        c.fast_retransmit_restarts_rto = restart;
        let mut s = Sender::new(c, crate::cc::build("reno", None).unwrap(), crate::tcp::recovery::by_name("newreno").unwrap());
        s.offer(0, u64::MAX);
        assert_eq!(sent(&mut s).len(), 10);
        s.on_ack(100 * MS, &ack(1000));
        assert_eq!(s.core.rtt.rto(), 300 * MS);
        assert_eq!(s.core.rto_deadline, Some(400 * MS));
        assert_eq!(sent(&mut s), vec![(10_000, false), (11_000, false)]);
        assert_eq!(s.core.timing, Some((11_000, 100 * MS)));
        s
    }

    /// ns-2.35 `dupack_action` → `reset_rtx_timer(1, 0)`: the third duplicate ACK (130 ms)
    /// restarts the timer at 130 + 300 = 430 ms and stops timing segment 10, so the full ACK at
    /// 230 ms gives no sample. With `fast_retransmit_restarts_rto = false` the timer armed by
    /// the ACK at 100 ms still expires at 400 ms, 270 ms into the recovery.
    #[test]
    fn fast_retransmit_restarts_timer_and_stops_timing() {
        for restart in [true, false] {
            let mut s = one_loss_after_first_sample(restart);
            for t in [110, 120, 130] {
                s.on_ack(t * MS, &ack(1000));
            }
            assert_eq!(s.core.stats.fast_retransmits, 1);
            assert_eq!(sent(&mut s), vec![(1000, true)]);
            assert_eq!(s.core.rto_deadline, Some(if restart { 430 * MS } else { 400 * MS }));
            assert_eq!(s.core.timing, None);
            s.on_ack(230 * MS, &ack(12_000));
            assert!(!s.core.in_recovery);
            assert_eq!(s.core.stats.rtt_samples, 1, "no sample from the recovery");
        }
    }

    /// Karn's rule voids the measurement only when the timed segment itself is resent: resending
    /// segment 1 (a CAIAD-style repair at 105 ms) keeps segment 10 timed, and its ACK at 230 ms
    /// is a sample of 130 ms (SRTT = 7/8·100 + 1/8·130 = 103.75 ms); resending segment 10 voids it.
    #[test]
    fn karn_voids_only_the_timed_segment() {
        let mut s = one_loss_after_first_sample(true);
        s.core.retransmit(105 * MS, 1000);
        assert_eq!(s.core.timing, Some((11_000, 100 * MS)));
        s.on_ack(230 * MS, &ack(11_000));
        assert_eq!(s.core.stats.rtt_samples, 2);
        assert_eq!(s.core.rtt.srtt(), Some(103_750_000));
        let mut s = one_loss_after_first_sample(true);
        s.core.retransmit(105 * MS, 10_000);
        assert_eq!(s.core.timing, None);
        s.on_ack(230 * MS, &ack(11_000));
        assert_eq!(s.core.stats.rtt_samples, 1);
    }

    /// Linux-style sampling (`rtt_sampling = every-ack`): IW 4 at t = 0. ACK 1000 at 100 ms:
    /// sample 100 ms. ACK 3000 at 130 ms newly acknowledges segments 1 and 2, both sent once at
    /// t = 0: sample 130 ms (SRTT 103.75 ms). Segment 3 is resent at 140 ms; the ACK of 4000 at
    /// 150 ms covers a retransmitted segment and gives none (`FLAG_RETRANS_DATA_ACKED`).
    #[test]
    fn every_ack_sampling_by_hand() {
        let mut c = cfg(false, 4);
        c.rtt_sampling = RttSampling::EveryAck;
        let mut s = Sender::new(c, crate::cc::build("reno", None).unwrap(), crate::tcp::recovery::by_name("newreno").unwrap());
        s.offer(0, u64::MAX);
        assert_eq!(sent(&mut s).len(), 4);
        s.on_ack(100 * MS, &ack(1000));
        s.on_ack(130 * MS, &ack(3000));
        assert_eq!(s.core.stats.rtt_samples, 2);
        assert_eq!(s.core.rtt.srtt(), Some(103_750_000));
        s.core.retransmit(140 * MS, 3000);
        s.on_ack(150 * MS, &ack(4000));
        assert_eq!(s.core.stats.rtt_samples, 2);
        // The next ACK covers only segments sent once (4 and 5, sent at 100 ms): 60 ms.
        s.on_ack(160 * MS, &ack(6000));
        assert_eq!(s.core.stats.rtt_samples, 3);
        assert_eq!(s.core.rtt.min_rtt, Some(60 * MS));
    }

    /// ns-2.35 Reno with `bugfix_`: two losses in one window (segments 0 and 3 of 0..7). The
    /// third duplicate starts recovery (recover = 8000), the partial ACK of 3000 ends it (Reno),
    /// and the three duplicates of 3000 that follow do not start a second fast retransmit:
    /// 3000 ≤ recover. (Without the guard Reno halved its window twice for one window's losses.)
    #[test]
    fn reno_second_loss_in_window_waits_for_recover() {
        let mut s = sender("reno", false, 8);
        s.offer(0, u64::MAX);
        sent(&mut s);
        for k in 0..3 {
            s.on_ack(k * MS, &ack(0));
        }
        assert_eq!(s.core.stats.fast_retransmits, 1);
        assert_eq!(s.core.recover, Some(8000));
        s.on_ack(10 * MS, &ack(3000));
        assert!(!s.core.in_recovery);
        for k in 0..3 {
            s.on_ack((11 + k) * MS, &ack(3000));
        }
        assert_eq!(s.core.stats.fast_retransmits, 1);
        assert_eq!(s.core.w.ssthresh, 4000);
    }

    /// `max_cwnd_bytes` bounds the initial window (fuzzing finding, issue 25 part 6): IW 4 with a
    /// 2-segment bound sends 2 segments, not 4 (scenario `initial_cwnd_pkts = 4`,
    /// `max_cwnd_pkts = 2`; the docs call `max_cwnd_pkts` an upper bound on cwnd).
    #[test]
    fn max_cwnd_bounds_the_initial_window() {
        let mut c = cfg(false, 4);
        c.max_cwnd_bytes = 2000;
        let mut s = Sender::new(c, crate::cc::build("reno", None).unwrap(), crate::tcp::recovery::by_name("newreno").unwrap());
        assert_eq!(s.core.w.cwnd, 2000);
        s.offer(0, u64::MAX);
        assert_eq!(sent(&mut s), vec![(0, false), (1000, false)]);
    }

    /// An ACK number inside a segment acknowledges only the whole segments below it (fuzzing
    /// finding, issue 25 part 6): IW 4 (segments 0..3 of 1000 B), ACK 1500 moves snd_una to 1000
    /// and releases new data from 4000 on; ACK 1200, inside the first outstanding segment, is
    /// neither new nor a duplicate; the timeout resends segment 1000 whole, within snd_max. (The
    /// sender used to set snd_una = 1500 and resend [1500, 2500) and later "retransmit" bytes
    /// above snd_max it had never sent.) A corruption report inside a segment is ignored too.
    #[test]
    fn ack_inside_a_segment_acknowledges_whole_segments() {
        let mut s = sender("newreno", false, 4);
        s.offer(0, u64::MAX);
        assert_eq!(sent(&mut s).len(), 4);
        s.on_ack(100 * MS, &ack(1500));
        assert_eq!((s.core.snd_una, s.core.stats.acked_bytes), (1000, 1000));
        assert_eq!(sent(&mut s), vec![(4000, false), (5000, false)]);
        s.on_ack(110 * MS, &ack(1200));
        assert_eq!((s.core.snd_una, s.core.dupacks), (1000, 0));
        s.on_timeout(s.core.rto_deadline.unwrap());
        assert_eq!(sent(&mut s), vec![(1000, true)]);
        assert_eq!(s.core.snd_max, 6000);
        let mut c = Sender::new(cfg(false, 4), crate::cc::build("caiad", None).unwrap(), crate::tcp::recovery::by_name("newreno").unwrap());
        c.offer(0, u64::MAX);
        sent(&mut c);
        c.on_ack(MS, &TcpHeader { corrupt_seq: Some(1500), ..ack(0) });
        assert_eq!(sent(&mut c), vec![]);
        c.on_ack(2 * MS, &TcpHeader { corrupt_seq: Some(1000), ..ack(0) });
        assert_eq!(sent(&mut c), vec![(1000, true)]);
    }
}
