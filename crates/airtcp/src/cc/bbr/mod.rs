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
pub(crate) const HIGH_GAIN: f64 = 2.0 / std::f64::consts::LN_2;

/// draft-00 §4.3.4.3 / tcp_bbr.c `bbr_pacing_gain[]`: the ProbeBW pacing-gain cycle.
pub(crate) const GAIN_CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];

/// draft-00 §4.2.3.3 / tcp_bbr.c `bbr_cwnd_min_target`: BBRMinPipeCwnd, segments.
pub(crate) const MIN_PIPE_CWND_PKTS: u64 = 4;

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
        self.prior_cwnd = if !self.in_recovery && self.loss_until.is_none() && self.mode != Mode::ProbeRtt {
            self.cwnd
        } else {
            self.prior_cwnd.max(self.cwnd)
        };
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::westwood::tests::{ack_at, header};
    use crate::net::SackBlock;

    const MS: u64 = 1_000_000;
    const S: u64 = 1_000_000_000;

    /// BBR after `on_start` with an initial window of `iw` 1000-byte segments.
    fn started(iw: u64) -> (Bbr, Window) {
        let mut b = Bbr::new(&BbrParams::default());
        let mut w = Window { cwnd: iw * 1000, ssthresh: 0, mss: 1000 };
        b.on_start(&mut w, 1 << 30);
        (b, w)
    }

    fn send(b: &mut Bbr, now: u64, seq: u64, flight: u64) {
        b.on_send(&SendInfo { now, seq, len: 1000, retransmission: false, flight_bytes: flight });
    }

    /// An ACK at `now` of number `ack` (`acked` bytes newly, `flight` outstanding after it), with
    /// SRTT and the sender's minimum RTT 100 ms, and `sack` blocks.
    fn ack(now: u64, ack: u64, acked: u64, flight: u64, sack: &[(u64, u64)]) -> AckInfo<'static> {
        let mut h = TcpHeader { ack, ..TcpHeader::default() };
        for (k, &(start, end)) in sack.iter().enumerate() {
            h.sack[k] = SackBlock { start, end };
        }
        h.n_sack = sack.len() as u8;
        AckInfo { flight_bytes: flight, header: header(h), ..ack_at(now, acked, 100 * MS) }
    }

    /// The max filter over 10 rounds: samples 5 (round 1), 9 (round 2), 7 (round 3), 3 (round 11).
    /// In round 11 round 1 has left the window (1 + 10 ≤ 11) but round 2 has not: max 9. In round
    /// 12 round 2 has left too: max(7, 3) = 7; in round 13, 3. A second sample in a round keeps
    /// that round's larger one.
    #[test]
    fn btlbw_is_the_max_over_ten_rounds() {
        let mut f = MaxFilter::default();
        f.update(1, 5, 10);
        f.update(2, 9, 10);
        f.update(2, 4, 10);
        f.update(3, 7, 10);
        assert_eq!(f.get(3, 10), 9);
        f.update(11, 3, 10);
        assert_eq!((f.get(11, 10), f.get(12, 10), f.get(13, 10), f.get(21, 10)), (9, 7, 3, 0));
        f.update(12, 2, 10);
        assert_eq!(f.rounds.iter().map(|r| r.0).collect::<Vec<_>>(), vec![3, 11, 12]);
    }

    /// RTprop (draft-00 §4.1.2.3): 100 ms at t = 0; 120 ms at 5 s is ignored (higher, not expired);
    /// 90 ms at 6 s is taken (lower) and restarts the 10 s window; 150 ms at 16 s is ignored (16 s
    /// is not after 6 + 10 s); at 16 s + 1 ns the estimate has expired and 150 ms replaces it.
    #[test]
    fn rtprop_is_the_min_over_ten_seconds_with_expiry() {
        let (mut b, _) = started(10);
        for (t, rtt, want, stamp) in
            [(0, 100, 100, 0), (5 * S, 120, 100, 0), (6 * S, 90, 90, 6 * S), (16 * S, 150, 90, 6 * S), (16 * S + 1, 150, 150, 16 * S + 1)]
        {
            b.update_rtprop(t, Some(rtt * MS));
            assert_eq!((b.rtprop_ns, b.rtprop_stamp), (want * MS, stamp), "at {t}");
        }
        assert!(b.rtprop_expired);
    }

    /// Rate samples (rate-est §3) through on_send/on_ack, IW 10, one segment every 10 ms from 0,
    /// each acknowledged 100 ms after it was sent:
    /// - ACK of segment 0 at 100 ms: delivered 1000 since P.delivered = 0 at P.delivered_time = 0;
    ///   send_elapsed = 0, ack_elapsed = 100 ms → 10 000 B/s; round 1; RTprop 100 ms; cwnd grows
    ///   by the 1000 B delivered (C.delivered < InitialCwnd); the pacing rate is re-initialised
    ///   from SRTT: 2.885·10 000 B/0.1 s = 288 539 B/s.
    /// - Segment 10 is sent at 100 ms with P.delivered = 1000, P.delivered_time = 100 ms,
    ///   P.first_sent_time = 0 (the send time of segment 0, the last one delivered).
    /// - ACK of segment 9 at 190 ms: 10 000 B in max(90, 190) ms = 52 631 B/s.
    /// - ACK of segment 10 at 200 ms: 10 000 B in max(100 − 0, 200 − 100) ms = 100 000 B/s, the
    ///   rate segments were sent at; P.delivered = 1000 ≥ next_round_delivered = 1000: round 2.
    #[test]
    fn delivery_rate_samples_by_hand() {
        let (mut b, mut w) = started(10);
        assert_eq!(b.pacing_rate, 28_853_900); // 2.885·10 000 B/1 ms
        for k in 0..10 {
            send(&mut b, k * 10 * MS, k * 1000, k * 1000);
        }
        b.on_ack(&mut w, &ack(100 * MS, 1000, 1000, 9000, &[]));
        assert_eq!((b.btlbw(), b.round_count, b.rtprop_ns), (10_000, 1, 100 * MS));
        assert_eq!((b.cwnd, w.cwnd, b.pacing_rate), (11_000, 11_000, 288_539));
        send(&mut b, 100 * MS, 10_000, 9000);
        for k in 1..10 {
            b.on_ack(&mut w, &ack((100 + 10 * k) * MS, (k + 1) * 1000, 1000, 10_000 - k * 1000, &[]));
        }
        assert_eq!((b.btlbw(), b.round_count), (52_631, 1));
        b.on_ack(&mut w, &ack(200 * MS, 11_000, 1000, 0, &[]));
        assert_eq!((b.btlbw(), b.round_count, b.delivered), (100_000, 2, 11_000));
        assert_eq!(b.estimates()[0].1, 800_000.0);
    }

    /// SACKed segments are delivered when SACKed, not again when cumulatively acknowledged, and
    /// leave the in-flight count: 5 segments out at 0; a duplicate ACK at 100 ms SACKing 2000–4000
    /// delivers 2000 B (in flight 5000 − 2000 = 3000); the cumulative ACK of 5000 at 110 ms
    /// delivers only segments 0 and 1 and 4 (3000 B).
    #[test]
    fn sacked_segments_are_delivered_once() {
        let (mut b, mut w) = started(10);
        for k in 0..5 {
            send(&mut b, 0, k * 1000, k * 1000);
        }
        b.on_dup_ack(&mut w, &ack(100 * MS, 0, 0, 5000, &[(2000, 4000)]));
        assert_eq!((b.delivered, b.sacked_bytes, b.in_flight(5000)), (2000, 2000, 3000));
        b.on_ack(&mut w, &ack(110 * MS, 5000, 5000, 0, &[]));
        assert_eq!((b.delivered, b.sacked_bytes, b.base, b.segs.len()), (5000, 0, 5000, 0));
    }

    /// Hand-worked targets: BtlBw 250 000 B/s (2 Mbit/s), RTprop 100 ms → BDP 25 000 B. Pacing
    /// rate 250 000 B/s ≥ 1.2 Mbit/s → send quantum max(min(250 B, 64 KB), 2 segments) = 2000 B.
    /// cwnd target in ProbeBW = 2·25 000 + 3·2000 = 56 000 B; inflight(1.25) = 37 250 B,
    /// inflight(1) = 31 000 B. Pacing rate in phase 0: 1.25·250 000 = 312 500 B/s; in Drain:
    /// 250 000/2.885 = 86 643 B/s. Below 1.2 Mbit/s (100 000 B/s) the quantum is 1 segment.
    #[test]
    fn cwnd_and_pacing_targets_by_hand() {
        let (mut b, mut w) = started(10);
        b.btlbw_filter.update(0, 250_000, 10);
        b.rtprop_ns = 100 * MS;
        b.filled_pipe = true;
        b.pacing_rate = 250_000;
        assert_eq!(b.send_quantum(), 2000);
        assert_eq!((b.inflight(2.0), b.inflight(1.25), b.inflight(1.0)), (56_000, 37_250, 31_000));
        b.cycle_index = 7;
        b.mode = Mode::ProbeBw;
        b.advance_cycle_phase(0);
        b.set_pacing_rate(100 * MS);
        assert_eq!((b.cycle_index, b.pacing_gain, b.pacing_rate), (0, 1.25, 312_500));
        b.pacing_gain = 1.0 / HIGH_GAIN;
        b.set_pacing_rate(100 * MS);
        assert_eq!(b.pacing_rate, 86_643);
        b.pacing_rate = 100_000;
        assert_eq!(b.send_quantum(), 1000);
        // cwnd approaches the target by what each ACK delivers, and is cut to it from above.
        b.pacing_rate = 250_000;
        b.cwnd_gain = 2.0;
        b.cwnd = 50_000;
        b.set_cwnd(4000, 40_000);
        assert_eq!(b.cwnd, 54_000);
        b.set_cwnd(4000, 40_000);
        assert_eq!(b.cwnd, 56_000);
        b.cwnd = 90_000;
        b.set_cwnd(1000, 40_000);
        assert_eq!(b.cwnd, 56_000);
        // Never below 4 segments.
        b.btlbw_filter = MaxFilter::default();
        b.cwnd = 1000;
        b.set_cwnd(1000, 0);
        assert_eq!(b.cwnd, 4000);
        let _ = &mut w;
    }

    /// The ProbeBW phase rule (draft-00 §4.3.4.3) with the targets above (RTprop 100 ms, phase
    /// started at 0): gain 1 ends strictly after one RTprop; gain 1.25 also needs inflight ≥
    /// 37 250 B or a loss; gain 0.75 ends after one RTprop or as soon as inflight ≤ 31 000 B.
    #[test]
    fn gain_cycle_phase_advance_rule() {
        let (mut b, _) = started(10);
        b.btlbw_filter.update(0, 250_000, 10);
        b.rtprop_ns = 100 * MS;
        b.pacing_rate = 250_000;
        b.mode = Mode::ProbeBw;
        b.cycle_stamp = 0;
        b.pacing_gain = 1.0;
        assert!(!b.is_next_cycle_phase(100 * MS, 0, true));
        assert!(b.is_next_cycle_phase(100 * MS + 1, 0, false));
        b.pacing_gain = 1.25;
        assert!(!b.is_next_cycle_phase(150 * MS, 37_249, false));
        assert!(b.is_next_cycle_phase(150 * MS, 37_250, false));
        assert!(b.is_next_cycle_phase(150 * MS, 0, true));
        assert!(!b.is_next_cycle_phase(50 * MS, 40_000, true));
        b.pacing_gain = 0.75;
        assert!(!b.is_next_cycle_phase(50 * MS, 31_001, false));
        assert!(b.is_next_cycle_phase(50 * MS, 31_000, false));
        assert!(b.is_next_cycle_phase(101 * MS, 99_999, false));
        // The cycle: 1.25, 0.75, then six phases of 1, and round again.
        b.cycle_index = 0;
        let mut gains = vec![];
        for k in 0..9 {
            b.advance_cycle_phase(k);
            gains.push(b.pacing_gain);
        }
        assert_eq!(gains, [0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.25, 0.75]);
        assert_eq!(b.cycle_stamp, 8);
    }

    /// ProbeBW starts at a phase drawn from the 7 that are not 0.75 (index 7 − r, r in 0..7, then
    /// advanced: indices 0, 2, …, 7), each of them reached, and the draw is a function of the
    /// entry time and count only.
    #[test]
    fn probe_bw_start_phase_excludes_drain() {
        let mut seen = [0u32; 8];
        let (mut a, _) = started(10);
        let (mut b, _) = started(10);
        for k in 0..700u64 {
            a.enter_probe_bw(k * 12_345_679);
            b.enter_probe_bw(k * 12_345_679);
            assert_eq!(a.cycle_index, b.cycle_index);
            assert_eq!((a.mode, a.cwnd_gain, a.cycle_stamp), (Mode::ProbeBw, 2.0, k * 12_345_679));
            assert_eq!(a.pacing_gain, GAIN_CYCLE[a.cycle_index]);
            seen[a.cycle_index] += 1;
        }
        assert_eq!(seen[1], 0);
        assert!(seen.iter().enumerate().all(|(i, &n)| i == 1 || n > 50), "{seen:?}");
    }

    /// Full pipe (draft-00 §4.3.2.2): BtlBw per round 100, 125, 150, 156, 156 B/s: 125 ≥ 1.25·100
    /// resets the count; 150 < 156.25, 156 and 156 are three rounds without 25% growth → filled.
    /// ACKs that start no round and app-limited samples do not count. Then Drain (pacing
    /// 1/2.885, cwnd gain 2.885) until inflight ≤ inflight(1), then ProbeBW.
    #[test]
    fn full_pipe_after_three_rounds_without_growth() {
        let (mut b, _) = started(10);
        let rs = RateSample::default();
        for (round, bw, filled) in [(1, 100, false), (2, 125, false), (3, 150, false), (4, 156, false), (5, 156, true)] {
            b.round_count = round;
            b.btlbw_filter = MaxFilter::default();
            b.btlbw_filter.update(round, bw, 10);
            b.round_start = false;
            b.check_full_pipe(&rs);
            b.round_start = true;
            b.check_full_pipe(&RateSample { app_limited: true, ..rs });
            assert_eq!(b.full_bw_count, [0, 0, 0, 1, 2][round as usize - 1]);
            b.check_full_pipe(&rs);
            assert_eq!(b.filled_pipe, filled, "round {round}");
        }
        assert_eq!(b.full_bw, 125);
        b.rtprop_ns = 100 * MS;
        b.btlbw_filter.update(5, 250_000, 10);
        b.pacing_rate = 250_000;
        b.check_drain(0, 31_001);
        assert_eq!((b.mode, b.pacing_gain, b.cwnd_gain), (Mode::Drain, 1.0 / HIGH_GAIN, HIGH_GAIN));
        b.check_drain(MS, 31_000);
        assert_eq!(b.mode, Mode::ProbeBw);
    }

    /// ProbeRTT (draft-00 §4.3.5): RTprop 100 ms from t = 0, in ProbeBW with cwnd 56 000. At
    /// 10 s + 1 ns the estimate has expired: ProbeRTT, cwnd saved, capped at 4 segments. While
    /// 20 000 B are in flight the 200 ms do not start; at 11 s inflight is 4000: done at 11.2 s,
    /// and a round must pass too. A round start at 11.1 s, then at 11.2 s (not after it) still
    /// ProbeRTT; at 11.2 s + 1 ns back to ProbeBW, cwnd restored, RTprop re-stamped.
    #[test]
    fn probe_rtt_entry_and_exit() {
        let (mut b, _) = started(10);
        b.btlbw_filter.update(0, 250_000, 10);
        b.rtprop_ns = 100 * MS;
        b.filled_pipe = true;
        b.pacing_rate = 250_000;
        b.enter_probe_bw(0);
        b.cwnd = 56_000;
        b.update_rtprop(10 * S, None);
        b.check_probe_rtt(10 * S, 20_000);
        assert_eq!(b.mode, Mode::ProbeBw);
        b.update_rtprop(10 * S + 1, None);
        b.check_probe_rtt(10 * S + 1, 20_000);
        assert_eq!((b.mode, b.prior_cwnd, b.pacing_gain, b.cwnd_gain), (Mode::ProbeRtt, 56_000, 1.0, 1.0));
        b.set_cwnd(1000, 20_000);
        assert_eq!(b.cwnd, 4000);
        assert!(b.app_limited > 0);
        b.check_probe_rtt(10 * S + 500 * MS, 20_000);
        assert_eq!(b.probe_rtt_done_stamp, None);
        b.delivered = 777_000;
        b.check_probe_rtt(11 * S, 4000);
        assert_eq!((b.probe_rtt_done_stamp, b.next_round_delivered), (Some(11 * S + 200 * MS), 777_000));
        b.round_start = true;
        b.check_probe_rtt(11 * S + 100 * MS, 4000);
        b.round_start = false;
        b.check_probe_rtt(11 * S + 200 * MS, 4000);
        assert_eq!(b.mode, Mode::ProbeRtt);
        b.check_probe_rtt(11 * S + 200 * MS + 1, 4000);
        assert_eq!((b.mode, b.cwnd, b.rtprop_stamp), (Mode::ProbeBw, 56_000, 11 * S + 200 * MS + 1));
        // Without a full pipe ProbeRTT returns to Startup.
        b.filled_pipe = false;
        b.rtprop_stamp = 0;
        b.update_rtprop(20 * S, None);
        b.check_probe_rtt(20 * S, 0);
        b.round_start = true;
        b.check_probe_rtt(21 * S, 0);
        assert_eq!((b.mode, b.pacing_gain), (Mode::Startup, HIGH_GAIN));
    }

    /// Fast recovery (tcp_bbr.c `bbr_set_cwnd_to_recover_or_restore`): 10 segments out, cwnd
    /// 60 000. A duplicate ACK SACKs 1000–4000; at the fast retransmit cwnd = in flight = 10 000 −
    /// 3000 = 7000 (prior cwnd saved). The next duplicate ACK SACKs one more segment: packet
    /// conservation, cwnd = max(7000, 6000 + 1000). The end of recovery restores 60 000.
    #[test]
    fn recovery_conserves_packets_then_restores() {
        let (mut b, mut w) = started(10);
        for k in 0..10 {
            send(&mut b, 0, k * 1000, k * 1000);
        }
        b.cwnd = 60_000;
        b.on_dup_ack(&mut w, &ack(100 * MS, 0, 0, 10_000, &[(1000, 4000)]));
        let before = b.cwnd;
        let r = b.on_congestion(&mut w, &LossSignal { now: 100 * MS, kind: LossKind::DupAcks, marked: false, flight_bytes: 10_000 });
        assert_eq!((r, b.cwnd, w.cwnd, b.prior_cwnd), (Reaction::KeepWindow, 7000, 7000, before));
        assert!(b.packet_conservation);
        b.on_dup_ack(&mut w, &ack(101 * MS, 0, 0, 10_000, &[(1000, 5000)]));
        assert_eq!(b.cwnd, 7000);
        b.on_recovery_exit(&mut w);
        assert_eq!((b.cwnd, w.cwnd), (before, before));
    }

    /// Timeout, in ProbeBW (BtlBw 250 000 B/s, RTprop 100 ms: target 56 000 B): cwnd 50 000 with
    /// 60 segments sent → cwnd 1 segment, saved 50 000. The next ACK grows cwnd by what it
    /// delivers, min(1000 + 1000, target), and then to BBRMinPipeCwnd = 4 segments (draft-00
    /// §4.2.3.6, tcp_bbr.c `bbr_set_cwnd`). The ACK that covers all 60 000 B ends the loss episode:
    /// cwnd = max(4000, 50 000), and then + 59 000 delivered, at most the target.
    #[test]
    fn timeout_cuts_to_one_segment_then_restores() {
        let (mut b, mut w) = started(10);
        for k in 0..60 {
            send(&mut b, 0, k * 1000, k * 1000);
        }
        b.btlbw_filter.update(0, 250_000, 10);
        b.rtprop_ns = 100 * MS;
        b.filled_pipe = true;
        b.pacing_rate = 250_000;
        b.enter_probe_bw(0);
        b.cwnd = 50_000;
        b.on_congestion(&mut w, &LossSignal { now: S, kind: LossKind::Timeout, marked: false, flight_bytes: 60_000 });
        assert_eq!((b.cwnd, w.cwnd, b.prior_cwnd, b.loss_until), (1000, 1000, 50_000, Some(60_000)));
        send(&mut b, S, 0, 60_000);
        b.on_ack(&mut w, &ack(S + 100 * MS, 1000, 1000, 59_000, &[]));
        assert_eq!(b.cwnd, 4000);
        b.on_ack(&mut w, &ack(S + 200 * MS, 60_000, 59_000, 0, &[]));
        assert_eq!(b.loss_until, None);
        assert_eq!(b.cwnd, (50_000 + 59_000).min(b.inflight(b.cwnd_gain)));
        assert!(b.cwnd >= 50_000);
    }

    /// ECN-Echo leaves the window alone (BBR v1 has no ECN response).
    #[test]
    fn ecn_is_ignored() {
        let (mut b, mut w) = started(10);
        let r = b.on_congestion(&mut w, &LossSignal { now: 0, kind: LossKind::Ecn, marked: true, flight_bytes: 10_000 });
        assert_eq!((r, w.cwnd, b.cwnd), (Reaction::KeepWindow, 10_000, 10_000));
    }

    /// Through the sender: BBR paces from the first segment. IW 10 × 1000 B, no RTT yet: rate =
    /// 2.885·10 000 B/1 ms = 28 853 900 B/s, one segment every ⌊10¹²/28 853 900⌋ = 34 657 ns. The
    /// offer sends one segment and asks to be woken at 34 657 ns; the timer sends the next.
    /// Reno does not pace: all 10 leave at once and no pacing timer is asked for.
    #[test]
    fn sender_paces_bbr_only() {
        use crate::tcp::sender::tests::{cfg, sent};
        use crate::tcp::Sender;
        let mut s = Sender::new(cfg(true, 10), crate::cc::build("bbr", None).unwrap(), crate::tcp::recovery::by_name("sack").unwrap());
        assert!(s.core.paced);
        s.offer(0, u64::MAX);
        assert_eq!(sent(&mut s), vec![(0, false)]);
        assert_eq!(s.core.pacing_deadline, Some(34_657));
        s.on_pacing_timer(34_657);
        assert_eq!(sent(&mut s), vec![(1000, false)]);
        assert_eq!(s.core.pacing_deadline, Some(2 * 34_657));
        let mut r = Sender::new(cfg(true, 10), crate::cc::build("reno", None).unwrap(), crate::tcp::recovery::by_name("sack").unwrap());
        r.offer(0, u64::MAX);
        assert_eq!(sent(&mut r).len(), 10);
        assert_eq!((r.core.paced, r.core.pacing_deadline, r.core.next_send_at), (false, None, 0));
    }

    #[test]
    fn params_are_checked() {
        let e = |p: BbrParams| p.check().unwrap_err();
        assert_eq!(e(BbrParams { high_gain: 1.0, ..BbrParams::default() }), "high_gain: 1 is out of range (allowed: 1 < high_gain <= 100)");
        assert_eq!(
            e(BbrParams { cwnd_gain: 0.5, ..BbrParams::default() }),
            "cwnd_gain: 0.5 is out of range (allowed: 1 <= cwnd_gain <= 100)"
        );
        assert!(e(BbrParams { cwnd_gain: f64::NAN, ..BbrParams::default() }).starts_with("cwnd_gain:"));
        assert_eq!(
            e(BbrParams { bw_window_rounds: 0, ..BbrParams::default() }),
            "bw_window_rounds: 0 is out of range (allowed: 1 to 1000)"
        );
        assert_eq!(
            e(BbrParams { rtprop_window: SimDuration::from_nanos(1000), ..BbrParams::default() }),
            "rtprop_window: 0.001ms is out of range (allowed: 1ms to 3600s)"
        );
        assert!(BbrParams::default().check().is_ok());
        assert!((HIGH_GAIN - 2.885).abs() < 1e-3);
        let t = toml::from_str::<toml::Table>("high_gain = 3.0\nrtprop_window = \"5s\"").unwrap();
        assert!(crate::cc::build("bbr", Some(&t)).is_ok());
        let t = toml::from_str::<toml::Table>("gain = 3.0").unwrap();
        assert!(crate::cc::build("bbr", Some(&t)).is_err());
    }
}
