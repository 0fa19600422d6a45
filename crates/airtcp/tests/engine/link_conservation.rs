//! Per-link packet conservation (issue 25 part 8): every one-way link of the summary satisfies
//! offered = arrived + overflow drops + early drops + lost for good + held at the end, where
//! "held" is read from the link's state at the end (`LinkSummary::held_packets`); and the link
//! counters read at a time (the summary at the end, the series' samples) count a packet sent or
//! lost once its serialization has ended, link-level retransmissions included. The random
//! campaign (the `airtcp-testkit` crate) checks the same on 10³ scenarios; these are
//! the cases worked by hand.

use crate::common::variant;
use airtcp::{LinkSummary, RunOutput};

fn identity(l: &LinkSummary) -> bool {
    l.offered_packets == l.arrived_packets + l.overflow_drops + l.early_drops + l.lost_packets + l.held_packets
}

fn run(toml: &str) -> RunOutput {
    airtcp::run(toml, &airtcp::RunOptions::default()).map(Option::unwrap).expect("scenario runs")
}

/// One TCP segment (1040 B on the wire, 4.16 ms at 2 Mb/s) over a link that loses every frame and
/// repairs it (`link_retransmission`, at most 10 repeats, 100-ms timer, 1-ms delay): attempts end
/// at 4.16 ms, then 14.48 ms (the first repeat starts 4.16 + 2·1 ms after), then every
/// 104.16 ms. By the end at 120 ms three attempts are over: 3 packets sent, 3 channel losses, 2
/// link retransmissions, 12.48 ms busy, and the frame is still held by the link. (Before, the
/// summary counted all 11 attempts at the frame's admission, of which it took back the last one
/// only: 10 sent, 10 retransmissions, a utilization of 0.35 for 0.10; a saturated link read
/// utilizations above 1. Found by the invariant campaign.) The series' last sample, at the end,
/// reads the same 3 losses.
#[test]
fn link_retransmission_counts_only_attempts_over_by_the_end() {
    let toml = r#"
duration = "120ms"
sample_interval = "40ms"
nodes = ["S", "D"]
[[links]]
from = "S"
to = "D"
rate = "2Mbps"
delay = "1ms"
channel = { kind = "uniform", loss = 1.0 }
link_retransmission = true
[[flows]]
kind = "tcp"
src = "S"
dst = "D"
bytes = "1000B"
"#;
    let out = run(toml);
    let l = &out.summary.links[0];
    assert_eq!((l.packets_sent, l.bytes_sent, l.channel_losses, l.link_retransmissions), (3, 3 * 1040, 3, 2));
    assert!((l.utilization - 3.0 * 4.16 / 120.0).abs() < 1e-12, "{}", l.utilization);
    assert_eq!((l.offered_packets, l.arrived_packets, l.lost_packets, l.held_packets), (1, 0, 0, 1));
    assert!(identity(l));
    let ls = &out.link_series;
    let drops: Vec<u64> = (0..ls.rows()).filter(|&i| ls.link(i) == 0).map(|i| ls.drops[i]).collect();
    // Samples at 0, 40, 80 and 120 ms: two attempts over by 40 and 80 ms, three by 120 ms.
    assert_eq!(drops, [0, 2, 2, 3]);
}

/// Without link retransmission: four segments sent at once over a link that loses everything;
/// each is lost as its serialization ends (4.16, 8.32, 12.48, 16.64 ms), and the series counts
/// the losses then, not when the channel's fate is drawn at admission (before, the sample at
/// 5 ms read 4 losses while the summary at the end read the finished ones only, 2 at 10 ms).
#[test]
fn channel_losses_count_when_serialization_ends() {
    let toml = r#"
duration = "10ms"
sample_interval = "5ms"
nodes = ["S", "D"]
[[links]]
from = "S"
to = "D"
rate = "2Mbps"
delay = "1ms"
channel = { kind = "uniform", loss = 1.0 }
[[flows]]
kind = "tcp"
src = "S"
dst = "D"
initial_cwnd_pkts = 4
"#;
    let out = run(toml);
    let ls = &out.link_series;
    let drops: Vec<u64> = (0..ls.rows()).filter(|&i| ls.link(i) == 0).map(|i| ls.drops[i]).collect();
    assert_eq!(drops, [0, 1, 2]);
    let l = &out.summary.links[0];
    assert_eq!((l.channel_losses, l.lost_packets, l.held_packets, l.offered_packets), (2, 2, 2, 4));
    assert!(identity(l));
}

/// The identity on every link of scenarios that end with packets everywhere: queued, being
/// serialized, propagating, cut through to the next link for an instant after the end (Fig. 10's
/// BS->D and BS->S, see `sim`), repaired by a link's ARQ, and held by an HSDPA cell. Every
/// duration ends mid-flight, and each link must have moved packets.
#[test]
fn every_link_conserves_packets_at_any_end() {
    let fig10 = include_str!("../../../../examples/jersey_fig10.toml");
    let hsdpa = include_str!("../../../../experiments/hsdpa/cell9.toml");
    for (name, base, arq) in [("fig10", fig10, false), ("fig10 + ARQ", fig10, true), ("hsdpa", hsdpa, false)] {
        for duration in ["1234567us", "3s", "7777777us"] {
            let duration = format!("duration={duration}");
            let mut sets = vec![duration.as_str(), "warmup=0s"];
            if arq {
                sets.push("links.1.link_retransmission=true");
            }
            let out = run(&variant(base, &sets));
            for l in &out.summary.links {
                assert!(identity(l), "{name}, {duration}: {l:?}");
                assert!(l.offered_packets > 0, "{name}, {duration}: {} idle", l.name);
            }
            assert!(out.summary.links.iter().any(|l| l.held_packets > 0), "{name}, {duration}");
        }
    }
}
