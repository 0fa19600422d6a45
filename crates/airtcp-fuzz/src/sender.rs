//! The sender target: ACK processing under adversarial ACK streams.
//!
//! Bytes choose a sender — any window policy of [`airtcp::cc::NAMES`] with its default
//! parameters or one of [`CC_PARAMS`]' variants, any recovery strategy of [`airtcp::tcp::recovery::NAMES`], and the flow options a
//! scenario can set (MSS, windows, DupThresh, RTO bounds, SACK, timestamps, ECN, limited transmit,
//! the timer and sampling variants, a finite or infinite transfer) — kept within what scenario
//! validation accepts (the options a policy or strategy needs are turned on, min RTO ≤ max RTO),
//! because the sender is only ever built from a validated scenario. Then a stream of events:
//! ACKs (duplicate, new at segment boundaries, everything, old, beyond snd_max, anywhere in the
//! window), each with 0–4 SACK blocks (inside, reversed, empty, below snd_una, beyond snd_max, at
//! any byte, raw), timestamps (sane, zero, from the future, raw), ECN-Echo and CAIAD's options
//! (corruption reports inside and outside the window, No-Congestion); the retransmission timer
//! firing (when the engine would fire it: at its deadline); time advancing (due timers fire on the
//! way, as in the engine's event loop); the application stopping.
//!
//! After every event (the checks that must hold whatever the ACKs say):
//! - sequence space: snd_una ≤ snd_nxt ≤ snd_max ≤ the application's limit; snd_una and snd_max
//!   never go back; every byte below snd_una was acknowledged once (`acked_bytes`);
//! - window: 1 ≤ cwnd ≤ max_cwnd (the sender's clamp); RTO within [min_rto, max_rto] (RFC 6298
//!   (2.4), (2.5));
//! - timer: armed exactly while data is outstanding (RFC 6298 (5.1), (5.2));
//! - scoreboard: one entry per outstanding segment, nothing SACKed above snd_max, RFC 6675
//!   `pipe` at most twice the flight, `NextSeg` inside the window;
//! - segments sent: 1..=MSS bytes, inside [snd_una, snd_max), new data contiguous from the old
//!   snd_max, ECT only with ECN, TSval only with timestamps;
//! - the window policy's estimates are not NaN;
//! - liveness: a flow with data to send and nothing outstanding has its timer armed or sends.

use airtcp::net::packet::MAX_SACK_BLOCKS;
use airtcp::net::{SackBlock, TcpHeader};
use airtcp::tcp::sender::RttSampling;
use airtcp::tcp::{Sender, SenderConfig};
use airtcp::time::SimTime;

use crate::input::Input;

/// Events per input at most.
pub const MAX_EVENTS: usize = 2048;

/// Timeouts fired on the way through one time advance at most (a 1-ns RTO would otherwise fire
/// billions of times in a one-second step; the engine would, but the fuzzer need not wait).
const MAX_TIMEOUTS_PER_ADVANCE: usize = 64;

const MS: u64 = 1_000_000;

/// The MSS values drawn (1 to the validation's largest, 65 000).
const MSS_BYTES: &[u32] = &[1, 2, 7, 100, 536, 1000, 1460, 9000, 65_000];

/// Receiver windows drawn, segments. At most 4096: every event may send a window's worth, and an
/// input holds up to [`MAX_EVENTS`] of them. (A scenario may set up to 2^32 − 1; with
/// `cc = "ie2-envelope"`, which holds cwnd at the receiver window from the start, the first call
/// then emits 4·10^9 segments: a finding left to the lead's resource limits.)
const RWND_PKTS: &[u64] = &[1, 2, 3, 4, 8, 20, 64, 1000, 4096];

/// Time steps drawn, ns.
const STEPS_NS: &[u64] = &[0, 1, 1_000, MS, 10 * MS, 100 * MS, 1_000 * MS, 60_000 * MS];

/// RTO bounds drawn, ns (min, max): the defaults (200 ms, 60 s), Linux's (200 ms, 120 s), 1 ns
/// each, and the longest durations the lead's range checks will allow (10^7 s).
const RTO_BOUNDS_NS: &[(u64, u64)] =
    &[(200 * MS, 60_000 * MS), (200 * MS, 120_000 * MS), (1, 1), (0, 1), (1, 10_000_000_000 * MS), (MS, 3 * MS)];

