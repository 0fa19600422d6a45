//! The serde model of a scenario file (TOML). This is the file format's single source of truth;
//! `docs/scenario.md` explains it for users. Every struct denies unknown keys so a typo is an error,
//! not a silently ignored setting.

use serde::Deserialize;

pub use crate::tcp::rto::RtoFormula;
pub use crate::tcp::sender::{RtoUndoPolicy, RttSampling};
use crate::time::{ByteSize, DataRate, SimDuration};

/// Marks a field path inside a `kind`-tagged table so [`super::parse`] can append it to the
/// outer path (serde loses paths inside tagged tables otherwise).
pub(crate) const INNER_PATH_MARK: char = '\u{1}';

/// Deserializes a table tagged by `kind` into the variant's own struct, keeping the inner field
/// path in error messages ("flows[0].mss_bytes", not just "flows[0]").
macro_rules! tagged_enum {
    ($enum:ident, $what:expr, { $($tag:expr => $build:expr),+ $(,)? }) => {
        impl<'de> Deserialize<'de> for $enum {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                use serde::de::Error;
                let allowed = [$($tag),+].join(", ");
                // A bare string is a preset: `queue = "cw"` means `queue = { kind = "cw" }`.
                let mut table = match toml::Value::deserialize(d)? {
                    toml::Value::String(k) => toml::Table::from_iter([("kind".to_string(), toml::Value::String(k))]),
                    toml::Value::Table(t) => t,
                    _ => return Err(D::Error::custom(format!("must be a table or a preset name (allowed: {allowed})"))),
                };
                let kind = match table.remove("kind") {
                    Some(toml::Value::String(k)) => k,
                    Some(_) => return Err(D::Error::custom(format!("{}kind: must be a string (allowed: {allowed})", INNER_PATH_MARK))),
                    None => return Err(D::Error::custom(format!("missing field `kind` of this {} (allowed: {allowed})", $what))),
                };
                let value = toml::Value::Table(table);
                let wrap = |e: serde_path_to_error::Error<toml::de::Error>| {
                    let path = e.path().to_string();
                    let msg = e.into_inner().message().to_string();
                    if path.is_empty() || path == "." { D::Error::custom(msg) } else { D::Error::custom(format!("{}{path}: {msg}", INNER_PATH_MARK)) }
                };
                $(
                    if kind == $tag {
                        return serde_path_to_error::deserialize(value).map($build).map_err(wrap);
                    }
                )+
                Err(D::Error::custom(format!("{}kind: unknown {} kind '{kind}' (allowed: {allowed})", INNER_PATH_MARK, $what)))
            }
        }
    };
}

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
    pub links: Vec<LinkSpec>,
    #[serde(default)]
    pub flows: Vec<FlowSpec>,
    /// Resource limits of the run: a run that would exceed one is refused or stopped with an
    /// error naming it, never killed for memory or left running for hours.
    #[serde(default)]
    pub limits: Limits,
    /// The power model of the hosts' interfaces (`[energy]`): present, the summary reports each
    /// host's energy per megabyte received (see [`crate::metrics::energy`]).
    #[serde(default)]
    pub energy: Option<crate::metrics::energy::EnergySpec>,
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
pub struct LinkSpec {
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

/// A queue discipline at the head of a one-way link, chosen by `kind`.
#[derive(Debug, Clone)]
pub enum QueueSpec {
    /// `kind = "droptail"`
    Droptail(DropTailSpec),
    /// `kind = "red"`
    Red(RedSpec),
    /// `kind = "cw"`
    Cw(CwSpec),
}

/// First-in first-out, drop arriving packets when `limit_pkts` are waiting.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DropTailSpec {
    #[serde(default = "default_limit")]
    pub limit_pkts: u32,
}

/// Random Early Detection (Floyd & Jacobson 1993), optionally marking ECT packets instead of dropping.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedSpec {
    #[serde(default = "default_limit")]
    pub limit_pkts: u32,
    pub min_th_pkts: f64,
    pub max_th_pkts: f64,
    #[serde(default = "default_red_weight")]
    pub weight: f64,
    #[serde(default = "default_max_p")]
    pub max_p: f64,
    /// Mark ECT packets with CE instead of dropping them early.
    #[serde(default)]
    pub ecn: bool,
    /// Gentle RED: probability rises from max_p to 1 between max_th and 2·max_th.
    #[serde(default)]
    pub gentle: bool,
    /// Whose drop rules: Floyd & Jacobson's Fig. 2 (`"paper"`, the default) or ns-2.35's
    /// `red.cc` (`"ns2"`), see [`AqmRulesSpec`].
    #[serde(default)]
    pub rules: AqmRulesSpec,
}

