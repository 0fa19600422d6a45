//! Moving packets: routing, a link's admission and channel fate (with cut-through to the next
//! link), HSDPA cells in place of a link's transmitter, and the packet capture.

use super::{unchecked_mut, Flow, FlowKind, Simulator};
use crate::engine::Event;
use crate::metrics::loss_verdicts::DropCause;
use crate::net::capacity::hsdpa::TtiOutput;
use crate::net::link::InFlight;
use crate::net::link::Offer;
use crate::net::pcap::{Capture, Fate};
use crate::net::queue::Admission;
use crate::net::{Ecn, Packet, PacketId, PacketKind, Paths, SackBlock};
use crate::time::SimTime;

impl Simulator {
    /// Hands `pkt`, just sent by its flow's endpoint at `node`, to the first link of its route:
    /// its flow's data route, or the reverse route for an ACK. Inlined into the endpoints' send
    /// paths, as the routing it replaces was. `sent` is what the endpoint just wrote into the
    /// packet's slot (see [`Sent`]).
    #[inline(always)]
    pub(super) fn forward(&mut self, node: u32, pkt: PacketId, sent: Sent) {
        self.forward_at(node, pkt, self.now, sent)
    }

    /// [`Simulator::forward`] of a packet sent at `at`, which is the clock or, for the ACK of a
    /// receiver that takes its segments ahead of the clock, the instant of the segment's arrival
    /// (see `cut_through::receivers_ahead`).
    #[inline(always)]
    pub(super) fn forward_at(&mut self, node: u32, pkt: PacketId, at: SimTime, sent: Sent) {
        debug_assert!(sent.is(self.pkts.get(pkt)), "what the sender wrote is its packet: {sent:?}");
        // SAFETY: a packet's flow; `flow_paths` has one entry per flow (see `unchecked_mut`).
        let hop = unsafe { unchecked_mut(&mut self.flow_paths, sent.flow as usize) }[sent.ack as usize];
        // SAFETY: as above (`flow_first_links` has one entry per flow too).
        let link = unsafe { unchecked_mut(&mut self.flow_first_links, sent.flow as usize) }[sent.ack as usize];
        if hop == Paths::NONE {
            // Unreachable by construction (routes are validated); drop rather than panic.
            return self.pkts.free(pkt);
        }
        // SAFETY (here and below): a route's start, not `NONE` (`Paths::entry`).
        debug_assert_eq!(link, unsafe { self.paths.link(hop) }, "a route's first link");
        debug_assert_eq!(self.links[link as usize].from, node, "a route starts at its packets' source");
        self.forward_from(hop, link, pkt, at, (sent.size_bytes, sent.ecn));
    }

    /// Hands `pkt` to the link at `hop` of its route (not the route's end) at `at`, the clock or
    /// ahead of it (see [`Simulator::forward_at`]): `hop` is valid for [`Paths::entry`], as every
    /// `hop` the engine passes on (a route's start, one past a link's entry, the hop of an
    /// in-flight entry), and `link` is its link. `(size_bytes, ecn)` are the packet's, as its
    /// slot holds them.
    #[inline(always)]
    pub(super) fn forward_from(&mut self, hop: u32, link: u32, pkt: PacketId, at: SimTime, size_ecn: (u32, Ecn)) {
        // SAFETY: `hop` is valid for `Paths::entry` and not a route's end (the caller's).
        debug_assert_eq!(link, unsafe { self.paths.link(hop) }, "the link at hop {hop}");
        // One flag for the rare paths (an HSDPA cell, the capture): the common path has no
        // trace of them and costs what it did before the capture existed.
        if !self.enqueue_special {
            self.enqueue::<false>(hop, link, pkt, at, size_ecn)
        } else {
            self.enqueue_special(hop, link, pkt, at, size_ecn)
        }
    }

