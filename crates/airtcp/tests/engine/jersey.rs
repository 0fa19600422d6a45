//! The TCP-Jersey family against the seeds' claims (TCP-Jersey JSAC 2004, TCP NJ+): estimator
//! accuracy (Fig. 3), loss differentiation against the simulator's ground truth, goodput under
//! random loss (Fig. 11; NJ+ Fig. 7), fairness (Table I) and friendliness (Table II).
//! Every run prints its queue drops and CW marks. The numbers are in REPRODUCTION.md.

use crate::common::{fig10, mean_sd, run, variant};
use airtcp::output::{FlowSummary, LinkSummary};
use airtcp::RunOutput;

fn seeds() -> u64 {
    10
}

/// The flow options each scheme needs: the Jersey family reads CW marks (ECN) and, for New
/// Jersey and NJ+, the receiver's timestamps.
fn cc_lines(cc: &str) -> String {
    match cc {
        "jersey" => "cc = \"jersey\"\necn = true".into(),
        "new-jersey" | "nj+" => format!("cc = \"{cc}\"\necn = true\ntimestamps = true"),
        _ => format!("cc = \"{cc}\""),
    }
}

/// Queue drops and CW marks of a run, reported for every Jersey-family run.
fn report(label: &str, out: &RunOutput) {
    let links: Vec<String> = out
        .summary
        .links
        .iter()
        .filter(|l: &&LinkSummary| l.packets_sent > 0)
        .map(|l| {
            format!(
                "{}: overflow {} early {} CW marks {} channel {}",
                l.name, l.overflow_drops, l.early_drops, l.ce_marks, l.channel_losses
            )
        })
        .collect();
    eprintln!("{label}: {}", links.join("; "));
}

/// TCP-Jersey Fig. 10 (`common::fig10`: 50-packet buffers, 100 s) with a CW queue at the base
/// station (threshold 1/3 of 50 packets), the flow options `cc` needs and `recovery`; `cbr` is
/// appended after the flow (a second flow table) and `sets` are further overrides.
fn fig10_cw(loss: f64, cc: &str, recovery: &str, cbr: &str, sets: &[&str]) -> String {
    let base = fig10(loss, recovery, 50, 100, &format!("{}\n{cbr}", cc_lines(cc)));
    variant(&base, &[&["name=fig10-cw", "links.1.queue.kind=cw"], sets].concat())
}

/// Jersey Fig. 2/3: 1.5 Mb/s, 10 ms, a buffer that never overflows, CBR (1000-B datagrams)
/// 500 / 0 / 750 / 500 / 0 / 500 kb/s in 5-s phases. The true bandwidth available to the FTP
/// flow, in TCP payload terms, is (1.5 Mb/s − CBR wire rate)·1000/1040. In each phase after 1 s
/// of settling, the mean absolute error of Jersey's ABE is smaller than Westwood's BWE's.
/// The window is ns-2's default `window_` of 20 packets (the paper's simulator; it states no
/// window, and an unbounded one would grow the never-overflowing queue without limit).
#[test]
fn fig3_abe_tracks_available_bandwidth_better_than_westwood() {
    let phases = [(0.0, 500e3), (5.0, 0.0), (10.0, 750e3), (15.0, 500e3), (20.0, 0.0), (25.0, 500e3)];
    let schedule: Vec<String> = phases.iter().map(|(t, r)| format!("{{ at = \"{t}s\", rate = \"{r}bps\" }}")).collect();
    let text = |cc: &str| {
        format!(
            r#"
name = "fig3"
duration = "30s"
sample_interval = "50ms"
nodes = ["S", "D"]
[[links]]
from = "S"
to = "D"
rate = "1.5Mbps"
delay = "10ms"
queue = {{ kind = "droptail", limit_pkts = 100000 }}
[[flows]]
kind = "tcp"
name = "ftp"
src = "S"
dst = "D"
mss_bytes = 1000
rwnd_pkts = 20
{}
[[flows]]
kind = "cbr"
name = "cbr"
src = "S"
dst = "D"
packet_bytes = 1000
schedule = [{}]
"#,
            cc_lines(cc),
            schedule.join(", ")
        )
    };
    let mae = |cc: &str| -> Vec<f64> {
        let out = run(&text(cc), 1);
        let s = &out.flow_series;
        phases
            .iter()
            .enumerate()
            .map(|(k, &(t0, cbr))| {
                let t1 = phases.get(k + 1).map_or(30.0, |p| p.0);
                let truth = (1.5e6 - cbr * 1028.0 / 1000.0) * 1000.0 / 1040.0;
                let errs: Vec<f64> = (0..s.rows())
                    .filter(|&i| s.flow_name(i) == "ftp" && s.time_s(i) >= t0 + 1.0 && s.time_s(i) <= t1)
                    .map(|i| (s.bwe(i).unwrap() - truth).abs())
                    .collect();
                errs.iter().sum::<f64>() / errs.len() as f64
            })
            .collect()
    };
    let (j, w) = (mae("jersey"), mae("westwood"));
    for k in 0..phases.len() {
        eprintln!("phase {k}: ABE MAE {:.0} b/s, Westwood MAE {:.0} b/s", j[k], w[k]);
    }
    let (jm, wm) = (j.iter().sum::<f64>() / 6.0, w.iter().sum::<f64>() / 6.0);
    eprintln!("mean: ABE {jm:.0}, Westwood {wm:.0}");
    for k in 0..phases.len() {
        assert!(j[k] < w[k], "phase {k}: ABE MAE {} ≥ Westwood MAE {}", j[k], w[k]);
    }
}

