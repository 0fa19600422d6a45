//! `airtcp._core`: the thin PyO3 layer between the Rust engine and the Python package.
//!
//! It only converts: scenario text in, a dict of plain Python values out. Everything a user sees
//! (DataFrames, the CLI, plots) lives in `python/airtcp/`. Simulations run with the GIL released,
//! so Python threads (a progress bar, other work) keep running meanwhile, and Ctrl-C stops them
//! (see `interruptible`).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use pyo3::create_exception;
use pyo3::exceptions::{PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

create_exception!(
    airtcp,
    ScenarioError,
    PyValueError,
    "A scenario file that cannot be parsed, validated or built; the message is one line."
);

fn scenario_err(e: airtcp::ScenarioError) -> PyErr {
    ScenarioError::new_err(e.to_string())
}

/// Converts one run's output into {"summary_json", "flow_series", "link_series"}.
fn output_to_dict(py: Python<'_>, out: airtcp::RunOutput) -> PyResult<Py<PyDict>> {
    let summary_json =
        serde_json::to_string(&out.summary).map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(format!("serializing summary: {e}")))?;

    let fs = out.flow_series;
    let rows = 0..fs.rows();
    // TCP-only columns are plain values in Rust (0 / NaN for UDP rows): nulls here.
    let tcp: Vec<bool> = rows.clone().map(|i| fs.is_tcp(i)).collect();
    let int_col = |v: &[u64]| -> Vec<Option<u64>> { v.iter().zip(&tcp).map(|(&x, &t)| t.then_some(x)).collect() };
    let real_col = |v: &[f64]| -> Vec<Option<f64>> { v.iter().map(|&x| Some(x).filter(|x| !x.is_nan())).collect() };
    let flow = PyDict::new(py);
    // A row's instant, flow and goodput follow from its place (`FlowSeries`): columns here.
    flow.set_item("time_s", rows.clone().map(|i| fs.time_s(i)).collect::<Vec<_>>())?;
    flow.set_item("flow", rows.clone().map(|i| fs.flow_name(i)).collect::<Vec<_>>())?;
    flow.set_item("cwnd_bytes", int_col(&fs.cwnd_bytes))?;
    flow.set_item("ssthresh_bytes", int_col(&fs.ssthresh_bytes))?;
    flow.set_item("srtt_s", real_col(&fs.srtt_s))?;
    flow.set_item("rto_s", real_col(&fs.rto_s))?;
    flow.set_item("sent_bytes", &fs.sent_bytes)?;
    flow.set_item("delivered_bytes", &fs.delivered_bytes)?;
    flow.set_item("goodput_bps", rows.map(|i| fs.goodput_bps(i)).collect::<Vec<_>>())?;
    flow.set_item("acked_bytes", int_col(&fs.acked_bytes))?;
    // Stored only for the flows whose policy declares an estimate (`FlowSeries::bwe_index`).
    let bwe: Vec<f64> = (0..fs.rows()).map(|i| fs.bwe_bps(i)).collect();
    flow.set_item("bwe_bps", real_col(&bwe))?;
    // Every further estimate a window policy declares (e.g. CAIAD's alpha): one column each.
    for col in &fs.estimates {
        flow.set_item(col.name, real_col(&col.values))?;
    }

    let ls = out.link_series;
    let rows = 0..ls.rows();
    let link = PyDict::new(py);
    link.set_item("time_s", rows.clone().map(|i| ls.time_s(i)).collect::<Vec<_>>())?;
    link.set_item("link", rows.clone().map(|i| ls.link_name(i)).collect::<Vec<_>>())?;
    // Stored only for the links whose queue keeps an average or may mark (`LinkSeries::aqm_index`):
    // columns here.
    let avg: Vec<f64> = rows.clone().map(|i| ls.avg_queue_pkts(i)).collect();
    let ce: Vec<u64> = rows.map(|i| ls.ce_marks(i)).collect();
    link.set_item("queue_pkts", ls.queue_pkts)?;
    link.set_item("avg_queue_pkts", avg)?;
    link.set_item("drops", ls.drops)?;
    link.set_item("ce_marks", ce)?;

    let d = PyDict::new(py);
    d.set_item("summary_json", summary_json)?;
    d.set_item("flow_series", flow)?;
    d.set_item("link_series", link)?;
    Ok(d.unbind())
}

