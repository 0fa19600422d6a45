//! The receiver target: reassembly and the options of the ACKs it builds.
//!
//! Bytes choose a [`ReceiverConfig`] (SACK, timestamps, delayed ACKs, ECN echo discipline, CAIAD's
//! corruption-aware receiver, MSS) and then a stream of events: data segments (MSS-aligned as the
//! engine's senders cut them, or at any byte offset and length; in order, out of order, old,
//! overlapping, duplicated; CE-marked, with CWR, with any timestamp), segments with an intact
//! header and a corrupted payload (CAIAD), ACKs sent now or when the delayed-ACK timer fires, and
//! time advances. After every event the receiver is checked against an independent model:
//! - reassembly: RCV.NXT is the end of the contiguous data from byte 0 and the out-of-order list
//!   is exactly the union of the other bytes received, as sorted, disjoint, non-adjacent ranges
//!   (the receiver's documented invariant); everything in order was delivered once;
//! - every ACK: the cumulative ACK is RCV.NXT; SACK blocks (RFC 2018 §4) are ranges the receiver
//!   holds, above the ACK, distinct, as many as fit beside the other options, the first one holding
//!   the most recent out-of-order segment; the timestamp echo follows RFC 7323 §4.3 (TS.Recent
//!   updated only from segments at or below Last.ACK.sent with a TSval not older); ECN-Echo follows
//!   RFC 3168 §6.1.3 or the per-segment echo; CAIAD's corruption option names the last corrupted
//!   segment reported since the previous ACK and No-Congestion is only on duplicate ACKs
//!   (CAIAD §3.1); all options fit in 40 bytes (RFC 9293 §3.1, data offset ≤ 15 words);
//! - the delayed-ACK rules of RFC 5681 §4.2: out-of-order segments are acknowledged at once.

use airtcp::cc::EcnEcho;
use airtcp::net::packet::{caiad_option_bytes, sack_option_bytes, MAX_SACK_BLOCKS, MAX_TCP_OPTION_BYTES, TS_OPTION_BYTES};
use airtcp::net::{SackBlock, TcpHeader};
use airtcp::tcp::{AckDecision, Receiver, ReceiverConfig};
use airtcp::time::SimTime;

use crate::input::Input;

/// Events per input at most: enough to fill and drain many holes, short enough that one input
/// runs in well under a millisecond.
pub const MAX_EVENTS: usize = 2048;

/// Segment starts are drawn from a window of this many MSS around RCV.NXT (a few below it, the
/// rest above), so that holes are filled again and SACK lists stay busy.
const SPAN_SEGMENTS: u64 = 48;

/// The MSS values drawn: 1 byte (every byte a segment), small, the common ones, the largest the
/// scenario validation allows (65 000).
const MSS_BYTES: &[u32] = &[1, 2, 7, 100, 536, 1000, 1460, 9000, 65_000];

/// Time steps drawn, ns.
const STEPS_NS: &[u64] = &[0, 1, 1_000, 1_000_000, 40_000_000, 200_000_000, 1_000_000_000];

/// What the model expects of the receiver.
#[derive(Debug, Default)]
struct Model {
    /// Every byte range received intact, merged: sorted, disjoint, non-adjacent.
    held: Vec<(u64, u64)>,
    /// RFC 3168 §6.1.3 ECE state (or the per-segment echo's pending mark).
    ece: bool,
    /// RFC 7323 TS.Recent.
    ts_recent: u64,
    /// RFC 7323 Last.ACK.sent (also what makes the next ACK a duplicate, for CAIAD).
    last_ack_sent: u64,
    /// Start of the most recent segment that arrived out of order (RFC 2018 §4's first block).
    last_ooo_start: Option<u64>,
    /// CAIAD: the corrupted segment the next ACK must report.
    report: Option<u64>,
}

impl Model {
    /// RCV.NXT: the end of the data contiguous from byte 0.
    fn rcv_nxt(&self) -> u64 {
        match self.held.first() {
            Some(&(0, e)) => e,
            _ => 0,
        }
    }

