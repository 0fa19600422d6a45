//! Running a case and checking every invariant of its output (the crate docs list them).

use std::collections::BTreeMap;

use airtcp::sim::Simulator;

use crate::generate::Case;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// The engine refused the generated scenario (a generator bug, not an engine one).
    Invalid,
    /// The run panicked.
    Panic,
    /// The run did not end at its duration.
    EndTime,
    /// A flow delivered, acknowledged or received more than was sent or offered.
    Delivered,
    /// A TCP byte stream was not delivered exactly once and in order.
    ByteStream,
    /// A link's packets do not balance.
    Conservation,
    /// A figure is negative, NaN, infinite or out of its range.
    Metric,
    /// A series column decreased, passed its total or its limit.
    Series,
    /// Cut-through changed the output.
    CutThrough,
}

impl Kind {
    /// Every kind, in report order.
    pub const ALL: [Kind; 9] = [
        Kind::Invalid,
        Kind::Panic,
        Kind::EndTime,
        Kind::Delivered,
        Kind::ByteStream,
        Kind::Conservation,
        Kind::Metric,
        Kind::Series,
        Kind::CutThrough,
    ];

    /// The kind's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Invalid => "invalid",
            Kind::Panic => "panic",
            Kind::EndTime => "end-time",
            Kind::Delivered => "delivered",
            Kind::ByteStream => "byte-stream",
            Kind::Conservation => "conservation",
            Kind::Metric => "metric",
            Kind::Series => "series",
            Kind::CutThrough => "cut-through",
        }
    }
}

/// One broken invariant of one run.
#[derive(Debug, Clone)]
pub struct Violation {
    /// Which invariant.
    pub kind: Kind,
    /// The run's index in the campaign.
    pub index: u64,
    /// What was found, in one line.
    pub detail: String,
}

/// Collects a run's violations: the first of each kind (a broken invariant tends to break on
/// every later sample too), with a count of the further ones.
struct Checker<'a> {
    index: u64,
    out: &'a mut Vec<Violation>,
    more: BTreeMap<Kind, u64>,
}

impl Checker<'_> {
    fn fail(&mut self, kind: Kind, detail: String) {
        if self.out.iter().any(|v| v.kind == kind) {
            *self.more.entry(kind).or_default() += 1;
        } else {
            self.out.push(Violation { kind, index: self.index, detail });
        }
    }

    /// Notes the further failures of each kind on its first.
    fn finish(self) {
        for v in self.out.iter_mut() {
            if let Some(n) = self.more.get(&v.kind) {
                v.detail += &format!(" (and {n} more of this kind in this run)");
            }
        }
    }
    fn ensure(&mut self, ok: bool, kind: Kind, detail: impl FnOnce() -> String) {
        if !ok {
            self.fail(kind, detail());
        }
    }
    /// A figure that must be finite and ≥ 0.
    fn figure(&mut self, x: f64, what: impl FnOnce() -> String) {
        self.ensure(x.is_finite() && x >= 0.0, Kind::Metric, || format!("{} = {x}", what()));
    }
    /// Delay percentiles p50, p95, p99 of one flow: all present or all absent, finite, ordered,
    /// and none below `floor_s` (the smallest sample) by more than the histogram's 1% and its
    /// microsecond rounding (`metrics::delay`).
    fn percentiles(&mut self, name: &str, what: &str, p: [Option<f64>; 3], floor_s: f64) {
        match p {
            [None, None, None] => {}
            [Some(a), Some(b), Some(c)] => {
                for (x, q) in [(a, 50), (b, 95), (c, 99)] {
                    self.figure(x, || format!("flow {name}: {what}_p{q}_s"));
                }
                self.ensure(a <= b && b <= c, Kind::Metric, || format!("flow {name}: {what} percentiles {a} {b} {c} out of order"));
                self.ensure(a >= floor_s * 0.99 - 1e-6, Kind::Metric, || {
                    format!("flow {name}: {what}_p50_s {a} below the smallest sample {floor_s}")
                });
            }
            _ => self.fail(Kind::Metric, format!("flow {name}: {what} percentiles partly null: {p:?}")),
        }
    }
    /// A fraction: finite and in [0, 1] (with rounding slack).
    fn fraction(&mut self, x: f64, what: impl FnOnce() -> String) {
        self.ensure(x.is_finite() && (0.0..=1.0 + 1e-9).contains(&x), Kind::Metric, || format!("{} = {x} (not in [0, 1])", what()));
    }
}

/// The run's output as JSON with the event count taken out (what cut-through may change).
fn comparable(out: &airtcp::RunOutput) -> String {
    let mut o = out.clone();
    o.summary.events = 0;
    serde_json::to_string(&o).unwrap_or_default()
}

