//! Whole-run benchmark harness (not a test): prints JSON rows for `bench/run_bench.py`.
//!
//! ```text
//! bench_scenarios fig10 [REPEATS]            Fig. 10 (100 s) per scheme and recovery: median wall, events/s
//! bench_scenarios dumbbell FLOWS SECS [REPEATS]  an N-flow dumbbell (100 Mb/s bottleneck)
//! bench_scenarios memory FLOWS SECS          one N-flow dumbbell run, then the process's peak RSS
//! bench_scenarios grid [REPEATS]             the ns-3 comparison grid: Fig. 10 at 0, 0.1, 1, 3, 5% loss ×
//!                                            NewReno, Westwood+, Vegas as `bench/ns3/fig10.cc` runs them
//!                                            (seeds 1..=REPEATS): median wall per cell, in-process
//! bench_scenarios cell SCHEME LOSS SEED [REPEATS]  one cell of that grid at one seed: the same run
//!                                            repeated for CELL_WARMUP_MS (default 20 ms), then the
//!                                            median wall of REPEATS timed runs
//! bench_scenarios sweep RUNS THREADS         RUNS Fig. 10 runs through `airtcp::run_many` on THREADS
//!                                            threads (0 = all cores): wall time, the process's CPU time
//!                                            (user + system) spent in the sweep, and a digest of the results
//! ```
//! The scenarios are built from `examples/jersey_fig10.toml` or written here, so a row names
//! exactly what ran. `fig10` with a bare number as its first argument is kept for old scripts.
use std::time::Instant;

const FIG10: &str = include_str!("../../../examples/jersey_fig10.toml");

/// The Fig. 10 scenario at `loss` with the flow's `cc`/`recovery` and the extra flow keys a
/// scheme needs (ECN for the Jersey family, SACK for the IE² envelope, ...).
fn fig10(loss: f64, cc: &str, recovery: &str, extra: &str, cw_queue: bool) -> String {
    let mut s = FIG10.replacen("loss = 0.01", &format!("loss = {loss}"), 1);
    s = s.replacen("cc = \"reno\"", &format!("cc = \"{cc}\""), 1);
    s = s.replacen("recovery = \"newreno\"", &format!("recovery = \"{recovery}\"{extra}"), 1);
    if cw_queue {
        // TCP-Jersey's congestion-warning router at the bottleneck (its paper's configuration).
        s = s.replacen(
            "delay = \"1ms\"\nqueue = { kind = \"droptail\", limit_pkts = 50 }",
            "delay = \"1ms\"\nqueue = { kind = \"cw\", limit_pkts = 50 }",
            1,
        );
    }
    s
}

/// Every scheme of the engine on Fig. 10 (1% loss), plus NewReno lossless and the other recoveries.
fn fig10_variants() -> Vec<(String, String)> {
    let mut v = vec![("reno/newreno 0%".to_string(), fig10(0.0, "reno", "newreno", "", false))];
    for rec in ["newreno", "tahoe", "reno"] {
        v.push((format!("reno/{rec} 1%"), fig10(0.01, "reno", rec, "", false)));
    }
    v.push(("reno/sack 1%".into(), fig10(0.01, "reno", "sack", "\nsack = true", false)));
    v.push(("reno/fack 1%".into(), fig10(0.01, "reno", "fack", "\nsack = true", false)));
    v.push(("reno/prr 1%".into(), fig10(0.01, "reno", "prr", "\nsack = true", false)));
    v.push(("reno/prr-rack 1%".into(), fig10(0.01, "reno", "prr-rack", "\nsack = true", false)));
    for cc in ["westwood", "westwood-plus", "vegas", "prairie", "caiad"] {
        v.push((format!("{cc}/newreno 1%"), fig10(0.01, cc, "newreno", "", false)));
    }
    v.push(("jersey/newreno 1% (CW)".into(), fig10(0.01, "jersey", "newreno", "\necn = true", true)));
    for cc in ["new-jersey", "nj+"] {
        v.push((format!("{cc}/newreno 1% (CW)"), fig10(0.01, cc, "newreno", "\necn = true\ntimestamps = true", true)));
    }
    // The envelope holds cwnd at rwnd: give it the path's capacity (BDP ≈ 23 + queue 50 packets),
    // as the thesis does, not the example's 1000 (which overflows the queues and backs off to RTOs).
    let ie2 = fig10(0.01, "ie2-envelope", "sack", "\nsack = true", false).replacen("rwnd_pkts = 1000", "rwnd_pkts = 70", 1);
    v.push(("ie2-envelope/sack 1% (rwnd 70)".into(), ie2));
    v
}

