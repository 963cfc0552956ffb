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
//! (10^6 orderings through the rules' tableau) and kept.
//!
//! To evaluate it cheaply, each multiset is split into a half `kA` over values
//! 0-4 and a half `kB` over 5-9 (462 possible halves each). The products of each
//! half are computed once per composition, and the sum is taken as
//! `Σ_kA P(kA) · Σ_kB coef(kA, kB) · P(kB)`: five multiply-adds per multiset
//! (the sixth class, tie, is the remainder), about 27,000 integer operations in
//! all, every one exact in `u64` because no term exceeds `N (N-1) … (N-5)`.
//!
//! Pairs are closed form: `Σ_r n_r (n_r - 1)` over ranks (NSW 10.6).

use std::sync::OnceLock;

use baccarat_rules::{Bet, CoupSummary, Outcome};

use crate::bets::Distribution;
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

/// Values 0-4 form half A of a multiset, values 5-9 half B.
const HALF: usize = 5;

/// The precomputed polynomial: for every multiset `kA` over values 0-4, the
/// multisets `kB` over 5-9 that complete it to six cards, with the counts of
/// orderings in each class (the last class, tie, is the remainder).
struct Coefficients {
    /// `kA` multisets: counts of values 0..5.
    a: Vec<[u8; HALF]>,
    /// `kB` multisets: counts of values 5..10.
    b: Vec<[u8; HALF]>,
    /// For each `kA`, the range of `terms` that completes it.
    blocks: Vec<std::ops::Range<usize>>,
    /// `(index into b, orderings in classes 0..5)`.
    terms: Vec<(usize, [u64; 5])>,
}

/// Every multiset of at most six cards over five values, smallest first.
fn half_multisets() -> Vec<[u8; HALF]> {
    let mut out = Vec::new();
    for size in 0..=6u8 {
        let mut k = [0u8; HALF];
        fn rec(v: usize, left: u8, k: &mut [u8; HALF], out: &mut Vec<[u8; HALF]>) {
            if v == HALF - 1 {
                k[v] = left;
                out.push(*k);
                return;
            }
            for take in 0..=left {
                k[v] = take;
                rec(v + 1, left - take, k, out);
            }
        }
        rec(0, size, &mut k, &mut out);
    }
    out
}

fn coefficients() -> &'static Coefficients {
    static C: OnceLock<Coefficients> = OnceLock::new();
    C.get_or_init(|| {
        let halves = half_multisets();
        // A half multiset's key is its counts as base-7 digits.
        let key = |k: &[u8; HALF]| k.iter().rev().fold(0usize, |acc, &n| acc * 7 + n as usize);
        const KEYS: usize = 7 * 7 * 7 * 7 * 7;
        let mut pos = vec![usize::MAX; KEYS];
        for (i, k) in halves.iter().enumerate() {
            pos[key(k)] = i;
        }
        // Orderings by (kA, kB) and class: every sequence of six values once.
        let h = halves.len();
        let mut by = vec![[0u64; 6]; h * h];
        let pow7 = [1usize, 7, 49, 343, 2401];
        for seq in 0..1_000_000u32 {
            let mut v = [0usize; 6];
            let mut s = seq;
            let (mut ka, mut kb) = (0usize, 0usize);
            for x in v.iter_mut() {
                *x = (s % 10) as usize;
                s /= 10;
                if *x < HALF {
                    ka += pow7[*x];
                } else {
                    kb += pow7[*x - HALF];
                }
            }
            let summary = crate::exact::coup_of_values(v);
            by[pos[ka] * h + pos[kb]][class_of(&summary)] += 1;
        }
        let mut blocks = Vec::with_capacity(h);
        let mut terms = Vec::new();
        for i in 0..h {
            let start = terms.len();
            for j in 0..h {
                let c = by[i * h + j];
                if c.iter().any(|&x| x != 0) {
                    terms.push((j, [c[0], c[1], c[2], c[3], c[4]]));
                }
            }
            blocks.push(start..terms.len());
        }
        Coefficients { a: halves.clone(), b: halves, blocks, terms }
    })
}

