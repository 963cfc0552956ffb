//! The cage over HTTP (issue 47): a player's cash-out, a table's fill and
//! credit, end to end; the hostile callers and bodies refused, changing
//! nothing; a cash-out beyond the free balance, and one racing a wager; and
//! `verify` agreeing with the books after all of it.

use baccarat_core::{TableId, UserId};
use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{json, Value};

use super::common::{spawn_app_with, App};

/// An NSW table whose maximum takes the wagers below.
const CONFIG: &str = "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 1000000\n";

/// A server whose tables stay open to wagers for a minute: a test's wagers
/// are placed well inside the window.
async fn app() -> App {
    spawn_app_with(|c| c.betting = Duration::from_secs(60)).await
}

/// A new player with `chips` (minor units): their id and token.
async fn player(app: &App, name: &str, chips: i64) -> (u64, String) {
    let body = json!({"name": name, "password": "secret", "chips": chips});
    let (s, r) = app.post("/api/players", Some(&app.admin), body).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    (r["player"].as_u64().unwrap(), app.login(name, "secret").await)
}

/// A new RNG table, taking wagers: its id.
async fn table(app: &App, name: &str) -> u64 {
    let (s, r) = app.post("/api/tables", Some(&app.admin), json!({"name": name, "config": CONFIG})).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    let id = r["table"].as_u64().unwrap();
    app.until_phase(id as u32, "betting").await;
    id
}

/// A player's (balance, available), as `/api/me` shows them.
async fn wallet(app: &App, token: &str) -> (i64, i64) {
    let (_, me) = app.get("/api/me", Some(token)).await;
    (me["balance"].as_i64().unwrap(), me["available"].as_i64().unwrap())
}

