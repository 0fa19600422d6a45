//! A trace capacity's start offset (`start_offset`, `random_start_offset`) against hand-worked
//! delivery times on a three-line trace (`tests/traces/hand-worked.trace`: opportunities at 5, 10
//! and 20 ms, period 20 ms), and its range checks.

use std::path::{Path, PathBuf};

use airtcp::net::{Ecn, Offer};

fn traces_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/traces")
}

/// Two nodes joined by a duplex trace link (the same trace both ways unless `reverse` is given).
fn scenario(capacity_extra: &str, reverse: &str) -> String {
    format!(
        r#"
duration = "1s"
nodes = ["A", "B"]
[[links]]
from = "A"
to = "B"
capacity = {{ kind = "trace", file = "hand-worked.trace"{capacity_extra} }}
{reverse}
delay = "0ms"
[[flows]]
kind = "tcp"
src = "A"
dst = "B"
"#
    )
}

fn parse(text: &str) -> airtcp::Scenario {
    let mut s = airtcp::scenario::parse(text).unwrap();
    s.base_dir = Some(traces_dir());
    s
}

/// When back-to-back 1500-B packets offered at time 0 to each direction finish, ms.
fn departures_ms(text: &str, seed: u64, n: usize) -> Vec<Vec<u64>> {
    let links = airtcp::sim::scenario_links(&parse(text), seed).unwrap();
    links
        .into_iter()
        .map(|mut l| {
            // No propagation delay and no channel: a packet arrives as its serialization ends.
            (0..n)
                .map(|_| match l.offer(0, 1500, 1460, Ecn::NotEct, false) {
                    Offer::Arrives { at_ns, .. } => at_ns / 1_000_000,
                    o => panic!("{o:?}"),
                })
                .collect()
        })
        .collect()
}

fn offset_ms(text: &str, seed: u64) -> Vec<u64> {
    airtcp::sim::scenario_links(&parse(text), seed).unwrap().iter().map(|l| l.trace_offset_ns().expect("a trace") / 1_000_000).collect()
}

#[test]
fn a_start_offset_shifts_the_first_delivery_opportunity_by_hand() {
    // No offset: opportunities at 5, 10, 20, then 25, 30 (the next period).
    assert_eq!(departures_ms(&scenario("", ""), 1, 5)[0], vec![5, 10, 20, 25, 30]);
    // 7 ms in: the next opportunity is the 10-ms one, 3 ms after the start; then 20 (13),
    // 25 (18), 30 (23), 40 (33).
    assert_eq!(departures_ms(&scenario(", start_offset = \"7ms\"", ""), 1, 5)[0], vec![3, 13, 18, 23, 33]);
    // 12 ms in: 20 (8), then wrapping: 25 (13), 30 (18), 40 (28).
    assert_eq!(departures_ms(&scenario(", start_offset = \"12ms\"", ""), 1, 4)[0], vec![8, 13, 18, 28]);
    // On an opportunity: usable at once.
    assert_eq!(departures_ms(&scenario(", start_offset = \"5ms\"", ""), 1, 3)[0], vec![0, 5, 15]);
    // A duplex link without reverse_capacity replays the same trace, from the same offset.
    let both = departures_ms(&scenario(", start_offset = \"7ms\"", ""), 1, 3);
    assert_eq!(both[0], both[1]);
}

#[test]
fn a_random_start_offset_is_whole_ms_per_seed_and_shared_by_both_directions() {
    // The reverse trace is a different recording of period 30 ms (opportunities every 10 ms).
    let text = scenario(
        ", random_start_offset = true",
        "reverse_capacity = { kind = \"trace\", opportunities_ms = [10, 20, 30], random_start_offset = true }",
    );
    let mut seen = std::collections::BTreeSet::new();
    for seed in 1..=40 {
        let o = offset_ms(&text, seed);
        assert!(o[0] < 20, "seed {seed}: {o:?}");
        // The same trace time of the recording, each direction modulo its own period.
        assert_eq!(o[1], o[0] % 30, "seed {seed}: {o:?}");
        assert_eq!(o, offset_ms(&text, seed), "seed {seed}: not deterministic");
        seen.insert(o[0]);
    }
    assert!(seen.len() >= 10, "offsets barely vary over 40 seeds: {seen:?}");
    // The summary reports the offset (whole ms) of each direction that has one.
    let out = airtcp::run(&text, &airtcp::RunOptions { seed: Some(3), base_dir: Some(&traces_dir()), ..Default::default() })
        .map(Option::unwrap)
        .unwrap();
    let o = offset_ms(&text, 3);
    for (l, want) in out.summary.links.iter().zip(&o) {
        assert_eq!(l.trace_offset_s, (*want > 0).then_some(*want as f64 / 1000.0), "{}", l.name);
    }
    // Without an offset nothing is reported.
    let plain = airtcp::run(&scenario("", ""), &airtcp::RunOptions { seed: Some(3), base_dir: Some(&traces_dir()), ..Default::default() })
        .map(Option::unwrap)
        .unwrap();
    assert!(plain.summary.links.iter().all(|l| l.trace_offset_s.is_none()));
}

#[test]
fn bad_offsets_are_one_line_naming_the_field_and_range() {
    let err = |extra: &str| {
        let text = scenario(extra, "");
        match airtcp::scenario::parse(&text) {
            Err(e) => e.to_string(),
            Ok(_) => airtcp::run(&parse(&text), &airtcp::RunOptions { check_only: true, ..Default::default() })
                .map(|_| ())
                .unwrap_err()
                .to_string(),
        }
    };
    for (extra, want) in [
        (
            ", start_offset = \"20ms\"",
            "links[0].capacity.start_offset: 0.02s is out of range (allowed: whole milliseconds from 0ms to 19ms",
        ),
        (", start_offset = \"1500us\"", "links[0].capacity.start_offset: 0.0015s is out of range (allowed: whole milliseconds"),
        (", start_offset = \"1ms\", random_start_offset = true", "links[0].capacity.start_offset: give at most one of"),
        (", start_offset = \"-1ms\"", "links[0].capacity.start_offset"),
    ] {
        let e = err(extra);
        assert!(e.starts_with(want) || e.contains(want), "{extra}: {e}");
        assert!(!e.contains('\n'), "{extra}: {e}");
    }
}
