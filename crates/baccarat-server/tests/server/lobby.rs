//! The lobby's table cards (issue 49 item 6): the players seated at each
//! table, on the real server, as `GET /api/tables` gives them to the lobby.

use std::collections::BTreeSet;
use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{json, Value};

use super::common::{spawn_app_with, App};

/// The RNG table the players sit at (Sydney NSW, paced by the server).
const TABLE: u64 = 1;

/// Every table in the lobby, by id.
async fn lobby(app: &App) -> Vec<Value> {
    let (s, r) = app.get("/api/tables", None).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    r["tables"].as_array().unwrap().clone()
}

/// Table `TABLE` as the lobby shows it.
async fn card(app: &App) -> Value {
    lobby(app).await.into_iter().find(|t| t["id"] == TABLE).expect("the table is in the lobby")
}

/// Wager at `TABLE` in the next betting window open from coup `after` on;
/// the coup it went into. (A wager refused as betting closed is tried again
/// under a new key: a key's answer is kept.)
async fn wager(app: &App, token: &str, after: u64, key: &str) -> u64 {
    for attempt in 0..500 {
        let t = card(app).await;
        let coup = t["coup"].as_u64().unwrap();
        if t["phase"] == "betting" && coup >= after {
            let body = json!({"bet": "banker", "amount": 1000, "key": format!("{key}-{attempt}")});
            let (s, r) = app.post(&format!("/api/tables/{TABLE}/wagers"), Some(token), body).await;
            if s == StatusCode::OK && !r["wager"].is_null() {
                return coup;
            }
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("no betting window at table {TABLE} took {key}");
}

/// Two players wager: the lobby says 2 at their table and 0 elsewhere. One
/// of them wagers again the coup after. Each keeps their seat through three
/// coups without a wager and loses it at the close of the fourth (NSW
/// 14.10): the count goes 2 → 1 → 0, one coup apart, and never counts a
/// player twice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lobby_counts_the_players_seated_until_they_sit_out_three_coups() {
    let app = spawn_app_with(|c| c.betting = Duration::from_millis(1200)).await;
    let (p1, p2) = (app.login("player1", "demo").await, app.login("player2", "demo").await);
    assert!(lobby(&app).await.iter().all(|t| t["players"] == 0), "no one is seated yet");
    let first = wager(&app, &p1, 0, "a").await;
    let first = wager(&app, &p2, first, "b").await;
    for t in lobby(&app).await {
        let want = if t["id"] == TABLE { 2 } else { 0 };
        assert_eq!(t["players"], want, "two players at table {TABLE}, none elsewhere: {}", t["id"]);
    }
    let again = wager(&app, &p1, first + 1, "c").await;
    // Watch the count coup by coup until no one is seated.
    let mut seen: Vec<(u64, u64)> = Vec::new();
    for _ in 0..2000 {
        let t = card(&app).await;
        let (coup, players) = (t["coup"].as_u64().unwrap(), t["players"].as_u64().unwrap());
        if seen.last() != Some(&(coup, players)) {
            seen.push((coup, players));
        }
        if players == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let when = |n: u64| seen.iter().find(|(_, p)| *p == n).map(|(c, _)| *c);
    let counts: BTreeSet<u64> = seen.iter().map(|(_, p)| *p).collect();
    assert!(counts.is_subset(&BTreeSet::from([0, 1, 2])), "never more than the two players: {seen:?}");
    let (one, none) = (when(1).expect("player2 left first"), when(0).expect("then player1"));
    // player2's last wager was in `first`, player1's in `again`: each seat
    // ends as the third coup after closes (seen in that coup's number, or
    // the next one's once its betting opens), never sooner.
    assert!((first + 3..=first + 4).contains(&one), "player2 kept the seat three coups, no more: {seen:?}");
    assert!((again + 3..=again + 4).contains(&none), "player1 too: {seen:?}");
    assert!(none > one, "{seen:?}");
}
