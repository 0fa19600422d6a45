//! A link whose serialization rate follows a piecewise-constant schedule, optionally repeating —
//! the simplest time-varying capacity (a handoff outage is a step to 0 b/s and back).
//!
//! Exact integer arithmetic: a packet needs `bytes · 8 · 10⁹` bit-nanoseconds of service; a step
//! at `r` b/s lasting `d` ns provides `r · d` of them. Serialization spans step boundaries, so a
//! packet that starts at 2 Mb/s and finishes at 500 kb/s takes exactly the time it should.

use super::{Capacity, CapacityContext, CapacityKind, ResolvedCapacity};
use crate::spec::{err, RateStep, ScenarioError};
use crate::time::{SimDuration, NS_PER_S};

/// `kind = "schedule"`: rate steps; from each `at` on, the link serializes at `rate` ("0bps" =
/// outage).
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ScheduleCapacitySpec {
    /// The first step must be at "0s"; times increase.
    steps: Vec<RateStep>,
    /// Repeat the steps with this period (every `at` must be below it); default: the last step
    /// lasts forever.
    repeat: Option<SimDuration>,
}

impl CapacityKind for ScheduleCapacitySpec {
    fn resolve(&self, field: &str, _ctx: &mut CapacityContext) -> Result<ResolvedCapacity, ScenarioError> {
        let sch = self;
        if sch.steps.is_empty() {
            return err(format!("{field}.steps"), "at least one step is required");
        }
        if sch.steps[0].at.as_nanos() != 0 {
            return err(format!("{field}.steps[0].at"), "the first step must be at 0s");
        }
        for (k, st) in sch.steps.iter().enumerate().skip(1) {
            if st.at <= sch.steps[k - 1].at {
                return err(format!("{field}.steps[{k}].at"), "steps must be in increasing time order");
            }
        }
        match sch.repeat {
            Some(p) => {
                let last = sch.steps.last().unwrap().at;
                if p <= last {
                    return err(format!("{field}.repeat"), format!("must be longer than the last step's time ({}s)", last.as_secs_f64()));
                }
                if sch.steps.iter().all(|st| st.rate.bps() == 0) {
                    return err(format!("{field}.steps"), "a repeating schedule needs at least one rate above 0bps");
                }
                // The time-average rate sizes derived timings (e.g. RED's idle-time estimate); a
                // period-average under 1 b/s rounds to 0 and has no serialization time.
                let bit_ns: u128 = sch
                    .steps
                    .iter()
                    .enumerate()
                    .map(|(k, st)| {
                        let end = sch.steps.get(k + 1).map_or(p, |n| n.at).as_nanos();
                        st.rate.bps() as u128 * (end - st.at.as_nanos()) as u128
                    })
                    .sum();
                if bit_ns < p.as_nanos() as u128 {
                    return err(
                        format!("{field}.steps"),
                        "the average rate over one repeat period is below 1 bit/s (allowed: at least 1 bit/s)",
                    );
                }
            }
            None => {
                if sch.steps.last().unwrap().rate.bps() == 0 {
                    let k = sch.steps.len() - 1;
                    return err(format!("{field}.steps[{k}].rate"), "the last step lasts forever: it must be above 0bps (or set repeat)");
                }
            }
        }
        let capacity = Capacity::Schedule(RateSchedule::new(
            sch.steps.iter().map(|st| (st.at.as_nanos(), st.rate.bps())).collect(),
            sch.repeat.map(|p| p.as_nanos()),
        ));
        Ok(ResolvedCapacity { capacity, random_start: false, cell: None })
    }
}

/// Steps of (offset from the schedule's start in ns, rate in b/s), increasing in offset, the first
/// at offset 0; with `period_ns`, the steps repeat every period (offsets must be below it).
#[derive(Debug, Clone)]
pub(crate) struct RateSchedule {
    steps: Vec<(u64, u64)>,
    period_ns: Option<u64>,
}

