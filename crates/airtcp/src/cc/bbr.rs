//! BBR v1 (Cardwell, Cheng, Gunn, Hassas Yeganeh & Jacobson, "BBR: Congestion-Based Congestion
//! Control", ACM Queue 14(5), 2016 / CACM 60(2), 2017; the pseudocode of
//! draft-cardwell-iccrg-bbr-congestion-control-00, July 2017, cited "draft-00"; Linux
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
//! every transmission records the connection's delivered count and times (the sender tells the
//! policy of each segment through `on_send`, which only pacing policies receive), and each ACK
//! gives delivered/interval from the most recently sent segment it newly delivers
//! (cumulatively or by SACK).
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

use std::collections::VecDeque;

use serde::Deserialize;

use super::{AckInfo, CongestionControl, LossKind, LossSignal, Reaction, SendInfo, Window};
use crate::net::TcpHeader;
use crate::time::{SimDuration, SimTime, NS_PER_S};

/// draft-00 §4.3.2 / tcp_bbr.c `bbr_high_gain`: 2/ln 2, the smallest gain that doubles the
/// delivery rate each round in Startup.
pub const HIGH_GAIN: f64 = 2.0 / std::f64::consts::LN_2;

/// draft-00 §4.3.4.3 / tcp_bbr.c `bbr_pacing_gain[]`: the ProbeBW pacing-gain cycle.
pub const GAIN_CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];

/// draft-00 §4.2.3.3 / tcp_bbr.c `bbr_cwnd_min_target`: BBRMinPipeCwnd, segments.
pub const MIN_PIPE_CWND_PKTS: u64 = 4;

/// BBR's parameters (`[flows.cc_params]` with `cc = "bbr"`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BbrParams {
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
    pub fn check(&self) -> Result<(), String> {
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
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

/// The delivery-rate state a segment carries from its (latest) transmission (rate-est §3.2).
#[derive(Debug, Clone, Copy, Default)]
struct SegState {
    len: u64,
    sent_at: SimTime,
    /// C.delivered when it was sent (P.delivered).
    delivered: u64,
    /// C.delivered_time when it was sent (P.delivered_time).
    delivered_time: SimTime,
    /// C.first_sent_time when it was sent (P.first_sent_time).
    first_sent_time: SimTime,
    /// C.app_limited was set when it was sent (P.is_app_limited).
    app_limited: bool,
    retransmitted: bool,
    /// SACKed (delivered) above the cumulative ACK.
    sacked: bool,
}

/// One ACK's delivery-rate sample (rate-est §3.3).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RateSample {
    /// Bytes newly delivered by this ACK (cumulatively or by SACK).
    pub newly_delivered: u64,
    /// P.delivered of the most recently sent segment this ACK delivered (None: it delivered none).
    pub prior_delivered: Option<u64>,
    /// Delivery rate in bytes/s, when the sample is valid.
    pub rate: Option<u64>,
    pub app_limited: bool,
    /// RTT sample, ns.
    pub rtt_ns: Option<u64>,
}

/// BtlBw: the maximum over the last `window` rounds of each round's largest delivery-rate sample
/// (draft-00 §4.1.1.2).
#[derive(Debug, Clone, Default)]
pub struct MaxFilter {
    /// (round, the largest sample taken in it), oldest first.
    rounds: VecDeque<(u64, u64)>,
}

