//! Energy spent by a host's radio per megabyte it receives: the measure of the TCP Prairie thesis
//! (Parvez 2004), ch. 2, Figs. 2.3, 2.5 and 2.10.
//!
//! Thesis §2.3.1: "energy consumption (e) (average amount of energy dissipated in a TCP sink for
//! successful reception of 1 MB of data)"; "To calculate the energy consumption at the mobile nodes
//! (primarily due to transmission of acknowledgements and reception of TCP packets), the ratio of
//! transmission power and receive power wattage is assumed to be 3".
//!
//! The model: a host's interface draws `rx_power_w` while a packet arrives and `tx_power_w` while
//! it serializes one, and `idle_power_w` the rest of the time (0 by default: the thesis counts
//! reception and transmission only). Over the measurement window [warmup, end]:
//!
//! `energy_j = rx_power_w · rx_time_s + tx_power_w · tx_time_s + idle_power_w · idle_time_s`,
//! `energy_per_mb_j = energy_j / (delivered_bytes / 10⁶)`,
//!
//! where `rx_time_s` sums, over the packets that arrive at the host, each one's serialization time
//! on the link it arrived over (`DataRate::tx_time_ns`, as the transmitter spent it), `tx_time_s`
//! is the time the host's outgoing links spent serializing, `idle_time_s` the window less both
//! (never below 0), and `delivered_bytes` the application bytes delivered in order to the flows
//! that end at the host in the window (goodput's bytes).
//!
//! Readings (the thesis does not say more): a packet the channel corrupts still arrives and costs
//! its reception; a packet the channel loses never reaches the host and costs nothing; a frame a
//! link repairs (`link_retransmission`) costs one reception, its failed attempts none (the
//! link-level ARQ's own frames are not modelled). The time a packet takes is defined only on a
//! constant-rate link: a host with a trace, rate-schedule or HSDPA link reports no energy
//! (`energy_j` null), rather than a number that means something else. Only hosts, nodes that are
//! some flow's source or destination, are reported: every packet reaching a host is an event of
//! the simulator, while a router's arrivals may be cut through (see `sim`) and are not counted.

use serde::Deserialize;

pub(crate) use crate::output::HostEnergy;
use crate::spec::ScenarioError;

/// Upper bound of each power setting, watts: far above any radio (a check against a unit slip,
/// e.g. milliwatts written as watts ×1000), and small enough that energies stay exact in f64.
pub(crate) const MAX_POWER_W: f64 = 1e6;

/// The scenario's `[energy]` table: the power model of every host's interface. Present, it adds
/// the `hosts` list to the summary; absent, the summary is as without the metric.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct EnergySpec {
    /// Power drawn while transmitting, watts (thesis: 3× the receive power).
    #[serde(default = "default_tx_power_w")]
    pub tx_power_w: f64,
    /// Power drawn while receiving, watts.
    #[serde(default = "default_rx_power_w")]
    pub rx_power_w: f64,
    /// Power drawn while neither (thesis: not counted, 0).
    #[serde(default)]
    pub idle_power_w: f64,
}

fn default_tx_power_w() -> f64 {
    3.0
}

fn default_rx_power_w() -> f64 {
    1.0
}

impl Default for EnergySpec {
    fn default() -> Self {
        EnergySpec { tx_power_w: default_tx_power_w(), rx_power_w: default_rx_power_w(), idle_power_w: 0.0 }
    }
}

impl EnergySpec {
    /// Each power finite and within [0, [`MAX_POWER_W`]] W.
    pub(crate) fn check(&self) -> Result<(), ScenarioError> {
        for (name, v) in [("tx_power_w", self.tx_power_w), ("rx_power_w", self.rx_power_w), ("idle_power_w", self.idle_power_w)] {
            if !(0.0..=MAX_POWER_W).contains(&v) {
                return Err(ScenarioError::new(format!("energy.{name}"), format!("{v} is out of range (allowed: 0 to {MAX_POWER_W} W)")));
            }
        }
        Ok(())
    }
}

