//! Cards: rank, suit, point value.
//!
//! Suits matter to the game only through the side bets that look at them (AU 11A
//! Perfect Pair, AU 11D Lucky Match), so every card carries one.

use std::fmt;
use std::str::FromStr;

/// A card's rank. `Ten` is a number card; `Jack`, `Queen` and `King` are picture
/// cards. The distinction matters for pairs: NSW 10.6 makes 10-10 a pair and K-Q not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Rank {
    Ace = 1,
    Two,
    Three,
    Four,
    Five,
    Six,
    Seven,
    Eight,
    Nine,
    Ten,
    Jack,
    Queen,
    King,
}

impl Rank {
    /// Every rank, Ace first.
    pub const ALL: [Rank; 13] = [
        Rank::Ace,
        Rank::Two,
        Rank::Three,
        Rank::Four,
        Rank::Five,
        Rank::Six,
        Rank::Seven,
        Rank::Eight,
        Rank::Nine,
        Rank::Ten,
        Rank::Jack,
        Rank::Queen,
        Rank::King,
    ];

    /// Index 0..13, Ace = 0, King = 12.
    pub fn index(self) -> usize {
        self as usize - 1
    }

    /// The rank at index 0..13, Ace = 0.
    pub fn from_index(i: usize) -> Option<Rank> {
        Rank::ALL.get(i).copied()
    }

    /// Point value: 2-9 at face value, tens and pictures 0, ace 1.
    /// NSW 3.2; AU 4.1; resort "All cards from 2 to 9 …"; EU 1.2.
    pub fn point(self) -> u8 {
        match self {
            Rank::Ten | Rank::Jack | Rank::Queen | Rank::King => 0,
            r => r as u8,
        }
    }

    /// The count used when burning by the first card's value: tens and pictures
    /// count ten, an ace one. NSW 4.8; AU 4.1A; EU 3.1.1.
    pub fn burn_count(self) -> u8 {
        match self {
            Rank::Ten | Rank::Jack | Rank::Queen | Rank::King => 10,
            r => r as u8,
        }
    }

    /// The short symbol used in card notation: A 2 … 9 10 J Q K.
    pub fn symbol(self) -> &'static str {
        const S: [&str; 13] = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
        S[self.index()]
    }
}

/// A suit. Its colour decides AU "Coloured Pair" and "Mixed Pair" (AU 1.0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Suit {
    Clubs,
    Diamonds,
    Hearts,
    Spades,
}

/// Red or black.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Colour {
    Red,
    Black,
}

impl Suit {
    /// Every suit.
    pub const ALL: [Suit; 4] = [Suit::Clubs, Suit::Diamonds, Suit::Hearts, Suit::Spades];

    /// Index 0..4 in the order of [`Suit::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The suit's colour: diamonds and hearts are red.
    pub fn colour(self) -> Colour {
        match self {
            Suit::Diamonds | Suit::Hearts => Colour::Red,
            Suit::Clubs | Suit::Spades => Colour::Black,
        }
    }

    /// One-letter symbol: C D H S.
    pub fn symbol(self) -> char {
        ['C', 'D', 'H', 'S'][self.index()]
    }
}

/// A playing card.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Card {
    pub rank: Rank,
    pub suit: Suit,
}

impl Card {
    pub const fn new(rank: Rank, suit: Suit) -> Card {
        Card { rank, suit }
    }

    /// Point value of the card (NSW 3.2; AU 4.1).
    pub fn point(self) -> u8 {
        self.rank.point()
    }

    /// Index 0..52: rank-major, suit-minor.
    pub fn index(self) -> usize {
        self.rank.index() * 4 + self.suit.index()
    }

    /// The card at index 0..52 (see [`Card::index`]).
    pub fn from_index(i: usize) -> Option<Card> {
        Some(Card::new(Rank::from_index(i / 4)?, Suit::ALL[i % 4]))
    }
}

/// One 52-card deck without jokers (NSW 3.1), in index order.
pub fn deck() -> [Card; 52] {
    std::array::from_fn(|i| Card::from_index(i).expect("index < 52"))
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.rank.symbol(), self.suit.symbol())
    }
}

/// A card string that is not of the form rank then suit, such as `10H` or `qs`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("card: {0:?} is not a card; write the rank (A, 2-10, J, Q, K) then the suit (C, D, H, S), e.g. 10H or QS")]
pub struct ParseCardError(pub String);

impl FromStr for Card {
    type Err = ParseCardError;

    fn from_str(s: &str) -> Result<Card, ParseCardError> {
        let err = || ParseCardError(s.to_string());
        let t = s.trim();
        let suit_ch = t.chars().last().ok_or_else(err)?;
        let rank_str = &t[..t.len() - suit_ch.len_utf8()];
        let suit = match suit_ch.to_ascii_uppercase() {
            'C' => Suit::Clubs,
            'D' => Suit::Diamonds,
            'H' => Suit::Hearts,
            'S' => Suit::Spades,
            _ => return Err(err()),
        };
        let rank = Rank::ALL
            .into_iter()
            .find(|r| r.symbol().eq_ignore_ascii_case(rank_str) || (rank_str == "T" && *r == Rank::Ten))
            .ok_or_else(err)?;
        Ok(Card::new(rank, suit))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_follow_nsw_3_2() {
        let points: Vec<u8> = Rank::ALL.iter().map(|r| r.point()).collect();
        assert_eq!(points, [1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0, 0]);
        let burns: Vec<u8> = Rank::ALL.iter().map(|r| r.burn_count()).collect();
        assert_eq!(burns, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10]);
    }

    #[test]
    fn every_card_round_trips_through_index_and_text() {
        let d = deck();
        for (i, c) in d.iter().enumerate() {
            assert_eq!(c.index(), i);
            assert_eq!(c.to_string().parse::<Card>().unwrap(), *c);
        }
        assert!(Card::from_index(52).is_none());
        assert!("11H".parse::<Card>().is_err());
        assert!("".parse::<Card>().is_err());
        assert!("QX".parse::<Card>().is_err());
    }

    #[test]
    fn colours() {
        let red = Suit::ALL.iter().filter(|s| s.colour() == Colour::Red).count();
        assert_eq!(red, 2);
        assert_eq!(Suit::Hearts.colour(), Colour::Red);
        assert_eq!(Suit::Spades.colour(), Colour::Black);
    }
}
