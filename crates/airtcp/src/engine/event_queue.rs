//! Event queue ordered by (time, the instant the event was scheduled, a tie-break).
//!
//! Ties never compare addresses or depend on the heap's shape, so the run is bit-reproducible.
//! Events due at one nanosecond run in the order of the instants at which they were scheduled;
//! among events scheduled at one instant for one instant, a link's arrival runs first (by link),
//! and every other event in the order it was pushed.
//!
//! Why not a plain insertion counter, as before issue 39: the engine schedules some arrivals
//! ahead of the clock (cut-through, see `sim`), at a moment the event-by-event engine never
//! reaches in the same order, and ties broken by insertion order then depended on *when the
//! engine happened to push* an arrival. A cut-through run ran an ACK's arrival and a
//! retransmission timer due at the same nanosecond in the other order than the event-by-event
//! run (campaign seed 777, run 93423). The key here depends only on what both engines know: the
//! due time, the instant at which the event-by-event engine schedules the event (an arrival
//! pushed ahead gives the instant its packet reaches the link, [`EventQueue::push_from`]), and
//! the event. Only arrivals are pushed ahead, so the insertion order still breaks the ties of the
//! other events: they are pushed by the same events, in the same order, by both engines. Within
//! the event-by-event engine the order is the one an insertion counter gave (scheduling instants
//! never decrease), except where an arrival ties with another event scheduled at the same
//! instant for the same instant.
//!
//! The time-series sample is not in this queue: the engine takes it when no event in the queue
//! is due at or before its instant (`Simulator::next_sample_at`), so that it runs after
//! everything else at its instant and reads the state at the end of that instant, whatever the
//! order in which the instant's events were scheduled.

use crate::time::SimTime;

/// Which per-flow timer fired.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimerKind {
    /// The sender's retransmission timer (RFC 6298).
    Rto,
    /// The receiver's delayed-ACK timer (RFC 1122 4.2.3.2).
    DelayedAck,
    /// The sender's pacing timer: the next paced segment may leave (only for window policies that
    /// pace, see `cc::CongestionControl::pacing_rate`).
    Pacing,
}

/// Everything that can happen. Small and `Copy`, so the heap stores events inline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// The earliest packet in flight on a link reaches its far end.
    Arrive { link: u32 },
    /// A TCP flow's timer (lazily cancelled: the flow checks its own deadline).
    Timer { flow: u32, kind: TimerKind },
    /// A flow's application starts.
    FlowStart { flow: u32 },
    /// A flow's application stops offering new data.
    FlowStop { flow: u32 },
    /// A UDP source's next instant of interest (a send, a rate change, a call or spurt edge).
    AppTick { flow: u32 },
    /// Take one time-series sample. Never in the queue: the engine takes samples between the
    /// queue's events (`Simulator::next_sample_at`); the event names what it runs.
    Sample,
    /// Snapshot counters at the start of the measurement window.
    WarmupEnd,
    /// An HSDPA cell's next 2-ms TTI (scheduled only while the cell has work).
    CellTti { cell: u32 },
}

/// One scheduled event. The key packs (time, scheduling instant) into one integer, time in the
/// high half, so ordering is a single comparison; `tie` breaks the (rare) ties between events
/// scheduled at one instant for one instant (see the module doc).
#[derive(Debug, Clone, Copy)]
struct Entry {
    key: u128,
    tie: u64,
    event: Event,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        (self.key, self.tie) == (o.key, o.tie)
    }
}

impl PartialOrd for Entry {
    #[inline]
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some((self.key, self.tie).cmp(&(o.key, o.tie)))
    }

    /// The order of `partial_cmp`, decided by the due times alone where they differ (nearly
    /// always in the sift loops: the rest of the key and the tie-break are read only for events
    /// due at one nanosecond). Issue 42: the full 192-bit comparison, branch-free, was some 12
    /// instructions per comparison, two or three per event.
    #[inline(always)]
    fn lt(&self, o: &Self) -> bool {
        let (a, b) = (self.time(), o.time());
        if a != b {
            a < b
        } else {
            (self.key, self.tie) < (o.key, o.tie)
        }
    }

    /// See [`Entry::lt`]: the order is total, so `a <= b` is `!(b < a)`.
    #[inline(always)]
    fn le(&self, o: &Self) -> bool {
        !o.lt(self)
    }
}

