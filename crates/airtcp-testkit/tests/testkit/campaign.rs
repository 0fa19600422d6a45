//! The CI slice of the invariant campaign (issue 25 part 8, `airtcp_testkit`): the first 10³
//! runs of campaign seed 1 (`CAMPAIGN_SLICE` overrides the count) must show no violation. In the
//! test profile (overflow checks and debug assertions on) it takes about 10 s on one core (every
//! run is repeated event by event, since issue 39); the full 10⁵-run campaign is `make campaign`
//! (BENCHMARKS.md).

use airtcp_testkit as campaign;

#[test]
fn campaign_slice_has_no_violations() {
    let runs = std::env::var("CAMPAIGN_SLICE").ok().and_then(|s| s.parse().ok()).unwrap_or(1000);
    let t0 = std::time::Instant::now();
    let report = campaign::run(1, 0, runs, 1);
    let figure = campaign::figure(&report, 1, 1, t0.elapsed().as_secs_f64());
    eprintln!("{figure}");
    let shown: Vec<String> = report.violations.iter().take(3).map(|v| campaign::describe(1, v)).collect();
    assert!(report.violations.is_empty(), "{figure}\n{}", shown.join("\n"));
    assert_eq!(report.runs, runs);
    // Every window policy, recovery, queue kind, channel kind, effect and capacity kind ran.
    let seen = |tag: &str| report.coverage.get(tag).copied().unwrap_or(0) > 0;
    for cc in airtcp::cc::NAMES {
        assert!(seen(&format!("cc:{cc}")), "cc {cc} never ran");
    }
    for r in airtcp::tcp::recovery::NAMES {
        assert!(seen(&format!("recovery:{r}")), "recovery {r} never ran");
    }
    for tag in [
        "queue:droptail",
        "queue:red",
        "queue:red-ecn",
        "queue:red-gentle",
        "queue:red-ecn-gentle",
        "queue:cw",
        "queue:cw-pass-non-ect",
        "channel:none",
        "channel:uniform",
        "channel:gilbert-elliott-packet",
        "channel:gilbert-elliott-time",
        "channel:fading",
        "effect:loss",
        "effect:corruption",
        "capacity:constant",
        "capacity:schedule",
        "capacity:trace",
        "capacity:hsdpa",
        "link:retransmission",
        "traffic:tcp",
        "traffic:cbr",
        "traffic:cbr-schedule",
        "traffic:onoff",
        "traffic:voip",
        "tcp:direction-reverse",
        "tcp:direction-both",
        "sampling:last-sample-at-end",
    ] {
        assert!(seen(tag), "{tag} never ran");
    }
}

/// The report does not depend on the number of threads.
#[test]
fn campaign_is_the_same_on_any_number_of_threads() {
    let (a, b) = (campaign::run(7, 100, 40, 1), campaign::run(7, 100, 40, 2));
    assert_eq!((a.runs, a.events, a.coverage.clone(), a.combos.clone()), (b.runs, b.events, b.coverage, b.combos));
    assert_eq!(a.violations.len(), b.violations.len());
}
