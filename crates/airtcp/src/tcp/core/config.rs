//! The sender's settings, the segments it hands to the engine, and its counters.

use crate::tcp::rto::RtoFormula;

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
    /// A timeout halves the window without fast recovery's inflation (at most rwnd), as ns-2.35's
    /// `slowdown(CLOSE_SSTHRESH_HALF)` does, instead of FlightSize (RFC 5681 eq. (4)).
    pub timeout_ssthresh_from_window: bool,
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
    /// Arm the `recover` guard only at a timeout: after a fast recovery has ended, duplicate ACKs
    /// start the next fast retransmit even when the cumulative ACK has not passed `recover`.
    /// ns-2.35's `Agent/TCP/Sack1` clears `recover_` when its fast recovery ends (sack1.cc
    /// `Sack1TcpAgent::recv`: `if (tcph->seqno() >= recover_) { recover_ = 0; fastrecov_ = FALSE;`)
    /// and sets it only in `dupack_action` and `timeout`, so its `highest_ack_ > recover_` test
    /// holds back a fast retransmit only after a timeout. RFC 6675 §5 applies the guard after every
    /// loss event ("the cumulative acknowledgment point is beyond the last value of
    /// RecoveryPoint"), which is the default (`false`). It decides when the first segment sent
    /// after a recovery's RecoveryPoint is lost: with the guard it waits for the timer.
    pub recover_guard_timeout_only: bool,
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
    /// How the RTO follows the RTT samples: RFC 6298 (the default) or Linux's estimator (see
    /// [`crate::tcp::rto::RtoFormula`]).
    pub rto_formula: RtoFormula,
    /// Whether a spurious timeout is detected and undone (see [`RtoUndoPolicy`]).
    pub rto_undo: RtoUndoPolicy,
}

/// A flow's settings when its scenario sets none of them (the `[[flows]]` defaults of
/// docs/scenario.md): MSS 1000 B, receiver window 1000 segments (also the initial ssthresh, RFC
/// 5681 §3.1 "arbitrarily high"), initial window 1 segment, DupThresh 3, RTO 1 s initially and
/// within [200 ms, 60 s] on a 1 ms clock (RFC 6298, ns-2.35's `minrto_`), limited transmit on
/// (RFC 3042), no SACK, timestamps or ECN, and every ns-2/Linux variant option off. Tests and fuzz targets start from it and change
/// what they exercise, so that a new setting is given its default in one place.
impl Default for SenderConfig {
    fn default() -> Self {
        const MS: u64 = 1_000_000;
        SenderConfig {
            mss: 1000,
            rwnd_bytes: 1_000_000,
            max_cwnd_bytes: u64::MAX / 4,
            initial_cwnd_bytes: 1000,
            initial_ssthresh_bytes: 1_000_000,
            dupthresh: 3,
            sack: false,
            timestamps: false,
            ecn: false,
            initial_rto_ns: 1000 * MS,
            min_rto_ns: 200 * MS,
            max_rto_ns: 60_000 * MS,
            granularity_ns: MS,
            rto_reset_every_partial_ack: false,
            timeout_ssthresh_from_window: false,
            limited_transmit: true,
            ect_on_retransmissions: false,
            rtt_sampling: RttSampling::TimedSegment,
            fast_retransmit_restarts_rto: true,
            fast_retransmit_rto_backoff: false,
            recover_ack_heuristic: false,
            recover_guard_timeout_only: false,
            rto_restart_every_ack: false,
            rtt_sample_duplicate_acks: false,
            rto_formula: RtoFormula::Rfc6298,
            rto_undo: RtoUndoPolicy::None,
        }
    }
}

/// What the sender does when a retransmission timeout proves spurious (the flow option
/// `rto_undo`). A cellular link's outage holds packets in its queue for seconds: the timer
/// expires, yet the originals arrive once the link is back.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RtoUndoPolicy {
    /// Nothing: every timeout stands (RFC 6298, ns-2.35, the seeds).
    #[default]
    None,
    /// RFC 3522 Eifel detection with timestamps (the first acceptable ACK after the timeout's
    /// retransmission echoes an older TSval; Linux `tcp_packet_delayed`), answered as Linux
    /// answers it: the window before the timeout comes back and the go-back-N resends stop.
    /// Needs `timestamps = true`.
    Eifel,
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
    /// Timeouts found spurious and undone (`rto_undo = "eifel"`).
    pub spurious_timeouts: u64,
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
