//! Per-UE fast fading: the multipath channel models of the HSDPA paper's Table 1, each path a
//! Rayleigh process with Clarke/Jakes Doppler spectrum, and the rake combiner's C/I of eq. (3).
//!
//! HSDPA paper §IV-A: "Each multi-path component modeled in the simulator has its own fast fading
//! process based on the Jakes model." Each path is a sum of `SINUSOIDS` complex exponentials with
//! random arrival angles and phases (the Monte-Carlo form of Clarke's model): its ensemble
//! autocorrelation is exactly J0(2π f_D τ), and it is a closed-form function of time, so the
//! simulator evaluates it only at the TTIs where the UE is a scheduling candidate, and the same
//! instant always gives the same gain whatever else happens in the cell.

use std::f64::consts::PI;

use crate::engine::RngStream;

/// Sinusoids per path: enough for a near-Gaussian envelope (the classic choice is 8–32).
pub(crate) const SINUSOIDS: usize = 16;

/// A multipath model: relative path powers (dB) and how many of them the rake recovers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct PathProfile {
    pub name: &'static str,
    pub powers_db: &'static [f64],
    /// Fingers (recovered paths: the strongest `fingers` of `powers_db`, listed first).
    pub fingers: usize,
}

/// ITU Pedestrian A (ITU-R M.1225): 0, −9.7, −19.2, −22.8 dB.
pub(crate) const PED_A: &[f64] = &[0.0, -9.7, -19.2, -22.8];
/// ITU Pedestrian B: six paths, strongest first.
pub(crate) const PED_B: &[f64] = &[0.0, -0.9, -4.9, -7.8, -8.0, -23.9];
/// ITU Vehicular A: six paths, strongest first.
pub(crate) const VEH_A: &[f64] = &[0.0, -1.0, -9.0, -10.0, -15.0, -20.0];
/// A single path.
pub(crate) const FLAT: &[f64] = &[0.0];

/// One of the paper's Table 1 models: profile, fingers, and the Doppler it moves at.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct ChannelModel {
    pub profile: PathProfile,
    /// UE speed, km/h (`None`: a fixed Doppler, model E).
    pub speed_kmh: Option<f64>,
    /// Fixed maximum Doppler, Hz (model E: 1.5 Hz).
    pub doppler_hz: Option<f64>,
    /// Table 1's assignment probability.
    pub probability: f64,
}

/// HSDPA paper Table 1 (channel models and assignment probabilities), in order A–E.
pub(crate) const TABLE1: [ChannelModel; 5] = [
    ChannelModel {
        profile: PathProfile { name: "A", powers_db: PED_A, fingers: 1 },
        speed_kmh: Some(3.0),
        doppler_hz: None,
        probability: 0.30,
    },
    ChannelModel {
        profile: PathProfile { name: "B", powers_db: PED_B, fingers: 5 },
        speed_kmh: Some(10.0),
        doppler_hz: None,
        probability: 0.30,
    },
    ChannelModel {
        profile: PathProfile { name: "C", powers_db: VEH_A, fingers: 4 },
        speed_kmh: Some(30.0),
        doppler_hz: None,
        probability: 0.20,
    },
    ChannelModel {
        profile: PathProfile { name: "D", powers_db: PED_A, fingers: 1 },
        speed_kmh: Some(120.0),
        doppler_hz: None,
        probability: 0.10,
    },
    ChannelModel {
        profile: PathProfile { name: "E", powers_db: FLAT, fingers: 1 },
        speed_kmh: None,
        doppler_hz: Some(1.5),
        probability: 0.10,
    },
];

/// No fading at all (|γ|² = 1 always): for tests and for isolating the scheduler from the channel.
pub(crate) const STATIC: ChannelModel = ChannelModel {
    profile: PathProfile { name: "static", powers_db: FLAT, fingers: 1 },
    speed_kmh: None,
    doppler_hz: Some(0.0),
    probability: 0.0,
};

/// The model named `name`: a Table 1 letter ("A".."E") or "static".
pub(crate) fn model_by_name(name: &str) -> Option<ChannelModel> {
    if name == "static" {
        return Some(STATIC);
    }
    TABLE1.iter().copied().find(|m| m.profile.name == name)
}

