//! What a table may be made from (`http/rulebooks.rs`), and the back
//! office's page: `GET /api/rulebooks`, `POST /api/tables/check` (the
//! creation's check, every problem at once, nothing made), `GET /admin`.

use reqwest::StatusCode;
use serde_json::{json, Value};

use super::common::{spawn_app, spawn_app_with, App};

const GOOD: &str = "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 100000\n";

async fn check(app: &App, token: &str, config: &str) -> Value {
    let (s, r) = app.post("/api/tables/check", Some(token), json!({ "config": config })).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    r
}

fn paths(r: &Value) -> Vec<String> {
    r["problems"].as_array().unwrap().iter().map(|p| p["path"].as_str().unwrap().to_string()).collect()
}

/// Only the admin and the inspector read the rulebooks and check a
/// configuration: the public, a player, a dealer and a supervisor are
/// refused (a hostile caller learns nothing of what the casino may run).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_admin_and_the_inspector_read_and_check() {
    let app = spawn_app().await;
    let mut callers = vec![("public", None, false)];
    for (name, allowed) in [("player1", false), ("dealer", false), ("supervisor", false), ("inspector", true)] {
        callers.push((name, Some(app.login(name, "demo").await), allowed));
    }
    callers.push(("admin", Some(app.admin.clone()), true));
    for (who, token, allowed) in &callers {
        let (s, r) = app.get("/api/rulebooks", token.as_deref()).await;
        assert_eq!(s == StatusCode::OK, *allowed, "GET /api/rulebooks as {who}: {s} {r}");
        let (s, r) = app.post("/api/tables/check", token.as_deref(), json!({ "config": GOOD })).await;
        assert_eq!(s == StatusCode::OK, *allowed, "POST /api/tables/check as {who}: {s} {r}");
        if !allowed {
            assert!(s == StatusCode::UNAUTHORIZED || s == StatusCode::FORBIDDEN, "{who}: {s}");
        }
    }
}

/// Every built-in profile with its choices, and the bounds of an amount:
/// the ceiling the server was started with.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rulebooks_and_their_choices() {
    let app = spawn_app_with(|c| c.ceiling = baccarat_rules::Money(5_000_000)).await;
    let (s, r) = app.get("/api/rulebooks", Some(&app.admin)).await;
    assert_eq!(s, StatusCode::OK);
    let ids: Vec<&str> = r["rulebooks"].as_array().unwrap().iter().map(|b| b["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["nsw-2021", "au-casino", "resort-house", "european-casino"]);
    assert_eq!(r["limits"], json!({ "min": 1, "max": baccarat_rules::MAX_LIMIT, "ceiling": 5_000_000 }));
    let nsw = &r["rulebooks"][0];
    assert_eq!(nsw["decks"]["choices"], json!([3, 4, 6, 8]));
    assert_eq!(nsw["decks"]["default"], 8);
    let pair = nsw["bets"].as_array().unwrap().iter().find(|b| b["bet"] == "player_pair").expect("NSW offers a pair");
    assert_eq!(pair["decks"], json!([6, 8]), "a side bet's decks (NSW 3.1)");
    assert!(!pair["pay_tables"][0]["lines"].as_array().unwrap().is_empty());
    let au = &r["rulebooks"][1];
    assert!(au["ante"].is_object() && au["layouts"].as_array().unwrap().len() == 3, "{au}");
}

/// The check answers every problem at once, with its field, and makes
/// nothing: the tables are as they were, and a configuration the check
/// passes is one the creation takes (and one it faults, the creation
/// refuses).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_check_lists_every_problem_and_makes_nothing() {
    let app = spawn_app_with(|c| c.ceiling = baccarat_rules::Money(5_000_000)).await;
    let (_, before) = app.get("/api/tables", None).await;
    assert_eq!(check(&app, &app.admin, GOOD).await, json!({ "ok": true, "problems": [] }));
    let bad = "rulebook = \"nsw-2021\"\ndecks = 5\nchip = 100\nmin = 1000\nmax = 550\n";
    let r = check(&app, &app.admin, bad).await;
    assert_eq!(r["ok"], false);
    let p = paths(&r);
    assert!(p.contains(&"decks".to_string()) && p.iter().filter(|x| *x == "max").count() == 2, "{r}");
    // Over the server's ceiling: each main wager named.
    let high = GOOD.replace("max = 100000", "max = 10000000");
    let p = paths(&check(&app, &app.admin, &high).await);
    for bet in ["player", "banker", "tie"] {
        assert!(p.contains(&format!("bets.{bet}.max")), "{bet} over the ceiling: {p:?}");
    }
    // Not TOML, no rulebook, an unknown one: one problem, where.
    for (config, path) in [("chip = = 1", "config"), ("chip = 1", "config"), ("rulebook = \"none\"", "rulebook")] {
        assert_eq!(paths(&check(&app, &app.admin, config).await), [path], "{config}");
    }
    let (_, after) = app.get("/api/tables", None).await;
    assert_eq!(before["tables"].as_array().unwrap().len(), after["tables"].as_array().unwrap().len(), "nothing made");
    // The creation agrees with the check, both ways.
    let made = json!({ "name": "Checked", "config": GOOD });
    assert_eq!(app.post("/api/tables", Some(&app.admin), made).await.0, StatusCode::OK);
    let refused = json!({ "name": "Faulted", "config": high });
    assert_eq!(app.post("/api/tables", Some(&app.admin), refused).await.0, StatusCode::UNPROCESSABLE_ENTITY);
}

/// A body that is not `{"config": text}` is refused by the contract,
/// naming what is wrong; an inspector checks as the admin does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_bodies_are_refused_and_the_inspector_checks() {
    let app = spawn_app().await;
    for body in [json!({}), json!({ "config": 5 }), json!({ "config": GOOD, "name": "x" }), json!(GOOD)] {
        let (s, r) = app.post("/api/tables/check", Some(&app.admin), body.clone()).await;
        assert!(s.is_client_error() && r["error"].is_string(), "{body}: {s} {r}");
    }
    let deep = format!("rulebook = \"nsw-2021\"\nchip = {}", "[".repeat(15_000));
    assert_eq!(paths(&check(&app, &app.admin, &deep).await), ["config"], "deep nesting is one problem");
    let inspector = app.login("inspector", "demo").await;
    assert_eq!(check(&app, &inspector, GOOD).await["ok"], true);
}

/// The back office's page is served to anyone (it signs in itself), with
/// the policy that forbids inline script, and its scripts and sheet.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_back_office_page_is_served_with_its_assets() {
    let app = spawn_app().await;
    let r = app.client.get(format!("{}/admin", app.base)).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let csp = r.headers()["content-security-policy"].to_str().unwrap().to_string();
    assert!(csp.contains("script-src 'self'") && !csp.contains("unsafe-eval"), "{csp}");
    let page = r.text().await.unwrap();
    assert!(page.contains("src=\"/assets/admin.js\""), "the page loads its script");
    for asset in [
        "admin.js",
        "admin-base.js",
        "admin-people.js",
        "admin-tables.js",
        "admin-table-form.js",
        "admin-cage.js",
        "admin-books.js",
        "admin.css",
    ] {
        let r = app.client.get(format!("{}/assets/{asset}", app.base)).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::OK, "{asset}");
    }
}
