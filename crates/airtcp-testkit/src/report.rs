//! Many runs on worker threads, and the figure and descriptions printed from them.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::check::{check, Kind, Violation};
use crate::generate::{case, combinations};

/// What a campaign found.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Runs done.
    pub runs: u64,
    /// Every violation, by run index.
    pub violations: Vec<Violation>,
    /// Per coverage category (see [`Case::tags`](crate::Case::tags)): the runs that exercised it.
    pub coverage: BTreeMap<String, u64>,
    /// Per combination (see [`combinations`]): the runs that took it.
    pub combos: Vec<u64>,
    /// Runs repeated event by event (cut-through off) for the `cut-through` check.
    pub cut_checked: u64,
    /// Simulated events over all runs.
    pub events: u64,
    /// The slowest run: (index, wall seconds).
    pub slowest: (u64, f64),
}

impl Report {
    fn merge(mut self, o: Report) -> Report {
        self.runs += o.runs;
        self.violations.extend(o.violations);
        for (k, v) in o.coverage {
            *self.coverage.entry(k).or_default() += v;
        }
        if self.combos.len() < o.combos.len() {
            self.combos.resize(o.combos.len(), 0);
        }
        for (i, v) in o.combos.iter().enumerate() {
            self.combos[i] += v;
        }
        self.cut_checked += o.cut_checked;
        self.events += o.events;
        if o.slowest.1 > self.slowest.1 {
            self.slowest = o.slowest;
        }
        self
    }

    /// Violations per kind, every kind listed.
    pub fn by_kind(&self) -> Vec<(Kind, u64)> {
        Kind::ALL.iter().map(|&k| (k, self.violations.iter().filter(|v| v.kind == k).count() as u64)).collect()
    }

    /// The coverage, one line per category group ("cc: reno 9091, ...").
    pub fn coverage_lines(&self) -> Vec<String> {
        let mut groups: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        for (k, v) in &self.coverage {
            let (group, value) = k.split_once(':').unwrap_or(("other", k));
            groups.entry(group).or_default().push(format!("{value} {v}"));
        }
        let mut lines: Vec<String> = groups.into_iter().map(|(g, vs)| format!("{g}: {}", vs.join(", "))).collect();
        let covered = self.combos.iter().filter(|&&n| n > 0).count();
        let min = self.combos.iter().copied().min().unwrap_or(0);
        lines.push(format!(
            "combinations (window policy × recovery × queue × capacity/channel/effect of the first flow and link): {covered} of {} covered, each at least {min} times",
            self.combos.len()
        ));
        lines
    }
}

/// Runs cases `from .. from + runs` of the campaign seeded `seed` on `jobs` threads (0: all
/// cores), each repeated event by event. The report does not depend on `jobs`.
pub fn run(seed: u64, from: u64, runs: u64, jobs: usize) -> Report {
    run_cut_every(seed, from, runs, jobs, 1)
}

/// [`run`] repeating only every `cut_every`-th run event by event (the runs whose index is
/// `cut_every - 1` modulo it; 0: none): the comparison doubles a run's cost.
pub fn run_cut_every(seed: u64, from: u64, runs: u64, jobs: usize, cut_every: u64) -> Report {
    use rayon::prelude::*;
    let n = combinations() as usize;
    let one = |index: u64| -> Report {
        let mut case = case(seed, index);
        case.cut_check = cut_every != 0 && index % cut_every == cut_every - 1;
        let t0 = std::time::Instant::now();
        let (violations, events, ahead) = check(&case);
        let wall = t0.elapsed().as_secs_f64();
        let mut combos = vec![0; n];
        combos[case.combo] += 1;
        Report {
            runs: 1,
            violations,
            coverage: case.tags.iter().cloned().chain(ahead.then(|| "engine:receivers-ahead".to_string())).map(|t| (t, 1)).collect(),
            combos,
            cut_checked: case.cut_check as u64,
            events,
            slowest: (index, wall),
        }
    };
    let empty = || Report { combos: vec![0; n], ..Report::default() };
    let all = || (from..from + runs).into_par_iter().map(one).reduce(empty, Report::merge);
    let mut report = match rayon::ThreadPoolBuilder::new().num_threads(jobs).build() {
        Ok(pool) => pool.install(all),
        Err(_) => (from..from + runs).map(one).fold(empty(), Report::merge),
    };
    report.violations.sort_by_key(|v| (v.index, v.kind));
    report
}

/// The campaign's one-line figure: runs, violations by kind, wall time and rate.
pub fn figure(report: &Report, seed: u64, jobs: usize, wall_s: f64) -> String {
    let kinds: Vec<String> = report.by_kind().iter().map(|(k, n)| format!("{} {n}", k.name())).collect();
    format!(
        "campaign: {} runs (seed {seed}, {jobs} job(s)), {} violations ({}), {:.1} s wall, {:.0} runs/s, slowest run #{} {:.3} s, {} runs repeated event by event",
        report.runs,
        report.violations.len(),
        kinds.join(", "),
        wall_s,
        report.runs as f64 / wall_s.max(1e-9),
        report.slowest.0,
        report.slowest.1,
        report.cut_checked
    )
}

/// A violation with what it takes to reproduce it: the scenario text (whose `seed` is the run's).
pub fn describe(seed: u64, v: &Violation) -> String {
    let case = case(seed, v.index);
    let mut s = String::new();
    let _ = writeln!(s, "violation [{}] run #{} (campaign seed {seed}, run seed {}): {}", v.kind.name(), v.index, case.seed, v.detail);
    let _ = writeln!(s, "reproduce: cargo run --profile test -p airtcp-testkit --bin campaign -- --seed {seed} --only {}", v.index);
    let _ = writeln!(s, "--- scenario (airtcp run FILE.toml) ---\n{}---", case.toml);
    s
}