/// How often the waiting thread looks for a pending Python signal (Ctrl-C).
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// How long the caller waits for the work to end after a Ctrl-C set its stop flag. A run reads
/// the flag every `airtcp::sim::EVENTS_PER_STOP_CHECK` events (a few tens of milliseconds of
/// wall time, more on a starved machine) and so ends well inside it, and is then joined;
/// parsing, validating and building a large scenario do not read it (they are linear in the
/// input, but a few megabytes of it take seconds), and only they outlast it. With
/// [`SIGNAL_POLL`] this keeps a Ctrl-C taking effect within a second at any moment (issue 39).
const STOP_GRACE: Duration = Duration::from_millis(300);

/// Engine threads this module started that have not ended: the worker of each
/// [`interruptible`] call and the threads of [`run_jobs`]' pool. Read by `_live_threads` (the
/// tests' view of "no thread of ours outlives the call").
static LIVE_THREADS: AtomicUsize = AtomicUsize::new(0);

/// One engine thread counted in [`LIVE_THREADS`] from its creation until this is dropped, as
/// the last thing the thread does.
struct LiveThread;

impl LiveThread {
    fn new() -> Self {
        LIVE_THREADS.fetch_add(1, Ordering::SeqCst);
        LiveThread
    }
}

impl Drop for LiveThread {
    fn drop(&mut self) {
        LIVE_THREADS.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Runs `work` on a worker thread while the calling thread waits for it without the GIL. Python
/// runs its signal handlers only on the main thread and only when asked, so while it waits the
/// caller asks every [`SIGNAL_POLL`]: a pending Ctrl-C (the handler raises `KeyboardInterrupt`)
/// sets the stop flag that the engine reads before and during a run, and that error is raised
/// once the worker has ended (joined), or after [`STOP_GRACE`] if it has not.
///
/// So a call that returns or raises leaves no thread of ours behind: none of it can run while a
/// script that caught the `KeyboardInterrupt` exits and the interpreter finalizes, and a run
/// stopped in the middle has ended before the caller cleans up after it. (The one abort seen at
/// that moment, status -6 in `PyThreadState_Get`, was matplotlib's, see `airtcp.plots`; the
/// worker never held a Python object.) Work past the grace (only parsing, validating and
/// building a large scenario, which do not read the flag) is left to end on its own so that
/// Ctrl-C still takes effect within a second; it touches no Python object (`work` and `T` are
/// plain Rust values: scenario text, paths, the engine's output; the GIL is never taken on the
/// worker), stops at the engine's next look at the flag (before anything is run or written, see
/// `airtcp::run`), and its result is dropped on that thread; a process that exits takes it
/// along. Off the main thread `check_signals` finds nothing, and the work simply runs to its end.
/// A panic in `work` is resumed here, so it surfaces as before.
fn interruptible<T: Send + 'static>(py: Python<'_>, work: impl FnOnce(&AtomicBool) -> T + Send + 'static) -> PyResult<T> {
    let stop = Arc::new(AtomicBool::new(false));
    let mut pending: Option<PyErr> = None;
    let done: Result<Option<std::thread::Result<T>>, String> = py.allow_threads(|| {
        let (tx, rx) = channel();
        let flag = Arc::clone(&stop);
        let live = LiveThread::new();
        let worker = std::thread::Builder::new()
            .name("airtcp-run".into())
            .spawn(move || {
                let _live = live;
                let _ = tx.send(std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(&flag))));
            })
            .map_err(|e| format!("cannot start the engine's thread: {e}"))?;
        let mut deadline: Option<Instant> = None;
        loop {
            let wait = match deadline {
                Some(d) => d.saturating_duration_since(Instant::now()),
                None => SIGNAL_POLL,
            };
            match rx.recv_timeout(wait) {
                Ok(r) => {
                    // it has sent its last value: the join waits only for the thread's exit
                    let _ = worker.join();
                    return Ok(Some(r));
                }
                Err(RecvTimeoutError::Timeout) => {
                    if deadline.is_some() {
                        return Ok(None); // interrupted while the engine builds; left to end on its own
                    }
                    if let Err(e) = Python::with_gil(|py| py.check_signals()) {
                        pending = Some(e);
                        stop.store(true, Ordering::Relaxed);
                        deadline = Some(Instant::now() + STOP_GRACE);
                    }
                }
                Err(RecvTimeoutError::Disconnected) => unreachable!("the worker sends before it ends"),
            }
        }
    });
    let out = match done {
        Ok(Some(Ok(v))) => Some(v),
        Ok(Some(Err(payload))) => std::panic::resume_unwind(payload),
        Ok(None) => None,
        Err(e) => return Err(pyo3::exceptions::PyRuntimeError::new_err(e)),
    };
    match (pending, out) {
        (Some(e), _) => Err(e),
        (None, Some(v)) => Ok(v),
        (None, None) => unreachable!("the wait ends early only after a signal"),
    }
}

