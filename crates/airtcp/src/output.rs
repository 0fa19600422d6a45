//! What a run returns: a deterministic summary and two column-oriented time series.
//!
//! Everything here is a pure function of (scenario text, seed): no wall-clock time, no
//! thread ids, so two runs can be compared byte for byte (the determinism promise).

use serde::Serialize;

use crate::time::ns_to_s;

/// The whole result of one simulation run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunOutput {
    /// Per-flow and per-link totals.
    pub summary: Summary,
    /// One row per (sample instant, flow).
    pub flow_series: FlowSeries,
    /// One row per (sample instant, link).
    pub link_series: LinkSeries,
}

/// Scenario-level totals. Serialized as `summary.json` by the CLI.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// The scenario's `name` field.
    pub scenario: String,
    /// The seed every random stream of this run was derived from.
    pub seed: u64,
    /// Simulated time at which the run ended (always the scenario's duration).
    pub end_time_s: f64,
    /// Start of the measurement window used for goodput (the scenario's `warmup`).
    pub warmup_s: f64,
    /// Number of events the engine processed (a speed/size indicator, deterministic).
    pub events: u64,
    /// Per-flow results, in scenario order.
    pub flows: Vec<FlowSummary>,
    /// Per one-way link results, in build order (a duplex link gives two, forward first).
    pub links: Vec<LinkSummary>,
    /// Jain's fairness index (Σx)²/(n·Σx²) over the goodput of all TCP flows; `None` without TCP flows.
    pub jain_fairness_tcp: Option<f64>,
    /// Per host (a flow's source or destination, in node order): its interface's activity and
    /// energy over [warmup, end] (`crate::metrics::energy`). Present only when the scenario has
    /// an `[energy]` table, so that every other summary is unchanged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hosts: Option<Vec<HostEnergy>>,
}

