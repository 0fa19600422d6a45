//! A one-way link: a transmitter fed by a queue, serialization at `rate`, propagation `delay`,
//! then a channel model that decides whether the packet arrives. A duplex link is two of these.
//!
//! The transmitter is a work-conserving FIFO at a constant rate, so a packet's serialization
//! interval is known the moment it is admitted: it starts when everything ahead of it has left
//! (`busy_until`) and lasts size/rate. The engine therefore schedules only the arrival at the far
//! end, with no per-hop "transmission done" event, and keeps the admitted-but-unfinished packets'
//! intervals to know the queue length at any instant. The channel's fate is drawn at admission:
//! packets cross the link in admission order, so each channel sees the same sequence of draws as
//! it would at the end of serialization.

use super::arq::FailedAttempt;
use super::queue::{Admission, Queue};
use super::ring::Ring;
use super::Ecn;
use super::{NodeId, PacketId};
use crate::channel::{Channel, Fate};
use crate::engine::RngStream;
use crate::net::capacity::Capacity;
use crate::time::DataRate;

/// Counters of one link.
#[derive(Debug, Clone, Default)]
pub struct LinkStats {
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub overflow_drops: u64,
    pub early_drops: u64,
    pub ce_marks: u64,
    pub channel_losses: u64,
    /// Packets the channel corrupted (they travel on and fail their checksum at the destination).
    pub corruptions: u64,
    /// Nanoseconds the transmitter spent serializing.
    pub busy_ns: u64,
    /// Local retransmissions of lost or corrupted TCP data frames (`link_retransmission`).
    pub link_retransmissions: u64,
    /// Packets that reached the link's far end (corrupted ones included: they fail their
    /// checksum at their destination, not here). Counted when the packet arrives: at its arrival
    /// event, or when it is cut through to the next link (see `sim`).
    pub arrived_packets: u64,
    /// Packets the channel lost for good: after the link's last local retransmission, or an HSDPA
    /// cell's RLC giving up on them. Unlike `channel_losses`, which counts every failed attempt,
    /// a frame the link's ARQ repaired is not counted, and a packet counts once.
    pub lost_packets: u64,
}

/// One direction of a link.
#[derive(Debug)]
pub struct Link {
    pub(crate) name: String,
    pub(crate) from: NodeId,
    pub(crate) to: NodeId,
    /// Mean serialization rate (the constant rate, or a schedule's or trace's long-run mean).
    pub(crate) rate: DataRate,
    /// How the transmitter serves packets over time.
    pub(crate) capacity: Capacity,
    pub(crate) delay_ns: u64,
    pub(crate) queue: Queue,
    pub(crate) channel: Channel,
    /// TCP-aware link-level retransmission of this direction (`net::arq`), if enabled.
    pub(crate) arq: Option<super::arq::LinkArq>,
    /// Stream for the queue's random decisions (RED).
    pub(crate) queue_rng: RngStream,
    /// A DropTail queue, a constant rate, a perfect channel and no ARQ (most links): the offer
    /// path's three tests of queue, capacity and channel, decided once (see [`Link::offer_at`]).
    /// Cleared for good by [`Link::channel_mut`], which could change the channel.
    plain: bool,
    /// When the transmitter finishes everything admitted so far: the `end` of the last
    /// `pending` entry (0 before the first), which `offer_at` relies on.
    busy_until: u64,
    /// The serialization times last computed at a constant rate, `(bytes, ns)`: one slot for
    /// small packets (ACKs) and one for large ones (data), so that a link carrying one flow
    /// direction, or both, divides only when a size changes (see [`Link::serve`]).
    tx_cache: [(u32, u64); 2],
    /// Admitted packets whose serialization had not finished at the simulator's clock, in FIFO
    /// order (what the queue held, and will hold, from the clock on), after leading entries that
    /// finished by then: those are forgotten ([`Link::purge`]) only when the ring is full and at
    /// samples, not on every offer (issue 42: a loop per hop that the skip of `pending_done`
    /// repeats). Every reader but the sample's filters by its instant, and the sample purges.
    pending: Ring<PendingTx>,
    /// Leading entries of `pending` that finished serializing by the latest offer's instant. The
    /// same as 0 unless offers run ahead of the clock (see [`Link::offer_at`]).
    pending_done: usize,
    /// The entries of `pending` left unfinished, and of those the entries ahead of the clock, at
    /// the latest sample: where the next sample's searches start ([`Link::sample_waiting`]).
    sample_unfinished: usize,
    sample_ahead: usize,
    /// Instants of overflow drops decided ahead of the simulator's clock and not yet passed by a
    /// sample (see [`Link::offer_at`]), so that counters read at the clock leave them out.
    drops_ahead: Ring<u64>,
    /// The ends of the `pending` entries the channel lost, from those a sample has not yet passed
    /// on: what [`Link::drops_at`] takes out of `channel_losses` without reading every entry
    /// (issue 42: that count was a fifth of a sample's work on a lossy bottleneck). Written only
    /// by a lost packet's admission, so a perfect channel's links never touch it.
    lost_ends: Ring<u64>,
    /// Packets on their way to the far end, in arrival order (see [`InFlight`]).
    pub(crate) in_flight: Ring<InFlight>,
    /// The failed attempts of frames the link's ARQ repairs (see `net::arq`), in time order, from
    /// those not over at the latest repair or sample on. Their counts are added when the frame is
    /// admitted, so readers at a time take out those that end after it; the frame's last attempt
    /// is its `pending` entry. Empty without `link_retransmission`.
    attempts: Ring<FailedAttempt>,
    pub(crate) stats: LinkStats,
}

