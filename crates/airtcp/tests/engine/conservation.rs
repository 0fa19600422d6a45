//! Conservation: whatever the topology, channel (uniform, Rayleigh fading, or Gilbert–Elliott per
//! packet or in continuous time, losing or corrupting, up to 20%, both directions), capacity
//! (constant, a repeating rate schedule with outages, a mahimahi trace), link-level
//! retransmission or not, recovery strategy, window policy, limited transmit and ACK policy, the
//! receiving application gets exactly the byte stream the sender's application offered — in
//! order, without gaps or duplicates — and every run ends at its stated end time.

use airtcp::sim::Simulator;
use proptest::prelude::*;

#[derive(Debug, Clone)]
struct Hop {
    rate_kbps: u32,
    delay_ms: u32,
    buffer: u32,
    channel: Chan,
    ack_channel: Chan,
    queue: u8,
    capacity: u8,
    /// TCP-aware link-level retransmission of lost data frames (`link_retransmission`).
    arq: bool,
}

/// A channel: 0 uniform, 1 Gilbert–Elliott per packet, 2 Gilbert–Elliott in continuous time,
/// 3 Rayleigh fading;
/// `rate` is the long-run error rate; `corrupt` picks the corruption effect.
#[derive(Debug, Clone)]
struct Chan {
    kind: u8,
    rate: f64,
    corrupt: bool,
}

fn chan(max_rate: f64) -> impl Strategy<Value = Chan> {
    (0u8..4, prop_oneof![Just(0.0), 0.0f64..max_rate], any::<bool>()).prop_map(|(kind, rate, corrupt)| Chan { kind, rate, corrupt })
}

impl Chan {
    fn toml(&self) -> String {
        let effect = if self.corrupt { "corruption" } else { "loss" };
        match self.kind {
            0 => format!("{{ kind = \"uniform\", loss = {}, effect = \"{effect}\" }}", self.rate),
            // Bad a fifth of the packets (p = 0.95, q = 0.8), error_bad = 5·rate.
            1 => format!(
                "{{ kind = \"gilbert-elliott\", p_stay_good = 0.95, q_stay_bad = 0.8, error_bad = {}, effect = \"{effect}\" }}",
                (5.0 * self.rate).min(1.0)
            ),
            2 => format!(
                "{{ kind = \"gilbert-elliott\", mean_good = \"400ms\", mean_bad = \"100ms\", error_bad = {}, effect = \"{effect}\" }}",
                (5.0 * self.rate).min(1.0)
            ),
            // Rayleigh fading at 3 km/h under the thesis's normalization (bursts of ~4 at 10%).
            _ => format!("{{ kind = \"fading\", error_rate = {}, speed_kmh = 3, effect = \"{effect}\" }}", self.rate.max(1e-3)),
        }
    }
}

/// The link's capacity: 0 constant, 1 a repeating schedule with an outage, 2 a trace.
fn capacity_toml(kind: u8, rate_kbps: u32) -> String {
    match kind {
        0 => format!("rate = \"{rate_kbps}kbps\""),
        1 => format!(
            "capacity = {{ kind = \"schedule\", repeat = \"1s\", steps = [{{ at = \"0s\", rate = \"{rate_kbps}kbps\" }}, {{ at = \"300ms\", rate = \"0bps\" }}, {{ at = \"400ms\", rate = \"{}kbps\" }}] }}",
            rate_kbps / 2 + 1
        ),
        _ => {
            // About rate_kbps in 1500-B opportunities over a 100-ms period (several in one
            // millisecond above 12 Mb/s).
            let n = (rate_kbps as u64 * 100 / 8 / 1500).max(1);
            let opps: Vec<String> = (0..n).map(|k| (1 + k * 100 / n).to_string()).chain(["100".to_string()]).collect();
            format!("capacity = {{ kind = \"trace\", opportunities_ms = [{}] }}", opps.join(", "))
        }
    }
}

#[derive(Debug, Clone)]
struct FlowP {
    recovery: &'static str,
    cc: &'static str,
    delayed_ack: bool,
    timestamps: bool,
    sack: bool,
    ecn: bool,
    bytes: Option<u32>,
    start_ms: u32,
    reverse: bool,
    /// RFC 3042 limited transmit (`limited_transmit`).
    limited_transmit: bool,
}