/// Totals of one flow (TCP or UDP CBR).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FlowSummary {
    pub name: String,
    /// "tcp", "cbr", "onoff" or "voip".
    pub kind: String,
    pub src: String,
    pub dst: String,
    /// Window policy name (TCP only).
    pub cc: Option<String>,
    /// Loss-recovery strategy name (TCP only).
    pub recovery: Option<String>,
    /// Payload bytes per packet: the MSS (TCP) or the datagram payload (CBR).
    pub segment_bytes: u32,
    /// Application bytes delivered in order at the receiver during [warmup, end], per second, in bit/s.
    pub goodput_bps: f64,
    /// The sender's view: bytes newly covered by cumulative ACKs during [warmup, end], in bit/s.
    /// (TCP-Jersey §IV-A measures goodput this way.) Zero for CBR.
    pub goodput_acked_bps: f64,
    /// Application bytes delivered in order at the receiver over the whole run.
    pub delivered_bytes: u64,
    /// Bytes cumulatively acknowledged at the sender over the whole run (TCP only).
    pub acked_bytes: u64,
    /// Packets the source put on the wire (data segments for TCP, datagrams for CBR).
    pub packets_sent: u64,
    /// Packets that reached the destination node (TCP: data segments, duplicates included).
    pub packets_received: u64,
    /// Data segments sent more than once.
    pub retransmissions: u64,
    /// TCP: data segments that reached the receiver when it already held them (delivered or
    /// buffered): retransmissions it did not need, e.g. go-back-N after a timeout resending what
    /// arrived. Absent for UDP flows, so their summaries are unchanged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redundant_segments: Option<u64>,
    /// Retransmission timer expirations.
    pub timeouts: u64,
    /// Of `timeouts`, those found spurious and undone: present only for a flow with
    /// `rto_undo = "eifel"` (so every other summary is unchanged).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spurious_timeouts: Option<u64>,
    /// Entries into fast retransmit (n-th duplicate ACK).
    pub fast_retransmits: u64,
    /// Window reductions caused by ECN-Echo.
    pub ecn_reductions: u64,
    /// Number of RTT samples taken (RFC 6298 / Karn or RFC 7323 timestamps).
    pub rtt_samples: u64,
    /// Mean of the RTT samples, seconds; null for UDP or without samples (never 0.0: a sweep
    /// averaging it would read a flow without samples as a zero-delay one).
    pub mean_rtt_s: Option<f64>,
    /// Smallest RTT sample, seconds; null for UDP or without samples.
    pub min_rtt_s: Option<f64>,
    /// Mean of the (un-backed-off) RTO computed after each RTT sample, seconds; null for UDP or
    /// without samples.
    pub mean_rto_s: Option<f64>,
    /// Median of the RTT samples taken in the measurement window (after `warmup`), seconds,
    /// within 1% ([`crate::metrics::delay`]); null for UDP or without samples. The samples are
    /// those of `rtt_samples` (Karn's rule, or every ACK with timestamps).
    pub rtt_p50_s: Option<f64>,
    /// 95th percentile of those RTT samples, seconds (as `rtt_p50_s`).
    pub rtt_p95_s: Option<f64>,
    /// 99th percentile of those RTT samples, seconds (as `rtt_p50_s`).
    pub rtt_p99_s: Option<f64>,
    /// Median one-way delay (sink arrival − source send) of the UDP datagrams received intact in
    /// the measurement window, seconds, within 1%; null for TCP or when none arrived.
    pub owd_p50_s: Option<f64>,
    /// 95th percentile of those one-way delays, seconds (as `owd_p50_s`).
    pub owd_p95_s: Option<f64>,
    /// 99th percentile of those one-way delays, seconds (as `owd_p50_s`).
    pub owd_p99_s: Option<f64>,
    /// RFC 3550 §6.4.1 interarrival jitter at the end of the run, seconds, over every datagram
    /// received intact; null for TCP or with fewer than two datagrams.
    pub jitter_s: Option<f64>,
    /// cwnd at the end of the run, bytes.
    pub final_cwnd_bytes: u64,
    /// For window policies that tell congestion from link errors (TCP-Jersey family): their
    /// verdicts on each loss signal beside why the segment was really dropped. `None` otherwise.
    pub loss_differentiation: Option<LossDifferentiation>,
    /// Payload bytes sent: TCP's highest sequence sent (retransmissions not counted again), a UDP
    /// source's datagram payloads (its offered load over the run).
    pub sent_bytes: u64,
    /// Packets of this flow (data, ACKs, datagrams) that arrived corrupted and were discarded.
    pub corrupted_received: u64,
    /// A VoIP pool's call counts; `None` for other flows.
    pub calls: Option<CallStats>,
    /// What a CAIAD receiver put on its ACKs; `None` for other flows.
    pub caiad_options: Option<CaiadOptionCounts>,
    /// The flow's UE in an HSDPA cell (channel, HARQ, RLC counters); `None` if it crosses none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hsdpa: Option<HsdpaUeSummary>,
}

/// A flow's UE in an HSDPA cell: where it was dropped and what its radio layers did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HsdpaUeSummary {
    /// Geometry (HSDPA paper eq. 4), dB.
    pub geometry_db: f64,
    /// Table 1 channel model ("A".."E") or "static".
    pub channel_model: String,
    /// Mean CQI reported in the TTIs the UE wanted to be scheduled.
    pub mean_cqi: f64,
    /// Transport blocks sent for the first time, and retransmissions.
    pub new_blocks: u64,
    pub harq_retransmissions: u64,
    /// Fraction of new blocks not decoded at their first transmission.
    pub first_tx_bler: f64,
    /// Blocks HARQ gave up on (after the last transmission).
    pub harq_given_up: u64,
    /// Transport-block bits decoded, per second of the whole run.
    pub decoded_bps: f64,
    pub rlc_pdus_sent: u64,
    pub rlc_pdus_retransmitted: u64,
    /// SDUs the RLC dropped (AM discard timer, UM PDU lost).
    pub rlc_sdus_dropped: u64,
    /// SDUs the UE's Node-B queue refused, and those it marked (CW / RED ECN).
    pub queue_drops: u64,
    pub ce_marks: u64,
}

