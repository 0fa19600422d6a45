//! Semantic checks of a parsed scenario: value ranges, name references, routes. Each failure is
//! one [`ScenarioError`] naming the field path and the allowed range; nothing is clamped.

use std::collections::HashMap;

use super::model::*;
use super::plan::{FlowPlan, LinkPlan, Plan, TcpPlan};
use super::ScenarioError;
use crate::channel::{ChannelParams, ModelParams, Transitions};
use crate::net::capacity::hsdpa::CellParams;
use crate::net::capacity::trace::Opportunities;
use crate::net::capacity::{Capacity, RateSchedule, TraceCapacity};
use crate::net::RoutingTable;
use crate::time::{DataRate, SimDuration};

fn err<T>(field: impl std::fmt::Display, msg: impl std::fmt::Display) -> Result<T, ScenarioError> {
    Err(ScenarioError::new(field, msg))
}

/// The most characters of a user's text (a name, a line of a file) that an error quotes: a
/// message stays one readable line whatever the input, and a scenario naming a file that is not
/// a trace (`/etc/shadow`) does not get its content printed (issue 39).
pub const QUOTE_MAX_CHARS: usize = 40;

/// `s` as an error quotes it: whole when short, else its first [`QUOTE_MAX_CHARS`] characters
/// and an ellipsis with the length left out.
pub fn quote(s: &str) -> std::borrow::Cow<'_, str> {
    match s.char_indices().nth(QUOTE_MAX_CHARS) {
        None => std::borrow::Cow::Borrowed(s),
        Some((cut, _)) => std::borrow::Cow::Owned(format!("{}… ({} more bytes)", &s[..cut], s.len() - cut)),
    }
}

/// The most nodes a scenario may name. Routing keeps a next hop for every (node, destination)
/// pair, 4 bytes each: 400 MB at this bound.
pub(crate) const MAX_NODES: usize = 10_000;

/// The longest queue, receiver window or initial window, in packets. A million 1500-byte packets
/// is 1.5 GB of buffer: beyond it a value is a typo, and it would size allocations.
pub(crate) const MAX_PKTS: u32 = 1_000_000;

/// The shortest mean time or period of anything that recurs on its own (timers, on/off and call
/// processes, Gilbert–Elliott sojourns): 1 µs. Below it a single flow or channel makes a billion
/// events per simulated second, and the run looks hung (1 ns used to).
pub(crate) const MIN_PERIOD_NS: u64 = 1_000;

/// A count in packets (queue limit, windows): 1 to [`MAX_PKTS`].
fn pkts(field: String, v: u32) -> Result<(), ScenarioError> {
    if !(1..=MAX_PKTS).contains(&v) {
        return err(field, format!("{v} is out of range (allowed: 1 to {MAX_PKTS})"));
    }
    Ok(())
}

/// A recurring period or mean time: at least [`MIN_PERIOD_NS`].
fn period(field: String, d: SimDuration) -> Result<(), ScenarioError> {
    if d.as_nanos() < MIN_PERIOD_NS {
        return err(field, format!("{}ns is out of range (allowed: 1us to 10000000s)", d.as_nanos()));
    }
    Ok(())
}

fn probability(field: String, p: f64) -> Result<(), ScenarioError> {
    if !(0.0..=1.0).contains(&p) || p.is_nan() {
        return err(field, format!("{p} is out of range (allowed: 0 to 1)"));
    }
    Ok(())
}

fn check_queue(field: &str, q: &QueueSpec) -> Result<(), ScenarioError> {
    match q {
        QueueSpec::Droptail(DropTailSpec { limit_pkts }) => pkts(format!("{field}.limit_pkts"), *limit_pkts)?,
        QueueSpec::Red(RedSpec { limit_pkts, min_th_pkts, max_th_pkts, weight, max_p, .. }) => {
            pkts(format!("{field}.limit_pkts"), *limit_pkts)?;
            // Thresholds above the buffer would never be reached by the average queue: RED would
            // silently be DropTail.
            if !(*min_th_pkts >= 0.0 && *min_th_pkts < *limit_pkts as f64) {
                return err(
                    format!("{field}.min_th_pkts"),
                    format!("{min_th_pkts} is out of range (allowed: 0 to below limit_pkts = {limit_pkts})"),
                );
            }
            if !(*max_th_pkts > *min_th_pkts && *max_th_pkts <= *limit_pkts as f64) {
                return err(
                    format!("{field}.max_th_pkts"),
                    format!("{max_th_pkts} is out of range (allowed: above min_th_pkts = {min_th_pkts}, up to limit_pkts = {limit_pkts})"),
                );
            }
            if !(*weight > 0.0 && *weight <= 1.0) {
                return err(format!("{field}.weight"), format!("{weight} is out of range (allowed: 0 < weight <= 1)"));
            }
            if !(*max_p > 0.0 && *max_p <= 1.0) {
                return err(format!("{field}.max_p"), format!("{max_p} is out of range (allowed: 0 < max_p <= 1)"));
            }
        }
        QueueSpec::Cw(CwSpec { limit_pkts, weight, threshold_pkts, .. }) => {
            pkts(format!("{field}.limit_pkts"), *limit_pkts)?;
            if !(*weight > 0.0 && *weight <= 1.0) {
                return err(format!("{field}.weight"), format!("{weight} is out of range (allowed: 0 < weight <= 1)"));
            }
            if let Some(t) = threshold_pkts {
                if !(*t >= 0.0 && *t <= *limit_pkts as f64) {
                    return err(
                        format!("{field}.threshold_pkts"),
                        format!("{t} is out of range (allowed: 0 to limit_pkts = {limit_pkts})"),
                    );
                }
            }
        }
    }
    Ok(())
}

