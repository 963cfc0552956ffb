//! A player's own limits are the server's: the writer refuses every wager
//! past them, whatever sent it; a looser limit waits a day; a deposit buys no
//! more loss; a cool-off stops everything; and all of it survives a restart,
//! from the checkpoint or from the whole history.

use baccarat_core::TableId;
use std::sync::atomic::Ordering;

use baccarat_casino::casino::{recover, Code, Keys, Reply, Request, SelfLimitsChange};
use baccarat_core::store::SqliteStore;
use baccarat_rules::{Bet, Money};
use baccarat_server::serve::{open, write_checkpoint, Opened};
use baccarat_table::{Command, Phase, PlayerId, Spot};
use reqwest::StatusCode;
use serde_json::json;

use super::checkpoint::{clocked, fingerprint, same, server, step};
use super::common::spawn_app;

/// 2026-11-24 01:00 UTC.
const T0: u64 = 1_795_482_000_000;
const DAY: u64 = 86_400_000;
const P: PlayerId = PlayerId(100);
const Q: PlayerId = PlayerId(101);

fn open_betting(o: &mut Opened, table: TableId) {
    if matches!(o.casino.phase(table), Some(Phase::NoShoe | Phase::ShoeOver)) {
        step(o, Request::NewShoe { table });
    }
    if o.casino.phase(table) != Some(Phase::Betting) {
        let r = step(o, server(table, Command::OpenBetting { no_bet: false, closes_at: None }));
        assert!(!matches!(r, Reply::Refused { .. }), "{r:?}");
    }
}

fn wager(o: &mut Opened, player: PlayerId, amount: i64, key: &str) -> Reply {
    let r = Request::Wager {
        table: TableId(1),
        player,
        spot: Spot::Box((player.0 - 99) as u8),
        bet: Bet::Banker,
        amount: Money(amount),
        ante: Money::ZERO,
        key: key.parse().unwrap(),
    };
    step(o, r)
}

fn limits(o: &mut Opened, player: PlayerId, change: SelfLimitsChange) -> serde_json::Value {
    match step(o, Request::SelfLimits { player, change }) {
        Reply::SelfLimits { view } => serde_json::to_value(view).unwrap(),
        r => panic!("{r:?}"),
    }
}

fn refused_by_limit(r: &Reply, words: &str) {
    match r {
        Reply::Refused { code: Code::SelfLimit, message, .. } => assert!(message.contains(words), "{message}"),
        r => panic!("expected a self_limit refusal naming {words:?}: {r:?}"),
    }
}

fn set(loss: Option<i64>, minutes: Option<u32>) -> SelfLimitsChange {
    SelfLimitsChange::Set { loss_per_day: loss.map(Money), minutes_per_day: minutes }
}