impl Entry {
    /// Arrivals first, by link (the one arrival of a link in the heap), then every other event
    /// in the order it was pushed (`seq`).
    #[inline]
    fn new(time: SimTime, pushed_at: SimTime, event: Event, seq: u64) -> Self {
        let tie = match event {
            Event::Arrive { link } => link as u64,
            _ => 1 << 63 | seq,
        };
        Entry { key: ((time as u128) << 64) | pushed_at as u128, tie, event }
    }
}

impl Entry {
    #[inline]
    fn time(&self) -> SimTime {
        (self.key >> 64) as SimTime
    }
}

/// A min-heap of events keyed by (time, scheduling instant, tie-break), kept as two heaps: the
/// links' arrivals and every other event (issue 42). An arrival is replaced by its link's next
/// one at every arrival (`EventQueue::replace_arrival`), the engine's commonest operation, and sifts
/// only among the other links' arrivals, not the timers of every flow (20 retransmission timers on
/// a 20-flow dumbbell made that sift four or five levels deep); the earliest event is the earlier
/// of the two tops. Keys are unique and totally ordered, so the events come out in the order of
/// one heap, whichever holds them.
///
/// Hand-written rather than `std::collections::BinaryHeap` because the engine's heaps are small
/// and hot: `BinaryHeap::push` writes the new entry at the end and reads it straight back, a
/// store-to-load forwarding stall that profiling showed as the costliest instruction of the
/// forwarding path. Here the new entry stays in registers while its slot is found ("hole"
/// sifting) and is written once.
#[derive(Debug, Default)]
pub struct EventQueue {
    /// The links' arrivals (`Event::Arrive`): at most one per link.
    arrivals: Heap,
    /// Every other event: timers, application ticks, flows' starts and stops, the warm-up's end,
    /// cells' TTIs.
    others: Heap,
    /// Insertion counter (ties among events other than arrivals, see `Entry::new`).
    next_seq: u64,
    /// The time of the event taken last ([`EventQueue::pop`], [`EventQueue::replace_arrival`]): the
    /// instant at which events pushed now are scheduled.
    clock: SimTime,
}

impl EventQueue {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// Schedules `event` at `time`, scheduled at the time of the event taken last; among events
    /// at the same time it runs after those scheduled at earlier instants.
    #[inline]
    pub fn push(&mut self, time: SimTime, event: Event) {
        let e = Entry::new(time, self.clock, event, self.next_seq);
        self.next_seq += 1;
        self.heap_of(event).insert(e);
    }

    /// [`EventQueue::push`] of a packet's arrival that the event-by-event engine would schedule
    /// only at `from` (when the packet reaches the link, offered ahead of the clock by
    /// cut-through), or now if that is later: the arrival then ties with other events exactly
    /// as it does event by event.
    #[inline]
    pub(crate) fn push_from(&mut self, time: SimTime, from: SimTime, event: Event) {
        let e = Entry::new(time, from.max(self.clock), event, self.next_seq);
        self.next_seq += 1;
        self.heap_of(event).insert(e);
    }

    /// The heap that holds events like `event`.
    #[inline(always)]
    fn heap_of(&mut self, event: Event) -> &mut Heap {
        if let Event::Arrive { .. } = event {
            &mut self.arrivals
        } else {
            &mut self.others
        }
    }

    /// The earliest entry, and whether the arrivals' heap holds it.
    #[inline(always)]
    fn top(&self) -> Option<(Entry, bool)> {
        match (self.arrivals.first(), self.others.first()) {
            (Some(a), Some(o)) => Some(if a < o { (a, true) } else { (o, false) }),
            (Some(a), None) => Some((a, true)),
            (None, Some(o)) => Some((o, false)),
            (None, None) => None,
        }
    }

