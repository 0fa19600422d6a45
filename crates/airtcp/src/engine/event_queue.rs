//! Event queue ordered by (time, insertion sequence).
//!
//! Ties are broken by insertion order, never by comparing payloads or addresses, so two events at
//! the same nanosecond always run in the order they were scheduled: the run is bit-reproducible.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::time::SimTime;

/// Which per-flow timer fired.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimerKind {
    /// The sender's retransmission timer (RFC 6298).
    Rto,
    /// The receiver's delayed-ACK timer (RFC 1122 4.2.3.2).
    DelayedAck,
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
    /// Take one time-series sample.
    Sample,
    /// Snapshot counters at the start of the measurement window.
    WarmupEnd,
    /// An HSDPA cell's next 2-ms TTI (scheduled only while the cell has work).
    CellTti { cell: u32 },
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    time: SimTime,
    seq: u64,
    event: Event,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.seq == other.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    /// Reversed so that `BinaryHeap` (a max-heap) pops the earliest (time, seq) first.
    fn cmp(&self, other: &Self) -> Ordering {
        other.time.cmp(&self.time).then_with(|| other.seq.cmp(&self.seq))
    }
}

/// A min-priority queue of events keyed by (time, insertion order).
#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    next_seq: u64,
}

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }

    /// Schedules `event` at absolute time `time`.
    #[inline]
    pub fn push(&mut self, time: SimTime, event: Event) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry { time, seq, event });
    }

    /// Removes and returns the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        self.heap.pop().map(|e| (e.time, e.event))
    }

    /// Time of the earliest event, if any.
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|e| e.time)
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
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
}
