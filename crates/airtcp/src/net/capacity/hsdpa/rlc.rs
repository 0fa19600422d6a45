//! RLC (3GPP TS 25.322) between the RNC and a UE, both ends in one object: SDUs (IP packets)
//! are cut into fixed-size PDUs, sent in transport blocks, reassembled and delivered in order.
//!
//! HSDPA paper §IV-B, Tables 3–4: acknowledged mode (AM) with 40-byte PDUs and timer-based SDU
//! discard for the TCP flow; unacknowledged mode (UM) with 25-byte PDUs and a 1-byte header for
//! VoIP. Our readings: the AM PDU carries 40 bytes of payload plus the 2-byte AM header (TS 25.322
//! §9.2.1.4; 336-bit PDUs are the usual configuration); an SDU's last PDU is padded (no
//! concatenation, no length indicators); a PDU whose transport block HARQ gave up on is
//! retransmitted by AM after `retx_delay` (the MAC-hs reordering timer, the STATUS report and
//! the Iub, lumped) and is lost for UM, taking its SDU with it. AM delivers SDUs in sequence: a
//! complete SDU waits for every earlier one (or its discard).

use std::collections::VecDeque;

use super::harq::PduRef;
use crate::net::PacketId;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SduState {
    Live,
    /// Discarded (AM timer) or lost (UM): skipped by in-order delivery.
    Dead,
}

#[derive(Debug, Clone)]
struct Sdu {
    pkt: Option<PacketId>,
    arrived_at: u64,
    n_pdus: u32,
    /// Next PDU never sent.
    next_new: u32,
    received: u32,
    state: SduState,
}

/// Counters of one RLC entity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct RlcStats {
    pub sdus_in: u64,
    pub sdus_delivered: u64,
    /// SDUs dropped by the AM discard timer or lost in UM.
    pub sdus_dropped: u64,
    pub pdus_sent: u64,
    pub pdus_retransmitted: u64,
}

/// One UE's RLC entity (transmitter at the RNC and receiver at the UE).
#[derive(Debug, Clone)]
pub(crate) struct Rlc {
    pub am: bool,
    pub payload_bytes: u32,
    pub header_bytes: u32,
    /// AM: drop an SDU that has waited this long when one of its PDUs is next to be sent.
    pub discard_ns: u64,
    pub retx_delay_ns: u64,
    sdus: VecDeque<Sdu>,
    /// Sequence number of `sdus[0]`.
    first_seq: u64,
    /// Index in `sdus` of the first SDU with unsent PDUs.
    send_idx: usize,
    /// PDUs awaiting retransmission, with the time they may go (non-decreasing).
    retx: VecDeque<(u64, PduRef)>,
    unsent_pdus: u64,
    pub stats: RlcStats,
}

impl Rlc {
    pub(crate) fn new(am: bool, payload_bytes: u32, header_bytes: u32, discard_ns: u64, retx_delay_ns: u64) -> Self {
        Rlc {
            am,
            payload_bytes,
            header_bytes,
            discard_ns,
            retx_delay_ns,
            sdus: VecDeque::new(),
            first_seq: 0,
            send_idx: 0,
            retx: VecDeque::new(),
            unsent_pdus: 0,
            stats: RlcStats::default(),
        }
    }

    /// Bits one PDU occupies in a transport block.
    pub(crate) fn pdu_bits(&self) -> u32 {
        (self.payload_bytes + self.header_bytes) * 8
    }

    /// SDUs with PDUs never sent: the Node-B queue a new packet joins.
    pub(crate) fn waiting_sdus(&self) -> u32 {
        (self.sdus.len() - self.send_idx) as u32
    }

    /// SDUs accepted and neither delivered nor dropped: every live SDU holds its packet until it
    /// is delivered (see [`Rlc::deliver_in_order`]) or dropped (discard timer, UM loss).
    pub(crate) fn held_sdus(&self) -> u64 {
        self.sdus.iter().filter(|s| s.pkt.is_some()).count() as u64
    }

