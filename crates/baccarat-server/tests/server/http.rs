//! The real server on port 0 with a fresh database: whole coups over HTTP and
//! WebSocket, idempotent retries, the role matrix, and bad input refused with a
//! clear JSON error.

use super::common::spawn_app;
use futures_util::StreamExt;
use reqwest::{Client, StatusCode};
use serde_json::{json, Value};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_bets_and_is_settled_exactly_with_a_push_over_websocket() {
    let app = spawn_app().await;
    let token = app.login("player1", "demo").await;
    let (_, me) = app.get("/api/me", Some(&token)).await;
    let start = me["balance"].as_i64().unwrap();
    let ws_url = format!("{}/api/tables/3/ws", app.base.replace("http", "ws"));
    let (mut ws, _) = tokio_tungstenite::connect_async(super::common::ws_request(&ws_url, &token)).await.unwrap();
    let first: Value = serde_json::from_str(&ws.next().await.unwrap().unwrap().into_text().unwrap()).unwrap();
    assert_eq!(first["table"]["id"], 3);
    assert_eq!(first["balance"], start);
    app.until_phase(3, "betting").await;
    let (status, r) =
        app.post("/api/tables/3/wagers", Some(&token), json!({"bet": "player", "amount": 2500, "key": "w-1"})).await;
    assert_eq!(status, StatusCode::OK, "{r}");
    assert_eq!(r["balance"], start - 2500);
    // The same key again: the first answer, nothing held twice.
    let (_, again) =
        app.post("/api/tables/3/wagers", Some(&token), json!({"bet": "player", "amount": 2500, "key": "w-1"})).await;
    assert_eq!(again["wager"], r["wager"]);
    let (_, me) = app.get("/api/me", Some(&token)).await;
    assert_eq!(me["available"], start - 2500);
    // Wait for this coup to settle; the push carries the result and the balance.
    let (_, t) = app.get("/api/tables/3", None).await;
    let coup = t["coup"].as_u64().unwrap();
    let mut settled = None;
    for _ in 0..20_000 {
        let msg: Value = serde_json::from_str(&ws.next().await.unwrap().unwrap().into_text().unwrap()).unwrap();
        let same_coup_over = msg["table"]["coup"].as_u64() == Some(coup) && msg["table"]["phase"] == "ready";
        let next_coup = msg["table"]["coup"].as_u64().unwrap_or(0) > coup;
        if (same_coup_over || next_coup) && msg["available"] == msg["balance"] {
            settled = Some(msg);
            break;
        }
    }
    let msg = settled.expect("the coup settled");
    let end = msg["balance"].as_i64().unwrap();
    // Player pays 1:1 and a tie pushes (resort-house): the change is -2500, 0 or +2500.
    assert!([start - 2500, start, start + 2500].contains(&end), "{start} -> {end}");
    // The result of our coup is the road's entry number `coup` (no no-bet coups here).
    let results = msg["table"]["results"].as_str().unwrap();
    let last = &results[coup as usize - 1..coup as usize];
    let want = match last {
        "P" => start + 2500,
        "B" => start - 2500,
        _ => start,
    };
    assert_eq!(end, want, "result {last}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_and_forbidden_calls_get_clear_json_errors() {
    let app = spawn_app().await;
    let token = app.login("player2", "demo").await;
    let (s, e) = app.post("/api/login", None, json!({"name": "player2", "password": "nope"})).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    assert!(e["error"].as_str().unwrap().contains("wrong password"));
    let (s, _) = app.get("/api/me", None).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    let (s, e) =
        app.post("/api/tables/1/wagers", Some(&token), json!({"bet": "roulette", "amount": 100, "key": "x"})).await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert!(e["error"].as_str().unwrap().contains("roulette"));
    let (s, _) = app.post("/api/tables/1/wagers", Some(&token), json!({"bet": "player"})).await;
    assert!(s.is_client_error());
    let (s, e) =
        app.post("/api/tables/99/wagers", Some(&token), json!({"bet": "player", "amount": 1000, "key": "y"})).await;
    assert_eq!((s, e["code"].as_str()), (StatusCode::NOT_FOUND, Some("no_table")), "{e}");
    let (s, _) = app.post("/api/tables/1/commands", Some(&token), json!({"command": "close_betting"})).await;
    assert_eq!(s, StatusCode::FORBIDDEN);
    // An oversized body is refused (on its own connection: the server closes it).
    let big = "x".repeat(20 * 1024);
    let r = Client::new()
        .post(format!("{}/api/tables/1/wagers", app.base))
        .bearer_auth(&token)
        .json(&json!({"bet": big, "amount": 1, "key": "z"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::PAYLOAD_TOO_LARGE);
    let (s, e) = app.get("/api/nowhere", None).await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    assert!(e["error"].is_string());
    // A revoked session is refused.
    let (s, _) = app.post("/api/logout", Some(&token), json!({})).await;
    assert_eq!(s, StatusCode::OK);
    let (s, _) = app.get("/api/me", Some(&token)).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    let (s, doc) = app.get("/api/openapi.json", None).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(doc["openapi"], "3.0.3");
}

/// A casino without partitions (SQLite, or one whole PostgreSQL casino)
/// lists none, names none in `/api/me`, and answers a partition's path as
/// no partition, never as one of its own routes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_casino_without_partitions_routes_to_none() {
    let app = spawn_app().await;
    let (s, list) = app.get("/api/partitions", None).await;
    assert_eq!((s, list), (StatusCode::OK, json!({"partition": null, "partitions": []})));
    let token = app.login("player1", "demo").await;
    let (_, me) = app.get("/api/me", Some(&token)).await;
    assert!(me["balance"].as_i64().unwrap() > 0 && me["bank"].is_null(), "{me}");
    for path in ["/p/east/api/tables", "/p/east", "/p/Bad%20Name/api/me", "/p//api/tables"] {
        let (s, e) = app.get(path, Some(&token)).await;
        assert_eq!((s, e["code"].as_str()), (StatusCode::NOT_FOUND, Some("no_partition")), "{path}: {e}");
    }
}

/// Every route with every role (and none): the documented matrix in `http.rs`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_role_matrix() {
    let app = spawn_app().await;
    let mut tokens = vec![("public", None)];
    for (role, name) in
        [("player", "player3"), ("dealer", "dealer"), ("supervisor", "supervisor"), ("inspector", "inspector")]
    {
        tokens.push((role, Some(app.login(name, "demo").await)));
    }
    tokens.push(("admin", Some(app.admin.clone())));
    // (method, path, body, roles allowed)
    let routes: Vec<(&str, &str, Value, &[&str])> = vec![
        ("GET", "/api/tables", Value::Null, &["public", "player", "dealer", "supervisor", "inspector", "admin"]),
        ("GET", "/api/tables/1", Value::Null, &["public", "player", "dealer", "supervisor", "inspector", "admin"]),
        ("GET", "/api/openapi.json", Value::Null, &["public", "player", "dealer", "supervisor", "inspector", "admin"]),
        ("GET", "/api/me", Value::Null, &["player", "dealer", "supervisor", "inspector", "admin"]),
        ("POST", "/api/tables/1/wagers", json!({"bet": "player", "amount": 1000, "key": "m"}), &["player"]),
        (
            "POST",
            "/api/tables/5/commands",
            json!({"command": "wrong_hand", "void_hand": false}),
            &["dealer", "supervisor", "admin"],
        ),
        ("POST", "/api/tables/5/commands", json!({"command": "reopen_wagers"}), &["supervisor", "admin"]),
        ("POST", "/api/tables/1/void", json!({}), &["supervisor", "admin"]),
        ("POST", "/api/players/5/deposit", json!({"amount": 100, "key": "d"}), &["admin"]),
        ("GET", "/api/tables/1/audit?last=2", Value::Null, &["inspector", "admin"]),
        ("GET", "/api/verify", Value::Null, &["inspector", "admin"]),
        ("GET", "/api/ledger/check", Value::Null, &["inspector", "admin"]),
        ("GET", "/api/me/history", Value::Null, &["player", "dealer", "supervisor", "inspector", "admin"]),
        ("GET", "/api/me/limits", Value::Null, &["player"]),
        ("POST", "/api/me/limits", json!({"minutes_per_day": 1440}), &["player"]),
        ("GET", "/api/tables/1/pit", Value::Null, &["dealer", "supervisor", "admin"]),
        ("POST", "/api/tables/1/open", json!({"open": true}), &["supervisor", "admin"]),
        ("POST", "/api/tables/1/withdraw", json!({"wager": 999999}), &["player"]),
        ("POST", "/api/tables/1/hand", json!({"action": "decline"}), &["player"]),
        (
            "POST",
            "/api/tables/1/wagers",
            json!({"wagers": [{"bet": "banker", "amount": 1000}], "key": "slip"}),
            &["player"],
        ),
        ("POST", "/api/players", json!({"name": "newcomer", "password": "secret"}), &["admin"]),
        (
            "POST",
            "/api/tables",
            json!({"name": "Extra", "config": "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 100000\n"}),
            &["admin"],
        ),
        ("GET", "/", Value::Null, &["public", "player", "dealer", "supervisor", "inspector", "admin"]),
        ("GET", "/pit", Value::Null, &["public", "player", "dealer", "supervisor", "inspector", "admin"]),
        (
            "GET",
            "/api/tables/1/shoes",
            Value::Null,
            &["public", "player", "dealer", "supervisor", "inspector", "admin"],
        ),
    ];
    let (_, doc) = app.get("/api/openapi.json", None).await;
    for (method, path, _, _) in &routes {
        // Every API route tried here is in the server's own OpenAPI document.
        let template = path.split('?').next().unwrap().replace("/1/", "/{id}/").replace("/5/", "/{id}/");
        let template = if template == "/api/tables/1" { "/api/tables/{id}".to_string() } else { template };
        if template.starts_with("/api/") {
            let op = &doc["paths"][&template][method.to_lowercase()];
            assert!(op.is_object(), "{method} {template} is missing from /api/openapi.json");
        }
    }
    for (method, path, body, allowed) in routes {
        for (role, token) in &tokens {
            let (s, v) = if method == "GET" {
                app.get(path, token.as_deref()).await
            } else {
                app.post(path, token.as_deref(), body.clone()).await
            };
            let denied = s == StatusCode::UNAUTHORIZED || s == StatusCode::FORBIDDEN;
            assert_eq!(!denied, allowed.contains(role), "{method} {path} as {role}: {s} {v}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recall_and_provably_fair_shoes() {
    let app = spawn_app().await;
    app.until_phase(4, "betting").await;
    let (_, shoes) = app.get("/api/tables/4/shoes", None).await;
    let shoe = &shoes["shoes"][0];
    assert_eq!(shoe["commitment"].as_str().unwrap().len(), 64, "{shoes}");
    assert!(shoe["seed"].is_null(), "the seed is secret while the shoe is in play");
    let inspector = app.login("inspector", "demo").await;
    let (s, recall) = app.get("/api/tables/4/audit?last=3", Some(&inspector)).await;
    assert_eq!(s, StatusCode::OK);
    let coups = recall["coups"].as_array().unwrap();
    assert!(!coups.is_empty());
    let text = recall.to_string();
    assert!(!text.contains("\"seed\":\""), "no seed leaks through recall: {text}");
    assert!(coups.last().unwrap()["records"][0]["hash"].as_str().unwrap().len() == 64);
}

const AU_TABLE: &str =
    "rulebook = \"au-casino\"\nchip = 100\nmin = 1000\nmax = 100000\n[bets.tie]\npay_table = \"8_to_1\"\n";

/// A live table made by the admin from `config`; its id.
async fn live_table(app: &super::common::App, name: &str, config: &str) -> u64 {
    let (s, r) =
        app.post("/api/tables", Some(&app.admin), json!({"name": name, "config": config, "mode": "live"})).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    r["table"].as_u64().unwrap()
}

/// The user id of a signed-in person.
async fn user_id(app: &super::common::App, token: &str) -> u64 {
    let (_, me) = app.get("/api/me", Some(token)).await;
    me["user"].as_u64().unwrap_or_else(|| panic!("{me}"))
}

/// AU 2.3(h): "a Casino employee, associated person or any other person who
/// works at the Casino cannot act as a Nominee for another player". The
/// reported attack: the dealer's own user id was accepted as a nominee. Every
/// staff account is refused, naming the rule, and so is an id that is no one;
/// a player may be appointed, by a supervisor (AU 2.3(a), (b)).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn au_2_3_h_a_casino_employee_cannot_be_a_nominee() {
    let app = spawn_app().await;
    let id = live_table(&app, "Nominees", AU_TABLE).await;
    let url = format!("/api/tables/{id}/commands");
    let supervisor = app.login("supervisor", "demo").await;
    let player = user_id(&app, &app.login("player1", "demo").await).await;
    let appoint = |nominee: u64| json!({"command": "appoint_nominee", "player": player, "nominee": nominee});
    let mut staff = vec![("test-admin", user_id(&app, &app.admin).await)];
    for name in ["dealer", "supervisor", "inspector", "surveillance", "manager"] {
        staff.push((name, user_id(&app, &app.login(name, "demo").await).await));
    }
    for (name, nominee) in &staff {
        let (s, e) = app.post(&url, Some(&supervisor), appoint(*nominee)).await;
        assert_eq!((s, e["code"].as_str()), (StatusCode::CONFLICT, Some("rule")), "{name}: {e}");
        assert!(e["error"].as_str().unwrap().contains("AU 2.3(h)"), "{name}: {e}");
        assert!(e["rule"].as_str().unwrap().contains("AU 2.3"), "{name}: {e}");
    }
    // The dealer naming themselves, as reported: refused, and by the trust
    // matrix first (AU 2.3(a)), so a dealer learns nothing of whom an id
    // names; the supervisor appointing that dealer is refused by AU 2.3(h).
    let dealer = app.login("dealer", "demo").await;
    let (s, e) = app.post(&url, Some(&dealer), appoint(user_id(&app, &dealer).await)).await;
    assert_eq!((s, e["code"].as_str()), (StatusCode::FORBIDDEN, Some("role")), "{e}");
    let (s, e) = app.post(&url, Some(&dealer), appoint(4_000_000_000)).await;
    assert_eq!((s, e["code"].as_str()), (StatusCode::FORBIDDEN, Some("role")), "no id probing: {e}");
    // No one by that id.
    let (s, e) = app.post(&url, Some(&supervisor), appoint(4_000_000_000)).await;
    assert_eq!((s, e["code"].as_str()), (StatusCode::NOT_FOUND, Some("no_player")), "{e}");
    // A player, appointed by the supervisor; the dealer may not (AU 2.3(a)).
    let other = user_id(&app, &app.login("player2", "demo").await).await;
    let (s, e) = app.post(&url, Some(&dealer), appoint(other)).await;
    assert_eq!((s, e["code"].as_str()), (StatusCode::FORBIDDEN, Some("role")), "{e}");
    let (s, r) = app.post(&url, Some(&supervisor), appoint(other)).await;
    assert_eq!(s, StatusCode::OK, "{r}");
}

/// AU 2.2, 3.1: an operator chooses the version of the game in the table's
/// configuration. A full Baccarat table (AU 3.1(c)) takes a wager on box 14;
/// a table that names no version is Mini Baccarat and refuses box 8 (AU
/// 3.1(a)), as every AU table did before.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn au_3_1_c_an_operator_opens_a_full_baccarat_table() {
    let app = spawn_app().await;
    let full = live_table(&app, "Full", &format!("layout = \"full\"\n{AU_TABLE}")).await;
    let mini = live_table(&app, "Mini", AU_TABLE).await;
    let dealer = app.login("dealer", "demo").await;
    let player = app.login("player3", "demo").await;
    for id in [full, mini] {
        let url = format!("/api/tables/{id}/commands");
        let shoe = json!({"command": "start_shoe", "source": {"live": {"decks": 8}}, "cut": null, "burn": null, "show_burn": false});
        let (s, r) = app.post(&url, Some(&dealer), shoe).await;
        assert_eq!(s, StatusCode::OK, "{r}");
        let (s, r) = app.post(&url, Some(&dealer), json!({"command": "open_betting", "no_bet": false})).await;
        assert_eq!(s, StatusCode::OK, "{r}");
    }
    let wager = |spot: u8, key: &str| json!({"bet": "player", "amount": 2000, "spot": spot, "key": key});
    let (s, r) = app.post(&format!("/api/tables/{full}/wagers"), Some(&player), wager(14, "full-14")).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    let (s, e) = app.post(&format!("/api/tables/{mini}/wagers"), Some(&player), wager(8, "mini-8")).await;
    assert_eq!(s, StatusCode::CONFLICT, "{e}");
    assert!(e["rule"].as_str().unwrap().contains("AU 3.1(a)"), "{e}");
}