/// Build the shoe-independent coefficients now rather than on first use (about
/// 10 ms, once per process).
pub fn prepare() {
    coefficients();
}

/// `∏ c_v (c_v - 1) … (c_v - k_v + 1)` over one half of the values.
fn half_product(ff: &[[u64; 7]], k: &[u8; HALF]) -> u64 {
    k.iter().zip(ff).map(|(&n, f)| f[n as usize]).product()
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
    let mut fb = [0u64; 462];
    for (f, k) in fb.iter_mut().zip(&c.b) {
        *f = half_product(&ff[HALF..], k);
    }
    let mut acc = [0u64; 6];
    for (ka, block) in c.a.iter().zip(&c.blocks) {
        let fa = half_product(&ff[..HALF], ka);
        if fa == 0 {
            continue;
        }
        let mut inner = [0u64; 5];
        for (j, coef) in &c.terms[block.clone()] {
            let f = fb[*j];
            for (x, &k) in inner.iter_mut().zip(coef) {
                *x += k * f;
            }
        }
        for (a, x) in acc.iter_mut().zip(inner) {
            *a += x * fa;
        }
    }
    let n: u64 = values.iter().map(|&x| x as u64).sum();
    let total = falling(n, 6);
    acc[5] = total - acc[..5].iter().sum::<u64>();
    MainOdds { total, classes: acc, pair: pair_count(ranks) }
}

/// A result in each class, for classifying the classes with the rules crate.
fn representative(class: usize) -> CoupSummary {
    let s = |pt, bt, pc, bc| CoupSummary { player_total: pt, banker_total: bt, player_cards: pc, banker_cards: bc };
    [s(5, 3, 2, 2), s(8, 3, 3, 2), s(3, 5, 2, 2), s(3, 6, 2, 2), s(3, 8, 2, 3), s(5, 5, 2, 2)][class]
}

impl MainOdds {
    /// The outcome distribution of a main wager or a pair wager, or `None` for a
    /// wager this fast path does not cover.
    pub fn distribution(&self, bet: Bet) -> Option<Distribution> {
        let mut counts: Vec<(Outcome, u64)> = Vec::new();
        let mut add = |o: Outcome, n: u64| {
            if n == 0 {
                return;
            }
            match counts.iter_mut().find(|(k, _)| *k == o) {
                Some((_, c)) => *c += n,
                None => counts.push((o, n)),
            }
        };
        match bet {
            Bet::Player | Bet::Banker | Bet::Tie => {
                for (class, &n) in self.classes.iter().enumerate() {
                    debug_assert_eq!(class_of(&representative(class)), class);
                    add(bet.classify_summary(&representative(class)), n);
                }
            }
            Bet::PlayerPair | Bet::BankerPair => {
                add(Outcome::Pair, self.pair);
                add(Outcome::Lose, self.total - self.pair);
            }
            _ => return None,
        }
        Some(Distribution { bet, total: self.total, counts })
    }
}

/// The reference: the same figures from a full enumeration.
pub fn main_odds_reference(values: &[u32; 10], ranks: &[u32; 13]) -> MainOdds {
    MainOdds::from_table(&summary_table(values), ranks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn there_are_5005_multisets() {
        let c = coefficients();
        assert_eq!(c.a.len(), 462);
        assert_eq!(c.terms.len(), 5005);
        assert_eq!(c.blocks.iter().map(|b| b.len()).sum::<usize>(), 5005);
    }

    #[test]
    fn fast_path_equals_full_enumeration_at_8_decks() {
        let v = [128, 32, 32, 32, 32, 32, 32, 32, 32, 32];
        let r = [32; 13];
        assert_eq!(main_odds(&v, &r), main_odds_reference(&v, &r));
    }
}
