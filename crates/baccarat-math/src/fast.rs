//! Main wagers and pairs for any remaining shoe, fast enough to run per card.
//!
//! # Method
//!
//! In the six-card model of `exact.rs`, the number of ordered sequences of
//! distinguishable cards whose point values are the multiset `k` (k_v cards of
//! value v, six in all) and that fall in a given order is `∏_v c_v (c_v-1) …
//! (c_v-k_v+1)`, whatever the order. So the count of a result class is
//!
//! ```text
//! Σ over the 5,005 multisets k of six values:  coef_class(k) · ∏_v c_v^(k_v)
//! ```
//!
//! where `coef_class(k)` is how many orderings of `k` into the six positions give
//! that class. The coefficients do not depend on the shoe; they are counted once
//! (10^6 orderings through the rules' tableau) and kept. Each composition then
//! costs one falling-factorial product per multiset (shared along a depth-first
//! walk) and six multiply-adds: about 16,000 integer operations, all exact.
//!
//! Pairs are closed form: `Σ_r n_r (n_r - 1)` over ranks (NSW 10.6).

use std::sync::OnceLock;

use baccarat_rules::{Bet, CoupSummary, Outcome};

use crate::exact::{falling, summary_table, SummaryTable};

/// The result classes the main wagers distinguish in every variant.
pub const CLASSES: [&str; 6] = [
    "player_win",
    "player_win_three_card_eight_nine",
    "banker_win",
    "banker_win_on_six",
    "banker_win_three_card_eight_nine",
    "tie",
];

/// Counts of ordered six-card sequences by main result class, and of pairs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MainOdds {
    /// `N (N-1) … (N-5)`.
    pub total: u64,
    /// By [`CLASSES`]; sums to `total`.
    pub classes: [u64; 6],
    /// Sequences whose first two (Player) cards are a pair; the Banker's count is
    /// the same by symmetry.
    pub pair: u64,
}

/// The class of a result for the main wagers, from the rules' classifier.
fn class_of(s: &CoupSummary) -> usize {
    match (Bet::Player.classify_summary(s), Bet::Banker.classify_summary(s)) {
        (Outcome::Win, _) => 0,
        (Outcome::WinThreeCardEightNine, _) => 1,
        (_, Outcome::Win) => 2,
        (_, Outcome::WinOnSix) => 3,
        (_, Outcome::WinThreeCardEightNine) => 4,
        _ => 5,
    }
}

impl MainOdds {
    /// The same classes read off a full [`SummaryTable`]: the reference the fast
    /// path is tested against.
    pub fn from_table(t: &SummaryTable, ranks: &[u32; 13]) -> MainOdds {
        let mut classes = [0u64; 6];
        for (i, &c) in t.counts.iter().enumerate() {
            classes[class_of(&CoupSummary::from_index(i))] += c;
        }
        MainOdds { total: t.total, classes, pair: pair_count(ranks) }
    }
}

/// Sequences with the Player's two initial cards a pair (same rank, NSW 10.6).
pub fn pair_count(ranks: &[u32; 13]) -> u64 {
    let n: u64 = ranks.iter().map(|&r| r as u64).sum();
    let pairs: u64 = ranks.iter().map(|&r| r as u64 * (r as u64).saturating_sub(1)).sum();
    pairs * falling(n.saturating_sub(2), 4)
}

/// The multisets in depth-first order, with their class coefficients.
struct Coefficients {
    coef: Vec<[u32; 6]>,
}

