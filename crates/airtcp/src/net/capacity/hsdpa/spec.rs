//! The scenario's `capacity = { kind = "hsdpa", ... }` table: its fields and defaults, their
//! checks, and the [`CellParams`] they resolve into.

use serde::Deserialize;

use super::fading;
use super::geometry::DropParams;
use super::scheduler::Discipline;
use super::{cqi, CellParams, TTI_NS};
use crate::net::capacity::{Capacity, CapacityContext, CapacityKind, ResolvedCapacity};
use crate::spec::{err, positive, quote, ScenarioError};
use crate::time::{DataRate, SimDuration};

/// An HSDPA cell (TCP-Jersey over HSDPA, Li & Ansari): every flow crossing the link is a UE.
/// Defaults are the paper's (Tables 2–4) where it gives them and ours, recorded in
/// REPRODUCTION.md, where it does not.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct HsdpaSpec {
    /// "pf" (proportional fair, the paper's), "rr" (round robin) or "max_ci".
    #[serde(default)]
    scheduler: Discipline,
    /// PF averaging time constant, TTIs (Table 2: Tc = 500).
    #[serde(default = "hs_tc")]
    pf_tc_tti: u32,
    /// HS-PDSCH codes of the cell (a category-10 UE takes up to 15).
    #[serde(default = "hs_codes")]
    codes: u32,
    /// UEs served per TTI by code multiplexing (HS-SCCHs).
    #[serde(default = "hs_scch")]
    max_ues_per_tti: u32,
    /// Share of the Node-B power on the HS-DSCH (Table 2: CPICH and other common channels at
    /// −10 dB each leave 0.8).
    #[serde(default = "hs_power")]
    hsdsch_power_fraction: f64,
    /// Age of the CQI the scheduler uses, TTIs.
    #[serde(default = "hs_cqi_delay")]
    cqi_delay_tti: u32,
    /// HARQ processes per UE.
    #[serde(default = "hs_procs")]
    harq_processes: u32,
    /// TTIs from a transmission to its retransmission.
    #[serde(default = "hs_procs")]
    harq_rtt_tti: u32,
    /// Transmissions of a block before HARQ gives up.
    #[serde(default = "hs_max_tx")]
    harq_max_tx: u32,
    /// Incremental-redundancy gain over Chase combining on retransmissions, dB.
    #[serde(default = "hs_ir")]
    ir_gain_db: f64,
    /// Width of the BLER waterfall (BLER 0.9 → 0.1), dB.
    #[serde(default = "hs_waterfall")]
    bler_waterfall_db: f64,
    /// RLC AM PDU payload (Table 3: 40 B) and header bytes.
    #[serde(default = "hs_am_pdu")]
    rlc_pdu_bytes: u32,
    #[serde(default = "hs_am_hdr")]
    rlc_header_bytes: u32,
    /// RLC UM PDU size including its header (Table 4: 25 B, 1-B header).
    #[serde(default = "hs_um_pdu")]
    rlc_um_pdu_bytes: u32,
    #[serde(default = "hs_um_hdr")]
    rlc_um_header_bytes: u32,
    /// UDP/IP header after ROHC (Table 4: 3 B); TCP/IP headers are sent uncompressed.
    #[serde(default = "hs_rohc")]
    rohc_header_bytes: u32,
    /// RLC AM timer-based SDU discard (Table 3).
    #[serde(default = "hs_discard")]
    sdu_discard: SimDuration,
    /// From HARQ giving up on a block to RLC resending its PDUs.
    #[serde(default = "hs_retx_delay")]
    rlc_retx_delay: SimDuration,
    /// Carrier frequency, Hz (Table 2: 2000 MHz).
    #[serde(default = "hs_carrier")]
    carrier_hz: f64,
    /// Site-to-site distance of the drop layout, m (Table 2: 2800).
    #[serde(default = "hs_isd")]
    site_distance_m: f64,
    /// Shadowing standard deviation, dB (Table 2: 8.0).
    #[serde(default = "hs_shadow")]
    shadowing_std_db: f64,
    /// Per-flow overrides of the drawn geometry and channel model.
    #[serde(default)]
    ues: Vec<HsdpaUeSpec>,
}

/// One UE's fixed geometry and/or channel model (otherwise drawn per seed).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct HsdpaUeSpec {
    /// The flow (by name) this UE carries.
    flow: String,
    /// Geometry (eq. 4), dB.
    geometry_db: Option<f64>,
    /// "A".."E" (Table 1) or "static" (no fading).
    channel_model: Option<String>,
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

impl CapacityKind for HsdpaSpec {
    /// The cell serves packets itself; the constant is its nominal (peak) rate for summaries.
    fn resolve(&self, field: &str, _ctx: &mut CapacityContext) -> Result<ResolvedCapacity, ScenarioError> {
        check(field, self)?;
        let cell = CellParams::from_spec(self);
        let capacity = Capacity::Constant(DataRate(cell.peak_bps()));
        Ok(ResolvedCapacity { capacity, random_start: false, cell: Some(cell) })
    }

    fn is_cell(&self) -> bool {
        true
    }
}

/// Range checks of an HSDPA cell (flow names of `ues` are checked with the flows).
fn check(field: &str, h: &HsdpaSpec) -> Result<(), ScenarioError> {
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

impl CellParams {
    /// The parameters of a validated `kind = "hsdpa"` table.
    fn from_spec(h: &HsdpaSpec) -> Self {
        CellParams {
            tti_ns: TTI_NS,
            discipline: h.scheduler,
            pf_tc_tti: h.pf_tc_tti as f64,
            codes: h.codes as u8,
            max_ues_per_tti: h.max_ues_per_tti,
            hsdsch_power_fraction: h.hsdsch_power_fraction,
            cqi_delay_tti: h.cqi_delay_tti as u64,
            harq_processes: h.harq_processes as usize,
            harq_rtt_tti: h.harq_rtt_tti as u64,
            harq_max_tx: h.harq_max_tx as u8,
            ir_gain_db: h.ir_gain_db,
            bler_waterfall_db: h.bler_waterfall_db,
            am_pdu_bytes: h.rlc_pdu_bytes,
            am_header_bytes: h.rlc_header_bytes,
            um_pdu_bytes: h.rlc_um_pdu_bytes,
            um_header_bytes: h.rlc_um_header_bytes,
            rohc_header_bytes: h.rohc_header_bytes,
            sdu_discard_ns: h.sdu_discard.as_nanos(),
            rlc_retx_delay_ns: h.rlc_retx_delay.as_nanos(),
            carrier_hz: h.carrier_hz,
            drop: DropParams { site_distance_m: h.site_distance_m, shadowing_std_db: h.shadowing_std_db, ..DropParams::default() },
            ues: h
                .ues
                .iter()
                .map(|u| (u.flow.clone(), u.geometry_db, u.channel_model.as_deref().and_then(fading::model_by_name)))
                .collect(),
        }
    }
}
