//! Player rating and who is taking it on the real server (issue 50, parts 4
//! and 5): the live NSW table is fed a stacked shoe whose pairs turn in the
//! player's favour part way through; a counter stakes the Player Pair only
//! then, a flat bettor at every coup, a third at every other coup. Each
//! wager's EV when placed is checked against the closed form from the cards
//! the test dealt; the ratings against the day's report (the ledger's
//! figures); who may read them.

use std::collections::BTreeMap;
use std::sync::Arc;

use reqwest::StatusCode;
use serde_json::{json, Value};

use super::common::{spawn_app_with, App};

/// 2026-03-10 12:00 UTC: gaming day 2026-03-10 (UTC, cut-off 06:00).
const NOON: u64 = 1_773_144_000_000;
const DAY: &str = "2026-03-10";

/// NSW 10.6-10.7: the Player Pair (11 to 1) from `unseen` by rank:
/// `12·Σn(n−1)/(N(N−1)) − 1`, as a reduced `num/den`.
fn pair_ev(unseen: &[i128; 13]) -> (i128, i128) {
    let n: i128 = unseen.iter().sum();
    let (num, den) = (12 * unseen.iter().map(|k| k * (k - 1)).sum::<i128>() - n * (n - 1), n * (n - 1));
    let g = gcd(num.abs(), den);
    (num / g, den / g)
}

fn gcd(a: i128, b: i128) -> i128 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Tens, kings, jacks, then queens, eight of each card: every hand is 0,
/// both draw, six cards a coup; the pairs turn positive once the tens and
/// kings are out (64 cards) and stay so.
fn stacked() -> Vec<(String, usize)> {
    let mut cards = Vec::new();
    for (r, i) in [("10", 9), ("K", 12), ("J", 10), ("Q", 11)] {
        for k in 0..32 {
            cards.push((format!("{r}{}", ["S", "H", "D", "C"][k % 4]), i));
        }
    }
    cards
}

struct Players {
    counter: (u64, String),
    flat: (u64, String),
    alternate: (u64, String),
}

async fn player(app: &App, name: &str) -> (u64, String) {
    let token = app.login(name, "demo").await;
    let (_, me) = app.get("/api/me", Some(&token)).await;
    (me["user"].as_u64().unwrap(), token)
}

async fn wager(app: &App, who: &str, key: String, wagers: Value) {
    let (s, r) = app.post("/api/tables/5/wagers", Some(who), json!({"wagers": wagers, "key": key})).await;
    assert_eq!(s, StatusCode::OK, "{r}");
}

/// Deal the stacked shoe coup by coup; the unseen ranks at each coup's
/// betting, by coup number.
async fn play(app: &App, p: &Players) -> BTreeMap<u64, [i128; 13]> {
    let dealer = app.login("dealer", "demo").await;
    let cmd = |c: Value| app.post("/api/tables/5/commands", Some(&dealer), c);
    let start = json!({"command": "start_shoe", "source": {"live": {"decks": 8}}, "cut": null, "burn": null, "show_burn": false});
    assert_eq!(cmd(start).await.0, StatusCode::OK);
    let mut unseen = [32i128; 13];
    let mut at_betting = BTreeMap::new();
    let mut cards = stacked().into_iter().peekable();
    for coup in 1u64.. {
        if cards.len() < 6 {
            break;
        }
        assert_eq!(cmd(json!({"command": "open_betting", "no_bet": false})).await.0, StatusCode::OK);
        at_betting.insert(coup, unseen);
        let positive = pair_ev(&unseen).0 > 0;
        let mut counter = vec![json!({"bet": "banker", "amount": 1000})];
        if positive {
            counter.push(json!({"bet": "player_pair", "amount": 5000}));
        }
        wager(app, &p.counter.1, format!("c{coup}"), json!(counter)).await;
        wager(app, &p.flat.1, format!("f{coup}"), json!([{"bet": "player_pair", "amount": 1000}])).await;
        if coup % 2 == 0 {
            wager(app, &p.alternate.1, format!("a{coup}"), json!([{"bet": "player_pair", "amount": 2000}])).await;
        }
        assert_eq!(cmd(json!({"command": "close_betting"})).await.0, StatusCode::OK);
        loop {
            let (_, v) = app.get("/api/tables/5", None).await;
            if v["due"].is_null() {
                break;
            }
            let (card, rank) = cards.next().expect("the stack lasts the coup");
            let (s, r) = cmd(json!({"command": "card_in", "card": card, "to": null, "face_up": true})).await;
            assert_eq!(s, StatusCode::OK, "{card}: {r}");
            unseen[rank] -= 1;
        }
    }
    at_betting
}

