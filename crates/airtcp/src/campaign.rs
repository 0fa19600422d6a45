//! The invariant campaign (issue 25 part 8): many small random scenarios, each run and checked
//! against what must hold whatever the models do.
//!
//! Why: the engine's unit and property tests check each model against its source; what they
//! cannot show is that no combination of them — a window policy with a recovery strategy over a
//! RED queue marking ECN, a fading channel corrupting packets, a rate schedule with outages, a
//! link repairing its frames, a cut-through hop, an HSDPA cell — loses, duplicates or invents a
//! byte or a packet, or reports a negative or NaN figure. The campaign generates scenarios from a
//! seed (so any run can be reproduced from its index), runs them, and counts violations of:
//!
//! - `end-time`: the run ends at its duration;
//! - `delivered`: per flow, delivered ≤ sent ≤ offered by the application, the sender learns of
//!   no byte the receiver has not delivered, segments received ≤ sent (TCP); datagrams received
//!   (intact or corrupted) ≤ sent, whole datagrams (UDP);
//! - `byte-stream`: every TCP byte delivered exactly once and in order (the receiver's
//!   deliveries tile [0, delivered));
//! - `conservation`: per one-way link, offered = arrived + dropped (overflow, early) + lost for
//!   good + held at the end (`LinkSummary::held_packets`, read from the link's state), and
//!   CE marks + queue drops ≤ offered, arrived + lost ≤ sent;
//! - `metric`: every figure of the summary and the series finite and ≥ 0 (where a series column
//!   is "no value" NaN by definition, it must be exactly that), fractions within [0, 1];
//! - `series`: cumulative series columns never decrease and never pass the summary's totals (and
//!   read exactly them when the last sample falls at the end); sampled queues stay within their
//!   limit;
//! - `cut-through`: every run is repeated event by event (cut-through off), and must give the same
//!   output, bit for bit, but for the event count (until issue 39 only every eighth run was, and
//!   a tie at one nanosecond that cut-through ordered differently went unseen for 10⁵ runs; the
//!   example's `--cut-every N` thins the repeats out when speed matters more);
//! - `panic`: the run panics (overflow checks and debug assertions included where built with
//!   them: `make campaign` and the CI slice use the test profile);
//! - `invalid`: the generator wrote a scenario the engine refuses (a bug of the generator).
//!
//! Each run's first flow (TCP, `n0` → `n1`) and the first link (`n0` → `n1`, its only route) take
//! the window policy, recovery, queue and (capacity, channel kind, effect) of a combination
//! indexed by the run's index through a bijection on the combinations ([`combinations`]: 8064
//! with 12 policies, 8 recoveries, 3 queues and 28 link variants): any [`combinations`]
//! consecutive indices cover every combination once, and a short slice already sees every value
//! of each part. Everything else — topology (2–5 nodes, a random tree plus,
//! sometimes, a link closing a cycle, one-way or duplex), further links and flows (TCP groups in
//! both directions with byte limits, start and stop times; CBR, on/off, VoIP), TCP options, queue,
//! channel and capacity parameters, link retransmission, sampling — is drawn from the run's own
//! random stream. Runs mostly last 1–5 s of simulated time (one in twenty is shorter, down to
//! 1 µs) on links of at most 20 Mb/s, so one takes about a millisecond.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::engine::RngStream;
use crate::sim::Simulator;

/// Recovery strategies, in `tcp::recovery::NAMES` order.
fn recoveries() -> &'static [&'static str] {
    crate::tcp::recovery::NAMES
}

/// Queue disciplines of the designated link.
const QUEUES: [&str; 3] = ["droptail", "red", "cw"];

/// Channel kinds (the designated link's channel is one of these with one of two effects).
const CHANNELS: [&str; 5] = ["none", "uniform", "gilbert-elliott-packet", "gilbert-elliott-time", "fading"];

/// Capacity kinds; HSDPA takes no channel (the cell models its own radio errors).
const CAPACITIES: [&str; 4] = ["constant", "schedule", "trace", "hsdpa"];

/// (capacity, channel, corruption) variants of the designated link: every capacity but HSDPA
/// with no channel or one of the four channel kinds with either effect (3 × 9), and HSDPA.
const LINK_VARIANTS: usize = 3 * 9 + 1;

/// The combinations the designated flow and link cycle through: window policy × recovery ×
/// queue × link variant.
pub fn combinations() -> u64 {
    (crate::cc::NAMES.len() * recoveries().len() * QUEUES.len() * LINK_VARIANTS) as u64
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The combination of run `index`: `index · k mod n` with `k` coprime to `n` (about n/φ), a
/// bijection on every n consecutive indices that spreads a short slice over all digits.
fn combination(index: u64) -> Designated {
    let n = combinations();
    let mut k = (n as f64 * 0.618_033_988_749_895) as u64 | 1;
    while gcd(k, n) != 1 {
        k += 2;
    }
    let mut c = ((index % n) as u128 * k as u128 % n as u128) as usize;
    let mut digit = |m: usize| {
        let d = c % m;
        c /= m;
        d
    };
    let cc = digit(crate::cc::NAMES.len());
    let recovery = digit(recoveries().len());
    let queue = digit(QUEUES.len());
    let variant = digit(LINK_VARIANTS);
    let (capacity, channel, corruption) =
        if variant == 27 { (3, 0, false) } else { (variant / 9, (variant % 9).div_ceil(2), variant % 9 % 2 == 0 && variant % 9 > 0) };
    Designated { combo: (index % n) as usize, cc, recovery, queue, capacity, channel, corruption }
}

/// What the run's first flow and link take from its combination (indices into the lists above).
#[derive(Debug, Clone, Copy)]
struct Designated {
    combo: usize,
    cc: usize,
    recovery: usize,
    queue: usize,
    capacity: usize,
    channel: usize,
    corruption: bool,
}

/// One generated scenario.
#[derive(Debug, Clone)]
pub struct Case {
    /// Its index in the campaign (with the campaign seed, all it takes to regenerate it).
    pub index: u64,
    /// The run's seed (also written as the scenario's `seed`, so the text alone reproduces it).
    pub seed: u64,
    /// The scenario file.
    pub toml: String,
    /// Coverage categories this scenario exercises (for the campaign's coverage counts).
    pub tags: Vec<String>,
    /// The combination index of its designated flow and link (see [`combinations`]).
    pub combo: usize,
    /// Per one-way link in build order: whether it has a constant capacity (its utilization is a
    /// busy fraction, at most 1; a schedule's or trace's is measured against its mean rate).
    pub constant_links: Vec<bool>,
    /// Per one-way link in build order: its queue's limit in packets, which the sampled queue
    /// length never exceeds (0 for an HSDPA cell, whose limit is per UE).
    pub queue_limits: Vec<u64>,
    /// Whether the duration is a whole number of sample intervals: the last sample is then at
    /// the end, after every other event there, and must read the summary's totals.
    pub sample_at_end: bool,
    /// Whether to repeat the run event by event (cut-through off) and compare.
    pub cut_check: bool,
}

/// A random stream with the draws the generator needs.
struct Gen(RngStream);

impl Gen {
    fn unit(&mut self) -> f64 {
        self.0.uniform()
    }
    fn chance(&mut self, p: f64) -> bool {
        self.0.bernoulli(p)
    }
    /// Uniform integer in [lo, hi] (`lo` when hi < lo, as for a range scaled by a short run).
    fn int(&mut self, lo: u64, hi: u64) -> u64 {
        let hi = hi.max(lo);
        lo + ((self.unit() * (hi - lo + 1) as f64) as u64).min(hi - lo)
    }
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + self.unit() * (hi - lo)
    }
    /// Log-uniform in [lo, hi] (lo > 0): small and large magnitudes alike.
    fn log(&mut self, lo: f64, hi: f64) -> f64 {
        (lo.ln() + self.unit() * (hi.ln() - lo.ln())).exp()
    }
    fn log_int(&mut self, lo: u64, hi: u64) -> u64 {
        let hi = hi.max(lo);
        (self.log(lo as f64, hi as f64 + 1.0).floor() as u64).clamp(lo, hi)
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.int(0, xs.len() as u64 - 1) as usize]
    }
    fn boolean(&mut self) -> bool {
        self.chance(0.5)
    }
}

