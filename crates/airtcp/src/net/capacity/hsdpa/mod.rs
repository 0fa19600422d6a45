//! An HSDPA cell (3GPP Release 5 HS-DSCH): the shared downlink of the TCP-Jersey-over-HSDPA paper
//! (Li & Ansari), as one component that replaces a link's transmitter.
//!
//! Every flow whose packets cross the cell's link is its own UE, with its own Node-B queue (the
//! link's `queue` discipline, one instance per UE: so TCP-Jersey's CW marks at the real
//! bottleneck), its own RLC entity (AM for TCP, UM for UDP), its own HARQ processes, geometry and
//! multipath fading. Every 2-ms TTI the MAC-hs scheduler:
//!
//! 1. resends the transport blocks whose HARQ round trip has elapsed (same CQI, codes, power);
//! 2. ranks the other UEs with data and a free HARQ process (proportional fair by default) by the
//!    CQI they reported `cqi_delay_tti` TTIs ago, and gives them, in that order, the table row
//!    (TS 25.214 Table 7D) that carries their backlog with the fewest resources their CQI allows,
//!    within the codes, HS-SCCHs and HS-DSCH power left (power follows what each row needs at the
//!    reported CQI; what is left over is shared among them in proportion);
//! 3. decodes every block at the SINR of this instant (combined with earlier transmissions), and
//!    hands decoded PDUs to RLC, which delivers complete SDUs in order at the end of the TTI.
//!
//! Simplified, with respect to the paper (see REPRODUCTION.md): one cell's worth of UEs, each
//! with a geometry drawn from a drop in the 19-site layout (`geometry`), static for the run (no
//! mobility, no shadowing over time, no handover); the interfering cells are fully loaded and
//! their fading averaged; the AWGN BLER curves are a logistic waterfall through the CQI
//! definition's 10 % point (`cqi`); IR is Chase combining plus a fixed gain (`harq`); no MAC-hs
//! or PDCP headers, no HS-SCCH/HS-DPCCH errors, perfect ACK/NACK; the uplink (CQI, HARQ ACKs,
//! RLC STATUS) is error-free, its delays fixed; the RNC–Node-B flow control is ideal (one queue
//! per UE at the Node-B holds the SDUs whose PDUs were never sent).

pub mod cqi;
pub(crate) mod fading;
pub(crate) mod geometry;
pub(crate) mod harq;
pub(crate) mod rlc;
pub(crate) mod scheduler;
mod spec;

pub(crate) use spec::HsdpaSpec;

use crate::engine::RngStream;
use crate::net::queue::{Admission, Queue};
use crate::net::{Ecn, PacketId};

use fading::{ChannelModel, MultipathChannel};
use geometry::DropParams;
use harq::{Outcome, PduRef, TransportBlock};
use rlc::Rlc;
use scheduler::Discipline;

/// Spreading factor of an HS-PDSCH code.
pub const SF: f64 = 16.0;

/// A cell's parameters (the scenario's `capacity = { kind = "hsdpa", ... }`, validated).
#[derive(Debug, Clone)]
pub(crate) struct CellParams {
    pub tti_ns: u64,
    pub discipline: Discipline,
    pub pf_tc_tti: f64,
    pub codes: u8,
    pub max_ues_per_tti: u32,
    pub hsdsch_power_fraction: f64,
    pub cqi_delay_tti: u64,
    pub harq_processes: usize,
    pub harq_rtt_tti: u64,
    pub harq_max_tx: u8,
    pub ir_gain_db: f64,
    pub bler_waterfall_db: f64,
    pub am_pdu_bytes: u32,
    pub am_header_bytes: u32,
    pub um_pdu_bytes: u32,
    pub um_header_bytes: u32,
    pub rohc_header_bytes: u32,
    pub sdu_discard_ns: u64,
    pub rlc_retx_delay_ns: u64,
    pub carrier_hz: f64,
    pub drop: DropParams,
    /// Per-flow overrides: (flow name, geometry dB, channel model).
    pub ues: Vec<(String, Option<f64>, Option<ChannelModel>)>,
}

impl CellParams {
    /// The rate of the table's best row (CQI 30), for the link's nominal rate.
    pub(crate) fn peak_bps(&self) -> u64 {
        cqi::entry(cqi::CQI_MAX).tbs_bits as u64 * crate::time::NS_PER_S / self.tti_ns
    }
}

/// The HSDPA TTI: 2 ms (three slots).
pub(crate) const TTI_NS: u64 = 2_000_000;

