//! Window policies (congestion control), separate from loss recovery (`tcp::recovery`).
//!
//! The sender owns reliability; a [`CongestionControl`] only decides `cwnd` and `ssthresh` at the
//! events below, in the spirit of Linux `tcp_congestion_ops` and ns-3 `TcpCongestionOps`.
//! A new scheme is one file in this folder plus one line in [`REGISTRY`]; it touches no engine code.
//! Its parameters come from the flow's `[flows.cc_params]` table, deserialized by the scheme.

pub(crate) mod bbr;
pub(crate) mod caiad;
pub(crate) mod cubic;
pub mod estimators;
pub(crate) mod ie2;
pub mod jersey;
pub(crate) mod prairie;
pub(crate) mod reno;
pub(crate) mod vegas;
pub mod westwood;
pub(crate) mod westwood_plus;

use crate::net::AckHeader;
use crate::time::SimTime;

/// The window state a policy may change. Sizes in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub cwnd: u64,
    pub ssthresh: u64,
    /// Sender maximum segment size (payload bytes).
    pub mss: u64,
}

impl Window {
    /// Slow start while cwnd < ssthresh (RFC 5681 §3.1).
    pub(crate) fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
}

/// What the sender knows when an ACK arrives.
///
/// The ACK's own header fields (ACK number, ECN-Echo, timestamps, CAIAD's options) are read
/// through methods on the borrowed header instead of being copied in: the sender builds one
/// `AckInfo` per ACK and most policies read two or three of its fields, so copying the header's six
/// (three of them `Option`s) was a measurable share of the per-ACK cost (~1% of all instructions).
#[derive(Debug, Clone, Copy)]
pub struct AckInfo<'a> {
    pub now: SimTime,
    /// Bytes newly acknowledged by this ACK (0 for a duplicate).
    pub acked_bytes: u64,
    /// RTT sample taken from this ACK, if any (Karn's rule or timestamps).
    pub rtt_sample_ns: Option<u64>,
    /// Smoothed RTT after this ACK (0 before the first sample).
    pub srtt_ns: u64,
    /// Smallest RTT seen so far (0 before the first sample).
    pub min_rtt_ns: u64,
    /// Bytes outstanding (snd_max − snd_una) after this ACK.
    pub flight_bytes: u64,
    /// The window must not grow on this ACK: the sender is in loss recovery, or this ACK
    /// triggered an ECN window reduction (RFC 3168 §6.1.2).
    pub no_growth: bool,
    /// The sender was in fast recovery when this ACK arrived (the recovery strategy owns cwnd).
    /// Schemes that answer ECN-Echo themselves (TCP-Jersey's rate control) test this instead of
    /// `no_growth`.
    pub recovering: bool,
    /// For a duplicate ACK: the duplicate-ACK counter if this one is counted (the counter + 1).
    pub dupacks: u32,
    /// For an ACK of new data: when the highest segment it newly acknowledges was sent, if that
    /// segment was sent only once. TCP Vegas times every segment with the system clock and takes
    /// a fine-grained RTT sample from each ACK (Brakmo & Peterson §3.1; ns-2.35 `tcp-vegas.cc`:
    /// `v_sendtime_[seqno]` when `v_transmits_[seqno] == 1`). Unlike `rtt_sample_ns` it is not
    /// Karn-filtered for the segments below it: an ACK held back by a hole gives a long sample.
    pub newest_sent_at: Option<SimTime>,
    /// Packets in flight just before this ACK, in bytes, as the recovery strategy counts them
    /// (outstanding − SACKed, and − marked lost with `recovery = "linux"`): ns-2.35 TCP-Linux's
    /// `prior_in_flight`, which `tcp_is_cwnd_limited` compares with cwnd. Filled in only for
    /// policies whose [`CongestionControl::reads_in_flight`] is true, else 0.
    pub in_flight_before_bytes: u64,
    /// The next new byte the sender will send (snd_nxt) when this ACK arrives: snd_max, or less
    /// after a timeout's go-back-N. ns-2.35's Vegas agent counts its once-per-RTT "actual" and
    /// "expected" from it (`t_seqno_` in `VegasTcpAgent::recv`, tcp/tcp-vegas.cc).
    pub snd_nxt: u64,
    /// The delivery-rate sample of this ACK (Linux `struct rate_sample`, computed by the sender as
    /// `tcp_rate.c` does, see `tcp::rate`), for policies whose
    /// [`CongestionControl::reads_rate_sample`] is true; else `None`.
    pub rate: Option<&'a RateSample>,
    /// The ACK segment's header, read through the methods below.
    pub header: &'a AckHeader,
}

