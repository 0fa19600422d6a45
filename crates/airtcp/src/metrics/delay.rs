//! Delay distributions of one flow: percentiles of its RTT samples (TCP) or of its datagrams'
//! one-way delays (UDP), and RFC 3550's interarrival jitter.
//!
//! Why a histogram and not the samples: a run may take an RTT sample on every ACK of 10⁵ flows,
//! and the percentiles must not cost memory in proportion to the run's length. An HDR histogram
//! (the `hdrhistogram` crate, Gil Tene's HdrHistogram) keeps a fixed relative precision over the
//! whole range with a few kilobytes a flow, and its quantiles are exact up to that precision.
//! ns-3's FlowMonitor makes the same trade with fixed 1-ms bins; a fixed *relative* precision
//! keeps a 2-ms LAN RTT and a 2-s satellite RTT equally accurate.

use hdrhistogram::Histogram;

/// Significant decimal digits the histogram keeps: values within 1% of each other may share a
/// bucket, so a reported percentile is within 1% of the exact sample percentile (before the
/// microsecond rounding below). Two digits cost about 7 kB for delays up to 1 s, 11 kB up to
/// 100 s; three would cost 45–75 kB a flow, too much for 10⁵-flow runs.
pub(crate) const SIGNIFICANT_DIGITS: u8 = 2;

/// Bytes a flow's histogram may take when it covers delays up to `max_delay_ns` (the memory
/// estimate's bound; the histogram grows only as far as the largest delay recorded).
pub(crate) fn histogram_bytes(max_delay_ns: u64) -> u64 {
    let max_us = (max_delay_ns / 1000).max(2);
    Histogram::<u32>::new_with_bounds(1, max_us, SIGNIFICANT_DIGITS).map(|h| h.distinct_values() as u64 * 4 + 128).unwrap_or(0)
}

/// A delay distribution, in microseconds (delays are recorded rounded down to whole µs).
/// Allocated on the first sample, so a flow that never takes one costs a pointer.
#[derive(Debug, Clone, Default)]
pub struct DelayHistogram {
    h: Option<Box<Histogram<u32>>>,
    /// Exact smallest and largest delay recorded, ns: a percentile lies between them, so the
    /// bucket's value is clamped to them (a constant delay is reported exactly).
    min_ns: u64,
    max_ns: u64,
}

impl DelayHistogram {
    /// Records one delay of `delay_ns` nanoseconds.
    #[inline]
    pub(crate) fn record(&mut self, delay_ns: u64) {
        let h = self.h.get_or_insert_with(|| {
            // Auto-resizing from the smallest range: grows to the largest delay recorded.
            Box::new(Histogram::<u32>::new(SIGNIFICANT_DIGITS).expect("2 significant digits are valid"))
        });
        // `record` grows the range to fit; it fails only where a count would pass u32::MAX, and
        // then `saturating_record` keeps that bucket at its maximum instead.
        let us = delay_ns / 1000;
        if h.record(us).is_err() {
            h.saturating_record(us);
        }
        if h.len() == 1 {
            (self.min_ns, self.max_ns) = (delay_ns, delay_ns);
        } else {
            self.min_ns = self.min_ns.min(delay_ns);
            self.max_ns = self.max_ns.max(delay_ns);
        }
    }

    /// Forgets every sample (at the end of the warm-up: percentiles cover the measurement window,
    /// as goodput does).
    pub(crate) fn clear(&mut self) {
        if let Some(h) = &mut self.h {
            h.reset();
        }
    }

    /// Number of samples recorded (the tests' view; the summary reads quantiles).
    #[cfg(test)]
    pub(crate) fn len(&self) -> u64 {
        self.h.as_ref().map_or(0, |h| h.len())
    }

    /// The `q`-quantile (0 < q ≤ 1) in seconds, `None` without samples: the smallest recorded
    /// delay d such that a fraction q of the samples are ≤ d (the "nearest rank" definition),
    /// reported as the middle of its histogram bucket, clamped to the exact smallest and largest
    /// delay recorded.
    pub(crate) fn quantile_s(&self, q: f64) -> Option<f64> {
        let h = self.h.as_ref().filter(|h| !h.is_empty())?;
        let us = h.median_equivalent(h.value_at_quantile(q));
        let ns = us.saturating_mul(1000).clamp(self.min_ns, self.max_ns);
        Some(ns as f64 / 1e9)
    }
}

/// RFC 3550 §6.4.1 interarrival jitter: "the mean deviation (smoothed absolute value) of the
/// difference D in packet spacing at the receiver compared to the sender for a pair of packets":
/// D(i−1, i) = (R_i − R_{i−1}) − (S_i − S_{i−1}), and J(i) = J(i−1) + (|D(i−1, i)| − J(i−1))/16,
/// computed for each packet in the order it arrives. Kept in nanoseconds (RFC 3550 counts in the
/// RTP timestamp's units; the simulator's clock is its own).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Jitter {
    /// J, nanoseconds.
    j_ns: f64,
    /// R − S of the last packet, nanoseconds.
    last_transit_ns: Option<i128>,
    /// Differences D taken so far.
    differences: u64,
}