/// Draws a Table 1 model with the table's assignment probabilities.
pub(crate) fn draw_model(rng: &mut RngStream) -> ChannelModel {
    let u = rng.uniform();
    let mut acc = 0.0;
    for m in TABLE1 {
        acc += m.probability;
        if u < acc {
            return m;
        }
    }
    TABLE1[TABLE1.len() - 1]
}

/// One Rayleigh path: Σ exp(j(2π f_D t cos θ_n + φ_n)) / √N, of mean power 1.
#[derive(Debug, Clone)]
pub(crate) struct RayleighPath {
    /// 2π f_D cos θ_n, rad/s.
    omega: [f64; SINUSOIDS],
    phase: [f64; SINUSOIDS],
}

impl RayleighPath {
    pub(crate) fn new(doppler_hz: f64, rng: &mut RngStream) -> Self {
        let mut omega = [0.0; SINUSOIDS];
        let mut phase = [0.0; SINUSOIDS];
        for n in 0..SINUSOIDS {
            omega[n] = 2.0 * PI * doppler_hz * (2.0 * PI * rng.uniform()).cos();
            phase[n] = 2.0 * PI * rng.uniform();
        }
        RayleighPath { omega, phase }
    }

    /// The complex gain at `t_s` seconds, (re, im).
    pub(crate) fn gain(&self, t_s: f64) -> (f64, f64) {
        let (mut re, mut im) = (0.0, 0.0);
        for n in 0..SINUSOIDS {
            let (s, c) = (self.omega[n] * t_s + self.phase[n]).sin_cos();
            re += c;
            im += s;
        }
        let k = 1.0 / (SINUSOIDS as f64).sqrt();
        (re * k, im * k)
    }

    /// |gain|² at `t_s`.
    pub(crate) fn power(&self, t_s: f64) -> f64 {
        let (re, im) = self.gain(t_s);
        re * re + im * im
    }
}

/// One UE's multipath channel: a Rayleigh process per path, scaled by the path powers
/// (normalized to a total of 1).
#[derive(Debug, Clone)]
pub(crate) struct MultipathChannel {
    pub model: ChannelModel,
    paths: Vec<(f64, RayleighPath)>,
}

/// Speed of light, m/s.
const C_M_PER_S: f64 = 299_792_458.0;

impl MultipathChannel {
    pub(crate) fn new(model: ChannelModel, carrier_hz: f64, rng: &mut RngStream) -> Self {
        let fd = match (model.doppler_hz, model.speed_kmh) {
            (Some(f), _) => f,
            (None, Some(v)) => v / 3.6 * carrier_hz / C_M_PER_S,
            (None, None) => 0.0,
        };
        let lin: Vec<f64> = model.profile.powers_db.iter().map(|d| 10f64.powf(d / 10.0)).collect();
        let total: f64 = lin.iter().sum();
        let paths = lin.iter().map(|p| (p / total, RayleighPath::new(fd, rng))).collect();
        MultipathChannel { model, paths }
    }

    /// The per-chip C/I at the rake output at `t_s` for geometry `g` (linear): [`rake_c_over_i`]
    /// of the path powers at that instant.
    pub(crate) fn combined_c_over_i(&self, t_s: f64, g: f64) -> f64 {
        if self.model.profile.name == "static" {
            return g;
        }
        let mut x = [0.0f64; 8];
        let n = self.paths.len().min(8);
        for (i, (p, path)) in self.paths.iter().take(n).enumerate() {
            x[i] = p * path.power(t_s);
        }
        rake_c_over_i(&x[..n], self.model.profile.fingers, g)
    }
}

