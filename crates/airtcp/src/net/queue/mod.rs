//! Queue disciplines at the head of a link: DropTail, RED (with optional ECN marking) and
//! TCP-Jersey's congestion warning (CW). All feed one FIFO transmitter (see `net::link`); they
//! differ in the admission decision and in marking.
//!
//! Each kind is a plug-in: its file owns its scenario table (serde), the checks of that table with
//! field paths, and the constructor of its `Queue`; `REGISTRY` lists the kinds, one line each.
//! A new queue is one file plus one line there: a discipline other than the built-in ones builds
//! an [`Aqm::Custom`] with its own [`Admit`].

pub(crate) mod cw;
pub(crate) mod droptail;
pub(crate) mod red;

use std::sync::Arc;

use crate::engine::RngStream;
use crate::net::Ecn;
use crate::spec::{Entry, ScenarioError};
use crate::time::SimTime;

pub(crate) use cw::CwState;
pub(crate) use red::RedState;

/// A queue kind's scenario table, deserialized: it checks its values (errors name
/// `<field>.<key>`) and builds the queue of one link direction.
pub(crate) trait QueueKind: std::fmt::Debug + Send + Sync {
    fn check(&self, field: &str) -> Result<(), ScenarioError>;
    /// The queue of one link direction (of a checked table); `small_pkt_tx_ns` is the time the
    /// link takes to send a "typical small packet" (RED's idle-time rule), 0 at an HSDPA cell.
    fn build(&self, small_pkt_tx_ns: u64) -> Queue;
}

/// Every queue kind a scenario may name, in the order error messages list them. Adding a queue is
/// one file in this folder and one line here.
#[rustfmt::skip]
pub(crate) const REGISTRY: &[Entry<dyn QueueKind>] = &[
    kind::<droptail::DropTailSpec>("droptail"),
    kind::<red::RedSpec>("red"),
    kind::<cw::CwSpec>("cw"),
];

/// The registry line of the queue kind whose table deserializes into `T`.
const fn kind<T: serde::de::DeserializeOwned + QueueKind + 'static>(name: &'static str) -> Entry<dyn QueueKind> {
    fn parse<T: serde::de::DeserializeOwned + QueueKind + 'static>(v: toml::Value) -> Result<Arc<dyn QueueKind>, String> {
        Ok(Arc::new(crate::spec::table::<T>(v)?))
    }
    Entry { name, parse: parse::<T> }
}

/// A link direction's `queue` table as the scenario gives it: the spec of its kind.
#[derive(Debug, Clone)]
pub(crate) struct QueueSpec {
    spec: Arc<dyn QueueKind>,
}

impl Default for QueueSpec {
    /// DropTail of 50 packets (ns-2's default `limit_`).
    fn default() -> Self {
        QueueSpec { spec: Arc::new(droptail::DropTailSpec::default()) }
    }
}

impl<'de> serde::Deserialize<'de> for QueueSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        crate::spec::tagged(d, "queue", REGISTRY).map(|(_, spec)| QueueSpec { spec })
    }
}

impl QueueSpec {
    /// Checks the table's values; errors name `field` and the key.
    pub(crate) fn check(&self, field: &str) -> Result<(), ScenarioError> {
        self.spec.check(field)
    }

    /// The queue of one link direction (see [`QueueKind::build`]).
    pub(crate) fn build(&self, small_pkt_tx_ns: u64) -> Queue {
        self.spec.build(small_pkt_tx_ns)
    }
}

/// Whose drop rules a RED or CW queue follows where ns-2.35's `queue/red.cc` differs from the
/// paper it implements (`rules`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum AqmRules {
    /// The paper: Floyd & Jacobson 1993 Fig. 2 for RED, TCP-Jersey §III-B for CW.
    #[default]
    Paper,
    /// ns-2.35's RED, which the seeds ran (TCP-Jersey's CW is that RED configured): no early or
    /// forced drop while at most one packet waits (`qlen > 1`); for RED also the first arrival
    /// after the average crosses min_th is not tested and starts the count at 1 (`edv_.old`),
    /// the count rises on every arrival, and an idle period decays the average by
    /// (1 − w)^(m+1) with m = ⌊idle / s⌋ (`estimator(q, m + 1, …)`).
    Ns2,
}

/// Default buffer of every queue kind, packets (ns-2's `limit_`).
fn default_limit() -> u32 {
    50
}

/// The admission policy of a queue (enum-dispatched: it is on every packet's path).
#[derive(Debug, Clone)]
pub(crate) enum Aqm {
    DropTail,
    Red(RedState),
    Cw(CwState),
    /// A plug-in kind's own discipline: the hook a new queue kind's file uses without touching
    /// this enum (none of the built-in kinds needs it).
    #[allow(dead_code, reason = "the plug-in hook of queue kinds; no built-in kind uses it")]
    Custom(Box<dyn Admit>),
}

