//! Exact enumeration of a coup's result over a shoe composition.
//!
//! # Method
//!
//! A coup uses at most six cards. Give the Player positions 1, 3, 5 and the
//! Banker 2, 4, 6 of the first six cards of the shoe; a hand that does not draw
//! leaves its third position unused. Because a shuffled shoe is exchangeable, this
//! has exactly the law of the real deal, where a Banker who draws after a standing
//! Player takes card 5. So every probability is a count of ordered six-card
//! sequences of distinguishable cards, over the common denominator `N (N-1) … (N-5)`.
//! For 8 decks that denominator is 4,998,398,275,503,360.
//!
//! The enumeration runs over point values (10 classes) for wagers that see only
//! totals and card counts ([`SummaryTable`]); wagers that see ranks or suits are
//! counted over those classes in `bets.rs`. Counts fit in `u64` because a shoe
//! holds at most 416 cards.

use baccarat_rules::{banker_draws, player_action, CoupSummary, PlayerAction};

/// `n (n-1) … (n-k+1)`, zero when `k > n`.
pub fn falling(n: u64, k: u32) -> u64 {
    (0..k as u64).map(|i| n.saturating_sub(i)).product()
}

/// Counts of ordered six-card sequences by coup result ([`CoupSummary::index`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SummaryTable {
    /// `N (N-1) … (N-5)`: the number of ordered six-card sequences.
    pub total: u64,
    pub counts: [u64; CoupSummary::COUNT],
}

fn key(pt: u8, bt: u8, pc: u8, bc: u8) -> usize {
    CoupSummary { player_total: pt, banker_total: bt, player_cards: pc, banker_cards: bc }.index()
}

/// Enumerate every coup from a shoe with `values[v]` cards of point value `v`.
/// The draw decisions are the rules crate's tableau ([`player_action`],
/// [`banker_draws`]); nothing here restates them.
pub fn summary_table(values: &[u32; 10]) -> SummaryTable {
    let n: u64 = values.iter().map(|&v| v as u64).sum();
    let mut c: [u64; 10] = values.map(|v| v as u64);
    let mut counts = [0u64; CoupSummary::COUNT];
    let rem = n.saturating_sub(4);
    let rem1 = rem.saturating_sub(1);
    for p1 in 0..10 {
        let w1 = c[p1];
        if w1 == 0 {
            continue;
        }
        c[p1] -= 1;
        for b1 in 0..10 {
            let w2 = w1 * c[b1];
            if w2 == 0 {
                continue;
            }
            c[b1] -= 1;
            for p2 in 0..10 {
                let w3 = w2 * c[p2];
                if w3 == 0 {
                    continue;
                }
                c[p2] -= 1;
                for b2 in 0..10 {
                    let w4 = w3 * c[b2];
                    if w4 == 0 {
                        continue;
                    }
                    c[b2] -= 1;
                    let pt = ((p1 + p2) % 10) as u8;
                    let bt = ((b1 + b2) % 10) as u8;
                    add_third_cards(&mut counts, &mut c, pt, bt, w4, rem, rem1);
                    c[b2] += 1;
                }
                c[p2] += 1;
            }
            c[b1] += 1;
        }
        c[p1] += 1;
    }
    SummaryTable { total: falling(n, 6), counts }
}