/// HSDPA paper eq. (3): the C/I at the output of the pilot-weighted rake combiner,
/// (Σ|γ_i|²)² / Σ_j |γ_j|² (1/G + |λ|² + Σ_{k≠j} |γ_k|²), where γ are the first `fingers` paths
/// of `powers` (the recovered ones), |λ|² the sum of the rest (unrecovered power) and G the
/// geometry: each finger sees the other paths as interference (own-cell orthogonality is lost
/// across paths, kept within one).
pub(crate) fn rake_c_over_i(powers: &[f64], fingers: usize, g: f64) -> f64 {
    let f = fingers.min(powers.len());
    let sum: f64 = powers[..f].iter().sum();
    let lambda: f64 = powers[f..].iter().sum();
    let den: f64 = powers[..f].iter().map(|&x| x * (1.0 / g + lambda + (sum - x))).sum();
    if den <= 0.0 {
        0.0
    } else {
        sum * sum / den
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bessel J0 by its power series (|x| < 10 here): the Clarke autocorrelation.
    fn j0(x: f64) -> f64 {
        let (mut term, mut sum) = (1.0, 1.0);
        for k in 1..60 {
            term *= -(x * x / 4.0) / (k as f64 * k as f64);
            sum += term;
        }
        sum
    }

    #[test]
    fn table1_probabilities_sum_to_one() {
        let s: f64 = TABLE1.iter().map(|m| m.probability).sum();
        assert!((s - 1.0).abs() < 1e-12);
    }

    /// Over an ensemble of paths, E[g(t) g*(t+τ)] = J0(2π f_D τ) and E|g|² = 1; the power is
    /// exponential (Rayleigh envelope): P(|g|² < 1) = 1 − 1/e.
    #[test]
    fn rayleigh_path_matches_clarke_statistics() {
        let fd = 50.0;
        let n = 4000;
        let mut rng = RngStream::new(3, "test:rayleigh");
        for tau in [0.0, 0.002, 0.005, 0.01] {
            let (mut acc, mut pw, mut below1) = (0.0, 0.0, 0usize);
            for i in 0..n {
                let p = RayleighPath::new(fd, &mut rng);
                let t0 = i as f64 * 0.37;
                let (a, b) = p.gain(t0);
                let (c, d) = p.gain(t0 + tau);
                acc += a * c + b * d; // Re{g(t) g*(t+τ)}
                pw += a * a + b * b;
                below1 += ((a * a + b * b) < 1.0) as usize;
            }
            let want = j0(2.0 * PI * fd * tau);
            let got = acc / n as f64;
            // The estimator's standard error is about 1/√n ≈ 0.016.
            assert!((got - want).abs() < 0.06, "tau {tau}: {got} vs J0 {want}");
            assert!((pw / n as f64 - 1.0).abs() < 0.06);
            let frac = below1 as f64 / n as f64;
            assert!((frac - (1.0 - (-1.0f64).exp())).abs() < 0.04, "P(|g|²<1) = {frac}");
        }
    }

    /// One path, one finger: eq. (3) reduces to |γ|² G (no self-interference), so its long-run
    /// mean is G.
    #[test]
    fn single_path_c_over_i_is_power_times_geometry() {
        let mut rng = RngStream::new(9, "test:flat");
        let ch = MultipathChannel::new(TABLE1[4], 2e9, &mut rng);
        let g = 4.0;
        for t in [0.0, 0.3, 1.7] {
            let p = ch.paths[0].1.power(t);
            assert!((ch.combined_c_over_i(t, g) - p * g).abs() < 1e-9 * g);
        }
    }

    /// Eq. (3) worked by hand. Two equal recovered paths with no noise or other-cell power
    /// (G → ∞): each finger's interference is the other path, C/I = (2x)²/(2x²) = 2. One
    /// finger of PedA (0 and −9.7 dB paths, powers 1 and 0.1072) at G = 1 (0 dB):
    /// 1 / (1 + 0.1072) = 0.9032.
    #[test]
    fn eq3_by_hand() {
        assert!((rake_c_over_i(&[0.3, 0.3], 2, f64::INFINITY) - 2.0).abs() < 1e-12);
        assert!((rake_c_over_i(&[1.0, 0.10715], 1, 1.0) - 1.0 / 1.10715).abs() < 1e-12);
        // A single path at geometry 8: C/I = 8 |γ|².
        assert!((rake_c_over_i(&[0.5], 1, 8.0) - 4.0).abs() < 1e-12);
    }
}
