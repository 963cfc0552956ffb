//! Tournaments at the server (NSW 15.3, 15.4): published from conditions,
//! entered with the fee paid from the wallet into the prize pool, withdrawn
//! from within the terms, cancelled with every fee refunded; every step in the
//! casino's chain, reconciled by `verify`, and kept across a restart.

use baccarat_core::TournamentId;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use baccarat_casino::casino::{recover, Keys, Reply, Request};
use baccarat_rules::Money;
use baccarat_server::serve::{open, write_checkpoint};
use baccarat_server::verify::verify_file;
use baccarat_table::PlayerId;
use reqwest::StatusCode;
use serde_json::json;

use super::checkpoint::{config, step};
use super::common::spawn_app_with;

/// 2026-12-01T00:00:00Z.
const NOW: u64 = 1_796_083_200_000;

/// A cup's conditions: one final of five coups, starting at `starts`, with
/// an entry fee of `fee`.
pub(super) fn cup(starts: &str, fee: i64) -> String {
    format!(
        r#"name = "Server Cup"
rulebook = "nsw-2021"
[entry]
starts = "{starts}"
fee = {fee}
min_players = 2
max_players = 3
withdraw_hours_before_start = 24
application = "at the tournament desk"
[eligibility]
[chips]
per_session = 10000
[wagers]
min = 1000
max = 5000
[structure]
dealing = "method_a"
seats_per_table = 3
rounds = [{{ name = "Final", tables = 1, coups = 5 }}]
[prizes]
places = [{{ percent = 100 }}]
payment = "cash"
"#
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournament_is_entered_withdrawn_from_and_cancelled_with_every_fee_accounted_for() {
    let now = Arc::new(AtomicU64::new(NOW));
    let n = now.clone();
    let app = spawn_app_with(|c| c.clock = Arc::new(move || n.load(Ordering::SeqCst))).await;
    // Bad conditions are refused, naming the field.
    let (s, e) = app.post("/api/tournaments", Some(&app.admin), json!({"conditions": cup("soon", 50_000)})).await;
    assert_eq!((s, e["code"].as_str()), (StatusCode::UNPROCESSABLE_ENTITY, Some("config")), "{e}");
    assert!(e["error"].as_str().unwrap().contains("entry.starts"), "{e}");
    let (s, r) = app
        .post("/api/tournaments", Some(&app.admin), json!({"conditions": cup("2026-12-05T10:00:00Z", 50_000)}))
        .await;
    assert_eq!(s, StatusCode::OK, "{r}");
    let id = r["tournament"].as_u64().unwrap();
    let (_, list) = app.get("/api/tournaments", None).await;
    assert_eq!(list[0]["name"], "Server Cup", "{list}");
    let (_, one) = app.get(&format!("/api/tournaments/{id}"), None).await;
    assert!(one["conditions"].as_str().unwrap().contains("NSW 15.4.2(k)"), "{one}");
    let (s, e) = app.get("/api/tournaments/99", None).await;
    assert_eq!((s, e["code"].as_str()), (StatusCode::NOT_FOUND, Some("no_tournament")), "{e}");

    let p1 = app.login("player1", "demo").await;
    let p2 = app.login("player2", "demo").await;
    let balance = |t: String| {
        let app = &app;
        async move { app.get("/api/me", Some(&t)).await.1["balance"].as_i64().unwrap() }
    };
    let before = balance(p1.clone()).await;
    let enter_path = format!("/api/tournaments/{id}/enter");
    let enter = |t: String| {
        let (app, path) = (&app, enter_path.clone());
        async move { app.post(&path, Some(&t), json!({})).await }
    };
    let (s, r) = enter(p1.clone()).await;
    assert_eq!((s, r["entrants"].as_u64()), (StatusCode::OK, Some(1)), "{r}");
    assert_eq!(balance(p1.clone()).await, before - 50_000, "the fee left the wallet (NSW 15.3.2)");
    let (s, e) = enter(p1.clone()).await;
    assert_eq!((s, e["rule"].as_str()), (StatusCode::CONFLICT, Some("NSW 15.4.2(i)")), "{e}");
    let (s, _) = enter(app.admin.clone()).await;
    assert_eq!(s, StatusCode::FORBIDDEN, "only players enter");
    // Withdrawn within the terms: the fee comes back.
    let (s, r) = app.post(&format!("/api/tournaments/{id}/withdraw"), Some(&p1), json!({})).await;
    assert_eq!((s, r["entrants"].as_u64()), (StatusCode::OK, Some(0)), "{r}");
    assert_eq!(balance(p1.clone()).await, before);
    // Entered again; past the withdrawal deadline (24 h before the start) no
    // fee is refunded.
    assert_eq!(enter(p1.clone()).await.0, StatusCode::OK);
    assert_eq!(enter(p2.clone()).await.0, StatusCode::OK);
    now.store(NOW + 4 * 86_400_000 - 3_600_000, Ordering::SeqCst);
    // (Sessions expired meanwhile: sign in again.)
    let p1 = app.login("player1", "demo").await;
    let p2 = app.login("player2", "demo").await;
    let admin = app.login("test-admin", "admin-pass").await;
    let (s, e) = app.post(&format!("/api/tournaments/{id}/withdraw"), Some(&p1), json!({})).await;
    assert_eq!((s, e["rule"].as_str()), (StatusCode::CONFLICT, Some("NSW 15.3.2")), "{e}");
    let (_, one) = app.get(&format!("/api/tournaments/{id}"), None).await;
    assert_eq!((one["entrants"].as_u64(), one["pool"].as_i64()), (Some(2), Some(100_000)), "{one}");
    // Cancelled: every fee refunded (NSW 15.3.4); no more entries.
    let p2_before = balance(p2.clone()).await;
    let (s, r) = app.post(&format!("/api/tournaments/{id}/cancel"), Some(&admin), json!({})).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_eq!(balance(p1.clone()).await, before);
    assert_eq!(balance(p2.clone()).await, p2_before + 50_000);
    let (s, e) = enter(p2.clone()).await;
    assert_eq!((s, e["rule"].as_str()), (StatusCode::CONFLICT, Some("NSW 15.3.4")), "{e}");
    // The ledger balances and verify reconciles every fee and refund.
    let (_, check) = app.get("/api/ledger/check", Some(&admin)).await;
    assert_eq!(check["ok"], true, "{check}");
    let (_, v) = app.get("/api/verify", Some(&admin)).await;
    assert_eq!(v["ok"], true, "{v}");
}

/// Issue 45, finding 6, as it was found: `POST /api/me/cool-off {"hours":1}`
/// and then `POST /api/tournaments/{id}/enter {}` answered 200 and took the
/// fee. The entry is money into play (`casino/into_play.rs`): refused 403
/// `self_limit` in the player's words, nothing taken, no entrant; after the
/// break it is taken.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cool_off_stops_a_tournament_entry() {
    let now = Arc::new(AtomicU64::new(NOW));
    let n = now.clone();
    let app = spawn_app_with(|c| c.clock = Arc::new(move || n.load(Ordering::SeqCst))).await;
    let conditions = cup("2026-12-05T10:00:00Z", 50_000);
    let (s, r) = app.post("/api/tournaments", Some(&app.admin), json!({ "conditions": conditions })).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    let enter = format!("/api/tournaments/{}/enter", r["tournament"]);
    let p = app.login("player1", "demo").await;
    let before = app.get("/api/me", Some(&p)).await.1["balance"].as_i64().unwrap();
    let (s, v) = app.post("/api/me/cool-off", Some(&p), json!({ "hours": 1 })).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let (s, e) = app.post(&enter, Some(&p), json!({})).await;
    assert_eq!((s, e["code"].as_str()), (StatusCode::FORBIDDEN, Some("self_limit")), "{e}");
    assert!(e["error"].as_str().unwrap().contains("taking a break"), "{e}");
    assert_eq!(app.get("/api/me", Some(&p)).await.1["balance"].as_i64(), Some(before), "no fee taken");
    assert_eq!(app.get(&enter.replace("/enter", ""), None).await.1["entrants"], 0);
    // After the hour (and a new session: the old one idled out).
    now.store(NOW + 3_600_000, Ordering::SeqCst);
    let p = app.login("player1", "demo").await;
    let (s, r) = app.post(&enter, Some(&p), json!({})).await;
    assert_eq!((s, r["entrants"].as_u64()), (StatusCode::OK, Some(1)), "{r}");
    assert_eq!(app.get("/api/me", Some(&p)).await.1["balance"].as_i64(), Some(before - 50_000));
}

/// A tournament and its entrants survive a restart from a checkpoint and a
/// replay of the whole history; a forged entry fee is caught by `verify`.
#[test]
fn tournaments_are_kept_across_a_restart_and_a_forged_fee_is_caught() {
    let (_dir, mut cfg) = config("tournament");
    cfg.clock = Arc::new(|| NOW);
    let mut o = open(&cfg).unwrap();
    step(&mut o, Request::Deposit { player: PlayerId(700), amount: Money(1_000_000), key: "d".parse().unwrap() });
    step(&mut o, Request::Deposit { player: PlayerId(701), amount: Money(1_000_000), key: "d".parse().unwrap() });
    let r = step(&mut o, Request::CreateTournament { conditions: cup("2026-12-05T10:00:00Z", 25_000) });
    assert_eq!(r, Reply::Tournament { tournament: TournamentId(1), entrants: 0 });
    step(&mut o, Request::EnterTournament { tournament: TournamentId(1), player: PlayerId(700) });
    write_checkpoint(&mut o.store, &o.anchors, &o.casino, &o.feed).unwrap();
    let r = step(&mut o, Request::EnterTournament { tournament: TournamentId(1), player: PlayerId(701) });
    assert_eq!(r, Reply::Tournament { tournament: TournamentId(1), entrants: 2 });
    let live = o.casino.tournaments[&TournamentId(1)].state.clone();
    drop(o);
    let again = open(&cfg).unwrap();
    assert!(again.recovery.from_checkpoint);
    assert_eq!(again.casino.tournaments[&TournamentId(1)].state, live, "from the checkpoint and its tail");
    let full = recover(&again.store, None, Keys::Since(0), &Default::default()).unwrap();
    assert_eq!(full.casino.tournaments[&TournamentId(1)].state, live, "from the whole history");
    drop(again);
    let (f, _) = verify_file(&cfg.db, None, None).unwrap();
    assert!(f.problems.is_empty(), "{:?}", f.problems);
    // A forger lowers an entry fee in the ledger (and rebalances the pool
    // and wallet so the sums still hold): the casino's chain disagrees.
    let c = rusqlite::Connection::open(&cfg.db).unwrap();
    baccarat_core::store::logs::unpack(&c).unwrap();
    let n =
        c.execute("UPDATE transfers SET amount = 1 WHERE cause LIKE 'tournament:%' AND amount = 25000", []).unwrap();
    assert!(n >= 1);
    let (f, _) = verify_file(&cfg.db, None, None).unwrap();
    assert!(f.problems.iter().any(|p| p.contains("tournament")), "{:?}", f.problems);
}

/// A wallet that cannot pay the fee is refused as a wallet refusal, and
/// nothing is recorded.
#[test]
fn an_entry_the_wallet_cannot_pay_is_refused_and_records_nothing() {
    let (_dir, mut cfg) = config("tournament-poor");
    cfg.clock = Arc::new(|| NOW);
    let mut o = open(&cfg).unwrap();
    step(&mut o, Request::Deposit { player: PlayerId(700), amount: Money(10_000), key: "d".parse().unwrap() });
    step(&mut o, Request::CreateTournament { conditions: cup("2026-12-05T10:00:00Z", 25_000) });
    let records = o.casino.chain.len();
    let r = step(&mut o, Request::EnterTournament { tournament: TournamentId(1), player: PlayerId(700) });
    assert_eq!(r.code(), Some(baccarat_casino::casino::Code::Wallet), "{r:?}");
    assert_eq!(o.casino.chain.len(), records, "no record of an entry that was not made");
    assert!(o.casino.tournaments[&TournamentId(1)].state.entrants.is_empty());
    let r = step(&mut o, Request::EnterTournament { tournament: TournamentId(2), player: PlayerId(700) });
    assert_eq!(r.code(), Some(baccarat_casino::casino::Code::NoTournament), "{r:?}");
}

/// A promotion's entries come from the audit log's wagers: only those that
/// played (settled on a result), in time, at or above the minimum, on a
/// qualifying wager. Counted here independently from what `play` wagered.
#[test]
fn promotion_entries_are_computed_from_the_wagers_that_played() {
    use baccarat_rules::promotion::Terms;
    use baccarat_rules::Bet;
    let (_dir, mut cfg) = config("promotion-entries");
    cfg.clock = Arc::new(|| NOW);
    let mut o = open(&cfg).unwrap();
    super::checkpoint::deposits(&mut o);
    let coups = 3;
    super::checkpoint::play(&mut o, coups, 0, false);
    // One more coup left open: its wagers have not played yet.
    super::checkpoint::play(&mut o, 1, 1, true);
    drop(o);
    let example =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../promotions/friday-draw.toml")).unwrap();
    let text = example.replace("minimum_wager = 10000", "minimum_wager = 4000\nbets = [\"banker\", \"player\"]");
    let terms = Terms::from_toml(&text).unwrap();
    let got = baccarat_cluster::promotion_entries::entries(&cfg.db, &terms).unwrap();
    // What `play` wagered: players 100-104 at tables 1, 2 and 4, 2,000 x (p - 99)
    // on banker, player, tie in turn by (p + coup).
    let mut want: std::collections::BTreeMap<u32, u64> = Default::default();
    for c in 0..coups {
        for _table in [1, 2, 4] {
            for p in 100..105u32 {
                let bet = [Bet::Banker, Bet::Player, Bet::Tie][(p as usize + c) % 3];
                if 2000 * (p as i64 - 99) >= 4000 && bet != Bet::Tie {
                    *want.entry(p).or_default() += 1;
                }
            }
        }
    }
    let want: Vec<(PlayerId, u64)> = want.into_iter().map(|(p, n)| (PlayerId(p), n)).collect();
    assert_eq!(got, want);
    // Entries closed before the wagers: none.
    let closed = text.replace("closes = \"2026-12-04T08:00:00Z\"", "closes = \"2026-11-30T08:00:00Z\"");
    let terms = Terms::from_toml(&closed).unwrap();
    assert!(baccarat_cluster::promotion_entries::entries(&cfg.db, &terms).unwrap().is_empty());
}

/// Who may take which step of play (NSW 15.1.1 "Tournament Manager", 15.6.10):
/// only the Tournament Manager runs the tournament; a player acts only for
/// themself; nobody acts for a player except to record them late or absent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_tournament_manager_runs_play_and_players_act_only_for_themselves() {
    let now = Arc::new(AtomicU64::new(NOW));
    let n = now.clone();
    let app = spawn_app_with(|c| c.clock = Arc::new(move || n.load(Ordering::SeqCst))).await;
    let (s, r) =
        app.post("/api/tournaments", Some(&app.admin), json!({"conditions": cup("2026-12-05T10:00:00Z", 0)})).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    let id = r["tournament"].as_u64().unwrap();
    let p1 = app.login("player1", "demo").await;
    let p2 = app.login("player2", "demo").await;
    let tm = app.login("manager", "demo").await;
    for p in [&p1, &p2] {
        assert_eq!(app.post(&format!("/api/tournaments/{id}/enter"), Some(p), json!({})).await.0, StatusCode::OK);
    }
    let (_, play) = app.get(&format!("/api/tournaments/{id}/play"), None).await;
    assert_eq!(play, serde_json::Value::Null, "no play before the start");
    // The manager changes the limits before the start (NSW 15.6.15): the
    // published conditions are amended; limits that break the rules are not.
    let limits = format!("/api/tournaments/{id}/limits");
    let (s, r) = app.post(&limits, Some(&tm), json!({"min": 2000, "max": 4000})).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    let (_, one) = app.get(&format!("/api/tournaments/{id}"), None).await;
    assert!(one["conditions"].as_str().unwrap().contains("20.00"), "{one}");
    let (s, e) = app.post(&limits, Some(&tm), json!({"min": 2000, "max": 3000})).await;
    assert_eq!((s, e["code"].as_str()), (StatusCode::UNPROCESSABLE_ENTITY, Some("config")), "{e}");
    assert_eq!(app.post(&limits, Some(&p1), json!({"min": 1000, "max": 5000})).await.0, StatusCode::FORBIDDEN);
    let (s, _) = app.post(&limits, Some(&tm), json!({"min": 1000, "max": 5000})).await;
    assert_eq!(s, StatusCode::OK);
    let start = format!("/api/tournaments/{id}/start");
    // Not before the start time; not by a player, a supervisor or an admin.
    let (s, e) = app.post(&start, Some(&tm), json!({})).await;
    assert_eq!((s, e["rule"].as_str()), (StatusCode::CONFLICT, Some("NSW 15.4.2(i)")), "{e}");
    now.store(NOW + 4 * 86_400_000 + 36_000_000, Ordering::SeqCst);
    // (Sessions expired meanwhile: sign in again.)
    let (p1, p2, tm, sup, admin) = (
        app.login("player1", "demo").await,
        app.login("player2", "demo").await,
        app.login("manager", "demo").await,
        app.login("supervisor", "demo").await,
        app.login("test-admin", "admin-pass").await,
    );
    for who in [&p1, &sup, &admin] {
        assert_eq!(app.post(&start, Some(who), json!({})).await.0, StatusCode::FORBIDDEN);
    }
    let (s, r) = app.post(&start, Some(&tm), json!({})).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    let (s, e) = app.post(&limits, Some(&tm), json!({"min": 2000, "max": 4000})).await;
    assert_eq!((s, e["rule"].as_str()), (StatusCode::CONFLICT, Some("NSW 15.6.15")), "{e}");
    let (_, play) = app.get(&format!("/api/tournaments/{id}/play"), None).await;
    assert_eq!(play["tables"][0]["seats"].as_array().unwrap().len(), 2, "{play}");
    assert!(play["standings"][0]["name"].as_str().unwrap().starts_with("player"), "{play}");
    let act = format!("/api/tournaments/{id}/act");
    let wager = json!({"kind": "wager", "bet": "banker", "amount": 1000});
    // The Tournament Manager does not wager for a player; a player does not
    // act for another, nor record anyone late or absent.
    let (s, e) = app.post(&act, Some(&tm), json!({"action": wager, "player": 1})).await;
    assert_eq!(s, StatusCode::FORBIDDEN, "{e}");
    let (s, e) = app.post(&act, Some(&p1), json!({"action": wager, "player": 2})).await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
    let (s, e) = app.post(&act, Some(&p1), json!({"action": {"kind": "absent"}})).await;
    assert_eq!(s, StatusCode::FORBIDDEN, "{e}");
    let (s, e) = app.post(&act, Some(&tm), json!({"action": {"kind": "absent"}})).await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
    // A move needs another table of the round (NSW 15.5.1); only the manager moves.
    let me1 = app.get("/api/me", Some(&p1)).await.1["user"].as_u64().unwrap();
    let mv = format!("/api/tournaments/{id}/move");
    let (s, e) = app.post(&mv, Some(&tm), json!({"player": me1, "table": 2})).await;
    assert_eq!((s, e["rule"].as_str()), (StatusCode::CONFLICT, Some("NSW 15.5.1")), "{e}");
    assert_eq!(app.post(&mv, Some(&p1), json!({"player": me1, "table": 2})).await.0, StatusCode::FORBIDDEN);
    // A table numbered 0, an unknown tournament.
    let (s, _) = app.post(&format!("/api/tournaments/{id}/deal"), Some(&tm), json!({"table": 0})).await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    let (s, e) = app.post("/api/tournaments/99/start", Some(&tm), json!({})).await;
    assert_eq!((s, e["code"].as_str()), (StatusCode::NOT_FOUND, Some("no_tournament")), "{e}");
    // Each player wagers in turn (no marker here), the manager deals.
    for p in [&p1, &p2] {
        let (s, r) = app.post(&act, Some(p), json!({"action": wager})).await;
        assert_eq!(s, StatusCode::OK, "{r}");
    }
    let (s, e) = app.post(&act, Some(&p1), json!({"action": wager})).await;
    assert_eq!((s, e["rule"].as_str()), (StatusCode::CONFLICT, Some("NSW 15.9.5")), "{e}");
    let (s, _) = app.post(&format!("/api/tournaments/{id}/no-more-bets"), Some(&tm), json!({"table": 1})).await;
    assert_eq!(s, StatusCode::OK);
    let (s, r) = app.post(&format!("/api/tournaments/{id}/deal"), Some(&tm), json!({"table": 1})).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    let (_, play) = app.get(&format!("/api/tournaments/{id}/play"), None).await;
    assert_eq!(play["tables"][0]["coup"], 2, "{play}");
    assert!(play["tables"][0]["last"]["cards"].as_array().unwrap().len() >= 4, "{play}");
    let (_, v) = app.get("/api/verify", Some(&admin)).await;
    assert_eq!(v["ok"], true, "{v}");
}