/// ACKs of a CAIAD receiver by the options they carried (CAIAD Fig. 1), and the option bytes
/// those added on the wire (padded to 32-bit words).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct CaiadOptionCounts {
    /// ACKs with the corruption option only (Fig. 2(c), (d)).
    pub corruption_only: u64,
    /// ACKs with the No-Congestion option only.
    pub no_congestion_only: u64,
    /// ACKs with both (a duplicate triggered by a corrupted segment, nothing lost: Fig. 2(a)).
    pub both: u64,
    /// Option bytes these ACKs added.
    pub option_bytes: u64,
}

/// Calls offered to a VoIP pool and those blocked because every talker was busy.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct CallStats {
    pub offered: u64,
    pub blocked: u64,
}

/// A loss-differentiating policy's verdicts (one per n-th duplicate ACK or timeout) against the
/// ground truth the simulator knows: the cause of the segment's last drop.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct LossDifferentiation {
    /// Dropped by a queue (overflow or AQM) and answered as congestion: correct.
    pub queue_drops_as_congestion: u64,
    /// Dropped by a queue but answered as a link error: the harmful mistake (Jersey §III-B).
    pub queue_drops_as_link_error: u64,
    /// Lost on the channel but answered as congestion: a needless window cut.
    pub channel_losses_as_congestion: u64,
    /// Lost on the channel and answered as a link error: correct.
    pub channel_losses_as_link_error: u64,
    /// The segment had not been dropped (a spurious timeout or reordering), answered as congestion.
    pub undropped_as_congestion: u64,
    /// The segment had not been dropped, answered as a link error.
    pub undropped_as_link_error: u64,
}

impl LossDifferentiation {
    /// Fraction of channel losses answered as link errors (`None` without channel losses).
    pub fn channel_correct_fraction(&self) -> Option<f64> {
        let n = self.channel_losses_as_congestion + self.channel_losses_as_link_error;
        (n > 0).then(|| self.channel_losses_as_link_error as f64 / n as f64)
    }
    /// Fraction of queue drops answered as congestion (`None` without queue drops).
    pub fn queue_correct_fraction(&self) -> Option<f64> {
        let n = self.queue_drops_as_congestion + self.queue_drops_as_link_error;
        (n > 0).then(|| self.queue_drops_as_congestion as f64 / n as f64)
    }
}

