//! Runs a scenario file and prints its summary as JSON: `cargo run --release --example run_toml -- FILE [SEED [PCAP_DIR]]`
//! (with PCAP_DIR, the packet capture is written there). The positional form is what
//! BENCHMARKS.md's measurements name (`run_toml FILE 1`), so it stays.
use std::io::Write;
use std::path::PathBuf;

#[derive(clap::Parser)]
#[command(about = "Runs a scenario file and prints its summary as JSON (the wall time and event count on stderr)")]
struct Args {
    /// The scenario (TOML).
    #[arg(value_name = "SCENARIO.toml")]
    file: PathBuf,
    /// The run's seed (default: the scenario's).
    seed: Option<u64>,
    /// Write the packet capture into this folder.
    pcap_dir: Option<PathBuf>,
}

fn main() {
    let args = <Args as clap::Parser>::parse();
    let text = std::fs::read_to_string(&args.file).unwrap_or_else(|e| {
        eprintln!("error: {}: {e}", args.file.display());
        std::process::exit(2)
    });
    let t0 = std::time::Instant::now();
    let never = std::sync::atomic::AtomicBool::new(false);
    let opts = airtcp::RunOptions { seed: args.seed, capture: args.pcap_dir.as_deref(), interrupt: Some(&never), ..Default::default() };
    match airtcp::run(&text, &opts).map(|o| o.expect("never stopped")) {
        Ok(out) => {
            // A closed pipe (`| head`) ends the runner with one line, not a panic.
            let json = serde_json::to_string_pretty(&out.summary).expect("a summary serializes");
            if let Err(e) = writeln!(std::io::stdout().lock(), "{json}") {
                eprintln!("error: writing the summary to stdout: {e}");
                std::process::exit(1);
            }
            eprintln!("wall {:.3} s, {} events", t0.elapsed().as_secs_f64(), out.summary.events);
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    }
}