/// A duration in whole microseconds, as scenario text.
fn us(x: u64) -> String {
    format!("\"{x}us\"")
}

/// An error probability: mostly moderate, sometimes zero, rarely certain.
fn error_rate(g: &mut Gen, max: f64) -> f64 {
    match g.int(0, 19) {
        0 => 0.0,
        1 => 1.0,
        _ => g.range(0.0, max),
    }
}

/// A channel table of `kind` (index into [`CHANNELS`]) and its tag.
fn channel(g: &mut Gen, kind: usize, corruption: bool, max: f64) -> String {
    let effect = if corruption { "corruption" } else { "loss" };
    let ge_errors = |g: &mut Gen| {
        let good = if g.boolean() { 0.0 } else { g.range(0.0, 0.05) };
        format!("error_good = {good}, error_bad = {}", g.range(0.05, 1.0))
    };
    match kind {
        0 => "{ kind = \"none\" }".to_string(),
        1 => format!("{{ kind = \"uniform\", loss = {}, effect = \"{effect}\" }}", error_rate(g, max)),
        2 => {
            let (p, q) = (g.range(0.5, 1.0), g.range(0.0, 0.99));
            format!("{{ kind = \"gilbert-elliott\", p_stay_good = {p}, q_stay_bad = {q}, {}, effect = \"{effect}\" }}", ge_errors(g))
        }
        3 => {
            let (good, bad) = (g.log_int(20_000, 2_000_000), g.log_int(1_000, 500_000));
            format!(
                "{{ kind = \"gilbert-elliott\", mean_good = {}, mean_bad = {}, {}, effect = \"{effect}\" }}",
                us(good),
                us(bad),
                ge_errors(g)
            )
        }
        _ => {
            let rate = g.range(0.001, max.max(0.002));
            let doppler = if g.boolean() {
                format!("fd_t = {}", g.log(0.001, 1.0))
            } else {
                let mut s = format!("speed_kmh = {}", g.log(0.5, 100.0));
                if g.chance(0.3) {
                    s += &format!(", carrier_hz = {}", g.log(4e8, 6e9));
                }
                if g.chance(0.3) {
                    s += &format!(", packet_time = {}", us(g.log_int(100, 20_000)));
                }
                s
            };
            format!("{{ kind = \"fading\", error_rate = {rate}, {doppler}, effect = \"{effect}\" }}")
        }
    }
}

/// A queue table of `kind` (index into [`QUEUES`]), its tag and its limit in packets.
fn queue(g: &mut Gen, kind: usize) -> (String, &'static str, u64) {
    let limit = g.log_int(1, 100);
    let (table, tag) = match kind {
        0 => (format!("{{ kind = \"droptail\", limit_pkts = {limit} }}"), "droptail"),
        1 => {
            let min = g.range(0.0, limit as f64 / 2.0);
            // Within the buffer, as validation requires (thresholds above it never trigger).
            let max = g.range(min + (limit as f64 - min) * 0.1, limit as f64);
            let weight = g.pick(&[0.002, 0.01, 0.1, 0.5, 1.0]);
            let (ecn, gentle) = (g.boolean(), g.boolean());
            let tag = match (ecn, gentle) {
                (false, false) => "red",
                (true, false) => "red-ecn",
                (false, true) => "red-gentle",
                (true, true) => "red-ecn-gentle",
            };
            (
                format!(
                    "{{ kind = \"red\", limit_pkts = {limit}, min_th_pkts = {min}, max_th_pkts = {max}, weight = {weight}, max_p = {}, ecn = {ecn}, gentle = {gentle} }}",
                    g.range(0.01, 1.0)
                ),
                tag,
            )
        }
        _ => {
            let mut s = format!("{{ kind = \"cw\", limit_pkts = {limit}, weight = {}", g.pick(&[0.2, 0.05, 0.5, 1.0]));
            if g.boolean() {
                s += &format!(", threshold_pkts = {}", g.range(0.0, limit as f64));
            }
            let drop = g.boolean();
            s += &format!(", drop_non_ect = {drop} }}");
            (s, if drop { "cw" } else { "cw-pass-non-ect" })
        }
    };
    (table, tag, limit)
}

/// A link rate in bit/s: 64 kb/s to 20 Mb/s, log-uniform.
fn rate_bps(g: &mut Gen) -> u64 {
    g.log_int(64_000, 20_000_000)
}

/// The capacity lines of a direction (`key` is `capacity` or `reverse_capacity`), for kind
/// `kind` (index into [`CAPACITIES`], not HSDPA).
fn capacity(g: &mut Gen, key: &str, kind: usize) -> String {
    let rate = rate_bps(g);
    match kind {
        0 if key == "capacity" => format!("rate = \"{rate}bps\"\n"),
        0 => format!("{key} = {{ kind = \"constant\", rate = \"{rate}bps\" }}\n"),
        1 => {
            let repeat = g.chance(0.6);
            let n = g.int(1, 4);
            let mut at = 0u64;
            let mut steps = Vec::new();
            for i in 0..n {
                // Outages (0 b/s) now and then, never as the last step of a schedule that does
                // not repeat (it would last forever).
                let r = if i > 0 && g.chance(0.3) && (repeat || i + 1 < n) { 0 } else { g.log_int(32_000, rate.max(32_001)) };
                steps.push(format!("{{ at = {}, rate = \"{r}bps\" }}", us(at)));
                at += g.log_int(5_000, 800_000);
            }
            let period = if repeat { format!(", repeat = {}", us(at)) } else { String::new() };
            format!("{key} = {{ kind = \"schedule\", steps = [{}]{period} }}\n", steps.join(", "))
        }
        _ => {
            let bytes = if g.chance(0.7) { 1500 } else { g.log_int(100, 3000) };
            let period_ms = g.log_int(5, 500);
            let n = ((rate as f64 * period_ms as f64 / 1000.0 / (8.0 * bytes as f64)).round() as u64).clamp(1, 2000);
            let mut ts: Vec<u64> = (0..n - 1).map(|_| g.int(0, period_ms)).collect();
            ts.push(period_ms);
            ts.sort_unstable();
            let ts: Vec<String> = ts.iter().map(|t| t.to_string()).collect();
            format!("{key} = {{ kind = \"trace\", opportunities_ms = [{}], opportunity_bytes = {bytes} }}\n", ts.join(", "))
        }
    }
}