/// Totals of one one-way link.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LinkSummary {
    /// "FROM->TO".
    pub name: String,
    pub from: String,
    pub to: String,
    pub rate_bps: u64,
    pub delay_s: f64,
    /// Queue discipline name: "droptail", "red" or "cw".
    pub queue: String,
    /// Packets that finished serialization on this link.
    pub packets_sent: u64,
    /// Bytes (headers included) that finished serialization.
    pub bytes_sent: u64,
    /// Packets dropped by the queue because it was full.
    pub overflow_drops: u64,
    /// Packets dropped early by an AQM decision (RED).
    pub early_drops: u64,
    /// Packets CE-marked by the queue (RED with ECN, CW), counted when the queue admits them.
    pub ce_marks: u64,
    /// Of `ce_marks`, the packets still waiting in the queue at the end (their serialization not
    /// started): never on the wire, so a capture (`--pcap`) holds `ce_marks − ce_marks_unsent`
    /// CE-marked frames, those the channel lost after the mark included. Omitted when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub ce_marks_unsent: u64,
    /// Packets lost by the channel model after serialization.
    pub channel_losses: u64,
    /// Packets the channel corrupted (they travel on and are discarded at their destination).
    pub corruptions: u64,
    /// Local retransmissions of TCP data frames by the link (`link_retransmission`); each failed
    /// attempt also counts in `channel_losses` or `corruptions`.
    pub link_retransmissions: u64,
    /// Packets offered to the link by the end (to its queue, or an HSDPA cell's Node-B queues),
    /// each once whatever became of it.
    pub offered_packets: u64,
    /// Packets that reached the far end by the end, corrupted ones included (each once; a frame
    /// repaired by `link_retransmission` arrives once).
    pub arrived_packets: u64,
    /// Packets the channel lost for good by the end: after the link's last local retransmission
    /// (each packet once, unlike `channel_losses`, which counts every failed attempt), or given up
    /// on by an HSDPA cell's RLC.
    pub lost_packets: u64,
    /// Packets inside the link at the end, read from its state then (not counted along the run), so
    /// that the link conserves packets exactly:
    ///
    /// `offered_packets = arrived_packets + overflow_drops + early_drops + lost_packets + held_packets`.
    ///
    /// Inside the link means offered by the end and, by then, neither dropped by the queue, nor
    /// lost for good, nor arrived: waiting in the queue; being serialized (with
    /// `link_retransmission`, from the first attempt to the end of the last, waits between
    /// attempts included, since the link holds the frame meanwhile; a packet the channel loses
    /// counts as lost once its last attempt has ended); propagating to the far end; or, in an
    /// HSDPA cell, in a UE's Node-B queue, RLC entity or HARQ processes, or delivered by the cell
    /// and propagating. A packet taken ahead of the simulator's clock (cut-through, see `sim`) is
    /// counted where the event-by-event engine would have it at the end.
    pub held_packets: u64,
    /// Fraction of the run the transmitter was busy (constant rate), or bytes sent over the
    /// capacity offered during the run (rate schedule, trace).
    pub utilization: f64,
    /// A trace capacity replayed from a start offset (`start_offset`, `random_start_offset`):
    /// the trace time at simulated time 0, seconds (whole milliseconds). Absent when the trace
    /// starts at its beginning, and for other capacities.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace_offset_s: Option<f64>,
}

/// Column-oriented per-flow time series (every flow, TCP and UDP), sampled every
/// `sample_interval`: one row per (sample, flow).
///
/// Every sample holds one row per flow, in `flow_names` order, so a row's sample and flow follow
/// from its index ([`FlowSeries::time_s`], [`FlowSeries::flow`]) and are not stored per row; nor
/// is the per-interval goodput, which follows from `delivered_bytes` ([`FlowSeries::goodput_bps`]).
/// A row is then 64 bytes (eight columns) instead of 84, and recording one is eight pushes
/// instead of eleven (issue 42: a 1-flow run at the default 100-ms interval spent a fifth of its
/// time on the series, a third of that on fresh pages; a 10 000-flow, 100-s run has 10⁷ rows).
///
/// Columns that only a TCP flow has hold 0 (integers) or NaN (reals) for UDP flows, as
/// `flow_is_tcp` says; the Python layer reports them as nulls. Plain values rather than `Option`s
/// for the same reason of size.
#[derive(Debug, Clone, Default, Serialize)]
pub struct FlowSeries {
    /// The instant of each sample, ns: sample `k` holds rows `k·n .. (k+1)·n` for the `n` flows.
    pub sample_ns: Vec<u64>,
    /// The sampling interval, ns: the span of a sample's goodput (the first sample's is 0).
    pub interval_ns: u64,
    /// Flow names, in scenario order (the summary's `flows` order).
    pub flow_names: Vec<String>,
    /// Whether each flow (indexed like `flow_names`) is TCP: its TCP-only columns are meaningful.
    pub flow_is_tcp: Vec<bool>,
    pub cwnd_bytes: Vec<u64>,
    /// ssthresh in bytes; the initial "infinite" ssthresh is reported as its configured value.
    pub ssthresh_bytes: Vec<u64>,
    /// Smoothed RTT (0 before the first sample).
    pub srtt_s: Vec<f64>,
    /// Current retransmission timeout including back-off.
    pub rto_s: Vec<f64>,
    /// Cumulative payload bytes sent: TCP's highest sequence sent (new data, retransmissions not
    /// counted again), a UDP source's datagram payloads (its offered load).
    pub sent_bytes: Vec<u64>,
    /// Cumulative in-order bytes delivered to the receiving application.
    pub delivered_bytes: Vec<u64>,
    /// Cumulative bytes acknowledged at the sender.
    pub acked_bytes: Vec<u64>,
    /// For each flow, its place among the flows whose window policy declares an estimate
    /// (`CongestionControl::estimates`), or `None` (Reno, NewReno, … and UDP flows): their
    /// bandwidth estimate would be NaN in every row, so it is not stored (issue 42: 8 of a row's
    /// 64 bytes).
    pub bwe_index: Vec<Option<u32>>,
    /// The bandwidth estimate in bit/s of those flows only, as of its last update (e.g.
    /// Westwood's BWE: the first estimate the policy declares): sample `k` holds `k·m .. (k+1)·m`
    /// for the `m` flows with a `bwe_index`, in that order. [`FlowSeries::bwe_bps`] reads any row.
    pub declared_bwe_bps: Vec<f64>,
    /// Every further estimate a window policy declares (e.g. CAIAD's α), one column per name,
    /// as long as the other columns; NaN in the rows of flows whose policy does not declare it.
    pub estimates: Vec<EstimateColumn>,
}

