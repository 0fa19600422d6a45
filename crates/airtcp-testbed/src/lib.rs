//! The link emulator of the kernel testbed (issue 7): real IP packets between two network
//! namespaces, through the links of a scenario as the simulator builds them
//! ([`airtcp::sim::scenario_links`]): the same queue (DropTail, RED, CW with CE marking of ECT
//! packets), capacity (rate, schedule, trace) and channel models, with their random streams, via
//! [`airtcp::net::Link::offer`]. Only the clock differs: packets are offered when they are read
//! from a TUN device, and written out when the wall clock reaches their model arrival time.
//! Model time starts with the first IPv4 packet (the connection's SYN), as a simulated flow starts
//! at 0, so time-varying capacities (a rate schedule, a trace from its start offset) meet the
//! transfer where the simulator's flow meets them.
//!
//! This module is the model side (no I/O, testable without root): [`Path`] carries packets through
//! a sequence of hops and says when each leaves. `main.rs` adds the TUN devices and the clock.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use airtcp::net::{Ecn, Link, LinkStats, Offer};
use airtcp::scenario::Scenario;

/// One direction of the emulated path: the links a packet crosses, in order.
#[derive(Debug)]
pub struct Path {
    pub hops: Vec<Link>,
    /// Packets between hops or waiting to leave: (time, sequence, hop index, packet).
    events: BinaryHeap<Reverse<(u64, u64, usize, Packet)>>,
    seq: u64,
    /// Non-IPv4 packets (the models need IPv4 headers: dropped here).
    pub not_ipv4: u64,
    /// Packets a channel corrupted that leave with a damaged payload ([`damage_payload`]): the
    /// receiving kernel's transport checksum fails and discards them, as the engine's destination
    /// does (issue 27 part 3).
    pub corrupted_delivered: u64,
    /// Corrupted packets dropped here because no checksum of theirs would catch the damage (UDP
    /// sent without a checksum): the engine discards every corrupted packet at its destination,
    /// a kernel would hand this one to the application.
    pub corrupted_dropped: u64,
}

/// An IP packet in flight, with what the models need from its header.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Packet {
    pub bytes: Vec<u8>,
}

/// The fields of an IPv4 packet the models read: size, transport payload, ECN codepoint.
pub fn ipv4_meta(p: &[u8]) -> Option<(u32, u32, Ecn)> {
    if p.len() < 20 || p[0] >> 4 != 4 {
        return None;
    }
    let ihl = ((p[0] & 0x0f) as usize) * 4;
    if ihl < 20 || p.len() < ihl {
        return None;
    }
    let transport_header = match p[9] {
        6 if p.len() >= ihl + 13 => ((p[ihl + 12] >> 4) as usize) * 4,
        17 => 8,
        _ => 0,
    };
    let payload = p.len().saturating_sub(ihl + transport_header) as u32;
    let ecn = match p[1] & 3 {
        0 => Ecn::NotEct,
        3 => Ecn::Ce,
        _ => Ecn::Ect,
    };
    Some((p.len() as u32, payload, ecn))
}

