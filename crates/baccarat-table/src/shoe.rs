//! The shoe: its cards in dealing order, the cut, the burn and the cutting card.
//!
//! * Cut (NSW 4.5–4.6; AU 7.6): the cutting card goes in at least one deck from
//!   either end; the cards in front of it go to the back; the dealer then puts the
//!   cutting card at least 20 cards from the back. The bounds come from the profile
//!   (`procedures.cut_min_from_either_end`, `cutting_card_min_from_back`).
//! * Burn (NSW 4.7–4.8; AU 7.7, 4.1A; EU 3.1.1): burn one (shown or not), or turn
//!   one and burn as many more as its value with tens and pictures counting ten.
//!   EU 3.1.2's three no-bet coups are coups, run by the table.
//! * Cutting card (NSW 4.9–4.10; AU 11.2): when it comes out during a coup, that
//!   coup is completed and one more, the last coup, is dealt; when it comes out as
//!   the first card of a coup, that coup is the last.
//! * Continuous shuffler (AU 7.2, 7.8): no cut, no cutting card; the shoe never ends.

use baccarat_rules::{deck, BurnProcedure, Card};

use crate::shuffle::{shuffle_with, Seed, Stream, SHUFFLE_ALGORITHM};

/// `decks` fresh 52-card decks in deck order.
pub fn fresh(decks: u32) -> Vec<Card> {
    (0..decks).flat_map(|_| deck()).collect()
}

/// Shuffled `decks` decks, and the stream left after the shuffle (used for a
/// simulated cut, so one seed fixes the whole shoe).
pub fn shuffled(decks: u32, seed: &Seed) -> (Vec<Card>, Stream) {
    shuffled_from(decks, Stream::new(seed))
}

/// Shuffled `decks` decks from a given stream (a simulation's shoe stream).
pub fn shuffled_from(decks: u32, mut s: Stream) -> (Vec<Card>, Stream) {
    let mut cards = fresh(decks);
    shuffle_with(&mut cards, &mut s);
    (cards, s)
}

/// Why a cut was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CutError {
    #[error(
        "NSW 4.5 / AU 7.6: the cutting card must go at least {min} cards in from either end of {len}; {at} is not"
    )]
    CutPosition { at: usize, min: usize, len: usize },
    #[error("NSW 4.6 / AU 7.6: the cutting card must be placed at least {min} cards from the back; {from_back} is not (and must leave cards to deal in {len})")]
    CuttingCard { from_back: usize, min: usize, len: usize },
}

/// The cut as performed: where the cutting card went in, and where the dealer
/// then placed it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Cut {
    /// Cards in front of the cutting card, moved to the back.
    pub at: usize,
    /// Cards behind the cutting card once placed.
    pub from_back: usize,
}

/// Bounds of the cut from a rulebook profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CutRules {
    pub min_from_either_end: usize,
    pub cutting_card_min_from_back: usize,
}

impl CutRules {
    pub fn from_profile(p: &baccarat_rules::RulebookConfig) -> CutRules {
        CutRules {
            min_from_either_end: p.procedures.cut_min_from_either_end as usize,
            cutting_card_min_from_back: p.procedures.cutting_card_min_from_back as usize,
        }
    }

    /// Check a cut against these bounds for a stack of `len` cards.
    pub fn check(&self, cut: Cut, len: usize) -> Result<(), CutError> {
        let min = self.min_from_either_end;
        // `at` comes from outside (a command): compare without overflowing.
        if cut.at < min || cut.at.checked_add(min).is_none_or(|end| end > len) {
            return Err(CutError::CutPosition { at: cut.at, min, len });
        }
        if cut.from_back < self.cutting_card_min_from_back || cut.from_back >= len {
            return Err(CutError::CuttingCard { from_back: cut.from_back, min: self.cutting_card_min_from_back, len });
        }
        Ok(())
    }

    /// A cut drawn from a stream: a uniform cut position within the bounds, and
    /// the cutting card `from_back` cards from the back.
    pub fn random(&self, s: &mut Stream, len: usize, from_back: usize) -> Cut {
        let span = (len + 1).saturating_sub(2 * self.min_from_either_end).max(1);
        Cut { at: self.min_from_either_end + s.below(span as u32) as usize, from_back }
    }
}

/// What a draw from the shoe produced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Draw {
    Card(Card),
    /// The shoe is empty (NSW 12.6; AU 12.5).
    Empty,
}

