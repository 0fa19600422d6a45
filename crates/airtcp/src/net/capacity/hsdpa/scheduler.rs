//! The Node-B's MAC-hs scheduling metric: which UE is served first in a TTI.
//!
//! HSDPA paper §IV-A: "The PF scheduler maintains an average rate R_ave transmitted to each UE
//! over a fixed number of TTI and calculates the ratio of the instantaneous to the average channel
//! condition ... It then sets the priority based on the ratio R(t)/R_ave." Table 2: "PF scheduler
//! Tc 500" (TTIs). R(t) is the rate the UE's reported CQI supports; R_ave the exponentially
//! weighted average of the rate it was served, updated every TTI with weight 1/Tc. Round robin
//! (oldest-served first) and max C/I (highest R(t) first) are the two textbook alternatives.

/// Scheduling discipline, as a scenario names it (`capacity.scheduler`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize)]
pub(crate) enum Discipline {
    /// Proportional fair, the paper's.
    #[default]
    #[serde(rename = "pf")]
    ProportionalFair,
    #[serde(rename = "rr")]
    RoundRobin,
    #[serde(rename = "max_ci")]
    MaxCi,
}

/// A tiny floor on R_ave (b/s), so a UE never served has a finite, very high PF priority.
const R_AVE_FLOOR_BPS: f64 = 1.0;

/// Priority of a UE (higher first): `rate_bps` is R(t), `r_ave_bps` its average served rate,
/// `last_served_tti` the TTI index it was last served in (0 = never).
#[inline]
pub(crate) fn priority(d: Discipline, rate_bps: f64, r_ave_bps: f64, last_served_tti: u64) -> f64 {
    match d {
        Discipline::ProportionalFair => rate_bps / r_ave_bps.max(R_AVE_FLOOR_BPS),
        Discipline::RoundRobin => -(last_served_tti as f64),
        Discipline::MaxCi => rate_bps,
    }
}

/// R_ave after `ttis` more TTIs, the last of which served `served_bps` (0 if not served):
/// R ← (1 − 1/Tc) R + (1/Tc) r, applied once per TTI (idle TTIs decay it with r = 0).
#[inline]
pub(crate) fn update_average(r_ave_bps: f64, tc_tti: f64, ttis: u64, served_bps: f64) -> f64 {
    let a = 1.0 - 1.0 / tc_tti;
    let decayed = if ttis > 1 { r_ave_bps * a.powi((ttis - 1).min(i32::MAX as u64) as i32) } else { r_ave_bps };
    a * decayed + served_bps / tc_tti
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A UE served r every TTI converges to R_ave = r; after Tc idle TTIs it has decayed by
    /// (1 − 1/Tc)^Tc ≈ 1/e.
    #[test]
    fn average_is_an_ewma_with_time_constant_tc() {
        let mut r = 0.0;
        for _ in 0..20_000 {
            r = update_average(r, 500.0, 1, 1e6);
        }
        assert!((r - 1e6).abs() < 1.0);
        let after = update_average(r, 500.0, 500, 0.0);
        assert!((after / r - (1.0f64 - 1.0 / 500.0).powi(500)).abs() < 1e-12);
        assert!((after / r - (-1.0f64).exp()).abs() < 0.001);
    }

    #[test]
    fn disciplines_order_as_defined() {
        // PF prefers the UE far below its average; max C/I the better channel; RR the oldest.
        assert!(priority(Discipline::ProportionalFair, 1e6, 1e5, 0) > priority(Discipline::ProportionalFair, 2e6, 1e6, 0));
        assert!(priority(Discipline::MaxCi, 2e6, 1e6, 0) > priority(Discipline::MaxCi, 1e6, 1e5, 0));
        assert!(priority(Discipline::RoundRobin, 0.0, 0.0, 3) > priority(Discipline::RoundRobin, 9e9, 0.0, 7));
    }
}
