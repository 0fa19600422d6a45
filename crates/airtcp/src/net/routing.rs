//! Static shortest-path routing, computed once when the scenario is built.
//!
//! Paths minimize hop count (as ns-2's default static routing does); among equal-length paths the
//! link declared first in the scenario wins, so routes are deterministic.

use std::collections::VecDeque;

use super::NodeId;

/// `next_hop[node][dst]` = the link a packet at `node` bound for `dst` takes.
#[derive(Debug, Clone)]
pub(crate) struct RoutingTable {
    n: usize,
    /// Row-major `n × n`, [`NO_ROUTE`] where there is none: 4 bytes an entry (an `Option<u32>`
    /// takes 8), 400 MB at the scenario's 10 000-node bound.
    next: Vec<u32>,
}

/// The entry of an unreachable (node, destination) pair.
const NO_ROUTE: u32 = u32::MAX;

impl RoutingTable {
    /// Builds the table from one-way links given as (from, to), indexed by link id.
    pub(crate) fn build(n_nodes: usize, links: &[(NodeId, NodeId)]) -> Self {
        let mut next = vec![NO_ROUTE; n_nodes * n_nodes];
        // Reverse BFS from each destination over incoming links.
        let mut incoming: Vec<Vec<u32>> = vec![Vec::new(); n_nodes];
        for (id, &(_, to)) in links.iter().enumerate() {
            incoming[to as usize].push(id as u32);
        }
        for dst in 0..n_nodes {
            let mut dist = vec![usize::MAX; n_nodes];
            dist[dst] = 0;
            let mut q = VecDeque::from([dst]);
            while let Some(v) = q.pop_front() {
                for &l in &incoming[v] {
                    let u = links[l as usize].0 as usize;
                    if dist[u] == usize::MAX {
                        dist[u] = dist[v] + 1;
                        next[u * n_nodes + dst] = l;
                        q.push_back(u);
                    } else if dist[u] == dist[v] + 1 {
                        // Equal-length alternative: keep the lowest link id.
                        let cur = &mut next[u * n_nodes + dst];
                        *cur = (*cur).min(l);
                    }
                }
            }
        }
        RoutingTable { n: n_nodes, next }
    }

    /// The link to take from `node` towards `dst`; `None` when `dst` is unreachable or `node == dst`.
    #[inline]
    pub(crate) fn next_hop(&self, node: NodeId, dst: NodeId) -> Option<u32> {
        let l = self.next[node as usize * self.n + dst as usize];
        (l != NO_ROUTE).then_some(l)
    }
}

/// The flows' routes resolved into the links they take, so that a hop finds the next link, and
/// whether it takes the packet ahead of the clock (cut-through), in one load from the route
/// instead of a chain of loads through the link's far node and the routing table's row (issue
/// 42). Each distinct (source, destination) route is stored once, as its links in order followed
/// by [`Paths::END`]; a packet on a link knows its place on its route (its *hop*: an index into
/// the list, carried by its in-flight entry and by the engine while it cuts through).
#[derive(Debug, Clone, Default)]
pub(crate) struct Paths {
    /// The routes' entries: a link id, with [`Paths::CUT`] set when that link takes its packets
    /// from the route's previous link ahead of the clock; [`Paths::END`] after each route's last
    /// link.
    hops: Vec<u32>,
    /// The index of each route's first entry, by (source, destination).
    starts: std::collections::HashMap<(NodeId, NodeId), u32>,
}

impl Paths {
    /// The flag of an entry whose link is cut through from the route's previous link.
    pub(crate) const CUT: u32 = 1 << 31;
    /// The entry after a route's last link (no link id reaches it, and it has no `CUT` flag).
    pub(crate) const END: u32 = Self::CUT - 1;
    /// The start of a route that does not exist (a destination the routes cannot reach).
    pub(crate) const NONE: u32 = u32::MAX;

    /// The index of the first entry of the route from `src` to `dst`, resolved from `routes` over
    /// `links` (the far node of each link) when first asked; [`Paths::NONE`] when `dst` cannot be
    /// reached, or is `src`. The flags are set by [`Paths::mark_cut`].
    pub(crate) fn resolve(&mut self, routes: &RoutingTable, link_to: &[NodeId], src: NodeId, dst: NodeId) -> u32 {
        if let Some(&s) = self.starts.get(&(src, dst)) {
            return s;
        }
        assert!(link_to.len() < Self::END as usize, "link ids must stay below the route's end marker");
        let start = self.hops.len() as u32;
        let mut node = src;
        // A shortest route takes each link at most once.
        for _ in 0..link_to.len() {
            let Some(l) = routes.next_hop(node, dst) else { break };
            self.hops.push(l);
            node = link_to[l as usize];
        }
        // A route has a link at least (the source is not the destination).
        let start = if node == dst && self.hops.len() > start as usize {
            self.hops.push(Self::END);
            start
        } else {
            self.hops.truncate(start as usize);
            Self::NONE
        };
        self.starts.insert((src, dst), start);
        start
    }

    /// Each resolved route's entries (links, with their [`Paths::CUT`] flags as last marked),
    /// in the order they were resolved: what the cut-through rule walks (`sim::cut_through`).
    pub(crate) fn routes(&self) -> impl Iterator<Item = &[u32]> {
        self.hops.split(|&e| e == Self::END).filter(|r| !r.is_empty())
    }