    /// Offers `pkt` to the link at `hop` of its route: admission by the queue, then (if admitted)
    /// its serialization interval, its channel fate and, unless lost, its arrival at the far end.
    ///
    /// Cut-through: when the packet's next link is fed by this link alone and its far-end node
    /// originates no traffic (see `cut_through_feeders`), the packet is offered to the next link
    /// at once, for the instant it will arrive there, instead of through an arrival event. The
    /// next link then sees exactly the offers it would see event by event, in the same order and
    /// at the same instants (its only feeder is a FIFO with a constant delay), so its queue,
    /// channel draws and drops are the same; only readers at the clock must leave out what lies
    /// ahead of it (see [`Link::offer_at`]). This saves an event and a heap operation per hop.
    /// Whether the next link is cut through is one flag of the packet's route (`Paths::CUT`).
    ///
    /// Receiver cut-through: a data segment whose route ends after this link, of a flow whose
    /// receiver qualifies (`cut_through::receivers_ahead`), is handed to the receiver at once,
    /// for the instant it arrives, unless that is after the run's end.
    // Always inlined (issue 42): into the sender's send loop and the receiver's ACK, so that a
    // packet's hops run without a call and its six saved registers (−2.4% to −2.9% of a run's
    // instructions once `flush_sender` and `ack_packet` were inlined too).
    #[inline(always)]
    pub(super) fn enqueue<const CAPTURE: bool>(&mut self, hop: u32, link: u32, pkt: PacketId, at: SimTime, size_ecn: (u32, Ecn)) {
        let ends = hops::<CAPTURE>(
            &mut self.links,
            &mut self.pkts,
            &self.paths,
            &mut self.queue,
            &self.recv_ahead,
            &mut self.capture,
            (self.now, self.end),
            (hop, link, pkt, at),
            size_ecn,
        );
        match ends {
            HopsEnd::InFlight => {}
            HopsEnd::Receiver { offered, at } => self.deliver_ahead(pkt, offered, at),
            HopsEnd::Dropped { cause, at } => {
                note_drop(&mut self.flows, self.pkts.get(pkt), cause, at);
                self.pkts.free(pkt);
            }
        }
    }

    /// [`Simulator::enqueue`] where the scenario has an HSDPA cell or the run is captured.
    #[inline(never)]
    pub(super) fn enqueue_special(&mut self, hop: u32, link: u32, pkt: PacketId, at: SimTime, size_ecn: (u32, Ecn)) {
        if let Some(ci) = self.cell_of_link[link as usize] {
            // A cell is no receiver's ACK link (`cut_through::receivers_ahead`).
            debug_assert_eq!(at, self.now, "an offer to an HSDPA cell ahead of the clock");
            self.cell_enqueue(ci as usize, pkt);
            return self.end_slice_if_capture_full();
        }
        if self.capture.is_some() {
            self.enqueue::<true>(hop, link, pkt, at, size_ecn);
            self.end_slice_if_capture_full();
        } else {
            self.enqueue::<false>(hop, link, pkt, at, size_ecn)
        }
    }

    /// Offers `pkt` to the HSDPA cell `ci`: its UE's Node-B queue admits (or marks, or drops) it.
    pub(super) fn cell_enqueue(&mut self, ci: usize, pkt: PacketId) {
        let now = self.now;
        let hop = &mut self.cells[ci];
        let link = &mut self.links[hop.link];
        let p = self.pkts.get_mut(pkt);
        let f = p.flow as usize;
        let am = matches!(self.flows[f].kind, FlowKind::Tcp(_));
        // HSDPA paper Table 4: ROHC compresses UDP/IP to 3 bytes; TCP/IP goes uncompressed.
        let air = match p.kind {
            PacketKind::Udp => p.payload_bytes() + hop.cell.params.rohc_header_bytes,
            _ => p.size_bytes,
        };
        let sdu = crate::net::capacity::hsdpa::Sdu { pkt, air_bytes: air, ecn: p.ecn };
        match hop.cell.offer(now, f, &self.flows[f].name, am, sdu, &mut link.queue_rng) {
            a @ (Admission::Queued | Admission::QueuedMarked) => {
                if a == Admission::QueuedMarked {
                    p.ecn = Ecn::Ce;
                    link.stats.ce_marks += 1;
                }
                link.stats.packets_sent += 1;
                link.stats.bytes_sent += p.size_bytes as u64;
                if !hop.cell.ticking {
                    hop.cell.ticking = true;
                    let tti = hop.cell.params.tti_ns;
                    self.queue.push((now / tti + 1) * tti, Event::CellTti { cell: ci as u32 });
                }
            }
            a => {
                if a == Admission::EarlyDrop {
                    link.stats.early_drops += 1;
                } else {
                    link.stats.overflow_drops += 1;
                }
                if let Some(c) = &mut self.capture {
                    c.event(hop.link, now, Fate::QueueDrop, p);
                }
                note_drop(&mut self.flows, p, DropCause::Queue, now);
                self.pkts.free(pkt);
            }
        }
    }