/// The end of simulated time: the longest run the lead's range checks will allow (10^7 s). A
/// trial stops there, as the engine's run does at its duration.
const HORIZON_NS: SimTime = 10_000_000_000 * MS;

/// `cc_params` tables drawn besides the defaults, by window policy: every estimator and decrease
/// variant, and the ends of each parameter's range that validation allows.
pub const CC_PARAMS: &[(&str, &str)] = &[
    ("westwood", "filter = \"ucla-ns2\""),
    ("westwood", "tau = \"3ms\"\nm = 3"),
    ("westwood", "tau = \"10000s\"\nm = 1000"),
    ("westwood-plus", "filter = \"cascade\"\nrtt_min = \"srtt\"\ndecrease = \"linux-ns2\""),
    ("westwood-plus", "alpha = 0.0\nmin_interval = \"0s\""),
    ("westwood-plus", "alpha = 0.999999\nmin_interval = \"10000s\""),
    ("jersey", "abe_update = \"per-ack\""),
    ("jersey", "abe_update = \"literal\"\nk = 100.0"),
    ("jersey", "k = 1e-9"),
    ("new-jersey", "abe_update = \"per-ack\"\nk = 1e-9"),
    ("nj+", "abe_update = \"literal\"\nk = 100.0"),
    ("vegas", "expiry = false"),
    ("vegas", "alpha = 0.0\nbeta = 0.0\ngamma = 0.0"),
    ("vegas", "alpha = 1e9\nbeta = 1e300\ngamma = 1e300"),
    ("prairie", "gamma = 0.0"),
    ("prairie", "gamma = 1e300"),
    ("caiad", "tau = \"1ns\"\ninflate_on_no_congestion = false"),
    ("caiad", "tau = \"10000s\""),
    ("cubic", "c_pkts_per_s3 = 1e-9\nbeta = 0.999999\nfast_convergence = false\nreno_friendly = false"),
    ("cubic", "c_pkts_per_s3 = 1e300\nbeta = 1e-9"),
    ("bbr", "high_gain = 100.0\ncwnd_gain = 1.0\nbw_window_rounds = 1\nrtprop_window = \"1ms\"\nprobe_rtt_time = \"0s\""),
    ("bbr", "high_gain = 1.000001\ncwnd_gain = 100.0\nbw_window_rounds = 1000\nrtprop_window = \"3600s\"\nprobe_rtt_time = \"3600s\""),
];

/// Runs one input (panics on a finding).
pub fn run(data: &[u8]) {
    let mut inp = Input::new(data);
    let mut t = Trial::new(&mut inp);
    for _ in 0..MAX_EVENTS {
        if inp.is_empty() || t.now > HORIZON_NS {
            break;
        }
        let op = inp.u8();
        match op % 8 {
            0..=4 => {
                let h = t.ack(&mut inp, op);
                if crate::tracing() {
                    eprintln!("{} ack {h:?}", t.now);
                }
                t.s.on_ack(t.now, &h);
            }
            5 => {
                // The timer fires at its deadline (the engine's timer event).
                if let Some(d) = t.s.view().rto_deadline {
                    t.now = t.now.max(d);
                    if crate::tracing() {
                        eprintln!("{} timeout", t.now);
                    }
                    t.s.on_timeout(t.now);
                }
            }
            6 => {
                let to = t.now + inp.pick(STEPS_NS);
                t.advance(to);
            }
            _ => {
                if op & 0x10 != 0 {
                    t.s.stop();
                    t.stopped = true;
                } else {
                    let to = t.now + inp.pick(STEPS_NS);
                    t.advance(to);
                }
            }
        }
        t.check();
    }
}

/// One sender under test, with what the checks remember between events.
struct Trial {
    s: Sender,
    /// The window policy and recovery strategy, for messages.
    names: (&'static str, &'static str),
    now: SimTime,
    /// The receiver's clock for TSval (never behind `now` by more than it was).
    rx_clock: u64,
    /// snd_una and snd_max after the previous event.
    una: u64,
    max: u64,
    /// The application stopped (snd_max is then the limit).
    stopped: bool,
}

