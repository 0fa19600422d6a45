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

#[cfg(test)]
mod tests {
    use super::*;

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
