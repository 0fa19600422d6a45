//! Retransmission timeout per RFC 6298, in integer nanoseconds.

/// RFC 6298 RTT estimator and RTO with exponential back-off.
#[derive(Debug, Clone)]
pub struct RttEstimator {
    srtt: Option<u64>,
    rttvar: u64,
    /// RTO without back-off, already clamped to [min_rto, max_rto].
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
        RttEstimator {
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

    /// Feeds one RTT measurement R (RFC 6298 §2).
    pub fn sample(&mut self, r: u64) {
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
        // Karn/RFC 6298 §5: a valid sample from new data ends the back-off.
        self.backoff = 0;
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
    }

    /// Feeds a measurement that does not end the back-off: ns-2.35's TCP-Linux takes one from
    /// every duplicate ACK's timestamp echo (`rtt_update`) but clears `t_backoff_` only when its
    /// timed segment is acknowledged.
    pub fn sample_keeping_backoff(&mut self, r: u64) {
        let backoff = self.backoff;
        self.sample(r);
        self.backoff = backoff;
    }

    /// (5.5) The timer expired: RTO <- RTO * 2, bounded by max_rto.
    pub fn on_timeout(&mut self) {
        if self.rto() < self.max_rto {
            self.backoff += 1;
        }
    }

    /// The RTO to arm the timer with now (back-off included).
    pub fn rto(&self) -> u64 {
        let shifted = self.base_rto.checked_shl(self.backoff).unwrap_or(u64::MAX);
        if self.backoff >= 40 {
            self.max_rto
        } else {
            shifted.min(self.max_rto)
        }
    }

    /// RTO without back-off.
    pub fn base_rto(&self) -> u64 {
        self.base_rto
    }

    pub fn srtt(&self) -> Option<u64> {
        self.srtt
    }

    pub fn rttvar(&self) -> u64 {
        self.rttvar
    }

    pub fn backoff(&self) -> u32 {
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
        e.sample(100 * MS);
        assert_eq!((e.srtt(), e.rttvar(), e.rto()), (Some(100 * MS), 50 * MS, 300 * MS));
        e.sample(200 * MS);
        assert_eq!((e.srtt(), e.rttvar(), e.rto()), (Some(112_500_000), 62_500_000, 362_500_000));
        e.sample(112_500_000);
        assert_eq!((e.srtt(), e.rttvar(), e.rto()), (Some(112_500_000), 46_875_000, 300 * MS));
    }

    #[test]
    fn min_rto_and_granularity_apply() {
        let mut e = RttEstimator::new(1000 * MS, 1000 * MS, 60_000 * MS, MS);
        e.sample(10 * MS);
        assert_eq!(e.rto(), 1000 * MS); // (2.4) rounded up to 1 s
                                        // Zero variance: RTO = SRTT + G.
        let mut e = RttEstimator::new(1000 * MS, 0, 60_000 * MS, 10 * MS);
        e.sample(8 * MS); // RTTVAR = 4 ms → 4·4 = 16 ms > G
        e.sample(8 * MS); // RTTVAR = 3 ms → 12 ms
        e.sample(8 * MS); // RTTVAR = 2.25 ms → 9 ms < G = 10 ms
        assert_eq!(e.rto(), 18 * MS);
    }

    #[test]
    fn backoff_doubles_caps_and_resets_on_sample() {
        let mut e = RttEstimator::new(1000 * MS, 200 * MS, 5000 * MS, MS);
        e.sample(100 * MS); // RTO 300 ms
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
        e.sample(100 * MS); // Karn: a valid sample clears back-off
        assert_eq!(e.backoff(), 0);
        assert!(e.rto() < 600 * MS);
    }
}
