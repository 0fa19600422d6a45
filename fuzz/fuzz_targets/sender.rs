//! libFuzzer harness of the `sender` target: the body is `airtcp_fuzz::sender::run` (see its docs),
//! which `cargo test -p airtcp-fuzz` also replays on stable.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| airtcp_fuzz::sender::run(data));
