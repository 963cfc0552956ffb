//! The tests and checks, from the counts gathered over the shoes.

use baccarat_table::Seed;

use super::distributions::{chi2_sf, chi_square_pooled, normal_two_sided};
use super::runs::{runs_up_down_distribution, wald_wolfowitz, wald_wolfowitz_moments};
use super::tally::{Cards, Tally};
use super::{fmt_p, Check, Family, Procedure, Report, TestResult, KEYSTREAM_WORDS, SERVER_MIN_FROM_BACK};

const POSITIONS_RULE: &str = "11VAC20-20-510 (every card position, chi-square at 99%); GLI-19; 25 CFR 547.14";
const RUNS_RULE: &str = "11VAC20-20-510 (runs test); GLI-19";
const SERIAL_RULE: &str = "11VAC20-20-510 (serial correlation); GLI-19 (no correlation between outcomes)";
const CUT_RULE: &str = "NSW 4.5; AU 7.6 (cut at least one deck from either end); 25 CFR 547.14";

/// The report from the counts: the position, rank, runs, serial and cut
/// tests, then the checks. Called once per run.
pub(super) fn analyse(t: &Tally, cards: &Cards, proc: &Procedure, master: &Seed) -> Report {
    let shoes = t.shoes;
    let mut tests = Vec::new();
    position_tests(t, cards, &mut tests);
    runs_tests(t, cards, &mut tests);
    serial_tests(t, cards, &mut tests);
    tests.push(cut_test(t, proc));
    let checks = checks(t, proc);
    Report { master: *master, shoes, procedure: *proc, tests, checks }
}

/// Chi-square of equal expected counts from Σ O² (exact in integers).
fn uniform_chi2(sum_sq: u128, bins: usize, total: u64) -> f64 {
    bins as f64 * sum_sq as f64 / total as f64 - total as f64
}

/// A family of tests, one p-value each, as one result: how many fail at 1%
/// against how many are expected to, with the KS and Šidák combinations.
fn family(id: &'static str, name: &'static str, rule: &'static str, df: f64, p: Vec<f64>, what: &str) -> TestResult {
    let f = Family::new(p);
    TestResult {
        id,
        name,
        rule,
        statistic_kind: "failures",
        statistic: f.failures as f64,
        df: Some(df),
        p_value: f.p_value(),
        detail: format!(
            "{} {what}: {} fail at 1% ({:.2} expected, binomial p {}); KS D {:.4} (p {}); smallest p {} (Šidák p {})",
            f.tests,
            f.failures,
            f.expected_failures,
            fmt_p(f.p_binomial),
            f.ks,
            fmt_p(f.p_ks),
            fmt_p(f.min_p),
            fmt_p(f.p_min)
        ),
        family: Some(f),
    }
}

/// Every card position, chi-square at 99% (11VAC20-20-510): each position's
/// card before the cut and as dealt, each card's position as dealt, and each
/// position's rank as dealt.
fn position_tests(t: &Tally, cards: &Cards, tests: &mut Vec<TestResult>) {
    let n = t.n;
    let shoes = t.shoes;
    let row_p = |m: &[u32], p: usize| {
        let sq: u128 = m[p * n..(p + 1) * n].iter().map(|&o| o as u128 * o as u128).sum();
        chi2_sf(uniform_chi2(sq, n, shoes), (n - 1) as f64)
    };
    let col_p = |m: &[u32], c: usize| {
        let sq: u128 = (0..n).map(|p| m[p * n + c] as u128 * m[p * n + c] as u128).sum();
        chi2_sf(uniform_chi2(sq, n, shoes), (n - 1) as f64)
    };
    let per_pos = format!("chi-square tests of {n} cards (df {})", n - 1);
    tests.push(family(
        "positions-shuffled",
        "each position's card, shuffled stack (before the cut)",
        POSITIONS_RULE,
        (n - 1) as f64,
        (0..n).map(|p| row_p(&t.shuffled, p)).collect(),
        &per_pos,
    ));
    tests.push(family(
        "positions-dealt",
        "each position's card, dealing order",
        POSITIONS_RULE,
        (n - 1) as f64,
        (0..n).map(|p| row_p(&t.dealt, p)).collect(),
        &per_pos,
    ));
    tests.push(family(
        "cards-dealt",
        "each card's position, dealing order",
        POSITIONS_RULE,
        (n - 1) as f64,
        (0..n).map(|c| col_p(&t.dealt, c)).collect(),
        &format!("chi-square tests of {n} positions (df {})", n - 1),
    ));
    tests.push(family(
        "ranks-dealt",
        "each position's rank, dealing order",
        POSITIONS_RULE,
        12.0,
        rank_p(t, cards),
        "chi-square tests of 13 ranks (df 12)",
    ));
}

