//! Per-flow delay figures (RTT percentiles for TCP, one-way delay percentiles and RFC 3550 jitter
//! for UDP) against the path's delays worked by hand: propagation plus serialization at each hop,
//! and a DropTail queue's capacity as the bound on queueing.

use crate::common::{fig10_path, run, variant};

/// TCP-Jersey Fig. 10's path without loss (`common::fig10_path`, 30 s, a 1000-packet queue at S)
/// with a `bs_buffer`-packet DropTail queue at BS, `warmup`, and `flows` appended.
fn path(bs_buffer: u32, warmup: &str, flows: &str) -> String {
    let warmup = format!("warmup={warmup}");
    let sets = ["name=unnamed", &warmup, "links.0.queue.limit_pkts=1000", "links.1.channel=none"];
    variant(&format!("{}{flows}", fig10_path(0.0, bs_buffer, 30)), &sets)
}

/// Serialization time of `bytes` at `bps`, seconds.
fn ser(bytes: f64, bps: f64) -> f64 {
    bytes * 8.0 / bps
}

/// One segment in flight at a time (rwnd 1): every RTT sample is the path's sum, worked by hand.
/// Data, 1000 + 40 B: 1040·8/10⁷ + 45 ms + 1040·8/(2·10⁶) + 1 ms = 0.832 + 45 + 4.16 + 1 ms;
/// ACK, 40 B: 0.16 + 1 + 0.032 + 45 ms. RTT = 97.184 ms, at every percentile.
#[test]
fn stop_and_wait_rtt_is_the_path_sum_at_every_percentile() {
    let out = run(&path(20, "10s", "[[flows]]\nkind = \"tcp\"\nsrc = \"S\"\ndst = \"D\"\nmss_bytes = 1000\nrwnd_pkts = 1\n"), 1);
    let f = &out.summary.flows[0];
    let rtt = ser(1040.0, 1e7) + 0.045 + ser(1040.0, 2e6) + 0.001 + ser(40.0, 2e6) + 0.001 + ser(40.0, 1e7) + 0.045;
    assert!((rtt - 0.097184).abs() < 1e-12);
    assert!(f.rtt_samples > 100);
    for (q, v) in [("p50", f.rtt_p50_s), ("p95", f.rtt_p95_s), ("p99", f.rtt_p99_s)] {
        let v = v.unwrap_or_else(|| panic!("{q} missing"));
        assert!((v - rtt).abs() < 1e-9, "{q}: {v} against {rtt}");
    }
    assert!((f.mean_rtt_s.unwrap() - rtt).abs() < 1e-9);
    // A TCP flow has no one-way delay or jitter figure: null, not 0.
    assert_eq!((f.owd_p50_s, f.owd_p95_s, f.owd_p99_s, f.jitter_s), (None, None, None, None));
    let json = serde_json::to_value(&out.summary).unwrap();
    assert!(json["flows"][0]["jitter_s"].is_null() && json["flows"][0]["owd_p95_s"].is_null());
}

/// A CBR of 1000-B datagrams every 16 ms on the idle path: each one's one-way delay is
/// 1028·8/10⁷ + 45 ms + 1028·8/(2·10⁶) + 1 ms = 50.9344 ms, and with a constant transit time
/// RFC 3550's jitter is exactly 0.
#[test]
fn cbr_on_an_idle_path_has_the_path_delay_and_no_jitter() {
    let out = run(&path(20, "10s", "[[flows]]\nkind = \"cbr\"\nsrc = \"S\"\ndst = \"D\"\npacket_bytes = 1000\nrate = \"500kbps\"\n"), 1);
    let f = &out.summary.flows[0];
    let owd = ser(1028.0, 1e7) + 0.045 + ser(1028.0, 2e6) + 0.001;
    for (q, v) in [("p50", f.owd_p50_s), ("p95", f.owd_p95_s), ("p99", f.owd_p99_s)] {
        assert!((v.unwrap() - owd).abs() < 1e-9, "{q}: {v:?} against {owd}");
    }
    assert_eq!(f.jitter_s, Some(0.0));
    assert_eq!((f.rtt_p50_s, f.rtt_p95_s, f.rtt_p99_s, f.rtt_samples), (None, None, None, 0));
    // No RTT at all on a UDP flow: null in the summary, never 0.0.
    assert_eq!((f.mean_rtt_s, f.min_rtt_s, f.mean_rto_s), (None, None, None));
    let json = serde_json::to_value(&out.summary).unwrap();
    assert!(json["flows"][0]["mean_rtt_s"].is_null() && json["flows"][0]["min_rtt_s"].is_null());
}

