//! The simulator: builds the network from a validated scenario and runs the event loop.
//!
//! Hot path: events are a small `Copy` enum in a binary heap, packets live in an arena, a link
//! schedules only each packet's arrival (its serialization interval is known at admission, see
//! `net::link`), a hop into a link fed by that one link alone is taken without an event at all
//! (cut-through, see `Simulator::enqueue`), and per-flow timers are cancelled lazily (one pending
//! heap entry per timer, re-armed only when it fires early) — nothing is allocated per packet in
//! steady state.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::app::{CbrSource, OnOffParams, OnOffSource, UdpSource, VoipPool};
use crate::cc::{LossKind, LossSignal};
use crate::channel::hsdpa::{CellParams, HsdpaCell, TtiOutput};
use crate::channel::{Capacity, Channel, RateSchedule, TraceCapacity};
use crate::engine::{Event, EventQueue, RngStream, TimerKind};
use crate::metrics::delay::OneWayDelays;
use crate::metrics::jain_fairness;
use crate::net::link::{Offer, Ring};
use crate::net::packet::{
    caiad_option_bytes, sack_option_bytes, HACK_HEADER_CHECKSUM_OPTION_BYTES, IP_HEADER_BYTES, TCP_HEADER_BYTES, TS_OPTION_BYTES,
    UDP_HEADER_BYTES,
};
use crate::net::pcap::{Capture, Fate};
use crate::net::queue::{Admission, Aqm, CwState, Queue, RedParams, RedState};
use crate::net::{Ecn, Link, LinkStats, Packet, PacketArena, PacketId, PacketKind, RoutingTable, TcpHeader};
use crate::output::{CallStats, FlowSeries, FlowSummary, LinkSeries, LinkSummary, LossDifferentiation, RunOutput, Summary};
use crate::scenario::validate::flow_instances;
use crate::scenario::{CapacitySpec, CwSpec, DropTailSpec, FlowSpec, QueueSpec, RedSpec, RtoRestartSpec, Scenario, ScenarioError};
use crate::tcp::{AckDecision, Receiver, ReceiverConfig, Sender, SenderConfig};
use crate::time::{ns_to_s, DataRate, SimTime};

/// Per-flow TCP state: both endpoints and their timers.
struct TcpFlow {
    sender: Sender,
    receiver: Receiver,
    /// Time of the one heap entry that is valid for each timer.
    rto_timer_at: Option<SimTime>,
    delack_timer_at: Option<SimTime>,
    pace_timer_at: Option<SimTime>,
    app_bytes: Option<u64>,
    timestamps: bool,
    cc_name: String,
    recovery_name: String,
    /// For loss-differentiating policies: why and when each data segment (by first byte) was
    /// dropped, until a loss verdict on it is scored (see [`take_drop_cause`]).
    drop_causes: Option<HashMap<u64, Vec<(SimTime, DropCause)>>>,
    loss_diff: LossDifferentiation,
    /// Segments (data or ACKs) that reached their end with a corrupted payload and were discarded.
    corrupted_received: u64,
    /// CAIAD: data segments carry TCP HACK's header checksum, and a corrupted data segment is
    /// handed to the receiver (which reads its header) instead of being discarded.
    hack: bool,
}

/// A UDP source and its sink's counters.
struct UdpFlow {
    source: UdpSource,
    packets_sent: u64,
    /// Payload bytes put on the wire.
    bytes_sent: u64,
    packets_received: u64,
    bytes_received: u64,
    /// Datagrams that arrived corrupted (discarded by the UDP checksum).
    corrupted_received: u64,
    /// One-way delays and jitter of the datagrams received intact.
    delays: OneWayDelays,
}

/// Why the network dropped a data segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DropCause {
    /// A queue overflowed or its AQM dropped it: congestion.
    Queue,
    /// The channel lost it: a link error.
    Channel,
}

enum FlowKind {
    Tcp(Box<TcpFlow>),
    Udp(Box<UdpFlow>),
}

struct Flow {
    name: String,
    src: u32,
    dst: u32,
    start: SimTime,
    stop: Option<SimTime>,
    kind: FlowKind,
    /// Receiver-side delivered and sender-side acked bytes at the end of the warm-up.
    warm_delivered: u64,
    warm_acked: u64,
    /// Delivered bytes at the previous sample (for per-interval goodput).
    sampled_delivered: u64,
}

/// A built, runnable network.
pub struct Simulator {
    name: String,
    seed: u64,
    end: SimTime,
    warmup: SimTime,
    sample_ns: SimTime,
    nodes: Vec<String>,
    links: Vec<Link>,
    routes: RoutingTable,
    pkts: PacketArena,
    queue: EventQueue,
    flows: Vec<Flow>,
    now: SimTime,
    events: u64,
    /// The packet capture (`--pcap`), when enabled.
    capture: Option<Box<Capture>>,
    /// An offer must look for an HSDPA cell or the capture (`enqueue_special`).
    enqueue_special: bool,
    flow_series: FlowSeries,
    link_series: LinkSeries,
    /// Start and contiguous end of every in-order delivery, per flow, when auditing is on.
    audit: Option<Vec<Vec<(u64, u64)>>>,
    /// HSDPA cells, each replacing one link's transmitter (see `channel::hsdpa`).
    cells: Vec<CellHop>,
    /// Per link: the one upstream link through which all its packets come, when the link may be
    /// offered its packets ahead of the clock (cut-through, see `Simulator::enqueue`).
    cut_feeder: Vec<Option<u32>>,
    /// `limits.max_events` of the scenario.
    max_events: u64,
    /// `limits.max_memory` of the scenario (the packet arena's cap is what it leaves for packets).
    max_memory: u64,
    /// `limits.wall_clock` of the scenario.
    wall_clock: Option<std::time::Duration>,
}

/// An HSDPA cell and the link whose transmitter it replaces.
struct CellHop {
    link: usize,
    cell: HsdpaCell,
}

fn make_queue(spec: &QueueSpec, small_pkt_tx_ns: u64) -> Queue {
    match *spec {
        QueueSpec::Droptail(DropTailSpec { limit_pkts }) => Queue::new(limit_pkts, Aqm::DropTail),
        QueueSpec::Red(RedSpec { limit_pkts, min_th_pkts, max_th_pkts, weight, max_p, ecn, gentle }) => Queue::new(
            limit_pkts,
            Aqm::Red(RedState::new(RedParams { min_th: min_th_pkts, max_th: max_th_pkts, weight, max_p, ecn, gentle, small_pkt_tx_ns })),
        ),
        QueueSpec::Cw(CwSpec { limit_pkts, weight, threshold_pkts, drop_non_ect }) => {
            // TCP-Jersey §III-B: "setting the threshold at 1/3 of the link buffer capacity".
            let th = threshold_pkts.unwrap_or(limit_pkts as f64 / 3.0);
            Queue::new(limit_pkts, Aqm::Cw(CwState::new(weight, th, drop_non_ect)))
        }
    }
}

