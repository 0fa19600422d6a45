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

use super::link::{FailedAttempt, LinkStats, Ring};
use crate::channel::{Channel, Fate};
use crate::net::capacity::Capacity;

/// The retransmission settings of one link direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkArq {
    /// Local retransmissions at most, per frame.
    pub max_retries: u32,
    /// Wait before every local retransmission after the first (snoop's local timer).
    pub timeout_ns: u64,
}

/// Repairs a frame whose first attempt, serialized over `[start, end]`, met `fate`; returns the
/// final fate and the serialization interval of the last attempt. Each failed attempt counts as a
/// channel loss or corruption of the link, each repeat as a link retransmission and a packet sent,
/// all at once; every failed attempt is appended to `failed` (in time order) so that counters read
/// at a time before it ends can take it back out (`Link::stats_at`, `Link::drops_at`).
#[allow(clippy::too_many_arguments)]
pub fn repair(
    arq: LinkArq,
    capacity: &mut Capacity,
    channel: &mut Channel,
    stats: &mut LinkStats,
    failed: &mut Ring<FailedAttempt>,
    delay_ns: u64,
    bytes: u32,
    header_bytes: u32,
    (mut start, mut end): (u64, u64),
    mut fate: Fate,
) -> (Fate, u64, u64) {
    let mut tries = 0;
    // The latest failed attempt, listed once the next one is known (the last also records when
    // the frame's final attempt ends).
    let mut latest: Option<FailedAttempt> = None;
    while fate != Fate::Delivered && tries < arq.max_retries {
        match fate {
            Fate::Lost => stats.channel_losses += 1,
            _ => stats.corruptions += 1,
        }
        if let Some(a) = latest.take() {
            failed.push_back(a);
        }
        latest = Some(FailedAttempt { start, end, bytes, corrupted: fate != Fate::Lost, retransmission: tries > 0, final_end: None });
        let wait = if tries == 0 { (end - start) + 2 * delay_ns } else { arq.timeout_ns };
        let at = end + wait;
        (start, end) = capacity.serve(at, at, bytes);
        stats.link_retransmissions += 1;
        stats.packets_sent += 1;
        stats.bytes_sent += bytes as u64;
        stats.busy_ns += end - start;
        fate = channel.fate(bytes, header_bytes, start);
        tries += 1;
    }
    if let Some(a) = latest {
        failed.push_back(FailedAttempt { final_end: Some(end), ..a });
    }
    (fate, start, end)
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
        let mut st = LinkStats::default();
        let (fate, start, end) = repair(arq, &mut cap, &mut ch, &mut st, &mut Ring::new(), MS, 1000, 40, (0, 4 * MS), Fate::Lost);
        assert_eq!(fate, Fate::Lost);
        assert_eq!((start, end), (946 * MS, 950 * MS));
        assert_eq!((st.link_retransmissions, st.channel_losses, st.packets_sent), (10, 10, 10));
        assert_eq!(st.busy_ns, 10 * 4 * MS);
    }

    /// A lossless channel delivers the first repeat: one retransmission, 6 ms after the loss.
    #[test]
    fn one_repeat_on_a_good_channel() {
        let arq = LinkArq { max_retries: 10, timeout_ns: 100 * MS };
        let mut cap = Capacity::Constant(DataRate(2_000_000));
        let mut ch = channel(0.0);
        let mut st = LinkStats::default();
        let (fate, start, end) = repair(arq, &mut cap, &mut ch, &mut st, &mut Ring::new(), MS, 1000, 40, (0, 4 * MS), Fate::Lost);
        assert_eq!((fate, start, end), (Fate::Delivered, 10 * MS, 14 * MS));
        assert_eq!((st.link_retransmissions, st.channel_losses), (1, 1));
        // A delivered frame is left alone.
        let mut st = LinkStats::default();
        let r = repair(arq, &mut cap, &mut ch, &mut st, &mut Ring::new(), MS, 1000, 40, (0, 4 * MS), Fate::Delivered);
        assert_eq!((r, st.link_retransmissions), ((Fate::Delivered, 0, 4 * MS), 0));
    }
}