/// A packet on its way to a link's far end.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct InFlight {
    /// When it arrives (non-decreasing along the link's `in_flight`).
    pub(crate) at: u64,
    /// When it reached the link (offered, ahead of the clock on a cut-through link): when the
    /// event-by-event engine would schedule its arrival (see `EventQueue::push_from`).
    pub(crate) offered: u64,
    pub(crate) pkt: PacketId,
    /// Its place on its route (an index into the simulator's `Paths`): the entry of this link,
    /// so that the arrival finds the next link, or the route's end, without routing.
    pub(crate) hop: u32,
}

/// The serialization interval of an admitted packet (and whether the channel will lose it).
#[derive(Debug, Clone, Copy)]
struct PendingTx {
    /// When the packet reached the transmitter (was offered): non-decreasing along `pending`.
    /// Entries offered for an instant after the simulator's clock were offered ahead of it (see
    /// [`Link::offer_at`]).
    offered: u64,
    /// The serialization interval of the packet's last attempt (its only one without ARQ).
    start: u64,
    end: u64,
    bytes: u32,
    lost: bool,
    corrupted: bool,
    /// The queue CE-marked it on admission.
    ce: bool,
}

impl Link {
    /// The direction's name, "from->to" (how summaries and captures label it).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The node the direction leaves (an index into the scenario's `nodes`).
    pub fn from(&self) -> NodeId {
        self.from
    }

    /// The node the direction reaches.
    pub fn to(&self) -> NodeId {
        self.to
    }

    /// The counters as counted so far (offers ahead of the clock included: the engine's readers
    /// at an instant use `Link::stats_at`); the testbed's relay, which offers at its clock,
    /// reads them as they are.
    pub fn stats(&self) -> &LinkStats {
        &self.stats
    }

    /// The direction's channel model: the testbed's tests draw from a second copy of a link
    /// (same scenario and seed) to predict the fates its relay meets.
    pub fn channel_mut(&mut self) -> &mut Channel {
        self.plain = false;
        &mut self.channel
    }

    /// The trace time at simulated time 0 of a trace capacity (`start_offset`,
    /// `random_start_offset`), ns; `None` for other capacities. For tests that check the drawn
    /// offset against the summary's `trace_offset_s`, which rounds it and leaves out 0.
    #[cfg(feature = "testing")]
    pub fn trace_offset_ns(&self) -> Option<u64> {
        match &self.capacity {
            Capacity::Trace(t) => Some(t.offset_ns()),
            _ => None,
        }
    }

    /// When the serialization of the packet the link admitted last starts (None when nothing is
    /// on its transmitter): what a packet capture stamps an admitted packet with, as tcpdump at
    /// the transmitter would. The link publishes it so that readers need not walk its ring.
    #[inline]
    pub(crate) fn last_serialization_start(&self) -> Option<crate::time::SimTime> {
        self.pending.len().checked_sub(1).and_then(|i| self.pending.get(i)).map(|t| t.start)
    }