fn make_capacity(rate: Option<DataRate>, spec: Option<&CapacitySpec>, trace: Option<&Vec<u64>>) -> Capacity {
    match (rate, spec) {
        (_, Some(CapacitySpec::Constant(c))) => Capacity::Constant(c.rate),
        (_, Some(CapacitySpec::Schedule(sch))) => Capacity::Schedule(RateSchedule::new(
            sch.steps.iter().map(|st| (st.at.as_nanos(), st.rate.bps())).collect(),
            sch.repeat.map(|p| p.as_nanos()),
        )),
        (_, Some(CapacitySpec::Trace(t))) => Capacity::Trace(TraceCapacity::new(trace.expect("loaded by validation"), t.opportunity_bytes)),
        // The cell serves packets itself; the constant is its nominal (peak) rate for summaries.
        (_, Some(CapacitySpec::Hsdpa(h))) => Capacity::Constant(DataRate(CellParams::from_spec(h).peak_bps())),
        (Some(r), None) => Capacity::Constant(r),
        (None, None) => unreachable!("validated"),
    }
}

/// ns-2's RED `mean_pktsize`: the "typical small packet" of RED's idle-time rule.
const RED_SMALL_PACKET_BYTES: u32 = 500;

/// About how many events [`Simulator::run_until_stopped`] handles between two reads of its stop
/// flag (some 10–50 ms of wall time on the development machine).
pub const EVENTS_PER_STOP_CHECK: u64 = 1 << 17;

/// The links of a scenario exactly as the simulator builds them for `seed` (queues, capacities,
/// channels and their random streams, one [`Link`] per direction), for tools that run the same
/// models outside the event loop: the kernel testbed's relay (`crates/airtcp-testbed`).
pub fn scenario_links(s: &Scenario, seed: u64) -> Result<Vec<Link>, ScenarioError> {
    Ok(Simulator::build(s, seed)?.links)
}

impl Simulator {
    /// Builds the network of a scenario (validating it) for the given seed.
    pub fn build(s: &Scenario, seed: u64) -> Result<Self, ScenarioError> {
        let traces = crate::scenario::validate::validate_and_load(s)?;
        // A map, not a scan: 10⁵ flows on a 10⁴-node topology would take 10⁹ comparisons.
        let ids: std::collections::HashMap<&str, u32> = s.nodes.iter().enumerate().map(|(i, n)| (n.as_str(), i as u32)).collect();
        let id = |n: &str| ids[n];
        let mut links = Vec::new();
        let mut cell_links = Vec::new();
        for (i, l) in s.links.iter().enumerate() {
            if let Some(CapacitySpec::Hsdpa(h)) = &l.capacity {
                cell_links.push((links.len(), h, &l.queue));
            }
            let (f, t) = (id(&l.from), id(&l.to));
            let fwd_cap = make_capacity(l.rate, l.capacity.as_ref(), traces[i][0].as_ref());
            let mut dirs = vec![(f, t, &l.queue, &l.channel, fwd_cap.clone())];
            if l.duplex {
                let rev_cap = match &l.reverse_capacity {
                    Some(c) => make_capacity(None, Some(c), traces[i][1].as_ref()),
                    None => fwd_cap,
                };
                dirs.push((t, f, l.reverse_queue.as_ref().unwrap_or(&l.queue), &l.reverse_channel, rev_cap));
            }
            for (a, b, q, c, capacity) in dirs {
                let name = format!("{}->{}", s.nodes[a as usize], s.nodes[b as usize]);
                let small = capacity.mean_rate().tx_time_ns(RED_SMALL_PACKET_BYTES);
                links.push(Link {
                    from: a,
                    to: b,
                    rate: capacity.mean_rate(),
                    capacity,
                    delay_ns: l.delay.as_nanos(),
                    queue: make_queue(q, small),
                    channel: Channel::from_spec(c, seed, &format!("channel:{name}")),
                    arq: l.link_retransmission.then_some(crate::net::arq::LinkArq {
                        max_retries: l.link_retransmission_max,
                        timeout_ns: l.link_retransmission_timeout.as_nanos(),
                    }),
                    queue_rng: RngStream::new(seed, &format!("queue:{name}")),
                    busy_until: 0,
                    pending: Ring::new(),
                    pending_done: 0,
                    drops_ahead: Ring::new(),
                    in_flight: Ring::new(),
                    attempts: Ring::new(),
                    stats: LinkStats::default(),
                    name,
                });
            }
        }
        // What the memory limit leaves for packets once the up-front estimate is taken.
        let up_front = crate::scenario::validate::memory_estimate(s, links.len() as u64, &traces).total;
        let packet_cap = (s.limits.max_memory.0.saturating_sub(up_front) / crate::net::packet::PACKET_BYTES) as usize;
        let pairs: Vec<_> = links.iter().map(|l| (l.from, l.to)).collect();
        let routes = RoutingTable::build(s.nodes.len(), &pairs);
        let end = s.duration.as_nanos();
        let mut flows = Vec::new();
        for (i, f) in s.flows.iter().enumerate() {
            for inst in flow_instances(f, i) {
                flows.push(Self::build_flow(f, inst, seed, &id));
            }
        }
        let cells = cell_links
            .into_iter()
            .map(|(li, h, q)| CellHop {
                link: li,
                cell: HsdpaCell::new(CellParams::from_spec(h), make_queue(q, 0), seed, &links[li].name, flows.len()),
            })
            .collect::<Vec<_>>();
        let cut_feeder = cut_through_feeders(s.nodes.len(), &links, &routes, &flows, &cells);
        let mut queue = EventQueue::new();
        for (i, f) in flows.iter().enumerate() {
            if f.start <= end {
                queue.push(f.start, Event::FlowStart { flow: i as u32 });
            }
            if let Some(stop) = f.stop {
                if stop <= end {
                    queue.push(stop, Event::FlowStop { flow: i as u32 });
                }
            }
        }
        let warmup = s.warmup.as_nanos();
        if warmup > 0 {
            queue.push(warmup, Event::WarmupEnd);
        }
        // Samples run last at their instant (see `EventQueue::push_last`).
        queue.push_last(0, Event::Sample);
        Ok(Simulator {
            name: s.name.clone(),
            seed,
            end,
            warmup,
            sample_ns: s.sample_interval.as_nanos(),
            nodes: s.nodes.clone(),
            links,
            routes,
            pkts: PacketArena::with_cap(packet_cap),
            queue,
            flows,
            now: 0,
            events: 0,
            capture: None,
            enqueue_special: !cells.is_empty(),
            flow_series: FlowSeries::default(),
            link_series: LinkSeries::default(),
            audit: None,
            cells,
            cut_feeder,
            max_events: s.limits.max_events,
            max_memory: s.limits.max_memory.0,
            wall_clock: s.limits.wall_clock.map(|w| std::time::Duration::from_nanos(w.as_nanos())),
        })
    }

