//! TCP Vegas (Brakmo & Peterson, IEEE JSAC 13(8), 1995) as the TCP Prairie thesis (Parvez 2004) describes it in
//! §2.2.6 and §2.2.7, with its loss handling ("new retransmission mechanism") as ns-2.35's
//! `Agent/TCP/Vegas` (`tcp/tcp-vegas.cc`, the Arizona x-kernel Vegas ported by Ted Kuo) does it
//! where the papers leave the details open.
//!
//! Congestion avoidance (thesis §2.2.6): Expected = WindowSize / BaseRTT, BaseRTT the minimum of
//! all measured RTTs; Actual = segments sent within the RTT of a tagged segment / that RTT. Once per
//! RTT the difference, in segments, diff = (Expected − Actual)·BaseRTT, is compared with α < β:
//! diff < α → cwnd += 1 segment; diff > β → cwnd −= 1 segment; otherwise cwnd is kept.
//! Slow start (Brakmo & Peterson §3.3): the window doubles only every other RTT, and is held in
//! between so that Expected and Actual can be compared; slow start ends when diff > γ.
//!
//! New retransmission mechanism (Brakmo & Peterson §3.1; thesis §2.2.6–2.2.7), in ns-2.35's terms
//! (`v_sendtime_`, `v_timeout_`, `v_worried_`, `t_cwnd_changed_`):
//! - Fine-grained timer: the sender records the send time of every segment (the scoreboard's
//!   `sent_at`); every ACK whose highest newly acknowledged segment was sent once gives a sample
//!   R = now − its send time ([`AckInfo::newest_sent_at`]). ns-2's estimator, in its variables
//!   `v_sa_` = 8·SRTT and `v_sd_` = 4·mean deviation: the first sample sets SRTT = R and
//!   `v_sd_` = R, then every sample (the first included) runs n = R − SRTT, SRTT += n/8,
//!   `v_sd_` += |n| − `v_sd_`/4, and the timeout is (SRTT + `v_sd_`/2)·17/16 = 17/16·(SRTT + 2·mdev).
//!   No expiry before the first sample.
//! - "For each duplicate acknowledgement received, the sender checks the Vegas expiry" (thesis
//!   §2.2.6): on every duplicate ACK — the first, second, and those during recovery — if the oldest
//!   unacknowledged segment has been out at least the timeout, it is retransmitted at once
//!   ([`CongestionControl::retransmit_head`]): outside recovery as a fast retransmit, during
//!   recovery as a resend of that segment.
//! - "When a non-duplicate ACK is received, if it is the first or second one after a
//!   retransmission, Vegas again checks to see if the time interval since the segment was sent is
//!   larger than the timeout value. If it is, then Vegas retransmits the segment" (B&P §3.1): after
//!   each fast retransmit the first two new ACKs check the new oldest segment the same way (ns-2:
//!   `v_worried_ = 2`; the check stops at the first ACK that finds nothing expired). This repairs
//!   a second loss of the window that Reno's recovery, ended by the partial ACK, would leave to
//!   the coarse timer.
//! - "Vegas only decreases the congestion window if the retransmitted segment was previously sent
//!   after the last decrease" (B&P §3.1): a later loss of a window already cut is retransmitted
//!   without a second cut ([`Reaction::KeepWindow`]), and fast retransmit may start again within the
//!   window after a fast retransmit ([`RecoverGuard::TimeoutOnly`]: ns-2's Vegas applies its
//!   `bug_fix_` recover test only after a timeout).
//! - The cut (thesis §2.2.7: "it reduces the congestion window to 3/4 instead of 1/2"), in whole
//!   segments of W = min(cwnd, rwnd) as ns-2's `window()`: W − ⌊W/4⌋, or ⌊W/2⌋ when the lost
//!   segment had itself been retransmitted, or 2 when W ≤ 3; it becomes ssthresh and the recovery
//!   strategy sets cwnd (Reno: ssthresh + duplicates·MSS, deflated to ssthresh at the next new ACK).
//! - Each fast retransmit backs the fine timeout off: ×2 when the segment had been retransmitted
//!   before, ×9/8 otherwise, until the next sample recomputes it (ns-2 "v_rto expon. backoff").
//! - Timeout (thesis §2.2.6: "switches to slow start"): ns-2's `timeout()`: ssthresh = ⌊W/2⌋
//!   segments (at least 2), cwnd = 2 segments (`v_slowstart_`), and the window counts as cut now.
//!
//! Readings where the seeds are silent (tested in `tests`):
//! - α = 1, β = 3, γ = 1 segments (Brakmo & Peterson's values; the thesis gives none).
//! - "Once per RTT" is an epoch: it opens at an ACK and closes at the first ACK that covers all
//!   data outstanding when it opened. The RTT in Actual is the smallest RTT sample of the epoch
//!   (the tagged segment's sample: with Karn's rule there is about one per RTT; with timestamps the
//!   minimum filters delayed-ACK noise, as Linux does), or the latest sample when the epoch had
//!   none. WindowSize is cwnd (Brakmo & Peterson assume it equals the bytes in transit), so
//!   diff = cwnd·(RTT − BaseRTT)/(RTT·MSS).
//! - Leaving slow start sets cwnd = min(cwnd, cwnd·BaseRTT/RTT + 1 segment) — the window that
//!   fills the pipe plus α of backlog (Linux's rule) — and ssthresh = cwnd. Whenever Vegas lowers
//!   cwnd it lowers ssthresh with it, so that linear mode does not fall back into slow start; the
//!   end of a recovery does the same (ns-2 sets `ssthresh_ = 2` when it deflates cwnd).
//! - cwnd never goes below 2 segments by Vegas's own decrease.
//! - `expiry = false` turns the whole mechanism off (no fine-grained checks, the recover guard of
//!   every other scheme); the once-per-window cut and ns-2's timeout reaction stay.
//! - Not modelled from ns-2: a resend during recovery whose segment was last sent after the last
//!   cut does not cut again (ns-2 halves then); when a fast retransmit keeps the window, Reno's
//!   recovery still inflates cwnd by the duplicates counted so far (ns-2 leaves cwnd as it is); the
//!   check on new ACKs is dropped at a timeout (ns-2.35 keeps `v_worried_`; the go-back-N resends
//!   then make it find nothing expired); when exactly DupThresh duplicates arrived, Reno's
//!   recovery deflates cwnd at the next new ACK (ns-2's Vegas only above DupThresh); the CA
//!   rule above is the thesis's, not ns-2's (ns-2 averages every fine sample of the epoch, takes
//!   Actual from the segments sent in it and rounds diff to an integer: `variant = "ns2"` below).
//! - ns-2's Vegas also backs the coarse RTO off at every fast retransmit (`reset_rtx_timer(1)`):
//!   that is the sender's flow option `fast_retransmit_rto_backoff` (off by default), not part of
//!   this policy.
//! - During loss recovery (`no_growth`) Vegas leaves cwnd to the recovery strategy and restarts
//!   its epoch afterwards; an ECN echo is answered as Reno does.
//!
//! `variant = "ns2"` (the Vegas of the seed papers' runs): ns-2.35's `VegasTcpAgent::recv`
//! (tcp/tcp-vegas.cc, rcsid 1.37) in place of the thesis's congestion avoidance and slow start,
//! each step cited beside the code in `Vegas::on_ack_ns2`:
//! - An epoch ends at the first new ACK that covers the first segment sent after it began
//!   (`seqno >= v_begseq_`); its RTT is the mean of the fine samples of the ACKs since the
//!   previous epoch ended (that ACK's own sample included, this one's left to the next), or the
//!   time since it began without one.
//! - "Actual" = segments sent during the epoch (`t_seqno_ − v_begseq_`) / that RTT; "expected" =
//!   segments in transit now (`t_seqno_ − last_ack_`: outstanding + 1, ns-2's ACK number being
//!   the last segment received) / BaseRTT; delta = int((expected − actual)·BaseRTT + 0.5).
//! - BaseRTT: the least fine sample and epoch RTT, set to the epoch's RTT also when at most one
//!   segment was sent in it; the first ACK's sample starts it.
//! - Slow start grows in every other epoch by one segment per new ACK; delta > γ ends it with
//!   cwnd −= cwnd/8 and ssthresh = 2 segments. Congestion avoidance: delta > β takes one segment
//!   off, delta < α adds 1/cwnd per new ACK through the next epoch, only while cwnd ≤ segments in
//!   transit + 2.
//! - Recovery ends at the first new ACK (ns-2's `newack` clears `dupacks_` and `recv` deflates
//!   cwnd to `v_newcwnd_`): the flow needs `recovery = "reno"`. The epoch and the per-ACK
//!   increment run on through losses, as ns-2 never resets them; the recovery exit sets ssthresh
//!   to 2 segments.
//! - ns-2's agent does no limited transmit and backs the RTO off at each fast retransmit: pair with
//!   `limited_transmit = false` and `fast_retransmit_rto_backoff = true` (sender options).

