//! CUBIC (RFC 9438, "CUBIC for Fast and Long-Distance Networks", Xu, Ha, Rhee, Goel, Eggert,
//! 2023; the algorithm of Ha, Rhee & Xu, ACM SIGOPS OSR 42(5), 2008).
//!
//! The window, in segments, follows a cubic function of the time t since the start of the
//! current congestion-avoidance stage (its "epoch"): W_cubic(t) = C·(t − K)³ + W_max (§4.2 eq. 1),
//! with K = ∛((W_max − cwnd_epoch)/C) (§4.2 eq. 2) the time at which it regains W_max, the window
//! before the last reduction. On each ACK the target is W_cubic(t + RTT) bounded to
//! [cwnd, 1.5·cwnd] (§4.2 eq. 3), and cwnd grows by (target − cwnd)/cwnd per ACK (§4.4 concave,
//! §4.5 convex). Beside it runs W_est, the window an AIMD(α_cubic, β_cubic) flow would have
//! (§4.3 eq. 4, α_cubic = 3(1 − β_cubic)/(1 + β_cubic), 1 once W_est ≥ cwnd_prior): while
//! W_cubic(t) < W_est the sender is in the Reno-friendly region and cwnd follows W_est. On a
//! congestion event (§4.6 Figure 5): ssthresh = flight_size·β_cubic (at least 2 segments),
//! cwnd_prior = cwnd, cwnd = ssthresh for a loss (at least 2 segments; here the recovery strategy
//! sets it, with its inflation) or for ECN-Echo (at least 1 segment); W_max = cwnd, or
//! cwnd·(1 + β_cubic)/2 with fast convergence when cwnd < W_max (§4.7 Figure 6). On a timeout
//! (§4.8): Reno's cwnd = 1 segment with §4.6's ssthresh, and the first epoch after it runs with
//! K = 0, W_max = W_est = the window at its start. Defaults C = 0.4, β_cubic = 0.7, fast
//! convergence on (§4.7 SHOULD), Reno-friendly region on (§4.3 SHOULD).
//!
//! Not implemented: HyStart++ (§4.10 says SHOULD; it "MAY use the Reno TCP slow start algorithm",
//! which this policy does: RFC 5681 eq. (2), as `reno`), the undo of spurious congestion events
//! (§4.9, MAY), and PRR (§4.6 mentions it as an alternative; the flow's `recovery` strategy owns
//! cwnd during recovery).
//!
//! Readings where the RFC leaves room (tested in `tests`):
//! - Units: the RFC's formulas are in segments and seconds, so W_max, W_est, cwnd_prior and K are
//!   kept in segments (f64) and seconds; cwnd is bytes in the engine (cwnd/MSS segments), time is
//!   integer ns. Growth below one byte is carried to the next ACK rather than lost.
//! - RTT in W_cubic(t + RTT) is the sender's smoothed RTT (§4.2: "RTT is the smoothed round-trip
//!   time"), 0 before the first sample.
//! - "(target − cwnd)/cwnd for each received new ACK" assumes one segment per ACK: the increment is
//!   scaled by the segments the ACK acknowledges (acked_bytes/MSS), as W_est's segments_acked is
//!   (§4.3 eq. 4) and as Linux counts acknowledged segments; with a delayed-ACK receiver growth per
//!   RTT is then the same as with one ACK per segment.
//! - The epoch (t_epoch, cwnd_epoch, K, W_est) starts at the first ACK that may grow the window in
//!   congestion avoidance, i.e. after recovery has ended; a congestion event or timeout ends it.
//! - Reno-friendly region: cwnd = max(cwnd, W_est) — §4.3 says "set to W_est"; W_est ≥ cwnd there
//!   in practice, and the max keeps a curve ahead of W_est (cwnd tracks W_cubic(t + RTT), one RTT
//!   ahead of the W_cubic(t) that is compared) from being cut back without a congestion event.
//! - If the first congestion-avoidance stage begins without a congestion event (a finite
//!   `initial_ssthresh_pkts`), W_max is undefined: §4.10's rule, cwnd_prior = cwnd, K = 0,
//!   W_max = cwnd_epoch.
//! - A negative K (cwnd_epoch > W_max) is kept, with the signed cube root: the curve still passes
//!   through cwnd_epoch at t = 0 (eq. 1 with eq. 2), now on its convex side.
//! - §4.2: "t MUST NOT include periods during which cwnd has not been updated due to
//!   application-limited behavior". A sender is cwnd-limited on an ACK when the data outstanding
//!   before it (flight + newly acknowledged) was within one MSS of cwnd; otherwise (application- or
//!   receiver-window-limited) the window does not grow and the epoch's clock stops (t_epoch moves
//!   by the time since the previous ACK) — Linux's `tcp_is_cwnd_limited` and epoch shift. Without
//!   it a receiver-window-limited CUBIC would grow cwnd cubically without bound, and the next
//!   congestion event would take that as W_max (the hazard §4.6 describes).
//! - A timeout while a fast recovery begun by duplicate ACKs is still going (the recovery has
//!   failed) is not a new congestion event: ssthresh, W_max and cwnd_prior keep the values that
//!   recovery's reduction gave them, and only §4.8's cwnd = 1 segment and K = 0 apply — Linux's
//!   `tcp_enter_loss` (no new ssthresh while in Recovery), and RFC 5681's one reduction per
//!   window of data. Read literally, §4.8 would take 0.7 × the FlightSize at the timeout, which
//!   NewReno's inflation has grown with new data sent during the recovery (on the Fig. 10 path
//!   2.5 times the window at the loss): the slow start that follows then overshoots the buffer,
//!   its recovery fails again, and the flow cycles through timeouts (68% of the link at 0% loss,
//!   against 100% with this reading and SACK).
//! - ssthresh uses FlightSize (the engine's `flight_bytes`, which leaves out limited-transmit
//!   segments, as Reno's does), as Figure 5 writes it; W_max and cwnd_prior use cwnd.

