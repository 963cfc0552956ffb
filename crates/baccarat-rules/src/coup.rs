//! A coup: two hands dealt in the rulebook's order and played out by the tableau.

use crate::card::Card;
use crate::tableau::{banker_draws, player_action, PlayerAction};

/// Which hand: the Player's or the Banker's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Side {
    Player,
    Banker,
}

/// A value for each side, `BySide { player, banker }`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash, serde::Serialize, serde::Deserialize)]
pub struct BySide<T> {
    pub player: T,
    pub banker: T,
}

impl<T> BySide<T> {
    pub fn get(&self, side: Side) -> &T {
        match side {
            Side::Player => &self.player,
            Side::Banker => &self.banker,
        }
    }
}

/// A hand of two or three cards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Hand {
    cards: [Card; 3],
    len: u8,
}

impl Hand {
    fn new(first: Card, second: Card) -> Hand {
        Hand { cards: [first, second, first], len: 2 }
    }

    fn push(&mut self, c: Card) {
        debug_assert_eq!(self.len, 2, "NSW 9.6: no more than one additional card");
        self.cards[2] = c;
        self.len = 3;
    }

    /// The cards in the order they were dealt to this hand.
    pub fn cards(&self) -> &[Card] {
        &self.cards[..self.len as usize]
    }

    /// The first two cards (the initial deal), which decide the pair bets.
    pub fn initial(&self) -> [Card; 2] {
        [self.cards[0], self.cards[1]]
    }

    /// The third card, if the hand drew one.
    pub fn third(&self) -> Option<Card> {
        (self.len == 3).then_some(self.cards[2])
    }

    /// Point count: the right digit of the sum of point values. NSW 3.3; AU 4.2.
    pub fn total(&self) -> u8 {
        self.cards().iter().map(|c| c.point()).sum::<u8>() % 10
    }

    /// Point count of the first two cards.
    pub fn initial_total(&self) -> u8 {
        (self.cards[0].point() + self.cards[1].point()) % 10
    }

    /// A natural: 8 or 9 on the first two cards (NSW 1.1; AU 1.0).
    pub fn is_natural(&self) -> bool {
        self.len == 2 && self.total() >= 8
    }
}

/// The winner of a coup.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Winner {
    Player,
    Banker,
    Tie,
}

/// Everything about a coup's result that the main wagers, Super Six, the Tiger
/// wagers and Dragon Bonus look at: each hand's final point count and card count.
/// A two-card hand of 8 or 9 is necessarily a natural.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct CoupSummary {
    pub player_total: u8,
    pub banker_total: u8,
    pub player_cards: u8,
    pub banker_cards: u8,
}

impl CoupSummary {
    /// Player wins on the higher point count (NSW 5.1.1), Banker likewise
    /// (NSW 5.1.2), equal counts are a tie (NSW 1.1 "Tie"; AU 1.0).
    pub fn winner(&self) -> Winner {
        use std::cmp::Ordering::*;
        match self.player_total.cmp(&self.banker_total) {
            Greater => Winner::Player,
            Less => Winner::Banker,
            Equal => Winner::Tie,
        }
    }

    pub fn total(&self, side: Side) -> u8 {
        match side {
            Side::Player => self.player_total,
            Side::Banker => self.banker_total,
        }
    }

    pub fn cards(&self, side: Side) -> u8 {
        match side {
            Side::Player => self.player_cards,
            Side::Banker => self.banker_cards,
        }
    }

    pub fn is_natural(&self, side: Side) -> bool {
        self.cards(side) == 2 && self.total(side) >= 8
    }

    /// Dense index 0..400 for tables keyed by summary.
    pub fn index(&self) -> usize {
        ((self.player_total as usize * 10 + self.banker_total as usize) * 2 + (self.player_cards as usize - 2)) * 2
            + (self.banker_cards as usize - 2)
    }

    /// Inverse of [`CoupSummary::index`].
    pub fn from_index(i: usize) -> CoupSummary {
        CoupSummary {
            banker_cards: (i % 2) as u8 + 2,
            player_cards: ((i / 2) % 2) as u8 + 2,
            banker_total: ((i / 4) % 10) as u8,
            player_total: ((i / 40) % 10) as u8,
        }
    }

    pub const COUNT: usize = 400;
}

/// A completed coup.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Coup {
    pub player: Hand,
    pub banker: Hand,
}

/// The card source ran dry before the coup was complete (NSW 12.6; AU 12.5: the
/// coup is void).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("NSW 12.6 / AU 12.5: insufficient cards to complete the coup; the coup is void")]
pub struct InsufficientCards;

