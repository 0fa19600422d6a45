//! TCP Tahoe (Jacobson 1988): fast retransmit without fast recovery. On the n-th duplicate ACK
//! the sender sets ssthresh, drops cwnd to one segment and goes back to snd_una, resending in
//! slow start (go-back-N) — as after a timeout. The recover guard (ns-2's `bugfix_`) keeps the
//! duplicate ACKs of one loss episode from triggering it again.

use super::LossRecovery;
use crate::cc::Reaction;
use crate::tcp::sender::SenderCore;
use crate::time::SimTime;

#[derive(Debug, Default)]
pub struct Tahoe;

impl LossRecovery for Tahoe {
    fn name(&self) -> &'static str {
        "tahoe"
    }

    fn enter(&mut self, s: &mut SenderCore, now: SimTime, reaction: Reaction) {
        s.recover = Some(s.snd_max);
        if reaction == Reaction::Reduce {
            s.w.cwnd = s.w.mss;
            s.snd_nxt = s.snd_una;
            s.send_window_limited(now);
        } else {
            s.retransmit(now, s.snd_una);
        }
    }

    fn on_dup_ack(&mut self, _s: &mut SenderCore, _now: SimTime) {}

    fn on_ack(&mut self, _s: &mut SenderCore, _now: SimTime, _acked: u64) -> bool {
        true
    }
}