/// Checks a channel table and resolves it into the parameters of the one model it describes
/// (`p_stay_good`/`q_stay_bad` or `mean_good`/`mean_bad`; `fd_t` or `speed_kmh`).
pub fn resolve_channel(field: &str, c: &ChannelSpec) -> Result<ChannelParams, ScenarioError> {
    let (model, effect) = match c {
        ChannelSpec::None => return Ok(ChannelParams::PERFECT),
        ChannelSpec::Uniform(UniformSpec { loss, effect }) => {
            probability(format!("{field}.loss"), *loss)?;
            (ModelParams::Uniform { loss: *loss }, *effect)
        }
        ChannelSpec::GilbertElliott(g) => {
            probability(format!("{field}.error_good"), g.error_good)?;
            probability(format!("{field}.error_bad"), g.error_bad)?;
            let transitions = match (g.p_stay_good, g.q_stay_bad, g.mean_good, g.mean_bad) {
                (Some(p), Some(q), None, None) => {
                    probability(format!("{field}.p_stay_good"), p)?;
                    probability(format!("{field}.q_stay_bad"), q)?;
                    // Both 1: the chain never leaves its first state, and its stationary share of
                    // bad packets, (1 − p)/(2 − p − q), is 0/0.
                    if p == 1.0 && q == 1.0 {
                        return err(
                            format!("{field}.q_stay_bad"),
                            "p_stay_good and q_stay_bad are both 1: the channel never changes state (allowed: p_stay_good + q_stay_bad < 2)",
                        );
                    }
                    Transitions::PerPacket { p_stay_good: p, q_stay_bad: q }
                }
                (None, None, Some(g_), Some(b)) => {
                    period(format!("{field}.mean_good"), g_)?;
                    period(format!("{field}.mean_bad"), b)?;
                    Transitions::ContinuousTime { mean_good_ns: g_.as_nanos() as f64, mean_bad_ns: b.as_nanos() as f64 }
                }
                _ => {
                    return err(
                        field,
                        "give either p_stay_good and q_stay_bad (per-packet transitions) or mean_good and mean_bad (continuous time)",
                    )
                }
            };
            (ModelParams::GilbertElliott { transitions, error_good: g.error_good, error_bad: g.error_bad }, g.effect)
        }
        ChannelSpec::Fading(f) => {
            use crate::channel::fading;
            if !(f.error_rate > 0.0 && f.error_rate < 1.0) {
                return err(format!("{field}.error_rate"), format!("{} is out of range (allowed: 0 < error_rate < 1)", f.error_rate));
            }
            let positive_number = |name: &str, x: f64| {
                if x > 0.0 && x.is_finite() {
                    Ok(())
                } else {
                    err(format!("{field}.{name}"), format!("{x} is out of range (allowed: > 0)"))
                }
            };
            let fd_t = match (f.fd_t, f.speed_kmh) {
                (Some(d), None) => {
                    positive_number("fd_t", d)?;
                    if f.carrier_hz.is_some() || f.packet_time.is_some() {
                        return err(field, "carrier_hz and packet_time only apply with speed_kmh");
                    }
                    d
                }
                (None, Some(v)) => {
                    positive_number("speed_kmh", v)?;
                    if let Some(c) = f.carrier_hz {
                        positive_number("carrier_hz", c)?;
                    }
                    if let Some(t) = f.packet_time {
                        positive(format!("{field}.packet_time"), t)?;
                    }
                    fading::doppler_fd_t(
                        v,
                        f.carrier_hz.unwrap_or(fading::THESIS_EFFECTIVE_CARRIER_HZ),
                        f.packet_time.map_or(fading::THESIS_PACKET_TIME_NS, |t| t.as_nanos()),
                    )
                }
                _ => return err(field, "give either fd_t or speed_kmh"),
            };
            // A speed (or f_d T) inside "> 0" can still be too small for floating point: 5e-324 km/h
            // gives f_d T = 0, whose chain is undefined (NaN probabilities lost half the packets).
            // The smallest normal f_d T is far below any physical fading (bursts of ~10^300 packets).
            if fd_t.is_nan() || fd_t < f64::MIN_POSITIVE {
                let (name, given, least) = match f.speed_kmh {
                    Some(v) => {
                        let per_kmh = fd_t / v;
                        let per_kmh = if per_kmh > 0.0 {
                            per_kmh
                        } else {
                            fading::doppler_fd_t(
                                1.0,
                                f.carrier_hz.unwrap_or(fading::THESIS_EFFECTIVE_CARRIER_HZ),
                                f.packet_time.map_or(fading::THESIS_PACKET_TIME_NS, |t| t.as_nanos()),
                            )
                        };
                        ("speed_kmh", v, f64::MIN_POSITIVE / per_kmh)
                    }
                    None => ("fd_t", fd_t, f64::MIN_POSITIVE),
                };
                return err(
                    format!("{field}.{name}"),
                    format!("{given:e} is out of range: its normalized Doppler bandwidth f_d T = {fd_t:e} is below floating point's smallest normal number (allowed: {name} >= {least:e})"),
                );
            }
            // Thesis §2.3.1 [24]: error probability 0 in the good state, 1 in the bad one.
            let (leave_good, leave_bad) = fading::markov_complements(f.error_rate, fd_t);
            if !(leave_good.is_finite() && leave_bad.is_finite()) {
                return err(
                    field,
                    format!("error_rate = {} with f_d T = {fd_t:e} gives no fading chain (NaN transition probabilities)", f.error_rate),
                );
            }
            let transitions = Transitions::PerPacket { p_stay_good: 1.0 - leave_good, q_stay_bad: 1.0 - leave_bad };
            (ModelParams::GilbertElliott { transitions, error_good: 0.0, error_bad: 1.0 }, f.effect)
        }
    };
    Ok(ChannelParams { model, effect: effect.into() })
}