fn hop() -> impl Strategy<Value = Hop> {
    (200u32..20_000, 0u32..60, 2u32..120, chan(0.2), chan(0.1), 0u8..3, 0u8..3, any::<bool>()).prop_map(
        |(rate_kbps, delay_ms, buffer, channel, ack_channel, queue, capacity, arq)| Hop {
            rate_kbps,
            delay_ms,
            buffer,
            channel,
            ack_channel,
            queue,
            capacity,
            arq,
        },
    )
}

/// What window policy `cc` needs from its flow.
fn needs(cc: &str) -> airtcp::cc::Needs {
    airtcp::cc::build(cc, None).expect("a registered policy").needs()
}

fn flow() -> impl Strategy<Value = FlowP> {
    (
        // Every registered recovery strategy and window policy: a new one is covered at once.
        proptest::sample::select(airtcp::tcp::recovery::NAMES),
        proptest::sample::select(airtcp::cc::NAMES),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        prop_oneof![Just(None), (1u32..400_000).prop_map(Some)],
        0u32..3000,
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(recovery, cc, delayed_ack, timestamps, sack, ecn, bytes, start_ms, reverse, limited_transmit)| FlowP {
            recovery,
            cc,
            delayed_ack,
            // What the policy and the strategy need (the registries say), or a random choice.
            timestamps: timestamps || needs(cc).timestamps,
            sack: sack || needs(cc).sack || airtcp::tcp::recovery::find(recovery).is_some_and(|r| r.needs_sack),
            ecn: ecn || needs(cc).ecn,
            bytes,
            start_ms,
            reverse,
            limited_transmit,
        })
}

fn scenario(hops: &[Hop], flows: &[FlowP], duration_s: u32) -> String {
    let n = hops.len() + 1;
    let nodes: Vec<String> = (0..n).map(|i| format!("\"n{i}\"")).collect();
    let mut s = format!("duration = \"{duration_s}s\"\nsample_interval = \"1s\"\nnodes = [{}]\n", nodes.join(", "));
    for (i, h) in hops.iter().enumerate() {
        let queue = match h.queue {
            0 => format!("{{ kind = \"droptail\", limit_pkts = {} }}", h.buffer),
            1 => format!(
                "{{ kind = \"red\", limit_pkts = {}, min_th_pkts = {}, max_th_pkts = {}, ecn = true }}",
                h.buffer,
                h.buffer as f64 / 4.0,
                h.buffer as f64 / 2.0 + 1.0
            ),
            _ => format!("{{ kind = \"cw\", limit_pkts = {} }}", h.buffer),
        };
        s += &format!(
            "[[links]]\nfrom = \"n{i}\"\nto = \"n{}\"\n{}\ndelay = \"{}ms\"\nqueue = {queue}\nchannel = {}\nreverse_channel = {}\nlink_retransmission = {}\n",
            i + 1,
            capacity_toml(h.capacity, h.rate_kbps),
            h.delay_ms,
            h.channel.toml(),
            h.ack_channel.toml(),
            h.arq
        );
    }
    for (k, f) in flows.iter().enumerate() {
        let (src, dst) = if f.reverse { (n - 1, 0) } else { (0, n - 1) };
        s += &format!(
            "[[flows]]\nkind = \"tcp\"\nname = \"f{k}\"\nsrc = \"n{src}\"\ndst = \"n{dst}\"\nrecovery = \"{}\"\ncc = \"{}\"\ndelayed_ack = {}\ntimestamps = {}\nsack = {}\necn = {}\nstart = \"{}ms\"\nmin_rto = \"200ms\"\nmax_rto = \"4s\"\nrwnd_pkts = 64\nlimited_transmit = {}\n",
            f.recovery, f.cc, f.delayed_ack, f.timestamps, f.sack, f.ecn, f.start_ms, f.limited_transmit
        );
        if let Some(b) = f.bytes {
            s += &format!("bytes = \"{b}B\"\n");
        }
        if f.recovery == "linux" && f.limited_transmit {
            // ns-2.35 TCP-Linux's timer (limited transmit itself is not used by "linux").
            s += "rto_restart = \"every-ack\"\n";
        }
    }
    s
}

