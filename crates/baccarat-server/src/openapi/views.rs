//! The read models in the document, derived from the types the server
//! publishes (issue 46), not written beside them: a table's view
//! (`TableView`, with its offers, ante, hand out and roads), a coup's feed
//! (`CoupFeed`) and its wager lines (`WagerLine`), the pit's view
//! (`PitView`) and what a table's WebSocket sends (`TableMessage`,
//! `messages.rs`); a tournament as listed (`TournamentSummary`), its play
//! (`PlayView`, `casino/tournament_view.rs`) and what its WebSocket sends
//! (`TournamentMessage`). A field added to a view is in the document with no
//! line written here.
//!
//! The table's and the rules' types they carry (positions, sides, the
//! roads' board, a card as `10H`, a wager's id) have their schemas from
//! those crates' `schemars` feature, which `baccarat-casino` turns on; the
//! tuples a view writes as arrays are described as arrays of their JSON
//! types where they are declared (`table_view.rs`).
//!
//! The feed's smaller lines (a coup's result, a shoe, a notice) are types
//! too (`baccarat_casino::CoupResult`, `ShoeLine` as `Shoe`, `Notice`); a
//! notice's event is described as an object (the engine's events have no
//! schema of their own).

use serde_json::{Map, Value};

use crate::casino::tournament_view::PlayView;
use crate::casino::tournaments::TournamentSummary;
use crate::messages::{PitView, TableMessage, TournamentMessage};
use baccarat_casino::{CoupFeed, TableView, WagerLine};