async fn verified(app: &App) {
    let (s, v) = app.get("/api/verify", Some(&app.admin)).await;
    assert_eq!((s, &v["ok"]), (StatusCode::OK, &json!(true)), "{v}");
    let (_, l) = app.get("/api/ledger/check", Some(&app.admin)).await;
    assert_eq!(l["ok"], true, "{l}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cash_outs_fills_and_credits_end_to_end_and_verify_agrees() {
    let app = app().await;
    let (id, token) = player(&app, "cashier-test", 1_000_000).await;
    let out = format!("/api/players/{id}/cash-out");
    let (s, r) = app.post(&out, Some(&app.admin), json!({"amount": 250_000, "key": "o1"})).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_eq!((&r["balance"], &r["cashed_out"]), (&json!(750_000), &json!(250_000)), "{r}");
    assert_eq!(wallet(&app, &token).await, (750_000, 750_000));
    // Replayed: the same answer, nothing moved; another amount under the key: refused.
    let (s, again) = app.post(&out, Some(&app.admin), json!({"amount": 250_000, "key": "o1"})).await;
    assert_eq!((s, &again), (StatusCode::OK, &r));
    let (s, e) = app.post(&out, Some(&app.admin), json!({"amount": 1_000, "key": "o1"})).await;
    assert_eq!((s, e["code"].as_str()), (StatusCode::CONFLICT, Some("idempotency")), "{e}");
    assert_eq!(wallet(&app, &token).await, (750_000, 750_000));

    let t = table(&app, "Cage Test").await;
    let (s, f) =
        app.post(&format!("/api/tables/{t}/fill"), Some(&app.admin), json!({"amount": 1_000_000, "key": "f1"})).await;
    assert_eq!(s, StatusCode::OK, "{f}");
    assert_eq!(f["table"], t);
    let float = f["float"].as_i64().unwrap();
    let credit = format!("/api/tables/{t}/credit");
    let (s, c) = app.post(&credit, Some(&app.admin), json!({"amount": 400_000, "key": "c1"})).await;
    assert_eq!((s, &c["float"]), (StatusCode::OK, &json!(float - 400_000)), "{c}");
    let (s, again) = app.post(&credit, Some(&app.admin), json!({"amount": 400_000, "key": "c1"})).await;
    assert_eq!((s, &again), (StatusCode::OK, &c), "a replay moves nothing");
    let (s, e) = app.post(&credit, Some(&app.admin), json!({"amount": 1, "key": "c1"})).await;
    assert_eq!((s, e["code"].as_str()), (StatusCode::CONFLICT, Some("idempotency")), "{e}");

    // No such table, no such player, and staff who have no wallet.
    let (s, e) = app.post("/api/tables/9999/fill", Some(&app.admin), json!({"amount": 1, "key": "x"})).await;
    assert_eq!((s, e["code"].as_str()), (StatusCode::NOT_FOUND, Some("no_table")), "{e}");
    let (s, e) = app.post("/api/players/4000000/cash-out", Some(&app.admin), json!({"amount": 1, "key": "x"})).await;
    assert_eq!((s, e["code"].as_str()), (StatusCode::NOT_FOUND, Some("no_player")), "{e}");
    let (_, me) = app.get("/api/me", Some(&app.admin)).await;
    let admin_id = me["user"].as_u64().unwrap();
    let path = format!("/api/players/{admin_id}/cash-out");
    let (s, e) = app.post(&path, Some(&app.admin), json!({"amount": 1, "key": "x"})).await;
    assert_eq!((s, e["code"].as_str()), (StatusCode::NOT_FOUND, Some("no_player")), "{e}");
    verified(&app).await;
}

/// A player or a dealer calling the cage's routes is refused (403), a
/// stranger too (401); bad bodies are refused naming the field; none of it
/// moves a cent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_callers_and_bad_bodies_are_refused_and_change_nothing() {
    let app = app().await;
    let (id, token) = player(&app, "hostile-test", 500_000).await;
    let dealer = app.login("dealer", "demo").await;
    let t = table(&app, "Hostile Test").await;
    let routes =
        [format!("/api/players/{id}/cash-out"), format!("/api/tables/{t}/fill"), format!("/api/tables/{t}/credit")];
    let body = json!({"amount": 1_000, "key": "h"});
    for path in &routes {
        for who in [&token, &dealer] {
            let (s, e) = app.post(path, Some(who), body.clone()).await;
            assert_eq!((s, e["code"].as_str()), (StatusCode::FORBIDDEN, Some("role")), "{path}: {e}");
        }
        let (s, _) = app.post(path, None, body.clone()).await;
        assert_eq!(s, StatusCode::UNAUTHORIZED, "{path}");
        let bad: [(Value, StatusCode, &str); 8] = [
            (json!({"amount": 0, "key": "b"}), StatusCode::BAD_REQUEST, "amount:"),
            (json!({"amount": -5, "key": "b"}), StatusCode::BAD_REQUEST, "amount:"),
            (json!({"amount": 1_000_000_000_001i64, "key": "b"}), StatusCode::BAD_REQUEST, "amount:"),
            (json!({"amount": 1_000, "key": ""}), StatusCode::BAD_REQUEST, "key:"),
            (json!({"amount": 1_000, "key": "k".repeat(129)}), StatusCode::BAD_REQUEST, "key:"),
            (json!({"amount": 1_000}), StatusCode::UNPROCESSABLE_ENTITY, "key"),
            (json!({"amount": "ten", "key": "b"}), StatusCode::UNPROCESSABLE_ENTITY, "amount"),
            (json!({"amount": 1_000, "key": "b", "by": 1}), StatusCode::UNPROCESSABLE_ENTITY, "by"),
        ];
        for (b, status, field) in bad {
            let (s, e) = app.post(path, Some(&app.admin), b.clone()).await;
            let message = e["error"].as_str().unwrap_or_default();
            assert_eq!(s, status, "{path} {b}: {e}");
            assert!(message.contains(field), "{path} {b}: the message names {field}: {e}");
        }
    }
    assert_eq!(wallet(&app, &token).await, (500_000, 500_000));
    // The player cashing themself out, with a good body: still the admin's.
    let (s, _) = app.post(&routes[0], Some(&token), json!({"amount": 500_000, "key": "mine"})).await;
    assert_eq!(s, StatusCode::FORBIDDEN);
    assert_eq!(wallet(&app, &token).await, (500_000, 500_000));
    let (_, f) = app.post(&routes[1], Some(&app.admin), json!({"amount": 1, "key": "probe"})).await;
    let (_, c) = app.post(&routes[2], Some(&app.admin), json!({"amount": 1, "key": "probe"})).await;
    assert_eq!(c["float"].as_i64().unwrap() + 1, f["float"].as_i64().unwrap(), "{f} {c}");
    verified(&app).await;
}