fn verdict_fractions(flows: &[&FlowSummary]) -> (f64, f64, u64, u64) {
    let mut t = airtcp::output::LossDifferentiation::default();
    for f in flows {
        let d = f.loss_differentiation.expect("Jersey reports its verdicts");
        t.queue_drops_as_congestion += d.queue_drops_as_congestion;
        t.queue_drops_as_link_error += d.queue_drops_as_link_error;
        t.channel_losses_as_congestion += d.channel_losses_as_congestion;
        t.channel_losses_as_link_error += d.channel_losses_as_link_error;
    }
    (
        t.queue_correct_fraction().unwrap(),
        t.channel_correct_fraction().unwrap(),
        t.queue_drops_as_congestion + t.queue_drops_as_link_error,
        t.channel_losses_as_congestion + t.channel_losses_as_link_error,
    )
}

/// The share of Jersey's data segments the CW router marked on `link`.
fn marked_fraction(outs: &[RunOutput], link: &str) -> f64 {
    let (mut marks, mut sent) = (0u64, 0u64);
    for o in outs {
        marks += o.summary.links.iter().find(|l| l.name == link).expect("link").ce_marks;
        sent += o.summary.flows[0].packets_sent;
    }
    marks as f64 / sent as f64
}

/// Loss differentiation under the Fig. 12 load: five VoIP talkers on the Fig. 10 path, 1% channel
/// loss, the paper's Reno recovery (`experiments/jersey/fig12.toml` with Jersey as the TCP flow).
/// Each n-th duplicate ACK or timeout is a verdict; the simulator knows why the segment was dropped.
/// Checked: ≥ 90% of channel losses answered as link errors (the issue's bar; Jersey §III-B says
/// "most link losses"). The queue-drop side is printed, not checked: Jersey's own segments overflow
/// only ~4 times per run here (VoIP takes most overflows), mostly in the start-up overshoot before
/// the CW average has risen, so the fraction rests on a few dozen verdicts.
#[test]
fn loss_differentiation_fig12_voip_load() {
    let text = variant(include_str!("../../../../experiments/jersey/fig12.toml"), &["flows.0.cc=jersey", "flows.0.ecn=true"]);
    let outs: Vec<RunOutput> = (1..=seeds()).map(|seed| run(&text, seed)).collect();
    for (k, o) in outs.iter().enumerate() {
        report(&format!("jersey + 5 VoIP seed {}", k + 1), o);
    }
    let flows: Vec<&FlowSummary> = outs.iter().map(|o| &o.summary.flows[0]).collect();
    let (q, c, nq, nc) = verdict_fractions(&flows);
    let m = marked_fraction(&outs, "BS->D");
    eprintln!(
        "5 VoIP: channel losses as link errors {c:.3} of {nc}; queue drops as congestion {q:.3} of {nq}; Jersey segments CW-marked {m:.3}"
    );
    assert!(c >= 0.9, "channel losses answered as link errors: {c}");
}