impl Trial {
    /// Builds the sender from the first bytes of the input and offers its data at t = 0.
    fn new(inp: &mut Input) -> Self {
        let cc_name = inp.pick(airtcp::cc::NAMES);
        let rec_name = inp.pick(airtcp::tcp::recovery::NAMES);
        let variants: Vec<&str> = CC_PARAMS.iter().filter(|(n, _)| *n == cc_name).map(|(_, p)| *p).collect();
        let params: Option<toml::Table> = match inp.below(variants.len() as u64 + 1) as usize {
            0 => None,
            k => Some(variants[k - 1].parse().expect("a CC_PARAMS table is TOML")),
        };
        let cc = airtcp::cc::build(cc_name, params.as_ref())
            .unwrap_or_else(|e| panic!("{cc_name} {params:?}: parameters rejected ({e:?}): fix CC_PARAMS"));
        let rec = airtcp::tcp::recovery::by_name(rec_name).expect("a listed recovery");
        let needs = cc.needs();
        let flags = inp.u16();
        let bit = |k: u32| flags & (1 << k) != 0;
        let mss = inp.pick(MSS_BYTES);
        let m = mss as u64;
        let rwnd_pkts: u64 = inp.pick(RWND_PKTS);
        let max_cwnd_pkts: Option<u64> = inp.pick(&[None, None, Some(1), Some(2), Some(10), Some(1000)]);
        let iw_pkts: u64 = inp.pick(&[1, 2, 3, 4, 10, 100, 1000]);
        let ssthresh_pkts: Option<u64> = inp.pick(&[None, None, Some(2), Some(3), Some(10), Some(1000), Some(u32::MAX as u64)]);
        let (min_rto_ns, max_rto_ns) = inp.pick(RTO_BOUNDS_NS);
        let cfg = SenderConfig {
            mss,
            rwnd_bytes: rwnd_pkts * m,
            max_cwnd_bytes: max_cwnd_pkts.map_or(u64::MAX / 4, |p| p * m),
            initial_cwnd_bytes: iw_pkts * m,
            initial_ssthresh_bytes: ssthresh_pkts.map_or(rwnd_pkts * m, |p| p * m),
            dupthresh: inp.pick(&[3, 1, 2, 4, 7, 1000, u32::MAX]),
            sack: needs.sack || airtcp::tcp::recovery::find(rec_name).is_some_and(|r| r.needs_sack) || bit(0),
            timestamps: needs.timestamps || bit(1),
            ecn: needs.ecn || bit(2),
            initial_rto_ns: inp.pick(&[1_000 * MS, 1, 3_000 * MS, 10_000_000_000 * MS]),
            min_rto_ns,
            max_rto_ns,
            granularity_ns: inp.pick(&[MS, 0, 1, 10 * MS, 500 * MS]),
            rto_reset_every_partial_ack: bit(3),
            timeout_ssthresh_from_window: false,
            limited_transmit: bit(4),
            ect_on_retransmissions: needs.ect_on_retransmissions,
            rtt_sampling: if bit(5) { RttSampling::EveryAck } else { RttSampling::TimedSegment },
            fast_retransmit_restarts_rto: !bit(6),
            fast_retransmit_rto_backoff: bit(7),
            recover_ack_heuristic: bit(8),
            recover_guard_timeout_only: false,
            rto_restart_every_ack: bit(9),
            rtt_sample_duplicate_acks: bit(10),
            rto_undo: if bit(13) { airtcp::tcp::sender::RtoUndoPolicy::Eifel } else { airtcp::tcp::sender::RtoUndoPolicy::None },
            rto_formula: if bit(12) { airtcp::tcp::rto::RtoFormula::Linux } else { airtcp::tcp::rto::RtoFormula::Rfc6298 },
        };
        // A finite transfer (the scenario's `bytes`) or the engine's infinite source.
        let limit = if bit(11) { 1 + inp.below(64 * m) } else { u64::MAX };
        if crate::tracing() {
            eprintln!("{cc_name} {params:?} {rec_name} limit {limit} {cfg:?}");
        }
        let mut s = Sender::new(cfg, cc, rec);
        s.offer(0, limit);
        let mut t = Trial { s, names: (cc_name, rec_name), now: 0, rx_clock: 0, una: 0, max: 0, stopped: false };
        t.check();
        t
    }

