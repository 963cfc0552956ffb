//! The routes the table page and the pit console use, on the real server: bet
//! slips and withdrawals, the squeeze (only the holder sees the hand), a live
//! table dealt from the console with an irregularity and the rule's text, opening
//! and closing tables, tables created by an admin, rate limits and history.

use std::time::Duration;

use super::common::{spawn_app, spawn_app_with, App};
use futures_util::StreamExt;
use reqwest::StatusCode;
use serde_json::{json, Value};

async fn available(app: &App, token: &str) -> i64 {
    app.get("/api/me", Some(token)).await.1["available"].as_i64().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bet_slip_places_each_line_and_a_withdrawal_returns_the_stake() {
    let app = spawn_app().await;
    let p = app.login("player1", "demo").await;
    app.until_phase(1, "betting").await;
    let before = available(&app, &p).await;
    let slip = json!({"wagers": [
        {"bet": "banker", "amount": 1000},
        {"bet": "player_pair", "amount": 1000},
        {"bet": "tie", "amount": 600_000},
    ], "key": "slip-1"});
    let (s, r) = app.post("/api/tables/1/wagers", Some(&p), slip.clone()).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    let results = r["results"].as_array().unwrap();
    assert_eq!(results[0]["result"], "wager", "{r}");
    assert_eq!(results[1]["result"], "wager", "{r}");
    assert_eq!(results[2]["result"], "refused", "above the maximum: {r}");
    assert!(results[2]["rule"].as_str().unwrap().starts_with("NSW"), "the refusal names its rule: {r}");
    assert_eq!(available(&app, &p).await, before - 2000);
    // The same slip again (a retry) is answered from the record: nothing more held.
    let (_, again) = app.post("/api/tables/1/wagers", Some(&p), slip).await;
    assert_eq!(again["results"][0]["wager"], results[0]["wager"]);
    assert_eq!(available(&app, &p).await, before - 2000);
    // Clear: the Banker wager comes back whole.
    let (s, w) = app.post("/api/tables/1/withdraw", Some(&p), json!({"wager": results[0]["wager"]})).await;
    assert_eq!(s, StatusCode::OK, "{w}");
    assert_eq!(available(&app, &p).await, before - 1000);
    // Another player cannot withdraw it.
    let q = app.login("player2", "demo").await;
    let (s, _) = app.post("/api/tables/1/withdraw", Some(&q), json!({"wager": results[1]["wager"]})).await;
    assert_eq!(s, StatusCode::CONFLICT);
    // Malformed slips are refused with the field named.
    let (s, e) = app.post("/api/tables/1/wagers", Some(&p), json!({"wagers": [], "key": "x"})).await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert!(e["error"].as_str().unwrap().contains("wagers"), "{e}");
    let bad = json!({"wagers": [{"bet": "banker", "amount": 1000}, {"bet": "nope", "amount": 1}], "key": "y"});
    let (s, e) = app.post("/api/tables/1/wagers", Some(&p), bad).await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert!(e["error"].as_str().unwrap().contains("wagers[1].bet"), "{e}");
    assert_eq!(available(&app, &p).await, before - 1000, "a refused slip holds nothing");
}

/// Read WebSocket messages until `f` is true of one (or time runs out).
async fn until_ws<S>(ws: &mut S, mut f: impl FnMut(&Value) -> bool, seen: &mut Vec<Value>) -> Value
where
    S: futures_util::Stream<
            Item = Result<tokio_tungstenite::tungstenite::Message, tokio_tungstenite::tungstenite::Error>,
        > + Unpin,
{
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let Ok(m) = tokio::time::timeout_at(deadline, ws.next()).await else {
            panic!("no such message in time; the last: {:?}", seen.last());
        };
        let m = m.unwrap().unwrap();
        let v: Value = serde_json::from_str(&m.into_text().unwrap()).unwrap();
        seen.push(v.clone());
        if f(&v) {
            return v;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_player_squeezing_sees_the_hand_until_it_is_exposed() {
    let app = spawn_app_with(|c| c.squeeze = Duration::from_secs(30)).await;
    let (p1, p2) = (app.login("player1", "demo").await, app.login("player2", "demo").await);
    let (_, me1) = app.get("/api/me", Some(&p1)).await;
    let id1 = me1["user"].as_u64().unwrap();
    let connect = |t: String| {
        let url = format!("{}/api/tables/3/ws", app.base.replace("http", "ws"));
        async move { tokio_tungstenite::connect_async(super::common::ws_request(&url, &t)).await.unwrap().0 }
    };
    let (mut ws1, mut ws2) = (connect(p1.clone()).await, connect(p2.clone()).await);
    app.until_phase(3, "betting").await;
    let (s, r) =
        app.post("/api/tables/3/wagers", Some(&p1), json!({"bet": "player", "amount": 50_000, "key": "a"})).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    let (s, r) =
        app.post("/api/tables/3/wagers", Some(&p2), json!({"bet": "player", "amount": 1000, "key": "b"})).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    let out = |v: &Value| v["table"]["out"]["player"].as_u64() == Some(id1) && v["table"]["out"]["side"] == "player";
    let mut seen1 = Vec::new();
    let mut seen2 = Vec::new();
    let v1 = until_ws(&mut ws1, out, &mut seen1).await;
    let v2 = until_ws(&mut ws2, out, &mut seen2).await;
    let player_cards = |v: &Value| -> Vec<Value> {
        v["table"]["cards"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c[0].as_str().unwrap().starts_with("player"))
            .map(|c| c[1].clone())
            .collect()
    };
    assert!(player_cards(&v1).iter().all(|c| c.is_string()), "the squeezer sees their hand: {v1}");
    assert!(player_cards(&v2).iter().all(Value::is_null), "the other player does not: {v2}");
    assert_eq!(v2["table"]["out"]["name"], "player1", "everyone sees who is squeezing");
    let (_, public) = app.get("/api/tables/3", None).await;
    assert!(player_cards(&json!({"table": public})).iter().all(Value::is_null), "nor does the public view");
    // Only the holder may expose it.
    let (s, _) = app.post("/api/tables/3/hand", Some(&p2), json!({"action": "expose"})).await;
    assert_eq!(s, StatusCode::CONFLICT);
    let (s, r) = app.post("/api/tables/3/hand", Some(&p1), json!({"action": "expose"})).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    // Player 2 then sees them: on the table, or (on a fast table, where a push
    // can be overtaken by the next) in the coup's result.
    let first_two = |v: &Value| -> Option<Vec<Value>> {
        let on_table = player_cards(v);
        if on_table.len() >= 2 && on_table.iter().all(Value::is_string) {
            return Some(on_table[..2].to_vec());
        }
        let result = v["result"]["cards"].as_array()?;
        let p: Vec<Value> = ["player1", "player2"]
            .iter()
            .filter_map(|pos| result.iter().find(|c| c[0] == *pos).map(|c| c[1].clone()))
            .collect();
        (p.len() == 2).then_some(p)
    };
    let shown = until_ws(&mut ws2, |v| first_two(v).is_some(), &mut seen2).await;
    assert_eq!(first_two(&shown).unwrap(), player_cards(&v1)[..2], "everyone sees the same cards once exposed");
    // Before the expose, no message to player 2 carried a Player card.
    let cut = seen2.len() - 1;
    for m in &seen2[..cut] {
        assert!(player_cards(m).iter().all(Value::is_null), "a card leaked to player 2: {m}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_table_is_dealt_from_the_console_with_an_irregularity_and_its_rule() {
    let app = spawn_app().await;
    let dealer = app.login("dealer", "demo").await;
    let p = app.login("player1", "demo").await;
    let before = available(&app, &p).await;
    let (s, pit) = app.get("/api/tables/5/pit", Some(&dealer)).await;
    assert_eq!(s, StatusCode::OK, "{pit}");
    assert_eq!(pit["table"]["mode"], "live");
    let quote = |key: &str| {
        pit["rules"].as_array().unwrap().iter().find(|r| r["key"] == key).unwrap()["quote"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert!(quote("face_up_first").starts_with("12.3"), "the rule's own words: {}", quote("face_up_first"));
    let cmd = |c: Value| app.post("/api/tables/5/commands", Some(&dealer), c);
    let (s, r) = cmd(json!({"command": "start_shoe", "source": {"live": {"decks": 8}}, "cut": null, "burn": null, "show_burn": false})).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    // A live shoe is never started by the RNG route.
    assert_eq!(cmd(json!({"command": "open_betting", "no_bet": false})).await.0, StatusCode::OK);
    let (s, r) = app.post("/api/tables/5/wagers", Some(&p), json!({"bet": "banker", "amount": 2000, "key": "l"})).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_eq!(cmd(json!({"command": "close_betting"})).await.0, StatusCode::OK);
    let (_, t) = app.get("/api/tables/5", None).await;
    assert_eq!(t["due"], "player1", "the console is told which card is due");
    // The first card found face up in the shoe: a no-bet coup follows (NSW 12.3).
    let (s, r) = cmd(json!({"command": "face_up_in_shoe", "card": "5D"})).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    let (_, pit) = app.get("/api/tables/5/pit", Some(&dealer)).await;
    let notice = &pit["notices"][0];
    assert!(notice["rule"].as_str().unwrap().contains("12.3"), "{pit}");
    // Deal the coup from the keyboard until it completes.
    for card in ["9H", "2C", "KD", "3S", "4C", "6H"] {
        let (_, t) = app.get("/api/tables/5", None).await;
        if t["due"].is_null() {
            break;
        }
        let (s, r) = cmd(json!({"command": "card_in", "card": card, "to": null, "face_up": true})).await;
        assert_eq!(s, StatusCode::OK, "{card}: {r}");
    }
    let (_, pit) = app.get("/api/tables/5/pit", Some(&dealer)).await;
    let coup = &pit["coup"];
    assert!(coup["result"].is_object() || coup["void"].is_string(), "the coup ended: {pit}");
    // The money is exactly the settlement's.
    let net: i64 = coup["wagers"].as_array().unwrap().iter().map(|w| w["net"].as_i64().unwrap_or(0)).sum();
    let id = coup["wagers"][0]["player"].as_u64().unwrap().to_string();
    assert_eq!(pit["names"][&id], "player1", "staff see who wagered");
    assert_eq!(available(&app, &p).await, before + net, "{pit}");
    // A player may not drive the console.
    assert_eq!(
        app.post("/api/tables/5/commands", Some(&p), json!({"command": "close_betting"})).await.0,
        StatusCode::FORBIDDEN
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_supervisor_closes_and_reopens_a_table() {
    let app = spawn_app_with(|c| c.betting = Duration::from_millis(300)).await;
    let sup = app.login("supervisor", "demo").await;
    let (s, r) = app.post("/api/tables/4/open", Some(&sup), json!({"open": false})).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    // It finishes the coup in progress and deals no more.
    app.until_phase(4, "ready").await;
    tokio::time::sleep(Duration::from_millis(800)).await;
    let (_, t) = app.get("/api/tables/4", None).await;
    assert_eq!((t["phase"].as_str(), t["open"].as_bool()), (Some("ready"), Some(false)), "{t}");
    let coup = t["coup"].clone();
    let (s, _) = app.post("/api/tables/4/open", Some(&sup), json!({"open": true})).await;
    assert_eq!(s, StatusCode::OK);
    app.until_phase(4, "betting").await;
    let (_, t) = app.get("/api/tables/4", None).await;
    assert_ne!(t["coup"], coup);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admin_creates_a_table_checked_against_its_profile() {
    let app = spawn_app().await;
    let bad =
        json!({"name": "Bad", "config": "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 100000\ndecks = 5\n"});
    let (s, e) = app.post("/api/tables", Some(&app.admin), bad).await;
    assert_eq!((s, e["code"].as_str()), (StatusCode::UNPROCESSABLE_ENTITY, Some("config")), "{e}");
    assert!(e["error"].as_str().unwrap().contains("decks"), "the problem names its field: {e}");
    let (s, e) = app.post("/api/tables", Some(&app.admin), json!({"name": "Bad", "config": "not toml ="})).await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
    let good = json!({"name": "High limit", "config": "rulebook = \"au-casino\"\nchip = 100\nmin = 10000\nmax = 1000000\n[bets.tie]\npay_table = \"8_to_1\"\n"});
    let (s, r) = app.post("/api/tables", Some(&app.admin), good).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    let id = r["table"].as_u64().unwrap() as u32;
    assert_eq!(id, 6);
    app.until_phase(id, "betting").await;
    let (_, t) = app.get(&format!("/api/tables/{id}"), None).await;
    assert_eq!((t["name"].as_str(), t["min"].as_i64()), (Some("High limit"), Some(10_000)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_over_the_rate_are_refused_with_429_and_history_is_kept() {
    // The clock stands still, so no bucket refills however slow the machine:
    // the test sees the same limits on a loaded machine as on an idle one.
    let t0 = baccarat_server::http::now_ms();
    let app = spawn_app_with(|c| {
        c.rate_per_second = 5;
        c.clock = std::sync::Arc::new(move || t0);
    })
    .await;
    let p = app.login("player1", "demo").await;
    app.until_phase(1, "betting").await;
    let mut codes = Vec::new();
    for i in 0..8 {
        let body = json!({"bet": "banker", "amount": 1000, "key": format!("r{i}")});
        let (s, v) = app.post("/api/tables/1/wagers", Some(&p), body).await;
        if s == StatusCode::TOO_MANY_REQUESTS {
            assert!(v["retry_after_ms"].as_u64().unwrap() > 0, "{v}");
        }
        codes.push(s);
    }
    assert!(codes[..5].iter().all(|s| *s == StatusCode::OK), "{codes:?}");
    assert!(codes[5..].contains(&StatusCode::TOO_MANY_REQUESTS), "{codes:?}");
    let accepted = codes.iter().filter(|s| **s == StatusCode::OK).count() as i64;
    // Password guessing on one name from an address that has failed: a burst
    // of failures, then 429 before any hash is made.
    let mut guesses = Vec::new();
    for _ in 0..baccarat_server::NAME_BURST + 2 {
        let r =
            app.client.post(format!("{}/api/login", app.base)).json(&json!({"name": "player3", "password": "guess"}));
        guesses.push(r.send().await.unwrap().status());
    }
    let burst = baccarat_server::NAME_BURST as usize;
    assert!(guesses[..burst].iter().all(|s| *s == StatusCode::UNAUTHORIZED), "{guesses:?}");
    assert!(guesses[burst..].iter().all(|s| *s == StatusCode::TOO_MANY_REQUESTS), "{guesses:?}");
    // The coup settles; the player's history shows each wager with its money.
    app.until_phase(1, "dealing").await;
    app.until_phase(1, "betting").await;
    let (_, h) = app.get("/api/me/history", Some(&p)).await;
    let lines = h["history"].as_array().unwrap();
    assert_eq!(lines.len() as i64, accepted, "{h}");
    let net: i64 = lines.iter().map(|l| l["line"]["net"].as_i64().unwrap()).sum();
    let (_, me) = app.get("/api/me", Some(&p)).await;
    assert_eq!(me["balance"].as_i64().unwrap(), 1_000_000 + net);
}

/// AU 14, Ante Up, played over HTTP: each initial wager goes with its ante
/// (AU 14.5) unless it meets the waiver on the sign (AU 14.4); the ante is held
/// with the stake and collected at settlement whatever the result (AU 14.6);
/// a wager without a required ante is refused (AU 14.7's void, at the door).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn au_14_ante_up_over_http_with_and_without_the_waiver() {
    let app = spawn_app_with(|c| c.betting = Duration::from_secs(4)).await;
    let config = "rulebook = \"au-casino\"\nchip = 100\nmin = 1000\nmax = 100000\n[bets.tie]\npay_table = \"8_to_1\"\n[ante]\namount = 100\nwaived_at = 5000\n";
    let (s, r) = app.post("/api/tables", Some(&app.admin), json!({"name": "Ante Up", "config": config})).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    let id = r["table"].as_u64().unwrap();
    let (_, view) = app.get(&format!("/api/tables/{id}"), None).await;
    assert_eq!(view["ante"]["amount"], 100, "the sign shows the ante: {view}");
    assert_eq!(view["ante"]["waived_at"], 5000);
    let p = app.login("player4", "demo").await;
    app.until_phase(id as u32, "betting").await;
    let before = available(&app, &p).await;
    let url = format!("/api/tables/{id}/wagers");
    // Below the waiver without its ante: refused, naming AU 14.
    let (s, e) = app.post(&url, Some(&p), json!({"bet": "player", "amount": 1000, "key": "a0"})).await;
    assert_eq!(s, StatusCode::CONFLICT, "{e}");
    assert!(e["rule"].as_str().unwrap().contains("AU 14"), "{e}");
    // With it: the stake and the ante are held.
    let (s, r) = app.post(&url, Some(&p), json!({"bet": "player", "amount": 1000, "ante": 100, "key": "a1"})).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_eq!(available(&app, &p).await, before - 1100);
    // At the waiver: no ante due; a slip line carries its own.
    let slip = json!({"wagers": [{"bet": "banker", "amount": 6000}], "key": "a2"});
    let (s, r) = app.post(&url, Some(&p), slip).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_eq!(r["results"][0]["result"], "wager", "{r}");
    assert_eq!(available(&app, &p).await, before - 7100);
    // After the coup: the wallet moved by the settlements less the one ante.
    app.until_phase(id as u32, "dealing").await;
    app.until_phase(id as u32, "betting").await;
    let (_, h) = app.get("/api/me/history", Some(&p)).await;
    let lines: Vec<&Value> = h["history"].as_array().unwrap().iter().filter(|l| l["table"] == id).collect();
    assert_eq!(lines.len(), 2, "{h}");
    let net: i64 = lines.iter().map(|l| l["line"]["net"].as_i64().unwrap()).sum();
    let won: i64 = lines.iter().map(|l| l["line"]["settlement"]["won"].as_i64().unwrap()).sum();
    let (_, me) = app.get("/api/me", Some(&p)).await;
    assert_eq!(me["available"].as_i64().unwrap(), before + net, "{h}");
    // Every settled line nets its result less the ante collected: the Player
    // wager's ante is gone whatever the result (AU 14.6), the Banker's waived.
    let player_line = lines.iter().find(|l| l["line"]["bet"] == "player").unwrap();
    let s = &player_line["line"]["settlement"];
    let result = s["returned"].as_i64().unwrap() + s["won"].as_i64().unwrap()
        - s["commission"].as_i64().unwrap()
        - s["stake"].as_i64().unwrap();
    assert_eq!(player_line["line"]["net"].as_i64().unwrap(), result - 100, "{player_line}");
    assert!(won >= 0);
    let (_, v) = app.get("/api/verify", Some(&app.admin)).await;
    assert_eq!(v["ok"], true, "{v}");
}

/// While a table takes no wagers, a new wager is refused citing the rule (on
/// the HTTP thread, without the writer: `http/early.rs`), but a retry of a
/// wager placed while betting was open still gets its first answer, and the
/// same key for another wager is still refused as reused. A key refused for
/// the time is not spent: once betting opens again it places the wager.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_table_refuses_new_wagers_but_answers_retries_as_first_answered() {
    let app = spawn_app().await;
    let dealer = app.login("dealer", "demo").await;
    let p = app.login("player1", "demo").await;
    let cmd = |c: Value| app.post("/api/tables/5/commands", Some(&dealer), c);
    let wager = |key: &str, amount: i64| {
        app.post("/api/tables/5/wagers", Some(&p), json!({"bet": "banker", "amount": amount, "key": key}))
    };
    let (s, r) = cmd(json!({"command": "start_shoe", "source": {"live": {"decks": 8}}, "cut": null, "burn": null, "show_burn": false})).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    // Before betting opens: refused by the rule, and nothing held.
    let before = available(&app, &p).await;
    let (s, e) = wager("later", 2000).await;
    assert_eq!((s, e["code"].as_str()), (StatusCode::CONFLICT, Some("rule")), "{e}");
    assert!(e["rule"].as_str().is_some_and(|r| r.starts_with("NSW")), "the rule is cited: {e}");
    assert_eq!(cmd(json!({"command": "open_betting", "no_bet": false})).await.0, StatusCode::OK);
    let (s, first) = wager("placed", 2000).await;
    assert_eq!(s, StatusCode::OK, "{first}");
    assert_eq!(cmd(json!({"command": "close_betting"})).await.0, StatusCode::OK);
    // Closed: the retry is answered as first answered, holding nothing more.
    let (s, again) = wager("placed", 2000).await;
    assert_eq!(s, StatusCode::OK, "{again}");
    assert_eq!(again["wager"], first["wager"], "{again} {first}");
    assert_eq!(available(&app, &p).await, before - 2000);
    let (s, e) = wager("placed", 3000).await;
    assert_eq!((s, e["code"].as_str()), (StatusCode::CONFLICT, Some("idempotency")), "{e}");
    let (s, e) = wager("new", 2000).await;
    assert_eq!((s, e["code"].as_str()), (StatusCode::CONFLICT, Some("rule")), "{e}");
    assert_eq!(available(&app, &p).await, before - 2000, "nothing held for a refused wager");
    // Deal the coup out; the next coup's betting takes the key refused before.
    for card in ["9H", "2C", "KD", "3S", "4C", "6H"] {
        let (_, t) = app.get("/api/tables/5", None).await;
        if t["due"].is_null() {
            break;
        }
        assert_eq!(
            cmd(json!({"command": "card_in", "card": card, "to": null, "face_up": true})).await.0,
            StatusCode::OK
        );
    }
    assert_eq!(cmd(json!({"command": "open_betting", "no_bet": false})).await.0, StatusCode::OK);
    let (s, r) = wager("later", 2000).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_ne!(r["wager"], first["wager"]);
}

/// Many wagers at a closed table at once (on PostgreSQL the refusals' key
/// lookups then share queries: `key_reader/grouped.rs`), an attacker's mix:
/// each retry gets its own first answer, a key reused for another amount is
/// refused as reused, each new key is refused by the rule, and another
/// player sending the same key strings gets his own refusals, never the
/// first player's wagers. Nothing more is held.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wagers_at_a_closed_table_at_once_each_get_their_own_answer() {
    let app = spawn_app().await;
    let dealer = app.login("dealer", "demo").await;
    let (p1, p2) = (app.login("player1", "demo").await, app.login("player2", "demo").await);
    let cmd = |c: Value| app.post("/api/tables/5/commands", Some(&dealer), c);
    let at = &app;
    let wager = |who: &str, key: String, amount: i64| {
        let body = json!({"bet": "banker", "amount": amount, "key": key});
        let who = who.to_string();
        async move { at.post("/api/tables/5/wagers", Some(&who), body).await }
    };
    let (s, r) = cmd(json!({"command": "start_shoe", "source": {"live": {"decks": 8}}, "cut": null, "burn": null, "show_burn": false})).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_eq!(cmd(json!({"command": "open_betting", "no_bet": false})).await.0, StatusCode::OK);
    let mut first = Vec::new();
    for i in 0..5 {
        let (s, r) = wager(&p1, format!("a{i}"), 1000 + 100 * i).await;
        assert_eq!(s, StatusCode::OK, "{r}");
        first.push(r["wager"].clone());
    }
    assert_eq!(cmd(json!({"command": "close_betting"})).await.0, StatusCode::OK);
    let (held1, held2) = (available(&app, &p1).await, available(&app, &p2).await);
    // What each request must get: the first answer's wager, or a refusal's code.
    let mut sent = Vec::new();
    for round in 0..6 {
        for i in 0..5i64 {
            sent.push((wager(&p1, format!("a{i}"), 1000 + 100 * i), Ok(first[i as usize].clone())));
            sent.push((wager(&p2, format!("a{i}"), 1000 + 100 * i), Err("rule")));
            sent.push((wager(&p1, format!("new{round}-{i}"), 1000), Err("rule")));
        }
        sent.push((wager(&p1, "a1".to_string(), 5000), Err("idempotency")));
    }
    let (requests, expected): (Vec<_>, Vec<_>) = sent.into_iter().unzip();
    let answers = futures_util::future::join_all(requests).await;
    for ((s, r), want) in answers.iter().zip(&expected) {
        match want {
            Ok(w) => assert_eq!((*s, &r["wager"]), (StatusCode::OK, w), "a retry gets its first answer: {r}"),
            Err(code) => assert_eq!((*s, r["code"].as_str()), (StatusCode::CONFLICT, Some(*code)), "{r}"),
        }
    }
    assert_eq!((available(&app, &p1).await, available(&app, &p2).await), (held1, held2), "nothing more held");
}

/// A table's help prices each wager it offers from the exact odds of its
/// shoe: at an eight-deck NSW table, the published house edges (Banker with
/// 5% commission 1.0579%, Player 1.2351%, Tie at 8 to 1 14.3596%), every offer
/// priced or its reason given, the probabilities of a wager's outcomes
/// adding up, and the rulebook's rules quoted with their citations.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tables_help_gives_each_wagers_house_edge_and_the_rules() {
    let app = spawn_app().await;
    let (s, h) = app.get("/api/tables/1/help", None).await;
    assert_eq!(s, StatusCode::OK, "{h}");
    assert_eq!(h["decks"], 8, "{h}");
    let offers = h["offers"].as_array().unwrap();
    let edge = |bet: &str| offers.iter().find(|o| o["bet"] == bet).map(|o| o["house_edge"].clone());
    assert_eq!(edge("banker"), Some(json!("1.0579%")));
    assert_eq!(edge("player"), Some(json!("1.2351%")));
    assert_eq!(edge("tie"), Some(json!("14.3596%")));
    for o in offers {
        assert!(o["house_edge"].is_string() || o["not_priced"].is_string(), "priced, or why not: {o}");
        let sum: f64 = o["outcomes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["probability"].as_str().unwrap().trim_end_matches('%').parse::<f64>().unwrap())
            .sum();
        assert!(o["outcomes"].as_array().unwrap().is_empty() || (sum - 100.0).abs() < 0.001, "{o}: {sum}");
    }
    let rules = h["rules"].as_array().unwrap();
    assert!(rules.len() >= 5 && rules.iter().all(|r| r["cite"].as_str().is_some_and(|c| c.starts_with("NSW"))), "{h}");
    let (s, _) = app.get("/api/tables/99/help", None).await;
    assert_eq!(s, StatusCode::NOT_FOUND);
}

/// The pit's data rides on the table's WebSocket for staff only: a dealer's
/// messages carry every player's wagers with their names; a player's, and an
/// anonymous viewer's, carry none of it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pits_data_is_pushed_to_staff_only() {
    let app = spawn_app().await;
    let (p1, p2, dealer) =
        (app.login("player1", "demo").await, app.login("player2", "demo").await, app.login("dealer", "demo").await);
    let url = format!("{}/api/tables/1/ws", app.base.replace("http", "ws"));
    let connect = |t: String| {
        let url = url.clone();
        async move { tokio_tungstenite::connect_async(super::common::ws_request(&url, &t)).await.unwrap().0 }
    };
    let (mut ws_player, mut ws_dealer) = (connect(p1).await, connect(dealer).await);
    let (mut ws_public, _) = tokio_tungstenite::connect_async(url.clone()).await.unwrap();
    app.until_phase(1, "betting").await;
    let (s, r) =
        app.post("/api/tables/1/wagers", Some(&p2), json!({"bet": "banker", "amount": 1000, "key": "pit-1"})).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    let wager = r["wager"].clone();
    let has =
        move |v: &Value| v["pit"]["coup"]["wagers"].as_array().is_some_and(|ws| ws.iter().any(|w| w["wager"] == wager));
    let mut seen = Vec::new();
    let v = until_ws(&mut ws_dealer, has, &mut seen).await;
    assert!(v["pit"]["names"].as_object().is_some_and(|n| n.values().any(|x| x == "player2")), "{v}");
    assert!(v["pit"]["notices"].is_array() && v["pit"]["rules"].is_null(), "the quotes come with GET …/pit: {v}");
    // The player's and the public socket: the same push, without the pit.
    let coup = v["table"]["coup"].clone();
    for ws in [&mut ws_player, &mut ws_public] {
        let mut seen = Vec::new();
        let m = until_ws(ws, |m| m["table"]["coup"] == coup && m["table"]["phase"] == "betting", &mut seen).await;
        for m in seen.iter().chain([&m]) {
            assert!(m.get("pit").is_none(), "a non-staff viewer got the pit's data: {m}");
            assert!(!m.to_string().contains("player2"), "another player's name reached a non-staff viewer: {m}");
        }
    }
}

/// A table socket with deltas (`?deltas=1`), followed as a page follows it:
/// the whole message, then each delta applied in turn.
struct Follow {
    seq: u64,
    msg: Value,
    frames: Vec<Value>,
}

impl Follow {
    /// Take one frame; a delta must follow the last message's number.
    fn take(&mut self, text: &str) {
        let f: Value = serde_json::from_str(text).unwrap();
        let seq = f["seq"].as_u64().unwrap_or_else(|| panic!("a numbered frame: {f}"));
        assert!(f["committed_ms"].as_u64().is_some(), "{f}");
        if f["full"].is_object() {
            self.msg = f["full"].clone();
        } else {
            assert_eq!(seq, self.seq + 1, "a delta in turn: {f}");
            baccarat_server::http::delta::apply(&mut self.msg, &f["delta"]);
        }
        self.seq = seq;
        self.frames.push(f);
    }
}

/// Read a socket's next text frame (30 s at most).
async fn text<S>(ws: &mut S) -> String
where
    S: futures_util::Stream<
            Item = Result<tokio_tungstenite::tungstenite::Message, tokio_tungstenite::tungstenite::Error>,
        > + Unpin,
{
    loop {
        let m = tokio::time::timeout(Duration::from_secs(30), ws.next()).await.expect("a frame in 30 s");
        if let tokio_tungstenite::tungstenite::Message::Text(t) = m.unwrap().unwrap() {
            return t.as_str().to_string();
        }
    }
}

/// Follow a delta socket through two coups begun, then ask for the whole
/// message and check that the one rebuilt from the deltas is it, exactly.
async fn follow_two_coups<S>(ws: &mut S) -> Follow
where
    S: futures_util::Stream<
            Item = Result<tokio_tungstenite::tungstenite::Message, tokio_tungstenite::tungstenite::Error>,
        > + futures_util::Sink<tokio_tungstenite::tungstenite::Message>
        + Unpin,
    <S as futures_util::Sink<tokio_tungstenite::tungstenite::Message>>::Error: std::fmt::Debug,
{
    use futures_util::SinkExt;
    let mut f = Follow { seq: 0, msg: Value::Null, frames: Vec::new() };
    f.take(&text(ws).await);
    assert!(f.frames[0]["full"].is_object(), "the whole message first: {}", f.frames[0]);
    let coup = |f: &Follow| f.msg["table"]["coup"].as_u64().unwrap();
    let first = coup(&f);
    while coup(&f) < first + 2 {
        f.take(&text(ws).await);
    }
    ws.send(tokio_tungstenite::tungstenite::Message::Text(json!({"resync": true}).to_string().into())).await.unwrap();
    loop {
        let t = text(ws).await;
        let v: Value = serde_json::from_str(&t).unwrap();
        if v["full"].is_object() {
            assert_eq!(v["seq"].as_u64(), Some(f.seq), "the whole message of the last number");
            assert_eq!(v["full"], f.msg, "the message rebuilt from the deltas is the whole one, exactly");
            return f;
        }
        f.take(&t);
    }
}

/// Issue 49 §9: with `?deltas=1` a socket sends the table's state once and
/// then what changed. Signed in as no one (the table's shared message) or as
/// a player (their own), every delta applied to the last message gives the
/// next exactly, a coup's deltas are smaller than its whole messages, and a
/// socket without the query still gets whole messages.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ws_deltas_rebuild_every_message_exactly() {
    let app = spawn_app().await;
    let p = app.login("player1", "demo").await;
    let url = format!("{}/api/tables/1/ws", app.base.replace("http", "ws"));
    let (mut anyone, _) = tokio_tungstenite::connect_async(format!("{url}?deltas=1")).await.unwrap();
    let (mut mine, _) =
        tokio_tungstenite::connect_async(super::common::ws_request(&format!("{url}?deltas=1"), &p)).await.unwrap();
    let (mut plain, _) = tokio_tungstenite::connect_async(url.clone()).await.unwrap();
    let a = follow_two_coups(&mut anyone).await;
    assert!(a.msg["balance"].is_null() && a.msg["mine"].is_null(), "no one's: {}", a.msg);
    let m = follow_two_coups(&mut mine).await;
    assert!(m.msg["balance"].is_i64(), "the player's own: {}", m.msg);
    for f in [&a, &m] {
        let whole = f.frames[0].to_string().len();
        let deltas: Vec<usize> =
            f.frames.iter().filter(|v| v["delta"].is_object()).map(|v| v.to_string().len()).collect();
        assert!(!deltas.is_empty(), "deltas were sent");
        assert!(
            deltas.iter().all(|&d| d < whole),
            "each delta is smaller than the whole message ({whole}): {deltas:?}"
        );
    }
    let first = text(&mut plain).await;
    let v: Value = serde_json::from_str(&first).unwrap();
    assert!(v["table"].is_object() && v.get("seq").is_none(), "whole messages without the query: {v}");
    // The query is checked, naming the field.
    let r = tokio_tungstenite::connect_async(format!("{url}?deltas=yes")).await;
    match r {
        Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => {
            assert_eq!(resp.status(), 400);
            let body = String::from_utf8_lossy(resp.body().as_deref().unwrap_or_default()).to_string();
            assert!(body.contains("deltas"), "{body}");
        }
        other => panic!("?deltas=yes refused: {other:?}"),
    }
}