/// Loss differentiation on Fig. 10 with 1% channel loss and a CBR load (200-B datagrams,
/// 1.2 Mb/s on and off every 2 s) that makes the 2 Mb/s link overflow often. The CW queue lets the
/// (non-ECT) CBR datagrams pass above the threshold (`drop_non_ect = false`): dropping them
/// early would keep the queue from ever overflowing, and overflow is what is measured here.
/// Checked, with Reno's recovery (the paper's) and NewReno's (one verdict per loss episode instead
/// of one per hole):
/// - ≥ 90% of queue drops answered as congestion (Jersey §III-B: "almost 100%");
/// - the channel losses answered as congestion are no more than coincident congestion explains. A
///   channel loss is answered as congestion exactly when the segment that triggers the n-th
///   duplicate ACK crossed the CW queue while its average was above the threshold. The loss is
///   independent of the queue, so that happens with about the probability p that any Jersey
///   segment is marked, which the router counts independently of the verdicts: the wrong
///   fraction must stay below p + 3 binomial standard deviations. With this load p ≈ 0.19, so no
///   CW verdict can reach the issue's ≥ 90% of channel losses as link errors (ours: ≈ 0.85).
///   (This bound is loose: an RFC 3168 "until CWR" echo still passes it here, 0.17 against 0.20;
///   the Fig. 12 test above is the one that catches that, 0.80 < 0.9.)
#[test]
fn loss_differentiation_with_overflow_and_channel_loss() {
    let sched: Vec<String> =
        (0..50).map(|k| format!("{{ at = \"{}s\", rate = \"{}\" }}", 2 * k, if k % 2 == 0 { "1.2Mbps" } else { "0bps" })).collect();
    let cbr = format!(
        "[[flows]]\nkind = \"cbr\"\nname = \"cbr\"\nsrc = \"S\"\ndst = \"D\"\npacket_bytes = 200\nschedule = [{}]",
        sched.join(", ")
    );
    for recovery in ["reno", "newreno"] {
        let mut outs = Vec::new();
        for seed in 1..=seeds() {
            let out = run(&fig10_cw(0.01, "jersey", recovery, &cbr, &["links.1.queue.drop_non_ect=false"]), seed);
            report(&format!("jersey/{recovery} seed {seed}"), &out);
            outs.push(out);
        }
        let flows: Vec<&FlowSummary> = outs.iter().map(|o| &o.summary.flows[0]).collect();
        let (q, c, nq, nc) = verdict_fractions(&flows);
        let p = marked_fraction(&outs, "BS->D");
        let bound = p + 3.0 * (p * (1.0 - p) / nc as f64).sqrt();
        eprintln!(
            "{recovery}: queue drops answered as congestion {q:.3} of {nq}; channel losses as link errors {c:.3} of {nc}; \
             Jersey segments CW-marked p = {p:.3}, so at most {:.3} as congestion",
            bound
        );
        assert!(q >= 0.9, "{recovery}: queue drops answered as congestion: {q}");
        assert!(1.0 - c <= bound, "{recovery}: channel losses answered as congestion {} > marked share bound {bound}", 1.0 - c);
    }
}

