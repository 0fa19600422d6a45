//! Where a UE is dropped and the geometry (eq. 4) it gets there: the HSDPA paper's 19-site,
//! 3-sector hexagonal layout with the Table 2 propagation parameters.
//!
//! HSDPA paper §IV-A, Table 2: 19 Node-Bs, 3 sectors each ("clover leaf"), site-to-site distance
//! 2800 m, path loss L = 128.1 + 37.6 log10 R (R in km), log-normal shadowing (σ = 8 dB,
//! correlation 1.0 between sectors of a site, 0.5 between sites), BS antenna gain 14 dB, BS total
//! Tx power 42.3 dBm, UE noise figure 9 dB, antenna pattern of 3GPP TR 25.848 (ref. \[10\]).
//! §V: UEs are "uniformly dropped into the 19-hexagon coverage area" of a wrap-around layout; by
//! that symmetry every site's area is statistically the same, so we drop uniformly in the central
//! site's hexagon and take the other 18 sites as the interferers (no wrap-around, so a UE served
//! by an outer site sees slightly too little interference). Every sector transmits full power
//! (a fully loaded network); the interferers' fast fading is averaged (|ρ_n|² = 1 in eq. 4).

use std::f64::consts::PI;

use crate::engine::RngStream;

/// Layout and propagation parameters (Table 2 by default).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct DropParams {
    pub site_distance_m: f64,
    pub shadowing_std_db: f64,
    /// Correlation of the shadowing of two sites (sectors of one site: 1.0).
    pub site_correlation: f64,
    pub bs_power_dbm: f64,
    pub bs_antenna_gain_db: f64,
    pub noise_figure_db: f64,
}

impl Default for DropParams {
    fn default() -> Self {
        // Table 2 lists both "BS Total Power 20w" and "BS total Tx power 42.3 dBm"; we take the
        // latter (the transmitted power). The text says σ = 8.9 dB, Table 2 says 8.0 dB; we take
        // the table.
        DropParams {
            site_distance_m: 2800.0,
            shadowing_std_db: 8.0,
            site_correlation: 0.5,
            bs_power_dbm: 42.3,
            bs_antenna_gain_db: 14.0,
            noise_figure_db: 9.0,
        }
    }
}

/// Table 2: L = 128.1 + 37.6 log10(R/km), with distances below 35 m taken as 35 m.
pub(crate) fn path_loss_db(d_m: f64) -> f64 {
    128.1 + 37.6 * (d_m.max(35.0) / 1000.0).log10()
}

/// TR 25.848 3-sector antenna pattern: −min(12 (θ/70°)², 20) dB, θ off boresight in degrees.
pub(crate) fn antenna_gain_db(theta_deg: f64) -> f64 {
    -(12.0 * (theta_deg / 70.0).powi(2)).min(20.0)
}

/// Thermal noise in 3.84 MHz plus the UE noise figure, dBm.
pub(crate) fn noise_dbm(noise_figure_db: f64) -> f64 {
    -174.0 + 10.0 * 3.84e6f64.log10() + noise_figure_db
}

/// The 19 site positions (m): the centre, the first ring of 6, the second ring of 12.
pub(crate) fn sites(d: f64) -> Vec<(f64, f64)> {
    let mut v = vec![(0.0, 0.0)];
    for k in 0..6 {
        let a = PI / 6.0 + k as f64 * PI / 3.0;
        v.push((d * a.cos(), d * a.sin()));
    }
    for k in 0..6 {
        let a = PI / 6.0 + k as f64 * PI / 3.0;
        v.push((2.0 * d * a.cos(), 2.0 * d * a.sin()));
        let b = k as f64 * PI / 3.0;
        v.push((3f64.sqrt() * d * b.cos(), 3f64.sqrt() * d * b.sin()));
    }
    v
}

/// Whether (x, y) lies in the hexagon of inradius `a` around the origin whose flat sides face the
/// six first-ring sites (at angles 30° + k·60°).
pub(crate) fn in_site_hexagon(x: f64, y: f64, a: f64) -> bool {
    (0..6).all(|k| {
        let ang = PI / 6.0 + k as f64 * PI / 3.0;
        x * ang.cos() + y * ang.sin() <= a
    })
}

/// A uniform point in the central site's hexagon (rejection from the bounding square).
pub(crate) fn drop_point(d: f64, rng: &mut RngStream) -> (f64, f64) {
    let a = d / 2.0; // inradius of a site's hexagon
    let r = a * 2.0 / 3f64.sqrt(); // circumradius
    loop {
        let (x, y) = ((2.0 * rng.uniform() - 1.0) * r, (2.0 * rng.uniform() - 1.0) * r);
        if in_site_hexagon(x, y, a) {
            return (x, y);
        }
    }
}

