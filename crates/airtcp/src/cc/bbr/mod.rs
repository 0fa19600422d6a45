//! BBR v1 (Cardwell, Cheng, Gunn, Hassas Yeganeh & Jacobson, "BBR: Congestion-Based Congestion
//! Control", ACM Queue 14(5), 2016 / CACM 60(2), 2017; the pseudocode of
//! draft-cardwell-iccrg-bbr-congestion-control-00, July 2017, cited "draft-00" by section and by
//! the name of its pseudocode function, which is the unambiguous reference; Linux
//! `net/ipv4/tcp_bbr.c`, 4.9 and later, cited by function).
//!
//! BBR keeps a model of the path — BtlBw, the windowed maximum of the delivery rate over 10 round
//! trips, and RTprop, the windowed minimum of the RTT over 10 s — and sends at pacing_gain·BtlBw
//! with at most cwnd_gain·BtlBw·RTprop (+ a few send quanta) in flight. A state machine sets the
//! gains: Startup (2/ln 2 ≈ 2.885 for both, doubling the rate each round) until three rounds
//! without 25% growth of BtlBw say the pipe is full; Drain (pacing 1/2.885) until the flight is
//! down to one BDP; ProbeBW, an 8-phase pacing-gain cycle 1.25, 0.75, 1×6 each about one RTprop
//! long; ProbeRTT (cwnd 4 segments for max(200 ms, one round)) whenever RTprop has not been
//! refreshed for 10 s. Losses do not steer the model; during fast recovery the window follows
//! packet conservation for its first round, and the window from before the loss is restored at
//! its end (tcp_bbr.c `bbr_set_cwnd_to_recover_or_restore`).
//!
//! The delivery-rate samples follow draft-cheng-iccrg-delivery-rate-estimation-00 ("rate-est"):
//! the sender computes them as Linux's `tcp_rate.c` does (`tcp::rate`: every transmission records
//! the connection's delivered count and times, and each ACK gives delivered/interval from the
//! most recently sent segment it newly delivers, cumulatively or by SACK) and hands each ACK's
//! sample to the policy in `AckInfo::rate`, as Linux hands `struct rate_sample` to
//! `cong_control`. BBR keeps no scoreboard of its own.
//!
//! Files: this one (parameters, state, the per-ACK update `BBRUpdateOnACK` and the loss events),
//! `model` (BtlBw, RTprop and the in-flight targets), `states` (Startup, Drain, the ProbeBW cycle,
//! ProbeRTT) and `control` (pacing rate and cwnd).
//!
//! The sender paces (the engine's pacing: [`super::CongestionControl::pacing_rate`]), one segment
//! at a time: there is no TSO in the engine, so the send quantum only enters the window target.
//!
//! Readings where the sources leave room or the engine differs (tested in `tests`):
//! - Units: bytes and bytes/s (Linux counts packets); rates are integers (bytes/s, rounded
//!   down), times integer ns; gains are f64 applied to them and rounded down.
//! - BtlBw is the exact maximum of the per-round maxima of the last 10 rounds (the draft's
//!   "windowed max"; Linux uses Nichols' three-sample approximation, `lib/win_minmax.c`, which
//!   agrees except when it has to give up a sample early).
//! - Round trips are counted per delivered packet (draft-00 §4.1.1.3 `BBRUpdateRound`), from the
//!   most recently sent packet that an ACK delivers, whether or not its rate sample is valid.
//! - The RTT sample of an ACK is now − send time of the most recently sent segment it newly
//!   delivers, unless that segment was ever retransmitted (Karn; draft-00 §4.1.2.1 "packet.rtt").
//!   A rate sample whose interval is shorter than the sender's minimum RTT is discarded (rate-est
//!   §3.3 `GenerateRateSample`, tcp_rate.c `tcp_rate_gen`).
//! - In-flight data is FlightSize less the bytes SACKed above the cumulative ACK. Linux's
//!   `tcp_packets_in_flight` also leaves out segments marked lost and counts retransmissions; the
//!   policy does not see the recovery strategy's loss marks, so a lost segment counts as in flight
//!   until it is SACKed around or acknowledged.
//! - Losses per ACK (`rs.losses`) are not visible to the policy: a fast retransmit counts as a
//!   loss for the next ProbeBW phase check (`bbr_is_next_cycle_phase`'s "rs->losses"), and
//!   `cwnd − losses` in recovery is not applied (packet conservation and the restore are).
//! - The random start phase of ProbeBW (draft-00 §4.3.4.2, tcp_bbr.c `bbr_reset_probe_bw_mode`:
//!   one of the 7 phases other than 0.75, i.e. index 7 − rand(0..7) then advanced once) is drawn
//!   deterministically: SplitMix64 of the entry time in ns and of a count of entries, modulo 7.
//!   The trait gives no RNG; the time hash keeps a run reproducible and gives flows that enter at
//!   different instants different phases.
//! - Pacing rate: draft-00 §4.2.1 without Linux 4.20's 1% margin (`bbr_pacing_margin_percent`);
//!   before the pipe is full the rate never decreases (`BBRSetPacingRateWithGain`); the first
//!   rate is high_gain·initial cwnd/(SRTT, or 1 ms before a sample) (`BBRInitPacingRate`),
//!   recomputed once on the first RTT sample (tcp_bbr.c `bbr_set_pacing_rate`, `has_seen_rtt`).
//! - On a timeout (draft-00 §4.2.3.4, tcp_bbr.c `bbr_set_state` for TCP_CA_Loss and
//!   `tcp_enter_loss`): the cwnd is saved, cwnd = 1 segment, full_bw = 0; it then grows by what
//!   each ACK delivers (`bbr_set_cwnd`), and once the cumulative ACK passes what was outstanding
//!   at the timeout (Linux leaves TCP_CA_Loss), the saved cwnd is restored.
//! - ECN-Echo is ignored (BBR v1 has no ECN response). Window growth is not held by `no_growth`:
//!   BBR owns cwnd in recovery too (Linux's `cong_control` replaces PRR). Use `sack = true` with
//!   `recovery = "sack"`: Linux BBR runs with SACK, and without it a duplicate ACK delivers
//!   nothing here (Linux counts one segment per duplicate ACK, `tcp_add_reno_sack`).
//! - Not implemented: the long-term bandwidth (policer) estimator `bbr_lt_bw_sampling`, restart
//!   from idle (`idle_restart`), ACK-aggregation cwnd (`bbr_update_ack_aggregation`, Linux 4.20+),
//!   cwnd rounding to even and `cwnd += 2` in phase 0 (`bbr_quantization_budget`, later kernels),
//!   application-limited marking outside ProbeRTT (the engine's flows are bulk or finite).