    /// One flow of a scenario entry (a TCP group entry yields several).
    fn build_flow(f: &FlowSpec, inst: crate::scenario::validate::FlowInstance, seed: u64, id: &dyn Fn(&str) -> u32) -> Flow {
        let name = inst.name;
        let ends = |src: &str, dst: &str| if inst.reversed { (id(dst), id(src)) } else { (id(src), id(dst)) };
        let udp = |source: UdpSource| {
            FlowKind::Udp(Box::new(UdpFlow {
                source,
                packets_sent: 0,
                bytes_sent: 0,
                packets_received: 0,
                bytes_received: 0,
                corrupted_received: 0,
                delays: OneWayDelays::default(),
            }))
        };
        let onoff = |rate: DataRate, packet_bytes: u32, on: crate::time::SimDuration, off: crate::time::SimDuration| OnOffParams {
            rate_bps: rate.bps(),
            packet_bytes,
            mean_on_ns: on.as_nanos() as f64,
            mean_off_ns: off.as_nanos() as f64,
        };
        let (src, dst, start, stop, kind) = match f {
            FlowSpec::Tcp(t) => {
                let mss = t.mss_bytes as u64;
                let rwnd = t.rwnd_pkts as u64 * mss;
                let cc = crate::cc::build(&t.cc, t.cc_params.as_ref()).unwrap_or_else(|_| unreachable!("validated"));
                let cfg = SenderConfig {
                    mss: t.mss_bytes,
                    rwnd_bytes: rwnd,
                    max_cwnd_bytes: t.max_cwnd_pkts.map_or(u64::MAX / 4, |m| m as u64 * mss),
                    initial_cwnd_bytes: t.initial_cwnd_pkts as u64 * mss,
                    // RFC 5681 §3.1: initial ssthresh "arbitrarily high (e.g., the size of the
                    // largest possible advertised window)": we use the receiver window.
                    initial_ssthresh_bytes: t.initial_ssthresh_pkts.map_or(rwnd, |x| x as u64 * mss),
                    dupthresh: t.dupack_threshold,
                    sack: t.sack,
                    timestamps: t.timestamps,
                    ecn: t.ecn,
                    initial_rto_ns: t.initial_rto.as_nanos(),
                    min_rto_ns: t.min_rto.as_nanos(),
                    max_rto_ns: t.max_rto.as_nanos(),
                    granularity_ns: t.clock_granularity.as_nanos(),
                    rto_reset_every_partial_ack: t.partial_ack_timer == "slow-but-steady",
                    limited_transmit: t.limited_transmit,
                    ect_on_retransmissions: cc.needs().ect_on_retransmissions,
                    rtt_sampling: t.rtt_sampling,
                    fast_retransmit_restarts_rto: t.fast_retransmit_restarts_rto,
                    fast_retransmit_rto_backoff: t.fast_retransmit_rto_backoff,
                    recover_ack_heuristic: t.recover_ack_heuristic,
                    rto_restart_every_ack: t.rto_restart == RtoRestartSpec::EveryAck,
                    rtt_sample_duplicate_acks: t.rtt_sample_duplicate_acks,
                };
                let rec = crate::tcp::recovery::by_name(&t.recovery).expect("validated");
                let differentiates =
                    cc.loss_verdict(&LossSignal { now: 0, kind: LossKind::DupAcks, marked: false, flight_bytes: 0 }).is_some();
                let cc_needs = cc.needs();
                let rcfg = ReceiverConfig {
                    ecn_echo: cc.needs().ecn_echo,
                    sack: t.sack,
                    timestamps: t.timestamps,
                    delayed_ack: t.delayed_ack,
                    delack_timeout_ns: t.delack_timeout.as_nanos(),
                    mss: t.mss_bytes,
                    caiad: cc.needs().caiad_receiver,
                };
                let (a, b) = ends(&t.src, &t.dst);
                let kind = FlowKind::Tcp(Box::new(TcpFlow {
                    sender: Sender::new(cfg, cc, rec),
                    receiver: Receiver::new(rcfg),
                    rto_timer_at: None,
                    delack_timer_at: None,
                    pace_timer_at: None,
                    app_bytes: t.bytes.map(|b| b.0),
                    timestamps: t.timestamps,
                    cc_name: t.cc.clone(),
                    recovery_name: t.recovery.clone(),
                    drop_causes: differentiates.then(HashMap::new),
                    loss_diff: LossDifferentiation::default(),
                    corrupted_received: 0,
                    hack: cc_needs.caiad_receiver,
                }));
                let jitter_ns = match t.start_jitter.as_nanos() {
                    0 => 0,
                    j => (RngStream::new(seed, &format!("start:{name}")).uniform() * j as f64) as u64,
                };
                (a, b, t.start.as_nanos() + inst.start_offset_ns + jitter_ns, t.stop, kind)
            }
            FlowSpec::Cbr(c) => {
                let start = c.start.as_nanos();
                let stop = c.stop.map_or(u64::MAX, |x| x.as_nanos());
                let steps = match c.rate {
                    Some(r) => vec![(start, r.bps())],
                    None => c.schedule.iter().map(|st| (st.at.as_nanos(), st.rate.bps())).collect(),
                };
                let (a, b) = ends(&c.src, &c.dst);
                (a, b, start, c.stop, udp(UdpSource::Cbr(CbrSource::new(c.packet_bytes, steps, start, stop))))
            }
            FlowSpec::OnOff(o) => {
                let start = o.start.as_nanos();
                let end = o.stop.map_or(SimTime::MAX, |x| x.as_nanos());
                let mut rng = RngStream::new(seed, &format!("app:{name}"));
                let src = OnOffSource::new(onoff(o.rate, o.packet_bytes, o.mean_on, o.mean_off), start, end, &mut rng);
                let (a, b) = ends(&o.src, &o.dst);
                (a, b, start, o.stop, udp(UdpSource::OnOff(src, rng)))
            }
            FlowSpec::Voip(v) => {
                let start = v.start.as_nanos();
                let stop = v.stop.map_or(SimTime::MAX, |x| x.as_nanos());
                let pool = VoipPool::new(
                    v.sources,
                    onoff(v.rate, v.packet_bytes, v.mean_on, v.mean_off),
                    v.call_interarrival.as_nanos() as f64,
                    v.call_duration.as_nanos() as f64,
                    start,
                    stop,
                    RngStream::new(seed, &format!("app:{name}")),
                );
                let (a, b) = ends(&v.src, &v.dst);
                (a, b, start, v.stop, udp(UdpSource::Voip(pool)))
            }
        };
        Flow { name, src, dst, start, stop: stop.map(|x| x.as_nanos()), kind, warm_delivered: 0, warm_acked: 0, sampled_delivered: 0 }
    }

    /// Records every in-order delivery (start, end) per flow, for conservation tests.
    pub fn enable_audit(&mut self) {
        self.audit = Some(vec![Vec::new(); self.flows.len()]);
    }

    /// The recorded deliveries (see [`Simulator::enable_audit`]).
    pub fn audit(&self) -> Option<&Vec<Vec<(u64, u64)>>> {
        self.audit.as_ref()
    }

