//! Bad scenarios give one-line errors that name the field and what is allowed; never a panic.

const BASE: &str = include_str!("../../../../examples/jersey_fig10.toml");

fn error_of(from: &str, to: &str) -> String {
    assert!(BASE.contains(from), "fixture text {from:?} not in the base scenario");
    let text = BASE.replacen(from, to, 1);
    airtcp::run(&text, &airtcp::RunOptions { check_only: true, ..Default::default() })
        .map(|_| ())
        .expect_err(&format!("{from} -> {to} should fail"))
        .to_string()
}

#[test]
fn each_mistake_names_its_field() {
    let cases = [
        ("rate = \"10Mbps\"", "rate = \"10Mbit\"", "links[0].rate", "Mbps"),
        ("loss = 0.01", "loss = 1.5", "links[1].channel.loss", "0 to 1"),
        ("delay = \"45ms\"", "delay = \"-5ms\"", "links[0].delay", "negative"),
        ("to = \"BS\"", "to = \"XX\"", "links[0].to", "unknown node 'XX'"),
        ("seed = 1", "sed = 1", "sed", "unknown field"),
        ("cc = \"reno\"", "cc = \"bbr2\"", "flows[0].cc", "allowed: reno"),
        ("recovery = \"newreno\"", "recovery = \"sack\"", "flows[0].sack", "sack = true"),
        ("recovery = \"newreno\"", "recovery = \"fack\"", "flows[0].sack", "recovery = \"fack\" needs sack = true"),
        ("recovery = \"newreno\"", "recovery = \"vegas\"", "flows[0].recovery", "tahoe, reno, newreno, sack"),
        ("recovery = \"newreno\"", "recovery = \"linux\"", "flows[0].sack", "recovery = \"linux\" needs sack = true"),
        ("recovery = \"newreno\"", "recovery = \"newreno\"\nrto_restart = \"always\"", "flows[0].rto_restart", "every-ack"),
        ("recovery = \"newreno\"", "recovery = \"newreno\"\noption_sizes = \"ns-2\"", "flows[0].option_sizes", "ns2"),
        ("recovery = \"newreno\"", "recovery = \"newreno\"\nrto_estimator = \"bsd\"", "flows[0].rto_estimator", "expected `rfc6298` or `linux`"),
        ("recovery = \"newreno\"", "recovery = \"newreno\"\nrto_undo = \"eifel\"", "flows[0].rto_undo", "needs timestamps = true"),
        ("duration = \"100s\"", "", "scenario", "missing field `duration`"),
        ("rate = \"10Mbps\"", "rate = 10", "links[0].rate", "needs a unit"),
        ("kind = \"droptail\", limit_pkts = 50 }", "kind = \"fifo\" }", "links[0].queue.kind", "droptail, red, cw"),
        ("mss_bytes = 1000", "mss_bytes = -3", "flows[0].mss_bytes", "u32"),
        ("mss_bytes = 1000", "mss_bytes = 0", "flows[0].mss_bytes", "1 to 65000"),
        ("nodes = [\"S\", \"BS\", \"D\"]", "nodes = [\"S\", \"BS\", \"D\", \"S\"]", "nodes[3]", "duplicate node name"),
        (
            "nodes = [\"S\", \"BS\", \"D\"]",
            "nodes = [\"S\", \"BS\", \"D\", \"X\"]\n[[flows]]\nkind = \"cbr\"\nsrc = \"S\"\ndst = \"X\"\nrate = \"1Mbps\"",
            "flows[0]",
            "no route",
        ),
        ("rate = \"2Mbps\"", "rate = \"0bps\"", "links[1].rate", "greater than 0"),
        ("warmup = \"10s\"", "warmup = \"200s\"", "warmup", "less than duration"),
        ("limit_pkts = 50 }", "limit_pkts = 0 }", "links[0].queue.limit_pkts", "allowed: 1 to 1000000"),
        ("[[flows]]", "[[flows]", "line", "expected `]`"),
        ("min_rto = \"200ms\"", "min_rto = \"200ms\"\nmax_rto = \"100ms\"", "flows[0].min_rto", "max_rto"),
        // A CBR sending more often than every nanosecond used to loop at one instant forever.
        (
            "nodes = [\"S\", \"BS\", \"D\"]",
            "nodes = [\"S\", \"BS\", \"D\"]\n[[flows]]\nkind = \"cbr\"\nsrc = \"S\"\ndst = \"D\"\npacket_bytes = 1\nrate = \"20Gbps\"",
            "flows[0].rate",
            "allowed: up to 8000000000bps",
        ),
        (
            "nodes = [\"S\", \"BS\", \"D\"]",
            "nodes = [\"S\", \"BS\", \"D\"]\n[[flows]]\nkind = \"cbr\"\nsrc = \"S\"\ndst = \"D\"\nrate = \"0bps\"",
            "flows[0].rate",
            "greater than 0bps",
        ),
        // Average capacity under 1 bit/s (issue 25: used to divide by zero while building).
        (
            "rate = \"2Mbps\"",
            "capacity = { kind = \"schedule\", steps = [{ at = \"0s\", rate = \"1kbps\" }, { at = \"1ms\", rate = \"0bps\" }], repeat = \"2s\" }",
            "links[1].capacity.steps",
            "below 1 bit/s",
        ),
        (
            "rate = \"2Mbps\"",
            "capacity = { kind = \"trace\", opportunities_ms = [13000000] }",
            "links[1].capacity",
            "below 1 bit/s",
        ),
    ];
    for (from, to, field, allowed) in cases {
        let e = error_of(from, to);
        assert!(!e.contains('\n'), "multi-line error: {e}");
        assert!(e.starts_with(field) || e.contains(&format!("{field} ")) || e.contains(field), "{e:?} does not name {field}");
        assert!(e.contains(allowed), "{e:?} does not say {allowed:?}");
    }
}

