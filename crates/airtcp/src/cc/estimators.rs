//! The estimators that several window policies share, in one place: Mascolo et al.'s AckedCount
//! (Westwood, Westwood+, the Jersey family, Prairie, CAIAD), Westwood's Tustin-filtered bandwidth
//! estimator and the [`BandwidthEstimator`] interface that Westwood+'s per-RTT filters
//! (`cc::westwood_plus`) also implement, and TCP-Jersey's available bandwidth estimator ABE
//! (Jersey, and on the receiver's clock New Jersey and NJ+). Each scheme's file imports what it
//! uses; the citations stay beside the code.

use serde::Deserialize;

use crate::time::{SimTime, NS_PER_S};

/// Mascolo et al.'s "AckedCount" in bytes: how much an ACK says reached the receiver. A duplicate
/// ACK counts one segment (it reports a segment that arrived); a later cumulative ACK counts only
/// what duplicates did not already count (but at least one segment, for the segment it reports).
#[derive(Debug, Clone, Default)]
pub(crate) struct AckedCount {
    /// Bytes counted through duplicate ACKs not yet covered by the cumulative ACK.
    pub(crate) accounted: u64,
}

impl AckedCount {
    /// Bytes delivered according to an ACK that newly acknowledged `acked_bytes`.
    pub(crate) fn on_ack(&mut self, acked_bytes: u64, mss: u64) -> u64 {
        if acked_bytes <= self.accounted {
            self.accounted -= acked_bytes;
            acked_bytes.min(mss)
        } else {
            let d = acked_bytes - self.accounted;
            self.accounted = 0;
            d
        }
    }

    /// Bytes delivered according to a duplicate ACK: one segment.
    pub(crate) fn on_dup_ack(&mut self, mss: u64) -> u64 {
        self.accounted += mss;
        mss
    }
}

/// The Tustin-filtered bandwidth estimator of Westwood (shared with schemes that compare to it).
#[derive(Debug, Clone)]
pub struct TustinEstimator {
    pub(crate) tau_ns: u64,
    pub(crate) m: u32,
    /// Fixed coefficients, no zero samples ([`crate::cc::westwood::WestwoodFilter::UclaNs2`]).
    pub(crate) fixed: bool,
    /// b̂, bytes per second.
    pub estimate: f64,
    /// b_{k−1}, bytes per second.
    pub(crate) last_sample: f64,
    /// t_{k−1}: time of the last real or assumed sample.
    pub(crate) last_time: Option<SimTime>,
    /// Bytes of ACKs that arrived at `last_time` and await the next Δ > 0.
    pub(crate) carried_bytes: u64,
}

impl TustinEstimator {
    pub(crate) fn new(tau_ns: u64, m: u32) -> Self {
        TustinEstimator { tau_ns, m, fixed: false, estimate: 0.0, last_sample: 0.0, last_time: None, carried_bytes: 0 }
    }

    /// The UCLA ns-2 module's filter ([`crate::cc::westwood::WestwoodFilter::UclaNs2`]).
    pub(crate) fn ucla_ns2() -> Self {
        TustinEstimator { fixed: true, ..TustinEstimator::new(1, 3) }
    }

    /// Jersey eq. (2) with Δ in nanoseconds and a sample in bytes/s; or the UCLA module's fixed
    /// coefficients (`current_bwe_ = current_bwe_ * .93548 + (sample_bwe + last_bwe_sample_) *
    /// .03225`).
    pub(crate) fn filter(&mut self, sample: f64, delta_ns: u64) {
        if self.fixed {
            self.estimate = 0.93548 * self.estimate + 0.03225 * (sample + self.last_sample);
        } else {
            let r = 2.0 * self.tau_ns as f64 / delta_ns as f64;
            self.estimate = (r - 1.0) / (r + 1.0) * self.estimate + (sample + self.last_sample) / (r + 1.0);
        }
        self.last_sample = sample;
    }

    /// Feeds the zero samples due every τ/m of silence up to `now` (none for the UCLA filter).
    pub(crate) fn advance_to(&mut self, now: SimTime) {
        if self.fixed {
            return;
        }
        let step = (self.tau_ns / self.m as u64).max(1);
        if let Some(mut t) = self.last_time {
            while t + step < now {
                // A pending same-time amount belongs to the first interval.
                let bytes = std::mem::take(&mut self.carried_bytes);
                let before = (self.estimate.to_bits(), self.last_sample.to_bits());
                self.filter(bytes as f64 * NS_PER_S as f64 / step as f64, step);
                t += step;
                // A zero sample that changed nothing (the estimate has decayed as far as floating
                // point goes) leaves every later one changing nothing: skip to the last of them,
                // with the same result. (A 10^7-s silence took 10^10 steps: fuzzing, issue 25.)
                if bytes == 0 && (self.estimate.to_bits(), self.last_sample.to_bits()) == before {
                    if now > t {
                        t += (now - t - 1) / step * step;
                    }
                    break;
                }
            }
            self.last_time = Some(t);
        }
    }

