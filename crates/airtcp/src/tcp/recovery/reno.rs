//! TCP Reno fast retransmit / fast recovery, RFC 5681 §3.2.
//!
//! Step 2-3: on the third duplicate ACK retransmit the first unacknowledged segment and set
//! cwnd = ssthresh + 3*SMSS. Step 4: each further duplicate ACK inflates cwnd by SMSS.
//! Step 6: the next ACK of new data deflates cwnd to ssthresh and ends recovery, even when it is
//! partial (Reno's weakness with several losses in one window). No recover guard (RFC 5681 has
//! none).

use super::LossRecovery;
use crate::cc::Reaction;
use crate::tcp::sender::SenderCore;
use crate::time::SimTime;

#[derive(Debug, Default)]
pub struct Reno;

impl LossRecovery for Reno {
    fn name(&self) -> &'static str {
        "reno"
    }

    fn may_enter(&self, _s: &SenderCore) -> bool {
        true
    }

    fn enter(&mut self, s: &mut SenderCore, now: SimTime, reaction: Reaction) {
        super::fast_retransmit_with_inflation(s, now, reaction);
    }

    fn on_dup_ack(&mut self, s: &mut SenderCore, _now: SimTime) {
        s.w.cwnd += s.w.mss;
    }

    fn on_ack(&mut self, s: &mut SenderCore, _now: SimTime, _acked: u64) -> bool {
        s.w.cwnd = s.recovery_base;
        true
    }
}
