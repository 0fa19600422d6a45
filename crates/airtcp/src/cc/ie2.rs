//! IE²-TCP, the *ideal end-to-end* TCP of the TCP Prairie thesis (Parvez 2004, §2.4): not a protocol but the
//! envelope of what any window-based end-to-end scheme can achieve over a lossy path — "the
//! upper bound on the TCP throughput performance under window-based end-to-end transmission
//! control". Named `ie2-envelope` in scenarios and outputs so that nobody mistakes it for a scheme
//! to deploy: it never backs off, whatever the loss.
//!
//! The thesis's assumptions (§2.4), and where each lives in airtcp:
//! - "timeout mechanism along with exponential RTO backoff", "fast retransmit ... after
//!   tcp_rexmit_thresh duplicate ACKs": the engine's sender (RFC 6298, RFC 5681), unchanged.
//! - "retransmits a lost segment after receiving partial duplicate ACKs", "SACK-based
//!   retransmission" rather than go-back-N, and "uses the information in the SACK acknowledgement
//!   to estimate outstanding data": SACK loss recovery (RFC 6675 pipe and NextSeg), so the scheme
//!   needs `sack = true` (use `recovery = "sack"`); after a timeout the sender resends only the
//!   segments not SACKed.
//! - "maintains the transmission window size equal to the receiver-advertised window size all the
//!   time": this file. cwnd and ssthresh are set to the receiver window when the flow starts and
//!   after every event, and every loss signal is answered with [`Reaction::KeepWindow`].
//!
//! What it bounds, precisely: every scheme's goodput on a path whose pipe (bottleneck rate × base
//! RTT, in segments) is at least the receiver window, at any loss rate — tested on the thesis's
//! chapter-2 path (window 15 = its pipe, 1-4% loss) and on TCP-Jersey's Fig. 10 path over windows
//! 10, 15 and 23 (its pipe) × 0.1, 1 and 5% loss, within one segment of goodput where the window
//! limits every scheme alike (`tests/engine/envelope.rs`). Beyond the pipe, and over time-varying
//! capacities (the cellular experiments leave it out), it is not a bound:
//!
//! When it is a bound: the thesis runs it with a window of 15 segments, the pipe of its path
//! (2 Mb/s × 60 ms), where the receiver window limits every scheme alike. With a receiver window
//! well above the pipe it is not one, and no sender change can make it one while the window is
//! held at rwnd: at every loss snd_max − snd_una = rwnd, so nothing new may be sent during the
//! repair RTT (the usable window is SND.UNA + SND.WND − SND.NXT, RFC 9293 §3.8.6.2.1), and the
//! cumulative ACK that ends it releases a whole window at once; a scheme whose cwnd is near the
//! pipe keeps rwnd − cwnd of room and sends through the repair. Measured on TCP-Jersey's Fig. 10
//! path (examples/jersey_fig10.toml, pipe ≈ 23 segments, 50-packet queues) with rwnd 60, seeds
//! 1–5: the 60-segment releases overflow the sender's 10 Mb/s link queue (51 places), 9 segments
//! per release, and the next repair ends in the next release (≈ 620 drops per 100 s even at 0.1%
//! loss); the envelope gets 1.71 / 1.61 / 1.27 Mb/s at 0.1 / 1 / 5% against Vegas's 1.89 and
//! Westwood's 1.79 / 0.78. With a 100-packet sender queue (no drops) it still gets 1.67 Mb/s at 1%:
//! the stall alone. With rwnd 23 it is above every scheme at all three rates.

use super::{AckInfo, CongestionControl, LossSignal, Needs, Reaction, Window};

/// The envelope's window policy: cwnd pinned to the receiver window.
#[derive(Debug, Clone, Default)]
pub(crate) struct Ie2Envelope {
    rwnd_bytes: u64,
}

impl Ie2Envelope {
    fn pin(&self, w: &mut Window) {
        // Thesis §2.4: "transmission window size equal to the receiver-advertized window size
        // all the time".
        w.cwnd = self.rwnd_bytes;
        w.ssthresh = self.rwnd_bytes;
    }
}

impl CongestionControl for Ie2Envelope {
    fn name(&self) -> &'static str {
        "ie2-envelope"
    }

    fn on_start(&mut self, w: &mut Window, rwnd_bytes: u64) {
        self.rwnd_bytes = rwnd_bytes;
        self.pin(w);
    }

    fn on_ack(&mut self, w: &mut Window, _ack: &AckInfo) {
        self.pin(w);
    }

    fn on_dup_ack(&mut self, w: &mut Window, _ack: &AckInfo) {
        self.pin(w);
    }

    fn on_congestion(&mut self, w: &mut Window, _signal: &LossSignal) -> Reaction {
        // No loss, timeout or mark reduces the window: retransmit and carry on.
        self.pin(w);
        Reaction::KeepWindow
    }

    fn on_recovery_exit(&mut self, w: &mut Window) {
        self.pin(w);
    }

    fn needs(&self) -> Needs {
        // Thesis §2.4: SACK-based retransmission and outstanding-data estimate.
        Needs { sack: true, ..Needs::default() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::LossKind;

    #[test]
    fn window_is_the_receiver_window_through_every_event() {
        let mut cc = Ie2Envelope::default();
        let mut w = Window { cwnd: 1000, ssthresh: u64::MAX / 4, mss: 1000 };
        cc.on_start(&mut w, 15_000);
        assert_eq!((w.cwnd, w.ssthresh), (15_000, 15_000));
        for kind in [LossKind::DupAcks, LossKind::Timeout, LossKind::Ecn] {
            w.cwnd = 1000; // whatever a recovery strategy did in between
            let r = cc.on_congestion(&mut w, &LossSignal { now: 0, kind, marked: true, flight_bytes: 15_000 });
            assert_eq!(r, Reaction::KeepWindow);
            assert_eq!(w.cwnd, 15_000);
        }
        w.cwnd = 4000;
        cc.on_ack(&mut w, &crate::cc::westwood::tests::ack_at(0, 1000, 0));
        assert_eq!(w.cwnd, 15_000);
        assert!(cc.needs().sack);
    }
}