/// A cash-out takes only what the open wagers leave free, naming both
/// figures; a credit never leaves the float short of what they could win.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cash_out_beyond_the_free_balance_and_a_credit_beyond_the_cover_are_refused() {
    let app = app().await;
    let (id, token) = player(&app, "free-test", 1_000_000).await;
    let t = table(&app, "Free Test").await;
    let (s, w) = app
        .post(&format!("/api/tables/{t}/wagers"), Some(&token), json!({"bet": "banker", "amount": 700_000, "key": "w"}))
        .await;
    assert_eq!(s, StatusCode::OK, "{w}");
    let out = format!("/api/players/{id}/cash-out");
    let (s, e) = app.post(&out, Some(&app.admin), json!({"amount": 500_000, "key": "big"})).await;
    assert_eq!((s, e["code"].as_str()), (StatusCode::CONFLICT, Some("ledger")), "{e}");
    assert_eq!(
        e["error"],
        "cash-out 5000.00 is more than the 3000.00 free in the wallet (10000.00 less 7000.00 in open wagers)"
    );
    assert_eq!(wallet(&app, &token).await, (1_000_000, 300_000), "nothing moved");
    // The refusal spent no key: what is free goes under it.
    let (s, r) = app.post(&out, Some(&app.admin), json!({"amount": 300_000, "key": "big"})).await;
    assert_eq!((s, &r["balance"]), (StatusCode::OK, &json!(700_000)), "{r}");

    // The whole float, with a wager open: refused, naming the float and the cover.
    let (_, f) = app.post(&format!("/api/tables/{t}/fill"), Some(&app.admin), json!({"amount": 1, "key": "f"})).await;
    let float = f["float"].as_i64().unwrap();
    let credit = format!("/api/tables/{t}/credit");
    let (s, e) = app.post(&credit, Some(&app.admin), json!({"amount": float, "key": "all"})).await;
    assert_eq!((s, e["code"].as_str()), (StatusCode::CONFLICT, Some("float")), "{e}");
    let message = e["error"].as_str().unwrap();
    assert!(
        message.contains("would leave table") && message.contains("at 0.00") && message.contains("short of the"),
        "{e}"
    );
    let (_, again) =
        app.post(&format!("/api/tables/{t}/fill"), Some(&app.admin), json!({"amount": 1, "key": "f2"})).await;
    assert_eq!(again["float"].as_i64().unwrap(), float + 1, "the refused credit moved nothing");
    verified(&app).await;
}

/// The writer takes one request at a time: a cash-out and a wager sent
/// together, which the wallet cannot both cover, are never both taken.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cash_out_racing_a_wager_exactly_one_wins() {
    let app = app().await;
    let t = table(&app, "Race Test").await;
    for round in 0..4 {
        let (id, token) = player(&app, &format!("racer-{round}"), 1_000_000).await;
        let out = format!("/api/players/{id}/cash-out");
        let bet = format!("/api/tables/{t}/wagers");
        let (a, b) = tokio::join!(
            app.post(&out, Some(&app.admin), json!({"amount": 600_000, "key": "race"})),
            app.post(&bet, Some(&token), json!({"bet": "banker", "amount": 600_000, "key": "race"})),
        );
        let won = [&a, &b].iter().filter(|(s, _)| *s == StatusCode::OK).count();
        assert_eq!(won, 1, "exactly one wins: {a:?} {b:?}");
        let loser = if a.0 == StatusCode::OK { &b } else { &a };
        assert_eq!(loser.0, StatusCode::CONFLICT, "{loser:?}");
        let code = loser.1["code"].as_str().unwrap();
        assert!(code == "ledger" || code == "wallet", "refused for the money, not for anything else: {loser:?}");
        assert_eq!(wallet(&app, &token).await.1, 400_000);
    }
    verified(&app).await;
}

