//! airtcp: a deterministic packet-level simulator of TCP over lossy wired-cum-wireless paths.
//!
//! Data flows one way: scenario text → [`scenario::Scenario`] (parsed) → a
//! [`scenario::plan::Plan`] (checked once, names and parameters resolved) → a built network
//! ([`sim::Simulator`]) → the event loop → [`output::RunOutput`]. A run is a pure function of
//! (scenario text, seed): the same inputs give bit-identical outputs on any number of threads.
//! The module map and where to add a window policy, a recovery strategy, a channel, a queue or a
//! capacity model are in the repository's `docs/ARCHITECTURE.md`.

/// The `name` fields of a registry table (`cc::REGISTRY`, `tcp::recovery::REGISTRY`) as an array,
/// at compile time: the names a scenario accepts come from the table that builds them.
macro_rules! registry_names {
    ($registry:expr) => {{
        let mut names = [""; $registry.len()];
        let mut i = 0;
        while i < $registry.len() {
            names[i] = $registry[i].name;
            i += 1;
        }
        names
    }};
}

pub mod app;
pub mod campaign;
pub mod cc;
pub mod channel;
pub mod engine;
pub mod metrics;
pub mod net;
pub mod output;
pub mod scenario;
pub mod sim;
mod spec;
pub mod tcp;
pub mod time;

pub use output::{FlowSeries, FlowSummary, LinkSeries, LinkSummary, RunOutput, Summary};
pub use scenario::{Scenario, ScenarioError};

/// Parses, validates and runs a scenario; `seed` overrides the file's `seed` when given.
/// Relative paths in it (trace files) are resolved against the working directory.
pub fn run_toml(text: &str, seed: Option<u64>) -> Result<RunOutput, ScenarioError> {
    run_toml_in(text, seed, None)
}

/// [`run_toml`] with relative paths resolved against `base_dir` (the scenario file's folder).
pub fn run_toml_in(text: &str, seed: Option<u64>, base_dir: Option<&std::path::Path>) -> Result<RunOutput, ScenarioError> {
    run_scenario(&parse_in(text, base_dir)?, seed)
}

/// Parses a scenario whose relative paths resolve against `base_dir`.
fn parse_in(text: &str, base_dir: Option<&std::path::Path>) -> Result<Scenario, ScenarioError> {
    let mut scenario = scenario::parse(text)?;
    scenario.base_dir = base_dir.map(|d| d.to_path_buf());
    Ok(scenario)
}

/// Runs an already parsed scenario (validating it first).
pub fn run_scenario(scenario: &Scenario, seed: Option<u64>) -> Result<RunOutput, ScenarioError> {
    let mut sim = sim::Simulator::build(scenario, seed.unwrap_or(scenario.seed))?;
    sim.run()
}

/// [`run_toml_in`] that stops early when `stop` is set (see [`sim::Simulator::run_until_stopped`]):
/// `Ok(None)` when it stopped, otherwise the same results as [`run_toml_in`].
pub fn run_toml_in_until_stopped(
    text: &str,
    seed: Option<u64>,
    base_dir: Option<&std::path::Path>,
    stop: &std::sync::atomic::AtomicBool,
) -> Result<Option<RunOutput>, ScenarioError> {
    run_toml_capturing(text, seed, base_dir, None, stop)
}

/// [`run_toml_in_until_stopped`] that also writes a packet capture into `pcap_dir` (one libpcap
/// file per link direction and `events.csv`, see [`net::pcap`]) when given.
pub fn run_toml_capturing(
    text: &str,
    seed: Option<u64>,
    base_dir: Option<&std::path::Path>,
    pcap_dir: Option<&std::path::Path>,
    stop: &std::sync::atomic::AtomicBool,
) -> Result<Option<RunOutput>, ScenarioError> {
    let scenario = parse_in(text, base_dir)?;
    let mut sim = sim::Simulator::build(&scenario, seed.unwrap_or(scenario.seed))?;
    if let Some(dir) = pcap_dir {
        sim.enable_pcap(dir)?;
    }
    sim.run_until_stopped(stop)
}

/// Parses and validates a scenario without running it.
pub fn validate_toml(text: &str) -> Result<(), ScenarioError> {
    validate_toml_in(text, None)
}

/// [`validate_toml`] with relative paths resolved against `base_dir`.
pub fn validate_toml_in(text: &str, base_dir: Option<&std::path::Path>) -> Result<(), ScenarioError> {
    let scenario = parse_in(text, base_dir)?;
    sim::Simulator::build(&scenario, scenario.seed).map(|_| ())
}

/// One job of [`run_many`]: scenario text, seed override, folder for relative paths.
pub type Job = (String, Option<u64>, Option<std::path::PathBuf>);

/// Runs many jobs on `threads` worker threads (0 = all cores).
///
/// Each run is independent and deterministic, so the results equal those of running the jobs one
/// by one, in the same order as `jobs`.
pub fn run_many(jobs: &[Job], threads: usize) -> Vec<Result<RunOutput, ScenarioError>> {
    let never = std::sync::atomic::AtomicBool::new(false);
    run_many_until_stopped(jobs, threads, &never).into_iter().map(|r| r.map(|o| o.expect("the stop flag is never set"))).collect()
}

/// [`run_many`] that stops early when `stop` is set: runs in progress end at their next check,
/// jobs not yet started do not start; each of those is `Ok(None)`.
pub fn run_many_until_stopped(
    jobs: &[Job],
    threads: usize,
    stop: &std::sync::atomic::AtomicBool,
) -> Vec<Result<Option<RunOutput>, ScenarioError>> {
    use rayon::prelude::*;
    let one = |(t, s, d): &Job| {
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            return Ok(None);
        }
        run_toml_in_until_stopped(t, *s, d.as_deref(), stop)
    };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build();
    match pool {
        Ok(pool) => pool.install(|| jobs.par_iter().map(one).collect()),
        Err(_) => jobs.iter().map(one).collect(),
    }
}
