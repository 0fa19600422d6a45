//! Cut-through (a packet offered to a single-feeder link for the instant it will arrive there,
//! instead of through an arrival event) against the event-by-event engine: the same scenario and
//! seed must give the same summary and the same time series, bit for bit, with and without it.
//! Only the number of events may differ, and it must drop, or the comparison tested nothing.

use crate::common::variant;
use airtcp::sim::Simulator;

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
    let fig10 = include_str!("../../../../examples/jersey_fig10.toml");
    for loss in ["0.0", "0.01", "0.05"] {
        let toml = variant(fig10, &[&format!("links.1.channel.loss={loss}")]);
        assert_same(&format!("fig10 loss {loss}"), &toml, 1, None, &[1, 2]);
    }
}

/// A trace-driven downlink (time-varying capacity) behind a single feeder whose 1000-packet
/// server buffer holds a packet for longer than the 100-ms sample interval.
#[test]
fn trace_capacity() {
    let shipped = include_str!("../../../../examples/trace_link.toml");
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
    let fig10 = include_str!("../../../../examples/jersey_fig10.toml");
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

/// The flows whose receiver is built to take its data segments ahead of the clock.
fn receivers_ahead(toml: &str) -> Vec<usize> {
    Simulator::build(&airtcp::scenario::parse(toml).expect("scenario parses"), 1).expect("scenario builds").receivers_ahead()
}

/// Receiver cut-through (issue 42): a receiver takes its data segments ahead of the clock only
/// where that is exact (`sim::cut_through::receivers_ahead`), and the run is then the
/// event-by-event run bit for bit with half the events. Fig. 10's receiver qualifies: it ACKs
/// every segment, and D->BS carries its ACKs alone, all fed by BS->D.
#[test]
fn receivers_taken_ahead_of_the_clock() {
    let fig10 = include_str!("../../../../examples/jersey_fig10.toml");
    assert_eq!(receivers_ahead(fig10), vec![0]);
    let (with, ev_with, _) = run(fig10, 1, true, None);
    let (without, ev_without, _) = run(fig10, 1, false, None);
    assert_eq!(with, without);
    // Event by event a segment and its ACK take four arrival events, one per hop; with the
    // links and the receiver cut through, one: the ACK's arrival at S.
    assert!(ev_with * 3 < ev_without, "{ev_with} events with cut-through, {ev_without} without");
    // A receiver that delays its ACKs acts on a timer at the clock.
    let delayed = variant(fig10, &["flows.0.delayed_ack=true"]);
    assert_eq!(receivers_ahead(&delayed), Vec::<usize>::new());
    assert_same("fig10, delayed ACKs", &delayed, 1, None, &[1, 2]);
    // A sender at D offers its data to D->BS at the clock.
    let back = format!("{fig10}\n[[flows]]\nkind = \"tcp\"\nname = \"back\"\nsrc = \"D\"\ndst = \"S\"\n");
    assert_eq!(receivers_ahead(&back), Vec::<usize>::new());
    // A second receiver at D that delays ACKs sends on D->BS at the clock too: neither is ahead.
    let two = format!("{fig10}\n[[flows]]\nkind = \"tcp\"\nname = \"late\"\nsrc = \"S\"\ndst = \"D\"\ndelayed_ack = true\n");
    assert_eq!(receivers_ahead(&two), Vec::<usize>::new());
    // Two receivers at D that both ACK every segment: both ahead, exactly.
    let both = format!("{fig10}\n[[flows]]\nkind = \"tcp\"\nname = \"second\"\nsrc = \"S\"\ndst = \"D\"\nstart = \"3s\"\n");
    assert_eq!(receivers_ahead(&both), vec![0, 1]);
    assert_same("fig10, two receivers ahead", &both, 2, None, &[1, 2]);
    // An AQM on the ACK link (the duplex BS-D's queue is both directions') may decide by time,
    // not only by its offers.
    let cw = variant(fig10, &["links.1.queue.kind=cw"]);
    assert_eq!(receivers_ahead(&cw), Vec::<usize>::new());
    // CAIAD's receiver reads corrupted segments and may answer them at the clock.
    let caiad = variant(fig10, &["flows.0.cc=caiad"]);
    assert_eq!(receivers_ahead(&caiad), Vec::<usize>::new());
}

/// Receivers at one node fed by two different links: their ACKs would reach the shared ACK link
/// out of time order (each link's arrivals are ordered, the two links' are not), so neither is
/// taken ahead. Receivers fed by one link share their ACK link ahead of the clock.
#[test]
fn receivers_fed_by_two_links_stay_at_the_clock() {
    // Data straight from S1 and from S2 into D; every ACK leaves D on D->R.
    let two_feeds = r#"
duration = "5s"
sample_interval = "10ms"
nodes = ["S1", "S2", "R", "D"]
[[links]]
from = "S1"
to = "D"
rate = "2Mbps"
delay = "5ms"
duplex = false
[[links]]
from = "S2"
to = "D"
rate = "3Mbps"
delay = "7ms"
duplex = false
[[links]]
from = "D"
to = "R"
rate = "1Mbps"
delay = "1ms"
duplex = false
queue = { kind = "droptail", limit_pkts = 10 }
[[links]]
from = "R"
to = "S1"
rate = "10Mbps"
delay = "1ms"
duplex = false
[[links]]
from = "R"
to = "S2"
rate = "10Mbps"
delay = "1ms"
duplex = false
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
    assert_eq!(receivers_ahead(two_feeds), Vec::<usize>::new());
    // Without the second flow, the first is ahead and its run is the event-by-event run.
    let one = &two_feeds[..two_feeds.rfind("[[flows]]").unwrap()];
    assert_eq!(receivers_ahead(one), vec![0]);
    assert_same("one receiver ahead, a slow ACK link", one, 3, None, &[3]);
    let both_from_one = two_feeds.replace("src = \"S2\"", "src = \"S1\"");
    assert_eq!(receivers_ahead(&both_from_one), vec![0, 1]);
    assert_same("two receivers ahead, a slow ACK link", &both_from_one, 3, None, &[3]);
}

/// A sample and a packet's arrival at a cut link's near node at the same nanosecond. With 1-ms
/// samples on Fig. 10 such ties occur (arrivals fall on whole milliseconds), and BS->D's feeder
/// S->BS holds a packet for up to 89 ms, so event by event the arrival's event can have been
/// scheduled before the sample's or after it. Samples run last at their instant
/// (`Simulator::next_sample_at`), so the arrival counts at that sample either way, as it does cut
/// through. (Before that rule, cutting BS->D made its sampled queue length differ by one packet
/// at such ties.)
#[test]
fn long_feeders_at_fine_samples() {
    let fig10 = include_str!("../../../../examples/jersey_fig10.toml");
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
    let out = airtcp::run(toml, &airtcp::RunOptions { seed: Some(1), ..Default::default() }).map(Option::unwrap).unwrap();
    let ld = out.summary.flows[0].loss_differentiation.unwrap();
    assert_eq!((ld.queue_drops_as_congestion, ld.undropped_as_congestion), (88, 241));
}

/// Campaign seed 777, run 93423 (issue 39): the ACK that reaches `n4` through the cut-through hop
/// `n3->n4` arrives at the very nanosecond at which f1's retransmission timer (116 ms after the
/// previous ACK) expires. Event by event the ACK's arrival is scheduled when it reaches `n3`,
/// after the timer, and the timer runs first; cut through, the arrival was pushed while the ACK
/// was still upstream, and ties used to follow the order of pushes, so the ACK ran first and f1
/// sent 35 / received 24 packets instead of 32 / 20. Ties now follow the instant at which the
/// event-by-event engine schedules an event (`EventQueue::push_from`), whenever it was pushed.
#[test]
fn an_arrival_pushed_ahead_ties_with_a_timer_as_event_by_event() {
    let toml = r#"
name = "campaign-93423"
seed = 3008776684
duration = "2350000us"
sample_interval = "106211us"
nodes = ["n0", "n1", "n2", "n3", "n4"]
[[links]]
from = "n0"
to = "n1"
delay = "1872us"
queue = { kind = "droptail", limit_pkts = 6 }
rate = "11202390bps"
channel = { kind = "gilbert-elliott", mean_good = "54795us", mean_bad = "100540us", error_good = 0.03467724723290984, error_bad = 0.20740441831318773, effect = "loss" }
[[links]]
from = "n1"
to = "n2"
delay = "778us"
queue = { kind = "droptail", limit_pkts = 2 }
rate = "195548bps"
channel = { kind = "gilbert-elliott", p_stay_good = 0.6424991760303418, q_stay_bad = 0.407449978392584, error_good = 0, error_bad = 0.9247929820182951, effect = "corruption" }
[[links]]
from = "n3"
to = "n2"
delay = "16731us"
queue = { kind = "cw", limit_pkts = 4, weight = 0.5, drop_non_ect = true }
reverse_queue = { kind = "red", limit_pkts = 16, min_th_pkts = 6.974723086307839, max_th_pkts = 15.42144764782552, weight = 1, max_p = 0.22714507174297938, ecn = true, gentle = false }
rate = "245886bps"
channel = { kind = "gilbert-elliott", p_stay_good = 0.9127128652936671, q_stay_bad = 0.16222493244214728, error_good = 0, error_bad = 0.17498971541340141, effect = "loss" }
link_retransmission = true
link_retransmission_max = 6
link_retransmission_timeout = "6598us"
[[links]]
from = "n4"
to = "n3"
delay = "105us"
queue = { kind = "droptail", limit_pkts = 1 }
rate = "1059129bps"
channel = { kind = "gilbert-elliott", p_stay_good = 0.6032205788204219, q_stay_bad = 0.32585496046340934, error_good = 0.020979337314622454, error_bad = 0.6476101733106324, effect = "loss" }
[[flows]]
kind = "tcp"
name = "f0"
src = "n0"
dst = "n1"
cc = "vegas"
recovery = "prr-rack"
cc_params = { alpha = 3.880232035714418, beta = 5.338044405774857, gamma = 1.4651957031603353, expiry = false }
direction = "both"
start = "826916us"
stop = "836747us"
sack = true
timestamps = true
ecn = true
mss_bytes = 376
rwnd_pkts = 6
delayed_ack = true
delack_timeout = "93044us"
min_rto = "200000us"
max_rto = "200519us"
partial_ack_timer = "slow-but-steady"
rtt_sampling = "every-ack"
recover_ack_heuristic = true
rtt_sample_duplicate_acks = false
rto_estimator = "rfc6298"
rto_undo = "none"
[[flows]]
kind = "tcp"
name = "f1"
src = "n4"
dst = "n0"
cc = "cubic"
recovery = "fack"
start = "484011us"
sack = true
timestamps = false
ecn = false
mss_bytes = 1000
rwnd_pkts = 87
dupack_threshold = 4
delayed_ack = false
min_rto = "115940us"
max_rto = "116000us"
initial_rto = "617003us"
rtt_sampling = "every-ack"
fast_retransmit_restarts_rto = true
fast_retransmit_rto_backoff = false
recover_ack_heuristic = true
rtt_sample_duplicate_acks = true
rto_undo = "none"
"#;
    // Links: 0 n0->n1, 1 n1->n0, 2 n1->n2, 3 n2->n1, 4 n3->n2, 5 n2->n3, 6 n4->n3, 7 n3->n4.
    let seed = airtcp::scenario::parse(toml).unwrap().seed;
    assert_same("campaign 777 #93423", toml, seed, None, &[3, 7]);
    let out = airtcp::run(toml, &airtcp::RunOptions::default()).map(Option::unwrap).unwrap();
    let f1 = out.summary.flows.iter().find(|f| f.name == "f1").unwrap();
    // The event-by-event engine's figures (the reference; cut-through used to give 35 / 24).
    assert_eq!((f1.packets_sent, f1.packets_received), (32, 20));
}

/// Scenarios built to tie: whole-millisecond delays, rates that serialize 1000-byte packets in
/// whole fractions of a millisecond, retransmission timers fixed at a whole number of
/// milliseconds, CBR sources on whole-millisecond periods, TCP both ways over a chain whose inner
/// hops are cut. Arrivals, timers and application ticks then meet at one nanosecond often, and
/// which runs first must not depend on whether a hop was cut.
fn tie_prone(rates: [u32; 3], delays: [u32; 3], limits: [u32; 3], rto_ms: u32, loss: f64, cbr_kbps: u32, starts: [u32; 2]) -> String {
    let mut s = String::from("duration = \"3s\"\nsample_interval = \"10ms\"\nnodes = [\"S\", \"R1\", \"R2\", \"D\"]\n");
    for (k, (a, b)) in [("S", "R1"), ("R1", "R2"), ("R2", "D")].into_iter().enumerate() {
        s += &format!(
            "[[links]]\nfrom = \"{a}\"\nto = \"{b}\"\nrate = \"{}kbps\"\ndelay = \"{}ms\"\nqueue = {{ kind = \"droptail\", limit_pkts = {} }}\n",
            rates[k], delays[k], limits[k]
        );
        if k == 1 && loss > 0.0 {
            s += &format!("channel = {{ kind = \"uniform\", loss = {loss} }}\n");
        }
    }
    for (name, src, dst, start) in [("fwd", "S", "D", starts[0]), ("rev", "D", "S", starts[1])] {
        s += &format!(
            "[[flows]]\nkind = \"tcp\"\nname = \"{name}\"\nsrc = \"{src}\"\ndst = \"{dst}\"\nstart = \"{start}ms\"\nmss_bytes = 960\ninitial_rto = \"{rto_ms}ms\"\nmin_rto = \"{rto_ms}ms\"\nmax_rto = \"{rto_ms}ms\"\n"
        );
    }
    if cbr_kbps > 0 {
        s += &format!(
            "[[flows]]\nkind = \"cbr\"\nname = \"cbr\"\nsrc = \"S\"\ndst = \"D\"\npacket_bytes = 1000\nrate = \"{cbr_kbps}kbps\"\n"
        );
    }
    s
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 48, ..Default::default() })]

    /// Cut-through against the event-by-event engine on scenarios where events tie (see
    /// [`tie_prone`]): the same output, bit for bit, but for the event count.
    #[test]
    fn cut_through_equals_event_by_event_where_events_tie(
        rates in proptest::array::uniform3(proptest::sample::select(vec![500u32, 1000, 2000, 4000, 8000])),
        delays in proptest::array::uniform3(1u32..6),
        limits in proptest::array::uniform3(1u32..12),
        rto_ms in proptest::sample::select(vec![8u32, 16, 24, 40, 80]),
        loss in proptest::sample::select(vec![0.0, 0.02, 0.1]),
        cbr_kbps in proptest::sample::select(vec![0u32, 200, 400, 1000]),
        starts in proptest::array::uniform2(0u32..20),
        seed in 1u64..1000,
    ) {
        let toml = tie_prone(rates, delays, limits, rto_ms, loss, cbr_kbps, starts);
        // Links: 0 S->R1, 1 R1->S, 2 R1->R2, 3 R2->R1, 4 R2->D, 5 D->R2.
        let (with, _, links) = run(&toml, seed, true, None);
        let (without, _, _) = run(&toml, seed, false, None);
        proptest::prop_assert_eq!(links, vec![1, 2, 3, 4]);
        proptest::prop_assert!(with == without, "outputs differ:\n{}", toml);
    }
}