    /// Moves the clock to `to`, firing the retransmission timer whenever it falls due on the way
    /// (and the pacing timer of a pacing policy, the earlier of the two first).
    fn advance(&mut self, to: SimTime) {
        for _ in 0..MAX_TIMEOUTS_PER_ADVANCE {
            if let Some(p) = self.s.view().pacing_deadline.filter(|&p| p <= to && self.s.view().rto_deadline.is_none_or(|d| p < d)) {
                self.now = self.now.max(p);
                self.s.on_pacing_timer(self.now);
                self.check();
                continue;
            }
            match self.s.view().rto_deadline {
                Some(d) if d <= to => {
                    self.now = self.now.max(d);
                    if crate::tracing() {
                        eprintln!("{} timeout (advancing to {to})", self.now);
                    }
                    self.s.on_timeout(self.now);
                    self.check();
                }
                _ => break,
            }
        }
        self.now = self.now.max(to);
        self.rx_clock = self.rx_clock.max(self.now);
    }

    /// An adversarial ACK at the current state.
    fn ack(&mut self, inp: &mut Input, op: u8) -> TcpHeader {
        let c = self.s.view();
        let (una, max, mss) = (c.seq.snd_una, c.seq.snd_max, c.cfg.mss as u64);
        let flight = max - una;
        let ack = match inp.u8() % 8 {
            0 | 1 => una,
            2 | 3 => (una + (1 + inp.below(16)) * mss).min(max),
            4 => max,
            5 => una.saturating_sub((1 + inp.below(16)) * mss),
            6 => match inp.u8() % 4 {
                0 => max + 1,
                1 => max + mss,
                2 => u64::MAX,
                _ => inp.u64(),
            },
            _ => una + inp.below(flight + 1),
        };
        let mut h = TcpHeader { ack, ece: op & 0x10 != 0, no_congestion: op & 0x20 != 0, ..TcpHeader::default() };
        let n = inp.below(MAX_SACK_BLOCKS as u64 + 1) as usize;
        for b in &mut h.sack[..n] {
            *b = block(inp, una, max, mss);
        }
        h.n_sack = n as u8;
        if op & 0x40 != 0 {
            h.has_ts = true;
            let now = self.now;
            h.ts_ecr = match inp.u8() % 6 {
                0 | 1 => now.saturating_sub(inp.below(2_000 * MS)),
                2 => 0,
                3 => now + 1 + inp.below(1_000 * MS),
                4 => now,
                _ => inp.u64(),
            };
            h.ts_val = match inp.u8() % 5 {
                0 | 1 => {
                    self.rx_clock += inp.below(100 * MS);
                    self.rx_clock
                }
                2 => now.saturating_sub(inp.below(1_000 * MS)),
                3 => 0,
                _ => inp.u64(),
            };
        }
        if op & 0x80 != 0 {
            h.corrupt_seq = Some(match inp.u8() % 5 {
                0 | 1 => (una + inp.below(flight.div_ceil(mss).max(1)) * mss).min(max),
                2 => una,
                3 => max,
                _ => inp.u64(),
            });
        }
        h
    }

