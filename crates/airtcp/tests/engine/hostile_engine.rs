//! Hostile inputs of issue 39 on the engine side: each ends in one `error:` line naming the field
//! and its range (or is read exactly), never in NaN results, a quadratic check or an unbounded
//! message.

const FIG10: &str = include_str!("../../../../examples/jersey_fig10.toml");

fn error_of(text: &str) -> String {
    let m = airtcp::run(text, &airtcp::RunOptions { check_only: true, ..Default::default() })
        .map(|_| ())
        .expect_err("the scenario should be refused")
        .to_string();
    assert!(!m.contains('\n'), "more than one line: {m}");
    m
}

/// Item 5: a subnormal speed (inside the documented "> 0") made the fading chain's f_d T zero
/// and its transition probabilities NaN, which lost half the packets. It is refused with the
/// field and the smallest speed that gives a usable f_d T; a tiny but normal speed still works
/// (finite probabilities: the chain barely leaves its state).
#[test]
fn subnormal_fading_speed_is_refused() {
    let fading = |param: &str| {
        assert!(FIG10.contains("kind = \"uniform\", loss = 0.01"), "fixture");
        FIG10.replacen("kind = \"uniform\", loss = 0.01", &format!("kind = \"fading\", error_rate = 0.01, {param}"), 1)
    };
    let m = error_of(&fading("speed_kmh = 5e-324"));
    assert!(m.starts_with("links[1].channel.speed_kmh: 5e-324 is out of range"), "{m}");
    assert!(m.contains("allowed: speed_kmh >= "), "{m}");
    let m = error_of(&fading("fd_t = 1e-320"));
    assert!(m.starts_with("links[1].channel.fd_t: 1e-320 is out of range"), "{m}");
    let ok = fading("speed_kmh = 1e-290").replacen("duration = \"100s\"", "duration = \"30s\"", 1);
    let out = airtcp::run(&ok, &airtcp::RunOptions { seed: Some(1), ..Default::default() }).map(Option::unwrap).unwrap();
    assert!(out.summary.links.iter().all(|l| l.utilization.is_finite()));
}

/// A TCP group `count` each way per entry over one link, `entries` times, and `tail` appended.
fn groups(entries: usize, count: u32, tail: &str) -> String {
    let mut t = String::from(
        "duration = \"10s\"\nnodes = [\"a\", \"b\"]\n[[links]]\nfrom = \"a\"\nto = \"b\"\nrate = \"10Mbps\"\ndelay = \"1ms\"\n",
    );
    t += tail;
    for i in 0..entries {
        t += &format!("[[flows]]\nkind = \"tcp\"\nname = \"g{i}\"\nsrc = \"a\"\ndst = \"b\"\ncount = {count}\ndirection = \"both\"\n");
    }
    t
}

/// Item 8: an 18-KB file of 10^5-flow groups used to build every flow's name (10^8 names, over
/// 4 GB) before the memory limit refused it. The flows' state is now checked against the limit
/// before a name is built; the error names the limit, in one line.
#[test]
fn many_flow_groups_are_refused_before_their_names_are_built() {
    let text = groups(200, 100_000, "");
    assert!(text.len() < 25_000);
    let m = error_of(&text);
    assert!(m.starts_with("limits.max_memory: the run's 40000000 flows need about 163840MB for their state alone"), "{m}");
    // A count out of range is still refused with its own field.
    let m = error_of(&groups(1, 4_294_967_295, ""));
    assert!(m.starts_with("flows[0].count: 4294967295 is out of range (allowed: 1 to 100000)"), "{m}");
}