/// `airtcp::run_many` on a pool whose threads are all joined before it returns (rayon's
/// `build_scoped`; a pool of `ThreadPoolBuilder::build` lets its threads end after the call):
/// each job as `airtcp::run` with `stop`, results in job order, jobs not started when `stop` is
/// set and runs it stopped are `Ok(None)`, exactly as `airtcp::run_many`.
fn run_jobs(jobs: &[airtcp::Job], threads: usize, stop: &AtomicBool) -> Vec<Result<Option<airtcp::RunOutput>, airtcp::ScenarioError>> {
    use rayon::prelude::*;
    let one = |(t, s, d): &airtcp::Job| {
        if stop.load(Ordering::Relaxed) {
            return Ok(None);
        }
        airtcp::run(t, &airtcp::RunOptions { seed: *s, base_dir: d.as_deref(), interrupt: Some(stop), ..Default::default() })
    };
    let pooled = rayon::ThreadPoolBuilder::new().num_threads(threads).thread_name(|i| format!("airtcp-run-{i}")).build_scoped(
        |thread| {
            let _live = LiveThread::new();
            thread.run()
        },
        |pool| pool.install(|| jobs.par_iter().map(one).collect()),
    );
    pooled.unwrap_or_else(|_| jobs.iter().map(one).collect())
}

/// How many engine threads of this module are alive (the worker of a call and a sweep's pool
/// threads): 0 after any call has returned or raised, except one interrupted while the engine
/// was still building a large scenario (see `interruptible`). For the tests.
#[pyfunction(name = "_live_threads")]
fn live_threads() -> usize {
    LIVE_THREADS.load(Ordering::SeqCst)
}

fn interrupted() -> PyErr {
    PyKeyboardInterrupt::new_err("interrupted")
}

/// Parses, validates and runs one scenario (TOML text). `seed` overrides the file's seed; with
/// `pcap_dir`, the run's packet capture is written there (one libpcap file per link direction, one
/// per host in `hosts/`, and `events.csv`).
#[pyfunction]
#[pyo3(signature = (scenario_text, seed=None, base_dir=None, pcap_dir=None))]
fn run(
    py: Python<'_>,
    scenario_text: String,
    seed: Option<u64>,
    base_dir: Option<PathBuf>,
    pcap_dir: Option<PathBuf>,
) -> PyResult<Py<PyDict>> {
    let out = interruptible(py, move |stop| {
        airtcp::run(
            &scenario_text,
            &airtcp::RunOptions {
                seed,
                base_dir: base_dir.as_deref(),
                capture: pcap_dir.as_deref(),
                interrupt: Some(stop),
                ..Default::default()
            },
        )
    })?
    .map_err(scenario_err)?
    .ok_or_else(interrupted)?;
    output_to_dict(py, out)
}

/// Runs many (scenario text, seed) jobs on `jobs_n` threads (0 = all cores); results keep job order.
/// If any job fails, raises ScenarioError naming the first failing job's index.
#[pyfunction]
#[pyo3(signature = (jobs, jobs_n=0))]
fn run_many(py: Python<'_>, jobs: Vec<(String, Option<u64>, Option<PathBuf>)>, jobs_n: usize) -> PyResult<Vec<Py<PyDict>>> {
    let results = interruptible(py, move |stop| run_jobs(&jobs, jobs_n, stop))?;
    let mut outs = Vec::with_capacity(results.len());
    for (i, r) in results.into_iter().enumerate() {
        match r {
            Ok(Some(out)) => outs.push(out),
            Ok(None) => return Err(interrupted()),
            Err(e) => return Err(ScenarioError::new_err(format!("job {i}: {e}"))),
        }
    }
    outs.into_iter().map(|o| output_to_dict(py, o)).collect()
}

/// Parses and validates a scenario without running it; raises ScenarioError when it is invalid.
#[pyfunction]
#[pyo3(signature = (scenario_text, base_dir=None))]
fn validate(py: Python<'_>, scenario_text: String, base_dir: Option<PathBuf>) -> PyResult<()> {
    interruptible(py, move |_| {
        airtcp::run(&scenario_text, &airtcp::RunOptions { base_dir: base_dir.as_deref(), check_only: true, ..Default::default() })
            .map(|_| ())
    })?
    .map_err(scenario_err)
}

