//! The feed's smaller lines as types: a coup's result, a shoe, a notice.
//! They were JSON values built by key; as types, the checkpoint (which keeps
//! them, `FeedState`) and the answers (`GET …/shoes`, the pit's push, the
//! table's message) write exactly the same JSON, and the API document takes
//! their schemas from here.

use baccarat_rules::{Card, CoupSummary, Winner};
use baccarat_table::{Cut, Event, Position, Seed};
use serde::{Deserialize, Serialize};

/// A coup's result as the table's message shows it once complete: each
/// hand's total, the winner (NSW 5.1.1–5.1.3: the higher point count wins,
/// equal counts are a tie), and every card as dealt, by position.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CoupResult {
    pub player: u8,
    pub banker: u8,
    pub winner: Winner,
    /// `[position, card]` pairs (a tuple's schema would be an array of
    /// schemas, which OpenAPI 3.0 has not: described as two strings).
    #[schemars(with = "Vec<[String; 2]>")]
    pub cards: Vec<(Position, Card)>,
}

impl CoupResult {
    pub fn new(summary: &CoupSummary, dealt: &[(Position, Card)]) -> CoupResult {
        CoupResult {
            player: summary.player_total,
            banker: summary.banker_total,
            winner: summary.winner(),
            cards: dealt.to_vec(),
        }
    }
}

/// A shoe as a table's shoes list it (provably fair): the commitment to its
/// seed from the start, the cut as performed, and the seed once it ended
/// (null until then).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "Shoe")]
pub struct ShoeLine {
    pub shoe: u64,
    pub commitment: Option<String>,
    pub cut: Option<Cut>,
    pub seed: Option<Seed>,
}

/// An event a rule explains (an irregularity, a return, a reduction, a
/// void), as the pit's notices show it: its record's place in the chain,
/// the rule, and the event with its withheld parts blanked.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Notice {
    pub seq: u64,
    pub rule: String,
    /// The engine's event as the audit record writes it (`event`: its kind).
    #[schemars(with = "serde_json::Map<String, serde_json::Value>")]
    pub event: Event,
}

#[cfg(test)]
mod tests {
    use super::*;
    use baccarat_rules::Coup;
    use baccarat_table::WagerId;
    use serde_json::json;

    /// Each line writes the JSON the feed built by key before it was a type
    /// (the same builders, copied here), and reads it back: a checkpoint
    /// written before keeps its meaning.
    #[test]
    fn each_line_writes_what_the_json_built_by_key_wrote() {
        let cards: Vec<Card> = ["6H", "3S", "KD", "3C", "4S"].iter().map(|c| c.parse().unwrap()).collect();
        let (coup, _) = Coup::from_cards(&cards).unwrap();
        let summary = coup.summary();
        let dealt = vec![(Position::Player1, cards[0]), (Position::Banker1, cards[1]), (Position::Player2, cards[2])];
        let before = json!({
            "player": summary.player_total,
            "banker": summary.banker_total,
            "winner": format!("{:?}", summary.winner()).to_lowercase(),
            "cards": dealt,
        });
        let result = CoupResult::new(&summary, &dealt);
        assert_eq!(serde_json::to_value(&result).unwrap(), before);
        assert_eq!(serde_json::from_value::<CoupResult>(before).unwrap(), result);

        let cut = Some(Cut { at: 70, from_back: 14 });
        for seed in [None, Some(Seed::from_u64(5))] {
            let mut before = json!({ "shoe": 3, "commitment": "ab", "cut": cut, "seed": null });
            before["seed"] = json!(seed);
            let line = ShoeLine { shoe: 3, commitment: Some("ab".into()), cut, seed };
            assert_eq!(serde_json::to_value(&line).unwrap(), before);
            assert_eq!(serde_json::from_value::<ShoeLine>(before).unwrap(), line);
        }

        let event = Event::WagerReturned { wager: WagerId(8), rule: "NSW 8.10".into() };
        let v = serde_json::to_value(&event).unwrap();
        let before = json!({ "seq": 4, "rule": "NSW 8.10", "event": v });
        let notice = Notice { seq: 4, rule: "NSW 8.10".into(), event };
        assert_eq!(serde_json::to_value(&notice).unwrap(), before);
        assert_eq!(serde_json::from_value::<Notice>(before).unwrap(), notice);
    }
}
