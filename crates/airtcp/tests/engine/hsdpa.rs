//! The HSDPA cell (TCP-Jersey over HSDPA, Li & Ansari) against independent truths: the scheduler's long-run shares, a
//! saturated UE's throughput worked from the CQI table and the BLER curve, HARQ's residual error,
//! RLC AM's exactly-once in-order delivery, determinism.

use crate::common;

use airtcp::net::capacity::hsdpa::{cqi, SF};
use airtcp::output::{FlowSummary, HsdpaUeSummary};

/// A cell fed by `n` saturating UDP sources (`cbr_kbps` each, `payload` B datagrams), every UE
/// with a static channel at `geometry_db`. `cell` is extra keys of the hsdpa table.
fn udp_cell(n: usize, geometries_db: &[f64], payload: u32, cell: &str, duration_s: u32) -> String {
    let ues: Vec<String> = (0..n)
        .map(|i| format!("{{ flow = \"u{i}\", geometry_db = {}, channel_model = \"static\" }}", geometries_db[i % geometries_db.len()]))
        .collect();
    let mut t = format!(
        r#"
name = "cell"
duration = "{duration_s}s"
warmup = "2s"
nodes = ["s", "rnc", "ue"]

[[links]]
from = "s"
to = "rnc"
rate = "1Gbps"
delay = "10ms"
queue = {{ kind = "droptail", limit_pkts = 100000 }}

[[links]]
from = "rnc"
to = "ue"
delay = "1ms"
capacity = {{ kind = "hsdpa", ues = [{}] {cell} }}
reverse_capacity = {{ kind = "constant", rate = "384kbps" }}
queue = {{ kind = "droptail", limit_pkts = 200 }}
"#,
        ues.join(", ")
    );
    for i in 0..n {
        t += &format!(
            "\n[[flows]]\nkind = \"cbr\"\nname = \"u{i}\"\nsrc = \"s\"\ndst = \"ue\"\nrate = \"20Mbps\"\npacket_bytes = {payload}\n"
        );
    }
    t
}

fn hs(f: &FlowSummary) -> &HsdpaUeSummary {
    f.hsdpa.as_ref().expect("the flow crosses the cell")
}

/// HS-DSCH SINR of a static channel at geometry g (dB): SF 16 × 0.8 × G (eq. 3 with one path).
fn static_sinr_db(g_db: f64) -> f64 {
    10.0 * (SF * 0.8).log10() + g_db
}

/// One saturated UE alone: every TTI carries a block (6 HARQ processes cover the 6-TTI round
/// trip), at the row of its CQI. With per-transmission failure probabilities p_k (the BLER curve
/// at the k-fold combined SINR), a block takes E[tx] = 1 + p1 + p1p2 + p1p2p3 transmissions and
/// decodes with probability 1 − p1p2p3p4, so decoded bits per second = TBS (1 − Πp) / E[tx] / TTI.
/// The UDP goodput follows from the UM packing: 117-B datagrams + 3-B ROHC = 120 B = five 24-B
/// PDU payloads; a block carries ⌊TBS/200⌋ PDUs.
#[test]
fn saturated_single_ue_throughput_matches_the_table() {
    for g_db in [-3.0, 2.0, 8.0] {
        let out = common::run(&udp_cell(1, &[g_db], 117, "", 30), 1);
        let f = &out.summary.flows[0];
        let h = hs(f);
        let sinr = static_sinr_db(g_db);
        let q = cqi::cqi_of_sinr(sinr);
        assert_eq!(h.mean_cqi, q as f64);
        let tbs = cqi::entry(q).tbs_bits as f64;
        let lin = 10f64.powf(sinr / 10.0);
        let p: Vec<f64> = (1..=4).map(|k| cqi::bler(q, 10.0 * (k as f64 * lin).log10() + if k > 1 { 1.0 } else { 0.0 }, 2.0)).collect();
        let e_tx = 1.0 + p[0] + p[0] * p[1] + p[0] * p[1] * p[2];
        let p_ok = 1.0 - p.iter().product::<f64>();
        let want_bps = tbs * p_ok / e_tx / 2e-3;
        // decoded_bps is over the whole run (30 s), the UE busy from its first packet (~11 ms).
        let got = h.decoded_bps;
        assert!((got / want_bps - 1.0).abs() < 0.01, "G {g_db} dB, CQI {q}: {got} vs {want_bps} b/s (p1 {})", p[0]);
        let pdus_per_tb = (tbs / 200.0).floor();
        let want_goodput = want_bps / tbs * pdus_per_tb / 5.0 * 117.0 * 8.0;
        assert!((f.goodput_bps / want_goodput - 1.0).abs() < 0.01, "goodput {} vs {want_goodput}", f.goodput_bps);
    }
}

