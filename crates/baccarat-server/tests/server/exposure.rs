//! The exposure monitor over HTTP (issue 50, part 3): a live NSW table fed
//! a shoe stacked so that the pairs turn in the player's favour; the alert
//! is raised on the card that makes it so, priced exactly, and only the
//! pit's supervisors, inspectors, surveillance and admins may read it.

use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::common::*;

/// NSW 10.6-10.7: a Baccarat Pair is the first two cards of a hand of one
/// rank (10, J, Q and K each their own), paid 11 to 1. From `unseen` (by
/// rank) its EV is 12·Σn(n−1)/(N(N−1)) − 1, positive exactly when
/// Σn(n−1) > N(N−1)/12: the closed form the test checks the monitor by.
fn pair_positive(unseen: &[i64; 13]) -> bool {
    let n: i64 = unseen.iter().sum();
    12 * unseen.iter().map(|k| k * (k - 1)).sum::<i64>() > n * (n - 1)
}

/// The rank index (A=0 … K=12) of a card written as `10S`, `KD`.
fn rank(card: &str) -> usize {
    let r = &card[..card.len() - 1];
    ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"].iter().position(|x| *x == r).unwrap()
}

/// 32 tens then 32 kings (eight of each card, as 8 decks hold), then jacks.
fn stacked() -> Vec<String> {
    let mut cards = Vec::new();
    for r in ["10", "K", "J"] {
        for i in 0..32 {
            cards.push(format!("{r}{}", ["S", "H", "D", "C"][i % 4]));
        }
    }
    cards
}

