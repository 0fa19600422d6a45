//! Adaptive modulation and coding: the CQI → transport block table of a category-10 UE, the
//! SINR → CQI mapping, and the AWGN block-error curve of each table entry.
//!
//! HSDPA paper §III: "users with higher geometry ... are typically assigned higher order
//! modulation with higher code rates"; §IV-A: an Es/Nt → BLER curve per MCS, quasi-static.
//! The paper names no UE category; it quotes the 14.4 Mb/s peak of HSDPA (§III), which is
//! category 10 (15 codes, 16-QAM), so we use that category's CQI table.

/// One row of a CQI mapping table: what a transport block at this CQI carries and occupies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CqiEntry {
    /// Transport block size, bits per 2-ms TTI.
    pub tbs_bits: u32,
    /// HS-PDSCH channelization codes (SF 16) the block occupies.
    pub codes: u8,
    /// 16-QAM (else QPSK).
    pub qam16: bool,
}

const fn e(tbs_bits: u32, codes: u8, qam16: bool) -> CqiEntry {
    CqiEntry { tbs_bits, codes, qam16 }
}

/// 3GPP TS 25.214 "Physical layer procedures (FDD)", Release 5 (V5.5.0), §6A.2 "Channel quality
/// indicator (CQI) definition", Table 7D: "CQI mapping table D", the table §6A.2 assigns to UE
/// category 10 (Table 7A: categories 1–6, 7B: 7–8, 7C: 9, 7E: 11–12). Index 0 is CQI 1; CQI 0 is
/// "out of range" (nothing can be sent). Columns kept: transport block size, number of HS-PDSCH,
/// modulation. The reference power adjustment Δ is 0 dB in every row of Table 7D: a table has
/// Δ < 0 only where it has run out of codes or modulation and repeats its top block at less power
/// (Table 7A's CQI 23–30 repeat 7168 bits at Δ = −1 … −8 dB), and this table's blocks grow to the
/// last row; so CQI reporting (§6A.2: received HS-PDSCH power + measurement offset + Δ) needs no
/// correction here. The table's virtual-IR-buffer columns (N_IR, X_RV), which fix the UE's
/// assumptions while it measures, are not modelled.
///
/// Checked entry by entry (issue 23 item 5) against: the EURANE ns-2 extension's `umts/cqi.h`
/// (Ericsson, citing TS 25.214 V5.5.0: the TBS of CQI 1–22, shared by Tables 7A–7D, of CQI 23–25,
/// shared by 7B–7D, and of category 10's CQI 27–30); the HS-PDSCH count of all 30 category-10
/// rows in Xu Qing's HSDPA power model (`PtHS.m`, 2012, after TS 25.214 V7.17.0 §6A.2.3), whose
/// per-CQI IP bit rates (from Agilent's 8960 notes) fit these block sizes; Agilent's N9360A
/// manual, Table D-16 (QPSK through CQI 15, 16-QAM from CQI 16; 1, 2, 3, 4, 5 codes at CQI 1–6,
/// 7–9, 10–12, 13–14, 15–22; Table 7A's Δ from CQI 23); and the HS-DSCH block-size formula of
/// TS 25.321 (every entry is one of its sizes; see the tests). All 30 rows agree; none changed.
pub(crate) const CQI_TABLE_CAT10: [CqiEntry; 30] = [
    e(137, 1, false),
    e(173, 1, false),
    e(233, 1, false),
    e(317, 1, false),
    e(377, 1, false),
    e(461, 1, false),
    e(650, 2, false),
    e(792, 2, false),
    e(931, 2, false),
    e(1262, 3, false),
    e(1483, 3, false),
    e(1742, 3, false),
    e(2279, 4, false),
    e(2583, 4, false),
    e(3319, 5, false),
    e(3565, 5, true),
    e(4189, 5, true),
    e(4664, 5, true),
    e(5287, 5, true),
    e(5887, 5, true),
    e(6554, 5, true),
    e(7168, 5, true),
    e(9719, 7, true),
    e(11418, 8, true),
    e(14411, 10, true),
    e(17237, 12, true),
    e(21754, 15, true),
    e(23370, 15, true),
    e(24222, 15, true),
    e(25558, 15, true),
];

/// Highest CQI value.
pub(crate) const CQI_MAX: u8 = 30;

/// The table row of CQI `cqi` (1..=30).
#[inline]
pub fn entry(cqi: u8) -> CqiEntry {
    CQI_TABLE_CAT10[cqi as usize - 1]
}

/// HS-DSCH SINR (dB) at which CQI `cqi` is first reported: the linear fit of Brouwer et al.
/// ("Usage of link-level performance indicators for HSDPA network-level simulations in
/// E-UMTS", ISSSTA 2004), CQI = ⌊SINR/1.02 + 16.62⌋, whose SINR is the all-code HS-DSCH SINR
/// (SF 16 × HS-DSCH power / interference). By TS 25.214 §6A.2 a UE reports the highest CQI whose
/// block it would receive with error probability ≤ 0.1, so at this SINR the entry's BLER is 0.1.
#[inline]
pub(crate) fn threshold_db(cqi: u8) -> f64 {
    1.02 * (cqi as f64 - 16.62)
}

/// The CQI a UE with HS-DSCH SINR `sinr_db` reports: 0 (out of range) to 30.
pub fn cqi_of_sinr(sinr_db: f64) -> u8 {
    let q = (sinr_db / 1.02 + 16.62).floor();
    if q.is_nan() || q < 1.0 {
        0
    } else if q >= CQI_MAX as f64 {
        CQI_MAX
    } else {
        q as u8
    }
}

