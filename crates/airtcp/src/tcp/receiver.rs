//! The TCP receiver: in-order delivery, out-of-order buffering, cumulative ACKs, SACK blocks
//! (RFC 2018), timestamp echo (RFC 7323 §4.3), ECN echo (RFC 3168 §6.1.3) and delayed ACKs
//! (RFC 1122 §4.2.3.2, RFC 5681 §4.2), and the corruption-aware receiver of CAIAD §3.1.
//!
//! CAIAD's receiver (Cui & Koh 2008, §3.1, Fig. 2) reads the intact header of a segment whose
//! payload is corrupted (TCP HACK's header checksum), reports it on a duplicate ACK with the
//! corruption option, and adds the No-Congestion option to duplicate ACKs while no segment is
//! missing for another reason. Our reading of its two pointers, within one *cycle* ("from the
//! moment when the sequence gap of receiver disappears till the moment when the sequence gap
//! disappears again"):
//! - a segment is *new* when it starts at or above everything received so far (intact or
//!   corrupted), else a *retransmission*;
//! - the *highest in-order pointer* is one past the highest new segment received; a new segment
//!   that starts exactly there is in order, one that starts above it is out of order: the
//!   segments between were never seen — lost;
//! - the *highest in-order retransmission pointer* starts at the cycle's first hole; a
//!   retransmission (intact or corrupted) is in order when it starts there once the pointer has
//!   skipped the data already held intact ("the in-order sequence numbers exclude the ones of
//!   already received integral segments"), and then the pointer moves past it; otherwise it is out
//!   of order (a retransmission was lost or overtaken);
//! - "No Congestion ... if only neither out-of-order segment nor out-of-order retransmitted
//!   segment is received before": once either kind arrived out of order in a cycle, no duplicate
//!   ACK of that cycle carries No-Congestion; when the gap disappears a new cycle begins.
//!
//! This gives the four cases of Fig. 2 (tested below): (a) only corrupted segments missing —
//! a duplicate ACK triggered by a corrupted segment carries both options, one triggered by an
//! intact segment only No-Congestion; (b) after a loss, intact segments trigger plain duplicates;
//! (c) a corrupted segment after a loss triggers the corruption option alone; (d) duplicates
//! before the loss carry No-Congestion, those after it do not.

use crate::cc::EcnEcho;
use crate::net::packet::{caiad_option_bytes, sack_option_bytes, MAX_SACK_BLOCKS, MAX_TCP_OPTION_BYTES, TS_OPTION_BYTES};
use crate::net::{AckHeader, SackBlock, TcpHeader};
use crate::output::CaiadOptionCounts;
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
    /// CAIAD's corruption-aware receiver (module docs); otherwise corrupted segments never reach it.
    pub caiad: bool,
}

/// The CAIAD receiver's state within one cycle (module docs).
#[derive(Debug, Clone, Default)]
struct CaiadCycle {
    /// One past the highest byte received in any form, intact or corrupted.
    high: u64,
    /// Highest in-order pointer: one past the highest new segment received in this cycle.
    hip: u64,
    /// Highest in-order retransmission pointer.
    hrp: u64,
    /// An out-of-order new segment or retransmission arrived in this cycle.
    out_of_order: bool,
    /// Segments received corrupted and not yet intact, [start, end).
    corrupted: Vec<(u64, u64)>,
    /// The corrupted segment the next ACK reports (its first byte).
    report: Option<u64>,
    /// ACKs sent, by the options they carried.
    counts: CaiadOptionCounts,
}

/// What the receiver wants after a data segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AckDecision {
    /// Send an ACK now.
    Now,
    /// Hold the ACK until the delayed-ACK deadline (or the next segment).
    Delay,
}

/// The fields of a data segment the receiver reads ([`Receiver::on_segment`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct DataFields {
    pub seq: u64,
    pub len: u32,
    /// TSval, when the segment carries timestamps.
    pub ts_val: Option<u64>,
    pub cwr: bool,
}

