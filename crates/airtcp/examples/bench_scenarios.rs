//! Whole-run benchmark harness (not a test): times the Jersey Fig. 10 scenario, prints JSON.
//! `cargo run --release --example bench_scenarios -- [REPEATS]`
use std::time::Instant;

fn fig10(loss: f64, recovery: &str) -> String {
    let base = include_str!("../../../examples/jersey_fig10.toml");
    let sack = if recovery == "sack" { "\nsack = true" } else { "" };
    base.replacen("loss = 0.01", &format!("loss = {loss}"), 1).replacen(
        "recovery = \"newreno\"",
        &format!("recovery = \"{recovery}\"{sack}"),
        1,
    )
}

fn main() {
    let repeats: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(21);
    let mut rows = Vec::new();
    for (loss, rec) in [(0.0, "newreno"), (0.01, "newreno"), (0.01, "tahoe"), (0.01, "reno"), (0.01, "sack")] {
        let text = fig10(loss, rec);
        let mut times = Vec::new();
        let mut events = 0;
        for i in 0..repeats {
            let t0 = Instant::now();
            let out = airtcp::run_toml(&text, Some(1 + i as u64)).unwrap();
            times.push(t0.elapsed().as_secs_f64());
            events = out.summary.events;
        }
        times.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let median = times[times.len() / 2];
        rows.push(format!(
            "{{\"scenario\": \"fig10\", \"loss\": {loss}, \"recovery\": \"{rec}\", \"simulated_s\": 100, \"repeats\": {repeats}, \"median_wall_s\": {median:.6}, \"min_wall_s\": {:.6}, \"events\": {events}, \"events_per_s\": {:.0}}}",
            times[0],
            events as f64 / median
        ));
    }
    println!("[{}]", rows.join(",\n "));
}