impl MaxFilter {
    /// Takes sample `v` in round `round` (rounds never decrease) and forgets rounds at least
    /// `window` older.
    pub fn update(&mut self, round: u64, v: u64, window: u64) {
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
    pub fn get(&self, round: u64, window: u64) -> u64 {
        self.rounds.iter().filter(|&&(r, _)| r + window > round).map(|&(_, m)| m).max().unwrap_or(0)
    }
}

/// SplitMix64 (Steele, Lea & Flood 2014): the deterministic draw of the ProbeBW start phase.
fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// BBR v1 window and pacing policy.
#[derive(Debug, Clone)]
pub struct Bbr {
    p: BbrParams,
    mss: u64,
    /// InitialCwnd, bytes (the flow's initial window).
    init_cwnd: u64,
    // ---- delivery-rate estimation (rate-est §3.1, connection state C) ----
    /// Outstanding segments from `base` (the cumulative ACK), one per MSS.
    segs: VecDeque<SegState>,
    base: u64,
    /// One past the highest byte ever sent.
    high_seq: u64,
    /// C.delivered, bytes.
    pub delivered: u64,
    delivered_time: SimTime,
    first_sent_time: SimTime,
    /// C.app_limited: nonzero = the delivered count at which app-limited sending ends.
    app_limited: u64,
    /// Bytes SACKed above the cumulative ACK.
    sacked_bytes: u64,
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
    pub fn new(p: &BbrParams) -> Self {
        Bbr {
            p: p.clone(),
            mss: 1,
            init_cwnd: 1,
            segs: VecDeque::new(),
            base: 0,
            high_seq: 0,
            delivered: 0,
            delivered_time: 0,
            first_sent_time: 0,
            app_limited: 0,
            sacked_bytes: 0,
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

    /// BtlBw, bytes/s.
    pub fn btlbw(&self) -> u64 {
        self.btlbw_filter.get(self.round_count, self.p.bw_window_rounds as u64)
    }

    /// draft-00 §4.2.2 `BBRSetSendQuantum`: min(pacing_rate·1 ms, 64 KB), at least 1 segment below
    /// 1.2 Mbit/s and 2 above (tcp_bbr.c `bbr_tso_segs_goal`, `bbr_min_tso_rate`).
    pub fn send_quantum(&self) -> u64 {
        let floor = if self.pacing_rate < 1_200_000 / 8 { self.mss } else { 2 * self.mss };
        (self.pacing_rate / 1000).min(65_536).max(floor)
    }

    /// draft-00 §4.2.3.2 `BBRInflight(gain)`: gain·BtlBw·RTprop + 3·send_quantum, bytes;
    /// InitialCwnd before the first RTT sample (tcp_bbr.c `bbr_bdp`, `bbr_target_cwnd`).
    pub fn inflight(&self, gain: f64) -> u64 {
        if self.rtprop_ns == u64::MAX {
            return self.init_cwnd;
        }
        let bdp = self.btlbw() as u128 * self.rtprop_ns as u128 / NS_PER_S as u128;
        (gain * bdp as f64) as u64 + 3 * self.send_quantum()
    }

    fn min_pipe_cwnd(&self) -> u64 {
        MIN_PIPE_CWND_PKTS * self.mss
    }

    /// Bytes in flight: FlightSize less the bytes SACKed above the cumulative ACK (module doc).
    fn in_flight(&self, flight_bytes: u64) -> u64 {
        flight_bytes.saturating_sub(self.sacked_bytes)
    }

    /// rate-est §3.2 "upon transmitting a packet".
    fn record_send(&mut self, s: &SendInfo) {
        if s.flight_bytes == 0 {
            // "If there are no packets in flight yet, then we can mark this as the start of the flow."
            self.first_sent_time = s.now;
            self.delivered_time = s.now;
        }
        if s.seq < self.base {
            return;
        }
        let i = ((s.seq - self.base) / self.mss) as usize;
        while self.segs.len() <= i {
            self.segs.push_back(SegState::default());
        }
        let seg = &mut self.segs[i];
        seg.len = s.len;
        seg.sent_at = s.now;
        seg.delivered = self.delivered;
        seg.delivered_time = self.delivered_time;
        seg.first_sent_time = self.first_sent_time;
        seg.app_limited = self.app_limited != 0;
        seg.retransmitted |= s.retransmission;
        self.high_seq = self.high_seq.max(s.seq + s.len);
    }

    /// rate-est §3.3: the segments an ACK newly delivers (cumulatively up to `h.ack`, or by its
    /// SACK blocks), and the rate sample of the most recently sent of them.
    fn sample(&mut self, now: SimTime, h: &TcpHeader, min_rtt_ns: u64) -> RateSample {
        let mut rs = RateSample::default();
        // The most recently sent delivered segment: (P.delivered, sent_at) is largest.
        let mut newest: Option<SegState> = None;
        let mut deliver = |seg: SegState, delivered: &mut u64, delivered_time: &mut SimTime| {
            *delivered += seg.len;
            *delivered_time = now;
            if newest.is_none_or(|n| (seg.delivered, seg.sent_at) >= (n.delivered, n.sent_at)) {
                newest = Some(seg);
            }
            seg.len
        };
        for b in &h.sack[..h.n_sack as usize] {
            let start = b.start.max(h.ack).max(self.base);
            if b.end <= start {
                continue;
            }
            let first = (start - self.base).div_ceil(self.mss) as usize;
            for i in first..self.segs.len() {
                let seq = self.base + i as u64 * self.mss;
                let seg = self.segs[i];
                if seq + seg.len > b.end || seg.len == 0 {
                    break;
                }
                if !seg.sacked {
                    self.segs[i].sacked = true;
                    self.sacked_bytes += seg.len;
                    rs.newly_delivered += deliver(seg, &mut self.delivered, &mut self.delivered_time);
                }
            }
        }
        if h.ack > self.base {
            let n = (((h.ack - self.base).div_ceil(self.mss)) as usize).min(self.segs.len());
            for seg in self.segs.drain(..n) {
                if seg.sacked {
                    self.sacked_bytes -= seg.len;
                } else if seg.len > 0 {
                    rs.newly_delivered += deliver(seg, &mut self.delivered, &mut self.delivered_time);
                }
            }
            self.base = h.ack;
        }
        let Some(p) = newest else { return rs };
        // UpdateRateSample: the sample is from the most recently sent delivered packet.
        rs.prior_delivered = Some(p.delivered);
        rs.app_limited = p.app_limited;
        let send_elapsed = p.sent_at.saturating_sub(p.first_sent_time);
        let ack_elapsed = self.delivered_time.saturating_sub(p.delivered_time);
        self.first_sent_time = p.sent_at;
        if !p.retransmitted {
            rs.rtt_ns = Some(now - p.sent_at);
        }
        // GenerateRateSample: clear app-limited once its data is delivered; interval =
        // max(send_elapsed, ack_elapsed), discarded when shorter than the minimum RTT.
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        let interval = send_elapsed.max(ack_elapsed);
        if interval > 0 && interval >= min_rtt_ns {
            let d = self.delivered - p.delivered;
            rs.rate = Some((d as u128 * NS_PER_S as u128 / interval as u128).min(u64::MAX as u128) as u64);
        }
        rs
    }

    /// draft-00 §4.1.1.3 `BBRUpdateRound` and §4.1.1.5 `BBRUpdateBtlBw`.
    fn update_btlbw(&mut self, rs: &RateSample) {
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

    /// draft-00 §4.3.4.3 `BBRIsNextCyclePhase`; tcp_bbr.c `bbr_is_next_cycle_phase`.
    pub fn is_next_cycle_phase(&self, now: SimTime, prior_inflight: u64, losses: bool) -> bool {
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
    fn advance_cycle_phase(&mut self, now: SimTime) {
        self.cycle_stamp = now;
        self.cycle_index = (self.cycle_index + 1) % GAIN_CYCLE.len();
        self.pacing_gain = GAIN_CYCLE[self.cycle_index];
    }

    /// draft-00 §4.3.4.3 `BBREnterProbeBW` (tcp_bbr.c `bbr_reset_probe_bw_mode`): the cycle starts
    /// at a random phase other than 0.75 (module doc for the draw).
    fn enter_probe_bw(&mut self, now: SimTime) {
        self.mode = Mode::ProbeBw;
        self.pacing_gain = 1.0;
        self.cwnd_gain = self.p.cwnd_gain;
        self.probe_bw_entries += 1;
        let r = splitmix64(now ^ self.probe_bw_entries.rotate_left(32)) % 7;
        self.cycle_index = GAIN_CYCLE.len() - 1 - r as usize;
        self.advance_cycle_phase(now);
    }

    fn enter_startup(&mut self) {
        self.mode = Mode::Startup;
        self.pacing_gain = self.p.high_gain;
        self.cwnd_gain = self.p.high_gain;
    }

    /// draft-00 §4.3.2.2 `BBRCheckFullPipe`: three rounds in a row without 25% growth of BtlBw.
    fn check_full_pipe(&mut self, rs: &RateSample) {
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
    fn check_drain(&mut self, now: SimTime, inflight: u64) {
        if self.mode == Mode::Startup && self.filled_pipe {
            self.mode = Mode::Drain;
            self.pacing_gain = 1.0 / self.p.high_gain;
            self.cwnd_gain = self.p.high_gain;
        }
        if self.mode == Mode::Drain && inflight <= self.inflight(1.0) {
            self.enter_probe_bw(now);
        }
    }

    /// draft-00 §4.1.2.3 `BBRUpdateRTprop`: take a sample that is lower, or any sample once the
    /// estimate is `rtprop_window` old.
    fn update_rtprop(&mut self, now: SimTime, rtt_ns: Option<u64>) {
        self.rtprop_expired = self.rtprop_ns != u64::MAX && now > self.rtprop_stamp + self.p.rtprop_window.as_nanos();
        if let Some(rtt) = rtt_ns {
            if rtt <= self.rtprop_ns || self.rtprop_expired {
                self.rtprop_ns = rtt;
                self.rtprop_stamp = now;
            }
        }
    }

    /// draft-00 §4.2.3.4 `BBRSaveCwnd` (tcp_bbr.c `bbr_save_cwnd`): outside recovery and ProbeRTT
    /// the cwnd itself, else the larger of it and the one saved before.
    fn save_cwnd(&mut self) {
        self.prior_cwnd =
            if !self.in_recovery && self.loss_until.is_none() && self.mode != Mode::ProbeRtt { self.cwnd } else { self.prior_cwnd.max(self.cwnd) };
    }

    /// draft-00 §4.3.5 `BBRCheckProbeRTT` and `BBRHandleProbeRTT`.
    fn check_probe_rtt(&mut self, now: SimTime, inflight: u64) {
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
        // Rate samples taken while draining to 4 segments are app-limited.
        self.app_limited = (self.delivered + inflight).max(1);
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

    /// draft-00 §4.2.1 `BBRSetPacingRateWithGain` / `BBRInitPacingRate`.
    fn set_pacing_rate(&mut self, srtt_ns: u64) {
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
    fn init_pacing_rate(&mut self, srtt_ns: u64) {
        let rtt = if srtt_ns > 0 { srtt_ns } else { 1_000_000 };
        let nominal = self.init_cwnd as u128 * NS_PER_S as u128 / rtt as u128;
        self.pacing_rate = ((self.p.high_gain * nominal as f64) as u64).max(1);
    }

    /// draft-00 §4.2.3.6 `BBRSetCwnd` with §4.2.3.4 `BBRModulateCwndForRecovery` and §4.2.3.5
    /// `BBRModulateCwndForProbeRTT`; tcp_bbr.c `bbr_set_cwnd`.
    fn set_cwnd(&mut self, delivered: u64, inflight: u64) {
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

    /// draft-00 §4 `BBRUpdateOnACK` (tcp_bbr.c `bbr_main`) for an ACK, new or duplicate.
    fn on_any_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        let prior_inflight = self.in_flight(ack.flight_bytes + ack.acked_bytes);
        let rs = self.sample(ack.now, ack.header, ack.min_rtt_ns);
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
        self.record_send(s);
    }

    fn estimates(&self) -> &[(&'static str, f64)] {
        &self.estimates
    }
}