/// Receiver state of one connection.
#[derive(Debug, Clone)]
pub struct Receiver {
    cfg: ReceiverConfig,
    /// Next in-order byte expected (RCV.NXT).
    pub rcv_nxt: u64,
    /// Out-of-order data above rcv_nxt: sorted, disjoint, non-adjacent [start, end) ranges.
    ooo: Vec<(u64, u64)>,
    /// Start of recently received out-of-order segments, most recent first (RFC 2018 §4
    /// ordering); empty unless the receiver sends SACK blocks.
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
    /// Data segments received whole that were already delivered or buffered (intact or
    /// corrupted): the sender's retransmissions that were not needed (the summary's
    /// `redundant_segments`). Go-back-N after a timeout resends what the receiver holds.
    pub duplicate_segments: u64,
    caiad: CaiadCycle,
    /// Neither timestamps, SACK, CAIAD nor delayed ACKs (fixed for the receiver's life): an
    /// in-order segment with nothing buffered out of order then takes [`Receiver::on_segment`]'s
    /// short path.
    plain: bool,
}

impl Receiver {
    pub fn new(cfg: ReceiverConfig) -> Self {
        Receiver {
            plain: !cfg.timestamps && !cfg.sack && !cfg.caiad && !cfg.delayed_ack,
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
            duplicate_segments: 0,
            caiad: CaiadCycle::default(),
        }
    }

    /// Whether bytes [start, end) are all held intact (delivered or buffered out of order).
    fn holds(&self, start: u64, end: u64) -> bool {
        end <= self.rcv_nxt || self.ooo.iter().any(|&(s, e)| s <= start.max(self.rcv_nxt) && end <= e)
    }

    /// CAIAD §3.1: classifies a segment arriving intact or corrupted against the cycle's two
    /// pointers. Called before an intact segment is stored.
    fn caiad_classify(&mut self, start: u64, end: u64) {
        if self.holds(start, end) {
            return; // a duplicate of intact data: neither new nor a retransmission that fills a hole
        }
        let c = &mut self.caiad;
        if start >= c.high {
            // A new segment: in order when it starts at the highest in-order pointer.
            if start != c.hip {
                c.out_of_order = true;
            }
            c.hip = end;
            c.high = end;
        } else {
            // A retransmission: first skip what is already held intact above the pointer.
            let mut p = c.hrp.max(self.rcv_nxt);
            while let Some(&(_, e)) = self.ooo.iter().find(|&&(s, e)| s <= p && p < e) {
                p = e;
            }
            let c = &mut self.caiad;
            if start != p {
                c.out_of_order = true;
            }
            c.hrp = c.hrp.max(end);
        }
    }

    /// After a segment is processed: the cycle ends when the sequence gap disappears.
    fn caiad_settle(&mut self) {
        let c = &mut self.caiad;
        c.corrupted.retain(|&(_, e)| e > self.rcv_nxt);
        if self.rcv_nxt >= c.high {
            c.high = self.rcv_nxt;
            c.hip = self.rcv_nxt;
            c.hrp = self.rcv_nxt;
            c.out_of_order = false;
            c.corrupted.clear();
        }
    }

    /// CAIAD §3.1: a data segment `h` arrived with an intact header and a corrupted payload. Its
    /// bytes cannot be delivered; the next ACK (sent at once) reports it with the corruption
    /// option. Only for a receiver built with `caiad`.
    pub fn on_corrupted(&mut self, _now: SimTime, h: &TcpHeader) -> AckDecision {
        debug_assert!(self.cfg.caiad);
        self.segments_received += 1;
        let (start, end) = (h.seq, h.seq + h.len as u64);
        if self.holds(start, end) {
            self.duplicate_bytes += h.len as u64;
            self.duplicate_segments += 1;
            return AckDecision::Now;
        }
        self.caiad_classify(start, end);
        let c = &mut self.caiad;
        if !c.corrupted.contains(&(start, end)) {
            c.corrupted.push((start, end));
        }
        c.report = Some(start);
        AckDecision::Now
    }