impl Coup {
    /// Deal a coup from a source of cards: P1 B1 P2 B2 (NSW 7.3; AU 8.4), then a
    /// third card to the Player and then the Banker as the tableau requires
    /// (NSW 9; AU 9).
    pub fn deal(mut next: impl FnMut() -> Option<Card>) -> Result<Coup, InsufficientCards> {
        let mut take = || next().ok_or(InsufficientCards);
        let (p1, b1, p2, b2) = (take()?, take()?, take()?, take()?);
        let mut player = Hand::new(p1, p2);
        let mut banker = Hand::new(b1, b2);
        let (pt, bt) = (player.total(), banker.total());
        match player_action(pt, bt) {
            PlayerAction::Natural => {}
            PlayerAction::Stand => {
                if banker_draws(bt, None) {
                    banker.push(take()?);
                }
            }
            PlayerAction::Draw => {
                let third = take()?;
                player.push(third);
                if banker_draws(bt, Some(third.point())) {
                    banker.push(take()?);
                }
            }
        }
        Ok(Coup { player, banker })
    }

    /// Deal from the front of a slice; returns the coup and the number of cards used.
    pub fn from_cards(cards: &[Card]) -> Result<(Coup, usize), InsufficientCards> {
        let mut i = 0;
        let coup = Coup::deal(|| {
            let c = cards.get(i).copied();
            i += 1;
            c
        })?;
        Ok((coup, coup.player.cards().len() + coup.banker.cards().len()))
    }

    pub fn hand(&self, side: Side) -> &Hand {
        match side {
            Side::Player => &self.player,
            Side::Banker => &self.banker,
        }
    }

    pub fn summary(&self) -> CoupSummary {
        CoupSummary {
            player_total: self.player.total(),
            banker_total: self.banker.total(),
            player_cards: self.player.cards().len() as u8,
            banker_cards: self.banker.cards().len() as u8,
        }
    }

    pub fn winner(&self) -> Winner {
        self.summary().winner()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cards(s: &str) -> Vec<Card> {
        s.split_whitespace().map(|c| c.parse().unwrap()).collect()
    }

    #[test]
    fn deal_order_is_p1_b1_p2_b2() {
        // Player 2+3 = 5 draws; Banker 9? no: banker K+9 = 9 natural, so nobody draws.
        let (coup, used) = Coup::from_cards(&cards("2H KS 3D 9C 5S")).unwrap();
        assert_eq!(used, 4);
        assert_eq!(coup.player.cards(), &cards("2H 3D")[..]);
        assert_eq!(coup.banker.cards(), &cards("KS 9C")[..]);
        assert!(coup.banker.is_natural());
        assert_eq!(coup.winner(), Winner::Banker);
    }

    #[test]
    fn resort_worked_examples_of_point_counts() {
        // resort-house.txt: "Ace + 5 = 6", "10 + 3 + 6 = 19. Hand total = 9",
        // "King + 10 = 20. Hand total = 0", "7 + 5 + 5 = 17. Hand total = 7".
        let h = |s: &str| {
            let cs = cards(s);
            cs.iter().map(|c| c.point()).sum::<u8>() % 10
        };
        assert_eq!(h("AS 5H"), 6);
        assert_eq!(h("10S 3H 6D"), 9);
        assert_eq!(h("KS 10H"), 0);
        assert_eq!(h("7S 5H 5D"), 7);
    }

    #[test]
    fn player_draws_then_banker_by_table_2() {
        // Player A+2 = 3 draws the 5th card (8); Banker 3+K = 3 stands on an 8.
        let (coup, used) = Coup::from_cards(&cards("AS 3H 2D KC 8S 4H")).unwrap();
        assert_eq!(used, 5);
        assert_eq!(coup.player.total(), 1);
        assert_eq!(coup.banker.total(), 3);
        assert_eq!(coup.winner(), Winner::Banker);
        // Player stands on 6; Banker 4 draws the 5th card (NSW 9.5).
        let (coup, used) = Coup::from_cards(&cards("3S 2H 3D 2C 5S")).unwrap();
        assert_eq!(used, 5);
        assert_eq!(coup.banker.third(), Some("5S".parse().unwrap()));
        assert_eq!(coup.summary().banker_total, 9);
    }

    #[test]
    fn short_source_is_insufficient() {
        assert_eq!(Coup::from_cards(&cards("AS 3H 2D")), Err(InsufficientCards));
        assert_eq!(Coup::from_cards(&cards("AS 3H 2D KC")), Err(InsufficientCards));
    }

    #[test]
    fn summary_index_round_trips() {
        for i in 0..CoupSummary::COUNT {
            assert_eq!(CoupSummary::from_index(i).index(), i);
        }
    }
}
