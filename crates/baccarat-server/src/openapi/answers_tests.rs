//! Typed answers as the server writes them, checked against the document's
//! own answers for their routes (`bodies/`): what the derived schema says
//! and what the handler sends cannot drift apart unnoticed.

use super::fits::{check, fits};
use crate::bodies::rulebooks::{choices, AmountLimits, Checked, ConfigProblem, Rulebooks};
use baccarat_rules::Money;
use serde_json::{json, Map, Value};

pub(super) fn document() -> (Value, Map<String, Value>) {
    let doc = super::document();
    let defs = doc["components"]["schemas"].as_object().unwrap().clone();
    (doc, defs)
}

pub(super) fn answer(doc: &Value, method: &str, path: &str) -> Value {
    doc["paths"][path][method]["responses"]["200"]["content"]["application/json"]["schema"].clone()
}

/// Every built-in profile's choices, as `GET /api/rulebooks` sends them,
/// fit its answer; a layout without its boxes, or a wager that is none,
/// does not.
#[test]
fn the_rulebooks_as_sent_fit_their_route() {
    let (doc, defs) = document();
    let schema = answer(&doc, "get", "/api/rulebooks");
    let limits = AmountLimits { min: 1, max: baccarat_rules::MAX_LIMIT, ceiling: Money(1_000_000) };
    let sent = serde_json::to_value(Rulebooks { rulebooks: choices(), limits }).unwrap();
    assert_eq!(sent["rulebooks"].as_array().unwrap().len(), baccarat_rules::profiles::BUILTIN.len());
    fits(&sent, &schema, &defs, "GET /api/rulebooks");
    let mut no_boxes = sent.clone();
    no_boxes["rulebooks"][0]["layouts"][0].as_object_mut().unwrap().remove("boxes");
    assert!(check(&no_boxes, &schema, &defs, "no boxes").is_err());
    let mut no_bet = sent;
    no_bet["rulebooks"][0]["bets"][0]["bet"] = json!("roulette");
    assert!(check(&no_bet, &schema, &defs, "no such wager").is_err());
}

/// A configuration's check, with problems and without, fits its answer.
#[test]
fn a_check_as_sent_fits_its_route() {
    let (doc, defs) = document();
    let schema = answer(&doc, "post", "/api/tables/check");
    let ok = serde_json::to_value(Checked { ok: true, problems: vec![] }).unwrap();
    fits(&ok, &schema, &defs, "a good configuration");
    let problem = ConfigProblem { path: "max".into(), message: "below the minimum".into() };
    let bad = serde_json::to_value(Checked { ok: false, problems: vec![problem] }).unwrap();
    fits(&bad, &schema, &defs, "a bad configuration");
    assert!(check(&json!({ "ok": "no", "problems": [] }), &schema, &defs, "ok as text").is_err());
}

/// A table's help as its route writes it, an offer priced and one not,
/// fits the document's answer for the route; a house edge as a number
/// does not.
#[test]
fn a_tables_help_as_sent_fits_its_route() {
    use crate::bodies::help::{OfferHelp, OutcomeHelp, QuotedRule, SettlementHelp, TableHelp};
    let (doc, defs) = document();
    let answer = answer(&doc, "get", "/api/tables/{id}/help");
    let t = super::views::tests::full_view();
    let outcome = OutcomeHelp { outcome: "win".into(), pays: "19 to 20".into(), probability: "45.8597%".into() };
    let priced = OfferHelp {
        offer: t.offers[0].clone(),
        house_edge: Some("1.0579%".into()),
        house_edge_exact: Some("1/2".into()),
        outcomes: vec![outcome],
        not_priced: None,
    };
    let unpriced = OfferHelp {
        house_edge: None,
        house_edge_exact: None,
        outcomes: vec![],
        not_priced: Some("why".into()),
        ..priced.clone()
    };
    let settlement = SettlementHelp {
        fractional: baccarat_rules::FractionalPayout::UpToChip,
        unpayable: baccarat_rules::UnpayableStake::VoidExcess,
        rule: "AU 5.12".into(),
    };
    let help = TableHelp {
        table: t.id,
        name: t.name,
        rulebook: "au-2022".into(),
        rulebook_title: "AU".into(),
        variant: "standard".into(),
        mode: t.mode,
        dealing: t.dealing,
        decks: t.decks,
        chip: t.chip,
        min: t.min,
        max: t.max,
        differential: t.differential,
        offers: vec![priced, unpriced],
        settlement,
        rules: vec![QuotedRule { key: "k".into(), cite: "AU 5.12".into(), quote: "…".into() }],
    };
    let mut sent = serde_json::to_value(&help).unwrap();
    fits(&sent, &answer, &defs, "GET /api/tables/{id}/help");
    sent["offers"][0]["house_edge"] = json!(1.05);
    assert!(check(&sent, &answer, &defs, "an edge as a number").is_err());
}

