//! Runs one fuzz target's body on the given files, without libFuzzer (stable toolchain): to
//! reproduce a finding from `fuzz/artifacts/`, with `AIRTCP_FUZZ_TRACE=1` to see every event.
//!
//! `cargo run --profile test -p airtcp-fuzz --example replay -- <scenario|receiver|sender> FILE...`
use std::path::PathBuf;

#[derive(clap::Parser)]
#[command(about = "Runs a fuzz target's body on the given inputs (a finding from fuzz/artifacts/)")]
struct Args {
    /// The fuzz target.
    #[arg(value_parser = clap::builder::PossibleValuesParser::new(airtcp_fuzz::TARGETS.iter().map(|(n, _)| *n)))]
    target: String,
    /// The inputs.
    files: Vec<PathBuf>,
}

fn main() {
    let args = <Args as clap::Parser>::parse();
    let &(_, target) = airtcp_fuzz::TARGETS.iter().find(|(n, _)| *n == args.target).expect("clap checked the name");
    for file in &args.files {
        let data = std::fs::read(file).unwrap_or_else(|e| {
            eprintln!("error: {}: {e}", file.display());
            std::process::exit(2)
        });
        eprintln!("{}: {} bytes", file.display(), data.len());
        target(&data);
    }
}
