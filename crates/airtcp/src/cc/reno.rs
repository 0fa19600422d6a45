//! Standard AIMD window policy of RFC 5681 (used by Tahoe, Reno, NewReno and SACK recovery alike).

use super::{AckInfo, CongestionControl, LossKind, LossSignal, Reaction, Window};

/// RFC 5681 slow start, congestion avoidance and multiplicative decrease.
#[derive(Debug, Default, Clone)]
pub struct Reno;

/// RFC 5681 eq. (4): ssthresh = max(FlightSize / 2, 2*SMSS).
pub fn halve(flight_bytes: u64, mss: u64) -> u64 {
    (flight_bytes / 2).max(2 * mss)
}

impl CongestionControl for Reno {
    fn name(&self) -> &'static str {
        "reno"
    }

    fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        if ack.no_growth {
            return;
        }
        if w.in_slow_start() {
            // RFC 5681 eq. (2): cwnd += min(N, SMSS), N = bytes newly acknowledged.
            w.cwnd += ack.acked_bytes.min(w.mss);
        } else {
            // RFC 5681 eq. (3): cwnd += SMSS*SMSS/cwnd, at least 1 byte.
            w.cwnd += (w.mss * w.mss / w.cwnd).max(1);
        }
    }

    fn on_congestion(&mut self, w: &mut Window, s: &LossSignal) -> Reaction {
        w.ssthresh = halve(s.flight_bytes, w.mss);
        match s.kind {
            // RFC 5681 §3.1: on timeout cwnd = LW = 1 SMSS.
            LossKind::Timeout => w.cwnd = w.mss,
            // RFC 3168 §6.1.2: halve cwnd and ssthresh.
            LossKind::Ecn => w.cwnd = w.ssthresh,
            // The recovery strategy sets cwnd (ssthresh + 3 SMSS for Reno/NewReno).
            LossKind::DupAcks => {}
        }
        Reaction::Reduce
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(acked: u64) -> AckInfo<'static> {
        crate::cc::westwood::tests::ack_at(0, acked, 0)
    }

    #[test]
    fn slow_start_then_linear_growth() {
        let mut r = Reno;
        let mut w = Window { cwnd: 1000, ssthresh: 4000, mss: 1000 };
        r.on_ack(&mut w, &ack(1000));
        assert_eq!(w.cwnd, 2000);
        r.on_ack(&mut w, &ack(3000)); // at most one SMSS per ACK
        assert_eq!(w.cwnd, 3000);
        w.cwnd = 4000;
        r.on_ack(&mut w, &ack(1000)); // CA: 1000*1000/4000 = 250
        assert_eq!(w.cwnd, 4250);
    }

    #[test]
    fn decrease_by_rfc5681() {
        let mut r = Reno;
        let mut w = Window { cwnd: 10_000, ssthresh: u64::MAX, mss: 1000 };
        let s = LossSignal { now: 0, kind: LossKind::Timeout, marked: false, flight_bytes: 9000 };
        assert_eq!(r.on_congestion(&mut w, &s), Reaction::Reduce);
        assert_eq!((w.cwnd, w.ssthresh), (1000, 4500));
        let s = LossSignal { kind: LossKind::DupAcks, flight_bytes: 3000, ..s };
        r.on_congestion(&mut w, &s);
        assert_eq!(w.ssthresh, 2000); // floor of 2 SMSS
    }
}
