//! The test kit's integration tests, built as one test binary (one optimized link instead of one
//! per file): the campaign's CI slice and cut-through on the campaign's scenarios. Run one with
//! `cargo test -p airtcp-testkit --test testkit campaign::`.

mod campaign;
mod cut_through;