/// The grid of scenarios `bench/run_bench.py` times against the ns-3 twin (`bench/ns3/fig10.cc`):
/// the settings of `bench/validate_ns3.py` (`fig10_toml`), i.e. the shipped Fig. 10 file with the
/// loss rate and scheme set, Vegas without its fine-grained expiry (ns-3's TcpVegas has none).
/// The shipped 100-ms series are kept: airtcp samples, the twin does not.
fn ns3_grid() -> Vec<(&'static str, f64, String)> {
    let mut v = Vec::new();
    for loss in [0.0, 0.001, 0.01, 0.03, 0.05] {
        for (scheme, cc, extra) in [
            ("newreno", "reno", ""),
            ("westwood-plus", "westwood-plus", ""),
            ("vegas", "vegas", "\ncc_params = { alpha = 1, beta = 3, gamma = 1, expiry = false }"),
        ] {
            v.push((scheme, loss, fig10(loss, cc, "newreno", extra, false)));
        }
    }
    v
}

/// A dumbbell: `flows` NewReno flows S → D through a 100 Mb/s, 20 ms bottleneck (buffer ≈ one
/// bandwidth-delay product), access links 1 Gb/s, 1 ms; flows start 1 ms apart.
fn dumbbell(flows: u32, secs: u32, sample: &str) -> String {
    format!(
        r#"name = "dumbbell-{flows}"
duration = "{secs}s"
sample_interval = "{sample}"
nodes = ["S", "R1", "R2", "D"]

[[links]]
from = "S"
to = "R1"
rate = "1Gbps"
delay = "1ms"
queue = {{ kind = "droptail", limit_pkts = 100000 }}

[[links]]
from = "R1"
to = "R2"
rate = "100Mbps"
delay = "20ms"
queue = {{ kind = "droptail", limit_pkts = 530 }}

[[links]]
from = "R2"
to = "D"
rate = "1Gbps"
delay = "1ms"
queue = {{ kind = "droptail", limit_pkts = 100000 }}

[[flows]]
kind = "tcp"
name = "bulk"
src = "S"
dst = "D"
count = {flows}
start_spacing = "1ms"
cc = "reno"
recovery = "newreno"
mss_bytes = 1000
rwnd_pkts = 1000
min_rto = "200ms"
"#
    )
}

fn time_runs(text: &str, repeats: usize) -> (Vec<f64>, u64) {
    let mut times = Vec::new();
    let mut events = 0;
    for i in 0..repeats {
        let t0 = Instant::now();
        let out = airtcp::run(text, &airtcp::RunOptions { seed: Some(1 + i as u64), ..Default::default() })
            .map(Option::unwrap)
            .unwrap_or_else(|e| panic!("bench scenario: {e}"));
        times.push(t0.elapsed().as_secs_f64());
        events = out.summary.events;
    }
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    (times, events)
}

fn row(name: &str, simulated_s: u32, repeats: usize, times: &[f64], events: u64) -> String {
    let median = times[times.len() / 2];
    format!(
        "{{\"scenario\": \"{name}\", \"simulated_s\": {simulated_s}, \"repeats\": {repeats}, \"median_wall_s\": {median:.6}, \"min_wall_s\": {:.6}, \"events\": {events}, \"events_per_s\": {:.0}}}",
        times[0],
        events as f64 / median
    )
}

/// Peak resident set size of this process (Linux `VmHWM`), in KiB.
fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status.lines().find_map(|l| l.strip_prefix("VmHWM:")).and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok()).unwrap_or(0)
}