    /// The ranges above RCV.NXT.
    fn out_of_order(&self) -> &[(u64, u64)] {
        match self.held.first() {
            Some(&(0, _)) => &self.held[1..],
            _ => &self.held[..],
        }
    }

    /// Whether [start, end) is all held (the receiver's own `holds` rule: delivered, or inside one
    /// out-of-order range once the delivered part is cut off).
    fn holds(&self, start: u64, end: u64) -> bool {
        let nxt = self.rcv_nxt();
        end <= nxt || self.out_of_order().iter().any(|&(s, e)| s <= start.max(nxt) && end <= e)
    }

    /// Adds [start, end) to the held ranges, merging overlapping and adjacent ones.
    fn insert(&mut self, start: u64, end: u64) {
        self.held.push((start, end));
        self.held.sort_unstable();
        let mut merged: Vec<(u64, u64)> = Vec::with_capacity(self.held.len());
        for &(s, e) in &self.held {
            match merged.last_mut() {
                Some(last) if s <= last.1 => last.1 = last.1.max(e),
                _ => merged.push((s, e)),
            }
        }
        self.held = merged;
    }
}

/// Runs one input (panics on a finding).
pub fn run(data: &[u8]) {
    let mut inp = Input::new(data);
    let flags = inp.u8();
    let cfg = ReceiverConfig {
        sack: flags & 1 != 0,
        timestamps: flags & 2 != 0,
        delayed_ack: flags & 4 != 0,
        delack_timeout_ns: inp.pick(&[1, 1_000, 40_000_000, 200_000_000, 500_000_000]),
        mss: inp.pick(MSS_BYTES),
        ecn_echo: if flags & 8 != 0 { EcnEcho::PerSegment } else { EcnEcho::UntilCwr },
        caiad: flags & 16 != 0,
    };
    let mut r = Receiver::new(cfg.clone());
    let mut m = Model::default();
    let mut now: SimTime = 0;
    let mut ts_clock: u64 = 0;
    for _ in 0..MAX_EVENTS {
        if inp.is_empty() {
            break;
        }
        let op = inp.u8();
        match op % 8 {
            0..=3 => {
                let h = segment(&mut inp, &cfg, m.rcv_nxt(), &mut ts_clock);
                let ce = op & 0x10 != 0;
                if cfg.caiad && op & 0x20 != 0 {
                    corrupted(&mut r, &mut m, now, &h);
                } else {
                    data_segment(&mut r, &mut m, &cfg, now, &h, ce);
                }
            }
            4 => ack(&mut r, &mut m, &cfg, now, op & 0x10 != 0),
            5 => {
                // The delayed-ACK timer fires (the engine's timer event at the deadline).
                if let Some(d) = r.delack_deadline {
                    assert!(cfg.delayed_ack, "a delayed-ACK deadline without delayed ACKs");
                    now = now.max(d);
                    ack(&mut r, &mut m, &cfg, now, false);
                }
            }
            _ => {
                // Time passes; a held ACK goes out at its deadline on the way (the engine's timer).
                let to = now + inp.pick(STEPS_NS);
                if let Some(d) = r.delack_deadline.filter(|&d| d <= to) {
                    now = now.max(d);
                    ack(&mut r, &mut m, &cfg, now, false);
                }
                now = to;
            }
        }
        check_state(&r, &m);
    }
}

/// A data segment's header: MSS-aligned (the engine's senders cut the stream at multiples of the
/// MSS) or at any offset with any length up to the MSS; options as a sender would set them or not.
fn segment(inp: &mut Input, cfg: &ReceiverConfig, rcv_nxt: u64, ts_clock: &mut u64) -> TcpHeader {
    let mss = cfg.mss as u64;
    let shape = inp.u8();
    let (seq, len) = if shape & 1 == 0 {
        let first = (rcv_nxt / mss).saturating_sub(4);
        let seq = (first + inp.below(SPAN_SEGMENTS)) * mss;
        // a short segment now and then, as a finite transfer's last one
        let len = if shape & 2 == 0 { mss } else { 1 + inp.below(mss) };
        (seq, len)
    } else {
        let seq = rcv_nxt.saturating_sub(4 * mss) + inp.below(SPAN_SEGMENTS * mss);
        (seq, 1 + inp.below(mss))
    };
    let ts_val = match shape >> 4 & 3 {
        0 => {
            *ts_clock += inp.below(1 << 20);
            *ts_clock
        }
        1 => ts_clock.saturating_sub(inp.below(1 << 20)),
        2 => inp.u64(),
        _ => *ts_clock,
    };
    TcpHeader { seq, len: len as u32, cwr: shape & 4 != 0, has_ts: cfg.timestamps && shape & 8 == 0, ts_val, ..TcpHeader::default() }
}

