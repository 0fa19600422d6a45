//! The serde model of a scenario file (TOML). This is the file format's single source of truth;
//! `docs/scenario.md` explains it for users. Every struct denies unknown keys so a typo is an error,
//! not a silently ignored setting.

use serde::Deserialize;

pub(crate) use crate::app::{AppSpec, Ends};
pub(crate) use crate::channel::ChannelSpec;
pub(crate) use crate::net::capacity::CapacitySpec;
pub(crate) use crate::net::queue::QueueSpec;
pub(crate) use crate::tcp::rto::RtoFormula;
pub(crate) use crate::tcp::sender::{RtoUndoPolicy, RttSampling};
use crate::time::{ByteSize, DataRate, SimDuration};

/// A whole scenario: topology, flows, run length, seed.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Free-form name, echoed in the summary.
    #[serde(default = "default_name")]
    pub name: String,
    /// Simulated time at which the run stops.
    pub duration: SimDuration,
    /// Seed from which every random stream is derived (overridable per run).
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Goodput is measured over [warmup, duration].
    #[serde(default)]
    pub warmup: SimDuration,
    /// Period of the time series samples.
    #[serde(default = "default_sample_interval")]
    pub sample_interval: SimDuration,
    /// Node names. Order is irrelevant; names must be unique.
    pub nodes: Vec<String>,
    #[serde(default)]
    pub(crate) links: Vec<LinkSpec>,
    #[serde(default)]
    pub(crate) flows: Vec<FlowSpec>,
    /// Resource limits of the run: a run that would exceed one is refused or stopped with an
    /// error naming it, never killed for memory or left running for hours.
    #[serde(default)]
    pub limits: Limits,
    /// The power model of the hosts' interfaces (`[energy]`): present, the summary reports each
    /// host's energy per megabyte received (see [`crate::metrics::energy`]).
    #[serde(default)]
    pub(crate) energy: Option<crate::metrics::energy::EnergySpec>,
    /// Folder that relative paths in the scenario (trace files) are resolved against: the
    /// scenario file's folder when it was loaded from a file, else the working directory.
    #[serde(skip)]
    pub base_dir: Option<std::path::PathBuf>,
}

/// Resource limits (issue 25): sane defaults that a user with a bigger machine or a longer run can
/// raise. The memory and series limits are checked before anything is allocated; events and wall
/// time while running (between slices of events, so they cost nothing per event).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Events the run may handle. The default, 10⁹, is about a minute of wall time (Fig. 10's
    /// 100 s take 3·10⁴); every experiment in `experiments/` needs under 10⁸.
    #[serde(default = "default_max_events")]
    pub max_events: u64,
    /// Rows of the time series (flow rows plus link rows: samples × (flows + links)). The default,
    /// 5·10⁶, is 0.3 GB in the engine and some 1.5 GB once handed to Python.
    #[serde(default = "default_max_series_rows")]
    pub max_series_rows: u64,
    /// Bound on the engine's estimate of the memory the run allocates in proportion to its
    /// settings (routing table, flow state, time series, trace opportunities).
    #[serde(default = "default_max_memory")]
    pub max_memory: ByteSize,
    /// Wall-clock time the run may take; none by default, since a limit on it makes whether a run
    /// completes depend on the machine (the results of a run that completes do not).
    #[serde(default)]
    pub wall_clock: Option<SimDuration>,
    /// Bytes the packet capture (`--pcap`) may write, its files together: a 1-Gb/s link writes
    /// some 4 MB of headers per simulated second, so nothing else bounds a capture's size.
    #[serde(default = "default_max_capture_bytes")]
    pub max_capture_bytes: ByteSize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_events: default_max_events(),
            max_series_rows: default_max_series_rows(),
            max_memory: default_max_memory(),
            wall_clock: None,
            max_capture_bytes: default_max_capture_bytes(),
        }
    }
}

fn default_max_capture_bytes() -> ByteSize {
    ByteSize(1_000_000_000)
}

