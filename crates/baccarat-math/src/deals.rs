//! Every result class of a coup for any shoe, from one table built per process.
//!
//! # Method
//!
//! A coup deals 4, 5 or 6 cards. The probability of one ordered deal of point
//! values from a shoe with `n_v` cards of value `v` (N in all) is
//! `∏_v n_v^(m_v) / N^(k)`, where `m_v` is how many of the `k` dealt cards have
//! value `v` and `x^(j)` is the falling factorial: it depends only on the
//! *multiset* of values dealt, not their order. So, over the common denominator
//! `N^(6)` of `exact.rs` (a deal of `k` cards leaves `6 - k` free positions,
//! `(N-k)^(6-k)` ways),
//!
//! ```text
//! count(class) = Σ_k (N-k)^(6-k) · Σ_{multisets m of k values} ∏_v n_v^(m_v) · orderings(m, class)
//! ```
//!
//! where `orderings(m, class)` is how many of the deals whose values are `m`
//! end in `class`. Those numbers do not depend on the shoe: they are counted
//! once per process (every deal of values through the rules' tableau, under a
//! million; about 10 ms) and kept in a [`OnceLock`]. There are 6,958 reachable
//! multisets.
//!
//! The classes are the results the [`Basis::Summary`] wagers tell apart (winner,
//! totals, card counts, naturals, margins): the 400 coup summaries grouped by
//! the outcome of every such wager, as the rules crate classifies them, so no
//! rule is restated here. Two more features per hand are counted for Lucky
//! Triple Match (AU 11D.9): the hand drew a third card and its three cards have
//! one value `v`.
//!
//! Per shoe, the weights `∏_v n_v^(m_v)` of all multisets of at most six values
//! are built with one multiplication each, a child from its parent (the multiset
//! less its largest value), in the same pass that adds `weight × orderings` into
//! the classes. Everything is exact in `u64`: no class count exceeds `N^(6)`,
//! below 2^53 for 8 decks and 2^64 for [`crate::MAX_CARDS`].

use std::collections::HashMap;
use std::sync::OnceLock;

use baccarat_rules::{banker_draws, player_action, Basis, Bet, CoupSummary, Outcome, PlayerAction};

use crate::exact::falling;

/// Lucky Triple Match features: a hand (Player 0, Banker 1) drew three cards of
/// one value `v` (index `hand * 10 + v`).
pub const TRIPLES: usize = 20;

/// One multiset of values in depth-first order: its parent is the multiset less
/// one card of value `value`, of which it holds `prior + 1`.
#[derive(Clone, Copy)]
struct Node {
    parent: u16,
    value: u8,
    prior: u8,
    /// Its `(accumulator, orderings)` entries are `entries[start..next.start]`.
    start: u32,
}

/// The shoe-independent table.
pub struct Deals {
    nodes: Vec<Node>,
    /// `accumulator << 16 | orderings`; the accumulator is
    /// `(cards - 4) * width + class` (or `+ classes + triple`).
    entries: Vec<u32>,
    /// Result classes: the class of each [`CoupSummary::index`].
    pub class_of: [u8; CoupSummary::COUNT],
    /// A summary in each class, to classify the class with the rules crate.
    pub representative: Vec<CoupSummary>,
}

impl Deals {
    /// Accumulators per deal size: the classes and the triple features.
    fn width(&self) -> usize {
        self.representative.len() + TRIPLES
    }

    /// Multisets with at least one deal (reachable multisets).
    pub fn reachable(&self) -> usize {
        self.nodes.windows(2).filter(|w| w[1].start > w[0].start).count()
            + usize::from(self.entries.len() as u32 > self.nodes.last().map_or(0, |n| n.start))
    }

    /// Nonzero `(multiset, accumulator)` entries: the work per shoe.
    pub fn entries(&self) -> usize {
        self.entries.len()
    }
}