/// A random `cc_params` table for window policy `cc` under loss recovery `recovery`, or nothing
/// (most of the time: defaults).
fn cc_params(g: &mut Gen, cc: &str, recovery: &str) -> String {
    if g.chance(0.7) {
        return String::new();
    }
    let t = match cc {
        "westwood" => format!(
            "tau = {}, m = {}, filter = \"{}\"",
            us(g.log_int(10_000, 2_000_000)),
            g.int(3, 10),
            g.pick(&["jersey-eq2", "ucla-ns2"])
        ),
        "westwood-plus" => format!(
            "alpha = {}, min_interval = {}, filter = \"{}\", rtt_min = \"{}\", decrease = \"{}\"",
            g.range(0.0, 0.99),
            us(g.log_int(1_000, 200_000)),
            g.pick(&["ewma", "cascade"]),
            g.pick(&["sample", "srtt"]),
            g.pick(&["westwood", "linux-ns2"])
        ),
        "vegas" => {
            let a = g.range(0.0, 4.0);
            let t = format!("alpha = {a}, beta = {}, gamma = {}, expiry = {}", a + g.range(0.0, 4.0), g.range(0.0, 4.0), g.boolean());
            // ns-2.35's Vegas needs Reno's recovery exit (`Needs::recovery`).
            if recovery == "reno" && g.boolean() {
                t + ", variant = \"ns2\""
            } else {
                t
            }
        }
        "jersey" | "new-jersey" | "nj+" => {
            format!("k = {}, abe_update = \"{}\"", g.log(0.05, 100.0), g.pick(&["per-rtt", "per-ack", "literal"]))
        }
        "prairie" => format!("gamma = {}", g.range(0.0, 5.0)),
        "caiad" => format!("tau = {}, inflate_on_no_congestion = {}", us(g.log_int(10_000, 2_000_000)), g.boolean()),
        "cubic" => format!(
            "c_pkts_per_s3 = {}, beta = {}, fast_convergence = {}, reno_friendly = {}",
            g.log(0.01, 10.0),
            g.range(0.05, 0.95),
            g.boolean(),
            g.boolean()
        ),
        "bbr" => format!(
            "high_gain = {}, cwnd_gain = {}, bw_window_rounds = {}, rtprop_window = {}, probe_rtt_time = {}",
            g.range(1.5, 4.0),
            g.range(1.0, 3.0),
            g.log_int(1, 20),
            us(g.log_int(100_000, 20_000_000)),
            us(g.log_int(1, 1_000_000))
        ),
        _ => return String::new(),
    };
    format!("cc_params = {{ {t} }}\n")
}

/// A `[[flows]]` entry of kind TCP; returns its text and the flows it stands for.
#[allow(clippy::too_many_arguments)]
fn tcp_flow(
    g: &mut Gen,
    name: &str,
    src: usize,
    dst: usize,
    cc: &str,
    recovery: &str,
    duration_us: u64,
    designated: bool,
    tags: &mut Vec<String>,
) -> (String, u64) {
    let mut s = format!("[[flows]]\nkind = \"tcp\"\nname = \"{name}\"\nsrc = \"n{src}\"\ndst = \"n{dst}\"\n");
    s += &format!("cc = \"{cc}\"\nrecovery = \"{recovery}\"\n");
    s += &cc_params(g, cc, recovery);
    let count = if g.chance(0.8) { 1 } else { g.int(2, 3) };
    let direction =
        if designated { g.pick(&["forward", "forward", "forward", "both"]) } else { g.pick(&["forward", "forward", "reverse", "both"]) };
    if count > 1 {
        s += &format!("count = {count}\n");
        tags.push("tcp:count>1".into());
    }
    if direction != "forward" {
        s += &format!("direction = \"{direction}\"\n");
        tags.push(format!("tcp:direction-{direction}"));
    }
    let start = match g.int(0, 19) {
        0..=9 => 0,
        10 => g.int(duration_us * 9 / 10, duration_us * 6 / 5),
        _ => g.int(0, duration_us * 2 / 3),
    };
    s += &format!("start = {}\n", us(start));
    let mut last_start = start;
    if count > 1 && g.boolean() {
        let spacing = g.int(0, 300_000);
        s += &format!("start_spacing = {}\n", us(spacing));
        last_start += (count - 1) * spacing;
    }
    if g.chance(0.2) {
        let jitter = g.int(0, duration_us / 2);
        s += &format!("start_jitter = {}\n", us(jitter));
        last_start += jitter;
        tags.push("tcp:start-jitter".into());
    }
    if g.chance(0.2) {
        s += &format!("stop = {}\n", us(last_start + g.int(1, duration_us)));
        tags.push("tcp:stop".into());
    }
    if g.chance(0.4) {
        let b = if g.chance(0.1) { g.int(1, 100) } else { g.log_int(100, 400_000) };
        s += &format!("bytes = \"{b}B\"\n");
        tags.push("tcp:bytes".into());
    }
    // What the window policy needs (validation would refuse the scenario otherwise).
    let needs = crate::cc::build(cc, None).map(|c| c.needs()).unwrap_or_default();
    let sack = needs.sack || crate::tcp::recovery::find(recovery).is_some_and(|r| r.needs_sack) || g.boolean();
    let timestamps = needs.timestamps || g.boolean();
    let ecn = needs.ecn || g.boolean();
    s += &format!("sack = {sack}\ntimestamps = {timestamps}\necn = {ecn}\n");
    for (on, tag) in [(sack, "sack"), (timestamps, "timestamps"), (ecn, "ecn")] {
        if on {
            tags.push(format!("tcp:{tag}"));
        }
    }
    let mss = if g.chance(0.5) {
        1000
    } else if g.chance(0.05) {
        g.int(1, 199)
    } else {
        g.int(200, 1460)
    };
    s += &format!("mss_bytes = {mss}\nrwnd_pkts = {}\n", g.log_int(1, 200));
    if g.chance(0.3) {
        s += &format!("initial_cwnd_pkts = {}\n", g.int(1, 10));
    }
    if g.chance(0.2) {
        s += &format!("initial_ssthresh_pkts = {}\n", g.log_int(2, 64));
    }
    if g.chance(0.1) {
        s += &format!("max_cwnd_pkts = {}\n", g.log_int(1, 100));
    }
    if g.chance(0.3) {
        s += &format!("dupack_threshold = {}\n", g.int(1, 5));
    }
    let delayed = g.boolean();
    s += &format!("delayed_ack = {delayed}\n");
    if delayed {
        tags.push("tcp:delayed-ack".into());
        if g.boolean() {
            s += &format!("delack_timeout = {}\n", us(g.log_int(1_000, 500_000)));
        }
    }
    let min_rto = if g.boolean() { 200_000 } else { g.log_int(1_000, 1_000_000) };
    s += &format!("min_rto = {}\nmax_rto = {}\n", us(min_rto), us(min_rto + g.log_int(1, 5_000_000)));
    if g.chance(0.4) {
        s += &format!("initial_rto = {}\n", us(g.log_int(10_000, 3_000_000)));
    }
    if g.chance(0.3) {
        s += &format!("clock_granularity = {}\n", us(g.log_int(1, 100_000)));
    }
    let options: [(&str, [&str; 2]); 10] = [
        ("partial_ack_timer", ["\"impatient\"", "\"slow-but-steady\""]),
        ("limited_transmit", ["true", "false"]),
        ("rtt_sampling", ["\"timed-segment\"", "\"every-ack\""]),
        ("fast_retransmit_restarts_rto", ["true", "false"]),
        ("fast_retransmit_rto_backoff", ["false", "true"]),
        ("recover_ack_heuristic", ["false", "true"]),
        ("rto_restart", ["\"new-ack\"", "\"every-ack\""]),
        ("rtt_sample_duplicate_acks", ["false", "true"]),
        ("rto_estimator", ["\"rfc6298\"", "\"linux\""]),
        ("rto_undo", ["\"none\"", "\"eifel\""]),
    ];
    for (key, [default, other]) in options {
        // The non-default value a third of the time, the default written out or left implicit.
        match g.int(0, 5) {
            // Eifel detection reads timestamps: without them the option is (rightly) refused.
            0 | 1 if key == "rto_undo" && !timestamps => s += &format!("{key} = {default}\n"),
            0 | 1 => {
                s += &format!("{key} = {other}\n");
                tags.push(format!("tcp:{key}={}", other.trim_matches('"')));
            }
            2 => s += &format!("{key} = {default}\n"),
            _ => {}
        }
    }
    let flows = count * if direction == "both" { 2 } else { 1 };
    (s, flows)
}

