//! Channels, capacities and traffic sources against independent truth: analytic Markov-chain
//! values, the trace's own opportunity count, the Erlang loss formula, and conservation laws.

use crate::common::{run, variant};

/// Erlang-B blocking probability of `servers` servers offered `load` Erlangs, by the stable
/// recursion B(0) = 1, B(k) = A·B(k−1) / (k + A·B(k−1)).
fn erlang_b(servers: u32, load: f64) -> f64 {
    let mut b = 1.0;
    for k in 1..=servers {
        b = load * b / (k as f64 + load * b);
    }
    b
}

/// The formula the VoIP pool is checked against, checked itself against the sums written out.
#[test]
fn erlang_b_worked_by_hand() {
    // B(5, 8) = (8^5/5!) / Σ_{k=0..5} 8^k/k! = 273.07 / 570.07.
    let by_hand = (8f64.powi(5) / 120.0) / (1.0 + 8.0 + 32.0 + 512.0 / 6.0 + 4096.0 / 24.0 + 32768.0 / 120.0);
    assert!((erlang_b(5, 8.0) - by_hand).abs() < 1e-12);
    assert!((by_hand - 0.4790).abs() < 1e-3);
    assert_eq!(erlang_b(0, 3.0), 1.0);
}

/// A UDP source of 1472-B payloads (1500 B on the wire: one opportunity each) into a link of the
/// given capacity with a queue that never overflows, and no propagation delay.
fn saturated(capacity: &str, cbr: &str, duration: &str) -> String {
    format!(
        r#"
duration = "{duration}"
nodes = ["A", "B"]
[[links]]
from = "A"
to = "B"
{capacity}
delay = "0ms"
duplex = false
queue = {{ kind = "droptail", limit_pkts = 1000000 }}
[[flows]]
kind = "cbr"
name = "u"
src = "A"
dst = "B"
packet_bytes = 1472
{cbr}
"#
    )
}

/// A cellular-looking trace: bursts of opportunities and gaps over a 1-s period, with several
/// opportunities in some milliseconds.
fn trace_ms() -> Vec<u64> {
    let mut v = Vec::new();
    let mut x: u64 = 12345;
    for ms in 1..=1000u64 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let n = match (ms / 100) % 3 {
            0 => (x >> 60) % 3, // 0-2 per ms
            1 => (x >> 61) % 2, // 0-1
            _ => 0,             // a 100-ms gap
        };
        for _ in 0..n {
            v.push(ms);
        }
    }
    v.push(1000);
    v
}

