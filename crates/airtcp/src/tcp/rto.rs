//! Retransmission timeout per RFC 6298, or as Linux computes it, in integer nanoseconds.

use serde::Deserialize;

/// How the RTO follows the RTT samples (the flow option `rto_estimator`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RtoFormula {
    /// RFC 6298 §2: RTO = SRTT + max(G, 4·RTTVAR), at least `min_rto`.
    #[default]
    Rfc6298,
    /// Linux's `tcp_rtt_estimator` and `__tcp_set_rto` (net/ipv4/tcp_input.c, kernel 6.x):
    /// RTO = SRTT + rttvar, where rttvar tracks the largest deviation (×4) seen in each round
    /// trip, is never below `min_rto` (`tcp_rto_min`), and falls only a quarter of the way to a
    /// smaller round's maximum per round; a sample below SRTT moves the deviation at 1/32 gain
    /// instead of 1/4. So the RTO is at least SRTT + 200 ms, where RFC 6298 floors the sum, and a
    /// delay spike raises it at once but a calm stretch lowers it slowly: fewer spurious timeouts
    /// when a cellular link's delay swings.
    Linux,
}

/// Linux's deviation state (`struct tcp_sock`'s fields of the same names; `mdev` is 4× the mean
/// deviation, as `mdev_us` is).
#[derive(Debug, Clone, Copy, Default)]
struct LinuxVar {
    /// 8·SRTT, as Linux keeps it (`srtt_us`): its integer steps keep the three bits that the
    /// estimator's unscaled SRTT drops.
    srtt8: u64,
    mdev: u64,
    mdev_max: u64,
    rttvar: u64,
    /// snd_nxt when this round's maximum started: a cumulative ACK beyond it ends the round.
    rtt_seq: u64,
}

/// RTT estimator and RTO with exponential back-off (RFC 6298, or Linux's; see [`RtoFormula`]).
#[derive(Debug, Clone)]
pub struct RttEstimator {
    formula: RtoFormula,
    linux: LinuxVar,
    srtt: Option<u64>,
    rttvar: u64,
    /// RTO without back-off, at most max_rto and at least min_rto (Linux: SRTT + min_rto).
    base_rto: u64,
    /// Number of consecutive back-offs (RFC 6298 (5.5)).
    backoff: u32,
    min_rto: u64,
    max_rto: u64,
    granularity: u64,
    pub min_rtt: Option<u64>,
}

impl RttEstimator {
    pub fn new(initial_rto: u64, min_rto: u64, max_rto: u64, granularity: u64) -> Self {
        Self::with_formula(RtoFormula::Rfc6298, initial_rto, min_rto, max_rto, granularity)
    }

    /// An estimator following `formula` (`granularity` is RFC 6298's G; Linux's has none).
    pub(crate) fn with_formula(formula: RtoFormula, initial_rto: u64, min_rto: u64, max_rto: u64, granularity: u64) -> Self {
        RttEstimator {
            formula,
            linux: LinuxVar::default(),
            srtt: None,
            rttvar: 0,
            base_rto: initial_rto.clamp(min_rto, max_rto),
            backoff: 0,
            min_rto,
            max_rto,
            granularity,
            min_rtt: None,
        }
    }

    /// Feeds one RTT measurement R taken from an ACK that brought snd_una to `snd_una`, with
    /// `snd_nxt` the highest sequence number sent (Linux's estimator ends its round when snd_una
    /// passes the snd_nxt of the round's start; RFC 6298's ignores both).
    pub fn sample(&mut self, r: u64, snd_una: u64, snd_nxt: u64) {
        match self.formula {
            RtoFormula::Rfc6298 => self.sample_rfc6298(r),
            RtoFormula::Linux => self.sample_linux(r, snd_una, snd_nxt),
        }
        // Karn/RFC 6298 §5 (Linux `tcp_ack_update_rtt`: "only reset backoff on valid RTT
        // measurement"): a valid sample from new data ends the back-off.
        self.backoff = 0;
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
    }