    /// An ACK at `now` reporting `bytes` delivered.
    pub(crate) fn on_sample(&mut self, now: SimTime, bytes: u64) {
        self.advance_to(now);
        match self.last_time {
            None => self.last_time = Some(now),
            Some(t) if t == now => self.carried_bytes += bytes,
            Some(t) => {
                let d = bytes + std::mem::take(&mut self.carried_bytes);
                self.filter(d as f64 * NS_PER_S as f64 / (now - t) as f64, now - t);
                self.last_time = Some(now);
            }
        }
    }
}

/// A bandwidth estimator fed by ACKs: the part in which Westwood (Tustin filter, one sample per
/// ACK) and Westwood+ (EWMA, one sample per RTT) differ. Everything else — AckedCount, the
/// adaptive decrease, Reno growth — is shared in [`crate::cc::westwood::Westwood`].
pub trait BandwidthEstimator: std::fmt::Debug + Clone + Send {
    /// An ACK at `now` reports `bytes` delivered (AckedCount); `srtt_ns` is the smoothed RTT then
    /// (0 before the first sample).
    fn on_delivered(&mut self, now: SimTime, bytes: u64, srtt_ns: u64);
    /// Brings the estimate up to `now` before it is used for a decrease (e.g. zero samples owed
    /// for silence); nothing by default.
    fn advance_to(&mut self, _now: SimTime) {}
    /// The estimate, bytes per second.
    fn bytes_per_s(&self) -> f64;
}

impl BandwidthEstimator for TustinEstimator {
    fn on_delivered(&mut self, now: SimTime, bytes: u64, _srtt_ns: u64) {
        self.on_sample(now, bytes);
    }
    fn advance_to(&mut self, now: SimTime) {
        TustinEstimator::advance_to(self, now);
    }
    fn bytes_per_s(&self) -> f64 {
        self.estimate
    }
}

/// When the ABE estimate is updated (see `cc::jersey`'s module doc on Fig. 6 line 6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AbeUpdate {
    /// At most once per RTT, from the bytes acknowledged since the last update (TSW, eq. (4)).
    PerRtt,
    /// Eq. (5) on every ACK (TSW per packet, NJ+ Fig. 2).
    PerAck,
    /// Fig. 6 as printed: once per RTT, from the last ACK's bytes and inter-ACK gap.
    Literal,
}

/// The available bandwidth estimator (Fig. 6 / eq. (5)), on one clock: the sender's ACK arrival
/// times (TCP-Jersey) or the receiver's data arrival times (TCP New Jersey's TABE).
#[derive(Debug, Clone)]
pub struct Abe {
    pub(crate) update: AbeUpdate,
    pub(crate) k: f64,
    /// R, bytes per second.
    pub rate: f64,
    /// R before the latest update.
    pub(crate) prev_rate: f64,
    /// Fig. 6 T_prev: time of the previous ACK.
    pub(crate) t_prev: Option<u64>,
    /// Fig. 6 T_last: time of the last update.
    pub(crate) t_last: u64,
    /// Bytes reported since the last update (the per-RTT reading's L).
    pub(crate) bytes_since_update: u64,
}

impl Abe {
    pub(crate) fn new(update: AbeUpdate, k: f64) -> Self {
        Abe { update, k, rate: 0.0, prev_rate: 0.0, t_prev: None, t_last: 0, bytes_since_update: 0 }
    }

    /// Eq. (5): R = (TW·R + L)/(Δ + TW), TW = k·RTT, times in ns, L in bytes.
    fn tsw(&mut self, bytes: u64, delta_ns: u64, rtt_ns: u64) {
        let tw_s = self.k * rtt_ns as f64 / NS_PER_S as f64;
        self.prev_rate = self.rate;
        self.rate = (tw_s * self.rate + bytes as f64) / (delta_ns as f64 / NS_PER_S as f64 + tw_s);
    }

    /// An ACK (or duplicate ACK) at time `t` on this estimator's clock reporting `bytes`
    /// delivered; `rtt_ns` is the current SRTT (0 before the first sample: no update).
    pub(crate) fn on_ack(&mut self, t: u64, bytes: u64, rtt_ns: u64) {
        let Some(t_prev) = self.t_prev else {
            // The first ACK opens the first interval; its bytes span an unknown time.
            self.t_prev = Some(t);
            self.t_last = t;
            return;
        };
        let t = t.max(t_prev); // a clock never runs backwards (reordered ACKs)
        match self.update {
            AbeUpdate::PerRtt => {
                self.bytes_since_update += bytes;
                // Fig. 6 line 6: update once the interval since T_last reaches an RTT.
                if rtt_ns > 0 && t - self.t_last >= rtt_ns {
                    let bytes = std::mem::take(&mut self.bytes_since_update);
                    self.tsw(bytes, t - self.t_last, rtt_ns);
                    self.t_last = t;
                }
            }
            AbeUpdate::PerAck => {
                if rtt_ns > 0 {
                    self.tsw(bytes, t - t_prev, rtt_ns);
                }
            }
            AbeUpdate::Literal => {
                // Lines 4–8 as printed: Δ = now − T_prev, L = this ACK's bytes.
                if rtt_ns > 0 && t - self.t_last >= rtt_ns {
                    self.tsw(bytes, t - t_prev, rtt_ns);
                    self.t_last = t;
                }
            }
        }
        self.t_prev = Some(t);
    }

    /// The estimate before its latest update (R_{n−1}), bytes per second.
    pub fn previous_rate(&self) -> f64 {
        self.prev_rate
    }
}
