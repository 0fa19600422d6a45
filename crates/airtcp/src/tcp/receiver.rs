//! The TCP receiver: in-order delivery, out-of-order buffering, cumulative ACKs, SACK blocks
//! (RFC 2018), timestamp echo (RFC 7323 §4.3), ECN echo (RFC 3168 §6.1.3) and delayed ACKs
//! (RFC 1122 §4.2.3.2, RFC 5681 §4.2).

use crate::cc::EcnEcho;
use crate::net::packet::MAX_SACK_BLOCKS;
use crate::net::{SackBlock, TcpHeader};
use crate::time::SimTime;

/// Receiver settings.
#[derive(Debug, Clone)]
pub struct ReceiverConfig {
    pub sack: bool,
    pub timestamps: bool,
    pub delayed_ack: bool,
    pub delack_timeout_ns: u64,
    /// Full-sized segment payload (for the "every second full-sized segment" rule).
    pub mss: u32,
    /// How CE marks are echoed (chosen by the sender's window policy).
    pub ecn_echo: EcnEcho,
}

/// What the receiver wants after a data segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AckDecision {
    /// Send an ACK now.
    Now,
    /// Hold the ACK until the delayed-ACK deadline (or the next segment).
    Delay,
}

/// Receiver state of one connection.
#[derive(Debug, Clone)]
pub struct Receiver {
    cfg: ReceiverConfig,
    /// Next in-order byte expected (RCV.NXT).
    pub rcv_nxt: u64,
    /// Out-of-order data above rcv_nxt: sorted, disjoint, non-adjacent [start, end) ranges.
    ooo: Vec<(u64, u64)>,
    /// Start of recently received out-of-order segments, most recent first (RFC 2018 §4 ordering).
    recent: Vec<u64>,
    /// Full-sized segments received since the last ACK.
    unacked_segments: u32,
    /// Deadline of a held ACK.
    pub delack_deadline: Option<SimTime>,
    ts_recent: u64,
    last_ack_sent: u64,
    /// ECE is set on every ACK until a CWR arrives (RFC 3168 §6.1.3).
    ece_pending: bool,
    /// In-order bytes handed to the application.
    pub delivered_bytes: u64,
    /// Data segments received (duplicates included).
    pub segments_received: u64,
    /// Bytes received that were already delivered or buffered.
    pub duplicate_bytes: u64,
}

impl Receiver {
    pub fn new(cfg: ReceiverConfig) -> Self {
        Receiver {
            cfg,
            rcv_nxt: 0,
            ooo: Vec::new(),
            recent: Vec::new(),
            unacked_segments: 0,
            delack_deadline: None,
            ts_recent: 0,
            last_ack_sent: 0,
            ece_pending: false,
            delivered_bytes: 0,
            segments_received: 0,
            duplicate_bytes: 0,
        }
    }

    /// Out-of-order ranges currently buffered.
    pub fn out_of_order(&self) -> &[(u64, u64)] {
        &self.ooo
    }

