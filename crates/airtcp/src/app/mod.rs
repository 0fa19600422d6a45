//! Traffic sources. A bulk TCP transfer is simply the sender's `app_limit` (infinite, or a byte
//! count), set at the flow's start. UDP sources are small event generators: woken at the time
//! they asked for, they say how many datagrams leave now and when to wake them next, so a new
//! source touches no engine code beyond its constructor.

pub mod cbr;
pub mod onoff;
pub mod voip;

pub use cbr::CbrSource;
pub(crate) use onoff::{OnOffParams, OnOffSource};
pub use voip::erlang_b;
pub(crate) use voip::VoipPool;

use crate::engine::RngStream;
use crate::time::SimTime;

/// A UDP application (enum-dispatched).
#[derive(Debug, Clone)]
pub(crate) enum UdpSource {
    /// Constant bit rate on a schedule.
    Cbr(CbrSource),
    /// One exponential on/off talker for the whole flow (e.g. an AMR voice user).
    OnOff(OnOffSource, RngStream),
    /// A pool of talkers with Poisson call arrivals (TCP-Jersey §IV-A).
    Voip(VoipPool),
}

impl UdpSource {
    /// UDP payload bytes of each datagram.
    pub fn packet_bytes(&self) -> u32 {
        match self {
            UdpSource::Cbr(c) => c.packet_bytes,
            UdpSource::OnOff(s, _) => s.params.packet_bytes,
            UdpSource::Voip(p) => p.params.packet_bytes,
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
        }
    }

    /// Short name for summaries: "cbr", "onoff" or "voip".
    pub(crate) fn kind_name(&self) -> &'static str {
        match self {
            UdpSource::Cbr(_) => "cbr",
            UdpSource::OnOff(..) => "onoff",
            UdpSource::Voip(_) => "voip",
        }
    }
}
