//! UDP constant-bit-rate source with a piecewise-constant rate schedule (e.g. TCP-Jersey Fig. 3:
//! 500 / 0 / 750 / 500 / 0 / 500 kb/s in 5-s steps). The rate counts UDP payload bytes
//! (`packet_bytes`, ns-2's CBR `packetSize_`); IP and UDP headers ride on top.

use crate::time::{SimTime, NS_PER_S};

/// A CBR source's schedule and position.
#[derive(Debug, Clone)]
pub struct CbrSource {
    pub packet_bytes: u32,
    /// (from time, rate bit/s), increasing in time; before the first step the source is off.
    steps: Vec<(SimTime, u64)>,
    /// Before this time the source is off.
    start: SimTime,
    /// From this time on the source is off.
    stop: SimTime,
    pub packets_sent: u64,
    pub packets_received: u64,
    pub bytes_received: u64,
}

impl CbrSource {
    pub fn new(packet_bytes: u32, steps: Vec<(SimTime, u64)>, start: SimTime, stop: SimTime) -> Self {
        CbrSource { packet_bytes, steps, start, stop, packets_sent: 0, packets_received: 0, bytes_received: 0 }
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