    /// The invariants after an event; drains the segments it sent.
    fn check(&mut self) {
        let out: Vec<_> = self.s.drain_segments().collect();
        self.s.drain_verdicts().for_each(drop);
        let c = self.s.view();
        let who = self.names;
        let (una, nxt, max) = (c.seq.snd_una, c.seq.snd_nxt, c.seq.snd_max);
        let mss = c.cfg.mss as u64;
        if crate::tracing() {
            let sent: Vec<_> = out.iter().map(|o| (o.seq, o.len, o.retransmission)).collect();
            eprintln!(
                "  una {una} nxt {nxt} max {max} cwnd {} ssthresh {} recovery {} dupacks {} board {:?} sent {sent:?}",
                c.w.cwnd,
                c.w.ssthresh,
                c.rec.in_recovery,
                c.rec.dupacks,
                c.board.iter().map(|m| (m.sacked as u8, m.retransmitted as u8)).collect::<Vec<_>>()
            );
        }
        assert!(una <= nxt && nxt <= max, "snd_una {una} <= snd_nxt {nxt} <= snd_max {max} ({who:?})");
        assert!(max <= c.seq.app_limit, "sent up to {max} beyond the application's {}", c.seq.app_limit);
        assert!(una >= self.una && max >= self.max, "sequence space went back: una {} -> {una}, max {} -> {max}", self.una, self.max);
        assert_eq!(c.stats.acked_bytes, una, "every byte below snd_una acknowledged once");
        assert!(c.w.cwnd >= 1 && c.w.cwnd <= c.cfg.max_cwnd_bytes, "cwnd {} outside [1, {}] ({who:?})", c.w.cwnd, c.cfg.max_cwnd_bytes);
        let rto = c.rtt.rto();
        assert!(rto >= c.cfg.min_rto_ns && rto <= c.cfg.max_rto_ns, "RTO {rto} outside [{}, {}]", c.cfg.min_rto_ns, c.cfg.max_rto_ns);
        assert_eq!(c.rto_deadline.is_some(), una < max, "timer armed iff data outstanding (una {una}, max {max}, {who:?})");
        assert_eq!(c.board.len() as u64, (max - una).div_ceil(mss), "one scoreboard entry per outstanding segment");
        assert!(una % mss == 0 || una == max, "snd_una {una} inside a segment of {mss} B");
        assert!(c.board.high_sacked <= max, "SACKed up to {} above snd_max {max}", c.board.high_sacked);
        let pipe = c.pipe();
        assert!(pipe <= 2 * (max - una), "pipe {pipe} above twice the flight {}", max - una);
        if let Some((seq, rtx)) = c.next_seg() {
            assert!(if rtx { una <= seq && seq < max } else { seq == max }, "NextSeg ({seq}, {rtx}) outside [{una}, {max}]");
        }
        for (name, v) in c.cc.estimates() {
            assert!(!v.is_nan(), "{}: estimate {name} is NaN", c.cc.name());
        }
        let mut next_new = self.max;
        for o in out {
            assert!(o.len >= 1 && o.len as u64 <= mss, "segment {o:?} of MSS {mss}");
            assert!(o.seq >= una && o.seq + o.len as u64 <= max, "segment {o:?} outside [{una}, {max})");
            if !o.retransmission {
                assert_eq!(o.seq, next_new, "new data not contiguous: {o:?}");
                next_new = o.seq + o.len as u64;
            }
            assert!(c.cfg.ecn || !o.ect, "ECT without ECN: {o:?}");
            assert_eq!(o.ts_val.is_some(), c.cfg.timestamps, "TSval iff timestamps: {o:?}");
        }
        if una == max && max < c.seq.app_limit {
            assert!(
                c.rto_deadline.is_some() || c.pacing_deadline.is_some(),
                "stalled: nothing outstanding, data to send, no timer (cwnd {}, {who:?})",
                c.w.cwnd
            );
        }
        self.una = una;
        self.max = max;
    }
}

/// A SACK block, sane or bogus.
fn block(inp: &mut Input, una: u64, max: u64, mss: u64) -> SackBlock {
    let segs = (max - una).div_ceil(mss).max(1);
    match inp.u8() % 10 {
        0..=3 => {
            let start = una + inp.below(segs) * mss;
            SackBlock { start, end: (start + (1 + inp.below(4)) * mss).min(max) }
        }
        4 => {
            let end = una + inp.below(segs) * mss;
            SackBlock { start: end + mss, end }
        }
        5 => {
            let at = una + inp.below(segs) * mss;
            SackBlock { start: at, end: at }
        }
        6 => SackBlock { start: max + inp.below(4) * mss, end: max + (1 + inp.below(8)) * mss },
        7 => SackBlock { start: una.saturating_sub((1 + inp.below(4)) * mss), end: una.saturating_sub(inp.below(2) * mss) },
        8 => {
            let start = una + inp.below(max - una + 1);
            SackBlock { start, end: start + inp.below(4 * mss) }
        }
        _ => SackBlock { start: inp.u64(), end: inp.u64() },
    }
}
