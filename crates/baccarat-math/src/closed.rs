//! Every wager's distribution for one shoe without enumerating the shoe.
//!
//! The wagers on the result ([`Basis::Summary`]) read the class counts of
//! `deals.rs`. The wagers on the first cards of a hand are closed forms in the
//! 13 rank counts, or the 52 card counts where suits decide them (Perfect Pair,
//! AU 11A.7; Lucky Match, AU 11D.8): the two cards of one hand are two of the six
//! positions and the other four are free (`(N-2)^(4)` ways); the four initial
//! cards of Tiger Pair leave two free (`(N-4)^(2)`). Every outcome is the rules
//! crate's classifier on representative cards; two initial cards of different
//! ranks are classified once, by one such pair (NSW 10.6, AU 11A.6 and 11D.6:
//! only cards of one rank can win).

use std::sync::OnceLock;

use baccarat_rules::{Basis, Bet, Card, Outcome, Rank, Side, Suit};

use crate::bets::{needs_suits, Distribution, NeedsSuits};
use crate::deals::{class_counts, deals, ClassCounts, TRIPLES};
use crate::exact::falling;
use crate::shoe::Shoe;

/// What the closed forms need of one shoe: its class counts and card counts.
#[derive(Clone, Debug)]
pub struct ShoeOdds {
    pub counts: ClassCounts,
    /// The triple features, counted on first need if `counts` lacks them.
    triples: OnceLock<[u64; TRIPLES]>,
    cards: [u64; 52],
    ranks: [u64; 13],
    values: [u64; 10],
    suits_known: bool,
}

impl ShoeOdds {
    /// Count the classes of `shoe` (the one costly step, tens of microseconds),
    /// and the triple features Lucky Match needs.
    pub fn new(shoe: &Shoe) -> ShoeOdds {
        ShoeOdds::counted(shoe, true)
    }

    /// As [`ShoeOdds::new`], the triple features counted now or on first need
    /// (by a Lucky Match wager).
    pub fn counted(shoe: &Shoe, with_triples: bool) -> ShoeOdds {
        let values = shoe.value_counts();
        let counts = class_counts(&values, with_triples);
        let triples = OnceLock::new();
        if let Some(t) = counts.triples {
            let _ = triples.set(t);
        }
        ShoeOdds {
            counts,
            triples,
            cards: shoe.card_counts().map(u64::from),
            ranks: shoe.rank_counts().map(u64::from),
            values: values.map(u64::from),
            suits_known: shoe.suits_known(),
        }
    }

    fn triples(&self) -> &[u64; TRIPLES] {
        self.triples.get_or_init(|| {
            let values = self.values.map(|v| v as u32);
            class_counts(&values, true).triples.expect("asked for")
        })
    }

    fn n(&self) -> u64 {
        self.ranks.iter().sum()
    }

    /// The outcome distribution of `bet`, the same as [`crate::distribution`]'s.
    pub fn distribution(&self, bet: Bet) -> Result<Distribution, NeedsSuits> {
        if needs_suits(bet) && !self.suits_known {
            return Err(NeedsSuits(bet));
        }
        let mut d = Distribution { bet, total: self.counts.total, counts: Vec::new() };
        match bet.basis() {
            Basis::Summary => {
                let outcomes = deals().outcomes(bet).expect("a Summary wager");
                for (&o, &n) in outcomes.iter().zip(&self.counts.classes) {
                    d.add(o, n);
                }
            }
            Basis::Initial(_) => self.initial(&mut d),
            Basis::HandCards(side) => self.hand_cards(&mut d, side),
            Basis::BothInitial => self.both_initial(&mut d),
        }
        debug_assert_eq!(d.counts.iter().map(|(_, c)| c).sum::<u64>(), d.total);
        Ok(d)
    }

    /// Ordered pairs of distinct cards `(a, b)` with `a`, `b` of rank `r` and
    /// suits `s`, `t`.
    fn same_rank(&self, r: usize, s: usize, t: usize) -> u64 {
        let (a, b) = (self.cards[r * 4 + s], self.cards[r * 4 + t]);
        a * b.saturating_sub(u64::from(s == t))
    }

    /// Ordered pairs of distinct cards of one rank.
    fn pairs(&self) -> u64 {
        self.ranks.iter().map(|&k| k * k.saturating_sub(1)).sum()
    }

    /// A hand's two initial cards: by rank, or by rank and suit.
    fn initial(&self, d: &mut Distribution) {
        let t = first_cards(d.bet);
        let n = self.n();
        let rest = falling(n - 2, 4);
        let mut acc = [0u64; 8];
        for r in 0..13 {
            if needs_suits(d.bet) {
                for (i, (s, u)) in suit_pairs().enumerate() {
                    acc[t.two[r * 16 + i] as usize] += self.same_rank(r, s, u);
                }
            } else {
                let k = self.ranks[r];
                acc[t.two[r * 16 + 1] as usize] += k * k.saturating_sub(1);
            }
        }
        acc[t.other as usize] += n * (n - 1) - self.pairs();
        for (&o, &c) in t.outcomes.iter().zip(&acc) {
            d.add(o, c * rest);
        }
    }