/// Which text a RED or CW queue follows where ns-2.35's `queue/red.cc` differs from the paper it
/// implements (`rules`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AqmRulesSpec {
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

/// Congestion warning (TCP-Jersey §III-B): CE-mark every ECT packet while the EWMA queue is at or above a threshold.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CwSpec {
    #[serde(default = "default_limit")]
    pub limit_pkts: u32,
    /// EWMA weight; the paper's 0.2.
    #[serde(default = "default_cw_weight")]
    pub weight: f64,
    /// Marking threshold in packets; default one third of `limit_pkts` (the paper's setting).
    pub threshold_pkts: Option<f64>,
    /// Drop non-ECT packets where ECT ones are marked (CW as RED/ECN configured; default true).
    #[serde(default = "yes")]
    pub drop_non_ect: bool,
    /// `"paper"` (the default) or `"ns2"`: CW as ns-2.35's RED configured for it marks or drops
    /// nothing while at most one packet waits ([`AqmRulesSpec::Ns2`]).
    #[serde(default)]
    pub rules: AqmRulesSpec,
}

tagged_enum!(QueueSpec, "queue", { "droptail" => QueueSpec::Droptail, "red" => QueueSpec::Red, "cw" => QueueSpec::Cw });

impl Default for QueueSpec {
    fn default() -> Self {
        QueueSpec::Droptail(DropTailSpec { limit_pkts: default_limit() })
    }
}

fn default_limit() -> u32 {
    50
}
fn default_red_weight() -> f64 {
    0.002
}
fn default_max_p() -> f64 {
    0.1
}
fn default_cw_weight() -> f64 {
    0.2
}

/// How fast a link serves packets, chosen by `kind`.
#[derive(Debug, Clone)]
pub enum CapacitySpec {
    /// `kind = "constant"`: the same as the link's `rate`.
    Constant(ConstantCapacitySpec),
    /// `kind = "schedule"`: piecewise-constant rate steps, optionally repeating.
    Schedule(ScheduleCapacitySpec),
    /// `kind = "trace"`: mahimahi delivery opportunities.
    Trace(TraceCapacitySpec),
    /// `kind = "hsdpa"`: an HSDPA cell (forward direction only; see `net::capacity::hsdpa`).
    Hsdpa(HsdpaSpec),
}

tagged_enum!(CapacitySpec, "capacity", {
    "constant" => CapacitySpec::Constant,
    "schedule" => CapacitySpec::Schedule,
    "trace" => CapacitySpec::Trace,
    "hsdpa" => CapacitySpec::Hsdpa,
});

