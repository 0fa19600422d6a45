//! The glue between packets and endpoints: delivery to a TCP receiver, sender or UDP sink, ACKs
//! and data segments built in the packet arena, the per-flow timers, and the applications.

use super::network::{note_drop, Sent};
use super::{unchecked_mut, FlowKind, Simulator, TcpFlow};
use crate::engine::{Event, EventQueue, TimerKind};
use crate::metrics::loss_verdicts::DropCause;
use crate::net::packet::{
    caiad_option_bytes, ns2_sack_option_bytes, sack_option_bytes, udp_packet_bytes, IP_HEADER_BYTES, TCP_HEADER_BYTES, TS_OPTION_BYTES,
};
use crate::net::{AckHeader, Ecn, Packet, PacketArena, PacketId, PacketKind};
use crate::tcp::receiver::DataFields;
use crate::tcp::{AckDecision, OutSegment};
use crate::time::SimTime;

impl Simulator {
    /// A data segment of a flow whose receiver takes its segments ahead of the clock (see
    /// `cut_through::receivers_ahead`), admitted at `offered` to the last link of its route,
    /// arrives at `at`: the receiver takes it now, for that instant, and its ACK leaves then.
    /// What it delivers from the next reader's instant on is logged for the readers at the clock
    /// (`TcpFlow::delivered_at`): of the deliveries, those that may be the first after a reader.
    #[inline(never)]
    pub(super) fn deliver_ahead(&mut self, pkt: PacketId, offered: SimTime, at: SimTime) {
        let p = self.pkts.get(pkt);
        if p.corrupted {
            // Discarded by its checksum (a receiver that reads corrupted segments is not taken
            // ahead): `deliver`'s path.
            return self.deliver(pkt, at);
        }
        let f = p.flow as usize;
        let delivered = self.take_segment(pkt, at);
        if delivered == 0 {
            return;
        }
        // SAFETY: a packet's flow (see `unchecked_mut`).
        let FlowKind::Tcp(t) = &mut unsafe { unchecked_mut(&mut self.flows, f) }.kind else {
            unreachable!("only TCP receivers take segments ahead")
        };
        // A reader needs the first delivery after it: logged when a reader lies between the
        // previous delivery and this one. A sample at T runs after every arrival at T, so a
        // sample instant T with previous <= T < at says so (issue 42: logging every delivery
        // from the next reader on cost a push here and a pop at the sample per segment). Past
        // sample instants only make it log more than it needs. The warm-up's end, a reader that
        // may run before an arrival at its instant, logs every delivery from it on while it is
        // to come (it comes once, within an RTT).
        if at > t.ahead_from || (self.warmup_pending && at >= self.warmup) {
            // The warm-up's end runs before an arrival at its instant unless the arrival was
            // scheduled at instant 0 (`EventQueue`'s order), when the segment reached the link.
            t.ahead.push_back((at, at == self.warmup && offered > 0, t.receiver.delivered_bytes - delivered));
            // Samples run at the multiples of the interval (from 0; validated > 0).
            t.ahead_from = t.ahead_from.max(at.div_ceil(self.sample_ns) * self.sample_ns);
        }
    }

    /// The receiver of an intact data segment `pkt` of a TCP flow takes it at `now`; returns the
    /// bytes it delivered in order. With the one borrow of the flow: its ACK is built in the
    /// segment's slot, or the delayed-ACK timer armed.
    #[inline(always)]
    fn take_segment(&mut self, pkt: PacketId, now: SimTime) -> u64 {
        let p = self.pkts.get(pkt);
        let f = p.flow as usize;
        // SAFETY: a packet's flow (see `unchecked_mut`).
        let flow = unsafe { unchecked_mut(&mut self.flows, f) };
        let (src, dst) = (flow.src, flow.dst);
        let FlowKind::Tcp(t) = &mut flow.kind else { unreachable!("a data segment of a TCP flow") };
        let before = t.receiver.rcv_nxt;
        let seg = DataFields { seq: p.hdr.number, len: p.len, ts_val: p.hdr.ts_val(), cwr: p.cwr };
        let (delivered, decision) = t.receiver.on_segment(now, seg, p.ecn == Ecn::Ce);
        if delivered > 0 {
            if let Some(a) = &mut self.audit {
                a[f].push((before, before + delivered));
            }
        }
        match decision {
            AckDecision::Now => {
                let (id, sent) = ack_packet(&mut self.pkts, Some(pkt), t, now, f, dst, src);
                self.forward_at(dst, id, now, sent);
            }
            AckDecision::Delay => {
                self.pkts.free(pkt);
                // A receiver that delays ACKs takes its segments at the clock.
                debug_assert_eq!(now, self.now, "a delayed ACK armed ahead of the clock");
                arm(&mut self.queue, f, TimerKind::DelayedAck, t.receiver.delack_deadline, &mut t.delack_timer_at)
            }
        }
        delivered
    }

