//! The generator's parts: a channel, queue, capacity, link and flow table each, drawn from a run's
//! random stream.

use airtcp::engine::RngStream;

/// A random stream with the draws the generator needs.
pub(crate) struct Gen(pub(crate) RngStream);

impl Gen {
    pub(crate) fn unit(&mut self) -> f64 {
        self.0.uniform()
    }
    pub(crate) fn chance(&mut self, p: f64) -> bool {
        self.0.bernoulli(p)
    }
    /// Uniform integer in [lo, hi] (`lo` when hi < lo, as for a range scaled by a short run).
    pub(crate) fn int(&mut self, lo: u64, hi: u64) -> u64 {
        let hi = hi.max(lo);
        lo + ((self.unit() * (hi - lo + 1) as f64) as u64).min(hi - lo)
    }
    pub(crate) fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + self.unit() * (hi - lo)
    }
    /// Log-uniform in [lo, hi] (lo > 0): small and large magnitudes alike.
    pub(crate) fn log(&mut self, lo: f64, hi: f64) -> f64 {
        (lo.ln() + self.unit() * (hi.ln() - lo.ln())).exp()
    }
    pub(crate) fn log_int(&mut self, lo: u64, hi: u64) -> u64 {
        let hi = hi.max(lo);
        (self.log(lo as f64, hi as f64 + 1.0).floor() as u64).clamp(lo, hi)
    }
    pub(crate) fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.int(0, xs.len() as u64 - 1) as usize]
    }
    pub(crate) fn boolean(&mut self) -> bool {
        self.chance(0.5)
    }
}

/// A duration in whole microseconds, as scenario text.
pub(crate) fn us(x: u64) -> String {
    format!("\"{x}us\"")
}

/// An error probability: mostly moderate, sometimes zero, rarely certain.
pub(crate) fn error_rate(g: &mut Gen, max: f64) -> f64 {
    match g.int(0, 19) {
        0 => 0.0,
        1 => 1.0,
        _ => g.range(0.0, max),
    }
}

/// A channel table of `kind` (index into `CHANNELS`) and its tag.
pub(crate) fn channel(g: &mut Gen, kind: usize, corruption: bool, max: f64) -> String {
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

/// A queue table of `kind` (index into `QUEUES`), its tag and its limit in packets.
pub(crate) fn queue(g: &mut Gen, kind: usize) -> (String, &'static str, u64) {
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
pub(crate) fn rate_bps(g: &mut Gen) -> u64 {
    g.log_int(64_000, 20_000_000)
}

/// The capacity lines of a direction (`key` is `capacity` or `reverse_capacity`), for kind
/// `kind` (index into `CAPACITIES`, not HSDPA).
pub(crate) fn capacity(g: &mut Gen, key: &str, kind: usize) -> String {
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
pub(crate) fn cc_params(g: &mut Gen, cc: &str, recovery: &str) -> String {
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
pub(crate) fn tcp_flow(
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
    let needs = airtcp::cc::build(cc, None).map(|c| c.needs()).unwrap_or_default();
    let sack = needs.sack || airtcp::tcp::recovery::find(recovery).is_some_and(|r| r.needs_sack) || g.boolean();
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
    let options: [(&str, [&str; 2]); 12] = [
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
        ("timeout_ssthresh", ["\"flight\"", "\"ns2\""]),
        ("recover_guard", ["\"every-loss\"", "\"timeout-only\""]),
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
pub(crate) fn udp_flow(g: &mut Gen, name: &str, src: usize, dst: usize, duration_us: u64) -> (String, &'static str) {
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