mod ns2;

use serde::Deserialize;

use super::reno::Reno;
use super::{AckInfo, CongestionControl, Head, LossKind, LossSignal, Reaction, RecoverGuard, Window};
use crate::time::SimTime;

pub(crate) use self::ns2::Ns2Epoch;

/// Vegas's parameters (`[flows.cc_params]` with `cc = "vegas"`), in segments.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct VegasParams {
    /// Grow when diff < α (too little backlog).
    #[serde(default = "default_alpha")]
    pub alpha: f64,
    /// Shrink when diff > β (too much backlog); α ≤ β.
    #[serde(default = "default_beta")]
    pub beta: f64,
    /// Leave slow start when diff > γ.
    #[serde(default = "default_gamma")]
    pub gamma: f64,
    /// Vegas's new retransmission mechanism: the fine-grained timeout checked on duplicate ACKs
    /// and on the first two new ACKs after a retransmission, and fast retransmit again within a
    /// window already cut.
    #[serde(default = "default_expiry")]
    pub expiry: bool,
    /// Whose Vegas: the thesis's congestion avoidance (the default) or ns-2.35's agent, the
    /// simulator the Vegas runs of the seed papers used.
    #[serde(default)]
    pub variant: Variant,
}

/// Which Vegas (`cc_params.variant`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Variant {
    /// The thesis's §2.2.6 rule with this module's readings (module doc).
    #[default]
    Thesis,
    /// ns-2.35's `Agent/TCP/Vegas` (`VegasTcpAgent::recv`, tcp/tcp-vegas.cc): its once-per-RTT
    /// arithmetic ([`Ns2Epoch`]) and its recovery exit at the first new ACK, so the flow needs
    /// `recovery = "reno"` ([`crate::cc::Needs::recovery`]).
    Ns2,
}

fn default_alpha() -> f64 {
    1.0
}
fn default_beta() -> f64 {
    3.0
}
fn default_gamma() -> f64 {
    1.0
}
fn default_expiry() -> bool {
    true
}

impl VegasParams {
    /// One-line error naming the field and its allowed range.
    pub(crate) fn check(&self) -> Result<(), String> {
        if !(self.alpha >= 0.0 && self.alpha.is_finite()) {
            return Err(format!("alpha: {} is out of range (allowed: alpha >= 0)", self.alpha));
        }
        if !(self.beta >= self.alpha && self.beta.is_finite()) {
            return Err(format!("beta: {} is out of range (allowed: beta >= alpha = {})", self.beta, self.alpha));
        }
        if !(self.gamma >= 0.0 && self.gamma.is_finite()) {
            return Err(format!("gamma: {} is out of range (allowed: gamma >= 0)", self.gamma));
        }
        Ok(())
    }
}

/// What Vegas decides at the end of an epoch (returned for tests and traces).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Decision {
    /// No RTT known yet: nothing decided.
    NoMeasurement,
    /// Slow start goes on (the next epoch grows or holds).
    KeepSlowStart,
    /// diff > γ: slow start ends.
    LeaveSlowStart,
    /// diff < α: one segment more.
    Increase,
    /// α ≤ diff ≤ β: keep the window.
    Hold,
    /// diff > β: one segment less.
    Decrease,
}

