//! Behaviour against independent truth on the TCP-Jersey Fig. 10 topology: the link-rate
//! ceiling, the Padhye et al. (1998) throughput model, the known ordering of recovery strategies,
//! and determinism.

use crate::common::{fig10, mean_sd, run};

fn seeds() -> u64 {
    10
}

/// Lossless, buffer and window large enough never to drop: the in-order goodput over the last
/// 90 s must reach ≥ 98% of the ceiling 2 Mb/s × 1000 / (1000 + 40 header bytes).
#[test]
fn lossless_goodput_reaches_link_ceiling() {
    for rec in ["tahoe", "reno", "newreno", "sack"] {
        for ts in [false, true] {
            let extra = format!("rwnd_pkts = 64\ntimestamps = {ts}");
            let out = run(&fig10(0.0, rec, 1000, 100, &extra), 1);
            let f = &out.summary.flows[0];
            let hdr = 40.0 + if ts { 12.0 } else { 0.0 };
            let ceiling = 2e6 * 1000.0 / (1000.0 + hdr);
            assert!(f.goodput_bps >= 0.98 * ceiling, "{rec} ts={ts}: {} < 98% of {ceiling}", f.goodput_bps);
            // Physical bound: what the bottleneck can serialize in 90 s, plus the packet in
            // transmission and the one propagating when the window opens.
            assert!(f.goodput_bps <= ceiling + 2.0 * 8000.0 / 90.0, "{rec}: {} above the physical ceiling", f.goodput_bps);
            assert_eq!(f.retransmissions, 0, "{rec}: lossless run retransmitted");
            let bottleneck = out.summary.links.iter().find(|l| l.name == "BS->D").unwrap();
            assert_eq!(bottleneck.overflow_drops, 0);
        }
    }
}

/// Padhye, Firoiu, Towsley, Kurose (SIGCOMM 1998), full model eq. (32): send rate in packets/s
/// for loss indication rate p, round-trip time `rtt`, timeout `t0`, b packets per ACK, and
/// maximum window `wmax` packets.
fn padhye_full(p: f64, rtt: f64, t0: f64, b: f64, wmax: f64) -> f64 {
    let q = 1.0 - p;
    let f = 1.0 + p + 2.0 * p.powi(2) + 4.0 * p.powi(3) + 8.0 * p.powi(4) + 16.0 * p.powi(5) + 32.0 * p.powi(6);
    // Q̂(w): probability that a loss in a window of w is detected by timeout.
    let qhat = |w: f64| ((1.0 - q.powi(3)) * (1.0 + q.powi(3) * (1.0 - q.powf(w - 3.0))) / (1.0 - q.powf(w))).min(1.0);
    let c = (2.0 + b) / (3.0 * b);
    let ew = c + (8.0 * q / (3.0 * b * p) + c * c).sqrt();
    if ew < wmax {
        (q / p + ew + qhat(ew) / q) / (rtt * (b / 2.0 * ew + 1.0) + qhat(ew) * t0 * f / q)
    } else {
        (q / p + wmax + qhat(wmax) / q) / (rtt * (b / 8.0 * wmax + q / (p * wmax) + 2.0) + qhat(wmax) * t0 * f / q)
    }
}

#[test]
fn padhye_model_by_hand() {
    // Worked by hand for p = 1%, RTT = 98 ms, T0 = 200 ms, b = 1, Wmax large:
    // E[W] = 1 + sqrt(8·0.99/0.03 + 1) = 17.28; Q̂ = 0.2107; f = 1.0102;
    // B = (99 + 17.28 + 0.2128) / (0.098·9.64 + 0.2107·0.2·1.0102/0.99) = 116.5 / 0.9877 ≈ 117.9 pkt/s.
    let b = padhye_full(0.01, 0.098, 0.2, 1.0, 1e9);
    assert!((b - 117.9).abs() < 0.3, "{b}");
}

/// Reno and NewReno under uniform loss (no delayed ACKs): the mean goodput over 10 seeds lies
/// within ±35% of the Padhye full-model prediction computed from the simulated mean RTT, mean
/// RTO and measured loss rate (channel losses plus queue drops over data packets sent).
/// Padhye predicts the send rate; goodput is compared with B·(1 − p)·MSS. The buffer (1000)
/// exceeds the receiver window (Wmax = 64 segments, given to the model), so every loss is the
/// channel's: the model's loss process, not DropTail overflow bursts it does not describe.
#[test]
fn goodput_matches_padhye_full_model() {
    for loss in [0.001, 0.01] {
        for rec in ["reno", "newreno"] {
            let (mut g, mut rtt, mut rto, mut p) = (vec![], 0.0, 0.0, 0.0);
            for seed in 1..=seeds() {
                let out = run(&fig10(loss, rec, 1000, 100, "rwnd_pkts = 64"), seed);
                let f = &out.summary.flows[0];
                let lost: u64 = out
                    .summary
                    .links
                    .iter()
                    .filter(|l| l.name == "S->BS" || l.name == "BS->D")
                    .map(|l| l.channel_losses + l.overflow_drops)
                    .sum();
                g.push(f.goodput_bps);
                rtt += f.mean_rtt_s.expect("a TCP flow with RTT samples");
                rto += f.mean_rto_s.expect("a TCP flow with RTT samples");
                p += lost as f64 / f.packets_sent as f64;
            }
            let n = seeds() as f64;
            let (rtt, rto, p) = (rtt / n, rto / n, p / n);
            let predicted = padhye_full(p, rtt, rto, 1.0, 64.0) * (1.0 - p) * 1000.0 * 8.0;
            let (mean, _) = mean_sd(&g);
            let ratio = mean / predicted;
            eprintln!("{rec} loss {loss}: goodput {mean:.0} b/s, Padhye {predicted:.0} b/s (p {p:.4}, RTT {rtt:.3}, T0 {rto:.3}), ratio {ratio:.3}");
            assert!((0.65..=1.35).contains(&ratio), "{rec} at {loss}: ratio {ratio}");
        }
    }
}

