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
//! rule is restated here — 39 classes. Two more features per hand are counted
//! for Lucky Triple Match (AU 11D.9): the hand drew a third card and its three
//! cards have one value `v` (see `closed.rs` for how a card's share follows).
//!
//! # Per shoe
//!
//! 1. The weights `∏_v n_v^(m_v)` of all 8,008 multisets of at most six values,
//!    smaller ones first, each one multiplication from its parent (the multiset
//!    less one card), then the `(N-k)^(6-k)` factor of the 4- and 5-card ones.
//!    They live in a per-thread buffer: nothing is allocated.
//! 2. Per class, `Σ weight × orderings` over that class's entries, stored as
//!    `orderings << 13 | multiset` in one array: 26,697 multiply-adds for the
//!    classes, and 2,497 more for the triple features, counted only when asked
//!    for (a rulebook with Lucky Match). The class with the most entries
//!    (4,394) is instead the total less the others.
//!
//! Everything is exact in `u64`: no weight or partial sum exceeds a class count,
//! at most `N^(6)`, below 2^53 for 8 decks and 2^64 for [`crate::MAX_CARDS`]; so
//! the hot loops use wrapping operations, which cannot wrap, and are spared the
//! overflow checks of the release profile. About 15 µs of CPU a shoe (28 µs
//! criterion median on the loaded 2-core build machine; docs/performance.md).

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::OnceLock;

use baccarat_rules::{banker_draws, player_action, Basis, Bet, CoupSummary, Outcome, PlayerAction};

use crate::exact::falling;

/// Lucky Triple Match features: a hand (Player 0, Banker 1) drew three cards of
/// one value `v` (index `hand * 10 + v`).
pub const TRIPLES: usize = 20;

/// Multisets of at most six values: 8,008, indexed in 13 bits.
const NODES: usize = 8192;

/// One multiset of values, by size: its parent is the multiset less one card of
/// value `v`, of which it holds `j + 1`; `factor` is `v * 8 + j`.
#[derive(Clone, Copy)]
struct Node {
    parent: u16,
    factor: u8,
}

/// The shoe-independent table.
pub struct Deals {
    /// Every multiset of at most six values, smaller ones first.
    nodes: Vec<Node>,
    /// The first multiset of 4, 5 and 6 values (and the end).
    sizes: [usize; 4],
    /// By accumulator (the classes, then the [`TRIPLES`]), its
    /// `orderings << 13 | multiset` entries: `entries[starts[a]..starts[a + 1]]`.
    entries: Vec<u32>,
    starts: Vec<usize>,
    /// Result classes: the class of each [`CoupSummary::index`].
    pub class_of: [u8; CoupSummary::COUNT],
    /// A summary in each class, to classify the class with the rules crate.
    pub representative: Vec<CoupSummary>,
    /// The class counted as the total less the others.
    remainder: usize,
    reachable: usize,
    /// Each [`Basis::Summary`] wager's outcome in each class.
    summary: Vec<(Bet, Vec<Outcome>)>,
}

impl Deals {
    /// Multisets with at least one deal (reachable multisets).
    pub fn reachable(&self) -> usize {
        self.reachable
    }

    /// `bet`'s outcome in each class, if it is a [`Basis::Summary`] wager.
    pub fn outcomes(&self, bet: Bet) -> Option<&[Outcome]> {
        self.summary.iter().find(|(b, _)| *b == bet).map(|(_, o)| o.as_slice())
    }

