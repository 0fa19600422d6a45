//! TCP Reno fast retransmit / fast recovery, RFC 5681 §3.2.
//!
//! Step 2-3: on the third duplicate ACK retransmit the first unacknowledged segment and set
//! cwnd = ssthresh + 3*SMSS. Step 4: each further duplicate ACK inflates cwnd by SMSS.
//! Step 6: the next ACK of new data deflates cwnd to ssthresh and ends recovery, even when it is
//! partial (Reno's weakness with several losses in one window). RFC 5681 has no recover guard;
//! like ns-2.35's Reno (`bugfix_`, on by default: `highest_ack_ > recover_` in `dupack_action`) and
//! Linux (no fast recovery from CA_Loss before `high_seq`), a new fast retransmit needs the
//! cumulative ACK past `recover`, which every fast retransmit and timeout sets to HighData
//! ([`LossRecovery::may_enter`]'s default). Without it the duplicate ACKs that go-back-N resends
//! provoke after a timeout, and those of the second loss of a window after a partial-ACK exit,
//! start further window reductions.

use super::LossRecovery;
use crate::cc::Reaction;
use crate::tcp::core::RecoveryCtx;
use crate::time::SimTime;

#[derive(Debug, Default)]
pub struct Reno;

impl LossRecovery for Reno {
    fn name(&self) -> &'static str {
        "reno"
    }

    /// `send` is the trait's own: what min(cwnd, rwnd) allows.
    fn sends_window_limited(&self) -> bool {
        true
    }

    fn enter(&mut self, s: RecoveryCtx<'_>, now: SimTime, reaction: Reaction) {
        super::fast_retransmit_with_inflation(s, now, reaction);
    }

    fn on_dup_ack(&mut self, mut s: RecoveryCtx<'_>, _now: SimTime) {
        s.set_cwnd(s.w().cwnd + s.w().mss);
    }

    fn on_ack(&mut self, mut s: RecoveryCtx<'_>, _now: SimTime, _acked: u64) -> bool {
        s.set_cwnd(s.rec().recovery_base);
        true
    }
}