mod control;
mod model;
mod states;

use serde::Deserialize;

pub(crate) use self::model::MaxFilter;
use super::{AckInfo, CongestionControl, LossKind, LossSignal, RateSample, Reaction, SendInfo, Window};
use crate::time::{SimDuration, SimTime, NS_PER_S};

/// draft-00 §4.3.2 / tcp_bbr.c `bbr_high_gain`: 2/ln 2, the smallest gain that doubles the
/// delivery rate each round in Startup.
pub(crate) const HIGH_GAIN: f64 = 2.0 / std::f64::consts::LN_2;

/// draft-00 §4.3.4.3 / tcp_bbr.c `bbr_pacing_gain[]`: the ProbeBW pacing-gain cycle.
pub(crate) const GAIN_CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];

/// draft-00 §4.2.3.3 / tcp_bbr.c `bbr_cwnd_min_target`: BBRMinPipeCwnd, segments.
pub(crate) const MIN_PIPE_CWND_PKTS: u64 = 4;

/// BBR's parameters (`[flows.cc_params]` with `cc = "bbr"`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct BbrParams {
    /// Startup's pacing and cwnd gain (draft-00 §4.3.2: 2/ln 2 = 2.885); Drain paces at its inverse.
    #[serde(default = "default_high_gain")]
    pub high_gain: f64,
    /// ProbeBW's cwnd gain (draft-00 §4.3.4, tcp_bbr.c `bbr_cwnd_gain`: 2).
    #[serde(default = "default_cwnd_gain")]
    pub cwnd_gain: f64,
    /// BtlBw filter window in round trips (draft-00 §4.1.1.2 BtlBwFilterLen: 10).
    #[serde(default = "default_bw_rounds")]
    pub bw_window_rounds: u32,
    /// RTprop filter window (draft-00 §4.1.2.2 RTpropFilterLen: 10 s).
    #[serde(default = "default_rtprop_window")]
    pub rtprop_window: SimDuration,
    /// Time at 4 segments in ProbeRTT (draft-00 §4.3.5 ProbeRTTDuration: 200 ms).
    #[serde(default = "default_probe_rtt_time")]
    pub probe_rtt_time: SimDuration,
}

fn default_high_gain() -> f64 {
    HIGH_GAIN
}
fn default_cwnd_gain() -> f64 {
    2.0
}
fn default_bw_rounds() -> u32 {
    10
}
fn default_rtprop_window() -> SimDuration {
    SimDuration::from_secs(10)
}
fn default_probe_rtt_time() -> SimDuration {
    SimDuration::from_millis(200)
}

impl Default for BbrParams {
    fn default() -> Self {
        BbrParams {
            high_gain: HIGH_GAIN,
            cwnd_gain: 2.0,
            bw_window_rounds: 10,
            rtprop_window: default_rtprop_window(),
            probe_rtt_time: default_probe_rtt_time(),
        }
    }
}

