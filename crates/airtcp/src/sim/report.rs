//! What a run reports: the time series sampled every `sample_interval`, and the summary at the end
//! (per flow, per link, with packet conservation across cut-through links).

use super::{FlowKind, Simulator};
use crate::app::UdpSource;
use crate::metrics::energy::{host_energy, EnergySpec, HostEnergy};
use crate::metrics::jain_fairness;
use crate::net::capacity::Capacity;
use crate::output::{places, CallStats, FlowSeries, FlowSummary, LinkSeries, LinkSummary, RunOutput, Summary};
use crate::time::ns_to_s;

impl Simulator {
    /// Appends one row per flow and per link to the time series, as of the clock. Out of line:
    /// it runs once per sample interval, and inlined into the event loop it changed how the
    /// compiler laid out the per-packet paths (issue 42).
    #[inline(never)]
    pub(super) fn sample(&mut self) {
        if self.flow_series.sample_ns.is_empty() {
            // Every sample adds one row per flow: reserve the whole run's rows at once, so the
            // columns never hold a doubling's worth of spare capacity (10⁷ rows for 10 000 flows).
            let samples = (self.end / self.sample_ns.max(1) + 1) as usize;
            // Flows whose policy declares an estimate (a fixed list: validation reads it from a
            // policy as built) have a bandwidth-estimate column (`FlowSeries::bwe_index`).
            self.flow_series.bwe_index = places(self.flows.iter().map(|f| match &f.kind {
                FlowKind::Tcp(tf) => !tf.sender.view().cc.estimates().is_empty(),
                FlowKind::Udp(_) => false,
            }));
            self.flow_series.reserve(samples);
            // Links whose rows carry the `aqm_` columns (`LinkSeries::aqm_index`): not DropTail,
            // or serving a cell.
            self.link_series.aqm_index =
                places(self.links.iter().zip(&self.cell_of_link).map(|(l, c)| !l.queue.is_droptail() || c.is_some()));
            self.link_series.reserve(samples);
        }
        // A row's instant and flow (or link) follow from its place (see `FlowSeries`).
        self.flow_series.sample_ns.push(self.now);
        self.link_series.sample_ns.push(self.now);
        for f in self.flows.iter_mut() {
            let s = &mut self.flow_series;
            let delivered = match &mut f.kind {
                FlowKind::Tcp(tf) => {
                    let c = tf.sender.view();
                    s.cwnd_bytes.push(c.w.cwnd);
                    s.ssthresh_bytes.push(c.w.ssthresh);
                    s.srtt_s.push(ns_to_s(c.rtt.srtt().unwrap_or(0)));
                    s.rto_s.push(ns_to_s(c.rtt.rto()));
                    s.sent_bytes.push(c.seq.snd_max);
                    s.acked_bytes.push(c.stats.acked_bytes);
                    let est = c.cc.estimates();
                    if let Some(&(_, bwe)) = est.first() {
                        s.declared_bwe_bps.push(bwe);
                    }
                    for &(name, v) in est.iter().skip(1) {
                        s.push_estimate(s.cwnd_bytes.len() - 1, name, v);
                    }
                    tf.delivered_at((self.now, true))
                }
                FlowKind::Udp(u) => {
                    s.cwnd_bytes.push(0);
                    s.ssthresh_bytes.push(0);
                    s.srtt_s.push(f64::NAN);
                    s.rto_s.push(f64::NAN);
                    s.sent_bytes.push(u.bytes_sent);
                    s.acked_bytes.push(0);
                    u.bytes_received
                }
            };
            // The per-interval goodput follows from it (`FlowSeries::goodput_bps`).
            s.delivered_bytes.push(delivered);
        }
        self.flow_series.pad_estimates();
        for (li, (l, cell)) in self.links.iter_mut().zip(&self.cell_of_link).enumerate() {
            let waiting = l.sample_waiting(self.now);
            let q = match *cell {
                Some(ci) => self.cells[ci as usize].cell.waiting_sdus(),
                None => waiting,
            };
            let (overflow, early, lost) = l.drops_at(self.now);
            let s = &mut self.link_series;
            s.queue_pkts.push(q);
            s.drops.push(overflow + early + lost);
            // The links with an `aqm_index` (worked out again: the test is two fields at hand).
            let aqm = !l.queue.is_droptail() || cell.is_some();
            debug_assert_eq!(aqm, s.aqm_index[li].is_some());
            if aqm {
                s.aqm_avg_queue_pkts.push(l.queue.avg_pkts(q));
                s.aqm_ce_marks.push(l.stats.ce_marks);
            }
        }
    }

