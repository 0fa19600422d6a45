//! The resolved scenario: what [`super::validate::validate_and_load`] makes of a [`Scenario`]
//! once it has checked it, and what `Simulator::build` consumes. Every alternative a scenario file
//! may give (a link's `rate` or `capacity`, a Gilbert–Elliott channel per packet or in continuous
//! time, a fading channel by `fd_t` or by speed, a window policy's name and parameters) is settled
//! here into the one typed value the engine runs, so building cannot meet a case it would have to
//! trust validation about: names are node indices, models are resolved parameters, and the builder
//! reads nothing by name.

use super::model::*;
use crate::channel::ChannelParams;
use crate::net::capacity::{Capacity, ResolvedCapacity};

/// A scenario resolved once by [`super::validate::validate_and_load`], borrowing the flow entries
/// of the scenario it was made from.
pub(crate) struct Plan<'s> {
    /// Per `links` entry, in order.
    pub links: Vec<LinkPlan>,
    /// Per `flows` entry, in order.
    pub flows: Vec<FlowPlan<'s>>,
    /// Per `flows` entry: its `src` and `dst` nodes (indices into `nodes`).
    pub(crate) flow_ends: Vec<(u32, u32)>,
    /// At most how many UEs the HSDPA cells make (for the memory estimate).
    pub hsdpa_ues: u64,
}

/// A link entry's models, resolved: capacities (a trace's file already read, with the HSDPA cell
/// when the forward capacity is one), and channels.
pub(crate) struct LinkPlan {
    /// The `from` and `to` nodes (indices into `nodes`).
    pub(crate) from: u32,
    pub(crate) to: u32,
    /// The forward direction's capacity (from `rate` or `capacity`).
    pub(crate) capacity: ResolvedCapacity,
    /// The reverse direction's, when `reverse_capacity` gives one (else the forward one's copy).
    pub(crate) reverse_capacity: Option<ResolvedCapacity>,
    /// The forward direction's channel.
    pub channel: ChannelParams,
    /// The reverse direction's channel.
    pub reverse_channel: ChannelParams,
}

/// A flow entry with what was resolved for it.
pub(crate) enum FlowPlan<'s> {
    /// A TCP entry and its resolved choices.
    Tcp(&'s TcpFlowSpec, TcpPlan),
    /// A UDP application.
    App(&'s AppSpec),
}

/// A TCP entry's resolved choices.
pub(crate) struct TcpPlan {
    /// Builds the entry's window policy, parameters checked: one instance per flow of the entry.
    pub cc: crate::cc::Constructor,
    /// What that policy needs from the flow (checked against the entry's options).
    pub needs: crate::cc::Needs,
    /// The loss-recovery strategy.
    pub recovery: &'static crate::tcp::recovery::Strategy,
    /// The estimates the policy declares beyond its first (each a time-series column).
    pub extra_estimates: Vec<&'static str>,
    /// The instance validation built to read what the policy declares: the entry's first flow
    /// takes it (a policy is built once per flow, never once more to be asked).
    pub(crate) first_cc: Option<Box<dyn crate::cc::CongestionControl>>,
}

impl Plan<'_> {
    /// Distinct names of the estimates beyond the first that the scenario's policies declare: the
    /// extra columns of the flow time series.
    pub(crate) fn extra_estimate_columns(&self) -> u64 {
        let mut names: Vec<&str> = self
            .flows
            .iter()
            .filter_map(|f| match f {
                FlowPlan::Tcp(_, t) => Some(t),
                _ => None,
            })
            .flat_map(|t| t.extra_estimates.iter().copied())
            .collect();
        names.sort_unstable();
        names.dedup();
        names.len() as u64
    }

    /// Delivery opportunities of the trace capacities the plan holds, each trace once however
    /// many link directions replay it (they share its opportunities in memory).
    pub(crate) fn trace_opportunities(&self) -> u64 {
        let mut seen = std::collections::HashSet::new();
        let mut n = 0;
        for c in self.links.iter().flat_map(|l| std::iter::once(&l.capacity).chain(l.reverse_capacity.as_ref()).map(|r| &r.capacity)) {
            if let Capacity::Trace(t) = c {
                if seen.insert(t.offsets_id()) {
                    n += t.per_period();
                }
            }
        }
        n
    }
}