/// One ACK's delivery-rate sample (draft-cheng-iccrg-delivery-rate-estimation §3.3; Linux
/// `struct rate_sample`), computed by the sender so that a policy that models the path keeps no
/// scoreboard of its own.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RateSample {
    /// Bytes newly delivered by this ACK (cumulatively or by SACK).
    pub newly_delivered: u64,
    /// P.delivered of the most recently sent segment this ACK delivered (None: it delivered none).
    pub prior_delivered: Option<u64>,
    /// Delivery rate in bytes/s, when the sample is valid.
    pub rate: Option<u64>,
    /// The most recently sent segment this ACK delivered left while the connection was marked
    /// application-limited.
    pub app_limited: bool,
    /// now − the send time of that segment, unless it was ever retransmitted (Karn), ns.
    pub rtt_ns: Option<u64>,
    /// C.delivered after this ACK: bytes delivered since the flow started.
    pub delivered: u64,
    /// Bytes SACKed above the cumulative ACK after this ACK.
    pub sacked_bytes: u64,
}

impl AckInfo<'_> {
    /// The cumulative acknowledgment number.
    #[inline]
    pub fn ack(&self) -> u64 {
        self.header.ack()
    }

    /// The ACK carries ECN-Echo.
    #[inline]
    pub fn ece(&self) -> bool {
        self.header.ece()
    }

    /// The receiver's TSval on this ACK (its clock when it sent the ACK), when timestamps are on.
    #[inline]
    pub fn ts_val(&self) -> Option<u64> {
        self.header.ts_val()
    }

    /// TSecr: the sender's TSval echoed back, when timestamps are on.
    #[inline]
    pub fn ts_ecr(&self) -> Option<u64> {
        self.header.ts_ecr()
    }

    /// The ACK's corruption option (CAIAD Fig. 1(a)): a segment that arrived with a corrupted
    /// payload, by its first byte. Only a corruption-aware receiver (`Needs::caiad_receiver`) sends it.
    #[inline]
    pub fn corrupt_seq(&self) -> Option<u64> {
        self.header.corrupt_seq()
    }

    /// The ACK's No-Congestion option (CAIAD Fig. 1(b)).
    #[inline]
    pub fn no_congestion(&self) -> bool {
        self.header.no_congestion()
    }
}

/// The oldest unacknowledged segment, as a policy's own retransmission check sees it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Head {
    /// When it was last sent.
    pub sent_at: SimTime,
    /// It has been sent more than once.
    pub retransmitted: bool,
}

/// Which losses arm the recover guard that keeps a second fast retransmit out of one window.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum RecoverGuard {
    /// Every fast retransmit and every timeout (RFC 6582 §3.2 step 2; ns-2.35's `bugfix_` in
    /// Reno/NewReno/Sack1, `highest_ack_ > recover_`; Linux's CA_Recovery/CA_Loss): no new fast
    /// retransmit until the cumulative ACK passes `recover`.
    #[default]
    EveryLoss,
    /// Timeouts only: after a fast retransmit, duplicate ACKs of a later loss of the same window
    /// may start another (ns-2.35 Vegas: `!bug_fix_ || highest_ack_ > recover_ ||
    /// last_cwnd_action_ != CWND_ACTION_TIMEOUT`). The window policy then decides, in
    /// `on_congestion`, whether that loss cuts the window again.
    TimeoutOnly,
}

/// What a duplicate ACK does to the sender's duplicate-ACK counter (the counter that starts fast
/// retransmit at DupThresh). Standard TCP counts every duplicate; CAIAD (§3.3) does not count
/// those that say a segment was corrupted rather than lost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DupAckCount {
    /// Count it (RFC 5681): at DupThresh, fast retransmit.
    Count,
    /// Leave the counter as it is (CAIAD Case 3: a duplicate ACK with only the corruption option).
    Ignore,
    /// Reset the counter to zero (CAIAD Case 4, and Case 2 when the first missing segment is one
    /// the receiver reported corrupted).
    Reset,
}