/// CPU time (user + system, all threads) this process has used so far, in seconds. The sweep
/// reports it beside its wall time: when the speed-up on N threads falls short of N while the CPU
/// time grows over that of one thread, the cores ran slower (a shared host) for the same work.
fn cpu_s() -> f64 {
    // SAFETY: getrusage only writes the struct it is given.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } != 0 {
        return f64::NAN;
    }
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// The benchmarks (the module doc says what each times).
#[derive(clap::Subcommand)]
enum Bench {
    /// Fig. 10 (100 s) per scheme and recovery: median wall, events/s.
    Fig10 {
        #[arg(default_value_t = 21)]
        repeats: usize,
    },
    /// The ns-3 comparison grid, seeds 1..=REPEATS: median wall per cell, in-process.
    Grid {
        #[arg(default_value_t = 10)]
        repeats: usize,
    },
    /// One cell of the grid at one seed, after CELL_WARMUP_MS of warm-up runs.
    Cell {
        #[arg(default_value = "newreno")]
        scheme: String,
        #[arg(default_value_t = 0.0)]
        loss: f64,
        #[arg(default_value_t = 1)]
        seed: u64,
        #[arg(default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..))]
        repeats: u64,
    },
    /// An N-flow dumbbell (100 Mb/s bottleneck).
    Dumbbell {
        #[arg(default_value_t = 20)]
        flows: u32,
        #[arg(default_value_t = 100)]
        secs: u32,
        #[arg(default_value_t = 5)]
        repeats: usize,
    },
    /// One N-flow dumbbell run, then the process's peak RSS.
    Memory {
        #[arg(default_value_t = 10_000)]
        flows: u32,
        #[arg(default_value_t = 10)]
        secs: u32,
        /// The scenario's sample interval.
        #[arg(default_value = "1s")]
        sample: String,
    },
    /// RUNS Fig. 10 runs through `airtcp::run_many` on THREADS threads (0 = all cores).
    Sweep {
        #[arg(default_value_t = 200)]
        runs: usize,
        #[arg(default_value_t = 0)]
        threads: usize,
    },
}

#[derive(clap::Parser)]
#[command(about = "Whole-run benchmarks: JSON rows for bench/run_bench.py")]
struct Args {
    #[command(subcommand)]
    bench: Bench,
}