    /// Processes a data segment `h` (whose IP header had CE when `ce`). Returns the in-order bytes
    /// newly delivered to the application and whether to ACK now.
    pub fn on_data(&mut self, now: SimTime, h: &TcpHeader, ce: bool) -> (u64, AckDecision) {
        self.segments_received += 1;
        let (start, end) = (h.seq, h.seq + h.len as u64);
        // RFC 3168 §6.1.3: CE sets the ECE state; CWR clears it (a CE on that same packet re-sets it).
        // Per-segment echo (TCP-Jersey's CW) ignores CWR: make_ack clears the state instead.
        if h.cwr && self.cfg.ecn_echo == EcnEcho::UntilCwr {
            self.ece_pending = false;
        }
        if ce {
            self.ece_pending = true;
        }
        // RFC 7323 §4.3 (2): TS.Recent <- SEG.TSval if SEG.SEQ <= Last.ACK.sent (and TSval not older).
        if self.cfg.timestamps && h.has_ts && start <= self.last_ack_sent && h.ts_val >= self.ts_recent {
            self.ts_recent = h.ts_val;
        }
        let before = self.rcv_nxt;
        let had_hole = !self.ooo.is_empty();
        let mut out_of_order = false;
        if end <= self.rcv_nxt {
            self.duplicate_bytes += h.len as u64;
            out_of_order = true; // a duplicate: ACK at once so the sender learns rcv_nxt
        } else if start <= self.rcv_nxt {
            self.rcv_nxt = end;
            // Pull in buffered ranges now contiguous.
            let mut i = 0;
            while i < self.ooo.len() && self.ooo[i].0 <= self.rcv_nxt {
                self.rcv_nxt = self.rcv_nxt.max(self.ooo[i].1);
                i += 1;
            }
            self.ooo.drain(..i);
            let nxt = self.rcv_nxt;
            self.recent.retain(|&s| s >= nxt);
        } else {
            out_of_order = true;
            self.insert_ooo(start, end);
            self.recent.retain(|&s| s != start);
            self.recent.insert(0, start);
            self.recent.truncate(2 * MAX_SACK_BLOCKS);
        }
        let delivered = self.rcv_nxt - before;
        self.delivered_bytes += delivered;
        if h.len >= self.cfg.mss {
            self.unacked_segments += 1;
        }
        // RFC 5681 §4.2: ACK immediately out-of-order segments and segments that fill (part of) a hole.
        let decision = if !self.cfg.delayed_ack || out_of_order || had_hole || self.unacked_segments >= 2 {
            AckDecision::Now
        } else {
            if self.delack_deadline.is_none() {
                self.delack_deadline = Some(now + self.cfg.delack_timeout_ns);
            }
            AckDecision::Delay
        };
        (delivered, decision)
    }

    fn insert_ooo(&mut self, start: u64, end: u64) {
        let pos = self.ooo.partition_point(|&(_, e)| e < start);
        let mut s = start;
        let mut e = end;
        let mut j = pos;
        while j < self.ooo.len() && self.ooo[j].0 <= e {
            if self.ooo[j].0 <= start && self.ooo[j].1 >= end {
                self.duplicate_bytes += end - start;
            }
            s = s.min(self.ooo[j].0);
            e = e.max(self.ooo[j].1);
            j += 1;
        }
        self.ooo.splice(pos..j, std::iter::once((s, e)));
    }

