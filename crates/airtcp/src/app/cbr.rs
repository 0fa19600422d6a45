//! UDP constant-bit-rate source with a piecewise-constant rate schedule (e.g. TCP-Jersey Fig. 3:
//! 500 / 0 / 750 / 500 / 0 / 500 kb/s in 5-s steps). The rate counts UDP payload bytes
//! (`packet_bytes`, ns-2's CBR `packetSize_`); IP and UDP headers ride on top.

use super::{AppKind, Ends, UdpSource};
use crate::spec::{err, RateStep, ScenarioError};
use crate::time::{DataRate, SimDuration, SimTime, NS_PER_S};

/// A UDP constant-bit-rate source whose rate follows a piecewise-constant schedule.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CbrFlowSpec {
    name: Option<String>,
    src: String,
    dst: String,
    /// UDP payload bytes per datagram.
    #[serde(default = "default_packet_bytes")]
    packet_bytes: u32,
    /// Constant rate from `start` to `stop` (use `schedule` for on/off patterns).
    rate: Option<DataRate>,
    #[serde(default)]
    start: SimDuration,
    stop: Option<SimDuration>,
    /// Steps of (time, rate): from each `at` on, the source sends at `rate` ("0bps" = off).
    #[serde(default)]
    schedule: Vec<RateStep>,
}

fn default_packet_bytes() -> u32 {
    1000
}

impl AppKind for CbrFlowSpec {
    fn ends(&self) -> Ends<'_> {
        Ends { name: self.name.as_deref(), src: &self.src, dst: &self.dst, start: self.start, stop: self.stop }
    }

    fn check(&self, field: &str) -> Result<(), ScenarioError> {
        let c = self;
        if c.packet_bytes == 0 || c.packet_bytes > 65_000 {
            return err(format!("{field}.packet_bytes"), format!("{} is out of range (allowed: 1 to 65000)", c.packet_bytes));
        }
        match (&c.rate, c.schedule.is_empty()) {
            (Some(_), false) => return err(format!("{field}.schedule"), "give either rate or schedule, not both"),
            (None, true) => return err(format!("{field}.rate"), "a CBR flow needs a rate or a schedule"),
            _ => {}
        }
        for (k, st) in c.schedule.iter().enumerate() {
            if k > 0 && st.at <= c.schedule[k - 1].at {
                return err(format!("{field}.schedule[{k}].at"), "steps must be in increasing time order");
            }
        }
        // One packet per interval packet_bytes·8/rate: it must be at least 1 ns, or the
        // source would send forever at one instant (a 20 Gb/s CBR of 1-byte packets used to).
        let max_bps = c.packet_bytes as u64 * 8 * 1_000_000_000;
        let too_fast = |field: String, bps: u64| -> Result<(), ScenarioError> {
            if bps > max_bps {
                return err(
                    field,
                    format!("{bps}bps sends a {}-byte packet more often than every 1 ns (allowed: up to {max_bps}bps)", c.packet_bytes),
                );
            }
            Ok(())
        };
        if let Some(r) = c.rate {
            if r.bps() == 0 {
                return err(format!("{field}.rate"), "must be greater than 0bps (use a schedule step of 0bps to pause)");
            }
            too_fast(format!("{field}.rate"), r.bps())?;
        }
        for (k, st) in c.schedule.iter().enumerate() {
            too_fast(format!("{field}.schedule[{k}].rate"), st.rate.bps())?;
        }
        Ok(())
    }

    fn build(&self, _name: &str, _seed: u64) -> UdpSource {
        let start = self.start.as_nanos();
        let stop = self.stop.map_or(u64::MAX, |x| x.as_nanos());
        let steps = match self.rate {
            Some(r) => vec![(start, r.bps())],
            None => self.schedule.iter().map(|st| (st.at.as_nanos(), st.rate.bps())).collect(),
        };
        UdpSource::Cbr(CbrSource::new(self.packet_bytes, steps, start, stop))
    }
}

/// A CBR source's schedule and position.
#[derive(Debug, Clone)]
pub(crate) struct CbrSource {
    pub packet_bytes: u32,
    /// (from time, rate bit/s), increasing in time; before the first step the source is off.
    steps: Vec<(SimTime, u64)>,
    /// Before this time the source is off.
    start: SimTime,
    /// From this time on the source is off.
    stop: SimTime,
}

impl CbrSource {
    pub(crate) fn new(packet_bytes: u32, steps: Vec<(SimTime, u64)>, start: SimTime, stop: SimTime) -> Self {
        CbrSource { packet_bytes, steps, start, stop }
    }

    /// Rate in force at `t` (0 when off).
    pub(crate) fn rate_at(&self, t: SimTime) -> u64 {
        if t >= self.stop || t < self.start {
            return 0;
        }
        self.steps.iter().rev().find(|&&(at, _)| at <= t).map_or(0, |&(_, r)| r)
    }

    /// Next rate change strictly after `t`.
    pub(crate) fn next_change_after(&self, t: SimTime) -> Option<SimTime> {
        self.steps.iter().map(|&(at, _)| at).chain([self.start, self.stop]).filter(|&at| at > t).min()
    }

    /// Gap between packets at `rate` bit/s, in ns (rounded to nearest).
    pub(crate) fn interval_ns(&self, rate: u64) -> u64 {
        let bits = self.packet_bytes as u128 * 8 * NS_PER_S as u128;
        ((bits + rate as u128 / 2) / rate as u128) as u64
    }

    /// Given a send at `t`, when the next packet (or rate change) is due.
    pub(crate) fn next_tick(&self, t: SimTime) -> Option<SimTime> {
        let rate = self.rate_at(t);
        let change = self.next_change_after(t);
        if rate == 0 {
            return change;
        }
        let next = t + self.interval_ns(rate);
        Some(match change {
            Some(c) if c <= next => c,
            _ => next,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: u64 = NS_PER_S;

    #[test]
    fn jersey_fig3_schedule() {
        let steps = vec![(0, 500_000), (5 * S, 0), (10 * S, 750_000), (15 * S, 500_000), (20 * S, 0), (25 * S, 500_000)];
        let c = CbrSource::new(1000, steps, 0, 30 * S);
        assert_eq!(c.rate_at(2 * S), 500_000);
        assert_eq!(c.rate_at(7 * S), 0);
        assert_eq!(c.rate_at(12 * S), 750_000);
        assert_eq!(c.rate_at(30 * S), 0);
        // 1000 B at 500 kb/s: one packet every 16 ms.
        assert_eq!(c.interval_ns(500_000), 16_000_000);
        assert_eq!(c.next_tick(7 * S), Some(10 * S));
        assert_eq!(c.next_tick(S), Some(S + 16_000_000));
        assert_eq!(c.next_tick(5 * S - 1), Some(5 * S));
    }
}