    /// Whether anything is left to send or to wait for.
    pub(crate) fn idle(&self) -> bool {
        self.sdus.is_empty() && self.retx.is_empty()
    }

    /// Accepts an SDU of `bytes` over the air.
    pub(crate) fn push(&mut self, pkt: PacketId, bytes: u32, now: u64) {
        let n = bytes.div_ceil(self.payload_bytes).max(1);
        self.sdus.push_back(Sdu { pkt: Some(pkt), arrived_at: now, n_pdus: n, next_new: 0, received: 0, state: SduState::Live });
        self.unsent_pdus += n as u64;
        self.stats.sdus_in += 1;
    }

    /// PDUs that could go in a block at `now` (retransmissions due plus never-sent ones).
    pub(crate) fn ready_pdus(&self, now: u64) -> u64 {
        self.unsent_pdus + self.retx.iter().take_while(|(t, _)| *t <= now).count() as u64
    }

    fn idx(&self, sdu: u64) -> Option<usize> {
        sdu.checked_sub(self.first_seq).map(|i| i as usize).filter(|&i| i < self.sdus.len())
    }

    fn kill(&mut self, i: usize, dropped: &mut Vec<PacketId>) {
        let s = &mut self.sdus[i];
        if s.state == SduState::Dead {
            return;
        }
        s.state = SduState::Dead;
        self.unsent_pdus -= (s.n_pdus - s.next_new) as u64;
        s.next_new = s.n_pdus;
        if let Some(p) = s.pkt.take() {
            dropped.push(p);
        }
        self.stats.sdus_dropped += 1;
    }

    fn advance_send_idx(&mut self) {
        while self.send_idx < self.sdus.len() && self.sdus[self.send_idx].next_new >= self.sdus[self.send_idx].n_pdus {
            self.send_idx += 1;
        }
    }

    /// Takes up to `max` PDUs for a block at `now`: due retransmissions first, then new PDUs in
    /// SDU order. SDUs found older than the discard timer are dropped into `dropped`.
    pub(crate) fn take(&mut self, now: u64, max: u32, out: &mut Vec<PduRef>, dropped: &mut Vec<PacketId>) {
        while (out.len() as u32) < max {
            let Some(&(t, pdu)) = self.retx.front() else { break };
            if t > now {
                break;
            }
            self.retx.pop_front();
            let Some(i) = self.idx(pdu.sdu) else { continue };
            if self.sdus[i].state == SduState::Dead {
                continue;
            }
            if self.am && now - self.sdus[i].arrived_at > self.discard_ns {
                self.kill(i, dropped);
                self.advance_send_idx();
                continue;
            }
            out.push(pdu);
            self.stats.pdus_retransmitted += 1;
        }
        while (out.len() as u32) < max && self.send_idx < self.sdus.len() {
            let i = self.send_idx;
            if self.am && now - self.sdus[i].arrived_at > self.discard_ns {
                self.kill(i, dropped);
                self.advance_send_idx();
                continue;
            }
            let s = &mut self.sdus[i];
            let take = (max - out.len() as u32).min(s.n_pdus - s.next_new);
            for k in 0..take {
                out.push(PduRef { sdu: self.first_seq + i as u64, seg: s.next_new + k });
            }
            s.next_new += take;
            self.unsent_pdus -= take as u64;
            self.advance_send_idx();
        }
        self.stats.pdus_sent += out.len() as u64;
    }

    /// The block carrying `pdus` decoded.
    pub(crate) fn on_decoded(&mut self, pdus: &[PduRef]) {
        for p in pdus {
            if let Some(i) = self.idx(p.sdu) {
                if self.sdus[i].state == SduState::Live {
                    self.sdus[i].received += 1;
                }
            }
        }
    }

    /// HARQ gave up on the block carrying `pdus` at `now`: AM resends them after the delay, UM
    /// loses their SDUs (into `dropped`).
    pub(crate) fn on_given_up(&mut self, pdus: &[PduRef], now: u64, dropped: &mut Vec<PacketId>) {
        for p in pdus {
            if self.am {
                self.retx.push_back((now + self.retx_delay_ns, *p));
            } else if let Some(i) = self.idx(p.sdu) {
                self.kill(i, dropped);
            }
        }
        self.advance_send_idx();
    }

