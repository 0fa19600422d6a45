//! Cut-through: which links may be offered their packets ahead of the clock, saving an event and a
//! heap operation per hop (see `Simulator::enqueue`).

use super::Flow;
use crate::net::queue::Aqm;
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
/// instant (`EventQueue::push_last`), so a packet that reaches L's near node at a sample's instant
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
            let eligible = !origin[l.from as usize] && matches!(l.queue.aqm, Aqm::DropTail) && l.arq.is_none() && cell_of_link[i].is_none();
            feeder[i].flatten().filter(|_| eligible)
        })
        .collect()
}
