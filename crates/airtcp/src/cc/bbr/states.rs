//! BBR's state machine (draft-00 §4.3): Startup, Drain, the ProbeBW gain cycle and ProbeRTT.

use super::{Bbr, Mode, GAIN_CYCLE};
use crate::cc::RateSample;
use crate::time::SimTime;

/// SplitMix64 (Steele, Lea & Flood 2014): the deterministic draw of the ProbeBW start phase.
fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Bbr {
    /// draft-00 §4.3.4.3 `BBRIsNextCyclePhase`; tcp_bbr.c `bbr_is_next_cycle_phase`.
    pub(crate) fn is_next_cycle_phase(&self, now: SimTime, prior_inflight: u64, losses: bool) -> bool {
        let full_length = now.saturating_sub(self.cycle_stamp) > self.rtprop_ns;
        if self.pacing_gain > 1.0 {
            // Persist at 1.25 until a phase is over and either inflight reached 1.25·BDP or a loss
            // says it will not fit.
            full_length && (losses || prior_inflight >= self.inflight(self.pacing_gain))
        } else if self.pacing_gain < 1.0 {
            // Leave 0.75 early once inflight has drained to one BDP.
            full_length || prior_inflight <= self.inflight(1.0)
        } else {
            full_length
        }
    }

    /// draft-00 §4.3.4.3 `BBRAdvanceCyclePhase`.
    pub(super) fn advance_cycle_phase(&mut self, now: SimTime) {
        self.cycle_stamp = now;
        self.cycle_index = (self.cycle_index + 1) % GAIN_CYCLE.len();
        self.pacing_gain = GAIN_CYCLE[self.cycle_index];
    }

    /// draft-00 §4.3.4.3 `BBREnterProbeBW` (tcp_bbr.c `bbr_reset_probe_bw_mode`): the cycle starts
    /// at a random phase other than 0.75 (module doc for the draw).
    pub(super) fn enter_probe_bw(&mut self, now: SimTime) {
        self.mode = Mode::ProbeBw;
        self.pacing_gain = 1.0;
        self.cwnd_gain = self.p.cwnd_gain;
        self.probe_bw_entries += 1;
        let r = splitmix64(now ^ self.probe_bw_entries.rotate_left(32)) % 7;
        self.cycle_index = GAIN_CYCLE.len() - 1 - r as usize;
        self.advance_cycle_phase(now);
    }

    pub(super) fn enter_startup(&mut self) {
        self.mode = Mode::Startup;
        self.pacing_gain = self.p.high_gain;
        self.cwnd_gain = self.p.high_gain;
    }

    /// draft-00 §4.3.2.2 `BBRCheckFullPipe`: three rounds in a row without 25% growth of BtlBw.
    pub(super) fn check_full_pipe(&mut self, rs: &RateSample) {
        if self.filled_pipe || !self.round_start || rs.app_limited {
            return;
        }
        let bw = self.btlbw();
        if bw as f64 >= self.full_bw as f64 * 1.25 {
            self.full_bw = bw;
            self.full_bw_count = 0;
            return;
        }
        self.full_bw_count += 1;
        if self.full_bw_count >= 3 {
            self.filled_pipe = true;
        }
    }

    /// draft-00 §4.3.3 `BBRCheckDrain`.
    pub(super) fn check_drain(&mut self, now: SimTime, inflight: u64) {
        if self.mode == Mode::Startup && self.filled_pipe {
            self.mode = Mode::Drain;
            self.pacing_gain = 1.0 / self.p.high_gain;
            self.cwnd_gain = self.p.high_gain;
        }
        if self.mode == Mode::Drain && inflight <= self.inflight(1.0) {
            self.enter_probe_bw(now);
        }
    }

    /// draft-00 §4.2.3.4 `BBRSaveCwnd` (tcp_bbr.c `bbr_save_cwnd`): outside recovery and ProbeRTT
    /// the cwnd itself, else the larger of it and the one saved before.
    pub(super) fn save_cwnd(&mut self) {
        self.prior_cwnd = if !self.in_recovery && self.loss_until.is_none() && self.mode != Mode::ProbeRtt {
            self.cwnd
        } else {
            self.prior_cwnd.max(self.cwnd)
        };
    }

    /// draft-00 §4.3.5 `BBRCheckProbeRTT` and `BBRHandleProbeRTT`.
    pub(super) fn check_probe_rtt(&mut self, now: SimTime, inflight: u64) {
        if self.mode != Mode::ProbeRtt && self.rtprop_expired {
            self.save_cwnd();
            self.mode = Mode::ProbeRtt;
            self.pacing_gain = 1.0;
            self.cwnd_gain = 1.0;
            self.probe_rtt_done_stamp = None;
        }
        if self.mode != Mode::ProbeRtt {
            return;
        }
        // Rate samples taken while draining to 4 segments are app-limited (the sender's sampler
        // takes the mark after this ACK, tcp_bbr.c `bbr_update_min_rtt`: `tp->app_limited`).
        self.app_limited_mark = Some((self.delivered + inflight).max(1));
        match self.probe_rtt_done_stamp {
            None if inflight <= self.min_pipe_cwnd() => {
                self.probe_rtt_done_stamp = Some(now + self.p.probe_rtt_time.as_nanos());
                self.probe_rtt_round_done = false;
                self.next_round_delivered = self.delivered;
            }
            Some(done) => {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done && now > done {
                    self.rtprop_stamp = now;
                    // BBRRestoreCwnd, then BBRExitProbeRTT.
                    self.cwnd = self.cwnd.max(self.prior_cwnd);
                    if self.filled_pipe {
                        self.enter_probe_bw(now);
                    } else {
                        self.enter_startup();
                    }
                }
            }
            None => {}
        }
    }
}