    /// An idle, empty link direction from `from` to `to`: its transmitter serves packets as
    /// `capacity` says (its mean rate is the link's nominal `rate`), `queue` admits them, `channel`
    /// decides their fate, `arq` (if any) repairs TCP data frames. The queue's random decisions
    /// draw from the stream `queue:<name>` of `seed`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        name: String,
        from: NodeId,
        to: NodeId,
        capacity: Capacity,
        delay_ns: u64,
        queue: Queue,
        channel: Channel,
        arq: Option<super::arq::LinkArq>,
        seed: u64,
    ) -> Self {
        let plain = matches!(capacity, Capacity::Constant(_)) && queue.is_droptail() && channel.is_perfect() && arq.is_none();
        Link {
            plain,
            from,
            to,
            rate: capacity.mean_rate(),
            capacity,
            delay_ns,
            queue,
            channel,
            arq,
            queue_rng: RngStream::new(seed, &format!("queue:{name}")),
            busy_until: 0,
            // 0 bytes take 0 ns at any rate: a valid entry to start from.
            tx_cache: [(0, 0); 2],
            pending: Ring::new(),
            pending_done: 0,
            sample_unfinished: 0,
            sample_ahead: 0,
            drops_ahead: Ring::new(),
            lost_ends: Ring::new(),
            in_flight: Ring::new(),
            attempts: Ring::new(),
            stats: LinkStats::default(),
            name,
        }
    }

    /// The serialization interval of a packet of `bytes` that reaches the transmitter at `now`:
    /// [`Capacity::serve`], with a constant rate's time per size cached (issue 42: a 64-bit
    /// division per hop was among the hop's costliest instructions). The cache holds
    /// `rate.tx_time_ns(bytes)` itself, so the interval is the same integer as without it.
    #[inline(always)]
    fn serve(&mut self, now: u64, bytes: u32) -> (u64, u64) {
        match self.capacity {
            Capacity::Constant(rate) => self.serve_constant(now, bytes, rate),
            _ => self.capacity.serve(now, self.busy_until, bytes),
        }
    }

    /// [`Link::serve`] at the constant `rate` (the link's capacity).
    #[inline(always)]
    fn serve_constant(&mut self, now: u64, bytes: u32, rate: DataRate) -> (u64, u64) {
        let start = now.max(self.busy_until);
        let slot = &mut self.tx_cache[(bytes > SMALL_PACKET_BYTES) as usize];
        if slot.0 != bytes {
            *slot = (bytes, rate.tx_time_ns(bytes));
        }
        (start, start + slot.1)
    }

    /// The queue dropped a packet offered at `now` (the clock `clock`, or ahead of it) because it
    /// was full.
    #[inline(always)]
    fn overflow(&mut self, clock: u64, now: u64) -> Offer {
        self.stats.overflow_drops += 1;
        if now > clock {
            self.drops_ahead.push_back(now);
        }
        Offer::Dropped
    }

    /// Forgets every pending entry: the link is idle at an instant no reader precedes (the
    /// clock, or a sample's instant), so every entry has finished by then (`busy_until` is the
    /// last one's end).
    #[inline(always)]
    fn forget_finished(&mut self) {
        self.pending.clear();
        self.pending_done = 0;
    }

    /// Forgets packets whose serialization finished by `now`, the simulator's clock.
    #[inline]
    pub(crate) fn purge(&mut self, now: u64) {
        // An idle transmitter has finished every entry (see `offer_at`): no walk.
        if now >= self.busy_until {
            self.forget_finished();
            return;
        }
        // Ends never decrease: a binary search finds the finished prefix, which is dropped
        // unread (issue 42: popping entry by entry read every one, long evicted from the cache
        // on a link that holds a large queue — 16% of the 20-flow dumbbell's cache misses).
        let finished = self.pending.partition_point(|p| p.end <= now);
        self.pending.drop_front(finished);
        self.pending_done = self.pending_done.saturating_sub(finished);
    }

    /// The end of [`Link::offer_at`] for an admitted packet of `bytes` offered at `now`, whose last
    /// attempt is serialized over `interval` and meets `fate`: its pending entry, its channel
    /// counters, and what becomes of it. Inlined twice, once with the fate of a perfect channel.
    #[inline(always)]
    fn admitted(&mut self, clock: u64, now: u64, (start, end): (u64, u64), bytes: u32, ce: bool, fate: Fate) -> Offer {
        let lost = fate == Fate::Lost;
        let corrupted = fate == Fate::Corrupted;
        if self.pending.is_full() {
            // Room from the entries finished by the clock before the ring grows: it stays as
            // large as the packets it must hold, as when every offer purged.
            self.purge(clock);
            // A purge that left it more than half full (offers ahead of the clock, finished by
            // their own instants but not by the clock) doubles it now, so that the next purge
            // comes after as many offers as it holds, not at the next one (issue 42: a binary
            // search per offer on such links): at most twice the entries it must hold.
            // A ring still full (nothing finished, or no buffer yet) grows too.
            if self.pending.is_full() || self.pending.len() * 2 > self.pending.capacity() {
                self.pending.grow();
            }
        }
        // SAFETY: not full: it was not, or the purge made room, or it grew.
        unsafe { self.pending.push_back_with_room(PendingTx { offered: now, start, end, bytes, lost, corrupted, ce }) };
        if corrupted {
            self.stats.corruptions += 1;
        }
        if lost {
            self.lost(end);
            Offer::Lost { ce }
        } else {
            Offer::Arrives { at_ns: end + self.delay_ns, ce, corrupted }
        }
    }

    /// Counts a packet the channel lost, whose serialization ends at `end`. Out of line: only a
    /// lossy channel's links come here, and rarely.
    #[cold]
    #[inline(never)]
    fn lost(&mut self, end: u64) {
        self.lost_ends.push_back(end);
        self.stats.channel_losses += 1;
        self.stats.lost_packets += 1;
    }

    /// TLLR (`net::arq`): repairs a frame whose first attempt over `interval` met `fate`; the
    /// link holds it meanwhile. Out of line: only a link with `link_retransmission` that has just
    /// lost or corrupted a data frame comes here.
    #[cold]
    #[inline(never)]
    fn repair(&mut self, arq: super::arq::LinkArq, clock: u64, bytes: u32, hdr: u32, interval: (u64, u64), fate: Fate) -> (Fate, u64, u64) {
        self.purge_attempts(clock);
        let (c, ch, at) = (&mut self.capacity, &mut self.channel, &mut self.attempts);
        let (fate, start, end, tally) = super::arq::repair(arq, c, ch, &mut |a| at.push_back(a), self.delay_ns, bytes, hdr, interval, fate);
        let st = &mut self.stats;
        st.channel_losses += tally.channel_losses;
        st.corruptions += tally.corruptions;
        st.link_retransmissions += tally.retransmissions;
        st.packets_sent += tally.retransmissions;
        st.bytes_sent += tally.retransmissions * bytes as u64;
        st.busy_ns += tally.busy_ns;
        self.busy_until = end;
        (fate, start, end)
    }

    /// Forgets the ARQ's failed attempts that ended by `now` (only where the ARQ repairs frames
    /// and at samples, so the hot path of the other links pays nothing).
    fn purge_attempts(&mut self, now: u64) {
        while self.attempts.front().is_some_and(|a| a.end <= now && a.final_end.is_none_or(|e| e <= now)) {
            self.attempts.pop_front();
        }
    }

    /// The sample's [`Link::purge`] at `now`, then the packets waiting at the end of instant `now`
    /// (the one being serialized excluded). A packet offered ahead of the clock (see
    /// [`Link::offer_at`]) counts once it has arrived: offered at or before `now`, since the
    /// engine's sample at an instant runs after every other event of that instant
    /// (`Simulator::next_sample_at`), the arrival that offers the packet included.
    ///
    /// Both are binary searches (ends and offers never decrease along `pending`), each started
    /// where the previous sample's counts put its answer — the entries left unfinished, the
    /// entries ahead (issue 42): from one sample to the next a link's counts change little, so
    /// the search reads two or three entries where it read five or six, on the three links of
    /// Fig. 10 that hold entries ahead of the clock at every sample. Sample times must not
    /// decrease. Always inlined into its one caller, the sample (as [`Link::drops_at`]).
    #[inline(always)]
    pub(crate) fn sample_waiting(&mut self, now: u64) -> u32 {
        if now >= self.busy_until {
            // An idle transmitter has finished every entry (see `purge`).
            self.forget_finished();
            (self.sample_unfinished, self.sample_ahead) = (0, 0);
            return 0;
        }
        let len = self.pending.len();
        let finished = self.pending.partition_point_near(len.saturating_sub(self.sample_unfinished), |p| p.end <= now);
        self.pending.drop_front(finished);
        self.pending_done = self.pending_done.saturating_sub(finished);
        let len = self.pending.len();
        self.sample_unfinished = len;
        // Offers are in time order, so what has not arrived by `now` is a suffix of the entries.
        // Most links hold nothing ahead at a sample (only a cut-through link is offered ahead of
        // the clock): the last entry says so without the search.
        let n = if len == 0 || self.pending.get(len - 1).is_some_and(|p| p.offered <= now) {
            len
        } else {
            self.pending.partition_point_near(len.saturating_sub(self.sample_ahead), |p| p.offered <= now)
        };
        self.sample_ahead = len - n;
        // The rest ends after `now` (purged); only the first can be in service (FIFO).
        match self.pending.front() {
            Some(p) if n > 0 && p.start <= now => n as u32 - 1,
            _ => n as u32,
        }
    }

    /// The drop counters (overflow, early, channel) as they stood at the end of instant `now`, the
    /// simulator's clock: overflow drops decided ahead of the clock (see [`Link::offer_at`]) for
    /// instants after `now` are left out, and so are channel losses of attempts that end after
    /// `now` (the channel's fate is drawn at admission, but a packet is lost once serialized, as
    /// [`Link::stats_at`] counts it), and ahead-of-clock drops up to `now` are forgotten. Call
    /// after [`Link::sample_waiting`]`(now)`; sample times must not decrease.
    // Always inlined into its one caller, the sample (issue 42: a call per link per sample once
    // the sample's code grew; +25 instructions a call).
    #[inline(always)]
    pub(crate) fn drops_at(&mut self, now: u64) -> (u64, u64, u64) {
        if self.drops_ahead.is_empty() && self.lost_ends.is_empty() && self.attempts.is_empty() {
            // Nothing decided ahead of the clock, no lost entry still serializing, no ARQ attempt:
            // the counters as they stand (most links at most samples; issue 42).
            let st = &self.stats;
            return (st.overflow_drops, st.early_drops, st.channel_losses);
        }
        while self.drops_ahead.front().is_some_and(|&t| t <= now) {
            self.drops_ahead.pop_front();
        }
        self.purge_attempts(now);
        // Each entry lost for good counted one in `channel_losses` when it was admitted: those
        // still serializing at `now` are taken back out (after the purge every entry ends after
        // `now`, so that is every entry left). The ARQ's failed attempts not yet over are listed.
        debug_assert!(self.pending.front().is_none_or(|p| p.end > now), "drops_at before the purge");
        // The lost entries still serializing at `now`: ends never decrease, so those that end
        // after `now` are what is left once the rest are dropped.
        while self.lost_ends.front().is_some_and(|&t| t <= now) {
            self.lost_ends.pop_front();
        }
        debug_assert_eq!(self.lost_ends.len(), self.pending.iter().filter(|p| p.lost).count());
        let pending_losses = self.lost_ends.len() as u64;
        let attempt_losses = self.attempts.iter().filter(|a| a.end > now && !a.corrupted).count() as u64;
        let st = &self.stats;
        (st.overflow_drops - self.drops_ahead.len() as u64, st.early_drops, st.channel_losses - pending_losses - attempt_losses)
    }

    /// Counters as of `end`: packets admitted but still unserialized at `end` are taken back out
    /// (with link-level retransmission, every attempt that ends after `end`), and so are drops
    /// decided ahead of the clock for instants after `end`.
    ///
    /// `arrived_packets` is left as counted: packets this link cut through to the next link for an
    /// instant after `end` are taken out by the simulator, which knows the next link (see
    /// [`Link::offers_after`]).
    pub(crate) fn stats_at(&self, end: u64) -> LinkStats {
        let mut st = self.stats.clone();
        st.overflow_drops -= self.drops_ahead.iter().filter(|&&t| t > end).count() as u64;
        // A packet offered after `end` (ahead of the clock) ends after it too: it is taken out
        // whole (its serialization starts after `end`).
        for p in self.pending.iter().filter(|p| p.end > end) {
            st.packets_sent -= 1;
            st.bytes_sent -= p.bytes as u64;
            st.busy_ns -= p.end - p.start.max(end);
            if p.lost {
                st.channel_losses -= 1;
                st.lost_packets -= 1;
            }
            if p.corrupted {
                st.corruptions -= 1;
            }
        }
        for a in self.attempts.iter() {
            if a.end > end {
                st.packets_sent -= 1;
                st.bytes_sent -= a.bytes as u64;
                st.busy_ns -= a.end - a.start.max(end);
                if a.corrupted {
                    st.corruptions -= 1;
                } else {
                    st.channel_losses -= 1;
                }
                if a.retransmission {
                    st.link_retransmissions -= 1;
                }
            }
            // The frame's final attempt, a retransmission, not over by `end` (its packet is taken
            // out with its `pending` entry above).
            if a.final_end.is_some_and(|e| e > end) {
                st.link_retransmissions -= 1;
            }
        }
        st
    }

    /// Of the CE marks counted (`ce_marks`, counted when the queue admits a packet), the packets
    /// whose serialization had not started by `end`: still waiting in the queue, or offered ahead
    /// of the clock for a later instant. They were never on the wire by the end, so a capture
    /// (taken at the transmitter, `--pcap`) cannot hold them: its CE-marked frames are
    /// `ce_marks` − this, those the channel then lost included (issue 38).
    pub(crate) fn ce_unsent_at(&self, end: u64) -> u64 {
        self.pending.iter().filter(|p| p.ce && p.start > end).count() as u64
    }

    /// Packets offered to the link by `end` (its queue, or its HSDPA cell's Node-B queues), each
    /// once whatever became of it: the left side of the link's packet conservation identity
    /// (`LinkSummary::held_packets` in `output`). Not a counter of its own (the hot path pays
    /// nothing for it): every offered packet was either admitted, which counted its first
    /// attempt in `packets_sent` (repeats count in `link_retransmissions` too), or dropped by the
    /// queue; offers taken ahead of the clock for instants after `end` are left out.
    pub(crate) fn offered_at(&self, end: u64) -> u64 {
        let st = &self.stats;
        let ahead = self.pending.iter().filter(|p| p.offered > end).count() + self.drops_ahead.iter().filter(|&&t| t > end).count();
        st.packets_sent - st.link_retransmissions + st.overflow_drops + st.early_drops - ahead as u64
    }

    /// Packets inside the link at `end`, the end of the run (after every event up to it), as far
    /// as the link itself knows: offered by `end` and, by `end`, neither through the last attempt
    /// of their serialization (waiting, being serialized, or held between attempts by the ARQ)
    /// nor arrived (propagating). Packets cut through to the next link arrive there without an
    /// entry here: the simulator adds those propagating at `end` (see [`Link::offers_after`]).
    /// For an ordinary link (not an HSDPA cell, whose packets are held by the cell).
    pub(crate) fn held_at(&self, end: u64) -> u64 {
        let serializing = self.pending.iter().filter(|p| p.offered <= end && p.end > end).count();
        // Every arrival up to `end` has been handled, so what is left in flight arrives after it;
        // an entry is pushed at admission, so those still serializing are counted above.
        let propagating = self.in_flight.iter().filter(|f| f.at - self.delay_ns <= end).count();
        (serializing + propagating) as u64
    }

    /// Offers this link took ahead of the clock for instants after `end` (admitted or dropped by
    /// overflow; see [`Link::offer_at`]): `(all, sent_by_end)`, where `sent_by_end` counts those
    /// that had left their feeder's transmitter by `end` — arrival instant minus
    /// `feeder_delay_ns`, the feeder's propagation delay, at most `end` — and were therefore
    /// propagating on the feeder at `end`. Such offers come from the link's one feeder (cut-through):
    /// the feeder counted them as arrived when it cut them through, although they arrive after
    /// `end`.
    pub(crate) fn offers_after(&self, end: u64, feeder_delay_ns: u64) -> (u64, u64) {
        let instants = self.pending.iter().map(|p| p.offered).chain(self.drops_ahead.iter().copied()).filter(|&t| t > end);
        instants.fold((0, 0), |(all, sent), t| (all + 1, sent + (t - feeder_delay_ns <= end) as u64))
    }
}

