//! The packet capture is as deterministic as the summary: the same scenario and seed write the
//! same bytes into every file, the hosts' files (merged from several links, ties broken in the
//! engine's order) included, whether the run is alone or beside others on other threads.

use std::collections::BTreeMap;
use std::path::Path;

const SCENARIO: &str = r#"
duration = "4s"
nodes = ["A", "R", "B", "C"]

[[links]]
from = "A"
to = "R"
rate = "10Mbps"
delay = "5ms"
channel = { kind = "uniform", loss = 0.01 }

[[links]]
from = "R"
to = "B"
rate = "4Mbps"
delay = "10ms"
queue = { kind = "red", limit_pkts = 20, min_th_pkts = 3, max_th_pkts = 10, weight = 0.02, ecn = true }

[[links]]
from = "R"
to = "C"
rate = "4Mbps"
delay = "2ms"

[[flows]]
kind = "tcp"
src = "A"
dst = "B"
sack = true
timestamps = true
ecn = true
count = 3
start_spacing = "0.3s"

[[flows]]
kind = "tcp"
src = "C"
dst = "A"
recovery = "reno"

[[flows]]
kind = "cbr"
src = "A"
dst = "C"
packet_bytes = 400
rate = "500kbps"
"#;

/// Every file under `dir` (relative path → bytes).
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(p.strip_prefix(dir).unwrap().display().to_string(), std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

#[test]
fn the_same_run_writes_the_same_capture_alone_or_beside_others() {
    let base = std::env::temp_dir().join(format!("airtcp-capture-det-{}", std::process::id()));
    let dirs: Vec<_> = (0..3).map(|i| base.join(i.to_string())).collect();
    let never = std::sync::atomic::AtomicBool::new(false);
    airtcp::run(SCENARIO, &airtcp::RunOptions { seed: Some(2), capture: Some(&dirs[0]), interrupt: Some(&never), ..Default::default() })
        .unwrap()
        .unwrap();
    // Twice more, side by side on two threads.
    std::thread::scope(|s| {
        for d in &dirs[1..] {
            let never = &never;
            s.spawn(move || {
                let opts = airtcp::RunOptions { seed: Some(2), capture: Some(d), interrupt: Some(never), ..Default::default() };
                airtcp::run(SCENARIO, &opts).unwrap().unwrap();
            });
        }
    });
    let first = files(&dirs[0]);
    // Six link directions (each link both ways) and four hosts carried packets, and the log.
    assert_eq!(first.keys().filter(|k| k.starts_with("hosts/")).count(), 4, "{:?}", first.keys());
    assert_eq!(first.len(), 6 + 4 + 1, "{:?}", first.keys());
    for d in &dirs[1..] {
        assert!(files(d) == first, "{} differs", d.display());
    }
    std::fs::remove_dir_all(&base).unwrap();
}