/// The fine-grained timer of ns-2.35's Vegas (`v_sa_`, `v_sd_`, `v_timeout_`), in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct FineTimer {
    /// 8·SRTT (`v_sa_`).
    pub sa: f64,
    /// 4·mean deviation (`v_sd_`).
    pub sd: f64,
    /// The timeout (`v_timeout_`); infinite before the first sample.
    pub timeout: f64,
}

impl FineTimer {
    fn new() -> Self {
        FineTimer { sa: 0.0, sd: 0.0, timeout: f64::INFINITY }
    }

    /// One sample R (ns): the first sets SRTT = R and `v_sd_` = R (ns-2 does so at the first
    /// ACK), then n = R − SRTT, SRTT += n/8, `v_sd_` += |n| − `v_sd_`/4, timeout = 17/16 of
    /// (`v_sa_`/4 + `v_sd_`)/2 = SRTT + 2·mdev.
    pub(crate) fn sample(&mut self, r: f64) {
        if !self.timeout.is_finite() {
            self.sa = 8.0 * r;
            self.sd = r;
        }
        let n = r - self.sa / 8.0;
        self.sa += n;
        self.sd += n.abs() - self.sd / 4.0;
        self.timeout = (self.sa / 4.0 + self.sd) / 2.0;
        self.timeout += self.timeout / 16.0;
    }
}

/// TCP Vegas window policy.
#[derive(Debug, Clone)]
pub(crate) struct Vegas {
    alpha: f64,
    beta: f64,
    gamma: f64,
    expiry: bool,
    /// The current epoch ends when the cumulative ACK reaches this (None: no epoch open).
    epoch_end: Option<u64>,
    /// Smallest RTT sample in the current epoch.
    epoch_min_rtt_ns: Option<u64>,
    /// The latest RTT sample.
    last_rtt_ns: u64,
    /// BaseRTT: the smallest RTT sample so far.
    base_rtt_ns: u64,
    /// Slow start grows during this epoch (it alternates with holding epochs).
    grow: bool,
    /// The fine-grained timer.
    pub fine: FineTimer,
    /// New ACKs still to check after a retransmission (ns-2 `v_worried_`).
    worried: u32,
    /// When the window was last cut by a loss (ns-2 `t_cwnd_changed_`); None: never.
    cut_at: Option<SimTime>,
    /// The oldest unacknowledged segment at the latest check (what a fast retransmit resends).
    head: Head,
    /// The receiver's window (ns-2's `window()` is min(cwnd, rwnd)).
    rwnd: u64,
    /// The last diff computed, in segments (for tests and traces).
    pub last_diff: f64,
    /// Retransmissions asked for by the fine-grained timer.
    pub expiries: u64,
    variant: Variant,
    /// ns-2's once-per-RTT state (`variant = "ns2"` only).
    pub ns2: Ns2Epoch,
}

impl Vegas {
    /// Vegas with checked parameters, before any RTT sample (no BaseRTT, no expiry yet).
    pub(crate) fn new(p: &VegasParams) -> Self {
        Vegas {
            alpha: p.alpha,
            beta: p.beta,
            gamma: p.gamma,
            expiry: p.expiry,
            epoch_end: None,
            epoch_min_rtt_ns: None,
            last_rtt_ns: 0,
            base_rtt_ns: 0,
            grow: true,
            fine: FineTimer::new(),
            worried: 0,
            cut_at: None,
            head: Head::default(),
            rwnd: u64::MAX,
            last_diff: 0.0,
            expiries: 0,
            variant: p.variant,
            ns2: Ns2Epoch::default(),
        }
    }

    /// diff = (Expected − Actual)·BaseRTT in segments, Expected = cwnd/BaseRTT, Actual = cwnd/RTT
    /// (thesis §2.2.6).
    pub(crate) fn diff_segments(cwnd: u64, mss: u64, base_rtt_ns: u64, rtt_ns: u64) -> f64 {
        let expected = cwnd as f64 / base_rtt_ns as f64;
        let actual = cwnd as f64 / rtt_ns as f64;
        (expected - actual) * base_rtt_ns as f64 / mss as f64
    }

    /// The once-per-RTT decision at the end of an epoch whose RTT was `rtt_ns`.
    pub(crate) fn decide(&mut self, w: &mut Window, rtt_ns: u64) -> Decision {
        if self.base_rtt_ns == 0 || rtt_ns == 0 {
            return Decision::NoMeasurement;
        }
        let diff = Self::diff_segments(w.cwnd, w.mss, self.base_rtt_ns, rtt_ns.max(self.base_rtt_ns));
        self.last_diff = diff;
        if w.in_slow_start() {
            if diff > self.gamma {
                // Target: the window that fills the pipe (cwnd·BaseRTT/RTT) plus one segment.
                let target = (w.cwnd as u128 * self.base_rtt_ns as u128 / rtt_ns as u128) as u64 + w.mss;
                w.cwnd = w.cwnd.min(target).max(2 * w.mss);
                w.ssthresh = w.cwnd;
                return Decision::LeaveSlowStart;
            }
            self.grow = !self.grow;
            return Decision::KeepSlowStart;
        }
        if diff < self.alpha {
            w.cwnd += w.mss;
            Decision::Increase
        } else if diff > self.beta {
            w.cwnd = w.cwnd.saturating_sub(w.mss).max(2 * w.mss);
            w.ssthresh = w.ssthresh.min(w.cwnd);
            Decision::Decrease
        } else {
            Decision::Hold
        }
    }

    fn reset_epoch(&mut self) {
        self.epoch_end = None;
        self.epoch_min_rtt_ns = None;
    }

    /// W = min(cwnd, rwnd) in whole segments (ns-2's integer `window()`).
    fn window_segments(&self, w: &Window) -> u64 {
        w.cwnd.min(self.rwnd) / w.mss
    }

    /// What every retransmission by duplicate ACKs does (ns-2's dupack branch): check the next two
    /// new ACKs, and back the fine timeout off (×2 for a segment sent more than once, else ×9/8).
    fn on_retransmission(&mut self) {
        self.worried = 2;
        if self.head.retransmitted {
            self.fine.timeout *= 2.0;
        } else {
            self.fine.timeout += self.fine.timeout / 8.0;
        }
    }
}