    /// Runs one TTI of cell `ci`: delivered packets leave after the TTI plus the link's delay;
    /// packets its RLC gave up on are channel losses.
    pub(super) fn cell_tti(&mut self, ci: usize) {
        let now = self.now;
        let mut out = TtiOutput::default();
        let hop = &mut self.cells[ci];
        let busy_before = hop.cell.busy_ttis;
        hop.cell.tti(now, &mut out);
        let tti = hop.cell.params.tti_ns;
        let l = hop.link;
        let link = &mut self.links[l];
        link.stats.busy_ns += (hop.cell.busy_ttis - busy_before) * tti;
        let at = now + tti + link.delay_ns;
        for pkt in out.delivered {
            // An HSDPA hop is captured as its packets leave the cell: at the TTI that delivers them.
            if let Some(c) = &mut self.capture {
                c.packet(l, now, Some(at), now, self.pkts.get(pkt), self.pkts.sack(pkt));
            }
            if link.in_flight.is_empty() {
                self.queue.push(at, Event::Arrive { link: l as u32 });
            }
            let hop = hop_of(&self.paths, &self.flow_paths, self.pkts.get(pkt), l);
            link.in_flight.push_back(InFlight { at, offered: now, pkt, hop });
        }
        for pkt in out.dropped {
            if let Some(c) = &mut self.capture {
                c.event(l, now, Fate::ChannelLoss, self.pkts.get(pkt));
            }
            link.stats.channel_losses += 1;
            link.stats.lost_packets += 1;
            note_drop(&mut self.flows, self.pkts.get(pkt), DropCause::Channel, now);
            self.pkts.free(pkt);
        }
        if hop.cell.busy() {
            self.queue.push(now + tti, Event::CellTti { cell: ci as u32 });
        } else {
            hop.cell.ticking = false;
        }
    }
}

/// What an endpoint just wrote into a packet's slot and the first hop of its route reads: its
/// flow, its direction, its size and its ECN field. Handed along with the packet so that routing
/// and the first offer do not read them back from the slot (issue 42: a store-to-load forwarding
/// at the head of every packet's chain of dependent loads into its first link).
#[derive(Debug, Clone, Copy)]
pub(super) struct Sent {
    pub(super) flow: u32,
    /// An ACK (the flow's reverse route), else a data segment or a datagram.
    pub(super) ack: bool,
    pub(super) size_bytes: u32,
    pub(super) ecn: Ecn,
}

impl Sent {
    /// Whether `p` is what it says (the test profile checks every packet sent).
    fn is(&self, p: &Packet) -> bool {
        p.flow == self.flow && (p.kind == PacketKind::TcpAck) == self.ack && p.size_bytes == self.size_bytes && p.ecn == self.ecn
    }
}

/// Where a packet's hops ([`hops`]) left it.
enum HopsEnd {
    /// On its way to a link's far end, as the link's in-flight entry.
    InFlight,
    /// At its receiver, which takes it ahead of the clock: offered to the last link at `offered`,
    /// arriving at `at` (`Simulator::deliver_ahead`).
    Receiver { offered: SimTime, at: SimTime },
    /// Dropped at instant `at` (by a queue, or lost by a channel); its slot is still to free.
    Dropped { cause: DropCause, at: SimTime },
}

/// The hops of [`Simulator::enqueue`]: the offers of `pkt` from the link at `hop` on, for `at`,
/// through every link cut through after it, to its in-flight entry, its receiver or its drop.
/// A function of the simulator's parts, each a separate reference, rather than a method: the
/// compiler then knows that a write to a link or a packet changes none of the others, and keeps
/// their addresses in registers across the loop (issue 42).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn hops<const CAPTURE: bool>(
    links: &mut [crate::net::Link],
    pkts: &mut crate::net::PacketArena,
    paths: &Paths,
    queue: &mut crate::engine::EventQueue,
    recv_ahead: &[bool],
    capture: &mut Option<Box<Capture>>,
    (now, end): (SimTime, SimTime),
    (mut hop, link, pkt, mut at): (u32, u32, PacketId, SimTime),
    (size_bytes, mut ecn): (u32, Ecn),
) -> HopsEnd {
    // SAFETY (here and below): `hop` is valid (see `forward_from`), and so is one past it
    // while it is a link's entry; `link` is the link at `hop`.
    let mut l = link as usize;
    loop {
        // SAFETY: a link of a route (see `unchecked_mut`).
        let link = unsafe { unchecked_mut(links, l) };
        let mut p = pkts.get_mut(pkt);
        let lossy = || (p.payload_bytes(), p.kind == PacketKind::TcpData);
        // The size and ECN field as the caller had them (a sender's, just written: not read
        // back from the slot, issue 42), the field as the links before this one marked it.
        debug_assert_eq!((size_bytes, ecn), (p.size_bytes, p.ecn));
        let offer = link.offer_at(now, at, size_bytes, ecn, lossy);
        if let (true, Some(c)) = (CAPTURE, capture.as_deref_mut()) {
            capture_offer(c, l, link, now, at, offer, pkts.get(pkt), pkts.sack(pkt));
            p = pkts.get_mut(pkt);
        }
        return match offer {
            Offer::Arrives { at_ns, ce, corrupted } => {
                if ce {
                    p.ecn = Ecn::Ce;
                    ecn = Ecn::Ce;
                }
                if corrupted {
                    // Written only when it changes: not a read-modify-write of the slot per hop,
                    // which the receiver's read of the flag then waited on (issue 42).
                    p.corrupted = true;
                }
                let next = unsafe { paths.entry(hop + 1) };
                if next & Paths::CUT != 0 {
                    // It arrives at `at_ns` (after the run's end: see `output`).
                    link.stats.arrived_packets += 1;
                    (l, hop, at) = ((next & !Paths::CUT) as usize, hop + 1, at_ns);
                    continue;
                }
                debug_assert!((p.flow as usize) < recv_ahead.len(), "flow {} of {}", p.flow, recv_ahead.len());
                // SAFETY: a packet's flow; `recv_ahead` has one entry per flow (see `unchecked_mut`).
                if next == Paths::END
                    && p.kind == PacketKind::TcpData
                    && *unsafe { recv_ahead.get_unchecked(p.flow as usize) }
                    && at_ns <= end
                {
                    link.stats.arrived_packets += 1;
                    return HopsEnd::Receiver { offered: at, at: at_ns };
                }
                // Arrivals on one link are in time order (FIFO, constant delay): only the
                // earliest is in the event heap, which stays as small as the number of links.
                // Scheduled as the event-by-event engine schedules it: when the packet
                // reaches the link (`at`), even where that is ahead of the clock.
                if link.in_flight.is_empty() {
                    queue.push_from(at_ns, at, Event::Arrive { link: l as u32 });
                }
                link.in_flight.push_back(InFlight { at: at_ns, offered: at, pkt, hop });
                HopsEnd::InFlight
            }
            // At the offer's instant, which is ahead of the clock on a cut-through link.
            Offer::Lost { .. } => HopsEnd::Dropped { cause: DropCause::Channel, at },
            Offer::Dropped => HopsEnd::Dropped { cause: DropCause::Queue, at },
        };
    }
}

