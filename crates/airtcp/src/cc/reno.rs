//! Standard AIMD window policy of RFC 5681 (used by Tahoe, Reno, NewReno and SACK recovery alike).

use serde::Deserialize;

use super::{AckInfo, CongestionControl, LossKind, LossSignal, Reaction, Window};

/// RFC 5681 slow start, congestion avoidance and multiplicative decrease.
#[derive(Debug, Default, Clone)]
pub(crate) struct Reno;

/// RFC 5681's window growth on an ACK of `acked_bytes` new bytes: [`Reno`]'s `on_ack`, and what
/// the sender's common-case ACK path applies itself for a policy that grows as Reno does
/// (`CongestionControl::grows_as_reno`).
#[inline(always)]
pub(crate) fn grow(w: &mut Window, acked_bytes: u64) {
    if w.in_slow_start() {
        // RFC 5681 eq. (2): cwnd += min(N, SMSS), N = bytes newly acknowledged.
        w.cwnd += acked_bytes.min(w.mss);
    } else {
        // RFC 5681 eq. (3): cwnd += SMSS*SMSS/cwnd, at least 1 byte.
        w.cwnd += (w.mss * w.mss / w.cwnd).max(1);
    }
}

/// RFC 5681 eq. (4): ssthresh = max(FlightSize / 2, 2*SMSS).
pub(crate) fn halve(flight_bytes: u64, mss: u64) -> u64 {
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
        grow(w, ack.acked_bytes);
    }

    fn grows_as_reno(&self) -> bool {
        true
    }

    /// Duplicate ACKs take the trait's hooks: each counted, the window untouched.
    fn counts_every_dup_ack(&self) -> bool {
        true
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

/// How a window policy built on Reno's growth opens the window (`cc_params.growth` of
/// Westwood+).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Growth {
    /// RFC 5681, per ACK: slow start cwnd += min(N, SMSS), congestion avoidance
    /// cwnd += SMSS²/cwnd ([`Reno`]).
    #[default]
    Reno,
    /// ns-2.35 TCP-Linux's growth, [`LinuxNs2Growth`]: Appropriate Byte Counting as the port runs
    /// it. Meant for the ns-2 twin (with `recovery = "linux"`).
    LinuxNs2,
}

/// Window growth as ns-2.35's TCP-Linux (`Agent/TCP/Linux`) drives Linux 2.6.22's
/// `tcp_slow_start` and `tcp_reno_cong_avoid` (`tcp/linux/src/tcp_cong.c`), the growth of its Reno
/// and Westwood modules. The port compiles them with `sysctl_tcp_abc = 1`
/// (`tcp/linux/ns-linux-param.c`: RFC 3465 Appropriate Byte Counting), and counts the bytes its own
/// way (`tcp/linux/tcp-linux.cc`):
/// - `recv` adds every cumulative advance to `bytes_acked`, in every state — during Recovery too,
///   where the window does not grow (Linux 2.6.22's `tcp_ack` counts only below TCP_CA_CWR, and at
///   most one MSS per ACK in Loss). Only a recovery's start (`tcp_fastretrans_alert`) and a
///   timeout (`timeout`, `enter_loss`) reset it, not its end.
/// - The window grows on an ACK of new data outside Recovery (`tcp_may_raise_cwnd`), and only if
///   the flow was cwnd-limited: packets in flight before the ACK ≥ cwnd (`tcp_is_cwnd_limited`
///   as `ns-linux-c.h` defines it); otherwise the counted bytes stay for a later ACK.
/// - Slow start (cwnd ≤ ssthresh, whole segments): with at least one MSS counted, cwnd + 1
///   segment and the count starts again from 0.
/// - Congestion avoidance: once cwnd·MSS bytes are counted, cwnd + 1 segment and that much is
///   taken off the count (`if`, not `while`: at most one segment per ACK, the rest kept).
///
/// So the bytes a recovery acknowledges, and those acknowledged while the flow was not using its
/// window, are spent after it one segment per ACK: the window opens faster and in bursts.
#[derive(Debug, Clone, Default)]
pub(crate) struct LinuxNs2Growth {
    /// `tp->bytes_acked`.
    pub bytes_acked: u64,
}