use serde::Deserialize;

use super::{AckInfo, CongestionControl, LossKind, LossSignal, Reaction, Window};
use crate::time::{SimTime, NS_PER_S};

/// CUBIC's parameters (`[flows.cc_params]` with `cc = "cubic"`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CubicParams {
    /// C, segments per second cubed (RFC 9438 §4.1.1: 0.4).
    #[serde(default = "default_c")]
    pub c_pkts_per_s3: f64,
    /// β_cubic, the multiplicative decrease factor, 0 < β < 1 (§4.1.1: 0.7).
    #[serde(default = "default_beta")]
    pub beta: f64,
    /// Fast convergence (§4.7, SHOULD).
    #[serde(default = "yes")]
    pub fast_convergence: bool,
    /// The Reno-friendly region (§4.3, SHOULD); off runs the cubic function alone.
    #[serde(default = "yes")]
    pub reno_friendly: bool,
}

fn default_c() -> f64 {
    0.4
}
fn default_beta() -> f64 {
    0.7
}
fn yes() -> bool {
    true
}

impl Default for CubicParams {
    fn default() -> Self {
        CubicParams { c_pkts_per_s3: default_c(), beta: default_beta(), fast_convergence: true, reno_friendly: true }
    }
}

impl CubicParams {
    /// One-line error naming the field and its allowed range.
    pub(crate) fn check(&self) -> Result<(), String> {
        if !(self.c_pkts_per_s3 > 0.0 && self.c_pkts_per_s3.is_finite()) {
            return Err(format!("c_pkts_per_s3: {} is out of range (allowed: c_pkts_per_s3 > 0)", self.c_pkts_per_s3));
        }
        if !(self.beta > 0.0 && self.beta < 1.0) {
            return Err(format!("beta: {} is out of range (allowed: 0 < beta < 1)", self.beta));
        }
        Ok(())
    }
}

/// RFC 9438 §4.2 eq. (2): K = ∛((W_max − cwnd_epoch)/C), seconds (segments and segments/s³ in).
pub(crate) fn k_s(w_max: f64, cwnd_epoch: f64, c: f64) -> f64 {
    ((w_max - cwnd_epoch) / c).cbrt()
}

/// RFC 9438 §4.2 eq. (1): W_cubic(t) = C·(t − K)³ + W_max, segments.
pub(crate) fn w_cubic(c: f64, t_s: f64, k_s: f64, w_max: f64) -> f64 {
    c * (t_s - k_s).powi(3) + w_max
}

/// RFC 9438 §4.3: α_cubic = 3(1 − β_cubic)/(1 + β_cubic), the AIMD increase that matches Reno's
/// average window under β_cubic.
pub(crate) fn alpha_cubic(beta: f64) -> f64 {
    3.0 * (1.0 - beta) / (1.0 + beta)
}

/// One congestion-avoidance stage (RFC 9438 §4.1.2's variables fixed at its start).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Epoch {
    /// t_epoch, ns (moved later while the sender is not cwnd-limited).
    pub t_epoch: SimTime,
    /// cwnd_epoch, segments.
    pub cwnd_epoch: f64,
    /// W_max of this stage, segments.
    pub w_max: f64,
    /// K, seconds.
    pub k_s: f64,
    /// W_est, segments.
    pub w_est: f64,
}