/// The kind of congestion or loss signal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LossKind {
    /// The n-th duplicate ACK (fast retransmit).
    DupAcks,
    /// The retransmission timer expired.
    Timeout,
    /// ECN-Echo outside recovery, at most once per window (RFC 3168 §6.1.2).
    Ecn,
}

/// A loss or congestion signal handed to the policy.
#[derive(Debug, Clone, Copy)]
pub struct LossSignal {
    pub now: SimTime,
    pub kind: LossKind,
    /// Congestion warning: the ACK that triggered the signal carried ECN-Echo (TCP-Jersey's
    /// "marked" n-th duplicate ACK); for a timeout, the last ACK received before it did.
    pub marked: bool,
    /// FlightSize (RFC 5681): bytes outstanding when the signal arrived.
    pub flight_bytes: u64,
}

/// How the sender should proceed after a loss signal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reaction {
    /// The policy has set ssthresh (and cwnd for a timeout); recovery proceeds as its strategy says
    /// (e.g. Reno: cwnd = ssthresh + 3·MSS while recovering, cwnd = ssthresh after).
    Reduce,
    /// Retransmit and recover without cutting the window (TCP-Jersey's "explicit retransmit"):
    /// the window the policy leaves in `cwnd` is the one restored when recovery ends.
    KeepWindow,
}

/// A segment about to be sent, as [`CongestionControl::on_send`] sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SendInfo {
    pub now: SimTime,
    /// First byte.
    pub seq: u64,
    /// Payload bytes.
    pub len: u64,
    pub retransmission: bool,
    /// Bytes outstanding (snd_max − snd_una) before this segment is sent.
    pub flight_bytes: u64,
}