/// Sets CE in an IPv4 header and recomputes its checksum (RFC 791 / RFC 3168 §5).
pub fn set_ce(p: &mut [u8]) {
    p[1] |= 3;
    let ihl = ((p[0] & 0x0f) as usize) * 4;
    p[10] = 0;
    p[11] = 0;
    let mut sum: u32 = 0;
    for i in (0..ihl).step_by(2) {
        sum += u16::from_be_bytes([p[i], p[i + 1]]) as u32;
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    let c = !(sum as u16);
    p[10..12].copy_from_slice(&c.to_be_bytes());
}

/// Damages the transport payload of IPv4 packet `p` as a corrupting channel does (the engine's
/// `Fate::Corrupted`: header intact, payload hit): the first payload byte is inverted, and the IP
/// header and its checksum are left as they were, so the packet is routed and then fails its TCP
/// or UDP checksum at the receiver (RFC 793 §3.1, RFC 768: the checksum covers the data; inverting
/// one byte changes the one's-complement sum by 0xff00 or 0x00ff, never by a multiple of 0xffff,
/// so the damage is always detected). Returns false, changing nothing, where no checksum would
/// catch the damage: no payload, or UDP with checksum 0 ("no checksum", RFC 768).
pub fn damage_payload(p: &mut [u8]) -> bool {
    let Some((_, payload, _)) = ipv4_meta(p) else {
        return false;
    };
    let ihl = ((p[0] & 0x0f) as usize) * 4;
    if payload == 0 || (p[9] == 17 && p[ihl + 6] == 0 && p[ihl + 7] == 0) {
        return false;
    }
    let first = p.len() - payload as usize;
    p[first] = !p[first];
    true
}

impl Path {
    /// A path through `hops`, in order, with nothing in flight.
    pub fn new(hops: Vec<Link>) -> Self {
        Path { hops, events: BinaryHeap::new(), seq: 0, not_ipv4: 0, corrupted_delivered: 0, corrupted_dropped: 0 }
    }

    /// Offers `pkt` to hop `hop` at model time `now`.
    fn offer(&mut self, now: u64, hop: usize, mut pkt: Packet) {
        let Some((bytes, payload, ecn)) = ipv4_meta(&pkt.bytes) else {
            self.not_ipv4 += 1;
            return;
        };
        // A TCP (protocol 6) segment with payload is a data frame the link's ARQ may repair.
        let tcp_data = pkt.bytes.get(9) == Some(&6) && payload > 0;
        match self.hops[hop].offer(now, bytes, payload, ecn, tcp_data) {
            Offer::Dropped | Offer::Lost { .. } => {}
            Offer::Arrives { at_ns, ce, corrupted } => {
                if corrupted {
                    if !damage_payload(&mut pkt.bytes) {
                        self.corrupted_dropped += 1;
                        return;
                    }
                    self.corrupted_delivered += 1;
                }
                if ce {
                    set_ce(&mut pkt.bytes);
                }
                self.seq += 1;
                self.events.push(Reverse((at_ns, self.seq, hop + 1, pkt)));
            }
        }
    }

    /// A packet entering the path at `now` (model ns).
    pub fn ingress(&mut self, now: u64, bytes: Vec<u8>) {
        self.offer(now, 0, Packet { bytes });
    }

    /// Runs the model up to `now`: packets reaching later hops are offered to them at their
    /// arrival times; those leaving the last hop by `now` are returned with their times, in order.
    pub fn advance(&mut self, now: u64, out: &mut Vec<(u64, Vec<u8>)>) {
        while let Some(Reverse((at, _, _, _))) = self.events.peek() {
            if *at > now {
                break;
            }
            let Reverse((at, _, hop, pkt)) = self.events.pop().unwrap();
            if hop == self.hops.len() {
                out.push((at, pkt.bytes));
            } else {
                self.offer(at, hop, pkt);
            }
        }
    }

    /// When the next model event is due (ns), if any.
    pub fn next_event(&self) -> Option<u64> {
        self.events.peek().map(|Reverse((at, ..))| *at)
    }

    /// Per-hop counters.
    pub fn stats(&self) -> Vec<(String, LinkStats)> {
        self.hops.iter().map(|l| (l.name().to_string(), l.stats().clone())).collect()
    }
}

/// The two directions between nodes `src` and `dst` of a scenario: the links of the shortest path
/// (breadth-first over the scenario's one-way links) from `src` to `dst` and from `dst` to `src`.
pub fn paths(s: &Scenario, seed: u64, src: &str, dst: &str) -> Result<(Path, Path), String> {
    let links = airtcp::sim::scenario_links(s, seed).map_err(|e| e.to_string())?;
    let id = |n: &str| s.nodes.iter().position(|x| x == n).ok_or_else(|| format!("node: {n} is not in nodes ({})", s.nodes.join(", ")));
    let (a, b) = (id(src)? as u32, id(dst)? as u32);
    let route = |from: u32, to: u32| -> Result<Vec<usize>, String> {
        let mut prev: Vec<Option<usize>> = vec![None; s.nodes.len()];
        let mut seen = vec![false; s.nodes.len()];
        let mut queue = std::collections::VecDeque::from([from]);
        seen[from as usize] = true;
        while let Some(n) = queue.pop_front() {
            for (i, l) in links.iter().enumerate() {
                if l.from() == n && !seen[l.to() as usize] {
                    seen[l.to() as usize] = true;
                    prev[l.to() as usize] = Some(i);
                    queue.push_back(l.to());
                }
            }
        }
        let mut hops = Vec::new();
        let mut n = to;
        while n != from {
            let i = prev[n as usize].ok_or_else(|| format!("no path from {} to {}", s.nodes[from as usize], s.nodes[to as usize]))?;
            hops.push(i);
            n = links[i].from();
        }
        hops.reverse();
        Ok(hops)
    };
    let (fwd, rev) = (route(a, b)?, route(b, a)?);
    let mut slots: Vec<Option<Link>> = links.into_iter().map(Some).collect();
    let mut take = |ids: &[usize]| ids.iter().map(|&i| slots[i].take().expect("a link is on one direction only")).collect();
    Ok((Path::new(take(&fwd)), Path::new(take(&rev))))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn udp(len: usize, tos: u8) -> Vec<u8> {
        let mut p = vec![0u8; len];
        p[0] = 0x45;
        p[1] = tos;
        p[2..4].copy_from_slice(&(len as u16).to_be_bytes());
        p[8] = 64;
        p[9] = 17;
        p
    }

    fn scenario(queue: &str, channel: &str) -> Scenario {
        airtcp::scenario::parse(&format!(
            r#"
name = "t"
duration = "10s"
nodes = ["A", "B", "C"]
[[links]]
from = "A"
to = "B"
rate = "10Mbps"
delay = "5ms"
[[links]]
from = "B"
to = "C"
rate = "2Mbps"
delay = "1ms"
queue = {queue}
{channel}
[[flows]]
kind = "tcp"
src = "A"
dst = "C"
cc = "reno"
"#
        ))
        .unwrap()
    }

    /// By hand: 1000-B packets take 0.8 ms at 10 Mb/s and 4 ms at 2 Mb/s. Three entering together
    /// at 0 with a 1-packet buffer on the 2 Mb/s hop: they reach B at 5.8, 6.6, 7.4 ms; the first
    /// is served at once (leaves C at 5.8 + 4 + 1 = 10.8 ms), the second waits (14.8 ms), the third
    /// finds the buffer full and is dropped.
    #[test]
    fn two_hops_by_hand() {
        let s = scenario(r#"{ kind = "droptail", limit_pkts = 1 }"#, "");
        let (mut fwd, rev) = paths(&s, 1, "A", "C").unwrap();
        assert_eq!(fwd.hops.iter().map(|l| l.name()).collect::<Vec<_>>(), ["A->B", "B->C"]);
        assert_eq!(rev.hops.iter().map(|l| l.name()).collect::<Vec<_>>(), ["C->B", "B->A"]);
        for _ in 0..3 {
            fwd.ingress(0, udp(1000, 0));
        }
        let mut out = Vec::new();
        fwd.advance(100 * MS, &mut out);
        let times: Vec<u64> = out.iter().map(|(t, _)| *t).collect();
        assert_eq!(times, [10_800_000, 14_800_000]);
        assert_eq!(fwd.hops[1].stats().overflow_drops, 1);
    }

    /// A CW queue (threshold 1/3 of 6 = 2 packets, EWMA weight 1: the instantaneous queue) marks
    /// ECT packets above the threshold and the relay writes CE with a valid header checksum (the
    /// test packets start with checksum 0; marking recomputes it).
    #[test]
    fn cw_marks_ect_packets_with_a_valid_checksum() {
        let s = scenario(r#"{ kind = "cw", limit_pkts = 6, weight = 1.0 }"#, "");
        let (mut fwd, _) = paths(&s, 1, "A", "C").unwrap();
        for _ in 0..6 {
            fwd.ingress(0, udp(1000, 2));
        }
        let mut out = Vec::new();
        fwd.advance(1000 * MS, &mut out);
        let marked: Vec<bool> = out.iter().map(|(_, p)| p[1] & 3 == 3).collect();
        assert!(marked.iter().any(|&m| m) && !marked[0], "{marked:?}");
        for (_, p) in out.iter().filter(|(_, p)| p[1] & 3 == 3) {
            let mut sum: u32 = (0..20).step_by(2).map(|i| u16::from_be_bytes([p[i], p[i + 1]]) as u32).sum();
            while sum > 0xffff {
                sum = (sum & 0xffff) + (sum >> 16);
            }
            assert_eq!(sum, 0xffff, "header checksum");
        }
        assert_eq!(marked.iter().filter(|&&m| m).count() as u64, fwd.hops[1].stats().ce_marks);
    }

    /// The one's-complement sum of 16-bit words of `b` (odd length padded with a zero byte).
    fn ones_sum(b: &[u8], mut sum: u32) -> u32 {
        for c in b.chunks(2) {
            sum += u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]) as u32;
        }
        while sum > 0xffff {
            sum = (sum & 0xffff) + (sum >> 16);
        }
        sum
    }

    /// A TCP segment (20-B IP + 20-B TCP header, `payload` bytes of data) with valid IP and TCP
    /// checksums (RFC 793 §3.1: over the pseudo-header, the TCP header and the data).
    fn tcp(payload: usize, id: u64) -> Vec<u8> {
        let len = 40 + payload;
        let mut p = vec![0u8; len];
        p[0] = 0x45;
        p[2..4].copy_from_slice(&(len as u16).to_be_bytes());
        p[8] = 64;
        p[9] = 6;
        p[12..16].copy_from_slice(&[10, 0, 0, 1]);
        p[16..20].copy_from_slice(&[10, 0, 0, 2]);
        p[32] = 5 << 4; // data offset: 5 words
        for (i, b) in p[40..].iter_mut().enumerate() {
            *b = (i as u64 ^ id) as u8;
        }
        p[40..48.min(len)].copy_from_slice(&id.to_be_bytes()[..8.min(payload)]);
        let ip = !(ones_sum(&p[..20], 0) as u16);
        p[10..12].copy_from_slice(&ip.to_be_bytes());
        let tcp = !(tcp_sum(&p) as u16);
        p[36..38].copy_from_slice(&tcp.to_be_bytes());
        p
    }

    /// The TCP checksum sum over pseudo-header and segment: 0xffff when the segment is intact.
    fn tcp_sum(p: &[u8]) -> u32 {
        let seg_len = (p.len() - 20) as u32;
        let pseudo = ones_sum(&p[12..20], 6 + seg_len);
        ones_sum(&p[20..], pseudo)
    }

    /// A corrupting channel (the engine's `effect = "corruption"`): every packet the engine's
    /// model (same seed and label) corrupts leaves the relay, with its IP header checksum still
    /// valid and its TCP checksum failing; the others leave intact; the lost ones never leave.
    #[test]
    fn corrupted_packets_leave_with_a_failing_tcp_checksum() {
        let s =
            scenario(r#"{ kind = "droptail", limit_pkts = 50 }"#, r#"channel = { kind = "uniform", loss = 0.3, effect = "corruption" }"#);
        let (mut fwd, _) = paths(&s, 3, "A", "C").unwrap();
        let mut model = airtcp::sim::scenario_links(&s, 3).unwrap().into_iter().find(|l| l.name() == "B->C").unwrap();
        let (mut intact, mut damaged) = (Vec::new(), Vec::new());
        let (mut want_intact, mut want_damaged) = (Vec::new(), Vec::new());
        let mut out = Vec::new();
        for i in 0..400u64 {
            let p = tcp(960, i);
            assert_eq!(tcp_sum(&p), 0xffff);
            fwd.ingress(i * 10 * MS, p);
            fwd.advance(i * 10 * MS + 9 * MS, &mut out);
            match model.channel_mut().fate(1000, 40, 0) {
                airtcp::channel::Fate::Delivered => want_intact.push(i),
                airtcp::channel::Fate::Corrupted => want_damaged.push(i),
                airtcp::channel::Fate::Lost => {}
            }
        }
        fwd.advance(10_000 * MS, &mut out);
        for (_, mut p) in out {
            assert_eq!(ones_sum(&p[..20], 0), 0xffff, "IP header checksum");
            if tcp_sum(&p) == 0xffff {
                intact.push(u64::from_be_bytes(p[40..48].try_into().unwrap()));
            } else {
                // Only the first payload byte differs: inverting it back restores the segment.
                p[40] = !p[40];
                assert_eq!(tcp_sum(&p), 0xffff);
                damaged.push(u64::from_be_bytes(p[40..48].try_into().unwrap()));
            }
        }
        assert_eq!(intact, want_intact);
        assert_eq!(damaged, want_damaged);
        assert_eq!(fwd.corrupted_delivered, want_damaged.len() as u64);
        assert_eq!(fwd.hops[1].stats().corruptions, want_damaged.len() as u64);
        assert!(want_damaged.len() > 80 && 400 - want_intact.len() - want_damaged.len() > 0);
    }

    /// Damage only where a checksum catches it: UDP without a checksum, and a packet without
    /// payload, are left alone (the relay then drops them).
    #[test]
    fn damage_needs_a_checksum_and_a_payload() {
        let mut no_sum = udp(100, 0);
        assert!(!damage_payload(&mut no_sum));
        assert_eq!(no_sum, udp(100, 0));
        let mut with_sum = udp(100, 0);
        with_sum[26] = 0x12;
        assert!(damage_payload(&mut with_sum));
        assert_eq!(with_sum[28], 0xff);
        let mut empty = tcp(0, 0);
        assert!(!damage_payload(&mut empty));
    }

    /// The channel drops exactly the packets the engine's channel model (same seed and label)
    /// says: the relay's losses are the simulator's.
    #[test]
    fn channel_losses_follow_the_engine_stream() {
        let s = scenario(r#"{ kind = "droptail", limit_pkts = 50 }"#, r#"channel = { kind = "uniform", loss = 0.2 }"#);
        let (mut fwd, _) = paths(&s, 7, "A", "C").unwrap();
        let mut model = airtcp::sim::scenario_links(&s, 7).unwrap().into_iter().find(|l| l.name() == "B->C").unwrap();
        let mut want = Vec::new();
        let mut got = Vec::new();
        for i in 0..400u64 {
            let mut p = udp(500, 0);
            p[28..36].copy_from_slice(&i.to_be_bytes());
            fwd.ingress(i * 10 * MS, p);
            let mut out = Vec::new();
            fwd.advance(i * 10 * MS + 9 * MS, &mut out);
            got.extend(out.iter().map(|(_, p)| u64::from_be_bytes(p[28..36].try_into().unwrap())));
            if model.channel_mut().fate(500, 500 - 472, 0) == airtcp::channel::Fate::Delivered {
                want.push(i);
            }
        }
        assert_eq!(got, want);
        assert!((280..=360).contains(&got.len()), "{}", got.len());
    }
}
