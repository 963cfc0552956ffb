//! The gaming day and its books on the real server: a coup played, the day's
//! report against the player's money and the ledger, as CSV, checked by
//! `verify --report` (and a tampered report named figure by figure); the
//! gaming day set from the next day; and who may read or set them.

use baccarat_core::{TableId, UserId};
use std::sync::Arc;

use baccarat_casino::books::DayReport;
use baccarat_core::audit::{Body, CasinoEvent};
use baccarat_core::store::Db;
use reqwest::StatusCode;
use serde_json::{json, Value};

use super::common::{spawn_app_with, App};

/// 2026-03-10 12:00 UTC: gaming day 2026-03-10 (UTC, cut-off 06:00).
const NOON: u64 = 1_773_144_000_000;
const DATE: &str = "2026-03-10";

/// The server with its clock standing at noon (the pacer still paces in real
/// time: it sleeps until the deadline the standing clock gives).
async fn at_noon() -> App {
    spawn_app_with(|c| c.clock = Arc::new(|| NOON)).await
}

fn db(app: &App) -> Db {
    Db::Sqlite(app.dir.join("casino.db"))
}

async fn report(app: &App, token: &str, query: &str) -> (StatusCode, Value) {
    app.get(&format!("/api/reports/day?{query}"), Some(token)).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_days_report_matches_the_players_money_and_verify_checks_it() {
    let app = at_noon().await;
    let p = app.login("player1", "demo").await;
    let (_, me) = app.get("/api/me", Some(&p)).await;
    let player = me["user"].as_u64().unwrap();
    let (s, d) = app
        .post(&format!("/api/players/{player}/deposit"), Some(&app.admin), json!({"amount": 5_000, "key": "cage-1"}))
        .await;
    assert_eq!(s, StatusCode::OK, "{d}");
    let (_, me) = app.get("/api/me", Some(&p)).await;
    let before = me["balance"].as_i64().unwrap();
    app.until_phase(1, "betting").await;
    let slip = json!({"wagers": [{"bet": "banker", "amount": 1000}, {"bet": "tie", "amount": 2000}], "key": "b1"});
    let (s, r) = app.post("/api/tables/1/wagers", Some(&p), slip).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    app.until_phase(1, "dealing").await;
    app.until_phase(1, "betting").await;
    let (_, me) = app.get("/api/me", Some(&p)).await;
    let net = me["balance"].as_i64().unwrap() - before;

    let (s, r) = report(&app, &app.admin, &format!("date={DATE}")).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_eq!((r["date"].as_str(), r["zone"].as_str(), r["cutoff_hour"].as_u64()), (Some(DATE), Some("UTC"), Some(6)));
    let table = r["tables"].as_array().unwrap().iter().find(|t| t["table"] == 1).cloned().unwrap();
    assert_eq!(table["drop"], 3000, "{r}");
    assert_eq!((table["wagers"].as_u64(), table["players"].as_u64()), (Some(2), Some(1)), "{r}");
    assert!(table["coups"].as_u64().unwrap() >= 1, "{r}");
    // The house won what the player lost, to the cent (only they played).
    assert_eq!(r["casino"]["win"].as_i64().unwrap(), -net, "{r}");
    let line = r["players"].as_array().unwrap().iter().find(|l| l["player"] == player).cloned().unwrap();
    assert_eq!(
        (line["name"].as_str(), line["wagered"].as_i64(), line["won"].as_i64()),
        (Some("player1"), Some(3000), Some(net))
    );
    assert!(r["cash"]["deposits"].as_i64().unwrap() >= 5_000, "{r}");
    // The inspector reads the same.
    let inspector = app.login("inspector", "demo").await;
    assert_eq!(report(&app, &inspector, &format!("date={DATE}")).await.1, r);

    // As CSV: the tables' header first, the casino's row, the players' block.
    let csv = app
        .client
        .get(format!("{}/api/reports/day?date={DATE}&format=csv", app.base))
        .bearer_auth(&app.admin)
        .send()
        .await
        .unwrap();
    assert_eq!(csv.status(), StatusCode::OK);
    assert_eq!(csv.headers()["content-type"], "text/csv; charset=utf-8");
    let text = csv.text().await.unwrap();
    let lines: Vec<&str> = text.split("\r\n").collect();
    assert_eq!(lines[0], "row,table,name,drop,win,hold_bp,theo,fills,credits,coups,wagers,players");
    assert!(lines.iter().any(|l| l.starts_with("casino,,,")), "{text}");
    assert!(lines.contains(&"player,name,wagered,won,minutes"), "{text}");

    // `verify --report`: the saved report agrees with the records; a figure
    // changed is named.
    let saved: DayReport = serde_json::from_value(r.clone()).unwrap();
    let db = db(&app);
    let (check, tampered) = {
        let mut t = saved.clone();
        t.casino.win = baccarat_rules::Money(t.casino.win.0 + 100);
        let db = db.clone();
        tokio::task::spawn_blocking(move || {
            (
                baccarat_server::verify::check_report(&db, &saved).unwrap(),
                baccarat_server::verify::check_report(&db, &t).unwrap(),
            )
        })
        .await
        .unwrap()
    };
    assert!(check.is_empty(), "{check:?}");
    assert_eq!(tampered.len(), 1, "{tampered:?}");
    assert!(tampered[0].starts_with("casino.win: "), "{tampered:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gaming_day_applies_from_the_next_day_and_names_who_set_it() {
    let app = at_noon().await;
    let (s, g) = app.get("/api/casino/gaming-day", Some(&app.admin)).await;
    assert_eq!(s, StatusCode::OK, "{g}");
    assert_eq!(g, json!({"zone": "UTC", "cutoff_hour": 6, "from": null, "today": DATE}));
    // Tokyo's day of the 11th begins at 04:00 JST, 19:00 UTC on the 10th:
    // still to come at noon, so the 10th ends there.
    let (s, g) =
        app.post("/api/casino/gaming-day", Some(&app.admin), json!({"zone": "asia/tokyo", "cutoff_hour": 4})).await;
    assert_eq!(s, StatusCode::OK, "{g}");
    assert_eq!(g, json!({"zone": "Asia/Tokyo", "cutoff_hour": 4, "from": "2026-03-11", "today": DATE}));
    assert_eq!(app.get("/api/casino/gaming-day", Some(&app.admin)).await.1, g);
    let (_, today) = report(&app, &app.admin, &format!("date={DATE}")).await;
    assert_eq!((today["zone"].as_str(), today["from_ms"].as_u64()), (Some("UTC"), Some(NOON - 6 * 3_600_000)));
    assert_eq!(today["to_ms"].as_u64(), Some(NOON + 7 * 3_600_000));
    let (_, next) = report(&app, &app.admin, "date=2026-03-11").await;
    assert_eq!((next["zone"].as_str(), next["from_ms"].as_u64()), (Some("Asia/Tokyo"), Some(NOON + 7 * 3_600_000)));
    // Recorded in the casino's chain, naming the admin.
    let (_, me) = app.get("/api/me", Some(&app.admin)).await;
    let admin = UserId(me["user"].as_u64().unwrap() as u32);
    let path = app.dir.join("casino.db");
    let records =
        tokio::task::spawn_blocking(move || baccarat_core::store::read_records(&path, TableId(0), 1).unwrap())
            .await
            .unwrap();
    let set: Vec<CasinoEvent> = records
        .iter()
        .filter_map(|r| Body::decode(&r.body).ok()?.casino)
        .filter(|e| matches!(e, CasinoEvent::GamingDaySet { .. }))
        .collect();
    assert_eq!(
        set,
        vec![CasinoEvent::GamingDaySet { zone: "Asia/Tokyo".into(), cutoff_hour: 4, by: admin, at_ms: NOON }]
    );
}

/// Only an admin sets the gaming day; an admin or an inspector reads it and
/// the books; a player or a dealer is refused (403), a stranger 401; bad
/// fields are named and change nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_admins_and_inspectors_read_the_books_and_bad_fields_are_named() {
    let app = at_noon().await;
    let query = format!("date={DATE}");
    let setting = json!({"zone": "Europe/Paris", "cutoff_hour": 5});
    for (name, role) in [("player1", "player"), ("dealer", "dealer"), ("supervisor", "supervisor")] {
        let t = app.login(name, "demo").await;
        let (s, e) = report(&app, &t, &query).await;
        assert_eq!((s, e["code"].as_str()), (StatusCode::FORBIDDEN, Some("role")), "{role}: {e}");
        assert_eq!(app.get("/api/casino/gaming-day", Some(&t)).await.0, StatusCode::FORBIDDEN, "{role}");
        assert_eq!(app.post("/api/casino/gaming-day", Some(&t), setting.clone()).await.0, StatusCode::FORBIDDEN);
    }
    let inspector = app.login("inspector", "demo").await;
    assert_eq!(report(&app, &inspector, &query).await.0, StatusCode::OK);
    assert_eq!(app.get("/api/casino/gaming-day", Some(&inspector)).await.0, StatusCode::OK);
    let (s, _) = app.post("/api/casino/gaming-day", Some(&inspector), setting.clone()).await;
    assert_eq!(s, StatusCode::FORBIDDEN, "an inspector reads, never sets");
    assert_eq!(report(&app, "", &query).await.0, StatusCode::UNAUTHORIZED);
    assert_eq!(app.get(&format!("/api/reports/day?{query}"), None).await.0, StatusCode::UNAUTHORIZED);

    for (q, field) in [
        ("date=2026-02-30", "date: "),
        ("date=2026-3-10", "date: "),
        ("date=1969-12-31", "date: "),
        ("date=2026-03-10%27%20OR%201=1", "date: "),
        ("", "date: "),
        ("date=2026-03-10&format=xml", "format: "),
    ] {
        let (s, e) = report(&app, &app.admin, q).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{q}: {e}");
        assert!(e["error"].as_str().unwrap().starts_with(field), "{q}: {e}");
    }
    for (body, field) in [
        (json!({"zone": "Mars/Olympus", "cutoff_hour": 6}), "zone: "),
        (json!({"zone": "/etc/localtime", "cutoff_hour": 6}), "zone: "),
        (json!({"zone": "UTC", "cutoff_hour": 24}), "cutoff_hour: "),
        (json!({"zone": "UTC", "cutoff_hour": -1}), "cutoff_hour: "),
    ] {
        let (s, e) = app.post("/api/casino/gaming-day", Some(&app.admin), body.clone()).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{body}: {e}");
        assert!(e["error"].as_str().unwrap().starts_with(field), "{body}: {e}");
    }
    let (s, _) =
        app.post("/api/casino/gaming-day", Some(&app.admin), json!({"zone": "UTC", "cutoff_hour": 6, "by": 1})).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "a closed body");
    let (_, g) = app.get("/api/casino/gaming-day", Some(&app.admin)).await;
    assert_eq!((g["zone"].as_str(), g["from"].clone()), (Some("UTC"), Value::Null), "nothing was set");
}