/// Counters of one UE.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct UeStats {
    pub geometry_db: f64,
    /// Table 1 model letter (or 's' for a static channel).
    pub channel_model: char,
    /// TTIs in which the UE was a scheduling candidate, and the sum of the CQIs it reported then.
    pub cqi_reports: u64,
    pub cqi_sum: u64,
    pub new_blocks: u64,
    pub retransmissions: u64,
    /// Blocks decoded at their first transmission.
    pub decoded_first: u64,
    pub decoded: u64,
    /// Blocks HARQ gave up on after `harq_max_tx` transmissions.
    pub given_up: u64,
    /// Transport-block bits sent (all transmissions) and bits decoded.
    pub bits_sent: u64,
    pub bits_decoded: u64,
    pub rlc: rlc::RlcStats,
    pub overflow_drops: u64,
    pub ce_marks: u64,
}

/// One UE of the cell.
#[derive(Debug, Clone)]
pub(crate) struct Ue {
    /// The flow's index in the run.
    pub flow: usize,
    pub rlc: Rlc,
    queue: Queue,
    harq: Vec<Option<TransportBlock>>,
    channel: MultipathChannel,
    geometry_lin: f64,
    harq_rng: RngStream,
    r_ave_bps: f64,
    last_served_tti: u64,
    pub stats: UeStats,
}

impl Ue {
    /// HS-DSCH SINR (dB, all codes, full HS-DSCH power) at `t_s`: SF 16 × HS-DSCH power share ×
    /// the rake's C/I (eq. 3).
    pub(crate) fn sinr_db(&self, t_s: f64, hsdsch_fraction: f64) -> f64 {
        10.0 * (SF * hsdsch_fraction * self.channel.combined_c_over_i(t_s, self.geometry_lin)).log10()
    }

    fn busy(&self) -> bool {
        !self.rlc.idle() || self.harq.iter().any(|p| p.is_some())
    }
}

/// What a TTI produced for the network: packets to deliver (in order per UE) and packets lost.
#[derive(Debug, Default)]
pub(crate) struct TtiOutput {
    pub delivered: Vec<PacketId>,
    pub dropped: Vec<PacketId>,
}

/// One IP packet offered to the cell: the packet, its size on the air interface (after ROHC,
/// HSDPA paper Table 4) and its ECN field, which the Node-B queue may mark.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sdu {
    /// The packet the cell holds until it is delivered or given up on.
    pub pkt: PacketId,
    /// Bytes it takes on the air interface.
    pub air_bytes: u32,
    /// Its ECN field on arrival.
    pub ecn: Ecn,
}

/// The cell: the state of the UEs whose flows have sent through it, in flow order. (A slot per
/// flow of the run, in every cell, used to allocate and scan state for flows that never cross
/// the cell: 40 cells of 10^5 flows took 5 GB, uncounted by `limits.max_memory`; issue 39.)
#[derive(Debug)]
pub(crate) struct HsdpaCell {
    pub params: CellParams,
    label: String,
    seed: u64,
    queue_template: Queue,
    /// The UEs, by increasing flow index (the order every TTI serves and scans them in).
    ues: Vec<Ue>,
    /// Flow index → index in `ues`.
    slot: std::collections::HashMap<usize, usize>,
    /// `params.ues` by flow name (each UE's overrides are looked up once, when it is made).
    overrides: std::collections::HashMap<String, usize>,
    /// TTI index up to which R_ave has been updated.
    r_ave_tti: u64,
    /// Whether a TTI event is scheduled.
    pub ticking: bool,
    /// TTIs in which something was sent.
    pub busy_ttis: u64,
}

struct Candidate {
    ue: usize,
    cqi: u8,
    prio: f64,
    need_bits: u64,
    free_proc: usize,
}

impl HsdpaCell {
    pub(crate) fn new(params: CellParams, queue_template: Queue, seed: u64, label: &str) -> Self {
        let overrides = params.ues.iter().enumerate().map(|(i, u)| (u.0.clone(), i)).collect();
        HsdpaCell {
            params,
            label: label.to_string(),
            seed,
            queue_template,
            ues: Vec::new(),
            slot: std::collections::HashMap::new(),
            overrides,
            r_ave_tti: 0,
            ticking: false,
            busy_ttis: 0,
        }
    }