/// Fig. 11 at 1% uniform loss, no congestion, 10 seeds, goodput from the ACKs at the sender
/// (§IV-A), every scheme with Reno's recovery as in the paper: Jersey > Westwood > Reno and
/// Jersey ≥ 1.5 × Reno (the paper: +85% over Reno, +17% over Westwood).
#[test]
fn fig11_goodput_at_one_percent() {
    let g = |cc: &str| -> f64 {
        let xs: Vec<f64> = (1..=seeds())
            .map(|seed| {
                let out = run(&fig10_cw(0.01, cc, "reno", "", &[]), seed);
                if cc == "jersey" {
                    report(&format!("jersey seed {seed}"), &out);
                }
                out.summary.flows[0].goodput_acked_bps
            })
            .collect();
        let (m, sd) = mean_sd(&xs);
        eprintln!("{cc}: {m:.0} ± {:.0} b/s", sd / (xs.len() as f64).sqrt());
        m
    };
    let (reno, westwood, jersey) = (g("reno"), g("westwood"), g("jersey"));
    eprintln!("Jersey/Reno {:.2}, Jersey/Westwood {:.3}", jersey / reno, jersey / westwood);
    assert!(westwood > reno);
    assert!(jersey > westwood, "Jersey {jersey} vs Westwood {westwood}");
    assert!(jersey >= 1.5 * reno, "Jersey {jersey} vs Reno {reno}");
}

/// NJ+ Fig. 6: S –100 Mb/s, 45 ms, 150-packet queue– BS –2 Mb/s, 1 ms, 20-packet CW queue– D,
/// 726-B packets, 5% loss on the wireless link; NJ+ ≥ New Jersey in mean goodput over 10 seeds
/// (the paper: +19%).
#[test]
fn nj_plus_fig7_at_five_percent() {
    let text = |cc: &str| {
        format!(
            r#"
name = "nj-fig6"
duration = "100s"
warmup = "10s"
nodes = ["S", "BS", "D"]
[[links]]
from = "S"
to = "BS"
rate = "100Mbps"
delay = "45ms"
queue = {{ kind = "droptail", limit_pkts = 150 }}
[[links]]
from = "BS"
to = "D"
rate = "2Mbps"
delay = "1ms"
queue = {{ kind = "cw", limit_pkts = 20 }}
channel = {{ kind = "uniform", loss = 0.05 }}
[[flows]]
kind = "tcp"
name = "ftp"
src = "S"
dst = "D"
mss_bytes = 726
min_rto = "200ms"
recovery = "reno"
{}
"#,
            cc_lines(cc)
        )
    };
    let g = |cc: &str| -> f64 {
        let xs: Vec<f64> = (1..=seeds())
            .map(|seed| {
                let out = run(&text(cc), seed);
                if cc != "reno" && cc != "westwood" {
                    report(&format!("{cc} seed {seed}"), &out);
                }
                out.summary.flows[0].goodput_bps
            })
            .collect();
        let (m, sd) = mean_sd(&xs);
        eprintln!("{cc}: {m:.0} ± {:.0} b/s", sd / (xs.len() as f64).sqrt());
        m
    };
    let (reno, westwood, nj, njp) = (g("reno"), g("westwood"), g("new-jersey"), g("nj+"));
    eprintln!("NJ+/NJ {:.3}, NJ+/Westwood {:.3}, NJ+/Reno {:.3}", njp / nj, njp / westwood, njp / reno);
    assert!(njp >= nj, "NJ+ {njp} vs NJ {nj}");
}

/// Fig. 14/15 bottleneck: 20 sources –100 Mb/s, 45 ms– R –20 Mb/s, 1 ms, CW queue– D.
fn many_flows(kinds: &[(&str, usize)], loss: f64) -> String {
    let mut s = format!(
        r#"
name = "fairness"
duration = "100s"
warmup = "20s"
nodes = ["S", "R", "D"]
[[links]]
from = "S"
to = "R"
rate = "100Mbps"
delay = "45ms"
queue = {{ kind = "droptail", limit_pkts = 1000 }}
[[links]]
from = "R"
to = "D"
rate = "20Mbps"
delay = "1ms"
queue = {{ kind = "cw", limit_pkts = 100 }}
channel = {{ kind = "uniform", loss = {loss} }}
"#
    );
    let mut i = 0;
    for &(cc, n) in kinds {
        for _ in 0..n {
            // Staggered starts (10 ms apart) so the flows do not start in lockstep.
            s += &format!(
                "[[flows]]\nkind = \"tcp\"\nname = \"f{i}\"\nsrc = \"S\"\ndst = \"D\"\nmss_bytes = 1000\nmin_rto = \"200ms\"\nrecovery = \"reno\"\nstart = \"{}ms\"\n{}\n",
                10 * i,
                cc_lines(cc)
            );
            i += 1;
        }
    }
    s
}

