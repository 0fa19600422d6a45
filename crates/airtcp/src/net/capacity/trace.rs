//! Trace-driven link capacity in mahimahi's format (Netravali et al., "Mahimahi", USENIX ATC
//! 2015): each line of a trace is a time in milliseconds at which one MTU-sized packet can be
//! delivered (several equal lines are several opportunities in that millisecond), and the trace
//! repeats with a period equal to its last timestamp. Real cellular traces recorded as such
//! replay exactly.
//!
//! Delivery follows mahimahi's link queue: at each opportunity up to `opportunity_bytes` leave the
//! queue, a packet larger than what is left continues in the next opportunity, and bytes of an
//! opportunity that find the queue empty are wasted — they do not accumulate as credit. A packet
//! can only use opportunities at or after the instant it reached the link. Because the whole
//! schedule is known, a packet's departure is computed at admission, like a constant-rate link.
//!
//! A start offset replays the trace from a later instant: with offset `o`, simulated time `t` is
//! trace time `t + o`, wrapping at the period as mahimahi's `mm-link` wraps at the end of its
//! trace file (mahimahi's `LinkQueue` loops over the file: "By default, mm-link will repeat the
//! trace file when it reaches the end", mahimahi's traces/README). mahimahi itself always starts
//! at the top of the file; the offset lets runs of one recording start at different points of it.

use std::collections::HashMap;

use super::{Capacity, CapacityContext, CapacityKind, ResolvedCapacity};
use crate::spec::{err, ScenarioError};
use crate::time::SimDuration;

/// `kind = "trace"`: delivery opportunities in mahimahi's trace format, from a file or inline.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TraceCapacitySpec {
    /// Trace file (one millisecond timestamp per line), relative to the scenario file's folder.
    file: Option<String>,
    /// The same timestamps given inline.
    opportunities_ms: Option<Vec<u64>>,
    /// Bytes one opportunity carries (mahimahi: one MTU).
    #[serde(default = "default_opportunity_bytes")]
    opportunity_bytes: u32,
    /// Replay the trace from this far into it (a whole number of milliseconds below its period):
    /// simulated time 0 is this trace time, and the replay wraps at the period. Default 0.
    start_offset: Option<SimDuration>,
    /// Draw the start offset from the run's seed: a whole number of milliseconds, uniform in
    /// [0, period), once per link (a duplex link's two traces start at the same trace time).
    #[serde(default)]
    random_start_offset: bool,
}

fn default_opportunity_bytes() -> u32 {
    1500
}