    /// Each host's line of the summary (`metrics::energy`): its arrivals counted along the run, its
    /// transmissions read from its outgoing links, both over [warmup, end].
    fn host_energies(&self, spec: &EnergySpec) -> Vec<HostEnergy> {
        let n = self.nodes.len();
        let mut host = vec![false; n];
        let mut delivered = vec![0u64; n];
        for f in &self.flows {
            host[f.src as usize] = true;
            host[f.dst as usize] = true;
            let d = match &f.kind {
                FlowKind::Tcp(t) => t.receiver.delivered_bytes,
                FlowKind::Udp(u) => u.bytes_received,
            };
            delivered[f.dst as usize] += d - f.warm_delivered;
        }
        let mut act = self.host_activity.clone();
        let mut constant = vec![true; n];
        for (li, l) in self.links.iter().enumerate() {
            if !matches!(l.capacity, Capacity::Constant(_)) || self.cell_of_link[li].is_some() {
                constant[l.from as usize] = false;
                constant[l.to as usize] = false;
            }
            let st = l.stats_at(self.end);
            let (p, b, ns) = self.warm_tx[li];
            let a = &mut act[l.from as usize];
            a.tx_packets += st.packets_sent - p;
            a.tx_bytes += st.bytes_sent - b;
            a.tx_ns += st.busy_ns - ns;
        }
        (0..n)
            .filter(|&i| host[i])
            .map(|i| host_energy(spec, &self.nodes[i], &act[i], delivered[i], self.end - self.warmup, constant[i]))
            .collect()
    }

    pub(super) fn hsdpa_summary(&self, flow: usize) -> Option<crate::output::HsdpaUeSummary> {
        self.cells.iter().find_map(|c| c.cell.summary(flow, self.end))
    }