    /// Hands `pkt`, which has reached its destination at `now` (the clock, or ahead of it for a
    /// receiver that takes its segments ahead: [`Simulator::deliver_ahead`]), to its endpoint.
    pub(super) fn deliver(&mut self, pkt: PacketId, now: SimTime) {
        // The packet is read in place (the sender takes its header where it lies); what needs
        // `&mut self` afterwards runs once its slot is freed.
        enum Then {
            Nothing,
            Ack,
            FlushSender,
        }
        let p = self.pkts.get(pkt);
        let f = p.flow as usize;
        let mut then = Then::Nothing;
        if p.corrupted {
            // The checksum fails: the transport discards the packet, as if the channel had lost it
            // — except CAIAD's receiver, which reads the intact header of a data segment (§3.1).
            match &mut self.flows[f].kind {
                FlowKind::Tcp(t) => {
                    t.corrupted_received += 1;
                    if p.kind == PacketKind::TcpData && t.hack {
                        if t.receiver.on_corrupted(now, &self.pkts.tcp_header(pkt)) == AckDecision::Now {
                            then = Then::Ack;
                        }
                    } else if p.kind == PacketKind::TcpData {
                        note_drop(&mut self.flows, p, DropCause::Channel, now);
                    }
                }
                FlowKind::Udp(u) => u.corrupted_received += 1,
            }
        } else if p.kind == PacketKind::TcpData
            // SAFETY: a packet's flow (see `unchecked_mut`).
            && matches!(unsafe { unchecked_mut(&mut self.flows, f) }.kind, FlowKind::Tcp(_))
        {
            self.take_segment(pkt, now);
            return;
        } else {
            // SAFETY: a packet's flow (see `unchecked_mut`).
            match (p.kind, &mut unsafe { unchecked_mut(&mut self.flows, f) }.kind) {
                (PacketKind::TcpAck, FlowKind::Tcp(t)) => {
                    debug_assert_eq!(now, self.now, "a sender takes its ACKs at the clock");
                    // The window-limited sends are pulled by `flush_sender`, one packet at a time.
                    t.sender.on_ack_pulled(now, &p.hdr, || self.pkts.sack(pkt));
                    then = Then::FlushSender;
                }
                (PacketKind::Udp, FlowKind::Udp(u)) => {
                    // The datagram's send time travels in `ts_val` (see `app_tick`).
                    u.delays.on_packet(p.hdr.ts_val, now);
                    u.packets_received += 1;
                    u.bytes_received += p.payload_bytes() as u64;
                }
                _ => {}
            }
        }
        self.pkts.free(pkt);
        match then {
            Then::Nothing => {}
            Then::Ack => {
                // Only CAIAD's receiver answers a corrupted segment, and it takes them at the clock.
                debug_assert_eq!(now, self.now, "a corrupted segment's ACK ahead of the clock");
                self.send_ack(f)
            }
            Then::FlushSender => self.flush_sender(f),
        }
    }

    // ---- TCP glue ----

    pub(super) fn send_ack(&mut self, f: usize) {
        let now = self.now;
        let flow = &mut self.flows[f];
        let (src, dst) = (flow.dst, flow.src);
        let FlowKind::Tcp(t) = &mut flow.kind else { return };
        let (id, sent) = ack_packet(&mut self.pkts, None, t, now, f, src, dst);
        self.forward(src, id, sent);
    }

    /// Sends what flow `f`'s sender has to send now, and arms its timers.
    // Always inlined (issue 42): into the ACK's delivery, whose last step it is, rather than a
    // call per ACK (−1.5% of a run's instructions); the timers' and flow start's copies are cold.
    #[inline(always)]
    pub(super) fn flush_sender(&mut self, f: usize) {
        let now = self.now;
        let flow = &mut self.flows[f];
        let (src, dst) = (flow.src, flow.dst);
        let FlowKind::Tcp(t) = &mut flow.kind else { return };
        // Score the policy's loss verdicts against why the segment was really dropped.
        if t.sender.has_verdicts() {
            for (seq, congestion) in t.sender.drain_verdicts() {
                if let Some(v) = &mut t.verdicts {
                    v.score(seq, congestion, now);
                }
            }
        }
        let head = DataHead { src, dst, flow: f as u32, bytes: t.data_header_bytes };
        // The segments emitted in the middle of the sender's work (retransmissions, timeouts,
        // recovery sends), in order; then those it left to pull (`Sender::on_ack_pulled`).
        if t.sender.has_segments() {
            let mut segs = t.sender.take_segments();
            for s in segs.drain(..) {
                let (id, sent) = head.put(&mut self.pkts, &s);
                self.forward(src, id, sent);
            }
            if let FlowKind::Tcp(t) = &mut self.flows[f].kind {
                t.sender.recycle_segments(segs);
            }
        }
        loop {
            let FlowKind::Tcp(t) = &mut self.flows[f].kind else { return };
            let Some(s) = t.sender.next_segment(now) else {
                // The timers, with this borrow of the flow (as `sync_timer` does them).
                let v = t.sender.view();
                let (rto, paced, pacing) = (v.rto_deadline, v.paced, v.pacing_deadline);
                arm(&mut self.queue, f, TimerKind::Rto, rto, &mut t.rto_timer_at);
                if paced {
                    arm(&mut self.queue, f, TimerKind::Pacing, pacing, &mut t.pace_timer_at);
                }
                return;
            };
            let (id, sent) = head.put(&mut self.pkts, &s);
            self.forward(src, id, sent);
        }
    }

