//! Stopping a run early (Ctrl-C): a set flag ends it with `None`; a flag never set changes nothing.

use crate::common::variant;
use std::sync::atomic::AtomicBool;

const FIG10: &str = include_str!("../../../../examples/jersey_fig10.toml");

/// Slicing the run to read the flag changes no event's order: summary and series are identical
/// to a run in one slice, for a lossy 1000-s run whose ~255 000 events cross slice boundaries
/// every `EVENTS_PER_STOP_CHECK` events, wherever in an instant they fall.
#[test]
fn unset_flag_gives_the_same_results_as_run() {
    let text = variant(FIG10, &["duration=1000s"]);
    let scenario = airtcp::scenario::parse(&text).unwrap();
    let plain = airtcp::sim::Simulator::build(&scenario, 7).unwrap().run_in_one_slice();
    let never = AtomicBool::new(false);
    let sliced = airtcp::run(&text, &airtcp::RunOptions { seed: Some(7), interrupt: Some(&never), ..Default::default() })
        .unwrap()
        .expect("not stopped");
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
    assert!(airtcp::run(&long, &airtcp::RunOptions { interrupt: Some(&stop), ..Default::default() }).unwrap().is_none());
    let jobs: Vec<airtcp::Job> = (0..3).map(|s| (long.clone(), Some(s), None)).collect();
    let out = airtcp::run_many(&jobs, 2, Some(&stop));
    assert_eq!(out.len(), 3);
    assert!(out.iter().all(|r| matches!(r, Ok(None))));
}

/// Fig. 10 with its flow starting late: 5000 quiet simulated seconds, then 50 s of traffic.
fn late_start(limits: &str) -> String {
    let mut t = variant(FIG10, &["duration=5050s", "sample_interval=10s", "flows.0.start=5000s"]);
    t.push_str(limits);
    t
}

/// The simulated time at which a run stopped, read from its one-line error.
fn stopped_at(e: &airtcp::scenario::ScenarioError) -> f64 {
    let m = e.to_string();
    let at = m.split("stopped at t = ").nth(1).unwrap_or_else(|| panic!("no stop time in: {m}"));
    at.split('s').next().unwrap().parse().unwrap()
}

/// Issue 39: the limits hold after a quiet stretch of simulated time. Slices used to double over
/// the 5000 quiet seconds until one held the rest of the run, whose events then ran unchecked:
/// a run over `max_events` failed only at its end (t = 5050 s). Now it fails on its first event
/// past the limit, just after the flow starts, with the field named in one line.
#[test]
fn event_limit_holds_after_a_quiet_stretch() {
    // The whole run takes some 14 000 events.
    let text = late_start("[limits]\nmax_events = 2000\n");
    let Err(e) = airtcp::run(&text, &airtcp::RunOptions { seed: Some(1), ..Default::default() }).map(Option::unwrap) else {
        panic!("the run should fail")
    };
    let m = e.to_string();
    assert!(m.starts_with("limits.max_events: the run needs more than 2000 events"), "{m}");
    assert!(!m.contains('\n'), "{m}");
    let t = stopped_at(&e);
    // 2000 events of the flow are some seconds of its traffic.
    assert!((5000.0..5020.0).contains(&t), "stopped at t = {t}s");
}

/// A CBR source at 800 Mb/s of 1000-byte packets starting after 5000 quiet seconds: some 2·10^5
/// events per busy simulated second, 10^8 over the 500 busy seconds (seconds of wall time).
const LATE_CBR: &str = r#"
duration = "5500s"
sample_interval = "10s"
nodes = ["a", "b"]
[[links]]
from = "a"
to = "b"
rate = "1Gbps"
delay = "1ms"
[[flows]]
kind = "cbr"
src = "a"
dst = "b"
packet_bytes = 1000
rate = "800Mbps"
start = "5000s"
"#;

/// The same for `wall_clock`: a limit well under the run's own wall time stops it at a
/// simulated time short of its end (it used to run the whole busy stretch in one slice).
#[test]
fn wall_clock_holds_after_a_quiet_stretch() {
    let text = format!("{LATE_CBR}[limits]\nwall_clock = \"50ms\"\n");
    let Err(e) = airtcp::run(&text, &airtcp::RunOptions { seed: Some(1), ..Default::default() }).map(Option::unwrap) else {
        panic!("the run should fail")
    };
    let m = e.to_string();
    assert!(m.starts_with("limits.wall_clock: the run took longer than 0.05s"), "{m}");
    let t = stopped_at(&e);
    assert!((5000.0..5500.0).contains(&t), "stopped at t = {t}s");
}

/// And for the stop flag (Ctrl-C): set from another thread while the run is in its busy
/// stretch, it ends the run before its end.
#[test]
fn stop_flag_holds_after_a_quiet_stretch() {
    let scenario = airtcp::scenario::parse(LATE_CBR).unwrap();
    let mut sim = airtcp::sim::Simulator::build(&scenario, 1).unwrap();
    let stop = AtomicBool::new(false);
    let out = std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(std::time::Duration::from_millis(50));
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        });
        sim.run_until_stopped(&stop)
    });
    assert!(out.unwrap().is_none(), "the run ended before the flag was read");
    assert!(sim.now() < 5_500_000_000_000, "stopped at the end");
}