    /// Hands complete SDUs to the layer above in sequence, skipping dropped ones.
    pub(crate) fn deliver_in_order(&mut self, out: &mut Vec<PacketId>) {
        while let Some(s) = self.sdus.front() {
            let done = s.state == SduState::Dead || s.received >= s.n_pdus;
            if !done {
                break;
            }
            let s = self.sdus.pop_front().unwrap();
            if s.state == SduState::Live {
                out.push(s.pkt.expect("a live SDU holds its packet"));
                self.stats.sdus_delivered += 1;
            }
            self.first_seq += 1;
            self.send_idx = self.send_idx.saturating_sub(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pid(i: u32) -> PacketId {
        PacketId::for_test(i)
    }

    /// A 1500-B SDU in 40-B PDUs is 38 PDUs (37 full and one padded); with blocks lost at random
    /// and retransmitted, every SDU arrives exactly once and in order.
    #[test]
    fn am_delivers_every_sdu_once_in_order() {
        let mut rlc = Rlc::new(true, 40, 2, u64::MAX, 10);
        for i in 0..50 {
            rlc.push(pid(i), 1500, 0);
        }
        assert_eq!(rlc.ready_pdus(0), 50 * 38);
        let mut rng = crate::engine::RngStream::new(1, "test:rlc");
        let (mut delivered, mut dropped) = (Vec::new(), Vec::new());
        let mut now = 0;
        while !rlc.idle() {
            let mut tb = Vec::new();
            rlc.take(now, 7, &mut tb, &mut dropped);
            if rng.uniform() < 0.3 {
                rlc.on_given_up(&tb, now, &mut dropped);
            } else {
                rlc.on_decoded(&tb);
            }
            rlc.deliver_in_order(&mut delivered);
            now += 2;
            assert!(now < 1_000_000);
        }
        assert!(dropped.is_empty());
        assert_eq!(delivered, (0..50).map(pid).collect::<Vec<_>>());
        assert!(rlc.stats.pdus_retransmitted > 0);
        assert_eq!(rlc.stats.pdus_sent, 50 * 38 + rlc.stats.pdus_retransmitted);
    }

    /// UM never resends: an SDU with a lost PDU is dropped, the others still arrive in order.
    #[test]
    fn um_drops_the_sdu_of_a_lost_pdu() {
        let mut rlc = Rlc::new(false, 24, 1, u64::MAX, 0);
        for i in 0..3 {
            rlc.push(pid(i), 23, 0);
        }
        let (mut got, mut dropped) = (Vec::new(), Vec::new());
        let mut tb = Vec::new();
        rlc.take(0, 1, &mut tb, &mut dropped);
        rlc.on_decoded(&tb);
        tb.clear();
        rlc.take(0, 1, &mut tb, &mut dropped);
        rlc.on_given_up(&tb, 0, &mut dropped);
        tb.clear();
        rlc.take(0, 1, &mut tb, &mut dropped);
        rlc.on_decoded(&tb);
        rlc.deliver_in_order(&mut got);
        assert_eq!((got, dropped), (vec![pid(0), pid(2)], vec![pid(1)]));
        assert!(rlc.idle());
    }

    /// AM's discard timer drops an SDU that waited too long before its PDUs went out.
    #[test]
    fn am_discards_stale_sdus() {
        let mut rlc = Rlc::new(true, 40, 2, 100, 0);
        rlc.push(pid(0), 80, 0);
        rlc.push(pid(1), 80, 150);
        let (mut tb, mut dropped, mut got) = (Vec::new(), Vec::new(), Vec::new());
        rlc.take(160, 10, &mut tb, &mut dropped);
        assert_eq!(dropped, vec![pid(0)]);
        assert_eq!(tb.len(), 2);
        rlc.on_decoded(&tb);
        rlc.deliver_in_order(&mut got);
        assert_eq!(got, vec![pid(1)]);
        assert_eq!(rlc.stats.sdus_dropped, 1);
    }
}