    /// Builds the ACK to send now (and resets the delayed-ACK state).
    pub fn make_ack(&mut self, now: SimTime) -> TcpHeader {
        self.unacked_segments = 0;
        self.delack_deadline = None;
        self.last_ack_sent = self.rcv_nxt;
        let mut h = TcpHeader { ack: self.rcv_nxt, ece: self.ece_pending, ..TcpHeader::default() };
        if self.cfg.ecn_echo == EcnEcho::PerSegment {
            self.ece_pending = false;
        }
        if self.cfg.timestamps {
            h.has_ts = true;
            h.ts_val = now;
            h.ts_ecr = self.ts_recent;
        }
        if self.cfg.sack && !self.ooo.is_empty() {
            // RFC 2018 §4: the first block holds the most recent segment; then the most recently
            // reported other blocks. 3 blocks fit beside timestamps, 4 without.
            let max = if self.cfg.timestamps { 3 } else { MAX_SACK_BLOCKS };
            let mut n = 0usize;
            for &s in &self.recent {
                if n == max {
                    break;
                }
                if let Some(&(bs, be)) = self.ooo.iter().find(|&&(bs, be)| bs <= s && s < be) {
                    if !h.sack[..n].iter().any(|b| b.start == bs) {
                        h.sack[n] = SackBlock { start: bs, end: be };
                        n += 1;
                    }
                }
            }
            // Blocks never reported as "recent" (e.g. after the recency list was trimmed): highest first.
            for &(bs, be) in self.ooo.iter().rev() {
                if n == max {
                    break;
                }
                if !h.sack[..n].iter().any(|b| b.start == bs) {
                    h.sack[n] = SackBlock { start: bs, end: be };
                    n += 1;
                }
            }
            h.n_sack = n as u8;
        }
        h
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(delayed: bool) -> ReceiverConfig {
        ReceiverConfig {
            sack: true,
            timestamps: false,
            delayed_ack: delayed,
            delack_timeout_ns: 100,
            mss: 100,
            ecn_echo: EcnEcho::UntilCwr,
        }
    }

    fn seg(seq: u64) -> TcpHeader {
        TcpHeader { seq, len: 100, ..TcpHeader::default() }
    }

    #[test]
    fn buffers_out_of_order_and_reports_sack_blocks_recent_first() {
        let mut r = Receiver::new(cfg(false));
        r.on_data(0, &seg(0), false);
        r.on_data(0, &seg(200), false); // hole at 100
        r.on_data(0, &seg(500), false); // hole at 300..500
        let a = r.make_ack(0);
        assert_eq!(a.ack, 100);
        assert_eq!(a.n_sack, 2);
        assert_eq!(a.sack[0], SackBlock { start: 500, end: 600 });
        assert_eq!(a.sack[1], SackBlock { start: 200, end: 300 });
        r.on_data(0, &seg(300), false); // merges with 200..300
        let a = r.make_ack(0);
        assert_eq!(a.sack[0], SackBlock { start: 200, end: 400 });
        let (d, dec) = r.on_data(0, &seg(100), false); // fills the first hole
        assert_eq!((d, dec), (300, AckDecision::Now));
        assert_eq!(r.rcv_nxt, 400);
        assert_eq!(r.delivered_bytes, 400);
    }

    #[test]
    fn delayed_ack_every_second_segment() {
        let mut r = Receiver::new(cfg(true));
        assert_eq!(r.on_data(0, &seg(0), false).1, AckDecision::Delay);
        assert_eq!(r.delack_deadline, Some(100));
        assert_eq!(r.on_data(5, &seg(100), false).1, AckDecision::Now);
        r.make_ack(5);
        assert_eq!(r.delack_deadline, None);
        assert_eq!(r.on_data(6, &seg(300), false).1, AckDecision::Now); // out of order: at once
    }

    #[test]
    fn ece_until_cwr() {
        let mut r = Receiver::new(cfg(false));
        r.on_data(0, &seg(0), true);
        assert!(r.make_ack(0).ece);
        r.on_data(0, &seg(100), false);
        assert!(r.make_ack(0).ece);
        let mut s = seg(200);
        s.cwr = true;
        r.on_data(0, &s, false);
        assert!(!r.make_ack(0).ece);
    }

    /// Per-segment echo: ECE only on the ACKs of marked segments, CWR irrelevant; a delayed ACK
    /// covering a marked and an unmarked segment carries it.
    #[test]
    fn ece_per_segment() {
        let mut r = Receiver::new(ReceiverConfig { ecn_echo: EcnEcho::PerSegment, ..cfg(false) });
        r.on_data(0, &seg(0), true);
        assert!(r.make_ack(0).ece);
        r.on_data(0, &seg(100), false);
        assert!(!r.make_ack(0).ece);
        r.on_data(0, &seg(300), true); // out of order and marked: a marked duplicate ACK
        let a = r.make_ack(0);
        assert!(a.ece && a.ack == 200);
        let mut r = Receiver::new(ReceiverConfig { ecn_echo: EcnEcho::PerSegment, ..cfg(true) });
        assert_eq!(r.on_data(0, &seg(0), true).1, AckDecision::Delay);
        assert_eq!(r.on_data(1, &seg(100), false).1, AckDecision::Now);
        assert!(r.make_ack(1).ece);
    }

    #[test]
    fn duplicates_are_not_delivered_twice() {
        let mut r = Receiver::new(cfg(false));
        r.on_data(0, &seg(0), false);
        r.on_data(0, &seg(0), false);
        r.on_data(0, &seg(200), false);
        r.on_data(0, &seg(200), false);
        assert_eq!(r.delivered_bytes, 100);
        assert_eq!(r.duplicate_bytes, 200);
    }
}