/// An intact data segment arrives.
fn data_segment(r: &mut Receiver, m: &mut Model, cfg: &ReceiverConfig, now: SimTime, h: &TcpHeader, ce: bool) {
    let (start, end) = (h.seq, h.seq + h.len as u64);
    let nxt = m.rcv_nxt();
    // The model's expectations, from the state before the segment.
    if h.cwr && cfg.ecn_echo == EcnEcho::UntilCwr {
        m.ece = false;
    }
    if ce {
        m.ece = true;
    }
    if cfg.timestamps && h.has_ts && start <= m.last_ack_sent && h.ts_val >= m.ts_recent {
        m.ts_recent = h.ts_val;
    }
    let out_of_order = start > nxt || end <= nxt;
    if start > nxt {
        m.last_ooo_start = Some(start);
    }
    let had_hole = !m.out_of_order().is_empty();
    let delivered_before = r.delivered_bytes;
    let (delivered, decision) = r.on_data(now, h, ce);
    m.insert(start, end);
    assert_eq!(delivered, m.rcv_nxt() - nxt, "bytes delivered by {h:?}");
    assert_eq!(r.delivered_bytes, delivered_before + delivered);
    if !cfg.delayed_ack || out_of_order || had_hole {
        assert_eq!(decision, AckDecision::Now, "RFC 5681 §4.2: ACK at once ({h:?})");
    }
    match decision {
        AckDecision::Now => ack(r, m, cfg, now, false),
        AckDecision::Delay => {
            let d = r.delack_deadline.expect("a held ACK has a deadline");
            assert!(d >= now && d - now <= cfg.delack_timeout_ns, "delayed-ACK deadline {d} at {now}");
        }
    }
}

/// A segment with an intact header and a corrupted payload arrives at a CAIAD receiver.
fn corrupted(r: &mut Receiver, m: &mut Model, now: SimTime, h: &TcpHeader) {
    let (start, end) = (h.seq, h.seq + h.len as u64);
    if !m.holds(start, end) {
        m.report = Some(start);
    }
    let segments = r.segments_received;
    assert_eq!(r.on_corrupted(now, h), AckDecision::Now, "CAIAD §3.1: a corrupted segment is reported at once");
    assert_eq!(r.segments_received, segments + 1);
}