/// The shoe in play: cards in dealing order and the cutting card's place.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Shoe {
    cards: Vec<Card>,
    next: usize,
    /// Index of the first card behind the cutting card, if there is one.
    cutting_card: Option<usize>,
    cutting_card_out: bool,
    continuous: bool,
}

/// A burn as performed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Burn {
    pub procedure: BurnProcedure,
    /// The card turned face up (turn and burn), or shown on request.
    pub shown: Option<Card>,
    /// Every card removed, the first one included.
    pub cards: Vec<Card>,
}

impl Shoe {
    /// Cut `stack` and place the cutting card (NSW 4.5–4.6; AU 7.6).
    pub fn cut(mut stack: Vec<Card>, cut: Cut, rules: &CutRules) -> Result<Shoe, CutError> {
        rules.check(cut, stack.len())?;
        stack.rotate_left(cut.at);
        let len = stack.len();
        Ok(Shoe {
            cards: stack,
            next: 0,
            cutting_card: Some(len - cut.from_back),
            cutting_card_out: false,
            continuous: false,
        })
    }

    /// A shoe without a cutting card: a shuffling device's stack, which is not cut
    /// (NSW 4.11; AU 7.8).
    pub fn uncut(stack: Vec<Card>) -> Shoe {
        Shoe { cards: stack, next: 0, cutting_card: None, cutting_card_out: false, continuous: false }
    }

    /// A continuous shuffler (AU 7.2): dealt cards go back in, so the shoe never
    /// reaches a cutting card. Modelled as an uncut stack that the table refills.
    pub fn continuous(stack: Vec<Card>) -> Shoe {
        Shoe { continuous: true, ..Shoe::uncut(stack) }
    }

    pub fn is_continuous(&self) -> bool {
        self.continuous
    }

    /// Cards not yet dealt.
    pub fn remaining(&self) -> usize {
        self.cards.len() - self.next
    }

    /// Cards dealt so far, including burned ones.
    pub fn dealt(&self) -> usize {
        self.next
    }

    pub fn len(&self) -> usize {
        self.cards.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cards.is_empty()
    }

    /// Whether the cutting card is the next thing in the shoe (it comes out before
    /// the card behind it).
    pub fn cutting_card_next(&self) -> bool {
        !self.cutting_card_out && self.cutting_card == Some(self.next)
    }

    /// Take the cutting card out and set it aside (NSW 4.9; AU 11.2). Returns false
    /// if it was not next.
    pub fn take_cutting_card(&mut self) -> bool {
        if self.cutting_card_next() {
            self.cutting_card_out = true;
            true
        } else {
            false
        }
    }

    pub fn cutting_card_out(&self) -> bool {
        self.cutting_card_out
    }

    /// The next card, without taking it (a scanning shoe reads it as it comes).
    pub fn peek(&self) -> Option<Card> {
        self.cards.get(self.next).copied()
    }

    /// Deal the next card. The caller takes the cutting card out first when it is
    /// next (see [`Shoe::cutting_card_next`]).
    pub fn draw(&mut self) -> Draw {
        debug_assert!(!self.cutting_card_next(), "take the cutting card out first");
        match self.cards.get(self.next) {
            Some(&c) => {
                self.next += 1;
                Draw::Card(c)
            }
            None => Draw::Empty,
        }
    }

    /// A continuous shuffler takes `cards` back (AU 7.2): each goes into the
    /// undealt stack at a uniform position drawn from `s`, and dealing continues
    /// from the top of the mixed stack.
    pub fn return_cards(&mut self, cards: &[Card], s: &mut Stream) {
        let mut stack: Vec<Card> = self.cards[self.next..].to_vec();
        for &c in cards {
            let at = s.below(stack.len() as u32 + 1) as usize;
            stack.insert(at, c);
        }
        self.cards = stack;
        self.next = 0;
    }

    /// The cards from the next one on, in order.
    pub fn upcoming(&self) -> &[Card] {
        &self.cards[self.next..]
    }