/// n saturated UEs with the same static channel, one UE per TTI: proportional fair and round
/// robin both give each 1/n of the TTIs (PF's ratios are equal when served equally).
#[test]
fn equal_channels_share_the_cell_equally() {
    for sched in ["pf", "rr"] {
        let n = 4;
        let out = common::run(&udp_cell(n, &[3.0], 117, &format!(", scheduler = \"{sched}\", max_ues_per_tti = 1"), 20), 2);
        let blocks: Vec<f64> = out.summary.flows.iter().map(|f| hs(f).new_blocks as f64 + hs(f).harq_retransmissions as f64).collect();
        let total: f64 = blocks.iter().sum();
        for b in &blocks {
            assert!((b / total - 1.0 / n as f64).abs() < 0.005, "{sched}: shares {:?}", blocks);
        }
    }
}

/// Two saturated UEs on static channels of different quality: PF gives each half the TTIs
/// (each is at its own constant rate, so equal ratios R/R_ave mean equal time); max C/I gives
/// every TTI to the better one.
#[test]
fn pf_shares_time_and_max_ci_starves_the_weaker() {
    let g = [0.0, 9.0];
    let pf = common::run(&udp_cell(2, &g, 117, ", max_ues_per_tti = 1", 20), 3);
    let tx = |f: &FlowSummary| hs(f).new_blocks as f64 + hs(f).harq_retransmissions as f64;
    let (a, b) = (tx(&pf.summary.flows[0]), tx(&pf.summary.flows[1]));
    assert!((a / (a + b) - 0.5).abs() < 0.01, "PF time shares {a} / {b}");
    let mci = common::run(&udp_cell(2, &g, 117, ", scheduler = \"max_ci\", max_ues_per_tti = 1", 20), 3);
    assert_eq!(tx(&mci.summary.flows[0]), 0.0);
    assert!(mci.summary.flows[1].goodput_bps > pf.summary.flows[1].goodput_bps * 1.8);
}

/// HARQ's residual error in the cell: with one transmission allowed, the share of blocks given up
/// is the BLER p1; with two, p1·p2 (p2 at the combined SINR). A wide waterfall (20 dB) makes both
/// large enough to count.
#[test]
fn harq_residual_error_is_the_product_of_per_transmission_blers() {
    let g_db = 2.5;
    let sinr = static_sinr_db(g_db);
    let q = cqi::cqi_of_sinr(sinr);
    let lin = 10f64.powf(sinr / 10.0);
    let p1 = cqi::bler(q, sinr, 20.0);
    let p2 = cqi::bler(q, 10.0 * (2.0 * lin).log10(), 20.0);
    for (max_tx, want) in [(1, p1), (2, p1 * p2)] {
        let cell = format!(", harq_max_tx = {max_tx}, ir_gain_db = 0, bler_waterfall_db = 20");
        let out = common::run(&udp_cell(1, &[g_db], 117, &cell, 60), 4);
        let h = hs(&out.summary.flows[0]);
        let n = h.new_blocks as f64;
        let got = h.harq_given_up as f64 / n;
        let se = (want * (1.0 - want) / n).sqrt();
        assert!((got - want).abs() < 4.0 * se, "max_tx {max_tx}: residual {got} vs {want} (±{se})");
        assert!((h.first_tx_bler - p1).abs() < 4.0 * (p1 * (1.0 - p1) / n).sqrt() + 1e-3, "first-tx BLER {} vs {p1}", h.first_tx_bler);
    }
}