/// `verify` over a database the cage moved money in: honest, it finds
/// nothing; a forged transfer naming a cage record that is none, and a
/// cash-out's record struck from the chain (the chain recomputed, as a
/// forger would) leaving its transfer unexplained, are each named.
#[test]
fn verify_names_a_cage_transfer_without_its_record() {
    use baccarat_casino::casino::{Casino, Mode, Request};
    use baccarat_core::audit::{Chain, CASINO_CHAIN};
    use baccarat_core::ledger::Cause;
    use baccarat_core::store::{Commit, SqliteStore, Store};
    use baccarat_rules::Money;
    use baccarat_server::verify::verify;
    use baccarat_table::PlayerId;

    let mut store = SqliteStore::memory().unwrap();
    let mut c = Casino::new();
    let mut commit = Commit::default();
    c.create_table(TableId(1), "NSW", "nsw-2021", CONFIG, Mode::Rng, Money(5_000_000), &mut commit).unwrap();
    let p = PlayerId(1);
    c.handle(Request::Deposit { player: p, amount: Money(1_000_000), key: "in".parse().unwrap() }, &mut commit);
    c.handle(
        Request::CashOut { player: p, amount: Money(300_000), key: "out".parse().unwrap(), by: UserId(9) },
        &mut commit,
    );
    c.handle(
        Request::Fill { table: TableId(1), amount: Money(200_000), key: "f".parse().unwrap(), by: UserId(9) },
        &mut commit,
    );
    c.handle(
        Request::Credit { table: TableId(1), amount: Money(100_000), key: "c".parse().unwrap(), by: UserId(9) },
        &mut commit,
    );
    store.commit(&commit).unwrap();
    let honest = store.load().unwrap();
    let f = verify(&honest);
    assert!(f.problems.is_empty(), "{:?}", f.problems);

    let i = honest.transfers.iter().position(|t| t.memo == "cash-out").unwrap();
    let Cause::Cage { seq } = honest.transfers[i].cause else { panic!("{:?}", honest.transfers[i]) };
    // A forged transfer to the cage, naming a record that is no cage's.
    let mut s = honest.clone();
    let id = baccarat_core::ledger::TransferId(s.transfers.iter().map(|t| t.id.0).max().unwrap() + 1);
    s.transfers.push(baccarat_core::ledger::Transfer { id, cause: Cause::Cage { seq: 999 }, ..s.transfers[i].clone() });
    let f = verify(&s);
    let named = format!(
        "transfer {id} names the cage's movement of the casino's chain record 999 but no audit event explains it"
    );
    assert!(f.problems.iter().any(|p| p.contains(&named)), "{:?}", f.problems);

    // The cash-out's record replaced by a record of nothing, the chain
    // recomputed from there: its transfer is explained by nothing.
    let mut s = honest.clone();
    let mut chain = Chain::new();
    for (_, r) in s.records.iter_mut().filter(|(t, _)| *t == CASINO_CHAIN) {
        let body = if r.seq == seq {
            r.body.replace("\"cashed_out\"", "\"served\"").replacen("\"player\":1", "\"instance\":\"x\",\"epoch\":1", 1)
        } else {
            r.body.clone()
        };
        *r = chain.append(body);
    }
    let f = verify(&s);
    let named = format!("names the cage's movement of the casino's chain record {seq} but no audit event explains it");
    assert!(f.problems.iter().any(|p| p.contains(&named)), "{:?}", f.problems);
}

/// A table opened with a float of its own (`POST /api/tables {float}`) takes
/// no wager that could win more than the float holds (`float.rs`, DESIGN 13),
/// and takes it once a fill from the cage covers it; a float out of range is
/// refused naming the field, and makes no table.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_opened_with_a_small_float_takes_more_once_filled() {
    let app = app().await;
    let (_, token) = player(&app, "fiona", 100_000).await;
    for bad in [json!(-1), json!(0), json!(1_000_000_000_001_i64), json!("100")] {
        let body = json!({"name": "Odd", "config": CONFIG, "float": bad});
        let (s, r) = app.post("/api/tables", Some(&app.admin), body).await;
        assert!(s.is_client_error() && r.to_string().contains("float"), "{s} {r}");
    }
    let body = json!({"name": "Small", "config": CONFIG, "float": 10_000});
    let (s, r) = app.post("/api/tables", Some(&app.admin), body).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    let id = r["table"].as_u64().unwrap();
    app.until_phase(id as u32, "betting").await;
    // A Tie of 20.00 could win 160.00 (8:1, NSW 11.1.5): more than 100.00.
    let tie = |key: &str| json!({"bet": "tie", "amount": 2_000, "key": key});
    let (s, r) = app.post(&format!("/api/tables/{id}/wagers"), Some(&token), tie("t1")).await;
    assert_eq!((s, r["code"].as_str()), (StatusCode::CONFLICT, Some("float")), "{r}");
    let fill = json!({"amount": 100_000, "key": "fill-1"});
    let (s, r) = app.post(&format!("/api/tables/{id}/fill"), Some(&app.admin), fill).await;
    assert_eq!((s, r["float"].as_i64()), (StatusCode::OK, Some(110_000)), "{r}");
    let (s, r) = app.post(&format!("/api/tables/{id}/wagers"), Some(&token), tie("t2")).await;
    assert_eq!(s, StatusCode::OK, "{r}");
}