impl BbrParams {
    /// One-line error naming the field and its allowed range.
    pub(crate) fn check(&self) -> Result<(), String> {
        if !(self.high_gain > 1.0 && self.high_gain <= 100.0) {
            return Err(format!("high_gain: {} is out of range (allowed: 1 < high_gain <= 100)", self.high_gain));
        }
        if !(self.cwnd_gain >= 1.0 && self.cwnd_gain <= 100.0) {
            return Err(format!("cwnd_gain: {} is out of range (allowed: 1 <= cwnd_gain <= 100)", self.cwnd_gain));
        }
        if !(1..=1000).contains(&self.bw_window_rounds) {
            return Err(format!("bw_window_rounds: {} is out of range (allowed: 1 to 1000)", self.bw_window_rounds));
        }
        let ms = |d: SimDuration| d.as_nanos() as f64 / 1e6;
        if self.rtprop_window.as_nanos() < 1_000_000 || self.rtprop_window.as_nanos() > 3600 * NS_PER_S {
            return Err(format!("rtprop_window: {}ms is out of range (allowed: 1ms to 3600s)", ms(self.rtprop_window)));
        }
        if self.probe_rtt_time.as_nanos() > 3600 * NS_PER_S {
            return Err(format!("probe_rtt_time: {}ms is out of range (allowed: 0s to 3600s)", ms(self.probe_rtt_time)));
        }
        Ok(())
    }
}

/// BBR's operating state (draft-00 §4.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

/// BBR v1 window and pacing policy.
#[derive(Debug, Clone)]
pub(crate) struct Bbr {
    p: BbrParams,
    mss: u64,
    /// InitialCwnd, bytes (the flow's initial window).
    init_cwnd: u64,
    // ---- what the sender's rate samples said (`AckInfo::rate`, see `tcp::rate`) ----
    /// One past the highest byte ever sent (told through `on_send`).
    high_seq: u64,
    /// C.delivered as of the latest ACK, bytes.
    delivered: u64,
    /// Bytes SACKed above the cumulative ACK as of the latest ACK.
    sacked_bytes: u64,
    /// ProbeRTT's application-limited mark for the sender's sampler (C.app_limited), until taken.
    app_limited_mark: Option<u64>,
    // ---- the model ----
    pub btlbw_filter: MaxFilter,
    /// RTprop, ns (u64::MAX before the first sample).
    pub rtprop_ns: u64,
    pub rtprop_stamp: SimTime,
    rtprop_expired: bool,
    pub round_count: u64,
    next_round_delivered: u64,
    pub round_start: bool,
    // ---- the state machine ----
    pub mode: Mode,
    pub pacing_gain: f64,
    pub cwnd_gain: f64,
    pub filled_pipe: bool,
    full_bw: u64,
    full_bw_count: u32,
    pub cycle_index: usize,
    cycle_stamp: SimTime,
    probe_bw_entries: u64,
    probe_rtt_done_stamp: Option<SimTime>,
    probe_rtt_round_done: bool,
    // ---- control ----
    /// BBR's cwnd, bytes (written to the sender's window on every ACK).
    pub cwnd: u64,
    pub prior_cwnd: u64,
    pub pacing_rate: u64,
    has_seen_rtt: bool,
    packet_conservation: bool,
    in_recovery: bool,
    /// After a timeout: the cumulative ACK that ends the loss episode.
    loss_until: Option<u64>,
    /// A fast retransmit since the last ProbeBW phase check (`rs.losses`).
    loss_seen: bool,
    estimates: [(&'static str, f64); 1],
}

impl Bbr {
    /// BBR with checked parameters, in Startup (draft-00 §4.3.1 `BBRInit`).
    pub(crate) fn new(p: &BbrParams) -> Self {
        Bbr {
            p: p.clone(),
            mss: 1,
            init_cwnd: 1,
            high_seq: 0,
            delivered: 0,
            sacked_bytes: 0,
            app_limited_mark: None,
            btlbw_filter: MaxFilter::default(),
            rtprop_ns: u64::MAX,
            rtprop_stamp: 0,
            rtprop_expired: false,
            round_count: 0,
            next_round_delivered: 0,
            round_start: false,
            mode: Mode::Startup,
            pacing_gain: p.high_gain,
            cwnd_gain: p.high_gain,
            filled_pipe: false,
            full_bw: 0,
            full_bw_count: 0,
            cycle_index: 0,
            cycle_stamp: 0,
            probe_bw_entries: 0,
            probe_rtt_done_stamp: None,
            probe_rtt_round_done: false,
            cwnd: 1,
            prior_cwnd: 0,
            pacing_rate: 0,
            has_seen_rtt: false,
            packet_conservation: false,
            in_recovery: false,
            loss_until: None,
            loss_seen: false,
            estimates: [("btlbw_bps", 0.0)],
        }
    }

    /// draft-00 §4 `BBRUpdateOnACK` (tcp_bbr.c `bbr_main`) for an ACK, new or duplicate.
    fn on_any_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        // In flight before this ACK: with the SACKed count before it.
        let prior_inflight = self.in_flight(ack.flight_bytes + ack.acked_bytes);
        let rs =
            ack.rate.copied().unwrap_or(RateSample { delivered: self.delivered, sacked_bytes: self.sacked_bytes, ..RateSample::default() });
        self.delivered = rs.delivered;
        self.sacked_bytes = rs.sacked_bytes;
        let inflight = self.in_flight(ack.flight_bytes);
        if self.loss_until.is_some_and(|end| ack.ack() >= end) {
            // Leaving the loss episode of a timeout (Linux: TCP_CA_Loss → Open): restore.
            self.loss_until = None;
            self.cwnd = self.cwnd.max(self.prior_cwnd);
        }
        // BBRUpdateModelAndState.
        self.update_btlbw(&rs);
        let losses = std::mem::take(&mut self.loss_seen);
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(ack.now, prior_inflight, losses) {
            self.advance_cycle_phase(ack.now);
        }
        self.check_full_pipe(&rs);
        self.check_drain(ack.now, inflight);
        self.update_rtprop(ack.now, rs.rtt_ns);
        self.check_probe_rtt(ack.now, inflight);
        // BBRUpdateControlParameters.
        self.set_pacing_rate(ack.srtt_ns);
        self.set_cwnd(rs.newly_delivered, inflight);
        w.cwnd = self.cwnd;
        self.estimates[0].1 = self.btlbw() as f64 * 8.0;
    }
}

impl CongestionControl for Bbr {
    fn name(&self) -> &'static str {
        "bbr"
    }

