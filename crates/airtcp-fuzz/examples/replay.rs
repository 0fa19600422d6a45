//! Runs one fuzz target's body on the given files, without libFuzzer (stable toolchain): to
//! reproduce a finding from `fuzz/artifacts/`, with `AIRTCP_FUZZ_TRACE=1` to see every event.
//!
//! `cargo run --profile test -p airtcp-fuzz --example replay -- <scenario|receiver|sender> FILE...`

fn main() {
    let mut args = std::env::args().skip(1);
    let usage = "usage: replay <scenario|receiver|sender> FILE...";
    let name = args.next().unwrap_or_else(|| {
        eprintln!("error: {usage}");
        std::process::exit(2)
    });
    let Some(&(_, target)) = airtcp_fuzz::TARGETS.iter().find(|(n, _)| *n == name) else {
        eprintln!("error: unknown target '{name}' ({usage})");
        std::process::exit(2)
    };
    for file in args {
        let data = std::fs::read(&file).unwrap_or_else(|e| {
            eprintln!("error: {file}: {e}");
            std::process::exit(2)
        });
        eprintln!("{file}: {} bytes", data.len());
        target(&data);
    }
}