    /// The UE of flow `flow` (named `name`; AM RLC for TCP), created on its first packet. Its
    /// drop, fading and HARQ draws come from streams named after the cell and the flow, so they
    /// do not depend on which UE appeared first or on any other UE.
    pub(crate) fn ue(&mut self, flow: usize, name: &str, am: bool) -> &mut Ue {
        if let Some(&i) = self.slot.get(&flow) {
            return &mut self.ues[i];
        }
        {
            let p = &self.params;
            let over = self.overrides.get(name).map(|&i| &p.ues[i]);
            let mut drop_rng = RngStream::new(self.seed, &format!("hsdpa:{}:{name}:drop", self.label));
            let g_db = match over.and_then(|u| u.1) {
                Some(g) => g,
                None => geometry::draw_geometry_db(&p.drop, &mut drop_rng),
            };
            let model = match over.and_then(|u| u.2) {
                Some(m) => m,
                None => fading::draw_model(&mut drop_rng),
            };
            let mut fading_rng = RngStream::new(self.seed, &format!("hsdpa:{}:{name}:fading", self.label));
            let channel = MultipathChannel::new(model, p.carrier_hz, &mut fading_rng);
            let rlc = if am {
                Rlc::new(true, p.am_pdu_bytes, p.am_header_bytes, p.sdu_discard_ns, p.rlc_retx_delay_ns)
            } else {
                Rlc::new(false, p.um_pdu_bytes - p.um_header_bytes, p.um_header_bytes, u64::MAX, 0)
            };
            let stats =
                UeStats { geometry_db: g_db, channel_model: model.profile.name.chars().next().unwrap_or('?'), ..UeStats::default() };
            let ue = Ue {
                flow,
                rlc,
                queue: self.queue_template.clone(),
                harq: vec![None; p.harq_processes],
                channel,
                geometry_lin: 10f64.powf(g_db / 10.0),
                harq_rng: RngStream::new(self.seed, &format!("hsdpa:{}:{name}:harq", self.label)),
                r_ave_bps: 0.0,
                last_served_tti: 0,
                stats,
            };
            // In flow order: the UEs after it move up one.
            let at = self.ues.partition_point(|u| u.flow < flow);
            self.ues.insert(at, ue);
            for u in &self.ues[at + 1..] {
                *self.slot.get_mut(&u.flow).expect("every UE has a slot") += 1;
            }
            self.slot.insert(flow, at);
            &mut self.ues[at]
        }
    }

    /// Offers `sdu` of flow `flow` to its UE's Node-B queue at `now` (the UE is made on the flow's
    /// first SDU, named `name`, its RLC in acknowledged mode if `am`); returns the queue's decision
    /// (the packet is the cell's to hold if queued).
    pub(crate) fn offer(&mut self, now: u64, flow: usize, name: &str, am: bool, sdu: Sdu, rng: &mut RngStream) -> Admission {
        let ue = self.ue(flow, name, am);
        let q = ue.rlc.waiting_sdus();
        // No idle period for RED here: a UE's queue is never taken for idle (`busy_until` never
        // reached).
        let a = ue.queue.admit(now, q, u64::MAX, sdu.ecn, rng);
        match a {
            Admission::Queued | Admission::QueuedMarked => {
                ue.rlc.push(sdu.pkt, sdu.air_bytes, now);
                if a == Admission::QueuedMarked {
                    ue.stats.ce_marks += 1;
                }
            }
            Admission::OverflowDrop | Admission::EarlyDrop => ue.stats.overflow_drops += 1,
        }
        a
    }

    /// Whether any UE has something to send or in HARQ.
    pub(crate) fn busy(&self) -> bool {
        self.ues.iter().any(|u| u.busy())
    }

    /// SDUs waiting in all Node-B queues.
    pub(crate) fn waiting_sdus(&self) -> u32 {
        self.ues.iter().map(|u| u.rlc.waiting_sdus()).sum()
    }

    /// Packets the cell holds: SDUs offered and admitted and neither delivered nor dropped yet,
    /// wherever their PDUs are (Node-B queue, RLC retransmission queue, HARQ processes, or
    /// received and waiting for an earlier SDU). For the link's packet conservation.
    pub(crate) fn held_sdus(&self) -> u64 {
        self.ues.iter().map(|u| u.rlc.held_sdus()).sum()
    }