/// The receiver builds an ACK now (into a fresh header, or into one full of stale fields, as the
/// engine's packet arena hands it); the ACK is checked.
fn ack(r: &mut Receiver, m: &mut Model, cfg: &ReceiverConfig, now: SimTime, into_stale: bool) {
    let h = if into_stale {
        let mut h = TcpHeader {
            seq: u64::MAX,
            ack: u64::MAX,
            len: u32::MAX,
            ece: true,
            cwr: true,
            has_ts: true,
            ts_val: u64::MAX,
            ts_ecr: u64::MAX,
            n_sack: MAX_SACK_BLOCKS as u8,
            sack: [SackBlock { start: 7, end: 3 }; MAX_SACK_BLOCKS],
            corrupt_seq: Some(u64::MAX),
            no_congestion: true,
        };
        r.write_ack(now, &mut h);
        h
    } else {
        r.make_ack(now)
    };
    let nxt = m.rcv_nxt();
    assert_eq!(h.ack, nxt, "cumulative ACK");
    assert_eq!((h.seq, h.len, h.cwr), (0, 0, false), "an ACK carries no data and no CWR");
    assert_eq!(r.delack_deadline, None, "an ACK ends the delayed-ACK wait");
    // RFC 3168 §6.1.3 / the per-segment echo.
    assert_eq!(h.ece, m.ece, "ECN-Echo");
    if cfg.ecn_echo == EcnEcho::PerSegment {
        m.ece = false;
    }
    // RFC 7323 §4.3.
    assert_eq!(h.has_ts, cfg.timestamps, "timestamps option present iff negotiated");
    if cfg.timestamps {
        assert_eq!((h.ts_val, h.ts_ecr), (now, m.ts_recent), "TSval is the receiver's clock, TSecr TS.Recent");
    }
    let duplicate = nxt == m.last_ack_sent;
    m.last_ack_sent = nxt;
    // CAIAD §3.1.
    let mut option_bytes = 0;
    if cfg.caiad {
        assert_eq!(h.corrupt_seq, m.report.take(), "the corruption option names the last corrupted segment reported");
        assert!(!h.no_congestion || duplicate, "No-Congestion only on a duplicate ACK");
        option_bytes += caiad_option_bytes(h.corrupt_seq.is_some(), h.no_congestion);
    } else {
        assert!(h.corrupt_seq.is_none() && !h.no_congestion, "CAIAD options from a plain receiver");
    }
    if cfg.timestamps {
        option_bytes += TS_OPTION_BYTES;
    }
    // RFC 2018 §4.
    let n = h.n_sack as usize;
    assert!(n <= MAX_SACK_BLOCKS);
    let ooo = m.out_of_order();
    if cfg.sack {
        let fit = (1..=MAX_SACK_BLOCKS).take_while(|&k| option_bytes + sack_option_bytes(k) <= MAX_TCP_OPTION_BYTES).count();
        assert_eq!(n, fit.min(ooo.len()), "SACK blocks: as many as fit, one per held range ({ooo:?}, {h:?})");
        for (i, b) in h.sack[..n].iter().enumerate() {
            assert!(b.start > nxt && b.start < b.end, "SACK block {b:?} above ACK {nxt}");
            assert!(ooo.contains(&(b.start, b.end)), "SACK block {b:?} is not a held range ({ooo:?})");
            assert!(!h.sack[..i].contains(b), "SACK block {b:?} repeated");
        }
        if let Some(s) = m.last_ooo_start.filter(|&s| s > nxt) {
            if n > 0 {
                assert!(h.sack[0].start <= s && s < h.sack[0].end, "RFC 2018 §4: the first block holds the latest segment {s}");
            }
        }
    } else {
        assert_eq!(n, 0, "SACK blocks without SACK");
    }
    assert!(h.sack[n..].iter().all(|b| *b == SackBlock::default()), "stale SACK blocks left in {h:?}");
    option_bytes += sack_option_bytes(n);
    assert!(option_bytes <= MAX_TCP_OPTION_BYTES, "{option_bytes} option bytes in {h:?}");
}

/// The receiver's state against the model.
fn check_state(r: &Receiver, m: &Model) {
    let nxt = m.rcv_nxt();
    assert_eq!(r.rcv_nxt, nxt, "RCV.NXT");
    assert_eq!(r.out_of_order(), m.out_of_order(), "out-of-order ranges");
    assert_eq!(r.delivered_bytes, nxt, "each in-order byte delivered once");
    for &(s, e) in r.corrupted_holes() {
        assert!(s < e && e > nxt, "corrupted hole ({s}, {e}) at or below RCV.NXT {nxt}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_merges_adjacent_and_overlapping_ranges() {
        let mut m = Model::default();
        m.insert(10, 20);
        m.insert(20, 30);
        m.insert(40, 50);
        m.insert(45, 60);
        assert_eq!(m.held, vec![(10, 30), (40, 60)]);
        assert_eq!(m.rcv_nxt(), 0);
        m.insert(0, 10);
        assert_eq!((m.rcv_nxt(), m.out_of_order()), (30, &[(40, 60)][..]));
        assert!(m.holds(41, 60) && !m.holds(30, 41));
    }
}