fn main() {
    // `fig10` is implied when the first argument is a number (or absent), for old scripts.
    let mut argv: Vec<String> = std::env::args().collect();
    if argv.get(1).is_none_or(|a| a.parse::<usize>().is_ok()) {
        argv.insert(1, "fig10".into());
    }
    let args = <Args as clap::Parser>::parse_from(argv);
    let rows: Vec<String> = match args.bench {
        Bench::Fig10 { repeats } => fig10_variants()
            .iter()
            .map(|(name, text)| {
                let (t, ev) = time_runs(text, repeats);
                row(&format!("fig10 {name}"), 100, repeats, &t, ev)
            })
            .collect(),
        Bench::Grid { repeats } => {
            // Each row also carries its cell and scenario text, so that the harness times the very
            // same file as a process and names the ns-3 twin's arguments from the row.
            ns3_grid()
                .iter()
                .map(|(scheme, loss, text)| {
                    let (t, ev) = time_runs(text, repeats);
                    let mut r: serde_json::Value =
                        serde_json::from_str(&row(&format!("grid {scheme} {loss}"), 100, repeats, &t, ev)).unwrap();
                    r["scheme"] = (*scheme).into();
                    r["loss"] = (*loss).into();
                    r["toml"] = text.as_str().into();
                    r.to_string()
                })
                .collect()
        }
        Bench::Cell { scheme, loss, seed, repeats } => {
            let Some((_, _, text)) = ns3_grid().into_iter().find(|(s, l, _)| *s == scheme && *l == loss) else {
                eprintln!("error: no grid cell '{scheme}' at loss {loss} (schemes newreno, westwood-plus, vegas; loss 0, 0.001, 0.01, 0.03, 0.05)");
                std::process::exit(2);
            };
            let run = || {
                let t0 = Instant::now();
                let out = airtcp::run(&text, &airtcp::RunOptions { seed: Some(seed), ..Default::default() })
                    .map(Option::unwrap)
                    .unwrap_or_else(|e| panic!("bench scenario: {e}"));
                (t0.elapsed().as_secs_f64(), out.summary.events)
            };
            // Warm-up: the same run, repeated for CELL_WARMUP_MS. A fresh process on these VMs runs
            // its first few milliseconds up to ~1.6x slower (first run 1.0 ms, fifth 0.61 ms at
            // NewReno 5%). The ns-3 twin's Run() starts after ~20 ms of its own set-up, so its
            // clock is past that ramp; airtcp's timed runs start past it too.
            let warmup_s = match std::env::var("CELL_WARMUP_MS") {
                Err(_) => 0.020,
                Ok(v) => match v.parse::<f64>() {
                    Ok(ms) if (0.0..=10_000.0).contains(&ms) => ms / 1e3,
                    _ => {
                        eprintln!("error: CELL_WARMUP_MS must be a number of milliseconds in 0..=10000, got '{v}'");
                        std::process::exit(2);
                    }
                },
            };
            let (t0, mut warmup_runs) = (Instant::now(), 0u32);
            while t0.elapsed().as_secs_f64() < warmup_s {
                run();
                warmup_runs += 1;
            }
            let (mut times, mut events) = (Vec::new(), 0);
            for _ in 0..repeats {
                let (t, ev) = run();
                times.push(t);
                events = ev;
            }
            times.sort_by(|a, b| a.partial_cmp(b).unwrap());
            vec![format!(
                "{{\"scenario\": \"cell {scheme} {loss}\", \"seed\": {seed}, \"warmup_runs\": {warmup_runs}, \"repeats\": {repeats}, \"wall_s\": {:.6}, \"events\": {events}}}",
                times[times.len() / 2]
            )]
        }
        Bench::Dumbbell { flows, secs, repeats } => {
            let (t, ev) = time_runs(&dumbbell(flows, secs, "100ms"), repeats);
            vec![row(&format!("dumbbell {flows} flows"), secs, repeats, &t, ev)]
        }
        Bench::Memory { flows, secs, sample } => {
            let before = peak_rss_kib();
            let t0 = Instant::now();
            // 10⁴ flows' series every 100 ms are 10⁷ rows, above the default `max_series_rows`
            // (5×10⁶, a guard against a mistyped interval): this run asks for them on purpose.
            let toml = format!("{}\n[limits]\nmax_series_rows = 100000000\n", dumbbell(flows, secs, &sample));
            let out = airtcp::run(&toml, &airtcp::RunOptions { seed: Some(1), ..Default::default() })
                .map(Option::unwrap)
                .unwrap_or_else(|e| panic!("bench scenario: {e}"));
            let wall = t0.elapsed().as_secs_f64();
            let delivered: u64 = out.summary.flows.iter().map(|f| f.delivered_bytes).sum();
            let started = out.summary.flows.iter().filter(|f| f.packets_sent > 0).count();
            vec![format!(
                "{{\"scenario\": \"memory dumbbell {flows} flows\", \"simulated_s\": {secs}, \"wall_s\": {wall:.3}, \"events\": {}, \"flows_that_sent\": {started}, \"delivered_bytes\": {delivered}, \"peak_rss_kib\": {}, \"rss_before_run_kib\": {before}}}",
                out.summary.events,
                peak_rss_kib()
            )]
        }
        Bench::Sweep { runs, threads } => {
            // 200 runs: 10 loss rates × 20 seeds of NewReno on Fig. 10, each run 100 s.
            let cells: Vec<(f64, u64)> =
                (0..runs).map(|i| ([0.0, 0.001, 0.002, 0.005, 0.01, 0.02, 0.03, 0.05, 0.07, 0.1][i % 10], 1 + (i / 10) as u64)).collect();
            let jobs: Vec<airtcp::Job> =
                cells.iter().map(|&(loss, seed)| (fig10(loss, "reno", "newreno", "", false), Some(seed), None)).collect();
            let (t0, c0) = (Instant::now(), cpu_s());
            let out = airtcp::run_many(&jobs, threads, None);
            let (wall, cpu) = (t0.elapsed().as_secs_f64(), cpu_s() - c0);
            // A digest of every run's summary: equal digests = identical results at any thread count.
            let mut digest: u64 = 0xcbf2_9ce4_8422_2325;
            for r in &out {
                let json =
                    serde_json::to_string(&r.as_ref().expect("bench scenario").as_ref().expect("never interrupted").summary).unwrap();
                for b in json.bytes() {
                    digest = (digest ^ b as u64).wrapping_mul(0x100_0000_01b3);
                }
            }
            let used = if threads == 0 { std::thread::available_parallelism().map_or(1, |n| n.get()) } else { threads };
            vec![format!(
                "{{\"scenario\": \"sweep {runs} runs\", \"threads\": {used}, \"wall_s\": {wall:.4}, \"cpu_s\": {cpu:.4}, \"digest\": \"{digest:016x}\", \"cells\": {}}}",
                serde_json::to_string(&cells).unwrap()
            )]
        }
    };
    println!("[{}]", rows.join(",\n "));
}
