//! Hostile inputs of issue 39 on the engine side: each ends in one `error:` line naming the field
//! and its range (or is read exactly), never in NaN results, a quadratic check or an unbounded
//! message.

const FIG10: &str = include_str!("../../../examples/jersey_fig10.toml");

fn error_of(text: &str) -> String {
    let m = airtcp::validate_toml(text).expect_err("the scenario should be refused").to_string();
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
    let out = airtcp::run_toml(&ok, Some(1)).unwrap();
    assert!(out.summary.links.iter().all(|l| l.utilization.is_finite()));
}