    /// Lucky Match (AU 11D): the two initial cards by rank and suit, and of two
    /// identical ones, those the hand's third card matches (AU 11D.9).
    fn hand_cards(&self, d: &mut Distribution, side: Side) {
        let t = first_cards(d.bet);
        let n = self.n();
        let rest = falling(n - 2, 4);
        let mut acc = [0u64; 8];
        for r in 0..13 {
            let v = Rank::ALL[r].point() as usize;
            let by_value = self.triples()[side_index(side) * 10 + v];
            for (i, (s, u)) in suit_pairs().enumerate() {
                let mut two = self.same_rank(r, s, u) * rest;
                if s == u {
                    // The triple count of one card is its share of the value's:
                    // both are (its ordered triples) × (the same ways for the
                    // other positions from a shoe with three fewer of value v).
                    let three = match falling(self.values[v], 3) {
                        0 => 0,
                        f => falling(self.cards[r * 4 + s], 3) * (by_value / f),
                    };
                    acc[t.three[r * 4 + s] as usize] += three;
                    two -= three;
                }
                acc[t.two[r * 16 + i] as usize] += two;
            }
        }
        acc[t.other as usize] += (n * (n - 1) - self.pairs()) * rest;
        for (&o, &c) in t.outcomes.iter().zip(&acc) {
            d.add(o, c);
        }
    }

    /// Tiger Pair (NSW 10.23): both hands' two initial cards, by rank.
    fn both_initial(&self, d: &mut Distribution) {
        let bet = d.bet;
        let n = self.n();
        let rest = falling(n - 4, 2);
        let f2: Vec<u64> = self.ranks.iter().map(|&k| falling(k, 2)).collect();
        let pairs: u64 = f2.iter().sum();
        // Both hands a pair of one rank; of two ranks; only one hand a pair.
        let twin: u64 = self.ranks.iter().map(|&k| falling(k, 4)).sum();
        let double = pairs * pairs - f2.iter().map(|x| x * x).sum::<u64>();
        let one = pairs * falling(n - 2, 2) - double - twin;
        let neither = falling(n, 4) - twin - double - 2 * one;
        let (a, a2, b, c) = (card(0, 0), card(0, 1), card(1, 0), card(2, 0));
        d.add(bet.classify_both_initial([a, a2], [a, a2]), twin * rest);
        d.add(bet.classify_both_initial([a, a2], [b, b]), double * rest);
        d.add(bet.classify_both_initial([a, a2], [b, c]), one * rest);
        d.add(bet.classify_both_initial([b, c], [a, a2]), one * rest);
        d.add(bet.classify_both_initial([a, b], [a, c]), neither * rest);
    }
}

/// A first-cards wager's outcomes, classified once per process by the rules
/// crate: of two cards of each rank and ordered pair of suits (`two[r * 16 +
/// s * 4 + t]`), of three identical cards (`three[card]`, Lucky Match), and of
/// two cards of different ranks; each an index into `outcomes`.
struct FirstCards {
    outcomes: Vec<Outcome>,
    two: [u8; 13 * 16],
    three: [u8; 52],
    other: u8,
}

fn first_cards(bet: Bet) -> &'static FirstCards {
    static T: OnceLock<Vec<(Bet, FirstCards)>> = OnceLock::new();
    let all = T.get_or_init(|| Bet::ALL.into_iter().map(|b| (b, classify_first_cards(b))).collect());
    &all.iter().find(|(b, _)| *b == bet).expect("every wager").1
}

fn classify_first_cards(bet: Bet) -> FirstCards {
    let classify = |cards: &[Card]| match bet.basis() {
        Basis::HandCards(_) => bet.classify_hand_cards(cards),
        _ => bet.classify_initial([cards[0], cards[1]]),
    };
    let mut outcomes = Vec::new();
    let mut index = |o: Outcome| {
        let i = outcomes.iter().position(|&x| x == o).unwrap_or_else(|| {
            outcomes.push(o);
            outcomes.len() - 1
        });
        u8::try_from(i).expect("at most 8 outcomes")
    };
    let two = std::array::from_fn(|i| index(classify(&[card(i / 16, i % 16 / 4), card(i / 16, i % 4)])));
    let three = std::array::from_fn(|i| index(classify(&[card(i / 4, i % 4); 3])));
    let other = index(classify(&[card(0, 0), card(1, 0)]));
    assert!(outcomes.len() <= 8, "{bet}: more outcomes than the closed forms hold");
    FirstCards { outcomes, two, three, other }
}

fn card(rank: usize, suit: usize) -> Card {
    Card::new(Rank::ALL[rank], Suit::ALL[suit])
}

fn suit_pairs() -> impl Iterator<Item = (usize, usize)> {
    (0..16).map(|i| (i / 4, i % 4))
}

fn side_index(side: Side) -> usize {
    match side {
        Side::Player => 0,
        Side::Banker => 1,
    }
}
