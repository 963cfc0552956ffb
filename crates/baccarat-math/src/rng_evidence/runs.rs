//! Runs: counting runs up and down, and the exact distributions of the
//! Wald–Wolfowitz run count and of runs up and down.

use super::distributions::ln_choose;

/// Runs up and down in `w`: maximal monotone stretches (a tie counts as up).
pub(super) fn runs_up_down(w: &[u32]) -> usize {
    let mut runs = 0;
    let mut last: Option<bool> = None;
    for pair in w.windows(2) {
        let up = pair[1] >= pair[0];
        if last != Some(up) {
            runs += 1;
            last = Some(up);
        }
    }
    runs
}

/// The exact distribution of the number of runs R in a random arrangement of
/// `n1` and `n2` items of two kinds (Wald–Wolfowitz): `probs[r]` = P(R = r),
/// r in 0..=n1+n2.
pub fn wald_wolfowitz(n1: usize, n2: usize) -> Vec<f64> {
    let n = n1 + n2;
    let mut p = vec![0.0; n + 1];
    if n1 == 0 || n2 == 0 {
        p[1.min(n)] = 1.0;
        return p;
    }
    let total = ln_choose(n, n1);
    let c = |a: usize, b: isize| if b < 0 || b as usize > a { f64::NEG_INFINITY } else { ln_choose(a, b as usize) };
    for (r, slot) in p.iter_mut().enumerate().skip(2) {
        let k = (r / 2) as isize;
        *slot = if r % 2 == 0 {
            2.0 * (c(n1 - 1, k - 1) + c(n2 - 1, k - 1) - total).exp()
        } else {
            (c(n1 - 1, k) + c(n2 - 1, k - 1) - total).exp() + (c(n1 - 1, k - 1) + c(n2 - 1, k) - total).exp()
        };
    }
    p
}

/// Mean and variance of the Wald–Wolfowitz run count.
pub fn wald_wolfowitz_moments(n1: usize, n2: usize) -> (f64, f64) {
    let (a, b) = (n1 as f64, n2 as f64);
    let n = a + b;
    (1.0 + 2.0 * a * b / n, 2.0 * a * b * (2.0 * a * b - n) / (n * n * (n - 1.0)))
}

/// The exact distribution of the number of runs up and down in `len`
/// distinct values in random order: `probs[k]` = P(k runs), k in 0..len.
/// André's recurrence on permutations of n with k alternating runs,
/// R(n, k) = k R(n−1, k) + 2 R(n−1, k−1) + (n − k) R(n−1, k−2), divided by n!
/// as it goes.
pub fn runs_up_down_distribution(len: usize) -> Vec<f64> {
    assert!(len >= 2);
    let mut p = vec![0.0; len];
    p[1] = 1.0; // two values: one run
    for n in 3..=len {
        let mut next = vec![0.0; len];
        for k in 1..n {
            let mut v = k as f64 * p[k] + 2.0 * p[k - 1];
            if k >= 2 {
                v += (n - k) as f64 * p[k - 2];
            }
            next[k] = v / n as f64;
        }
        p = next;
    }
    p
}

#[cfg(test)]
mod tests {
    use super::super::KEYSTREAM_WORDS;
    use super::*;

    /// Runs distributions against brute force over every arrangement.
    #[test]
    fn exact_run_distributions_match_enumeration() {
        // Wald–Wolfowitz with 4 and 3: all C(7, 3) arrangements.
        let (n1, n2) = (4usize, 3usize);
        let mut count = vec![0u32; n1 + n2 + 1];
        for mask in 0u32..1 << (n1 + n2) {
            if mask.count_ones() as usize != n2 {
                continue;
            }
            let bits: Vec<bool> = (0..n1 + n2).map(|i| mask >> i & 1 == 1).collect();
            let runs = 1 + bits.windows(2).filter(|w| w[0] != w[1]).count();
            count[runs] += 1;
        }
        let ww = wald_wolfowitz(n1, n2);
        for (r, &c) in count.iter().enumerate() {
            assert!((ww[r] - c as f64 / 35.0).abs() < 1e-12, "R = {r}");
        }
        let big = wald_wolfowitz(208, 208);
        let (mu, var) = wald_wolfowitz_moments(208, 208);
        let m: f64 = big.iter().enumerate().map(|(r, p)| r as f64 * p).sum();
        let v: f64 = big.iter().enumerate().map(|(r, p)| (r as f64 - mu).powi(2) * p).sum();
        assert!((big.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!((m - mu).abs() < 1e-9 && (v - var).abs() < 1e-9, "{m} {mu} {v} {var}");

        // Runs up and down: every permutation of 7.
        fn perms(v: &mut Vec<u32>, k: usize, out: &mut Vec<usize>) {
            if k == v.len() {
                out[runs_up_down(v)] += 1;
                return;
            }
            for i in k..v.len() {
                v.swap(k, i);
                perms(v, k + 1, out);
                v.swap(k, i);
            }
        }
        let mut out = vec![0usize; 7];
        perms(&mut (0..7).collect(), 0, &mut out);
        let ud = runs_up_down_distribution(7);
        for k in 0..7 {
            assert!((ud[k] - out[k] as f64 / 5040.0).abs() < 1e-12, "k = {k}");
        }
        let ud = runs_up_down_distribution(KEYSTREAM_WORDS);
        let l = KEYSTREAM_WORDS as f64;
        let m: f64 = ud.iter().enumerate().map(|(k, p)| k as f64 * p).sum();
        let v: f64 = ud.iter().enumerate().map(|(k, p)| (k as f64 - m).powi(2) * p).sum();
        assert!((m - (2.0 * l - 1.0) / 3.0).abs() < 1e-9);
        assert!((v - (16.0 * l - 29.0) / 90.0).abs() < 1e-9);
    }
}