    /// Bytes the application of TCP flow `i` offered and the sender's snd_max/snd_una (for tests).
    pub fn tcp_state(&self, i: usize) -> Option<(u64, u64, u64)> {
        match &self.flows[i].kind {
            FlowKind::Tcp(t) => Some((t.sender.core.app_limit, t.sender.core.snd_max, t.sender.core.snd_una)),
            FlowKind::Udp(_) => None,
        }
    }

    /// Runs every hop through arrival events, as if no link qualified for cut-through (see
    /// `Simulator::enqueue`): the event-by-event reference that cut-through is tested against.
    pub fn disable_cut_through(&mut self) {
        self.cut_feeder.fill(None);
    }

    /// The links (by index, in the summary's order) that take their packets ahead of the clock.
    pub fn cut_through_links(&self) -> Vec<usize> {
        self.cut_feeder.iter().enumerate().filter_map(|(i, f)| f.map(|_| i)).collect()
    }

    /// Captures every link direction's packets into `dir` during the run (`net::pcap`): one
    /// libpcap file per link direction that carries a packet, and `events.csv` for drops, losses
    /// and corruptions. An I/O error fails the run with one line naming the file.
    pub fn enable_pcap(&mut self, dir: &std::path::Path) -> Result<(), ScenarioError> {
        let names: Vec<String> = self.links.iter().map(|l| l.name.clone()).collect();
        self.capture = Some(Box::new(Capture::create(dir, &names, self.end).map_err(|e| ScenarioError::new("pcap", e))?));
        self.enqueue_special = true;
        Ok(())
    }

    /// Current simulated time.
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Packets currently in queues or on links.
    pub fn live_packets(&self) -> usize {
        self.pkts.live()
    }

    /// Runs to the scenario's end time and returns the results, or the error of the scenario's
    /// `limits` that the run exceeded (events, wall-clock time).
    pub fn run(&mut self) -> Result<RunOutput, ScenarioError> {
        let never = AtomicBool::new(false);
        self.run_until_stopped(&never).map(|o| o.expect("the stop flag is never set"))
    }

    /// The whole run as one slice, without the stop flag or the event and wall-clock limits: the
    /// reference that tests compare the sliced loop with (`tests/interrupt.rs`).
    #[doc(hidden)]
    pub fn run_in_one_slice(&mut self) -> RunOutput {
        self.advance(self.end);
        self.now = self.end;
        self.output()
    }

    /// [`Simulator::run`] that stops early when `stop` is set (Ctrl-C in the CLI and the Python
    /// API). The flag and the `limits` are checked between slices of simulated time, each sized
    /// from the last one's event count to about [`EVENTS_PER_STOP_CHECK`] events, so the loop itself
    /// carries no per-event check and a set flag ends the run within milliseconds of wall time.
    /// `Ok(None)` when it stopped; otherwise the results equal an unsliced run's bit for bit
    /// (slicing changes no event's order: each slice handles every event up to and including its
    /// end, as a single loop would). The event limit is exact: the run fails exactly when it needs
    /// more than `limits.max_events` events, wherever the slices fall.
    pub fn run_until_stopped(&mut self, stop: &AtomicBool) -> Result<Option<RunOutput>, ScenarioError> {
        let started = std::time::Instant::now();
        let mut span: SimTime = 1_000_000;
        let mut from: SimTime = 0;
        loop {
            if stop.load(Ordering::Relaxed) {
                return Ok(None);
            }
            self.check_limits(started)?;
            let before = self.events;
            let limit = from.saturating_add(span).min(self.end);
            self.advance(limit);
            if limit >= self.end {
                self.check_limits(started)?;
                break;
            }
            from = limit;
            let n = self.events - before;
            if n < EVENTS_PER_STOP_CHECK / 2 {
                span = span.saturating_mul(2);
            } else if n > EVENTS_PER_STOP_CHECK * 2 {
                span = (span / 2).max(1);
            }
        }
        self.now = self.end;
        let out = self.output();
        if let Some(c) = self.capture.take() {
            c.finish().map_err(|e| ScenarioError::new("pcap", e))?;
        }
        Ok(Some(out))
    }

    /// The error of the first of the scenario's `limits` that the run has exceeded so far.
    fn check_limits(&self, started: std::time::Instant) -> Result<(), ScenarioError> {
        let at = format!("stopped at t = {}s of {}s", ns_to_s(self.now), ns_to_s(self.end));
        if self.pkts.over_cap() {
            return Err(ScenarioError::new(
                "limits.max_memory",
                format!(
                    "the run holds more than {} packets at once, which with the settings' own memory exceeds the limit of {:.0}MB ({at}; raise limits.max_memory)",
                    self.pkts.cap(),
                    self.max_memory as f64 / 1e6
                ),
            ));
        }
        if self.events > self.max_events {
            return Err(ScenarioError::new(
                "limits.max_events",
                format!("the run needs more than {} events ({at}; raise limits.max_events)", self.max_events),
            ));
        }
        if let Some(w) = self.wall_clock {
            if started.elapsed() > w {
                return Err(ScenarioError::new(
                    "limits.wall_clock",
                    format!("the run took longer than {}s of wall-clock time ({at}; raise limits.wall_clock)", w.as_secs_f64()),
                ));
            }
        }
        Ok(())
    }

    /// Handles every event due at or before `limit`, in order.
    fn advance(&mut self, limit: SimTime) {
        while let Some((t, ev)) = self.queue.peek() {
            // A run over its packet memory stops at once, not at the slice's end: one slice could
            // start 10⁵ flows of a million-packet window each.
            if t > limit || self.pkts.over_cap() {
                break;
            }
            self.now = t;
            self.events += 1;
            if let Event::Arrive { link } = ev {
                // The link's next packet in flight takes this event's place in the heap.
                let l = &mut self.links[link as usize];
                let (_, pkt) = l.in_flight.pop_front().expect("arrival without a packet in flight");
                l.stats.arrived_packets += 1;
                match l.in_flight.front() {
                    Some(&(next, _)) => self.queue.replace_top(next, ev),
                    None => {
                        self.queue.pop();
                    }
                }
                let node = l.to;
                if self.pkts.get(pkt).dst == node {
                    self.deliver(pkt);
                } else {
                    self.forward(node, pkt);
                }
            } else {
                self.queue.pop();
                self.handle(ev);
            }
        }
    }

    fn handle(&mut self, ev: Event) {
        match ev {
            Event::Arrive { .. } => unreachable!("arrivals are handled in `run`"),
            Event::Timer { flow, kind } => self.timer(flow as usize, kind),
            Event::FlowStart { flow } => self.flow_start(flow as usize),
            Event::FlowStop { flow } => {
                if let FlowKind::Tcp(t) = &mut self.flows[flow as usize].kind {
                    t.sender.stop();
                }
            }
            Event::AppTick { flow } => self.app_tick(flow as usize),
            Event::Sample => {
                self.sample();
                let next = self.now + self.sample_ns;
                if next <= self.end {
                    self.queue.push_last(next, Event::Sample);
                }
            }
            Event::CellTti { cell } => self.cell_tti(cell as usize),
            Event::WarmupEnd => {
                for f in &mut self.flows {
                    match &mut f.kind {
                        FlowKind::Tcp(t) => {
                            f.warm_delivered = t.receiver.delivered_bytes;
                            f.warm_acked = t.sender.core.stats.acked_bytes;
                            t.sender.core.stats.rtt_hist.clear();
                        }
                        FlowKind::Udp(u) => {
                            f.warm_delivered = u.bytes_received;
                            u.delays.owd.clear();
                        }
                    }
                }
            }
        }
    }