/// The place of link `l` on `p`'s route: for the packets an HSDPA cell delivers, which the cell
/// held without it (off the hot path: a walk along the route from its start).
fn hop_of(paths: &Paths, flow_paths: &[[u32; 2]], p: &Packet, l: usize) -> u32 {
    let mut hop = flow_paths[p.flow as usize][(p.kind == PacketKind::TcpAck) as usize];
    loop {
        // SAFETY: the route's start, then one past each entry that is not `END`.
        let e = unsafe { paths.entry(hop) };
        assert_ne!(e, Paths::END, "a packet's link is on its route");
        if (e & !Paths::CUT) as usize == l {
            return hop;
        }
        hop += 1;
    }
}

/// Records a link's offer in the capture: a transmitted packet at its serialization's start (with
/// its channel fate in the log when it was lost or corrupted), a queue drop at its offer. `now` is
/// the engine's clock (`offered_at` may be ahead of it on a cut-through link).
#[cold]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn capture_offer(
    c: &mut Capture,
    l: usize,
    link: &crate::net::link::Link,
    now: SimTime,
    offered_at: SimTime,
    offer: Offer,
    p: &Packet,
    sack: &[SackBlock],
) {
    let start = || link.last_serialization_start().unwrap_or(offered_at);
    match offer {
        Offer::Arrives { corrupted, ce, at_ns } => {
            let t = start();
            // On the wire with the queue's CE mark (the caller sets it on the packet after this).
            let mut on_wire = *p;
            if ce {
                on_wire.ecn = Ecn::Ce;
            }
            c.packet(l, t, Some(at_ns), now, &on_wire, sack);
            if corrupted {
                c.event(l, t, Fate::Corrupted, p);
            }
        }
        Offer::Lost { ce } => {
            // A packet the queue marked is on the wire marked until the channel loses it: the
            // link's `ce_marks` counts it, and so does its capture (issue 38).
            let t = start();
            let mut on_wire = *p;
            if ce {
                on_wire.ecn = Ecn::Ce;
            }
            c.packet(l, t, None, now, &on_wire, sack);
            c.event(l, t, Fate::ChannelLoss, &on_wire);
        }
        Offer::Dropped => c.event(l, offered_at, Fate::QueueDrop, p),
    }
}

/// Notes why a data segment of a loss-differentiating flow was dropped, and at which instant
/// (ahead of the clock on a cut-through link), for the scoring of its verdicts.
pub(super) fn note_drop(flows: &mut [Flow], p: &Packet, cause: DropCause, at: SimTime) {
    if p.kind != PacketKind::TcpData {
        return;
    }
    if let FlowKind::Tcp(t) = &mut flows[p.flow as usize].kind {
        if let Some(v) = &mut t.verdicts {
            v.note_drop(p.hdr.number, cause, at);
        }
    }
}