/// CUBIC window policy.
#[derive(Debug, Clone)]
pub(crate) struct Cubic {
    c: f64,
    beta: f64,
    fast_convergence: bool,
    reno_friendly: bool,
    /// W_max, segments (None before the first congestion event).
    pub w_max: Option<f64>,
    /// cwnd_prior, segments: cwnd when ssthresh was last set.
    pub cwnd_prior: f64,
    /// The last congestion event was a timeout: the next stage runs with K = 0 (§4.8).
    after_timeout: bool,
    /// The current congestion-avoidance stage (None: none open).
    pub epoch: Option<Epoch>,
    /// Growth below one byte, carried to the next ACK.
    frac_bytes: f64,
    /// The previous ACK that could grow the window.
    last_ack: Option<SimTime>,
    /// A fast recovery begun by a DupAcks signal has not ended yet.
    recovering: bool,
}

impl Cubic {
    /// CUBIC with checked parameters, before any congestion event.
    pub(crate) fn new(p: &CubicParams) -> Self {
        Cubic {
            c: p.c_pkts_per_s3,
            beta: p.beta,
            fast_convergence: p.fast_convergence,
            reno_friendly: p.reno_friendly,
            w_max: None,
            cwnd_prior: 0.0,
            after_timeout: false,
            epoch: None,
            frac_bytes: 0.0,
            last_ack: None,
            recovering: false,
        }
    }

    /// Opens a congestion-avoidance stage at `now` with cwnd = `cwnd` segments.
    fn start_epoch(&mut self, now: SimTime, cwnd: f64) -> Epoch {
        let (w_max, k) = match self.w_max {
            // RFC 9438 §4.2 eq. (2): K = ∛((W_max − cwnd_epoch)/C).
            Some(w_max) if !self.after_timeout => (w_max, k_s(w_max, cwnd, self.c)),
            // §4.8 (after a timeout) and §4.10 (no congestion event yet): K = 0, W_max = cwnd_epoch.
            _ => {
                if self.w_max.is_none() {
                    // §4.10: "CUBIC sets cwnd_prior = cwnd".
                    self.cwnd_prior = cwnd;
                }
                (cwnd, 0.0)
            }
        };
        // §4.3: "W_est is set equal to cwnd_epoch at the start of the congestion avoidance stage".
        let e = Epoch { t_epoch: now, cwnd_epoch: cwnd, w_max, k_s: k, w_est: cwnd };
        self.epoch = Some(e);
        e
    }

    fn end_epoch(&mut self) {
        self.epoch = None;
        self.frac_bytes = 0.0;
        self.last_ack = None;
    }

    /// cwnd in congestion avoidance after an ACK of `acked` segments at `now` (RFC 9438 §4.2–§4.5),
    /// in segments; `cwnd` in segments, `srtt_ns` the smoothed RTT.
    fn congestion_avoidance(&mut self, now: SimTime, cwnd: f64, acked: f64, srtt_ns: u64) -> f64 {
        let mut e = match self.epoch {
            Some(e) => e,
            None => self.start_epoch(now, cwnd),
        };
        let t = (now - e.t_epoch) as f64 / NS_PER_S as f64;
        let rtt = srtt_ns as f64 / NS_PER_S as f64;
        // §4.3 eq. (4): W_est = W_est + α_cubic·segments_acked/cwnd; α_cubic = 1 once
        // W_est ≥ cwnd_prior ("SHOULD set α_cubic to 1").
        let alpha = if e.w_est >= self.cwnd_prior { 1.0 } else { alpha_cubic(self.beta) };
        e.w_est += alpha * acked / cwnd;
        self.epoch = Some(e);
        // §4.3: "if W_cubic(t) is less than W_est, CUBIC is in the Reno-friendly region and cwnd
        // SHOULD be set to W_est" (never below cwnd: module doc).
        if self.reno_friendly && w_cubic(self.c, t, e.k_s, e.w_max) < e.w_est {
            return cwnd.max(e.w_est);
        }
        // §4.2 eq. (3): target = W_cubic(t + RTT), bounded to [cwnd, 1.5·cwnd].
        let target = w_cubic(self.c, t + rtt, e.k_s, e.w_max).clamp(cwnd, 1.5 * cwnd);
        // §4.4 (concave, cwnd < W_max) and §4.5 (convex, cwnd ≥ W_max): cwnd += (target − cwnd)/cwnd
        // per ACK, here per segment acknowledged.
        cwnd + (target - cwnd) / cwnd * acked
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        if ack.no_growth {
            return;
        }
        let since_last = self.last_ack.map_or(0, |t| ack.now.saturating_sub(t));
        self.last_ack = Some(ack.now);
        // §4.2: t excludes periods in which the sender was not cwnd-limited (module doc).
        let outstanding = ack.flight_bytes + ack.acked_bytes;
        if outstanding + w.mss <= w.cwnd {
            if let Some(e) = self.epoch.as_mut() {
                e.t_epoch += since_last;
            }
            return;
        }
        if w.in_slow_start() {
            // §4.10: "MAY use the Reno TCP slow start algorithm"; RFC 5681 eq. (2).
            w.cwnd += ack.acked_bytes.min(w.mss);
            return;
        }
        let mss = w.mss as f64;
        let cwnd_bytes = w.cwnd as f64 + self.frac_bytes;
        let next = self.congestion_avoidance(ack.now, cwnd_bytes / mss, ack.acked_bytes as f64 / mss, ack.srtt_ns) * mss;
        let grown = next.max(cwnd_bytes);
        w.cwnd = grown.floor() as u64;
        self.frac_bytes = grown - grown.floor();
    }

