//! Crash and restart: the casino is rebuilt from the store alone, open wagers keep
//! their holds, the interrupted coup completes and settles once; and the writer's
//! group commit answers every request only after it is durable.

use baccarat_core::trust::Actor;
use baccarat_core::TableId;
use baccarat_table::PlayerId;
use baccarat_table::WagerId;
use std::sync::mpsc::channel;

use baccarat_casino::casino::{Casino, Mode, Reply, Request};
use baccarat_casino::Writer;
use baccarat_core::store::{Commit, SqliteStore, Store};
use baccarat_rules::{Bet, Money};
use baccarat_table::{Command, Phase, Spot};

use super::common::TempDir;

const CONFIG: &str = "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 100000\n";

/// A fresh database path, in a directory removed when the test passes.
fn temp_db(name: &str) -> (TempDir, std::path::PathBuf) {
    let dir = TempDir::new(&format!("baccarat-recovery-{}-{name}", std::process::id()));
    let db = dir.join("casino.db");
    (dir, db)
}

fn step(c: &mut Casino, store: &mut SqliteStore, r: Request) -> Reply {
    let mut commit = Commit::default();
    let reply = c.handle(r, &mut commit);
    store.commit(&commit).unwrap();
    reply
}

#[test]
fn an_interrupted_coup_resumes_after_a_restart_and_settles_once() {
    let (_dir, path) = temp_db("resume");
    let mut store = SqliteStore::open(&path).unwrap();
    let mut c = Casino::new();
    let mut commit = Commit::default();
    c.create_table(TableId(1), "NSW", "nsw-2021", CONFIG, Mode::Rng, Money(100_000_000), &mut commit).unwrap();
    store.commit(&commit).unwrap();
    for p in 1..=2 {
        step(
            &mut c,
            &mut store,
            Request::Deposit { player: PlayerId(p), amount: Money(50_000), key: "in".parse().unwrap() },
        );
    }
    step(&mut c, &mut store, Request::NewShoe { table: TableId(1) });
    step(
        &mut c,
        &mut store,
        Request::Table {
            table: TableId(1),
            command: Command::OpenBetting { no_bet: false, closes_at: None },
            by: Actor::Server,
        },
    );
    let w = |p: u32, bet: Bet| Request::Wager {
        table: TableId(1),
        player: PlayerId(p),
        spot: Spot::Box(p as u8),
        bet,
        amount: Money(10_000),
        key: format!("k{p}").parse().unwrap(),
        ante: Money::ZERO,
    };
    assert!(matches!(step(&mut c, &mut store, w(1, Bet::Banker)), Reply::Wager { .. }));
    assert!(matches!(step(&mut c, &mut store, w(2, Bet::Player)), Reply::Wager { .. }));
    step(&mut c, &mut store, Request::Table { table: TableId(1), command: Command::CloseBetting, by: Actor::Server });
    step(&mut c, &mut store, Request::Table { table: TableId(1), command: Command::DealNext, by: Actor::Server });
    // Crash: memory is gone; only the file remains.
    drop(c);
    drop(store);

    let mut store = SqliteStore::open(&path).unwrap();
    let mut c = Casino::recover(&store).unwrap();
    let mut commit = Commit::default();
    assert_eq!(c.resume_interrupted(&mut commit), vec![TableId(1)]);
    store.commit(&commit).unwrap();
    assert!(commit.records[0].1.body.contains("\"kind\":\"interrupted\""), "the interruption is on the record");
    assert_eq!(c.phase(TableId(1)), Some(Phase::Dealing), "NSW 13.2: the coup resumes where the record left it");
    assert_eq!(c.balance(PlayerId(1)).unwrap(), (Money(50_000), Money(40_000)), "the acknowledged wager is still held");
    // A retried wager is answered from the record, not placed again.
    assert!(matches!(step(&mut c, &mut store, w(1, Bet::Banker)), Reply::Wager { wager: WagerId(0), .. }));
    while matches!(c.phase(TableId(1)), Some(Phase::Dealing | Phase::Closed)) {
        step(&mut c, &mut store, Request::Table { table: TableId(1), command: Command::DealNext, by: Actor::Server });
    }
    c.ledger.check().unwrap();
    let (b1, a1) = c.balance(PlayerId(1)).unwrap();
    let (b2, a2) = c.balance(PlayerId(2)).unwrap();
    assert_eq!((b1, b2), (a1, a2), "no holds remain");
    // Each wallet moved by exactly what the audited settlements say.
    let mut player_of = std::collections::HashMap::new();
    let mut net = std::collections::HashMap::<u64, i64>::new();
    for (_, r) in store.load().unwrap().records {
        let v: serde_json::Value = serde_json::from_str(&r.body).unwrap();
        let e = &v["event"];
        match e["event"].as_str().unwrap_or("a casino record") {
            "wager_placed" => {
                player_of.insert(e["wager"]["id"].as_u64().unwrap(), e["wager"]["player"].as_u64().unwrap());
            }
            "wager_settled" => {
                let s = &e["settlement"];
                let n = s["returned"].as_i64().unwrap() + s["won"].as_i64().unwrap()
                    - s["commission"].as_i64().unwrap()
                    - s["stake"].as_i64().unwrap();
                *net.entry(player_of[&e["wager"].as_u64().unwrap()]).or_default() += n;
            }
            _ => {}
        }
    }
    assert_eq!(b1.0 - 50_000, net[&1]);
    assert_eq!(b2.0 - 50_000, net[&2]);
    // Restart again: the same books, the chain intact and continuing.
    drop(c);
    let again = Casino::recover(&store).unwrap();
    assert_eq!(again.balance(PlayerId(1)).unwrap().0, b1);
    let table_records = store.load().unwrap().records.iter().filter(|(t, _)| *t == TableId(1)).count();
    assert_eq!(again.tables[&TableId(1)].chain.len() as usize, table_records);
}