    /// Removes and returns the earliest event (ties: the first scheduled). For the tests and the
    /// queue's micro-benchmark: the engine's loop pops by kind (`pop_arrival`, `pop_other`). Kept
    /// in every build (only allowed unused without `testing`): left out by a `cfg`, the release
    /// build's codegen units split differently and Fig. 10 at 1% ran 1.2% more instructions.
    #[cfg_attr(not(feature = "testing"), allow(dead_code))]
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        let (top, arrival) = self.top()?;
        if arrival {
            self.arrivals.pop();
        } else {
            self.others.pop();
        }
        self.clock = top.time();
        Some((top.time(), top.event))
    }

    /// The earliest event without removing it.
    #[inline]
    pub(crate) fn peek(&self) -> Option<(SimTime, Event)> {
        self.top().map(|(e, _)| (e.time(), e.event))
    }

    /// [`EventQueue::pop`] where the earliest event is known to be an arrival (the engine's loop
    /// has peeked it): no comparison of the two heaps' tops.
    #[inline]
    pub(crate) fn pop_arrival(&mut self) {
        debug_assert!(self.top().is_some_and(|(_, a)| a), "pop_arrival of another event");
        self.clock = self.arrivals.first().expect("pop_arrival of an empty queue").time();
        self.arrivals.pop();
    }

    /// [`EventQueue::pop`] where the earliest event is known not to be an arrival.
    #[inline]
    pub(crate) fn pop_other(&mut self) {
        debug_assert!(self.top().is_some_and(|(_, a)| !a), "pop_other of an arrival");
        self.clock = self.others.first().expect("pop_other of an empty queue").time();
        self.others.pop();
    }

    /// Replaces the earliest event, known to be an arrival, by another arrival at `time`, no
    /// earlier (`from`: when its packet reached the link), with one sift: a link's next packet
    /// in flight takes the place of the one that arrives.
    #[inline]
    pub(crate) fn replace_arrival(&mut self, time: SimTime, from: SimTime, event: Event) {
        debug_assert!(self.top().is_some_and(|(_, a)| a), "replace_arrival of another event");
        debug_assert!(matches!(event, Event::Arrive { .. }), "replace_arrival by another event");
        self.clock = self.arrivals.first().expect("replace_arrival of an empty queue").time();
        let e = Entry::new(time, from.max(self.clock), event, self.next_seq);
        self.next_seq += 1;
        debug_assert!(self.arrivals.first().is_some_and(|top| top <= e), "replace_arrival earlier than the top");
        self.arrivals.replace_top(e);
    }

    /// Replaces the earliest event by `event` at `time` (not earlier than the one replaced): the
    /// same as [`EventQueue::pop`] then [`EventQueue::push_from`]`(time, from, event)`, one sift
    /// where both are arrivals. The engine's loop, which knows which kind it peeked, calls
    /// [`EventQueue::replace_arrival`]; the tests drive this one with any events.
    #[cfg(test)]
    pub(crate) fn replace_top(&mut self, time: SimTime, from: SimTime, event: Event) {
        let (_, arrival) = self.top().expect("replace_top of an empty queue");
        if arrival && matches!(event, Event::Arrive { .. }) {
            return self.replace_arrival(time, from, event);
        }
        self.pop();
        self.push_from(time, from, event);
    }

    /// Time of the earliest event, if any (the tests' view of the queue; the loop pops).
    #[cfg(test)]
    pub(crate) fn peek_time(&self) -> Option<SimTime> {
        self.top().map(|(e, _)| e.time())
    }

    /// Number of scheduled events (the tests' view of the queue).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.arrivals.0.len() + self.others.0.len()
    }
}

/// One binary min-heap of entries (see [`EventQueue`]).
#[derive(Debug, Default)]
struct Heap(Vec<Entry>);

impl Heap {
    /// The earliest entry.
    #[inline(always)]
    fn first(&self) -> Option<Entry> {
        self.0.first().copied()
    }