    fn on_congestion(&mut self, w: &mut Window, s: &LossSignal) -> Reaction {
        if s.kind == LossKind::Timeout && std::mem::take(&mut self.recovering) {
            // A timeout ends a fast recovery that failed: the congestion event was answered when
            // it began (module doc). §4.8: cwnd = 1 segment, and the next stage runs with K = 0.
            w.cwnd = w.mss;
            self.after_timeout = true;
            self.end_epoch();
            return Reaction::Reduce;
        }
        self.recovering = s.kind == LossKind::DupAcks;
        let mss = w.mss as f64;
        let cwnd = w.cwnd as f64 / mss;
        // RFC 9438 §4.7 Figure 6: W_max = cwnd·(1 + β_cubic)/2 when cwnd < W_max (fast
        // convergence), else W_max = cwnd.
        self.w_max = Some(match self.w_max {
            Some(w_max) if self.fast_convergence && cwnd < w_max => cwnd * (1.0 + self.beta) / 2.0,
            _ => cwnd,
        });
        // §4.6 Figure 5: cwnd_prior = cwnd; ssthresh = flight_size·β_cubic, at least 2 segments.
        self.cwnd_prior = cwnd;
        let ssthresh = (s.flight_bytes as f64 * self.beta).round() as u64; // to the nearest byte
        w.ssthresh = ssthresh.max(2 * w.mss);
        self.after_timeout = s.kind == LossKind::Timeout;
        self.end_epoch();
        match s.kind {
            // §4.8: "CUBIC follows Reno to reduce cwnd" — RFC 5681: cwnd = LW = 1 segment.
            LossKind::Timeout => w.cwnd = w.mss,
            // §4.6 Figure 5: cwnd = max(ssthresh, 1) on ECE (no recovery episode follows).
            LossKind::Ecn => w.cwnd = ssthresh.max(w.mss),
            // §4.6 Figure 5: cwnd = max(ssthresh, 2) on loss — the recovery strategy sets it from
            // ssthresh (with its inflation, e.g. NewReno ssthresh + 3 segments) and restores it.
            LossKind::DupAcks => {}
        }
        Reaction::Reduce
    }

    fn on_recovery_exit(&mut self, _w: &mut Window) {
        self.recovering = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::westwood::tests::ack_at;

    const MS: u64 = 1_000_000;
    const S: u64 = 1_000_000_000;

    fn cubic() -> Cubic {
        Cubic::new(&CubicParams::default())
    }

    /// A cwnd-limited ACK of one 1000-B segment at `t` ns with SRTT 100 ms.
    fn ack(t: u64, cwnd: u64) -> AckInfo<'static> {
        AckInfo { flight_bytes: cwnd - 1000, srtt_ns: 100 * MS, ..ack_at(t, 1000, 100 * MS) }
    }

    /// Hands `cu` a cwnd-limited ACK of one segment at `t`.
    fn feed(cu: &mut Cubic, w: &mut Window, t: u64) {
        let a = ack(t, w.cwnd);
        cu.on_ack(w, &a);
    }

    fn loss(kind: LossKind, flight: u64) -> LossSignal {
        LossSignal { now: 0, kind, marked: false, flight_bytes: flight }
    }