    /// Linux `tcp_rtt_estimator` (SRTT kept unscaled here: Linux's `srtt_us >> 3`, with the
    /// same integer steps on 8·SRTT) and `__tcp_set_rto`/`tcp_bound_rto`.
    fn sample_linux(&mut self, m: u64, snd_una: u64, snd_nxt: u64) {
        let rto_min = self.min_rto;
        let v = &mut self.linux;
        let srtt8 = match self.srtt {
            None => {
                // "no previous measure": srtt = m, mdev = 2m ("make sure rto = 3*rtt"),
                // rttvar = max(mdev, tcp_rto_min).
                v.mdev = 2 * m;
                v.rttvar = v.mdev.max(rto_min);
                v.mdev_max = v.rttvar;
                v.rtt_seq = snd_nxt;
                8 * m
            }
            Some(_) => {
                let srtt8 = v.srtt8 as i128;
                // m -= (srtt >> 3); srtt += m   ("rtt = 7/8 rtt + 1/8 new")
                let err = m as i128 - (srtt8 >> 3);
                let srtt8 = srtt8 + err;
                let mut dev = err.abs() - (v.mdev as i128 >> 2);
                if err < 0 && dev > 0 {
                    // "we use finer gain for mdev in this case (alpha*beta)"
                    dev >>= 3;
                }
                // "mdev = 3/4 mdev + 1/4 new"
                v.mdev = (v.mdev as i128 + dev).max(0) as u64;
                if v.mdev > v.mdev_max {
                    v.mdev_max = v.mdev;
                    if v.mdev_max > v.rttvar {
                        v.rttvar = v.mdev_max;
                    }
                }
                if snd_una > v.rtt_seq {
                    // A round has ended: rttvar falls a quarter of the way to its maximum.
                    if v.mdev_max < v.rttvar {
                        v.rttvar -= (v.rttvar - v.mdev_max) >> 2;
                    }
                    v.rtt_seq = snd_nxt;
                    v.mdev_max = rto_min;
                }
                srtt8.max(1) as u64
            }
        };
        v.srtt8 = srtt8;
        self.srtt = Some(srtt8 >> 3);
        self.rttvar = v.rttvar / 4;
        // __tcp_set_rto: (srtt_us >> 3) + rttvar_us; tcp_bound_rto: at most TCP_RTO_MAX.
        self.base_rto = ((srtt8 >> 3) + v.rttvar).min(self.max_rto);
    }