    /// Makes sure a heap entry exists no later than the timer's deadline.
    pub(super) fn sync_timer(&mut self, f: usize, kind: TimerKind) {
        let FlowKind::Tcp(t) = &mut self.flows[f].kind else { return };
        let (deadline, slot) = match kind {
            TimerKind::Rto => (t.sender.view().rto_deadline, &mut t.rto_timer_at),
            TimerKind::DelayedAck => (t.receiver.delack_deadline, &mut t.delack_timer_at),
            TimerKind::Pacing => (t.sender.view().pacing_deadline, &mut t.pace_timer_at),
        };
        arm(&mut self.queue, f, kind, deadline, slot);
    }

    pub(super) fn timer(&mut self, f: usize, kind: TimerKind) {
        let now = self.now;
        let FlowKind::Tcp(t) = &mut self.flows[f].kind else { return };
        let (deadline, slot) = match kind {
            TimerKind::Rto => (t.sender.view().rto_deadline, &mut t.rto_timer_at),
            TimerKind::DelayedAck => (t.receiver.delack_deadline, &mut t.delack_timer_at),
            TimerKind::Pacing => (t.sender.view().pacing_deadline, &mut t.pace_timer_at),
        };
        if *slot != Some(now) {
            return; // a superseded entry
        }
        *slot = None;
        match deadline {
            Some(d) if d <= now => match kind {
                TimerKind::Rto => {
                    t.sender.on_timeout(now);
                    self.flush_sender(f);
                }
                TimerKind::DelayedAck => self.send_ack(f),
                TimerKind::Pacing => {
                    t.sender.on_pacing_timer(now);
                    self.flush_sender(f);
                }
            },
            Some(_) => self.sync_timer(f, kind),
            None => {}
        }
    }

    pub(super) fn flow_start(&mut self, f: usize) {
        let now = self.now;
        match &mut self.flows[f].kind {
            FlowKind::Tcp(t) => {
                let limit = t.app_bytes.unwrap_or(u64::MAX);
                t.sender.offer(now, limit);
                self.flush_sender(f);
            }
            FlowKind::Udp(_) => self.app_tick(f),
        }
    }

    pub(super) fn app_tick(&mut self, f: usize) {
        let now = self.now;
        let flow = &mut self.flows[f];
        let FlowKind::Udp(u) = &mut flow.kind else { return };
        let (n, next) = u.source.wake(now);
        let payload = u.source.packet_bytes();
        u.packets_sent += n as u64;
        u.bytes_sent += n as u64 * payload as u64;
        let (src, dst) = (flow.src, flow.dst);
        for _ in 0..n {
            let mut pkt = Packet::EMPTY;
            (pkt.src, pkt.dst, pkt.flow, pkt.kind) = (src, dst, f as u32, PacketKind::Udp);
            pkt.size_bytes = udp_packet_bytes(payload);
            // A UDP datagram has no TCP header: `ts_val` carries its send time to the sink, for
            // one-way delay and jitter (the measurement tag of ns-3's FlowMonitor; the RTP
            // timestamp of RFC 3550 §5.1 for VoIP). It adds no bytes on the wire.
            pkt.hdr.ts_val = now;
            let sent = Sent { flow: f as u32, ack: false, size_bytes: pkt.size_bytes, ecn: pkt.ecn };
            let id = self.pkts.alloc(pkt);
            self.forward(src, id, sent);
        }
        if let Some(n) = next {
            if n <= self.end {
                self.queue.push(n, Event::AppTick { flow: f as u32 });
            }
        }
    }
}