/// A UDP `[[flows]]` entry (CBR, on/off or VoIP) and its tag.
fn udp_flow(g: &mut Gen, name: &str, src: usize, dst: usize, duration_us: u64) -> (String, &'static str) {
    let mut s = format!("[[flows]]\nname = \"{name}\"\nsrc = \"n{src}\"\ndst = \"n{dst}\"\n");
    let start = if g.boolean() { 0 } else { g.int(0, duration_us * 2 / 3) };
    let window = |g: &mut Gen, s: &mut String| {
        *s += &format!("start = {}\n", us(start));
        if g.chance(0.3) {
            *s += &format!("stop = {}\n", us(start + g.int(1, duration_us)));
        }
    };
    let kind = g.int(0, 3);
    let tag = match kind {
        0 | 1 => {
            s += &format!("kind = \"cbr\"\npacket_bytes = {}\n", g.log_int(1, 1500));
            if kind == 0 {
                s += &format!("rate = \"{}bps\"\n", g.log_int(8_000, 3_000_000));
                window(g, &mut s);
                "cbr"
            } else {
                let mut at = 0;
                let mut steps = Vec::new();
                for _ in 0..g.int(1, 4) {
                    let r = if g.chance(0.3) { 0 } else { g.log_int(8_000, 3_000_000) };
                    steps.push(format!("{{ at = {}, rate = \"{r}bps\" }}", us(at)));
                    at += g.log_int(1_000, duration_us);
                }
                s += &format!("schedule = [{}]\n", steps.join(", "));
                "cbr-schedule"
            }
        }
        2 => {
            s += &format!(
                "kind = \"onoff\"\nrate = \"{}bps\"\npacket_bytes = {}\nmean_on = {}\nmean_off = {}\n",
                g.log_int(4_000, 2_000_000),
                g.log_int(1, 1500),
                us(g.log_int(1_000, 2_000_000)),
                us(g.log_int(1_000, 2_000_000))
            );
            window(g, &mut s);
            "onoff"
        }
        _ => {
            s += &format!(
                "kind = \"voip\"\nsources = {}\ncall_interarrival = {}\ncall_duration = {}\nrate = \"{}bps\"\npacket_bytes = {}\nmean_on = {}\nmean_off = {}\n",
                g.log_int(1, 20),
                us(g.log_int(10_000, 2_000_000)),
                us(g.log_int(10_000, 5_000_000)),
                g.log_int(4_000, 200_000),
                g.log_int(1, 500),
                us(g.log_int(1_000, 1_000_000)),
                us(g.log_int(1_000, 1_000_000))
            );
            window(g, &mut s);
            "voip"
        }
    };
    (s, tag)
}