/// At 3% uniform loss the recovery strategies order as SACK ≥ NewReno ≥ Reno in mean goodput.
/// NewReno's advantage over Reno is large (several standard errors). RFC 6675 SACK and NewReno
/// are statistically tied on this path (windows of 2–10 segments, where RFC 6675's conservative
/// pipe sends less during recovery than NewReno's inflation — see REPRODUCTION.md), so SACK ≥
/// NewReno is checked as "not significantly lower": within two standard errors of the difference.
#[test]
fn recovery_ordering_at_three_percent() {
    let mut stats = vec![];
    for rec in ["reno", "newreno", "sack"] {
        let g: Vec<f64> = (1..=seeds()).map(|s| run(&fig10(0.03, rec, 50, 100, ""), s).summary.flows[0].goodput_bps).collect();
        stats.push(mean_sd(&g));
    }
    let n = seeds() as f64;
    let [(reno, sd_r), (newreno, sd_n), (sack, sd_s)] = [stats[0], stats[1], stats[2]];
    eprintln!("3%: reno {reno:.0} ± {sd_r:.0}, newreno {newreno:.0} ± {sd_n:.0}, sack {sack:.0} ± {sd_s:.0}");
    assert!(newreno > reno, "NewReno {newreno} ≤ Reno {reno}");
    assert!(sack > reno, "SACK {sack} ≤ Reno {reno}");
    let se_diff = ((sd_s * sd_s + sd_n * sd_n) / n).sqrt();
    assert!(sack >= newreno - 2.0 * se_diff, "SACK {sack} significantly below NewReno {newreno} (SE {se_diff})");
}

/// The same scenario and seed give identical outputs; run_many on 2 threads equals serial runs;
/// another seed changes a lossy run.
#[test]
fn deterministic_serially_and_in_parallel() {
    let text = fig10(0.02, "sack", 30, 30, "timestamps = true\ndelayed_ack = true");
    let a = run(&text, 7);
    let b = run(&text, 7);
    assert_eq!(a, b);
    assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap());
    let jobs: Vec<airtcp::Job> = (1..=4).map(|s| (text.clone(), Some(s), None)).collect();
    let par = airtcp::run_many(&jobs, 2, None);
    for (i, r) in par.into_iter().enumerate() {
        assert_eq!(r.unwrap().unwrap(), run(&text, i as u64 + 1));
    }
    assert_ne!(run(&text, 8).summary, a.summary);
}

/// NewReno's timer variants after a slow-start overshoot (~70 losses in one window, no channel
/// loss): "impatient" (RFC 6582) times out and goes back N, resending segments the receiver
/// already holds; "slow-but-steady" repairs one loss per RTT without a timeout and resends only
/// what was lost. (Both reach the link ceiling after the 10-s warm-up, so goodput cannot tell
/// them apart here.)
#[test]
fn newreno_partial_ack_timer_variants() {
    let g = |variant: &str| {
        let out = run(&fig10(0.0, "newreno", 50, 100, &format!("partial_ack_timer = \"{variant}\"")), 1);
        let f = &out.summary.flows[0];
        let drops: u64 = out.summary.links.iter().map(|l| l.overflow_drops).sum();
        (f.timeouts, f.retransmissions, drops)
    };
    let (to_i, rx_i, drops_i) = g("impatient");
    let (to_s, rx_s, drops_s) = g("slow-but-steady");
    assert!(to_i > 0 && to_s == 0, "timeouts: slow-but-steady {to_s}, impatient {to_i}");
    // Slow-but-steady resends each dropped segment once (a resend can itself be dropped, hence ≥).
    assert!(
        rx_s >= drops_s && rx_s < rx_i,
        "retransmissions: slow-but-steady {rx_s} ({drops_s} drops), impatient {rx_i} ({drops_i} drops)"
    );
}

/// Westwood's estimate tracks the delivery rate: lossless, window-limited below the buffer, the
/// ACKs return at the bottleneck's payload rate 2 Mb/s × 1000/1040, so the BWE settles there.
/// And the point of the scheme: at 1% random loss its BWE·RTT_min decrease keeps more goodput
/// than NewReno's halving (TCP-Jersey Fig. 11 shows Westwood above Reno at 1%).
#[test]
fn westwood_estimate_and_random_loss_advantage() {
    let out = run(&fig10(0.0, "newreno", 1000, 60, "cc = \"westwood\"\nrwnd_pkts = 64"), 1);
    let s = &out.flow_series;
    let late: Vec<f64> = (0..s.rows()).filter(|&i| s.time_s(i) >= 30.0).map(|i| s.bwe(i).unwrap()).collect();
    let (mean, _) = mean_sd(&late);
    let rate = 2e6 * 1000.0 / 1040.0;
    assert!((mean / rate - 1.0).abs() < 0.02, "BWE {mean} vs payload rate {rate}");
    assert!((0..s.rows()).all(|i| !s.bwe_bps(i).is_nan()));
    let g = |cc: &str| -> f64 {
        (1..=seeds())
            .map(|sd| run(&fig10(0.01, "newreno", 50, 100, &format!("cc = \"{cc}\"")), sd).summary.flows[0].goodput_bps)
            .sum::<f64>()
            / seeds() as f64
    };
    let (reno, westwood) = (g("reno"), g("westwood"));
    eprintln!("1%: NewReno {reno:.0}, Westwood {westwood:.0} b/s");
    assert!(westwood > 1.2 * reno, "Westwood {westwood} vs NewReno {reno}");
}
