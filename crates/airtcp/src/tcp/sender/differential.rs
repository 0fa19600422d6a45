//! Differential tests of the sender's ACK paths: the common-case path ([`Sender::fast_ack`]) and
//! the pulled sends ([`Sender::on_ack_pulled`] + [`Sender::next_segment`]) against the general
//! path ([`Sender::on_ack`] with the fast path off), on random configurations and random ACK
//! sequences. The three senders must emit the same segments in the same order, end each step in
//! the same state, and their window policies must be called with the same inputs (every hook's
//! arguments are logged by a wrapper around the policy). A fourth sender, pulled as the engine
//! pulls it, holds its policy unwrapped, so that the fast path's own growth for a policy that
//! grows as Reno does (`CongestionControl::grows_as_reno`, which the wrapper does not forward)
//! and its duplicate-ACK path for a policy that counts every duplicate
//! (`CongestionControl::counts_every_dup_ack`, not forwarded either) are held against the general
//! path's calls of the policy too. The recovery strategy is not wrapped: the sends of a recovery
//! whose strategy's `send` is the window-limited one (`LossRecovery::sends_window_limited`) are
//! held against the general path's call of that `send`.

use std::sync::{Arc, Mutex};

use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::*;
use crate::cc::{AckInfo, DupAckCount, Head, LossSignal, Needs, RecoverGuard, SendInfo};

const MS: u64 = 1_000_000;

type Log = Arc<Mutex<Vec<String>>>;

/// A window policy that logs every call and its arguments, then asks the wrapped one.
struct Logged {
    inner: Box<dyn CongestionControl>,
    log: Log,
}

impl Logged {
    fn note(&self, s: String) {
        self.log.lock().unwrap().push(s);
    }
}

impl CongestionControl for Logged {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn on_start(&mut self, w: &mut Window, rwnd_bytes: u64) {
        self.note(format!("start {w:?} {rwnd_bytes}"));
        self.inner.on_start(w, rwnd_bytes);
    }
    fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        self.note(format!("ack {w:?} {ack:?}"));
        self.inner.on_ack(w, ack);
    }
    fn classify_dup_ack(&mut self, ack: &AckInfo) -> DupAckCount {
        self.note(format!("classify {ack:?}"));
        self.inner.classify_dup_ack(ack)
    }
    fn on_dup_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        self.note(format!("dup {w:?} {ack:?}"));
        self.inner.on_dup_ack(w, ack);
    }
    fn on_corruption_report(&mut self, w: &mut Window, ack: &AckInfo, seq: u64) -> bool {
        self.note(format!("corruption {w:?} {ack:?} {seq}"));
        self.inner.on_corruption_report(w, ack, seq)
    }
    fn on_congestion(&mut self, w: &mut Window, signal: &LossSignal) -> Reaction {
        self.note(format!("congestion {w:?} {signal:?}"));
        self.inner.on_congestion(w, signal)
    }
    fn on_recovery_exit(&mut self, w: &mut Window) {
        self.note(format!("exit {w:?}"));
        self.inner.on_recovery_exit(w);
    }
    fn retransmit_head(&mut self, now: SimTime, head: Head, ack: &AckInfo) -> bool {
        self.note(format!("head {now} {head:?} {ack:?}"));
        self.inner.retransmit_head(now, head, ack)
    }
    fn reads_send_times(&self) -> bool {
        self.inner.reads_send_times()
    }
    fn pacing_rate(&self) -> Option<u64> {
        self.inner.pacing_rate()
    }
    fn on_send(&mut self, send: &SendInfo) {
        self.note(format!("send {send:?}"));
        self.inner.on_send(send);
    }
    fn reads_rate_sample(&self) -> bool {
        self.inner.reads_rate_sample()
    }
    fn take_app_limited(&mut self) -> Option<u64> {
        self.inner.take_app_limited()
    }
    fn reads_in_flight(&self) -> bool {
        self.inner.reads_in_flight()
    }
    fn recover_guard(&self) -> RecoverGuard {
        self.inner.recover_guard()
    }
    fn estimates(&self) -> &[(&'static str, f64)] {
        self.inner.estimates()
    }
    fn needs(&self) -> Needs {
        self.inner.needs()
    }
    fn loss_verdict(&self, signal: &LossSignal) -> Option<bool> {
        self.inner.loss_verdict(signal)
    }
}

/// How a sender is driven.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// `on_ack` with the fast path turned off: the reference.
    General,
    /// `on_ack` (the fast path where it applies).
    Fast,
    /// `on_ack_pulled` and `next_segment`, as the engine drives it.
    Pulled,
}

struct Driven {
    s: Sender,
    log: Log,
    mode: Mode,
    /// The policy is not wrapped in [`Logged`] (its calls are not logged).
    raw: bool,
}

impl Driven {
    fn ack(&mut self, now: SimTime, h: &TcpHeader) -> Vec<OutSegment> {
        match self.mode {
            Mode::General | Mode::Fast => {
                self.s.on_ack(now, h);
                self.s.drain_segments().collect()
            }
            Mode::Pulled => {
                self.s.on_ack_pulled(now, &AckHeader::from(h), || &h.sack[..h.n_sack as usize]);
                let mut out: Vec<OutSegment> = self.s.drain_segments().collect();
                while let Some(seg) = self.s.next_segment(now) {
                    out.push(seg);
                }
                out
            }
        }
    }