    /// Nonzero `(multiset, accumulator)` entries: the multiply-adds per shoe.
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

fn summary_outcomes(representative: &[CoupSummary]) -> Vec<(Bet, Vec<Outcome>)> {
    let bets = Bet::ALL.into_iter().filter(|b| b.basis() == Basis::Summary);
    bets.map(|b| (b, representative.iter().map(|s| b.classify_summary(s)).collect())).collect()
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

/// Every multiset of at most six values as a nondecreasing sequence, smaller
/// ones first: `(sequence, parent index)`.
fn multisets() -> Vec<(Vec<u8>, usize)> {
    let mut out: Vec<(Vec<u8>, usize)> = vec![(Vec::new(), 0)];
    let mut level = 0..1;
    for _ in 0..6 {
        let next = out.len();
        for p in level {
            let seq = out[p].0.clone();
            for v in seq.last().copied().unwrap_or(0)..10 {
                let mut child = seq.clone();
                child.push(v);
                out.push((child, p));
            }
        }
        level = next..out.len();
    }
    out
}

/// Orderings by multiset and accumulator: every deal of values once.
fn orderings(sets: &[(Vec<u8>, usize)], class_of: &[u8; CoupSummary::COUNT], classes: usize) -> Vec<Vec<u32>> {
    let index: HashMap<&[u8], usize> = sets.iter().enumerate().map(|(i, (s, _))| (s.as_slice(), i)).collect();
    let mut by = vec![vec![0u32; sets.len()]; classes + TRIPLES];
    each_deal(|deal, s| {
        let mut key = deal.to_vec();
        key.sort_unstable();
        let node = index[key.as_slice()];
        by[class_of[s.index()] as usize][node] += 1;
        for t in triples(deal, &s).into_iter().flatten() {
            by[classes + t][node] += 1;
        }
    });
    by
}

fn build() -> Deals {
    let (class_of, representative) = classes();
    let sets = multisets();
    assert!(sets.len() <= NODES);
    let by = orderings(&sets, &class_of, representative.len());
    // The class with the most entries is counted as the rest of the total.
    let nonzero = |row: &Vec<u32>| row.iter().filter(|&&n| n > 0).count();
    let remainder = (0..representative.len()).max_by_key(|&c| nonzero(&by[c])).unwrap_or(0);
    let mut entries = Vec::new();
    let mut starts = vec![0];
    for (a, row) in by.iter().enumerate() {
        if a == remainder {
            starts.push(entries.len());
            continue;
        }
        for (node, &n) in row.iter().enumerate().filter(|(_, &n)| n > 0) {
            entries.push(n << 13 | node as u32);
        }
        starts.push(entries.len());
    }
    let nodes = sets
        .iter()
        .map(|(seq, parent)| {
            let value = seq.last().copied().unwrap_or(0);
            let prior = seq.iter().filter(|&&x| x == value).count().saturating_sub(1) as u8;
            Node { parent: *parent as u16, factor: value * 8 + prior }
        })
        .collect();
    let first = |k: usize| sets.iter().position(|(s, _)| s.len() == k).unwrap_or(sets.len());
    let summary = summary_outcomes(&representative);
    let sizes = [first(4), first(5), first(6), sets.len()];
    let reachable = (0..sets.len()).filter(|&m| by.iter().any(|row| row[m] > 0)).count();
    Deals { nodes, sizes, entries, starts, remainder, reachable, class_of, representative, summary }
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
    /// Sequences in which hand `h` drew three cards of value `v`, at `h * 10 + v`;
    /// counted only when asked for (Lucky Match alone needs them: a tenth of the
    /// work).
    pub triples: Option<[u64; TRIPLES]>,
}

/// The class counts for a shoe with `values[v]` cards of point value `v`, and
/// the triple features if `with_triples`.
pub fn class_counts(values: &[u32; 10], with_triples: bool) -> ClassCounts {
    let d = deals();
    let k = d.representative.len();
    let n: u64 = values.iter().map(|&x| x as u64).sum();
    let total = falling(n, 6);
    WEIGHTS.with_borrow_mut(|w| {
        weights(d, values, w);
        // No partial sum exceeds its class's count, at most N^(6) < 2^64 (a
        // shoe holds at most 416 cards), so the wrapping operations never
        // wrap; they spare the hot loop the overflow checks.
        let sum = |a: usize| {
            d.entries[d.starts[a]..d.starts[a + 1]]
                .iter()
                .fold(0u64, |s, &e| s.wrapping_add(w[(e as usize) & (NODES - 1)].wrapping_mul((e >> 13) as u64)))
        };
        let mut classes: Vec<u64> = (0..k).map(sum).collect();
        classes[d.remainder] = total - classes.iter().sum::<u64>();
        let triples = with_triples.then(|| std::array::from_fn(|t| sum(k + t)));
        ClassCounts { total, classes, triples }
    })
}

thread_local! {
    /// The weights of one shoe's multisets, kept per thread so that pricing a
    /// shoe allocates nothing.
    static WEIGHTS: RefCell<Box<[u64; NODES]>> = RefCell::new(Box::new([0; NODES]));
}

/// Each multiset's weight `∏_v n_v^(m_v)` times the `(N-k)^(6-k)` ways of the
/// free positions of a `k`-card deal. None exceeds `N^(6)` (see
/// [`class_counts`]), so none wraps.
fn weights(d: &Deals, values: &[u32; 10], w: &mut [u64; NODES]) {
    // factor[v * 8 + j] = n_v - j: the factor a multiset's j+1-th card of
    // value v brings.
    // (128 entries, so that a masked index needs no bounds check.)
    let mut factor = [0u64; 128];
    for (i, f) in factor.iter_mut().enumerate().take(80) {
        *f = u64::from(values[i / 8]).saturating_sub(i as u64 % 8);
    }
    w[0] = 1;
    // A plain index loop: an iterator chain here kept its state in memory.
    let nodes = &d.nodes[..d.nodes.len().min(NODES)];
    for i in 1..nodes.len() {
        let node = nodes[i];
        w[i] = w[node.parent as usize & (NODES - 1)].wrapping_mul(factor[node.factor as usize & 127]);
    }
    let n: [u64; 10] = values.map(u64::from);
    let total: u64 = n.iter().sum();
    let [four, five, six, _] = d.sizes;
    let free4 = falling(total.saturating_sub(4), 2);
    w[four..five].iter_mut().for_each(|x| *x *= free4);
    w[five..six].iter_mut().for_each(|x| *x *= total.saturating_sub(5));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::summary_table;

    /// The sizes the module docs and docs/performance.md give.
    #[test]
    fn table_size() {
        let d = deals();
        eprintln!("classes {} reachable {} entries {}", d.representative.len(), d.reachable(), d.entries());
        assert_eq!(d.reachable(), 6958);
        assert_eq!(d.representative.len(), 39);
        assert_eq!(d.entries(), 29_194);
    }

    /// Every shoe of exactly 6 or 7 cards over the ten values (16,445
    /// compositions): the class counts are the full enumeration's, grouped, and
    /// the triple features are the enumeration's own count of them.
    #[test]
    fn classes_equal_the_enumeration_for_every_shoe_of_six_or_seven_cards() {
        fn each(v: usize, left: u32, c: &mut [u32; 10], f: &mut impl FnMut(&[u32; 10])) {
            if v == 9 {
                c[9] = left;
                f(c);
                return;
            }
            for take in 0..=left {
                c[v] = take;
                each(v + 1, left - take, c, f);
            }
        }
        let mut shoes = 0;
        for size in [6, 7] {
            each(0, size, &mut [0; 10], &mut |values| {
                let t = summary_table(values);
                let c = class_counts(values, true);
                let mut want = vec![0u64; c.classes.len()];
                for (i, &x) in t.counts.iter().enumerate() {
                    want[deals().class_of[i] as usize] += x;
                }
                assert_eq!(c.total, t.total);
                assert_eq!(c.classes, want, "{values:?}");
                assert_eq!(c.triples.unwrap(), triples_by_enumeration(values), "{values:?}");
                shoes += 1;
            });
        }
        assert_eq!(shoes, 5005 + 11440);
    }

    /// Six-position sequences in which a hand drew three cards of one value,
    /// by enumerating every sequence of six values the shoe can give.
    fn triples_by_enumeration(values: &[u32; 10]) -> [u64; TRIPLES] {
        fn rec(c: &mut [u64; 10], v: &mut [usize; 6], depth: usize, w: u64, out: &mut [u64; TRIPLES]) {
            if depth == 6 {
                let s = crate::exact::coup_of_values(*v);
                if s.player_cards == 3 && v[0] == v[2] && v[2] == v[4] {
                    out[v[0]] += w;
                }
                if s.banker_cards == 3 && v[1] == v[3] && v[3] == v[5] {
                    out[10 + v[1]] += w;
                }
                return;
            }
            for x in 0..10 {
                if c[x] > 0 {
                    let k = c[x];
                    c[x] -= 1;
                    v[depth] = x;
                    rec(c, v, depth + 1, w * k, out);
                    c[x] += 1;
                }
            }
        }
        let mut out = [0u64; TRIPLES];
        rec(&mut values.map(u64::from), &mut [0; 6], 0, 1, &mut out);
        out
    }

    /// The class counts are the full enumeration's, grouped.
    #[test]
    fn classes_equal_the_enumeration() {
        for values in
            [[128, 32, 32, 32, 32, 32, 32, 32, 32, 32], [1, 1, 1, 1, 1, 1, 0, 0, 0, 0], [3, 0, 2, 9, 0, 1, 5, 0, 7, 2]]
        {
            let t = summary_table(&values);
            let c = class_counts(&values, true);
            let mut want = vec![0u64; c.classes.len()];
            for (i, &x) in t.counts.iter().enumerate() {
                want[deals().class_of[i] as usize] += x;
            }
            assert_eq!(c.total, t.total);
            assert_eq!(c.classes, want, "{values:?}");
        }
    }
}