/// A packet's entries on a link, at most (its pending entry and its in-flight entry), for the
/// memory limit's count of packets (`net::packet::PACKET_BYTES`).
pub(crate) const RING_BYTES_PER_PACKET: u64 = (std::mem::size_of::<PendingTx>() + std::mem::size_of::<InFlight>()) as u64;

/// The largest packet that [`Link::serve`] caches in its slot for small packets: pure ACKs (40
/// bytes, up to 80 with options) go there, data segments in the other.
const SMALL_PACKET_BYTES: u32 = 128;

/// What became of a packet offered to a link with [`Link::offer`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offer {
    /// Dropped by the queue (buffer overflow or an AQM decision).
    Dropped,
    /// Serialized, then lost by the channel; `ce`: the queue had marked it (counted in
    /// [`LinkStats::ce_marks`], and on the wire until the channel lost it).
    Lost { ce: bool },
    /// Reaches the far end at `at_ns`; `ce`: the queue marked it; `corrupted`: the channel damaged
    /// its payload.
    Arrives { at_ns: u64, ce: bool, corrupted: bool },
}

impl Link {
    /// Offers a packet of `bytes` (of which `payload` bytes are transport payload) with ECN field
    /// `ecn` at `now`: purge, admission by the queue (marking), serialization by the capacity
    /// model, the channel's fate, local repair by the link's ARQ when `repairable` (a TCP data
    /// frame, see `net::arq`), propagation — counting each step in the link's stats. The
    /// simulator's per-packet enqueue and the kernel testbed's relay (`crates/airtcp-testbed`)
    /// both run a link through this one function. `now` must not decrease between calls.
    #[inline(always)]
    pub fn offer(&mut self, now: u64, bytes: u32, payload: u32, ecn: Ecn, repairable: bool) -> Offer {
        self.offer_at(now, now, bytes, ecn, || (payload, repairable))
    }