    // ---- network ----

    fn forward(&mut self, node: u32, pkt: PacketId) {
        let dst = self.pkts.get(pkt).dst;
        match self.routes.next_hop(node, dst) {
            // One flag for the rare paths (an HSDPA cell, the capture): the common path has no
            // trace of them and costs what it did before the capture existed.
            Some(l) if !self.enqueue_special => self.enqueue::<false>(l as usize, pkt),
            Some(l) => self.enqueue_special(l as usize, pkt),
            // Unreachable by construction (routes are validated); drop rather than panic.
            None => self.pkts.free(pkt),
        }
    }

    /// Offers `pkt` to link `l`: admission by the queue, then (if admitted) its serialization
    /// interval, its channel fate and, unless lost, its arrival at the far end.
    ///
    /// Cut-through: when the packet's next link is fed by this link alone and its far-end node
    /// originates no traffic (see `cut_through_feeders`), the packet is offered to the next link
    /// at once, for the instant it will arrive there, instead of through an arrival event. The
    /// next link then sees exactly the offers it would see event by event, in the same order and
    /// at the same instants (its only feeder is a FIFO with a constant delay), so its queue,
    /// channel draws and drops are the same; only readers at the clock must leave out what lies
    /// ahead of it (see [`Link::offer_at`]). This saves an event and a heap operation per hop.
    fn enqueue<const CAPTURE: bool>(&mut self, mut l: usize, pkt: PacketId) {
        let mut at = self.now;
        loop {
            let link = &mut self.links[l];
            let p = self.pkts.get_mut(pkt);
            let payload = match p.kind {
                PacketKind::TcpData => p.tcp.len,
                PacketKind::TcpAck => 0,
                PacketKind::Udp => p.size_bytes - IP_HEADER_BYTES - UDP_HEADER_BYTES,
            };
            match link.offer_at(self.now, at, p.size_bytes, payload, p.ecn, p.kind == PacketKind::TcpData) {
                Offer::Arrives { at_ns, ce, corrupted } => {
                    if let (true, Some(c)) = (CAPTURE, &mut self.capture) {
                        capture_offer(c, l, link, at, Offer::Arrives { at_ns, ce, corrupted }, p);
                    }
                    if ce {
                        p.ecn = Ecn::Ce;
                    }
                    p.corrupted |= corrupted;
                    if p.dst != link.to {
                        if let Some(next) = self.routes.next_hop(link.to, p.dst) {
                            if self.cut_feeder[next as usize] == Some(l as u32) {
                                // It arrives at `at_ns` (after the run's end: see `output`).
                                link.stats.arrived_packets += 1;
                                (l, at) = (next as usize, at_ns);
                                continue;
                            }
                        }
                    }
                    // Arrivals on one link are in time order (FIFO, constant delay): only the
                    // earliest is in the event heap, which stays as small as the number of links.
                    if link.in_flight.is_empty() {
                        self.queue.push(at_ns, Event::Arrive { link: l as u32 });
                    }
                    link.in_flight.push_back((at_ns, pkt));
                }
                // At the offer's instant, which is ahead of the clock on a cut-through link.
                Offer::Lost => {
                    if let (true, Some(c)) = (CAPTURE, &mut self.capture) {
                        capture_offer(c, l, link, at, Offer::Lost, p);
                    }
                    note_drop(&mut self.flows, p, DropCause::Channel, at);
                    self.pkts.free(pkt);
                }
                Offer::Dropped => {
                    if let (true, Some(c)) = (CAPTURE, &mut self.capture) {
                        capture_offer(c, l, link, at, Offer::Dropped, p);
                    }
                    note_drop(&mut self.flows, p, DropCause::Queue, at);
                    self.pkts.free(pkt);
                }
            }
            break;
        }
    }

    /// [`Simulator::enqueue`] where the scenario has an HSDPA cell or the run is captured.
    #[inline(never)]
    fn enqueue_special(&mut self, l: usize, pkt: PacketId) {
        if let Some(ci) = self.cells.iter().position(|c| c.link == l) {
            return self.cell_enqueue(ci, pkt);
        }
        if self.capture.is_some() {
            self.enqueue::<true>(l, pkt)
        } else {
            self.enqueue::<false>(l, pkt)
        }
    }

    /// Offers `pkt` to the HSDPA cell `ci`: its UE's Node-B queue admits (or marks, or drops) it.
    fn cell_enqueue(&mut self, ci: usize, pkt: PacketId) {
        let now = self.now;
        let hop = &mut self.cells[ci];
        let link = &mut self.links[hop.link];
        let p = self.pkts.get_mut(pkt);
        let f = p.flow as usize;
        let am = matches!(self.flows[f].kind, FlowKind::Tcp(_));
        // HSDPA paper Table 4: ROHC compresses UDP/IP to 3 bytes; TCP/IP goes uncompressed.
        let air = match p.kind {
            PacketKind::Udp => p.size_bytes - IP_HEADER_BYTES - UDP_HEADER_BYTES + hop.cell.params.rohc_header_bytes,
            _ => p.size_bytes,
        };
        let sdu = crate::channel::hsdpa::Sdu { pkt, air_bytes: air, ecn: p.ecn };
        match hop.cell.offer(now, f, &self.flows[f].name, am, sdu, &mut link.queue_rng) {
            a @ (Admission::Queued | Admission::QueuedMarked) => {
                if a == Admission::QueuedMarked {
                    p.ecn = Ecn::Ce;
                    link.stats.ce_marks += 1;
                }
                link.stats.packets_sent += 1;
                link.stats.bytes_sent += p.size_bytes as u64;
                if !hop.cell.ticking {
                    hop.cell.ticking = true;
                    let tti = hop.cell.params.tti_ns;
                    self.queue.push((now / tti + 1) * tti, Event::CellTti { cell: ci as u32 });
                }
            }
            a => {
                if a == Admission::EarlyDrop {
                    link.stats.early_drops += 1;
                } else {
                    link.stats.overflow_drops += 1;
                }
                if let Some(c) = &mut self.capture {
                    c.event(hop.link, now, Fate::QueueDrop, p);
                }
                note_drop(&mut self.flows, p, DropCause::Queue, now);
                self.pkts.free(pkt);
            }
        }
    }