    /// Everything of the sender's state that an ACK may change, and the policy's calls since the
    /// last look (taken from the log), which a sender with its policy unwrapped leaves out.
    fn state(&self) -> String {
        let calls = std::mem::take(&mut *self.log.lock().unwrap());
        if self.raw {
            self.core_state()
        } else {
            format!("{} {calls:?}", self.core_state())
        }
    }

    /// [`Driven::state`] without the policy's calls.
    fn core_state(&self) -> String {
        let c = &self.s.core;
        let t = &c.stats;
        format!(
            "{:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {} {:?}",
            c.seq,
            c.rec,
            c.w,
            c.rtt,
            c.board,
            c.timing,
            c.rto_deadline,
            c.restart_timer_on_ack,
            c.ecn,
            (
                t.segments_sent,
                t.retransmissions,
                t.timeouts,
                t.spurious_timeouts,
                t.fast_retransmits,
                t.ecn_reductions,
                t.rtt_samples,
                t.rtt_sum_ns,
                t.rto_sum_ns,
                t.acked_bytes,
                t.rtt_hist.len(),
            ),
            c.verdicts,
            c.next_send_at,
            c.pacing_deadline,
            c.pace_blocked,
            c.out,
            c.pull_window,
            c.cc.estimates(),
        )
    }
}

/// A random configuration: any window policy that builds without parameters, any recovery
/// strategy (with SACK where it needs it), and random options; most draws leave SACK,
/// timestamps and ECN off so that the fast path is taken often.
fn random_sender(mode: Mode, seed: u64) -> Driven {
    random_sender_as(mode, seed, false)
}

/// [`random_sender`], its policy unwrapped when `raw`.
fn random_sender_as(mode: Mode, seed: u64, raw: bool) -> Driven {
    let mut r = Xoshiro256PlusPlus::seed_from_u64(seed);
    let ccs: Vec<&str> = crate::cc::NAMES.iter().copied().filter(|n| crate::cc::build(n, None).is_ok()).collect();
    let cc_name = ccs[r.random_range(0..ccs.len())];
    let strat = &crate::tcp::recovery::REGISTRY[r.random_range(0..crate::tcp::recovery::REGISTRY.len())];
    let mss = [500u32, 1000, 1460][r.random_range(0..3)];
    let plain = r.random_bool(0.7);
    let cfg = SenderConfig {
        mss,
        rwnd_bytes: r.random_range(2..200) * mss as u64 + r.random_range(0..mss as u64),
        max_cwnd_bytes: if r.random_bool(0.3) { r.random_range(1..60) * mss as u64 } else { u64::MAX },
        initial_cwnd_bytes: r.random_range(1..12) * mss as u64,
        initial_ssthresh_bytes: if r.random_bool(0.5) { r.random_range(2..40) * mss as u64 } else { u64::MAX },
        dupthresh: r.random_range(1..5),
        sack: strat.needs_sack || (!plain && r.random_bool(0.5)),
        timestamps: !plain && r.random_bool(0.5),
        ecn: !plain && r.random_bool(0.5),
        min_rto_ns: r.random_range(1..300) * MS,
        limited_transmit: r.random_bool(0.5),
        rtt_sampling: if !plain && r.random_bool(0.3) { RttSampling::EveryAck } else { RttSampling::TimedSegment },
        rto_reset_every_partial_ack: r.random_bool(0.5),
        timeout_ssthresh_from_window: r.random_bool(0.5),
        fast_retransmit_rto_backoff: r.random_bool(0.2),
        rto_restart_every_ack: r.random_bool(0.2),
        rto_formula: if r.random_bool(0.5) { crate::tcp::rto::RtoFormula::Linux } else { crate::tcp::rto::RtoFormula::Rfc6298 },
        ..SenderConfig::default()
    };
    let log: Log = Arc::default();
    let inner = crate::cc::build(cc_name, None).unwrap();
    let cc: Box<dyn CongestionControl> = if raw { inner } else { Box::new(Logged { inner, log: Arc::clone(&log) }) };
    let mut s = Sender::new(cfg, cc, (strat.make)());
    s.set_fast_path(mode != Mode::General);
    Driven { s, log, mode, raw }
}

/// One random ACK for the sender's current state: a duplicate, a cumulative ACK on a segment
/// boundary (the common case), snd_max, one inside a segment, an old one, or one above snd_max;
/// now and then with ECE or a corruption report.
fn random_ack(rng: &mut Xoshiro256PlusPlus, s: &SenderCore) -> TcpHeader {
    let (una, max, mss) = (s.seq.snd_una, s.seq.snd_max, s.cfg.mss as u64);
    let segs = (max - una).div_ceil(mss);
    let ack = match rng.random_range(0..10) {
        0 | 1 => una,
        2..=5 => (una + rng.random_range(0..=segs) * mss).min(max),
        6 => max,
        7 => una + rng.random_range(0..=(max - una)),
        8 => una.saturating_sub(rng.random_range(0..3) * mss),
        _ => max + rng.random_range(0..3) * mss,
    };
    TcpHeader {
        ack,
        ece: rng.random_bool(0.05),
        corrupt_seq: rng.random_bool(0.03).then(|| una + rng.random_range(0..=segs) * mss),
        no_congestion: rng.random_bool(0.03),
        ..TcpHeader::default()
    }
}