/// An HSDPA cell whose `ues` list `n` flows (`u0`, `u1`, …) and, last, `last`.
fn cell_with_ues(n: usize, last: &str, flows: usize) -> String {
    let mut ues: Vec<String> = (0..n).map(|i| format!("{{ flow = \"u{i}\" }}")).collect();
    ues.push(format!("{{ flow = \"{last}\" }}"));
    let mut t = format!(
        "duration = \"1s\"\nnodes = [\"s\", \"ue\"]\n[[links]]\nfrom = \"s\"\nto = \"ue\"\ndelay = \"1ms\"\ncapacity = {{ kind = \"hsdpa\", ues = [{}] }}\nreverse_capacity = {{ kind = \"constant\", rate = \"384kbps\" }}\n",
        ues.join(", ")
    );
    for i in 0..flows {
        t += &format!("[[flows]]\nkind = \"cbr\"\nname = \"u{i}\"\nsrc = \"s\"\ndst = \"ue\"\nrate = \"1kbps\"\n");
    }
    t
}

/// Item 8: the cell's duplicate-UE check scanned the earlier entries (quadratic: a 4.3-MB list
/// took minutes), and each UE's flow was searched in a list of every flow's name, rebuilt per
/// cell, whose whole text the error then printed. Now: a set each, and the error lists the
/// first few names and how many there are.
#[test]
fn long_ue_lists_are_checked_in_linear_time_with_a_short_error() {
    let n = 200_000;
    let m = error_of(&cell_with_ues(n, "u7", 0));
    assert_eq!(m, format!("links[0].capacity.ues[{n}].flow: flow 'u7' is listed twice"));
    let m = error_of(&cell_with_ues(3000, "nope", 3000));
    assert_eq!(
        m,
        "links[0].capacity.ues[3000].flow: unknown flow 'nope' (known flows: u0, u1, u2, u3, u4, u5, u6, u7, u8, u9, … (3000 flows in all))"
    );
    let long = "x".repeat(100_000);
    let m = error_of(&cell_with_ues(1, &long, 1));
    assert!(m.len() < 200 && m.contains("unknown flow 'xxxx") && m.contains("… (99960 more bytes)"), "{m}");
}

/// A scratch file of `content` (removed when dropped).
struct Scratch(std::path::PathBuf);