    /// Burn by `procedure` (NSW 4.7; AU 7.7; EU 3.1.1). `show` shows a burned card
    /// on request (NSW 4.7.2; AU 7.7(b)). A burn that runs past the cards is
    /// refused and changes nothing.
    pub fn burn(&mut self, procedure: BurnProcedure, show: bool) -> Result<Burn, BurnError> {
        let start = self.next;
        let count = match procedure {
            BurnProcedure::BurnOne | BurnProcedure::BurnOneShown => 1,
            // NSW 4.7.3 and 4.8: the first card face up, then as many as its
            // value, tens and pictures counting ten.
            BurnProcedure::TurnAndBurn => 1 + self.cards.get(start).map_or(0, |c| c.rank.burn_count() as usize),
            BurnProcedure::ThreeNoBetCoups => return Err(BurnError::NotABurn),
        };
        if self.remaining() < count || (self.cutting_card.is_some_and(|cc| cc > start && cc < start + count)) {
            return Err(BurnError::TooFewCards { needed: count, remaining: self.remaining() });
        }
        let cards = self.cards[start..start + count].to_vec();
        self.next += count;
        let shown = match procedure {
            BurnProcedure::TurnAndBurn => Some(cards[0]),
            BurnProcedure::BurnOneShown if show => Some(cards[0]),
            _ => None,
        };
        Ok(Burn { procedure, shown, cards })
    }

    pub fn origin_algorithm() -> &'static str {
        SHUFFLE_ALGORITHM
    }
}

/// Why a burn could not be done.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BurnError {
    #[error("burn: {needed} cards are needed and {remaining} remain before the cutting card")]
    TooFewCards { needed: usize, remaining: usize },
    #[error("EU 3.1.2: three no-bet coups are dealt as coups, not burned")]
    NotABurn,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules() -> CutRules {
        CutRules { min_from_either_end: 52, cutting_card_min_from_back: 20 }
    }

    #[test]
    fn cut_moves_the_front_to_the_back_and_places_the_cutting_card() {
        let stack = fresh(8);
        let shoe = Shoe::cut(stack.clone(), Cut { at: 100, from_back: 20 }, &rules()).unwrap();
        assert_eq!(shoe.upcoming()[0], stack[100]);
        assert_eq!(shoe.upcoming()[415], stack[99]);
        assert_eq!(shoe.cutting_card, Some(396));
    }

    #[test]
    fn impossible_cuts_are_refused_with_the_rule() {
        let r = rules();
        for (cut, want) in [
            (Cut { at: 51, from_back: 20 }, "at least 52 cards in from either end of 416; 51 is not"),
            (Cut { at: 365, from_back: 20 }, "365 is not"),
            (Cut { at: 100, from_back: 19 }, "at least 20 cards from the back; 19 is not"),
        ] {
            let e = Shoe::cut(fresh(8), cut, &r).unwrap_err();
            assert!(e.to_string().contains(want), "{e}");
        }
        assert!(Shoe::cut(fresh(8), Cut { at: 52, from_back: 20 }, &r).is_ok());
        assert!(Shoe::cut(fresh(8), Cut { at: 364, from_back: 415 }, &r).is_ok());
    }

    #[test]
    fn turn_and_burn_counts_tens_and_pictures_as_ten() {
        // Deck order starts AC AD AH AS 2C ...; put a King first.
        let mut stack = fresh(1);
        stack.swap(0, 51);
        let mut shoe = Shoe::uncut(stack);
        let b = shoe.burn(BurnProcedure::TurnAndBurn, false).unwrap();
        assert_eq!(b.shown, Some("KS".parse().unwrap()));
        assert_eq!(b.cards.len(), 11); // NSW 4.8: a king counts ten
        assert_eq!(shoe.remaining(), 41);
        let b = shoe.burn(BurnProcedure::BurnOneShown, true).unwrap();
        assert_eq!((b.cards.len(), b.shown.is_some()), (1, true));
        let b = shoe.burn(BurnProcedure::BurnOne, true).unwrap();
        assert_eq!(b.shown, None);
    }

    #[test]
    fn cutting_card_comes_out_before_the_card_behind_it() {
        let mut shoe = Shoe::cut(
            fresh(1),
            Cut { at: 26, from_back: 20 },
            &CutRules { min_from_either_end: 13, cutting_card_min_from_back: 20 },
        )
        .unwrap();
        for _ in 0..32 {
            assert!(!shoe.cutting_card_next());
            assert!(matches!(shoe.draw(), Draw::Card(_)));
        }
        assert!(shoe.cutting_card_next());
        assert!(shoe.take_cutting_card());
        assert!(!shoe.cutting_card_next() && shoe.cutting_card_out());
        assert_eq!(shoe.remaining(), 20);
    }
}