/// Block error probability of a CQI-`cqi` block decoded at effective SINR `sinr_db`: a logistic
/// waterfall in dB through BLER 0.1 at `threshold_db``(cqi)`, falling from 0.9 to 0.1 over
/// `waterfall_db` (the paper's AWGN curves are not published; the shape is our choice, its one
/// parameter a scenario field).
#[inline]
pub fn bler(cqi: u8, sinr_db: f64, waterfall_db: f64) -> f64 {
    // 1/(1+exp(k(Δ + c))) with BLER(0) = 0.1 ⇒ kc = ln 9, and BLER(−w) = 0.9 ⇒ k(c − w) = −ln 9,
    // so k = 2 ln 9 / w and c = w/2.
    let delta = sinr_db - threshold_db(cqi);
    let k = 2.0 * 9f64.ln() / waterfall_db;
    1.0 / (1.0 + (k * (delta + waterfall_db / 2.0)).exp())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_monotone_and_peaks_at_12_78_mbps() {
        for w in CQI_TABLE_CAT10.windows(2) {
            assert!(w[1].tbs_bits > w[0].tbs_bits && w[1].codes >= w[0].codes);
        }
        // 25558 bits every 2 ms: the table's peak (the 14.4 Mb/s of §III is the marketing
        // figure of 15 codes; no CQI row reaches it).
        assert_eq!(entry(30).tbs_bits as f64 / 2e-3, 12_779_000.0);
        assert_eq!((entry(1).codes, entry(16).qam16, entry(15).qam16), (1, true, false));
    }

    /// Rows of TS 25.214 Table 7D (category 10) as read in the sources named above the table:
    /// block sizes from EURANE's `umts/cqi.h` (TS 25.214 V5.5.0), HS-PDSCH counts from `PtHS.m`
    /// (TS 25.214 V7.17.0 §6A.2.3), the QPSK/16-QAM boundary (CQI 15/16) from Agilent's N9360A
    /// manual, Table D-16. Rows: first; last QPSK; first 16-QAM; last of the 5-code rows shared
    /// with Table 7A; the three rows shared with 7B (7, 8, 10 codes); 12 codes; the 15-code rows.
    #[test]
    fn rows_match_ts_25_214_table_7d() {
        let rows: [(u8, u32, u8, bool); 11] = [
            (1, 137, 1, false),
            (15, 3319, 5, false),
            (16, 3565, 5, true),
            (22, 7168, 5, true),
            (23, 9719, 7, true),
            (24, 11418, 8, true),
            (25, 14411, 10, true),
            (26, 17237, 12, true),
            (27, 21754, 15, true),
            (29, 24222, 15, true),
            (30, 25558, 15, true),
        ];
        for (q, tbs, codes, qam16) in rows {
            assert_eq!(entry(q), CqiEntry { tbs_bits: tbs, codes, qam16 }, "CQI {q}");
        }
        // QPSK exactly up to CQI 15, 16-QAM from 16 on.
        for q in 1..=CQI_MAX {
            assert_eq!(entry(q).qam16, q >= 16, "CQI {q}");
        }
    }

    /// Every block size is one the HS-DSCH can carry: TS 25.321's FDD size table, L(k) = 125 + 12k
    /// for small k and ⌊296·(2085/2048)^k⌋ above, k ≤ 254 (it gives the category maxima of TS
    /// 25.306 Table 5.1a: 3630, 7298, 14411, 20251 and, at k = 254, category 10's 27952). A typo
    /// in a row (EURANE's category-9 comment has 17300 for 17237) falls between two sizes. Each
    /// block also fits its codes: coded rate (TBS + 24-bit CRC) / channel bits below 0.9.
    #[test]
    fn every_block_size_is_an_hs_dsch_size_and_fits_its_codes() {
        let size = |k: i32| -> u32 {
            if k < 39 {
                (125 + 12 * k) as u32
            } else {
                (296.0 * (2085.0f64 / 2048.0).powi(k)).floor() as u32
            }
        };
        let sizes: Vec<u32> = (1..=254).map(size).collect();
        for max in [3630, 7298, 14411, 20251] {
            assert!(sizes.contains(&max), "{max}");
        }
        assert_eq!(size(254), 27952);
        assert!(!sizes.contains(&17300));
        for q in 1..=CQI_MAX {
            let e = entry(q);
            assert!(sizes.contains(&e.tbs_bits), "CQI {q}: {} bits is no HS-DSCH size", e.tbs_bits);
            // 2 ms of SF 16 = 480 symbols a code.
            let channel_bits = e.codes as u32 * 480 * if e.qam16 { 4 } else { 2 };
            let rate = (e.tbs_bits + 24) as f64 / channel_bits as f64;
            assert!(rate < 0.9, "CQI {q}: rate {rate}");
        }
    }

    #[test]
    fn cqi_mapping_inverts_the_thresholds() {
        for q in 1..=30u8 {
            assert_eq!(cqi_of_sinr(threshold_db(q) + 1e-9), q);
            if q > 1 {
                assert_eq!(cqi_of_sinr(threshold_db(q) - 1e-6), q - 1);
            }
        }
        assert_eq!(cqi_of_sinr(-40.0), 0);
        assert_eq!(cqi_of_sinr(40.0), 30);
    }

    #[test]
    fn bler_curve_passes_its_defining_points() {
        for q in [1u8, 15, 30] {
            let t = threshold_db(q);
            assert!((bler(q, t, 2.0) - 0.1).abs() < 1e-12);
            assert!((bler(q, t - 2.0, 2.0) - 0.9).abs() < 1e-12);
            assert!(bler(q, t + 1.0, 2.0) < 0.02);
        }
    }
}