/// Given the four initial cards (totals `pt` and `bt`, weight `w4`, `c` the
/// values left), add each result the tableau leads to: a natural or two
/// standing hands, the Banker's third card after a standing Player, or the
/// Player's and then perhaps the Banker's. `rem` and `rem1` count the free
/// positions 5 and 6. Called once per four initial values, inside
/// [`summary_table`]'s loops, so inlined.
#[inline]
fn add_third_cards(
    counts: &mut [u64; CoupSummary::COUNT],
    c: &mut [u64; 10],
    pt: u8,
    bt: u8,
    w4: u64,
    rem: u64,
    rem1: u64,
) {
    match player_action(pt, bt) {
        PlayerAction::Natural => counts[key(pt, bt, 2, 2)] += w4 * rem * rem1,
        PlayerAction::Stand => {
            if banker_draws(bt, None) {
                // Banker's card at position 6; position 5 unused.
                for b3 in 0..10 {
                    let fb = (bt + b3 as u8) % 10;
                    counts[key(pt, fb, 2, 3)] += w4 * c[b3] * rem1;
                }
            } else {
                counts[key(pt, bt, 2, 2)] += w4 * rem * rem1;
            }
        }
        PlayerAction::Draw => {
            for p3 in 0..10 {
                let w5 = w4 * c[p3];
                if w5 == 0 {
                    continue;
                }
                c[p3] -= 1;
                let fp = (pt + p3 as u8) % 10;
                if banker_draws(bt, Some(p3 as u8)) {
                    for b3 in 0..10 {
                        let fb = (bt + b3 as u8) % 10;
                        counts[key(fp, fb, 3, 3)] += w5 * c[b3];
                    }
                } else {
                    counts[key(fp, bt, 3, 2)] += w5 * rem1;
                }
                c[p3] += 1;
            }
        }
    }
}

/// The result of the six-position model for point values `v` at positions 1..6
/// (Player 1, 3, 5; Banker 2, 4, 6), by the rules' tableau.
pub fn coup_of_values(v: [usize; 6]) -> CoupSummary {
    let pt = ((v[0] + v[2]) % 10) as u8;
    let bt = ((v[1] + v[3]) % 10) as u8;
    let (p3, b3) = (v[4] as u8, v[5] as u8);
    let s = |fp: u8, fb: u8, pc: u8, bc: u8| CoupSummary {
        player_total: fp,
        banker_total: fb,
        player_cards: pc,
        banker_cards: bc,
    };
    match player_action(pt, bt) {
        PlayerAction::Natural => s(pt, bt, 2, 2),
        PlayerAction::Stand if banker_draws(bt, None) => s(pt, (bt + b3) % 10, 2, 3),
        PlayerAction::Stand => s(pt, bt, 2, 2),
        PlayerAction::Draw if banker_draws(bt, Some(p3)) => s((pt + p3) % 10, (bt + b3) % 10, 3, 3),
        PlayerAction::Draw => s((pt + p3) % 10, bt, 3, 2),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use baccarat_rules::{Card, Coup, Rank, Suit};

    /// The six-position model agrees with the rules' own deal, in which a Banker
    /// who draws after a standing Player takes the fifth card, for every sequence
    /// of six point values.
    #[test]
    fn six_position_model_matches_the_real_deal_for_all_value_sequences() {
        let card = |v: usize| Card::new(if v == 0 { Rank::King } else { Rank::ALL[v - 1] }, Suit::Spades);
        for seq in 0..1_000_000usize {
            let mut v = [0usize; 6];
            let mut s = seq;
            for x in v.iter_mut() {
                *x = s % 10;
                s /= 10;
            }
            let model = coup_of_values(v);
            let mut real: Vec<Card> = v[..4].iter().map(|&x| card(x)).collect();
            if model.player_cards == 3 {
                real.push(card(v[4]));
                real.push(card(v[5]));
            } else {
                real.push(card(v[5]));
            }
            let (coup, _) = Coup::from_cards(&real).unwrap();
            assert_eq!(coup.summary(), model, "{v:?}");
        }
    }

    #[test]
    fn eight_deck_denominator_is_the_published_count() {
        let t = summary_table(&[128, 32, 32, 32, 32, 32, 32, 32, 32, 32]);
        assert_eq!(t.total, 4_998_398_275_503_360);
        assert_eq!(t.counts.iter().sum::<u64>(), t.total);
    }

    #[test]
    fn every_sequence_is_counted_once_in_small_shoes() {
        for values in [[1, 1, 1, 1, 1, 1, 0, 0, 0, 0], [6, 0, 0, 0, 0, 0, 0, 0, 0, 0], [2, 1, 0, 3, 0, 0, 0, 4, 0, 1]] {
            let t = summary_table(&values);
            assert_eq!(t.counts.iter().sum::<u64>(), t.total, "{values:?}");
        }
    }
}