/// Runs one case and checks every invariant; returns the violations found, the run's event count
/// and whether a TCP receiver of the run took its segments ahead of the clock (receiver
/// cut-through, which the `cut-through` check then held against the event-by-event run).
pub fn check(case: &Case) -> (Vec<Violation>, u64, bool) {
    let mut out = Vec::new();
    let mut c = Checker { index: case.index, out: &mut out, more: BTreeMap::new() };
    let scenario = match airtcp::scenario::parse(&case.toml) {
        Ok(s) => s,
        Err(e) => {
            c.fail(Kind::Invalid, e.to_string());
            c.finish();
            return (out, 0, false);
        }
    };
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| -> Result<_, String> {
        let mut sim = Simulator::build(&scenario, case.seed).map_err(|e| e.to_string())?;
        sim.enable_audit();
        // A run over one of the scenario's `limits` is an error like an invalid scenario.
        let out = sim.run().map_err(|e| e.to_string())?;
        let event_by_event = if case.cut_check {
            let mut reference = Simulator::build(&scenario, case.seed).expect("built once");
            reference.disable_cut_through();
            Some(reference.run().map_err(|e| e.to_string())?)
        } else {
            None
        };
        Ok((sim, out, event_by_event))
    }));
    let (sim, run, reference) = match run {
        Ok(Ok(x)) => x,
        Ok(Err(e)) => {
            c.fail(Kind::Invalid, e);
            c.finish();
            return (out, 0, false);
        }
        Err(p) => {
            let msg = p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()));
            c.fail(Kind::Panic, msg.unwrap_or_else(|| "a panic without a message".into()));
            c.finish();
            return (out, 0, false);
        }
    };
    let end_ns = scenario.duration.as_nanos();
    let s = &run.summary;
    c.ensure(s.end_time_s == airtcp::time::ns_to_s(end_ns) && sim.now() == end_ns, Kind::EndTime, || {
        format!("ended at {} s / {} ns, duration {end_ns} ns", s.end_time_s, sim.now())
    });
    c.figure(s.warmup_s, || "warmup_s".into());
    let tcp = s.flows.iter().filter(|f| f.kind == "tcp").count();
    match s.jain_fairness_tcp {
        Some(j) => c.fraction(j, || "jain_fairness_tcp".into()),
        None => c.ensure(tcp == 0, Kind::Metric, || "jain_fairness_tcp missing with TCP flows".into()),
    }
    let audit = sim.audit().expect("audit enabled");
    for (i, f) in s.flows.iter().enumerate() {
        let name = &f.name;
        match sim.tcp_state(i) {
            Some((app_limit, snd_max, snd_una)) => {
                let mut next = 0u64;
                for &(a, b) in &audit[i] {
                    if a != next || b <= a {
                        c.fail(Kind::ByteStream, format!("flow {name}: delivery [{a}, {b}) after {next} delivered"));
                        break;
                    }
                    next = b;
                }
                c.ensure(next == f.delivered_bytes, Kind::ByteStream, || {
                    format!("flow {name}: deliveries tile [0, {next}) but delivered_bytes = {}", f.delivered_bytes)
                });
                c.ensure(f.delivered_bytes <= snd_max && snd_max <= app_limit && snd_max == f.sent_bytes, Kind::Delivered, || {
                    format!("flow {name}: delivered {} sent {} (snd_max {snd_max}) offered {app_limit}", f.delivered_bytes, f.sent_bytes)
                });
                c.ensure(snd_una <= f.delivered_bytes && f.acked_bytes == snd_una, Kind::Delivered, || {
                    format!("flow {name}: acked {} snd_una {snd_una} delivered {}", f.acked_bytes, f.delivered_bytes)
                });
                c.ensure(f.retransmissions <= f.packets_sent && f.packets_received <= f.packets_sent, Kind::Delivered, || {
                    format!(
                        "flow {name}: {} segments sent, {} of them retransmissions, {} received",
                        f.packets_sent, f.retransmissions, f.packets_received
                    )
                });
                // RTT figures: present exactly when the flow took samples (null, never 0.0, without).
                for (x, what) in [(f.mean_rtt_s, "mean_rtt_s"), (f.min_rtt_s, "min_rtt_s"), (f.mean_rto_s, "mean_rto_s")] {
                    match (x, f.rtt_samples > 0) {
                        (Some(x), true) => c.figure(x, || format!("flow {name}: {what}")),
                        (None, false) => {}
                        (x, _) => c.fail(Kind::Metric, format!("flow {name}: {what} {x:?} with {} RTT samples", f.rtt_samples)),
                    }
                }
                // Percentiles: no UDP figures on a TCP flow; TCP's none without samples; ordered; none
                // below the smallest sample (by more than the histogram's 1% and its µs rounding).
                c.ensure(f.owd_p50_s.is_none() && f.jitter_s.is_none(), Kind::Metric, || {
                    format!("flow {name}: UDP delay figures on a TCP flow")
                });
                c.ensure(f.rtt_p50_s.is_none() || f.rtt_samples > 0, Kind::Metric, || {
                    format!("flow {name}: an RTT percentile without samples")
                });
                c.percentiles(name, "rtt", [f.rtt_p50_s, f.rtt_p95_s, f.rtt_p99_s], f.min_rtt_s.unwrap_or(0.0));
            }
            None => {
                let p = f.segment_bytes as u64;
                c.ensure(
                    f.packets_received + f.corrupted_received <= f.packets_sent
                        && f.delivered_bytes == f.packets_received * p
                        && f.sent_bytes == f.packets_sent * p,
                    Kind::Delivered,
                    || {
                        format!(
                            "flow {name}: sent {} datagrams ({} B), received {} ({} B) and {} corrupted, {p} B each",
                            f.packets_sent, f.sent_bytes, f.packets_received, f.delivered_bytes, f.corrupted_received
                        )
                    },
                );
                c.ensure(f.rtt_p50_s.is_none(), Kind::Metric, || format!("flow {name}: an RTT percentile on a UDP flow"));
                c.ensure(f.mean_rtt_s.is_none() && f.min_rtt_s.is_none() && f.mean_rto_s.is_none(), Kind::Metric, || {
                    format!("flow {name}: RTT figures on a UDP flow")
                });
                c.ensure(f.owd_p50_s.is_none() || f.packets_received > 0, Kind::Metric, || {
                    format!("flow {name}: a one-way delay without datagrams")
                });
                c.ensure(f.jitter_s.is_none() || f.packets_received >= 2, Kind::Metric, || {
                    format!("flow {name}: jitter from fewer than two datagrams")
                });
                if let Some(j) = f.jitter_s {
                    c.figure(j, || format!("flow {name}: jitter_s"));
                }
                c.percentiles(name, "owd", [f.owd_p50_s, f.owd_p95_s, f.owd_p99_s], 0.0);
            }
        }
        c.figure(f.goodput_bps, || format!("flow {name}: goodput_bps"));
        c.figure(f.goodput_acked_bps, || format!("flow {name}: goodput_acked_bps"));
        if let Some(h) = &f.hsdpa {
            c.ensure(h.geometry_db.is_finite(), Kind::Metric, || format!("flow {name}: hsdpa geometry_db = {}", h.geometry_db));
            c.figure(h.mean_cqi, || format!("flow {name}: hsdpa mean_cqi"));
            c.fraction(h.first_tx_bler, || format!("flow {name}: hsdpa first_tx_bler"));
            c.figure(h.decoded_bps, || format!("flow {name}: hsdpa decoded_bps"));
        }
    }
    for (li, l) in s.links.iter().enumerate() {
        let name = &l.name;
        let right = l.arrived_packets + l.overflow_drops + l.early_drops + l.lost_packets + l.held_packets;
        c.ensure(l.offered_packets == right, Kind::Conservation, || {
            format!(
                "link {name}: offered {} != arrived {} + overflow {} + early {} + lost {} + held {}",
                l.offered_packets, l.arrived_packets, l.overflow_drops, l.early_drops, l.lost_packets, l.held_packets
            )
        });
        c.ensure(l.lost_packets <= l.channel_losses && l.arrived_packets + l.lost_packets <= l.packets_sent, Kind::Conservation, || {
            format!(
                "link {name}: arrived {} + lost {} (channel losses {}) against {} sent",
                l.arrived_packets, l.lost_packets, l.channel_losses, l.packets_sent
            )
        });
        c.ensure(l.ce_marks + l.overflow_drops + l.early_drops <= l.offered_packets, Kind::Conservation, || {
            format!(
                "link {name}: {} CE marks and {} drops of {} packets offered",
                l.ce_marks,
                l.overflow_drops + l.early_drops,
                l.offered_packets
            )
        });
        c.figure(l.delay_s, || format!("link {name}: delay_s"));
        if case.constant_links.get(li).copied().unwrap_or(false) {
            c.fraction(l.utilization, || format!("link {name}: utilization"));
        } else {
            c.figure(l.utilization, || format!("link {name}: utilization"));
        }
    }
    check_series(&mut c, case, &run, end_ns);
    if let Some(reference) = reference {
        let (a, b) = (comparable(&run), comparable(&reference));
        if a != b {
            let at = a.bytes().zip(b.bytes()).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()));
            let lo = at.saturating_sub(80);
            c.fail(
                Kind::CutThrough,
                format!("outputs differ at byte {at}: cut …{}… event …{}…", &a[lo..(at + 40).min(a.len())], &b[lo..(at + 40).min(b.len())]),
            );
        }
    }
    c.finish();
    (out, run.summary.events, !sim.receivers_ahead().is_empty())
}

