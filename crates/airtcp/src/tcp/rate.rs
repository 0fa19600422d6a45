//! Delivery-rate estimation on the sender, as Linux's `net/ipv4/tcp_rate.c` does it
//! (draft-cheng-iccrg-delivery-rate-estimation-00, "rate-est"): every transmission records the
//! connection's delivered count and times, and each ACK gives delivered/interval from the most
//! recently sent segment it newly delivers (cumulatively or by SACK). The sample reaches the
//! window policy in [`AckInfo::rate`](crate::cc::AckInfo::rate), so a model-based policy (BBR)
//! keeps no scoreboard and parses no SACK block of its own.
//!
//! Only a policy that asks for it ([`CongestionControl::reads_rate_sample`]) has the sampler: it
//! keeps one entry per outstanding segment, which the other policies do not pay for.
//!
//! Readings (tested below and, through BBR, in `cc::bbr`):
//! - Segments are MSS-aligned from the cumulative ACK, one entry per MSS; a SACK block counts a
//!   segment only when it covers all of it, and a segment SACKed once is not delivered again when
//!   the cumulative ACK passes it (its bytes leave [`RateSample::sacked_bytes`] then).
//! - The RTT sample is now − the send time of the most recently sent delivered segment, unless it
//!   was ever retransmitted (Karn).
//! - A sample whose interval max(send_elapsed, ack_elapsed) is shorter than the sender's minimum
//!   RTT is discarded (rate-est §3.3 `GenerateRateSample`, tcp_rate.c `tcp_rate_gen`).
//! - Application-limited marking comes from the policy ([`CongestionControl::take_app_limited`]):
//!   the engine's applications are bulk or finite, so only BBR's ProbeRTT marks it (tcp_bbr.c
//!   `bbr_update_min_rtt` writes `tp->app_limited`).
//!
//! [`CongestionControl::reads_rate_sample`]: crate::cc::CongestionControl::reads_rate_sample
//! [`CongestionControl::take_app_limited`]: crate::cc::CongestionControl::take_app_limited

use std::collections::VecDeque;

use crate::cc::RateSample;
use crate::net::SackBlock;
use crate::time::{SimTime, NS_PER_S};

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

/// The connection's delivery-rate state (rate-est §3.1, connection state C) and the per-segment
/// state of what is outstanding.
#[derive(Debug, Clone)]
pub(crate) struct RateSampler {
    mss: u64,
    /// Outstanding segments from `base` (the cumulative ACK), one per MSS.
    segs: VecDeque<SegState>,
    base: u64,
    /// C.delivered, bytes.
    delivered: u64,
    delivered_time: SimTime,
    first_sent_time: SimTime,
    /// C.app_limited: nonzero = the delivered count at which app-limited sending ends.
    app_limited: u64,
    /// Bytes SACKed above the cumulative ACK.
    sacked_bytes: u64,
}

impl RateSampler {
    /// A sampler for segments of `mss` payload bytes.
    pub(crate) fn new(mss: u64) -> Self {
        RateSampler {
            mss: mss.max(1),
            segs: VecDeque::new(),
            base: 0,
            delivered: 0,
            delivered_time: 0,
            first_sent_time: 0,
            app_limited: 0,
            sacked_bytes: 0,
        }
    }

