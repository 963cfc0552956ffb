//! Writes the generated part of the seed corpus (`fuzz/corpus/`): one command
//! JSON per engine command, made from the typed commands so that each is the
//! real wire form, and real audit record bodies from a server that played.
//! Run by hand when the commands or the records change:
//! `cargo test -p baccarat-server --test fuzz -- --ignored write_corpus`.

use baccarat_core::TableId;
use std::time::Duration;

use baccarat_rules::{Bet, BurnProcedure, Card, Money, Side};
use baccarat_table::Cut;
use baccarat_table::Seed;
use baccarat_table::{Command, PlayerId, Position, ShoeSource, Spot, WagerId};
use serde_json::json;

use super::common::spawn_app_with;
use super::harness::corpus_dir;

fn card(s: &str) -> Card {
    s.parse().expect("card")
}

/// One example of every command, several where a field takes different shapes.
pub fn commands() -> Vec<(&'static str, Command)> {
    let seed = Seed::from_u64(7);
    let wager = Command::PlaceWager {
        player: PlayerId(1),
        spot: Spot::Box(1),
        bet: Bet::Player,
        amount: Money(1000),
        ante: Money(0),
        token: false,
        at_ms: None,
    };
    vec![
        (
            "start_shoe-live",
            Command::StartShoe { source: ShoeSource::Live { decks: 8 }, cut: None, burn: None, show_burn: false },
        ),
        (
            "start_shoe-shuffle",
            Command::StartShoe {
                source: ShoeSource::Shuffle { seed },
                cut: Some(Cut { at: 100, from_back: 20 }),
                burn: Some(BurnProcedure::TurnAndBurn),
                show_burn: true,
            },
        ),
        (
            "start_shoe-preshuffled",
            Command::StartShoe {
                source: ShoeSource::PreShuffled {
                    cards: ["6H", "3S", "KD", "KC", "2C", "9D", "AS", "10H"].map(card).to_vec(),
                },
                cut: None,
                burn: Some(BurnProcedure::BurnOne),
                show_burn: false,
            },
        ),
        (
            "start_shoe-shuffler_set",
            Command::StartShoe {
                source: ShoeSource::ShufflerSet { seed, set: 2 },
                cut: None,
                burn: Some(BurnProcedure::BurnOneShown),
                show_burn: true,
            },
        ),
        (
            "start_shoe-continuous",
            Command::StartShoe {
                source: ShoeSource::Continuous { seed },
                cut: None,
                burn: Some(BurnProcedure::ThreeNoBetCoups),
                show_burn: false,
            },
        ),
        ("open_betting", Command::OpenBetting { no_bet: false, closes_at: None }),
        ("open_betting-no_bet", Command::OpenBetting { no_bet: true, closes_at: Some(1_700_000_000_000) }),
        ("place_wager", wager),
        (
            "place_wager-ante",
            Command::PlaceWager {
                player: PlayerId(2),
                spot: Spot::Standing,
                bet: Bet::Banker,
                amount: Money(5000),
                ante: Money(100),
                token: true,
                at_ms: Some(1_700_000_000_000),
            },
        ),
        (
            "place_wager-side",
            Command::PlaceWager {
                player: PlayerId(3),
                spot: Spot::Box(7),
                bet: Bet::PlayerPair,
                amount: Money(1000),
                ante: Money(0),
                token: false,
                at_ms: None,
            },
        ),
        ("reopen_wagers", Command::ReopenWagers),
        ("invalid_bet", Command::InvalidBet { wager: WagerId(1) }),
        (
            "set_personal_limits",
            Command::SetPersonalLimits { player: PlayerId(1), min: Money(500), max: Money(1_000_000) },
        ),
        ("announce_minimum", Command::AnnounceMinimum { minimum: Money(2000), at_ms: 1_700_000_000_000 }),
        (
            "change_minimum",
            Command::ChangeMinimum { minimum: Money(2000), at_ms: 1_700_000_600_000, present: vec![PlayerId(1)] },
        ),
        ("withdraw_wager", Command::WithdrawWager { player: PlayerId(1), wager: WagerId(1) }),
        ("approve_wager", Command::ApproveWager { wager: WagerId(1) }),
        ("refuse_wager", Command::RefuseWager { wager: WagerId(2) }),
        ("close_betting", Command::CloseBetting),
        ("deal_next", Command::DealNext),
        ("card_in", Command::CardIn { card: card("6H"), to: None, face_up: true }),
        ("card_in-to", Command::CardIn { card: card("10S"), to: Some(Position::Player3), face_up: false }),
        ("face_up_in_shoe", Command::FaceUpInShoe { card: card("5H") }),
        ("cutting_card_out", Command::CuttingCardOut),
        ("missing_or_foreign", Command::MissingOrForeign { card: Some(card("AS")) }),
        ("missing_or_foreign-none", Command::MissingOrForeign { card: None }),
        ("misdeal", Command::Misdeal { reconstructed: None }),
        ("misdeal-reconstructed", Command::Misdeal { reconstructed: Some(["3S", "2H", "4D"].map(card).to_vec()) }),
        ("expose", Command::Expose { side: Side::Player, player: None }),
        ("expose-player", Command::Expose { side: Side::Banker, player: Some(PlayerId(2)) }),
        ("decline_cards", Command::DeclineCards { player: PlayerId(1) }),
        ("appoint_nominee", Command::AppointNominee { player: PlayerId(1), nominee: Some(PlayerId(2)) }),
        ("appoint_nominee-end", Command::AppointNominee { player: PlayerId(1), nominee: None }),
        ("take_marker", Command::TakeMarker { player: PlayerId(1), seat: 1 }),
        ("pass_marker", Command::PassMarker { player: PlayerId(1) }),
        ("resume_coup", Command::ResumeCoup),
        (
            "scanner_discrepancy",
            Command::ScannerDiscrepancy { confirmed: Some(["6H", "3S", "KD", "KC"].map(card).to_vec()) },
        ),
        ("scanner_discrepancy-none", Command::ScannerDiscrepancy { confirmed: None }),
        ("invalidate", Command::Invalidate { forfeit: vec![], reason: None }),
        (
            "invalidate-reason",
            Command::Invalidate { forfeit: vec![PlayerId(2)], reason: Some("shuffler_malfunction".into()) },
        ),
        ("shuffler_malfunction", Command::ShufflerMalfunction { disadvantage: true, other_device: false }),
        ("interrupted", Command::Interrupted),
        ("void_interrupted", Command::VoidInterrupted),
        ("wrong_hand", Command::WrongHand { void_hand: false }),
        ("wrong_hand-void", Command::WrongHand { void_hand: true }),
    ]
}

