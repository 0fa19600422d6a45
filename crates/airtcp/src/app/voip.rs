//! A pool of VoIP talkers fed by Poisson call arrivals — TCP-Jersey §IV-A: "five VoIP flows
//! carried by the UDP protocol. Each VoIP flow is modeled as an independent exponentially
//! distributed on-off source that has 50% talk-spurt and 50% silent period. The average call
//! duration of each VoIP calls is 8 s ... Voices are carried by UDP at 96 kb/s rate. New VoIP call
//! arrivals to the pool of 5 VoIP sources form a Poisson process with the average inter-arrival
//! time of 1 second."
//!
//! A call that arrives while every source is busy is blocked (lost, not queued): the pool is an
//! Erlang loss system M/M/c/c, so its mean number of active calls is A(1 − B(c, A)) with offered
//! load A = holding/inter-arrival and B the Erlang-B formula (the VoIP tests check
//! the pool against it).
//!
//! The paper gives neither the datagram size nor the spurt length: we take ns-2's Exponential
//! traffic defaults it ran on (210-B packets, 0.5-s bursts and idles) — see REPRODUCTION.md.

use super::onoff::{OnOffParams, OnOffSource};
use super::{check_onoff, onoff_params, AppKind, Ends, UdpSource};
use crate::engine::RngStream;
use crate::spec::{err, period, ScenarioError};
use crate::time::{DataRate, SimDuration, SimTime};

/// A pool of VoIP talkers with Poisson call arrivals; calls finding every talker busy are
/// blocked. Defaults: TCP-Jersey §IV-A (5 sources, 1-s mean inter-arrival, 8-s mean call,
/// 96 kb/s, 50% activity) with ns-2's Exponential traffic defaults for what the paper leaves out
/// (210-B datagrams, 0.5-s mean spurt and silence).
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct VoipFlowSpec {
    name: Option<String>,
    src: String,
    dst: String,
    /// Talkers in the pool.
    #[serde(default = "default_voip_sources")]
    sources: u32,
    /// Mean time between call arrivals (exponential).
    #[serde(default = "default_voip_interarrival")]
    call_interarrival: SimDuration,
    /// Mean call duration (exponential).
    #[serde(default = "default_voip_duration")]
    call_duration: SimDuration,
    /// Rate while a talker is on (UDP payload).
    #[serde(default = "default_voip_rate")]
    rate: DataRate,
    #[serde(default = "default_voip_bytes")]
    packet_bytes: u32,
    #[serde(default = "default_voip_period")]
    mean_on: SimDuration,
    #[serde(default = "default_voip_period")]
    mean_off: SimDuration,
    #[serde(default)]
    start: SimDuration,
    stop: Option<SimDuration>,
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

impl AppKind for VoipFlowSpec {
    fn ends(&self) -> Ends<'_> {
        Ends { name: self.name.as_deref(), src: &self.src, dst: &self.dst, start: self.start, stop: self.stop }
    }

    fn check(&self, field: &str) -> Result<(), ScenarioError> {
        check_onoff(field, self.rate, self.packet_bytes, self.mean_on, self.mean_off)?;
        if !(1..=10_000).contains(&self.sources) {
            return err(format!("{field}.sources"), format!("{} is out of range (allowed: 1 to 10000)", self.sources));
        }
        period(format!("{field}.call_interarrival"), self.call_interarrival)?;
        period(format!("{field}.call_duration"), self.call_duration)
    }

    fn build(&self, name: &str, seed: u64) -> UdpSource {
        let start = self.start.as_nanos();
        let stop = self.stop.map_or(SimTime::MAX, |x| x.as_nanos());
        UdpSource::Voip(VoipPool::new(
            self.sources,
            onoff_params(self.rate, self.packet_bytes, self.mean_on, self.mean_off),
            self.call_interarrival.as_nanos() as f64,
            self.call_duration.as_nanos() as f64,
            start,
            stop,
            RngStream::new(seed, &format!("app:{name}")),
        ))
    }
}

/// A pool of `sources` talkers and the call process that keeps them busy.
#[derive(Debug, Clone)]
pub(crate) struct VoipPool {
    pub params: OnOffParams,
    pub mean_interarrival_ns: f64,
    pub mean_holding_ns: f64,
    calls: Vec<Option<OnOffSource>>,
    next_arrival: SimTime,
    /// No call starts from this instant on, and calls in progress fall silent.
    stop: SimTime,
    pub calls_offered: u64,
    pub calls_blocked: u64,
    rng: RngStream,
}

impl VoipPool {
    /// A pool whose first call arrives an exponential inter-arrival time after `start`.
    pub(crate) fn new(
        sources: u32,
        params: OnOffParams,
        mean_interarrival_ns: f64,
        mean_holding_ns: f64,
        start: SimTime,
        stop: SimTime,
        mut rng: RngStream,
    ) -> Self {
        let next_arrival = start + rng.exponential(mean_interarrival_ns).round() as u64;
        VoipPool {
            params,
            mean_interarrival_ns,
            mean_holding_ns,
            calls: vec![None; sources as usize],
            next_arrival,
            stop,
            calls_offered: 0,
            calls_blocked: 0,
            rng,
        }
    }

    /// When the pool next needs waking (`None` after `stop`).
    pub(crate) fn next_wake(&self) -> Option<SimTime> {
        let t = self.calls.iter().flatten().map(|c| c.next_wake()).fold(self.next_arrival, SimTime::min);
        (t < self.stop).then_some(t)
    }

    /// Handles everything due at `now`; returns the datagrams to send now.
    pub(crate) fn wake(&mut self, now: SimTime) -> u32 {
        if now >= self.stop {
            return 0;
        }
        let mut sent = 0;
        for slot in &mut self.calls {
            if let Some(c) = slot {
                sent += c.wake(now, &mut self.rng);
                if now >= c.end {
                    *slot = None;
                }
            }
        }
        while self.next_arrival <= now {
            let at = self.next_arrival;
            self.calls_offered += 1;
            match self.calls.iter_mut().find(|c| c.is_none()) {
                Some(slot) => {
                    let end = at + self.rng.exponential(self.mean_holding_ns).round() as u64;
                    let mut call = OnOffSource::new(self.params, at, end, &mut self.rng);
                    sent += call.wake(now, &mut self.rng);
                    *slot = Some(call);
                }
                None => self.calls_blocked += 1,
            }
            self.next_arrival = at + self.rng.exponential(self.mean_interarrival_ns).round() as u64;
        }
        sent
    }
}
