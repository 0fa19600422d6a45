//! NewReno, RFC 6582 §3.2.
//!
//! Step 3: on the third duplicate ACK record recover = HighData, retransmit, cwnd = ssthresh +
//! 3*SMSS. Step 4: inflate by SMSS per further duplicate ACK. Step 5 (partial ACK): retransmit the
//! first unacknowledged segment, deflate cwnd by the amount newly acknowledged and add back one
//! SMSS if that amount was at least SMSS; reset the retransmit timer on the first partial ACK only
//! (the "Impatient" variant, RFC 6582 §4, and ns-2.35's default: `newreno_changes1_ 1` resets the
//! timer in `partialnewack_helper` only while `firstpartial_` is 0), or on every one with
//! `partial_ack_timer = "slow-but-steady"` (ns-2 with `newreno_changes1_ 0`; Linux re-arms the RTO
//! on every ACK of new data): after a slow-start overshoot of ~70 losses it recovers one per RTT
//! without a timeout, where Impatient times out and goes back N. Step 6 (full ACK): cwnd = min(ssthresh,
//! max(FlightSize, SMSS) + SMSS) — option (1) of the RFC, which avoids a burst — and exit.

use super::LossRecovery;
use crate::cc::Reaction;
use crate::tcp::core::RecoveryCtx;
use crate::time::SimTime;

#[derive(Debug, Default)]
pub struct NewReno {
    partial_acks: u32,
}

impl LossRecovery for NewReno {
    fn name(&self) -> &'static str {
        "newreno"
    }

    /// `send` is the trait's own: what min(cwnd, rwnd) allows.
    fn sends_window_limited(&self) -> bool {
        true
    }

    fn enter(&mut self, s: RecoveryCtx<'_>, now: SimTime, reaction: Reaction) {
        self.partial_acks = 0;
        super::fast_retransmit_with_inflation(s, now, reaction);
    }

    fn on_dup_ack(&mut self, mut s: RecoveryCtx<'_>, _now: SimTime) {
        s.set_cwnd(s.w().cwnd + s.w().mss);
    }

    fn on_ack(&mut self, mut s: RecoveryCtx<'_>, now: SimTime, acked: u64) -> bool {
        let recover = s.rec().recover.unwrap_or(0);
        let mss = s.w().mss;
        if s.seq().snd_una >= recover {
            // Full acknowledgment.
            let base = s.rec().recovery_base;
            s.set_cwnd(if s.rec().reaction == Reaction::Reduce { base.min(s.flight().max(mss) + mss) } else { base });
            return true;
        }
        // Partial acknowledgment.
        self.partial_acks += 1;
        s.retransmit(now, s.seq().snd_una);
        let mut cwnd = s.w().cwnd.saturating_sub(acked);
        if acked >= mss {
            cwnd += mss;
        }
        s.set_cwnd(cwnd.max(mss));
        s.set_restart_timer_on_ack(self.partial_acks == 1 || s.cfg().rto_reset_every_partial_ack);
        false
    }
}
