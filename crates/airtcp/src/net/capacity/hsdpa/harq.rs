//! Hybrid ARQ with incremental redundancy: a transport block is resent after the HARQ round trip
//! until it decodes or `max_tx` transmissions fail, each attempt decoding the soft combination of
//! all transmissions so far.
//!
//! HSDPA paper §III: "additional redundant information is incrementally transmitted if the
//! decoding fails on the first attempt. The decoder at the receiver combines these multiple copies
//! ... weighted by the received SNR." We model the combination as the sum of the transmissions'
//! linear SINRs (Chase combining: energy accumulates) plus a fixed incremental-redundancy coding
//! gain on every retransmission (`ir_gain_db`, our choice: the paper gives none), and decode each
//! attempt against the block's AWGN BLER curve at that effective SINR (the quasi-static approach
//! of §IV-A).

use super::cqi;
use crate::engine::RngStream;

/// One RLC PDU in a transport block: its SDU's sequence number and its index in the SDU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PduRef {
    pub sdu: u64,
    pub seg: u32,
}

/// A transport block held by a HARQ process until it decodes or is given up.
#[derive(Debug, Clone)]
pub(crate) struct TransportBlock {
    pub cqi: u8,
    pub codes: u8,
    /// Share of the HS-DSCH power it is sent with (kept for retransmissions).
    pub power_share: f64,
    pub pdus: Vec<PduRef>,
    /// Transmissions so far.
    pub tx: u8,
    /// Σ linear SINR of the transmissions so far.
    pub sinr_sum: f64,
    /// TTI start (ns) at which the next retransmission is due.
    pub retx_at: u64,
}

/// Result of one transmission attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    Decoded,
    /// Failed; another transmission is allowed.
    Retry,
    /// Failed for the `max_tx`-th time: the block is lost to the layers above.
    GivenUp,
}

/// The decision of attempt number `tx` (1-based) failing with probability `p_err`.
#[inline]
pub(crate) fn decide(tx: u8, max_tx: u8, p_err: f64, rng: &mut RngStream) -> Outcome {
    if rng.uniform() >= p_err {
        Outcome::Decoded
    } else if tx >= max_tx {
        Outcome::GivenUp
    } else {
        Outcome::Retry
    }
}

/// Effective SINR (dB) of a block after its transmissions: combined energy plus the IR gain once
/// there is more than one transmission.
#[inline]
pub(crate) fn effective_sinr_db(sinr_sum: f64, tx: u8, ir_gain_db: f64) -> f64 {
    10.0 * sinr_sum.log10() + if tx > 1 { ir_gain_db } else { 0.0 }
}

impl TransportBlock {
    /// Sends the block once more at instantaneous SINR `sinr_db` (its power share included).
    pub(crate) fn transmit(&mut self, sinr_db: f64, max_tx: u8, ir_gain_db: f64, waterfall_db: f64, rng: &mut RngStream) -> Outcome {
        self.tx += 1;
        self.sinr_sum += 10f64.powf(sinr_db / 10.0);
        let eff = effective_sinr_db(self.sinr_sum, self.tx, ir_gain_db);
        decide(self.tx, max_tx, cqi::bler(self.cqi, eff, waterfall_db), rng)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// With a fixed per-attempt error probability p, a block is lost after K attempts with
    /// probability p^K, and the mean number of attempts is (1 − p^K)/(1 − p).
    #[test]
    fn residual_error_is_bler_to_the_k() {
        let mut rng = RngStream::new(11, "test:harq");
        let (p, k, n) = (0.3, 3u8, 200_000);
        let (mut lost, mut attempts) = (0u64, 0u64);
        for _ in 0..n {
            let mut tx = 0u8;
            loop {
                tx += 1;
                match decide(tx, k, p, &mut rng) {
                    Outcome::Decoded => break,
                    Outcome::Retry => {}
                    Outcome::GivenUp => {
                        lost += 1;
                        break;
                    }
                }
            }
            attempts += tx as u64;
        }
        let resid = lost as f64 / n as f64;
        let want = p.powi(k as i32); // 0.027
        let se = (want * (1.0 - want) / n as f64).sqrt();
        assert!((resid - want).abs() < 4.0 * se, "{resid} vs {want}");
        let mean = attempts as f64 / n as f64;
        let want_mean = (1.0 - want) / (1.0 - p);
        assert!((mean - want_mean).abs() < 0.01, "{mean} vs {want_mean}");
    }

    /// Soft combining: two transmissions at the CQI threshold add 3 dB of energy plus the IR
    /// gain, so the second attempt's BLER is the curve's value 3 dB + gain above threshold.
    #[test]
    fn combining_accumulates_energy() {
        let thr = cqi::threshold_db(20);
        let lin = 10f64.powf(thr / 10.0);
        let e = effective_sinr_db(2.0 * lin, 2, 1.0);
        assert!((e - (thr + 10.0 * 2f64.log10() + 1.0)).abs() < 1e-12);
        assert!(cqi::bler(20, e, 2.0) < 0.001);
        assert!((effective_sinr_db(lin, 1, 1.0) - thr).abs() < 1e-12);
    }
}