    /// The summary of flow `flow`'s UE over a run of `end_ns`, if the flow has one.
    pub(crate) fn summary(&self, flow: usize, end_ns: u64) -> Option<crate::output::HsdpaUeSummary> {
        let u = &self.ues[*self.slot.get(&flow)?];
        let st = &u.stats;
        Some(crate::output::HsdpaUeSummary {
            geometry_db: st.geometry_db,
            channel_model: u.channel.model.profile.name.to_string(),
            mean_cqi: if st.cqi_reports > 0 { st.cqi_sum as f64 / st.cqi_reports as f64 } else { 0.0 },
            new_blocks: st.new_blocks,
            harq_retransmissions: st.retransmissions,
            first_tx_bler: if st.new_blocks > 0 { 1.0 - st.decoded_first as f64 / st.new_blocks as f64 } else { 0.0 },
            harq_given_up: st.given_up,
            decoded_bps: st.bits_decoded as f64 / (end_ns as f64 * 1e-9),
            rlc_pdus_sent: u.rlc.stats.pdus_sent,
            rlc_pdus_retransmitted: u.rlc.stats.pdus_retransmitted,
            rlc_sdus_dropped: u.rlc.stats.sdus_dropped,
            queue_drops: st.overflow_drops,
            ce_marks: st.ce_marks,
        })
    }

