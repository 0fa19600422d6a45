//! Semantic checks of a parsed scenario: value ranges, name references, routes. Each failure is
//! one [`ScenarioError`] naming the field path and the allowed range; nothing is clamped.

use std::collections::HashMap;

pub(crate) use super::limits::memory_estimate;
use super::limits::{check_limits, FLOW_STATE_BYTES};
use super::model::*;
use super::plan::{FlowPlan, LinkPlan, Plan, TcpPlan};
use super::ScenarioError;
use crate::net::capacity::hsdpa::CellParams;
use crate::net::capacity::trace::TraceFiles;
use crate::net::capacity::{CapacityContext, ResolvedCapacity};
use crate::net::RoutingTable;
pub(crate) use crate::spec::quote;
use crate::spec::{err, period, pkts};

/// The most nodes a scenario may name. Routing keeps a next hop for every (node, destination)
/// pair, 4 bytes each: 400 MB at this bound.
pub(crate) const MAX_NODES: usize = 10_000;

/// Name of flow entry `i` (its `name`, or `"flow<i>"`).
pub(crate) fn flow_name(f: &FlowSpec, i: usize) -> String {
    f.ends().name.map_or_else(|| format!("flow{i}"), str::to_string)
}

/// One flow a scenario entry stands for (a TCP entry with `count`/`direction` stands for many).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FlowInstance {
    /// As reported: the entry's name, or `"<name>.<k>"` / `"<name>.rev<k>"` inside a group.
    pub name: String,
    /// Runs dst → src.
    pub reversed: bool,
    /// Added to the entry's `start`.
    pub start_offset_ns: u64,
}

/// The flows entry `i` stands for, in order (forward ones first).
pub(crate) fn flow_instances(f: &FlowSpec, i: usize) -> Vec<FlowInstance> {
    let base = flow_name(f, i);
    let FlowSpec::Tcp(t) = f else {
        return vec![FlowInstance { name: base, reversed: false, start_offset_ns: 0 }];
    };
    if t.count == 1 && t.direction == Direction::Forward {
        return vec![FlowInstance { name: base, reversed: false, start_offset_ns: 0 }];
    }
    let dirs: &[bool] = match t.direction {
        Direction::Forward => &[false],
        Direction::Reverse => &[true],
        Direction::Both => &[false, true],
    };
    let mut out = Vec::new();
    for &rev in dirs {
        for k in 0..t.count {
            let name = if rev { format!("{base}.rev{k}") } else { format!("{base}.{k}") };
            out.push(FlowInstance { name, reversed: rev, start_offset_ns: k as u64 * t.start_spacing.as_nanos() });
        }
    }
    out
}