/// Each position's p-value for its rank as dealt: 13 classes with
/// probability (cards of the rank) / n.
fn rank_p(t: &Tally, cards: &Cards) -> Vec<f64> {
    let n = t.n;
    let nf = t.shoes as f64;
    let mut per_rank = [0f64; 13];
    for &r in &cards.rank {
        per_rank[r as usize] += 1.0;
    }
    (0..n)
        .map(|p| {
            let mut o = [0u64; 13];
            for c in 0..n {
                o[cards.rank[c] as usize] += t.dealt[p * n + c] as u64;
            }
            let chi2: f64 = (0..13)
                .map(|r| {
                    let e = nf * per_rank[r] / n as f64;
                    (o[r] as f64 - e).powi(2) / e
                })
                .sum();
            chi2_sf(chi2, 12.0)
        })
        .collect()
}

/// The runs tests (11VAC20-20-510): Wald–Wolfowitz runs of low and high
/// cards as dealt, and runs up and down in the keystream.
fn runs_tests(t: &Tally, cards: &Cards, tests: &mut Vec<TestResult>) {
    let n = t.n;
    let n1 = cards.low.iter().filter(|&&l| l).count();
    let n2 = n - n1;
    let ww = wald_wolfowitz(n1, n2);
    let (mu, var) = wald_wolfowitz_moments(n1, n2);
    tests.push(histogram_test(
        "runs-median",
        "runs above/below the median (dealing order)",
        RUNS_RULE,
        &t.runs,
        &ww,
        mu,
        var,
        &format!("{n1} low (A♣ to 7♦ by card index) and {n2} high cards per shoe"),
    ));
    let ud = runs_up_down_distribution(KEYSTREAM_WORDS);
    let l = KEYSTREAM_WORDS as f64;
    tests.push(histogram_test(
        "runs-updown",
        "runs up and down (keystream words)",
        RUNS_RULE,
        &t.updown,
        &ud,
        (2.0 * l - 1.0) / 3.0,
        (16.0 * l - 29.0) / 90.0,
        &format!("the first {KEYSTREAM_WORDS} 32-bit words of each shoe's stream"),
    ));
}

/// Serial correlation between consecutive shoes (11VAC20-20-510), per
/// position and pooled. For one position, the centred values of two
/// independent shoes multiply to a product of mean 0 and variance V² (V the
/// variance of a card's centred value); products of successive pairs are
/// uncorrelated.
fn serial_tests(t: &Tally, cards: &Cards, tests: &mut Vec<TestResult>) {
    let n = t.n;
    let shoes = t.shoes;
    let v: f64 = cards.centred.iter().map(|&a| (a as f64).powi(2)).sum::<f64>() / n as f64;
    let pairs = (shoes - 1) as f64;
    let z: Vec<f64> = t.serial.iter().map(|&s| s as f64 / (pairs.sqrt() * v)).collect();
    let mut fam = family(
        "serial-positions",
        "serial correlation between consecutive shoes, per position",
        SERIAL_RULE,
        0.0,
        z.iter().map(|&z| normal_two_sided(z)).collect(),
        "lag-1 correlations of the point value (z tests)",
    );
    fam.df = None;
    let worst = z.iter().fold(0f64, |a, &b| a.max(b.abs()));
    fam.detail = format!("{}; largest |r| {:.5}", fam.detail, worst / pairs.sqrt());
    tests.push(fam);
    // Pooled: Σ_p a_p b_p for two independent shoes is a permutation statistic
    // of variance (Σ a²)² / (n − 1).
    let total: i128 = t.serial.iter().map(|&s| s as i128).sum();
    let sd = (pairs * (n as f64 * v).powi(2) / (n as f64 - 1.0)).sqrt();
    let zp = total as f64 / sd;
    tests.push(TestResult {
        id: "serial-pooled",
        name: "serial correlation between consecutive shoes, all positions",
        rule: SERIAL_RULE,
        statistic_kind: "z",
        statistic: zp,
        df: None,
        p_value: normal_two_sided(zp),
        detail: format!(
            "{} consecutive pairs; mean correlation {:.6}",
            shoes - 1,
            total as f64 / (pairs * n as f64 * v)
        ),
        family: None,
    });
}