/// The largest capacity trace file airtcp reads: 256 MiB holds some 30 million delivery
/// opportunities, an hour of a 100 Mb/s mahimahi trace.
pub const TRACE_FILE_MAX_BYTES: u64 = 256 << 20;

/// Reads a trace file, refusing before it opens anything that is not a regular file (a FIFO would
/// block forever, `/dev/zero` would fill memory) or that is larger than [`TRACE_FILE_MAX_BYTES`];
/// the read itself is bounded too, in case the file grows meanwhile.
fn read_trace_file(field: &str, path: &std::path::Path) -> Result<String, ScenarioError> {
    use std::io::Read;
    let cannot = |e: std::io::Error| ScenarioError::new(field, format!("cannot read '{}': {e}", path.display()));
    let meta = std::fs::metadata(path).map_err(cannot)?;
    if !meta.is_file() {
        return err(field, format!("'{}' is not a regular file (a directory, FIFO, device or socket)", path.display()));
    }
    let too_large =
        |n: u64| ScenarioError::new(field, format!("'{}' has {n} bytes (allowed: up to {TRACE_FILE_MAX_BYTES})", path.display()));
    if meta.len() > TRACE_FILE_MAX_BYTES {
        return Err(too_large(meta.len()));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    std::fs::File::open(path).map_err(cannot)?.take(TRACE_FILE_MAX_BYTES + 1).read_to_end(&mut bytes).map_err(cannot)?;
    if bytes.len() as u64 > TRACE_FILE_MAX_BYTES {
        return Err(too_large(bytes.len() as u64));
    }
    String::from_utf8(bytes).map_err(|_| ScenarioError::new(field, format!("'{}' is not UTF-8 text", path.display())))
}

/// The delivery opportunities of a trace capacity (read from its file, resolved against
/// `base_dir`, or given inline), checked.
pub fn trace_opportunities(field: &str, t: &TraceCapacitySpec, base_dir: Option<&std::path::Path>) -> Result<Opportunities, ScenarioError> {
    let ms = match (&t.file, &t.opportunities_ms) {
        (Some(f), None) => {
            let path = match base_dir {
                Some(d) if std::path::Path::new(f).is_relative() => d.join(f),
                _ => std::path::PathBuf::from(f),
            };
            let text = read_trace_file(&format!("{field}.file"), &path)?;
            crate::net::capacity::trace::parse_mahimahi(&text)
                .map_err(|m| ScenarioError::new(format!("{field}.file"), format!("'{}' {m}", path.display())))?
        }
        (None, Some(v)) => {
            let text = v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join("\n");
            crate::net::capacity::trace::parse_mahimahi(&text)
                .map_err(|m| ScenarioError::new(format!("{field}.opportunities_ms"), m.replace("line ", "entry ")))?
        }
        _ => return err(field, "give either file or opportunities_ms"),
    };
    if t.opportunity_bytes == 0 {
        return err(format!("{field}.opportunity_bytes"), "must be at least 1 byte");
    }
    Ok(ms)
}

/// The trace files a scenario's links name, each read and parsed once (however many link
/// directions replay it, they share its opportunities), and the memory they take, counted
/// against `limits.max_memory` before each file is read: a scenario of a few lines naming a
/// 229-MB trace on many links used to read and parse it per direction, to 7.5 GB (issue 39).
pub(crate) struct TraceFiles {
    /// Per file (as resolved): the trace, its opportunities shared.
    files: HashMap<std::path::PathBuf, TraceCapacity>,
    /// Bytes the traces read so far keep (their opportunities, 16 bytes each as the memory
    /// estimate counts them).
    kept: u64,
    /// `limits.max_memory`.
    limit: u64,
}

impl TraceFiles {
    pub(crate) fn new(limit: u64) -> Self {
        // A limit of 0 is refused with its own error once the scenario is read.
        TraceFiles { files: HashMap::new(), kept: 0, limit: if limit == 0 { u64::MAX } else { limit } }
    }

    /// The trace of capacity `t` (from its file, read once, or inline).
    fn load(&mut self, field: &str, t: &TraceCapacitySpec, base_dir: Option<&std::path::Path>) -> Result<TraceCapacity, ScenarioError> {
        if t.opportunity_bytes == 0 {
            return err(format!("{field}.opportunity_bytes"), "must be at least 1 byte");
        }
        let Some(f) = (match (&t.file, &t.opportunities_ms) {
            (Some(f), None) => Some(f),
            (None, Some(_)) => None,
            _ => return err(field, "give either file or opportunities_ms"),
        }) else {
            let trace = trace_opportunities(field, t, base_dir)?;
            return Ok(TraceCapacity::new(&trace, t.opportunity_bytes));
        };
        let path = match base_dir {
            Some(d) if std::path::Path::new(f).is_relative() => d.join(f),
            _ => std::path::PathBuf::from(f),
        };
        let key = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        if let Some(trace) = self.files.get(&key) {
            return Ok(trace.with_opportunity_bytes(t.opportunity_bytes));
        }
        // Reading takes the text and, per line of at least 2 bytes, 8 bytes of milliseconds and
        // 8 of nanoseconds: at most 9 bytes per byte of the file, checked before it is read.
        let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        let need = self.kept.saturating_add(size.saturating_mul(9));
        if need > self.limit {
            return err(
                "limits.max_memory",
                format!(
                    "reading {field}.file ({size} bytes) needs up to {:.0}MB with the traces read before it, above the limit of {:.0}MB (raise limits.max_memory)",
                    need as f64 / 1e6,
                    self.limit as f64 / 1e6
                ),
            );
        }
        let trace = TraceCapacity::new(&trace_opportunities(field, t, base_dir)?, t.opportunity_bytes);
        self.kept = self.kept.saturating_add(trace.per_period() * 16);
        self.files.insert(key, trace.clone());
        Ok(trace)
    }
}

/// Checks a capacity table and resolves it into the model it describes (a trace's file is read
/// here, once per file).
fn resolve_capacity(
    field: &str,
    c: &CapacitySpec,
    base_dir: Option<&std::path::Path>,
    traces: &mut TraceFiles,
) -> Result<Capacity, ScenarioError> {
    Ok(match c {
        CapacitySpec::Constant(k) => {
            if k.rate.bps() == 0 {
                return err(format!("{field}.rate"), "must be greater than 0bps");
            }
            Capacity::Constant(k.rate)
        }
        CapacitySpec::Schedule(sch) => {
            if sch.steps.is_empty() {
                return err(format!("{field}.steps"), "at least one step is required");
            }
            if sch.steps[0].at.as_nanos() != 0 {
                return err(format!("{field}.steps[0].at"), "the first step must be at 0s");
            }
            for (k, st) in sch.steps.iter().enumerate().skip(1) {
                if st.at <= sch.steps[k - 1].at {
                    return err(format!("{field}.steps[{k}].at"), "steps must be in increasing time order");
                }
            }
            match sch.repeat {
                Some(p) => {
                    let last = sch.steps.last().unwrap().at;
                    if p <= last {
                        return err(
                            format!("{field}.repeat"),
                            format!("must be longer than the last step's time ({}s)", last.as_secs_f64()),
                        );
                    }
                    if sch.steps.iter().all(|st| st.rate.bps() == 0) {
                        return err(format!("{field}.steps"), "a repeating schedule needs at least one rate above 0bps");
                    }
                    // The time-average rate sizes derived timings (e.g. RED's idle-time estimate); a
                    // period-average under 1 b/s rounds to 0 and has no serialization time.
                    let bit_ns: u128 = sch
                        .steps
                        .iter()
                        .enumerate()
                        .map(|(k, st)| {
                            let end = sch.steps.get(k + 1).map_or(p, |n| n.at).as_nanos();
                            st.rate.bps() as u128 * (end - st.at.as_nanos()) as u128
                        })
                        .sum();
                    if bit_ns < p.as_nanos() as u128 {
                        return err(
                            format!("{field}.steps"),
                            "the average rate over one repeat period is below 1 bit/s (allowed: at least 1 bit/s)",
                        );
                    }
                }
                None => {
                    if sch.steps.last().unwrap().rate.bps() == 0 {
                        let k = sch.steps.len() - 1;
                        return err(
                            format!("{field}.steps[{k}].rate"),
                            "the last step lasts forever: it must be above 0bps (or set repeat)",
                        );
                    }
                }
            }
            Capacity::Schedule(RateSchedule::new(
                sch.steps.iter().map(|st| (st.at.as_nanos(), st.rate.bps())).collect(),
                sch.repeat.map(|p| p.as_nanos()),
            ))
        }
        CapacitySpec::Trace(t) => {
            let trace = traces.load(field, t, base_dir)?;
            let period_ms = trace.period_ns() / 1_000_000;
            // Average rate = opportunities · bytes · 8 per period (the last timestamp); under 1 b/s it
            // rounds to 0 and has no serialization time.
            if (trace.per_period() as u128) * t.opportunity_bytes as u128 * 8 * 1000 < period_ms as u128 {
                return err(field, "the trace's average rate is below 1 bit/s (allowed: at least 1 bit/s)");
            }
            if let Some(o) = t.start_offset {
                let f = format!("{field}.start_offset");
                if t.random_start_offset {
                    return err(f, "give at most one of start_offset and random_start_offset");
                }
                let period = period_ms;
                let ns = o.as_nanos();
                if ns % 1_000_000 != 0 || ns / 1_000_000 >= period {
                    return err(
                        f,
                        format!(
                            "{}s is out of range (allowed: whole milliseconds from 0ms to {}ms, below the trace's period)",
                            o.as_secs_f64(),
                            period.saturating_sub(1)
                        ),
                    );
                }
            }
            // The start offset (fixed or drawn per seed) is applied when the network is built.
            Capacity::Trace(trace)
        }
        // The cell serves packets itself; the constant is its nominal (peak) rate for summaries.
        CapacitySpec::Hsdpa(h) => {
            check_hsdpa(field, h)?;
            Capacity::Constant(DataRate(CellParams::from_spec(h).peak_bps()))
        }
    })
}

/// Range checks of an HSDPA cell (flow names of `ues` are checked with the flows).
fn check_hsdpa(field: &str, h: &HsdpaSpec) -> Result<(), ScenarioError> {
    use crate::net::capacity::hsdpa::{cqi, fading};
    let int = |name: &str, v: u32, lo: u32, hi: u32| {
        if v < lo || v > hi {
            return err(format!("{field}.{name}"), format!("{v} is out of range (allowed: {lo} to {hi})"));
        }
        Ok(())
    };
    let real = |name: &str, v: f64, lo: f64, hi: f64, lo_open: bool| {
        let ok = v.is_finite() && v <= hi && if lo_open { v > lo } else { v >= lo };
        if !ok {
            let lo_s = if lo_open { format!("> {lo}") } else { format!("{lo}") };
            return err(format!("{field}.{name}"), format!("{v} is out of range (allowed: {lo_s} to {hi})"));
        }
        Ok(())
    };
    int("pf_tc_tti", h.pf_tc_tti, 1, 1_000_000)?;
    int("codes", h.codes, 1, 15)?;
    int("max_ues_per_tti", h.max_ues_per_tti, 1, 15)?;
    real("hsdsch_power_fraction", h.hsdsch_power_fraction, 0.0, 1.0, true)?;
    int("cqi_delay_tti", h.cqi_delay_tti, 0, 1000)?;
    int("harq_processes", h.harq_processes, 1, 16)?;
    int("harq_rtt_tti", h.harq_rtt_tti, 1, 1000)?;
    int("harq_max_tx", h.harq_max_tx, 1, 16)?;
    real("ir_gain_db", h.ir_gain_db, 0.0, 10.0, false)?;
    real("bler_waterfall_db", h.bler_waterfall_db, 0.0, 20.0, true)?;
    int("rlc_header_bytes", h.rlc_header_bytes, 0, 16)?;
    int("rlc_um_header_bytes", h.rlc_um_header_bytes, 0, 16)?;
    let max_tb_bytes = cqi::entry(cqi::CQI_MAX).tbs_bits / 8;
    int("rlc_pdu_bytes", h.rlc_pdu_bytes, 1, max_tb_bytes - h.rlc_header_bytes)?;
    int("rlc_um_pdu_bytes", h.rlc_um_pdu_bytes, h.rlc_um_header_bytes + 1, max_tb_bytes)?;
    int("rohc_header_bytes", h.rohc_header_bytes, 0, 60)?;
    positive(format!("{field}.sdu_discard"), h.sdu_discard)?;
    real("carrier_hz", h.carrier_hz, 0.0, 1e12, true)?;
    real("site_distance_m", h.site_distance_m, 0.0, 1e6, true)?;
    real("shadowing_std_db", h.shadowing_std_db, 0.0, 30.0, false)?;
    let mut listed = std::collections::HashSet::with_capacity(h.ues.len());
    for (k, u) in h.ues.iter().enumerate() {
        if let Some(g) = u.geometry_db {
            real(&format!("ues[{k}].geometry_db"), g, -30.0, 40.0, false)?;
        }
        if let Some(m) = &u.channel_model {
            if fading::model_by_name(m).is_none() {
                return err(
                    format!("{field}.ues[{k}].channel_model"),
                    format!("unknown channel model '{m}' (allowed: A, B, C, D, E, static)"),
                );
            }
        }
        // A set, not a scan of the earlier entries: 10^5 UEs used to take minutes (issue 39).
        if !listed.insert(u.flow.as_str()) {
            return err(format!("{field}.ues[{k}].flow"), format!("flow '{}' is listed twice", quote(&u.flow)));
        }
    }
    Ok(())
}

/// Name of flow entry `i` (its `name`, or `"flow<i>"`).
pub fn flow_name(f: &FlowSpec, i: usize) -> String {
    let n = match f {
        FlowSpec::Tcp(t) => &t.name,
        FlowSpec::Cbr(c) => &c.name,
        FlowSpec::OnOff(c) => &c.name,
        FlowSpec::Voip(c) => &c.name,
    };
    n.clone().unwrap_or_else(|| format!("flow{i}"))
}

/// One flow a scenario entry stands for (a TCP entry with `count`/`direction` stands for many).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlowInstance {
    /// As reported: the entry's name, or `"<name>.<k>"` / `"<name>.rev<k>"` inside a group.
    pub name: String,
    /// Runs dst → src.
    pub reversed: bool,
    /// Added to the entry's `start`.
    pub start_offset_ns: u64,
}