impl CapacityKind for TraceCapacitySpec {
    fn resolve(&self, field: &str, ctx: &mut CapacityContext) -> Result<ResolvedCapacity, ScenarioError> {
        let t = self;
        let trace = ctx.traces.load(field, t, ctx.base_dir)?;
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
        // A start offset drawn per seed is applied when the network is built.
        let trace = trace.with_offset(t.start_offset.map_or(0, |o| o.as_nanos()));
        Ok(ResolvedCapacity { capacity: Capacity::Trace(trace), random_start: t.random_start_offset, cell: None })
    }
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
fn trace_opportunities(field: &str, t: &TraceCapacitySpec, base_dir: Option<&std::path::Path>) -> Result<Opportunities, ScenarioError> {
    let ms = match (&t.file, &t.opportunities_ms) {
        (Some(f), None) => {
            let path = match base_dir {
                Some(d) if std::path::Path::new(f).is_relative() => d.join(f),
                _ => std::path::PathBuf::from(f),
            };
            let text = read_trace_file(&format!("{field}.file"), &path)?;
            parse_mahimahi(&text).map_err(|m| ScenarioError::new(format!("{field}.file"), format!("'{}' {m}", path.display())))?
        }
        (None, Some(v)) => {
            let text = v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join("\n");
            parse_mahimahi(&text).map_err(|m| ScenarioError::new(format!("{field}.opportunities_ms"), m.replace("line ", "entry ")))?
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

/// A repeating schedule of delivery opportunities and the position of the transmitter in it.
#[derive(Debug, Clone)]
pub(crate) struct TraceCapacity {
    /// Opportunity offsets within one period, ns, non-decreasing. Shared by every link direction
    /// that replays the same trace file (it is read and held once, see `scenario::validate`).
    offsets_ns: std::sync::Arc<[u64]>,
    period_ns: u64,
    /// Bytes each delivery opportunity carries.
    pub opportunity_bytes: u32,
    /// Trace time at simulated time 0, ns, below `period_ns` (0: the trace's own start).
    offset_ns: u64,
    /// Global index (over all periods) of the first opportunity with bytes still unused.
    next_free: u64,
    /// Bytes still unused in opportunity `next_free`.
    left_bytes: u32,
}

/// A parsed mahimahi trace: its delivery opportunities in milliseconds, non-decreasing, and its
/// period (the last of them, above 0). Only [`parse_mahimahi`] makes one, so a `TraceCapacity`
/// built from it always has a period.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opportunities {
    ms: Vec<u64>,
    period_ms: u64,
}

impl Opportunities {
    /// The opportunities, in milliseconds from the start of a period.
    pub fn ms(&self) -> &[u64] {
        &self.ms
    }
}

/// Parses mahimahi trace text (one non-negative integer millisecond per line, non-decreasing,
/// last one > 0; blank lines ignored). Errors name the 1-based line. Public because the Python
/// package reads traces through it (`_core.parse_mahimahi`): one parser, the engine's.
pub fn parse_mahimahi(text: &str) -> Result<Opportunities, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let l = line.trim();
        if l.is_empty() {
            continue;
        }
        // At most a few dozen characters of the line: the file may be anything (a 50 MB line, a
        // file that is not a trace and not the user's to print).
        let ms: u64 =
            l.parse().map_err(|_| format!("line {}: '{}' is not a whole number of milliseconds", i + 1, crate::spec::quote(l)))?;
        // The time range of every scenario duration (`time::MAX_DURATION_NS`), so the period and
        // the opportunity times stay exact in nanoseconds.
        let max_ms = crate::time::MAX_DURATION_NS / 1_000_000;
        if ms > max_ms {
            return Err(format!("line {}: {ms} ms is out of range (allowed: 0 to {max_ms})", i + 1));
        }
        if let Some(&p) = out.last() {
            if ms < p {
                return Err(format!("line {}: timestamps must not decrease ({ms} after {p})", i + 1));
            }
        }
        out.push(ms);
    }
    match out.last() {
        None => Err("the trace has no delivery opportunities".into()),
        Some(0) => Err("the last timestamp must be greater than 0 ms (it is the trace's period)".into()),
        Some(&period_ms) => Ok(Opportunities { ms: out, period_ms }),
    }
}

impl TraceCapacity {
    /// The capacity of a trace whose opportunities carry `opportunity_bytes` each.
    pub(crate) fn new(trace: &Opportunities, opportunity_bytes: u32) -> Self {
        let offsets_ns: std::sync::Arc<[u64]> = trace.ms.iter().map(|ms| ms * 1_000_000).collect();
        let period_ns = trace.period_ms * 1_000_000;
        TraceCapacity { offsets_ns, period_ns, opportunity_bytes, offset_ns: 0, next_free: 0, left_bytes: opportunity_bytes }
    }

    /// The same trace replayed from `offset_ns` into it (simulated time t is trace time
    /// t + offset); validated to be below the period, taken modulo the period here.
    pub(crate) fn with_offset(mut self, offset_ns: u64) -> Self {
        self.offset_ns = offset_ns % self.period_ns;
        self
    }

    /// The same trace (sharing its opportunities) with `opportunity_bytes` per opportunity, from
    /// its start.
    pub(crate) fn with_opportunity_bytes(&self, opportunity_bytes: u32) -> Self {
        TraceCapacity { opportunity_bytes, left_bytes: opportunity_bytes, offset_ns: 0, next_free: 0, ..self.clone() }
    }