/// Write the command corpus and the audit record corpus.
pub async fn write() {
    let dir = corpus_dir("http").join("commands");
    std::fs::create_dir_all(&dir).unwrap();
    for (name, c) in commands() {
        std::fs::write(dir.join(format!("{name}.json")), serde_json::to_string(&c).unwrap() + "\n").unwrap();
    }

    // Real records: a server that played a few coups at every RNG table, took
    // wagers and deposits, and had a live coup dealt with an irregularity.
    let app = spawn_app_with(|c| {
        c.betting = Duration::from_millis(400);
        c.deal = Duration::from_millis(5);
        c.squeeze = Duration::from_millis(50);
        c.result_pause = Duration::from_millis(20);
    })
    .await;
    let p = app.login("player1", "demo").await;
    let dealer = app.login("dealer", "demo").await;
    let supervisor = app.login("supervisor", "demo").await;
    for t in 1..=4 {
        app.until_phase(t, "betting").await;
        app.post(
            &format!("/api/tables/{t}/wagers"),
            Some(&p),
            json!({"bet": "banker", "amount": 2000, "key": format!("c{t}")}),
        )
        .await;
        app.post(
            &format!("/api/tables/{t}/wagers"),
            Some(&p),
            json!({"wagers": [{"bet": "player", "amount": 1000}, {"bet": "tie", "amount": 1000}], "key": format!("s{t}")}),
        )
        .await;
    }
    app.post("/api/players/5/deposit", Some(&app.admin), json!({"amount": 5000, "key": "corpus"})).await;
    let live = "/api/tables/5/commands";
    app.post(live, Some(&dealer), json!({"command": "start_shoe", "source": {"live": {"decks": 8}}, "cut": null, "burn": null, "show_burn": false})).await;
    app.post(live, Some(&dealer), json!({"command": "open_betting", "no_bet": false})).await;
    app.post("/api/tables/5/wagers", Some(&p), json!({"bet": "player", "amount": 1000, "key": "live"})).await;
    for c in ["6H", "3S", "KD"] {
        app.post(live, Some(&dealer), json!({"command": "card_in", "card": c, "to": null, "face_up": true})).await;
    }
    app.post(live, Some(&dealer), json!({"command": "card_in", "card": "2C", "to": "player3", "face_up": true})).await;
    app.post(live, Some(&supervisor), json!({"command": "misdeal", "reconstructed": null})).await;
    tokio::time::sleep(Duration::from_millis(3000)).await;

    let (_, me) = app.get("/api/me", Some(&p)).await;
    assert!(me["balance"].is_number(), "{me}");
    let db = app.dir.join("casino.db");
    let out = corpus_dir("audit_record");
    std::fs::create_dir_all(&out).unwrap();
    // One record of each kind per table (the first of its kind), so the corpus
    // holds every event the server wrote without thousands of repeats.
    let mut kinds = std::collections::BTreeSet::new();
    for t in 0..=5u32 {
        for r in baccarat_core::store::read_records(&db, TableId(t), 0).unwrap() {
            let v: serde_json::Value = serde_json::from_str(&r.body).unwrap();
            let kind = v["event"]["event"].as_str().or(v["casino"]["event"].as_str()).unwrap_or("none").to_string();
            let header = v.get("rulebook").is_some();
            let by = v.get("by").is_some();
            if kinds.insert((t.min(1), kind.clone(), header, by)) {
                std::fs::write(out.join(format!("t{t}-{:04}-{kind}.json", r.seq)), &r.body).unwrap();
            }
        }
    }
}
