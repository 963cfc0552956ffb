//! A shoe composition: how many cards of each rank (and, when known, suit) remain.

use baccarat_rules::{Card, Rank, MAX_DECKS};

/// The fewest cards a coup can need (three to each hand, NSW 9.6). Exact odds are
/// computed over the first six cards, so a shoe must hold at least this many.
pub const MIN_CARDS: u32 = 6;

/// The most cards a shoe may hold: [`MAX_DECKS`] full decks.
pub const MAX_CARDS: u32 = 52 * MAX_DECKS;

/// Cards remaining, by rank and suit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shoe {
    /// `counts[card.index()]`: rank-major, suit-minor (see [`Card::index`]).
    counts: [u32; 52],
    /// False when the composition was given by rank only; suit-dependent wagers
    /// (Perfect Pair, Lucky Match) then cannot be priced exactly.
    suits_known: bool,
}

/// Why a shoe composition was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShoeError {
    #[error("--shoe: give 13 counts by rank (A,2,...,10,J,Q,K) or 52 by rank and suit (AC,AD,AH,AS,2C,...), not {0}")]
    WrongLength(usize),
    #[error("--shoe: count {index} ({what}) is {text:?}, not a whole number of cards from 0 up")]
    NotACount { index: usize, what: String, text: String },
    #[error("--shoe: {count} {what} is more than {limit} decks hold ({max})")]
    TooMany { what: String, count: u32, limit: u32, max: u32 },
    #[error("--shoe: {0} cards is too few; a coup can need {MIN_CARDS} (NSW 9.6, NSW 12.6)")]
    TooFew(u32),
    #[error("--shoe: {0} cards is more than {MAX_CARDS} ({MAX_DECKS} decks)")]
    TooLarge(u32),
    #[error("decks: {0} is outside 1 to {MAX_DECKS}")]
    Decks(u32),
}

impl Shoe {
    /// A full shoe of `decks` 52-card decks.
    pub fn decks(decks: u32) -> Result<Shoe, ShoeError> {
        if decks == 0 || decks > MAX_DECKS {
            return Err(ShoeError::Decks(decks));
        }
        Ok(Shoe { counts: [decks; 52], suits_known: true })
    }

    /// A composition by rank only; each count must fit in `limit_decks` decks.
    pub fn from_rank_counts(ranks: [u32; 13], limit_decks: u32) -> Result<Shoe, ShoeError> {
        let mut counts = [0; 52];
        for (r, &n) in ranks.iter().enumerate() {
            if n > 4 * limit_decks {
                return Err(ShoeError::TooMany {
                    what: format!("{}s", Rank::ALL[r].symbol()),
                    count: n,
                    limit: limit_decks,
                    max: 4 * limit_decks,
                });
            }
            // Suits are unknown; spread evenly only to keep rank totals right.
            for s in 0..4 {
                counts[r * 4 + s] = n / 4 + u32::from((s as u32) < n % 4);
            }
        }
        Shoe { counts, suits_known: false }.checked()
    }

    /// A composition by rank and suit; each count must fit in `limit_decks` decks.
    pub fn from_card_counts(counts: [u32; 52], limit_decks: u32) -> Result<Shoe, ShoeError> {
        for (i, &n) in counts.iter().enumerate() {
            if n > limit_decks {
                let c = Card::from_index(i).expect("i < 52");
                return Err(ShoeError::TooMany {
                    what: format!("{c}"),
                    count: n,
                    limit: limit_decks,
                    max: limit_decks,
                });
            }
        }
        Shoe { counts, suits_known: true }.checked()
    }

    /// Parse `--shoe`: 13 or 52 comma-separated counts. `limit_decks` bounds each
    /// count (the table's decks, else [`MAX_DECKS`]).
    pub fn parse(text: &str, limit_decks: u32) -> Result<Shoe, ShoeError> {
        let parts: Vec<&str> = text.split(',').map(str::trim).collect();
        let what = |i: usize| match parts.len() {
            13 => Rank::ALL[i].symbol().to_string(),
            _ => Card::from_index(i).map(|c| c.to_string()).unwrap_or_default(),
        };
        if parts.len() != 13 && parts.len() != 52 {
            return Err(ShoeError::WrongLength(parts.len()));
        }
        let mut nums = Vec::with_capacity(parts.len());
        for (i, p) in parts.iter().enumerate() {
            let n: u32 =
                p.parse().map_err(|_| ShoeError::NotACount { index: i + 1, what: what(i), text: p.to_string() })?;
            nums.push(n);
        }
        if nums.len() == 13 {
            Shoe::from_rank_counts(nums.try_into().expect("13"), limit_decks)
        } else {
            Shoe::from_card_counts(nums.try_into().expect("52"), limit_decks)
        }
    }

