//! Cut-through against event-by-event on the invariant campaign's scenarios (the engine's own
//! `crates/airtcp/tests/engine/cut_through.rs` covers hand-written and tie-prone ones).

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 48, ..Default::default() })]

    /// The invariant campaign's generator (any seed, any run) as a second source of scenarios:
    /// `campaign::check` repeats every run event by event and reports a difference as a
    /// `cut-through` violation.
    #[test]
    fn campaign_scenarios_cut_through_equals_event_by_event(seed in proptest::num::u64::ANY, index in 0u64..1_000_000) {
        let case = airtcp_testkit::case(seed, index);
        proptest::prop_assert!(case.cut_check);
        let (violations, _, _) = airtcp_testkit::check(&case);
        let cut: Vec<_> = violations.iter().filter(|v| v.kind.name() == "cut-through").map(|v| v.detail.clone()).collect();
        proptest::prop_assert!(cut.is_empty(), "{:?}\n{}", cut, case.toml);
    }
}