/// Checks everything a type cannot, and returns the scenario resolved ([`Plan`]); the first
/// problem found is the error.
pub(crate) fn validate_and_load(s: &Scenario) -> Result<Plan<'_>, ScenarioError> {
    let mut link_plans = Vec::with_capacity(s.links.len());
    let mut flow_plans = Vec::with_capacity(s.flows.len());
    if s.duration.as_nanos() == 0 {
        return err("duration", "must be greater than 0s");
    }
    if s.warmup >= s.duration {
        return err("warmup", format!("must be less than duration ({}s)", s.duration.as_secs_f64()));
    }
    if s.sample_interval.as_nanos() == 0 {
        return err("sample_interval", "must be greater than 0s");
    }
    if s.duration.as_nanos() / s.sample_interval.as_nanos() > 10_000_000 {
        return err("sample_interval", "too small: more than 10^7 samples per run");
    }
    if s.nodes.is_empty() {
        return err("nodes", "at least one node is required");
    }
    if s.nodes.len() > MAX_NODES {
        return err("nodes", format!("{} nodes is out of range (allowed: 1 to {MAX_NODES})", s.nodes.len()));
    }
    let mut ids = HashMap::new();
    for (i, n) in s.nodes.iter().enumerate() {
        if n.is_empty() {
            return err(format!("nodes[{i}]"), "a node name must not be empty");
        }
        if ids.insert(n.as_str(), i as u32).is_some() {
            return err(format!("nodes[{i}]"), format!("duplicate node name '{}'", quote(n)));
        }
    }
    // At most the first few (a scenario may name 10^4 nodes), each quoted short.
    let known_nodes = || {
        let mut k = s.nodes.iter().take(KNOWN_NAMES_SHOWN).map(|n| quote(n)).collect::<Vec<_>>().join(", ");
        if s.nodes.len() > KNOWN_NAMES_SHOWN {
            k += &format!(", … ({} nodes in all)", s.nodes.len());
        }
        k
    };
    let node = |field: String, name: &str| -> Result<u32, ScenarioError> {
        ids.get(name)
            .copied()
            .ok_or_else(|| ScenarioError::new(&field, format!("unknown node '{}' (known nodes: {})", quote(name), known_nodes())))
    };
    let mut one_way = Vec::new();
    let mut seen_links = HashMap::new();
    let mut ctx = CapacityContext { base_dir: s.base_dir.as_deref(), traces: TraceFiles::new(s.limits.max_memory.0) };
    for (i, l) in s.links.iter().enumerate() {
        let f = node(format!("links[{i}].from"), &l.from)?;
        let t = node(format!("links[{i}].to"), &l.to)?;
        if f == t {
            return err(format!("links[{i}].to"), "a link must join two different nodes");
        }
        let capacity = match (&l.rate, &l.capacity) {
            (Some(r), None) => {
                if r.bps() == 0 {
                    return err(format!("links[{i}].rate"), "must be greater than 0bps");
                }
                ResolvedCapacity::constant(*r)
            }
            (None, Some(c)) => c.resolve(&format!("links[{i}].capacity"), &mut ctx)?,
            (Some(_), Some(_)) => return err(format!("links[{i}].capacity"), "give either rate or capacity, not both"),
            (None, None) => return err(format!("links[{i}].rate"), "a link needs a rate (or a capacity)"),
        };
        if capacity.cell.is_some() {
            if l.duplex && l.reverse_capacity.is_none() {
                return err(
                    format!("links[{i}].reverse_capacity"),
                    "required with an hsdpa capacity (the cell is downlink only): give the uplink, e.g. { kind = \"constant\", rate = \"384kbps\" }",
                );
            }
            if !l.channel.is_none() {
                return err(format!("links[{i}].channel"), "an hsdpa cell models its own radio errors: leave channel unset");
            }
            // Its `ues` name flows: checked once the flows' names are known (below), against one
            // set of them (the names of every flow were built here for every cell, and each UE
            // searched them: links × flows, then UEs × flows).
        }
        let mut reverse_capacity = None;
        if let Some(c) = &l.reverse_capacity {
            if !l.duplex {
                return err(format!("links[{i}].reverse_capacity"), "only allowed on a duplex link");
            }
            if c.is_cell() {
                return err(
                    format!("links[{i}].reverse_capacity"),
                    "an hsdpa cell is downlink only (allowed kinds here: constant, schedule, trace)",
                );
            }
            reverse_capacity = Some(c.resolve(&format!("links[{i}].reverse_capacity"), &mut ctx)?);
        }
        l.queue.check(&format!("links[{i}].queue"))?;
        if let Some(q) = &l.reverse_queue {
            if !l.duplex {
                return err(format!("links[{i}].reverse_queue"), "only allowed on a duplex link");
            }
            q.check(&format!("links[{i}].reverse_queue"))?;
        }
        let channel = l.channel.resolve(&format!("links[{i}].channel"))?;
        let reverse_channel = l.reverse_channel.resolve(&format!("links[{i}].reverse_channel"))?;
        if !l.duplex && !l.reverse_channel.is_none() {
            return err(format!("links[{i}].reverse_channel"), "only allowed on a duplex link");
        }
        if !(1..=1000).contains(&l.link_retransmission_max) {
            return err(
                format!("links[{i}].link_retransmission_max"),
                format!("must be from 1 to 1000, got {}", l.link_retransmission_max),
            );
        }
        period(format!("links[{i}].link_retransmission_timeout"), l.link_retransmission_timeout)?;
        link_plans.push(LinkPlan { from: f, to: t, capacity, reverse_capacity, channel, reverse_channel });
        let mut dirs = vec![(f, t)];
        if l.duplex {
            dirs.push((t, f));
        }
        for (a, b) in dirs {
            if let Some(j) = seen_links.insert((a, b), i) {
                return err(
                    format!("links[{i}]"),
                    format!("duplicates the {}->{} direction of links[{j}]", s.nodes[a as usize], s.nodes[b as usize]),
                );
            }
            one_way.push((a, b));
        }
    }
    let routes = RoutingTable::build(s.nodes.len(), &one_way);
    // Before a flow's name is built: the flows' state alone must fit the memory limit, or an
    // 18-KB file of 10^5-flow groups made names by the hundred million (4 GB) before the limit
    // refused it. Groups whose count is out of range are refused below, with their field.
    let flows: u64 = s
        .flows
        .iter()
        .map(|f| match f {
            FlowSpec::Tcp(t) => (t.count as u64).min(MAX_GROUP_COUNT) * if t.direction == Direction::Both { 2 } else { 1 },
            _ => 1,
        })
        .fold(0, u64::saturating_add);
    let state = flows.saturating_mul(FLOW_STATE_BYTES);
    if state > s.limits.max_memory.0 && s.limits.max_memory.0 > 0 {
        return err(
            "limits.max_memory",
            format!(
                "the run's {flows} flows need about {:.0}MB for their state alone, above the limit of {:.0}MB (raise limits.max_memory)",
                state as f64 / 1e6,
                s.limits.max_memory.0 as f64 / 1e6
            ),
        );
    }
    let mut names = HashMap::new();
    let mut flow_ends = Vec::with_capacity(s.flows.len());
    // Per entry: its end nodes, the flows it stands for, and whether they are TCP (both ways).
    let mut ends: Vec<(u32, u32, u64, bool)> = Vec::with_capacity(s.flows.len());
    // The first few names in order, for the errors that list the known flows.
    let mut first_names: Vec<String> = Vec::new();
    for (i, fl) in s.flows.iter().enumerate() {
        // Before the instances are built: a count of 4 294 967 295 used to make that many names.
        if let FlowSpec::Tcp(t) = fl {
            if !(1..=MAX_GROUP_COUNT).contains(&(t.count as u64)) {
                return err(format!("flows[{i}].count"), format!("{} is out of range (allowed: 1 to 100000)", t.count));
            }
            // The group's last start, in exact arithmetic: it must stay in the time range.
            let last = t.start.as_nanos() as u128 + (t.count as u128 - 1) * t.start_spacing.as_nanos() as u128;
            if last > crate::time::MAX_DURATION_NS as u128 {
                return err(
                    format!("flows[{i}].start_spacing"),
                    format!(
                        "the group's last start, start + (count - 1) * start_spacing = {}s, is out of range (allowed: up to 10000000s)",
                        last as f64 / 1e9
                    ),
                );
            }
        }
        for inst in flow_instances(fl, i) {
            if first_names.len() < KNOWN_NAMES_SHOWN {
                first_names.push(inst.name.clone());
            }
            if let Some(j) = names.insert(inst.name.clone(), i) {
                let whose = if j == i { String::new() } else { format!(" (also flows[{j}])") };
                return err(format!("flows[{i}].name"), format!("duplicate flow name '{}'{whose}", quote(&inst.name)));
            }
        }
        let Ends { src, dst, start, stop, .. } = fl.ends();
        let a = node(format!("flows[{i}].src"), src)?;
        let b = node(format!("flows[{i}].dst"), dst)?;
        let instances = match fl {
            FlowSpec::Tcp(t) => t.count as u64 * if t.direction == Direction::Both { 2 } else { 1 },
            _ => 1,
        };
        ends.push((a, b, instances, matches!(fl, FlowSpec::Tcp(_))));
        flow_ends.push((a, b));
        if a == b {
            return err(format!("flows[{i}].dst"), "must differ from src");
        }
        if routes.next_hop(a, b).is_none() {
            return err(format!("flows[{i}]"), format!("no route from '{src}' to '{dst}'"));
        }
        if let Some(stop) = stop {
            if stop <= start {
                return err(format!("flows[{i}].stop"), "must be later than start");
            }
        }
        match fl {
            FlowSpec::Tcp(t) => {
                if t.start_jitter.as_nanos() > s.duration.as_nanos() {
                    return err(
                        format!("flows[{i}].start_jitter"),
                        format!(
                            "{}s is out of range (allowed: 0s to the duration, {}s)",
                            t.start_jitter.as_nanos() as f64 / 1e9,
                            s.duration.as_nanos() as f64 / 1e9
                        ),
                    );
                }
                if let Some(stop) = t.stop {
                    let last = t.start.as_nanos() + (t.count as u64 - 1) * t.start_spacing.as_nanos() + t.start_jitter.as_nanos();
                    if stop.as_nanos() <= last {
                        return err(
                            format!("flows[{i}].stop"),
                            format!("must be later than the group's last start ({}s)", last as f64 / 1e9),
                        );
                    }
                }
                if routes.next_hop(b, a).is_none() {
                    return err(format!("flows[{i}]"), format!("no route back from '{dst}' to '{src}' for ACKs"));
                }
                let cc = match crate::cc::resolve(&t.cc, t.cc_params.as_ref()) {
                    Ok(make) => {
                        // One instance, to read what the policy declares (its needs, its estimates).
                        let probe = make();
                        let needs = probe.needs();
                        let extra: Vec<&'static str> = probe.estimates().iter().skip(1).map(|e| e.0).collect();
                        if needs.ecn && !t.ecn {
                            return err(
                                format!("flows[{i}].ecn"),
                                format!("cc = \"{}\" needs ecn = true (congestion warnings reach the sender as ECN-Echo)", t.cc),
                            );
                        }
                        if needs.sack && !t.sack {
                            return err(
                                format!("flows[{i}].sack"),
                                format!("cc = \"{}\" needs sack = true (SACK-based retransmission)", t.cc),
                            );
                        }
                        if needs.timestamps && !t.timestamps {
                            return err(
                                format!("flows[{i}].timestamps"),
                                format!("cc = \"{}\" needs timestamps = true (its estimator reads the receiver's clock)", t.cc),
                            );
                        }
                        if let Some((r, what)) = needs.recovery.filter(|(r, _)| *r != t.recovery) {
                            return err(format!("flows[{i}].recovery"), format!("cc = \"{}\" {what} needs recovery = \"{r}\"", t.cc));
                        }
                        (make, needs, extra, probe)
                    }
                    Err(None) => {
                        return err(
                            format!("flows[{i}].cc"),
                            format!("unknown window policy '{}' (allowed: {})", t.cc, crate::cc::NAMES.join(", ")),
                        )
                    }
                    Err(Some(m)) => return Err(ScenarioError { message: format!("flows[{i}].cc_params.{m} (cc = \"{}\")", t.cc) }),
                };
                let Some(recovery) = crate::tcp::recovery::find(&t.recovery) else {
                    return err(
                        format!("flows[{i}].recovery"),
                        format!("unknown recovery '{}' (allowed: {})", t.recovery, crate::tcp::recovery::NAMES.join(", ")),
                    );
                };
                if recovery.needs_sack && !t.sack {
                    return err(format!("flows[{i}].sack"), format!("recovery = \"{}\" needs sack = true", t.recovery));
                }
                flow_plans.push(FlowPlan::Tcp(t, TcpPlan { cc: cc.0, needs: cc.1, recovery, extra_estimates: cc.2, first_cc: Some(cc.3) }));
                if !(1..=65_000).contains(&t.mss_bytes) {
                    return err(format!("flows[{i}].mss_bytes"), format!("{} is out of range (allowed: 1 to 65000)", t.mss_bytes));
                }
                pkts(format!("flows[{i}].rwnd_pkts"), t.rwnd_pkts)?;
                pkts(format!("flows[{i}].initial_cwnd_pkts"), t.initial_cwnd_pkts)?;
                if t.max_cwnd_pkts == Some(0) {
                    return err(format!("flows[{i}].max_cwnd_pkts"), "must be at least 1");
                }
                if t.initial_ssthresh_pkts.is_some_and(|x| x < 2) {
                    return err(format!("flows[{i}].initial_ssthresh_pkts"), "must be at least 2");
                }
                if t.dupack_threshold == 0 {
                    return err(format!("flows[{i}].dupack_threshold"), "must be at least 1");
                }
                if t.bytes.is_some_and(|b| b.0 == 0) {
                    return err(format!("flows[{i}].bytes"), "must be greater than 0B");
                }
                period(format!("flows[{i}].max_rto"), t.max_rto)?;
                period(format!("flows[{i}].initial_rto"), t.initial_rto)?;
                if t.min_rto > t.max_rto {
                    return err(format!("flows[{i}].min_rto"), "must not exceed max_rto");
                }
                if t.rto_undo == RtoUndoPolicy::Eifel && !t.timestamps {
                    return err(format!("flows[{i}].rto_undo"), "rto_undo = \"eifel\" needs timestamps = true");
                }
                if t.delayed_ack {
                    period(format!("flows[{i}].delack_timeout"), t.delack_timeout)?;
                }
            }
            FlowSpec::App(a) => {
                a.check(&format!("flows[{i}]"))?;
                flow_plans.push(FlowPlan::App(a));
            }
        }
    }
    let cells: Vec<(usize, &CellParams)> =
        link_plans.iter().enumerate().filter_map(|(i, lp)| lp.capacity.cell.as_ref().map(|c| (i, c))).collect();
    for &(i, h) in &cells {
        for (k, (flow, ..)) in h.ues.iter().enumerate() {
            if !names.contains_key(flow) {
                let mut known = first_names.join(", ");
                if names.len() > first_names.len() {
                    known += &format!(", … ({} flows in all)", names.len());
                }
                return err(format!("links[{i}].capacity.ues[{k}].flow"), format!("unknown flow '{}' (known flows: {known})", quote(flow)));
            }
        }
    }
    if let Some(e) = &s.energy {
        e.check()?;
    }
    let ue_count = if cells.is_empty() { 0 } else { hsdpa_ues(&cells, s, &one_way, &routes, &ends) };
    drop(cells);
    let plan = Plan { links: link_plans, flows: flow_plans, flow_ends, hsdpa_ues: ue_count };
    check_limits(s, one_way.len() as u64, &plan)?;
    Ok(plan)
}