#[test]
fn saturated_trace_link_delivers_exactly_the_trace_opportunities() {
    let ms = trace_ms();
    let dir = std::env::temp_dir().join(format!("airtcp-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("cell.trace");
    std::fs::write(&file, ms.iter().map(|m| format!("{m}\n")).collect::<String>()).unwrap();
    // 10.5 s: ten whole periods and half of the eleventh; offered 40 Mb/s, far above the trace.
    let text = saturated(&format!("capacity = {{ kind = \"trace\", file = \"{}\" }}", file.display()), "rate = \"40Mbps\"", "10500ms");
    let out = run(&text, 1);
    let per_period = ms.len() as u64;
    let in_half = ms.iter().filter(|&&m| m <= 500).count() as u64;
    let want = 10 * per_period + in_half;
    assert_eq!(out.summary.links[0].packets_sent, want);
    assert_eq!(out.summary.flows[0].packets_received, want);
    // The same trace inline, relative to a base folder, gives the same run.
    let inline = saturated(
        &format!(
            "capacity = {{ kind = \"trace\", opportunities_ms = [{}] }}",
            ms.iter().map(|m| m.to_string()).collect::<Vec<_>>().join(",")
        ),
        "rate = \"40Mbps\"",
        "10500ms",
    );
    assert_eq!(run(&inline, 1).summary.links, out.summary.links);
    let rel = text.replace(&file.display().to_string(), "cell.trace");
    let out_rel =
        airtcp::run(&rel, &airtcp::RunOptions { seed: Some(1), base_dir: Some(&dir), ..Default::default() }).map(Option::unwrap).unwrap();
    assert_eq!(out_rel.summary.links, out.summary.links);
}

#[test]
fn idle_then_burst_uses_only_opportunities_after_the_burst_starts() {
    // One opportunity every ms (12 Mb/s). 0-1 s: 1.2 Mb/s (every packet leaves at the next
    // opportunity); 1-5 s: silence (4000 opportunities wasted, no credit); 5-6 s: 40 Mb/s.
    // By 6 s: the 100 early packets, plus one per opportunity in [5 s, 6 s] — 1001 of them.
    let text = saturated(
        "capacity = { kind = \"trace\", opportunities_ms = [1] }",
        "schedule = [{ at = \"0s\", rate = \"1177600bps\" }, { at = \"1s\", rate = \"0bps\" }, { at = \"5s\", rate = \"40Mbps\" }]",
        "6s",
    );
    let out = run(&text, 1);
    assert_eq!(out.summary.flows[0].packets_received, 100 + 1001);
    // Credit accumulated while idle would have let the burst out 4000 opportunities faster.
}

#[test]
fn saturated_rate_schedule_delivers_its_integral() {
    // 2 Mb/s for 300 ms, outage 100 ms, 1 Mb/s for 600 ms, repeating: 1.2 Mb/s mean.
    // 20 s → 24 Mbit = 2000 packets of 12000 bits, to within the one in service at the end.
    let cap = "capacity = { kind = \"schedule\", repeat = \"1s\", steps = [{ at = \"0s\", rate = \"2Mbps\" }, { at = \"300ms\", rate = \"0bps\" }, { at = \"400ms\", rate = \"1Mbps\" }] }";
    let out = run(&saturated(cap, "rate = \"5Mbps\"", "20s"), 1);
    assert_eq!(out.summary.links[0].rate_bps, 1_200_000);
    assert_eq!(out.summary.flows[0].packets_received, 2000);
    assert!((out.summary.links[0].utilization - 1.0).abs() < 1e-3);
}

/// The channel inside the engine: its drops are the link's channel losses, at the chain's
/// stationary rate (the burst statistics are checked on the channel itself, in its unit tests).
#[test]
fn gilbert_elliott_channel_through_the_engine_matches_its_stationary_loss_rate() {
    // p = 0.99, q = 0.9 (bad 1/11 of the packets), error 0 / 0.5: rate 0.5/11 = 4.545%.
    let text = r#"
duration = "1000s"
nodes = ["A", "B"]
[[links]]
from = "A"
to = "B"
rate = "100Mbps"
delay = "1ms"
duplex = false
channel = { kind = "gilbert-elliott", p_stay_good = 0.99, q_stay_bad = 0.9, error_bad = 0.5 }
[[flows]]
kind = "cbr"
src = "A"
dst = "B"
packet_bytes = 972
rate = "8Mbps"
"#;
    let out = run(text, 4);
    let f = &out.summary.flows[0];
    let rate = 1.0 - f.packets_received as f64 / f.packets_sent as f64;
    // 10^6 packets in ~9000 bad runs of ~10: the rate's relative sd is ~1.5%; 5 sd.
    assert!((rate / (0.5 / 11.0) - 1.0).abs() < 0.075, "loss rate {rate}");
    assert_eq!(out.summary.links[0].channel_losses, f.packets_sent - f.packets_received);
}

#[test]
fn corrupted_packets_reach_the_end_and_are_discarded_there() {
    let text = r#"
duration = "100s"
nodes = ["A", "R", "B"]
[[links]]
from = "A"
to = "R"
rate = "10Mbps"
delay = "1ms"
duplex = false
channel = { kind = "uniform", loss = 0.1, effect = "corruption" }
[[links]]
from = "R"
to = "B"
rate = "10Mbps"
delay = "1ms"
duplex = false
[[flows]]
kind = "cbr"
src = "A"
dst = "B"
packet_bytes = 1000
rate = "1Mbps"
stop = "99s"
"#;
    let out = run(text, 2);
    let f = &out.summary.flows[0];
    let (l0, l1) = (&out.summary.links[0], &out.summary.links[1]);
    // A corruption lands on the 28 header bytes of a 1028-byte datagram with probability
    // 28/1028: that packet is lost; the others travel on, corrupted, and the second hop carries
    // them too.
    let hits = l0.channel_losses + l0.corruptions;
    let frac = hits as f64 / l0.packets_sent as f64;
    assert!((frac - 0.1).abs() < 0.01, "hit fraction {frac}"); // 12500 packets: sd 0.27%
    let header = l0.channel_losses as f64 / hits as f64;
    assert!((header - 28.0 / 1028.0).abs() < 0.015, "header-hit fraction {header}"); // sd 0.46%
    assert_eq!(l1.packets_sent, l0.packets_sent - l0.channel_losses);
    assert_eq!(f.corrupted_received, l0.corruptions);
    assert_eq!(f.packets_received + f.corrupted_received + l0.channel_losses, f.packets_sent);
}

#[test]
fn tcp_over_a_corrupting_channel_delivers_the_stream_and_counts_the_corruption() {
    let text = r#"
duration = "60s"
nodes = ["A", "B"]
[[links]]
from = "A"
to = "B"
rate = "2Mbps"
delay = "20ms"
channel = { kind = "uniform", loss = 0.01, effect = "corruption" }
reverse_channel = { kind = "gilbert-elliott", mean_good = "900ms", mean_bad = "100ms", error_bad = 0.2, effect = "corruption" }
[[flows]]
kind = "tcp"
src = "A"
dst = "B"
bytes = "4MB"
"#;
    let sc = airtcp::scenario::parse(text).unwrap();
    let mut sim = airtcp::sim::Simulator::build(&sc, 3).unwrap();
    let out = sim.run().unwrap();
    let f = &out.summary.flows[0];
    assert_eq!(f.delivered_bytes, 4_000_000);
    assert_eq!(f.acked_bytes, 4_000_000);
    assert_eq!(f.corrupted_received, out.summary.links[0].corruptions + out.summary.links[1].corruptions);
    assert!(out.summary.links[0].corruptions > 0);
    // A pure ACK is all header: a corrupted ACK is unidentifiable, hence lost.
    assert_eq!(out.summary.links[1].corruptions, 0);
    assert!(out.summary.links[1].channel_losses > 0);
}

#[test]
fn voip_pool_offers_the_erlang_loss_system_load() {
    // TCP-Jersey §IV-A defaults: 5 talkers, λ = 1/s, 8-s calls, 50% of 96 kb/s.
    // Analytic: A = 8 Erlang, carried A(1 − B(5, 8)) = 4.168, × 0.5 × 96 kb/s = 200.1 kb/s.
    let a = 8.0;
    let want = a * (1.0 - erlang_b(5, a)) * 0.5 * 96_000.0;
    assert!((want - 200_064.0).abs() < 100.0, "{want}");
    let text = r#"
duration = "10000s"
sample_interval = "10s"
nodes = ["A", "B"]
[[links]]
from = "A"
to = "B"
rate = "100Mbps"
delay = "1ms"
[[flows]]
kind = "voip"
name = "voip"
src = "A"
dst = "B"
"#;
    let out = run(text, 1);
    let f = &out.summary.flows[0];
    let load = f.sent_bytes as f64 * 8.0 / 10_000.0;
    eprintln!("offered {load:.0} b/s vs Erlang {want:.0} b/s; calls {:?}", f.calls);
    assert!((load / want - 1.0).abs() < 0.03, "offered {load} vs {want}");
    // Blocking matches Erlang B too (10^4 calls: sd of the fraction ~0.5%).
    let c = f.calls.unwrap();
    let blocked = c.blocked as f64 / c.offered as f64;
    assert!((blocked - erlang_b(5, a)).abs() < 0.03, "blocked {blocked}");
    // Every datagram arrives on this uncongested link (but those still in flight at the end).
    assert!(f.sent_bytes - f.delivered_bytes <= 10 * 210);
}

#[test]
fn twenty_flows_half_starting_late_report_goodput_per_interval() {
    // Thesis ch. 4-5 style: 10 flows at 0 s, 10 more at 30 s, on a shared 10 Mb/s bottleneck.
    let text = r#"
duration = "60s"
sample_interval = "1s"
nodes = ["S", "R", "D"]
[[links]]
from = "S"
to = "R"
rate = "100Mbps"
delay = "5ms"
[[links]]
from = "R"
to = "D"
rate = "10Mbps"
delay = "20ms"
queue = { kind = "droptail", limit_pkts = 100 }
[[flows]]
kind = "tcp"
name = "early"
src = "S"
dst = "D"
count = 10
[[flows]]
kind = "tcp"
name = "late"
src = "S"
dst = "D"
count = 10
start = "30s"
"#;
    let out = run(text, 1);
    assert_eq!(out.summary.flows.len(), 20);
    let s = &out.flow_series;
    let names: Vec<&str> = out.summary.flows.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names[0], "early.0");
    assert_eq!(names[19], "late.9");
    for f in &out.summary.flows {
        let rows: Vec<usize> = (0..s.rows()).filter(|&i| s.flow_name(i) == f.name).collect();
        assert_eq!(rows.len(), 61); // samples at 0, 1, ..., 60 s
                                    // The per-interval goodputs add up to the bytes delivered.
        let total: f64 = rows.iter().map(|&i| s.goodput_bps(i) / 8.0).sum();
        assert!((total - f.delivered_bytes as f64).abs() < 1e-6 * f.delivered_bytes as f64 + 1.0);
        let late = f.name.starts_with("late");
        for &i in &rows {
            if late && s.time_s(i) <= 30.0 {
                assert_eq!(s.goodput_bps(i), 0.0, "{} before its start", f.name);
            }
        }
        // Every flow gets a share in the last 20 s.
        let tail: f64 = rows.iter().filter(|&&i| s.time_s(i) > 40.0).map(|&i| s.goodput_bps(i)).sum::<f64>() / 20.0;
        assert!(tail > 100_000.0, "{} got {tail} b/s in the last 20 s", f.name);
    }
    // Together the flows deliver at most the bottleneck's payload capacity, and nearly all of it
    // once 20 flows share it (one interval can exceed it: a repaired hole releases buffered data).
    let cap = 10e6 * 1000.0 / 1040.0;
    let total: f64 = (0..s.rows()).map(|i| s.goodput_bps(i)).sum::<f64>() / 60.0;
    assert!(total <= cap, "{total}");
    let late_sum: f64 = (0..s.rows()).filter(|&i| s.time_s(i) > 40.0).map(|i| s.goodput_bps(i)).sum::<f64>() / 20.0;
    assert!(late_sum > 0.9 * cap, "{late_sum}");
}

#[test]
fn tcp_groups_run_either_way_with_staggered_starts() {
    let text = r#"
duration = "20s"
sample_interval = "1s"
nodes = ["S", "D"]
[[links]]
from = "S"
to = "D"
rate = "5Mbps"
delay = "10ms"
[[flows]]
kind = "tcp"
name = "bg"
src = "S"
dst = "D"
count = 2
direction = "both"
start = "1s"
start_spacing = "4s"
cc = "westwood"
"#;
    let out = run(text, 1);
    let got: Vec<(&str, &str, &str)> = out.summary.flows.iter().map(|f| (f.name.as_str(), f.src.as_str(), f.dst.as_str())).collect();
    assert_eq!(got, vec![("bg.0", "S", "D"), ("bg.1", "S", "D"), ("bg.rev0", "D", "S"), ("bg.rev1", "D", "S")]);
    let s = &out.flow_series;
    for f in &out.summary.flows {
        let start = if f.name.ends_with('0') { 1.0 } else { 5.0 };
        let first_sent = (0..s.rows()).filter(|&i| s.flow_name(i) == f.name && s.sent_bytes[i] > 0).map(|i| s.time_s(i)).next().unwrap();
        // Sampled every second: the sample at the start instant (taken after the start event)
        // sees the first segment sent, none before.
        assert_eq!(first_sent, start, "{}", f.name);
        assert!(f.goodput_bps > 0.0 && f.cc.as_deref() == Some("westwood"));
    }
}

#[test]
fn group_names_must_not_collide() {
    let text = r#"
duration = "1s"
nodes = ["S", "D"]
[[links]]
from = "S"
to = "D"
rate = "5Mbps"
delay = "10ms"
[[flows]]
kind = "tcp"
name = "x"
src = "S"
dst = "D"
count = 2
[[flows]]
kind = "tcp"
name = "x.1"
src = "S"
dst = "D"
"#;
    let e = airtcp::run(text, &airtcp::RunOptions::default()).map(Option::unwrap).unwrap_err().to_string();
    assert_eq!(e, "flows[1].name: duplicate flow name 'x.1' (also flows[0])");
}

/// ACK compression (the reverse-path effect Westwood+ was designed against, Grieco & Mascolo
/// 2004): over the bursty trace link of `examples/trace_link.toml` — several packets per
/// opportunity, so ACKs leave in clumps microseconds apart — Westwood's per-ACK samples
/// (Jersey eq. 1-2: the previous, huge, sample is weighted by the next, normal, gap) inflate its
/// estimate far above the link's capacity, while Westwood+'s one sample per RTT stays near it.
#[test]
fn ack_compression_inflates_westwood_but_not_westwood_plus() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let text = std::fs::read_to_string(dir.join("trace_link.toml")).unwrap();
    let mean_bwe = |cc: &str| {
        let out = airtcp::run(
            &variant(&text, &[&format!("flows.0.cc={cc}")]),
            &airtcp::RunOptions { seed: Some(1), base_dir: Some(&dir), ..Default::default() },
        )
        .map(Option::unwrap)
        .unwrap();
        let s = &out.flow_series;
        let v: Vec<f64> = (0..s.rows()).filter(|&i| s.time_s(i) > 5.0).map(|i| s.bwe(i).unwrap()).collect();
        let capacity = out.summary.links[2].rate_bps as f64; // the trace's mean
        (v.iter().sum::<f64>() / v.len() as f64 / capacity, out.summary.flows[0].goodput_bps / capacity)
    };
    let (w, w_gp) = mean_bwe("westwood");
    let (wp, wp_gp) = mean_bwe("westwood-plus");
    eprintln!("estimate / capacity: Westwood {w:.1}, Westwood+ {wp:.2}; goodput / capacity {w_gp:.2}, {wp_gp:.2}");
    assert!(w > 5.0, "Westwood's estimate {w} × capacity");
    assert!((0.5..1.2).contains(&wp), "Westwood+'s estimate {wp} × capacity");
    assert!(wp_gp > w_gp);
}