/// Under a profile whose interrupted-coup policy is void (the resort's house
/// rules are silent; the profile returns every wager), the coup in progress at a
/// crash is void on restart and every held stake goes back whole.
#[test]
fn an_interrupted_coup_is_void_where_the_profile_says_so() {
    let (_dir, path) = temp_db("void");
    let mut store = SqliteStore::open(&path).unwrap();
    let mut c = Casino::new();
    let mut commit = Commit::default();
    let config = "rulebook = \"resort-house\"\nchip = 100\nmin = 1000\nmax = 100000\n";
    c.create_table(TableId(1), "Resort", "resort-house", config, Mode::Rng, Money(100_000_000), &mut commit).unwrap();
    store.commit(&commit).unwrap();
    step(
        &mut c,
        &mut store,
        Request::Deposit { player: PlayerId(1), amount: Money(50_000), key: "in".parse().unwrap() },
    );
    step(&mut c, &mut store, Request::NewShoe { table: TableId(1) });
    step(
        &mut c,
        &mut store,
        Request::Table {
            table: TableId(1),
            command: Command::OpenBetting { no_bet: false, closes_at: None },
            by: Actor::Server,
        },
    );
    let r = step(
        &mut c,
        &mut store,
        Request::Wager {
            table: TableId(1),
            player: PlayerId(1),
            spot: Spot::Box(1),
            bet: Bet::Banker,
            amount: Money(10_000),
            key: "k".parse().unwrap(),
            ante: Money::ZERO,
        },
    );
    assert!(matches!(r, Reply::Wager { .. }), "{r:?}");
    step(&mut c, &mut store, Request::Table { table: TableId(1), command: Command::CloseBetting, by: Actor::Server });
    step(&mut c, &mut store, Request::Table { table: TableId(1), command: Command::DealNext, by: Actor::Server });
    drop(c);
    drop(store);

    let mut store = SqliteStore::open(&path).unwrap();
    let mut c = Casino::recover(&store).unwrap();
    assert_eq!(c.balance(PlayerId(1)).unwrap(), (Money(50_000), Money(40_000)));
    let mut commit = Commit::default();
    assert_eq!(c.resume_interrupted(&mut commit), vec![TableId(1)]);
    store.commit(&commit).unwrap();
    let text: String = commit.records.iter().map(|(_, r)| r.body.clone()).collect();
    assert!(text.contains("\"coup_voided\""), "{text}");
    assert_eq!(c.balance(PlayerId(1)).unwrap(), (Money(50_000), Money(50_000)), "the stake is returned whole");
    assert_ne!(c.phase(TableId(1)), Some(Phase::Dealing));
    c.ledger.check().unwrap();
    // Nothing is done twice: a second restart finds no coup in progress.
    let mut again = Casino::recover(&store).unwrap();
    assert!(again.resume_interrupted(&mut Commit::default()).is_empty());
    assert_eq!(again.balance(PlayerId(1)).unwrap(), (Money(50_000), Money(50_000)));
    let f = baccarat_server::verify::verify(&store.load().unwrap());
    assert!(f.problems.is_empty(), "verify replays the void coup: {:?}", f.problems);
}

#[test]
fn the_writer_answers_only_after_commit_and_batches_many_requests() {
    let (_dir, path) = temp_db("writer");
    let mut store = SqliteStore::open(&path).unwrap();
    let mut c = Casino::new();
    let mut commit = Commit::default();
    c.create_table(TableId(1), "NSW", "nsw-2021", CONFIG, Mode::Rng, Money(100_000_000), &mut commit).unwrap();
    for p in 1..=14 {
        c.handle(
            Request::Deposit { player: PlayerId(p), amount: Money(1_000_000), key: "in".parse().unwrap() },
            &mut commit,
        );
    }
    c.handle(Request::NewShoe { table: TableId(1) }, &mut commit);
    c.handle(
        Request::Table {
            table: TableId(1),
            command: Command::OpenBetting { no_bet: false, closes_at: None },
            by: Actor::Server,
        },
        &mut commit,
    );
    store.commit(&commit).unwrap();
    let batches = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let b = batches.clone();
    let (writer, handle) = Writer::start(
        c,
        store,
        None,
        |_, _| (),
        move |_, _, _| {
            b.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            None
        },
        baccarat_core::Fatal::exiting(),
    );
    let (tx, rx) = channel();
    for i in 0..2000u32 {
        let tx = tx.clone();
        let p = i % 14 + 1;
        let req = Request::Wager {
            table: TableId(1),
            player: PlayerId(p),
            spot: Spot::Box(p as u8),
            bet: Bet::Tie,
            amount: Money(1000),
            key: format!("t{i}").parse().unwrap(),
            ante: Money::ZERO,
        };
        writer.send(req, move |r| tx.send(r).unwrap()).unwrap();
    }
    drop(tx);
    let replies: Vec<Reply> = rx.iter().collect();
    assert_eq!(replies.len(), 2000);
    let placed = replies.iter().filter(|r| matches!(r, Reply::Wager { .. })).count();
    assert!(placed > 0);
    assert!(batches.load(std::sync::atomic::Ordering::Relaxed) < 2000, "requests were committed in batches");
    drop(writer);
    handle.join().unwrap();
    let store = SqliteStore::open(&path).unwrap();
    let c = Casino::recover(&store).unwrap();
    let held: i64 = (1..=14)
        .map(|p| {
            let (b, a) = c.balance(PlayerId(p)).unwrap();
            (b - a).0
        })
        .sum();
    assert_eq!(held, placed as i64 * 1000, "every acknowledged wager is durable");
}