/// Table I: 20 Jersey flows, no loss: Jain's index ≥ 0.97 (the paper: 1.0).
#[test]
fn table1_jersey_fairness() {
    let out = run(&many_flows(&[("jersey", 20)], 0.0), 1);
    report("20 jersey", &out);
    let jain = out.summary.jain_fairness_tcp.unwrap();
    let total: f64 = out.summary.flows.iter().map(|f| f.goodput_bps).sum();
    eprintln!("Jain {jain:.4}, total goodput {total:.0} b/s");
    assert!(jain >= 0.97, "Jain {jain}");
}

/// Tables II-III (Fig. 15): `experiments/jersey/mix.toml`, 10 Reno + 10 Jersey flows. Its readings
/// (ns-2's default window of 20 packets, 1000-packet buffers; the paper gives neither) predict by
/// hand: 20 windows of 20 = 400 packets against a pipe of 92.5 ms x 2404 pkt/s = 222 packets leave
/// a standing queue of 178 packets, below the CW threshold 1000/3, so with no random loss nothing is
/// marked or dropped and every flow gets the goodput fair share 20 Mb/s x 1000/1040 / 20 = 961.5
/// kb/s (Table II: 959 for both groups). With 0.1% loss Reno halves on each loss while Jersey's
/// unmarked losses leave its window alone, so Jersey's group gets more (Table III: 993.9 vs 916.2).
#[test]
fn table2_jersey_reno_shares() {
    let fair = 20e6 * 1000.0 / 1040.0 / 20.0;
    let base = include_str!("../../../../experiments/jersey/mix.toml");
    let group_means = |out: &RunOutput| {
        let mean = |cc: &str| {
            let xs: Vec<f64> = out.summary.flows.iter().filter(|f| f.cc.as_deref() == Some(cc)).map(|f| f.goodput_bps).collect();
            assert_eq!(xs.len(), 10, "{cc} flows");
            xs.iter().sum::<f64>() / xs.len() as f64
        };
        (mean("jersey"), mean("reno"))
    };
    let out = run(base, 1);
    report("Table II, 10 jersey + 10 reno, 0% loss", &out);
    let bottleneck = out.summary.links.iter().find(|l| l.name == "R->D").expect("R->D link");
    assert_eq!((bottleneck.overflow_drops, bottleneck.early_drops, bottleneck.ce_marks), (0, 0, 0), "no congestion predicted");
    let (j, r) = group_means(&out);
    eprintln!("Table II: fair share {fair:.0}: Jersey {j:.0}, Reno {r:.0} b/s (paper 958 970 / 959 430)");
    for (name, g) in [("Jersey", j), ("Reno", r)] {
        assert!((g / fair - 1.0).abs() <= 0.10, "{name} mean {g:.0} vs fair share {fair:.0}");
    }
    let (mut js, mut rs) = (Vec::new(), Vec::new());
    for seed in 1..=seeds() {
        let out = run(&variant(base, &["links.1.channel.loss=0.001"]), seed);
        let (j, r) = group_means(&out);
        js.push(j);
        rs.push(r);
    }
    let ((j, _), (r, _)) = (mean_sd(&js), mean_sd(&rs));
    eprintln!(
        "Table III (0.1% loss, {} seeds): Jersey {j:.0}, Reno {r:.0} b/s, ratio {:.3} (paper 993 860 / 916 200 = 1.085)",
        seeds(),
        j / r
    );
    assert!(j > r, "Jersey {j:.0} vs Reno {r:.0}");
    assert!(10.0 * (j + r) >= 0.95 * 20.0 * fair, "bottleneck under-used: {}", 10.0 * (j + r));
}