fn pp(t: &Value) -> &Value {
    t["offers"].as_array().unwrap().iter().find(|o| o["bet"] == "player_pair").expect("player_pair priced")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pair_alert_is_raised_on_the_card_that_turns_it_and_read_only_by_the_pit() {
    let app = spawn_app().await;
    let dealer = app.login("dealer", "demo").await;
    let supervisor = app.login("supervisor", "demo").await;
    let cmd = |c: Value| app.post("/api/tables/5/commands", Some(&dealer), c);
    let (s, r) = cmd(json!({"command": "start_shoe", "source": {"live": {"decks": 8}}, "cut": null, "burn": null, "show_burn": false})).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    let (s, t) = app.get("/api/tables/5/exposure", Some(&supervisor)).await;
    assert_eq!(s, StatusCode::OK, "{t}");
    assert_eq!((t["unseen"].as_u64(), t["alert"].as_bool()), (Some(416), Some(false)), "{t}");
    // NSW Method A: the feed shows each card as it is dealt, and the roads.
    let reveals = t["reveals"].as_array().unwrap();
    assert!(reveals[0].as_str().unwrap().contains("as it is dealt"), "{t}");
    assert!(reveals.iter().any(|r| r.as_str().unwrap().contains("pairs and naturals")), "{t}");
    let mut unseen = [32i64; 13];
    let mut alerted_on = None;
    let mut cards = stacked().into_iter();
    'coups: for _ in 0..14 {
        assert_eq!(cmd(json!({"command": "open_betting", "no_bet": false})).await.0, StatusCode::OK);
        assert_eq!(cmd(json!({"command": "close_betting"})).await.0, StatusCode::OK);
        loop {
            let (_, v) = app.get("/api/tables/5", None).await;
            if v["due"].is_null() {
                break;
            }
            let Some(card) = cards.next() else { break 'coups };
            let (s, r) = cmd(json!({"command": "card_in", "card": card, "to": null, "face_up": true})).await;
            assert_eq!(s, StatusCode::OK, "{card}: {r}");
            unseen[rank(&card)] -= 1;
            let (_, t) = app.get("/api/tables/5/exposure", Some(&supervisor)).await;
            let want = pair_positive(&unseen);
            assert_eq!(pp(&t)["alert"].as_bool(), Some(want), "after {card} ({unseen:?}): {t}");
            if want && alerted_on.is_none() {
                alerted_on = Some(card.clone());
                let (_, all) = app.get("/api/exposure", Some(&supervisor)).await;
                let alerts = all["alerts"].as_array().unwrap();
                let pair = alerts.iter().find(|a| a["bet"] == "player_pair").expect("a player pair alert");
                assert_eq!(pair["cards"], json!([card]), "the alert names the card that turned it: {pair}");
                assert_eq!(pair["table"], 5);
                assert!(
                    pair["ev"].as_str().unwrap().parse::<String>().is_ok()
                        && pair["ev_percent"].as_f64().unwrap() > 0.0
                );
                assert!(alerts.iter().any(|a| a["bet"] == "banker_pair"), "{alerts:?}");
                assert!(pp(&t)["exposure"].as_i64().unwrap() > 0, "a maximum wager's expected gain: {t}");
            }
        }
    }
    let card = alerted_on.expect("the stacked shoe turns the pairs");
    // Two ranks gone (64 cards) is the first point the closed form turns.
    assert!(card.starts_with('K'), "turned on {card}");
    // One alert per crossing: still above, no second one.
    let (_, all) = app.get("/api/exposure", Some(&supervisor)).await;
    let pairs = all["alerts"].as_array().unwrap().iter().filter(|a| a["bet"] == "player_pair").count();
    assert_eq!(pairs, 1, "{all}");
    let last = all["alerts"].as_array().unwrap().last().unwrap()["id"].as_u64().unwrap();
    let (_, after) = app.get(&format!("/api/exposure?after={last}"), Some(&supervisor)).await;
    assert_eq!(after["alerts"], json!([]));
    who_may_read(&app, &dealer).await;
}

/// Supervisors, inspectors, surveillance and admins read the monitor;
/// a dealer, a player and no one are refused; a bad query is refused.
async fn who_may_read(app: &App, dealer: &str) {
    let (s, _) = app
        .post("/api/users", Some(&app.admin), json!({"name": "eye", "role": "surveillance", "password": "eye-pass"}))
        .await;
    assert_eq!(s, StatusCode::OK);
    let eye = app.login("eye", "eye-pass").await;
    let inspector = app.login("inspector", "demo").await;
    for who in [&eye, &inspector, &app.admin] {
        assert_eq!(app.get("/api/exposure", Some(who)).await.0, StatusCode::OK);
        assert_eq!(app.get("/api/tables/5/exposure", Some(who)).await.0, StatusCode::OK);
    }
    let player = app.login("player1", "demo").await;
    for who in [dealer, player.as_str()] {
        assert_eq!(app.get("/api/exposure", Some(who)).await.0, StatusCode::FORBIDDEN);
        assert_eq!(app.get("/api/tables/5/exposure", Some(who)).await.0, StatusCode::FORBIDDEN);
    }
    assert_eq!(app.get("/api/exposure", None).await.0, StatusCode::UNAUTHORIZED);
    assert_eq!(app.get("/api/tables/99/exposure", Some(&eye)).await.0, StatusCode::NOT_FOUND);
    assert_eq!(app.get("/api/exposure?after=x", Some(&eye)).await.0, StatusCode::BAD_REQUEST);
    // Past the document's int64 (found by schemathesis).
    assert_eq!(app.get("/api/exposure?after=9223372036854775808", Some(&eye)).await.0, StatusCode::BAD_REQUEST);
    assert_eq!(app.get("/api/exposure?after=9223372036854775807", Some(&eye)).await.0, StatusCode::OK);
    assert_eq!(app.get("/api/exposure?limit=3", Some(&eye)).await.0, StatusCode::BAD_REQUEST);
    // Surveillance commands nothing.
    let (s, _) =
        app.post("/api/tables/5/commands", Some(&eye), json!({"command": "open_betting", "no_bet": false})).await;
    assert_eq!(s, StatusCode::FORBIDDEN);
}

/// A table made while the server runs is priced at once, from its full
/// shoe, before any card (it was 404 until its first shoe began).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_made_while_serving_is_priced_at_once() {
    let app = spawn_app().await;
    let config = "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 100000\n[bets.player_pair]\n";
    let (s, r) = app.post("/api/tables", Some(&app.admin), json!({"name": "New pit", "config": config})).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    let id = r["table"].as_u64().unwrap();
    let (s, t) = app.get(&format!("/api/tables/{id}/exposure"), Some(&app.admin)).await;
    assert_eq!(s, StatusCode::OK, "{t}");
    assert_eq!((t["unseen"].as_u64(), t["shown"].as_u64()), (Some(416), Some(0)), "{t}");
    assert!(pp(&t)["ev"].as_str().unwrap().starts_with('-'), "a full shoe's pair is the house's: {t}");
}
