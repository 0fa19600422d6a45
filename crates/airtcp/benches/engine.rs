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
    g.bench_function("1% loss", |b| b.iter(|| airtcp::run_toml(black_box(base), Some(1)).unwrap()));
    g.bench_function("0% loss", |b| b.iter(|| airtcp::run_toml(black_box(&lossless), Some(1)).unwrap()));
    g.finish();
}

criterion_group!(benches, event_queue, whole_runs);
criterion_main!(benches);