/// An HSDPA cell (TCP-Jersey over HSDPA, Li & Ansari): every flow crossing the link is a UE.
/// Defaults are the paper's (Tables 2–4) where it gives them and ours, recorded in
/// REPRODUCTION.md, where it does not.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HsdpaSpec {
    /// "pf" (proportional fair, the paper's), "rr" (round robin) or "max_ci".
    #[serde(default)]
    pub scheduler: crate::net::capacity::hsdpa::scheduler::Discipline,
    /// PF averaging time constant, TTIs (Table 2: Tc = 500).
    #[serde(default = "hs_tc")]
    pub pf_tc_tti: u32,
    /// HS-PDSCH codes of the cell (a category-10 UE takes up to 15).
    #[serde(default = "hs_codes")]
    pub codes: u32,
    /// UEs served per TTI by code multiplexing (HS-SCCHs).
    #[serde(default = "hs_scch")]
    pub max_ues_per_tti: u32,
    /// Share of the Node-B power on the HS-DSCH (Table 2: CPICH and other common channels at
    /// −10 dB each leave 0.8).
    #[serde(default = "hs_power")]
    pub hsdsch_power_fraction: f64,
    /// Age of the CQI the scheduler uses, TTIs.
    #[serde(default = "hs_cqi_delay")]
    pub cqi_delay_tti: u32,
    /// HARQ processes per UE.
    #[serde(default = "hs_procs")]
    pub harq_processes: u32,
    /// TTIs from a transmission to its retransmission.
    #[serde(default = "hs_procs")]
    pub harq_rtt_tti: u32,
    /// Transmissions of a block before HARQ gives up.
    #[serde(default = "hs_max_tx")]
    pub harq_max_tx: u32,
    /// Incremental-redundancy gain over Chase combining on retransmissions, dB.
    #[serde(default = "hs_ir")]
    pub ir_gain_db: f64,
    /// Width of the BLER waterfall (BLER 0.9 → 0.1), dB.
    #[serde(default = "hs_waterfall")]
    pub bler_waterfall_db: f64,
    /// RLC AM PDU payload (Table 3: 40 B) and header bytes.
    #[serde(default = "hs_am_pdu")]
    pub rlc_pdu_bytes: u32,
    #[serde(default = "hs_am_hdr")]
    pub rlc_header_bytes: u32,
    /// RLC UM PDU size including its header (Table 4: 25 B, 1-B header).
    #[serde(default = "hs_um_pdu")]
    pub rlc_um_pdu_bytes: u32,
    #[serde(default = "hs_um_hdr")]
    pub rlc_um_header_bytes: u32,
    /// UDP/IP header after ROHC (Table 4: 3 B); TCP/IP headers are sent uncompressed.
    #[serde(default = "hs_rohc")]
    pub rohc_header_bytes: u32,
    /// RLC AM timer-based SDU discard (Table 3).
    #[serde(default = "hs_discard")]
    pub sdu_discard: SimDuration,
    /// From HARQ giving up on a block to RLC resending its PDUs.
    #[serde(default = "hs_retx_delay")]
    pub rlc_retx_delay: SimDuration,
    /// Carrier frequency, Hz (Table 2: 2000 MHz).
    #[serde(default = "hs_carrier")]
    pub carrier_hz: f64,
    /// Site-to-site distance of the drop layout, m (Table 2: 2800).
    #[serde(default = "hs_isd")]
    pub site_distance_m: f64,
    /// Shadowing standard deviation, dB (Table 2: 8.0).
    #[serde(default = "hs_shadow")]
    pub shadowing_std_db: f64,
    /// Per-flow overrides of the drawn geometry and channel model.
    #[serde(default)]
    pub ues: Vec<HsdpaUeSpec>,
}

/// One UE's fixed geometry and/or channel model (otherwise drawn per seed).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HsdpaUeSpec {
    /// The flow (by name) this UE carries.
    pub flow: String,
    /// Geometry (eq. 4), dB.
    pub geometry_db: Option<f64>,
    /// "A".."E" (Table 1) or "static" (no fading).
    pub channel_model: Option<String>,
}

fn hs_tc() -> u32 {
    500
}
fn hs_codes() -> u32 {
    15
}
fn hs_scch() -> u32 {
    4
}
fn hs_power() -> f64 {
    0.8
}
fn hs_cqi_delay() -> u32 {
    3
}
fn hs_procs() -> u32 {
    6
}
fn hs_max_tx() -> u32 {
    4
}
fn hs_ir() -> f64 {
    1.0
}
fn hs_waterfall() -> f64 {
    2.0
}
fn hs_am_pdu() -> u32 {
    40
}
fn hs_am_hdr() -> u32 {
    2
}
fn hs_um_pdu() -> u32 {
    25
}
fn hs_um_hdr() -> u32 {
    1
}
fn hs_rohc() -> u32 {
    3
}
fn hs_discard() -> SimDuration {
    SimDuration::from_millis(1000)
}
fn hs_retx_delay() -> SimDuration {
    SimDuration::from_millis(60)
}
fn hs_carrier() -> f64 {
    2e9
}
fn hs_isd() -> f64 {
    2800.0
}
fn hs_shadow() -> f64 {
    8.0
}

/// A constant serialization rate.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConstantCapacitySpec {
    pub rate: DataRate,
}

/// Rate steps: from each `at` on, the link serializes at `rate` ("0bps" = outage).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScheduleCapacitySpec {
    /// The first step must be at "0s"; times increase.
    pub steps: Vec<RateStep>,
    /// Repeat the steps with this period (every `at` must be below it); default: the last step
    /// lasts forever.
    pub repeat: Option<SimDuration>,
}

/// Delivery opportunities in mahimahi's trace format, from a file or inline.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceCapacitySpec {
    /// Trace file (one millisecond timestamp per line), relative to the scenario file's folder.
    pub file: Option<String>,
    /// The same timestamps given inline.
    pub opportunities_ms: Option<Vec<u64>>,
    /// Bytes one opportunity carries (mahimahi: one MTU).
    #[serde(default = "default_opportunity_bytes")]
    pub opportunity_bytes: u32,
    /// Replay the trace from this far into it (a whole number of milliseconds below its period):
    /// simulated time 0 is this trace time, and the replay wraps at the period. Default 0.
    pub start_offset: Option<SimDuration>,
    /// Draw the start offset from the run's seed: a whole number of milliseconds, uniform in
    /// [0, period), once per link (a duplex link's two traces start at the same trace time).
    #[serde(default)]
    pub random_start_offset: bool,
}