/// The flows entry `i` stands for, in order (forward ones first).
pub fn flow_instances(f: &FlowSpec, i: usize) -> Vec<FlowInstance> {
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

fn positive(field: String, d: SimDuration) -> Result<(), ScenarioError> {
    if d.as_nanos() == 0 {
        return err(field, "must be greater than 0s");
    }
    Ok(())
}

fn check_onoff(i: usize, rate: DataRate, packet_bytes: u32, mean_on: SimDuration, mean_off: SimDuration) -> Result<(), ScenarioError> {
    if rate.bps() == 0 {
        return err(format!("flows[{i}].rate"), "must be greater than 0bps");
    }
    if packet_bytes == 0 || packet_bytes > 65_000 {
        return err(format!("flows[{i}].packet_bytes"), format!("{packet_bytes} is out of range (allowed: 1 to 65000)"));
    }
    period(format!("flows[{i}].mean_on"), mean_on)?;
    period(format!("flows[{i}].mean_off"), mean_off)
}

/// Checks everything a type cannot; returns the first problem found.
pub fn validate(s: &Scenario) -> Result<(), ScenarioError> {
    validate_and_load(s).map(|_| ())
}

/// [`validate`], returning the scenario resolved ([`Plan`]).
pub fn validate_and_load(s: &Scenario) -> Result<Plan<'_>, ScenarioError> {
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
    let mut cells: Vec<(usize, &HsdpaSpec)> = Vec::new();
    let mut traces = TraceFiles::new(s.limits.max_memory.0);
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
                Capacity::Constant(*r)
            }
            (None, Some(c)) => resolve_capacity(&format!("links[{i}].capacity"), c, s.base_dir.as_deref(), &mut traces)?,
            (Some(_), Some(_)) => return err(format!("links[{i}].capacity"), "give either rate or capacity, not both"),
            (None, None) => return err(format!("links[{i}].rate"), "a link needs a rate (or a capacity)"),
        };
        let mut cell = None;
        if let Some(CapacitySpec::Hsdpa(h)) = &l.capacity {
            if l.duplex && l.reverse_capacity.is_none() {
                return err(
                    format!("links[{i}].reverse_capacity"),
                    "required with an hsdpa capacity (the cell is downlink only): give the uplink, e.g. { kind = \"constant\", rate = \"384kbps\" }",
                );
            }
            if !matches!(l.channel, ChannelSpec::None) {
                return err(format!("links[{i}].channel"), "an hsdpa cell models its own radio errors: leave channel unset");
            }
            // Its `ues` name flows: checked once the flows' names are known (below), against one
            // set of them (the names of every flow were built here for every cell, and each UE
            // searched them: links × flows, then UEs × flows).
            cells.push((i, h));
            cell = Some(CellParams::from_spec(h));
        }
        let mut reverse_capacity = None;
        if let Some(c) = &l.reverse_capacity {
            if !l.duplex {
                return err(format!("links[{i}].reverse_capacity"), "only allowed on a duplex link");
            }
            if matches!(c, CapacitySpec::Hsdpa(_)) {
                return err(
                    format!("links[{i}].reverse_capacity"),
                    "an hsdpa cell is downlink only (allowed kinds here: constant, schedule, trace)",
                );
            }
            reverse_capacity = Some(resolve_capacity(&format!("links[{i}].reverse_capacity"), c, s.base_dir.as_deref(), &mut traces)?);
        }
        check_queue(&format!("links[{i}].queue"), &l.queue)?;
        if let Some(q) = &l.reverse_queue {
            if !l.duplex {
                return err(format!("links[{i}].reverse_queue"), "only allowed on a duplex link");
            }
            check_queue(&format!("links[{i}].reverse_queue"), q)?;
        }
        let channel = resolve_channel(&format!("links[{i}].channel"), &l.channel)?;
        let reverse_channel = resolve_channel(&format!("links[{i}].reverse_channel"), &l.reverse_channel)?;
        if !l.duplex && !matches!(l.reverse_channel, ChannelSpec::None) {
            return err(format!("links[{i}].reverse_channel"), "only allowed on a duplex link");
        }
        if !(1..=1000).contains(&l.link_retransmission_max) {
            return err(
                format!("links[{i}].link_retransmission_max"),
                format!("must be from 1 to 1000, got {}", l.link_retransmission_max),
            );
        }
        period(format!("links[{i}].link_retransmission_timeout"), l.link_retransmission_timeout)?;
        link_plans.push(LinkPlan { capacity, reverse_capacity, cell, channel, reverse_channel });
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
        let (src, dst, start, stop) = match fl {
            FlowSpec::Tcp(t) => (&t.src, &t.dst, t.start, t.stop),
            FlowSpec::Cbr(c) => (&c.src, &c.dst, c.start, c.stop),
            FlowSpec::OnOff(c) => (&c.src, &c.dst, c.start, c.stop),
            FlowSpec::Voip(c) => (&c.src, &c.dst, c.start, c.stop),
        };
        let a = node(format!("flows[{i}].src"), src)?;
        let b = node(format!("flows[{i}].dst"), dst)?;
        let instances = match fl {
            FlowSpec::Tcp(t) => t.count as u64 * if t.direction == Direction::Both { 2 } else { 1 },
            _ => 1,
        };
        ends.push((a, b, instances, matches!(fl, FlowSpec::Tcp(_))));
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
                        (make, needs, extra)
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
                flow_plans.push(FlowPlan::Tcp(t, TcpPlan { cc: cc.0, needs: cc.1, recovery, extra_estimates: cc.2 }));
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
            FlowSpec::OnOff(o) => {
                check_onoff(i, o.rate, o.packet_bytes, o.mean_on, o.mean_off)?;
                flow_plans.push(FlowPlan::OnOff(o));
            }
            FlowSpec::Voip(v) => {
                check_onoff(i, v.rate, v.packet_bytes, v.mean_on, v.mean_off)?;
                if !(1..=10_000).contains(&v.sources) {
                    return err(format!("flows[{i}].sources"), format!("{} is out of range (allowed: 1 to 10000)", v.sources));
                }
                period(format!("flows[{i}].call_interarrival"), v.call_interarrival)?;
                period(format!("flows[{i}].call_duration"), v.call_duration)?;
                flow_plans.push(FlowPlan::Voip(v));
            }
            FlowSpec::Cbr(c) => {
                if c.packet_bytes == 0 || c.packet_bytes > 65_000 {
                    return err(format!("flows[{i}].packet_bytes"), format!("{} is out of range (allowed: 1 to 65000)", c.packet_bytes));
                }
                match (&c.rate, c.schedule.is_empty()) {
                    (Some(_), false) => return err(format!("flows[{i}].schedule"), "give either rate or schedule, not both"),
                    (None, true) => return err(format!("flows[{i}].rate"), "a CBR flow needs a rate or a schedule"),
                    _ => {}
                }
                for (k, st) in c.schedule.iter().enumerate() {
                    if k > 0 && st.at <= c.schedule[k - 1].at {
                        return err(format!("flows[{i}].schedule[{k}].at"), "steps must be in increasing time order");
                    }
                }
                // One packet per interval packet_bytes·8/rate: it must be at least 1 ns, or the
                // source would send forever at one instant (a 20 Gb/s CBR of 1-byte packets used to).
                let max_bps = c.packet_bytes as u64 * 8 * 1_000_000_000;
                let too_fast = |field: String, bps: u64| -> Result<(), ScenarioError> {
                    if bps > max_bps {
                        return err(
                            field,
                            format!(
                                "{bps}bps sends a {}-byte packet more often than every 1 ns (allowed: up to {max_bps}bps)",
                                c.packet_bytes
                            ),
                        );
                    }
                    Ok(())
                };
                if let Some(r) = c.rate {
                    if r.bps() == 0 {
                        return err(format!("flows[{i}].rate"), "must be greater than 0bps (use a schedule step of 0bps to pause)");
                    }
                    too_fast(format!("flows[{i}].rate"), r.bps())?;
                }
                for (k, st) in c.schedule.iter().enumerate() {
                    too_fast(format!("flows[{i}].schedule[{k}].rate"), st.rate.bps())?;
                }
                flow_plans.push(FlowPlan::Cbr(c));
            }
        }
    }
    for &(i, h) in &cells {
        for (k, u) in h.ues.iter().enumerate() {
            if !names.contains_key(&u.flow) {
                let mut known = first_names.join(", ");
                if names.len() > first_names.len() {
                    known += &format!(", … ({} flows in all)", names.len());
                }
                return err(
                    format!("links[{i}].capacity.ues[{k}].flow"),
                    format!("unknown flow '{}' (known flows: {known})", quote(&u.flow)),
                );
            }
        }
    }
    if let Some(e) = &s.energy {
        e.check()?;
    }
    let ue_count = if cells.is_empty() { 0 } else { hsdpa_ues(&cells, s, &one_way, &routes, &ends) };
    let plan = Plan { links: link_plans, flows: flow_plans, hsdpa_ues: ue_count };
    check_limits(s, one_way.len() as u64, &plan)?;
    Ok(plan)
}

