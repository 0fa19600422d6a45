//! The simulator: builds the network from a validated scenario and runs the event loop.
//!
//! Hot path: events are a small `Copy` enum in a binary heap, packets live in an arena, a link
//! schedules only each packet's arrival (its serialization interval is known at admission, see
//! `net::link`), a hop into a link fed by that one link alone is taken without an event at all
//! (cut-through, see `Simulator::enqueue`), and per-flow timers are cancelled lazily (one pending
//! heap entry per timer, re-armed only when it fires early) — nothing is allocated per packet in
//! steady state.
//!
//! The module's files each do one job: `build` turns a validated scenario into the network and
//! its flows, `network` moves packets over links and HSDPA cells, `transport` is the glue
//! between packets and the TCP/UDP endpoints (ACKs, timers, applications), `report` samples the
//! time series and writes the summary, and `cut_through` decides which links take packets ahead
//! of the clock. This file holds the state they share and the event loop.

mod build;
mod cut_through;
mod network;
mod report;
mod transport;

pub use build::scenario_links;

use std::sync::atomic::{AtomicBool, Ordering};

use crate::app::UdpSource;
use crate::engine::{Event, EventQueue};
use crate::metrics::delay::OneWayDelays;
use crate::metrics::energy::{EnergySpec, HostActivity};
use crate::metrics::loss_verdicts::LossVerdicts;
use crate::net::capacity::hsdpa::HsdpaCell;
use crate::net::pcap::{Capture, CaptureSpec, TcpFlowInfo};
use crate::net::{Link, PacketArena, Paths, RoutingTable};
use crate::output::{FlowSeries, LinkSeries, RunOutput};
use crate::scenario::ScenarioError;
use crate::tcp::{Receiver, Sender};
use crate::time::{ns_to_s, SimTime};

/// Per-flow TCP state: both endpoints and their timers.
struct TcpFlow {
    sender: Sender,
    receiver: Receiver,
    /// Time of the one heap entry that is valid for each timer.
    rto_timer_at: Option<SimTime>,
    delack_timer_at: Option<SimTime>,
    pace_timer_at: Option<SimTime>,
    app_bytes: Option<u64>,
    /// `option_sizes = "ns2"`: the timestamps and SACK options sized as ns-2.35's agents do.
    ns2_option_sizes: bool,
    cc_name: String,
    recovery_name: String,
    /// For loss-differentiating policies: the drops of its data segments and its scored verdicts.
    verdicts: Option<LossVerdicts>,
    /// Segments (data or ACKs) that reached their end with a corrupted payload and were discarded.
    corrupted_received: u64,
    /// CAIAD: data segments carry TCP HACK's header checksum, and a corrupted data segment is
    /// handed to the receiver (which reads its header) instead of being discarded.
    hack: bool,
    /// A data segment's bytes besides its payload (IP and TCP headers and the options every
    /// segment of the flow carries), from its timestamps option, `ns2_option_sizes` and `hack`,
    /// fixed for the flow's life ([`TcpFlow::data_header_bytes_of`]).
    data_header_bytes: u32,
    /// Deliveries the receiver took ahead of the clock (see `cut_through::receivers_ahead`) that
    /// may be the first one after a reader of its delivered bytes: (arrival instant, whether a
    /// reader at the warm-up's end at that instant runs before the arrival, delivered bytes
    /// before it), in arrival order. Every delivery that is the first after a reader is logged
    /// (see `Simulator::deliver_ahead`), and a reader needs only that one.
    ahead: std::collections::VecDeque<(SimTime, bool, u64)>,
    /// The first sample instant (a multiple of the sample interval) at or after the instant of
    /// the receiver's latest delivery taken ahead of the clock (0 before the first): a delivery
    /// after it is the first after that sample, and is logged in `ahead`.
    ahead_from: SimTime,
}

impl TcpFlow {
    /// The bytes of a data segment besides its payload: IP and TCP headers, the timestamps option
    /// with `timestamps` (ns-2.35's size with `ns2_option_sizes`: `TcpAgent::headersize()` adds
    /// `ts_option_size_`, 10, tcp/tcp.cc) and TCP HACK's header checksum option with `hack`.
    fn data_header_bytes_of(timestamps: bool, ns2_option_sizes: bool, hack: bool) -> u32 {
        use crate::net::packet::{
            HACK_HEADER_CHECKSUM_OPTION_BYTES, IP_HEADER_BYTES, NS2_TS_OPTION_BYTES, TCP_HEADER_BYTES, TS_OPTION_BYTES,
        };
        let ts = if ns2_option_sizes { NS2_TS_OPTION_BYTES } else { TS_OPTION_BYTES };
        let opt = if timestamps { ts } else { 0 } + if hack { HACK_HEADER_CHECKSUM_OPTION_BYTES } else { 0 };
        IP_HEADER_BYTES + TCP_HEADER_BYTES + opt
    }

