//! Stopping a run early (Ctrl-C): a set flag ends it with `None`; a flag never set changes nothing.

use std::sync::atomic::AtomicBool;
mod common;
use common::variant;

const FIG10: &str = include_str!("../../../examples/jersey_fig10.toml");

/// Slicing the run to read the flag changes no event's order: summary and series are identical
/// to a run in one slice, for a lossy 1000-s run: its slices start at 1 ms and double while
/// they hold under half of `EVENTS_PER_STOP_CHECK`, so its ~255 000 events cross some twenty
/// slice boundaries, the later slices sized by the event count.
#[test]
fn unset_flag_gives_the_same_results_as_run() {
    let text = variant(FIG10, &["duration=1000s"]);
    let scenario = airtcp::scenario::parse(&text).unwrap();
    let plain = airtcp::sim::Simulator::build(&scenario, 7).unwrap().run_in_one_slice();
    let never = AtomicBool::new(false);
    let sliced = airtcp::run_toml_in_until_stopped(&text, Some(7), None, &never).unwrap().expect("not stopped");
    assert!(plain.summary.events > airtcp::sim::EVENTS_PER_STOP_CHECK, "too few events for sized slices");
    assert_eq!(serde_json::to_string(&plain.summary).unwrap(), serde_json::to_string(&sliced.summary).unwrap());
    assert_eq!(format!("{:?}", plain.flow_series), format!("{:?}", sliced.flow_series));
    assert_eq!(format!("{:?}", plain.link_series), format!("{:?}", sliced.link_series));
}

/// A flag already set stops a run of 10^6 simulated seconds before its first slice, and
/// `run_many` starts none of its jobs.
#[test]
fn set_flag_stops_runs_and_jobs() {
    let long = variant(FIG10, &["duration=1000000s", "sample_interval=10s"]);
    let stop = AtomicBool::new(true);
    assert!(airtcp::run_toml_in_until_stopped(&long, None, None, &stop).unwrap().is_none());
    let jobs: Vec<airtcp::Job> = (0..3).map(|s| (long.clone(), Some(s), None)).collect();
    let out = airtcp::run_many_until_stopped(&jobs, 2, &stop);
    assert_eq!(out.len(), 3);
    assert!(out.iter().all(|r| matches!(r, Ok(None))));
}