/// A time-series column of one named estimate beyond the bandwidth estimate (see
/// [`FlowSeries::estimates`]).
#[derive(Debug, Clone, Serialize)]
pub struct EstimateColumn {
    /// The name the policy gives it (the column's name in `flow_series`).
    pub name: &'static str,
    pub values: Vec<f64>,
}

/// Equality is bit-for-bit (NaN, which marks "no value", equals itself): two runs are the same
/// run exactly when their series are identical.
impl PartialEq for FlowSeries {
    fn eq(&self, o: &Self) -> bool {
        let bits = |a: &[f64], b: &[f64]| a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits());
        self.sample_ns == o.sample_ns
            && self.interval_ns == o.interval_ns
            && self.flow_names == o.flow_names
            && self.flow_is_tcp == o.flow_is_tcp
            && self.cwnd_bytes == o.cwnd_bytes
            && self.ssthresh_bytes == o.ssthresh_bytes
            && bits(&self.srtt_s, &o.srtt_s)
            && bits(&self.rto_s, &o.rto_s)
            && self.sent_bytes == o.sent_bytes
            && self.delivered_bytes == o.delivered_bytes
            && self.acked_bytes == o.acked_bytes
            && self.bwe_index == o.bwe_index
            && bits(&self.declared_bwe_bps, &o.declared_bwe_bps)
            && self.estimates.len() == o.estimates.len()
            && self.estimates.iter().zip(&o.estimates).all(|(a, b)| a.name == b.name && bits(&a.values, &b.values))
    }
}

impl FlowSeries {
    /// Bytes of one row in the engine, at most: seven 8-byte columns and the bandwidth estimate
    /// of a flow whose policy declares one (counted for every flow: an upper bound; the memory
    /// estimate of `limits.max_memory` uses it; a sample's instant is 8 bytes per sample, not per
    /// row).
    pub(crate) const ROW_BYTES: u64 = 8 * 8;
    /// Bytes of one sample beyond its rows: its instant.
    pub(crate) const SAMPLE_BYTES: u64 = 8;

    /// The number of rows (samples × flows).
    pub fn rows(&self) -> usize {
        self.cwnd_bytes.len()
    }

    /// The flow of row `i`: an index into `flow_names`.
    pub fn flow(&self, i: usize) -> usize {
        i % self.flow_names.len()
    }

    /// The name of the flow of row `i`.
    pub fn flow_name(&self, i: usize) -> &str {
        &self.flow_names[self.flow(i)]
    }

    /// The instant of row `i`, seconds.
    pub fn time_s(&self, i: usize) -> f64 {
        ns_to_s(self.sample_ns[i / self.flow_names.len()])
    }