/// How many ACKs of a run met each shortcut's conditions (counted from their definitions,
/// independently of the sender's tests).
#[derive(Default)]
struct Hits {
    /// New ACKs of the common-case path.
    new: u64,
    /// Duplicate ACKs of a flow without hooks whose policy counts every duplicate (Reno's).
    dup: u64,
    /// ACKs during a recovery of Tahoe, Reno or NewReno, whose `send` is the window-limited one.
    in_recovery: u64,
}

/// Drives the four senders of `seed` through `steps` random ACKs and timeouts, checking after
/// each that they agree (the unwrapped one on everything but the policy's calls); returns how
/// many ACKs met the shortcuts' conditions.
fn run(seed: u64, steps: usize) -> Hits {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x5eed);
    let mut senders: Vec<Driven> = [Mode::General, Mode::Fast, Mode::Pulled].into_iter().map(|m| random_sender(m, seed)).collect();
    senders.push(random_sender_as(Mode::Pulled, seed, true));
    let limit = if rng.random_bool(0.3) { rng.random_range(1..400_000) } else { u64::MAX };
    let mut now = 0;
    let mut hits = Hits::default();
    let window_limited = ["tahoe", "reno", "newreno"].contains(&senders[0].s.recovery.name());
    let reno = senders[3].s.core.cc.name() == "reno";
    for d in &mut senders {
        d.s.offer(now, limit);
    }
    let mut sent: Vec<Vec<OutSegment>> = senders.iter_mut().map(|d| d.s.drain_segments().collect()).collect();
    for step in 0..steps {
        assert!(sent.iter().all(|x| *x == sent[0]), "seed {seed} step {step}: segments differ: {sent:?}");
        let core = senders[0].core_state();
        let st = senders[0].state();
        for d in &senders[1..] {
            let expected = if d.raw { &core } else { &st };
            assert_eq!(&d.state(), expected, "seed {seed} step {step}");
        }
        now += rng.random_range(0..20 * MS);
        let core = &senders[0].s.core;
        if rng.random_bool(0.04) && core.rto_deadline.is_some() {
            // The timer fires (the caller checks the deadline).
            now = now.max(core.rto_deadline.unwrap_or(0));
            sent = senders
                .iter_mut()
                .map(|d| {
                    d.s.on_timeout(now);
                    d.s.drain_segments().collect()
                })
                .collect();
            continue;
        }
        let h = random_ack(&mut rng, core);
        let (una, max, mss) = (core.seq.snd_una, core.seq.snd_max, core.cfg.mss as u64);
        if senders[1].s.fast
            && !core.rec.in_recovery
            && h.ack > una
            && h.ack <= max
            && (h.ack == max || (h.ack - una).is_multiple_of(mss))
            && h.corrupt_seq.is_none()
        {
            hits.new += 1;
        }
        if senders[1].s.fast && reno && h.ack == una && max > una && h.corrupt_seq.is_none() {
            hits.dup += 1;
        }
        if window_limited && core.rec.in_recovery {
            hits.in_recovery += 1;
        }
        sent = senders.iter_mut().map(|d| d.ack(now, &h)).collect();
    }
    hits
}

/// A fixed set of seeds, on which the fast path is known to be taken often (the comparison
/// would prove nothing otherwise).
#[test]
fn fast_and_pulled_paths_match_the_general_path() {
    let (mut hits, mut fast_flows, mut reno_growth) = (Hits::default(), 0, 0);
    for seed in 0..300 {
        let h = run(seed, 300);
        (hits.new, hits.dup, hits.in_recovery) = (hits.new + h.new, hits.dup + h.dup, hits.in_recovery + h.in_recovery);
        let raw = random_sender_as(Mode::Pulled, seed, true).s;
        fast_flows += raw.fast as u32;
        reno_growth += (raw.fast && raw.cc_grows_as_reno) as u32;
    }
    assert!(fast_flows > 60, "{fast_flows} of 300 configurations may take the fast path");
    assert!(reno_growth > 5, "{reno_growth} of 300 configurations grow the window on the fast path itself");
    assert!(hits.new > 5000, "{} ACKs met the fast path's conditions", hits.new);
    assert!(hits.dup > 500, "{} duplicate ACKs met the duplicate-ACK path's conditions", hits.dup);
    assert!(hits.in_recovery > 1000, "{} ACKs came in a window-limited recovery", hits.in_recovery);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
    #[test]
    fn fast_and_pulled_paths_match_on_random_seeds(seed in any::<u64>(), steps in 50usize..400) {
        run(seed, steps);
    }
}