    /// Runs the TTI that starts at `now` (a multiple of the TTI).
    pub(crate) fn tti(&mut self, now: u64, out: &mut TtiOutput) {
        let p = self.params.clone();
        let tti_s = p.tti_ns as f64 * 1e-9;
        let k = now / p.tti_ns + 1; // 1-based TTI index (0 = never served)
        let t_s = now as f64 * 1e-9;
        let t_cqi_s = now.saturating_sub(p.cqi_delay_tti * p.tti_ns) as f64 * 1e-9;
        let mut codes_left = p.codes as i32;
        let mut hs_scch_left = p.max_ues_per_tti;
        let mut power_left = 1.0f64;
        let mut served_bits = vec![0u64; self.ues.len()];
        // (ue, process) of every block sent this TTI.
        let mut sent: Vec<(usize, usize)> = Vec::new();

        // 1. HARQ retransmissions due, in UE order.
        for (i, ue) in self.ues.iter_mut().enumerate() {
            for (j, proc_) in ue.harq.iter().enumerate() {
                let Some(tb) = proc_ else { continue };
                if tb.retx_at > now || hs_scch_left == 0 || (tb.codes as i32) > codes_left || tb.power_share > power_left + 1e-12 {
                    continue;
                }
                codes_left -= tb.codes as i32;
                hs_scch_left -= 1;
                power_left -= tb.power_share;
                sent.push((i, j));
                break; // one block per UE per TTI
            }
        }

        // 2. New blocks by scheduling priority.
        let mut cands = Vec::new();
        for (i, ue) in self.ues.iter_mut().enumerate() {
            if sent.iter().any(|s| s.0 == i) {
                continue;
            }
            let Some(free_proc) = ue.harq.iter().position(|x| x.is_none()) else { continue };
            let ready = ue.rlc.ready_pdus(now);
            if ready == 0 {
                continue;
            }
            let c = cqi::cqi_of_sinr(ue.sinr_db(t_cqi_s, p.hsdsch_power_fraction));
            ue.stats.cqi_reports += 1;
            ue.stats.cqi_sum += c as u64;
            if c == 0 {
                continue;
            }
            let rate = cqi::entry(c).tbs_bits as f64 / tti_s;
            let prio = scheduler::priority(p.discipline, rate, ue.r_ave_bps, ue.last_served_tti);
            cands.push(Candidate { ue: i, cqi: c, prio, need_bits: ready * ue.rlc.pdu_bits() as u64, free_proc });
        }
        // Highest priority first; ties by flow index (stable sort).
        cands.sort_by(|a, b| b.prio.partial_cmp(&a.prio).unwrap_or(std::cmp::Ordering::Equal));
        let mut new_blocks: Vec<(usize, usize, u8, f64)> = Vec::new(); // (ue, proc, cqi row, power needed)
        for c in &cands {
            if hs_scch_left == 0 || codes_left <= 0 || power_left <= 1e-12 {
                break;
            }
            let pdu_bits = self.ues[c.ue].rlc.pdu_bits();
            let th_rep = cqi::threshold_db(c.cqi);
            // Rows this UE can use now: no better than its CQI, within the codes and power left,
            // carrying at least one PDU.
            let fits = |q: u8| {
                let e = cqi::entry(q);
                let need_p = 10f64.powf((cqi::threshold_db(q) - th_rep) / 10.0);
                (e.codes as i32) <= codes_left && need_p <= power_left + 1e-12 && e.tbs_bits >= pdu_bits
            };
            let usable: Vec<u8> = (1..=c.cqi).filter(|&q| fits(q)).collect();
            let Some(&best) = usable.last() else { continue };
            let row = usable.iter().copied().find(|&q| cqi::entry(q).tbs_bits as u64 >= c.need_bits).unwrap_or(best);
            let need_p = 10f64.powf((cqi::threshold_db(row) - th_rep) / 10.0);
            codes_left -= cqi::entry(row).codes as i32;
            hs_scch_left -= 1;
            power_left -= need_p;
            new_blocks.push((c.ue, c.free_proc, row, need_p));
        }
        // Leftover power is shared among the new blocks in proportion to what they need.
        let needed: f64 = new_blocks.iter().map(|b| b.3).sum();
        let scale = if needed > 0.0 { (needed + power_left.max(0.0)) / needed } else { 1.0 };
        for &(i, j, row, need_p) in &new_blocks {
            let ue = &mut self.ues[i];
            let max_pdus = cqi::entry(row).tbs_bits / ue.rlc.pdu_bits();
            let mut pdus: Vec<PduRef> = Vec::new();
            ue.rlc.take(now, max_pdus, &mut pdus, &mut out.dropped);
            if pdus.is_empty() {
                continue; // everything it had was discarded
            }
            ue.harq[j] = Some(TransportBlock {
                cqi: row,
                codes: cqi::entry(row).codes,
                power_share: need_p * scale,
                pdus,
                tx: 0,
                sinr_sum: 0.0,
                retx_at: 0,
            });
            ue.stats.new_blocks += 1;
            sent.push((i, j));
        }

        // 3. Transmit and decode at this instant's SINR.
        for &(i, j) in &sent {
            let ue = &mut self.ues[i];
            let sinr = ue.sinr_db(t_s, p.hsdsch_power_fraction);
            let tb = ue.harq[j].as_mut().unwrap();
            let first = tb.tx == 0;
            let bits = cqi::entry(tb.cqi).tbs_bits as u64;
            let outcome =
                tb.transmit(sinr + 10.0 * tb.power_share.log10(), p.harq_max_tx, p.ir_gain_db, p.bler_waterfall_db, &mut ue.harq_rng);
            served_bits[i] += bits;
            ue.stats.bits_sent += bits;
            if !first {
                ue.stats.retransmissions += 1;
            }
            ue.last_served_tti = k;
            match outcome {
                Outcome::Decoded => {
                    let tb = ue.harq[j].take().unwrap();
                    ue.rlc.on_decoded(&tb.pdus);
                    ue.stats.decoded += 1;
                    ue.stats.bits_decoded += bits;
                    if first {
                        ue.stats.decoded_first += 1;
                    }
                }
                Outcome::Retry => tb.retx_at = now + p.harq_rtt_tti * p.tti_ns,
                Outcome::GivenUp => {
                    let tb = ue.harq[j].take().unwrap();
                    ue.rlc.on_given_up(&tb.pdus, now, &mut out.dropped);
                    ue.stats.given_up += 1;
                }
            }
        }
        if !sent.is_empty() {
            self.busy_ttis += 1;
        }
        // In-order delivery at the end of the TTI (UE order, so deterministic).
        for ue in self.ues.iter_mut() {
            ue.rlc.deliver_in_order(&mut out.delivered);
        }
        // 4. PF averages: every UE, every TTI (idle TTIs since the last update decay them).
        let gap = k - self.r_ave_tti;
        for (i, ue) in self.ues.iter_mut().enumerate() {
            ue.r_ave_bps = scheduler::update_average(ue.r_ave_bps, p.pf_tc_tti, gap.max(1), served_bits[i] as f64 / tti_s);
        }
        self.r_ave_tti = k;
    }
}

#[cfg(test)]
mod state_size {
    /// `scenario::UE_STATE_BYTES` bounds a UE's state at rest with the most HARQ
    /// processes (16) and the most fading paths a channel model has (6).
    #[test]
    fn ue_state_fits_its_estimate() {
        let ue = std::mem::size_of::<super::Ue>();
        let harq = 16 * std::mem::size_of::<Option<super::TransportBlock>>();
        let paths = 6 * std::mem::size_of::<(f64, super::fading::RayleighPath)>();
        let total = (ue + harq + paths) as u64;
        assert!(total <= crate::scenario::UE_STATE_BYTES, "{total} bytes");
    }
}
