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

/// 3GPP TS 25.214 (Release 5) §6A.2, Table 7D: CQI mapping table D, UE category 10. Index 0 is
/// CQI 1; CQI 0 is "out of range" (nothing can be sent). The reference power adjustment Δ is 0 dB
/// for every row of this table.
pub const CQI_TABLE_CAT10: [CqiEntry; 30] = [
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
pub const CQI_MAX: u8 = 30;

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
pub fn threshold_db(cqi: u8) -> f64 {
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
/// waterfall in dB through BLER 0.1 at [`threshold_db`]`(cqi)`, falling from 0.9 to 0.1 over
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