/// A window policy. All sizes are bytes.
pub trait CongestionControl: Send {
    /// Short name, as written in scenario files.
    fn name(&self) -> &'static str;
    /// Called once when the flow is built, with the receiver's window: a scheme may set its
    /// initial window here (the IE²-TCP envelope holds cwnd at the receiver window from the start).
    fn on_start(&mut self, _w: &mut Window, _rwnd_bytes: u64) {}
    /// Called on every ACK that acknowledges new data (also during recovery; see `no_growth`).
    fn on_ack(&mut self, w: &mut Window, ack: &AckInfo);
    /// Called on every duplicate ACK, before [`Self::on_dup_ack`]: how it moves the duplicate-ACK
    /// counter. Only a counted duplicate can start fast retransmit.
    fn classify_dup_ack(&mut self, _ack: &AckInfo) -> DupAckCount {
        DupAckCount::Count
    }
    /// Called on every duplicate ACK.
    fn on_dup_ack(&mut self, _w: &mut Window, _ack: &AckInfo) {}
    /// Called when an ACK carries a corruption option for the outstanding segment starting at
    /// `seq` (before the ACK's other processing). True: retransmit that segment now, outside the
    /// window and without a window cut (TCP HACK; CAIAD Case 3).
    fn on_corruption_report(&mut self, _w: &mut Window, _ack: &AckInfo, _seq: u64) -> bool {
        false
    }
    /// Called on a loss or congestion signal; sets ssthresh (and cwnd for timeouts and ECN).
    fn on_congestion(&mut self, w: &mut Window, signal: &LossSignal) -> Reaction;
    /// Called when loss recovery ends (the recovery point is cumulatively acknowledged).
    fn on_recovery_exit(&mut self, _w: &mut Window) {}
    /// The scheme's own retransmission check (TCP Vegas's fine-grained timeout, Brakmo & Peterson
    /// §3.1), called on every counted duplicate ACK (after [`Self::on_dup_ack`]) and on every ACK
    /// of new data that leaves data outstanding (after [`Self::on_ack`] and the recovery
    /// strategy's processing of it); `head` is the oldest unacknowledged segment then. True asks
    /// the sender to retransmit `head` now:
    /// - on a duplicate ACK outside recovery, fast retransmit starts as at the DupThresh-th
    ///   duplicate (the recover guard permitting; [`Self::on_congestion`] gets `DupAcks`);
    /// - during recovery, `head` is resent and this duplicate ACK is not handed to the recovery
    ///   strategy (no inflation for it: the retransmission takes the place it freed);
    /// - on an ACK of new data, `head` is resent without a window reaction: during recovery as
    ///   part of it, outside recovery by entering recovery with [`Reaction::KeepWindow`] (later
    ///   duplicates inflate cwnd and the next new ACK deflates it: ns-2.35 Vegas sets
    ///   `dupacks_ = numdupacks_` after such a retransmission).
    ///
    /// Why a hook: Vegas's check on the first and second new ACK after a retransmission retransmits
    /// a second loss of the window without waiting for duplicates, which no duplicate-ACK
    /// callback can ask for.
    fn retransmit_head(&mut self, _now: SimTime, _head: Head, _ack: &AckInfo) -> bool {
        false
    }
    /// Whether this policy reads send times: [`CongestionControl::retransmit_head`] and
    /// [`AckInfo::newest_sent_at`] are only served to policies that say so (asked once, at the
    /// start), so that the others do not pay the per-ACK scoreboard lookups.
    fn reads_send_times(&self) -> bool {
        false
    }
    /// The rate, in bytes per second of payload, at which the sender should space its segments
    /// (BBR, Cardwell et al. 2016: "pacing_rate = pacing_gain × BtlBw"); `None` sends each segment
    /// as soon as the window allows it.
    ///
    /// Asked once when the flow is built: a policy that answers `None` then never paces, and the
    /// sender does no pacing work for it at all (every scheme but BBR; their runs are unchanged).
    /// A policy that answers `Some` is asked again before every transmission and is told of each
    /// one through [`Self::on_send`]. A transmission at `now` delays the next by its payload
    /// length over the rate (Linux `tcp_update_skb_after_send`: `tcp_wstamp_ns += len / rate`),
    /// measured from `now` or from the previous transmission's slot, whichever is later.
    fn pacing_rate(&self) -> Option<u64> {
        None
    }
    /// Called for every segment sent, new or retransmitted, before it leaves; only for policies
    /// that pace (see [`Self::pacing_rate`]), which keep per-segment state at send time (BBR's
    /// delivery-rate samples, draft-cheng-iccrg-delivery-rate-estimation §3.2 "upon
    /// transmitting a packet").
    fn on_send(&mut self, _send: &SendInfo) {}
    /// Whether this policy reads [`AckInfo::rate`] (asked once, at the start): only then does the
    /// sender keep the per-segment delivery-rate state (`tcp::rate`).
    fn reads_rate_sample(&self) -> bool {
        false
    }
    /// After an ACK: the delivered count up to which the connection is application-limited, if
    /// the policy marked it during this ACK (tcp_bbr.c writes `tp->app_limited` in ProbeRTT);
    /// the sender hands it to its rate sampler. Asked only of policies that read rate samples.
    fn take_app_limited(&mut self) -> Option<u64> {
        None
    }
    /// Whether this policy reads [`AckInfo::in_flight_before_bytes`] (asked once, at the start;
    /// the count walks the scoreboard, so the other policies do not pay for it).
    fn reads_in_flight(&self) -> bool {
        false
    }
    /// Whether [`Self::on_ack`] of an ACK that lets the window grow (`no_growth` false) is RFC
    /// 5681's growth alone (the crate's `cc::reno::grow`), reading nothing else and keeping no
    /// state (asked once, at the start): the sender's common-case ACK path then grows the window
    /// itself, without building an [`AckInfo`] or calling the policy (issue 42: some 30
    /// instructions per ACK of Reno, NewReno and SACK flows). True only for Reno's policy.
    fn grows_as_reno(&self) -> bool {
        false
    }
    /// Whether [`Self::classify_dup_ack`] and [`Self::on_dup_ack`] are the trait's own (asked
    /// once, at the start): every duplicate ACK counts toward fast retransmit and leaves the
    /// window alone. The sender's duplicate-ACK path then calls neither, nor builds an
    /// [`AckInfo`] for them (issue 42: the duplicate ACKs of every loss episode). True only for
    /// Reno's policy; a policy that overrides either hook must leave it false.
    fn counts_every_dup_ack(&self) -> bool {
        false
    }
    /// Which losses arm the recover guard against a second fast retransmit in one window.
    fn recover_guard(&self) -> RecoverGuard {
        RecoverGuard::EveryLoss
    }
    /// Named internal estimates for time series (e.g. a bandwidth estimate in bit/s): the same
    /// names in the same order at every call (validation reads them once, and the time series
    /// lays out its columns by them).
    fn estimates(&self) -> &[(&'static str, f64)] {
        &[]
    }
    /// What the scheme needs from the flow (ECN, timestamps, the receiver's echo discipline).
    fn needs(&self) -> Needs {
        Needs::default()
    }
    /// For schemes that tell congestion losses from link errors: whether this loss signal (n-th
    /// duplicate ACK or timeout) is answered as congestion (`Some(true)`) or as a link error
    /// (`Some(false)`). The engine compares the verdicts with why the segment was really dropped.
    /// `None` (the default) for schemes that treat every loss alike.
    fn loss_verdict(&self, _signal: &LossSignal) -> Option<bool> {
        None
    }
}

/// How the receiver echoes congestion marks (CE) back to the sender.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EcnEcho {
    /// RFC 3168 §6.1.3: ECE on every ACK from the first CE until a segment with CWR arrives.
    #[default]
    UntilCwr,
    /// ECE exactly on the ACKs of CE-marked segments (a delayed ACK carries it when any segment it
    /// covers was marked). TCP-Jersey's congestion warning needs this: a "marked" ACK or duplicate
    /// ACK must say that *this* segment crossed a queue above the threshold (Jersey §III-B, Fig. 7).
    PerSegment,
}