/// At most how many UEs the HSDPA cells make: one per cell and flow whose packets cross it (a
/// TCP flow's either way), counted per path (a flow crossing a cell both ways counts twice).
/// Each distinct path is walked once, so this costs no more than the routes themselves.
fn hsdpa_ues(
    cells: &[(usize, &HsdpaSpec)],
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

/// Bytes of one HSDPA UE's state at rest (its RLC, HARQ processes, fading paths and queue),
/// rounded up from the structures' sizes (checked by a test of `net::capacity::hsdpa`).
pub const UE_STATE_BYTES: u64 = 4096;

/// The most flows one TCP entry stands for each way (`count`).
const MAX_GROUP_COUNT: u64 = 100_000;

/// How many flow names an error that lists the known flows shows (then their number).
const KNOWN_NAMES_SHOWN: usize = 10;

/// Engine bytes per flow besides its time series: sender, receiver, window policy and their
/// buffers at rest (2.9 kB measured with 10⁵ Reno flows; rounded up).
const FLOW_STATE_BYTES: u64 = 4096;

/// The engine's memory that a scenario's settings alone decide (bytes): what
/// `limits.max_memory` is checked against before the run, and what it leaves for packets.
#[derive(Debug, Clone, Copy)]
pub struct MemoryEstimate {
    /// Next hops: nodes² × 4 bytes.
    pub routing: u64,
    /// Per-flow state besides the series (`FLOW_STATE_BYTES` a flow, and the largest its delay
    /// histogram can grow to in the run's duration, `metrics::delay::histogram_bytes`).
    pub flow_state: u64,
    /// Time series rows × their bytes.
    pub series: u64,
    /// Trace capacities' delivery opportunities (held in milliseconds and nanoseconds).
    pub trace_bytes: u64,
    /// HSDPA cells' UEs ([`UE_STATE_BYTES`] each, one per cell and flow crossing it).
    pub hsdpa_bytes: u64,
    /// The sum.
    pub total: u64,
}

/// Flows the scenario's entries stand for (a TCP group `count` each way).
fn flow_count(s: &Scenario) -> u64 {
    s.flows
        .iter()
        .map(|f| match f {
            FlowSpec::Tcp(t) => t.count as u64 * if t.direction == Direction::Both { 2 } else { 1 },
            _ => 1,
        })
        .sum()
}

/// Time-series samples: at 0, Δ, 2Δ, … up to the end (the engine's `Event::Sample`).
fn sample_count(s: &Scenario) -> u64 {
    s.duration.as_nanos() / s.sample_interval.as_nanos() + 1
}

/// [`MemoryEstimate`] of a validated scenario with `one_way_links` link directions.
pub fn memory_estimate(s: &Scenario, one_way_links: u64, plan: &Plan) -> MemoryEstimate {
    use crate::output::{FlowSeries, LinkSeries};
    let (flows, samples) = (flow_count(s), sample_count(s));
    let n = s.nodes.len() as u64;
    let routing = n * n * 4;
    // A delay (RTT or one-way) is at most the run's duration: the histogram's bound.
    let per_flow = FLOW_STATE_BYTES + crate::metrics::delay::histogram_bytes(s.duration.as_nanos());
    let flow_state = flows.saturating_mul(per_flow);
    // Saturating: a user may raise max_series_rows to anything, and an estimate that saturates
    // is above every limit, which is the right answer.
    // A flow row has the fixed columns and one f64 per extra estimate column.
    let row_bytes = FlowSeries::ROW_BYTES + 8 * plan.extra_estimate_columns();
    let series = (samples.saturating_mul(flows))
        .saturating_mul(row_bytes)
        .saturating_add(samples.saturating_mul(one_way_links).saturating_mul(LinkSeries::ROW_BYTES));
    let trace_bytes: u64 = plan.trace_opportunities() * 16;
    let hsdpa_bytes = plan.hsdpa_ues.saturating_mul(UE_STATE_BYTES);
    let total = routing.saturating_add(flow_state).saturating_add(series).saturating_add(trace_bytes).saturating_add(hsdpa_bytes);
    MemoryEstimate { routing, flow_state, series, trace_bytes, hsdpa_bytes, total }
}

/// Checks the settings of `limits` and the run's size against them, before anything is built: the
/// time series' rows against `max_series_rows`, the memory estimate against `max_memory`.
fn check_limits(s: &Scenario, one_way_links: u64, plan: &Plan) -> Result<(), ScenarioError> {
    let l = &s.limits;
    if l.max_events == 0 {
        return err("limits.max_events", "must be at least 1");
    }
    if l.max_memory.0 == 0 {
        return err("limits.max_memory", "must be greater than 0B");
    }
    if l.wall_clock.is_some_and(|w| w.as_nanos() == 0) {
        return err("limits.wall_clock", "must be greater than 0s");
    }
    if l.max_capture_bytes.0 == 0 {
        return err("limits.max_capture_bytes", "must be greater than 0B");
    }
    let (flows, samples) = (flow_count(s), sample_count(s));
    let (flow_rows, link_rows) = (samples * flows, samples * one_way_links);
    let rows = flow_rows + link_rows;
    if rows > l.max_series_rows {
        return err(
            "limits.max_series_rows",
            format!(
                "the time series would have {rows} rows ({samples} samples x ({flows} flows + {one_way_links} links)), above the limit of {} (raise limits.max_series_rows or lengthen sample_interval)",
                l.max_series_rows
            ),
        );
    }
    let MemoryEstimate { routing, flow_state, series, trace_bytes, hsdpa_bytes, total } = memory_estimate(s, one_way_links, plan);
    if total > l.max_memory.0 {
        let mb = |b: u64| format!("{:.0}MB", b as f64 / 1e6);
        return err(
            "limits.max_memory",
            format!(
                "the run needs about {} (routing {}, flow state {}, time series {}, traces {}{}), above the limit of {} (raise limits.max_memory)",
                mb(total),
                mb(routing),
                mb(flow_state),
                mb(series),
                mb(trace_bytes),
                if hsdpa_bytes > 0 { format!(", HSDPA UEs {}", mb(hsdpa_bytes)) } else { String::new() },
                mb(l.max_memory.0)
            ),
        );
    }
    Ok(())
}