    /// The heap's slot `i`, which the sift loops keep below the heap's length (a parent or a
    /// child they compared against it), read without a bounds check; the test profile checks it
    /// (`matches_a_stable_sort` drives every operation).
    #[inline(always)]
    fn slot(&self, i: usize) -> Entry {
        debug_assert!(i < self.0.len(), "heap slot {i} of {}", self.0.len());
        // SAFETY: every caller passes an index below `len()` (see above).
        unsafe { *self.0.get_unchecked(i) }
    }

    /// [`Heap::slot`], to write.
    #[inline(always)]
    fn slot_mut(&mut self, i: usize) -> &mut Entry {
        debug_assert!(i < self.0.len(), "heap slot {i} of {}", self.0.len());
        // SAFETY: every caller passes an index below `len()` (see above).
        unsafe { self.0.get_unchecked_mut(i) }
    }

    /// Adds `e` at the bottom and lets it climb to its place ("hole" sifting: `e` stays in
    /// registers and is written once).
    #[inline]
    fn insert(&mut self, e: Entry) {
        let i = self.0.len();
        self.0.push(e);
        self.sift_up(i, e);
    }

    /// Writes `e` into the hole at `i`, or above it: the hole climbs while its parent is later.
    /// `i < len()` (`insert`: the slot just pushed; `sift_from_root`: a slot it reached).
    #[inline]
    fn sift_up(&mut self, mut i: usize, e: Entry) {
        while i > 0 {
            let parent = (i - 1) / 2;
            let p = self.slot(parent);
            if p <= e {
                break;
            }
            *self.slot_mut(i) = p;
            i = parent;
        }
        *self.slot_mut(i) = e;
    }

    /// Removes the earliest entry (the caller has read it with [`Heap::first`]).
    #[inline]
    fn pop(&mut self) {
        if let Some(last) = self.0.pop() {
            if !self.0.is_empty() {
                self.sift_from_root(last);
            }
        }
    }

    /// Replaces the earliest entry by `e`, no earlier than it. Top-down: the replacement is
    /// usually a link's next arrival, due soon, so it stops near the root (going to a leaf first,
    /// as `pop` does, cost 60% more on a 1 000-flow run).
    #[inline]
    fn replace_top(&mut self, e: Entry) {
        let n = self.0.len();
        let mut i = 0;
        loop {
            let mut c = 2 * i + 1;
            if c >= n {
                break;
            }
            if c + 1 < n && self.slot(c + 1) < self.slot(c) {
                c += 1;
            }
            let child = self.slot(c);
            if e <= child {
                break;
            }
            *self.slot_mut(i) = child;
            i = c;
        }
        *self.slot_mut(i) = e;
    }

    /// Puts `e`, the former last entry, in the root's place (the root is being removed) and
    /// restores the heap order; the heap is not empty (`pop` calls it with the root left).
    /// Bottom-up (as `std`'s `BinaryHeap::pop`): the hole descends along the smaller children to
    /// a leaf — one comparison per level — and `e`, being a leaf's key and so usually late,
    /// climbs back only a level or two.
    #[inline]
    fn sift_from_root(&mut self, e: Entry) {
        let n = self.0.len();
        let mut i = 0;
        let mut c = 1;
        while c + 1 < n {
            if self.slot(c + 1) < self.slot(c) {
                c += 1;
            }
            *self.slot_mut(i) = self.slot(c);
            i = c;
            c = 2 * i + 1;
        }
        if c < n {
            *self.slot_mut(i) = self.slot(c);
            i = c;
        }
        self.sift_up(i, e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_then_insertion_order() {
        let mut q = EventQueue::new();
        q.push(20, Event::Sample);
        q.push(10, Event::FlowStart { flow: 1 });
        q.push(10, Event::FlowStart { flow: 2 });
        q.push(5, Event::WarmupEnd);
        q.push(10, Event::FlowStart { flow: 3 });
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (5, Event::WarmupEnd),
                (10, Event::FlowStart { flow: 1 }),
                (10, Event::FlowStart { flow: 2 }),
                (10, Event::FlowStart { flow: 3 }),
                (20, Event::Sample)
            ]
        );
    }