    /// Runs one TTI of cell `ci`: delivered packets leave after the TTI plus the link's delay;
    /// packets its RLC gave up on are channel losses.
    fn cell_tti(&mut self, ci: usize) {
        let now = self.now;
        let mut out = TtiOutput::default();
        let hop = &mut self.cells[ci];
        let busy_before = hop.cell.busy_ttis;
        hop.cell.tti(now, &mut out);
        let tti = hop.cell.params.tti_ns;
        let l = hop.link;
        let link = &mut self.links[l];
        link.stats.busy_ns += (hop.cell.busy_ttis - busy_before) * tti;
        let at = now + tti + link.delay_ns;
        for pkt in out.delivered {
            // An HSDPA hop is captured as its packets leave the cell: at the TTI that delivers them.
            if let Some(c) = &mut self.capture {
                c.packet(l, now, self.pkts.get(pkt));
            }
            if link.in_flight.is_empty() {
                self.queue.push(at, Event::Arrive { link: l as u32 });
            }
            link.in_flight.push_back((at, pkt));
        }
        for pkt in out.dropped {
            if let Some(c) = &mut self.capture {
                c.event(l, now, Fate::ChannelLoss, self.pkts.get(pkt));
            }
            link.stats.channel_losses += 1;
            link.stats.lost_packets += 1;
            note_drop(&mut self.flows, self.pkts.get(pkt), DropCause::Channel, now);
            self.pkts.free(pkt);
        }
        if hop.cell.busy() {
            self.queue.push(now + tti, Event::CellTti { cell: ci as u32 });
        } else {
            hop.cell.ticking = false;
        }
    }

    /// The HSDPA UE counters of every cell: (flow index, flow name, counters).
    pub fn hsdpa_ues(&self) -> Vec<(usize, String, crate::channel::hsdpa::UeStats)> {
        self.cells.iter().flat_map(|c| c.cell.ue_stats()).collect()
    }

    fn deliver(&mut self, pkt: PacketId) {
        // The packet is read in place (its header is too big to copy per packet); what needs
        // `&mut self` afterwards runs once its slot is freed.
        enum Then {
            Nothing,
            Ack,
            DelayAck,
            FlushSender,
        }
        let now = self.now;
        let p = self.pkts.get(pkt);
        let f = p.flow as usize;
        let mut then = Then::Nothing;
        if p.corrupted {
            // The checksum fails: the transport discards the packet, as if the channel had lost it
            // — except CAIAD's receiver, which reads the intact header of a data segment (§3.1).
            match &mut self.flows[f].kind {
                FlowKind::Tcp(t) => {
                    t.corrupted_received += 1;
                    if p.kind == PacketKind::TcpData && t.hack {
                        if t.receiver.on_corrupted(now, &p.tcp) == AckDecision::Now {
                            then = Then::Ack;
                        }
                    } else if p.kind == PacketKind::TcpData {
                        note_drop(&mut self.flows, p, DropCause::Channel, now);
                    }
                }
                FlowKind::Udp(u) => u.corrupted_received += 1,
            }
        } else {
            match (p.kind, &mut self.flows[f].kind) {
                (PacketKind::TcpData, FlowKind::Tcp(t)) => {
                    let before = t.receiver.rcv_nxt;
                    let (delivered, decision) = t.receiver.on_data(now, &p.tcp, p.ecn == Ecn::Ce);
                    if delivered > 0 {
                        if let Some(a) = &mut self.audit {
                            a[f].push((before, before + delivered));
                        }
                    }
                    then = match decision {
                        AckDecision::Now => Then::Ack,
                        AckDecision::Delay => Then::DelayAck,
                    };
                }
                (PacketKind::TcpAck, FlowKind::Tcp(t)) => {
                    t.sender.on_ack(now, &p.tcp);
                    then = Then::FlushSender;
                }
                (PacketKind::Udp, FlowKind::Udp(u)) => {
                    // The datagram's send time travels in `tcp.ts_val` (see `app_tick`).
                    u.delays.on_packet(p.tcp.ts_val, now);
                    u.packets_received += 1;
                    u.bytes_received += (p.size_bytes - IP_HEADER_BYTES - UDP_HEADER_BYTES) as u64;
                }
                _ => {}
            }
        }
        self.pkts.free(pkt);
        match then {
            Then::Nothing => {}
            Then::Ack => self.send_ack(f),
            Then::DelayAck => self.sync_timer(f, TimerKind::DelayedAck),
            Then::FlushSender => self.flush_sender(f),
        }
    }

    // ---- TCP glue ----

    fn send_ack(&mut self, f: usize) {
        let now = self.now;
        let flow = &mut self.flows[f];
        let FlowKind::Tcp(t) = &mut flow.kind else { return };
        let (src, dst) = (flow.dst, flow.src);
        let receiver = &mut t.receiver;
        // Built in its arena slot (see `PacketArena::alloc_with`): every field is written.
        let id = self.pkts.alloc_with(|p| {
            receiver.write_ack(now, &mut p.tcp);
            let h = &p.tcp;
            p.size_bytes = IP_HEADER_BYTES
                + TCP_HEADER_BYTES
                + if h.has_ts { TS_OPTION_BYTES } else { 0 }
                + sack_option_bytes(h.n_sack as usize)
                + caiad_option_bytes(h.corrupt_seq.is_some(), h.no_congestion);
            p.src = src;
            p.dst = dst;
            p.flow = f as u32;
            p.kind = PacketKind::TcpAck;
            p.ecn = Ecn::NotEct;
            p.corrupted = false;
        });
        self.forward(src, id);
    }

    fn flush_sender(&mut self, f: usize) {
        let now = self.now;
        let flow = &mut self.flows[f];
        let FlowKind::Tcp(t) = &mut flow.kind else { return };
        // Score the policy's loss verdicts against why the segment was really dropped.
        for (seq, congestion) in t.sender.core.verdicts.drain(..) {
            let cause = t.drop_causes.as_mut().and_then(|m| take_drop_cause(m, seq, now));
            let d = &mut t.loss_diff;
            let slot = match (cause, congestion) {
                (Some(DropCause::Queue), true) => &mut d.queue_drops_as_congestion,
                (Some(DropCause::Queue), false) => &mut d.queue_drops_as_link_error,
                (Some(DropCause::Channel), true) => &mut d.channel_losses_as_congestion,
                (Some(DropCause::Channel), false) => &mut d.channel_losses_as_link_error,
                (None, true) => &mut d.undropped_as_congestion,
                (None, false) => &mut d.undropped_as_link_error,
            };
            *slot += 1;
        }
        let mut segs = std::mem::take(&mut t.sender.core.out);
        let opt = if t.timestamps { TS_OPTION_BYTES } else { 0 } + if t.hack { HACK_HEADER_CHECKSUM_OPTION_BYTES } else { 0 };
        let (src, dst) = (flow.src, flow.dst);
        for s in segs.drain(..) {
            // Built in its arena slot (see `PacketArena::alloc_with`): every field is written.
            let id = self.pkts.alloc_with(|p| {
                p.tcp = TcpHeader {
                    seq: s.seq,
                    len: s.len,
                    cwr: s.cwr,
                    has_ts: s.ts_val.is_some(),
                    ts_val: s.ts_val.unwrap_or(0),
                    ..TcpHeader::default()
                };
                p.src = src;
                p.dst = dst;
                p.flow = f as u32;
                p.kind = PacketKind::TcpData;
                p.size_bytes = IP_HEADER_BYTES + TCP_HEADER_BYTES + opt + s.len;
                p.ecn = if s.ect { Ecn::Ect } else { Ecn::NotEct };
                p.corrupted = false;
            });
            self.forward(src, id);
        }
        if let FlowKind::Tcp(t) = &mut self.flows[f].kind {
            t.sender.core.out = segs;
        }
        self.sync_timer(f, TimerKind::Rto);
        if let FlowKind::Tcp(t) = &self.flows[f].kind {
            if t.sender.core.paced {
                self.sync_timer(f, TimerKind::Pacing);
            }
        }
    }