/// The cut, uniform over its range (NSW 4.5; AU 7.6).
fn cut_test(t: &Tally, proc: &Procedure) -> TestResult {
    let (lo, hi) = proc.cut_range();
    let span = hi + 1 - lo;
    let inside: u64 = t.cut[lo..=hi].iter().sum();
    let e = inside as f64 / span as f64;
    let chi2: f64 = t.cut[lo..=hi].iter().map(|&o| (o as f64 - e).powi(2) / e).sum();
    TestResult {
        id: "cut",
        name: "cut position, uniform over its range",
        rule: CUT_RULE,
        statistic_kind: "chi2",
        statistic: chi2,
        df: Some((span - 1) as f64),
        p_value: chi2_sf(chi2, (span - 1) as f64),
        detail: format!("{span} positions {lo}..={hi}, {e:.1} expected each"),
        family: None,
    }
}

/// What is checked rather than tested: every cut within the profile's
/// bounds, and the cutting card at the table's fixed place (NSW 4.6; AU 7.6).
fn checks(t: &Tally, proc: &Procedure) -> Vec<Check> {
    let (n, shoes) = (t.n, t.shoes);
    let (lo, hi) = proc.cut_range();
    let mut checks = Vec::new();
    checks.push(Check {
        id: "cut-bounds",
        name: "every cut within the profile's bounds",
        rule: CUT_RULE,
        passed: t.cut_out_of_bounds == 0,
        detail: format!("{} of {shoes} cuts outside {lo}..={hi}", t.cut_out_of_bounds),
    });
    let fb = proc.cutting_card_from_back;
    let at_fb = t.from_back.get(fb).copied().unwrap_or(0);
    checks.push(Check {
        id: "cutting-card",
        name: "cutting card at the table's place",
        rule: "NSW 4.6; AU 7.6 (at least the profile's minimum from the back)",
        passed: at_fb == shoes && fb >= proc.cut.cutting_card_min_from_back && fb < n,
        detail: format!(
            "{fb} cards from the back (before position {}) in {at_fb} of {shoes} shoes; the server places it at \
             max(profile minimum {}, {SERVER_MIN_FROM_BACK}): a fixed setting, not drawn, so there is no \
             distribution to test",
            n - fb,
            proc.cut.cutting_card_min_from_back
        ),
    });
    checks
}

/// A histogram against an exact distribution: pooled chi-square and the z of
/// the mean, Bonferroni-combined.
#[allow(clippy::too_many_arguments)]
fn histogram_test(
    id: &'static str,
    name: &'static str,
    rule: &'static str,
    observed: &[u64],
    probs: &[f64],
    mean: f64,
    var: f64,
    what: &str,
) -> TestResult {
    let shoes: u64 = observed.iter().sum();
    let (chi2, df) = chi_square_pooled(observed, probs);
    let p_chi2 = chi2_sf(chi2, df as f64);
    let sum: f64 = observed.iter().enumerate().map(|(r, &o)| r as f64 * o as f64).sum();
    let z = (sum - shoes as f64 * mean) / (shoes as f64 * var).sqrt();
    let p_z = normal_two_sided(z);
    TestResult {
        id,
        name,
        rule,
        statistic_kind: "chi2",
        statistic: chi2,
        df: Some(df as f64),
        p_value: (2.0 * p_chi2.min(p_z)).min(1.0),
        detail: format!(
            "{what}; distribution chi-square p {}; mean runs {:.4} (exact {mean:.4}), z {z:.3} (p {})",
            fmt_p(p_chi2),
            sum / shoes as f64,
            fmt_p(p_z)
        ),
        family: None,
    }
}