    /// An event scheduled ahead for an instant `from` ties with the events due at its time as an
    /// event scheduled at `from` would: after those scheduled earlier, before those scheduled
    /// later, and first among those scheduled at `from` (arrivals run first) — whenever it was pushed.
    #[test]
    fn pushed_from_ties_as_if_scheduled_then() {
        let mut q = EventQueue::new();
        q.push(5, Event::WarmupEnd);
        q.push(7, Event::FlowStart { flow: 9 });
        // At clock 0: an arrival the event-by-event engine schedules only at 6.
        q.push_from(20, 6, Event::Arrive { link: 3 });
        q.push(20, Event::Timer { flow: 0, kind: TimerKind::Rto }); // scheduled at 0
        assert_eq!(q.pop(), Some((5, Event::WarmupEnd)));
        q.push(20, Event::AppTick { flow: 1 }); // scheduled at 5
        assert_eq!(q.pop(), Some((7, Event::FlowStart { flow: 9 })));
        q.push(20, Event::Timer { flow: 2, kind: TimerKind::Rto }); // scheduled at 7
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect();
        assert_eq!(
            order,
            vec![
                Event::Timer { flow: 0, kind: TimerKind::Rto },
                Event::AppTick { flow: 1 },
                Event::Arrive { link: 3 },
                Event::Timer { flow: 2, kind: TimerKind::Rto },
            ]
        );
        // Scheduled at one instant for one instant: arrivals first by link, then the others in
        // push order.
        q.push(30, Event::Timer { flow: 1, kind: TimerKind::Rto });
        q.push_from(30, 20, Event::Arrive { link: 8 });
        q.push(30, Event::Arrive { link: 2 });
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect();
        assert_eq!(order, vec![Event::Arrive { link: 2 }, Event::Arrive { link: 8 }, Event::Timer { flow: 1, kind: TimerKind::Rto }]);
    }

    /// `Entry`'s `<` and `<=`, decided by the due times where they differ, agree with its full
    /// comparison (time, scheduling instant, tie-break) on every pair of a set of entries dense
    /// in ties: due times, scheduling instants and sequence numbers of 0..4 (times with high bits
    /// set too), arrivals and other events.
    #[test]
    fn comparisons_agree_with_the_full_order() {
        let mut entries = Vec::new();
        for t in 0..4u64 {
            for at in 0..4 {
                for seq in 0..4 {
                    for arrival in [false, true] {
                        let ev = if arrival { Event::Arrive { link: seq as u32 } } else { Event::Sample };
                        entries.push(Entry::new(t << 62 | t, at, ev, seq));
                    }
                }
            }
        }
        for x in &entries {
            for y in &entries {
                let full = (x.key, x.tie).cmp(&(y.key, y.tie));
                assert_eq!(x < y, full == std::cmp::Ordering::Less, "{x:?} {y:?}");
                assert_eq!(x <= y, full != std::cmp::Ordering::Greater, "{x:?} {y:?}");
            }
        }
    }