    /// Makes sure a heap entry exists no later than the timer's deadline.
    fn sync_timer(&mut self, f: usize, kind: TimerKind) {
        let FlowKind::Tcp(t) = &mut self.flows[f].kind else { return };
        let (deadline, slot) = match kind {
            TimerKind::Rto => (t.sender.core.rto_deadline, &mut t.rto_timer_at),
            TimerKind::DelayedAck => (t.receiver.delack_deadline, &mut t.delack_timer_at),
            TimerKind::Pacing => (t.sender.core.pacing_deadline, &mut t.pace_timer_at),
        };
        if let Some(d) = deadline {
            if slot.is_none_or(|s| s > d) {
                *slot = Some(d);
                self.queue.push(d, Event::Timer { flow: f as u32, kind });
            }
        }
    }

    fn timer(&mut self, f: usize, kind: TimerKind) {
        let now = self.now;
        let FlowKind::Tcp(t) = &mut self.flows[f].kind else { return };
        let (deadline, slot) = match kind {
            TimerKind::Rto => (t.sender.core.rto_deadline, &mut t.rto_timer_at),
            TimerKind::DelayedAck => (t.receiver.delack_deadline, &mut t.delack_timer_at),
            TimerKind::Pacing => (t.sender.core.pacing_deadline, &mut t.pace_timer_at),
        };
        if *slot != Some(now) {
            return; // a superseded entry
        }
        *slot = None;
        match deadline {
            Some(d) if d <= now => match kind {
                TimerKind::Rto => {
                    t.sender.on_timeout(now);
                    self.flush_sender(f);
                }
                TimerKind::DelayedAck => self.send_ack(f),
                TimerKind::Pacing => {
                    t.sender.on_pacing_timer(now);
                    self.flush_sender(f);
                }
            },
            Some(_) => self.sync_timer(f, kind),
            None => {}
        }
    }

    fn flow_start(&mut self, f: usize) {
        let now = self.now;
        match &mut self.flows[f].kind {
            FlowKind::Tcp(t) => {
                let limit = t.app_bytes.unwrap_or(u64::MAX);
                t.sender.offer(now, limit);
                self.flush_sender(f);
            }
            FlowKind::Udp(_) => self.app_tick(f),
        }
    }

    fn app_tick(&mut self, f: usize) {
        let now = self.now;
        let flow = &mut self.flows[f];
        let FlowKind::Udp(u) = &mut flow.kind else { return };
        let (n, next) = u.source.wake(now);
        let payload = u.source.packet_bytes();
        u.packets_sent += n as u64;
        u.bytes_sent += n as u64 * payload as u64;
        let (src, dst) = (flow.src, flow.dst);
        for _ in 0..n {
            let pkt = Packet {
                src,
                dst,
                flow: f as u32,
                kind: PacketKind::Udp,
                size_bytes: IP_HEADER_BYTES + UDP_HEADER_BYTES + payload,
                ecn: Ecn::NotEct,
                corrupted: false,
                // A UDP datagram has no TCP header: `ts_val` carries its send time to the sink, for
                // one-way delay and jitter (the measurement tag of ns-3's FlowMonitor; the RTP
                // timestamp of RFC 3550 §5.1 for VoIP). It adds no bytes on the wire.
                tcp: TcpHeader { ts_val: now, ..TcpHeader::default() },
            };
            let id = self.pkts.alloc(pkt);
            self.forward(src, id);
        }
        if let Some(n) = next {
            if n <= self.end {
                self.queue.push(n, Event::AppTick { flow: f as u32 });
            }
        }
    }

    // ---- metrics ----

    fn sample(&mut self) {
        let t = ns_to_s(self.now);
        let dt = ns_to_s(self.sample_ns.min(self.now));
        if self.flow_series.time_s.is_empty() {
            // Every sample adds one row per flow: reserve the whole run's rows at once, so the
            // columns never hold a doubling's worth of spare capacity (10⁷ rows for 10 000 flows).
            let samples = (self.end / self.sample_ns.max(1) + 1) as usize;
            self.flow_series.reserve(samples.saturating_mul(self.flows.len()));
            self.link_series.reserve(samples.saturating_mul(self.links.len()));
        }
        for (i, f) in self.flows.iter_mut().enumerate() {
            let s = &mut self.flow_series;
            s.time_s.push(t);
            s.flow.push(i as u32);
            let delivered = match &f.kind {
                FlowKind::Tcp(tf) => {
                    let c = &tf.sender.core;
                    s.cwnd_bytes.push(c.w.cwnd);
                    s.ssthresh_bytes.push(c.w.ssthresh);
                    s.srtt_s.push(ns_to_s(c.rtt.srtt().unwrap_or(0)));
                    s.rto_s.push(ns_to_s(c.rtt.rto()));
                    s.sent_bytes.push(c.snd_max);
                    s.acked_bytes.push(c.stats.acked_bytes);
                    s.bwe_bps.push(c.cc.estimates().first().map_or(f64::NAN, |e| e.1));
                    tf.receiver.delivered_bytes
                }
                FlowKind::Udp(u) => {
                    s.cwnd_bytes.push(0);
                    s.ssthresh_bytes.push(0);
                    s.srtt_s.push(f64::NAN);
                    s.rto_s.push(f64::NAN);
                    s.sent_bytes.push(u.bytes_sent);
                    s.acked_bytes.push(0);
                    s.bwe_bps.push(f64::NAN);
                    u.bytes_received
                }
            };
            s.delivered_bytes.push(delivered);
            // Per-interval goodput: bytes delivered since the previous sample over its interval.
            let gp = if dt > 0.0 { (delivered - f.sampled_delivered) as f64 * 8.0 / dt } else { 0.0 };
            s.goodput_bps.push(gp);
            f.sampled_delivered = delivered;
        }
        for (li, l) in self.links.iter_mut().enumerate() {
            l.purge(self.now);
            let q = match self.cells.iter().find(|c| c.link == li) {
                Some(c) => c.cell.waiting_sdus(),
                None => l.waiting(self.now),
            };
            let (overflow, early, lost) = l.drops_at(self.now);
            let s = &mut self.link_series;
            s.time_s.push(t);
            s.link.push(li as u32);
            s.queue_pkts.push(q);
            s.avg_queue_pkts.push(l.queue.avg_pkts(q));
            s.drops.push(overflow + early + lost);
            s.ce_marks.push(l.stats.ce_marks);
        }
    }

