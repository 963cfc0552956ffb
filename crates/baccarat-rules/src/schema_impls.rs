//! JSON Schemas of the types whose text forms are written by hand
//! (`serde_impls.rs`): a card as `10H`, a wager as its id. Behind the
//! `schemars` feature, for the server's API document (issue 46), which
//! derives the schemas of the views that carry them.

use std::borrow::Cow;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};

use crate::bet::Bet;
use crate::card::Card;

impl JsonSchema for Card {
    fn schema_name() -> Cow<'static, str> {
        "Card".into()
    }

    fn inline_schema() -> bool {
        true
    }

    /// As `Display` writes it: rank (A, 2-10, J, Q, K), then suit (C, D, H, S).
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "string", "pattern": "^(10|[2-9AJQK])[CDHS]$", "example": "10H" })
    }
}

impl JsonSchema for Bet {
    fn schema_name() -> Cow<'static, str> {
        "Bet".into()
    }

    fn inline_schema() -> bool {
        true
    }

    /// Its id ([`Bet::id`]), one of [`Bet::ALL`]'s.
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let ids: Vec<&str> = Bet::ALL.iter().map(|b| b.id()).collect();
        json_schema!({ "type": "string", "enum": ids })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every card of a deck, as it is written, matches the pattern said; and
    /// every wager's id is in the enum.
    #[test]
    fn each_text_form_fits_its_schema() {
        let mut generator = SchemaGenerator::default();
        let pattern = Card::json_schema(&mut generator).get("pattern").cloned().unwrap();
        assert_eq!(pattern, "^(10|[2-9AJQK])[CDHS]$");
        for rank in crate::card::Rank::ALL {
            for suit in crate::card::Suit::ALL {
                let text = serde_json::to_value(Card::new(rank, suit)).unwrap();
                let text = text.as_str().unwrap();
                let (r, s) = text.split_at(text.len() - 1);
                let rank_ok = r == "10" || (r.len() == 1 && "23456789AJQK".contains(r));
                assert!(rank_ok && "CDHS".contains(s), "{text} does not fit {pattern}");
            }
        }
        let ids = Bet::json_schema(&mut generator).get("enum").cloned().unwrap();
        for bet in Bet::ALL {
            assert!(ids.as_array().unwrap().contains(&serde_json::to_value(bet).unwrap()), "{bet:?}");
        }
    }
}