impl CongestionControl for Vegas {
    fn name(&self) -> &'static str {
        "vegas"
    }

    fn on_start(&mut self, _w: &mut Window, rwnd_bytes: u64) {
        self.rwnd = rwnd_bytes;
    }

    fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        let sample = ack.newest_sent_at.map(|t| ack.now.saturating_sub(t));
        if let Some(r) = sample.filter(|r| *r > 0) {
            self.fine.sample(r as f64);
        }
        if self.variant == Variant::Ns2 {
            // ns-2 runs the once-per-RTT rule on every new ACK: with `recovery = "reno"` the ACK
            // that ends a recovery has already deflated cwnd (`cwnd_ = v_newcwnd_`).
            self.on_ack_ns2(w, ack, sample.map(|r| r as f64));
            return;
        }
        if let Some(r) = ack.rtt_sample_ns {
            self.last_rtt_ns = r;
            self.epoch_min_rtt_ns = Some(self.epoch_min_rtt_ns.map_or(r, |m| m.min(r)));
        }
        self.base_rtt_ns = ack.min_rtt_ns;
        if ack.no_growth {
            // The recovery strategy owns cwnd; measure afresh once it is done.
            self.reset_epoch();
            return;
        }
        // Slow start: Reno's per-ACK growth, but only in every other epoch.
        if w.in_slow_start() && self.grow {
            w.cwnd += ack.acked_bytes.min(w.mss);
        }
        let snd_max = ack.ack() + ack.flight_bytes;
        match self.epoch_end {
            None => {
                self.epoch_end = Some(snd_max);
                self.epoch_min_rtt_ns = None;
            }
            Some(end) if ack.ack() >= end => {
                let rtt = self.epoch_min_rtt_ns.unwrap_or(self.last_rtt_ns);
                self.decide(w, rtt);
                self.epoch_end = Some(snd_max);
                self.epoch_min_rtt_ns = None;
            }
            Some(_) => {}
        }
    }

    fn on_congestion(&mut self, w: &mut Window, s: &LossSignal) -> Reaction {
        // ns-2's epoch runs on through losses (`v_begseq_` is only moved once per RTT).
        if self.variant == Variant::Thesis {
            self.reset_epoch();
        }
        match s.kind {
            LossKind::DupAcks => {
                self.on_retransmission();
                // B&P §3.1: cut only if the lost segment was sent after the last cut (ns-2:
                // `t_cwnd_changed_ < sendTime`), to 3/4 (thesis §2.2.7), 1/2 for a segment already
                // retransmitted, 2 segments for a window of 3 or less.
                if self.cut_at.is_some_and(|t| t >= self.head.sent_at) {
                    return Reaction::KeepWindow;
                }

                let win = self.window_segments(w);
                let cut = if win <= 3 {
                    2
                } else if self.head.retransmitted {
                    win / 2
                } else {
                    win - win / 4
                };
                w.ssthresh = cut * w.mss;
                self.cut_at = Some(s.now);
                Reaction::Reduce
            }
            LossKind::Timeout => {
                // ns-2.35 `VegasTcpAgent::timeout`: slowdown(CLOSE_SSTHRESH_HALF) then
                // cwnd_ = v_slowstart_ (2); the thesis's "switches to slow start".
                w.ssthresh = (self.window_segments(w) / 2).max(2) * w.mss;
                w.cwnd = 2 * w.mss;
                self.grow = true;
                self.worried = 0;
                self.cut_at = Some(s.now);
                Reaction::Reduce
            }
            LossKind::Ecn => {
                self.grow = true;
                Reno.on_congestion(w, s)
            }
        }
    }

    fn on_recovery_exit(&mut self, w: &mut Window) {
        // ns-2 deflates cwnd and sets `ssthresh_ = 2` ("vegas ssthresh is used only during
        // slow-start"): linear mode goes on.
        w.ssthresh = match self.variant {
            Variant::Thesis => w.ssthresh.min(w.cwnd),
            Variant::Ns2 => 2 * w.mss,
        };
    }

    fn needs(&self) -> super::Needs {
        super::Needs {
            recovery: (self.variant == Variant::Ns2).then_some((
                "reno",
                "with cc_params.variant = \"ns2\" (ns-2.35's Vegas agent, which leaves recovery at the first new ACK)",
            )),
            ..super::Needs::default()
        }
    }

    fn retransmit_head(&mut self, now: SimTime, head: Head, ack: &AckInfo) -> bool {
        self.head = head;
        if !self.expiry {
            return false;
        }
        let due = now.saturating_sub(head.sent_at) as f64 >= self.fine.timeout;
        if ack.acked_bytes > 0 {
            // B&P §3.1: the first and second non-duplicate ACK after a retransmission; ns-2 stops
            // checking at the first one that finds nothing expired, and does not touch the window.
            if self.worried == 0 {
                return false;
            }
            self.worried -= 1;
            if !due {
                self.worried = 0;
            }
        } else if due && ack.recovering {
            // A resend during recovery goes through ns-2's fast-retransmit branch too.
            self.on_retransmission();
        }
        self.expiries += due as u64;
        due
    }

    fn reads_send_times(&self) -> bool {
        true // the fine RTT samples (newest_sent_at) and the expiry checks (retransmit_head)
    }

    fn recover_guard(&self) -> RecoverGuard {
        if self.expiry {
            RecoverGuard::TimeoutOnly
        } else {
            RecoverGuard::EveryLoss
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::westwood::tests::{ack_at, header};
    use crate::net::TcpHeader;

    const MS: u64 = 1_000_000;

    fn vegas() -> Vegas {
        Vegas::new(&VegasParams { alpha: 1.0, beta: 3.0, gamma: 1.0, expiry: true, variant: Variant::Thesis })
    }

    /// diff by hand, MSS 1000, BaseRTT 100 ms:
    /// - cwnd 10 segments, RTT 105 ms: Expected = 10/0.1 = 100 seg/s, Actual = 10/0.105 = 95.238,
    ///   diff = 4.762·0.1 = 0.476 < α = 1 → +1 segment;
    /// - cwnd 10, RTT 120 ms: Actual = 83.333, diff = 1.667, α ≤ diff ≤ β → hold;
    /// - cwnd 10, RTT 150 ms: Actual = 66.667, diff = 3.333 > β = 3 → −1 segment, ssthresh follows;
    /// - slow start, cwnd 10, RTT 110 ms: diff = 0.909 ≤ γ → stays; RTT 125 ms: diff = 2 > γ →
    ///   leave with cwnd = min(10, 10·100/125 + 1) = 9 segments, ssthresh = cwnd.
    #[test]
    fn diff_rule_by_hand() {
        let mut v = vegas();
        v.base_rtt_ns = 100 * MS;
        assert!((Vegas::diff_segments(10_000, 1000, 100 * MS, 105 * MS) - 10.0 / 21.0).abs() < 1e-9);
        let mut w = Window { cwnd: 10_000, ssthresh: 5_000, mss: 1000 };
        assert_eq!(v.decide(&mut w, 105 * MS), Decision::Increase);
        assert_eq!(w.cwnd, 11_000);
        w.cwnd = 10_000;
        assert_eq!(v.decide(&mut w, 120 * MS), Decision::Hold);
        assert!((v.last_diff - 5.0 / 3.0).abs() < 1e-9);
        assert_eq!(w.cwnd, 10_000);
        w.ssthresh = 10_000;
        assert_eq!(v.decide(&mut w, 150 * MS), Decision::Decrease);
        assert!((v.last_diff - 10.0 / 3.0).abs() < 1e-9);
        assert_eq!((w.cwnd, w.ssthresh), (9_000, 9_000));
        // Slow start.
        let mut w = Window { cwnd: 10_000, ssthresh: 64_000, mss: 1000 };
        assert_eq!(v.decide(&mut w, 110 * MS), Decision::KeepSlowStart);
        assert_eq!(w.cwnd, 10_000);
        assert_eq!(v.decide(&mut w, 125 * MS), Decision::LeaveSlowStart);
        assert!((v.last_diff - 2.0).abs() < 1e-9);
        assert_eq!((w.cwnd, w.ssthresh), (9_000, 9_000));
        assert!(!w.in_slow_start());
    }

    /// Slow start doubles in one epoch and holds in the next: IW 2 segments, BaseRTT = RTT =
    /// 100 ms (diff 0, never above γ).
    #[test]
    fn slow_start_doubles_every_other_rtt() {
        let mut v = vegas();
        let mut w = Window { cwnd: 2000, ssthresh: 1_000_000, mss: 1000 };
        let ack = |t: u64, ackno: u64, flight: u64| AckInfo {
            header: header(TcpHeader { ack: ackno, ..TcpHeader::default() }),
            flight_bytes: flight,
            rtt_sample_ns: Some(100 * MS),
            ..ack_at(t * MS, 1000, 100 * MS)
        };
        // Epoch 1 (a growing one) opens at ACK 1000 with [1000, 2000) outstanding: it ends at 2000.
        v.on_ack(&mut w, &ack(100, 1000, 1000));
        assert_eq!(w.cwnd, 3000);
        // ACK 2000 grows, then closes epoch 1; epoch 2 (holding) ends at 2000 + 2000 outstanding.
        v.on_ack(&mut w, &ack(101, 2000, 2000));
        assert_eq!(w.cwnd, 4000);
        v.on_ack(&mut w, &ack(200, 3000, 3000));
        v.on_ack(&mut w, &ack(201, 4000, 2000));
        assert_eq!(w.cwnd, 4000);
        // ACK 4000 closed epoch 2: epoch 3 grows again.
        v.on_ack(&mut w, &ack(300, 5000, 1000));
        assert_eq!(w.cwnd, 5000);
    }

    /// The cut rules and ns-2's fine timer, MSS 1000, cwnd 16 segments, rwnd 1000 segments:
    /// - fast retransmit of a segment sent once, no cut yet: W = 16 → 16 − ⌊16/4⌋ = 12 segments;
    /// - again for a segment sent at or before that cut (t = 0): no second cut (`KeepWindow`);
    /// - timeout at 10 ms with cwnd 16: ssthresh = ⌊16/2⌋ = 8, cwnd = 2 segments;
    /// - fast retransmit at 20 ms of a segment retransmitted at 15 ms (after the timeout's cut),
    ///   W = 6: halved to 3; with W = 3: 2 segments.
    /// - Fine timer: samples 100, 100 ms: first SRTT 100, v_sd 100, then n = 0, v_sd = 75 →
    ///   timeout (200 + 75)/2·17/16 = 146.09375 ms; second n = 0, v_sd = 56.25 →
    ///   (200 + 56.25)/2·17/16 = 136.1328125 ms. A fast retransmit backs it off ×9/8 (sent once)
    ///   → 153.1494140625 ms, or ×2 (sent before) → 272.265625 ms.
    #[test]
    fn cuts_timeout_and_fine_timer() {
        let mut v = vegas();
        let mut w = Window { cwnd: 16_000, ssthresh: 64_000, mss: 1000 };
        v.on_start(&mut w, 1_000_000);
        let sig = |now: u64, kind| LossSignal { now, kind, marked: false, flight_bytes: 16_000 };
        let ack = ack_at(0, 0, 100 * MS);
        v.retransmit_head(0, Head { sent_at: 0, retransmitted: false }, &ack);
        assert_eq!(v.on_congestion(&mut w, &sig(0, LossKind::DupAcks)), Reaction::Reduce);
        assert_eq!(w.ssthresh, 12_000);
        assert_eq!(v.on_congestion(&mut w, &sig(5 * MS, LossKind::DupAcks)), Reaction::KeepWindow);
        assert_eq!(w.ssthresh, 12_000);
        v.on_congestion(&mut w, &sig(10 * MS, LossKind::Timeout));
        assert_eq!((w.cwnd, w.ssthresh), (2000, 8000));
        v.retransmit_head(20 * MS, Head { sent_at: 15 * MS, retransmitted: true }, &ack);
        w.cwnd = 6000;
        assert_eq!(v.on_congestion(&mut w, &sig(20 * MS, LossKind::DupAcks)), Reaction::Reduce);
        assert_eq!(w.ssthresh, 3000);
        v.cut_at = None;
        w.cwnd = 3000;
        v.on_congestion(&mut w, &sig(20 * MS, LossKind::DupAcks));
        assert_eq!(w.ssthresh, 2000);
        // The fine timer: no expiry before a sample.
        let mut v = vegas();
        let dup = AckInfo { acked_bytes: 0, ..ack };
        assert!(!v.retransmit_head(1_000_000 * MS, Head::default(), &dup));
        v.fine.sample((100 * MS) as f64);
        assert_eq!(v.fine.timeout, 146.09375 * MS as f64);
        v.fine.sample((100 * MS) as f64);
        assert_eq!(v.fine.timeout, 136.1328125 * MS as f64);
        let mut f = v.fine;
        v.head = Head { sent_at: 0, retransmitted: false };
        v.on_retransmission();
        assert_eq!(v.fine.timeout, 153.1494140625 * MS as f64);
        v.fine = f;
        v.head.retransmitted = true;
        v.on_retransmission();
        assert_eq!(v.fine.timeout, 272.265625 * MS as f64);
        // Expired at ≥ the timeout; `expiry = false` never.
        f.timeout = 136.0 * MS as f64;
        v.fine = f;
        assert!(!v.retransmit_head(136 * MS - 1, Head::default(), &dup));
        assert!(v.retransmit_head(136 * MS, Head::default(), &dup));
        v.expiry = false;
        assert!(!v.retransmit_head(1000 * MS, Head::default(), &dup));
        assert_eq!(v.recover_guard(), RecoverGuard::EveryLoss);
    }

    /// The checks on new ACKs after a retransmission (B&P §3.1; ns-2 `v_worried_`): the first two
    /// new ACKs check; the first that finds nothing expired ends the checks.
    #[test]
    fn new_ack_checks_after_a_retransmission() {
        let mut v = vegas();
        v.fine.sample((100 * MS) as f64); // timeout 146.09375 ms
        let new = ack_at(0, 1000, 100 * MS);
        let old = Head { sent_at: 0, retransmitted: false };
        // No retransmission yet: new ACKs do not check.
        assert!(!v.retransmit_head(500 * MS, old, &new));
        v.worried = 2;
        assert!(v.retransmit_head(500 * MS, old, &new));
        assert!(v.retransmit_head(500 * MS, old, &new));
        assert!(!v.retransmit_head(500 * MS, old, &new), "only the first two");
        v.worried = 2;
        assert!(!v.retransmit_head(100 * MS, old, &new), "not expired");
        assert!(!v.retransmit_head(500 * MS, old, &new), "checks ended");
    }

    /// A window with two losses through the sender, Reno recovery, MSS 1000, IW 10, rwnd 1000
    /// segments, no limited transmit. Segments 0–9 leave at 0; segments 1 and 3 are lost.
    /// - 100 ms: ACK 1000 (segment 0, sent once at 0): fine sample 100 ms → timeout 146.09375 ms
    ///   (see `cuts_timeout_and_fine_timer`); slow start cwnd 11 → segments 10, 11 leave.
    /// - 101 ms: duplicate (segment 2): segment 1 out 101 ms < 146.09: nothing.
    /// - 150 ms: duplicate (segment 4): out 150 ms ≥ 146.09 → fast retransmit on the second
    ///   duplicate: W = 11 → ssthresh 11 − 2 = 9 segments, Reno's cwnd = 9 + 2 = 11; segment 1
    ///   resent; the fine timeout backed off ×9/8 and the next two new ACKs will check.
    /// - 151 ms: duplicate (segment 5) during recovery: segment 1 resent 1 ms ago, not expired →
    ///   Reno inflates cwnd to 12 → segment 12 leaves.
    /// - 250 ms: ACK 3000 (the resent segment 1 with segment 2): Reno's recovery ends, cwnd 9.
    ///   Sample from segment 2 (sent once at 0): R = 250, n = 150, SRTT 118.75 (v_sa 950),
    ///   v_sd = 75 + 150 − 18.75 = 206.25 → timeout (237.5 + 206.25)/2·17/16 = 235.7421875 ms.
    ///   First new ACK after the retransmission: segment 3 out 250 ms ≥ 235.74 → resent at once,
    ///   recovery entered keeping cwnd 9 (no second cut: segment 3 was sent before the cut at
    ///   150 ms). The recover guard (recover = 12 000 from the first fast retransmit) would
    ///   otherwise have held segment 3 back until the RTO.
    /// - 350 ms: ACK 13 000: all acknowledged, cwnd 9, one cut, no timeout.
    #[test]
    fn second_loss_of_a_window_by_the_new_ack_check() {
        use crate::tcp::sender::tests::{ack, cfg, sent};
        use crate::tcp::Sender;
        let mut s = Sender::new(cfg(false, 10), Box::new(vegas()), crate::tcp::recovery::by_name("reno").unwrap());
        s.offer(0, u64::MAX);
        assert_eq!(sent(&mut s).len(), 10);
        s.on_ack(100 * MS, &ack(1000));
        assert_eq!(s.core.w.cwnd, 11_000);
        assert_eq!(sent(&mut s), vec![(10_000, false), (11_000, false)]);
        s.on_ack(101 * MS, &ack(1000));
        assert!(!s.core.rec.in_recovery);
        assert_eq!(sent(&mut s), vec![]);
        s.on_ack(150 * MS, &ack(1000));
        assert!(s.core.rec.in_recovery);
        assert_eq!(s.core.stats.fast_retransmits, 1);
        assert_eq!(sent(&mut s), vec![(1000, true)]);
        assert_eq!((s.core.w.ssthresh, s.core.w.cwnd), (9000, 11_000));
        s.on_ack(151 * MS, &ack(1000));
        assert_eq!(s.core.w.cwnd, 12_000);
        assert_eq!(sent(&mut s), vec![(12_000, false)]);
        s.on_ack(250 * MS, &ack(3000));
        assert_eq!(sent(&mut s), vec![(3000, true)]);
        assert!(s.core.rec.in_recovery);
        assert_eq!(s.core.stats.fast_retransmits, 2);
        assert_eq!((s.core.w.ssthresh, s.core.w.cwnd), (9000, 9000));
        s.on_ack(350 * MS, &ack(13_000));
        assert!(!s.core.rec.in_recovery);
        assert_eq!((s.core.w.ssthresh, s.core.w.cwnd), (9000, 9000));
        assert_eq!((s.core.stats.timeouts, s.core.stats.retransmissions), (0, 2));
    }

    /// The same window with `expiry = false`: no early retransmit, and after the partial ACK the
    /// recover guard keeps segment 3 for the RTO (timer restarted at the fast retransmit at 150 ms
    /// with RTO 300 ms: SRTT 100, RTTVAR 50 from the 100-ms sample).
    #[test]
    fn without_expiry_the_second_loss_waits_for_the_timer() {
        use crate::tcp::sender::tests::{ack, cfg, sent};
        use crate::tcp::Sender;
        let p = VegasParams { alpha: 1.0, beta: 3.0, gamma: 1.0, expiry: false, variant: Variant::Thesis };
        let mut s = Sender::new(cfg(false, 10), Box::new(Vegas::new(&p)), crate::tcp::recovery::by_name("reno").unwrap());
        s.offer(0, u64::MAX);
        s.on_ack(100 * MS, &ack(1000));
        for t in [101, 150] {
            s.on_ack(t * MS, &ack(1000));
        }
        assert!(!s.core.rec.in_recovery);
        s.on_ack(151 * MS, &ack(1000));
        assert!(s.core.rec.in_recovery);
        sent(&mut s);
        s.on_ack(250 * MS, &ack(3000));
        for t in [251, 252, 253] {
            s.on_ack(t * MS, &ack(3000));
        }
        assert_eq!(sent(&mut s).iter().filter(|x| x.1).count(), 0);
        assert_eq!(s.core.rto_deadline, Some(250 * MS + 300 * MS));
    }

    fn ns2_vegas() -> Vegas {
        Vegas::new(&VegasParams { alpha: 1.0, beta: 3.0, gamma: 1.0, expiry: true, variant: Variant::Ns2 })
    }

    /// A new ACK at `t` ms with cumulative number `ackno`, snd_nxt `nxt` and a fine sample from a
    /// segment sent at `sent` ms, if any.
    fn ns2_ack(t: u64, ackno: u64, nxt: u64, sent: Option<u64>) -> AckInfo<'static> {
        AckInfo {
            header: header(TcpHeader { ack: ackno, ..TcpHeader::default() }),
            snd_nxt: nxt,
            rate: None,
            newest_sent_at: sent.map(|s| s * MS),
            ..ack_at(t * MS, 1000, 100 * MS)
        }
    }

    /// ns-2.35's congestion avoidance by hand (`VegasTcpAgent::recv`), MSS 1000, α 1, β 3: an
    /// epoch began at snd_nxt 100 000 at 0 ms with BaseRTT 100 ms; cwnd 10 segments, ssthresh 2.
    /// - 110 ms, ACK 95 000, sample 110 ms; 130 ms, ACK 96 000, sample 130 ms: within the epoch.
    /// - 140 ms, ACK 103 000 (covers segment 100 000: the epoch ends), snd_nxt 110 000, sample
    ///   130 ms: rtt = mean(110, 130) = 120 ms (this ACK's sample goes to the next epoch);
    ///   rttLen = 10 sent; t_seqno_ − last_ack_ = 7 outstanding + 1 = 8; actual = 10/0.12 =
    ///   83.33/s, expect = 8/0.1 = 80/s, delta = int(−3.33·0.1 + 0.5) = int(0.167) = 0 < α →
    ///   v_incr_ = 1/10: this ACK adds 100 B (cwnd 10 000 ≤ 8 000 + 2 000). The thesis's rule
    ///   with cwnd for both and no rounding would hold: 10·(1 − 100/120) = 1.67.
    /// - 150 ms, ACK 104 000, snd_nxt 110 000, no sample: 10 100 > 7 000 + 2 000, no growth.
    /// - 260 ms, ACK 111 000, snd_nxt 118 000, sample 160 ms: rtt = 130 ms (the one sample);
    ///   rttLen 8, expect 8/0.1 = 80, actual 8/0.13 = 61.54, delta = int(1.846 + 0.5) = 2 → hold.
    /// - 400 ms, ACK 119 000, snd_nxt 127 000, sample 200 ms: rtt 160 ms, rttLen 9, expect 9/0.1
    ///   = 90, actual 56.25, delta = int(3.375 + 0.5) = 3, not above β → hold (the thesis's
    ///   unrounded 3.375 would shrink).
    /// - 600 ms, ACK 128 000, snd_nxt 136 000: rtt 200 ms, rttLen 9, expect 90, actual 45,
    ///   delta = int(4.5 + 0.5) = 5 > β → cwnd − 1 segment = 9 100.
    /// - 700 ms, ACK 137 000, snd_nxt 137 000 (rttLen 1), no sample: rtt 100 ms (now − the
    ///   epoch's start); BaseRTT stays 100 ms. With rttLen ≤ 1 ns-2 takes the epoch's RTT as
    ///   BaseRTT even when larger: at 1000 ms, ACK 138 000, snd_nxt 138 000, rtt 300 ms → BaseRTT
    ///   300 ms, expect 1/0.3, actual 1/0.3, delta 0 → v_incr_ = 1/9.1 segment.
    #[test]
    fn ns2_arithmetic_by_hand() {
        let mut v = ns2_vegas();
        v.ns2 = Ns2Epoch { beg_nxt: 100_000, beg_time: Some(0), base_rtt: Some((100 * MS) as f64), ..Ns2Epoch::default() };
        let mut w = Window { cwnd: 10_000, ssthresh: 2000, mss: 1000 };
        v.on_ack(&mut w, &ns2_ack(110, 95_000, 104_000, Some(0)));
        v.on_ack(&mut w, &ns2_ack(130, 96_000, 105_000, Some(0)));
        assert_eq!((v.ns2.cnt_rtt, v.ns2.sum_rtt), (2, (240 * MS) as f64));
        assert_eq!(v.on_ack_ns2(&mut w, &ns2_ack(140, 103_000, 110_000, Some(10)), Some((130 * MS) as f64)), Some(Decision::Increase));
        assert_eq!((v.ns2.delta, v.ns2.incr, w.cwnd), (0, 0.1, 10_100));
        assert_eq!((v.ns2.beg_nxt, v.ns2.beg_time, v.ns2.cnt_rtt), (110_000, Some(140 * MS), 1));
        v.on_ack(&mut w, &ns2_ack(150, 104_000, 110_000, None));
        assert_eq!(w.cwnd, 10_100);
        assert_eq!(v.on_ack_ns2(&mut w, &ns2_ack(260, 111_000, 118_000, Some(100)), Some((160 * MS) as f64)), Some(Decision::Hold));
        assert_eq!((v.ns2.delta, w.cwnd), (2, 10_100));
        assert_eq!(v.on_ack_ns2(&mut w, &ns2_ack(400, 119_000, 127_000, Some(200)), Some((200 * MS) as f64)), Some(Decision::Hold));
        assert_eq!(v.ns2.delta, 3);
        assert_eq!(v.on_ack_ns2(&mut w, &ns2_ack(600, 128_000, 136_000, None), None), Some(Decision::Decrease));
        assert_eq!((v.ns2.delta, w.cwnd, v.ns2.incr), (5, 9100, 0.0));
        assert_eq!(v.on_ack_ns2(&mut w, &ns2_ack(700, 137_000, 137_000, None), None), Some(Decision::Increase));
        assert_eq!(v.ns2.base_rtt, Some((100 * MS) as f64));
        v.on_ack_ns2(&mut w, &ns2_ack(1000, 138_000, 138_000, None), None);
        assert_eq!((v.ns2.base_rtt, v.ns2.delta), (Some((300 * MS) as f64), 0));
        assert!((v.ns2.incr - 1000.0 / 9100.0).abs() < 1e-12);
    }

    /// ns-2.35's slow start by hand, IW 1 segment: the first ACK (100 ms, sample 100 ms) ends the
    /// first epoch (v_begseq_ 0) and toggles v_inc_flag_ off: no growth; the second (200 ms)
    /// toggles it on with delta 0 ≤ γ: v_incr_ = 1, one segment per ACK. Then, in a growing
    /// epoch with cwnd 16 and BaseRTT 100 ms, an epoch of mean RTT 150 ms with 16 segments sent
    /// and 16 in transit: delta = int((160 − 106.67)·0.1 + 0.5) = 5 > γ → ssthresh 2 segments,
    /// cwnd 16 − 16/8 = 14 segments.
    #[test]
    fn ns2_slow_start_by_hand() {
        let mut v = ns2_vegas();
        let mut w = Window { cwnd: 1000, ssthresh: 64_000, mss: 1000 };
        assert_eq!(v.on_ack_ns2(&mut w, &ns2_ack(100, 1000, 1000, Some(0)), Some((100 * MS) as f64)), Some(Decision::KeepSlowStart));
        assert_eq!((w.cwnd, v.ns2.incr, v.ns2.base_rtt), (1000, 0.0, Some((100 * MS) as f64)));
        assert_eq!(v.on_ack_ns2(&mut w, &ns2_ack(200, 2000, 2000, Some(100)), Some((100 * MS) as f64)), Some(Decision::KeepSlowStart));
        assert_eq!((w.cwnd, v.ns2.incr), (2000, 1.0));
        v.on_ack_ns2(&mut w, &ns2_ack(250, 2000, 3000, None), None);
        assert_eq!(w.cwnd, 3000);
        let mut w = Window { cwnd: 16_000, ssthresh: 64_000, mss: 1000 };
        v.ns2 = Ns2Epoch {
            beg_nxt: 50_000,
            beg_time: Some(0),
            sum_rtt: (300 * MS) as f64,
            cnt_rtt: 2,
            base_rtt: Some((100 * MS) as f64),
            inc_flag: false,
            ..Ns2Epoch::default()
        };
        assert_eq!(v.on_ack_ns2(&mut w, &ns2_ack(300, 51_000, 66_000, None), None), Some(Decision::LeaveSlowStart));
        assert_eq!((v.ns2.delta, w.cwnd, w.ssthresh), (5, 14_000, 2000));
    }

    /// `variant = "ns2"` keeps its epoch through a loss and needs Reno's recovery exit; its
    /// recovery exit sets ssthresh to 2 segments as ns-2 does.
    #[test]
    fn ns2_variant_needs_reno_recovery() {
        let mut v = ns2_vegas();
        assert_eq!(v.needs().recovery.map(|r| r.0), Some("reno"));
        assert_eq!(vegas().needs().recovery, None);
        v.ns2.beg_nxt = 7000;
        let mut w = Window { cwnd: 16_000, ssthresh: 64_000, mss: 1000 };
        v.on_start(&mut w, 1_000_000);
        v.on_congestion(&mut w, &LossSignal { now: 0, kind: LossKind::DupAcks, marked: false, flight_bytes: 16_000 });
        assert_eq!((v.ns2.beg_nxt, w.ssthresh), (7000, 12_000));
        v.on_recovery_exit(&mut w);
        assert_eq!(w.ssthresh, 2000);
    }

    #[test]
    fn params_are_checked() {
        let p = VegasParams { alpha: 2.0, beta: 1.0, gamma: 1.0, expiry: true, variant: Variant::Thesis };
        assert_eq!(p.check().unwrap_err(), "beta: 1 is out of range (allowed: beta >= alpha = 2)");
        assert!(VegasParams { alpha: -1.0, ..p.clone() }.check().unwrap_err().starts_with("alpha:"));
        assert!(VegasParams { beta: 3.0, gamma: f64::NAN, ..p }.check().unwrap_err().starts_with("gamma:"));
    }
}