    /// The receiver's delivered bytes as a reader at `at` sees them, `at` = (instant, whether the
    /// reader runs after every arrival of that instant): a sample, which runs last at its
    /// instant, or the warm-up's end, which runs before an arrival scheduled after instant 0
    /// (`EventQueue`'s order: time, then scheduling instant). Forgets the deliveries it counts;
    /// readers' instants must not decrease.
    fn delivered_at(&mut self, at: (SimTime, bool)) -> u64 {
        while self.ahead.front().is_some_and(|&(t, late, _)| (t, late) <= at) {
            self.ahead.pop_front();
        }
        self.ahead.front().map_or(self.receiver.delivered_bytes, |&(_, _, before)| before)
    }
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
    /// HSDPA cells, each replacing one link's transmitter (see `net::capacity::hsdpa`).
    cells: Vec<CellHop>,
    /// Per link: the index in `cells` of the HSDPA cell that replaces its transmitter.
    cell_of_link: Vec<Option<u32>>,
    /// Per link: the one upstream link through which all its packets come, when the link may be
    /// offered its packets ahead of the clock (cut-through, see `Simulator::enqueue`).
    cut_feeder: Vec<Option<u32>>,
    /// The flows' routes resolved into links, with the cut-through links flagged (from
    /// `cut_feeder`): what a hop reads to find the next link.
    paths: Paths,
    /// Per flow: the start of its data direction's route and of its reverse (ACK) direction's
    /// route in `paths` ([`Paths::NONE`] where there is none: a UDP flow's reverse).
    flow_paths: Vec<[u32; 2]>,
    /// Per flow: the first link of each of those routes (`Paths::link` of its start;
    /// [`Paths::NONE`] where there is none), read beside the start instead of from it, so that a
    /// packet's first link is one load away from its flow, not two (issue 42).
    flow_first_links: Vec<[u32; 2]>,
    /// Per flow: its TCP receiver takes its data segments ahead of the clock (see
    /// `cut_through::receivers_ahead`).
    recv_ahead: Vec<bool>,
    /// The instant of the next time-series sample (`SimTime::MAX` when none is left). Samples
    /// are not in the event heap: `advance_until` takes one when no other event is due at or
    /// before its instant, so it runs last at its instant, after the events scheduled during
    /// that instant too (which readers at the clock rely on: see `Link::waiting`).
    next_sample_at: SimTime,
    /// The warm-up's end is still to come (it reads the delivered bytes too).
    warmup_pending: bool,
    /// `limits.max_events` of the scenario.
    max_events: u64,
    /// `limits.max_memory` of the scenario (the packet arena's cap is what it leaves for packets).
    max_memory: u64,
    /// `limits.wall_clock` of the scenario.
    wall_clock: Option<std::time::Duration>,
    /// The scenario's `[energy]` power model, when it asks for the hosts' energy.
    energy: Option<EnergySpec>,
    /// With `energy`, per node: the packets that arrived at it in the measurement window (its
    /// transmissions are read from its links at the end); empty without.
    host_activity: Vec<HostActivity>,
    /// With `energy`, per link: its transmitter's (packets, bytes, busy ns) at the warm-up's end.
    warm_tx: Vec<(u64, u64, u64)>,
    /// `limits.max_capture_bytes` of the scenario.
    max_capture_bytes: u64,
    /// The event count at which the current slice ends (see [`Simulator::run_until_stopped`]);
    /// set to 0 to end it after the event at hand (the capture reached its size limit).
    slice_until: u64,
}

/// An HSDPA cell and the link whose transmitter it replaces.
struct CellHop {
    link: usize,
    cell: HsdpaCell,
}

/// How many events [`Simulator::run_until_stopped`] handles between two reads of its stop flag
/// and its limits (some 10–50 ms of wall time on the development machine).
pub const EVENTS_PER_STOP_CHECK: u64 = 1 << 17;

impl Simulator {
    /// Records every in-order delivery (start, end) per flow, for conservation tests.
    #[cfg(feature = "testing")]
    pub fn enable_audit(&mut self) {
        self.audit = Some(vec![Vec::new(); self.flows.len()]);
    }

    /// The recorded deliveries (see [`Simulator::enable_audit`]).
    #[cfg(feature = "testing")]
    pub fn audit(&self) -> Option<&Vec<Vec<(u64, u64)>>> {
        self.audit.as_ref()
    }

