//! TCP-aware link-level retransmission (TLLR): the base station repairs the wireless hop's losses
//! of TCP data segments itself, a bounded number of times, before TCP's end-to-end recovery sees
//! them.
//!
//! TCP Prairie thesis §2.3 compares "New-Reno with TCP-aware link level retransmission (TLLR)
//! (e.g., snoop protocol \[26\])" with the end-to-end variants; it gives no parameters. Our model is
//! the smallest one that keeps snoop's two delays, taken from ns-2's snoop (`snoop.h`), which the
//! thesis ran:
//! - the first local retransmission happens when the loss is detected, which snoop does on the
//!   first duplicate ACK: one frame time (the next frame reaches the receiver) plus the link's
//!   round trip (its duplicate ACK comes back), i.e. `tx + 2·delay` after the lost frame ended;
//! - every later one waits for snoop's local timer, whose floor is `SNOOP_MIN_TIMO` = 100 ms in
//!   ns-2.35 (`link_retransmission_timeout`);
//! - at most `SNOOP_MAX_RXMIT` = 10 local retransmissions (`link_retransmission_max`), then the
//!   loss is left to TCP.
//!
//! Simplification (recorded in docs/scenario.md): the transmitter holds the frame and sends
//! nothing else until it is through (stop-and-wait on a loss), so frames stay in order; snoop
//! instead lets later frames pass and suppresses the receiver's duplicate ACKs. For one flow whose
//! window is stalled by the hole anyway the two cost about the same; flows sharing the hop wait
//! behind the repair here and would not with snoop. Only TCP data segments are repaired (snoop
//! caches data, not ACKs or UDP); corrupted frames are repaired like lost ones (snoop learns of
//! both from the receiver's duplicate ACKs).

use crate::channel::{Channel, Fate};
use crate::net::capacity::Capacity;

/// The retransmission settings of one link direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LinkArq {
    /// Local retransmissions at most, per frame.
    pub max_retries: u32,
    /// Wait before every local retransmission after the first (snoop's local timer).
    pub timeout_ns: u64,
}

/// A failed serialization attempt of a frame repaired by the link's ARQ: it counted one packet
/// sent, its bytes and busy time, one channel loss or corruption and, unless it was the frame's
/// first attempt, one link retransmission. The frame's last failed attempt also stands for its
/// final attempt's link retransmission (that attempt is the frame's `pending` entry).
#[derive(Debug, Clone, Copy)]
pub(crate) struct FailedAttempt {
    /// Its serialization interval, ns.
    pub start: u64,
    pub end: u64,
    /// The frame's size on the wire.
    pub bytes: u32,
    /// Corrupted (counted in `corruptions`), else lost (`channel_losses`).
    pub corrupted: bool,
    /// A retransmission (not the frame's first attempt).
    pub retransmission: bool,
    /// On the frame's last failed attempt: when the frame's final attempt (a retransmission)
    /// ends. `None` on the others.
    pub final_end: Option<u64>,
}

/// What a repair adds to its link's counters: each failed attempt one channel loss or corruption,
/// each repeat one link retransmission and one packet of the frame's size sent, with its busy
/// time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ArqTally {
    pub channel_losses: u64,
    pub corruptions: u64,
    pub retransmissions: u64,
    pub busy_ns: u64,
}