    /// The goodput of row `i`'s flow over the interval that ends at its sample: payload bytes
    /// delivered since the flow's previous sample × 8 / `interval_ns`, b/s (0 at t = 0).
    pub fn goodput_bps(&self, i: usize) -> f64 {
        let n = self.flow_names.len();
        let dt = ns_to_s(self.interval_ns.min(self.sample_ns[i / n]));
        let before = if i >= n { self.delivered_bytes[i - n] } else { 0 };
        if dt > 0.0 {
            (self.delivered_bytes[i] - before) as f64 * 8.0 / dt
        } else {
            0.0
        }
    }

    /// The bandwidth estimate of row `i`, if its flow's policy has one.
    pub fn bwe(&self, i: usize) -> Option<f64> {
        Some(self.bwe_bps(i)).filter(|b| !b.is_nan())
    }

    /// The bandwidth estimate of row `i` in bit/s: NaN for a flow whose policy declares none (and
    /// a UDP flow).
    pub fn bwe_bps(&self, i: usize) -> f64 {
        sparse_row(&self.bwe_index, i, self.declared_bwe_bps.len() / self.sample_ns.len()).map_or(f64::NAN, |j| self.declared_bwe_bps[j])
    }

    /// Reserves room for `samples` more samples of a row per flow of `bwe_index` (set first).
    pub(crate) fn reserve(&mut self, samples: usize) {
        let rows = samples.saturating_mul(self.bwe_index.len());
        let declared = self.bwe_index.iter().flatten().count();
        self.sample_ns.reserve_exact(samples);
        self.cwnd_bytes.reserve_exact(rows);
        self.ssthresh_bytes.reserve_exact(rows);
        self.srtt_s.reserve_exact(rows);
        self.rto_s.reserve_exact(rows);
        self.sent_bytes.reserve_exact(rows);
        self.delivered_bytes.reserve_exact(rows);
        self.acked_bytes.reserve_exact(rows);
        self.declared_bwe_bps.reserve_exact(samples.saturating_mul(declared));
    }

    /// Row `row`'s value of the estimate `name` (a column is made the first time a policy
    /// declares the name; the rows before it are NaN).
    pub(crate) fn push_estimate(&mut self, row: usize, name: &'static str, value: f64) {
        let i = match self.estimates.iter().position(|c| c.name == name) {
            Some(i) => i,
            None => {
                self.estimates.push(EstimateColumn { name, values: Vec::new() });
                self.estimates.len() - 1
            }
        };
        let col = &mut self.estimates[i].values;
        col.resize(row, f64::NAN);
        col.push(value);
    }

    /// Brings every estimate column to the length of the others (NaN for the rows of flows
    /// without that estimate), after a sample's rows.
    pub(crate) fn pad_estimates(&mut self) {
        let rows = self.rows();
        for c in &mut self.estimates {
            c.values.resize(rows, f64::NAN);
        }
    }

    /// Whether row `i` belongs to a TCP flow (its TCP-only columns are meaningful).
    pub fn is_tcp(&self, i: usize) -> bool {
        self.flow_is_tcp[self.flow(i)]
    }
}

/// Column-oriented per-link time series, sampled every `sample_interval`: one row per (sample,
/// one-way link). As in [`FlowSeries`], every sample holds one row per link, in `link_names`
/// order, so a row's sample and link follow from its index.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LinkSeries {
    /// The instant of each sample, ns: sample `k` holds rows `k·n .. (k+1)·n` for the `n` links.
    pub sample_ns: Vec<u64>,
    /// One-way link names ("A->B"), in the summary's `links` order.
    pub link_names: Vec<String>,
    /// Packets waiting in the queue (the one being serialized excluded).
    pub queue_pkts: Vec<u32>,
    /// For each link, its place among the links whose rows carry an average queue and CE marks of
    /// their own: those whose queue is not DropTail (RED, CW, a plug-in discipline) and those that
    /// serve an HSDPA cell (whose UEs' queues may mark). `None` for the others (most links): a
    /// DropTail queue's average is its length, which `queue_pkts` holds already, and it never
    /// marks, so neither is stored (issue 42: 16 of a row's 28 bytes).
    pub aqm_index: Vec<Option<u32>>,
    /// The average queue (EWMA packets) of those links only: sample `k` holds `k·m .. (k+1)·m`
    /// for the `m` links with an `aqm_index`, in that order. [`LinkSeries::avg_queue_pkts`] reads
    /// any row.
    pub aqm_avg_queue_pkts: Vec<f64>,
    /// Cumulative packets dropped (overflow + early) and lost on the channel.
    pub drops: Vec<u64>,
    /// Their cumulative CE marks, laid out as `aqm_avg_queue_pkts`. [`LinkSeries::ce_marks`] reads
    /// any row.
    pub aqm_ce_marks: Vec<u64>,
}