/// Generates run `index` of the campaign seeded `campaign_seed`.
pub fn case(campaign_seed: u64, index: u64) -> Case {
    let mut g = Gen(RngStream::new(campaign_seed, &format!("campaign:{index}")));
    let d = combination(index);
    let seed = g.int(0, u32::MAX as u64);
    let mut tags: Vec<String> = Vec::new();
    // Mostly 1–5 s, in whole milliseconds or not; now and then a very short run.
    let duration_us = match g.int(0, 19) {
        0 => g.log_int(1, 100_000),
        1..=13 => g.int(1_000, 5_000) * 1000,
        _ => g.int(1_000_000, 5_000_000),
    };
    let mut s = format!("name = \"campaign-{index}\"\nseed = {seed}\nduration = {}\n", us(duration_us));
    // A third of the runs sample at their very end.
    let sample_us = if g.chance(0.33) {
        let divisors: Vec<u64> = (1..=2000).filter(|k| duration_us % k == 0 && (duration_us / k >= 1_000 || *k == 1)).collect();
        duration_us / g.pick(&divisors)
    } else {
        g.log_int(1_000, 10_000_000)
    };
    s += &format!("sample_interval = {}\n", us(sample_us));
    if g.boolean() {
        s += &format!("warmup = {}\n", us(g.int(0, duration_us - 1)));
    }
    // Topology: n0 - n1 (the designated link), a random tree over the other nodes, and sometimes
    // a link that closes a cycle (one-way or duplex).
    let n = g.int(2, 5) as usize;
    tags.push(format!("topology:{n}-nodes"));
    s += &format!("nodes = [{}]\n", (0..n).map(|i| format!("\"n{i}\"")).collect::<Vec<_>>().join(", "));
    let mut edges: Vec<(usize, usize, bool)> = vec![(0, 1, true)];
    for i in 2..n {
        let parent = g.int(0, i as u64 - 1) as usize;
        edges.push(if g.boolean() { (parent, i, true) } else { (i, parent, true) });
    }
    if n >= 3 && g.chance(0.3) {
        let (a, b) = (g.int(0, n as u64 - 1) as usize, g.int(0, n as u64 - 1) as usize);
        if a != b && !edges.iter().any(|&(x, y, _)| (x, y) == (a, b) || (x, y) == (b, a)) {
            let duplex = g.chance(0.6);
            edges.push((a, b, duplex));
            tags.push(if duplex { "topology:cycle".into() } else { "topology:one-way-link".into() });
        }
    }
    let (mut constant_links, mut queue_limits) = (Vec::new(), Vec::new());
    for (li, &(a, b, duplex)) in edges.iter().enumerate() {
        s += &format!("[[links]]\nfrom = \"n{a}\"\nto = \"n{b}\"\ndelay = {}\n", us(if g.chance(0.1) { 0 } else { g.log_int(1, 50_000) }));
        if !duplex {
            s += "duplex = false\n";
        }
        let (cap_kind, chan_kind, corruption, queue_kind) = if li == 0 {
            (d.capacity, d.channel, d.corruption, d.queue)
        } else {
            let cap = if g.chance(0.7) { 0 } else { g.int(1, 2) as usize };
            let chan = g.int(0, 4) as usize;
            (cap, chan, g.boolean(), g.int(0, 2) as usize)
        };
        let hsdpa = cap_kind == 3;
        let (q, qtag, limit) = queue(&mut g, queue_kind);
        s += &format!("queue = {q}\n");
        tags.push(format!("queue:{qtag}"));
        let mut reverse_limit = limit;
        if duplex && g.chance(0.2) {
            let kind = g.int(0, 2) as usize;
            let (rq, rtag, l) = queue(&mut g, kind);
            s += &format!("reverse_queue = {rq}\n");
            tags.push(format!("queue:{rtag}"));
            reverse_limit = l;
        }
        tags.push(format!("capacity:{}", CAPACITIES[cap_kind]));
        let mut reverse_constant = cap_kind == 0;
        if hsdpa {
            s += &format!(
                "capacity = {{ kind = \"hsdpa\", scheduler = \"{}\", max_ues_per_tti = {}, harq_max_tx = {}, sdu_discard = {} }}\n",
                g.pick(&["pf", "rr", "max_ci"]),
                g.int(1, 4),
                g.int(1, 4),
                us(g.log_int(20_000, 1_000_000))
            );
            let kind = if g.chance(0.7) { 0 } else { g.int(1, 2) as usize };
            s += &capacity(&mut g, "reverse_capacity", kind);
            reverse_constant = kind == 0;
        } else {
            s += &capacity(&mut g, "capacity", cap_kind);
            if duplex && g.chance(0.15) {
                let kind = g.int(0, 2) as usize;
                s += &capacity(&mut g, "reverse_capacity", kind);
                tags.push(format!("capacity:{}", CAPACITIES[kind]));
                reverse_constant = kind == 0;
            }
            s += &format!("channel = {}\n", channel(&mut g, chan_kind, corruption, 0.3));
            tags.push(format!("channel:{}", CHANNELS[chan_kind]));
            if chan_kind > 0 {
                tags.push(format!("effect:{}", if corruption { "corruption" } else { "loss" }));
            }
        }
        if duplex && g.chance(0.4) {
            let (kind, corrupt) = (g.int(1, 4) as usize, g.boolean());
            s += &format!("reverse_channel = {}\n", channel(&mut g, kind, corrupt, 0.1));
            tags.push(format!("channel:{}", CHANNELS[kind]));
            tags.push(format!("effect:{}", if corrupt { "corruption" } else { "loss" }));
        }
        if g.chance(0.2) {
            s += &format!(
                "link_retransmission = true\nlink_retransmission_max = {}\nlink_retransmission_timeout = {}\n",
                g.int(1, 10),
                us(g.log_int(1_000, 200_000))
            );
            tags.push("link:retransmission".into());
        }
        // An HSDPA cell's utilization is its busy TTIs' share, at most 1 like a constant rate's.
        constant_links.push(cap_kind == 0 || hsdpa);
        queue_limits.push(if hsdpa { 0 } else { limit });
        if duplex {
            constant_links.push(reverse_constant);
            queue_limits.push(reverse_limit);
        }
    }
    // Flows: the designated TCP flow n0 -> n1, then up to three more of any kind.
    let cc = crate::cc::NAMES[d.cc];
    let recovery = recoveries()[d.recovery];
    let (f0, mut tcp_flows) = tcp_flow(&mut g, "f0", 0, 1, cc, recovery, duration_us, true, &mut tags);
    s += &f0;
    tags.push(format!("cc:{cc}"));
    tags.push(format!("recovery:{recovery}"));
    tags.push("traffic:tcp".into());
    for k in 1..=g.int(0, 3) {
        let src = g.int(0, n as u64 - 1) as usize;
        let dst = (src + g.int(1, n as u64 - 1) as usize) % n;
        let name = format!("f{k}");
        if g.chance(0.65) && tcp_flows < 6 {
            let (cc, rec) = (g.pick(crate::cc::NAMES), g.pick(recoveries()));
            let (text, flows) = tcp_flow(&mut g, &name, src, dst, cc, rec, duration_us, false, &mut tags);
            s += &text;
            tcp_flows += flows;
            tags.push(format!("cc:{cc}"));
            tags.push(format!("recovery:{rec}"));
            tags.push("traffic:tcp".into());
        } else {
            let (text, tag) = udp_flow(&mut g, &name, src, dst, duration_us);
            s += &text;
            tags.push(format!("traffic:{tag}"));
        }
    }
    tags.sort();
    tags.dedup();
    let sample_at_end = duration_us % sample_us == 0;
    if sample_at_end {
        tags.push("sampling:last-sample-at-end".into());
    }
    Case { index, seed, toml: s, tags, combo: d.combo, constant_links, queue_limits, sample_at_end, cut_check: true }
}

/// What a violation broke (see the module docs for each).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// The engine refused the generated scenario (a generator bug, not an engine one).
    Invalid,
    /// The run panicked.
    Panic,
    /// The run did not end at its duration.
    EndTime,
    /// A flow delivered, acknowledged or received more than was sent or offered.
    Delivered,
    /// A TCP byte stream was not delivered exactly once and in order.
    ByteStream,
    /// A link's packets do not balance.
    Conservation,
    /// A figure is negative, NaN, infinite or out of its range.
    Metric,
    /// A series column decreased, passed its total or its limit.
    Series,
    /// Cut-through changed the output.
    CutThrough,
}

impl Kind {
    /// Every kind, in report order.
    pub const ALL: [Kind; 9] = [
        Kind::Invalid,
        Kind::Panic,
        Kind::EndTime,
        Kind::Delivered,
        Kind::ByteStream,
        Kind::Conservation,
        Kind::Metric,
        Kind::Series,
        Kind::CutThrough,
    ];

    /// The kind's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Invalid => "invalid",
            Kind::Panic => "panic",
            Kind::EndTime => "end-time",
            Kind::Delivered => "delivered",
            Kind::ByteStream => "byte-stream",
            Kind::Conservation => "conservation",
            Kind::Metric => "metric",
            Kind::Series => "series",
            Kind::CutThrough => "cut-through",
        }
    }
}

/// One broken invariant of one run.
#[derive(Debug, Clone)]
pub struct Violation {
    /// Which invariant.
    pub kind: Kind,
    /// The run's index in the campaign.
    pub index: u64,
    /// What was found, in one line.
    pub detail: String,
}

/// Collects a run's violations: the first of each kind (a broken invariant tends to break on
/// every later sample too), with a count of the further ones.
struct Checker<'a> {
    index: u64,
    out: &'a mut Vec<Violation>,
    more: BTreeMap<Kind, u64>,
}

impl Checker<'_> {
    fn fail(&mut self, kind: Kind, detail: String) {
        if self.out.iter().any(|v| v.kind == kind) {
            *self.more.entry(kind).or_default() += 1;
        } else {
            self.out.push(Violation { kind, index: self.index, detail });
        }
    }

    /// Notes the further failures of each kind on its first.
    fn finish(self) {
        for v in self.out.iter_mut() {
            if let Some(n) = self.more.get(&v.kind) {
                v.detail += &format!(" (and {n} more of this kind in this run)");
            }
        }
    }
    fn ensure(&mut self, ok: bool, kind: Kind, detail: impl FnOnce() -> String) {
        if !ok {
            self.fail(kind, detail());
        }
    }
    /// A figure that must be finite and ≥ 0.
    fn figure(&mut self, x: f64, what: impl FnOnce() -> String) {
        self.ensure(x.is_finite() && x >= 0.0, Kind::Metric, || format!("{} = {x}", what()));
    }
    /// Delay percentiles p50, p95, p99 of one flow: all present or all absent, finite, ordered,
    /// and none below `floor_s` (the smallest sample) by more than the histogram's 1% and its
    /// microsecond rounding (`metrics::delay`).
    fn percentiles(&mut self, name: &str, what: &str, p: [Option<f64>; 3], floor_s: f64) {
        match p {
            [None, None, None] => {}
            [Some(a), Some(b), Some(c)] => {
                for (x, q) in [(a, 50), (b, 95), (c, 99)] {
                    self.figure(x, || format!("flow {name}: {what}_p{q}_s"));
                }
                self.ensure(a <= b && b <= c, Kind::Metric, || format!("flow {name}: {what} percentiles {a} {b} {c} out of order"));
                self.ensure(a >= floor_s * 0.99 - 1e-6, Kind::Metric, || {
                    format!("flow {name}: {what}_p50_s {a} below the smallest sample {floor_s}")
                });
            }
            _ => self.fail(Kind::Metric, format!("flow {name}: {what} percentiles partly null: {p:?}")),
        }
    }
    /// A fraction: finite and in [0, 1] (with rounding slack).
    fn fraction(&mut self, x: f64, what: impl FnOnce() -> String) {
        self.ensure(x.is_finite() && (0.0..=1.0 + 1e-9).contains(&x), Kind::Metric, || format!("{} = {x} (not in [0, 1])", what()));
    }
}