#[test]
fn cc_params_are_checked_by_the_scheme() {
    let e = error_of("cc = \"reno\"", "cc = \"westwood\"\ncc_params = { m = 2 }");
    assert!(e.starts_with("flows[0].cc_params.m") && e.contains("m > 2"), "{e}");
    let e = error_of("cc = \"reno\"", "cc = \"westwood\"\ncc_params = { taux = \"1s\" }");
    assert!(e.starts_with("flows[0].cc_params.taux") && e.contains("unknown field"), "{e}");
    let e = error_of("cc = \"reno\"", "cc = \"reno\"\ncc_params = { tau = \"1s\" }");
    assert!(e.starts_with("flows[0].cc_params.tau"), "{e}");
    let ok = BASE.replacen("cc = \"reno\"", "cc = \"westwood\"\ncc_params = { tau = \"1s\", m = 5 }", 1);
    airtcp::run(&ok, &airtcp::RunOptions { check_only: true, ..Default::default() }).map(|_| ()).unwrap();
    let e = error_of("cc = \"reno\"", "cc = \"westwood-plus\"\ncc_params = { growth = \"abc\" }");
    assert!(e.starts_with("flows[0].cc_params.growth") && e.contains("linux-ns2"), "{e}");
    let e = error_of("cc = \"reno\"", "cc = \"westwood-plus\"\ncc_params = { arithmetic = \"integer\" }");
    assert!(e.starts_with("flows[0].cc_params.arithmetic") && e.contains("linux-ns2"), "{e}");
    let e = error_of("cc = \"reno\"", "cc = \"westwood-plus\"\ncc_params = { alpha = 1.5 }");
    assert!(e.starts_with("flows[0].cc_params.alpha") && e.contains("0 <= alpha < 1"), "{e}");
    let e = error_of("cc = \"reno\"", "cc = \"vegas\"\ncc_params = { alpha = 2.0, beta = 1.0 }");
    assert!(e.starts_with("flows[0].cc_params.beta") && e.contains("beta >= alpha"), "{e}");
    let ok = BASE.replacen("cc = \"reno\"", "cc = \"vegas\"\ncc_params = { alpha = 2.0, beta = 4.0, gamma = 1.5, expiry = false }", 1);
    airtcp::run(&ok, &airtcp::RunOptions { check_only: true, ..Default::default() }).map(|_| ()).unwrap();
    let ok = BASE.replacen("cc = \"reno\"", "cc = \"westwood-plus\"\ncc_params = { alpha = 0.8, min_interval = \"20ms\" }", 1);
    airtcp::run(&ok, &airtcp::RunOptions { check_only: true, ..Default::default() }).map(|_| ()).unwrap();
    let e = error_of("cc = \"reno\"", "cc = \"cubic\"\ncc_params = { beta = 1.2 }");
    assert!(e.starts_with("flows[0].cc_params.beta") && e.contains("0 < beta < 1"), "{e}");
    let e = error_of("cc = \"reno\"", "cc = \"cubic\"\ncc_params = { c = 0.4 }");
    assert!(e.starts_with("flows[0].cc_params") && e.contains("unknown field `c`"), "{e}");
    let ok = BASE.replacen(
        "cc = \"reno\"",
        "cc = \"cubic\"\ncc_params = { c_pkts_per_s3 = 0.8, beta = 0.5, fast_convergence = false, reno_friendly = false }",
        1,
    );
    airtcp::run(&ok, &airtcp::RunOptions { check_only: true, ..Default::default() }).map(|_| ()).unwrap();
    let e = error_of("cc = \"reno\"", "cc = \"bbr\"\ncc_params = { cwnd_gain = 0.5 }");
    assert!(e.starts_with("flows[0].cc_params.cwnd_gain") && e.contains("1 <= cwnd_gain <= 100"), "{e}");
    let e = error_of("cc = \"reno\"", "cc = \"bbr\"\ncc_params = { rtprop_window = \"0s\" }");
    assert!(e.starts_with("flows[0].cc_params.rtprop_window") && e.contains("1ms to 3600s"), "{e}");
    let ok = BASE.replacen(
        "cc = \"reno\"",
        "cc = \"bbr\"\ncc_params = { high_gain = 2.0, cwnd_gain = 2.5, bw_window_rounds = 8, rtprop_window = \"5s\", probe_rtt_time = \"100ms\" }",
        1,
    );
    airtcp::run(&ok, &airtcp::RunOptions { check_only: true, ..Default::default() }).map(|_| ()).unwrap();
}

