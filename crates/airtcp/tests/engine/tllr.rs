//! TCP-aware link-level retransmission (`link_retransmission`, `net::arq`; TCP Prairie thesis
//! §2.3's "New-Reno with TLLR") checked against a renewal argument worked by hand.

use crate::common::{fig10, run, variant};

/// A saturated TCP flow over a 2 Mb/s hop that loses each frame with probability p and repairs it
/// locally: TCP itself sees no loss, and the hop's time per delivered 1040-B frame is
///   E = tx + p·(tx + 2·d + tx) + (p² + p³ + …)·(T + tx)
/// (first repeat after tx + 2d, later ones after the timeout T, each costing another tx), so the
/// goodput is 8000 bits / E. With tx = 4.16 ms, d = 1 ms, T = 100 ms and p = 5%:
/// E = 4.16 + 0.516 + 0.2741 = 4.950 ms → 1.616 Mb/s (the hop's lossless payload rate is 1.923).
/// Link retransmissions per delivered frame: p/(1 − p) = 0.0526.
#[test]
fn tllr_goodput_matches_the_renewal_model() {
    // TCP-Jersey Fig. 10's path with a 100 Mb/s, 1 ms first hop, 1000-packet buffers and 5% loss.
    let sets = ["name=tllr", "links.0.rate=100Mbps", "links.0.delay=1ms", "links.1.link_retransmission=true", "flows.0.rwnd_pkts=200"];
    let text = &variant(&fig10(0.05, "newreno", 1000, 100, ""), &sets);
    let tx = 1040.0 * 8.0 / 2e6;
    let (p, d, t) = (0.05f64, 0.001, 0.1);
    let e = tx + p * (2.0 * tx + 2.0 * d) + (p * p / (1.0 - p)) * (t + tx);
    let model_bps = 8000.0 / e;
    let mut goodputs = Vec::new();
    for seed in 1..=3 {
        let out = run(text, seed);
        let f = &out.summary.flows[0];
        let hop = out.summary.links.iter().find(|l| l.name == "BS->D").unwrap();
        assert_eq!(f.retransmissions, 0, "every loss repaired on the hop (seed {seed})");
        assert_eq!(f.timeouts, 0);
        let delivered = (hop.packets_sent - hop.link_retransmissions) as f64;
        let per_frame = hop.link_retransmissions as f64 / delivered;
        assert!((per_frame / (p / (1.0 - p)) - 1.0).abs() < 0.1, "seed {seed}: {per_frame} repeats per frame");
        // Each failed attempt is a channel loss: losses = repeats (none reached the end).
        assert_eq!(hop.channel_losses, hop.link_retransmissions);
        goodputs.push(f.goodput_bps);
    }
    let mean = goodputs.iter().sum::<f64>() / goodputs.len() as f64;
    println!("TLLR goodput {mean:.0} b/s, model {model_bps:.0} b/s (ratio {:.4})", mean / model_bps);
    assert!((mean / model_bps - 1.0).abs() < 0.02, "goodput {mean} vs model {model_bps}");
}

/// Only TCP data is repaired: the same hop carrying the flow's ACKs (reverse channel lossy) repairs
/// nothing, and bad settings are one-line errors naming the field.
#[test]
fn tllr_repairs_data_only_and_checks_its_settings() {
    let base = |extra: &str| {
        format!(
            r#"
name = "tllr-acks"
duration = "20s"
nodes = ["S", "D"]

[[links]]
from = "S"
to = "D"
rate = "2Mbps"
delay = "1ms"
reverse_channel = {{ kind = "uniform", loss = 0.05 }}
link_retransmission = true
{extra}

[[flows]]
kind = "tcp"
src = "S"
dst = "D"
rwnd_pkts = 20
"#
        )
    };
    let out = run(&base(""), 1);
    let back = out.summary.links.iter().find(|l| l.name == "D->S").unwrap();
    assert!(back.channel_losses > 0);
    assert_eq!(back.link_retransmissions, 0);
    let e = airtcp::run(&base("link_retransmission_max = 0"), &airtcp::RunOptions { seed: Some(1), ..Default::default() })
        .map(Option::unwrap)
        .unwrap_err()
        .to_string();
    assert!(e.contains("links[0].link_retransmission_max") && e.contains("from 1 to 1000"), "{e}");
    let e = airtcp::run(&base("link_retransmission_timeout = \"0s\""), &airtcp::RunOptions { seed: Some(1), ..Default::default() })
        .map(Option::unwrap)
        .unwrap_err()
        .to_string();
    assert!(e.contains("links[0].link_retransmission_timeout"), "{e}");
}
