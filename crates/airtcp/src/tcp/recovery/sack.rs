//! SACK-based loss recovery, RFC 6675 ("conservative" recovery with the pipe estimator).
//!
//! §5 step (4): on entering, RecoveryPoint = HighData, cwnd = ssthresh, retransmit the first
//! unSACKed segment (HighACK+1), then run step (C): while cwnd − pipe ≥ 1 SMSS send NextSeg().
//! NextSeg (§4): rule (1) the first unSACKed segment above HighRxt that IsLost; rule (2) new data;
//! rule (3) the first unSACKed segment above HighRxt below the highest SACKed byte. The optional
//! rescue retransmission (rule 4) is not implemented. Recovery ends when the cumulative ACK
//! reaches RecoveryPoint.

use super::LossRecovery;
use crate::cc::Reaction;
use crate::tcp::core::RecoveryCtx;
use crate::time::SimTime;

#[derive(Debug, Default)]
pub struct Sack;

impl LossRecovery for Sack {
    fn name(&self) -> &'static str {
        "sack"
    }

    fn enter(&mut self, mut s: RecoveryCtx<'_>, now: SimTime, reaction: Reaction) {
        s.begin_recovery(reaction);
        s.set_cwnd(s.rec().recovery_base);
        s.stop_go_back_n();
        let una = s.seq().snd_una;
        s.set_high_rxt(una);
        s.retransmit(now, una);
        s.set_high_rxt(una + s.seg_len(una));
    }

    fn on_dup_ack(&mut self, _s: RecoveryCtx<'_>, _now: SimTime) {}

    fn on_ack(&mut self, mut s: RecoveryCtx<'_>, _now: SimTime, _acked: u64) -> bool {
        s.set_high_rxt(s.rec().high_rxt.max(s.seq().snd_una));
        s.seq().snd_una >= s.rec().recover.unwrap_or(0)
    }

    fn send(&mut self, mut s: RecoveryCtx<'_>, now: SimTime) {
        if !s.rec().in_recovery {
            s.send_window_limited(now);
            return;
        }
        let mut pipe = s.pipe();
        while s.w().cwnd >= pipe + s.w().mss {
            let Some((seq, retx)) = s.next_seg() else { break };
            if !s.pacing_allows(now) {
                break;
            }
            let len = s.seg_len(seq);
            if retx {
                s.retransmit(now, seq);
                s.set_high_rxt(s.rec().high_rxt.max(seq + len));
            } else {
                s.send_new(now);
            }
            pipe += len;
        }
    }
}