    /// Bytes the application of TCP flow `i` offered and the sender's snd_max/snd_una (for tests).
    #[cfg(feature = "testing")]
    pub fn tcp_state(&self, i: usize) -> Option<(u64, u64, u64)> {
        match &self.flows[i].kind {
            FlowKind::Tcp(t) => Some((t.sender.view().seq.app_limit, t.sender.view().seq.snd_max, t.sender.view().seq.snd_una)),
            FlowKind::Udp(_) => None,
        }
    }

    /// Runs every hop through arrival events, as if no link qualified for cut-through (see
    /// `Simulator::enqueue`): the event-by-event reference that cut-through is tested against.
    #[cfg(feature = "testing")]
    pub fn disable_cut_through(&mut self) {
        self.cut_feeder.fill(None);
        self.recv_ahead.fill(false);
        self.paths.mark_cut(&self.cut_feeder);
    }

    /// The flows (by index) whose TCP receiver takes its data segments ahead of the clock (see
    /// `cut_through::receivers_ahead`).
    #[cfg(feature = "testing")]
    pub fn receivers_ahead(&self) -> Vec<usize> {
        self.recv_ahead.iter().enumerate().filter_map(|(i, &a)| a.then_some(i)).collect()
    }

    /// The links (by index, in the summary's order) that take their packets ahead of the clock.
    #[cfg(feature = "testing")]
    pub fn cut_through_links(&self) -> Vec<usize> {
        self.cut_feeder.iter().enumerate().filter_map(|(i, f)| f.map(|_| i)).collect()
    }

    /// Captures every link direction's packets into `dir` during the run (`net::pcap`): one
    /// libpcap file per link direction that carries a packet, one per host that sends or receives
    /// one (`hosts/`), and `events.csv` for drops, losses and corruptions. The capture learns each
    /// TCP flow's options and paths here, for the handshake it writes before the flow's first
    /// frame in each file. An I/O error fails the run with one line naming the file.
    /// A flow with `option_sizes = "ns2"` is refused: its packets' sizes count option bytes that
    /// no real header can carry (10 bytes of timestamps, SACK blocks without kind and length).
    pub(crate) fn enable_pcap(&mut self, dir: &std::path::Path) -> Result<(), ScenarioError> {
        if let Some(f) = self.flows.iter().find(|f| matches!(&f.kind, FlowKind::Tcp(t) if t.ns2_option_sizes)) {
            return Err(ScenarioError::new(
                "pcap",
                format!(
                    "flow '{}' has option_sizes = \"ns2\", whose sizes fit no real TCP header; a capture needs option_sizes = \"rfc\"",
                    f.name
                ),
            ));
        }
        let path = |from: u32, to: u32| {
            let mut nodes = vec![from];
            let mut at = from;
            while let Some(l) = self.routes.next_hop(at, to) {
                at = self.links[l as usize].to;
                nodes.push(at);
            }
            nodes
        };
        let flows = self
            .flows
            .iter()
            .map(|f| match &f.kind {
                FlowKind::Tcp(t) => {
                    let cfg = &t.sender.view().cfg;
                    Some(TcpFlowInfo {
                        src: f.src,
                        dst: f.dst,
                        mss: cfg.mss,
                        rwnd_bytes: cfg.rwnd_bytes,
                        sack: cfg.sack,
                        timestamps: cfg.timestamps,
                        ecn: cfg.ecn,
                        start_ns: f.start,
                        data_path: path(f.src, f.dst),
                        ack_path: path(f.dst, f.src),
                    })
                }
                FlowKind::Udp(_) => None,
            })
            .collect();
        let spec =
            CaptureSpec { links: self.links.iter().map(|l| (l.name.clone(), l.from, l.to)).collect(), nodes: self.nodes.clone(), flows };
        self.capture =
            Some(Box::new(Capture::create(dir, spec, self.end, self.max_capture_bytes).map_err(|e| ScenarioError::new("pcap", e))?));
        self.enqueue_special = true;
        // The capture writes each packet as it arrives at its host, at the clock.
        self.recv_ahead.fill(false);
        Ok(())
    }

    /// Ends the slice after the event at hand once the capture has reached its size limit, so
    /// that the run stops there with `limits.max_capture_bytes` (see `check_limits`).
    #[cold]
    fn end_slice_if_capture_full(&mut self) {
        if self.capture.as_ref().is_some_and(|c| c.full_at().is_some()) {
            self.slice_until = 0;
        }
    }