    /// ACKs sent so far by the CAIAD options they carried.
    /// Whether the receiver may hold back an ACK (RFC 1122 delayed ACKs): then it acts on a timer
    /// as well as on arrivals, and the engine cannot take its arrivals ahead of the clock
    /// (`sim::cut_through::receivers_ahead`).
    pub(crate) fn delays_acks(&self) -> bool {
        self.cfg.delayed_ack
    }

    pub(crate) fn caiad_option_counts(&self) -> CaiadOptionCounts {
        self.caiad.counts
    }

    /// Segments received corrupted and still missing, [start, end) (CAIAD receiver only).
    pub fn corrupted_holes(&self) -> &[(u64, u64)] {
        &self.caiad.corrupted
    }

    /// Whether the receiver is plain (neither timestamps, SACK, CAIAD nor delayed ACKs): its ACKs
    /// then carry no TCP option, whatever their state.
    #[inline(always)]
    pub(crate) fn is_plain(&self) -> bool {
        self.plain
    }

    /// Out-of-order ranges currently buffered.
    pub fn out_of_order(&self) -> &[(u64, u64)] {
        &self.ooo
    }

    /// Processes a data segment `h` (whose IP header had CE when `ce`). Returns the in-order bytes
    /// newly delivered to the application and whether to ACK now.
    // Inlined into the engine's one receive path (`take_segment`) with `write_ack`: the two calls
    // per segment were about 1.3% of a run's instructions (issue 42).
    #[inline(always)]
    pub fn on_data(&mut self, now: SimTime, h: &TcpHeader, ce: bool) -> (u64, AckDecision) {
        self.on_segment(now, DataFields { seq: h.seq, len: h.len, ts_val: h.has_ts.then_some(h.ts_val), cwr: h.cwr }, ce)
    }