    fn checked(self) -> Result<Shoe, ShoeError> {
        let n = self.len();
        if n < MIN_CARDS {
            Err(ShoeError::TooFew(n))
        } else if n > MAX_CARDS {
            Err(ShoeError::TooLarge(n))
        } else {
            Ok(self)
        }
    }

    /// Number of cards.
    pub fn len(&self) -> u32 {
        self.counts.iter().sum()
    }

    /// Never true for a valid shoe; here for completeness.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn suits_known(&self) -> bool {
        self.suits_known
    }

    /// Count of each card (rank-major, suit-minor).
    pub fn card_counts(&self) -> &[u32; 52] {
        &self.counts
    }

    /// Count of each rank, Ace first.
    pub fn rank_counts(&self) -> [u32; 13] {
        std::array::from_fn(|r| self.counts[r * 4..r * 4 + 4].iter().sum())
    }

    /// Count of each point value 0..=9 (NSW 3.2).
    pub fn value_counts(&self) -> [u32; 10] {
        let mut v = [0; 10];
        for (r, n) in self.rank_counts().iter().enumerate() {
            v[Rank::ALL[r].point() as usize] += n;
        }
        v
    }

    /// The shoe less one card of index `card` (suits known), or `None` when it
    /// holds none or would fall below [`MIN_CARDS`].
    pub fn without_card(&self, card: usize) -> Option<Shoe> {
        let mut s = self.clone();
        *s.counts.get_mut(card)? = s.counts[card].checked_sub(1)?;
        s.checked().ok()
    }

    /// The shoe less one card of rank `rank` (Ace 0), or `None` when it holds
    /// none or would fall below [`MIN_CARDS`]. With suits known, the card taken
    /// is of the rank's first suit that has one.
    pub fn without_rank(&self, rank: usize) -> Option<Shoe> {
        let suit = (0..4).find(|s| self.counts.get(rank * 4 + s).is_some_and(|&n| n > 0))?;
        if self.suits_known {
            return self.without_card(rank * 4 + suit);
        }
        // By rank only: rebuild the even spread of one card fewer.
        let mut ranks = self.rank_counts();
        ranks[rank] -= 1;
        Shoe::from_rank_counts(ranks, MAX_DECKS).ok()
    }

    /// How many decks this composition equals, if it is whole full decks.
    pub fn full_decks(&self) -> Option<u32> {
        let d = self.counts[0];
        (self.suits_known && self.counts.iter().all(|&n| n == d)).then_some(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_shoe_counts() {
        let s = Shoe::decks(8).unwrap();
        assert_eq!(s.len(), 416);
        assert_eq!(s.value_counts(), [128, 32, 32, 32, 32, 32, 32, 32, 32, 32]);
        assert_eq!(s.full_decks(), Some(8));
        assert!(Shoe::decks(0).is_err());
        assert!(Shoe::decks(9).is_err());
    }

    #[test]
    fn parse_refuses_bad_input_with_the_field() {
        let ok = Shoe::parse("4,4,4,4,4,4,4,4,4,4,4,4,4", 8).unwrap();
        assert_eq!(ok.len(), 52);
        assert!(!ok.suits_known());
        let e = Shoe::parse("4,4,4", 8).unwrap_err();
        assert_eq!(e, ShoeError::WrongLength(3));
        let e = Shoe::parse("4,-1,4,4,4,4,4,4,4,4,4,4,4", 8).unwrap_err();
        assert!(e.to_string().contains("count 2 (2)"), "{e}");
        let e = Shoe::parse("1,1,1,1,1,0,0,0,0,0,0,0,0", 8).unwrap_err();
        assert_eq!(e, ShoeError::TooFew(5));
        let e = Shoe::parse("33,4,4,4,4,4,4,4,4,4,4,4,4", 8).unwrap_err();
        assert!(matches!(e, ShoeError::TooMany { .. }), "{e}");
        let e = Shoe::parse("5,4,4,4,4,4,4,4,4,4,4,4,4", 1).unwrap_err();
        assert!(e.to_string().contains("more than 1 decks hold (4)"), "{e}");
    }
}
