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

use baccarat_rules::{Basis, Bet, Card, Rank, Side, Suit};

use crate::bets::{needs_suits, Distribution, NeedsSuits};
use crate::deals::{class_counts, deals, ClassCounts};
use crate::exact::falling;
use crate::shoe::Shoe;

/// What the closed forms need of one shoe: its class counts and card counts.
#[derive(Clone, Debug)]
pub struct ShoeOdds {
    pub counts: ClassCounts,
    cards: [u64; 52],
    ranks: [u64; 13],
    values: [u64; 10],
    suits_known: bool,
}

impl ShoeOdds {
    /// Count the classes of `shoe` (the one costly step, tens of microseconds).
    pub fn new(shoe: &Shoe) -> ShoeOdds {
        let values = shoe.value_counts();
        ShoeOdds {
            counts: class_counts(&values),
            cards: shoe.card_counts().map(u64::from),
            ranks: shoe.rank_counts().map(u64::from),
            values: values.map(u64::from),
            suits_known: shoe.suits_known(),
        }
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
                for (rep, &n) in deals().representative.iter().zip(&self.counts.classes) {
                    d.add(bet.classify_summary(rep), n);
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
        let bet = d.bet;
        let n = self.n();
        let rest = falling(n - 2, 4);
        if needs_suits(bet) {
            for r in 0..13 {
                for (s, t) in suit_pairs() {
                    d.add(bet.classify_initial([card(r, s), card(r, t)]), self.same_rank(r, s, t) * rest);
                }
            }
        } else {
            for r in 0..13 {
                let k = self.ranks[r];
                d.add(bet.classify_initial([card(r, 0), card(r, 1)]), k * k.saturating_sub(1) * rest);
            }
        }
        let other = n * (n - 1) - self.pairs();
        d.add(bet.classify_initial([card(0, 0), card(1, 0)]), other * rest);
    }

    /// Lucky Match (AU 11D): the two initial cards by rank and suit, and of two
    /// identical ones, those the hand's third card matches (AU 11D.9).
    fn hand_cards(&self, d: &mut Distribution, side: Side) {
        let bet = d.bet;
        let n = self.n();
        let rest = falling(n - 2, 4);
        for r in 0..13 {
            let v = Rank::ALL[r].point() as usize;
            let by_value = self.counts.triples[side_index(side) * 10 + v];
            for (s, t) in suit_pairs() {
                let (a, b) = (card(r, s), card(r, t));
                let mut two = self.same_rank(r, s, t) * rest;
                if s == t {
                    // The triple count of one card is its share of the value's:
                    // both are (its ordered triples) × (the same ways for the
                    // other positions from a shoe with three fewer of value v).
                    let three = match falling(self.values[v], 3) {
                        0 => 0,
                        f => falling(self.cards[r * 4 + s], 3) * (by_value / f),
                    };
                    d.add(bet.classify_hand_cards(&[a, a, a]), three);
                    two -= three;
                }
                d.add(bet.classify_hand_cards(&[a, b]), two);
            }
        }
        let other = n * (n - 1) - self.pairs();
        d.add(bet.classify_hand_cards(&[card(0, 0), card(1, 0)]), other * rest);
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