#[test]
fn the_writer_enforces_a_players_own_limits_across_restarts() {
    let (_dir, now, cfg) = clocked("self-limits", T0);
    let mut o = open(&cfg).unwrap();
    for p in [P, Q] {
        step(
            &mut o,
            Request::Deposit { player: p, amount: Money(100_000), key: format!("in{}", p.0).parse().unwrap() },
        );
    }
    // Out of range: refused, naming the field, and nothing recorded.
    let chain = o.casino.chain.len();
    for (change, field) in [
        (set(Some(0), None), "loss_per_day"),
        (set(Some(-5), None), "loss_per_day"),
        (set(None, Some(0)), "minutes_per_day"),
        (set(None, Some(1441)), "minutes_per_day"),
        (SelfLimitsChange::CoolOff { hours: 0 }, "hours"),
        (SelfLimitsChange::CoolOff { hours: 8761 }, "hours"),
    ] {
        refused_by_limit(&step(&mut o, Request::SelfLimits { player: P, change }), field);
    }
    assert_eq!(o.casino.chain.len(), chain, "a refused setting records nothing");

    // A loss limit of 100.00 a day, in force at once.
    let v = limits(&mut o, P, set(Some(10_000), None));
    assert_eq!(v["loss_per_day"], 10_000);
    open_betting(&mut o, TableId(1));
    assert!(matches!(wager(&mut o, P, 6_000, "a"), Reply::Wager { .. }));
    // 60.00 on the table: 40.01 more would pass the limit; 40.00 reaches it.
    let heads = (o.casino.chain.len(), o.casino.tables[&TableId(1)].chain.len(), o.casino.ledger.transfer_count());
    refused_by_limit(&wager(&mut o, P, 4_001, "b"), "loss limit of 100.00");
    assert_eq!(
        (o.casino.chain.len(), o.casino.tables[&TableId(1)].chain.len(), o.casino.ledger.transfer_count()),
        heads,
        "a refused wager writes nothing"
    );
    assert!(matches!(wager(&mut o, P, 4_000, "c"), Reply::Wager { .. }));
    // A deposit buys no more loss.
    step(&mut o, Request::Deposit { player: P, amount: Money(50_000), key: "more".parse().unwrap() });
    refused_by_limit(&wager(&mut o, P, 1_000, "d"), "at most 0.00 more");
    // Another player is not touched by it.
    assert!(matches!(wager(&mut o, Q, 5_000, "q1"), Reply::Wager { .. }));
    // A looser limit waits a day; the view says when.
    let v = limits(&mut o, P, set(Some(20_000), Some(600)));
    assert_eq!(v["loss_per_day"], 10_000);
    assert_eq!(v["loss_per_day_later"], json!({ "value": 20_000, "at_ms": T0 + DAY }));
    assert_eq!(v["minutes_per_day"], 600, "a first time limit is at once");
    assert_eq!(v["today"]["lost"], 10_000);
    refused_by_limit(&wager(&mut o, P, 1_000, "e"), "loss limit of 100.00");

    // A restart from the checkpoint enforces the same, and so does a replay
    // of the whole history.
    write_checkpoint(&mut o.store, &o.anchors, &o.casino, &o.feed).unwrap();
    step(&mut o, Request::SelfLimits { player: Q, change: set(None, Some(30)) });
    let live = fingerprint(&o.casino, &o.feed);
    drop(o);
    let mut o = open(&cfg).unwrap();
    assert!(o.recovery.from_checkpoint);
    same(&fingerprint(&o.casino, &o.feed), &live, "a start from the checkpoint");
    refused_by_limit(&wager(&mut o, P, 1_000, "f"), "loss limit of 100.00");
    {
        let store = SqliteStore::open(&cfg.db).unwrap();
        let full = recover(&store, None, Keys::Since(0), &Default::default()).unwrap();
        assert_eq!(full.casino.self_limits, o.casino.self_limits, "the whole history gives the same limits");
    }

    // Thirty minutes after Q's first wager of the day, Q's wagers stop.
    now.store(T0 + 10 * 60_000, Ordering::SeqCst);
    assert!(matches!(wager(&mut o, Q, 1_000, "q2"), Reply::Wager { .. }), "Q's day opened with this wager");
    now.store(T0 + 40 * 60_000 - 1, Ordering::SeqCst);
    assert!(matches!(wager(&mut o, Q, 1_000, "q3"), Reply::Wager { .. }));
    now.store(T0 + 40 * 60_000, Ordering::SeqCst);
    refused_by_limit(&wager(&mut o, Q, 1_000, "q4"), "30 minutes");

    // The next day: P's looser limit is in force, measured from a new base.
    now.store(T0 + DAY, Ordering::SeqCst);
    assert!(matches!(wager(&mut o, P, 15_000, "g"), Reply::Wager { .. }));
    refused_by_limit(&wager(&mut o, P, 5_001, "h"), "loss limit of 200.00");
    assert!(matches!(wager(&mut o, Q, 1_000, "q5"), Reply::Wager { .. }), "a new day for Q's minutes");

    // A cool-off: nothing, not even within the limits, until it ends; it
    // cannot be shortened.
    let v = limits(&mut o, P, SelfLimitsChange::CoolOff { hours: 48 });
    assert_eq!(v["cool_off_until_ms"], T0 + 3 * DAY);
    limits(&mut o, P, SelfLimitsChange::CoolOff { hours: 1 });
    now.store(T0 + 3 * DAY - 1, Ordering::SeqCst);
    refused_by_limit(&wager(&mut o, P, 1_000, "i"), "taking a break until 2026-11-27 01:00 UTC");
    now.store(T0 + 3 * DAY, Ordering::SeqCst);
    assert!(matches!(wager(&mut o, P, 1_000, "j"), Reply::Wager { .. }));

    // And the whole story again from the first record.
    let live = fingerprint(&o.casino, &o.feed);
    drop(o);
    let store = SqliteStore::open(&cfg.db).unwrap();
    let full = recover(&store, None, Keys::Since(0), &Default::default()).unwrap();
    assert_eq!(
        serde_json::to_value(full.casino.self_limits.values().collect::<Vec<_>>()).unwrap(),
        live["self_limits"]
    );
}