/// What a host's interface did in the measurement window.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct HostActivity {
    /// Packets that arrived at the host (corrupted ones included).
    pub rx_packets: u64,
    /// Their bytes, headers included.
    pub rx_bytes: u64,
    /// Their serialization times on the links they arrived over, ns.
    pub rx_ns: u64,
    /// Packets the host's outgoing links finished serializing.
    pub tx_packets: u64,
    /// Their bytes, headers included.
    pub tx_bytes: u64,
    /// Time the host's outgoing links spent serializing, ns.
    pub tx_ns: u64,
}

/// A host's summary line from its activity over a window of `window_ns`; `constant_rate` says
/// whether every link of the host has a constant rate (else the energy is not defined).
pub(crate) fn host_energy(
    spec: &EnergySpec,
    node: &str,
    a: &HostActivity,
    delivered_bytes: u64,
    window_ns: u64,
    constant_rate: bool,
) -> HostEnergy {
    let s = |ns: u64| ns as f64 * 1e-9;
    let idle_ns = window_ns.saturating_sub(a.rx_ns.saturating_add(a.tx_ns));
    let energy_j = constant_rate.then(|| spec.rx_power_w * s(a.rx_ns) + spec.tx_power_w * s(a.tx_ns) + spec.idle_power_w * s(idle_ns));
    HostEnergy {
        node: node.to_string(),
        rx_packets: a.rx_packets,
        rx_bytes: a.rx_bytes,
        rx_time_s: s(a.rx_ns),
        tx_packets: a.tx_packets,
        tx_bytes: a.tx_bytes,
        tx_time_s: s(a.tx_ns),
        delivered_bytes,
        energy_j,
        energy_per_mb_j: energy_j.filter(|_| delivered_bytes > 0).map(|e| e / (delivered_bytes as f64 / 1e6)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Worked by hand: a sink receives 1000 segments of 1040 B at 2 Mb/s (4.16 ms each) and sends
    /// 1000 ACKs of 40 B at 2 Mb/s (0.16 ms each) and is delivered 10⁶ bytes.
    /// rx 4.16 s × 1 W + tx 0.16 s × 3 W = 4.64 J for 1 MB.
    #[test]
    fn thesis_ratio_by_hand() {
        let a = HostActivity {
            rx_packets: 1000,
            rx_bytes: 1_040_000,
            rx_ns: 4_160_000_000,
            tx_packets: 1000,
            tx_bytes: 40_000,
            tx_ns: 160_000_000,
        };
        let e = host_energy(&EnergySpec::default(), "MH", &a, 1_000_000, 100_000_000_000, true);
        assert!((e.energy_j.unwrap() - 4.64).abs() < 1e-12);
        assert!((e.energy_per_mb_j.unwrap() - 4.64).abs() < 1e-12);
        // Idle power counts the window less the busy time: 100 s − 4.32 s at 0.5 W = 47.84 J more.
        let idle = EnergySpec { idle_power_w: 0.5, ..EnergySpec::default() };
        let e = host_energy(&idle, "MH", &a, 2_000_000, 100_000_000_000, true);
        assert!((e.energy_j.unwrap() - (4.64 + 47.84)).abs() < 1e-9);
        assert!((e.energy_per_mb_j.unwrap() - (4.64 + 47.84) / 2.0).abs() < 1e-9);
    }

    #[test]
    fn undefined_without_constant_rate_or_delivery() {
        let a = HostActivity { rx_ns: 1, ..HostActivity::default() };
        let e = host_energy(&EnergySpec::default(), "H", &a, 10, 100, false);
        assert_eq!((e.energy_j, e.energy_per_mb_j), (None, None));
        let e = host_energy(&EnergySpec::default(), "H", &a, 0, 100, true);
        assert!(e.energy_j.is_some() && e.energy_per_mb_j.is_none());
    }

    #[test]
    fn powers_out_of_range_are_refused() {
        for (spec, field) in [
            (EnergySpec { tx_power_w: -1.0, ..EnergySpec::default() }, "energy.tx_power_w"),
            (EnergySpec { rx_power_w: f64::NAN, ..EnergySpec::default() }, "energy.rx_power_w"),
            (EnergySpec { idle_power_w: 2e6, ..EnergySpec::default() }, "energy.idle_power_w"),
        ] {
            let m = spec.check().unwrap_err().to_string();
            assert!(m.starts_with(field) && m.contains("allowed: 0 to"), "{m}");
        }
        assert!(EnergySpec::default().check().is_ok());
    }
}