fn default_opportunity_bytes() -> u32 {
    1500
}

/// What a channel's hit does to a packet.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EffectSpec {
    /// The packet vanishes.
    #[default]
    Loss,
    /// The packet arrives with a damaged payload (a checksum failure at the receiver).
    Corruption,
}

/// What happens to a packet after it is serialized onto a link, chosen by `kind`.
#[derive(Debug, Clone, Default)]
pub enum ChannelSpec {
    /// `kind = "none"`: every packet arrives.
    #[default]
    None,
    /// `kind = "uniform"`
    Uniform(UniformSpec),
    /// `kind = "gilbert-elliott"`
    GilbertElliott(GilbertElliottSpec),
    /// `kind = "fading"`
    Fading(FadingSpec),
}

/// Rayleigh-fading two-state Markov channel (thesis §2.3.1 after Zorzi, Rao, Milstein): the chain's
/// p and q follow from the average packet error rate and the normalized Doppler f_d·T, given
/// directly (`fd_t`) or from a mobile speed.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FadingSpec {
    /// Average packet error probability P_E.
    pub error_rate: f64,
    /// Normalized Doppler bandwidth f_d·T (instead of `speed_kmh`).
    pub fd_t: Option<f64>,
    /// Mobile speed (instead of `fd_t`).
    pub speed_kmh: Option<f64>,
    /// Carrier frequency for `speed_kmh`; default: the thesis's normalization (see docs).
    pub carrier_hz: Option<f64>,
    /// Packet time T for `speed_kmh`; default 4 ms (1000 B at 2 Mb/s, the thesis's).
    pub packet_time: Option<SimDuration>,
    #[serde(default)]
    pub effect: EffectSpec,
}

/// `kind = "none"` takes no other keys.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoChannelSpec {}

/// Each packet is hit independently with probability `loss`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UniformSpec {
    #[serde(alias = "error_rate")]
    pub loss: f64,
    #[serde(default)]
    pub effect: EffectSpec,
}

/// Two-state (good/bad) Markov channel, per packet (`p_stay_good`, `q_stay_bad`) or in continuous
/// time (`mean_good`, `mean_bad`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GilbertElliottSpec {
    /// P(good → good) per packet: the thesis's p.
    pub p_stay_good: Option<f64>,
    /// P(bad → bad) per packet: the thesis's q.
    pub q_stay_bad: Option<f64>,
    /// Mean sojourn in the good state (exponential): CAIAD's t1.
    pub mean_good: Option<SimDuration>,
    /// Mean sojourn in the bad state (exponential): CAIAD's t2.
    pub mean_bad: Option<SimDuration>,
    /// Error probability in the good state (CAIAD's λ).
    #[serde(default)]
    pub error_good: f64,
    /// Error probability in the bad state (CAIAD's β).
    #[serde(default = "one")]
    pub error_bad: f64,
    #[serde(default)]
    pub effect: EffectSpec,
}

fn one() -> f64 {
    1.0
}

tagged_enum!(ChannelSpec, "channel", {
    "none" => |_x: NoChannelSpec| ChannelSpec::None,
    "uniform" => ChannelSpec::Uniform,
    "gilbert-elliott" => ChannelSpec::GilbertElliott,
    "fading" => ChannelSpec::Fading,
});

/// A traffic source and its sink, chosen by `kind`.
#[derive(Debug, Clone)]
pub enum FlowSpec {
    /// `kind = "tcp"`
    Tcp(TcpFlowSpec),
    /// `kind = "cbr"`
    Cbr(CbrFlowSpec),
    /// `kind = "onoff"`
    OnOff(OnOffFlowSpec),
    /// `kind = "voip"`
    Voip(VoipFlowSpec),
}

tagged_enum!(FlowSpec, "flow", { "tcp" => FlowSpec::Tcp, "cbr" => FlowSpec::Cbr, "onoff" => FlowSpec::OnOff, "voip" => FlowSpec::Voip });

/// Which ACKs restart a TCP sender's retransmission timer (see
/// [`crate::tcp::sender::SenderConfig::rto_restart_every_ack`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RtoRestartSpec {
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
pub enum RecoverGuardSpec {
    /// Every fast retransmit and every timeout (RFC 6675 §5, RFC 6582 §3.2).
    #[default]
    EveryLoss,
    /// Timeouts only: a fast recovery that ends clears it (ns-2.35 `Agent/TCP/Sack1`).
    TimeoutOnly,
}