    /// [`Link::offer`] of a packet that reaches the transmitter at `now`, while the simulator's
    /// clock reads `clock` ≤ `now`. The engine offers ahead of the clock where a link is fed by
    /// one upstream link only (cut-through, see `sim`): its offers then still come in time order,
    /// and what it decides depends on nothing else. Readers at the clock ([`Link::sample_waiting`],
    /// [`Link::drops_at`], [`Link::stats_at`]) leave out what lies ahead of it. `now` must not
    /// decrease between calls, nor `clock`.
    ///
    /// `payload_repairable` gives the packet's payload bytes and whether it is repairable: only a
    /// channel that may hit the packet reads them, and of those only a model that reads the
    /// header's size (corruption) or the link's ARQ (issue 42: worked out for every offer, they
    /// were a branch on the packet's kind per hop of a lossless link, and per packet of a
    /// uniform loss).
    #[inline(always)]
    pub(crate) fn offer_at(&mut self, clock: u64, now: u64, bytes: u32, ecn: Ecn, payload_repairable: impl Fn() -> (u32, bool)) -> Offer {
        // The queue at `now`: skip what has finished by then (kept for readers at the clock; what
        // finished by the clock too, until the ring fills, a sample purges it or the link is found
        // idle at the clock). `busy_until` is the end of the last entry and ends never decrease,
        // so an idle transmitter (most hops of a path with one bottleneck) has finished every
        // entry: no walk.
        let q = if clock >= self.busy_until {
            // Idle at the clock too: every entry has finished by the clock, and no reader (at
            // the clock or after it) reads one — forgotten now, as `purge` would, so that the
            // ring holds one entry at a time on a link that is idle at its offers (issue 42).
            self.forget_finished();
            0
        } else if now >= self.busy_until {
            debug_assert!(self.pending.is_empty() || self.pending.get(self.pending.len() - 1).is_some_and(|p| p.end <= now));
            self.pending_done = self.pending.len();
            0
        } else {
            while self.pending.get(self.pending_done).is_some_and(|p| p.end <= now) {
                self.pending_done += 1;
            }
            let n = (self.pending.len() - self.pending_done) as u32;
            match self.pending.get(self.pending_done) {
                Some(p) if p.start <= now => n - 1,
                _ => n,
            }
        };
        if self.plain {
            // DropTail at a constant rate over a perfect channel: the path below for such a link
            // (`droptail::admit`, `serve`'s constant arm, a delivered fate), its three tests
            // taken once (issue 42: two loads and branches per hop fewer).
            if q >= self.queue.limit_pkts {
                return self.overflow(clock, now);
            }
            let (start, end) = self.serve_constant(now, bytes, self.rate);
            self.busy_until = end;
            self.stats.packets_sent += 1;
            self.stats.bytes_sent += bytes as u64;
            self.stats.busy_ns += end - start;
            return self.admitted(clock, now, (start, end), bytes, false, Fate::Delivered);
        }
        match self.queue.admit(now, q, self.busy_until, ecn, &mut self.queue_rng) {
            a @ (Admission::Queued | Admission::QueuedMarked) => {
                let ce = a == Admission::QueuedMarked;
                if ce {
                    self.stats.ce_marks += 1;
                }
                let (start, end) = self.serve(now, bytes);
                self.busy_until = end;
                self.stats.packets_sent += 1;
                self.stats.bytes_sent += bytes as u64;
                self.stats.busy_ns += end - start;
                if self.channel.is_perfect() {
                    // Most links: the fate is known, and the compiler folds it into what follows.
                    return self.admitted(clock, now, (start, end), bytes, ce, Fate::Delivered);
                }
                // The headers' size, for the models that read it and the ARQ: not worked out for
                // a uniform loss without an ARQ (the seeds' wireless hop).
                let hdr = || bytes - payload_repairable().0.min(bytes);
                let (mut fate, mut start, mut end) = (self.channel.fate_with(bytes, hdr, start), start, end);
                if let Some(arq) = self.arq.filter(|_| fate != Fate::Delivered && payload_repairable().1) {
                    (fate, start, end) = self.repair(arq, clock, bytes, hdr(), (start, end), fate);
                }
                self.admitted(clock, now, (start, end), bytes, ce, fate)
            }
            Admission::OverflowDrop => self.overflow(clock, now),
            Admission::EarlyDrop => {
                // Only an AQM drops early, and a link with one runs at the clock (see `sim`).
                debug_assert_eq!(now, clock, "an early drop ahead of the clock");
                self.stats.early_drops += 1;
                Offer::Dropped
            }
        }
    }
}