fn line<'a>(lines: &'a Value, player: u64, bet: &str) -> &'a Value {
    lines.as_array().unwrap().iter().find(|l| l["player"] == player && l["bet"] == bet).expect("a line")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_wager_is_priced_from_the_cards_shown_and_the_ratings_match_the_books() {
    let app = spawn_app_with(|c| c.clock = Arc::new(|| NOON)).await;
    let p = Players {
        counter: player(&app, "player1").await,
        flat: player(&app, "player2").await,
        alternate: player(&app, "player3").await,
    };
    let at_betting = play(&app, &p).await;
    let coups = at_betting.len() as u64;
    let positive = at_betting.values().filter(|u| pair_ev(u).0 > 0).count() as u64;
    assert!(coups >= 20 && positive >= 8 && positive < coups, "{coups} coups, {positive} positive");

    let surveillance = app.login("supervisor", "demo").await;
    let (s, r) = app.get(&format!("/api/protection?day={DAY}"), Some(&surveillance)).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    let taking = &r["taking"];
    // The counter staked the pair only while it was positive; the flat
    // bettor at every coup; what each saw is what the test dealt.
    let c = line(taking, p.counter.0, "player_pair");
    assert_eq!((c["wagers"].as_u64(), c["positive_wagers"].as_u64()), (Some(positive), Some(positive)), "{c}");
    assert_eq!(c["positive_coups"].as_u64(), Some(positive), "{c}");
    assert!(c["z"].as_f64().unwrap() > 0.0 && c["rank_correlation"].as_f64().unwrap() > 0.5, "{c}");
    let f = line(taking, p.flat.0, "player_pair");
    assert_eq!((f["wagers"].as_u64(), f["positive_wagers"].as_u64()), (Some(coups), Some(positive)), "{f}");
    assert_eq!((f["z"].as_f64(), f["flagged"].as_bool()), (Some(0.0), Some(false)), "a flat stake: {f}");
    let a = line(taking, p.alternate.0, "player_pair");
    assert_eq!(a["flagged"], false, "{a}");
    assert!(a["z"].as_f64().unwrap().abs() < 2.0, "{a}");
    for l in [c, f, a] {
        let seen = l["wagers_seen"].as_array().unwrap();
        assert!(!seen.is_empty());
        for w in seen {
            let unseen = at_betting[&w["coup"].as_u64().unwrap()];
            let got: Vec<i128> = w["unseen"].as_array().unwrap().iter().map(|k| k.as_i64().unwrap().into()).collect();
            assert_eq!(got, unseen.to_vec(), "the cards behind {w}");
            let (num, den) = pair_ev(&unseen);
            assert_eq!(w["ev"], format!("{num}/{den}"), "{w}");
        }
    }
    ratings_match_the_books(&app, &p, coups).await;
    who_may_read(&app).await;
}

