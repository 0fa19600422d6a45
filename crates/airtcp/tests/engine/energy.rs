//! The hosts' energy (`[energy]`, `metrics::energy`; TCP Prairie thesis §2.3.1) against the links'
//! own counters and against the energy per megabyte worked by hand.

use crate::common::{fig10, run, variant};

/// 1040-B data packets at 2 Mb/s take 4.16 ms, 40-B ACKs 0.16 ms.
const DATA_S: f64 = 1040.0 * 8.0 / 2e6;
const ACK_S: f64 = 40.0 * 8.0 / 2e6;

/// With no warm-up, the sink's receptions are every packet that arrived over BS → D, its
/// transmissions every ACK D → BS serialized, and its energy 1 W × the first + 3 W × the second.
#[test]
fn energy_adds_up_the_links_counters() {
    let text = variant(&format!("{}\n[energy]\n", fig10(0.01, "newreno", 50, 40, "rwnd_pkts = 15")), &["warmup=\"0s\""]);
    let out = run(&text, 3);
    let s = &out.summary;
    let hosts = s.hosts.as_ref().expect("hosts with [energy]");
    assert_eq!(hosts.iter().map(|h| h.node.as_str()).collect::<Vec<_>>(), ["S", "D"]);
    let (d, to_d, from_d) = (&hosts[1], &s.links[2], &s.links[3]);
    assert_eq!((to_d.name.as_str(), from_d.name.as_str()), ("BS->D", "D->BS"));
    assert!(to_d.channel_losses > 20, "the channel loses packets: {}", to_d.channel_losses);
    // Packets the channel lost never reach D; the others all arrive by the end or are held.
    assert_eq!(d.rx_packets, to_d.arrived_packets);
    assert_eq!(d.rx_bytes, to_d.arrived_packets * 1040);
    assert!((d.rx_time_s - to_d.arrived_packets as f64 * DATA_S).abs() < 1e-6);
    assert_eq!((d.tx_packets, d.tx_bytes), (from_d.packets_sent, from_d.bytes_sent));
    assert!((d.tx_time_s - from_d.packets_sent as f64 * ACK_S).abs() < ACK_S);
    assert_eq!(d.delivered_bytes, s.flows[0].delivered_bytes);
    let e = d.energy_j.unwrap();
    assert!((e - (d.rx_time_s + 3.0 * d.tx_time_s)).abs() < 1e-9);
    assert!((d.energy_per_mb_j.unwrap() - e / (d.delivered_bytes as f64 / 1e6)).abs() < 1e-12);
    // The source delivers nothing to itself: energy but no energy per megabyte.
    assert!(hosts[0].energy_j.is_some() && hosts[0].energy_per_mb_j.is_none());
}

/// Lossless and within the buffer (a 15-segment window, as the thesis's), every arriving segment is new data and costs 4.16 ms of reception; one ACK per
/// segment costs 3 × 0.16 ms, one per two segments (delayed ACKs, the thesis's New-Reno with DACK)
/// half that: 4.64 and 4.40 J per MB at 1 W receive power.
#[test]
fn energy_per_megabyte_by_hand_with_and_without_delayed_acks() {
    let base = format!("{}\n[energy]\n", fig10(0.0, "newreno", 50, 60, "rwnd_pkts = 15"));
    let per_mb = |text: &str| run(text, 1).summary.hosts.unwrap()[1].energy_per_mb_j.unwrap();
    let every = per_mb(&base);
    let delayed = per_mb(&variant(&base, &["flows.0.delayed_ack=true"]));
    let by_hand_every = (DATA_S + 3.0 * ACK_S) * 1000.0;
    let by_hand_delayed = (DATA_S + 3.0 * ACK_S / 2.0) * 1000.0;
    assert!((every - by_hand_every).abs() / by_hand_every < 1e-3, "{every} vs {by_hand_every}");
    assert!((delayed - by_hand_delayed).abs() / by_hand_delayed < 2e-3, "{delayed} vs {by_hand_delayed}");
    // The powers scale it linearly: receive 2 W, transmit 6 W doubles it.
    let doubled = per_mb(&variant(&base, &["energy.rx_power_w=2.0", "energy.tx_power_w=6.0"]));
    assert!((doubled - 2.0 * every).abs() < 1e-9);
}

/// Without `[energy]` the summary has no `hosts` (every other summary stays as it was).
#[test]
fn no_hosts_without_the_table() {
    let out = run(&fig10(0.0, "newreno", 50, 12, ""), 1);
    assert!(out.summary.hosts.is_none());
    assert!(!serde_json::to_string(&out.summary).unwrap().contains("\"hosts\""));
}

#[test]
fn bad_power_is_one_line_naming_the_field() {
    let text = variant(&format!("{}\n[energy]\n", fig10(0.0, "newreno", 50, 12, "")), &["energy.tx_power_w=-3.0"]);
    let e = airtcp::run(&text, &airtcp::RunOptions { seed: Some(1), ..Default::default() }).map(Option::unwrap).unwrap_err().to_string();
    assert!(e.starts_with("energy.tx_power_w: -3 is out of range (allowed: 0 to"), "{e}");
    let text = format!("{}\n[energy]\nwatts = 1\n", fig10(0.0, "newreno", 50, 12, ""));
    let e = airtcp::run(&text, &airtcp::RunOptions { seed: Some(1), ..Default::default() }).map(Option::unwrap).unwrap_err().to_string();
    assert!(e.contains("watts"), "{e}");
}
