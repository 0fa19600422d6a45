//! airtcp: a deterministic packet-level simulator of TCP over lossy wired-cum-wireless paths.
//!
//! Data flows one way: scenario text → [`scenario::Scenario`] (parsed) → a
//! `scenario::plan::Plan` (checked once, names and parameters resolved) → a built network
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

pub(crate) mod app;
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
pub use scenario::{Limits, Scenario, ScenarioError};

/// A scenario as [`run`] takes it: its TOML text, or a scenario already parsed (a [`Scenario`]
/// carries the folder its relative paths resolve against in `base_dir`).
#[derive(Clone, Copy)]
pub enum Input<'a> {
    Text(&'a str),
    Parsed(&'a Scenario),
}

impl<'a> From<&'a str> for Input<'a> {
    fn from(text: &'a str) -> Self {
        Input::Text(text)
    }
}

impl<'a> From<&'a String> for Input<'a> {
    fn from(text: &'a String) -> Self {
        Input::Text(text)
    }
}

impl<'a> From<&'a Scenario> for Input<'a> {
    fn from(scenario: &'a Scenario) -> Self {
        Input::Parsed(scenario)
    }
}

/// How [`run`] runs a scenario, besides the scenario itself. The default: the file's seed,
/// relative paths against the working directory, no capture, the file's limits, never
/// interrupted, a full run.
#[derive(Debug, Default, Clone, Copy)]
pub struct RunOptions<'a> {
    /// Overrides the scenario's `seed`.
    pub seed: Option<u64>,
    /// Folder relative paths (trace files) of a scenario given as text resolve against: the
    /// scenario file's folder (a parsed [`Scenario`] keeps its own `base_dir`).
    pub base_dir: Option<&'a std::path::Path>,
    /// Writes the run's packet capture into this folder (one libpcap file per link direction, one
    /// per host in `hosts/`, and `events.csv`, see `net::pcap`).
    pub capture: Option<&'a std::path::Path>,
    /// Replaces the scenario's `[limits]`.
    pub limits: Option<&'a Limits>,
    /// Stops the run early when set (checked between slices of events, see
    /// [`sim::Simulator::run_until_stopped`]): the run then returns `Ok(None)`.
    pub interrupt: Option<&'a std::sync::atomic::AtomicBool>,
    /// Parses, checks and builds the scenario, and runs nothing: `Ok(None)` when it is valid.
    pub check_only: bool,
}

/// Parses (text), checks and runs a scenario: the library's one entry point. `Ok(Some(output))`
/// for a run to its end; `Ok(None)` when `interrupt` stopped it or `check_only` asked for the
/// checks alone; `Err` with one line naming the field for a scenario that cannot run, or the
/// limit a run exceeded. A run is a pure function of (scenario, seed).
pub fn run<'a>(input: impl Into<Input<'a>>, opts: &RunOptions) -> Result<Option<RunOutput>, ScenarioError> {
    let mut scenario = match input.into() {
        Input::Text(text) => {
            let mut s = scenario::parse(text)?;
            s.base_dir = opts.base_dir.map(|d| d.to_path_buf());
            std::borrow::Cow::Owned(s)
        }
        Input::Parsed(s) => std::borrow::Cow::Borrowed(s),
    };
    if let Some(limits) = opts.limits {
        scenario.to_mut().limits = limits.clone();
    }
    let mut sim = sim::Simulator::build(&scenario, opts.seed.unwrap_or(scenario.seed))?;
    if opts.check_only {
        return Ok(None);
    }
    // Parsing and building do not read `interrupt`; a Ctrl-C during them ends the run here,
    // before the capture creates its files.
    if opts.interrupt.is_some_and(|stop| stop.load(std::sync::atomic::Ordering::Relaxed)) {
        return Ok(None);
    }
    if let Some(dir) = opts.capture {
        sim.enable_pcap(dir)?;
    }
    match opts.interrupt {
        Some(stop) => sim.run_until_stopped(stop),
        None => sim.run().map(Some),
    }
}

/// One job of [`run_many`]: scenario text, seed override, folder for relative paths.
pub type Job = (String, Option<u64>, Option<std::path::PathBuf>);

/// Runs many jobs on `threads` worker threads (0 = all cores), each as [`run`] does.
///
/// Each run is independent and deterministic, so the results equal those of running the jobs one
/// by one, in the same order as `jobs`. When `interrupt` is set, runs in progress end at their next
/// check and jobs not yet started do not start; each of those is `Ok(None)`.
pub fn run_many(
    jobs: &[Job],
    threads: usize,
    interrupt: Option<&std::sync::atomic::AtomicBool>,
) -> Vec<Result<Option<RunOutput>, ScenarioError>> {
    use rayon::prelude::*;
    let one = |(t, s, d): &Job| {
        if interrupt.is_some_and(|stop| stop.load(std::sync::atomic::Ordering::Relaxed)) {
            return Ok(None);
        }
        run(t, &RunOptions { seed: *s, base_dir: d.as_deref(), interrupt, ..Default::default() })
    };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build();
    match pool {
        Ok(pool) => pool.install(|| jobs.par_iter().map(one).collect()),
        Err(_) => jobs.iter().map(one).collect(),
    }
}