/// The Jersey family names the flow field it needs, and checks its own parameters.
#[test]
fn jersey_family_needs_and_params() {
    let e = error_of("cc = \"reno\"", "cc = \"jersey\"");
    assert!(e.starts_with("flows[0].ecn:") && e.contains("needs ecn = true"), "{e}");
    let e = error_of("cc = \"reno\"", "cc = \"nj+\"\necn = true");
    assert!(e.starts_with("flows[0].timestamps:") && e.contains("needs timestamps = true"), "{e}");
    let e = error_of("cc = \"reno\"", "cc = \"jersey\"\necn = true\ncc_params = { k = 0 }");
    assert!(e.starts_with("flows[0].cc_params.k") && e.contains("0 < k <= 100"), "{e}");
    let e = error_of("cc = \"reno\"", "cc = \"new-jersey\"\necn = true\ntimestamps = true\ncc_params = { abe_update = \"sometimes\" }");
    assert!(e.starts_with("flows[0].cc_params.abe_update") && e.contains("per-rtt"), "{e}");
    let ok =
        BASE.replacen("cc = \"reno\"", "cc = \"nj+\"\necn = true\ntimestamps = true\ncc_params = { abe_update = \"literal\", k = 2 }", 1);
    airtcp::run(&ok, &airtcp::RunOptions { check_only: true, ..Default::default() }).map(|_| ()).unwrap();
}

