//! Tables (issue 47 item 4): unique names, a create asked again answering
//! the same table, and tables closed for good, over HTTP end to end: the
//! float back to the cage, wagers and commands refused after, `verify`
//! passing over it, and a restart keeping it closed.

use baccarat_core::UserId;
use std::time::Duration;

use baccarat_casino::casino::{Reply, Request, DEFAULT_FLOAT};
use baccarat_core::trust::{Actor, Role};
use baccarat_rules::{Bet, Money};
use baccarat_table::{Command, PlayerId, Spot};
use reqwest::StatusCode;
use serde_json::{json, Value};

use super::checkpoint::{config, server, step};
use super::common::{spawn_app, spawn_app_with, App};

const NSW: &str = "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 100000\n";

/// A table made by the admin; its id.
async fn table(app: &App, name: &str, mode: &str) -> u64 {
    let (s, r) = app.post("/api/tables", Some(&app.admin), json!({"name": name, "config": NSW, "mode": mode})).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    r["table"].as_u64().unwrap()
}

/// Every table in the lobby called `name` (any case).
async fn called(app: &App, name: &str) -> Vec<Value> {
    let (_, lobby) = app.get("/api/tables", None).await;
    let all = lobby["tables"].as_array().unwrap().clone();
    all.into_iter().filter(|t| t["name"].as_str().unwrap().eq_ignore_ascii_case(name)).collect()
}