/// The views' components and every one they refer to, named as their types.
pub(super) fn components() -> Map<String, Value> {
    let mut generator = super::schema::settings().into_generator();
    generator.subschema_for::<TableView>();
    generator.subschema_for::<CoupFeed>();
    generator.subschema_for::<WagerLine>();
    generator.subschema_for::<PitView>();
    generator.subschema_for::<TableMessage>();
    generator.subschema_for::<baccarat_casino::ShoeLine>();
    generator.subschema_for::<TournamentSummary>();
    generator.subschema_for::<PlayView>();
    generator.subschema_for::<TournamentMessage>();
    generator.take_definitions(true)
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::fits::{check, fits};
    use super::*;
    use crate::messages::{Gone, Mine, PitPush, RuleQuote, Seen};
    use crate::trust::Mode;
    use baccarat_casino::WagerStatus;
    use baccarat_casino::{AnteView, HandOut, OfferView, PayLine, PhaseView, ViewDealing};
    use baccarat_core::TableId;
    use baccarat_rules::{Bet, DealingStyle, Money, Settlement, Side};
    use baccarat_table::{PlayerId, Position, Spot, WagerId};
    use baccarat_table::{RoadEntry, RoadResult, Roads};
    use serde_json::json;

    /// A shoe's roads with every marker: pairs, naturals, ties, every road.
    fn roads() -> Roads {
        let mut roads = Roads::from_letters("TBBPPPTBPBBPBPPBBBPT").unwrap();
        let marked = RoadEntry { result: RoadResult::Banker, player_pair: true, banker_pair: true, natural: true };
        roads.push(marked);
        roads
    }

    /// A table's view with every field that may be absent present, and
    /// every list holding something.
    pub(in crate::openapi) fn full_view() -> TableView {
        let roads = roads();
        let offer = OfferView {
            bet: "banker".into(),
            name: "Banker".into(),
            min: Money(100),
            max: Money(10_000),
            pay_table: "standard".into(),
            rule: "NSW 9.4".into(),
            lines: vec![PayLine { outcome: "win".into(), pays: "19 to 20".into() }],
        };
        TableView {
            id: TableId(3),
            name: "Macau 3".into(),
            mode: Mode::Live,
            open: true,
            dealing: ViewDealing(DealingStyle::MethodB),
            decks: 8,
            chip: Money(5),
            min: Money(100),
            max: Money(10_000),
            differential: Some(Money(5_000)),
            announced_minimum: Some((Money(500), 1_700_000_000_000)),
            bets: vec!["banker".into()],
            offers: vec![offer],
            ante: Some(AnteView { amount: Money(50), waived_at: Some(Money(1_000)), rule: "AU 14.3".into() }),
            phase: PhaseView::Dealing,
            cards: vec![(Position::Player1, Some("10H".parse().unwrap())), (Position::Banker1, None)],
            due: Some(Position::Player2),
            out: Some(HandOut { side: Side::Banker, player: PlayerId(4), since_ms: 9, name: Some("Ann".into()) }),
            last: Some("B".into()),
            results: roads.entries().iter().map(|e| e.result.letter()).collect(),
            stats: roads.stats(),
            roads: roads.board(),
            dealt: 12,
            shoe_size: 416,
            seed_commitment: Some("ab".repeat(32)),
            closes_at_ms: Some(1_700_000_000_000),
            halted: Some("an invariant broke".into()),
            personal_limits: vec![(PlayerId(4), Money(200), Money(2_000))],
            closed: false,
            closing: true,
            players: 3,
            ..TableView::default()
        }
    }

    fn line(status: WagerStatus, settled: bool) -> WagerLine {
        let settlement = Settlement {
            stake: Money(100),
            returned: Money(100),
            lost: Money(0),
            won: Money(95),
            commission: Money(5),
            void: Money(0),
        };
        WagerLine {
            wager: WagerId(1),
            player: PlayerId(4),
            spot: if settled { Spot::Box(2) } else { Spot::Standing },
            bet: Bet::Banker,
            amount: Money(100),
            ante: Money(0),
            needs_approval: !settled,
            status,
            rule: settled.then(|| "AU 5.10(b)".into()),
            outcome: settled.then(|| "win".into()),
            pays: settled.then(|| "19 to 20".into()),
            settlement: settled.then_some(settlement),
            net: settled.then_some(Money(90)),
        }
    }

    fn feed() -> CoupFeed {
        let mut feed = CoupFeed::default();
        feed.coup = 7;
        feed.wagers = [line(WagerStatus::Settled, true), line(WagerStatus::Open, false)].into_iter().collect();
        let cards: Vec<baccarat_rules::Card> =
            ["6H", "3S", "KD", "3C", "4S"].iter().map(|c| c.parse().unwrap()).collect();
        let (coup, _) = baccarat_rules::Coup::from_cards(&cards).unwrap();
        let dealt = [(Position::Player1, cards[0]), (Position::Banker1, cards[1])];
        feed.result = Some(baccarat_casino::CoupResult::new(&coup.summary(), &dealt));
        feed.void = Some("AU 5.13".into());
        feed
    }

    /// Each view as sent fits the component derived from its type, absent
    /// fields (`null`) and present ones alike, the roads' board included.
    #[test]
    fn each_view_as_sent_fits_its_derived_component() {
        let defs = components();
        let full = serde_json::to_value(full_view()).unwrap();
        fits(&full, &defs["TableView"], &defs, "TableView");
        let empty = serde_json::to_value(TableView::default()).unwrap();
        fits(&empty, &defs["TableView"], &defs, "TableView (empty)");
        fits(&serde_json::to_value(feed()).unwrap(), &defs["CoupFeed"], &defs, "CoupFeed");
        fits(&serde_json::to_value(CoupFeed::default()).unwrap(), &defs["CoupFeed"], &defs, "CoupFeed (empty)");
        for l in [line(WagerStatus::Settled, true), line(WagerStatus::Withdrawn, false)] {
            fits(&serde_json::to_value(l).unwrap(), &defs["WagerLine"], &defs, "WagerLine");
        }
    }

    /// The component lists the fields the view sends and no other, each of
    /// them required: nothing stale stays in the document.
    #[test]
    fn the_components_fields_are_the_views() {
        let defs = components();
        let sent = serde_json::to_value(full_view()).unwrap();
        let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
        assert_eq!(keys(&defs["TableView"]["properties"]), keys(&sent));
        let required: Vec<String> = serde_json::from_value(defs["TableView"]["required"].clone()).unwrap();
        let mut sorted = keys(&sent);
        sorted.sort();
        let mut required_sorted = required;
        required_sorted.sort();
        assert_eq!(required_sorted, sorted, "every field of a view is always sent");
        assert!(defs.contains_key("Board") && defs.contains_key("PhaseView"), "{:?}", defs.keys());
    }

    /// The lobby and one table, as their routes write them (`bodies::Lobby`,
    /// a `TableView`), fit the document's own answers for those routes.
    #[test]
    fn the_lobby_and_one_table_as_sent_fit_their_routes() {
        let doc = crate::openapi::document();
        let defs = doc["components"]["schemas"].as_object().unwrap().clone();
        let answer =
            |path: &str| doc["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]["schema"].clone();
        let tables = [full_view(), TableView::default()];
        let lobby = serde_json::to_value(crate::bodies::Lobby { tables: &tables }).unwrap();
        fits(&lobby, &answer("/api/tables"), &defs, "GET /api/tables");
        let one = serde_json::to_value(&tables[0]).unwrap();
        fits(&one, &answer("/api/tables/{id}"), &defs, "GET /api/tables/{id}");
        assert!(check(&json!({ "tables": [{ "id": 1 }] }), &answer("/api/tables"), &defs, "lobby").is_err());
    }

    /// A shoe's line, its seed shown or not yet.
    fn shoe(seed: Option<baccarat_table::Seed>) -> baccarat_casino::ShoeLine {
        let cut = Some(baccarat_table::Cut { at: 70, from_back: 14 });
        baccarat_casino::ShoeLine { shoe: 1, commitment: Some("ab".into()), cut, seed }
    }

    fn pit() -> PitPush {
        let event = baccarat_table::Event::WagerReturned { wager: WagerId(3), rule: "NSW 8.10".into() };
        let notice = baccarat_casino::Notice { seq: 4, rule: "NSW 8.10".into(), event };
        let names = [("4".to_string(), "Ann".to_string())].into_iter().collect();
        PitPush { coup: feed(), names, notices: vec![notice], shoes: vec![shoe(None)], squeeze_seconds: 6 }
    }

    fn seen(pit: Option<PitPush>) -> Seen {
        Seen {
            table: full_view(),
            result: feed().result,
            void: None,
            balance: Some(Money(1_000)),
            available: Some(Money(900)),
            mine: Some(Mine { coup: Some(7), wagers: vec![line(WagerStatus::Open, false)] }),
            now_ms: 5,
            squeeze_ms: 6_000,
            pit,
        }
    }

    /// A table's WebSocket message as sent, a player's, staff's (with the
    /// pit) and a table gone, fits `TableMessage`; the pit's view fits its
    /// route; a message missing its clock or with a wrong one does not.
    #[test]
    fn the_tables_messages_and_the_pit_as_sent_fit_their_components() {
        let doc = crate::openapi::document();
        let defs = doc["components"]["schemas"].as_object().unwrap().clone();
        let message = &defs["TableMessage"];
        let player = TableMessage::Seen(Box::new(seen(None))).tree();
        fits(&player, message, &defs, "a player's message");
        fits(&TableMessage::Seen(Box::new(seen(Some(pit())))).tree(), message, &defs, "staff's message");
        let gone = TableMessage::Gone(Gone { table: None }).tree();
        assert_eq!(gone, json!({ "table": null }));
        fits(&gone, message, &defs, "a table gone");
        let mut no_clock = player.clone();
        no_clock.as_object_mut().unwrap().remove("now_ms");
        assert!(check(&no_clock, message, &defs, "no clock").is_err());
        let mut bad = player;
        bad["squeeze_ms"] = json!("six");
        assert!(check(&bad, message, &defs, "bad").is_err());
        let view = PitView {
            push: pit(),
            table: full_view(),
            rules: vec![RuleQuote { key: "k".into(), cite: "NSW 8.10".into(), quote: None }],
        };
        let answer = doc["paths"]["/api/tables/{id}/pit"]["get"]["responses"]["200"]["content"]["application/json"]
            ["schema"]
            .clone();
        fits(&serde_json::to_value(view).unwrap(), &answer, &defs, "GET /api/tables/{id}/pit");
    }

    /// A player's history and a table's shoes, as their routes write them
    /// while the feed is read (`bodies::History`, `bodies::Shoes`), fit the
    /// document's answers for those routes; a line without its coup does not.
    #[test]
    fn the_history_and_the_shoes_as_sent_fit_their_routes() {
        let doc = crate::openapi::document();
        let defs = doc["components"]["schemas"].as_object().unwrap().clone();
        let answer =
            |path: &str| doc["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]["schema"].clone();
        let line = baccarat_casino::HistoryLine { table: TableId(2), coup: 7, line: line(WagerStatus::Settled, true) };
        let lines = vec![&line];
        let history = crate::bodies::History { player: baccarat_core::UserId(4), history: lines };
        let mut sent = serde_json::to_value(&history).unwrap();
        fits(&sent, &answer("/api/me/history"), &defs, "GET /api/me/history");
        sent["history"][0].as_object_mut().unwrap().remove("coup");
        assert!(check(&sent, &answer("/api/me/history"), &defs, "no coup").is_err());
        let shoes = [shoe(None), shoe(Some(baccarat_table::Seed::from_u64(9)))];
        let algorithm = baccarat_table::SHUFFLE_ALGORITHM;
        let sent = serde_json::to_value(crate::bodies::Shoes { table: TableId(2), algorithm, shoes: &shoes }).unwrap();
        fits(&sent, &answer("/api/tables/{id}/shoes"), &defs, "GET /api/tables/{id}/shoes");
    }

    /// The checker refuses what the document does not say: a phase the view
    /// does not have, a card's null where the card is not nullable, a
    /// missing field.
    #[test]
    fn a_view_the_document_does_not_describe_is_caught() {
        let defs = components();
        let mut v = serde_json::to_value(full_view()).unwrap();
        v["phase"] = json!("dozing");
        assert!(check(&v, &defs["TableView"], &defs, "TableView").unwrap_err().contains("phase"));
        let mut v = serde_json::to_value(full_view()).unwrap();
        v.as_object_mut().unwrap().remove("roads");
        assert!(check(&v, &defs["TableView"], &defs, "TableView").unwrap_err().contains("roads"));
        let mut v = serde_json::to_value(full_view()).unwrap();
        v["decks"] = json!("eight");
        assert!(check(&v, &defs["TableView"], &defs, "TableView").is_err());
    }
}
