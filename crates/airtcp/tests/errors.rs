//! Bad scenarios give one-line errors that name the field and what is allowed; never a panic.

const BASE: &str = include_str!("../../../examples/jersey_fig10.toml");

fn error_of(from: &str, to: &str) -> String {
    assert!(BASE.contains(from), "fixture text {from:?} not in the base scenario");
    let text = BASE.replacen(from, to, 1);
    airtcp::validate_toml(&text).expect_err(&format!("{from} -> {to} should fail")).to_string()
}

#[test]
fn each_mistake_names_its_field() {
    let cases = [
        ("rate = \"10Mbps\"", "rate = \"10Mbit\"", "links[0].rate", "Mbps"),
        ("loss = 0.01", "loss = 1.5", "links[1].channel.loss", "0 to 1"),
        ("delay = \"45ms\"", "delay = \"-5ms\"", "links[0].delay", "negative"),
        ("to = \"BS\"", "to = \"XX\"", "links[0].to", "unknown node 'XX'"),
        ("seed = 1", "sed = 1", "sed", "unknown field"),
        ("cc = \"reno\"", "cc = \"bbr\"", "flows[0].cc", "allowed: reno"),
        ("recovery = \"newreno\"", "recovery = \"sack\"", "flows[0].sack", "sack = true"),
        ("recovery = \"newreno\"", "recovery = \"fack\"", "flows[0].sack", "recovery = \"fack\" needs sack = true"),
        ("recovery = \"newreno\"", "recovery = \"vegas\"", "flows[0].recovery", "tahoe, reno, newreno, sack"),
        ("recovery = \"newreno\"", "recovery = \"linux\"", "flows[0].sack", "recovery = \"linux\" needs sack = true"),
        ("recovery = \"newreno\"", "recovery = \"newreno\"\nrto_restart = \"always\"", "flows[0].rto_restart", "every-ack"),
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
        ("limit_pkts = 50 }", "limit_pkts = 0 }", "links[0].queue.limit_pkts", "at least 1"),
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
    airtcp::validate_toml(&ok).unwrap();
    let e = error_of("cc = \"reno\"", "cc = \"westwood-plus\"\ncc_params = { alpha = 1.5 }");
    assert!(e.starts_with("flows[0].cc_params.alpha") && e.contains("0 <= alpha < 1"), "{e}");
    let e = error_of("cc = \"reno\"", "cc = \"vegas\"\ncc_params = { alpha = 2.0, beta = 1.0 }");
    assert!(e.starts_with("flows[0].cc_params.beta") && e.contains("beta >= alpha"), "{e}");
    let ok = BASE.replacen("cc = \"reno\"", "cc = \"vegas\"\ncc_params = { alpha = 2.0, beta = 4.0, gamma = 1.5, expiry = false }", 1);
    airtcp::validate_toml(&ok).unwrap();
    let ok = BASE.replacen("cc = \"reno\"", "cc = \"westwood-plus\"\ncc_params = { alpha = 0.8, min_interval = \"20ms\" }", 1);
    airtcp::validate_toml(&ok).unwrap();
    let e = error_of("cc = \"reno\"", "cc = \"cubic\"\ncc_params = { beta = 1.2 }");
    assert!(e.starts_with("flows[0].cc_params.beta") && e.contains("0 < beta < 1"), "{e}");
    let e = error_of("cc = \"reno\"", "cc = \"cubic\"\ncc_params = { c = 0.4 }");
    assert!(e.starts_with("flows[0].cc_params") && e.contains("unknown field `c`"), "{e}");
    let ok = BASE.replacen(
        "cc = \"reno\"",
        "cc = \"cubic\"\ncc_params = { c_pkts_per_s3 = 0.8, beta = 0.5, fast_convergence = false, reno_friendly = false }",
        1,
    );
    airtcp::validate_toml(&ok).unwrap();
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
    airtcp::validate_toml(&ok).unwrap();
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
            "links[1].channel.mean_good: must be greater than 0s",
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
    f.set_len(airtcp::scenario::validate::TRACE_FILE_MAX_BYTES + 1).unwrap();
    let e = error_of("rate = \"2Mbps\"", &format!("capacity = {{ kind = \"trace\", file = \"{}\" }}", path.display()));
    let _ = std::fs::remove_file(&path);
    assert_eq!(
        e,
        format!(
            "links[1].capacity.file: '{}' has {} bytes (allowed: up to {})",
            path.display(),
            airtcp::scenario::validate::TRACE_FILE_MAX_BYTES + 1,
            airtcp::scenario::validate::TRACE_FILE_MAX_BYTES
        )
    );
}
