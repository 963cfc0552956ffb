//! The second-level test over a family of first-level p-values.

use super::distributions::{binomial_two_sided, ks_uniform};
use super::ALPHA;

/// A second-level test over a family of first-level p-values.
#[derive(Clone, Debug, PartialEq)]
pub struct Family {
    /// First-level tests in the family.
    pub tests: usize,
    /// Of those, how many have p < [`ALPHA`].
    pub failures: usize,
    pub expected_failures: f64,
    /// Two-sided exact binomial p-value of `failures` under Binomial(tests, ALPHA).
    pub p_binomial: f64,
    /// Kolmogorov–Smirnov distance of the p-values from uniform, and its p-value.
    pub ks: f64,
    pub p_ks: f64,
    /// The smallest first-level p-value, and the chance of one so small among
    /// `tests` independent ones (Šidák).
    pub min_p: f64,
    pub p_min: f64,
}

impl Family {
    pub fn new(mut p: Vec<f64>) -> Family {
        let m = p.len();
        let failures = p.iter().filter(|&&x| x < ALPHA).count();
        let (ks, p_ks) = ks_uniform(&mut p);
        let min_p = p.first().copied().unwrap_or(1.0);
        Family {
            tests: m,
            failures,
            expected_failures: m as f64 * ALPHA,
            p_binomial: binomial_two_sided(failures, m, ALPHA),
            ks,
            p_ks,
            min_p,
            p_min: -((m as f64) * (-min_p).ln_1p()).exp_m1(),
        }
    }

    /// Bonferroni over the three second-level tests.
    pub fn p_value(&self) -> f64 {
        (3.0 * self.p_binomial.min(self.p_ks).min(self.p_min)).min(1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::super::distributions::kolmogorov_q;
    use super::*;

    /// The second level: uniform p-values pass, four failures of 416 are
    /// expected, none or twenty are not, and one p of 1e-9 is caught.
    #[test]
    fn second_level_tests_judge_the_family() {
        let uniform: Vec<f64> = (0..416).map(|i| (i as f64 + 0.5) / 416.0).collect();
        let f = Family::new(uniform.clone());
        assert_eq!(f.failures, 4);
        assert!(f.p_value() > 0.5, "{f:?}");
        assert!(binomial_two_sided(20, 416, ALPHA) < 1e-5);
        assert!(binomial_two_sided(4, 416, ALPHA) > 0.9);
        let mut one_bad = uniform.clone();
        one_bad[200] = 1e-9;
        assert!(Family::new(one_bad).p_value() < ALPHA);
        let skewed: Vec<f64> = uniform.iter().map(|p| p * p).collect();
        let f = Family::new(skewed);
        assert!(f.p_ks < 1e-6, "{f:?}");
        assert!((kolmogorov_q(1.358) - 0.05).abs() < 1e-3);
    }
}