/// Repairs a frame whose first attempt, serialized over `[start, end]`, met `fate`; returns the
/// final fate, the serialization interval of the last attempt and what the link counts for it
/// ([`ArqTally`], all at once); every failed attempt is handed to `failed` (in time order) so that
/// counters read at a time before it ends can take it back out (`Link::stats_at`,
/// `Link::drops_at`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn repair(
    arq: LinkArq,
    capacity: &mut Capacity,
    channel: &mut Channel,
    failed: &mut dyn FnMut(FailedAttempt),
    delay_ns: u64,
    bytes: u32,
    header_bytes: u32,
    (mut start, mut end): (u64, u64),
    mut fate: Fate,
) -> (Fate, u64, u64, ArqTally) {
    let mut tries = 0;
    let mut tally = ArqTally::default();
    // The latest failed attempt, listed once the next one is known (the last also records when
    // the frame's final attempt ends).
    let mut latest: Option<FailedAttempt> = None;
    while fate != Fate::Delivered && tries < arq.max_retries {
        match fate {
            Fate::Lost => tally.channel_losses += 1,
            _ => tally.corruptions += 1,
        }
        if let Some(a) = latest.take() {
            failed(a);
        }
        latest = Some(FailedAttempt { start, end, bytes, corrupted: fate != Fate::Lost, retransmission: tries > 0, final_end: None });
        let wait = if tries == 0 { (end - start) + 2 * delay_ns } else { arq.timeout_ns };
        let at = end + wait;
        (start, end) = capacity.serve(at, at, bytes);
        tally.retransmissions += 1;
        tally.busy_ns += end - start;
        fate = channel.fate(bytes, header_bytes, start);
        tries += 1;
    }
    if let Some(a) = latest {
        failed(FailedAttempt { final_end: Some(end), ..a });
    }
    (fate, start, end, tally)
}

/// Padding for a link's ring of attempts (`Ring` grows without taking an item).
impl Default for FailedAttempt {
    fn default() -> Self {
        FailedAttempt { start: 0, end: 0, bytes: 0, corrupted: false, retransmission: false, final_end: None }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::channel::{ChannelParams, Effect, ModelParams};
    use crate::time::DataRate;

    const MS: u64 = 1_000_000;

    fn channel(loss: f64) -> Channel {
        Channel::new(&ChannelParams { model: ModelParams::Uniform { loss }, effect: Effect::Loss }, 1, "test")
    }

    /// A channel that loses every frame: 1 + 10 attempts, then the frame is lost for good. At
    /// 2 Mb/s a 1000-B frame takes 4 ms; with 1 ms of delay the first retry starts 4 + 2 ms after
    /// the first attempt ends, each later one 100 ms after the previous ended:
    /// end = 4 + (6 + 4) + 9·(100 + 4) = 950 ms.
    #[test]
    fn bounded_retries_with_snoops_two_delays() {
        let arq = LinkArq { max_retries: 10, timeout_ns: 100 * MS };
        let mut cap = Capacity::Constant(DataRate(2_000_000));
        let mut ch = channel(1.0);
        let mut failed = Vec::new();
        let (fate, start, end, st) = repair(arq, &mut cap, &mut ch, &mut |a| failed.push(a), MS, 1000, 40, (0, 4 * MS), Fate::Lost);
        assert_eq!(fate, Fate::Lost);
        assert_eq!((start, end), (946 * MS, 950 * MS));
        assert_eq!((st.retransmissions, st.channel_losses), (10, 10));
        assert_eq!(st.busy_ns, 10 * 4 * MS);
        // Every failed attempt is handed on, the last with the end of the frame's final attempt.
        assert_eq!(failed.len(), 10);
        assert_eq!(failed.iter().filter(|a| a.final_end.is_some()).count(), 1);
        assert_eq!(failed.last().and_then(|a| a.final_end), Some(950 * MS));
    }

    /// A lossless channel delivers the first repeat: one retransmission, 6 ms after the loss.
    #[test]
    fn one_repeat_on_a_good_channel() {
        let arq = LinkArq { max_retries: 10, timeout_ns: 100 * MS };
        let mut cap = Capacity::Constant(DataRate(2_000_000));
        let mut ch = channel(0.0);
        let (fate, start, end, st) = repair(arq, &mut cap, &mut ch, &mut |_| {}, MS, 1000, 40, (0, 4 * MS), Fate::Lost);
        assert_eq!((fate, start, end), (Fate::Delivered, 10 * MS, 14 * MS));
        assert_eq!((st.retransmissions, st.channel_losses), (1, 1));
        // A delivered frame is left alone.
        let r = repair(arq, &mut cap, &mut ch, &mut |_| {}, MS, 1000, 40, (0, 4 * MS), Fate::Delivered);
        assert_eq!(r, (Fate::Delivered, 0, 4 * MS, ArqTally::default()));
    }
}
