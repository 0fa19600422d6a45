//! Metrics defined once: Jain's fairness index, delay percentiles and jitter ([`delay`]), the
//! scoring of loss verdicts against the true drop causes (`loss_verdicts`), a host's energy per megabyte
//! (`energy`) (and, in `output`,
//! goodput and the time series).

pub mod delay;
pub(crate) mod energy;
pub(crate) mod loss_verdicts;

/// Jain's fairness index F = (Σx)² / (n·Σx²); 1 for equal shares, 1/n when one takes all.
/// `None` for an empty set; 1 when every value is zero (nobody is favoured).
pub(crate) fn jain_fairness(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    let sum: f64 = xs.iter().sum();
    let sq: f64 = xs.iter().map(|x| x * x).sum();
    if sq == 0.0 {
        return Some(1.0);
    }
    Some(sum * sum / (xs.len() as f64 * sq))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_by_hand() {
        assert_eq!(jain_fairness(&[1.0, 1.0, 1.0, 1.0]), Some(1.0));
        assert_eq!(jain_fairness(&[1.0, 0.0, 0.0, 0.0]), Some(0.25));
        // (1+2+3)^2 / (3·(1+4+9)) = 36/42
        assert!((jain_fairness(&[1.0, 2.0, 3.0]).unwrap() - 36.0 / 42.0).abs() < 1e-12);
        assert_eq!(jain_fairness(&[]), None);
    }
}