    /// [`Receiver::on_data`] of the fields a data segment's header carries: what the engine
    /// reads from a packet, which holds no [`TcpHeader`].
    #[inline(always)]
    pub(crate) fn on_segment(&mut self, now: SimTime, h: DataFields, ce: bool) -> (u64, AckDecision) {
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
        // The common case of a plain receiver (issue 42: some 20 instructions per segment): a
        // segment that starts at rcv_nxt, with nothing buffered out of order, is delivered whole
        // and ACKed at once. These are the steps of the general path below for that case: no
        // timestamp, CAIAD or recency state to keep, no hole before or after it.
        if self.plain && start == self.rcv_nxt && end > start && self.ooo.is_empty() {
            self.rcv_nxt = end;
            let delivered = h.len as u64;
            self.delivered_bytes += delivered;
            if h.len >= self.cfg.mss {
                self.unacked_segments += 1;
            }
            return (delivered, AckDecision::Now);
        }
        // RFC 7323 §4.3 (2): TS.Recent <- SEG.TSval if SEG.SEQ <= Last.ACK.sent (and TSval not older).
        if let (true, Some(ts_val)) = (self.cfg.timestamps, h.ts_val) {
            if start <= self.last_ack_sent && ts_val >= self.ts_recent {
                self.ts_recent = ts_val;
            }
        }
        if self.cfg.caiad {
            self.caiad_classify(start, end);
            self.caiad.corrupted.retain(|&c| c != (start, end));
        }
        let before = self.rcv_nxt;
        let had_hole = !self.ooo.is_empty() || (self.cfg.caiad && self.caiad.high > self.rcv_nxt);
        let mut out_of_order = false;
        if end <= self.rcv_nxt {
            self.duplicate_bytes += h.len as u64;
            self.duplicate_segments += 1;
            out_of_order = true; // a duplicate: ACK at once so the sender learns rcv_nxt
        } else if start <= self.rcv_nxt {
            self.rcv_nxt = end;
            // Pull in buffered ranges now contiguous.
            let mut i = 0;
            while i < self.ooo.len() && self.ooo[i].0 <= self.rcv_nxt {
                self.rcv_nxt = self.rcv_nxt.max(self.ooo[i].1);
                i += 1;
            }
            // The common case (nothing buffered out of order) skips the empty drain and retain.
            if i > 0 {
                self.ooo.drain(..i);
            }
            if !self.recent.is_empty() {
                let nxt = self.rcv_nxt;
                self.recent.retain(|&s| s >= nxt);
            }
        } else {
            out_of_order = true;
            self.insert_ooo(start, end);
            // The recency order only orders SACK blocks: kept by a SACK receiver alone.
            if self.cfg.sack {
                self.recent.retain(|&s| s != start);
                self.recent.insert(0, start);
                self.recent.truncate(2 * MAX_SACK_BLOCKS);
            }
        }
        if self.cfg.caiad {
            self.caiad_settle();
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
        // Mostly the segment extends the highest range, a hole's later segments arriving in
        // order (issue 42: the merge below reads the same answer in some 60 instructions more).
        if let Some(last) = self.ooo.last_mut() {
            if start == last.1 && end > start {
                last.1 = end;
                return;
            }
        }
        let pos = self.ooo.partition_point(|&(_, e)| e < start);
        let mut s = start;
        let mut e = end;
        let mut j = pos;
        while j < self.ooo.len() && self.ooo[j].0 <= e {
            if self.ooo[j].0 <= start && self.ooo[j].1 >= end {
                self.duplicate_bytes += end - start;
                self.duplicate_segments += 1;
            }
            s = s.min(self.ooo[j].0);
            e = e.max(self.ooo[j].1);
            j += 1;
        }
        // The ranges pos..j merge into one: mostly the one the segment extends (a hole's
        // later segments arriving in order), updated in place.
        match j - pos {
            0 => self.ooo.insert(pos, (s, e)),
            n => {
                self.ooo[pos] = (s, e);
                if n > 1 {
                    self.ooo.drain(pos + 1..j);
                }
            }
        }
    }

    /// Builds the ACK to send now (and resets the delayed-ACK state).
    pub fn make_ack(&mut self, now: SimTime) -> TcpHeader {
        let mut h = TcpHeader::default();
        self.write_ack(now, &mut h);
        h
    }

    /// [`Receiver::make_ack`] written into `h` (every field).
    pub fn write_ack(&mut self, now: SimTime, h: &mut TcpHeader) {
        let mut a = AckHeader::default();
        let mut sack = [SackBlock::default(); MAX_SACK_BLOCKS];
        self.next_ack(now, &mut a, || &mut sack);
        *h = TcpHeader {
            ack: a.ack(),
            ece: a.ece,
            has_ts: a.has_ts,
            ts_val: a.ts_val,
            ts_ecr: a.ts_ecr,
            n_sack: a.n_sack,
            // Blocks past `n_sack` read as empty, as in a header built from the default.
            sack,
            corrupt_seq: a.corrupt_seq(),
            no_congestion: a.no_congestion,
            ..TcpHeader::default()
        };
    }

    /// The ACK to send now (and resets the delayed-ACK state), written into `h` (every field),
    /// its SACK blocks into the array `sack` returns, which is called only when the ACK carries
    /// blocks (the engine's packets keep them in a side table that flows without SACK never
    /// touch).
    // Inlined: see `on_data`.
    #[inline(always)]
    pub(crate) fn next_ack<'s>(&mut self, now: SimTime, h: &mut AckHeader, sack: impl FnOnce() -> &'s mut [SackBlock; MAX_SACK_BLOCKS]) {
        self.unacked_segments = 0;
        self.delack_deadline = None;
        let duplicate = self.rcv_nxt == self.last_ack_sent;
        self.last_ack_sent = self.rcv_nxt;
        *h = AckHeader { number: self.rcv_nxt, ece: self.ece_pending, ..AckHeader::default() };
        if self.cfg.ecn_echo == EcnEcho::PerSegment {
            self.ece_pending = false;
        }
        // A plain receiver's ACK carries no option (neither CAIAD's, timestamps nor SACK blocks):
        // the steps below for such a receiver, taken with one test (issue 42).
        if self.plain {
            return;
        }
        let mut option_bytes = 0;
        if self.cfg.caiad {
            // §3.1: "if the DUPACK is triggered by a corrupted segment with the valid header, then
            // the corruption option will be added. Likewise, if there is no uncovered 'lost
            // segment' the 'No-Congestion' option will also be added in the DUPACK segment."
            let report = self.caiad.report.take();
            h.set_corrupt_seq(report);
            h.no_congestion = duplicate && !self.caiad.out_of_order;
            let bytes = caiad_option_bytes(report.is_some(), h.no_congestion);
            option_bytes += bytes;
            let n = &mut self.caiad.counts;
            n.option_bytes += bytes as u64;
            match (report.is_some(), h.no_congestion) {
                (true, true) => n.both += 1,
                (true, false) => n.corruption_only += 1,
                (false, true) => n.no_congestion_only += 1,
                (false, false) => {}
            }
        }
        if self.cfg.timestamps {
            option_bytes += TS_OPTION_BYTES;
            h.has_ts = true;
            h.ts_val = now;
            h.ts_ecr = self.ts_recent;
        }
        if self.cfg.sack && !self.ooo.is_empty() {
            h.n_sack = self.sack_blocks(option_bytes, sack());
        }
    }

