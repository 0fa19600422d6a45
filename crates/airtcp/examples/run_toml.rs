//! Runs a scenario file and prints its summary as JSON: `cargo run --release --example run_toml -- FILE [SEED [PCAP_DIR]]`
//! (with PCAP_DIR, the packet capture is written there).
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: run_toml SCENARIO.toml [SEED]");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        eprintln!("error: {path}: {e}");
        std::process::exit(2)
    });
    let seed = args.get(2).and_then(|s| s.parse().ok());
    let t0 = std::time::Instant::now();
    let pcap = args.get(3).map(std::path::PathBuf::from);
    let never = std::sync::atomic::AtomicBool::new(false);
    match airtcp::run(&text, &airtcp::RunOptions { seed, capture: pcap.as_deref(), interrupt: Some(&never), ..Default::default() })
        .map(|o| o.expect("never stopped"))
    {
        Ok(out) => {
            println!("{}", serde_json::to_string_pretty(&out.summary).unwrap());
            eprintln!("wall {:.3} s, {} events", t0.elapsed().as_secs_f64(), out.summary.events);
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    }
}