/// How many bytes a TCP flow's options take on the wire (`option_sizes`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OptionSizesSpec {
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
pub enum PartialAckTimerSpec {
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
pub enum TimeoutSsthreshSpec {
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
pub enum Direction {
    /// `src` → `dst`.
    #[default]
    Forward,
    /// `dst` → `src` (background traffic against the data flows, loading their ACK path).
    Reverse,
    /// `count` flows each way.
    Both,
}

/// One exponential on/off talker for the whole flow. Defaults: the AMR voice user of the HSDPA
/// seed (Li & Ansari Table 4: AMR 7.95 kb/s, "a two state Markov model with 50% activity"); the
/// 2-s mean spurt and silence are our reading (3GPP's VoIP model, one transition in 100 20-ms
/// frames), see REPRODUCTION.md.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OnOffFlowSpec {
    pub name: Option<String>,
    pub src: String,
    pub dst: String,
    /// Rate while on (UDP payload).
    #[serde(default = "default_amr_rate")]
    pub rate: DataRate,
    /// UDP payload bytes per datagram.
    #[serde(default = "default_amr_bytes")]
    pub packet_bytes: u32,
    /// Mean talk spurt (exponential).
    #[serde(default = "default_amr_period")]
    pub mean_on: SimDuration,
    /// Mean silence (exponential).
    #[serde(default = "default_amr_period")]
    pub mean_off: SimDuration,
    #[serde(default)]
    pub start: SimDuration,
    pub stop: Option<SimDuration>,
}

fn default_amr_rate() -> DataRate {
    DataRate(7950)
}
fn default_amr_bytes() -> u32 {
    20
}
fn default_amr_period() -> SimDuration {
    SimDuration::from_millis(2000)
}

/// A pool of VoIP talkers with Poisson call arrivals; calls finding every talker busy are
/// blocked. Defaults: TCP-Jersey §IV-A (5 sources, 1-s mean inter-arrival, 8-s mean call,
/// 96 kb/s, 50% activity) with ns-2's Exponential traffic defaults for what the paper leaves out
/// (210-B datagrams, 0.5-s mean spurt and silence).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VoipFlowSpec {
    pub name: Option<String>,
    pub src: String,
    pub dst: String,
    /// Talkers in the pool.
    #[serde(default = "default_voip_sources")]
    pub sources: u32,
    /// Mean time between call arrivals (exponential).
    #[serde(default = "default_voip_interarrival")]
    pub call_interarrival: SimDuration,
    /// Mean call duration (exponential).
    #[serde(default = "default_voip_duration")]
    pub call_duration: SimDuration,
    /// Rate while a talker is on (UDP payload).
    #[serde(default = "default_voip_rate")]
    pub rate: DataRate,
    #[serde(default = "default_voip_bytes")]
    pub packet_bytes: u32,
    #[serde(default = "default_voip_period")]
    pub mean_on: SimDuration,
    #[serde(default = "default_voip_period")]
    pub mean_off: SimDuration,
    #[serde(default)]
    pub start: SimDuration,
    pub stop: Option<SimDuration>,
}

fn default_voip_sources() -> u32 {
    5
}
fn default_voip_interarrival() -> SimDuration {
    SimDuration::from_millis(1000)
}
fn default_voip_duration() -> SimDuration {
    SimDuration::from_millis(8000)
}
fn default_voip_rate() -> DataRate {
    DataRate(96_000)
}
fn default_voip_bytes() -> u32 {
    210
}
fn default_voip_period() -> SimDuration {
    SimDuration::from_millis(500)
}

/// A bulk TCP transfer (infinite FTP unless `bytes` is set).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TcpFlowSpec {
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

/// A UDP constant-bit-rate source whose rate follows a piecewise-constant schedule.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CbrFlowSpec {
    pub name: Option<String>,
    pub src: String,
    pub dst: String,
    /// UDP payload bytes per datagram.
    #[serde(default = "default_mss")]
    pub packet_bytes: u32,
    /// Constant rate from `start` to `stop` (use `schedule` for on/off patterns).
    pub rate: Option<DataRate>,
    #[serde(default)]
    pub start: SimDuration,
    pub stop: Option<SimDuration>,
    /// Steps of (time, rate): from each `at` on, the source sends at `rate` ("0bps" = off).
    #[serde(default)]
    pub schedule: Vec<RateStep>,
}

/// One step of a CBR schedule.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RateStep {
    pub at: SimDuration,
    pub rate: DataRate,
}
