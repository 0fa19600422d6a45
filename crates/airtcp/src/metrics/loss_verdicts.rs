//! Scoring a loss-differentiating window policy (the TCP-Jersey family, CAIAD) against the truth:
//! every verdict it gives on a loss signal ("congestion" or "link error") is set beside why the
//! network really dropped that segment, into [`LossDifferentiation`]'s six counts.

use std::collections::HashMap;

use crate::output::LossDifferentiation;
use crate::time::SimTime;

/// Why the network dropped a data segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DropCause {
    /// A queue overflowed or its AQM dropped it: congestion.
    Queue,
    /// The channel lost it: a link error.
    Channel,
}

/// One flow's noted drops and its scored verdicts.
#[derive(Debug, Default)]
pub(crate) struct LossVerdicts {
    /// Why and when each data segment (by first byte) was dropped, until a verdict on it is scored.
    drops: HashMap<u64, Vec<(SimTime, DropCause)>>,
    /// The verdicts scored so far.
    pub scored: LossDifferentiation,
}

impl LossVerdicts {
    /// The network dropped the data segment starting at `seq` at instant `at` (ahead of the clock
    /// on a cut-through link).
    pub(crate) fn note_drop(&mut self, seq: u64, cause: DropCause, at: SimTime) {
        self.drops.entry(seq).or_default().push((at, cause));
    }

    /// The policy's verdict at `now` on the segment starting at `seq`: `congestion` or not, scored
    /// against the cause of its latest drop before `now` (see `take_drop_cause`).
    pub(crate) fn score(&mut self, seq: u64, congestion: bool, now: SimTime) {
        let cause = take_drop_cause(&mut self.drops, seq, now);
        let d = &mut self.scored;
        let slot = match (cause, congestion) {
            (Some(DropCause::Queue), true) => &mut d.queue_drops_as_congestion,
            (Some(DropCause::Queue), false) => &mut d.queue_drops_as_link_error,
            (Some(DropCause::Channel), true) => &mut d.channel_losses_as_congestion,
            (Some(DropCause::Channel), false) => &mut d.channel_losses_as_link_error,
            (None, true) => &mut d.undropped_as_congestion,
            (None, false) => &mut d.undropped_as_link_error,
        };
        *slot += 1;
    }
}

/// For a loss verdict at `now` on segment `seq`: the cause of its latest drop before `now`
/// (`None`: it had not been dropped), forgetting that drop and any earlier one.
///
/// Only drops at instants before `now` count, and later ones are kept for a later verdict, so the
/// answer is the same whether a drop was noted at its instant (event by event) or earlier
/// (cut-through, see `Simulator::enqueue`), and does not depend on the order of the events of one
/// instant. Before, the cause was noted when the drop was decided and looked up by segment alone:
/// a timeout while the segment still waited upstream of a cut-through link that would drop it
/// found the drop already there (found by the invariant campaign, the `airtcp-testkit` crate).
fn take_drop_cause(m: &mut HashMap<u64, Vec<(SimTime, DropCause)>>, seq: u64, now: SimTime) -> Option<DropCause> {
    let drops = m.get_mut(&seq)?;
    // The last noted among the latest instants: the order in which one instant's drops happened.
    let cause = drops.iter().filter(|d| d.0 < now).fold(None, |best: Option<(SimTime, DropCause)>, &d| match best {
        Some(b) if b.0 > d.0 => Some(b),
        _ => Some(d),
    });
    drops.retain(|d| d.0 >= now);
    if drops.is_empty() {
        m.remove(&seq);
    }
    cause.map(|c| c.1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A segment dropped by a queue at 5, lost on the channel at 8 (its retransmission), then a
    /// verdict at 8: only drops before the verdict's instant count, so the queue drop is the cause;
    /// the channel loss at 8 is kept for the next verdict, and a third verdict finds nothing.
    #[test]
    fn verdicts_take_the_latest_earlier_drop() {
        let mut v = LossVerdicts::default();
        v.note_drop(1000, DropCause::Queue, 5);
        v.note_drop(1000, DropCause::Channel, 8);
        v.score(1000, true, 8);
        v.score(1000, true, 9);
        v.score(1000, false, 10);
        v.score(2000, false, 10);
        let d = v.scored;
        assert_eq!((d.queue_drops_as_congestion, d.channel_losses_as_congestion), (1, 1));
        assert_eq!((d.undropped_as_link_error, d.queue_drops_as_link_error, d.channel_losses_as_link_error), (2, 0, 0));
        assert!(v.drops.is_empty());
    }
}