/// Timer `kind` of flow `f` is due at `deadline`; `slot` holds the time of its one valid heap
/// entry. Pushes an entry only when none is due by then: a deadline that moves later (the
/// retransmission timer restarted by each ACK) leaves the earlier entry, which re-arms itself
/// when it fires early (`Simulator::timer`).
#[inline]
fn arm(queue: &mut EventQueue, f: usize, kind: TimerKind, deadline: Option<SimTime>, slot: &mut Option<SimTime>) {
    if let Some(d) = deadline {
        if slot.is_none_or(|s| s > d) {
            *slot = Some(d);
            queue.push(d, Event::Timer { flow: f as u32, kind });
        }
    }
}

/// Builds flow `f`'s ACK from `src` to `dst` in an arena slot: the receiver writes its header,
/// and this every other field (see `PacketArena::alloc_with`); SACK blocks, where it has any,
/// go to the arena's side table; returns the slot and what its first hop reads of it. With
/// `segment`, the slot of the data segment it answers, just done with, is taken again (what
/// freeing it and allocating would do: the free list is a stack); without, a new slot. Always
/// inlined (issue 42: −1.8% of a run's instructions once `flush_sender` was; alone it had cost
/// +0.7%, a layout change).
#[inline(always)]
fn ack_packet(
    pkts: &mut PacketArena,
    segment: Option<PacketId>,
    t: &mut TcpFlow,
    now: SimTime,
    f: usize,
    src: u32,
    dst: u32,
) -> (PacketId, Sent) {
    // Written in place, not through a closure handed to the arena: passed to two arena calls,
    // such a closure ran out of line (75 instructions per ACK, issue 42).
    let id = segment.unwrap_or_else(|| pkts.alloc_with(|_| {}));
    // The header is written in place; the SACK blocks, where there are any, in the side table.
    let (slot, sacks) = pkts.get_mut_and_sack(id);
    t.receiver.next_ack(now, &mut slot.hdr, sacks);
    let p = pkts.get_mut(id);
    let h = &p.hdr;
    // A plain receiver's ACKs carry no option (`Receiver::is_plain`), whichever sizes the flow
    // counts them in (issue 42: the sizes below cost some 10 instructions per ACK).
    let options = if t.receiver.is_plain() {
        0
    } else if t.ns2_option_sizes {
        // ns-2.35's sinks: 40 bytes whatever timestamp they echo, + 8 per SACK block
        // (tcp/tcp-sink.cc `TcpSink::ack`, `Sacker::append_ack`).
        ns2_sack_option_bytes(h.n_sack as usize) + caiad_option_bytes(h.has_corrupt_seq, h.no_congestion)
    } else {
        (if h.has_ts { TS_OPTION_BYTES } else { 0 })
            + sack_option_bytes(h.n_sack as usize)
            + caiad_option_bytes(h.has_corrupt_seq, h.no_congestion)
    };
    let size_bytes = IP_HEADER_BYTES + TCP_HEADER_BYTES + options;
    p.size_bytes = size_bytes;
    p.len = 0;
    p.cwr = false;
    p.src = src;
    p.dst = dst;
    p.flow = f as u32;
    p.kind = PacketKind::TcpAck;
    p.ecn = Ecn::NotEct;
    p.corrupted = false;
    (id, Sent { flow: f as u32, ack: true, size_bytes, ecn: Ecn::NotEct })
}

/// What every data packet of one flush shares: its endpoints, its flow, and its size less the
/// payload (headers and options).
struct DataHead {
    src: u32,
    dst: u32,
    flow: u32,
    bytes: u32,
}

impl DataHead {
    /// Writes segment `s` into a packet slot (see `PacketArena::alloc_with`), every field;
    /// returns the slot and what its first hop reads of it. The size and ECN field are worked
    /// out in the slot and again for `Sent`: bound once before the write, they cost 0.7% more
    /// of a Fig. 10 run's instructions (the compiler then keeps them across the allocation).
    #[inline(always)]
    fn put(&self, pkts: &mut PacketArena, s: &OutSegment) -> (PacketId, Sent) {
        let id = pkts.alloc_with(|p| {
            p.hdr = AckHeader { number: s.seq, has_ts: s.ts_val.is_some(), ts_val: s.ts_val.unwrap_or(0), ..AckHeader::default() };
            p.len = s.len;
            p.cwr = s.cwr;
            p.src = self.src;
            p.dst = self.dst;
            p.flow = self.flow;
            p.kind = PacketKind::TcpData;
            p.size_bytes = self.bytes + s.len;
            p.ecn = if s.ect { Ecn::Ect } else { Ecn::NotEct };
            p.corrupted = false;
        });
        (id, Sent { flow: self.flow, ack: false, size_bytes: self.bytes + s.len, ecn: if s.ect { Ecn::Ect } else { Ecn::NotEct } })
    }
}
