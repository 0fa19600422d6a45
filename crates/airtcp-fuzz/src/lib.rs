//! Fuzz target bodies for airtcp (issue 25 part 6, "Fuzzing, kept").
//!
//! Each target is a plain function `fn(&[u8])` that panics on a finding and returns normally
//! otherwise, so that one body serves two drivers:
//! - the libFuzzer harnesses in `fuzz/fuzz_targets/` (`cargo fuzz run <target>`, nightly), which
//!   search for new inputs, and
//! - the stable test `tests/replay.rs` (`cargo test -p airtcp-fuzz`, part of `make test-rust`),
//!   which replays every committed corpus and regression file and a short deterministic slice of
//!   seeded random inputs, so CI checks the targets without nightly or cargo-fuzz.
//!
//! The targets:
//! - [`scenario`]: bytes → scenario text → parse and validate; a valid scenario is run under a
//!   wall-clock bound. Any panic, a multi-line error, or a run that fails after validation passed
//!   is a finding.
//! - [`receiver`]: bytes → a receiver configuration and a stream of data segments (in order, out
//!   of order, overlapping, duplicated, corrupted, CE-marked) and ACK requests; the reassembly is
//!   checked against an independent interval model and every ACK's options (SACK, timestamps,
//!   ECN-Echo, CAIAD's corruption and No-Congestion options) against RFC 2018/7323/3168 and CAIAD.
//! - [`sender`]: bytes → a sender (every window policy × recovery strategy) and an adversarial ACK
//!   stream (old, duplicate, beyond snd_max, bogus SACK blocks, wild timestamps, ECE, CAIAD
//!   options) interleaved with timeouts and time advances; the sequence-space, window and timer
//!   invariants are checked after every event.

pub mod input;
pub mod receiver;
pub mod scenario;
pub mod sender;

/// Whether the targets describe every event on stderr: set `AIRTCP_FUZZ_TRACE=1` to read what a
/// failing input does (read once per process).
pub fn tracing() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("AIRTCP_FUZZ_TRACE").is_some_and(|v| v != "0"))
}

/// A target's body: runs one input, panics on a finding.
pub type Target = fn(&[u8]);

/// The targets by name, as the folders of `fuzz/corpus/` and the binaries of `fuzz/` name them.
pub const TARGETS: &[(&str, Target)] = &[("scenario", scenario::run), ("receiver", receiver::run), ("sender", sender::run)];