/// A TCP flow that starts 10 ms before the end of the 30-s run sends its first segment, but its ACK
/// needs the ~97-ms round trip: no RTT sample, so its RTT figures are null, as a UDP flow's are.
#[test]
fn tcp_flow_without_samples_has_null_rtt_figures() {
    let out = run(&path(20, "0s", "[[flows]]\nkind = \"tcp\"\nsrc = \"S\"\ndst = \"D\"\ncc = \"reno\"\nstart = \"29.99s\"\n"), 1);
    let f = &out.summary.flows[0];
    assert!(f.packets_sent > 0, "the flow must have sent");
    assert_eq!(f.rtt_samples, 0);
    assert_eq!((f.mean_rtt_s, f.min_rtt_s, f.mean_rto_s, f.rtt_p50_s), (None, None, None, None));
}

/// The percentiles cover the measurement window only: a CBR that congests the 2 Mb/s hop until
/// t = 10 s (3 Mb/s into 2, the 20-packet queue full) gives a probe flow queueing delays up to
/// 20 packets; with `warmup = "10s"` none of them is counted and the probe's one-way delay is the
/// idle path's at every percentile.
#[test]
fn percentiles_start_at_the_end_of_the_warmup() {
    let flows =
        "[[flows]]\nkind = \"cbr\"\nname = \"burst\"\nsrc = \"S\"\ndst = \"D\"\npacket_bytes = 1000\nrate = \"3Mbps\"\nstop = \"9s\"\n\
                 [[flows]]\nkind = \"cbr\"\nname = \"probe\"\nsrc = \"S\"\ndst = \"D\"\npacket_bytes = 1000\nrate = \"100kbps\"\n";
    let idle = ser(1028.0, 1e7) + 0.045 + ser(1028.0, 2e6) + 0.001;
    let measured = run(&path(20, "10s", flows), 1);
    let p = &measured.summary.flows[1];
    assert!((p.owd_p99_s.unwrap() - idle).abs() < 1e-9, "{:?}", p.owd_p99_s);
    let all = run(&path(20, "0s", flows), 1);
    let p = &all.summary.flows[1];
    // With the congested first 9 s counted (~30% of the probe's datagrams), p50 is still the idle
    // delay and p95 is the full queue's: 19 to 20 datagrams of 4.112 ms ahead of it.
    assert!((p.owd_p50_s.unwrap() - idle).abs() < 1e-9);
    let full = idle + 19.0 * ser(1028.0, 2e6);
    assert!(p.owd_p95_s.unwrap() >= 0.99 * full && p.owd_p95_s.unwrap() <= idle + 21.0 * ser(1028.0, 2e6), "{:?}", p.owd_p95_s);
    // Jitter is a running estimate over every datagram (RFC 3550), so the warm-up does not
    // change it: the 20 s after the burst leave it at 0 in both runs.
    assert_eq!(measured.summary.flows[1].jitter_s, all.summary.flows[1].jitter_s);
}

/// A bulk Reno flow over the 20-packet DropTail queue, with timestamps (an RTT sample on every
/// ACK; without them Karn's rule voids most samples taken near a loss, when the queue is
/// fullest). No sample can exceed the base RTT plus a full queue at BS (20 data segments of
/// 1052·8/(2·10⁶) = 4.208 ms ahead, and one in service) plus a few segments queued at S; DropTail
/// drops only when the queue is full, so before each loss the queue holds 20 packets and the
/// highest percentiles see most of it.
#[test]
fn bulk_reno_rtts_stay_within_the_buffer_bound() {
    let out = run(
        &path(20, "10s", "[[flows]]\nkind = \"tcp\"\nsrc = \"S\"\ndst = \"D\"\nmss_bytes = 1000\nrwnd_pkts = 1000\ntimestamps = true\n"),
        1,
    );
    let f = &out.summary.flows[0];
    // Base RTT with 12 B of timestamps on every packet: data 1052 B, ACK 52 B.
    let base = ser(1052.0, 1e7) + 0.045 + ser(1052.0, 2e6) + 0.001 + ser(52.0, 2e6) + 0.001 + ser(52.0, 1e7) + 0.045;
    let seg_bs = ser(1052.0, 2e6);
    // At S, a window's burst: at most a few segments of 0.84 ms (ACK-clocked after slow start).
    let bound = base + 21.0 * seg_bs + 4.0 * ser(1052.0, 1e7);
    let (p50, p95, p99) = (f.rtt_p50_s.unwrap(), f.rtt_p95_s.unwrap(), f.rtt_p99_s.unwrap());
    let min_rtt_s = f.min_rtt_s.unwrap();
    assert!(min_rtt_s >= base - 1e-12, "min {min_rtt_s} below the base {base}");
    assert!(base <= p50 && p50 <= p95 && p95 <= p99 && p99 <= bound, "{p50} {p95} {p99}, base {base}, bound {bound}");
    assert!(p99 >= base + 15.0 * seg_bs, "p99 {p99}: the queue never held 15 packets?");
    assert!(out.summary.links.iter().find(|l| l.name == "BS->D").unwrap().overflow_drops > 0);
}