/// The summary classes: summaries on which every [`Basis::Summary`] wager has
/// the same outcome share a class.
fn classes() -> ([u8; CoupSummary::COUNT], Vec<CoupSummary>) {
    let bets: Vec<Bet> = Bet::ALL.into_iter().filter(|b| b.basis() == Basis::Summary).collect();
    let mut keys: Vec<Vec<Outcome>> = Vec::new();
    let mut reps = Vec::new();
    let mut class_of = [0u8; CoupSummary::COUNT];
    for i in 0..CoupSummary::COUNT {
        let s = CoupSummary::from_index(i);
        let key: Vec<Outcome> = bets.iter().map(|b| b.classify_summary(&s)).collect();
        let c = keys.iter().position(|k| *k == key).unwrap_or_else(|| {
            keys.push(key);
            reps.push(s);
            keys.len() - 1
        });
        class_of[i] = u8::try_from(c).expect("fewer than 256 classes");
    }
    (class_of, reps)
}

/// Call `f(values dealt in order, summary)` for every deal of point values
/// (P1 B1 P2 B2, then the Player's and the Banker's third cards as the rules'
/// tableau requires, NSW 9; AU 9).
pub fn each_deal(mut f: impl FnMut(&[u8], CoupSummary)) {
    let s = |pt: u8, bt: u8, pc: u8, bc: u8| CoupSummary {
        player_total: pt % 10,
        banker_total: bt % 10,
        player_cards: pc,
        banker_cards: bc,
    };
    for i in 0..10_000u32 {
        let v = [(i % 10) as u8, (i / 10 % 10) as u8, (i / 100 % 10) as u8, (i / 1000) as u8];
        let (pt, bt) = ((v[0] + v[2]) % 10, (v[1] + v[3]) % 10);
        match player_action(pt, bt) {
            PlayerAction::Natural => f(&v, s(pt, bt, 2, 2)),
            PlayerAction::Stand if banker_draws(bt, None) => {
                for b3 in 0..10 {
                    f(&[v[0], v[1], v[2], v[3], b3], s(pt, bt + b3, 2, 3));
                }
            }
            PlayerAction::Stand => f(&v, s(pt, bt, 2, 2)),
            PlayerAction::Draw => {
                for p3 in 0..10 {
                    if banker_draws(bt, Some(p3)) {
                        for b3 in 0..10 {
                            f(&[v[0], v[1], v[2], v[3], p3, b3], s(pt + p3, bt + b3, 3, 3));
                        }
                    } else {
                        f(&[v[0], v[1], v[2], v[3], p3], s(pt + p3, bt, 3, 2));
                    }
                }
            }
        }
    }
}

/// The triple feature of a deal's hand, if that hand drew and its three cards
/// share one value.
fn triples(deal: &[u8], s: &CoupSummary) -> [Option<usize>; 2] {
    let player = [deal[0], deal[2], *deal.get(4).unwrap_or(&0)];
    let banker = [deal[1], deal[3], *deal.last().unwrap_or(&0)];
    let same = |h: [u8; 3]| h[0] == h[1] && h[1] == h[2];
    [
        (s.player_cards == 3 && same(player)).then(|| player[0] as usize),
        (s.banker_cards == 3 && same(banker)).then(|| 10 + banker[0] as usize),
    ]
}

/// Every multiset of at most six values as a nondecreasing sequence, depth
/// first: `(sequence, parent index)`.
fn multisets() -> Vec<(Vec<u8>, usize)> {
    fn rec(seq: &mut Vec<u8>, me: usize, out: &mut Vec<(Vec<u8>, usize)>) {
        if seq.len() == 6 {
            return;
        }
        for v in seq.last().copied().unwrap_or(0)..10 {
            seq.push(v);
            out.push((seq.clone(), me));
            let child = out.len() - 1;
            rec(seq, child, out);
            seq.pop();
        }
    }
    let mut out = vec![(Vec::new(), 0)];
    rec(&mut Vec::new(), 0, &mut out);
    out
}