    fn on_start(&mut self, w: &mut Window, _rwnd_bytes: u64) {
        // draft-00 §4.3.1 `BBRInit`: cwnd = InitialCwnd, pacing from it; ssthresh is unused
        // (tcp_bbr.c `bbr_ssthresh` returns TCP_INFINITE_SSTHRESH).
        self.mss = w.mss.max(1);
        self.init_cwnd = w.cwnd.max(self.mss);
        self.cwnd = w.cwnd;
        w.ssthresh = u64::MAX;
        self.init_pacing_rate(0);
    }

    fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        self.on_any_ack(w, ack);
    }

    fn on_dup_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        self.on_any_ack(w, ack);
    }

    fn on_congestion(&mut self, w: &mut Window, s: &LossSignal) -> Reaction {
        match s.kind {
            LossKind::DupAcks => {
                // Entering fast recovery (tcp_bbr.c `bbr_set_cwnd_to_recover_or_restore`, state
                // Recovery after Open): save the cwnd, packet conservation for one round starting
                // now, cwnd = in flight (+ what this ACK delivered, already counted by on_dup_ack).
                self.save_cwnd();
                self.in_recovery = true;
                self.loss_seen = true;
                self.packet_conservation = true;
                self.next_round_delivered = self.delivered;
                self.cwnd = self.in_flight(s.flight_bytes).max(self.mss);
            }
            LossKind::Timeout => {
                // draft-00 §4.2.3.4 "upon retransmission timeout": save, cwnd = 1 segment;
                // tcp_bbr.c `bbr_set_state(TCP_CA_Loss)`: full_bw = 0.
                self.save_cwnd();
                self.in_recovery = false;
                self.packet_conservation = false;
                self.full_bw = 0;
                self.loss_until = Some(self.high_seq);
                self.cwnd = self.mss;
            }
            // BBR v1 does not answer ECN-Echo.
            LossKind::Ecn => return Reaction::KeepWindow,
        }
        w.cwnd = self.cwnd;
        Reaction::KeepWindow
    }

    fn on_recovery_exit(&mut self, w: &mut Window) {
        // tcp_bbr.c `bbr_set_cwnd_to_recover_or_restore`, Recovery → Open: restore the saved cwnd.
        self.in_recovery = false;
        self.packet_conservation = false;
        self.cwnd = self.cwnd.max(self.prior_cwnd);
        w.cwnd = self.cwnd;
    }

    fn pacing_rate(&self) -> Option<u64> {
        Some(self.pacing_rate.max(1))
    }

    fn on_send(&mut self, s: &SendInfo) {
        self.high_seq = self.high_seq.max(s.seq + s.len);
    }

    fn reads_rate_sample(&self) -> bool {
        true
    }

    fn take_app_limited(&mut self) -> Option<u64> {
        self.app_limited_mark.take()
    }

    fn estimates(&self) -> &[(&'static str, f64)] {
        &self.estimates
    }
}

#[cfg(test)]
mod tests;