impl Scratch {
    fn new(name: &str, content: &[u8]) -> Self {
        let p = std::env::temp_dir().join(format!("airtcp-hostile-{}-{name}", std::process::id()));
        std::fs::write(&p, content).unwrap();
        Scratch(p)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// `links` one-way links in a chain, each a trace capacity reading `file`; `limits` appended.
fn trace_chain(links: usize, file: &std::path::Path, limits: &str) -> String {
    let nodes: Vec<String> = (0..=links).map(|i| format!("\"n{i}\"")).collect();
    let mut t = format!("duration = \"1s\"\nnodes = [{}]\n", nodes.join(", "));
    for i in 0..links {
        t += &format!(
            "[[links]]\nfrom = \"n{i}\"\nto = \"n{}\"\nduplex = false\ndelay = \"1ms\"\ncapacity = {{ kind = \"trace\", file = \"{}\" }}\n",
            i + 1,
            file.display()
        );
    }
    t += &format!("[[flows]]\nkind = \"cbr\"\nsrc = \"n0\"\ndst = \"n{links}\"\nrate = \"1Mbps\"\n{limits}");
    t
}

/// Item 9: a trace named by many link directions is read and held once, and counted once; a file
/// too large for the memory limit is refused before it is read.
#[test]
fn a_trace_is_read_once_and_counted_before_it_is_read() {
    // 10^5 opportunities (1.6 MB as the estimate counts them), 0.6 MB of text.
    let text: String = (1..=100_000u64).map(|i| format!("{}\n", i / 10 + 1)).collect();
    let f = Scratch::new("trace", text.as_bytes());
    // Thirty links replay it: about 1.6 MB once, 48 MB if counted (or held) per link.
    let scenario = airtcp::scenario::parse(&trace_chain(30, &f.0, "[limits]\nmax_memory = \"12MB\"\n")).unwrap();
    let est = airtcp::scenario::memory_estimate(&scenario).unwrap();
    assert_eq!(est.trace_bytes, 100_000 * 16);
    // The run replays it on every link.
    airtcp::run(&scenario, &airtcp::RunOptions { seed: Some(1), ..Default::default() }).map(Option::unwrap).unwrap();
    // Under 9 bytes of memory per byte of the file: refused before the file is read.
    let m = error_of(&trace_chain(2, &f.0, "[limits]\nmax_memory = \"4MB\"\n"));
    assert!(m.starts_with("limits.max_memory: reading links[0].capacity.file (488944 bytes) needs up to "), "{m}");
}

/// Item 15: a trace `file` may name any file; an error that quotes its content quotes at most a
/// few dozen characters (a 50-MB one-line file gave a 50-MB error; `/etc/shadow` its first entry).
#[test]
fn errors_quote_a_file_s_content_briefly() {
    let secret = format!("root:$6$saltsalt${}:19000:0:99999:7:::\n", "h".repeat(86));
    let f = Scratch::new("shadow", secret.as_bytes());
    let m = error_of(&trace_chain(1, &f.0, ""));
    assert!(m.contains("line 1: 'root:$6$saltsalt$hhhhhhhhhhhhhhhhhhhhhhh… ("), "{m}");
    assert!(!m.contains(":19000:"), "{m}");
    let big = Scratch::new("oneline", "9".repeat(5_000_000).as_bytes());
    let m = error_of(&trace_chain(1, &big.0, ""));
    assert!(m.len() < 300, "{} bytes: {}", m.len(), &m[..300]);
}

/// Item 17: a duration written with 42 decimals that is exactly 2 s is 2 s.
#[test]
fn a_duration_with_42_decimals_is_exact() {
    let text = FIG10.replacen("duration = \"100s\"", &format!("duration = \"12.{}s\"", "0".repeat(42)), 1);
    let s = airtcp::scenario::parse(&text).unwrap();
    assert_eq!(s.duration.as_nanos(), 12_000_000_000);
    airtcp::run(&text, &airtcp::RunOptions { check_only: true, ..Default::default() }).map(|_| ()).unwrap();
}

/// Item 11: a capture's size is bounded by `limits.max_capture_bytes` while it is written (a
/// 1-Gb/s link for 60 s wrote 252 MB with nothing to stop it): past the limit nothing more is
/// written and the run stops with one line naming the field. Under it, the capture is whole.
#[test]
fn capture_size_is_limited_while_writing() {
    let text = |limit: &str| {
        format!(
            "duration = \"10s\"\nnodes = [\"a\", \"b\"]\n[[links]]\nfrom = \"a\"\nto = \"b\"\nrate = \"100Mbps\"\ndelay = \"1ms\"\n[[flows]]\nkind = \"cbr\"\nsrc = \"a\"\ndst = \"b\"\nrate = \"80Mbps\"\n[limits]\nmax_capture_bytes = \"{limit}\"\n"
        )
    };
    let dir = std::env::temp_dir().join(format!("airtcp-hostile-{}-pcap", std::process::id()));
    let never = std::sync::atomic::AtomicBool::new(false);
    // The files' bytes, the hosts' folder included.
    fn size(d: &std::path::Path) -> u64 {
        std::fs::read_dir(d)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                if e.file_type().unwrap().is_dir() {
                    size(&e.path())
                } else {
                    e.metadata().unwrap().len()
                }
            })
            .sum()
    }
    let Err(e) = airtcp::run(
        &text("1MB"),
        &airtcp::RunOptions { seed: Some(1), capture: Some(&dir), interrupt: Some(&never), ..Default::default() },
    ) else {
        panic!("over the limit")
    };
    let m = e.to_string();
    assert!(m.starts_with("limits.max_capture_bytes: the packet capture would write more than 1000000 bytes"), "{m}");
    // 80 Mb/s of 1000-byte packets is 10^4 packets a second, each written three times (the
    // link's file, the sending and the receiving host's), 44 bytes a record (16 of record header,
    // 28 of IPv4 and UDP headers): (10^6 − 68 − 3 · 24) / 132 = 7574.7 packets after the log's
    // header line and the files' headers, so the limit is reached by the packet sent at 0.7574 s,
    // and the run stops there, not at 10 s (nor at its next check of the limits).
    assert!(m.contains("stopped at t = 0.7574"), "{m}");
    assert!(size(&dir) <= 1_000_000, "{} bytes written", size(&dir));
    std::fs::remove_dir_all(&dir).unwrap();
    let m = airtcp::run(&text("0B"), &airtcp::RunOptions { check_only: true, ..Default::default() }).map(|_| ()).unwrap_err().to_string();
    assert_eq!(m, "limits.max_capture_bytes: must be greater than 0B");
    // Under the default (1 GB) the same run's capture is written whole.
    let whole = text("1GB");
    airtcp::run(&whole, &airtcp::RunOptions { seed: Some(1), capture: Some(&dir), interrupt: Some(&never), ..Default::default() })
        .unwrap()
        .unwrap();
    // 10^6 bytes took 0.76 s: 10 s take over 4·10^6.
    assert!(size(&dir) > 4_000_000, "{} bytes", size(&dir));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Item 9: every HSDPA cell used to allocate a UE slot for every flow of the run (40 cells of
/// 10^5 flows: 5 GB, not counted by `max_memory`). A cell now holds the UEs of the flows that
/// cross it, and the estimate counts one UE state per cell and flow crossing it — hand-counted
/// here: `cells` cells, each the downlink of one group of `per_cell` TCP flows, and a group of
/// UDP flows that crosses none.
#[test]
fn hsdpa_ue_state_is_counted_per_crossing_flow() {
    let (cells, per_cell) = (40, 50);
    let mut t = String::from("duration = \"1s\"\nsample_interval = \"1s\"\n");
    let ues: Vec<String> = (0..cells).map(|k| format!("\"ue{k}\"")).collect();
    t += &format!("nodes = [\"s\", \"r\", {}]\n", ues.join(", "));
    // Room for every flow's first window at once, so that each reaches its cell.
    t += "[[links]]\nfrom = \"s\"\nto = \"r\"\nrate = \"100Mbps\"\ndelay = \"1ms\"\nqueue = { kind = \"droptail\", limit_pkts = 100000 }\n";
    for k in 0..cells {
        t += &format!("[[links]]\nfrom = \"r\"\nto = \"ue{k}\"\ndelay = \"1ms\"\ncapacity = {{ kind = \"hsdpa\" }}\nreverse_capacity = {{ kind = \"constant\", rate = \"384kbps\" }}\n");
        t += &format!("[[flows]]\nkind = \"tcp\"\nname = \"g{k}\"\nsrc = \"s\"\ndst = \"ue{k}\"\ncount = {per_cell}\nstart_spacing = \"0s\"\nbytes = \"10000B\"\n");
    }
    // Crosses no cell (r -> s is a wired link).
    t += "[[flows]]\nkind = \"tcp\"\nname = \"up\"\nsrc = \"r\"\ndst = \"s\"\ncount = 500\n";
    let scenario = airtcp::scenario::parse(&t).unwrap();
    let est = airtcp::scenario::memory_estimate(&scenario).unwrap();
    assert_eq!(est.hsdpa_bytes, (cells * per_cell) * airtcp::scenario::UE_STATE_BYTES);
    // Counted against the limit, by name.
    let limited = format!("{t}[limits]\nmax_memory = \"{}B\"\n", est.total - 1);
    let m = error_of(&limited);
    assert!(m.starts_with("limits.max_memory: the run needs about") && m.contains(", HSDPA UEs 8MB)"), "{m}");
    // And the run makes exactly those UEs: every cell's flows report one, the wired ones none.
    let out = airtcp::run(&scenario, &airtcp::RunOptions { seed: Some(1), ..Default::default() }).map(Option::unwrap).unwrap();
    let with_ue = out.summary.flows.iter().filter(|f| f.hsdpa.is_some()).count();
    assert_eq!(with_ue as u64, cells * per_cell);
}