/// Each player's net and wagers in the ratings are the day report's; the
/// flat bettor's theo is stakes × the pair's exact edge for a fresh shoe.
async fn ratings_match_the_books(app: &App, p: &Players, coups: u64) {
    let (s, r) = app.get(&format!("/api/ratings?day={DAY}"), Some(&app.admin)).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_eq!(r["taking"], json!([]), "the ratings route leaves out the surveillance lines");
    assert_eq!(r["across"], json!([]), "and those across tables");
    let (_, day) = app.get(&format!("/api/reports/day?date={DAY}"), Some(&app.admin)).await;
    for (id, _) in [&p.counter, &p.flat, &p.alternate] {
        let mine = r["players"].as_array().unwrap().iter().find(|l| l["player"] == *id).unwrap();
        let books = day["players"].as_array().unwrap().iter().find(|l| l["player"] == *id).unwrap();
        assert_eq!((&mine["won"], &mine["wagered"]), (&books["won"], &books["wagered"]), "{mine} {books}");
    }
    let flat = r["players"].as_array().unwrap().iter().find(|l| l["player"] == p.flat.0).unwrap();
    assert_eq!((flat["decisions"].as_u64(), flat["average_bet"].as_i64()), (Some(coups), Some(1000)));
    // The pair's edge for 8 fresh decks: 1 − 12·13·32·31/(416·415).
    let (n, d) = (416i128 * 415 - 12 * 13 * 32 * 31, 416i128 * 415);
    let stakes = i128::from(coups as u32) * 1000;
    let want = (2 * stakes * n + d) / (2 * d);
    assert_eq!(flat["theo"].as_i64().map(i128::from), Some(want), "{flat}");
    let table = r["tables"].as_array().unwrap().iter().find(|t| t["table"] == 5).unwrap();
    assert_eq!(table["coups"].as_u64(), Some(coups), "{table}");
    // One player, as CSV.
    let csv = app
        .client
        .get(format!("{}/api/ratings?day={DAY}&player={}&format=csv", app.base, p.flat.0))
        .bearer_auth(&app.admin)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let rows: Vec<&str> = csv.split("\r\n").collect();
    assert!(rows[0].starts_with("player,name,table,table_name,minutes,decisions"), "{csv}");
    assert!(rows[1].starts_with(&format!("{},player2,5,", p.flat.0)), "{csv}");
    assert_eq!(rows[2], "", "{csv}");
}

/// Ratings: supervisors, inspectors, admins. The surveillance report: those
/// and surveillance. Never a dealer or a player; a bad query is refused.
async fn who_may_read(app: &App) {
    let new = json!({"name": "eye", "role": "surveillance", "password": "eye-pass"});
    assert_eq!(app.post("/api/users", Some(&app.admin), new).await.0, StatusCode::OK);
    let eye = app.login("eye", "eye-pass").await;
    let inspector = app.login("inspector", "demo").await;
    let (dealer, player) = (app.login("dealer", "demo").await, app.login("player4", "demo").await);
    let ratings = format!("/api/ratings?day={DAY}");
    let protection = format!("/api/protection?day={DAY}");
    for who in [&inspector, &app.admin] {
        assert_eq!(app.get(&ratings, Some(who)).await.0, StatusCode::OK);
        assert_eq!(app.get(&protection, Some(who)).await.0, StatusCode::OK);
    }
    assert_eq!(app.get(&protection, Some(&eye)).await.0, StatusCode::OK);
    assert_eq!(app.get(&ratings, Some(&eye)).await.0, StatusCode::FORBIDDEN);
    for who in [&dealer, &player] {
        assert_eq!(app.get(&ratings, Some(who)).await.0, StatusCode::FORBIDDEN);
        assert_eq!(app.get(&protection, Some(who)).await.0, StatusCode::FORBIDDEN);
    }
    assert_eq!(app.get(&ratings, None).await.0, StatusCode::UNAUTHORIZED);
    // No day: the current gaming day (the server's clock stands at noon).
    let (s, today) = app.get("/api/ratings", Some(&app.admin)).await;
    assert_eq!((s, today["date"].as_str()), (StatusCode::OK, Some(DAY)), "{today}");
    for bad in ["?day=2026-13-01", "?day=x", &format!("?day={DAY}&format=xml"), &format!("?day={DAY}&player=-1")] {
        let (s, e) = app.get(&format!("/api/ratings{bad}"), Some(&app.admin)).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{bad}: {e}");
    }
    let (_, e) = app.get("/api/protection?day=nope", Some(&eye)).await;
    assert!(e["error"].as_str().unwrap().starts_with("day:"), "{e}");
}