/// The admission decision of a queue kind that is not one of the built-in ones ([`Aqm::Custom`]).
pub(crate) trait Admit: std::fmt::Debug + Send {
    /// As `Queue::admit`, with the buffer limit.
    fn admit(&mut self, now: SimTime, q: u32, idle_since: Option<SimTime>, limit_pkts: u32, ecn: Ecn, rng: &mut RngStream) -> Admission;
    /// As `Queue::avg_pkts`.
    fn avg_pkts(&self, q: u32) -> f64;
    /// The kind's name, for reports.
    fn kind_name(&self) -> &'static str;
    /// A copy (a queue is cloned with the link it serves).
    fn clone_box(&self) -> Box<dyn Admit>;
}

/// A plug-in discipline's decision, out of line so that the built-in ones' path stays as it was.
#[cold]
#[inline(never)]
fn custom_admit(
    a: &mut Box<dyn Admit>,
    now: SimTime,
    q: u32,
    idle: Option<SimTime>,
    limit: u32,
    ecn: Ecn,
    rng: &mut RngStream,
) -> Admission {
    a.admit(now, q, idle, limit, ecn, rng)
}

impl Clone for Box<dyn Admit> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// Outcome of offering a packet to a queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Admission {
    /// Queued unchanged.
    Queued,
    /// Queued with CE set.
    QueuedMarked,
    /// Dropped because `limit_pkts` packets were already waiting.
    OverflowDrop,
    /// Dropped by an AQM decision before the buffer was full.
    EarlyDrop,
}

/// The buffer limit and admission policy of a link's FIFO.
#[derive(Debug, Clone)]
pub(crate) struct Queue {
    pub limit_pkts: u32,
    /// The discipline; set once by [`Queue::new`] (private, so that `droptail` stays its mirror).
    aqm: Aqm,
    /// `aqm` is [`Aqm::DropTail`]: one flag that [`Queue::admit`] tests before anything else
    /// (issue 42: matching the enum, whose discriminant sits in its variants' niche, cost ~15
    /// instructions and an indirect jump per offer on the links that nearly every hop crosses).
    droptail: bool,
}

impl Queue {
    pub(crate) fn new(limit_pkts: u32, aqm: Aqm) -> Self {
        let droptail = matches!(aqm, Aqm::DropTail);
        Queue { limit_pkts, aqm, droptail }
    }

    /// Whether the discipline is DropTail (no AQM): what makes a link eligible for cut-through.
    pub(crate) fn is_droptail(&self) -> bool {
        self.droptail
    }

    /// The admission decision for a packet with ECN field `ecn` arriving when `q` packets wait.
    /// `busy_until` is when the transmitter finishes what it holds: at or before `now` with `q`
    /// 0, it went idle then (RED's idle-period rule needs it). Always inlined into the link's
    /// offer path: once the ns-2 RED and CW rules grew the built-in arms, LLVM stopped inlining it
    /// there (+0.37 M instructions per lossless Fig. 10 run, callgrind; BENCHMARKS.md).
    #[inline(always)]
    pub(crate) fn admit(&mut self, now: SimTime, q: u32, busy_until: SimTime, ecn: Ecn, rng: &mut RngStream) -> Admission {
        // Idle with nothing waiting since `busy_until`: worked out only for the queues that read
        // it (issue 42: DropTail and CW links paid for it on every offer).
        if self.droptail {
            return droptail::admit(q, self.limit_pkts);
        }
        let idle_since = || (q == 0 && busy_until <= now).then_some(busy_until);
        match &mut self.aqm {
            Aqm::DropTail => droptail::admit(q, self.limit_pkts),
            Aqm::Red(st) => st.admit(now, q, idle_since(), self.limit_pkts, ecn, rng),
            Aqm::Cw(st) => st.admit(q, self.limit_pkts, ecn),
            Aqm::Custom(a) => custom_admit(a, now, q, idle_since(), self.limit_pkts, ecn, rng),
        }
    }

    /// The EWMA average queue (RED, CW) or the instantaneous length `q` (DropTail).
    pub(crate) fn avg_pkts(&self, q: u32) -> f64 {
        if self.droptail {
            return q as f64;
        }
        match &self.aqm {
            Aqm::DropTail => q as f64,
            Aqm::Red(st) => st.avg,
            Aqm::Cw(st) => st.avg,
            Aqm::Custom(a) => a.avg_pkts(q),
        }
    }

    /// Short name for reports.
    pub(crate) fn kind_name(&self) -> &'static str {
        match &self.aqm {
            Aqm::DropTail => "droptail",
            Aqm::Red(_) => "red",
            Aqm::Cw(_) => "cw",
            Aqm::Custom(a) => a.kind_name(),
        }
    }
}