    proptest::proptest! {
        /// Against a second implementation: any interleaving of pushes and pops yields events in
        /// the order of a stable sort by time (insertion order breaking ties: events pushed later
        /// are scheduled at the same or a later instant, with a higher insertion count here).
        #[test]
        fn matches_a_stable_sort(ops in proptest::collection::vec((0u64..50, proptest::bool::weighted(0.6)), 0..400)) {
            let mut q = EventQueue::new();
            let mut reference: Vec<(SimTime, u64)> = Vec::new();
            let mut seq = 0u64;
            // As in the engine, nothing is scheduled before the event taken last.
            let mut now = 0;
            for (t, is_push) in ops {
                if !is_push && t % 3 == 0 && !reference.is_empty() {
                    // replace_top = pop + push of an event no earlier than the popped one.
                    let m = reference.iter().copied().min().unwrap();
                    reference.retain(|x| *x != m);
                    let at = m.0 + t;
                    proptest::prop_assert_eq!(q.peek(), Some((m.0, Event::FlowStart { flow: m.1 as u32 })));
                    q.replace_top(at, 0, Event::FlowStart { flow: seq as u32 });
                    now = m.0;
                    reference.push((at, seq));
                    seq += 1;
                } else if is_push {
                    q.push(now + t, Event::FlowStart { flow: seq as u32 });
                    reference.push((now + t, seq));
                    seq += 1;
                } else {
                    let want = reference.iter().copied().min().map(|m| {
                        reference.retain(|x| *x != m);
                        (m.0, Event::FlowStart { flow: m.1 as u32 })
                    });
                    if let Some((t, _)) = want {
                        now = t;
                    }
                    proptest::prop_assert_eq!(q.pop(), want);
                }
                proptest::prop_assert_eq!(q.len(), reference.len());
                proptest::prop_assert_eq!(q.peek_time(), reference.iter().map(|x| x.0).min());
            }
        }

        /// Arrivals and other events, in their two heaps, come out in the one order the module
        /// doc states — by time, then the instant the event was scheduled (an arrival's `from`),
        /// then arrivals by link before the other events in push order — whichever heap holds
        /// them, taken as the engine's loop takes them: peeked, then popped or (an arrival)
        /// replaced by its link's next one through the kind-specific calls.
        #[test]
        fn two_heaps_keep_one_order(ops in proptest::collection::vec((0u8..4, 0u64..30, 0u64..30), 0..300)) {
            // The reference: every pending event with its sort key, the minimum taken by a scan.
            type Key = (SimTime, SimTime, u8, u64);
            let mut q = EventQueue::new();
            let mut reference: Vec<(Key, Event)> = Vec::new();
            let (mut clock, mut seq, mut link) = (0, 0u64, 0u32);
            let take = |reference: &mut Vec<(Key, Event)>| {
                let i = (0..reference.len()).min_by_key(|&i| reference[i].0)?;
                Some(reference.swap_remove(i))
            };
            for (op, dt, back) in ops {
                match op {
                    0 => {
                        let ev = Event::Timer { flow: seq as u32, kind: TimerKind::Rto };
                        q.push(clock + dt, ev);
                        reference.push(((clock + dt, clock, 1, seq), ev));
                        seq += 1;
                    }
                    1 => {
                        // An arrival pushed ahead: due at `clock + dt`, scheduled at `from`.
                        let (ev, from) = (Event::Arrive { link }, (clock + dt).saturating_sub(back));
                        q.push_from(clock + dt, from, ev);
                        reference.push(((clock + dt, from.max(clock), 0, link as u64), ev));
                        (link, seq) = (link + 1, seq + 1);
                    }
                    _ => {
                        let want = take(&mut reference);
                        proptest::prop_assert_eq!(q.peek(), want.map(|((t, ..), e)| (t, e)));
                        let Some(((t, ..), ev)) = want else { continue };
                        clock = t;
                        match ev {
                            Event::Arrive { .. } if op == 3 => {
                                // Replaced by the link's next arrival, no earlier, which reached
                                // the link between the clock and its arrival.
                                let (next, from) = (Event::Arrive { link }, t + dt.saturating_sub(back));
                                q.replace_arrival(t + dt, from, next);
                                reference.push(((t + dt, from.max(t), 0, link as u64), next));
                                (link, seq) = (link + 1, seq + 1);
                            }
                            Event::Arrive { .. } => q.pop_arrival(),
                            _ => q.pop_other(),
                        }
                    }
                }
                proptest::prop_assert_eq!(q.len(), reference.len());
            }
            while let Some(((t, ..), ev)) = take(&mut reference) {
                proptest::prop_assert_eq!(q.pop(), Some((t, ev)));
            }
            proptest::prop_assert_eq!(q.pop(), None);
        }
    }
}
