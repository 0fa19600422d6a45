//! Cut-through: which links may be offered their packets ahead of the clock, saving an event and a
//! heap operation per hop (see `Simulator::enqueue`), and which TCP receivers may take their data
//! segments ahead of it, saving the arrival event of every data segment (`receivers_ahead`).

use super::{Flow, FlowKind};
use crate::net::{Link, Paths};

/// Which links may take their packets ahead of the clock (cut-through, see
/// `Simulator::enqueue`), and from which feeder: link L qualifies when
/// - every packet that reaches L comes off one upstream link U (the routes of all flows, both
///   directions of a TCP flow, as resolved in `paths`, enter L only from U), so L's offers come in
///   U's arrival order;
/// - L's near node is no flow's source or destination (nothing else is offered to L);
/// - L's decisions depend only on its offers: a DropTail queue (RED's and CW's averages are read
///   by samples and evolve with time), no link-level ARQ, not an HSDPA cell;
///
/// How long a packet stays on U does not matter: a sample runs after every other event of its
/// instant (`Simulator::next_sample_at`), so a packet that reaches L's near node at a sample's instant
/// counts at that sample, event by event and cut through alike (see `Link::waiting`). (Before
/// samples ran last, an arrival and a sample at one nanosecond ran in the order they had been
/// scheduled, which readers at the clock cannot know; links were then cut only behind feeders
/// that hold a packet for less than one sample interval.)
pub(super) fn cut_through_feeders(
    n_nodes: usize,
    links: &[Link],
    paths: &Paths,
    flows: &[Flow],
    cell_of_link: &[Option<u32>],
) -> Vec<Option<u32>> {
    // Per link: None = no feeder seen yet, Some(Some(u)) = only u, Some(None) = several.
    let mut feeder: Vec<Option<Option<u32>>> = vec![None; links.len()];
    let mut origin = vec![false; n_nodes];
    for f in flows {
        origin[f.src as usize] = true;
        origin[f.dst as usize] = true;
    }
    // The flows' routes as resolved (both directions of a TCP flow), each distinct route once.
    for route in paths.routes() {
        for w in route.windows(2) {
            let (u, l) = (w[0] & !Paths::CUT, w[1] & !Paths::CUT);
            let e = &mut feeder[l as usize];
            *e = match *e {
                None => Some(Some(u)),
                Some(Some(x)) if x == u => Some(Some(u)),
                _ => Some(None),
            };
        }
    }
    links
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let eligible = !origin[l.from as usize] && l.queue.is_droptail() && l.arq.is_none() && cell_of_link[i].is_none();
            feeder[i].flatten().filter(|_| eligible)
        })
        .collect()
}

/// Per flow: whether its TCP receiver may take its data segments ahead of the clock (issue 42,
/// receiver cut-through): when a segment is admitted to the last link of its route, the engine
/// knows the instant it will arrive, and hands it to the receiver then, for that instant, instead
/// of through an arrival event (see `Simulator::enqueue`). Half of the events of a bulk transfer
/// are such arrivals. The receiver's ACK is offered to the first link of the reverse route at
/// that instant, ahead of the clock, as a cut-through link's offers are. This is exact when the
/// receiver and that link see the same sequence of actions, at the same instants, as event by
/// event:
/// - the receiver acts only on arrivals: no delayed-ACK timer (a timer acts at the clock, which
///   arrivals taken ahead would have overtaken), and not CAIAD's receiver (TCP HACK: it reads
///   corrupted segments and may answer through the timer path);
/// - its ACK link R (the reverse route's first link) is offered nothing but the ACKs of such
///   receivers, all fed by one link L: then R's offers come in L's admission order, which is
///   their arrival order (FIFO, constant delay), i.e. time order, as `Link::offer_at` requires.
///   So R is the first link of no data route (no source at its near node sends on it), follows
///   no link on any route (nothing is forwarded into it), and decides only by its offers (a
///   DropTail queue, no ARQ, not an HSDPA cell), as a cut-through link must;
/// - the run has no `[energy]` table (it counts each node's arrivals at their instants) — and no
///   capture, which `Simulator::enable_pcap` switches off with the same effect.
///
/// What the receiver's state is read for at the clock is its delivered bytes (samples, the
/// warm-up's end): the deliveries from the next such reader's instant on are logged for it
/// (`TcpFlow::delivered_at`). Arrivals after the run's end stay events (which never run), so
/// what the summary reads at the end is the receiver as it stands.
pub(super) fn receivers_ahead(
    links: &[Link],
    paths: &Paths,
    flow_paths: &[[u32; 2]],
    flows: &[Flow],
    cell_of_link: &[Option<u32>],
    energy: bool,
) -> Vec<bool> {
    if energy {
        return vec![false; flows.len()];
    }
    // The first link and the last link of the route starting at `hop`.
    let ends = |hop: u32| {
        let route = paths.route(hop);
        (route[0] & !Paths::CUT, route[route.len() - 1] & !Paths::CUT)
    };
    // Per flow: the last link of its data route and the first of its ACK route, when its receiver
    // acts only on arrivals.
    let candidate: Vec<Option<(u32, u32)>> = flows
        .iter()
        .zip(flow_paths)
        .map(|(f, &[data, ack])| match &f.kind {
            FlowKind::Tcp(t) if !t.receiver.delays_acks() && !t.hack && data != Paths::NONE && ack != Paths::NONE => {
                Some((ends(data).1, ends(ack).0))
            }
            _ => None,
        })
        .collect();
    // Per link as an ACK link R: None = unused, Some(Some(l)) = only ACKs of candidates fed by
    // link l, Some(None) = anything else.
    let mut feeds: Vec<Option<Option<u32>>> = vec![None; links.len()];
    let bad = |feeds: &mut [Option<Option<u32>>], r: u32| feeds[r as usize] = Some(None);
    for (c, &[data, _]) in candidate.iter().zip(flow_paths) {
        if data != Paths::NONE {
            bad(&mut feeds, ends(data).0);
        }
        if let Some((l, r)) = *c {
            let e = &mut feeds[r as usize];
            *e = match *e {
                None => Some(Some(l)),
                Some(Some(x)) if x == l => Some(Some(l)),
                _ => Some(None),
            };
        }
    }
    // A TCP flow that is not a candidate sends its ACKs at the clock.
    for (c, (f, &[_, ack])) in candidate.iter().zip(flows.iter().zip(flow_paths)) {
        if c.is_none() && matches!(f.kind, FlowKind::Tcp(_)) && ack != Paths::NONE {
            bad(&mut feeds, ends(ack).0);
        }
    }
    for route in paths.routes() {
        for &e in &route[1..] {
            bad(&mut feeds, e & !Paths::CUT);
        }
    }
    for (i, l) in links.iter().enumerate() {
        if !l.queue.is_droptail() || l.arq.is_some() || cell_of_link[i].is_some() {
            bad(&mut feeds, i as u32);
        }
    }
    candidate.iter().map(|c| c.is_some_and(|(l, r)| feeds[r as usize] == Some(Some(l)))).collect()
}