/// The run's output as JSON with the event count taken out (what cut-through may change).
fn comparable(out: &crate::RunOutput) -> String {
    let mut o = out.clone();
    o.summary.events = 0;
    serde_json::to_string(&o).unwrap_or_default()
}

/// Runs one case and checks every invariant; returns the violations found and the run's event
/// count.
pub fn check(case: &Case) -> (Vec<Violation>, u64) {
    let mut out = Vec::new();
    let mut c = Checker { index: case.index, out: &mut out, more: BTreeMap::new() };
    let scenario = match crate::scenario::parse(&case.toml) {
        Ok(s) => s,
        Err(e) => {
            c.fail(Kind::Invalid, e.to_string());
            c.finish();
            return (out, 0);
        }
    };
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| -> Result<_, String> {
        let mut sim = Simulator::build(&scenario, case.seed).map_err(|e| e.to_string())?;
        sim.enable_audit();
        // A run over one of the scenario's `limits` is an error like an invalid scenario.
        let out = sim.run().map_err(|e| e.to_string())?;
        let event_by_event = if case.cut_check {
            let mut reference = Simulator::build(&scenario, case.seed).expect("built once");
            reference.disable_cut_through();
            Some(reference.run().map_err(|e| e.to_string())?)
        } else {
            None
        };
        Ok((sim, out, event_by_event))
    }));
    let (sim, run, reference) = match run {
        Ok(Ok(x)) => x,
        Ok(Err(e)) => {
            c.fail(Kind::Invalid, e);
            c.finish();
            return (out, 0);
        }
        Err(p) => {
            let msg = p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()));
            c.fail(Kind::Panic, msg.unwrap_or_else(|| "a panic without a message".into()));
            c.finish();
            return (out, 0);
        }
    };
    let end_ns = scenario.duration.as_nanos();
    let s = &run.summary;
    c.ensure(s.end_time_s == crate::time::ns_to_s(end_ns) && sim.now() == end_ns, Kind::EndTime, || {
        format!("ended at {} s / {} ns, duration {end_ns} ns", s.end_time_s, sim.now())
    });
    c.figure(s.warmup_s, || "warmup_s".into());
    let tcp = s.flows.iter().filter(|f| f.kind == "tcp").count();
    match s.jain_fairness_tcp {
        Some(j) => c.fraction(j, || "jain_fairness_tcp".into()),
        None => c.ensure(tcp == 0, Kind::Metric, || "jain_fairness_tcp missing with TCP flows".into()),
    }
    let audit = sim.audit().expect("audit enabled");
    for (i, f) in s.flows.iter().enumerate() {
        let name = &f.name;
        match sim.tcp_state(i) {
            Some((app_limit, snd_max, snd_una)) => {
                let mut next = 0u64;
                for &(a, b) in &audit[i] {
                    if a != next || b <= a {
                        c.fail(Kind::ByteStream, format!("flow {name}: delivery [{a}, {b}) after {next} delivered"));
                        break;
                    }
                    next = b;
                }
                c.ensure(next == f.delivered_bytes, Kind::ByteStream, || {
                    format!("flow {name}: deliveries tile [0, {next}) but delivered_bytes = {}", f.delivered_bytes)
                });
                c.ensure(f.delivered_bytes <= snd_max && snd_max <= app_limit && snd_max == f.sent_bytes, Kind::Delivered, || {
                    format!("flow {name}: delivered {} sent {} (snd_max {snd_max}) offered {app_limit}", f.delivered_bytes, f.sent_bytes)
                });
                c.ensure(snd_una <= f.delivered_bytes && f.acked_bytes == snd_una, Kind::Delivered, || {
                    format!("flow {name}: acked {} snd_una {snd_una} delivered {}", f.acked_bytes, f.delivered_bytes)
                });
                c.ensure(f.retransmissions <= f.packets_sent && f.packets_received <= f.packets_sent, Kind::Delivered, || {
                    format!(
                        "flow {name}: {} segments sent, {} of them retransmissions, {} received",
                        f.packets_sent, f.retransmissions, f.packets_received
                    )
                });
                // RTT figures: present exactly when the flow took samples (null, never 0.0, without).
                for (x, what) in [(f.mean_rtt_s, "mean_rtt_s"), (f.min_rtt_s, "min_rtt_s"), (f.mean_rto_s, "mean_rto_s")] {
                    match (x, f.rtt_samples > 0) {
                        (Some(x), true) => c.figure(x, || format!("flow {name}: {what}")),
                        (None, false) => {}
                        (x, _) => c.fail(Kind::Metric, format!("flow {name}: {what} {x:?} with {} RTT samples", f.rtt_samples)),
                    }
                }
                // Percentiles: no UDP figures on a TCP flow; TCP's none without samples; ordered; none
                // below the smallest sample (by more than the histogram's 1% and its µs rounding).
                c.ensure(f.owd_p50_s.is_none() && f.jitter_s.is_none(), Kind::Metric, || {
                    format!("flow {name}: UDP delay figures on a TCP flow")
                });
                c.ensure(f.rtt_p50_s.is_none() || f.rtt_samples > 0, Kind::Metric, || {
                    format!("flow {name}: an RTT percentile without samples")
                });
                c.percentiles(name, "rtt", [f.rtt_p50_s, f.rtt_p95_s, f.rtt_p99_s], f.min_rtt_s.unwrap_or(0.0));
            }
            None => {
                let p = f.segment_bytes as u64;
                c.ensure(
                    f.packets_received + f.corrupted_received <= f.packets_sent
                        && f.delivered_bytes == f.packets_received * p
                        && f.sent_bytes == f.packets_sent * p,
                    Kind::Delivered,
                    || {
                        format!(
                            "flow {name}: sent {} datagrams ({} B), received {} ({} B) and {} corrupted, {p} B each",
                            f.packets_sent, f.sent_bytes, f.packets_received, f.delivered_bytes, f.corrupted_received
                        )
                    },
                );
                c.ensure(f.rtt_p50_s.is_none(), Kind::Metric, || format!("flow {name}: an RTT percentile on a UDP flow"));
                c.ensure(f.mean_rtt_s.is_none() && f.min_rtt_s.is_none() && f.mean_rto_s.is_none(), Kind::Metric, || {
                    format!("flow {name}: RTT figures on a UDP flow")
                });
                c.ensure(f.owd_p50_s.is_none() || f.packets_received > 0, Kind::Metric, || {
                    format!("flow {name}: a one-way delay without datagrams")
                });
                c.ensure(f.jitter_s.is_none() || f.packets_received >= 2, Kind::Metric, || {
                    format!("flow {name}: jitter from fewer than two datagrams")
                });
                if let Some(j) = f.jitter_s {
                    c.figure(j, || format!("flow {name}: jitter_s"));
                }
                c.percentiles(name, "owd", [f.owd_p50_s, f.owd_p95_s, f.owd_p99_s], 0.0);
            }
        }
        c.figure(f.goodput_bps, || format!("flow {name}: goodput_bps"));
        c.figure(f.goodput_acked_bps, || format!("flow {name}: goodput_acked_bps"));
        if let Some(h) = &f.hsdpa {
            c.ensure(h.geometry_db.is_finite(), Kind::Metric, || format!("flow {name}: hsdpa geometry_db = {}", h.geometry_db));
            c.figure(h.mean_cqi, || format!("flow {name}: hsdpa mean_cqi"));
            c.fraction(h.first_tx_bler, || format!("flow {name}: hsdpa first_tx_bler"));
            c.figure(h.decoded_bps, || format!("flow {name}: hsdpa decoded_bps"));
        }
    }
    for (li, l) in s.links.iter().enumerate() {
        let name = &l.name;
        let right = l.arrived_packets + l.overflow_drops + l.early_drops + l.lost_packets + l.held_packets;
        c.ensure(l.offered_packets == right, Kind::Conservation, || {
            format!(
                "link {name}: offered {} != arrived {} + overflow {} + early {} + lost {} + held {}",
                l.offered_packets, l.arrived_packets, l.overflow_drops, l.early_drops, l.lost_packets, l.held_packets
            )
        });
        c.ensure(l.lost_packets <= l.channel_losses && l.arrived_packets + l.lost_packets <= l.packets_sent, Kind::Conservation, || {
            format!(
                "link {name}: arrived {} + lost {} (channel losses {}) against {} sent",
                l.arrived_packets, l.lost_packets, l.channel_losses, l.packets_sent
            )
        });
        c.ensure(l.ce_marks + l.overflow_drops + l.early_drops <= l.offered_packets, Kind::Conservation, || {
            format!(
                "link {name}: {} CE marks and {} drops of {} packets offered",
                l.ce_marks,
                l.overflow_drops + l.early_drops,
                l.offered_packets
            )
        });
        c.figure(l.delay_s, || format!("link {name}: delay_s"));
        if case.constant_links.get(li).copied().unwrap_or(false) {
            c.fraction(l.utilization, || format!("link {name}: utilization"));
        } else {
            c.figure(l.utilization, || format!("link {name}: utilization"));
        }
    }
    check_series(&mut c, case, &run, end_ns);
    if let Some(reference) = reference {
        let (a, b) = (comparable(&run), comparable(&reference));
        if a != b {
            let at = a.bytes().zip(b.bytes()).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()));
            let lo = at.saturating_sub(80);
            c.fail(
                Kind::CutThrough,
                format!("outputs differ at byte {at}: cut …{}… event …{}…", &a[lo..(at + 40).min(a.len())], &b[lo..(at + 40).min(b.len())]),
            );
        }
    }
    c.finish();
    (out, run.summary.events)
}

