//! Building the network of a validated scenario: links (queues, capacities, channels), routes,
//! HSDPA cells, flows and their endpoints, and the first events.

use super::cut_through::{cut_through_feeders, receivers_ahead};
use super::{CellHop, Flow, FlowKind, Simulator, TcpFlow, UdpFlow};
use crate::app::UdpSource;

use crate::channel::Channel;
use crate::engine::{Event, EventQueue, RngStream};
use crate::metrics::delay::OneWayDelays;
use crate::metrics::energy::HostActivity;
use crate::metrics::loss_verdicts::LossVerdicts;
use crate::net::capacity::hsdpa::HsdpaCell;
use crate::net::capacity::{Capacity, ResolvedCapacity};
use crate::net::{Link, PacketArena, Paths, RoutingTable};
use crate::output::{FlowSeries, LinkSeries};
use crate::scenario::plan::{FlowPlan, LinkPlan, Plan};
use crate::scenario::validate::flow_instances;
use crate::scenario::{
    LinkSpec, OptionSizesSpec, PartialAckTimerSpec, RecoverGuardSpec, RtoRestartSpec, Scenario, ScenarioError, TimeoutSsthreshSpec,
};
use crate::tcp::{Receiver, ReceiverConfig, Sender, SenderConfig};

/// A trace capacity whose start is drawn per seed (`random_start_offset`), replayed from the trace
/// time `random_start` holds, drawn (from the link's own stream `trace-offset:<from>-><to>` of
/// `seed`) by the first of the link's directions that needs it, so a duplex link's two traces,
/// recorded together, start at the same instant of the recording; each wraps at its own period.
/// Other capacities (and traces with a fixed `start_offset`, applied when resolved) are unchanged.
fn with_trace_start(r: ResolvedCapacity, random_start: &mut Option<u64>, seed: u64, link: &LinkSpec) -> Capacity {
    match r.capacity {
        Capacity::Trace(t) if r.random_start => {
            // Whole milliseconds, uniform in [0, period): mahimahi's trace resolution.
            let period_ms = t.period_ns() / 1_000_000;
            let offset_ns = *random_start.get_or_insert_with(|| {
                let mut stream = RngStream::new(seed, &format!("trace-offset:{}->{}", link.from, link.to));
                ((stream.uniform() * period_ms as f64) as u64).min(period_ms.saturating_sub(1)) * 1_000_000
            });
            Capacity::Trace(t.with_offset(offset_ns))
        }
        c => c,
    }
}

/// ns-2's RED `mean_pktsize`: the "typical small packet" of RED's idle-time rule.
const RED_SMALL_PACKET_BYTES: u32 = 500;

/// The links of a scenario exactly as the simulator builds them for `seed` (queues, capacities,
/// channels and their random streams, one [`Link`] per direction), for tools that run the same
/// models outside the event loop: the kernel testbed's relay (`crates/airtcp-testbed`).
pub fn scenario_links(s: &Scenario, seed: u64) -> Result<Vec<Link>, ScenarioError> {
    Ok(Simulator::build(s, seed)?.links)
}

