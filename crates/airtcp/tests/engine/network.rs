//! Queues, ECN, CBR schedules and ACK policies observed end to end.

fn dumbbell(queue: &str, ecn: bool, flows: usize, extra: &str) -> String {
    let mut s = format!(
        r#"
duration = "60s"
warmup = "10s"
nodes = ["S", "R", "D"]
[[links]]
from = "S"
to = "R"
rate = "100Mbps"
delay = "10ms"
queue = {{ kind = "droptail", limit_pkts = 1000 }}
[[links]]
from = "R"
to = "D"
rate = "5Mbps"
delay = "10ms"
queue = {queue}
"#
    );
    for i in 0..flows {
        s += &format!("[[flows]]\nkind = \"tcp\"\nname = \"f{i}\"\nsrc = \"S\"\ndst = \"D\"\necn = {ecn}\nstart = \"{}ms\"\nmin_rto = \"200ms\"\n{extra}\n", i * 100);
    }
    s
}

fn bottleneck(out: &airtcp::RunOutput) -> &airtcp::LinkSummary {
    out.summary.links.iter().find(|l| l.name == "R->D").unwrap()
}

/// CW marks ECT packets (the senders react through ECE) and never marks non-ECT ones: as RED/ECN
/// configured, it drops them early where it would mark (`drop_non_ect`, default), or lets them
/// pass (`drop_non_ect = false`). With ECN the only non-ECT data are RFC 3168 retransmissions.
#[test]
fn congestion_warning_marks_only_ect_and_senders_react() {
    let q = "{ kind = \"cw\", limit_pkts = 60 }";
    let out =
        airtcp::run(&dumbbell(q, true, 4, ""), &airtcp::RunOptions { seed: Some(1), ..Default::default() }).map(Option::unwrap).unwrap();
    let l = bottleneck(&out);
    assert!(l.ce_marks > 100, "marks {}", l.ce_marks);
    let rexmits: u64 = out.summary.flows.iter().map(|f| f.retransmissions).sum();
    assert!(l.early_drops <= rexmits, "early drops {} > retransmissions {rexmits}", l.early_drops);
    assert!(out.summary.flows.iter().all(|f| f.ecn_reductions > 0));
    let plain =
        airtcp::run(&dumbbell(q, false, 4, ""), &airtcp::RunOptions { seed: Some(1), ..Default::default() }).map(Option::unwrap).unwrap();
    assert_eq!(bottleneck(&plain).ce_marks, 0);
    assert!(bottleneck(&plain).early_drops > 0);
    let pass = "{ kind = \"cw\", limit_pkts = 60, drop_non_ect = false }";
    let passed = airtcp::run(&dumbbell(pass, false, 4, ""), &airtcp::RunOptions { seed: Some(1), ..Default::default() })
        .map(Option::unwrap)
        .unwrap();
    let p = bottleneck(&passed);
    assert_eq!((p.ce_marks, p.early_drops), (0, 0));
    assert!(p.overflow_drops > 0);
    // Reacting to marks before the buffer fills removes (almost all) overflow losses.
    assert!(l.overflow_drops * 10 < p.overflow_drops, "{} vs {}", l.overflow_drops, p.overflow_drops);
}

/// RED with ECN marks ECT traffic instead of dropping it in the probabilistic region; without
/// ECN it drops early instead.
#[test]
fn red_marks_with_ecn_and_drops_without() {
    let q = "{ kind = \"red\", limit_pkts = 100, min_th_pkts = 5, max_th_pkts = 15, weight = 0.002, max_p = 0.1, ecn = true }";
    let with =
        airtcp::run(&dumbbell(q, true, 4, ""), &airtcp::RunOptions { seed: Some(2), ..Default::default() }).map(Option::unwrap).unwrap();
    let without =
        airtcp::run(&dumbbell(q, false, 4, ""), &airtcp::RunOptions { seed: Some(2), ..Default::default() }).map(Option::unwrap).unwrap();
    assert!(bottleneck(&with).ce_marks > 0);
    assert!(bottleneck(&without).ce_marks == 0 && bottleneck(&without).early_drops > 0);
    assert!(bottleneck(&with).early_drops < bottleneck(&without).early_drops);
    for f in &with.summary.flows {
        assert!(f.ecn_reductions > 0, "{} never reduced on ECE", f.name);
    }
    // Both keep the 5 Mb/s link busy.
    assert!(bottleneck(&with).utilization > 0.9 && bottleneck(&without).utilization > 0.9);
}