    fn hsdpa_summary(&self, flow: usize) -> Option<crate::output::HsdpaUeSummary> {
        self.cells.iter().find_map(|c| c.cell.summary(flow, self.end))
    }

    fn output(&mut self) -> RunOutput {
        let window_s = ns_to_s(self.end - self.warmup);
        let mut flows = Vec::new();
        for (fi, f) in self.flows.iter().enumerate() {
            let node = |i: u32| self.nodes[i as usize].clone();
            let fs = match &f.kind {
                FlowKind::Tcp(t) => {
                    let c = &t.sender.core;
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
                        timeouts: st.timeouts,
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
                        loss_differentiation: t.drop_causes.is_some().then_some(t.loss_diff),
                        sent_bytes: c.snd_max,
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
                    timeouts: 0,
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
            .map(|(li, l)| match self.cells.iter().find(|c| c.link == li) {
                // The cell's UEs hold what they have not delivered or dropped; what they delivered
                // propagates (in flight from the end of its TTI on).
                Some(c) => c.cell.held_sdus() + l.in_flight.len() as u64,
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
            },
            // The series move out (a second `run` has nothing more to simulate anyway).
            flow_series: FlowSeries {
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

/// Records why a data segment of a loss-differentiating flow was dropped, and at which instant
/// (ahead of the clock on a cut-through link).
/// Records a link's offer in the capture: a transmitted packet at its serialization's start (with
/// its channel fate in the log when it was lost or corrupted), a queue drop at its offer.
#[cold]
#[inline(never)]
fn capture_offer(c: &mut Capture, l: usize, link: &crate::net::link::Link, offered_at: SimTime, offer: Offer, p: &Packet) {
    let start = || link.pending.get(link.pending.len() - 1).map_or(offered_at, |t| t.start);
    match offer {
        Offer::Arrives { corrupted, ce, .. } => {
            let t = start();
            // On the wire with the queue's CE mark (the caller sets it on the packet after this).
            let mut on_wire = *p;
            if ce {
                on_wire.ecn = Ecn::Ce;
            }
            c.packet(l, t, &on_wire);
            if corrupted {
                c.event(l, t, Fate::Corrupted, p);
            }
        }
        Offer::Lost => {
            let t = start();
            c.packet(l, t, p);
            c.event(l, t, Fate::ChannelLoss, p);
        }
        Offer::Dropped => c.event(l, offered_at, Fate::QueueDrop, p),
    }
}

fn note_drop(flows: &mut [Flow], p: &Packet, cause: DropCause, at: SimTime) {
    if p.kind != PacketKind::TcpData {
        return;
    }
    if let FlowKind::Tcp(t) = &mut flows[p.flow as usize].kind {
        if let Some(m) = &mut t.drop_causes {
            m.entry(p.tcp.seq).or_default().push((at, cause));
        }
    }
}

/// For a loss verdict at `now` on segment `seq`: the cause of its latest drop before `now`
/// (`None`: it had not been dropped), forgetting that drop and any earlier one.
///
/// Only drops at instants before `now` count, and later ones are kept for a later verdict, so the
/// answer is the same whether a drop was noted at its instant (event by event) or earlier
/// (cut-through, see `Simulator::enqueue`), and does not depend on the order of the events of one
/// instant. Before, the cause was noted when the drop was decided and looked up by segment alone:
/// a timeout while the segment still waited upstream of a cut-through link that would drop it
/// found the drop already there (found by the invariant campaign, `airtcp::campaign`).
fn take_drop_cause(m: &mut HashMap<u64, Vec<(SimTime, DropCause)>>, seq: u64, now: SimTime) -> Option<DropCause> {
    let drops = m.get_mut(&seq)?;
    // The last noted among the latest instants: the order in which one instant's drops happened.
    let cause = drops.iter().filter(|d| d.0 < now).fold(None, |best: Option<(SimTime, DropCause)>, &d| match best {
        Some(b) if b.0 > d.0 => Some(b),
        _ => Some(d),
    });
    drops.retain(|d| d.0 >= now);
    if drops.is_empty() {
        m.remove(&seq);
    }
    cause.map(|c| c.1)
}

/// Which links may take their packets ahead of the clock (cut-through, see
/// `Simulator::enqueue`), and from which feeder: link L qualifies when
/// - every packet that reaches L comes off one upstream link U (the routes of all flows, both
///   directions of a TCP flow, enter L only from U), so L's offers come in U's arrival order;
/// - L's near node is no flow's source or destination (nothing else is offered to L);
/// - L's decisions depend only on its offers: a DropTail queue (RED's and CW's averages are read
///   by samples and evolve with time), no link-level ARQ, not an HSDPA cell;
///
/// How long a packet stays on U does not matter: a sample runs after every other event of its
/// instant (`EventQueue::push_last`), so a packet that reaches L's near node at a sample's instant
/// counts at that sample, event by event and cut through alike (see `Link::waiting`). (Before
/// samples ran last, an arrival and a sample at one nanosecond ran in the order they had been
/// scheduled, which readers at the clock cannot know; links were then cut only behind feeders
/// that hold a packet for less than one sample interval.)
fn cut_through_feeders(n_nodes: usize, links: &[Link], routes: &RoutingTable, flows: &[Flow], cells: &[CellHop]) -> Vec<Option<u32>> {
    let is_cell = |i: usize| cells.iter().any(|c| c.link == i);
    // Per link: None = no feeder seen yet, Some(Some(u)) = only u, Some(None) = several.
    let mut feeder: Vec<Option<Option<u32>>> = vec![None; links.len()];
    let mut origin = vec![false; n_nodes];
    for f in flows {
        origin[f.src as usize] = true;
        origin[f.dst as usize] = true;
        let both = matches!(f.kind, FlowKind::Tcp(_));
        for (a, b) in [(f.src, f.dst), (f.dst, f.src)].into_iter().take(if both { 2 } else { 1 }) {
            let (mut node, mut prev) = (a, None::<u32>);
            // Walk to `b` (where `next_hop` gives None); a route has at most one hop per link.
            for _ in 0..links.len() {
                let Some(l) = routes.next_hop(node, b) else { break };
                if let Some(u) = prev {
                    let e = &mut feeder[l as usize];
                    *e = match *e {
                        None => Some(Some(u)),
                        Some(Some(x)) if x == u => Some(Some(u)),
                        _ => Some(None),
                    };
                }
                prev = Some(l);
                node = links[l as usize].to;
            }
        }
    }
    links
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let eligible = !origin[l.from as usize] && matches!(l.queue.aqm, Aqm::DropTail) && l.arq.is_none() && !is_cell(i);
            feeder[i].flatten().filter(|_| eligible)
        })
        .collect()
}
