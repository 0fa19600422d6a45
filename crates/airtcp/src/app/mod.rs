//! Traffic sources. A bulk TCP transfer is simply the sender's `app_limit` (infinite, or a byte
//! count), set at the flow's start. UDP sources are small event generators: woken at the time
//! they asked for, they say how many datagrams leave now and when to wake them next, so a new
//! source touches no engine code beyond its constructor.
//!
//! Each UDP application kind is a plug-in: its file owns its flow table (serde), the checks of
//! that table with field paths, and the constructor of its source; `REGISTRY` lists the kinds,
//! one line each. A new application is one file plus one line there: a source other than the
//! built-in ones builds a `UdpSource::Custom` with its own `Source`.

pub(crate) mod cbr;
pub(crate) mod onoff;
pub(crate) mod voip;

pub(crate) use cbr::CbrSource;
pub(crate) use onoff::{OnOffParams, OnOffSource};
pub(crate) use voip::VoipPool;

use std::sync::Arc;

use crate::engine::RngStream;
use crate::spec::{err, period, Entry, ScenarioError};
use crate::time::{DataRate, SimDuration, SimTime};

/// A UDP application kind's flow table, deserialized: its ends, its checks (errors name
/// `<field>.<key>`, `field` being `flows[i]`) and the constructor of its source.
pub(crate) trait AppKind: std::fmt::Debug + Send + Sync {
    fn ends(&self) -> Ends<'_>;
    fn check(&self, field: &str) -> Result<(), ScenarioError>;
    /// The source of the flow named `name` (its random stream, if any, is `app:<name>` of `seed`).
    fn build(&self, name: &str, seed: u64) -> UdpSource;
}

/// Every UDP application kind a scenario may name (after `tcp`), in the order error messages list
/// them. Adding an application is one file in this folder and one line here.
#[rustfmt::skip]
pub(crate) const REGISTRY: &[Entry<dyn AppKind>] = &[
    kind::<cbr::CbrFlowSpec>("cbr"),
    kind::<onoff::OnOffFlowSpec>("onoff"),
    kind::<voip::VoipFlowSpec>("voip"),
];

/// The registry line of the application kind whose table deserializes into `T`.
const fn kind<T: serde::de::DeserializeOwned + AppKind + 'static>(name: &'static str) -> Entry<dyn AppKind> {
    fn parse<T: serde::de::DeserializeOwned + AppKind + 'static>(v: toml::Value) -> Result<Arc<dyn AppKind>, String> {
        Ok(Arc::new(crate::spec::table::<T>(v)?))
    }
    Entry { name, parse: parse::<T> }
}

/// A flow entry's name, ends and active interval, as the scenario gives them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ends<'a> {
    pub name: Option<&'a str>,
    pub src: &'a str,
    pub dst: &'a str,
    pub start: SimDuration,
    pub stop: Option<SimDuration>,
}

/// A UDP application's flow table as the scenario gives it: the spec of its kind.
#[derive(Debug, Clone)]
pub(crate) struct AppSpec {
    spec: Arc<dyn AppKind>,
}

impl AppSpec {
    pub(crate) fn new(spec: Arc<dyn AppKind>) -> Self {
        AppSpec { spec }
    }

    /// The entry's name, ends and active interval.
    pub(crate) fn ends(&self) -> Ends<'_> {
        self.spec.ends()
    }

    /// Checks the table's values; errors name `field` (`flows[i]`) and the key.
    pub(crate) fn check(&self, field: &str) -> Result<(), ScenarioError> {
        self.spec.check(field)
    }

    /// The source of the flow named `name`, for `seed`.
    pub(crate) fn build(&self, name: &str, seed: u64) -> UdpSource {
        self.spec.build(name, seed)
    }
}

/// The checks an on/off talker's settings share (`onoff`, and each talker of `voip`).
fn check_onoff(field: &str, rate: DataRate, packet_bytes: u32, mean_on: SimDuration, mean_off: SimDuration) -> Result<(), ScenarioError> {
    if rate.bps() == 0 {
        return err(format!("{field}.rate"), "must be greater than 0bps");
    }
    if packet_bytes == 0 || packet_bytes > 65_000 {
        return err(format!("{field}.packet_bytes"), format!("{packet_bytes} is out of range (allowed: 1 to 65000)"));
    }
    period(format!("{field}.mean_on"), mean_on)?;
    period(format!("{field}.mean_off"), mean_off)
}

/// The parameters of an on/off talker, from its table's settings.
fn onoff_params(rate: DataRate, packet_bytes: u32, on: SimDuration, off: SimDuration) -> OnOffParams {
    OnOffParams { rate_bps: rate.bps(), packet_bytes, mean_on_ns: on.as_nanos() as f64, mean_off_ns: off.as_nanos() as f64 }
}

/// A UDP source of a plug-in application kind (`UdpSource::Custom`).
pub(crate) trait Source: std::fmt::Debug + Send {
    /// UDP payload bytes of each datagram.
    fn packet_bytes(&self) -> u32;
    /// Handles what is due at `now`: the datagrams to send now and when to wake next.
    fn wake(&mut self, now: SimTime) -> (u32, Option<SimTime>);
    /// Short name for summaries.
    fn kind_name(&self) -> &'static str;
    /// A copy.
    fn clone_box(&self) -> Box<dyn Source>;
}

impl Clone for Box<dyn Source> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// A UDP application (enum-dispatched).
#[derive(Debug, Clone)]
pub(crate) enum UdpSource {
    /// Constant bit rate on a schedule.
    Cbr(CbrSource),
    /// One exponential on/off talker for the whole flow (e.g. an AMR voice user).
    OnOff(OnOffSource, RngStream),
    /// A pool of talkers with Poisson call arrivals (TCP-Jersey §IV-A).
    Voip(VoipPool),
    /// A plug-in application kind's own source (none of the built-in kinds needs it: the hook a
    /// new kind's file uses without touching this enum).
    #[allow(dead_code)]
    Custom(Box<dyn Source>),
}

impl UdpSource {
    /// UDP payload bytes of each datagram.
    pub(crate) fn packet_bytes(&self) -> u32 {
        match self {
            UdpSource::Cbr(c) => c.packet_bytes,
            UdpSource::OnOff(s, _) => s.params.packet_bytes,
            UdpSource::Voip(p) => p.params.packet_bytes,
            UdpSource::Custom(s) => s.packet_bytes(),
        }
    }

    /// Handles what is due at `now`: the datagrams to send now and when to wake next.
    pub(crate) fn wake(&mut self, now: SimTime) -> (u32, Option<SimTime>) {
        match self {
            UdpSource::Cbr(c) => ((c.rate_at(now) > 0) as u32, c.next_tick(now)),
            UdpSource::OnOff(s, rng) => {
                let n = s.wake(now, rng);
                let next = s.next_wake();
                (n, (next < s.end).then_some(next))
            }
            UdpSource::Voip(p) => {
                let n = p.wake(now);
                (n, p.next_wake())
            }
            UdpSource::Custom(s) => s.wake(now),
        }
    }

    /// Short name for summaries: "cbr", "onoff" or "voip".
    pub(crate) fn kind_name(&self) -> &'static str {
        match self {
            UdpSource::Cbr(_) => "cbr",
            UdpSource::OnOff(..) => "onoff",
            UdpSource::Voip(_) => "voip",
            UdpSource::Custom(s) => s.kind_name(),
        }
    }
}