impl Simulator {
    /// Builds the network of a scenario (validating it) for the given seed.
    pub fn build(s: &Scenario, seed: u64) -> Result<Self, ScenarioError> {
        let plan = crate::scenario::validate::validate_and_load(s)?;
        let mut links = Vec::new();
        let mut cell_links = Vec::new();
        // What the memory limit leaves for packets once the up-front estimate is taken.
        let one_way = s.links.iter().map(|l| if l.duplex { 2 } else { 1 }).sum();
        let up_front = crate::scenario::validate::memory_estimate(s, one_way, &plan).total;
        let packet_cap = (s.limits.max_memory.0.saturating_sub(up_front) / crate::net::packet::PACKET_BYTES) as usize;
        let Plan { links: link_plans, flows: mut flow_plans, flow_ends, .. } = plan;
        for (l, lp) in s.links.iter().zip(link_plans) {
            let LinkPlan { from: f, to: t, mut capacity, reverse_capacity, channel, reverse_channel } = lp;
            if let Some(params) = capacity.cell.take() {
                cell_links.push((links.len(), params, &l.queue));
            }
            let mut random_start = None;
            let capacity = with_trace_start(capacity, &mut random_start, seed, l);
            let mut dirs = vec![];
            if l.duplex {
                let rev_cap = match reverse_capacity {
                    Some(c) => with_trace_start(c, &mut random_start, seed, l),
                    None => capacity.clone(),
                };
                dirs.push((f, t, &l.queue, channel, capacity));
                dirs.push((t, f, l.reverse_queue.as_ref().unwrap_or(&l.queue), reverse_channel, rev_cap));
            } else {
                dirs.push((f, t, &l.queue, channel, capacity));
            }
            for (a, b, q, c, capacity) in dirs {
                let name = format!("{}->{}", s.nodes[a as usize], s.nodes[b as usize]);
                let small = capacity.mean_rate().tx_time_ns(RED_SMALL_PACKET_BYTES);
                let arq = l.link_retransmission.then_some(crate::net::arq::LinkArq {
                    max_retries: l.link_retransmission_max,
                    timeout_ns: l.link_retransmission_timeout.as_nanos(),
                });
                let channel = Channel::new(&c, seed, &format!("channel:{name}"));
                links.push(Link::new(name, a, b, capacity, l.delay.as_nanos(), q.build(small), channel, arq, seed));
            }
        }
        let pairs: Vec<_> = links.iter().map(|l| (l.from, l.to)).collect();
        let routes = RoutingTable::build(s.nodes.len(), &pairs);
        let end = s.duration.as_nanos();
        let mut flows = Vec::new();
        for (i, ((f, fp), ends)) in s.flows.iter().zip(&mut flow_plans).zip(flow_ends).enumerate() {
            for inst in flow_instances(f, i) {
                flows.push(Self::build_flow(fp, inst, ends, seed));
            }
        }
        let cells = cell_links
            .into_iter()
            .map(|(li, params, q)| CellHop { link: li, cell: HsdpaCell::new(params, q.build(0), seed, &links[li].name) })
            .collect::<Vec<_>>();
        let mut cell_of_link = vec![None; links.len()];
        for (ci, c) in cells.iter().enumerate() {
            cell_of_link[c.link] = Some(ci as u32);
        }
        // Each flow's routes, resolved once (flows between the same nodes share them).
        let link_to: Vec<_> = links.iter().map(|l| l.to).collect();
        let mut paths = Paths::default();
        let flow_paths: Vec<[u32; 2]> = flows
            .iter()
            .map(|f| {
                let back = matches!(f.kind, FlowKind::Tcp(_));
                [
                    paths.resolve(&routes, &link_to, f.src, f.dst),
                    if back { paths.resolve(&routes, &link_to, f.dst, f.src) } else { Paths::NONE },
                ]
            })
            .collect();
        let cut_feeder = cut_through_feeders(s.nodes.len(), &links, &paths, &flows, &cell_of_link);
        paths.mark_cut(&cut_feeder);
        let recv_ahead = receivers_ahead(&links, &paths, &flow_paths, &flows, &cell_of_link, s.energy.is_some());
        // SAFETY: a route's start (not `NONE`) is a valid index (`Paths::entry`).
        let flow_first_links =
            flow_paths.iter().map(|r| r.map(|h| if h == Paths::NONE { Paths::NONE } else { unsafe { paths.link(h) } })).collect();
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
        Ok(Simulator {
            name: s.name.clone(),
            seed,
            end,
            warmup,
            sample_ns: s.sample_interval.as_nanos(),
            nodes: s.nodes.clone(),
            warm_tx: if s.energy.is_some() { vec![(0, 0, 0); links.len()] } else { Vec::new() },
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
            cell_of_link,
            cut_feeder,
            paths,
            flow_paths,
            flow_first_links,
            recv_ahead,
            // The first sample at 0 (see `Simulator::next_sample_at`).
            next_sample_at: 0,
            warmup_pending: warmup > 0,
            max_events: s.limits.max_events,
            max_memory: s.limits.max_memory.0,
            max_capture_bytes: s.limits.max_capture_bytes.0,
            slice_until: u64::MAX,
            wall_clock: s.limits.wall_clock.map(|w| std::time::Duration::from_nanos(w.as_nanos())),
            energy: s.energy.clone(),
            host_activity: if s.energy.is_some() { vec![HostActivity::default(); s.nodes.len()] } else { Vec::new() },
        })
    }