fn default_max_events() -> u64 {
    1_000_000_000
}
fn default_max_series_rows() -> u64 {
    5_000_000
}
fn default_max_memory() -> ByteSize {
    ByteSize(4_000_000_000)
}

fn default_name() -> String {
    "unnamed".to_string()
}
fn default_seed() -> u64 {
    1
}
fn default_sample_interval() -> SimDuration {
    SimDuration::from_millis(100)
}

/// A link between two nodes: one-way, or two one-way links when `duplex` (the default).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct LinkSpec {
    pub from: String,
    pub to: String,
    /// Serialization rate, e.g. "10Mbps" (or give `capacity` for a time-varying link).
    pub rate: Option<DataRate>,
    /// Time-varying capacity of the forward direction (instead of `rate`): a rate schedule or a
    /// mahimahi trace.
    pub capacity: Option<CapacitySpec>,
    /// Capacity of the reverse direction; defaults to the forward one (`rate` or `capacity`).
    pub reverse_capacity: Option<CapacitySpec>,
    /// One-way propagation delay, e.g. "45ms".
    pub delay: SimDuration,
    /// Create the reverse direction too (same rate and delay).
    #[serde(default = "yes")]
    pub duplex: bool,
    /// Queue of the forward direction.
    #[serde(default)]
    pub queue: QueueSpec,
    /// Queue of the reverse direction; defaults to a copy of `queue`.
    pub reverse_queue: Option<QueueSpec>,
    /// Channel (loss model) of the forward direction; default: lossless.
    #[serde(default)]
    pub channel: ChannelSpec,
    /// Channel of the reverse direction; default: lossless (not a copy: ACK-path loss is opt-in).
    #[serde(default)]
    pub reverse_channel: ChannelSpec,
    /// TCP-aware link-level retransmission (TLLR, thesis §2.3; `net::arq`): the sending end of
    /// each direction repairs lost or corrupted TCP data frames itself.
    #[serde(default)]
    pub link_retransmission: bool,
    /// Local retransmissions per frame at most (ns-2 snoop's SNOOP_MAX_RXMIT).
    #[serde(default = "default_lr_max")]
    pub link_retransmission_max: u32,
    /// Wait before each local retransmission after the first (ns-2.35 snoop's SNOOP_MIN_TIMO).
    #[serde(default = "default_lr_timeout")]
    pub link_retransmission_timeout: SimDuration,
}

fn default_lr_max() -> u32 {
    10
}
fn default_lr_timeout() -> SimDuration {
    SimDuration::from_millis(100)
}

fn yes() -> bool {
    true
}

/// A traffic source and its sink, chosen by `kind`: a bulk TCP transfer (the transport itself,
/// `kind = "tcp"`), or a UDP application of `app::REGISTRY`.
// A scenario holds a handful of entries, read once: boxing the TCP entry would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub(crate) enum FlowSpec {
    /// `kind = "tcp"`
    Tcp(TcpFlowSpec),
    /// A UDP application (`kind = "cbr"`, `"onoff"`, `"voip"`, ...).
    App(AppSpec),
}

/// The `kind` of a TCP flow entry.
const TCP_KIND: &str = "tcp";

impl<'de> Deserialize<'de> for FlowSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let names: Vec<&str> = std::iter::once(TCP_KIND).chain(crate::app::REGISTRY.iter().map(|e| e.name)).collect();
        let (kind, table) = crate::spec::kind_and_table::<D>(d, "flow", &names.join(", "))?;
        if kind == TCP_KIND {
            return crate::spec::table(table).map(FlowSpec::Tcp).map_err(D::Error::custom);
        }
        crate::spec::lookup(&kind, table, "flow", &names.join(", "), crate::app::REGISTRY)
            .map(|(_, spec)| FlowSpec::App(AppSpec::new(spec)))
            .map_err(D::Error::custom)
    }
}

impl FlowSpec {
    /// The entry's `name`, `src`, `dst`, `start` and `stop`.
    pub(crate) fn ends(&self) -> Ends<'_> {
        match self {
            FlowSpec::Tcp(t) => Ends { name: t.name.as_deref(), src: &t.src, dst: &t.dst, start: t.start, stop: t.stop },
            FlowSpec::App(a) => a.ends(),
        }
    }
}