/// The routes: players only, each for themselves; bad input named; a wager
/// past the limit is a 403 `self_limit` in the player's words.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_limits_routes_are_the_players_own() {
    let app = spawn_app().await;
    let p = app.login("player1", "demo").await;
    let (s, v) = app.get("/api/me/limits", Some(&p)).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["loss_per_day"], json!(null));
    let (s, _) = app.get("/api/me/limits", None).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    let admin = app.admin.clone();
    let (s, e) = app.post("/api/me/limits", Some(&admin), json!({ "loss_per_day": 100 })).await;
    assert_eq!((s, e["code"].as_str()), (StatusCode::FORBIDDEN, Some("role")), "{e}");
    for (body, status, named) in [
        (json!({ "loss_per_day": 0 }), StatusCode::BAD_REQUEST, "loss_per_day"),
        (json!({ "minutes_per_day": 2000 }), StatusCode::BAD_REQUEST, "minutes_per_day"),
        (json!({ "loss_per_day": "ten" }), StatusCode::UNPROCESSABLE_ENTITY, "loss_per_day"),
        (json!({ "loss": 5 }), StatusCode::UNPROCESSABLE_ENTITY, "loss"),
    ] {
        let (s, e) = app.post("/api/me/limits", Some(&p), body.clone()).await;
        assert_eq!(s, status, "{body}: {e}");
        assert!(e["error"].as_str().unwrap().contains(named), "{body}: {e}");
    }
    let (s, v) = app.post("/api/me/limits", Some(&p), json!({ "loss_per_day": 1500 })).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["loss_per_day"], 1500);
    app.until_phase(1, "betting").await;
    let (s, e) =
        app.post("/api/tables/1/wagers", Some(&p), json!({ "bet": "banker", "amount": 2000, "key": "over" })).await;
    assert_eq!((s, e["code"].as_str()), (StatusCode::FORBIDDEN, Some("self_limit")), "{e}");
    assert!(e["error"].as_str().unwrap().contains("loss limit of 15.00"), "{e}");
    // A slip cannot get round it: each line counts the ones before it.
    let slip =
        json!({ "wagers": [{ "bet": "banker", "amount": 1000 }, { "bet": "player", "amount": 1000 }], "key": "slip" });
    let (s, r) = app.post("/api/tables/1/wagers", Some(&p), slip).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_eq!(r["results"][0]["result"], "wager", "{r}");
    assert_eq!(
        (r["results"][1]["result"].as_str(), r["results"][1]["code"].as_str()),
        (Some("refused"), Some("self_limit")),
        "{r}"
    );
    // Another player's limits are their own.
    let q = app.login("player2", "demo").await;
    let (_, v) = app.get("/api/me/limits", Some(&q)).await;
    assert_eq!(v["loss_per_day"], json!(null));
    let (s, v) = app.post("/api/me/cool-off", Some(&q), json!({ "hours": 24 })).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert!(v["cool_off_until_ms"].as_u64().is_some(), "{v}");
    let (s, e) =
        app.post("/api/tables/1/wagers", Some(&q), json!({ "bet": "banker", "amount": 1000, "key": "brk" })).await;
    assert_eq!(s, StatusCode::FORBIDDEN, "{e}");
    assert!(e["error"].as_str().unwrap().contains("taking a break"), "{e}");
}

/// Under any order of limits, deposits, wagers, coups and hours passing, a
/// wager the writer accepts never leaves the day's loss (stakes on the table
/// counted as lost) past the loss limit in force, and a wager it refuses for
/// the limit changes nothing.
mod property {
    use super::*;
    use baccarat_casino::casino::Casino;
    use baccarat_core::store::Commit;
    use baccarat_core::trust::{Actor, Mode};
    use proptest::prelude::*;
    use std::sync::atomic::AtomicU64;
    use std::sync::Arc;