    /// rate-est §3.2 "upon transmitting a packet": segment [`seq`, `seq` + `len`) leaves at `now`
    /// with `flight_bytes` outstanding before it (tcp_rate.c `tcp_rate_skb_sent`).
    pub(crate) fn on_send(&mut self, now: SimTime, seq: u64, len: u64, retransmission: bool, flight_bytes: u64) {
        if flight_bytes == 0 {
            // "If there are no packets in flight yet, then we can mark this as the start of the flow."
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        if seq < self.base {
            return;
        }
        let i = ((seq - self.base) / self.mss) as usize;
        while self.segs.len() <= i {
            self.segs.push_back(SegState::default());
        }
        let seg = &mut self.segs[i];
        seg.len = len;
        seg.sent_at = now;
        seg.delivered = self.delivered;
        seg.delivered_time = self.delivered_time;
        seg.first_sent_time = self.first_sent_time;
        seg.app_limited = self.app_limited != 0;
        seg.retransmitted |= retransmission;
    }

    /// The policy marks the connection application-limited until `delivered_mark` bytes have been
    /// delivered (C.app_limited; tcp_rate.c `tcp_rate_check_app_limited`).
    pub(crate) fn set_app_limited(&mut self, delivered_mark: u64) {
        self.app_limited = delivered_mark;
    }

    /// rate-est §3.3 (tcp_rate.c `tcp_rate_skb_delivered`, `tcp_rate_gen`): the segments the ACK
    /// `ack` newly delivers (cumulatively up to `ack`, or by its SACK blocks `sack`), and the rate sample
    /// of the most recently sent of them; `min_rtt_ns` is the sender's minimum RTT.
    pub(crate) fn on_ack(&mut self, now: SimTime, ack: u64, sack: &[SackBlock], min_rtt_ns: u64) -> RateSample {
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
        for b in sack {
            let start = b.start.max(ack).max(self.base);
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
        if ack > self.base {
            let n = (((ack - self.base).div_ceil(self.mss)) as usize).min(self.segs.len());
            for seg in self.segs.drain(..n) {
                if seg.sacked {
                    self.sacked_bytes -= seg.len;
                } else if seg.len > 0 {
                    rs.newly_delivered += deliver(seg, &mut self.delivered, &mut self.delivered_time);
                }
            }
            self.base = ack;
        }
        rs.delivered = self.delivered;
        rs.sacked_bytes = self.sacked_bytes;
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
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn ack(r: &mut RateSampler, now: u64, ack: u64, sack: &[(u64, u64)]) -> RateSample {
        let blocks: Vec<SackBlock> = sack.iter().map(|&(start, end)| SackBlock { start, end }).collect();
        r.on_ack(now, ack, &blocks, 100 * MS)
    }

    /// Rate samples (rate-est §3), one 1000-byte segment every 10 ms from 0, each acknowledged
    /// 100 ms after it was sent, minimum RTT 100 ms:
    /// - ACK of segment 0 at 100 ms: 1000 B since P.delivered = 0 at P.delivered_time = 0;
    ///   send_elapsed = 0, ack_elapsed = 100 ms → 10 000 B/s, RTT 100 ms.
    /// - Segment 10 is sent at 100 ms with P.delivered = 1000, P.delivered_time = 100 ms,
    ///   P.first_sent_time = 0 (the send time of segment 0, the last one delivered).
    /// - ACK of segment 1 at 110 ms: 2000 − 0 B over max(10 − 0, 110 − 0) ms = 18 181 B/s.
    /// - ACKs of segments 2–9 at 100 + 10k ms: (k + 1)·1000 B since P.delivered = 0, over
    ///   max(10k − 0, 100 + 10k − 0) ms (segment 9: 10 000 B in 190 ms = 52 631 B/s).
    /// - ACK of segment 10 at 200 ms: 11 000 − 1000 B in max(100 − 0, 200 − 100) ms = 100 000 B/s.
    /// - An interval shorter than the minimum RTT gives no rate: a segment acknowledged 50 ms
    ///   after the flow's first send (the round and RTT sample are still taken).
    #[test]
    fn delivery_rate_samples_by_hand() {
        let mut r = RateSampler::new(1000);
        for k in 0..10 {
            r.on_send(k * 10 * MS, k * 1000, 1000, false, k * 1000);
        }
        let s = ack(&mut r, 100 * MS, 1000, &[]);
        assert_eq!(
            s,
            RateSample {
                newly_delivered: 1000,
                prior_delivered: Some(0),
                rate: Some(10_000),
                app_limited: false,
                rtt_ns: Some(100 * MS),
                delivered: 1000,
                sacked_bytes: 0
            }
        );
        r.on_send(100 * MS, 10_000, 1000, false, 9000);
        assert_eq!(ack(&mut r, 110 * MS, 2000, &[]).rate, Some(18_181));
        for k in 2..10 {
            let s = ack(&mut r, (100 + 10 * k) * MS, (k + 1) * 1000, &[]);
            assert_eq!((s.prior_delivered, s.delivered), (Some(0), (k + 1) * 1000));
            assert_eq!(s.rate, Some((k + 1) * 1000 * 1000 / (100 + 10 * k)), "segment {k}");
        }
        let s = ack(&mut r, 200 * MS, 11_000, &[]);
        assert_eq!((s.rate, s.prior_delivered, s.delivered, s.rtt_ns), (Some(100_000), Some(1000), 11_000, Some(100 * MS)));
        let mut r = RateSampler::new(1000);
        r.on_send(0, 0, 1000, false, 0);
        let s = ack(&mut r, 50 * MS, 1000, &[]);
        assert_eq!((s.rate, s.prior_delivered, s.rtt_ns), (None, Some(0), Some(50 * MS)));
    }

    /// SACKed segments are delivered when SACKed, not again when cumulatively acknowledged, and
    /// are counted in `sacked_bytes` until then: 5 segments out at 0; a duplicate ACK at 100 ms
    /// SACKing 2000–4000 delivers 2000 B; a block not covering a whole segment (4000–4500)
    /// delivers nothing; the cumulative ACK of 5000 at 110 ms delivers only segments 0, 1 and 4
    /// (3000 B). A retransmitted segment gives no RTT sample.
    #[test]
    fn sacked_segments_are_delivered_once() {
        let mut r = RateSampler::new(1000);
        for k in 0..5 {
            r.on_send(0, k * 1000, 1000, false, k * 1000);
        }
        let s = ack(&mut r, 100 * MS, 0, &[(2000, 4000), (4000, 4500)]);
        assert_eq!((s.newly_delivered, s.delivered, s.sacked_bytes), (2000, 2000, 2000));
        r.on_send(105 * MS, 4000, 1000, true, 5000);
        let s = ack(&mut r, 110 * MS, 5000, &[]);
        assert_eq!((s.newly_delivered, s.delivered, s.sacked_bytes, s.rtt_ns), (3000, 5000, 0, None));
        assert_eq!((r.base, r.segs.len()), (5000, 0));
    }

    /// Application-limited marking: samples of segments sent while marked say so, and the mark
    /// ends once more than the marked count has been delivered.
    #[test]
    fn app_limited_mark_ends_after_its_data() {
        let mut r = RateSampler::new(1000);
        r.set_app_limited(1500);
        r.on_send(0, 0, 1000, false, 0);
        r.on_send(0, 1000, 1000, false, 1000);
        assert!(ack(&mut r, 100 * MS, 1000, &[]).app_limited);
        assert_eq!(r.app_limited, 1500);
        assert!(ack(&mut r, 100 * MS, 2000, &[]).app_limited);
        assert_eq!(r.app_limited, 0);
        r.on_send(100 * MS, 2000, 1000, false, 0);
        assert!(!ack(&mut r, 200 * MS, 3000, &[]).app_limited);
    }
}