fn tcp_cell(cell: &str, bytes: Option<u64>, buffer: u32) -> String {
    let b = bytes.map_or(String::new(), |b| format!("bytes = \"{b}B\""));
    format!(
        r#"
name = "tcp-cell"
duration = "40s"
nodes = ["s", "rnc", "ue"]

[[links]]
from = "s"
to = "rnc"
rate = "100Mbps"
delay = "50ms"
queue = {{ kind = "droptail", limit_pkts = 1000 }}

[[links]]
from = "rnc"
to = "ue"
delay = "1ms"
capacity = {{ kind = "hsdpa" {cell} }}
reverse_capacity = {{ kind = "constant", rate = "384kbps" }}
queue = {{ kind = "droptail", limit_pkts = {buffer} }}

[[flows]]
kind = "tcp"
name = "ftp"
src = "s"
dst = "ue"
mss_bytes = 1460
{b}

[[flows]]
kind = "onoff"
name = "voip"
src = "s"
dst = "ue"
stop = "35s"
"#
    )
}

/// RLC AM hides the radio from TCP: with HARQ allowed a single transmission (so blocks fail
/// often and RLC resends their PDUs) and a Node-B buffer larger than TCP's window (no overflow),
/// and no SDU discard (timer 100 s), a 3-MB transfer arrives whole, and TCP never retransmits or sees a duplicate ACK's recovery —
/// which any reordering, duplication or loss of an SDU by RLC would cause.
#[test]
fn rlc_am_delivers_every_sdu_once_in_order() {
    let bytes = 3_000_000u64;
    let text = tcp_cell(
        ", harq_max_tx = 1, sdu_discard = \"100s\", ues = [{ flow = \"ftp\", geometry_db = 0.0, channel_model = \"C\" }]",
        Some(bytes),
        1000,
    );
    let out = common::run(&text, 5);
    let f = &out.summary.flows[0];
    let h = hs(f);
    assert!(h.harq_given_up > 100 && h.rlc_pdus_retransmitted > 1000, "{h:?}");
    assert_eq!(h.rlc_sdus_dropped, 0);
    assert_eq!(f.delivered_bytes, bytes);
    assert_eq!((f.retransmissions, f.timeouts, f.fast_retransmits), (0, 0, 0));
    // Every SDU the cell took was delivered exactly once or lost by UM (the VoIP UE's PDUs are
    // not resent): with the VoIP source stopped 5 s before the end, the cell is empty at the end.
    let cell = &out.summary.links[2];
    assert_eq!(cell.name, "rnc->ue");
    let received: u64 = out.summary.flows.iter().map(|f| f.packets_received).sum();
    let voip_lost = hs(&out.summary.flows[1]).rlc_sdus_dropped;
    assert!(voip_lost > 0);
    assert_eq!(cell.channel_losses, voip_lost);
    assert_eq!(cell.packets_sent, received + voip_lost);
}