    /// Identifies the opportunities held in memory: equal for traces that share them.
    pub(crate) fn offsets_id(&self) -> usize {
        self.offsets_ns.as_ptr() as usize
    }

    /// Trace time at simulated time 0, ns.
    pub(crate) fn offset_ns(&self) -> u64 {
        self.offset_ns
    }

    /// The trace's period (its last timestamp), ns.
    pub(crate) fn period_ns(&self) -> u64 {
        self.period_ns
    }

    /// Opportunities per period.
    pub(crate) fn per_period(&self) -> u64 {
        self.offsets_ns.len() as u64
    }

    /// Mean capacity in b/s.
    pub(crate) fn mean_bps(&self) -> u64 {
        (self.per_period() as u128 * self.opportunity_bytes as u128 * 8 * 1_000_000_000 / self.period_ns as u128) as u64
    }

    /// Trace time of opportunity `k` (global index); simulated time is this minus the offset.
    #[inline]
    pub(crate) fn time_of(&self, k: u64) -> u64 {
        let n = self.per_period();
        (k / n) * self.period_ns + self.offsets_ns[(k % n) as usize]
    }

    /// Index of the first opportunity at or after trace time `t`.
    pub(crate) fn first_at_or_after(&self, t: u64) -> u64 {
        let n = self.per_period();
        let cycle = t / self.period_ns;
        let off = t % self.period_ns;
        if off == 0 && cycle > 0 {
            // Opportunities at offset = period of the previous cycle fall exactly at t.
            let i = self.offsets_ns.partition_point(|&o| o < self.period_ns) as u64;
            if i < n {
                return (cycle - 1) * n + i;
            }
        }
        let i = self.offsets_ns.partition_point(|&o| o < off) as u64;
        // i == n: none left in this cycle; index n of cycle c is index 0 of cycle c+1.
        cycle * n + i
    }