/// At most how many UEs the HSDPA cells make: one per cell and flow whose packets cross it (a
/// TCP flow's either way), counted per path (a flow crossing a cell both ways counts twice).
/// Each distinct path is walked once, so this costs no more than the routes themselves.
fn hsdpa_ues(
    cells: &[(usize, &CellParams)],
    s: &Scenario,
    one_way: &[(u32, u32)],
    routes: &RoutingTable,
    ends: &[(u32, u32, u64, bool)],
) -> u64 {
    // A cell replaces the transmitter of its link's forward direction.
    let cell_dirs: std::collections::HashSet<(u32, u32)> = cells
        .iter()
        .filter_map(|&(i, _)| {
            let l = &s.links[i];
            let id = |n: &str| s.nodes.iter().position(|x| x == n).map(|p| p as u32);
            Some((id(&l.from)?, id(&l.to)?))
        })
        .collect();
    let mut on_path: HashMap<(u32, u32), u64> = HashMap::new();
    let mut cells_between = |a: u32, b: u32| -> u64 {
        *on_path.entry((a, b)).or_insert_with(|| {
            let (mut node, mut n) = (a, 0);
            for _ in 0..one_way.len() {
                let Some(l) = routes.next_hop(node, b) else { break };
                n += cell_dirs.contains(&one_way[l as usize]) as u64;
                node = one_way[l as usize].1;
            }
            n
        })
    };
    ends.iter()
        .map(|&(a, b, k, tcp)| k.saturating_mul(cells_between(a, b) + if tcp { cells_between(b, a) } else { 0 }))
        .fold(0, u64::saturating_add)
}

/// The most flows one TCP entry stands for each way (`count`).
const MAX_GROUP_COUNT: u64 = 100_000;

/// How many flow names an error that lists the known flows shows (then their number).
const KNOWN_NAMES_SHOWN: usize = 10;
