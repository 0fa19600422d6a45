//! BBR v1 (Cardwell et al. 2016; draft-cardwell-iccrg-bbr-congestion-control-00) against the
//! path's own figures on the TCP-Jersey Fig. 10 path with a deep buffer: S –10 Mb/s, 45 ms– BS
//! –2 Mb/s, 1 ms– D, 1000-packet drop-tail buffers, one bulk flow with SACK.
//!
//! Analytic figures (1000-byte segments, 1040-byte packets, 40-byte ACKs):
//! - ceiling: the 2 Mb/s link carries 2e6·1000/1040 = 1.923 Mb/s of payload, C = 240 385 B/s;
//! - base RTT: 2·(45 + 1) ms + 1040·8/10⁷ + 1040·8/(2·10⁶) + 40·8/10⁷ + 40·8/(2·10⁶) s
//!   = 92 + 0.832 + 4.16 + 0.032 + 0.16 = 97.184 ms; BDP = C·RTT = 23 362 B;
//! - BBR's queue in ProbeBW: the 1.25 phase aims at inflight(1.25) = 1.25·BDP + 3 send quanta
//!   (draft-00 §4.2.3.2; quantum 2 segments above 1.2 Mb/s, §4.2.2), so its queue is at most
//!   0.25·BDP + 6000 B = 11 840 B, 49.3 ms: mean RTT ≤ 146.4 ms, while a loss-based window fills
//!   the 1000-packet buffer (up to 4.16 s of queue) before it backs off;
//! - Reno at random loss p: the Mathis et al. (1997) rate MSS/RTT·√(3/(2p)) = 1.008 Mb/s at 1%.

use crate::common::{fig10, mean_sd, run, variant};

const CEILING_BPS: f64 = 2e6 * 1000.0 / 1040.0;
const BASE_RTT_S: f64 = 0.097184;

fn deep_path(loss: f64, cc: &str) -> String {
    // Fig. 10's path with 1000-packet buffers, SACK and a 10 000-segment receiver window.
    let cc = format!("flows.0.cc={cc}");
    variant(&fig10(loss, "sack", 1000, 60, ""), &["name=deep", "flows.0.rwnd_pkts=10000", &cc])
}

/// The analytic figures of the module doc.
#[test]
fn path_figures_by_hand() {
    let rtt = 2.0 * 0.046 + 1040.0 * 8.0 / 1e7 + 1040.0 * 8.0 / 2e6 + 40.0 * 8.0 / 1e7 + 40.0 * 8.0 / 2e6;
    assert!((rtt - BASE_RTT_S).abs() < 1e-9, "{rtt}");
    let c = CEILING_BPS / 8.0;
    assert!((c * BASE_RTT_S - 23_362.0).abs() < 1.0);
    let queue_s = (0.25 * c * BASE_RTT_S + 6000.0) / c;
    assert!((queue_s - 0.0493).abs() < 1e-4, "{queue_s}");
    let mathis = 8000.0 / BASE_RTT_S * (1.5f64 / 0.01).sqrt();
    assert!((mathis - 1.008e6).abs() < 1e3, "{mathis}");
}

/// No random loss, deep buffer: BBR's goodput is ≥ 95% of the ceiling (ProbeRTT spends about
/// 200 ms + one round at 4 segments every 10 s, ~3%), its mean RTT is within the ProbeBW queue
/// bound above the base RTT (the model keeps the buffer nearly empty), and no segment is lost.
/// Reno and CUBIC fill the buffer: their mean RTT is more than twice that bound. Measured (seed
/// 1): BBR 1.876 Mb/s, 125 ms; Reno 1.86 Mb/s, 1.17 s; CUBIC 1.42 Mb/s, 1.46 s.
#[test]
fn lossless_deep_buffer_link_rate_at_base_rtt() {
    let bound_s = BASE_RTT_S + (0.25 * CEILING_BPS / 8.0 * BASE_RTT_S + 6000.0) / (CEILING_BPS / 8.0);
    let mut rtts = vec![];
    for cc in ["bbr", "reno", "cubic"] {
        let out = run(&deep_path(0.0, cc), 1);
        let f = &out.summary.flows[0];
        let (mean_rtt_s, min_rtt_s) = (f.mean_rtt_s.unwrap(), f.min_rtt_s.unwrap());
        eprintln!(
            "{cc}: {:.0} b/s ({:.3} of the ceiling), mean RTT {:.1} ms (min {:.1}), {} retransmissions",
            f.goodput_bps,
            f.goodput_bps / CEILING_BPS,
            mean_rtt_s * 1e3,
            min_rtt_s * 1e3,
            f.retransmissions
        );
        if cc == "bbr" {
            assert!(f.goodput_bps >= 0.95 * CEILING_BPS, "BBR {} < 95% of {CEILING_BPS}", f.goodput_bps);
            assert!(mean_rtt_s <= bound_s, "BBR mean RTT {mean_rtt_s} > {bound_s}");
            assert!((min_rtt_s - BASE_RTT_S).abs() < 1e-6, "{min_rtt_s}");
            assert_eq!(f.retransmissions, 0);
        }
        rtts.push(mean_rtt_s);
    }
    assert!(rtts[1] > 2.0 * bound_s && rtts[2] > 2.0 * bound_s, "Reno/CUBIC RTTs {rtts:?} vs BBR's bound {bound_s}");
}

/// 1% uniform loss on the bottleneck, 5 seeds: Reno's goodput is the Mathis rate (within 25%);
/// BBR, whose model ignores random loss, keeps ≥ 90% of the ceiling (the paper's Fig. 8: BBR v1
/// holds its rate up to loss rates far above 1%) and more than 1.5× Reno's. Measured: BBR ≈ 1.85,
/// Reno ≈ 1.0 Mb/s.
#[test]
fn one_percent_loss_well_above_reno() {
    let seeds = 1..=5u64;
    let gp = |cc: &str| -> Vec<f64> { seeds.clone().map(|sd| run(&deep_path(0.01, cc), sd).summary.flows[0].goodput_bps).collect() };
    let (bbr, sd_b) = mean_sd(&gp("bbr"));
    let (reno, sd_r) = mean_sd(&gp("reno"));
    let mathis = 8000.0 / BASE_RTT_S * (1.5f64 / 0.01).sqrt();
    eprintln!("1%: BBR {bbr:.0} ± {sd_b:.0}, Reno {reno:.0} ± {sd_r:.0}, Mathis {mathis:.0} b/s");
    assert!((0.75..=1.25).contains(&(reno / mathis)), "Reno {reno} vs Mathis {mathis}");
    assert!(bbr >= 0.9 * CEILING_BPS, "BBR {bbr} < 90% of {CEILING_BPS}");
    assert!(bbr > 1.5 * reno, "BBR {bbr} vs Reno {reno}");
}

/// Same scenario and seed, same output (pacing timers included).
#[test]
fn deterministic() {
    let a = airtcp::run(&deep_path(0.01, "bbr"), &airtcp::RunOptions { seed: Some(7), ..Default::default() }).map(Option::unwrap).unwrap();
    let b = airtcp::run(&deep_path(0.01, "bbr"), &airtcp::RunOptions { seed: Some(7), ..Default::default() }).map(Option::unwrap).unwrap();
    assert_eq!(format!("{:?}", a.summary), format!("{:?}", b.summary));
}