impl Jitter {
    /// A packet sent at `sent_ns` arrived at `arrived_ns`.
    #[inline]
    pub(crate) fn on_packet(&mut self, sent_ns: u64, arrived_ns: u64) {
        let transit = arrived_ns as i128 - sent_ns as i128;
        if let Some(last) = self.last_transit_ns {
            // RFC 3550 §6.4.1: "J(i) = J(i-1) + (|D(i-1,i)| - J(i-1))/16".
            let d = (transit - last).unsigned_abs() as f64;
            self.j_ns += (d - self.j_ns) / 16.0;
            self.differences += 1;
        }
        self.last_transit_ns = Some(transit);
    }

    /// J in seconds; `None` before two packets have arrived (one packet gives a transit time
    /// but no difference D: J is undefined, not 0).
    pub(crate) fn seconds(&self) -> Option<f64> {
        (self.differences > 0).then_some(self.j_ns * 1e-9)
    }
}

/// A UDP flow's delays at its sink: one-way delays and jitter.
#[derive(Debug, Clone, Default)]
pub(crate) struct OneWayDelays {
    /// One-way delays of the datagrams received in the measurement window.
    pub owd: DelayHistogram,
    /// Interarrival jitter over every datagram received.
    pub jitter: Jitter,
}

impl OneWayDelays {
    /// A datagram sent at `sent_ns` arrived at `arrived_ns`.
    #[inline]
    pub(crate) fn on_packet(&mut self, sent_ns: u64, arrived_ns: u64) {
        self.owd.record(arrived_ns - sent_ns);
        self.jitter.on_packet(sent_ns, arrived_ns);
    }

    /// J in seconds, `None` with fewer than two datagrams.
    pub(crate) fn jitter_s(&self) -> Option<f64> {
        self.jitter.seconds()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_delay_gives_it_at_every_percentile() {
        let mut h = DelayHistogram::default();
        assert_eq!(h.quantile_s(0.5), None, "no samples: null, not 0");
        for _ in 0..1000 {
            h.record(123_456_789); // 123.456 ms
        }
        for q in [0.5, 0.95, 0.99] {
            // Exact: the bucket's value is clamped to the smallest and largest sample.
            assert_eq!(h.quantile_s(q), Some(0.123456789), "{q}");
        }
        assert_eq!(h.len(), 1000);
        h.clear();
        assert_eq!((h.len(), h.quantile_s(0.5)), (0, None));
    }

    /// Nearest-rank percentiles of 1..=100 ms worked by hand: p50 = 50 ms, p95 = 95 ms,
    /// p99 = 99 ms (the k-th smallest with k = ⌈q·100⌉), each within the 1% precision.
    #[test]
    fn percentiles_of_a_uniform_set_by_hand() {
        let mut h = DelayHistogram::default();
        // Recorded in a scrambled order: a histogram does not care.
        for i in 0..100u64 {
            let ms = (i * 37) % 100 + 1;
            h.record(ms * 1_000_000);
        }
        for (q, want) in [(0.5, 0.050), (0.95, 0.095), (0.99, 0.099), (1.0, 0.100)] {
            let v = h.quantile_s(q).unwrap();
            assert!((v - want).abs() / want < 0.01, "q {q}: {v} against {want}");
        }
        // A two-valued set: 90 samples at 10 ms and 10 at 1 s. p50 and p90 are 10 ms, p95 1 s.
        let mut h = DelayHistogram::default();
        (0..90).for_each(|_| h.record(10_000_000));
        (0..10).for_each(|_| h.record(1_000_000_000));
        assert!((h.quantile_s(0.9).unwrap() - 0.010).abs() < 0.0001);
        assert!((h.quantile_s(0.95).unwrap() - 1.0).abs() < 0.01);
    }

    /// RFC 3550 §6.4.1 worked by hand: transits 10, 12, 11, 11 ms give D = 2, 1, 0 ms and
    /// J = 2/16 = 0.125, then 0.125 + (1 − 0.125)/16 = 0.1796875, then that × 15/16.
    #[test]
    fn jitter_by_hand() {
        let mut o = OneWayDelays::default();
        assert_eq!(o.jitter_s(), None);
        let ms = 1_000_000u64;
        o.on_packet(0, 10 * ms);
        assert_eq!(o.jitter_s(), None, "one packet: no difference yet");
        o.on_packet(20 * ms, 32 * ms);
        assert!((o.jitter_s().unwrap() - 0.000125).abs() < 1e-15);
        o.on_packet(40 * ms, 51 * ms);
        assert!((o.jitter_s().unwrap() - 0.0001796875).abs() < 1e-15);
        o.on_packet(60 * ms, 71 * ms);
        assert!((o.jitter_s().unwrap() - 0.0001796875 * 15.0 / 16.0).abs() < 1e-15);
        // Constant transit: J stays 0.
        let mut c = OneWayDelays::default();
        (0..50).for_each(|i| c.on_packet(i * ms, i * ms + 7 * ms));
        assert_eq!(c.jitter_s(), Some(0.0));
        assert_eq!(c.owd.quantile_s(0.99), Some(0.007));
    }

    #[test]
    fn histogram_bytes_bound_grows_with_the_range() {
        let one_s = histogram_bytes(1_000_000_000);
        let hundred_s = histogram_bytes(100_000_000_000);
        assert!(one_s > 1000 && one_s < hundred_s && hundred_s < 20_000, "{one_s} {hundred_s}");
        // The bound covers what recording up to that delay allocates.
        let mut h = DelayHistogram::default();
        h.record(100_000_000_000);
        assert!(h.h.as_ref().unwrap().distinct_values() as u64 * 4 <= hundred_s);
    }
}