impl LinkSeries {
    /// Bytes of one row in the engine, at most: the 8-byte drop counter and the `u32` queue length,
    /// and the `f64` average and 8-byte CE count of a link with an `aqm_index` (counted for every
    /// link: an upper bound; a sample's instant is 8 bytes per sample, not per row).
    pub(crate) const ROW_BYTES: u64 = 8 + 4 + 2 * 8;
    /// Bytes of one sample beyond its rows: its instant.
    pub(crate) const SAMPLE_BYTES: u64 = 8;

    /// The number of rows (samples × links).
    pub fn rows(&self) -> usize {
        self.queue_pkts.len()
    }

    /// The link of row `i`: an index into `link_names`.
    pub fn link(&self, i: usize) -> usize {
        i % self.link_names.len()
    }

    /// The name of the link of row `i`.
    pub fn link_name(&self, i: usize) -> &str {
        &self.link_names[self.link(i)]
    }

    /// The instant of row `i`, seconds.
    pub fn time_s(&self, i: usize) -> f64 {
        ns_to_s(self.sample_ns[i / self.link_names.len()])
    }

    /// Row `i`'s average queue, packets: the EWMA of a queue that keeps one (RED, CW), the
    /// instantaneous length of a DropTail queue.
    pub fn avg_queue_pkts(&self, i: usize) -> f64 {
        match self.aqm_row(i) {
            Some(j) => self.aqm_avg_queue_pkts[j],
            None => self.queue_pkts[i] as f64,
        }
    }

    /// Row `i`'s cumulative CE marks (0 on a link whose queue is DropTail and serves no cell).
    pub fn ce_marks(&self, i: usize) -> u64 {
        self.aqm_row(i).map_or(0, |j| self.aqm_ce_marks[j])
    }

    /// The index of row `i` in the `aqm_` columns, for a link with an `aqm_index`.
    fn aqm_row(&self, i: usize) -> Option<usize> {
        sparse_row(&self.aqm_index, i, self.aqm_ce_marks.len() / self.sample_ns.len())
    }

    /// Reserves room for `samples` more samples of a row per link of `aqm_index` (set first).
    pub(crate) fn reserve(&mut self, samples: usize) {
        let rows = samples.saturating_mul(self.aqm_index.len());
        let aqm = self.aqm_index.iter().flatten().count();
        self.sample_ns.reserve_exact(samples);
        self.queue_pkts.reserve_exact(rows);
        self.drops.reserve_exact(rows);
        self.aqm_avg_queue_pkts.reserve_exact(samples.saturating_mul(aqm));
        self.aqm_ce_marks.reserve_exact(samples.saturating_mul(aqm));
    }
}

/// Each item's place among those that `has` a value of a sparse column (`FlowSeries::bwe_index`,
/// `LinkSeries::aqm_index`), `None` for the others.
pub(crate) fn places(has: impl Iterator<Item = bool>) -> Vec<Option<u32>> {
    let mut next = 0..;
    has.map(|h| if h { next.next() } else { None }).collect()
}

/// The index in a sparse column of row `i` of a series laid out by `places` (one row per item per
/// sample), holding `stored` values per sample; `None` for an item without one.
fn sparse_row(places: &[Option<u32>], i: usize, stored: usize) -> Option<usize> {
    let j = places[i % places.len()]? as usize;
    Some(i / places.len() * stored + j)
}