/// Poll table `id`'s view until `done` holds (bounded: a liveness bound, not
/// a speed figure).
async fn until(app: &App, id: u64, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    for _ in 0..3000 {
        let (_, t) = app.get(&format!("/api/tables/{id}"), None).await;
        if done(&t) {
            return t;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("table {id} never became {what}");
}

/// `verify` over the database as the inspector asks for it: no problem.
async fn verified(app: &App) {
    let inspector = app.login("inspector", "demo").await;
    let (s, v) = app.get("/api/verify", Some(&inspector)).await;
    assert_eq!((s, &v["problems"]), (StatusCode::OK, &json!([])), "{v}");
    assert_eq!(v["ok"], true, "{v}");
    let (s, l) = app.get("/api/ledger/check", Some(&inspector)).await;
    assert_eq!((s, &l["ok"]), (StatusCode::OK, &json!(true)), "{l}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_are_unique_and_the_same_table_asked_again_is_answered() {
    let app = spawn_app().await;
    let id = table(&app, "Salon 9", "live").await;
    // The same table again, its name in another case and with spaces, its
    // configuration written otherwise: the usual reply, nothing made.
    let same = "# the salon\nmax = 100000\nmin = 1000\nchip = 100\nrulebook = \"nsw-2021\"\n";
    for (name, config) in [("Salon 9", NSW), ("  salon 9 ", same)] {
        let (s, r) =
            app.post("/api/tables", Some(&app.admin), json!({"name": name, "config": config, "mode": "live"})).await;
        assert_eq!((s, r), (StatusCode::OK, json!({"result": "table", "table": id})), "{name:?}");
    }
    assert_eq!(called(&app, "salon 9").await.len(), 1);
    // Another definition under the name: refused, naming what differs.
    let cases = [
        (NSW.replace("max = 100000", "max = 300000"), "live", "max: 100000 here, 300000 asked"),
        (NSW.to_string(), "rng", "mode: live here, rng asked"),
        (format!("{NSW}[bets.player_pair]\n"), "live", "bets.player_pair: not offered here, asked"),
    ];
    for (config, mode, words) in cases {
        let (s, e) =
            app.post("/api/tables", Some(&app.admin), json!({"name": "SALON 9", "config": config, "mode": mode})).await;
        assert_eq!((s, e["code"].as_str()), (StatusCode::CONFLICT, Some("table_exists")), "{e}");
        assert!(e["error"].as_str().unwrap().contains(words), "{e} does not say {words:?}");
    }
    assert_eq!(called(&app, "salon 9").await.len(), 1, "a refusal makes nothing");
    // A name of spaces only is no name.
    let (s, e) = app.post("/api/tables", Some(&app.admin), json!({"name": "   ", "config": NSW})).await;
    assert_eq!((s, e["code"].as_str()), (StatusCode::BAD_REQUEST, Some("bad_request")), "{e}");
}

/// Creates of one name sent at once make one table, and each is answered
/// with it (the writer decides them one after another).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn creates_of_one_name_racing_make_one_table() {
    let app = spawn_app().await;
    let body = json!({"name": "Race", "config": NSW, "mode": "live"});
    let sent = (0..6).map(|_| app.post("/api/tables", Some(&app.admin), body.clone()));
    let answers = futures_util::future::join_all(sent).await;
    let ids: Vec<Value> = answers
        .iter()
        .map(|(s, r)| {
            assert_eq!(*s, StatusCode::OK, "{r}");
            r["table"].clone()
        })
        .collect();
    assert!(ids.iter().all(|id| *id == ids[0]), "{ids:?}");
    let tables = called(&app, "race").await;
    assert_eq!(tables.len(), 1, "{tables:?}");
    assert_eq!(tables[0]["id"], ids[0]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_an_admin_creates_or_closes_a_table() {
    let app = spawn_app().await;
    let id = table(&app, "Guarded", "live").await;
    let close = format!("/api/tables/{id}/close");
    for (name, code) in [
        ("player1", StatusCode::FORBIDDEN),
        ("dealer", StatusCode::FORBIDDEN),
        ("supervisor", StatusCode::FORBIDDEN),
        ("inspector", StatusCode::FORBIDDEN),
    ] {
        let token = app.login(name, "demo").await;
        let (s, e) = app.post(&close, Some(&token), json!({})).await;
        assert_eq!((s, e["code"].as_str()), (code, Some("role")), "{name} closing: {e}");
        let (s, e) = app.post("/api/tables", Some(&token), json!({"name": "Mine", "config": NSW})).await;
        assert_eq!((s, e["code"].as_str()), (code, Some("role")), "{name} creating: {e}");
    }
    let (s, _) = app.post(&close, None, json!({})).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    // A body is `{}` and nothing more; an id that is no table is none.
    let (s, e) = app.post(&close, Some(&app.admin), json!({"now": true})).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{e}");
    let (s, e) = app.post("/api/tables/999/close", Some(&app.admin), json!({})).await;
    assert_eq!((s, e["code"].as_str()), (StatusCode::NOT_FOUND, Some("no_table")), "{e}");
    // None of it closed the table or made one.
    let (_, t) = app.get(&format!("/api/tables/{id}"), None).await;
    assert_eq!((t["closed"].clone(), t["closing"].clone()), (json!(false), json!(false)), "{t}");
    assert!(called(&app, "mine").await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_table_gives_its_float_back_and_refuses_everything_after() {
    // A short betting window: a table still paced would move on within the
    // wait below.
    let app = spawn_app_with(|c| c.betting = Duration::from_millis(200)).await;
    let id = table(&app, "Retiring", "rng").await;
    app.until_phase(id as u32, "betting").await;
    // No coup in play (betting open, no wager): closed now, the whole float back.
    let (s, r) = app.post(&format!("/api/tables/{id}/close"), Some(&app.admin), json!({})).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_eq!(r, json!({"result": "table_closed", "table": id, "closed": true, "credited": DEFAULT_FLOAT.0}));
    let t = until(&app, id, "closed", |t| t["closed"] == true).await;
    assert_eq!(t["closing"], false);
    assert_eq!(called(&app, "retiring").await.len(), 1, "it stays in the lobby");
    // Closing twice.
    let (s, e) = app.post(&format!("/api/tables/{id}/close"), Some(&app.admin), json!({})).await;
    assert_eq!((s, e["code"].as_str()), (StatusCode::CONFLICT, Some("closed")), "{e}");
    // A wager, a slip, a staff command, reopening: all refused, nothing held.
    let player = app.login("player1", "demo").await;
    let (_, me) = app.get("/api/me", Some(&player)).await;
    let wagers = format!("/api/tables/{id}/wagers");
    for body in [
        json!({"bet": "banker", "amount": 1000, "key": "late"}),
        json!({"wagers": [{"bet": "player", "amount": 1000}], "key": "late-slip"}),
    ] {
        let (s, e) = app.post(&wagers, Some(&player), body).await;
        let refused = e["code"] == "closed" || e["results"][0]["code"] == "closed";
        assert!(refused && matches!(s, StatusCode::CONFLICT | StatusCode::OK), "{s} {e}");
    }
    let (_, after) = app.get("/api/me", Some(&player)).await;
    assert_eq!(
        (after["balance"].clone(), after["available"].clone()),
        (me["balance"].clone(), me["available"].clone())
    );
    let supervisor = app.login("supervisor", "demo").await;
    let (s, e) = app.post(&format!("/api/tables/{id}/open"), Some(&supervisor), json!({"open": true})).await;
    assert_eq!((s, e["code"].as_str()), (StatusCode::CONFLICT, Some("closed")), "{e}");
    let (s, e) =
        app.post(&format!("/api/tables/{id}/commands"), Some(&supervisor), json!({"command": "close_betting"})).await;
    assert_eq!((s, e["code"].as_str()), (StatusCode::CONFLICT, Some("closed")), "{e}");
    // Its name is not reused, even for the same table.
    let (s, e) =
        app.post("/api/tables", Some(&app.admin), json!({"name": "Retiring", "config": NSW, "mode": "rng"})).await;
    assert_eq!((s, e["code"].as_str()), (StatusCode::CONFLICT, Some("table_exists")), "{e}");
    assert!(e["error"].as_str().unwrap().contains("closed for good"), "{e}");
    // Not paced: its coup stays where it closed (a paced table would have
    // dealt coups in this time: 200 ms of betting, 10 ms a card).
    let (_, before) = app.get(&format!("/api/tables/{id}"), None).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let (_, later) = app.get(&format!("/api/tables/{id}"), None).await;
    assert_eq!((before["coup"].clone(), before["phase"].clone()), (later["coup"].clone(), later["phase"].clone()));
    verified(&app).await;
}

/// Closed while a player's wager is in play: no new wager, the coup is dealt
/// out and settled, and then the table closes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_closed_during_a_coup_closes_when_it_settles() {
    let app = spawn_app().await;
    let id = table(&app, "Last coup", "rng").await;
    app.until_phase(id as u32, "betting").await;
    let player = app.login("player1", "demo").await;
    let wagers = format!("/api/tables/{id}/wagers");
    let (s, w) = app.post(&wagers, Some(&player), json!({"bet": "banker", "amount": 1000, "key": "in-play"})).await;
    assert_eq!(s, StatusCode::OK, "{w}");
    let (s, r) = app.post(&format!("/api/tables/{id}/close"), Some(&app.admin), json!({})).await;
    assert_eq!(
        (s, r),
        (StatusCode::OK, json!({"result": "table_closed", "table": id, "closed": false, "closing": true}))
    );
    let other = app.login("player2", "demo").await;
    let (s, e) = app.post(&wagers, Some(&other), json!({"bet": "player", "amount": 1000, "key": "too-late"})).await;
    assert_eq!((s, e["code"].as_str()), (StatusCode::CONFLICT, Some("closed")), "{e}");
    let t = until(&app, id, "closed", |t| t["closed"] == true).await;
    assert_eq!(t["closing"], false);
    let (_, me) = app.get("/api/me", Some(&player)).await;
    assert_eq!(me["balance"], me["available"], "the wager settled: nothing held {me}");
    let (s, e) = app.post(&format!("/api/tables/{id}/close"), Some(&app.admin), json!({})).await;
    assert_eq!((s, e["code"].as_str()), (StatusCode::CONFLICT, Some("closed")), "{e}");
    verified(&app).await;
}

/// One table closed and one closing with a wager in play when the server
/// stops (the first before a checkpoint, the second after it): the next
/// start keeps the first closed, deals the second's coup out and closes it,
/// and `verify` passes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_keeps_a_table_closed_and_closes_one_closing() {
    let (dir, cfg) = config("tables-restart");
    let c = cfg.clone();
    let (closed, closing) = tokio::task::spawn_blocking(move || {
        let mut o = baccarat_server::serve::open(&c).unwrap();
        let admin = Actor::Person { user: UserId(1), role: Role::Admin };
        let create = |name: &str| Request::CreateTable {
            name: name.into(),
            rulebook: "nsw-2021".into(),
            config: NSW.into(),
            mode: baccarat_core::trust::Mode::Rng,
            float: None,
        };
        let Reply::Table { table: closed } = step(&mut o, create("Closed before")) else { panic!() };
        let r = step(&mut o, Request::CloseTable { table: closed, by: admin });
        assert!(matches!(r, Reply::TableClosed { closed: true, .. }), "{r:?}");
        baccarat_server::serve::write_checkpoint(&mut o.store, &o.anchors, &o.casino, &o.feed).unwrap();
        let Reply::Table { table: closing } = step(&mut o, create("Closing at the stop")) else { panic!() };
        step(&mut o, Request::Deposit { player: PlayerId(900), amount: Money(100_000), key: "in".parse().unwrap() });
        step(&mut o, Request::NewShoe { table: closing });
        step(&mut o, server(closing, Command::OpenBetting { no_bet: false, closes_at: None }));
        let w = Request::Wager {
            table: closing,
            player: PlayerId(900),
            spot: Spot::Box(1),
            bet: Bet::Banker,
            amount: Money(5_000),
            ante: Money::ZERO,
            key: "w".parse().unwrap(),
        };
        assert!(matches!(step(&mut o, w), Reply::Wager { .. }));
        let r = step(&mut o, Request::CloseTable { table: closing, by: admin });
        assert!(matches!(r, Reply::TableClosed { closing: true, .. }), "{r:?}");
        (u64::from(closed), u64::from(closing))
        // Dropped here: the server stops.
    })
    .await
    .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(baccarat_server::serve::run(cfg, listener));
    let client = reqwest::Client::new();
    for _ in 0..3000 {
        if client.get(format!("{base}/api/tables")).send().await.is_ok_and(|r| r.status().is_success()) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let app = App { base, client, admin: String::new(), dir };
    let t = until(&app, closed, "closed", |t| t["closed"] == true).await;
    assert_eq!(t["name"], "Closed before");
    // The closing table's coup is dealt out by its pacer, and it closes.
    until(&app, closing, "closed", |t| t["closed"] == true).await;
    let player = app.login("player1", "demo").await;
    for id in [closed, closing] {
        let (s, e) = app
            .post(
                &format!("/api/tables/{id}/wagers"),
                Some(&player),
                json!({"bet": "banker", "amount": 1000, "key": format!("after-{id}")}),
            )
            .await;
        assert_eq!((s, e["code"].as_str()), (StatusCode::CONFLICT, Some("closed")), "{e}");
    }
    verified(&app).await;
}