/// The series: finite non-negative figures (NaN exactly where a column has no value), cumulative
/// columns that never decrease and end at most at the summary's totals.
fn check_series(c: &mut Checker, case: &Case, run: &crate::RunOutput, end_ns: u64) {
    let fs = &run.flow_series;
    let end_s = crate::time::ns_to_s(end_ns);
    let nf = fs.flow_names.len();
    let mut last: Vec<Option<(u64, u64, u64)>> = vec![None; nf];
    for i in 0..fs.time_s.len() {
        let f = fs.flow[i] as usize;
        let name = &fs.flow_names[f];
        let t = fs.time_s[i];
        c.ensure(t.is_finite() && (0.0..=end_s).contains(&t), Kind::Metric, || format!("flow series time_s = {t}"));
        c.figure(fs.goodput_bps[i], || format!("flow {name} series goodput_bps at {t}"));
        if fs.is_tcp(i) {
            c.figure(fs.srtt_s[i], || format!("flow {name} series srtt_s at {t}"));
            c.figure(fs.rto_s[i], || format!("flow {name} series rto_s at {t}"));
        } else {
            c.ensure(fs.srtt_s[i].is_nan() && fs.rto_s[i].is_nan() && fs.bwe_bps[i].is_nan(), Kind::Metric, || {
                format!("UDP flow {name} series has TCP values at {t}")
            });
        }
        let bwe = fs.bwe_bps[i];
        c.ensure(bwe.is_nan() || (bwe.is_finite() && bwe >= 0.0), Kind::Metric, || format!("flow {name} series bwe_bps = {bwe} at {t}"));
        for col in &fs.estimates {
            let v = col.values.get(i).copied().unwrap_or(f64::INFINITY);
            c.ensure(v.is_nan() || v.is_finite(), Kind::Metric, || format!("flow {name} series {} = {v} at {t}", col.name));
            c.ensure(fs.is_tcp(i) || v.is_nan(), Kind::Metric, || format!("UDP flow {name} series has {} = {v} at {t}", col.name));
        }
        let now = (fs.sent_bytes[i], fs.delivered_bytes[i], fs.acked_bytes[i]);
        if let Some(prev) = last[f] {
            c.ensure(now.0 >= prev.0 && now.1 >= prev.1 && now.2 >= prev.2, Kind::Series, || {
                format!("flow {name}: (sent, delivered, acked) went from {prev:?} to {now:?} at {t}")
            });
        }
        last[f] = Some(now);
    }
    for (f, l) in last.iter().enumerate() {
        let (Some(l), Some(s)) = (l, run.summary.flows.get(f)) else { continue };
        let totals = (s.sent_bytes, s.delivered_bytes, s.acked_bytes);
        let ok = if case.sample_at_end { *l == totals } else { l.0 <= totals.0 && l.1 <= totals.1 && l.2 <= totals.2 };
        c.ensure(ok, Kind::Series, || format!("flow {}: last sample (sent, delivered, acked) {l:?}, summary {totals:?}", s.name));
    }
    let ls = &run.link_series;
    let mut last: Vec<Option<(u64, u64)>> = vec![None; ls.link_names.len()];
    for i in 0..ls.time_s.len() {
        let l = ls.link[i] as usize;
        let name = &ls.link_names[l];
        let t = ls.time_s[i];
        c.ensure(t.is_finite() && (0.0..=end_s).contains(&t), Kind::Metric, || format!("link series time_s = {t}"));
        c.figure(ls.avg_queue_pkts[i], || format!("link {name} series avg_queue_pkts at {t}"));
        let limit = case.queue_limits.get(l).copied().unwrap_or(0);
        c.ensure(limit == 0 || ls.queue_pkts[i] as u64 <= limit, Kind::Series, || {
            format!("link {name}: {} packets queued at {t}, limit {limit}", ls.queue_pkts[i])
        });
        let now = (ls.drops[i], ls.ce_marks[i]);
        if let Some(prev) = last[l] {
            c.ensure(now.0 >= prev.0 && now.1 >= prev.1, Kind::Series, || {
                format!("link {name}: (drops, ce_marks) went from {prev:?} to {now:?} at {t}")
            });
        }
        last[l] = Some(now);
    }
    for (l, v) in last.iter().enumerate() {
        let (Some(v), Some(s)) = (v, run.summary.links.get(l)) else { continue };
        let totals = (s.overflow_drops + s.early_drops + s.channel_losses, s.ce_marks);
        let ok = if case.sample_at_end { *v == totals } else { v.0 <= totals.0 && v.1 <= totals.1 };
        c.ensure(ok, Kind::Series, || format!("link {}: last sample (drops, ce_marks) {v:?}, summary {totals:?}", s.name));
    }
}

