//! Cut-through (a packet offered to a single-feeder link for the instant it will arrive there,
//! instead of through an arrival event) against the event-by-event engine: the same scenario and
//! seed must give the same summary and the same time series, bit for bit, with and without it.
//! Only the number of events may differ, and it must drop, or the comparison tested nothing.

use airtcp::sim::Simulator;
mod common;
use common::variant;

/// Runs `toml` with seed `seed`, cut-through on (`cut`) or off; returns the run as JSON with the
/// event count taken out, the event count, and the cut-through links.
fn run(toml: &str, seed: u64, cut: bool, base: Option<&std::path::Path>) -> (String, u64, Vec<usize>) {
    let mut scenario = airtcp::scenario::parse(toml).expect("scenario parses");
    scenario.base_dir = base.map(|b| b.to_path_buf());
    let mut sim = Simulator::build(&scenario, seed).expect("scenario builds");
    if !cut {
        sim.disable_cut_through();
    }
    let links = sim.cut_through_links();
    let mut out = sim.run().unwrap();
    let events = out.summary.events;
    out.summary.events = 0;
    (serde_json::to_string(&out).expect("serializes"), events, links)
}

/// Asserts that cut-through changes nothing but the event count, and that it did cut links.
fn assert_same(name: &str, toml: &str, seed: u64, base: Option<&std::path::Path>, expect_cut: &[usize]) {
    let (with, ev_with, links) = run(toml, seed, true, base);
    let (without, ev_without, none) = run(toml, seed, false, base);
    assert_eq!(links, expect_cut, "{name}: links cut through");
    assert!(none.is_empty());
    assert!(ev_with < ev_without, "{name}: {ev_with} events with cut-through, {ev_without} without");
    if with != without {
        // Name the first difference rather than dumping two long documents.
        let at = with.bytes().zip(without.bytes()).position(|(a, b)| a != b).unwrap_or(with.len().min(without.len()));
        let lo = at.saturating_sub(120);
        panic!(
            "{name} seed {seed}: outputs differ at byte {at}:\n  cut:   …{}…\n  event: …{}…",
            &with[lo..(at + 80).min(with.len())],
            &without[lo..(at + 80).min(without.len())]
        );
    }
}

fn examples_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

/// Jersey Fig. 10 (links: 0 S->BS, 1 BS->S, 2 BS->D, 3 D->BS): the wireless hop BS->D and the
/// ACKs' BS->S hop are fed by one link each; S and D originate traffic, so their links are not cut.
#[test]
fn fig10_lossless_and_lossy() {
    let fig10 = include_str!("../../../examples/jersey_fig10.toml");
    for loss in ["0.0", "0.01", "0.05"] {
        let toml = variant(fig10, &[&format!("links.1.channel.loss={loss}")]);
        assert_same(&format!("fig10 loss {loss}"), &toml, 1, None, &[1, 2]);
    }
}

/// A trace-driven downlink (time-varying capacity) behind a single feeder whose 1000-packet
/// server buffer holds a packet for longer than the 100-ms sample interval.
#[test]
fn trace_capacity() {
    let shipped = include_str!("../../../examples/trace_link.toml");
    assert_same("trace_link", shipped, 3, Some(&examples_dir()), &[1, 2]);
    let small = variant(shipped, &["links.0.queue.limit_pkts=50"]);
    assert_same("trace_link, 50-packet buffer", &small, 3, Some(&examples_dir()), &[1, 2]);
}

