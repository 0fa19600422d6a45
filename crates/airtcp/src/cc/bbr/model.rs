//! BBR's model of the path (draft-00 §4.1): BtlBw, the windowed maximum of the delivery rate,
//! RTprop, the windowed minimum of the RTT, and the in-flight targets derived from them.

use std::collections::VecDeque;

use super::{Bbr, MIN_PIPE_CWND_PKTS};
use crate::cc::RateSample;
use crate::time::{SimTime, NS_PER_S};

/// BtlBw: the maximum over the last `window` rounds of each round's largest delivery-rate sample
/// (draft-00 §4.1.1.2).
#[derive(Debug, Clone, Default)]
pub(crate) struct MaxFilter {
    /// (round, the largest sample taken in it), oldest first.
    pub(super) rounds: VecDeque<(u64, u64)>,
}

impl MaxFilter {
    /// Takes sample `v` in round `round` (rounds never decrease) and forgets rounds at least
    /// `window` older.
    pub(crate) fn update(&mut self, round: u64, v: u64, window: u64) {
        match self.rounds.back_mut() {
            Some((r, m)) if *r == round => *m = (*m).max(v),
            _ => self.rounds.push_back((round, v)),
        }
        self.expire(round, window);
    }

    fn expire(&mut self, round: u64, window: u64) {
        while self.rounds.front().is_some_and(|&(r, _)| r + window <= round) {
            self.rounds.pop_front();
        }
    }

    /// The windowed maximum as of round `round` (0 with no sample in the window).
    pub(crate) fn get(&self, round: u64, window: u64) -> u64 {
        self.rounds.iter().filter(|&&(r, _)| r + window > round).map(|&(_, m)| m).max().unwrap_or(0)
    }
}

impl Bbr {
    /// BtlBw, bytes/s.
    pub(crate) fn btlbw(&self) -> u64 {
        self.btlbw_filter.get(self.round_count, self.p.bw_window_rounds as u64)
    }

    /// draft-00 §4.2.2 `BBRSetSendQuantum`: min(pacing_rate·1 ms, 64 KB), at least 1 segment below
    /// 1.2 Mbit/s and 2 above (tcp_bbr.c `bbr_tso_segs_goal`, `bbr_min_tso_rate`).
    pub(crate) fn send_quantum(&self) -> u64 {
        let floor = if self.pacing_rate < 1_200_000 / 8 { self.mss } else { 2 * self.mss };
        (self.pacing_rate / 1000).min(65_536).max(floor)
    }

    /// draft-00 §4.2.3.2 `BBRInflight(gain)`: gain·BtlBw·RTprop + 3·send_quantum, bytes;
    /// InitialCwnd before the first RTT sample (tcp_bbr.c `bbr_bdp`, `bbr_target_cwnd`).
    /// Saturates at `u64::MAX` bytes: a runaway rate sample times a long RTprop (a fuzzing
    /// finding: a 10^19-byte target plus the quantum overflowed) means "no window limit".
    pub(crate) fn inflight(&self, gain: f64) -> u64 {
        if self.rtprop_ns == u64::MAX {
            return self.init_cwnd;
        }
        let bdp = self.btlbw() as u128 * self.rtprop_ns as u128 / NS_PER_S as u128;
        ((gain * bdp as f64) as u64).saturating_add(3 * self.send_quantum())
    }

    pub(super) fn min_pipe_cwnd(&self) -> u64 {
        MIN_PIPE_CWND_PKTS * self.mss
    }

    /// Bytes in flight: FlightSize less the bytes SACKed above the cumulative ACK (module doc).
    pub(super) fn in_flight(&self, flight_bytes: u64) -> u64 {
        flight_bytes.saturating_sub(self.sacked_bytes)
    }

    /// draft-00 §4.1.1.3 `BBRUpdateRound` and §4.1.1.5 `BBRUpdateBtlBw`.
    pub(super) fn update_btlbw(&mut self, rs: &RateSample) {
        self.round_start = false;
        if let Some(pd) = rs.prior_delivered {
            if pd >= self.next_round_delivered {
                self.next_round_delivered = self.delivered;
                self.round_count += 1;
                self.round_start = true;
                // tcp_bbr.c `bbr_update_bw`: a new round ends packet conservation.
                self.packet_conservation = false;
            }
        }
        if let Some(rate) = rs.rate {
            // §4.1.1.4: an app-limited sample enters the filter only if it does not lower it.
            if !rs.app_limited || rate >= self.btlbw() {
                self.btlbw_filter.update(self.round_count, rate, self.p.bw_window_rounds as u64);
            }
        }
    }

    /// draft-00 §4.1.2.3 `BBRUpdateRTprop`: take a sample that is lower, or any sample once the
    /// estimate is `rtprop_window` old.
    pub(super) fn update_rtprop(&mut self, now: SimTime, rtt_ns: Option<u64>) {
        self.rtprop_expired = self.rtprop_ns != u64::MAX && now > self.rtprop_stamp + self.p.rtprop_window.as_nanos();
        if let Some(rtt) = rtt_ns {
            if rtt <= self.rtprop_ns || self.rtprop_expired {
                self.rtprop_ns = rtt;
                self.rtprop_stamp = now;
            }
        }
    }
}