/// The series: finite non-negative figures (NaN exactly where a column has no value), cumulative
/// columns that never decrease and end at most at the summary's totals.
fn check_series(c: &mut Checker, case: &Case, run: &airtcp::RunOutput, end_ns: u64) {
    let fs = &run.flow_series;
    let end_s = airtcp::time::ns_to_s(end_ns);
    let nf = fs.flow_names.len();
    let mut last: Vec<Option<(u64, u64, u64)>> = vec![None; nf];
    for i in 0..fs.rows() {
        let f = fs.flow(i);
        let name = &fs.flow_names[f];
        let t = fs.time_s(i);
        c.ensure(t.is_finite() && (0.0..=end_s).contains(&t), Kind::Metric, || format!("flow series time_s = {t}"));
        c.figure(fs.goodput_bps(i), || format!("flow {name} series goodput_bps at {t}"));
        if fs.is_tcp(i) {
            c.figure(fs.srtt_s[i], || format!("flow {name} series srtt_s at {t}"));
            c.figure(fs.rto_s[i], || format!("flow {name} series rto_s at {t}"));
        } else {
            c.ensure(fs.srtt_s[i].is_nan() && fs.rto_s[i].is_nan() && fs.bwe_bps(i).is_nan(), Kind::Metric, || {
                format!("UDP flow {name} series has TCP values at {t}")
            });
        }
        let bwe = fs.bwe_bps(i);
        c.ensure(bwe.is_nan() || (bwe.is_finite() && bwe >= 0.0), Kind::Metric, || format!("flow {name} series bwe_bps = {bwe} at {t}"));
        for col in &fs.estimates {
            let v = col.values.get(i).copied().unwrap_or(f64::INFINITY);
            c.ensure(v.is_nan() || v.is_finite(), Kind::Metric, || format!("flow {name} series {} = {v} at {t}", col.name));
            c.ensure(fs.is_tcp(i) || v.is_nan(), Kind::Metric, || format!("UDP flow {name} series has {} = {v} at {t}", col.name));
        }
        let now = (fs.sent_bytes[i], fs.delivered_bytes[i], fs.acked_bytes[i]);
        if let Some(prev) = last[f] {
            c.ensure(now.0 >= prev.0 && now.1 >= prev.1 && now.2 >= prev.2, Kind::Series, || {
                format!("flow {name}: (sent, delivered, acked) went from {prev:?} to {now:?} at {t}")
            });
        }
        last[f] = Some(now);
    }
    for (f, l) in last.iter().enumerate() {
        let (Some(l), Some(s)) = (l, run.summary.flows.get(f)) else { continue };
        let totals = (s.sent_bytes, s.delivered_bytes, s.acked_bytes);
        let ok = if case.sample_at_end { *l == totals } else { l.0 <= totals.0 && l.1 <= totals.1 && l.2 <= totals.2 };
        c.ensure(ok, Kind::Series, || format!("flow {}: last sample (sent, delivered, acked) {l:?}, summary {totals:?}", s.name));
    }
    let ls = &run.link_series;
    let mut last: Vec<Option<(u64, u64)>> = vec![None; ls.link_names.len()];
    for i in 0..ls.rows() {
        let l = ls.link(i);
        let name = &ls.link_names[l];
        let t = ls.time_s(i);
        c.ensure(t.is_finite() && (0.0..=end_s).contains(&t), Kind::Metric, || format!("link series time_s = {t}"));
        c.figure(ls.avg_queue_pkts(i), || format!("link {name} series avg_queue_pkts at {t}"));
        let limit = case.queue_limits.get(l).copied().unwrap_or(0);
        c.ensure(limit == 0 || ls.queue_pkts[i] as u64 <= limit, Kind::Series, || {
            format!("link {name}: {} packets queued at {t}, limit {limit}", ls.queue_pkts[i])
        });
        let now = (ls.drops[i], ls.ce_marks(i));
        if let Some(prev) = last[l] {
            c.ensure(now.0 >= prev.0 && now.1 >= prev.1, Kind::Series, || {
                format!("link {name}: (drops, ce_marks) went from {prev:?} to {now:?} at {t}")
            });
        }
        last[l] = Some(now);
    }
    for (l, v) in last.iter().enumerate() {
        let (Some(v), Some(s)) = (v, run.summary.links.get(l)) else { continue };
        let totals = (s.overflow_drops + s.early_drops + s.channel_losses, s.ce_marks);
        let ok = if case.sample_at_end { *v == totals } else { v.0 <= totals.0 && v.1 <= totals.1 };
        c.ensure(ok, Kind::Series, || format!("link {}: last sample (drops, ce_marks) {v:?}, summary {totals:?}", s.name));
    }
}
