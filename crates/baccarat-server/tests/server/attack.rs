//! The attack surface, probed from outside as the testers did (issue 11): the
//! error contract, sessions, idempotency keys, deposits, the WebSocket's
//! token and the security headers. Each test is a finding that failed before.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::common::{spawn_app, spawn_app_with, App};
use futures_util::{SinkExt, StreamExt};
use reqwest::StatusCode;
use serde_json::{json, Value};

/// A request's status, content type and JSON body.
async fn raw(r: reqwest::RequestBuilder) -> (StatusCode, String, Value) {
    let r = r.send().await.unwrap();
    let status = r.status();
    let kind = r.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
    let text = r.text().await.unwrap();
    (status, kind, serde_json::from_str(&text).unwrap_or(Value::String(text)))
}

/// The contract: JSON with `error` and `code`, the right status.
fn contract(what: &str, got: &(StatusCode, String, Value), status: StatusCode, code: &str) {
    let (s, kind, body) = got;
    assert_eq!(*s, status, "{what}: {body}");
    assert!(kind.starts_with("application/json"), "{what}: content type {kind:?}, body {body}");
    assert!(body["error"].as_str().is_some_and(|e| !e.is_empty()), "{what}: {body}");
    assert_eq!(body["code"], code, "{what}: {body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_refusal_is_json_with_its_status_and_authentication_comes_before_the_body() {
    let app = spawn_app().await;
    let p = app.login("player1", "demo").await;
    let url = |path: &str| format!("{}{path}", app.base);
    let c = &app.client;
    // No token and a bad body: 401, not 400 (the body of a stranger is not read).
    let got = raw(c.post(url("/api/tables/1/wagers")).header("content-type", "application/json").body("{nope")).await;
    contract("no token, bad body", &got, StatusCode::UNAUTHORIZED, "unauthorized");
    // Bad JSON, wrong shape, wrong media type, too large, as a signed-in player.
    let got = raw(c
        .post(url("/api/tables/1/wagers"))
        .bearer_auth(&p)
        .header("content-type", "application/json")
        .body("{nope"))
    .await;
    contract("syntax", &got, StatusCode::BAD_REQUEST, "bad_request");
    let got = raw(c
        .post(url("/api/tables/1/wagers"))
        .bearer_auth(&p)
        .json(&json!({"bet": "player", "amount": "ten", "key": "k"})))
    .await;
    contract("wrong type", &got, StatusCode::UNPROCESSABLE_ENTITY, "unprocessable");
    assert!(got.2["error"].as_str().unwrap().contains("amount"), "names the field: {}", got.2);
    let got = raw(c.post(url("/api/tables/1/wagers")).bearer_auth(&p).body("bet=player")).await;
    contract("not JSON", &got, StatusCode::UNSUPPORTED_MEDIA_TYPE, "media_type");
    // JSON that is not an object: serde would read a struct's fields from an
    // array in order, so `[]` once disabled a person as `{}` does (found by
    // schemathesis at POST /api/users/{id}/disable).
    for (body, kind) in ["[]", " [ ] ", "\"x\"", "1", "null"]
        .into_iter()
        .flat_map(|b| ["application/json", "application/vnd.api+json"].map(|k| (b, k)))
    {
        let got =
            raw(c.post(url("/api/users/3/disable")).bearer_auth(&app.admin).header("content-type", kind).body(body))
                .await;
        contract(&format!("not an object ({kind}): {body}"), &got, StatusCode::UNPROCESSABLE_ENTITY, "unprocessable");
    }
    let got = raw(c
        .post(url("/api/users/3/disable"))
        .bearer_auth(&app.admin)
        .header("content-type", "application/json")
        .body("[x"))
    .await;
    contract("not an object and not JSON", &got, StatusCode::BAD_REQUEST, "bad_request");
    let (_, me) = app.get("/api/users?limit=100", Some(&app.admin)).await;
    let three = me["users"].as_array().unwrap().iter().find(|u| u["id"] == 3).cloned().unwrap_or_default();
    assert_eq!(three["disabled"], false, "nothing disabled: {three}");
    let big = "x".repeat(20 * 1024);
    let got = raw(reqwest::Client::new()
        .post(url("/api/tables/1/wagers"))
        .bearer_auth(&p)
        .json(&json!({"bet": big, "amount": 1, "key": "z"})))
    .await;
    contract("too large", &got, StatusCode::PAYLOAD_TOO_LARGE, "too_large");
    // A path id that is not a number; a method the route does not take; no route.
    let got = raw(c.get(url("/api/tables/abc"))).await;
    contract("bad id", &got, StatusCode::BAD_REQUEST, "bad_request");
    let got = raw(c.get(url("/api/tables/99999999999"))).await;
    contract("id out of range", &got, StatusCode::BAD_REQUEST, "bad_request");
    let got = raw(c.delete(url("/api/tables/1"))).await;
    contract("method", &got, StatusCode::METHOD_NOT_ALLOWED, "method");
    let got = raw(c.get(url("/api/nowhere"))).await;
    contract("route", &got, StatusCode::NOT_FOUND, "not_found");
    // No such table is 404, not 409; a role is 403; a rule is 409 with the rule.
    let got = raw(c
        .post(url("/api/tables/99/wagers"))
        .bearer_auth(&p)
        .json(&json!({"bet": "player", "amount": 1000, "key": "y"})))
    .await;
    contract("no table", &got, StatusCode::NOT_FOUND, "no_table");
    let got =
        raw(c.post(url("/api/tables/1/commands")).bearer_auth(&p).json(&json!({"command": "close_betting"}))).await;
    contract("role", &got, StatusCode::FORBIDDEN, "role");
    app.until_phase(1, "betting").await;
    let got = raw(c
        .post(url("/api/tables/1/wagers"))
        .bearer_auth(&p)
        .json(&json!({"bet": "player", "amount": 1050, "key": "odd"})))
    .await;
    contract("rule", &got, StatusCode::CONFLICT, "rule");
    assert!(got.2["rule"].as_str().unwrap().starts_with("NSW"), "{}", got.2);
    // A server condition carries no `rule`: the page needs no list of words.
    // (A key used again for another wager; a wager above the table's
    // maximum is refused by its rule before the wallet is looked at.)
    let wager = |amount: i64| {
        c.post(url("/api/tables/1/wagers"))
            .bearer_auth(&p)
            .json(&json!({"bet": "player", "amount": amount, "key": "twice"}))
    };
    let first = raw(wager(1000)).await;
    assert_eq!(first.0, StatusCode::OK, "{}", first.2);
    let got = raw(wager(2000)).await;
    assert_eq!(got.0, StatusCode::CONFLICT, "{}", got.2);
    assert!(got.2.get("rule").is_none(), "{}", got.2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deposits_go_only_to_players_wallets() {
    let app = spawn_app().await;
    let (_, me) = app.get("/api/me", Some(&app.admin)).await;
    let admin_id = me["user"].as_u64().unwrap();
    let d = app.login("dealer", "demo").await;
    let (_, dealer) = app.get("/api/me", Some(&d)).await;
    let dealer_id = dealer["user"].as_u64().unwrap();
    let (_, before) = app.get("/api/ledger/check", Some(&app.admin)).await;
    for id in [0, 999_999, 4_294_967_295, admin_id, dealer_id] {
        let (s, e) = app
            .post(
                &format!("/api/players/{id}/deposit"),
                Some(&app.admin),
                json!({"amount": 500, "key": format!("d{id}")}),
            )
            .await;
        assert_eq!((s, e["code"].as_str()), (StatusCode::NOT_FOUND, Some("no_player")), "deposit to {id}: {e}");
    }
    let (_, after) = app.get("/api/ledger/check", Some(&app.admin)).await;
    assert_eq!(before["transfers"], after["transfers"], "nothing was posted");
    let p = app.login("player2", "demo").await;
    let (_, pm) = app.get("/api/me", Some(&p)).await;
    let pid = pm["user"].as_u64().unwrap();
    let (s, r) =
        app.post(&format!("/api/players/{pid}/deposit"), Some(&app.admin), json!({"amount": 500, "key": "ok"})).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_eq!(r["balance"], pm["balance"].as_i64().unwrap() + 500);
    // The same deposit key for another amount is refused, naming the key.
    let (s, e) =
        app.post(&format!("/api/players/{pid}/deposit"), Some(&app.admin), json!({"amount": 700, "key": "ok"})).await;
    assert_eq!((s, e["code"].as_str()), (StatusCode::CONFLICT, Some("idempotency")), "{e}");
    assert!(e["error"].as_str().unwrap().contains("\"ok\""), "{e}");
}

async fn wager(app: &App, token: &str, body: Value) -> (StatusCode, Value) {
    app.post("/api/tables/1/wagers", Some(token), body).await
}

/// A key leaves memory a couple of minutes after it is answered (`keys.rs`),
/// but a retry within the retention window still gets the first answer: it is
/// read from the store's answer log. A deposit and a bet slip, retried ten
/// minutes on, change nothing; the same key for another request is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_older_than_memory_is_answered_from_the_store() {
    let (now, clock) = movable();
    let app = spawn_app_with(|c| {
        c.clock = clock;
        c.betting = std::time::Duration::from_secs(30);
    })
    .await;
    let p = app.login("player2", "demo").await;
    let pid = app.get("/api/me", Some(&p)).await.1["user"].as_u64().unwrap();
    let deposit = |amount: i64, key: &str| {
        let path = format!("/api/players/{pid}/deposit");
        let body = json!({"amount": amount, "key": key});
        let app = &app;
        async move { app.post(&path, Some(&app.admin), body).await }
    };
    let (s, first) = deposit(700, "old").await;
    assert_eq!(s, StatusCode::OK, "{first}");
    app.until_phase(1, "betting").await;
    let slip = json!({"wagers": [{"bet": "banker", "amount": 1000}, {"bet": "tie", "amount": 500}], "key": "slip-old"});
    let (s, placed) = wager(&app, &p, slip.clone()).await;
    assert_eq!(s, StatusCode::OK, "{placed}");
    // Ten minutes on, and another answer, so the old keys leave memory.
    now.fetch_add(600_000, Ordering::SeqCst);
    assert_eq!(deposit(1, "fresh").await.0, StatusCode::OK);
    let (s, again) = deposit(700, "old").await;
    assert_eq!(s, StatusCode::OK, "{again}");
    assert_eq!(again["balance"], first["balance"].as_i64().unwrap() + 1, "the retry deposited nothing: {again}");
    let (s, e) = deposit(800, "old").await;
    assert_eq!((s, e["code"].as_str()), (StatusCode::CONFLICT, Some("idempotency")), "{e}");
    let (s, retried) = wager(&app, &p, slip).await;
    assert_eq!(s, StatusCode::OK, "{retried}");
    for i in 0..2 {
        assert_eq!(retried["results"][i]["wager"], placed["results"][i]["wager"], "{retried}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idempotency_key_means_one_request() {
    let app = spawn_app_with(|c| c.betting = std::time::Duration::from_secs(30)).await;
    let p = app.login("player3", "demo").await;
    app.until_phase(1, "betting").await;
    let (s, first) = wager(&app, &p, json!({"bet": "banker", "amount": 1000, "key": "K"})).await;
    assert_eq!(s, StatusCode::OK, "{first}");
    // The same key and body: the first answer. Another body: 409 naming the key.
    let (s, again) = wager(&app, &p, json!({"bet": "banker", "amount": 1000, "key": "K"})).await;
    assert_eq!((s, again["wager"].clone()), (StatusCode::OK, first["wager"].clone()));
    let (s, e) = wager(&app, &p, json!({"bet": "banker", "amount": 2000, "key": "K"})).await;
    assert_eq!((s, e["code"].as_str()), (StatusCode::CONFLICT, Some("idempotency")), "{e}");
    assert!(e["error"].as_str().unwrap().contains("\"K\""), "names the key: {e}");
    // The same key as a slip is another request too.
    let (s, e) = wager(&app, &p, json!({"wagers": [{"bet": "banker", "amount": 1000}], "key": "K"})).await;
    assert_eq!((s, e["code"].as_str()), (StatusCode::CONFLICT, Some("idempotency")), "{e}");
    // A slip keyed S and a single wager keyed S#0 do not collide.
    let (s, slip) = wager(&app, &p, json!({"wagers": [{"bet": "player_pair", "amount": 1000}], "key": "S"})).await;
    assert_eq!(s, StatusCode::OK, "{slip}");
    let (s, single) = wager(&app, &p, json!({"bet": "banker_pair", "amount": 1000, "key": "S#0"})).await;
    assert_eq!(s, StatusCode::OK, "{single}");
    assert_ne!(single["wager"], slip["results"][0]["wager"], "two requests, two wagers");
    // The slip retried: the same answers; changed: refused whole.
    let (_, retry) = wager(&app, &p, json!({"wagers": [{"bet": "player_pair", "amount": 1000}], "key": "S"})).await;
    assert_eq!(retry["results"][0]["wager"], slip["results"][0]["wager"]);
    let (s, e) = wager(&app, &p, json!({"wagers": [{"bet": "player_pair", "amount": 2000}], "key": "S"})).await;
    assert_eq!(s, StatusCode::CONFLICT, "{e}");
    // Another player's key space is their own.
    let q = app.login("player4", "demo").await;
    let (s, other) = wager(&app, &q, json!({"bet": "player", "amount": 1000, "key": "K"})).await;
    assert_eq!(s, StatusCode::OK, "{other}");
    assert_ne!(other["wager"], first["wager"]);
}

/// A clock the test moves.
fn movable() -> (Arc<AtomicU64>, baccarat_casino::casino::Clock) {
    let now = Arc::new(AtomicU64::new(baccarat_server::http::now_ms()));
    let n = now.clone();
    (now, Arc::new(move || n.load(Ordering::SeqCst)))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_end_when_idle_at_their_maximum_on_sign_out_and_on_a_password_change() {
    let (now, clock) = movable();
    let app = spawn_app_with(|c| {
        c.clock = clock;
        c.sessions = baccarat_server::auth::SessionPolicy { idle_ms: 60_000, max_ms: 300_000 };
    })
    .await;
    let step = |ms: u64| now.fetch_add(ms, Ordering::SeqCst);
    // Idle: used every 50 s it lives; 60 s unused ends it.
    let t = app.login("player1", "demo").await;
    for _ in 0..4 {
        step(50_000);
        assert_eq!(app.get("/api/me", Some(&t)).await.0, StatusCode::OK);
    }
    step(60_000);
    let (s, e) = app.get("/api/me", Some(&t)).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED, "{e}");
    assert!(e["error"].as_str().unwrap().contains("expired"), "{e}");
    // Absolute: however busy, it ends at the maximum.
    let t = app.login("player1", "demo").await;
    for _ in 0..5 {
        step(59_000);
        assert_eq!(app.get("/api/me", Some(&t)).await.0, StatusCode::OK);
    }
    step(10_000);
    assert_eq!(app.get("/api/me", Some(&t)).await.0, StatusCode::UNAUTHORIZED, "past the maximum");
    // Sign-out ends the session and clears the cookie.
    let t = app.login("player1", "demo").await;
    let r = app.client.post(format!("{}/api/logout", app.base)).bearer_auth(&t).json(&json!({})).send().await.unwrap();
    let cookie = r.headers().get("set-cookie").unwrap().to_str().unwrap().to_string();
    assert!(cookie.contains("Max-Age=0"), "{cookie}");
    assert_eq!(app.get("/api/me", Some(&t)).await.0, StatusCode::UNAUTHORIZED);
    // A password change ends every session of the person, with the old password
    // checked first.
    let a = app.login("player2", "demo").await;
    let b = app.login("player2", "demo").await;
    let (s, e) = app.post("/api/me/password", Some(&a), json!({"old": "wrong", "new": "fresh-one"})).await;
    assert_eq!(s, StatusCode::FORBIDDEN, "{e}");
    assert_eq!(app.get("/api/me", Some(&b)).await.0, StatusCode::OK, "a refused change ends nothing");
    let (s, e) = app.post("/api/me/password", Some(&a), json!({"old": "demo", "new": "ab"})).await;
    assert_eq!((s, e["code"].as_str()), (StatusCode::BAD_REQUEST, Some("bad_request")), "{e}");
    assert!(e["error"].as_str().unwrap().starts_with("new:"), "{e}");
    assert_eq!(app.get("/api/me", Some(&b)).await.0, StatusCode::OK, "a too-short password ends nothing");
    let (s, r) = app.post("/api/me/password", Some(&a), json!({"old": "demo", "new": "fresh-one"})).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_eq!(app.get("/api/me", Some(&a)).await.0, StatusCode::UNAUTHORIZED);
    assert_eq!(app.get("/api/me", Some(&b)).await.0, StatusCode::UNAUTHORIZED);
    assert_eq!(app.get("/api/me", Some(r["token"].as_str().unwrap())).await.0, StatusCode::OK);
    let fresh = app.login("player2", "fresh-one").await;
    assert!(!fresh.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_session_is_an_http_only_strict_cookie_and_every_response_has_the_security_headers() {
    let app = spawn_app().await;
    let r = app
        .client
        .post(format!("{}/api/login", app.base))
        .json(&json!({"name": "player1", "password": "demo"}))
        .send()
        .await
        .unwrap();
    let cookie = r.headers().get("set-cookie").unwrap().to_str().unwrap().to_string();
    for part in ["baccarat_session=", "HttpOnly", "SameSite=Strict", "Path=/"] {
        assert!(cookie.contains(part), "{part} in {cookie}");
    }
    let token = cookie.split(';').next().unwrap().trim_start_matches("baccarat_session=").to_string();
    // The cookie alone signs a request in.
    let me: Value = app
        .client
        .get(format!("{}/api/me", app.base))
        .header("cookie", format!("baccarat_session={token}"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(me["name"], "player1");
    for path in ["/", "/pit", "/multi", "/assets/table.js", "/api/tables", "/api/nowhere"] {
        let r = app.client.get(format!("{}{path}", app.base)).send().await.unwrap();
        let h = r.headers();
        let csp = h.get("content-security-policy").map(|v| v.to_str().unwrap().to_string()).unwrap_or_default();
        assert!(
            csp.contains("script-src 'self'") && !csp.contains("script-src 'self' 'unsafe-inline'"),
            "{path}: {csp}"
        );
        // Framed only by this origin's own pages (`/multi`): another site
        // cannot put a table under a decoy (clickjacking).
        assert!(csp.contains("frame-ancestors 'self'") && !csp.contains("frame-ancestors *"), "{path}: {csp}");
        assert_eq!(h.get("x-frame-options").unwrap(), "SAMEORIGIN", "{path}");
        assert_eq!(h.get("x-content-type-options").unwrap(), "nosniff", "{path}");
        assert_eq!(h.get("referrer-policy").unwrap(), "no-referrer", "{path}");
    }
    // The pages hold no inline script for the policy to block.
    for page in ["/", "/pit", "/multi"] {
        let html = app.client.get(format!("{}{page}", app.base)).send().await.unwrap().text().await.unwrap();
        for (i, _) in html.match_indices("<script") {
            let tag = &html[i..i + html[i..].find('>').unwrap()];
            assert!(tag.contains("src="), "{page}: inline script {tag}");
        }
        assert!(!html.contains(" onclick=") && !html.contains(" onload="), "{page}: inline handlers");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_websocket_never_takes_a_token_in_the_url() {
    let app = spawn_app().await;
    let t = app.login("player1", "demo").await;
    let (_, me) = app.get("/api/me", Some(&t)).await;
    let ws = app.base.replace("http", "ws");
    let r = tokio_tungstenite::connect_async(format!("{ws}/api/tables/3/ws?token={t}")).await;
    match r {
        Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => assert_eq!(resp.status(), 400),
        other => panic!("a token in the URL must be refused: {:?}", other.map(|_| ())),
    }
    // A plain GET to the socket's route is refused through the contract too.
    let got = raw(app.client.get(format!("{}/api/tables/3/ws", app.base))).await;
    contract("not an upgrade", &got, StatusCode::BAD_REQUEST, "upgrade");
    let got = raw(app.client.get(format!("{}/api/tables/77/ws", app.base))).await;
    contract("no table before the upgrade", &got, StatusCode::NOT_FOUND, "no_table");
    // By the first message instead: the pushes then carry the player's balance.
    let (mut sock, _) = tokio_tungstenite::connect_async(format!("{ws}/api/tables/3/ws")).await.unwrap();
    let first: Value = serde_json::from_str(&sock.next().await.unwrap().unwrap().into_text().unwrap()).unwrap();
    assert!(first["balance"].is_null(), "a stranger sees no balance: {first}");
    sock.send(tokio_tungstenite::tungstenite::Message::Text(json!({"token": t}).to_string().into())).await.unwrap();
    let signed: Value = serde_json::from_str(&sock.next().await.unwrap().unwrap().into_text().unwrap()).unwrap();
    assert_eq!(signed["balance"], me["balance"], "{signed}");
    // A revoked token closes the socket's signed-in view.
    let (mut bad, _) = tokio_tungstenite::connect_async(format!("{ws}/api/tables/3/ws")).await.unwrap();
    let _ = bad.next().await;
    bad.send(tokio_tungstenite::tungstenite::Message::Text(json!({"token": "00"}).to_string().into())).await.unwrap();
    let refusal: Value = serde_json::from_str(&bad.next().await.unwrap().unwrap().into_text().unwrap()).unwrap();
    assert_eq!(refusal["code"], "unauthorized", "{refusal}");
}

/// The ledger check runs on the database, not in the writer's memory: a
/// balance forged in the file while the server runs is named (the check
/// rebuilds the ledger from the latest checkpoint and the transfers after it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ledger_check_reads_the_database_and_names_a_forged_balance() {
    let mut cfg = None;
    let app = spawn_app_with(|c| cfg = Some(c.clone())).await;
    let cfg = cfg.unwrap();
    let p = app.login("player3", "demo").await;
    let pid = app.get("/api/me", Some(&p)).await.1["user"].as_u64().unwrap();
    let (s, r) =
        app.post(&format!("/api/players/{pid}/deposit"), Some(&app.admin), json!({"amount": 900, "key": "d"})).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    let (s, ok) = app.get("/api/ledger/check", Some(&app.admin)).await;
    assert_eq!((s, ok["ok"].as_bool()), (StatusCode::OK, Some(true)), "{ok}");
    assert!(ok["transfers"].as_u64().unwrap() > 0, "{ok}");
    let forge = format!("UPDATE accounts SET balance = balance + 100000 WHERE kind LIKE '%\"player\":{pid}%'");
    assert_eq!(super::common::execute(&cfg, &forge).await, 1);
    let (s, bad) = app.get("/api/ledger/check", Some(&app.admin)).await;
    assert_eq!((s, bad["ok"].as_bool()), (StatusCode::OK, Some(false)), "{bad}");
    assert!(bad["problem"].as_str().unwrap().contains("account"), "{bad}");
}

/// Issue 45, finding 7: cross-site WebSocket hijacking. With a dealer's
/// session cookie, an upgrade to `/api/tables/5/ws` from
/// `Origin: http://evil.example` got 101 and the pit's staff data
/// (`SameSite=Strict` does not cover another port or subdomain of the same
/// site). A cookie upgrade now comes only from the server's own origin or
/// one listed (`--allowed-origin`): another origin, another port of the same
/// host, or no `Origin` at all is 403 `origin`, naming why. A bearer token
/// or a token sent as the first message is not affected.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cookie_websocket_from_another_origin_is_refused() {
    use tokio_tungstenite::tungstenite::{handshake::client::Request, Error};
    let app = spawn_app_with(|c| c.allowed_origins = vec!["https://casino.example".into()]).await;
    let dealer = app.login("dealer", "demo").await;
    let url = format!("{}/api/tables/5/ws", app.base.replace("http", "ws"));
    let with = |origin: Option<&str>| {
        let mut r = super::common::ws_request(&url, &dealer);
        r.headers_mut().remove("origin");
        if let Some(o) = origin {
            r.headers_mut().insert("origin", o.parse().unwrap());
        }
        r
    };
    // The upgrade is refused; the same request's answer, read whole, is
    // the contract's, naming why.
    let refused = |origin: Option<&'static str>, why: &'static str| {
        let (r, app, dealer) = (with(origin), &app, dealer.clone());
        async move {
            match tokio_tungstenite::connect_async(r).await {
                Err(Error::Http(resp)) => assert_eq!(resp.status(), 403, "{why}"),
                other => panic!("{why}: expected 403, got {:?}", other.map(|(_, r)| r.status())),
            }
            let mut get = app.client.get(format!("{}/api/tables/5/ws", app.base));
            get = get.header("cookie", format!("{}={dealer}", baccarat_server::http::SESSION_COOKIE));
            if let Some(o) = origin {
                get = get.header("origin", o);
            }
            let got = raw(get).await;
            contract(why, &got, StatusCode::FORBIDDEN, "origin");
            got.2["error"].as_str().unwrap().to_string()
        }
    };
    let first = |r: Request| async move {
        let (mut sock, _) = tokio_tungstenite::connect_async(r).await.unwrap();
        let m: Value = serde_json::from_str(&sock.next().await.unwrap().unwrap().into_text().unwrap()).unwrap();
        m
    };
    let e = refused(Some("http://evil.example"), "another site").await;
    assert!(e.contains("http://evil.example"), "{e}");
    let port = app.base.rsplit(':').next().unwrap().parse::<u16>().unwrap();
    let other_port: &'static str = format!("http://127.0.0.1:{}", port.wrapping_add(1).max(1)).leak();
    refused(Some(other_port), "another port of the same host").await;
    let e = refused(None, "no Origin").await;
    assert!(e.contains("Origin") && e.contains("token"), "{e}");
    // Its own origin, and the one listed: the dealer's pit data.
    assert!(first(with(Some(&app.base))).await["pit"].is_object(), "its own origin");
    assert!(first(with(Some("https://casino.example"))).await["pit"].is_object(), "a listed origin");
    // A bearer token is the client's own: no page can send one.
    let mut bearer = with(Some("http://evil.example"));
    bearer.headers_mut().remove("cookie");
    bearer.headers_mut().insert("authorization", format!("Bearer {dealer}").parse().unwrap());
    assert!(first(bearer).await["pit"].is_object(), "a bearer token");
    // Without the cookie the socket is the public view, wherever it is from.
    let mut public = with(Some("http://evil.example"));
    public.headers_mut().remove("cookie");
    assert!(first(public).await["pit"].is_null(), "no cookie: no staff data");
}