    /// K and W_cubic by hand, C = 0.4, β = 0.7, W_max = 100 segments, cwnd_epoch = 70:
    /// - K = ∛((100 − 70)/0.4) = ∛75 = 4.217163 s — equal to RFC 8312's ∛(W_max·(1 − β)/C) since
    ///   cwnd_epoch = β·W_max;
    /// - W_cubic(0) = 0.4·(−4.217163)³ + 100 = −30 + 100 = 70 = cwnd_epoch; W_cubic(K) = W_max;
    /// - W_cubic(2 s) = 0.4·(−2.217163)³ + 100 = 0.4·(−10.89916) + 100 = 95.640336;
    /// - W_cubic(5 s) = 0.4·(0.782837)³ + 100 = 100.191899 (convex, beyond W_max).
    #[test]
    fn k_and_w_cubic_by_hand() {
        let k = k_s(100.0, 70.0, 0.4);
        assert!((k - 75f64.cbrt()).abs() < 1e-12 && (k - 4.217163).abs() < 1e-6, "{k}");
        assert!((k - (100.0 * 0.3 / 0.4f64).cbrt()).abs() < 1e-12);
        assert!((w_cubic(0.4, 0.0, k, 100.0) - 70.0).abs() < 1e-9);
        assert!((w_cubic(0.4, k, k, 100.0) - 100.0).abs() < 1e-12);
        assert!((w_cubic(0.4, 2.0, k, 100.0) - 95.640336).abs() < 1e-6);
        assert!((w_cubic(0.4, 5.0, k, 100.0) - 100.191899).abs() < 1e-6);
        // Negative K (cwnd_epoch above W_max): the curve still starts at cwnd_epoch.
        let k = k_s(100.0, 110.0, 0.4);
        assert!(k < 0.0 && (w_cubic(0.4, 0.0, k, 100.0) - 110.0).abs() < 1e-9);
        assert!((alpha_cubic(0.7) - 0.9 / 1.7).abs() < 1e-15 && (alpha_cubic(0.5) - 1.0).abs() < 1e-15);
    }

    /// The concave region through `on_ack`, MSS 1000, SRTT 100 ms: a loss at cwnd = flight =
    /// 100 segments sets W_max = cwnd_prior = 100, ssthresh = 70 000 B; recovery leaves cwnd = 70 000.
    /// - ACK 1 at t_epoch = 10 s opens the stage (cwnd_epoch 70, K = 4.217163 s, W_est 70):
    ///   W_est = 70 + 0.529412·1/70 = 70.007563 > W_cubic(0) = 70 → Reno-friendly, cwnd =
    ///   70 007.563 B (70 007 + 0.563 carried).
    /// - ACK 2 at t = 2 s: W_est = 70.007563 + 0.529412/70.007563 = 70.015125 < W_cubic(2) =
    ///   95.640336 → concave (cwnd < W_max); target = W_cubic(2.1) = 96.204027 (inside
    ///   [cwnd, 1.5·cwnd]); cwnd += (96.204027 − 70.007563)/70.007563 = 0.374195 segments →
    ///   70 381.758 B.
    #[test]
    fn concave_growth_by_hand() {
        let mut cu = cubic();
        let mut w = Window { cwnd: 100_000, ssthresh: u64::MAX, mss: 1000 };
        assert_eq!(cu.on_congestion(&mut w, &loss(LossKind::DupAcks, 100_000)), Reaction::Reduce);
        assert_eq!((w.ssthresh, cu.w_max, cu.cwnd_prior), (70_000, Some(100.0), 100.0));
        w.cwnd = 70_000; // the recovery strategy's exit
        feed(&mut cu, &mut w, 10 * S);
        let e = cu.epoch.unwrap();
        assert_eq!((e.t_epoch, e.cwnd_epoch, e.w_max), (10 * S, 70.0, 100.0));
        assert!((e.k_s - 4.217163).abs() < 1e-6);
        assert!((e.w_est - 70.007563).abs() < 1e-6);
        assert_eq!(w.cwnd, 70_007);
        feed(&mut cu, &mut w, 12 * S);
        assert!((cu.epoch.unwrap().w_est - 70.015125).abs() < 1e-6);
        let want = 70_007.563 + 374.195;
        assert!((w.cwnd as f64 + cu.frac_bytes - want).abs() < 0.01, "{} + {}", w.cwnd, cu.frac_bytes);
        assert_eq!(w.cwnd, 70_381);
    }