    /// The entries of the route that starts at `start` (a route's start, not [`Paths::NONE`]),
    /// its `END` left out.
    pub(crate) fn route(&self, start: u32) -> &[u32] {
        let rest = &self.hops[start as usize..];
        &rest[..rest.iter().position(|&e| e == Self::END).unwrap_or(rest.len())]
    }

    /// Sets each entry's [`Paths::CUT`] flag from `cut_feeder` (per link: the one upstream link
    /// it takes its packets from ahead of the clock, if any): a link is cut through on a route
    /// when its feeder is the route's previous link.
    pub(crate) fn mark_cut(&mut self, cut_feeder: &[Option<u32>]) {
        let mut prev = None;
        for e in &mut self.hops {
            if *e == Self::END {
                prev = None;
                continue;
            }
            let l = *e & !Self::CUT;
            *e = if prev.is_some() && cut_feeder[l as usize] == prev { l | Self::CUT } else { l };
            prev = Some(l);
        }
    }

    /// The entry at `hop` (a link id with its [`Paths::CUT`] flag, or [`Paths::END`]), read
    /// without a bounds check: the hop's own read, the bound checked by a debug assertion in the
    /// test profile, where every scenario test walks its packets' routes.
    ///
    /// # Safety
    ///
    /// `hop` must be an index this table gave: a route's start from [`Paths::resolve`] (not
    /// [`Paths::NONE`]), or one past an entry that is not [`Paths::END`]. Every route ends with
    /// `END` (`routes_are_resolved_with_their_cut_flags`), so such an index is in bounds.
    #[inline(always)]
    pub(crate) unsafe fn entry(&self, hop: u32) -> u32 {
        debug_assert!((hop as usize) < self.hops.len(), "route entry {hop} of {}", self.hops.len());
        // SAFETY: in bounds for the indices the caller guarantees (see above).
        unsafe { *self.hops.get_unchecked(hop as usize) }
    }

    /// The link of the entry at `hop`, which is not [`Paths::END`].
    ///
    /// # Safety
    ///
    /// As for [`Paths::entry`].
    #[inline(always)]
    pub(crate) unsafe fn link(&self, hop: u32) -> u32 {
        // SAFETY: the caller's guarantee.
        unsafe { self.entry(hop) & !Self::CUT }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A route lists the links a packet takes, ends with `END`, is stored once however often
    /// asked, and flags exactly the links whose feeder is the route's previous link.
    #[test]
    fn routes_are_resolved_with_their_cut_flags() {
        // 0 -> 1 -> 2 -> 3 (links 0, 1, 2), 3 -> 2 (link 3), 2 -> 1 (link 4), and 4 isolated.
        let pairs = [(0, 1), (1, 2), (2, 3), (3, 2), (2, 1)];
        let to: Vec<NodeId> = pairs.iter().map(|p| p.1).collect();
        let r = RoutingTable::build(5, &pairs);
        let mut p = Paths::default();
        let a = p.resolve(&r, &to, 0, 3);
        let b = p.resolve(&r, &to, 3, 1);
        assert_eq!(p.resolve(&r, &to, 0, 3), a);
        assert_eq!(p.resolve(&r, &to, 0, 4), Paths::NONE);
        assert_eq!(p.resolve(&r, &to, 3, 0), Paths::NONE);
        assert_eq!(p.resolve(&r, &to, 2, 2), Paths::NONE);
        let route = |p: &Paths, s: u32| p.hops[s as usize..].iter().copied().take_while(|&e| e != Paths::END).collect::<Vec<_>>();
        assert_eq!(route(&p, a), vec![0, 1, 2]);
        assert_eq!(route(&p, b), vec![3, 4]);
        assert_eq!(p.hops[a as usize + 3], Paths::END);
        assert_eq!(p.hops[b as usize + 2], Paths::END);
        assert_eq!(p.routes().collect::<Vec<_>>(), vec![&[0, 1, 2][..], &[3, 4][..]]);
        assert_eq!((p.route(a), p.route(b)), (&[0, 1, 2][..], &[3, 4][..]));
        // Link 1 fed by link 0 and link 4 fed by link 3: cut; link 2 fed by link 3 (not on this
        // route's previous link): not; a route's first link never.
        let feeders = [Some(3), Some(0), Some(3), None, Some(3)];
        p.mark_cut(&feeders);
        assert_eq!(route(&p, a), vec![0, 1 | Paths::CUT, 2]);
        assert_eq!(route(&p, b), vec![3, 4 | Paths::CUT]);
        // SAFETY: one past a route's start entry, which is a link.
        assert_eq!(unsafe { (p.link(a + 1), p.link(b + 1)) }, (1, 4));
        p.mark_cut(&[None; 5]);
        assert_eq!(route(&p, a), vec![0, 1, 2]);
    }

    #[test]
    fn shortest_paths_on_a_line_and_a_shortcut() {
        // 0 -> 1 -> 2 -> 3 and a shortcut 0 -> 3.
        let links = [(0, 1), (1, 2), (2, 3), (0, 3), (3, 2)];
        let r = RoutingTable::build(4, &links);
        assert_eq!(r.next_hop(0, 3), Some(3));
        // Two 2-hop paths (via links 0 and 3): the first-declared link wins.
        assert_eq!(r.next_hop(0, 2), Some(0));
        assert_eq!(r.next_hop(1, 3), Some(1));
        assert_eq!(r.next_hop(3, 0), None);
        assert_eq!(r.next_hop(2, 2), None);
    }
}