fn coefficients() -> &'static Coefficients {
    static C: OnceLock<Coefficients> = OnceLock::new();
    C.get_or_init(|| {
        // Index each multiset by its position in the depth-first walk.
        let mut index = std::collections::HashMap::new();
        let mut k = [0u8; 10];
        walk(0, 6, &mut k, &mut |k| {
            let i = index.len();
            index.insert(*k, i);
        });
        let mut coef = vec![[0u32; 6]; index.len()];
        // One "card" of each value: a shoe with ample copies so that every
        // ordering is possible; only the class of each ordering is used here.
        for seq in 0..1_000_000u32 {
            let mut v = [0usize; 6];
            let mut s = seq;
            for x in v.iter_mut() {
                *x = (s % 10) as usize;
                s /= 10;
            }
            let summary = crate::exact::coup_of_values(v);
            let mut key = [0u8; 10];
            for &x in &v {
                key[x] += 1;
            }
            coef[index[&key]][class_of(&summary)] += 1;
        }
        Coefficients { coef }
    })
}

/// Visit every multiset of `left` values among `v..10`, depth first.
fn walk(v: usize, left: u8, k: &mut [u8; 10], f: &mut impl FnMut(&[u8; 10])) {
    if v == 9 {
        k[9] = left;
        f(k);
        k[9] = 0;
        return;
    }
    for take in 0..=left {
        k[v] = take;
        walk(v + 1, left - take, k, f);
    }
    k[v] = 0;
}

/// Main-wager classes and pairs for a shoe with `values[v]` cards of point value
/// `v` and `ranks[r]` of each rank.
pub fn main_odds(values: &[u32; 10], ranks: &[u32; 13]) -> MainOdds {
    let c = coefficients();
    // ff[v][j] = c_v (c_v - 1) … (c_v - j + 1)
    let mut ff = [[0u64; 7]; 10];
    for v in 0..10 {
        ff[v][0] = 1;
        for j in 1..7 {
            ff[v][j] = ff[v][j - 1] * (values[v] as u64).saturating_sub(j as u64 - 1);
        }
    }
    let mut acc = [0u64; 6];
    let mut i = 0usize;
    eval(0, 6, 1, &ff, &c.coef, &mut i, &mut acc);
    let n: u64 = values.iter().map(|&x| x as u64).sum();
    MainOdds { total: falling(n, 6), classes: acc, pair: pair_count(ranks) }
}

fn eval(v: usize, left: usize, prod: u64, ff: &[[u64; 7]; 10], coef: &[[u32; 6]], i: &mut usize, acc: &mut [u64; 6]) {
    if v == 9 {
        let p = prod * ff[9][left];
        let k = &coef[*i];
        *i += 1;
        if p != 0 {
            for (a, &x) in acc.iter_mut().zip(k) {
                *a += x as u64 * p;
            }
        }
        return;
    }
    for take in 0..=left {
        let p = prod * ff[v][take];
        if p == 0 {
            // Skip the whole subtree, keeping the index in step.
            *i += subtree_size(9 - v, left - take);
            continue;
        }
        eval(v + 1, left - take, p, ff, coef, i, acc);
    }
}

/// Number of multisets of `left` items over `values` more value classes plus the
/// current one's successors: C(left + values - 1, values - 1) leaves below.
fn subtree_size(values: usize, left: usize) -> usize {
    // Multisets of size `left` over `values` classes.
    let (n, k) = (left + values - 1, values - 1);
    let mut r = 1usize;
    for j in 0..k {
        r = r * (n - j) / (j + 1);
    }
    r
}

/// The reference: the same figures from a full enumeration.
pub fn main_odds_reference(values: &[u32; 10], ranks: &[u32; 13]) -> MainOdds {
    MainOdds::from_table(&summary_table(values), ranks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn there_are_5005_multisets_and_every_ordering_is_counted() {
        let c = coefficients();
        assert_eq!(c.coef.len(), 5005);
        let all: u64 = c.coef.iter().flat_map(|k| k.iter()).map(|&x| x as u64).sum();
        assert_eq!(all, 1_000_000);
    }

    #[test]
    fn fast_path_equals_full_enumeration_at_8_decks() {
        let v = [128, 32, 32, 32, 32, 32, 32, 32, 32, 32];
        let r = [32; 13];
        assert_eq!(main_odds(&v, &r), main_odds_reference(&v, &r));
    }
}