    pub(super) fn output(&mut self) -> RunOutput {
        let window_s = ns_to_s(self.end - self.warmup);
        let mut flows = Vec::new();
        for (fi, f) in self.flows.iter().enumerate() {
            let node = |i: u32| self.nodes[i as usize].clone();
            let fs = match &f.kind {
                FlowKind::Tcp(t) => {
                    let c = t.sender.view();
                    let st = &c.stats;
                    // RTT figures only from samples: null without any (and for UDP below).
                    let sampled = st.rtt_samples > 0;
                    let n = st.rtt_samples as f64;
                    FlowSummary {
                        name: f.name.clone(),
                        kind: "tcp".into(),
                        src: node(f.src),
                        dst: node(f.dst),
                        cc: Some(t.cc_name.clone()),
                        recovery: Some(t.recovery_name.clone()),
                        segment_bytes: c.cfg.mss,
                        goodput_bps: (t.receiver.delivered_bytes - f.warm_delivered) as f64 * 8.0 / window_s,
                        goodput_acked_bps: (st.acked_bytes - f.warm_acked) as f64 * 8.0 / window_s,
                        delivered_bytes: t.receiver.delivered_bytes,
                        acked_bytes: st.acked_bytes,
                        packets_sent: st.segments_sent,
                        packets_received: t.receiver.segments_received,
                        retransmissions: st.retransmissions,
                        redundant_segments: Some(t.receiver.duplicate_segments),
                        timeouts: st.timeouts,
                        spurious_timeouts: (c.cfg.rto_undo != crate::tcp::sender::RtoUndoPolicy::None).then_some(st.spurious_timeouts),
                        fast_retransmits: st.fast_retransmits,
                        ecn_reductions: st.ecn_reductions,
                        rtt_samples: st.rtt_samples,
                        mean_rtt_s: sampled.then(|| st.rtt_sum_ns as f64 / n / 1e9),
                        min_rtt_s: c.rtt.min_rtt.filter(|_| sampled).map(ns_to_s),
                        mean_rto_s: sampled.then(|| st.rto_sum_ns as f64 / n / 1e9),
                        rtt_p50_s: st.rtt_hist.quantile_s(0.50),
                        rtt_p95_s: st.rtt_hist.quantile_s(0.95),
                        rtt_p99_s: st.rtt_hist.quantile_s(0.99),
                        owd_p50_s: None,
                        owd_p95_s: None,
                        owd_p99_s: None,
                        jitter_s: None,
                        final_cwnd_bytes: c.w.cwnd,
                        loss_differentiation: t.verdicts.as_ref().map(|v| v.scored),
                        sent_bytes: c.seq.snd_max,
                        corrupted_received: t.corrupted_received,
                        calls: None,
                        caiad_options: t.hack.then(|| t.receiver.caiad_option_counts()),
                        hsdpa: self.hsdpa_summary(fi),
                    }
                }
                FlowKind::Udp(u) => FlowSummary {
                    name: f.name.clone(),
                    kind: u.source.kind_name().into(),
                    src: node(f.src),
                    dst: node(f.dst),
                    cc: None,
                    recovery: None,
                    segment_bytes: u.source.packet_bytes(),
                    goodput_bps: (u.bytes_received - f.warm_delivered) as f64 * 8.0 / window_s,
                    goodput_acked_bps: 0.0,
                    delivered_bytes: u.bytes_received,
                    acked_bytes: 0,
                    packets_sent: u.packets_sent,
                    packets_received: u.packets_received,
                    retransmissions: 0,
                    redundant_segments: None,
                    timeouts: 0,
                    spurious_timeouts: None,
                    fast_retransmits: 0,
                    ecn_reductions: 0,
                    rtt_samples: 0,
                    mean_rtt_s: None,
                    min_rtt_s: None,
                    mean_rto_s: None,
                    rtt_p50_s: None,
                    rtt_p95_s: None,
                    rtt_p99_s: None,
                    owd_p50_s: u.delays.owd.quantile_s(0.50),
                    owd_p95_s: u.delays.owd.quantile_s(0.95),
                    owd_p99_s: u.delays.owd.quantile_s(0.99),
                    jitter_s: u.delays.jitter_s(),
                    final_cwnd_bytes: 0,
                    loss_differentiation: None,
                    sent_bytes: u.bytes_sent,
                    corrupted_received: u.corrupted_received,
                    caiad_options: None,
                    hsdpa: self.hsdpa_summary(fi),
                    calls: match &u.source {
                        UdpSource::Voip(p) => Some(CallStats { offered: p.calls_offered, blocked: p.calls_blocked }),
                        _ => None,
                    },
                },
            };
            flows.push(fs);
        }
        // Packet conservation (see `LinkSummary::held_packets`): what each link holds at the end,
        // and what it cut through to a next link for an instant after the end, which it counted
        // as arrived but which is still on its way (propagating, or still serializing and so
        // held already).
        let mut held: Vec<u64> = self
            .links
            .iter()
            .enumerate()
            .map(|(li, l)| match self.cell_of_link[li] {
                // The cell's UEs hold what they have not delivered or dropped; what they delivered
                // propagates (in flight from the end of its TTI on).
                Some(ci) => self.cells[ci as usize].cell.held_sdus() + l.in_flight.len() as u64,
                None => l.held_at(self.end),
            })
            .collect();
        let mut arrived_after = vec![0u64; self.links.len()];
        for (next, feeder) in self.cut_feeder.iter().enumerate() {
            if let Some(u) = *feeder {
                let (all, propagating) = self.links[next].offers_after(self.end, self.links[u as usize].delay_ns);
                arrived_after[u as usize] += all;
                held[u as usize] += propagating;
            }
        }
        let links = self
            .links
            .iter()
            .enumerate()
            .map(|(li, l)| {
                let st = l.stats_at(self.end);
                LinkSummary {
                    name: l.name.clone(),
                    from: self.nodes[l.from as usize].clone(),
                    to: self.nodes[l.to as usize].clone(),
                    rate_bps: l.rate.bps(),
                    delay_s: ns_to_s(l.delay_ns),
                    queue: l.queue.kind_name().into(),
                    packets_sent: st.packets_sent,
                    bytes_sent: st.bytes_sent,
                    overflow_drops: st.overflow_drops,
                    early_drops: st.early_drops,
                    ce_marks: st.ce_marks,
                    // An HSDPA cell's queues are not a link's: their undelivered SDUs are in
                    // `held_packets`.
                    ce_marks_unsent: if self.cell_of_link[li].is_some() { 0 } else { l.ce_unsent_at(self.end) },
                    channel_losses: st.channel_losses,
                    corruptions: st.corruptions,
                    link_retransmissions: st.link_retransmissions,
                    offered_packets: l.offered_at(self.end),
                    arrived_packets: st.arrived_packets - arrived_after[li],
                    lost_packets: st.lost_packets,
                    held_packets: held[li],
                    // A constant-rate transmitter is busy while serializing; a time-varying one
                    // can wait for capacity while holding a packet, so count bytes instead.
                    utilization: match l.capacity {
                        Capacity::Constant(_) => st.busy_ns as f64 / self.end as f64,
                        _ => st.bytes_sent as f64 * 8.0 / (l.rate.bps() as f64 * ns_to_s(self.end)),
                    },
                    trace_offset_s: match &l.capacity {
                        Capacity::Trace(t) if t.offset_ns() > 0 => Some(ns_to_s(t.offset_ns())),
                        _ => None,
                    },
                }
            })
            .collect();
        let tcp_goodputs: Vec<f64> = flows.iter().filter(|f| f.kind == "tcp").map(|f| f.goodput_bps).collect();
        RunOutput {
            summary: Summary {
                scenario: self.name.clone(),
                seed: self.seed,
                end_time_s: ns_to_s(self.end),
                warmup_s: ns_to_s(self.warmup),
                events: self.events,
                flows,
                links,
                jain_fairness_tcp: jain_fairness(&tcp_goodputs),
                hosts: self.energy.as_ref().map(|spec| self.host_energies(spec)),
            },
            // The series move out (a second `run` has nothing more to simulate anyway).
            flow_series: FlowSeries {
                interval_ns: self.sample_ns,
                flow_names: self.flows.iter().map(|f| f.name.clone()).collect(),
                flow_is_tcp: self.flows.iter().map(|f| matches!(f.kind, FlowKind::Tcp(_))).collect(),
                ..std::mem::take(&mut self.flow_series)
            },
            link_series: LinkSeries {
                link_names: self.links.iter().map(|l| l.name.clone()).collect(),
                ..std::mem::take(&mut self.link_series)
            },
        }
    }
}