/// Same scenario and seed, same bytes; a different seed drops the UEs elsewhere.
#[test]
fn runs_are_deterministic_and_seeded() {
    let text = tcp_cell("", None, 50);
    let a = airtcp::run(&text, &airtcp::RunOptions { seed: Some(7), ..Default::default() }).map(Option::unwrap).unwrap();
    let b = airtcp::run(&text, &airtcp::RunOptions { seed: Some(7), ..Default::default() }).map(Option::unwrap).unwrap();
    assert_eq!(serde_json::to_string(&a.summary).unwrap(), serde_json::to_string(&b.summary).unwrap());
    assert_eq!(a, b);
    let c = airtcp::run(&text, &airtcp::RunOptions { seed: Some(8), ..Default::default() }).map(Option::unwrap).unwrap();
    assert_ne!(hs(&a.summary.flows[0]).geometry_db, hs(&c.summary.flows[0]).geometry_db);
    // A UE's drop does not depend on the other UEs: the TCP UE is where it was without the VoIP flow.
    let alone = text.split("[[flows]]\nkind = \"onoff\"").next().unwrap().to_string();
    let d = airtcp::run(&alone, &airtcp::RunOptions { seed: Some(7), ..Default::default() }).map(Option::unwrap).unwrap();
    assert_eq!(hs(&a.summary.flows[0]).geometry_db, hs(&d.summary.flows[0]).geometry_db);
    // And on any number of threads.
    let jobs: Vec<airtcp::Job> = (0..4).map(|s| (text.clone(), Some(s), None)).collect();
    let one: Vec<_> = airtcp::run_many(&jobs, 1, None).into_iter().map(|r| r.unwrap().unwrap()).collect();
    let two: Vec<_> = airtcp::run_many(&jobs, 2, None).into_iter().map(|r| r.unwrap().unwrap()).collect();
    assert_eq!(one, two);
}

/// Bad cell settings are one-line errors naming the field and the allowed range.
#[test]
fn bad_cell_settings_name_their_field() {
    let base = tcp_cell("", None, 50);
    let cases = [
        (", scheduler = \"fifo\"", "links[1].capacity.scheduler", "`pf`, `rr`, `max_ci`"),
        (", codes = 16", "links[1].capacity.codes", "1 to 15"),
        (", harq_max_tx = 0", "links[1].capacity.harq_max_tx", "1 to 16"),
        (", hsdsch_power_fraction = 1.5", "links[1].capacity.hsdsch_power_fraction", "> 0 to 1"),
        (", bler_waterfall_db = 0", "links[1].capacity.bler_waterfall_db", "> 0 to 20"),
        (", rlc_pdu_bytes = 0", "links[1].capacity.rlc_pdu_bytes", "1 to"),
        (", ues = [{ flow = \"nope\" }]", "links[1].capacity.ues[0].flow", "known flows: ftp, voip"),
        (", ues = [{ flow = \"ftp\", channel_model = \"F\" }]", "links[1].capacity.ues[0].channel_model", "A, B, C, D, E, static"),
        (", ues = [{ flow = \"ftp\", geometry_db = 99 }]", "links[1].capacity.ues[0].geometry_db", "-30 to 40"),
        (", tti = \"2ms\"", "links[1].capacity.tti", "unknown field"),
    ];
    for (extra, field, allowed) in cases {
        let text = base.replace("kind = \"hsdpa\" ", &format!("kind = \"hsdpa\" {extra}"));
        let e =
            airtcp::run(&text, &airtcp::RunOptions { check_only: true, ..Default::default() }).map(|_| ()).expect_err(extra).to_string();
        assert!(!e.contains('\n') && e.starts_with(field) && e.contains(allowed), "{extra}: {e}");
    }
    let no_uplink = base.replace("reverse_capacity = { kind = \"constant\", rate = \"384kbps\" }\n", "");
    let e = airtcp::run(&no_uplink, &airtcp::RunOptions { check_only: true, ..Default::default() }).map(|_| ()).unwrap_err().to_string();
    assert!(e.starts_with("links[1].reverse_capacity") && e.contains("downlink only"), "{e}");
    let lossy = base.replace(
        "queue = { kind = \"droptail\", limit_pkts = 50 }",
        "queue = { kind = \"droptail\", limit_pkts = 50 }\nchannel = { kind = \"uniform\", loss = 0.01 }",
    );
    let e = airtcp::run(&lossy, &airtcp::RunOptions { check_only: true, ..Default::default() }).map(|_| ()).unwrap_err().to_string();
    assert!(e.starts_with("links[1].channel"), "{e}");
}