/// TCP-Jersey Fig. 3 CBR schedule: 500 / 0 / 750 / 500 / 0 / 500 kb/s in 5-s steps. Over an
/// uncongested link every datagram arrives, so the received payload equals the schedule's
/// integral: (5·500 + 5·750 + 5·500 + 5·500) kb = 11.25 Mb = 1406.25 datagrams of 1000 B.
#[test]
fn cbr_schedule_delivers_its_integral() {
    let text = r#"
duration = "30s"
sample_interval = "1s"
nodes = ["A", "B"]
[[links]]
from = "A"
to = "B"
rate = "1.5Mbps"
delay = "10ms"
[[flows]]
kind = "cbr"
name = "cbr"
src = "A"
dst = "B"
packet_bytes = 1000
schedule = [
  { at = "0s", rate = "500kbps" }, { at = "5s", rate = "0bps" }, { at = "10s", rate = "750kbps" },
  { at = "15s", rate = "500kbps" }, { at = "20s", rate = "0bps" }, { at = "25s", rate = "500kbps" },
]
"#;
    let out = airtcp::run(text, &airtcp::RunOptions::default()).map(Option::unwrap).unwrap();
    let f = &out.summary.flows[0];
    // Intervals: 16 ms at 500 kb/s, 10.667 ms at 750 kb/s; each step starts with a packet.
    // Steps [0,5), [15,20), [25,30): 5 s / 16 ms = 312.5 → 313 sends each; [10,15): 468.75 → 469.
    assert_eq!(f.packets_sent, 3 * 313 + 469);
    // The last packet leaves at 29.984 s and arrives after 5.5 ms serialization + 10 ms.
    assert_eq!(f.packets_received, f.packets_sent - 1);
    assert_eq!(f.delivered_bytes, f.packets_received * 1000);
}

/// With delayed ACKs (RFC 5681 §4.2: an ACK at least every second full-sized segment), a
/// lossless bulk transfer sends about one ACK per two segments; without, one per segment.
#[test]
fn delayed_acks_halve_the_ack_count() {
    let q = "{ kind = \"droptail\", limit_pkts = 1000 }";
    for (delayed, lo, hi) in [(false, 0.999, 1.001), (true, 0.5, 0.51)] {
        let out = airtcp::run(
            &dumbbell(q, false, 1, &format!("delayed_ack = {delayed}\nrwnd_pkts = 40")),
            &airtcp::RunOptions { seed: Some(1), ..Default::default() },
        )
        .map(Option::unwrap)
        .unwrap();
        let acks = out.summary.links.iter().find(|l| l.name == "D->R").unwrap().packets_sent as f64;
        let data = out.summary.flows[0].packets_received as f64;
        let ratio = acks / data;
        assert!((lo..=hi).contains(&ratio), "delayed={delayed}: {acks} ACKs for {data} segments");
    }
}

/// `start_jitter` makes lossless runs differ by seed: with no random loss, three flows on a
/// DropTail bottleneck give the same summary for every seed, so a 95% CI over seeds is ±0; a
/// per-flow start offset drawn in [0, 1 s) from the seed makes seeds differ (each flow starts at
/// a different point of the others' sawtooth), one seed still gives one answer, and the run
/// conserves bytes (every flow delivers no more than it sent).
#[test]
fn start_jitter_draws_starts_per_seed() {
    let q = "{ kind = \"droptail\", limit_pkts = 30 }";
    let plain = dumbbell(q, false, 3, "");
    let run = |text: &str, seed: u64| {
        airtcp::run(text, &airtcp::RunOptions { seed: Some(seed), ..Default::default() }).map(Option::unwrap).unwrap().summary
    };
    let (a, b) = (run(&plain, 1), run(&plain, 2));
    let goodputs = |s: &airtcp::Summary| s.flows.iter().map(|f| f.goodput_bps).collect::<Vec<_>>();
    assert_eq!(goodputs(&a), goodputs(&b), "no randomness without jitter");
    let jittered = dumbbell(q, false, 3, "start_jitter = \"1s\"");
    let (c, d) = (run(&jittered, 1), run(&jittered, 2));
    assert_ne!(goodputs(&c), goodputs(&d), "seeds differ with jitter");
    assert_eq!(goodputs(&c), goodputs(&run(&jittered, 1)));
    for f in c.flows.iter().chain(d.flows.iter()) {
        assert!(f.delivered_bytes <= f.sent_bytes && f.delivered_bytes > 0, "{}: {} of {}", f.name, f.delivered_bytes, f.sent_bytes);
    }
    // A jitter longer than the run is a clear error naming the field.
    let e = airtcp::run(&dumbbell(q, false, 1, "start_jitter = \"61s\""), &airtcp::RunOptions { seed: Some(1), ..Default::default() })
        .map(Option::unwrap)
        .unwrap_err();
    assert!(e.to_string().contains("flows[0].start_jitter"), "{e}");
}