/// Padding for a link's ring of pending transmissions (`Ring` grows without taking an item).
impl Default for PendingTx {
    fn default() -> Self {
        PendingTx { offered: 0, start: 0, end: 0, bytes: 0, lost: false, corrupted: false, ce: false }
    }
}

#[cfg(test)]
mod tests {
    use super::{Link, Offer};
    use crate::channel::Channel;
    use crate::net::capacity::Capacity;
    use crate::net::queue::{Aqm, Queue};
    use crate::net::Ecn;
    use crate::time::DataRate;

    proptest::proptest! {
        /// The cached serialization times: every packet of a constant-rate link arrives when a
        /// FIFO at that rate, computed here without the cache (⌈bytes·8·10⁹ / rate⌉ after the
        /// later of its offer and the previous packet's end), delivers it, whatever the mix of
        /// sizes (both cache slots, misses and hits).
        #[test]
        fn cached_serialization_times_are_exact(
            bps in 1u64..20_000_000_000,
            offers in proptest::collection::vec((0u64..50_000_000, proptest::sample::select(vec![40u32, 52, 128, 129, 576, 1040, 1500, 9000])), 1..200),
        ) {
            let mut link = Link::new("a->b".into(), 0, 1, Capacity::Constant(DataRate(bps)), 7, Queue::new(u32::MAX, Aqm::DropTail), Channel::PERFECT, None, 1);
            let (mut now, mut busy) = (0u64, 0u64);
            for (gap, bytes) in offers {
                now += gap;
                let end = now.max(busy) + (bytes as u128 * 8_000_000_000).div_ceil(bps as u128) as u64;
                busy = end;
                let got = link.offer(now, bytes, 0, Ecn::NotEct, false);
                proptest::prop_assert_eq!(got, Offer::Arrives { at_ns: end + 7, ce: false, corrupted: false });
            }
        }
    }