impl RateSchedule {
    /// Validated input: the first step is at 0, offsets increase, offsets < period, and some rate
    /// is positive in the part that lasts forever (the last step, or any step when repeating).
    pub(crate) fn new(steps: Vec<(u64, u64)>, period_ns: Option<u64>) -> Self {
        debug_assert!(steps.first().is_some_and(|s| s.0 == 0));
        RateSchedule { steps, period_ns }
    }

    /// Rate at `t` ns and the time of the next change after `t` (`None` when constant from `t` on).
    pub(crate) fn rate_at(&self, t: u64) -> (u64, Option<u64>) {
        let (base, off) = match self.period_ns {
            Some(p) => (t - t % p, t % p),
            None => (0, t),
        };
        let i = self.steps.partition_point(|s| s.0 <= off) - 1;
        let next = match self.steps.get(i + 1) {
            Some(s) => Some(base + s.0),
            None => self.period_ns.map(|p| base + p),
        };
        (self.steps[i].1, next)
    }

    /// Time-average rate in b/s (over one period; the last step's rate without repetition).
    pub(crate) fn mean_bps(&self) -> u64 {
        match self.period_ns {
            None => self.steps.last().map_or(0, |s| s.1),
            Some(p) => {
                let mut sum = 0u128;
                for (i, s) in self.steps.iter().enumerate() {
                    let end = self.steps.get(i + 1).map_or(p, |n| n.0);
                    sum += s.1 as u128 * (end - s.0) as u128;
                }
                (sum / p as u128) as u64
            }
        }
    }

    /// When a packet of `bytes` whose serialization starts at `start` ns finishes.
    pub(crate) fn finish(&self, start: u64, bytes: u32) -> u64 {
        let mut need = bytes as u128 * 8 * NS_PER_S as u128; // bit·ns of service
        let mut t = start;
        loop {
            let (rate, next) = self.rate_at(t);
            let r = rate as u128;
            match next {
                Some(n) if r * (n - t) as u128 >= need || r == 0 => {
                    if r > 0 {
                        return t + need.div_ceil(r) as u64;
                    }
                    t = n; // an outage: wait for the next step
                }
                Some(n) => {
                    need -= r * (n - t) as u128;
                    t = n;
                }
                None => return t + need.div_ceil(r) as u64, // r > 0 by validation
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn serialization_spans_steps_and_outages() {
        // 8 Mb/s for 1 ms, outage 2 ms, then 1 Mb/s.
        let s = RateSchedule::new(vec![(0, 8_000_000), (MS, 0), (3 * MS, 1_000_000)], None);
        // 1000 B = 8000 bits: at 8 Mb/s 1 ms exactly.
        assert_eq!(s.finish(0, 1000), MS);
        // Starting at 0.5 ms: 4000 bits by 1 ms, wait to 3 ms, 4000 bits at 1 Mb/s = 4 ms → 7 ms.
        assert_eq!(s.finish(MS / 2, 1000), 7 * MS);
        assert_eq!(s.finish(2 * MS, 125), 4 * MS); // 1000 bits at 1 Mb/s after the outage
        assert_eq!(s.mean_bps(), 1_000_000);
    }

    #[test]
    fn repeating_schedule_wraps_and_averages() {
        // 2 Mb/s for 10 ms, 0 for 10 ms, repeating: mean 1 Mb/s.
        let s = RateSchedule::new(vec![(0, 2_000_000), (10 * MS, 0)], Some(20 * MS));
        assert_eq!(s.mean_bps(), 1_000_000);
        assert_eq!(s.rate_at(25 * MS), (2_000_000, Some(30 * MS)));
        // 5000 B = 40000 bits = 20 ms of service at 2 Mb/s: 10 ms, gap, 10 ms → ends at 30 ms.
        assert_eq!(s.finish(0, 5000), 30 * MS);
    }
}
