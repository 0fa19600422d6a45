//! airtcp: a deterministic packet-level simulator of TCP over lossy wired-cum-wireless paths.
//!
//! Data flows one way: scenario text → [`scenario::Scenario`] (validated) → a built network
//! ([`sim::Simulator`]) → the event loop → [`output::RunOutput`]. A run is a pure function of
//! (scenario text, seed): the same inputs give bit-identical outputs on any number of threads.

pub mod app;
pub mod cc;
pub mod channel;
pub mod engine;
pub mod metrics;
pub mod net;
pub mod output;
pub mod scenario;
pub mod sim;
pub mod tcp;
pub mod time;

pub use output::{FlowSeries, FlowSummary, LinkSeries, LinkSummary, RunOutput, Summary};
pub use scenario::{Scenario, ScenarioError};

/// Parses, validates and runs a scenario; `seed` overrides the file's `seed` when given.
pub fn run_toml(text: &str, seed: Option<u64>) -> Result<RunOutput, ScenarioError> {
    let scenario = scenario::parse(text)?;
    run_scenario(&scenario, seed)
}

/// Runs an already parsed scenario (validating it first).
pub fn run_scenario(scenario: &Scenario, seed: Option<u64>) -> Result<RunOutput, ScenarioError> {
    let mut sim = sim::Simulator::build(scenario, seed.unwrap_or(scenario.seed))?;
    Ok(sim.run())
}

/// Parses and validates a scenario without running it.
pub fn validate_toml(text: &str) -> Result<(), ScenarioError> {
    let scenario = scenario::parse(text)?;
    sim::Simulator::build(&scenario, scenario.seed).map(|_| ())
}

/// Runs many (scenario text, seed) jobs on `threads` worker threads (0 = all cores).
///
/// Each run is independent and deterministic, so the results equal those of running the jobs one
/// by one, in the same order as `jobs`.
pub fn run_many(jobs: &[(String, Option<u64>)], threads: usize) -> Vec<Result<RunOutput, ScenarioError>> {
    use rayon::prelude::*;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build();
    match pool {
        Ok(pool) => pool.install(|| jobs.par_iter().map(|(t, s)| run_toml(t, *s)).collect()),
        Err(_) => jobs.iter().map(|(t, s)| run_toml(t, *s)).collect(),
    }
}