    /// The target is bounded by 1.5·cwnd (§4.2 eq. 3): far past K, W_cubic(t + RTT) is huge, and
    /// one ACK grows cwnd by (1.5·cwnd − cwnd)/cwnd = 0.5 segments.
    #[test]
    fn target_bounded_by_one_and_a_half_cwnd() {
        let mut cu = cubic();
        let mut w = Window { cwnd: 100_000, ssthresh: u64::MAX, mss: 1000 };
        cu.on_congestion(&mut w, &loss(LossKind::DupAcks, 100_000));
        w.cwnd = 70_000;
        feed(&mut cu, &mut w, 0);
        let before = w.cwnd;
        feed(&mut cu, &mut w, 100 * S); // W_cubic(100.1) ≈ 0.4·95.9³ ≫ 1.5·70
        assert_eq!(w.cwnd - before, 500);
    }

    /// The Reno-friendly region after a timeout (§4.8: K = 0, W_max = W_est = cwnd_epoch), MSS
    /// 1000: a timeout at cwnd 14 050 B with 20 000 B in flight gives cwnd = 1000, ssthresh =
    /// 0.7·20 000 = 14 000 B, cwnd_prior = 14.05 segments. Slow start done (cwnd = 14 000):
    /// - ACK 1 at 0 opens the stage: W_cubic(t) = 14 + 0.4·t³; W_est = 14 + 0.529412/14 = 14.037815
    ///   > W_cubic(0) = 14 → cwnd = 14 037.815 B;
    /// - ACK 2 at 10 ms: W_est = 14.037815 + 0.529412/14.037815 = 14.075528 > 14 + 0.4·10⁻⁶ →
    ///   cwnd = 14 075.528 B;
    /// - ACK 3 at 20 ms: W_est = 14.075528 ≥ cwnd_prior = 14.05, so α_cubic = 1: W_est =
    ///   14.075528 + 1/14.075528 = 14.146573 → cwnd = 14 146.573 B.
    #[test]
    fn reno_friendly_w_est_by_hand() {
        let mut cu = cubic();
        let mut w = Window { cwnd: 14_050, ssthresh: u64::MAX, mss: 1000 };
        cu.on_congestion(&mut w, &loss(LossKind::Timeout, 20_000));
        assert_eq!((w.cwnd, w.ssthresh, cu.cwnd_prior), (1000, 14_000, 14.05));
        w.cwnd = 14_000;
        let mut got = vec![];
        for t in [0, 10 * MS, 20 * MS] {
            feed(&mut cu, &mut w, t);
            got.push(w.cwnd as f64 + cu.frac_bytes);
        }
        let e = cu.epoch.unwrap();
        assert_eq!((e.k_s, e.w_max, e.cwnd_epoch), (0.0, 14.0, 14.0));
        for (g, want) in got.iter().zip([14_037.815, 14_075.528, 14_146.573]) {
            assert!((g - want).abs() < 0.001, "{g} vs {want}");
        }
        // Without the region, the same ACKs follow the cubic target: W_cubic(0.1) = 14.0004 →
        // cwnd grows by 0.0004/14 segments on the first ACK, far below W_est's 0.0378.
        let mut cu = Cubic::new(&CubicParams { reno_friendly: false, ..CubicParams::default() });
        let mut w = Window { cwnd: 14_050, ssthresh: u64::MAX, mss: 1000 };
        cu.on_congestion(&mut w, &loss(LossKind::Timeout, 20_000));
        w.cwnd = 14_000;
        feed(&mut cu, &mut w, 0);
        assert!((w.cwnd as f64 + cu.frac_bytes - (14_000.0 + 0.4 * 0.001 / 14.0 * 1000.0)).abs() < 1e-6);
    }

    /// Fast convergence (§4.7), MSS 1000: a first loss at cwnd 100 segments sets W_max = 100; a
    /// second at cwnd 80 < 100 sets W_max = 80·(1 + 0.7)/2 = 68 (80 without fast convergence);
    /// a third at cwnd 90 ≥ 68 sets W_max = 90. cwnd_prior is always the cwnd itself.
    #[test]
    fn fast_convergence_by_hand() {
        for (fc, second) in [(true, 68.0), (false, 80.0)] {
            let mut cu = Cubic::new(&CubicParams { fast_convergence: fc, ..CubicParams::default() });
            let mut w = Window { cwnd: 100_000, ssthresh: u64::MAX, mss: 1000 };
            for (cwnd, want) in [(100_000, 100.0), (80_000, second), (90_000, 90.0)] {
                w.cwnd = cwnd;
                cu.on_congestion(&mut w, &loss(LossKind::DupAcks, cwnd));
                assert!((cu.w_max.unwrap() - want).abs() < 1e-9, "fc {fc}: {:?} vs {want}", cu.w_max);
                assert_eq!(cu.cwnd_prior, cwnd as f64 / 1000.0);
            }
        }
    }