    /// RFC 6298 §2.
    fn sample_rfc6298(&mut self, r: u64) {
        match self.srtt {
            None => {
                // (2.2) SRTT <- R, RTTVAR <- R/2
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
            Some(srtt) => {
                // (2.3) RTTVAR <- (1 - beta) * RTTVAR + beta * |SRTT - R'|, beta = 1/4 (with the old SRTT)
                //       SRTT <- (1 - alpha) * SRTT + alpha * R', alpha = 1/8
                self.rttvar = (3 * self.rttvar + srtt.abs_diff(r)) / 4;
                self.srtt = Some((7 * srtt + r) / 8);
            }
        }
        // RTO <- SRTT + max (G, K*RTTVAR), K = 4; (2.4) at least min_rto; (2.5) at most max_rto.
        let srtt = self.srtt.unwrap();
        self.base_rto = (srtt + self.granularity.max(4 * self.rttvar)).clamp(self.min_rto, self.max_rto);
    }

    /// Feeds a measurement that does not end the back-off: ns-2.35's TCP-Linux takes one from
    /// every duplicate ACK's timestamp echo (`rtt_update`) but clears `t_backoff_` only when its
    /// timed segment is acknowledged.
    pub(crate) fn sample_keeping_backoff(&mut self, r: u64, snd_una: u64, snd_nxt: u64) {
        let backoff = self.backoff;
        self.sample(r, snd_una, snd_nxt);
        self.backoff = backoff;
    }

    /// (5.5) The timer expired: RTO <- RTO * 2, bounded by max_rto.
    pub fn on_timeout(&mut self) {
        if self.rto() < self.max_rto {
            self.backoff += 1;
        }
    }

    /// The RTO to arm the timer with now (back-off included). Inlined: a sender restarts its
    /// timer with it on every ACK.
    #[inline]
    pub fn rto(&self) -> u64 {
        if self.backoff == 0 {
            return self.base_rto.min(self.max_rto);
        }
        // Saturating: `checked_shl` only refuses shifts of 64 or more, and a smaller shift that
        // pushes the high bits out wrapped to a small value, even 0 (fuzzing finding).
        let shifted = if self.backoff >= self.base_rto.leading_zeros() { u64::MAX } else { self.base_rto << self.backoff };
        if self.backoff >= 40 {
            self.max_rto
        } else {
            shifted.min(self.max_rto)
        }
    }

    /// RTO without back-off.
    pub(crate) fn base_rto(&self) -> u64 {
        self.base_rto
    }

    pub fn srtt(&self) -> Option<u64> {
        self.srtt
    }

    #[cfg(test)]
    pub(crate) fn rttvar(&self) -> u64 {
        self.rttvar
    }

    #[cfg(test)]
    pub(crate) fn backoff(&self) -> u32 {
        self.backoff
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    /// Hand-worked RFC 6298 with G = 1 ms, min RTO 200 ms:
    /// R1 = 100 ms: SRTT 100, RTTVAR 50, RTO = 100 + 4·50 = 300 ms.
    /// R2 = 200 ms: RTTVAR = 3/4·50 + 1/4·|100−200| = 62.5; SRTT = 7/8·100 + 1/8·200 = 112.5;
    ///              RTO = 112.5 + 250 = 362.5 ms.
    /// R3 = 112.5 ms: RTTVAR = 3/4·62.5 + 0 = 46.875; SRTT = 112.5; RTO = 112.5 + 187.5 = 300 ms.
    #[test]
    fn rfc6298_updates_by_hand() {
        let mut e = RttEstimator::new(1000 * MS, 200 * MS, 60_000 * MS, MS);
        assert_eq!(e.rto(), 1000 * MS); // (2.1) before any sample
        e.sample(100 * MS, 0, 0);
        assert_eq!((e.srtt(), e.rttvar(), e.rto()), (Some(100 * MS), 50 * MS, 300 * MS));
        e.sample(200 * MS, 0, 0);
        assert_eq!((e.srtt(), e.rttvar(), e.rto()), (Some(112_500_000), 62_500_000, 362_500_000));
        e.sample(112_500_000, 0, 0);
        assert_eq!((e.srtt(), e.rttvar(), e.rto()), (Some(112_500_000), 46_875_000, 300 * MS));
    }

    #[test]
    fn min_rto_and_granularity_apply() {
        let mut e = RttEstimator::new(1000 * MS, 1000 * MS, 60_000 * MS, MS);
        e.sample(10 * MS, 0, 0);
        assert_eq!(e.rto(), 1000 * MS); // (2.4) rounded up to 1 s
                                        // Zero variance: RTO = SRTT + G.
        let mut e = RttEstimator::new(1000 * MS, 0, 60_000 * MS, 10 * MS);
        e.sample(8 * MS, 0, 0); // RTTVAR = 4 ms → 4·4 = 16 ms > G
        e.sample(8 * MS, 0, 0); // RTTVAR = 3 ms → 12 ms
        e.sample(8 * MS, 0, 0); // RTTVAR = 2.25 ms → 9 ms < G = 10 ms
        assert_eq!(e.rto(), 18 * MS);
    }

    #[test]
    fn backoff_doubles_caps_and_resets_on_sample() {
        let mut e = RttEstimator::new(1000 * MS, 200 * MS, 5000 * MS, MS);
        e.sample(100 * MS, 0, 0); // RTO 300 ms
        e.on_timeout();
        assert_eq!(e.rto(), 600 * MS);
        e.on_timeout();
        assert_eq!(e.rto(), 1200 * MS);
        e.on_timeout();
        e.on_timeout();
        assert_eq!(e.rto(), 4800 * MS);
        e.on_timeout();
        assert_eq!(e.rto(), 5000 * MS); // (2.5) max
        e.on_timeout();
        assert_eq!(e.rto(), 5000 * MS);
        e.sample(100 * MS, 0, 0); // Karn: a valid sample clears back-off
        assert_eq!(e.backoff(), 0);
        assert!(e.rto() < 600 * MS);
    }

    fn linux() -> RttEstimator {
        RttEstimator::with_formula(RtoFormula::Linux, 1000 * MS, 200 * MS, 120_000 * MS, MS)
    }

    /// Linux `tcp_rtt_estimator` worked by hand (ms; tcp_rto_min 200 ms). First sample 100:
    /// srtt 100, mdev 200, rttvar = max(200, 200), RTO 300. Then 500 (same round): err 400,
    /// 8·srtt 800 → 1200 (srtt 150), mdev += 400 − 200/4 → 550, a new round maximum, so rttvar 550:
    /// RTO 700. Then 150 with snd_una past the round's snd_nxt: mdev += 0 − 550/4 → 412.5; the
    /// round ends with mdev_max 550 = rttvar (no decay), mdev_max back to 200. Then 150: mdev →
    /// 309.375, the round's maximum. Then 150 ending that round: mdev → 232.03125, and rttvar
    /// falls a quarter of the way to 309.375: 550 − 240.625/4 = 489.84375; RTO 639.84375.
    /// RFC 6298 on the same samples is at 150 + 4·58.0078125 = 382.03125 by then.
    #[test]
    fn linux_estimator_by_hand() {
        let mut e = linux();
        e.sample(100 * MS, 100, 1000);
        assert_eq!((e.srtt(), e.rto()), (Some(100 * MS), 300 * MS));
        e.sample(500 * MS, 500, 2000);
        assert_eq!((e.srtt(), e.rto()), (Some(150 * MS), 700 * MS));
        e.sample(150 * MS, 1500, 3000);
        assert_eq!(e.rto(), 700 * MS);
        e.sample(150 * MS, 2500, 3500);
        assert_eq!(e.rto(), 700 * MS);
        e.sample(150 * MS, 3200, 4000);
        assert_eq!((e.srtt(), e.rto()), (Some(150 * MS), 639_843_750));
        let mut r = RttEstimator::new(1000 * MS, 200 * MS, 120_000 * MS, MS);
        for m in [100, 500, 150, 150, 150] {
            r.sample(m * MS, 0, 0);
        }
        assert!(r.rto().abs_diff(382_031_250) < 10, "{}", r.rto()); // integer ns floors each step
    }

    /// A sample below SRTT by more than a quarter of mdev moves mdev at 1/32 gain (Linux: "we
    /// use finer gain for mdev in this case"): after 100 then 500 (mdev 550), a sample of 10 ms:
    /// err = 10 − 150 = −140, (140 − 137.5) / 8 = 0.3125, so mdev 550.3125, a new round maximum:
    /// rttvar 550.3125; 8·srtt 1200 − 140 = 1060 (srtt 132.5); RTO 682.8125.
    #[test]
    fn linux_estimator_falling_sample_gain() {
        let mut e = linux();
        e.sample(100 * MS, 100, 1000);
        e.sample(500 * MS, 500, 2000);
        e.sample(10 * MS, 600, 2000);
        assert_eq!((e.srtt(), e.rto()), (Some(132_500_000), 682_812_500));
    }

    /// A steady RTT: RFC 6298 lets the RTO fall to `min_rto` (the variance goes to 0), Linux
    /// keeps it at SRTT + tcp_rto_min, as rttvar never falls below the floor.
    #[test]
    fn linux_estimator_floor_is_srtt_plus_min_rto() {
        let mut l = linux();
        let mut r = RttEstimator::new(1000 * MS, 200 * MS, 120_000 * MS, MS);
        for round in 1..=50u64 {
            l.sample(100 * MS, round * 1000, (round + 1) * 1000);
            r.sample(100 * MS, 0, 0);
        }
        assert_eq!(l.rto(), 300 * MS);
        assert_eq!(r.rto(), 200 * MS);
        l.on_timeout();
        assert_eq!(l.rto(), 600 * MS);
    }

    /// Fuzzing finding (`fuzz/regressions/sender/rto-backoff-shifted-out`): a base RTO of 2^35 ns
    /// (34.4 s) doubled 29 times is 2^64 ns, which the shift wrapped to 0, so the timer was armed
    /// for now and the back-off never stopped. Each doubling now saturates at max_rto (10^16 ns
    /// here, reached after 19 doublings: 2^35 · 2^18 ≈ 9.0·10^15 < 10^16 ≤ 2^35 · 2^19).
    #[test]
    fn backoff_saturates_instead_of_wrapping() {
        let max = 10_000_000_000_000_000;
        let mut e = RttEstimator::new(1 << 35, 1, max, MS);
        let mut seen = vec![];
        for _ in 0..70 {
            seen.push(e.rto());
            e.on_timeout();
        }
        assert_eq!(seen[18], (1u64 << 35) << 18);
        assert!(seen[19..].iter().all(|&r| r == max), "{seen:?}");
        assert_eq!(e.backoff(), 19);
    }
}