/// A three-hop chain where both inner hops are cut (one after the other in the same call), the
/// middle one a small overloaded buffer, so drops and losses are decided ahead of the clock and
/// read back by 50-ms samples and at the end of the run; a bursty channel on the last hop, a
/// lossy or corrupting one in the middle.
#[test]
fn chain_with_overload_drops_and_samples() {
    let chain = |middle_channel: &str| {
        format!(
            r#"
name = "chain"
duration = "20s"
warmup = "2s"
sample_interval = "50ms"
nodes = ["S", "R1", "R2", "D"]
[[links]]
from = "S"
to = "R1"
rate = "100Mbps"
delay = "5ms"
queue = {{ kind = "droptail", limit_pkts = 200 }}
[[links]]
from = "R1"
to = "R2"
rate = "3Mbps"
delay = "20ms"
queue = {{ kind = "droptail", limit_pkts = 8 }}
channel = {middle_channel}
[[links]]
from = "R2"
to = "D"
rate = "2Mbps"
delay = "1ms"
queue = {{ kind = "droptail", limit_pkts = 6 }}
channel = {{ kind = "gilbert-elliott", p_stay_good = 0.99, q_stay_bad = 0.9, error_bad = 0.5 }}
[[flows]]
kind = "tcp"
name = "reno"
src = "S"
dst = "D"
min_rto = "200ms"
[[flows]]
kind = "tcp"
name = "westwood"
src = "S"
dst = "D"
cc = "westwood"
start = "1s"
[[flows]]
kind = "cbr"
name = "cbr"
src = "S"
dst = "D"
packet_bytes = 500
rate = "1Mbps"
start = "3s"
stop = "15s"
# An overload to the end: drops are decided ahead of the clock past the end of the run.
[[flows]]
kind = "cbr"
name = "burst"
src = "S"
dst = "D"
packet_bytes = 1000
rate = "5Mbps"
start = "19.5s"
"#
        )
    };
    // Links: 0 S->R1, 1 R1->S, 2 R1->R2, 3 R2->R1, 4 R2->D, 5 D->R2. Cut: R1->S (fed by R2->R1),
    // R1->R2 (by S->R1), R2->R1 (by D->R2), R2->D (by R1->R2).
    for seed in [1, 2, 3] {
        assert_same("chain, lossy", &chain(r#"{ kind = "uniform", loss = 0.02 }"#), seed, None, &[1, 2, 3, 4]);
    }
    assert_same("chain, corrupting", &chain(r#"{ kind = "uniform", error_rate = 0.02, effect = "corruption" }"#), 4, None, &[1, 2, 3, 4]);
}

/// Links that must run at the clock are not cut: an AQM queue (its average evolves with time and
/// is sampled), a node that originates traffic, a link fed by two upstream links.
#[test]
fn ineligible_links_are_not_cut() {
    let fig10 = include_str!("../../../examples/jersey_fig10.toml");
    let cw = variant(fig10, &["links.1.queue.kind=cw"]);
    // Only the ACKs' BS->S hop remains.
    assert_same("fig10 with a CW router", &cw, 1, None, &[1]);
    // A second flow that starts at BS makes BS an origin: nothing is cut.
    let origin = format!("{fig10}\n[[flows]]\nkind = \"tcp\"\nname = \"local\"\nsrc = \"BS\"\ndst = \"D\"\n");
    assert_eq!(run(&origin, 1, true, None).2, Vec::<usize>::new());
    // Two senders behind one router: the bottleneck R->D has two feeders; the ACK hops R->S1 and
    // R->S2 have one each (D->R).
    let two = r#"
duration = "5s"
nodes = ["S1", "S2", "R", "D"]
[[links]]
from = "S1"
to = "R"
rate = "10Mbps"
delay = "5ms"
[[links]]
from = "S2"
to = "R"
rate = "10Mbps"
delay = "7ms"
[[links]]
from = "R"
to = "D"
rate = "2Mbps"
delay = "1ms"
[[flows]]
kind = "tcp"
name = "a"
src = "S1"
dst = "D"
[[flows]]
kind = "tcp"
name = "b"
src = "S2"
dst = "D"
"#;
    // Links: 0 S1->R, 1 R->S1, 2 S2->R, 3 R->S2, 4 R->D, 5 D->R.
    assert_same("two feeders", two, 1, None, &[1, 3]);
}

/// A sample and a packet's arrival at a cut link's near node at the same nanosecond. With 1-ms
/// samples on Fig. 10 such ties occur (arrivals fall on whole milliseconds), and BS->D's feeder
/// S->BS holds a packet for up to 89 ms, so event by event the arrival's event can have been
/// scheduled before the sample's or after it. Samples run last at their instant
/// (`EventQueue::push_last`), so the arrival counts at that sample either way, as it does cut
/// through. (Before that rule, cutting BS->D made its sampled queue length differ by one packet
/// at such ties.)
#[test]
fn long_feeders_at_fine_samples() {
    let fig10 = include_str!("../../../examples/jersey_fig10.toml");
    for seed in [1, 2] {
        for interval in ["1ms", "50ms"] {
            let toml = variant(fig10, &["duration=30s", &format!("sample_interval={interval}")]);
            assert_same(&format!("fig10, {interval} samples"), &toml, seed, None, &[1, 2]);
        }
    }
}

/// A loss-differentiating flow (CAIAD) whose segments wait longer upstream than its 3-ms RTO:
/// timeouts fire while a copy of the segment they judge is still on its way to the cut-through
/// link R->D that will drop it. Cut through, that drop is decided (and used to be noted) when the
/// copy leaves S, ahead of the clock; a verdict is scored against the drops before its instant
/// only, so both engines score it as not (yet) dropped. (Before, cut-through scored 224 timeouts
/// as queue drops where the event-by-event engine scored 88; found by the invariant campaign.)
#[test]
fn loss_verdicts_ignore_drops_decided_ahead_of_the_clock() {
    let toml = r#"
duration = "1s"
nodes = ["S", "R", "D"]
[[links]]
from = "S"
to = "R"
rate = "2Mbps"
delay = "1ms"
queue = { kind = "droptail", limit_pkts = 100 }
[[links]]
from = "R"
to = "D"
rate = "1Mbps"
delay = "1ms"
queue = { kind = "droptail", limit_pkts = 1 }
[[flows]]
kind = "tcp"
src = "S"
dst = "D"
cc = "caiad"
bytes = "20000B"
initial_cwnd_pkts = 10
initial_rto = "3ms"
min_rto = "3ms"
max_rto = "3ms"
"#;
    // Links: 0 S->R, 1 R->S, 2 R->D, 3 D->R.
    assert_same("spurious timeouts before a cut-through drop", toml, 1, None, &[1, 2]);
    let out = airtcp::run_toml(toml, Some(1)).unwrap();
    let ld = out.summary.flows[0].loss_differentiation.unwrap();
    assert_eq!((ld.queue_drops_as_congestion, ld.undropped_as_congestion), (88, 241));
}
