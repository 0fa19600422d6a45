//! The invariant campaign (issue 25 part 8) as a benchmark-style command: generates `--runs`
//! random small scenarios from `--seed`, runs and checks each (see the `airtcp-testkit` crate), and prints
//! one line with the figure — runs, violations by kind, wall time, runs per second — then the
//! coverage per category and every violation with the scenario that reproduces it.
//!
//! `make campaign` (CAMPAIGN_RUNS, default 100000) runs it in the test profile, so arithmetic
//! overflows and debug assertions count as violations (panics):
//!
//! ```sh
//! cargo run --profile test -p airtcp-testkit --bin campaign -- --runs 100000 --seed 1 --jobs 1
//! cargo run --profile test -p airtcp-testkit --bin campaign -- --seed 1 --only 4711   # one run, its scenario
//! ```
//!
//! Exit status 1 when a violation was found, 2 on bad arguments.

use std::time::Instant;

use airtcp_testkit as campaign;

/// The command line.
struct Args {
    runs: u64,
    seed: u64,
    jobs: usize,
    from: u64,
    /// Run (and print the scenario of) this index only.
    only: Option<u64>,
    /// Violations printed in full (scenario included); the rest in one line each.
    show: usize,
    /// Repeat every this many runs event by event (1: every run, the default; 0: none).
    cut_every: u64,
}

fn usage() -> ! {
    eprintln!("usage: campaign [--runs N] [--seed S] [--jobs J] [--from I] [--only I] [--show K] [--cut-every N]");
    std::process::exit(2)
}

fn parse_args() -> Args {
    let mut a = Args { runs: 1000, seed: 1, jobs: 1, from: 0, only: None, show: 5, cut_every: 1 };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().unwrap_or_else(|| usage());
        let num = || value.parse::<u64>().unwrap_or_else(|_| usage());
        match flag.as_str() {
            "--runs" => a.runs = num(),
            "--seed" => a.seed = num(),
            "--jobs" => a.jobs = num() as usize,
            "--from" => a.from = num(),
            "--only" => a.only = Some(num()),
            "--show" => a.show = num() as usize,
            "--cut-every" => a.cut_every = num(),
            _ => usage(),
        }
    }
    a
}

fn main() {
    let args = parse_args();
    if let Some(i) = args.only {
        let case = campaign::case(args.seed, i);
        print!("{}", case.toml);
        let t0 = Instant::now();
        let (violations, events, _) = campaign::check(&case);
        eprintln!("run #{i}: {events} events, {:.3} s, {} violation(s)", t0.elapsed().as_secs_f64(), violations.len());
        for v in &violations {
            eprintln!("  [{}] {}", v.kind.name(), v.detail);
        }
        std::process::exit(i32::from(!violations.is_empty()));
    }
    let t0 = Instant::now();
    let report = campaign::run_cut_every(args.seed, args.from, args.runs, args.jobs, args.cut_every);
    let wall = t0.elapsed().as_secs_f64();
    println!("{}", campaign::figure(&report, args.seed, args.jobs, wall));
    println!("events: {} ({:.0} per run)", report.events, report.events as f64 / report.runs.max(1) as f64);
    for line in report.coverage_lines() {
        println!("coverage {line}");
    }
    for (k, v) in report.violations.iter().enumerate() {
        if k < args.show {
            println!("{}", campaign::describe(args.seed, v));
        } else {
            println!("violation [{}] run #{}: {}", v.kind.name(), v.index, v.detail);
        }
    }
    std::process::exit(i32::from(!report.violations.is_empty()));
}