    /// Serves a packet of `bytes` that reached the link at `arrival` ns, behind everything admitted
    /// before it; returns when its last byte leaves.
    pub(crate) fn serve(&mut self, arrival: u64, bytes: u32) -> u64 {
        // Opportunities before the packet's arrival are of no use to it: any still unused were
        // wasted on an empty queue (mahimahi keeps no credit). A partly used opportunity at or
        // after the arrival instant still serves it.
        let first = self.first_at_or_after(arrival + self.offset_ns);
        if self.next_free < first {
            self.next_free = first;
            self.left_bytes = self.opportunity_bytes;
        }
        let mut rest = bytes;
        while rest > self.left_bytes {
            rest -= self.left_bytes;
            self.next_free += 1;
            self.left_bytes = self.opportunity_bytes;
        }
        self.left_bytes -= rest;
        // next_free >= first, whose trace time is at least arrival + offset: no underflow.
        let done = self.time_of(self.next_free) - self.offset_ns;
        if self.left_bytes == 0 {
            self.next_free += 1;
            self.left_bytes = self.opportunity_bytes;
        }
        done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn trace(ms: &[u64]) -> Opportunities {
        parse_mahimahi(&ms.iter().map(|m| m.to_string()).collect::<Vec<_>>().join("\n")).unwrap()
    }

    #[test]
    fn parses_and_rejects_traces() {
        assert_eq!(parse_mahimahi("1\n1\n\n3\n").unwrap().ms(), [1, 1, 3]);
        assert!(parse_mahimahi("2\n1\n").unwrap_err().contains("line 2"));
        assert!(parse_mahimahi("0\n").unwrap_err().contains("greater than 0"));
        assert!(parse_mahimahi("x\n").unwrap_err().contains("line 1"));
        assert!(parse_mahimahi("").is_err());
    }

    #[test]
    fn back_to_back_packets_take_successive_opportunities_and_wrap() {
        // Opportunities at 1, 1, 3 ms, period 3 ms: then 4, 4, 6, 7, 7, 9 ...
        let mut t = TraceCapacity::new(&trace(&[1, 1, 3]), 1500);
        let ends: Vec<u64> = (0..6).map(|_| t.serve(0, 1500) / MS).collect();
        assert_eq!(ends, vec![1, 1, 3, 4, 4, 6]);
        assert_eq!(t.mean_bps(), 3 * 1500 * 8 * 1000 / 3);
    }

    #[test]
    fn small_packets_share_an_opportunity_and_big_ones_span_two() {
        let mut t = TraceCapacity::new(&trace(&[1, 2, 3, 4]), 1500);
        assert_eq!(t.serve(0, 500), MS);
        assert_eq!(t.serve(0, 1000), MS); // fills the rest of opportunity 1 ms
        assert_eq!(t.serve(0, 2000), 3 * MS); // 1500 at 2 ms + 500 at 3 ms
                                              // Arriving at 3 ms exactly, it may use what is left of the 3-ms opportunity.
        assert_eq!(t.serve(3 * MS, 1000), 3 * MS);
    }

    #[test]
    fn an_opportunity_at_the_period_boundary_is_found() {
        // One opportunity per period, at its end: 1, 2, 3 ... ms.
        let t = TraceCapacity::new(&trace(&[1]), 1500);
        assert_eq!(t.time_of(t.first_at_or_after(5 * MS)), 5 * MS);
        assert_eq!(t.time_of(t.first_at_or_after(5 * MS + 1)), 6 * MS);
        assert_eq!(t.time_of(t.first_at_or_after(0)), MS);
        let t = TraceCapacity::new(&trace(&[0, 2, 2]), 1500);
        assert_eq!(t.first_at_or_after(2 * MS), 1);
        assert_eq!(t.time_of(t.first_at_or_after(2 * MS + 1)), 4 * MS);
    }

    #[test]
    fn an_offset_starts_the_replay_later_in_the_trace_and_wraps() {
        // Opportunities at 5, 10, 20 ms, period 20 ms. From 7 ms into the trace the first is the
        // 10-ms one (3 ms of simulated time), then 20 ms (13), then 5 ms of the next period
        // (25 - 7 = 18), 30 (23), 40 (33).
        let mut t = TraceCapacity::new(&trace(&[5, 10, 20]), 1500).with_offset(7 * MS);
        let ends: Vec<u64> = (0..5).map(|_| t.serve(0, 1500) / MS).collect();
        assert_eq!(ends, vec![3, 13, 18, 23, 33]);
        // An offset on an opportunity: it is usable at once (at or after the arrival).
        let mut t = TraceCapacity::new(&trace(&[5, 10, 20]), 1500).with_offset(10 * MS);
        assert_eq!(t.serve(0, 1500), 0);
        // Offset 0 is the trace as it is.
        let mut a = TraceCapacity::new(&trace(&[5, 10, 20]), 1500).with_offset(0);
        let mut b = TraceCapacity::new(&trace(&[5, 10, 20]), 1500);
        for k in 0..7 {
            assert_eq!(a.serve(k * 3 * MS, 1000), b.serve(k * 3 * MS, 1000));
        }
    }

    #[test]
    fn idle_time_wastes_opportunities_but_keeps_the_clock() {
        let mut t = TraceCapacity::new(&trace(&[1, 2, 3, 4]), 1500);
        assert_eq!(t.serve(0, 100), MS);
        // Idle until 10.5 ms: the partly used 1-ms opportunity and those at 2..10 ms are lost;
        // a burst of three then leaves at 11, 12, 13 ms (opportunity k of each period at 4c + k).
        let ends: Vec<u64> = (0..3).map(|_| t.serve(10 * MS + MS / 2, 1500) / MS).collect();
        assert_eq!(ends, vec![11, 12, 13]);
    }
}