    /// Multiplicative decrease (§4.6 Figure 5), MSS 1000: duplicate ACKs with cwnd 100 000 and
    /// FlightSize 90 000 set ssthresh = 0.7·90 000 = 63 000 and leave cwnd to the recovery; ECN-Echo
    /// sets cwnd = ssthresh too. Floors: FlightSize 2000 → 0.7·2000 = 1400 → ssthresh 2000 (2
    /// segments), ECN cwnd = max(1400, 1000) = 1400.
    #[test]
    fn multiplicative_decrease_by_hand() {
        let mut cu = cubic();
        let mut w = Window { cwnd: 100_000, ssthresh: u64::MAX, mss: 1000 };
        assert_eq!(cu.on_congestion(&mut w, &loss(LossKind::DupAcks, 90_000)), Reaction::Reduce);
        assert_eq!((w.cwnd, w.ssthresh), (100_000, 63_000));
        let mut w = Window { cwnd: 100_000, ssthresh: u64::MAX, mss: 1000 };
        cu.on_congestion(&mut w, &loss(LossKind::Ecn, 90_000));
        assert_eq!((w.cwnd, w.ssthresh), (63_000, 63_000));
        let mut w = Window { cwnd: 3000, ssthresh: u64::MAX, mss: 1000 };
        cu.on_congestion(&mut w, &loss(LossKind::Ecn, 2000));
        assert_eq!((w.cwnd, w.ssthresh), (1400, 2000));
        cu.on_congestion(&mut w, &loss(LossKind::DupAcks, 2000));
        assert_eq!(w.ssthresh, 2000);
    }

    /// Timeout (§4.8), MSS 1000: cwnd 50 000, FlightSize 40 000 → cwnd = 1000, ssthresh = 28 000,
    /// the epoch is closed; slow start grows by one segment per ACK (RFC 5681) up to ssthresh; the
    /// stage that then opens at cwnd 28 000 has K = 0 and W_max = 28 (not the 50 of the timeout).
    /// Two seconds in (SRTT 100 ms) W_cubic(2) = 28 + 0.4·8 = 31.2 > W_est, and target =
    /// W_cubic(2.1) = 28 + 0.4·9.261 = 31.7044 segments.
    #[test]
    fn timeout_by_hand() {
        let mut cu = cubic();
        let mut w = Window { cwnd: 50_000, ssthresh: u64::MAX, mss: 1000 };
        cu.on_congestion(&mut w, &loss(LossKind::DupAcks, 50_000));
        cu.on_recovery_exit(&mut w);
        w.cwnd = 40_000;
        feed(&mut cu, &mut w, 0);
        assert!(cu.epoch.is_some());
        w.cwnd = 50_000;
        cu.on_congestion(&mut w, &loss(LossKind::Timeout, 40_000));
        assert_eq!((w.cwnd, w.ssthresh, cu.epoch), (1000, 28_000, None));
        feed(&mut cu, &mut w, S);
        assert_eq!(w.cwnd, 2000);
        w.cwnd = 28_000;
        feed(&mut cu, &mut w, 2 * S);
        let e = cu.epoch.unwrap();
        assert_eq!((e.k_s, e.w_max, e.cwnd_epoch), (0.0, 28.0, 28.0));
        let cwnd = w.cwnd as f64 + cu.frac_bytes;
        feed(&mut cu, &mut w, 4 * S);
        let want = cwnd + (31.7044 * 1000.0 - cwnd) / cwnd * 1000.0;
        assert!((w.cwnd as f64 + cu.frac_bytes - want).abs() < 1e-3, "{} vs {want}", w.cwnd);
    }

    /// A timeout that ends a failed fast recovery: the recovery's reduction stands. Duplicate ACKs
    /// at cwnd = FlightSize = 100 segments set ssthresh 70 000, W_max 100; NewReno's inflation then
    /// sends new data, and the timeout finds 150 000 B outstanding and cwnd 160 000: ssthresh stays
    /// 70 000 (not 0.7·150 000 = 105 000), W_max and cwnd_prior stay 100, cwnd = 1 segment, and
    /// the next stage runs with K = 0. After the recovery has ended, a timeout reduces afresh.
    #[test]
    fn timeout_during_recovery_keeps_its_reduction() {
        let mut cu = cubic();
        let mut w = Window { cwnd: 100_000, ssthresh: u64::MAX, mss: 1000 };
        cu.on_congestion(&mut w, &loss(LossKind::DupAcks, 100_000));
        w.cwnd = 160_000;
        cu.on_congestion(&mut w, &loss(LossKind::Timeout, 150_000));
        assert_eq!((w.cwnd, w.ssthresh, cu.w_max, cu.cwnd_prior), (1000, 70_000, Some(100.0), 100.0));
        assert!(cu.after_timeout && cu.epoch.is_none());
        // Not in recovery any more: a second timeout is a new congestion event.
        w.cwnd = 60_000;
        cu.on_congestion(&mut w, &loss(LossKind::Timeout, 50_000));
        assert_eq!((w.cwnd, w.ssthresh, cu.w_max, cu.cwnd_prior), (1000, 35_000, Some(51.0), 60.0));
        // Recovery that ended normally: the next timeout reduces too.
        w.cwnd = 40_000;
        cu.on_congestion(&mut w, &loss(LossKind::DupAcks, 40_000));
        cu.on_recovery_exit(&mut w);
        w.cwnd = 30_000;
        cu.on_congestion(&mut w, &loss(LossKind::Timeout, 30_000));
        assert_eq!(w.ssthresh, 21_000);
    }

