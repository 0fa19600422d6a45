//! ns-2.35's Vegas (`cc_params.variant = "ns2"`): `VegasTcpAgent`'s once-per-RTT state and its
//! per-ACK rule (tcp/tcp.h, tcp/tcp-vegas.cc), beside the thesis's Vegas in `mod.rs`.

use super::{Decision, Vegas};
use crate::cc::{AckInfo, Window};
use crate::time::SimTime;

/// ns-2.35's once-per-RTT state (`VegasTcpAgent`, tcp/tcp.h and tcp/tcp-vegas.cc). Sequence
/// numbers are bytes here; ns-2's are packets (its ACK number s is our ACK (s + 1)·MSS).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Ns2Epoch {
    /// `v_begseq_`: snd_nxt when the epoch began; the epoch ends at the first new ACK that covers
    /// the segment starting there (`tcph->seqno() >= v_begseq_`). 0 at the start, so the first
    /// ACK ends the first epoch.
    pub beg_nxt: u64,
    /// `v_begtime_`: when the epoch began (None for the first, see Vegas's `on_ack`).
    pub beg_time: Option<SimTime>,
    /// `v_sumRTT_` (ns) and `v_cntRTT_`: the fine samples taken since the previous epoch ended.
    pub sum_rtt: f64,
    pub cnt_rtt: u64,
    /// `v_baseRTT_` (ns); None before the first ACK.
    pub base_rtt: Option<f64>,
    /// `v_incr_`: what every new ACK adds to cwnd, in segments (1 in slow start, 1/cwnd in
    /// congestion avoidance, 0 to hold); set once per epoch, kept through losses as ns-2 keeps it.
    pub incr: f64,
    /// `v_inc_flag_`: slow start grows in every other epoch (starts true, toggled first).
    pub inc_flag: bool,
    /// The last `delta`, in segments (for tests and traces).
    pub delta: i64,
}

impl Default for Ns2Epoch {
    fn default() -> Self {
        Ns2Epoch { beg_nxt: 0, beg_time: None, sum_rtt: 0.0, cnt_rtt: 0, base_rtt: None, incr: 0.0, inc_flag: true, delta: 0 }
    }
}

impl Vegas {
    /// ns-2.35's once-per-RTT rule and per-ACK growth, on a new ACK (`VegasTcpAgent::recv`, the
    /// branch `tcph->seqno() > last_ack_`, in its order; ns-2's line in each comment). `sample` is
    /// this ACK's fine RTT sample (ns), if its segment was sent once.
    pub(super) fn on_ack_ns2(&mut self, w: &mut Window, ack: &AckInfo, sample: Option<f64>) -> Option<Decision> {
        let mss = w.mss;
        let e = &mut self.ns2;
        // `if (firstrecv_ < 0) { v_baseRTT_ = v_rtt_ = firstrecv_; ... }`: ns-2 takes the time
        // from the first send to the first ACK, which is the first ACK's sample when the first
        // segment was not lost.
        if e.base_rtt.is_none() {
            e.base_rtt = sample;
        }
        // Segments in flight as ns-2 counts them after `newack`: `t_seqno_ - last_ack_`, its
        // ACK number being the last segment received, so outstanding + 1.
        let in_transit = ack.snd_nxt.saturating_sub(ack.ack()) + mss;
        let mut decision = None;
        // `if (tcph->seqno() >= v_begseq_)`: once per RTT.
        if ack.ack() > e.beg_nxt {
            // `rtt = v_sumRTT_ / v_cntRTT_`, or `currentTime - v_begtime_` without samples.
            let rtt = if e.cnt_rtt > 0 {
                e.sum_rtt / e.cnt_rtt as f64
            } else {
                e.beg_time.map_or(sample.unwrap_or(0.0), |t| ack.now.saturating_sub(t) as f64)
            };
            e.sum_rtt = 0.0;
            e.cnt_rtt = 0;
            // `rttLen = t_seqno_ - v_begseq_`: segments sent during the epoch (negative after a
            // timeout's go-back-N).
            let rtt_len = (ack.snd_nxt as f64 - e.beg_nxt as f64) / mss as f64;
            if rtt > 0.0 {
                // `if (rtt < v_baseRTT_ || rttLen <= 1) v_baseRTT_ = rtt`.
                if e.base_rtt.is_none_or(|b| rtt < b) || rtt_len <= 1.0 {
                    e.base_rtt = Some(rtt);
                }
                let base = e.base_rtt.unwrap_or(rtt);
                // `v_actual_ = rttLen / rtt`; `expect = (t_seqno_ - last_ack_) / v_baseRTT_`;
                // `delta = int((expect - v_actual_) * v_baseRTT_ + 0.5)` (C truncates toward 0).
                let actual = rtt_len / rtt;
                let expect = (in_transit as f64 / mss as f64) / base;
                let delta = ((expect - actual) * base + 0.5).trunc() as i64;
                e.delta = delta;
                let d = delta as f64;
                decision = Some(if w.in_slow_start() {
                    // `v_inc_flag_ = !v_inc_flag_`: grow in every other epoch only.
                    e.inc_flag = !e.inc_flag;
                    if !e.inc_flag {
                        e.incr = 0.0;
                        Decision::KeepSlowStart
                    } else if d > self.gamma {
                        // `ssthresh_ = 2; cwnd_ -= cwnd_/8` (at least 2).
                        w.ssthresh = 2 * mss;
                        w.cwnd = (w.cwnd - w.cwnd / 8).max(2 * mss);
                        e.incr = 0.0;
                        Decision::LeaveSlowStart
                    } else {
                        e.incr = 1.0;
                        Decision::KeepSlowStart
                    }
                } else if d > self.beta {
                    // `--cwnd_` (at least 2), and no growth in the next epoch.
                    w.cwnd = w.cwnd.saturating_sub(mss).max(2 * mss);
                    e.incr = 0.0;
                    Decision::Decrease
                } else if d < self.alpha {
                    // `v_incr_ = 1/cwnd_`: one segment per window of ACKs.
                    e.incr = mss as f64 / w.cwnd as f64;
                    Decision::Increase
                } else {
                    e.incr = 0.0;
                    Decision::Hold
                });
            }
            // `v_begseq_ = t_seqno_; v_begtime_ = currentTime`.
            e.beg_nxt = ack.snd_nxt;
            e.beg_time = Some(ack.now);
        }
        // `if (v_incr_ == 1 && cwnd_ >= ssthresh_) v_incr_ = 0`.
        if e.incr == 1.0 && !w.in_slow_start() {
            e.incr = 0.0;
        }
        // `if (v_incr_ > 0 && (cwnd_ - (t_seqno_ - last_ack_)) <= 2) cwnd_ += v_incr_`: grow
        // only while the flow keeps up with its window (ns-2's cwnd_ is a double; here bytes,
        // rounded down).
        if e.incr > 0.0 && w.cwnd <= in_transit + 2 * mss {
            w.cwnd += (e.incr * mss as f64) as u64;
        }
        // The fine sample feeds the next epoch's mean and the base RTT (after the epoch's own
        // decision, as in ns-2): `v_sumRTT_ += rtt; ++v_cntRTT_; if (v_rtt_ < v_baseRTT_) ...`.
        if let Some(r) = sample {
            e.sum_rtt += r;
            e.cnt_rtt += 1;
            if r > 0.0 && e.base_rtt.is_none_or(|b| r < b) {
                e.base_rtt = Some(r);
            }
        }
        decision
    }
}