/// The IE²-TCP envelope names the SACK it needs; new channel, capacity and source fields name
/// themselves and their allowed ranges.
#[test]
fn envelope_channels_capacities_and_sources_name_their_fields() {
    let e = error_of("cc = \"reno\"", "cc = \"ie2-envelope\"");
    assert!(e.starts_with("flows[0].sack:") && e.contains("needs sack = true"), "{e}");
    let cases = [
        (
            "channel = { kind = \"uniform\", loss = 0.01 }",
            "channel = { kind = \"gilbert-elliott\", p_stay_good = 0.9 }",
            "links[1].channel: give either",
        ),
        (
            "channel = { kind = \"uniform\", loss = 0.01 }",
            "channel = { kind = \"gilbert-elliott\", mean_good = \"0s\", mean_bad = \"1s\" }",
            "links[1].channel.mean_good: 0ns is out of range (allowed: 1us to 10000000s)",
        ),
        (
            "channel = { kind = \"uniform\", loss = 0.01 }",
            "channel = { kind = \"fading\", error_rate = 1.0, fd_t = 0.1 }",
            "links[1].channel.error_rate: 1 is out of range (allowed: 0 < error_rate < 1)",
        ),
        (
            "channel = { kind = \"uniform\", loss = 0.01 }",
            "channel = { kind = \"fading\", error_rate = 0.1 }",
            "links[1].channel: give either fd_t or speed_kmh",
        ),
        (
            "channel = { kind = \"uniform\", loss = 0.01 }",
            "channel = { kind = \"uniform\", loss = 0.01, effect = \"melt\" }",
            "links[1].channel.effect",
        ),
        (
            "rate = \"2Mbps\"",
            "capacity = { kind = \"schedule\", steps = [{ at = \"1s\", rate = \"1Mbps\" }] }",
            "links[1].capacity.steps[0].at: the first step must be at 0s",
        ),
        (
            "rate = \"2Mbps\"",
            "capacity = { kind = \"schedule\", steps = [{ at = \"0s\", rate = \"0bps\" }] }",
            "links[1].capacity.steps[0].rate: the last step lasts forever",
        ),
        (
            "rate = \"2Mbps\"",
            "capacity = { kind = \"trace\", opportunities_ms = [3, 2] }",
            "links[1].capacity.opportunities_ms: entry 2: timestamps must not decrease",
        ),
        (
            "rate = \"2Mbps\"",
            "capacity = { kind = \"trace\", file = \"/nonexistent/x.trace\" }",
            "links[1].capacity.file: cannot read '/nonexistent/x.trace'",
        ),
        (
            "rate = \"2Mbps\"",
            "rate = \"2Mbps\"\ncapacity = { kind = \"constant\", rate = \"1Mbps\" }",
            "links[1].capacity: give either rate or capacity, not both",
        ),
        ("cc = \"reno\"", "cc = \"reno\"\ncount = 0", "flows[0].count: 0 is out of range (allowed: 1 to 100000)"),
        ("cc = \"reno\"", "cc = \"reno\"\ndirection = \"sideways\"", "flows[0].direction"),
    ];
    for (from, to, want) in cases {
        let e = error_of(from, to);
        assert!(e.starts_with(want), "{to}: got {e:?}, want it to start with {want:?}");
        assert!(!e.contains('\n'), "{e}");
    }
}