    const CONFIG: &str = "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 100000\n";

    #[derive(Clone, Debug)]
    enum Op {
        Limit(i64),
        Deposit(i64),
        Wager(Bet, i64),
        NextCoup,
        Later(u64),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            1 => (10i64..=300).prop_map(|d| Op::Limit(d * 100)),
            1 => (1i64..=200).prop_map(|d| Op::Deposit(d * 100)),
            6 => (prop_oneof![Just(Bet::Banker), Just(Bet::Player), Just(Bet::Tie)], 10i64..=150)
                .prop_map(|(b, d)| Op::Wager(b, d * 100)),
            2 => Just(Op::NextCoup),
            1 => (0u64..=720).prop_map(Op::Later),
        ]
    }

    fn table(c: &mut Casino, command: Command, commit: &mut Commit) {
        c.handle(Request::Table { table: TableId(1), command, by: Actor::Server }, commit);
    }

    fn open(c: &mut Casino, commit: &mut Commit) {
        if c.phase(TableId(1)) != Some(Phase::Ready) {
            c.handle(Request::NewShoe { table: TableId(1) }, commit);
        }
        table(c, Command::OpenBetting { no_bet: false, closes_at: None }, commit);
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]
        #[test]
        fn an_accepted_wager_never_passes_the_loss_limit(ops in proptest::collection::vec(op(), 1..60)) {
            let clock = Arc::new(AtomicU64::new(T0));
            let n = clock.clone();
            let mut c = Casino::new();
            c.clock = Arc::new(move || n.load(Ordering::SeqCst));
            let mut commit = Commit::default();
            c.create_table(TableId(1), "NSW", "nsw-2021", CONFIG, Mode::Rng, Money(1_000_000_000), &mut commit).unwrap();
            c.handle(Request::Deposit { player: P, amount: Money(1_000_000), key: "start".parse().unwrap()}, &mut commit);
            open(&mut c, &mut commit);
            let (mut accepted, mut refused) = (0, 0);
            for (i, op) in ops.into_iter().enumerate() {
                match op {
                    Op::Limit(l) => {
                        let change = SelfLimitsChange::Set { loss_per_day: Some(Money(l)), minutes_per_day: None };
                        c.handle(Request::SelfLimits { player: P, change }, &mut commit);
                    }
                    Op::Deposit(a) => {
                        c.handle(Request::Deposit { player: P, amount: Money(a), key: format!("d{i}").parse().unwrap()}, &mut commit);
                    }
                    Op::Wager(bet, amount) => {
                        let before = (c.balance(P), c.chain.len(), c.ledger.transfer_count());
                        let spot = Spot::Box(1);
                        let req = Request::Wager { table: TableId(1), player: P, spot, bet, amount: Money(amount), ante: Money::ZERO, key: format!("w{i}").parse().unwrap()};
                        match c.handle(req, &mut commit) {
                            Reply::Wager { .. } => {
                                accepted += 1;
                                let now = clock.load(Ordering::SeqCst);
                                let s = c.self_limits.get(&P);
                                if let Some((Some(limit), Some(day))) = s.map(|s| (s.loss_per_day.at(now), s.day)) {
                                    let available = c.balance(P).unwrap().1;
                                    prop_assert!(day.base - available <= limit,
                                        "after wager {}: lost or staked {} today, limit {}", i, day.base - available, limit);
                                }
                            }
                            Reply::Refused { code: Code::SelfLimit, .. } => {
                                refused += 1;
                                prop_assert_eq!((c.balance(P), c.chain.len(), c.ledger.transfer_count()), before, "a refusal changes nothing");
                            }
                            _ => {}
                        }
                    }
                    Op::NextCoup => {
                        table(&mut c, Command::CloseBetting, &mut commit);
                        while matches!(c.phase(TableId(1)), Some(Phase::Closed | Phase::Dealing)) {
                            table(&mut c, Command::DealNext, &mut commit);
                        }
                        open(&mut c, &mut commit);
                    }
                    Op::Later(minutes) => {
                        clock.fetch_add(minutes * 60_000, Ordering::SeqCst);
                    }
                }
            }
            // (Both outcomes happen across the cases; the counts are for a failure's message.)
            let _ = (accepted, refused);
        }
    }
}