/// What a scheme needs from its flow's configuration. The scenario is rejected (naming the
/// field) when the flow does not provide it, rather than the scheme silently running without it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Needs {
    /// ECN-capable transport (ECT on data, ECE/CWR on ACKs).
    pub ecn: bool,
    /// RFC 7323 timestamps (e.g. the receiver's clock for TCP New Jersey's estimator).
    pub timestamps: bool,
    /// The receiver's echo discipline.
    pub ecn_echo: EcnEcho,
    /// SACK (the receiver reports what it holds; the sender retransmits selectively).
    pub sack: bool,
    /// Send retransmissions ECN-capable too. RFC 3168 §6.1.5 says not to, but ns-2's TCP agents
    /// (the seeds' simulator) set ECT on every data packet, and a CW router (RED/ECN configured)
    /// drops non-ECT packets above its threshold — it would drop the Jersey family's
    /// retransmissions exactly when the queue warns of congestion.
    pub ect_on_retransmissions: bool,
    /// The corruption-aware receiver of CAIAD §3.1: data segments carry TCP HACK's header
    /// checksum option, and the receiver reads the intact header of a corrupted segment, reports
    /// it with the corruption option and marks duplicate ACKs No-Congestion while nothing is
    /// missing for another reason. Every other receiver discards corrupted segments.
    pub caiad_receiver: bool,
    /// The policy tells congestion from link errors ([`CongestionControl::loss_verdict`] answers):
    /// the engine then records why each of the flow's segments was dropped and scores the
    /// verdicts against it (`metrics::loss_verdicts`).
    pub loss_verdicts: bool,
    /// The loss recovery the policy was written with (`recovery = "..."`), when it is part of what
    /// the policy means, and what the policy is then (for the error message): ns-2.35's Vegas
    /// agent (`cc_params.variant = "ns2"`) leaves recovery at the first new ACK, which is `"reno"`.
    pub recovery: Option<(&'static str, &'static str)>,
}

/// Builds one instance of a window policy whose parameters were checked: the scenario is resolved
/// once (names and parameters checked, see `scenario::validate`) and every flow of an entry gets
/// its own instance from the same constructor, so building a checked scenario cannot fail.
pub(crate) type Constructor = std::sync::Arc<dyn Fn() -> Box<dyn CongestionControl> + Send + Sync>;

/// One entry of the window-policy registry: the name scenario files use, and the function that
/// checks a `cc_params` table (errors read "field: message") and returns the constructor.
pub struct Scheme {
    pub name: &'static str,
    pub resolve: fn(Option<&toml::Table>) -> Result<Constructor, String>,
}