/// A standard normal draw (Box–Muller).
pub(crate) fn normal(rng: &mut RngStream) -> f64 {
    let u1 = 1.0 - rng.uniform();
    let u2 = rng.uniform();
    (-2.0 * u1.ln()).sqrt() * (2.0 * PI * u2).cos()
}

/// Geometry (eq. 4, dB) of a UE at `pos` given each site's shadowing (dB): the best sector's
/// received power over noise plus every other sector's.
pub(crate) fn geometry_db_at(p: &DropParams, pos: (f64, f64), shadow_db: &[f64]) -> f64 {
    let mut rx_mw = Vec::with_capacity(57);
    for (s, &(sx, sy)) in sites(p.site_distance_m).iter().enumerate() {
        let (dx, dy) = (pos.0 - sx, pos.1 - sy);
        let d = dx.hypot(dy);
        let bearing = dy.atan2(dx).to_degrees();
        for k in 0..3 {
            let boresight = k as f64 * 120.0;
            let mut off = (bearing - boresight).rem_euclid(360.0);
            if off > 180.0 {
                off = 360.0 - off;
            }
            let dbm = p.bs_power_dbm + p.bs_antenna_gain_db + antenna_gain_db(off) - path_loss_db(d) + shadow_db[s];
            rx_mw.push(10f64.powf(dbm / 10.0));
        }
    }
    let best = rx_mw.iter().cloned().fold(0.0, f64::max);
    let total: f64 = rx_mw.iter().sum();
    let noise = 10f64.powf(noise_dbm(p.noise_figure_db) / 10.0);
    10.0 * (best / (noise + total - best)).log10()
}

/// Drops a UE and returns its geometry, dB.
pub(crate) fn draw_geometry_db(p: &DropParams, rng: &mut RngStream) -> f64 {
    let pos = drop_point(p.site_distance_m, rng);
    let common = normal(rng);
    let (a, b) = (p.site_correlation.sqrt(), (1.0 - p.site_correlation).sqrt());
    let shadow: Vec<f64> = (0..19).map(|_| p.shadowing_std_db * (a * common + b * normal(rng))).collect();
    geometry_db_at(p, pos, &shadow)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table2_formulas_at_hand_points() {
        assert!((path_loss_db(1000.0) - 128.1).abs() < 1e-12);
        assert!((path_loss_db(10_000.0) - 165.7).abs() < 1e-9);
        assert_eq!(antenna_gain_db(0.0), 0.0);
        assert!((antenna_gain_db(35.0) + 3.0).abs() < 1e-12); // the 3-dB beamwidth is 70°
        assert_eq!(antenna_gain_db(180.0), -20.0);
        assert!((noise_dbm(9.0) - (-99.157)).abs() < 1e-3);
    }

    #[test]
    fn layout_is_a_hex_grid() {
        let s = sites(2800.0);
        assert_eq!(s.len(), 19);
        // Every site but the centre has ≥ 2 neighbours at exactly one site distance.
        for (i, a) in s.iter().enumerate() {
            let near = s.iter().filter(|b| ((a.0 - b.0).hypot(a.1 - b.1) - 2800.0).abs() < 1e-6).count();
            assert!(near >= if i == 0 { 6 } else { 2 }, "site {i}: {near}");
        }
    }

    /// Uniform in a hexagon of inradius a (area 2√3 a²): P(r < a/2) = π (a/2)² / (2√3 a²)
    /// = π / (8√3) = 0.2267.
    #[test]
    fn drops_are_uniform_in_the_hexagon() {
        let mut rng = RngStream::new(5, "test:drop");
        let n = 20_000;
        let a = 1400.0;
        let inner = (0..n).filter(|_| {
            let (x, y) = drop_point(2800.0, &mut rng);
            assert!(in_site_hexagon(x, y, a + 1e-9));
            x.hypot(y) < a / 2.0
        });
        let frac = inner.count() as f64 / n as f64;
        assert!((frac - PI / (8.0 * 3f64.sqrt())).abs() < 0.01, "{frac}");
    }

    /// Without shadowing, a UE on sector 0's boresight 200 m from the centre site is served by
    /// it with a geometry far above one at the cell edge midway to the next site on that
    /// bearing (where two sites' boresight-facing sectors are equally strong: G < 0 dB).
    #[test]
    fn geometry_falls_towards_the_cell_edge() {
        let p = DropParams { shadowing_std_db: 0.0, ..DropParams::default() };
        let zero = [0.0; 19];
        let near = geometry_db_at(&p, (200.0, 0.0), &zero);
        // Sites 0 and the first-ring site at 30° are 2800 m apart; their midpoint is on the edge.
        let a = PI / 6.0;
        let edge = geometry_db_at(&p, (1400.0 * a.cos(), 1400.0 * a.sin()), &zero);
        assert!(near > 10.0 && edge < 0.0, "near {near} dB, edge {edge} dB");
    }
}
