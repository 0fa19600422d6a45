//! Exponential on/off voice source: talk spurts and silences of exponentially distributed length
//! (the classic Brady model), sending fixed-size datagrams at a constant rate while on.
//!
//! Datagrams follow a codec frame clock that runs for the whole call (frames every
//! `packet_bytes · 8 / rate`, from the call's start) and are sent only while the talker is on —
//! as a voice codec with silence suppression does. The clock's phase is independent of the
//! spurts, so the expected bytes sent equal `rate × time on` exactly (sending a datagram at each
//! spurt's start instead would add half a datagram per spurt on average). A source starts in its
//! stationary state (on with probability on/(on+off)), so its mean activity holds from the first
//! instant of a call.

use super::{check_onoff, onoff_params, AppKind, Ends, UdpSource};
use crate::engine::RngStream;
use crate::spec::ScenarioError;
use crate::time::{DataRate, SimDuration, SimTime, NS_PER_S};

/// One exponential on/off talker for the whole flow. Defaults: the AMR voice user of the HSDPA
/// seed (Li & Ansari Table 4: AMR 7.95 kb/s, "a two state Markov model with 50% activity"); the
/// 2-s mean spurt and silence are our reading (3GPP's VoIP model, one transition in 100 20-ms
/// frames), see REPRODUCTION.md.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct OnOffFlowSpec {
    name: Option<String>,
    src: String,
    dst: String,
    /// Rate while on (UDP payload).
    #[serde(default = "default_amr_rate")]
    rate: DataRate,
    /// UDP payload bytes per datagram.
    #[serde(default = "default_amr_bytes")]
    packet_bytes: u32,
    /// Mean talk spurt (exponential).
    #[serde(default = "default_amr_period")]
    mean_on: SimDuration,
    /// Mean silence (exponential).
    #[serde(default = "default_amr_period")]
    mean_off: SimDuration,
    #[serde(default)]
    start: SimDuration,
    stop: Option<SimDuration>,
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

impl AppKind for OnOffFlowSpec {
    fn ends(&self) -> Ends<'_> {
        Ends { name: self.name.as_deref(), src: &self.src, dst: &self.dst, start: self.start, stop: self.stop }
    }

    fn check(&self, field: &str) -> Result<(), ScenarioError> {
        check_onoff(field, self.rate, self.packet_bytes, self.mean_on, self.mean_off)
    }

    fn build(&self, name: &str, seed: u64) -> UdpSource {
        let start = self.start.as_nanos();
        let end = self.stop.map_or(SimTime::MAX, |x| x.as_nanos());
        let mut rng = RngStream::new(seed, &format!("app:{name}"));
        let params = onoff_params(self.rate, self.packet_bytes, self.mean_on, self.mean_off);
        let src = OnOffSource::new(params, start, end, &mut rng);
        UdpSource::OnOff(src, rng)
    }
}

/// Parameters shared by every call of a source.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct OnOffParams {
    /// Rate while on, counting UDP payload bytes (as ns-2's Exponential traffic `rate_`).
    pub rate_bps: u64,
    /// UDP payload bytes per datagram.
    pub packet_bytes: u32,
    /// Mean talk-spurt length, ns.
    pub mean_on_ns: f64,
    /// Mean silence length, ns.
    pub mean_off_ns: f64,
}

impl OnOffParams {
    /// Frame interval: one datagram's payload at the on-rate, rounded to the nanosecond.
    pub(crate) fn interval_ns(&self) -> u64 {
        let bits = self.packet_bytes as u128 * 8 * NS_PER_S as u128;
        ((bits + self.rate_bps as u128 / 2) / self.rate_bps as u128).max(1) as u64
    }

    /// Long-run fraction of time on.
    pub(crate) fn activity(&self) -> f64 {
        self.mean_on_ns / (self.mean_on_ns + self.mean_off_ns)
    }
}

/// One talker (one call): its on/off state, its frame clock and the call's end.
#[derive(Debug, Clone)]
pub(crate) struct OnOffSource {
    pub params: OnOffParams,
    interval_ns: u64,
    on: bool,
    /// When the current spurt or silence ends.
    switch_at: SimTime,
    /// Next frame of the codec clock (only meaningful while on).
    next_frame: SimTime,
    origin: SimTime,
    /// The call ends (nothing is sent from this instant on).
    pub end: SimTime,
}

fn draw_ns(rng: &mut RngStream, mean_ns: f64) -> u64 {
    rng.exponential(mean_ns).round() as u64
}

impl OnOffSource {
    /// A call starting at `start`, lasting until `end`, in its stationary on/off state.
    pub(crate) fn new(params: OnOffParams, start: SimTime, end: SimTime, rng: &mut RngStream) -> Self {
        let on = rng.bernoulli(params.activity());
        let mean = if on { params.mean_on_ns } else { params.mean_off_ns };
        let interval_ns = params.interval_ns();
        OnOffSource { params, interval_ns, on, switch_at: start + draw_ns(rng, mean), next_frame: start, origin: start, end }
    }

    /// First frame of the clock at or after `t`.
    fn frame_at_or_after(&self, t: SimTime) -> SimTime {
        let k = (t - self.origin).div_ceil(self.interval_ns);
        self.origin + k * self.interval_ns
    }

    /// When this source next needs waking: its next switch, its next frame while on, or the
    /// call's end (a permanent source has `end = SimTime::MAX`).
    pub(crate) fn next_wake(&self) -> SimTime {
        let t = self.switch_at.min(self.end);
        if self.on {
            t.min(self.next_frame)
        } else {
            t
        }
    }

    /// Handles what is due at `now`; returns the datagrams to send now. A frame is sent when the
    /// talker is on at its instant (spurts are half-open intervals [start, end)).
    pub(crate) fn wake(&mut self, now: SimTime, rng: &mut RngStream) -> u32 {
        if now >= self.end {
            return 0;
        }
        while self.switch_at <= now {
            let at = self.switch_at;
            self.on = !self.on;
            let mean = if self.on { self.params.mean_on_ns } else { self.params.mean_off_ns };
            self.switch_at = at + draw_ns(rng, mean);
            if self.on {
                self.next_frame = self.frame_at_or_after(at);
            }
        }
        let mut sent = 0;
        if self.on && self.next_frame <= now {
            sent = 1;
            self.next_frame += self.interval_ns;
        }
        sent
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_sent_match_rate_times_activity() {
        // AMR-like: 7.95 kb/s, 20-B frames, 50% activity with 2-s spurts and silences; 10^5 s.
        let p = OnOffParams { rate_bps: 7950, packet_bytes: 20, mean_on_ns: 2e9, mean_off_ns: 2e9 };
        let mut rng = RngStream::new(1, "onoff");
        let end = 100_000 * NS_PER_S;
        let mut s = OnOffSource::new(p, 0, end, &mut rng);
        let mut sent = 0u64;
        loop {
            let t = s.next_wake();
            if t >= end {
                break;
            }
            sent += s.wake(t, &mut rng) as u64;
        }
        let rate = sent as f64 * 20.0 * 8.0 / 100_000.0;
        // Expected 3975 b/s; ~25000 spurts give a relative sd of ~0.6%.
        assert!((rate / 3975.0 - 1.0).abs() < 0.03, "rate {rate}");
    }
}