    /// First stage without a congestion event (§4.10): cwnd_prior = cwnd, K = 0, W_max = cwnd_epoch.
    #[test]
    fn first_stage_without_loss() {
        let mut cu = cubic();
        let mut w = Window { cwnd: 20_000, ssthresh: 20_000, mss: 1000 };
        feed(&mut cu, &mut w, 0);
        let e = cu.epoch.unwrap();
        assert_eq!((e.k_s, e.w_max, cu.cwnd_prior, cu.w_max), (0.0, 20.0, 20.0, None));
    }

    /// Not cwnd-limited (10 segments outstanding under a 20-segment cwnd): no growth, and the
    /// epoch's clock stops — t_epoch moves by the 3 s between the ACKs.
    #[test]
    fn clock_stops_when_not_cwnd_limited() {
        let mut cu = cubic();
        let mut w = Window { cwnd: 30_000, ssthresh: u64::MAX, mss: 1000 };
        cu.on_congestion(&mut w, &loss(LossKind::DupAcks, 30_000));
        w.cwnd = 21_000;
        feed(&mut cu, &mut w, S);
        let (cwnd, t0) = (w.cwnd, cu.epoch.unwrap().t_epoch);
        let limited = AckInfo { flight_bytes: 9000, ..ack(4 * S, w.cwnd) };
        cu.on_ack(&mut w, &limited);
        assert_eq!((w.cwnd, cu.epoch.unwrap().t_epoch), (cwnd, t0 + 3 * S));
        // Slow start is held likewise.
        let mut w = Window { cwnd: 20_000, ssthresh: u64::MAX, mss: 1000 };
        cu.on_ack(&mut w, &AckInfo { flight_bytes: 9000, ..ack(0, 20_000) });
        assert_eq!(w.cwnd, 20_000);
    }

    /// Through the sender with NewReno (RFC 6582): 10 segments in flight, the 3rd duplicate ACK
    /// sets ssthresh = 0.7·FlightSize and cwnd = ssthresh + 3 segments.
    #[test]
    fn fast_retransmit_through_sender() {
        use crate::tcp::sender::tests::{ack, cfg, sent};
        use crate::tcp::Sender;
        let mut s = Sender::new(cfg(false, 10), Box::new(cubic()), crate::tcp::recovery::by_name("newreno").unwrap());
        s.offer(0, u64::MAX);
        assert_eq!(sent(&mut s).len(), 10);
        s.on_ack(100 * MS, &ack(1000)); // slow start: cwnd 11 000, 11 segments out
        sent(&mut s);
        for k in 1..=3 {
            s.on_ack(100 * MS + k * MS, &ack(1000));
        }
        assert!(s.core.rec.in_recovery);
        // FlightSize 11 000 (segments 1000–11 999) → ssthresh 7700, cwnd 7700 + 3000.
        assert_eq!((s.core.w.ssthresh, s.core.w.cwnd), (7700, 10_700));
    }

    #[test]
    fn params_are_checked() {
        let p = CubicParams { beta: 1.0, ..CubicParams::default() };
        assert_eq!(p.check().unwrap_err(), "beta: 1 is out of range (allowed: 0 < beta < 1)");
        assert!(CubicParams { beta: f64::NAN, ..CubicParams::default() }.check().unwrap_err().starts_with("beta:"));
        let p = CubicParams { c_pkts_per_s3: 0.0, ..CubicParams::default() };
        assert_eq!(p.check().unwrap_err(), "c_pkts_per_s3: 0 is out of range (allowed: c_pkts_per_s3 > 0)");
        assert!(CubicParams::default().check().is_ok());
    }
}