    proptest::proptest! {
        /// The plain path (DropTail, constant rate, perfect channel, no ARQ: decided once) is the
        /// general path for such a link: two copies of one link, the second taken off the plain
        /// path (`channel_mut` clears it), given the same offers — at the clock and ahead of it,
        /// ACK- and data-sized, into a queue small enough to overflow — answer the same, count
        /// the same and, read at the clock, wait and drop the same.
        #[test]
        fn the_plain_path_is_the_general_path(
            bps in 100_000u64..100_000_000,
            limit in 1u32..6,
            offers in proptest::collection::vec((0u64..3_000_000, 0u64..2_000_000, proptest::sample::select(vec![40u32, 52, 1040, 1500])), 1..300),
        ) {
            let link = || Link::new("a->b".into(), 0, 1, Capacity::Constant(DataRate(bps)), 1_000_000, Queue::new(limit, Aqm::DropTail), Channel::PERFECT, None, 1);
            let (mut plain, mut general) = (link(), link());
            proptest::prop_assert!(plain.plain);
            general.channel_mut();
            proptest::prop_assert!(!general.plain);
            let (mut clock, mut now) = (0u64, 0u64);
            for (gap, ahead, bytes) in offers {
                clock += gap;
                // Offers never decrease, nor the clock; an offer is at or after the clock.
                now = now.max(clock + ahead);
                let a = plain.offer_at(clock, now, bytes, Ecn::NotEct, || (bytes.saturating_sub(40), true));
                let b = general.offer_at(clock, now, bytes, Ecn::NotEct, || (bytes.saturating_sub(40), true));
                proptest::prop_assert_eq!(a, b);
                proptest::prop_assert_eq!(plain.sample_waiting(clock), general.sample_waiting(clock));
                proptest::prop_assert_eq!(plain.drops_at(clock), general.drops_at(clock));
                proptest::prop_assert_eq!(format!("{:?}", plain.stats_at(clock)), format!("{:?}", general.stats_at(clock)));
            }
        }
    }