fn build() -> Deals {
    let (class_of, representative) = classes();
    let width = representative.len() + TRIPLES;
    let sets = multisets();
    let index: HashMap<Vec<u8>, usize> = sets.iter().enumerate().map(|(i, (s, _))| (s.clone(), i)).collect();
    let mut counts: Vec<HashMap<usize, u32>> = vec![HashMap::new(); sets.len()];
    each_deal(|deal, s| {
        let mut key = deal.to_vec();
        key.sort_unstable();
        let node = &mut counts[index[&key]];
        let base = (deal.len() - 4) * width;
        *node.entry(base + class_of[s.index()] as usize).or_default() += 1;
        for t in triples(deal, &s).into_iter().flatten() {
            *node.entry(base + representative.len() + t).or_default() += 1;
        }
    });
    let mut nodes = Vec::with_capacity(sets.len());
    let mut entries = Vec::new();
    for (i, (seq, parent)) in sets.iter().enumerate() {
        let value = seq.last().copied().unwrap_or(0);
        let prior = seq.iter().filter(|&&x| x == value).count().saturating_sub(1) as u8;
        let start = entries.len() as u32;
        nodes.push(Node { parent: *parent as u16, value, prior, start });
        let mut e: Vec<(usize, u32)> = counts[i].iter().map(|(&a, &n)| (a, n)).collect();
        e.sort_unstable();
        entries.extend(e.into_iter().map(|(a, n)| ((a as u32) << 16) | n));
    }
    Deals { nodes, entries, class_of, representative }
}

/// The table, built on first use.
pub fn deals() -> &'static Deals {
    static D: OnceLock<Deals> = OnceLock::new();
    D.get_or_init(build)
}

/// Build the table now rather than on first use (once per process).
pub fn prepare() {
    deals();
}

/// Counts of ordered six-position sequences (the denominator `N^(6)` of
/// `exact.rs`) by result class, and the triple features, for one shoe.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassCounts {
    /// `N (N-1) … (N-5)`.
    pub total: u64,
    /// By class of [`Deals::representative`]; sums to `total`.
    pub classes: Vec<u64>,
    /// Sequences in which hand `h` drew three cards of value `v`, at `h * 10 + v`.
    pub triples: [u64; TRIPLES],
}

/// The class counts for a shoe with `values[v]` cards of point value `v`.
pub fn class_counts(values: &[u32; 10]) -> ClassCounts {
    let d = deals();
    let width = d.width();
    let n: Vec<u64> = values.iter().map(|&x| x as u64).collect();
    let mut acc = vec![0u64; 3 * width];
    let mut w = vec![0u64; d.nodes.len()];
    w[0] = 1;
    let ends = d.nodes.iter().skip(1).map(|x| x.start).chain([d.entries.len() as u32]);
    for (i, (node, end)) in d.nodes.iter().zip(ends).enumerate().skip(1) {
        let f = n[node.value as usize].saturating_sub(node.prior as u64);
        let wi = w[node.parent as usize] * f;
        w[i] = wi;
        if wi == 0 {
            continue;
        }
        for &e in &d.entries[node.start as usize..end as usize] {
            acc[(e >> 16) as usize] += wi * (e & 0xffff) as u64;
        }
    }
    let total_n: u64 = n.iter().sum();
    let scale = [falling(total_n.saturating_sub(4), 2), total_n.saturating_sub(5), 1];
    let k = d.representative.len();
    let at = |j: usize| (0..3).map(|s| acc[s * width + j] * scale[s]).sum::<u64>();
    ClassCounts {
        total: falling(total_n, 6),
        classes: (0..k).map(at).collect(),
        triples: std::array::from_fn(|t| at(k + t)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::summary_table;

    #[test]
    fn table_size() {
        let d = deals();
        eprintln!("classes {} reachable {} entries {}", d.representative.len(), d.reachable(), d.entries());
        assert_eq!(d.reachable(), 6958);
    }

    /// The class counts are the full enumeration's, grouped.
    #[test]
    fn classes_equal_the_enumeration() {
        for values in
            [[128, 32, 32, 32, 32, 32, 32, 32, 32, 32], [1, 1, 1, 1, 1, 1, 0, 0, 0, 0], [3, 0, 2, 9, 0, 1, 5, 0, 7, 2]]
        {
            let t = summary_table(&values);
            let c = class_counts(&values);
            let mut want = vec![0u64; c.classes.len()];
            for (i, &x) in t.counts.iter().enumerate() {
                want[deals().class_of[i] as usize] += x;
            }
            assert_eq!(c.total, t.total);
            assert_eq!(c.classes, want, "{values:?}");
        }
    }
}
