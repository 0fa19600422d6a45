//! TCP Tahoe (Jacobson 1988): fast retransmit without fast recovery. On the n-th duplicate ACK
//! the sender sets ssthresh, drops cwnd to one segment and goes back to snd_una, resending in
//! slow start (go-back-N) — as after a timeout. The recover guard (ns-2's `bugfix_`, the default
//! [`LossRecovery::may_enter`]) keeps the duplicate ACKs of one loss episode from triggering it
//! again: Tahoe goes back N after each fast retransmit, so the duplicates of segments the receiver
//! already holds come back as duplicate ACKs after small cumulative advances, which is exactly what
//! RFC 6582's ACK heuristic (`recover_ack_heuristic`) takes for a new loss.

use super::LossRecovery;
use crate::cc::Reaction;
use crate::tcp::core::RecoveryCtx;
use crate::time::SimTime;

#[derive(Debug, Default)]
pub(crate) struct Tahoe;

impl LossRecovery for Tahoe {
    fn name(&self) -> &'static str {
        "tahoe"
    }

    /// `send` is the trait's own: what min(cwnd, rwnd) allows.
    fn sends_window_limited(&self) -> bool {
        true
    }

    fn enter(&mut self, mut s: RecoveryCtx<'_>, now: SimTime, reaction: Reaction) {
        s.set_recover_to_high_data();
        if reaction == Reaction::Reduce {
            s.set_cwnd(s.w().mss);
            s.go_back_n();
            s.send_window_limited(now);
        } else {
            s.retransmit(now, s.seq().snd_una);
        }
    }

    fn on_dup_ack(&mut self, _s: RecoveryCtx<'_>, _now: SimTime) {}

    fn on_ack(&mut self, _s: RecoveryCtx<'_>, _now: SimTime, _acked: u64) -> bool {
        true
    }
}