    /// A link idle at the clock when offered a packet forgets its finished entries then (else
    /// only when the pending ring is full, and at samples): 10⁴ packets offered at the clock one
    /// every 12 µs to a 1 Gb/s link (12 µs per 1500-B packet: each done by the next offer) leave
    /// one entry in the ring at a time, in its first 8 slots, and every one arrives when a FIFO
    /// at that rate delivers it.
    #[test]
    fn finished_entries_make_room_before_the_ring_grows() {
        let rate = DataRate(1_000_000_000);
        let mut link = Link::new("a->b".into(), 0, 1, Capacity::Constant(rate), 5, Queue::new(4, Aqm::DropTail), Channel::PERFECT, None, 1);
        let tx = rate.tx_time_ns(1500);
        for i in 0..10_000u64 {
            let now = i * 12_000;
            assert_eq!(
                link.offer(now, 1500, 1460, Ecn::NotEct, false),
                Offer::Arrives { at_ns: now + tx + 5, ce: false, corrupted: false }
            );
            assert_eq!(link.pending.len(), 1);
        }
        assert_eq!(link.pending.capacity(), 8);
        // A sample's purge leaves the entries not finished by its instant.
        link.purge(9_999 * 12_000);
        assert_eq!(link.pending.len(), 1);
    }

    /// Offers ahead of the clock (a cut-through link): each packet is done by the next offer's
    /// instant but not by the clock, which trails the offers by 5 ms, so about 6 entries must be
    /// kept. The ring grows to at most twice that (16 slots) instead of purging at every offer,
    /// and holds exactly the entries not finished by the clock; every packet arrives as a FIFO
    /// at the link's rate delivers it.
    #[test]
    fn a_ring_ahead_of_the_clock_holds_at_most_twice_its_entries() {
        let rate = DataRate(1_000_000_000);
        let mut link = Link::new("a->b".into(), 0, 1, Capacity::Constant(rate), 5, Queue::new(4, Aqm::DropTail), Channel::PERFECT, None, 1);
        let tx = rate.tx_time_ns(1500);
        for i in 0..10_000u64 {
            let now = 5_000_000 + i * 1_000_000;
            let clock = now - 5_000_000;
            assert_eq!(
                link.offer_at(clock, now, 1500, Ecn::NotEct, || (1460, false)),
                Offer::Arrives { at_ns: now + tx + 5, ce: false, corrupted: false }
            );
            assert!(link.pending.capacity() <= 16, "offer {i}: {} slots", link.pending.capacity());
        }
        let clock = 5_000_000 + 9_999 * 1_000_000 - 5_000_000;
        link.purge(clock);
        // The offers at the clock, clock + 1 ms, ..., clock + 5 ms end after it: 6 entries.
        assert_eq!(link.pending.len(), 6);
    }

    /// Memory per packet on a link (issue 42 reports it): its pending entry while the queue holds
    /// it or it serializes, its in-flight entry until it arrives. The in-flight entry carries the
    /// packet's place on its route in what was padding.
    #[test]
    fn entries_per_packet_on_a_link() {
        assert_eq!(std::mem::size_of::<super::PendingTx>(), 32);
        assert_eq!(std::mem::size_of::<super::InFlight>(), 24);
        // The memory limit counts a live packet's slot (64 B, one cache line since issue 42 part
        // 4; 152 B before), its free-list place (4 B) and both entries (once `PACKET_BYTES`
        // assumed a 16-B entry, a quarter of what it takes).
        assert_eq!(std::mem::size_of::<crate::net::Packet>(), 64);
        assert_eq!(std::mem::align_of::<crate::net::Packet>(), 64);
        assert_eq!(crate::net::packet::PACKET_BYTES, 64 + 4 + 32 + 24);
    }
}