/// What a campaign found.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Runs done.
    pub runs: u64,
    /// Every violation, by run index.
    pub violations: Vec<Violation>,
    /// Per coverage category (see [`Case::tags`]): the runs that exercised it.
    pub coverage: BTreeMap<String, u64>,
    /// Per combination (see [`combinations`]): the runs that took it.
    pub combos: Vec<u64>,
    /// Runs repeated event by event (cut-through off) for the `cut-through` check.
    pub cut_checked: u64,
    /// Simulated events over all runs.
    pub events: u64,
    /// The slowest run: (index, wall seconds).
    pub slowest: (u64, f64),
}

impl Report {
    fn merge(mut self, o: Report) -> Report {
        self.runs += o.runs;
        self.violations.extend(o.violations);
        for (k, v) in o.coverage {
            *self.coverage.entry(k).or_default() += v;
        }
        if self.combos.len() < o.combos.len() {
            self.combos.resize(o.combos.len(), 0);
        }
        for (i, v) in o.combos.iter().enumerate() {
            self.combos[i] += v;
        }
        self.cut_checked += o.cut_checked;
        self.events += o.events;
        if o.slowest.1 > self.slowest.1 {
            self.slowest = o.slowest;
        }
        self
    }

    /// Violations per kind, every kind listed.
    pub fn by_kind(&self) -> Vec<(Kind, u64)> {
        Kind::ALL.iter().map(|&k| (k, self.violations.iter().filter(|v| v.kind == k).count() as u64)).collect()
    }

    /// The coverage, one line per category group ("cc: reno 9091, ...").
    pub fn coverage_lines(&self) -> Vec<String> {
        let mut groups: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        for (k, v) in &self.coverage {
            let (group, value) = k.split_once(':').unwrap_or(("other", k));
            groups.entry(group).or_default().push(format!("{value} {v}"));
        }
        let mut lines: Vec<String> = groups.into_iter().map(|(g, vs)| format!("{g}: {}", vs.join(", "))).collect();
        let covered = self.combos.iter().filter(|&&n| n > 0).count();
        let min = self.combos.iter().copied().min().unwrap_or(0);
        lines.push(format!(
            "combinations (window policy × recovery × queue × capacity/channel/effect of the first flow and link): {covered} of {} covered, each at least {min} times",
            self.combos.len()
        ));
        lines
    }
}

/// Runs cases `from .. from + runs` of the campaign seeded `seed` on `jobs` threads (0: all
/// cores), each repeated event by event. The report does not depend on `jobs`.
pub fn run(seed: u64, from: u64, runs: u64, jobs: usize) -> Report {
    run_cut_every(seed, from, runs, jobs, 1)
}

/// [`run`] repeating only every `cut_every`-th run event by event (the runs whose index is
/// `cut_every - 1` modulo it; 0: none): the comparison doubles a run's cost.
pub fn run_cut_every(seed: u64, from: u64, runs: u64, jobs: usize, cut_every: u64) -> Report {
    use rayon::prelude::*;
    let n = combinations() as usize;
    let one = |index: u64| -> Report {
        let mut case = case(seed, index);
        case.cut_check = cut_every != 0 && index % cut_every == cut_every - 1;
        let t0 = std::time::Instant::now();
        let (violations, events) = check(&case);
        let wall = t0.elapsed().as_secs_f64();
        let mut combos = vec![0; n];
        combos[case.combo] += 1;
        Report {
            runs: 1,
            violations,
            coverage: case.tags.iter().map(|t| (t.clone(), 1)).collect(),
            combos,
            cut_checked: case.cut_check as u64,
            events,
            slowest: (index, wall),
        }
    };
    let empty = || Report { combos: vec![0; n], ..Report::default() };
    let all = || (from..from + runs).into_par_iter().map(one).reduce(empty, Report::merge);
    let mut report = match rayon::ThreadPoolBuilder::new().num_threads(jobs).build() {
        Ok(pool) => pool.install(all),
        Err(_) => (from..from + runs).map(one).fold(empty(), Report::merge),
    };
    report.violations.sort_by_key(|v| (v.index, v.kind));
    report
}

/// The campaign's one-line figure: runs, violations by kind, wall time and rate.
pub fn figure(report: &Report, seed: u64, jobs: usize, wall_s: f64) -> String {
    let kinds: Vec<String> = report.by_kind().iter().map(|(k, n)| format!("{} {n}", k.name())).collect();
    format!(
        "campaign: {} runs (seed {seed}, {jobs} job(s)), {} violations ({}), {:.1} s wall, {:.0} runs/s, slowest run #{} {:.3} s, {} runs repeated event by event",
        report.runs,
        report.violations.len(),
        kinds.join(", "),
        wall_s,
        report.runs as f64 / wall_s.max(1e-9),
        report.slowest.0,
        report.slowest.1,
        report.cut_checked
    )
}

/// A violation with what it takes to reproduce it: the scenario text (whose `seed` is the run's).
pub fn describe(seed: u64, v: &Violation) -> String {
    let case = case(seed, v.index);
    let mut s = String::new();
    let _ = writeln!(s, "violation [{}] run #{} (campaign seed {seed}, run seed {}): {}", v.kind.name(), v.index, case.seed, v.detail);
    let _ = writeln!(s, "reproduce: cargo run --profile test -p airtcp --example campaign -- --seed {seed} --only {}", v.index);
    let _ = writeln!(s, "--- scenario (airtcp run FILE.toml) ---\n{}---", case.toml);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The combination map is a bijection on any `combinations()` consecutive indices, and a
    /// short slice already takes every value of each part.
    #[test]
    fn combinations_are_a_bijection() {
        let n = combinations();
        assert_eq!(n, 8064, "the module docs count the combinations");
        let key = |d: Designated| (d.cc, d.recovery, d.queue, d.capacity, d.channel, d.corruption);
        let distinct: std::collections::HashSet<_> = (17..17 + n).map(|i| key(combination(i))).collect();
        assert_eq!(distinct.len() as u64, n);
        let slice: Vec<Designated> = (0..300).map(combination).collect();
        assert_eq!(slice.iter().map(|d| d.cc).collect::<std::collections::HashSet<_>>().len(), crate::cc::NAMES.len());
        assert_eq!(slice.iter().map(|d| d.recovery).collect::<std::collections::HashSet<_>>().len(), recoveries().len());
        assert_eq!(
            slice.iter().map(|d| (d.capacity, d.channel, d.corruption)).collect::<std::collections::HashSet<_>>().len(),
            LINK_VARIANTS
        );
    }

    /// A case is a pure function of (campaign seed, index).
    #[test]
    fn cases_are_reproducible() {
        assert_eq!(case(3, 41).toml, case(3, 41).toml);
        assert_ne!(case(3, 41).toml, case(4, 41).toml);
    }
}