/// Which ACKs restart a TCP sender's retransmission timer (see
/// [`crate::tcp::sender::SenderConfig::rto_restart_every_ack`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum RtoRestartSpec {
    /// ACKs of new data (RFC 6298 (5.3)).
    #[default]
    NewAck,
    /// Every new or duplicate ACK while data is outstanding (ns-2.35 TCP-Linux).
    EveryAck,
}

/// Which losses arm a TCP sender's `recover` guard (see
/// [`crate::tcp::sender::SenderConfig::recover_guard_timeout_only`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum RecoverGuardSpec {
    /// Every fast retransmit and every timeout (RFC 6675 §5, RFC 6582 §3.2).
    #[default]
    EveryLoss,
    /// Timeouts only: a fast recovery that ends clears it (ns-2.35 `Agent/TCP/Sack1`).
    TimeoutOnly,
}

/// How many bytes a TCP flow's options take on the wire (`option_sizes`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum OptionSizesSpec {
    /// As real stacks send them: timestamps 12 bytes (10, padded) on every segment and ACK, SACK
    /// 2 + 8 per block padded to 4 (RFC 7323, RFC 2018).
    #[default]
    Rfc,
    /// As ns-2.35's agents count them: timestamps 10 bytes on data segments and none on ACKs,
    /// SACK 8 bytes per block (see [`crate::net::packet::NS2_TS_OPTION_BYTES`] and
    /// [`crate::net::packet::ns2_sack_option_bytes`]).
    Ns2,
}

/// When NewReno resets the retransmission timer on partial ACKs (`partial_ack_timer`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum PartialAckTimerSpec {
    /// On the first partial ACK of a recovery only (RFC 6582 §3.2 step 5 and §4; ns-2.35's
    /// default `newreno_changes1_ 1`).
    #[default]
    Impatient,
    /// On every partial ACK (ns-2 with `newreno_changes1_ 0`, and Linux).
    SlowButSteady,
}

/// What a retransmission timeout halves for the new ssthresh (`timeout_ssthresh`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum TimeoutSsthreshSpec {
    /// The data outstanding, FlightSize (RFC 5681 §3.1 eq. (4)).
    #[default]
    Flight,
    /// The window without fast recovery's inflation, at most the receiver's window (ns-2.35
    /// `TcpAgent::timeout` → `slowdown(CLOSE_SSTHRESH_HALF)`, `halfwin = int(window() / 2)` with
    /// `window() = min(cwnd_, wnd_)`; Reno/NewReno inflate `dupwnd_`, which their `timeout` zeroes
    /// first, not `cwnd_`).
    Ns2,
}

/// Which way the flows of a TCP group run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Direction {
    /// `src` → `dst`.
    #[default]
    Forward,
    /// `dst` → `src` (background traffic against the data flows, loading their ACK path).
    Reverse,
    /// `count` flows each way.
    Both,
}

