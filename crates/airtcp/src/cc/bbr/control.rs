//! BBR's control parameters (draft-00 §4.2): the pacing rate and the congestion window.

use super::{Bbr, Mode};
use crate::time::NS_PER_S;

impl Bbr {
    /// draft-00 §4.2.1 `BBRSetPacingRateWithGain` / `BBRInitPacingRate`.
    pub(super) fn set_pacing_rate(&mut self, srtt_ns: u64) {
        if !self.has_seen_rtt && srtt_ns > 0 {
            self.has_seen_rtt = true;
            self.init_pacing_rate(srtt_ns);
        }
        let rate = (self.pacing_gain * self.btlbw() as f64) as u64;
        if rate > 0 && (self.filled_pipe || rate > self.pacing_rate) {
            self.pacing_rate = rate;
        }
    }

    /// `BBRInitPacingRate`: high_gain·InitialCwnd/RTT, the RTT being SRTT or 1 ms.
    pub(super) fn init_pacing_rate(&mut self, srtt_ns: u64) {
        let rtt = if srtt_ns > 0 { srtt_ns } else { 1_000_000 };
        let nominal = self.init_cwnd as u128 * NS_PER_S as u128 / rtt as u128;
        self.pacing_rate = ((self.p.high_gain * nominal as f64) as u64).max(1);
    }

    /// draft-00 §4.2.3.6 `BBRSetCwnd` with §4.2.3.4 `BBRModulateCwndForRecovery` and §4.2.3.5
    /// `BBRModulateCwndForProbeRTT`; tcp_bbr.c `bbr_set_cwnd`.
    pub(super) fn set_cwnd(&mut self, delivered: u64, inflight: u64) {
        if delivered > 0 {
            if self.packet_conservation {
                self.cwnd = self.cwnd.max(inflight + delivered);
            } else {
                let target = self.inflight(self.cwnd_gain);
                if self.filled_pipe {
                    self.cwnd = (self.cwnd + delivered).min(target);
                } else if self.cwnd < target || self.delivered < self.init_cwnd {
                    self.cwnd += delivered;
                }
                self.cwnd = self.cwnd.max(self.min_pipe_cwnd());
            }
        }
        if self.mode == Mode::ProbeRtt {
            self.cwnd = self.cwnd.min(self.min_pipe_cwnd());
        }
    }
}