/// A promotion before and after its draw, as `GET /api/promotions` and
/// `GET /api/promotions/{id}` send it, and its refused claims, fit their
/// answers; a seed as a number does not.
#[test]
fn promotions_as_sent_fit_their_routes() {
    use crate::audit::PromotionWinner;
    use crate::casino::promotions::{DrawnView, PrizeView, PromotionView, RefusedClaim};
    use baccarat_rules::promotion::PrizeKind;
    let (doc, defs) = document();
    let prize = PrizeView { description: "a car".into(), kind: PrizeKind::Cash, value: Money(5_000_000) };
    let open = PromotionView {
        promotion: 1,
        name: "Friday draw".into(),
        closes: "2026-12-04T20:00:00Z".into(),
        draw_at: "2026-12-04T21:00:00Z".into(),
        draw_place: "the main floor".into(),
        commitment: "ab".repeat(32),
        prizes: vec![prize],
        drawn: None,
        terms: None,
    };
    let winner = PromotionWinner {
        prize: 0,
        description: "a car".into(),
        player: baccarat_table::PlayerId(4),
        value: Money(5_000_000),
        paid: Money(5_000_000),
        tokens: Money(0),
    };
    let seed = baccarat_table::Seed([7; 32]);
    let drawn =
        DrawnView { entries: 9, entries_sha256: "cd".repeat(32), seed, scrutineer: None, winners: vec![winner] };
    let done = PromotionView { drawn: Some(drawn), terms: Some("name = \"Friday draw\"".into()), ..open.clone() };
    let list = serde_json::to_value(vec![open, done.clone()]).unwrap();
    fits(&list, &answer(&doc, "get", "/api/promotions"), &defs, "GET /api/promotions");
    let one = answer(&doc, "get", "/api/promotions/{id}");
    let mut sent = serde_json::to_value(done).unwrap();
    fits(&sent, &one, &defs, "GET /api/promotions/{id}");
    sent["drawn"]["seed"] = json!(7);
    assert!(check(&sent, &one, &defs, "a seed as a number").is_err());
    let claim =
        RefusedClaim { claimant: "A".into(), address: "1 Main St".into(), value: Money(1), reasons: "absent".into() };
    let refused = serde_json::to_value(crate::bodies::RefusedClaims { promotion: 1, refused: &[claim] }).unwrap();
    fits(&refused, &answer(&doc, "get", "/api/promotions/{id}/refused-claims"), &defs, "GET …/refused-claims");
}

/// A table's recall as `GET /api/tables/{id}/audit` sends it, with a coup's
/// records and the voids' counts, fits its answer; a record's seq as text does not.
#[test]
fn a_recall_as_sent_fits_its_route() {
    use crate::bodies::recall::{Recall, RecalledCoup, RecalledRecord, VoidReport};
    let (doc, defs) = document();
    let schema = answer(&doc, "get", "/api/tables/{id}/audit");
    let record = RecalledRecord {
        seq: 12,
        hash: "ef".repeat(32),
        by: Some(json!({ "person": { "user": 2, "role": "dealer" } })),
        event: Some(json!({ "event": "betting_opened", "coup": 3 })),
    };
    let coup = RecalledCoup {
        coup: 3,
        rulebook: Some("nsw-2021".into()),
        rulebook_sha256: Some("01".repeat(32)),
        engine: Some("0.1.0".into()),
        records: vec![record],
    };
    let voids = VoidReport {
        list: vec![json!({ "shoe": 1, "coup": 3 })],
        by_person: [("supervisor 3".to_string(), 1)].into_iter().collect(),
        by_shoe: [(1, 1)].into_iter().collect(),
    };
    let table = baccarat_core::TableId(1);
    let mut sent = serde_json::to_value(Recall { table, coups: vec![coup], voids }).unwrap();
    fits(&sent, &schema, &defs, "GET /api/tables/{id}/audit");
    sent["coups"][0]["records"][0]["seq"] = json!("twelve");
    assert!(check(&sent, &schema, &defs, "a seq as text").is_err());
}