    /// Current simulated time.
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Runs to the scenario's end time and returns the results, or the error of the scenario's
    /// `limits` that the run exceeded (events, wall-clock time).
    pub fn run(&mut self) -> Result<RunOutput, ScenarioError> {
        let never = AtomicBool::new(false);
        self.run_until_stopped(&never).map(|o| o.expect("the stop flag is never set"))
    }

    /// The whole run as one slice, without the stop flag or the event and wall-clock limits: the
    /// reference that tests compare the sliced loop with (`tests/engine/interrupt.rs`).
    #[cfg(feature = "testing")]
    pub fn run_in_one_slice(&mut self) -> RunOutput {
        self.advance(self.end);
        self.now = self.end;
        self.output()
    }

    /// [`Simulator::run`] that stops early when `stop` is set (Ctrl-C in the CLI and the Python
    /// API). The flag and the `limits` are checked every [`EVENTS_PER_STOP_CHECK`] events (and
    /// at the end), so the loop itself carries one comparison per event and a set flag ends the
    /// run within milliseconds of wall time, however the events are spread over simulated time.
    /// (Slices of simulated time sized from the last one's event count let a quiet stretch — a
    /// flow starting late — grow a slice to thousands of simulated seconds, whose events then ran
    /// unchecked for as long as they took; issue 39.) `Ok(None)` when it stopped; otherwise the
    /// results equal an unsliced run's bit for bit (slicing changes no event's order: a slice
    /// takes the next events in order, as a single loop would). The event limit is exact: the run
    /// fails exactly when it needs more than `limits.max_events` events.
    pub fn run_until_stopped(&mut self, stop: &AtomicBool) -> Result<Option<RunOutput>, ScenarioError> {
        let started = std::time::Instant::now();
        loop {
            if stop.load(Ordering::Relaxed) {
                return Ok(None);
            }
            self.check_limits(started)?;
            // One event past the limit at most, which the check after the slice reports.
            let until = self.events.saturating_add(EVENTS_PER_STOP_CHECK).min(self.max_events.saturating_add(1));
            if self.advance_until(self.end, until) {
                self.check_limits(started)?;
                break;
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
        if let Some(t) = self.capture.as_ref().and_then(|c| c.full_at()) {
            return Err(ScenarioError::new(
                "limits.max_capture_bytes",
                format!(
                    "the packet capture would write more than {} bytes (it reached them at t = {}s; {at}; raise limits.max_capture_bytes)",
                    self.max_capture_bytes,
                    ns_to_s(t)
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
    #[cfg(feature = "testing")]
    fn advance(&mut self, limit: SimTime) {
        self.advance_until(limit, u64::MAX);
    }

    /// Handles the events due at or before `limit`, in order, until the event count reaches
    /// `until`; returns whether none is left before `limit` (false: stopped by the count, or by
    /// the packet memory).
    fn advance_until(&mut self, limit: SimTime, until: u64) -> bool {
        self.slice_until = until;
        loop {
            // The next event: the heap's first, or the sample due before it. A sample runs after
            // every other event at its instant (those scheduled during it included), the order
            // it had in the heap with the largest key of its instant; kept out of the heap, it no
            // longer deepens every other event's sift (issue 42: some 15 instructions per event).
            let (t, ev) = match self.queue.peek() {
                Some((t, ev)) if t <= self.next_sample_at => (t, ev),
                _ if self.next_sample_at != SimTime::MAX => (self.next_sample_at, Event::Sample),
                _ => return true,
            };
            if t > limit {
                return true;
            }
            // A run over its packet memory stops at once, not at the slice's end: one slice could
            // start 10⁵ flows of a million-packet window each.
            if self.events >= self.slice_until || self.pkts.over_cap() {
                return false;
            }
            self.now = t;
            self.events += 1;
            if let Event::Arrive { link } = ev {
                // The link's next packet in flight takes this event's place in the heap.
                // SAFETY: an arrival's link is a link (see `unchecked_mut`).
                let l = unsafe { unchecked_mut(&mut self.links, link as usize) };
                let arrived = l.in_flight.pop_front().expect("arrival without a packet in flight");
                let pkt = arrived.pkt;
                l.stats.arrived_packets += 1;
                match l.in_flight.front() {
                    Some(f) => {
                        // Its slot, long written, is read at its arrival: fetched meanwhile.
                        self.pkts.prefetch(f.pkt);
                        self.queue.replace_arrival(f.at, f.offered, ev)
                    }
                    None => self.queue.pop_arrival(),
                }
                let node = l.to;
                if !self.host_activity.is_empty() && t >= self.warmup {
                    // The receiving interface is busy while the packet comes in (metrics::energy).
                    let bytes = self.pkts.get(pkt).size_bytes;
                    let a = &mut self.host_activity[node as usize];
                    a.rx_packets += 1;
                    a.rx_bytes += bytes as u64;
                    a.rx_ns += l.rate.tx_time_ns(bytes);
                }
                // The packet's route says whether this is its destination or which link is next.
                let next = arrived.hop + 1;
                // SAFETY: one past the entry of the link it arrived on (`Paths::entry`).
                if unsafe { self.paths.entry(next) } == Paths::END {
                    debug_assert_eq!(self.pkts.get(pkt).dst, node, "a route ends at its destination");
                    self.deliver(pkt, t);
                } else {
                    let p = self.pkts.get(pkt);
                    // SAFETY: `next` is not the route's end (`Paths::entry`).
                    let link = unsafe { self.paths.link(next) };
                    self.forward_from(next, link, pkt, t, (p.size_bytes, p.ecn));
                }
            } else if let Event::Sample = ev {
                self.sample();
                let next = t + self.sample_ns;
                self.next_sample_at = if next <= self.end { next } else { SimTime::MAX };
            } else {
                self.queue.pop_other();
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
            Event::Sample => unreachable!("samples are taken in `advance_until`, outside the heap"),
            Event::CellTti { cell } => {
                self.cell_tti(cell as usize);
                self.end_slice_if_capture_full();
            }
            Event::WarmupEnd => {
                let now = self.now;
                self.warmup_pending = false;
                for (w, l) in self.warm_tx.iter_mut().zip(&self.links) {
                    let st = l.stats_at(now);
                    *w = (st.packets_sent, st.bytes_sent, st.busy_ns);
                }
                for f in &mut self.flows {
                    match &mut f.kind {
                        FlowKind::Tcp(t) => {
                            f.warm_delivered = t.delivered_at((now, false));
                            f.warm_acked = t.sender.view().stats.acked_bytes;
                            t.sender.start_measurement();
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
}

/// `items[i]` without a bounds check, for the per-packet paths (issue 42 part 5: with the packet
/// arena's, these checks were about 3% of a run's instructions).
///
/// # Safety
/// `i < items.len()`. The callers' indices are a packet's `flow` (written by the flow that made
/// the packet, from its own index; flows are never removed, and `recv_ahead` and `flow_paths`
/// have one entry per flow), a link on a route (`Paths::resolve` reads each entry's far node
/// from the links, checked) or an `Event::Arrive`'s link (pushed for a packet in flight on that
/// link). The test profile, which `make test` and the invariant campaign run, checks the bound.
#[inline(always)]
unsafe fn unchecked_mut<T>(items: &mut [T], i: usize) -> &mut T {
    debug_assert!(i < items.len(), "index {i} of {}", items.len());
    // SAFETY: the caller's.
    unsafe { items.get_unchecked_mut(i) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A data segment's bytes besides its payload, worked by hand: 20 of IP and 20 of TCP
    /// header, + 12 of timestamps option (RFC 7323: 10 padded to 12), or 10 as ns-2.35 counts it
    /// (`ts_option_size_`), + 4 of TCP HACK's header checksum option (CAIAD).
    #[test]
    fn data_header_bytes_by_hand() {
        assert_eq!(TcpFlow::data_header_bytes_of(false, false, false), 40);
        assert_eq!(TcpFlow::data_header_bytes_of(false, true, false), 40);
        assert_eq!(TcpFlow::data_header_bytes_of(true, false, false), 52);
        assert_eq!(TcpFlow::data_header_bytes_of(true, true, false), 50);
        assert_eq!(TcpFlow::data_header_bytes_of(false, false, true), 44);
        assert_eq!(TcpFlow::data_header_bytes_of(true, false, true), 56);
    }

    /// `SenderConfig::default()` is what a scenario's TCP flow gets when it sets nothing: the
    /// builder's resolution of the `[[flows]]` defaults and the sender's own `Default` agree.
    #[test]
    fn sender_defaults_are_the_scenario_defaults() {
        let text = "duration = \"1s\"\nnodes = [\"a\", \"b\"]\n[[links]]\nfrom = \"a\"\nto = \"b\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n\
                    [[flows]]\nkind = \"tcp\"\nname = \"f\"\nsrc = \"a\"\ndst = \"b\"\ncc = \"reno\"\nrecovery = \"newreno\"\n";
        let sim = Simulator::build(&crate::scenario::parse(text).unwrap(), 1).unwrap();
        let FlowKind::Tcp(t) = &sim.flows[0].kind else { panic!("a TCP flow") };
        let built = format!("{:?}", t.sender.view().cfg);
        assert_eq!(built, format!("{:?}", crate::tcp::SenderConfig::default()));
    }
}
