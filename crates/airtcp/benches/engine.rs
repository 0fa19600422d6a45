//! Micro-benchmarks (criterion): event-queue operations and whole Fig. 10 runs.
use criterion::{black_box, criterion_group, criterion_main, Criterion};

use airtcp::engine::{Event, EventQueue};

fn event_queue(c: &mut Criterion) {
    c.bench_function("event_queue push+pop (1k pending)", |b| {
        let mut q = EventQueue::new();
        for i in 0..1000u64 {
            q.push(i * 7919 % 10_007, Event::Sample);
        }
        let mut t = 10_007u64;
        b.iter(|| {
            let (time, ev) = q.pop().unwrap();
            t += 13;
            q.push(black_box(time.max(t - 10_000) + 5_000), ev);
        })
    });
}

fn whole_runs(c: &mut Criterion) {
    let base = include_str!("../../../examples/jersey_fig10.toml");
    let lossless = base.replacen("loss = 0.01", "loss = 0.0", 1);
    let mut g = c.benchmark_group("fig10 100 s newreno");
    g.sample_size(20);
    g.bench_function("1% loss", |b| {
        b.iter(|| airtcp::run(black_box(base), &airtcp::RunOptions { seed: Some(1), ..Default::default() }).map(Option::unwrap).unwrap())
    });
    g.bench_function("0% loss", |b| {
        b.iter(|| {
            airtcp::run(black_box(&lossless), &airtcp::RunOptions { seed: Some(1), ..Default::default() }).map(Option::unwrap).unwrap()
        })
    });
    g.finish();
}

/// Per-packet cost: a CBR source of 90 Mb/s of payload on a 100 Mb/s link for 10 s, one hop, one
/// sample at the end: 115 741 datagrams, each generated (one event), allocated, queued,
/// serialized, carried and delivered (one event). The time divided by the datagram count is the
/// engine's cost per packet-hop without TCP.
fn per_packet(c: &mut Criterion) {
    let text = r#"
name = "per-packet"
duration = "10s"
sample_interval = "10s"
nodes = ["A", "B"]
[[links]]
from = "A"
to = "B"
rate = "100Mbps"
delay = "1ms"
queue = { kind = "droptail", limit_pkts = 100 }
[[flows]]
kind = "cbr"
src = "A"
dst = "B"
packet_bytes = 972
rate = "90Mbps"
"#;
    let out = airtcp::run(text, &airtcp::RunOptions { seed: Some(1), ..Default::default() }).map(Option::unwrap).unwrap();
    // 90 Mb/s / (972 B · 8) = 11 574.07 datagrams/s, one every 86.4 µs from t = 0: the
    // datagrams at k·86.4 µs for k = 0..=115 740 are sent within the 10 s.
    assert_eq!(out.summary.flows[0].packets_sent, 115_741);
    let mut g = c.benchmark_group("per packet");
    g.sample_size(20);
    g.bench_function("CBR one hop, 115 741 packets", |b| {
        b.iter(|| airtcp::run(black_box(text), &airtcp::RunOptions { seed: Some(1), ..Default::default() }).map(Option::unwrap).unwrap())
    });
    g.finish();
}

criterion_group!(benches, event_queue, whole_runs, per_packet);
criterion_main!(benches);