/// Every window policy, in the order listings and the invariant campaign use. Adding a policy is
/// one file under `cc/` and one line here; nothing else in the engine names policies.
pub const REGISTRY: &[Scheme] = &[
    Scheme { name: "reno", resolve: |t| without_params(t, || reno::Reno) },
    Scheme { name: "westwood", resolve: |t| with_params(t, westwood::WestwoodParams::check, westwood::Westwood::new) },
    Scheme { name: "westwood-plus", resolve: |t| with_params(t, westwood_plus::WestwoodPlusParams::check, westwood_plus::new) },
    Scheme { name: "vegas", resolve: |t| with_params(t, vegas::VegasParams::check, vegas::Vegas::new) },
    Scheme { name: "jersey", resolve: |t| with_params(t, jersey::JerseyParams::check, jersey::Jersey::new) },
    Scheme {
        name: "new-jersey",
        resolve: |t| {
            with_params(t, jersey::new_jersey::NewJerseyParams::check, |p| {
                jersey::new_jersey::NewJersey::new(jersey::new_jersey::Variant::NewJersey, p)
            })
        },
    },
    Scheme {
        name: "nj+",
        resolve: |t| {
            with_params(t, jersey::new_jersey::NewJerseyParams::check, |p| {
                jersey::new_jersey::NewJersey::new(jersey::new_jersey::Variant::NjPlus, p)
            })
        },
    },
    Scheme { name: "prairie", resolve: |t| with_params(t, prairie::PrairieParams::check, prairie::Prairie::new) },
    Scheme { name: "ie2-envelope", resolve: |t| without_params(t, ie2::Ie2Envelope::default) },
    Scheme { name: "caiad", resolve: |t| with_params(t, caiad::CaiadParams::check, caiad::Caiad::new) },
    Scheme { name: "cubic", resolve: |t| with_params(t, cubic::CubicParams::check, cubic::Cubic::new) },
    Scheme { name: "bbr", resolve: |t| with_params(t, bbr::BbrParams::check, bbr::Bbr::new) },
];

const NAME_ARRAY: [&str; REGISTRY.len()] = registry_names!(REGISTRY);

/// Names accepted in scenario files (those of [`REGISTRY`]).
pub const NAMES: &[&str] = &NAME_ARRAY;

/// Deserializes a scheme's parameter table; errors read "field: message".
fn params<T: serde::de::DeserializeOwned>(table: Option<&toml::Table>) -> Result<T, String> {
    crate::spec::with_path(toml::Value::Table(table.cloned().unwrap_or_default()), None)
}

/// A policy with parameters `P`: deserialized, checked by `check`, then built by `new` per flow.
fn with_params<P, C>(table: Option<&toml::Table>, check: fn(&P) -> Result<(), String>, new: fn(&P) -> C) -> Result<Constructor, String>
where
    P: serde::de::DeserializeOwned + Send + Sync + 'static,
    C: CongestionControl + 'static,
{
    let p: P = params(table)?;
    check(&p)?;
    Ok(std::sync::Arc::new(move || Box::new(new(&p))))
}

/// A policy without parameters: only an empty `cc_params` table is accepted.
fn without_params<C: CongestionControl + 'static>(table: Option<&toml::Table>, new: fn() -> C) -> Result<Constructor, String> {
    params::<NoParams>(table)?;
    Ok(std::sync::Arc::new(move || Box::new(new())))
}

/// The constructor of the policy named `name` with its parameters checked. `Err(None)` for an
/// unknown name, `Err(Some("field: message"))` for bad parameters.
pub fn resolve(name: &str, table: Option<&toml::Table>) -> Result<Constructor, Option<String>> {
    let scheme = REGISTRY.iter().find(|s| s.name == name).ok_or(None)?;
    (scheme.resolve)(table).map_err(Some)
}

/// Builds one instance of the policy named `name` (see [`resolve`]).
pub fn build(name: &str, table: Option<&toml::Table>) -> Result<Box<dyn CongestionControl>, Option<String>> {
    resolve(name, table).map(|make| make())
}

/// Schemes without parameters accept only an empty `cc_params` table.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct NoParams {}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Needs::loss_verdicts` says what `loss_verdict` does, for every registered policy: the
    /// engine decides from the first whether to record drop causes for the second.
    #[test]
    fn needs_declare_the_loss_verdicts() {
        for s in REGISTRY {
            let cc = (s.resolve)(None).unwrap_or_else(|e| panic!("{}: {e}", s.name))();
            for kind in [LossKind::DupAcks, LossKind::Timeout] {
                let answered = cc.loss_verdict(&LossSignal { now: 0, kind, marked: false, flight_bytes: 0 }).is_some();
                assert_eq!(answered, cc.needs().loss_verdicts, "{}", s.name);
            }
        }
        assert_eq!(NAMES.len(), REGISTRY.len());
        assert!(matches!(resolve("bbr2", None), Err(None)));
    }
}
