//! The scenario target: parser, validation, and a bounded run.
//!
//! Bytes are read as UTF-8 (invalid sequences replaced, as a lossy reader would) and handed to
//! [`airtcp::run`] (`check_only`) with relative paths resolved against the repository's
//! `examples/` (so the corpus's trace-file scenarios load their traces). The outcome must be a
//! clean error — one non-empty line without internal markers — or a valid scenario. A valid
//! scenario is then run with [`airtcp::run`] with an `interrupt` flag, a watchdog setting the stop
//! flag after [`RUN_BUDGET`] of wall time: building it again must succeed, and a run that finishes
//! quickly is run a second time and must give the same summary (a run is a pure function of
//! scenario and seed). A panic anywhere is a finding.
//!
//! Nothing in the scenario is clamped. Instead [`skip_reason`] passes over the inputs that hit
//! the problems the lead's range checks of `scenario/validate.rs` are fixing (issue 25), so that
//! the fuzzer does not stop at them again and again; they are listed in the fuzzing report with a
//! reproducing input each. Each rule names what it avoids.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Wall time a valid scenario may run before the watchdog stops it.
pub const RUN_BUDGET: Duration = Duration::from_millis(300);

/// A run that finished within this much wall time is run again to check determinism.
const RERUN_BELOW: Duration = Duration::from_millis(30);

/// The folder relative trace paths resolve against: the repository's `examples/`.
pub fn base_dir() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples"))
}

/// Runs one input (panics on a finding).
pub fn run(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Some(why) = skip_reason(&text) {
        if crate::tracing() {
            eprintln!("skipped: {why}");
        }
        return;
    }
    match airtcp::run(&*text, &airtcp::RunOptions { base_dir: Some(base_dir()), check_only: true, ..Default::default() }).map(|_| ()) {
        Err(e) => {
            if crate::tracing() {
                eprintln!("invalid: {}", e.message);
            }
            check_error(&e)
        }
        Ok(()) => run_bounded(&text),
    }
}

/// Why an input is passed over (a problem already being fixed elsewhere), if it is.
///
/// `AIRTCP_FUZZ_NO_SKIP=1` turns the rules off, to reproduce those problems.
pub fn skip_reason(text: &str) -> Option<&'static str> {
    static OFF: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if *OFF.get_or_init(|| std::env::var_os("AIRTCP_FUZZ_NO_SKIP").is_some_and(|v| v != "0")) {
        return None;
    }
    // Files outside the examples (absolute paths, `..`): reading the machine's files is the
    // file-reading hardening's subject (issue 25 part 4), not this target's.
    let value: toml::Table = text.parse().ok()?;
    let mut reason = None;
    walk(&toml::Value::Table(value), "", &mut |key, v| {
        if reason.is_some() {
            return;
        }
        // Huge durations, counts, windows and group starts used to be skipped here; validation
        // now refuses them before allocating (issue 25 part 1), so the target runs them.
        if let toml::Value::String(s) = v {
            if key == "file" && (Path::new(s).is_absolute() || s.contains("..")) {
                reason = Some("a trace file outside examples/");
            }
        }
    });
    reason
}

/// Calls `f(key, value)` for every value in `v` (depth first; array items get their array's key).
fn walk(v: &toml::Value, key: &str, f: &mut dyn FnMut(&str, &toml::Value)) {
    f(key, v);
    match v {
        toml::Value::Table(t) => t.iter().for_each(|(k, x)| walk(x, k, f)),
        toml::Value::Array(a) => a.iter().for_each(|x| walk(x, key, f)),
        _ => {}
    }
}

/// A scenario error must display as one non-empty line (the API raises it, the CLI prints it as
/// `error: <message>`; a line break here is any character Python's `str.splitlines` breaks at) and
/// must not leak the parser's inner-path marker.
pub fn check_error(e: &airtcp::ScenarioError) {
    assert!(!e.message.contains('\u{1}'), "inner-path marker leaked into {:?}", e.message);
    let shown = e.to_string();
    assert!(!shown.trim().is_empty(), "empty error message");
    let breaks = ['\n', '\r', '\u{b}', '\u{c}', '\u{1c}', '\u{1d}', '\u{1e}', '\u{85}', '\u{2028}', '\u{2029}'];
    assert!(!shown.contains(breaks), "error message of more than one line: {shown:?}");
}

/// Runs a validated scenario under the wall-clock budget.
fn run_bounded(text: &str) {
    let stop = AtomicBool::new(false);
    let (done, wait) = std::sync::mpsc::channel::<()>();
    let t0 = Instant::now();
    let out = std::thread::scope(|sc| {
        let stop = &stop;
        sc.spawn(move || {
            if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = wait.recv_timeout(RUN_BUDGET) {
                stop.store(true, Ordering::Relaxed);
            }
        });
        let out = airtcp::run(text, &airtcp::RunOptions { base_dir: Some(base_dir()), interrupt: Some(stop), ..Default::default() });
        drop(done);
        out
    });
    let took = t0.elapsed();
    if crate::tracing() {
        let events = out.as_ref().ok().and_then(|o| o.as_ref()).map(|o| o.summary.events);
        eprintln!("ran in {took:?}: {}", events.map_or("stopped".to_string(), |e| format!("{e} events")));
    }
    match out {
        Err(e) => panic!("validated, then failed to build: {e}"),
        Ok(None) => {}
        Ok(Some(first)) => {
            let summary = serde_json::to_string(&first.summary).expect("the summary serializes");
            if took < RERUN_BELOW {
                let again = airtcp::run(text, &airtcp::RunOptions { base_dir: Some(base_dir()), ..Default::default() })
                    .map(Option::unwrap)
                    .expect("validated");
                assert_eq!(summary, serde_json::to_string(&again.summary).unwrap(), "two runs of one scenario and seed differ");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_only_the_known_problems() {
        assert_eq!(skip_reason("duration = \"10s\"\nnodes = [\"a\"]"), None);
        // Validation refuses these now (issue 25 part 1): they are fuzzed, not skipped.
        assert!(skip_reason("duration = \"10000001s\"").is_none());
        assert!(skip_reason("[[flows]]\ncount = 4294967295").is_none());
        assert!(skip_reason("[[flows]]\ncount = 100000\nstart_spacing = \"10000000s\"").is_none());
        assert!(skip_reason("[[flows]]\nrwnd_pkts = 4294967295").is_none());
        assert!(skip_reason("[[links]]\ncapacity = { kind = \"trace\", file = \"/etc/passwd\" }").is_some());
        assert_eq!(skip_reason("not toml ["), None, "invalid TOML goes to the parser");
    }

    #[test]
    fn one_line_messages() {
        check_error(&airtcp::ScenarioError::new("flows[0].cc", "unknown window policy 'x'"));
        check_error(&airtcp::ScenarioError::new("nodes[0]", "unknown node 'a\nb'"));
    }

    #[test]
    #[should_panic(expected = "inner-path marker")]
    fn leaked_markers_are_findings() {
        check_error(&airtcp::ScenarioError::new("a", "\u{1}b: c"));
    }
}
