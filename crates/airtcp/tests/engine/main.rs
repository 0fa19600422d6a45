//! The engine's integration tests, one module per subject, built as one test binary: one link of
//! the optimized test profile instead of one per file (22 binaries took most of `make test`'s Rust
//! build). Run one subject with `cargo test -p airtcp --test engine jersey::`. Each module reads
//! the repository's files relative to itself (`include_str!("../../../../examples/...")`).

mod baselines;
mod bbr;
mod caiad;
mod capture;
mod channels;
mod common;
mod conservation;
mod cubic;
mod cut_through;
mod delays;
mod energy;
mod envelope;
mod errors;
mod hostile_engine;
mod hsdpa;
mod interrupt;
mod jersey;
mod link_conservation;
mod network;
mod option_sizes;
mod prairie;
mod reference;
mod tllr;
mod trace_offset;
