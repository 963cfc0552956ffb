//! Text forms for serialised records: a card as `10H`, a wager as its id, an
//! outcome as its id. Events and audit records use these.

use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

use crate::bet::{Bet, Outcome};
use crate::card::Card;

impl Serialize for Card {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Card {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Card, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(de::Error::custom)
    }
}

impl Serialize for Bet {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id())
    }
}

impl<'de> Deserialize<'de> for Bet {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Bet, D::Error> {
        let s = String::deserialize(d)?;
        Bet::from_id(&s).ok_or_else(|| de::Error::custom(format!("unknown wager id {s:?}")))
    }
}

impl Serialize for Outcome {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.id())
    }
}

impl<'de> Deserialize<'de> for Outcome {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Outcome, D::Error> {
        let s = String::deserialize(d)?;
        Outcome::from_id(&s).ok_or_else(|| de::Error::custom(format!("unknown outcome {s:?}")))
    }
}

impl Outcome {
    /// Parse an outcome id (the inverse of [`Outcome::id`]).
    pub fn from_id(s: &str) -> Option<Outcome> {
        use Outcome::*;
        if let Some(n) = s.strip_prefix("win_by_") {
            return n.parse().ok().filter(|n| (4..=9).contains(n)).map(WinBy);
        }
        [
            Lose,
            Win,
            WinOnSix,
            WinThreeCardEightNine,
            Tie,
            Pair,
            MixedPair,
            ColouredPair,
            PerfectPair,
            TwoCard,
            ThreeCard,
            Single,
            Double,
            Twin,
            NaturalWin,
            NaturalTie,
            MixedMatch,
            ColouredMatch,
            LuckyMatch,
            LuckyTripleMatch,
        ]
        .into_iter()
        .find(|o| o.id() == s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcome_ids_round_trip() {
        for b in Bet::ALL {
            for d in b.outcomes() {
                assert_eq!(Outcome::from_id(&d.outcome.id()), Some(d.outcome));
            }
        }
        assert_eq!(Outcome::from_id("lose"), Some(Outcome::Lose));
        assert_eq!(Outcome::from_id("win_by_3"), None);
        assert_eq!(Outcome::from_id("nope"), None);
    }
}