/// A trace "file" that is not a regular file is refused before it is opened: a FIFO would block
/// the reader forever (nothing ever writes to it), `/dev/zero` would be read until memory ran out.
#[cfg(unix)]
#[test]
fn trace_files_must_be_regular_files() {
    let dir = std::env::temp_dir().join(format!("airtcp-fifo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("trace.fifo");
    let _ = std::fs::remove_file(&fifo);
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success());
    let mut paths = vec![std::path::PathBuf::from("/dev/zero"), dir.clone()];
    if made {
        paths.push(fifo.clone());
    }
    for p in paths {
        let e = error_of("rate = \"2Mbps\"", &format!("capacity = {{ kind = \"trace\", file = \"{}\" }}", p.display()));
        let want = format!("links[1].capacity.file: '{}' is not a regular file", p.display());
        assert!(e.starts_with(&want), "got {e:?}, want {want:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A trace file over the size cap is refused from its size alone (a sparse file: nothing is
/// written or read).
#[test]
fn trace_files_over_the_cap_are_refused_unread() {
    let path = std::env::temp_dir().join(format!("airtcp-big-{}.trace", std::process::id()));
    let f = std::fs::File::create(&path).unwrap();
    f.set_len(airtcp::scenario::TRACE_FILE_MAX_BYTES + 1).unwrap();
    let e = error_of("rate = \"2Mbps\"", &format!("capacity = {{ kind = \"trace\", file = \"{}\" }}", path.display()));
    let _ = std::fs::remove_file(&path);
    assert_eq!(
        e,
        format!(
            "links[1].capacity.file: '{}' has {} bytes (allowed: up to {})",
            path.display(),
            airtcp::scenario::TRACE_FILE_MAX_BYTES + 1,
            airtcp::scenario::TRACE_FILE_MAX_BYTES
        )
    );
}

/// Issue 25's "silent time wrap-around", "memory blow-ups from small files" and "accepted nonsense":
/// each is refused at validation, before anything is allocated, by a range that names the field.
#[test]
fn values_that_used_to_wrap_hang_or_exhaust_memory_are_out_of_range() {
    let cases = [
        // A 584-year delay wrapped the arrival time (data arrived with an 8.6 ms minimum RTT).
        ("delay = \"45ms\"", "delay = \"18000000000s\"", "links[0].delay", "allowed: 0s to 10000000s"),
        ("duration = \"100s\"", "duration = \"10000001s\"", "duration", "allowed: 0s to 10000000s"),
        ("rate = \"10Mbps\"", "rate = \"2000Gbps\"", "links[0].rate", "allowed: 0Gbps to 1000Gbps"),
        // start_spacing near 2^63 ns started a third flow at t = 0 and bypassed stop.
        (
            "cc = \"reno\"",
            "cc = \"reno\"\ncount = 3\nstart_spacing = \"9000000s\"",
            "flows[0].start_spacing",
            "start + (count - 1) * start_spacing = 18000000s, is out of range",
        ),
        // min_rto = max_rto near 2^64 ns gave 10^8 timeouts in 100 ms.
        ("min_rto = \"200ms\"", "min_rto = \"18446744073s\"", "flows[0].min_rto", "allowed: 0s to 10000000s"),
        ("min_rto = \"200ms\"", "min_rto = \"1ns\"\nmax_rto = \"1ns\"", "flows[0].max_rto", "allowed: 1us"),
        ("min_rto = \"200ms\"", "min_rto = \"200ms\"\ninitial_rto = \"0s\"", "flows[0].initial_rto", "allowed: 1us"),
        ("min_rto = \"200ms\"", "min_rto = \"200ms\"\ndelayed_ack = true\ndelack_timeout = \"1ns\"", "flows[0].delack_timeout", "allowed: 1us"),
        // count = 4294967295 built every flow name before the range check.
        ("cc = \"reno\"", "cc = \"reno\"\ncount = 4294967295", "flows[0].count", "allowed: 1 to 100000"),
        // rwnd = initial cwnd = 2^32 - 1 sent four billion packets at t = 0.
        ("rwnd_pkts = 1000", "rwnd_pkts = 4294967295", "flows[0].rwnd_pkts", "allowed: 1 to 1000000"),
        ("rwnd_pkts = 1000", "rwnd_pkts = 1000\ninitial_cwnd_pkts = 1000001", "flows[0].initial_cwnd_pkts", "allowed: 1 to 1000000"),
        ("limit_pkts = 50 }", "limit_pkts = 4294967295 }", "links[0].queue.limit_pkts", "allowed: 1 to 1000000"),
        // Gilbert–Elliott with 1 ns sojourns, or never leaving its first state.
        (
            "channel = { kind = \"uniform\", loss = 0.01 }",
            "channel = { kind = \"gilbert-elliott\", mean_good = \"1ns\", mean_bad = \"1ns\" }",
            "links[1].channel.mean_good",
            "allowed: 1us",
        ),
        (
            "channel = { kind = \"uniform\", loss = 0.01 }",
            "channel = { kind = \"gilbert-elliott\", p_stay_good = 1.0, q_stay_bad = 1.0 }",
            "links[1].channel.q_stay_bad",
            "p_stay_good + q_stay_bad < 2",
        ),
        // RED thresholds above the buffer, or infinite.
        (
            "queue = { kind = \"droptail\", limit_pkts = 50 }\nchannel",
            "queue = { kind = \"red\", limit_pkts = 50, min_th_pkts = 60, max_th_pkts = 70 }\nchannel",
            "links[1].queue.min_th_pkts",
            "below limit_pkts = 50",
        ),
        (
            "queue = { kind = \"droptail\", limit_pkts = 50 }\nchannel",
            "queue = { kind = \"red\", limit_pkts = 50, min_th_pkts = 5, max_th_pkts = inf }\nchannel",
            "links[1].queue.max_th_pkts",
            "up to limit_pkts = 50",
        ),
        // A VoIP pool whose talkers toggle every nanosecond took 44 s per simulated millisecond.
        (
            "nodes = [\"S\", \"BS\", \"D\"]",
            "nodes = [\"S\", \"BS\", \"D\"]\n[[flows]]\nkind = \"voip\"\nsrc = \"S\"\ndst = \"D\"\nsources = 10000\ncall_interarrival = \"1ns\"\nmean_on = \"1ns\"",
            "flows[0].mean_on",
            "allowed: 1us",
        ),
        (
            "nodes = [\"S\", \"BS\", \"D\"]",
            "nodes = [\"S\", \"BS\", \"D\"]\n[[flows]]\nkind = \"voip\"\nsrc = \"S\"\ndst = \"D\"\ncall_interarrival = \"1ns\"",
            "flows[0].call_interarrival",
            "allowed: 1us",
        ),
        ("rate = \"2Mbps\"", "capacity = { kind = \"trace\", opportunities_ms = [1, 10000000001] }", "links[1].capacity.opportunities_ms", "entry 2: 10000000001 ms is out of range"),
        ("cc = \"reno\"", "cc = \"reno\"\nbytes = \"1000001GB\"", "flows[0].bytes", "allowed: 0GB to 1000000GB"),
    ];
    for (from, to, field, allowed) in cases {
        let e = error_of(from, to);
        assert!(!e.contains('\n'), "multi-line error: {e}");
        assert!(e.starts_with(field), "{to}: {e:?} does not start with {field}");
        assert!(e.contains(allowed), "{to}: {e:?} does not say {allowed:?}");
    }
    // 30 000 nodes used to build a 7.2 GB routing table.
    let nodes: Vec<String> = (0..10_001).map(|i| format!("\"n{i}\"")).collect();
    let e = error_of("nodes = [\"S\", \"BS\", \"D\"]", &format!("nodes = [\"S\", \"BS\", \"D\", {}]", nodes.join(", ")));
    assert!(e.starts_with("nodes: 10004 nodes is out of range (allowed: 1 to 10000)"), "{e}");
}

/// A scenario at the edge of every range validates and runs, in the test profile (overflow checks
/// on): the bounds leave the engine's time sums in range, as `time::MAX_DURATION_NS` argues.
#[test]
fn the_largest_values_allowed_run_without_overflow() {
    let text = BASE
        .replacen("duration = \"100s\"", "duration = \"10000000s\"", 1)
        .replacen("warmup = \"10s\"", "warmup = \"9999999s\"", 1)
        .replacen("sample_interval = \"100ms\"", "sample_interval = \"10000000s\"", 1)
        .replacen("delay = \"45ms\"", "delay = \"10000000s\"", 1)
        .replacen("rate = \"10Mbps\"", "rate = \"1000Gbps\"", 1)
        .replacen("rate = \"2Mbps\"", "rate = \"1bps\"", 1)
        .replacen("rwnd_pkts = 1000", "rwnd_pkts = 1000000", 1)
        .replacen(
            "min_rto = \"200ms\"",
            "min_rto = \"10000000s\"\nmax_rto = \"10000000s\"\ninitial_rto = \"10000000s\"\ncount = 100000\nstart_spacing = \"100s\"\nstart_jitter = \"10000000s\"\nbytes = \"1000000GB\"\ninitial_cwnd_pkts = 10\ndelayed_ack = true\ndelack_timeout = \"10000000s\"",
            1,
        );
    let s = airtcp::scenario::parse(&text).unwrap();
    let mut sim = airtcp::sim::Simulator::build(&s, 1).unwrap();
    let out = sim.run().unwrap();
    assert_eq!(out.summary.end_time_s, 1e7);
}

/// Packets are bounded by what `limits.max_memory` leaves after the up-front estimate: a
/// million-packet initial window sent into a path that holds it all (1000 s in flight at 1 Tb/s)
/// needs some 100 MB of packets, over a 50 MB limit, and the run stops at the end of that event
/// with one line naming the limit; with the default 4 GB, the 100 flows' 10⁸ packets (some 10 GB)
/// would otherwise get the run killed for memory.
#[test]
fn packets_beyond_the_memory_limit_stop_the_run() {
    let text = BASE
        .replacen("delay = \"45ms\"", "delay = \"1000s\"", 1)
        .replacen("rate = \"10Mbps\"", "rate = \"1000Gbps\"", 1)
        .replacen("rate = \"2Mbps\"", "rate = \"1000Gbps\"", 1)
        .replace("limit_pkts = 50 }", "limit_pkts = 1000000 }")
        .replacen("rwnd_pkts = 1000", "rwnd_pkts = 1000000\ninitial_cwnd_pkts = 1000000\ncount = 100", 1)
        .replacen("nodes = [", "limits = { max_memory = \"50MB\" }\nnodes = [", 1);
    let e = match airtcp::run(&text, &airtcp::RunOptions::default()).map(Option::unwrap) {
        Ok(out) => panic!("the run completed ({} events)", out.summary.events),
        Err(e) => e.to_string(),
    };
    assert!(e.starts_with("limits.max_memory: the run holds more than"), "{e}");
    assert!(e.contains("exceeds the limit of 50MB (stopped at t = 0s of 100s"), "{e}");
    assert!(!e.contains('\n'));
}

/// The event limit is exact: a run needing E events completes with `max_events = E` and fails with
/// E − 1, with one line naming the limit; both before and after the slices fall.
#[test]
fn the_event_limit_is_exact() {
    let events = airtcp::run(BASE, &airtcp::RunOptions::default()).map(Option::unwrap).unwrap().summary.events;
    let ok = BASE.replacen("nodes = [", &format!("limits = {{ max_events = {events} }}\nnodes = ["), 1);
    assert_eq!(airtcp::run(&ok, &airtcp::RunOptions::default()).map(Option::unwrap).unwrap().summary.events, events);
    let short = BASE.replacen("nodes = [", &format!("limits = {{ max_events = {} }}\nnodes = [", events - 1), 1);
    let e = airtcp::run(&short, &airtcp::RunOptions::default()).map(Option::unwrap).unwrap_err().to_string();
    assert!(e.starts_with(&format!("limits.max_events: the run needs more than {} events", events - 1)), "{e}");
    assert!(!e.contains('\n'));
}

/// The time series and memory limits are checked at validation, from the settings alone.
#[test]
fn series_and_memory_limits_refuse_before_running() {
    // 10^7 samples of 1 flow and 4 one-way links: 5·10^7 rows, above the default 5·10^6.
    let e = error_of("sample_interval = \"100ms\"", "sample_interval = \"10us\"");
    assert!(
        e.starts_with("limits.max_series_rows: the time series would have 50000005 rows (10000001 samples x (1 flows + 4 links))"),
        "{e}"
    );
    // Raised, it passes the row limit and the memory estimate decides: 10^7 samples of an 8-byte
    // instant in each series, 10^7 flow rows of 64 bytes and 4·10^7 link rows of 28 bytes.
    let e = error_of(
        "sample_interval = \"100ms\"",
        "sample_interval = \"10us\"\nlimits = { max_series_rows = 100000000, max_memory = \"1GB\" }",
    );
    assert!(e.starts_with("limits.max_memory: the run needs about 1920MB"), "{e}");
    assert!(e.contains("time series 1920MB") && e.contains("above the limit of 1000MB"), "{e}");
    let e = error_of("sample_interval = \"100ms\"", "sample_interval = \"100ms\"\nlimits = { max_events = 0 }");
    assert!(e.starts_with("limits.max_events: must be at least 1"), "{e}");
    let e = error_of("sample_interval = \"100ms\"", "sample_interval = \"100ms\"\nlimits = { max_cpu = 3 }");
    assert!(e.starts_with("limits") && e.contains("unknown field `max_cpu`"), "{e}");
}

/// A wall-clock limit stops the run with one line naming it (here one already spent at the
/// first check).
#[test]
fn a_wall_clock_limit_stops_the_run() {
    let text = BASE.replacen("nodes = [", "limits = { wall_clock = \"1ns\" }\nnodes = [", 1);
    let e = airtcp::run(&text, &airtcp::RunOptions::default()).map(Option::unwrap).unwrap_err().to_string();
    assert!(e.starts_with("limits.wall_clock: the run took longer than 0.000000001s of wall-clock time (stopped at t = 0s of 100s"), "{e}");
}

/// A capture folder that cannot be made is one line naming `pcap` once (it read "pcap: pcap: ...").
#[test]
fn capture_folder_error_names_pcap_once() {
    let file = std::env::temp_dir().join(format!("airtcp-pcap-not-a-folder-{}", std::process::id()));
    std::fs::write(&file, b"x").unwrap();
    let text =
        "name = \"p\"\nduration = \"1s\"\nnodes = [\"a\", \"b\"]\n[[links]]\nfrom = \"a\"\nto = \"b\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n";
    let stop = std::sync::atomic::AtomicBool::new(false);
    let e = airtcp::run(text, &airtcp::RunOptions { capture: Some(&file.join("pcap")), interrupt: Some(&stop), ..Default::default() })
        .unwrap_err()
        .to_string();
    std::fs::remove_file(&file).unwrap();
    assert!(e.starts_with("pcap: cannot create '") && !e.contains("pcap: pcap"), "{e}");
}