/// What each window policy and each loss recovery needs from its flow's options, read from the
/// engine's registries (`cc::REGISTRY` with default parameters, `tcp::recovery::REGISTRY`):
/// `{"cc": {name: {"ecn": bool, "timestamps": bool, "sack": bool}}, "recovery": {name: {"sack":
/// bool}}}`. The Python presets (`airtcp.presets`) add these options to a flow that leaves them
/// out, so that a sweep over schemes needs no per-scheme options; the engine stays the one place
/// that says what a scheme needs (validation rejects a flow without them).
/// A scenario duration ("20s", "1.5ms") in nanoseconds, parsed by the engine's own parser, so
/// the Python side checks `--duration` and spec times exactly as a run reads them (one parser, not
/// two); ValueError with the engine's message.
#[pyfunction]
fn parse_duration_ns(text: &str) -> PyResult<u64> {
    text.parse::<airtcp::time::SimDuration>().map(|d| d.as_nanos()).map_err(PyValueError::new_err)
}

/// A mahimahi trace's delivery opportunities in milliseconds, parsed by the engine's own parser
/// (the checks and one-line errors of a run); ValueError naming the line.
#[pyfunction]
fn parse_mahimahi(text: &str) -> PyResult<Vec<u64>> {
    airtcp::net::capacity::trace::parse_mahimahi(text).map(|o| o.ms().to_vec()).map_err(PyValueError::new_err)
}

/// `--set KEY=VALUE` assignments applied to scenario text by the engine's one implementation of
/// the rule (`airtcp::scenario::overrides`), so the CLI, the Python API and the Rust tests cannot
/// drift apart; the user's layout and comments are kept. ValueError with a one-line message.
#[pyfunction]
fn apply_overrides(scenario_text: &str, sets: Vec<String>) -> PyResult<String> {
    let sets: Vec<&str> = sets.iter().map(String::as_str).collect();
    airtcp::scenario::overrides::apply_overrides(scenario_text, &sets).map_err(PyValueError::new_err)
}

/// Typed values set at dotted paths by the same rule: each `(key, value)` has the value as a TOML
/// document whose key `v` holds it (a sweep's grid point, an experiment's assignment). Returns
/// the text and the path each value was set at (indices counted from the start).
#[pyfunction]
fn set_values(scenario_text: &str, values: Vec<(String, String)>) -> PyResult<(String, Vec<Vec<String>>)> {
    let values: Vec<(&str, &str)> = values.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    airtcp::scenario::overrides::set_values(scenario_text, &values).map_err(PyValueError::new_err)
}

/// An override value as `--set` reads it (a TOML value, else a string), as a TOML document whose
/// key `v` holds it. ValueError for a value too long, too deep or an integer out of range.
#[pyfunction]
fn override_value(text: &str) -> PyResult<String> {
    airtcp::scenario::overrides::value_document(text).map_err(PyValueError::new_err)
}

/// An engine error about a scenario made with `--set` pointed back at the user's input: the
/// `--set` that caused it, or the user's file (`source`) and line. `original_error` is the
/// engine's error about the user's file itself (None when it is valid).
#[pyfunction]
#[pyo3(signature = (message, scenario_text, source, sets, original_error = None))]
fn locate_override_error(message: &str, scenario_text: &str, source: &str, sets: Vec<String>, original_error: Option<&str>) -> String {
    let sets: Vec<&str> = sets.iter().map(String::as_str).collect();
    airtcp::scenario::overrides::locate_error(message, scenario_text, source, &sets, original_error)
}

#[pyfunction]
fn flow_requirements(py: Python<'_>) -> PyResult<Py<PyDict>> {
    let cc = PyDict::new(py);
    for s in airtcp::cc::REGISTRY {
        let needs = (s.resolve)(None)
            .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(format!("{} without parameters: {e}", s.name)))?()
        .needs();
        let d = PyDict::new(py);
        d.set_item("ecn", needs.ecn)?;
        d.set_item("timestamps", needs.timestamps)?;
        d.set_item("sack", needs.sack)?;
        cc.set_item(s.name, d)?;
    }
    let recovery = PyDict::new(py);
    for s in airtcp::tcp::recovery::REGISTRY {
        let d = PyDict::new(py);
        d.set_item("sack", s.needs_sack)?;
        recovery.set_item(s.name, d)?;
    }
    let out = PyDict::new(py);
    out.set_item("cc", cc)?;
    out.set_item("recovery", recovery)?;
    Ok(out.unbind())
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(run_many, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(live_threads, m)?)?;
    m.add_function(wrap_pyfunction!(flow_requirements, m)?)?;
    m.add_function(wrap_pyfunction!(parse_duration_ns, m)?)?;
    m.add_function(wrap_pyfunction!(parse_mahimahi, m)?)?;
    m.add_function(wrap_pyfunction!(apply_overrides, m)?)?;
    m.add_function(wrap_pyfunction!(set_values, m)?)?;
    m.add_function(wrap_pyfunction!(override_value, m)?)?;
    m.add_function(wrap_pyfunction!(locate_override_error, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