    /// One flow of a resolved scenario entry (a TCP group entry yields several).
    fn build_flow(f: &mut FlowPlan, inst: crate::scenario::validate::FlowInstance, (src, dst): (u32, u32), seed: u64) -> Flow {
        let name = inst.name;
        let (a, b) = if inst.reversed { (dst, src) } else { (src, dst) };
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
        let (src, dst, start, stop, kind) = match f {
            FlowPlan::Tcp(t, plan) => {
                let mss = t.mss_bytes as u64;
                let rwnd = t.rwnd_pkts as u64 * mss;
                let (cc, needs) = (plan.first_cc.take().unwrap_or_else(|| (plan.cc)()), plan.needs);
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
                    rto_reset_every_partial_ack: t.partial_ack_timer == PartialAckTimerSpec::SlowButSteady,
                    timeout_ssthresh_from_window: t.timeout_ssthresh == TimeoutSsthreshSpec::Ns2,
                    limited_transmit: t.limited_transmit,
                    ect_on_retransmissions: needs.ect_on_retransmissions,
                    rtt_sampling: t.rtt_sampling,
                    fast_retransmit_restarts_rto: t.fast_retransmit_restarts_rto,
                    fast_retransmit_rto_backoff: t.fast_retransmit_rto_backoff,
                    recover_ack_heuristic: t.recover_ack_heuristic,
                    recover_guard_timeout_only: t.recover_guard == RecoverGuardSpec::TimeoutOnly,
                    rto_restart_every_ack: t.rto_restart == RtoRestartSpec::EveryAck,
                    rtt_sample_duplicate_acks: t.rtt_sample_duplicate_acks,
                    rto_formula: t.rto_estimator,
                    rto_undo: t.rto_undo,
                };
                let rec = (plan.recovery.make)();
                let rcfg = ReceiverConfig {
                    ecn_echo: needs.ecn_echo,
                    sack: t.sack,
                    timestamps: t.timestamps,
                    delayed_ack: t.delayed_ack,
                    delack_timeout_ns: t.delack_timeout.as_nanos(),
                    mss: t.mss_bytes,
                    caiad: needs.caiad_receiver,
                };
                let kind = FlowKind::Tcp(Box::new(TcpFlow {
                    sender: Sender::new(cfg, cc, rec),
                    receiver: Receiver::new(rcfg),
                    rto_timer_at: None,
                    delack_timer_at: None,
                    pace_timer_at: None,
                    app_bytes: t.bytes.map(|b| b.0),
                    ns2_option_sizes: t.option_sizes == OptionSizesSpec::Ns2,
                    cc_name: t.cc.clone(),
                    recovery_name: t.recovery.clone(),
                    verdicts: needs.loss_verdicts.then(LossVerdicts::default),
                    corrupted_received: 0,
                    hack: needs.caiad_receiver,
                    data_header_bytes: TcpFlow::data_header_bytes_of(
                        t.timestamps,
                        t.option_sizes == OptionSizesSpec::Ns2,
                        needs.caiad_receiver,
                    ),
                    ahead: Default::default(),
                    ahead_from: 0,
                }));
                let jitter_ns = match t.start_jitter.as_nanos() {
                    0 => 0,
                    j => (RngStream::new(seed, &format!("start:{name}")).uniform() * j as f64) as u64,
                };
                (a, b, t.start.as_nanos() + inst.start_offset_ns + jitter_ns, t.stop, kind)
            }
            FlowPlan::App(app) => {
                let e = app.ends();
                (a, b, e.start.as_nanos(), e.stop, udp(app.build(&name, seed)))
            }
        };
        Flow { name, src, dst, start, stop: stop.map(|x| x.as_nanos()), kind, warm_delivered: 0, warm_acked: 0 }
    }
}