impl LinuxNs2Growth {
    /// An ACK of new data (`ack.acked_bytes` > 0) or one during recovery (`no_growth`).
    pub(crate) fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        self.bytes_acked += ack.acked_bytes;
        if ack.no_growth {
            return;
        }
        let mss = w.mss;
        let cwnd = w.cwnd / mss;
        if ack.in_flight_before_bytes < cwnd * mss {
            return; // not cwnd-limited
        }
        if cwnd <= w.ssthresh / mss {
            if self.bytes_acked < mss {
                return;
            }
            self.bytes_acked = 0;
            w.cwnd = (cwnd + 1) * mss;
        } else if self.bytes_acked >= cwnd * mss {
            self.bytes_acked -= cwnd * mss;
            w.cwnd = (cwnd + 1) * mss;
        }
    }

    /// A loss signal (recovery start or timeout): the count starts again.
    pub(crate) fn reset(&mut self) {
        self.bytes_acked = 0;
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

    /// ns-2.35 TCP-Linux's byte counting by hand, MSS 1000, ssthresh 4 segments:
    /// - cwnd 3 (slow start, 3 ≤ 4), in flight before 3: an ACK of 2000 B → cwnd 4, count 0
    ///   (the excess is dropped); an ACK of 1000 B with only 3 in flight (not cwnd-limited) →
    ///   cwnd stays 4, count 1000.
    /// - cwnd 4 ≤ 4 still slow start: ACK of 1000 B, 4 in flight → count 2000 ≥ 1000: cwnd 5,
    ///   count 0.
    /// - Congestion avoidance (5 > 4): recovery ACKs (`no_growth`) of 3000 and 4000 B grow
    ///   nothing but count 7000. After it, an ACK of 1000 B with 5 in flight: 8000 ≥ 5000 →
    ///   cwnd 6, count 3000; next ACK of 1000 B: 4000 < 6000, nothing; two more: 6000 → cwnd 7,
    ///   count 0.
    /// - A loss signal resets the count.
    #[test]
    fn linux_ns2_byte_counting_by_hand() {
        let mut g = LinuxNs2Growth::default();
        let mut w = Window { cwnd: 3000, ssthresh: 4000, mss: 1000 };
        let ack = |acked: u64, in_flight: u64, no_growth: bool| AckInfo {
            in_flight_before_bytes: in_flight * 1000,
            no_growth,
            ..crate::cc::westwood::tests::ack_at(0, acked, 0)
        };
        g.on_ack(&mut w, &ack(2000, 3, false));
        assert_eq!((w.cwnd, g.bytes_acked), (4000, 0));
        g.on_ack(&mut w, &ack(1000, 3, false));
        assert_eq!((w.cwnd, g.bytes_acked), (4000, 1000));
        g.on_ack(&mut w, &ack(1000, 4, false));
        assert_eq!((w.cwnd, g.bytes_acked), (5000, 0));
        g.on_ack(&mut w, &ack(3000, 9, true));
        g.on_ack(&mut w, &ack(4000, 9, true));
        assert_eq!((w.cwnd, g.bytes_acked), (5000, 7000));
        g.on_ack(&mut w, &ack(1000, 5, false));
        assert_eq!((w.cwnd, g.bytes_acked), (6000, 3000));
        g.on_ack(&mut w, &ack(1000, 6, false));
        assert_eq!((w.cwnd, g.bytes_acked), (6000, 4000));
        g.on_ack(&mut w, &ack(1000, 6, false));
        g.on_ack(&mut w, &ack(1000, 6, false));
        assert_eq!((w.cwnd, g.bytes_acked), (7000, 0));
        g.on_ack(&mut w, &ack(2000, 7, true));
        g.reset();
        assert_eq!(g.bytes_acked, 0);
    }
}