proptest! {
    #![proptest_config(ProptestConfig { cases: if std::env::var("CI").is_ok() { 48 } else { 128 }, ..ProptestConfig::default() })]

    #[test]
    fn byte_stream_is_delivered_exactly_once_in_order(
        hops in prop::collection::vec(hop(), 1..4),
        flows in prop::collection::vec(flow(), 1..4),
        duration_s in 3u32..20,
        seed in any::<u64>(),
    ) {
        let text = scenario(&hops, &flows, duration_s);
        let sc = airtcp::scenario::parse(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        let mut sim = Simulator::build(&sc, seed).unwrap();
        sim.enable_audit();
        let out = sim.run().unwrap();
        prop_assert_eq!(out.summary.end_time_s, duration_s as f64);
        prop_assert_eq!(sim.now(), duration_s as u64 * 1_000_000_000);
        for (i, f) in out.summary.flows.iter().enumerate() {
            let (app_limit, snd_max, snd_una) = sim.tcp_state(i).unwrap();
            // Deliveries tile [0, delivered) exactly: in order, no gap, no duplicate.
            let mut next = 0u64;
            for &(a, b) in &sim.audit().unwrap()[i] {
                prop_assert_eq!(a, next, "flow {} delivery starts at {} but {} was next", i, a, next);
                prop_assert!(b > a);
                next = b;
            }
            prop_assert_eq!(next, f.delivered_bytes);
            // Nothing beyond what the application offered was sent or delivered.
            prop_assert!(snd_max <= app_limit);
            prop_assert!(f.delivered_bytes <= snd_max);
            if let Some(b) = flows[i].bytes {
                prop_assert!(f.delivered_bytes <= b as u64);
            }
            // The sender only learns of bytes the receiver has delivered.
            prop_assert!(snd_una <= f.delivered_bytes);
            prop_assert_eq!(f.acked_bytes, snd_una);
        }
    }
}

/// A finite transfer over a lossy path completes: every byte arrives, and the sender learns it.
#[test]
fn finite_transfers_complete_under_loss() {
    for (rec, cc) in [
        ("tahoe", "reno"),
        ("reno", "reno"),
        ("newreno", "reno"),
        ("sack", "reno"),
        ("fack", "reno"),
        ("linux", "reno"),
        ("linux", "westwood-plus"),
        ("prr", "reno"),
        ("prr", "westwood"),
        ("prr-rack", "westwood"),
        ("prr-rack", "nj+"),
        ("newreno", "vegas"),
        ("newreno", "westwood-plus"),
        ("reno", "jersey"),
        ("newreno", "nj+"),
        ("newreno", "prairie"),
    ] {
        for seed in 1..=5 {
            let jersey = cc == "jersey" || cc == "nj+";
            let hops = [Hop {
                rate_kbps: 2000,
                delay_ms: 20,
                buffer: 20,
                channel: Chan { kind: 0, rate: 0.05, corrupt: false },
                ack_channel: Chan { kind: 0, rate: 0.02, corrupt: false },
                queue: if jersey { 2 } else { 0 },
                capacity: 0,
                arq: seed % 2 == 1,
            }];
            let fl = [FlowP {
                recovery: rec,
                cc,
                delayed_ack: seed % 2 == 0,
                timestamps: seed % 3 == 0 || cc == "nj+",
                sack: airtcp::tcp::recovery::find(rec).is_some_and(|s| s.needs_sack),
                ecn: jersey,
                bytes: Some(300_000),
                start_ms: 0,
                reverse: false,
                limited_transmit: seed % 2 == 0,
            }];
            let out = airtcp::run(&scenario(&hops, &fl, 60), &airtcp::RunOptions { seed: Some(seed), ..Default::default() })
                .map(Option::unwrap)
                .unwrap();
            let f = &out.summary.flows[0];
            assert_eq!(f.delivered_bytes, 300_000, "{rec}/{cc} seed {seed}");
            assert_eq!(f.acked_bytes, 300_000, "{rec}/{cc} seed {seed}");
        }
    }
}