    /// Writes the SACK blocks of the next ACK, beside `option_bytes` of other options, into
    /// `out`; returns how many.
    #[cold]
    fn sack_blocks(&self, option_bytes: u32, out: &mut [SackBlock; MAX_SACK_BLOCKS]) -> u8 {
        // RFC 2018 §4: the first block holds the most recent segment; then the most recently
        // reported other blocks, as many as fit beside the other options (3 beside
        // timestamps, 4 without).
        let max = (1..=MAX_SACK_BLOCKS).take_while(|&n| option_bytes + sack_option_bytes(n) <= MAX_TCP_OPTION_BYTES).count();
        let mut n = 0usize;
        for &s in &self.recent {
            if n == max {
                break;
            }
            if let Some(&(bs, be)) = self.ooo.iter().find(|&&(bs, be)| bs <= s && s < be) {
                if !out[..n].iter().any(|b| b.start == bs) {
                    out[n] = SackBlock { start: bs, end: be };
                    n += 1;
                }
            }
        }
        // Blocks never reported as "recent" (e.g. after the recency list was trimmed): highest first.
        for &(bs, be) in self.ooo.iter().rev() {
            if n == max {
                break;
            }
            if !out[..n].iter().any(|b| b.start == bs) {
                out[n] = SackBlock { start: bs, end: be };
                n += 1;
            }
        }
        n as u8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether two receivers are in the same state, but for `plain` (turned off in `general`).
    fn same_state(fast: &Receiver, general: &mut Receiver) -> Result<(), proptest::test_runner::TestCaseError> {
        general.plain = true;
        let same = format!("{fast:?}") == format!("{general:?}");
        general.plain = false;
        proptest::prop_assert!(same, "{fast:?} {general:?}");
        Ok(())
    }

    proptest::proptest! {
        /// The plain receiver's short paths ([`Receiver::on_segment`], [`Receiver::next_ack`])
        /// against the general paths:
        /// a receiver whose short path is turned off (`plain` false) takes the same random
        /// segments — in order, duplicate, overlapping, out of order, CE-marked, with CWR — and
        /// every answer, every ACK and the whole state after each segment are the same.
        #[test]
        fn plain_short_path_matches_the_general_path(
            segs in proptest::collection::vec((0u64..40, 1u32..3, proptest::bool::weighted(0.1), proptest::bool::weighted(0.1)), 1..200),
            echo_per_segment: bool,
        ) {
            let cfg = ReceiverConfig {
                sack: false,
                timestamps: false,
                delayed_ack: false,
                delack_timeout_ns: 100,
                mss: 100,
                ecn_echo: if echo_per_segment { EcnEcho::PerSegment } else { EcnEcho::UntilCwr },
                caiad: false,
            };
            let mut fast = Receiver::new(cfg.clone());
            let mut general = Receiver::new(cfg);
            proptest::prop_assert!(fast.plain);
            general.plain = false;
            let mut short = 0;
            for (i, (at, n, ce, cwr)) in segs.into_iter().enumerate() {
                // Mostly the next segment in order, else anywhere below 40 segments.
                let seq = if i % 3 != 2 { fast.rcv_nxt } else { at * 100 };
                let h = TcpHeader { seq, len: n * 100 - 50 * (n == 2) as u32, cwr, ..TcpHeader::default() };
                short += (seq == fast.rcv_nxt && fast.ooo.is_empty()) as u32;
                let now = i as u64;
                proptest::prop_assert_eq!(fast.on_data(now, &h, ce), general.on_data(now, &h, ce));
                same_state(&fast, &mut general)?;
                proptest::prop_assert_eq!(format!("{:?}", fast.make_ack(now)), format!("{:?}", general.make_ack(now)));
                same_state(&fast, &mut general)?;
            }
            proptest::prop_assert!(short > 0);
        }
    }

    proptest::proptest! {
        /// The out-of-order ranges against a model of the bytes held: after every insertion the
        /// ranges are the maximal runs of held bytes above rcv_nxt (sorted, disjoint,
        /// non-adjacent), and a segment counts as a duplicate exactly when one range held all of
        /// it before. Segments mostly extend the highest range (the short path), else land
        /// anywhere, overlapping, touching or inside what is held.
        #[test]
        fn out_of_order_ranges_are_the_bytes_held(
            segs in proptest::collection::vec((0u64..60, 1u64..6, proptest::bool::weighted(0.5)), 1..120),
        ) {
            let mut r = Receiver::new(cfg(false));
            r.rcv_nxt = 0;
            let mut held = [false; 70];
            for (at, len, extend) in segs {
                let start = match r.ooo.last() {
                    Some(&(_, e)) if extend => e,
                    _ => 1 + at,
                };
                let end = (start + len).min(70);
                let inside = r.ooo.iter().any(|&(s, e)| s <= start && end <= e);
                let dup_before = r.duplicate_segments;
                r.insert_ooo(start, end);
                held[start as usize..end as usize].iter_mut().for_each(|b| *b = true);
                let mut runs = vec![];
                let mut i = 0;
                while i < held.len() {
                    if held[i] {
                        let s = i;
                        while i < held.len() && held[i] {
                            i += 1;
                        }
                        runs.push((s as u64, i as u64));
                    } else {
                        i += 1;
                    }
                }
                proptest::prop_assert_eq!(&r.ooo, &runs);
                proptest::prop_assert_eq!(r.duplicate_segments - dup_before, inside as u64, "{}..{}", start, end);
            }
        }
    }

    fn cfg(delayed: bool) -> ReceiverConfig {
        ReceiverConfig {
            sack: true,
            timestamps: false,
            delayed_ack: delayed,
            delack_timeout_ns: 100,
            mss: 100,
            ecn_echo: EcnEcho::UntilCwr,
            caiad: false,
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
        // one below rcv_nxt, one inside the buffered range; a new segment counts nothing
        assert_eq!(r.duplicate_segments, 2);
        r.on_data(0, &seg(300), false);
        assert_eq!(r.duplicate_segments, 2);
    }

    // ---- CAIAD §3.1, Fig. 2: segments of 100 B, segment k = bytes [100k, 100k + 100) ----

    fn caiad_rx() -> Receiver {
        Receiver::new(ReceiverConfig { caiad: true, sack: false, ..cfg(false) })
    }

    /// Segment k arrives intact (`Intact`), corrupted with an intact header (`Corrupt`), and the
    /// ACK it triggers is returned as (ack, corruption option, No-Congestion option, option bytes).
    enum Rx {
        Intact(u64),
        Corrupt(u64),
    }

    fn arrive(r: &mut Receiver, x: Rx) -> (u64, Option<u64>, bool, u32) {
        let (k, corrupt) = match x {
            Rx::Intact(k) => (k, false),
            Rx::Corrupt(k) => (k, true),
        };
        if corrupt {
            assert_eq!(r.on_corrupted(0, &seg(100 * k)), AckDecision::Now);
        } else {
            r.on_data(0, &seg(100 * k), false);
        }
        let h = r.make_ack(0);
        (h.ack, h.corrupt_seq, h.no_congestion, caiad_option_bytes(h.corrupt_seq.is_some(), h.no_congestion))
    }

    /// Fig. 2(a): only corrupted segments are missing. A duplicate triggered by a corrupted
    /// segment carries both options (6 + 3 → 12 bytes), one triggered by an intact segment only
    /// No-Congestion (3 → 4 bytes). Retransmissions arriving in order end the cycle.
    #[test]
    fn caiad_fig2a_only_corruption() {
        let mut r = caiad_rx();
        assert_eq!(arrive(&mut r, Rx::Intact(0)), (100, None, false, 0));
        assert_eq!(arrive(&mut r, Rx::Corrupt(1)), (100, Some(100), true, 12));
        assert_eq!(arrive(&mut r, Rx::Intact(2)), (100, None, true, 4));
        assert_eq!(arrive(&mut r, Rx::Corrupt(3)), (100, Some(300), true, 12));
        assert_eq!(arrive(&mut r, Rx::Intact(4)), (100, None, true, 4));
        assert_eq!(r.corrupted_holes(), &[(100, 200), (300, 400)]);
        // Retransmission of 1 (in order at the retransmission pointer): the ACK advances, no option.
        assert_eq!(arrive(&mut r, Rx::Intact(1)), (300, None, false, 0));
        // New data while 3 is still missing: a No-Congestion duplicate.
        assert_eq!(arrive(&mut r, Rx::Intact(5)), (300, None, true, 4));
        // Retransmission of 3 (the pointer skips 2, held intact): the gap disappears.
        assert_eq!(arrive(&mut r, Rx::Intact(3)), (600, None, false, 0));
        assert!(r.corrupted_holes().is_empty());
        let n = r.caiad_option_counts();
        assert_eq!((n.both, n.no_congestion_only, n.corruption_only, n.option_bytes), (2, 3, 0, 36));
    }

    /// Fig. 2(b): intact segments following a lost one trigger normal duplicates (no options).
    #[test]
    fn caiad_fig2b_loss() {
        let mut r = caiad_rx();
        arrive(&mut r, Rx::Intact(0));
        // Segment 1 is lost: 2 is an out-of-order new segment.
        assert_eq!(arrive(&mut r, Rx::Intact(2)), (100, None, false, 0));
        assert_eq!(arrive(&mut r, Rx::Intact(3)), (100, None, false, 0));
        // The retransmission of 1 closes the gap; a new cycle starts with No-Congestion allowed.
        assert_eq!(arrive(&mut r, Rx::Intact(1)), (400, None, false, 0));
        assert_eq!(arrive(&mut r, Rx::Corrupt(4)), (400, Some(400), true, 12));
    }

    /// Fig. 2(c): a corrupted segment received while a lost segment is not yet recovered
    /// triggers a duplicate with the corruption option only (6 → 8 bytes).
    #[test]
    fn caiad_fig2c_corruption_after_loss() {
        let mut r = caiad_rx();
        arrive(&mut r, Rx::Intact(0));
        assert_eq!(arrive(&mut r, Rx::Intact(2)), (100, None, false, 0)); // 1 lost
        assert_eq!(arrive(&mut r, Rx::Corrupt(3)), (100, Some(300), false, 8));
        assert_eq!(arrive(&mut r, Rx::Intact(4)), (100, None, false, 0));
    }

    /// Fig. 2(d): a loss between corrupted segments: the duplicates before the loss carry
    /// No-Congestion, those after it do not (the corrupted one keeps its corruption option).
    #[test]
    fn caiad_fig2d_loss_between_corruptions() {
        let mut r = caiad_rx();
        arrive(&mut r, Rx::Intact(0));
        assert_eq!(arrive(&mut r, Rx::Corrupt(1)), (100, Some(100), true, 12));
        assert_eq!(arrive(&mut r, Rx::Intact(2)), (100, None, true, 4));
        // Segment 3 is lost.
        assert_eq!(arrive(&mut r, Rx::Intact(4)), (100, None, false, 0));
        assert_eq!(arrive(&mut r, Rx::Corrupt(5)), (100, Some(500), false, 8));
        assert_eq!(arrive(&mut r, Rx::Intact(6)), (100, None, false, 0));
        // Retransmissions of 1 and 3 in order, then 5: the gap disappears and a new cycle begins.
        assert_eq!(arrive(&mut r, Rx::Intact(1)), (300, None, false, 0));
        assert_eq!(arrive(&mut r, Rx::Intact(3)), (500, None, false, 0));
        assert_eq!(arrive(&mut r, Rx::Intact(5)), (700, None, false, 0));
        assert_eq!(arrive(&mut r, Rx::Corrupt(8)), (700, Some(800), false, 8)); // 7 lost: out of order
        let mut r = caiad_rx();
        arrive(&mut r, Rx::Intact(0));
        arrive(&mut r, Rx::Corrupt(1));
        arrive(&mut r, Rx::Intact(2));
        arrive(&mut r, Rx::Intact(1));
        assert_eq!(arrive(&mut r, Rx::Corrupt(3)), (300, Some(300), true, 12)); // the new cycle
    }

    /// A retransmission overtaking an earlier one (out of order at the retransmission pointer)
    /// withdraws No-Congestion for the rest of the cycle; a corrupted retransmission still moves
    /// the pointer (it arrived). Duplicates of data already held change nothing.
    #[test]
    fn caiad_retransmission_pointer() {
        let mut r = caiad_rx();
        arrive(&mut r, Rx::Intact(0));
        arrive(&mut r, Rx::Corrupt(1));
        arrive(&mut r, Rx::Intact(2));
        arrive(&mut r, Rx::Corrupt(3));
        arrive(&mut r, Rx::Intact(4));
        // Retransmission of 1 arrives corrupted again: in order, still No-Congestion.
        assert_eq!(arrive(&mut r, Rx::Corrupt(1)), (100, Some(100), true, 12));
        // A duplicate of intact data: nothing changes.
        assert_eq!(arrive(&mut r, Rx::Intact(2)), (100, None, true, 4));
        // Retransmission of 3 (pointer at 2, skips held 2 → 3): in order.
        assert_eq!(arrive(&mut r, Rx::Intact(3)), (100, None, true, 4));
        // Now a retransmission of 1 arrives while the pointer is past 4: out of order? It starts
        // below the pointer: it fills the first hole, and the gap disappears (new cycle).
        assert_eq!(arrive(&mut r, Rx::Intact(1)), (500, None, false, 0));
        // Overtaking: holes at 6 and 8 (corrupted), retransmission of 8 arrives first.
        arrive(&mut r, Rx::Corrupt(5));
        arrive(&mut r, Rx::Intact(6));
        arrive(&mut r, Rx::Corrupt(7));
        arrive(&mut r, Rx::Intact(8));
        assert_eq!(arrive(&mut r, Rx::Intact(7)), (500, None, false, 0)); // 7 before 5: out of order
        assert_eq!(arrive(&mut r, Rx::Intact(9)), (500, None, false, 0));
    }

    /// With timestamps (12 B) and both CAIAD options (12 B), 16 of the 40 option bytes are left:
    /// one SACK block (10 → 12 B) fits, two (18 → 20 B) do not.
    #[test]
    fn caiad_options_leave_room_for_sack() {
        let mut r = Receiver::new(ReceiverConfig { caiad: true, sack: true, timestamps: true, ..cfg(false) });
        for k in 0..7 {
            if k % 2 == 0 {
                r.on_data(0, &seg(100 * k), false);
            } else {
                r.on_corrupted(0, &seg(100 * k));
            }
            r.make_ack(0);
        }
        assert_eq!(r.out_of_order().len(), 3);
        r.on_corrupted(0, &seg(700));
        let h = r.make_ack(0);
        assert!(h.corrupt_seq.is_some() && h.no_congestion);
        assert_eq!(h.n_sack, 1);
        assert_eq!(h.sack[0], SackBlock { start: 600, end: 700 }); // the most recent block first
    }
}