/// A bulk TCP transfer (infinite FTP unless `bytes` is set).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TcpFlowSpec {
    pub name: Option<String>,
    pub src: String,
    pub dst: String,
    #[serde(default)]
    pub start: SimDuration,
    /// The application stops offering data at this time (default: never).
    pub stop: Option<SimDuration>,
    /// Number of identical flows this entry stands for (e.g. background traffic).
    #[serde(default = "default_count")]
    pub count: u32,
    /// Which way they run: "forward" (src → dst), "reverse" or "both" (`count` each way).
    #[serde(default)]
    pub direction: Direction,
    /// The k-th flow of the group (each way) starts at `start + k · start_spacing`.
    #[serde(default)]
    pub start_spacing: SimDuration,
    /// Each flow of the group starts a further uniform random offset in [0, `start_jitter`) later,
    /// drawn per flow from the run's seed, so that seeds differ even where nothing else is random
    /// (lossless many-flow runs). Default 0: the starts are exactly as written.
    #[serde(default)]
    pub start_jitter: SimDuration,
    /// Total application bytes to send (default: unlimited).
    pub bytes: Option<ByteSize>,
    /// Window policy, e.g. "reno".
    #[serde(default = "default_cc")]
    pub cc: String,
    /// Parameters of the window policy (e.g. `tau`, `m` for Westwood); see docs/scenario.md.
    pub cc_params: Option<toml::Table>,
    /// Loss recovery: a name of `tcp::recovery::REGISTRY` ("tahoe", "reno", "newreno", "sack",
    /// "fack", "linux", "prr" or "prr-rack").
    #[serde(default = "default_recovery")]
    pub recovery: String,
    /// Payload bytes per segment.
    #[serde(default = "default_mss")]
    pub mss_bytes: u32,
    /// Receiver window in segments (the sender never has more than this outstanding).
    #[serde(default = "default_rwnd")]
    pub rwnd_pkts: u32,
    /// Upper bound on cwnd in segments (default: no bound besides rwnd).
    pub max_cwnd_pkts: Option<u32>,
    /// Initial window in segments.
    #[serde(default = "default_iw")]
    pub initial_cwnd_pkts: u32,
    /// Initial ssthresh in segments (default: effectively infinite).
    pub initial_ssthresh_pkts: Option<u32>,
    /// NewReno: reset the retransmission timer on the first partial ACK of a recovery only
    /// ("impatient", RFC 6582 §3.2 step 5 and §4; ns-2.35's default `newreno_changes1_ 1`) or on
    /// every partial ACK ("slow-but-steady": ns-2 with `newreno_changes1_ 0`, and Linux).
    #[serde(default)]
    pub partial_ack_timer: PartialAckTimerSpec,
    /// What a retransmission timeout halves for ssthresh: "flight" (RFC 5681 eq. (4): the data
    /// outstanding; the default) or "ns2" (ns-2.35: the window without fast recovery's inflation,
    /// at most the receiver window; in a recovery, the recovery's own ssthresh).
    #[serde(default)]
    pub timeout_ssthresh: TimeoutSsthreshSpec,
    /// RFC 3042 limited transmit: on each of the first two duplicate ACKs send one new segment
    /// (cwnd unchanged, flight at most cwnd + 2 SMSS). On by default: RFC 5681 §3.2 ("a TCP
    /// SHOULD send a segment of previously unsent data per \[RFC3042\]"), ns-2.35's `singledup_`
    /// (default 1 since 2001, the simulator of every seed paper) and Linux all do it.
    #[serde(default = "default_true")]
    pub limited_transmit: bool,
    /// Which ACKs give an RTT sample without timestamps: "timed-segment" (one segment timed per
    /// round trip, as 4.4BSD and ns-2.35; the default) or "every-ack" (Linux).
    #[serde(default)]
    pub rtt_sampling: RttSampling,
    /// Restart the retransmission timer at a fast retransmit (ns-2.35's `reset_rtx_timer`, BSD,
    /// Linux; the default) or leave it running from the last new ACK (RFC 6298 says nothing).
    #[serde(default = "default_true")]
    pub fast_retransmit_restarts_rto: bool,
    /// Back the timer off (RTO doubled, until a valid RTT sample) when fast retransmit restarts
    /// it: ns-2.35's `Agent/TCP/Vegas` calls `reset_rtx_timer(1)` (back-off on), its other
    /// agents `reset_rtx_timer(1, 0)`. Off by default.
    #[serde(default)]
    pub fast_retransmit_rto_backoff: bool,
    /// RFC 6582 §3.2 step 2's ACK heuristic for duplicate ACKs below `recover` (ns-2.35's
    /// `bugfix_ack_`, off by default there as here).
    #[serde(default)]
    pub recover_ack_heuristic: bool,
    /// Which losses arm the `recover` guard: "every-loss" (RFC 6675 §5 / RFC 6582; the default)
    /// or "timeout-only" (ns-2.35's Sack1, which clears `recover_` when a fast recovery ends).
    #[serde(default)]
    pub recover_guard: RecoverGuardSpec,
    /// Which ACKs restart the retransmission timer: "new-ack" (RFC 6298 (5.3), ACKs of new data;
    /// the default) or "every-ack" (duplicate ACKs too: ns-2.35's TCP-Linux).
    #[serde(default)]
    pub rto_restart: RtoRestartSpec,
    /// With timestamps, take RTT samples from duplicate ACKs too (ns-2.35's TCP-Linux); off by
    /// default (RFC 7323 §4.1, Linux: ACKs of new data only).
    #[serde(default)]
    pub rtt_sample_duplicate_acks: bool,
    /// How the RTO follows the RTT samples: "rfc6298" (the default) or "linux" (Linux's
    /// `tcp_rtt_estimator`: at least SRTT + `min_rto`, slow to fall after a delay spike).
    #[serde(default)]
    pub rto_estimator: RtoFormula,
    /// Spurious-timeout undo: "none" (the default) or "eifel" (RFC 3522 detection by timestamps,
    /// Linux's undo as the response; needs `timestamps = true`).
    #[serde(default)]
    pub rto_undo: RtoUndoPolicy,
    /// Duplicate ACKs that trigger fast retransmit.
    #[serde(default = "default_dupthresh")]
    pub dupack_threshold: u32,
    /// Receiver advertises SACK and sender uses it (required by recovery = "sack" and "fack").
    #[serde(default)]
    pub sack: bool,
    /// RFC 7323 timestamps on every segment.
    #[serde(default)]
    pub timestamps: bool,
    /// Bytes the timestamps and SACK options take on the wire: "rfc" (the default: 12 on every
    /// segment and ACK; 2 + 8n padded to 4) or "ns2" (ns-2.35's agents: 10 on data segments,
    /// none on ACKs; 8n). Packet sizes only: what the options carry is the same.
    #[serde(default)]
    pub option_sizes: OptionSizesSpec,
    /// ECN-capable transport (RFC 3168).
    #[serde(default)]
    pub ecn: bool,
    /// Receiver delays ACKs (every second full segment or after `delack_timeout`).
    #[serde(default)]
    pub delayed_ack: bool,
    #[serde(default = "default_delack")]
    pub delack_timeout: SimDuration,
    /// Lower bound on RTO: 200 ms by default as in ns-2.35 and Linux (RFC 6298 (2.4): 1 s).
    #[serde(default = "default_min_rto")]
    pub min_rto: SimDuration,
    /// Upper bound on RTO (RFC 6298 (2.5) allows 60 s).
    #[serde(default = "default_max_rto")]
    pub max_rto: SimDuration,
    /// RTO before the first RTT sample (RFC 6298 (2.1): 1 s).
    #[serde(default = "default_initial_rto")]
    pub initial_rto: SimDuration,
    /// Clock granularity G of RFC 6298 (2.2)/(2.3).
    #[serde(default = "default_granularity")]
    pub clock_granularity: SimDuration,
}

fn default_true() -> bool {
    true
}
fn default_count() -> u32 {
    1
}
fn default_cc() -> String {
    "reno".into()
}
fn default_recovery() -> String {
    "newreno".into()
}
fn default_mss() -> u32 {
    1000
}
fn default_rwnd() -> u32 {
    1000
}
fn default_iw() -> u32 {
    1
}
fn default_dupthresh() -> u32 {
    3
}
fn default_delack() -> SimDuration {
    SimDuration::from_millis(100)
}
fn default_min_rto() -> SimDuration {
    // ns-2.35 `minrto_ 0.2` and Linux `TCP_RTO_MIN` (200 ms); RFC 6298 (2.4) says 1 s.
    SimDuration::from_millis(200)
}
fn default_max_rto() -> SimDuration {
    SimDuration::from_millis(60_000)
}
fn default_initial_rto() -> SimDuration {
    SimDuration::from_millis(1000)
}
fn default_granularity() -> SimDuration {
    SimDuration::from_millis(1)
}