/// Serde's `skip_serializing_if` for counters that appear only when they count something.
fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// One host's line of the summary: what `crate::metrics::energy` computes (its module doc gives
/// the model). Defined here, with the rest of the summary, so that the metrics import the
/// summary's types and never the other way round.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HostEnergy {
    /// The node's name.
    pub node: String,
    pub rx_packets: u64,
    pub rx_bytes: u64,
    /// Time spent receiving, seconds.
    pub rx_time_s: f64,
    pub tx_packets: u64,
    pub tx_bytes: u64,
    /// Time spent transmitting, seconds.
    pub tx_time_s: f64,
    /// Application bytes delivered in order to the flows ending at this host.
    pub delivered_bytes: u64,
    /// Energy spent in the window, joules; null when a link of the host has no constant rate.
    pub energy_j: Option<f64>,
    /// `energy_j` per 10⁶ delivered bytes; null without energy or without delivered bytes.
    pub energy_per_mb_j: Option<f64>,
}

#[cfg(test)]
mod tests {
    use super::{FlowSeries, LinkSeries};

    /// A row's instant, flow and goodput, derived from its place: two flows sampled at 0, 100
    /// and 200 ms, worked by hand. Goodput is the bytes delivered since the flow's previous
    /// sample × 8 / 0.1 s (0 at t = 0, where the interval is empty).
    #[test]
    fn rows_derive_instant_flow_and_goodput() {
        let s = FlowSeries {
            sample_ns: vec![0, 100_000_000, 200_000_000],
            interval_ns: 100_000_000,
            flow_names: vec!["a".into(), "b".into()],
            flow_is_tcp: vec![true, false],
            delivered_bytes: vec![0, 0, 1_000, 500, 3_500, 500],
            // Only "a" declares a bandwidth estimate ("b" is UDP): one value per sample.
            bwe_index: vec![Some(0), None],
            declared_bwe_bps: vec![1e6, 2e6, 3e6],
            ..FlowSeries::default()
        };
        let rows: Vec<(f64, &str, f64)> = (0..6).map(|i| (s.time_s(i), s.flow_name(i), s.goodput_bps(i))).collect();
        assert_eq!(
            rows,
            [(0.0, "a", 0.0), (0.0, "b", 0.0), (0.1, "a", 80_000.0), (0.1, "b", 40_000.0), (0.2, "a", 200_000.0), (0.2, "b", 0.0)]
        );
        assert!(s.is_tcp(4) && !s.is_tcp(5));
        let bwe: Vec<Option<f64>> = (0..6).map(|i| s.bwe(i)).collect();
        assert_eq!(bwe, [Some(1e6), None, Some(2e6), None, Some(3e6), None]);
        assert!(s.bwe_bps(3).is_nan() && s.bwe_bps(4) == 3e6);
        // Two samples of three links; "x->y" and "y->z" keep an average and may mark (RED, CW),
        // "y->x" is DropTail: its average is its queue length and its marks 0, neither stored.
        let l = LinkSeries {
            sample_ns: vec![0, 100_000_000],
            link_names: vec!["x->y".into(), "y->x".into(), "y->z".into()],
            aqm_index: vec![Some(0), None, Some(1)],
            queue_pkts: vec![1, 2, 3, 4, 5, 6],
            aqm_avg_queue_pkts: vec![0.5, 2.5, 3.25, 5.75],
            aqm_ce_marks: vec![7, 8, 9, 10],
            ..LinkSeries::default()
        };
        assert_eq!((0..6).map(|i| (l.time_s(i), l.link_name(i))).collect::<Vec<_>>()[4], (0.1, "y->x"));
        assert_eq!((0..6).map(|i| l.avg_queue_pkts(i)).collect::<Vec<_>>(), [0.5, 2.0, 2.5, 3.25, 5.0, 5.75]);
        assert_eq!((0..6).map(|i| l.ce_marks(i)).collect::<Vec<_>>(), [7, 0, 8, 9, 0, 10]);
    }
}
