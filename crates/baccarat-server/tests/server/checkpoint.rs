//! Checkpoints: recovery from the latest one plus the tail equals the replay of
//! the whole history; a checkpoint that is corrupt, signed by another key, or
//! disagrees with the log is refused, named, and the whole history replayed;
//! and keys are remembered for their retention window only.

use std::collections::BTreeSet;
use std::time::Duration;

use baccarat_rules::{Bet, Money};
use baccarat_server::casino::{recover, Casino, Keys, Reply, Request};
use baccarat_server::checkpoint;
use baccarat_server::coup_feed::Feed;
use baccarat_server::serve::{heads_of, open, write_checkpoint, Opened, ServeConfig};
use baccarat_server::store::{Commit, Store};
use baccarat_server::trust::Actor;
use baccarat_table::engine::{Command, Phase, PlayerId, Spot};
use serde_json::{json, Value};

use super::common::TempDir;

/// A config with a fresh database in a directory of its own: (the directory,
/// removed when the test passes; the config).
pub(super) fn config(name: &str) -> (TempDir, ServeConfig) {
    let dir = TempDir::new(&format!("baccarat-checkpoint-{}-{name}", std::process::id()));
    let cfg = ServeConfig::new(dir.join("casino.db"), "127.0.0.1:0".parse().unwrap());
    (dir, cfg)
}

/// A config whose clock the test sets, starting at `t0`: (the directory, the
/// clock, the config).
pub(super) fn clocked(name: &str, t0: u64) -> (TempDir, std::sync::Arc<std::sync::atomic::AtomicU64>, ServeConfig) {
    use std::sync::atomic::{AtomicU64, Ordering};
    let now = std::sync::Arc::new(AtomicU64::new(t0));
    let n = now.clone();
    let (dir, mut cfg) = config(name);
    cfg.clock = std::sync::Arc::new(move || n.load(Ordering::SeqCst));
    (dir, now, cfg)
}

/// Apply one request as the server does: commit, anchor, fold into the feed.
pub(super) fn step(o: &mut Opened, r: Request) -> Reply {
    let mut commit = Commit::default();
    let reply = o.casino.handle(r, &mut commit);
    o.store.commit(&commit).unwrap();
    o.anchors.append(&heads_of(&commit)).unwrap();
    for (t, seq, e) in &commit.events {
        o.feed.absorb(*t, *seq, e);
    }
    reply
}

pub(super) fn server(table: u32, command: Command) -> Request {
    Request::Table { table, command, by: Actor::Server }
}

/// Play `coups` coups at the RNG tables 1, 2 and 4, each with wagers from
/// players 100..105; `leave_open`: end with betting open and wagers held.
pub(super) fn play(o: &mut Opened, coups: usize, round: usize, leave_open: bool) {
    for c in 0..coups {
        for table in [1u32, 2, 4] {
            if matches!(o.casino.phase(table), Some(Phase::NoShoe | Phase::ShoeOver)) {
                step(o, Request::NewShoe { table });
            }
            step(o, server(table, Command::OpenBetting { no_bet: false, closes_at: None }));
            for p in 100..105u32 {
                let bet = [Bet::Banker, Bet::Player, Bet::Tie][(p as usize + c) % 3];
                let r = step(
                    o,
                    Request::Wager {
                        table,
                        player: PlayerId(p),
                        spot: Spot::Box((p - 99) as u8),
                        bet,
                        amount: Money(2000 * (p as i64 - 99)),
                        ante: Money::ZERO,
                        key: format!("r{round}c{c}t{table}p{p}"),
                    },
                );
                assert!(matches!(r, Reply::Wager { .. }), "{r:?}");
            }
            if leave_open && c + 1 == coups {
                continue;
            }
            step(o, server(table, Command::CloseBetting));
            while matches!(o.casino.phase(table), Some(Phase::Closed | Phase::Dealing)) {
                step(o, server(table, Command::DealNext));
            }
        }
    }
}

/// Everything recovery must get right, as one value to compare.
pub(super) fn fingerprint(c: &Casino, feed: &Feed) -> Value {
    let tables: Vec<Value> = c
        .tables
        .values()
        .map(|t| {
            let (holds, liability) = t.open_wagers();
            json!({
                "id": t.id,
                "chain": [t.chain.len(), t.chain.head()],
                "engine": serde_json::to_value(t.engine.state()).unwrap(),
                "halted": t.halted,
                "commitment": t.commitment,
                "holds": format!("{holds:?}"),
                "liability": liability.0,
                "open": t.open,
            })
        })
        .collect();
    json!({
        "accounts": serde_json::to_value(c.ledger.accounts().collect::<Vec<_>>()).unwrap(),
        "pending": serde_json::to_value(c.ledger.pending().collect::<Vec<_>>()).unwrap(),
        "transfers": c.ledger.transfer_count(),
        "answer_seq": c.ledger.keys.last_seq(),
        "casino_chain": [c.chain.len(), c.chain.head()],
        "self_limits": serde_json::to_value(c.self_limits.values().collect::<Vec<_>>()).unwrap(),
        "tables": tables,
        "feed": feed_value(feed),
    })
}

/// The read model, each player's history in (table, coup, wager) order: a
/// whole replay reads the chains table by table, so a player's lines from
/// several tables interleave otherwise than they were settled (coup_feed.rs).
fn feed_value(feed: &Feed) -> Value {
    let mut s = feed.state();
    for (_, h) in &mut s.history {
        h.sort_by_key(|l| (l.table, l.coup, l.line.wager));
    }
    serde_json::to_value(s).unwrap()
}

/// The first place two values differ, or None.
fn differ(a: &Value, b: &Value, at: String) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for k in x.keys().chain(y.keys()) {
                let (u, v) = (x.get(k).unwrap_or(&Value::Null), y.get(k).unwrap_or(&Value::Null));
                if let Some(d) = differ(u, v, format!("{at}.{k}")) {
                    return Some(d);
                }
            }
            None
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            x.iter().zip(y).enumerate().find_map(|(i, (u, v))| differ(u, v, format!("{at}[{i}]")))
        }
        _ => (a != b).then(|| format!("{at}: {a} vs {b}")),
    }
}

pub(super) fn same(a: &Value, b: &Value, what: &str) {
    if let Some(d) = differ(a, b, String::new()) {
        panic!("{what}: {d}");
    }
}

pub(super) fn deposits(o: &mut Opened) {
    for p in 100..105u32 {
        step(o, Request::Deposit { player: PlayerId(p), amount: Money(10_000_000), key: format!("in{p}") });
    }
}

#[test]
fn recovery_from_a_checkpoint_equals_the_whole_replay() {
    let (_dir, cfg) = config("equal");
    let mut o = open(&cfg).unwrap();
    deposits(&mut o);
    play(&mut o, 4, 0, false);
    write_checkpoint(&mut o.store, &o.anchors, &o.casino, &o.feed).unwrap();
    // The tail: more coups, a table made after the checkpoint, and a coup
    // left with its wagers held (a crash in betting).
    play(&mut o, 3, 1, false);
    let r = step(
        &mut o,
        Request::CreateTable {
            name: "Late".into(),
            rulebook: "nsw-2021".into(),
            config: "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 500000\n".into(),
            mode: baccarat_server::trust::Mode::Rng,
        },
    );
    assert!(matches!(r, Reply::Table { table: 6 }), "{r:?}");
    play(&mut o, 1, 2, true);
    let live = fingerprint(&o.casino, &o.feed);
    let public = o.anchors.public_hex();
    let store = o.store;
    drop(o.casino);

    let stored = baccarat_server::store::History::latest_checkpoint(&store).unwrap().expect("a checkpoint");
    let cp = checkpoint::open(&stored, &public).unwrap();
    let none = BTreeSet::new();
    let from_cp = recover(&store, Some(cp), Keys::Since(0), &none).unwrap();
    let full = recover(&store, None, Keys::Since(0), &none).unwrap();
    assert!(from_cp.tail_records > 0 && from_cp.tail_records < full.tail_records);
    assert!(from_cp.tail_transfers < full.tail_transfers);
    let a = fingerprint(&from_cp.casino, &from_cp.feed);
    let b = fingerprint(&full.casino, &full.feed);
    same(&a, &b, "the checkpoint and its tail give what the whole history gives");
    same(&a, &live, "and what the server had in memory");
    // Both go on the same way: the open coup settles alike.
    let (mut x, mut y) = (from_cp.casino, full.casino);
    for c in [&mut x, &mut y] {
        let mut commit = Commit::default();
        c.handle(server(1, Command::CloseBetting), &mut commit);
        while matches!(c.phase(1), Some(Phase::Closed | Phase::Dealing)) {
            c.handle(server(1, Command::DealNext), &mut commit);
        }
    }
    same(&fingerprint(&x, &Feed::default()), &fingerprint(&y, &Feed::default()), "the same coup settles alike");
}

/// The server's own start uses the checkpoint, and reads only the tail.
#[test]
fn a_start_reads_the_checkpoint_and_the_tail_only() {
    let (_dir, cfg) = config("start");
    let mut o = open(&cfg).unwrap();
    deposits(&mut o);
    play(&mut o, 3, 0, false);
    write_checkpoint(&mut o.store, &o.anchors, &o.casino, &o.feed).unwrap();
    play(&mut o, 1, 1, false);
    let live = fingerprint(&o.casino, &o.feed);
    drop(o);
    let again = open(&cfg).unwrap();
    assert!(again.recovery.from_checkpoint, "{:?}", again.recovery);
    assert!(again.recovery.refused_checkpoint.is_none());
    // One coup at three tables: a few dozen records, not the history.
    assert!(again.recovery.tail_records > 0 && again.recovery.tail_records < 200, "{:?}", again.recovery);
    same(&fingerprint(&again.casino, &again.feed), &live, "the restarted casino");
}

/// Corrupt one byte of the checkpoint: it is named and not used, the whole
/// history is replayed, and the result is the same casino.
#[test]
fn a_corrupt_checkpoint_is_refused_and_the_history_replayed() {
    let (_dir, cfg) = config("corrupt");
    let mut o = open(&cfg).unwrap();
    deposits(&mut o);
    play(&mut o, 2, 0, false);
    write_checkpoint(&mut o.store, &o.anchors, &o.casino, &o.feed).unwrap();
    play(&mut o, 1, 1, false);
    let live = fingerprint(&o.casino, &o.feed);
    // A forger raises a balance inside the checkpoint's body (its parts).
    let altered = o
        .store
        .sqlite()
        .unwrap()
        .connection()
        .execute(
            "UPDATE checkpoint_parts SET data = CAST(replace(CAST(data AS TEXT), '\"balance\":1', '\"balance\":9') AS BLOB)
             WHERE CAST(data AS TEXT) LIKE '%\"balance\":1%'",
            [],
        )
        .unwrap();
    assert!(altered > 0, "the forgery changed a part");
    drop(o);
    let again = open(&cfg).unwrap();
    assert!(!again.recovery.from_checkpoint);
    let why = again.recovery.refused_checkpoint.clone().unwrap();
    assert!(why.contains("SHA-256"), "{why}");
    same(&fingerprint(&again.casino, &again.feed), &live, "the restarted casino");
    // Having replayed the whole history, the start wrote a fresh checkpoint.
    drop(again);
    assert!(open(&cfg).unwrap().recovery.from_checkpoint);
}

/// A checkpoint rehashed and signed by another key is refused too.
#[test]
fn a_checkpoint_signed_by_another_key_is_refused() {
    let (_dir, cfg) = config("forged");
    let mut o = open(&cfg).unwrap();
    deposits(&mut o);
    play(&mut o, 1, 0, false);
    let (_other_dir, other_cfg) = config("forged-other");
    let other = open(&other_cfg).unwrap();
    let mut cp = o.casino.checkpoint();
    cp.feed = Some(o.feed.state());
    o.store.write_checkpoint(&checkpoint::seal(&cp, &other.anchors)).unwrap();
    drop(o);
    let again = open(&cfg).unwrap();
    let why = again.recovery.refused_checkpoint.clone().unwrap();
    assert!(why.contains("not the server's"), "{why}");
}

/// A balance forged in the accounts table (with the cage adjusted so the sum
/// stays zero) disagrees with the checkpoint and its tail, and with the whole
/// history: the server refuses to start, naming the account.
#[test]
fn a_forged_balance_stops_the_start() {
    let (_dir, cfg) = config("balance");
    let mut o = open(&cfg).unwrap();
    deposits(&mut o);
    play(&mut o, 1, 0, false);
    write_checkpoint(&mut o.store, &o.anchors, &o.casino, &o.feed).unwrap();
    let wallet = o.casino.ledger.find(&baccarat_server::ledger::AccountKind::Wallet { player: PlayerId(100) }).unwrap();
    let cage = o.casino.ledger.find(&baccarat_server::ledger::AccountKind::Cage).unwrap();
    let conn = o.store.sqlite().unwrap().connection();
    conn.execute("UPDATE accounts SET balance = balance + 500000 WHERE id = ?1", [wallet as i64]).unwrap();
    conn.execute("UPDATE accounts SET balance = balance - 500000 WHERE id = ?1", [cage as i64]).unwrap();
    drop(o);
    let err = open(&cfg).err().expect("refused");
    assert!(err.contains(&format!("account {wallet}")) || err.contains(&format!("account {cage}")), "{err}");
}

/// A key is remembered for its retention window, across a restart, and
/// forgotten after it.
#[test]
fn keys_are_kept_for_their_window_only() {
    let now = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(1_000_000_000_000));
    let clock_now = now.clone();
    let (_dir, mut cfg) = config("keys");
    cfg.clock = std::sync::Arc::new(move || clock_now.load(std::sync::atomic::Ordering::SeqCst));
    cfg.key_retention = Duration::from_secs(3600);
    let mut o = open(&cfg).unwrap();
    let deposit = |amount: i64| Request::Deposit { player: PlayerId(100), amount: Money(amount), key: "once".into() };
    step(&mut o, deposit(1000));
    drop(o);
    // Within the window, after a restart: the same key answers the first
    // deposit, and with another amount it is refused.
    now.fetch_add(1_800_000, std::sync::atomic::Ordering::SeqCst);
    let mut o = open(&cfg).unwrap();
    assert_eq!(o.casino.ledger.keys(), 0, "memory holds only the last minutes' keys; this one is on disk");
    assert_eq!(step(&mut o, deposit(1000)), Reply::Deposit { balance: Money(1000) });
    assert!(matches!(step(&mut o, deposit(7)), Reply::Refused { .. }));
    // Past the window (in memory, and across a restart): a new deposit.
    now.fetch_add(3_600_000, std::sync::atomic::Ordering::SeqCst);
    assert_eq!(step(&mut o, deposit(1000)), Reply::Deposit { balance: Money(2000) });
    assert_eq!(o.casino.ledger.keys(), 1, "the old key was forgotten");
    drop(o);
    now.fetch_add(3_600_001, std::sync::atomic::Ordering::SeqCst);
    let mut o = open(&cfg).unwrap();
    assert_eq!(o.casino.ledger.keys(), 0);
    assert_eq!(step(&mut o, deposit(1000)), Reply::Deposit { balance: Money(3000) });
}

/// A start reads no idempotency key into memory, not even those answered a
/// moment before it (`recover::Keys::OnDisk`): each is found in the store when
/// a request names it. A wager and a bet slip sent again just after a restart
/// get their first answers and hold nothing more; the same keys for other
/// requests are refused.
#[test]
fn a_start_reads_no_keys_and_a_retry_sent_just_before_it_gets_its_first_answer() {
    use baccarat_server::casino::SlipLine;
    let (_dir, _now, cfg) = clocked("keys-on-disk", 1_000_000_000_000);
    let mut o = open(&cfg).unwrap();
    deposits(&mut o);
    play(&mut o, 1, 0, true);
    let wager = |amount: i64| Request::Wager {
        table: 1,
        player: PlayerId(100),
        spot: Spot::Box(1),
        bet: Bet::Player,
        amount: Money(amount),
        ante: Money::ZERO,
        key: "r0c0t1p100".into(),
    };
    let line = |bet, amount| SlipLine { spot: Spot::Box(2), bet, amount: Money(amount), ante: Money::ZERO };
    let slip = |amount: i64| Request::Wagers {
        table: 2,
        player: PlayerId(101),
        // The third line is under the table's minimum: refused, and so it
        // stays on a retry.
        slip: vec![line(Bet::Banker, amount), line(Bet::Banker, 2000), line(Bet::Banker, 100)],
        key: "slip".into(),
    };
    let answers_before = o.casino.ledger.keys.last_seq();
    let first_slip = step(&mut o, slip(4000));
    assert!(
        matches!(&first_slip, Reply::Wagers { results, .. }
            if matches!(results[..], [Reply::Wager { .. }, Reply::Wager { .. }, Reply::Refused { .. }])),
        "{first_slip:?}"
    );
    assert_eq!(o.casino.ledger.keys.last_seq(), answers_before + 1, "a slip writes one answer, not one a line");
    let first_wager = {
        let c = &o.casino;
        c.tables[&1].engine.state().coup.wagers.iter().next().map(|w| w.id)
    };
    assert!(o.casino.ledger.keys() > 10, "the live server holds its recent keys");
    let balances = |o: &Opened| o.casino.ledger.accounts().map(|a| (a.id, a.balance, a.held)).collect::<Vec<_>>();
    let before = balances(&o);
    drop(o);

    let mut o = open(&cfg).unwrap();
    assert_eq!(o.casino.ledger.keys(), 0, "a start reads no key into memory");
    let again = step(&mut o, wager(2000));
    assert!(matches!(again, Reply::Wager { wager, .. } if Some(wager) == first_wager), "{again:?} {first_wager:?}");
    let again_slip = step(&mut o, slip(4000));
    match (&again_slip, &first_slip) {
        // The same wagers (each balance is the one available when answered).
        (Reply::Wagers { results: a, .. }, Reply::Wagers { results: b, .. }) => {
            let ids = |r: &Vec<Reply>| {
                r.iter()
                    .map(|x| if let Reply::Wager { wager, .. } = x { Some(*wager) } else { None })
                    .collect::<Vec<_>>()
            };
            assert_eq!(ids(a), ids(b));
            assert!(
                matches!(&a[2], Reply::Refused { code: baccarat_server::casino::Code::Idempotency, .. }),
                "the refused line is not tried again under the slip's key: {:?}",
                a[2]
            );
        }
        _ => panic!("{again_slip:?}"),
    }
    assert_eq!(balances(&o), before, "the retries held nothing more");
    for other in [wager(3000), slip(6000)] {
        let r = step(&mut o, other);
        let refused = match &r {
            Reply::Refused { .. } => true,
            Reply::Wagers { results, .. } => results.iter().all(|x| matches!(x, Reply::Refused { .. })),
            _ => false,
        };
        assert!(refused, "a key sent with another request is refused: {r:?}");
    }
    assert_eq!(balances(&o), before);
}

/// A coup of 5,000 wagers settles in chunks: the command records the first
/// chunk, the table refuses play until the rest is recorded, and a crash
/// between chunks is finished at the restart with exactly the records and
/// balances an uninterrupted run makes.
#[test]
fn a_large_settlement_is_recorded_in_chunks_and_finished_after_a_crash() {
    use baccarat_server::casino::{Code, SlipLine};
    let (_dir, cfg) = config("chunks");
    let mut o = open(&cfg).unwrap();
    let players = 7u32;
    let r = step(
        &mut o,
        Request::CreateTable {
            name: "Busy".into(),
            rulebook: "nsw-2021".into(),
            config: "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 1000000000\n".into(),
            mode: baccarat_server::trust::Mode::Rng,
        },
    );
    assert!(matches!(r, Reply::Table { table: 6 }), "{r:?}");
    for p in 0..players {
        step(&mut o, Request::Deposit { player: PlayerId(500 + p), amount: Money(100_000_000), key: format!("d{p}") });
    }
    step(&mut o, Request::NewShoe { table: 6 });
    step(&mut o, server(6, Command::OpenBetting { no_bet: false, closes_at: None }));
    for i in 0..5_000u32 {
        let p = 500 + i % players;
        let bet = if (i / players) % 2 == 0 { Bet::Banker } else { Bet::Tie };
        let slip =
            vec![SlipLine { spot: Spot::Box(1 + (p % players) as u8), bet, amount: Money(2000), ante: Money::ZERO }];
        let r = step(&mut o, Request::Wagers { table: 6, player: PlayerId(p), slip, key: format!("w{i}") });
        assert!(matches!(&r, Reply::Wagers { results, .. } if matches!(results[0], Reply::Wager { .. })), "{r:?}");
    }
    step(&mut o, server(6, Command::CloseBetting));
    while matches!(o.casino.phase(6), Some(Phase::Closed | Phase::Dealing)) && !o.casino.settling() {
        step(&mut o, server(6, Command::DealNext));
    }
    assert!(o.casino.settling(), "5,000 settlements do not fit one chunk");
    let r = step(&mut o, server(6, Command::OpenBetting { no_bet: false, closes_at: None }));
    assert_eq!(r.code(), Some(Code::Settling), "{r:?}");
    let r = step(&mut o, Request::Checkpoint);
    assert_eq!(r.code(), Some(Code::Settling), "no checkpoint while the engine is ahead of the log: {r:?}");
    // The ledger check accounts for the holds of wagers still to be recorded
    // as settled (loadgen's check, run during a chunked settlement, flagged
    // them as held for no coup).
    let r = step(&mut o, Request::CheckLedger);
    assert!(matches!(&r, Reply::Ledger { ok: true, .. }), "{r:?}");
    // One chunk more, then a crash: a copy of the files as they are now.
    let mut commit = Commit::default();
    o.casino.settle_some(&mut commit);
    o.store.commit(&commit).unwrap();
    o.anchors.append(&heads_of(&commit)).unwrap();
    assert!(o.casino.settling());
    let (_crashed_dir, crashed) = config("chunks-crashed");
    for suffix in ["", "-wal", ".anchors", ".key"] {
        let from = format!("{}{suffix}", cfg.db.display());
        let to = format!("{}{suffix}", crashed.db.display());
        std::fs::copy(&from, &to).unwrap();
    }
    // The uninterrupted run records the rest.
    let mut commit = Commit::default();
    o.casino.settle_all(&mut commit);
    o.store.commit(&commit).unwrap();
    assert!(!o.casino.settling());
    o.casino.ledger.check().unwrap();
    assert!(o.casino.tables[&6].open_wagers().0.is_empty(), "every hold released");
    let whole = (
        o.casino.tables[&6].chain.head(),
        serde_json::to_value(o.casino.ledger.accounts().collect::<Vec<_>>()).unwrap(),
    );
    // The crashed copy finishes the settlement as it starts.
    let again = open(&crashed).unwrap();
    assert!(!again.casino.settling());
    again.casino.ledger.check().unwrap();
    let finished = (
        again.casino.tables[&6].chain.head(),
        serde_json::to_value(again.casino.ledger.accounts().collect::<Vec<_>>()).unwrap(),
    );
    assert_eq!(finished, whole, "the same records and the same balances");
}

/// Tables that complete big coups together share one chunk of settlements a
/// batch (`casino/settle.rs`): the completing command settles only the first
/// few, then each batch carries at most `CHUNK` settlements between them, each
/// table its share, so every table goes on and a quiet table's request never
/// waits behind one chunk per table. (Each settling table used to take a whole
/// chunk a batch: this test then saw 2,000 in one batch.)
#[test]
fn tables_settling_together_share_one_chunk_a_batch() {
    use baccarat_server::casino::settle::{CHUNK, FIRST_CHUNK};
    use baccarat_server::casino::SlipLine;
    let (_dir, cfg) = config("shared-chunks");
    let mut o = open(&cfg).unwrap();
    let config = "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 1000000000\n";
    let tables = [6u32, 7];
    for (i, want) in tables.iter().enumerate() {
        let r = step(
            &mut o,
            Request::CreateTable {
                name: format!("Busy {i}"),
                rulebook: "nsw-2021".into(),
                config: config.into(),
                mode: baccarat_server::trust::Mode::Rng,
            },
        );
        assert!(matches!(r, Reply::Table { table } if table == *want), "{r:?}");
    }
    let players = 7u32;
    for p in 0..players {
        step(&mut o, Request::Deposit { player: PlayerId(500 + p), amount: Money(100_000_000), key: format!("d{p}") });
    }
    let per_table = 1_500u32;
    for &table in &tables {
        step(&mut o, Request::NewShoe { table });
        step(&mut o, server(table, Command::OpenBetting { no_bet: false, closes_at: None }));
        for i in 0..per_table / 10 {
            let p = 500 + i % players;
            let line = |n: u32| SlipLine {
                spot: Spot::Box(1 + (p % players) as u8),
                bet: if n % 2 == 0 { Bet::Banker } else { Bet::Tie },
                amount: Money(2000),
                ante: Money::ZERO,
            };
            let slip = (0..10).map(line).collect();
            let r = step(&mut o, Request::Wagers { table, player: PlayerId(p), slip, key: format!("t{table}-{i}") });
            assert!(
                matches!(&r, Reply::Wagers { results, .. } if results.iter().all(|r| matches!(r, Reply::Wager { .. }))),
                "{r:?}"
            );
        }
        step(&mut o, server(table, Command::CloseBetting));
    }
    let settled = |commit: &Commit, table: u32| {
        commit.records.iter().filter(|(t, r)| *t == table && r.body.contains("\"wager_settled\"")).count()
    };
    // Deal both to their results in one batch each step.
    while tables.iter().any(|&t| {
        matches!(o.casino.phase(t), Some(Phase::Closed | Phase::Dealing)) && !o.casino.tables[&t].engine.settling()
    }) {
        let mut commit = Commit::default();
        for &t in &tables {
            if !o.casino.tables[&t].engine.settling() {
                o.casino.handle(server(t, Command::DealNext), &mut commit);
            }
        }
        for &t in &tables {
            assert!(settled(&commit, t) <= FIRST_CHUNK, "the completing command settles {}", settled(&commit, t));
        }
        o.store.commit(&commit).unwrap();
    }
    assert!(
        tables.iter().all(|&t| o.casino.tables[&t].engine.settling()),
        "{:?}",
        tables.map(|t| (o.casino.phase(t), o.casino.tables[&t].halted.clone()))
    );
    let (mut batches, mut left) = (0, [per_table as usize - FIRST_CHUNK; 2]);
    while o.casino.settling() {
        let mut commit = Commit::default();
        o.casino.settle_some(&mut commit);
        o.store.commit(&commit).unwrap();
        let each = tables.map(|t| settled(&commit, t));
        assert!(each.iter().sum::<usize>() <= CHUNK, "one chunk a batch between them: {each:?}");
        for i in 0..2 {
            assert!(each[i] > 0 || left[i] == 0, "table {} waited while the other settled: {each:?}", tables[i]);
            left[i] -= each[i];
        }
        batches += 1;
    }
    assert_eq!(left, [0, 0], "every wager settled once");
    assert_eq!(batches, (2 * (per_table as usize - FIRST_CHUNK)).div_ceil(CHUNK), "shares fill each batch");
    o.casino.ledger.check().unwrap();
    for t in tables {
        assert!(o.casino.tables[&t].open_wagers().0.is_empty(), "every hold released");
    }
}

/// A start from a checkpoint verifies only the anchor lines written after it
/// (the checkpoint, signed, says where the file stood): the file grows with
/// every batch, and a start must not slow with its age. `verify` still reads
/// every line, so an old line altered is found there.
#[test]
fn a_start_from_a_checkpoint_reads_only_the_anchor_lines_after_it() {
    let (_dir, cfg) = config("anchor-mark");
    let mut o = open(&cfg).unwrap();
    deposits(&mut o);
    play(&mut o, 2, 0, false);
    baccarat_server::serve::write_checkpoint(&mut o.store, &o.anchors, &o.casino, &o.feed).unwrap();
    play(&mut o, 1, 1, false);
    drop(o);
    let (anchor_path, _) = cfg.anchor_paths();
    let text = std::fs::read_to_string(&anchor_path).unwrap();
    // Alter the first line (a forger's edit of old history, same length).
    let first_end = text.find('\n').unwrap();
    let at = text[..first_end].find("\"len\":").unwrap() + 6;
    let mut altered = text.clone().into_bytes();
    altered[at] = if altered[at] == b'9' { b'8' } else { b'9' };
    std::fs::write(&anchor_path, &altered).unwrap();
    let again = open(&cfg).unwrap();
    assert!(again.recovery.from_checkpoint);
    drop(again);
    let (f, _) = baccarat_server::verify::verify_file(&cfg.db, None, None).unwrap();
    assert!(f.problems.iter().any(|p| p.contains("anchors")), "{:?}", f.problems);
    // Without a checkpoint the whole file is read, and the start refuses it.
    rusqlite::Connection::open(&cfg.db).unwrap().execute("DELETE FROM checkpoints", []).unwrap();
    assert!(open(&cfg).is_err());
}

/// A checkpoint larger than one part is written in parts and read back whole;
/// one cut short by a crash (never marked complete) is never read, and the next
/// checkpoint written removes it.
#[test]
fn a_checkpoint_is_written_in_parts_and_read_only_once_complete() {
    use baccarat_server::store::{History, SqliteStore, CHECKPOINT_PART_BYTES};
    let (_dir, cfg) = config("parts");
    let mut store = SqliteStore::open(&cfg.db).unwrap();
    let sealed = |at_ms: u64, len: usize| checkpoint::Sealed {
        at_ms,
        mark: baccarat_server::archive::Mark { at_ms, last_transfer: 0, heads: Default::default() },
        body: (0..len).map(|i| (i * 7 + at_ms as usize) as u8).collect(),
        sha256: format!("sha-{at_ms}"),
        signature: "sig".into(),
        public_key: "key".into(),
    };
    let big = sealed(1, CHECKPOINT_PART_BYTES * 2 + 12_345);
    store.write_checkpoint(&big).unwrap();
    let parts: i64 = store.connection().query_row("SELECT COUNT(*) FROM checkpoint_parts", [], |r| r.get(0)).unwrap();
    assert_eq!(parts, 3, "two whole parts and the rest");
    let read = store.latest_checkpoint().unwrap().unwrap();
    assert_eq!(read.body, big.body, "read back whole, in order");
    assert_eq!(read.sha256, "sha-1");

    // A crash part way through the next: its row and a part are there, but
    // it was never marked complete.
    let conn = store.connection();
    conn.execute(
        "INSERT INTO checkpoints (at_ms, body, sha256, signature, public_key, complete) VALUES (2, X'', 'sha-2', 's', 'k', 0)",
        [],
    )
    .unwrap();
    let cut = conn.last_insert_rowid();
    conn.execute("INSERT INTO checkpoint_parts (checkpoint, n, data) VALUES (?1, 0, X'00')", [cut]).unwrap();
    assert_eq!(store.latest_checkpoint().unwrap().unwrap().sha256, "sha-1", "the incomplete one is not read");

    let small = sealed(3, 10);
    store.write_checkpoint(&small).unwrap();
    assert_eq!(store.latest_checkpoint().unwrap().unwrap().body, small.body);
    let left: i64 =
        store.connection().query_row("SELECT COUNT(*) FROM checkpoints WHERE complete = 0", [], |r| r.get(0)).unwrap();
    assert_eq!(left, 0, "the cut-short checkpoint is gone");
    let orphans: i64 = store
        .connection()
        .query_row(
            "SELECT COUNT(*) FROM checkpoint_parts WHERE checkpoint NOT IN (SELECT id FROM checkpoints)",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(orphans, 0, "and so are its parts");
}

/// A check reads the latest checkpoint a part at a time, hashing every byte
/// (the read model too, which it skips rather than keeps), and gets what
/// `checkpoint::open` gets, less the read model: from small parts, from a
/// body partly in the row (older checkpoints) and partly in parts, and it
/// refuses a byte altered inside the skipped read model, or another key.
#[test]
fn a_check_reads_the_checkpoint_a_part_at_a_time_without_its_read_model() {
    use baccarat_server::checkpoint_check::latest_without_read_model;
    let (_dir, cfg) = config("check-read");
    let mut o = open(&cfg).unwrap();
    deposits(&mut o);
    play(&mut o, 3, 0, true);
    write_checkpoint(&mut o.store, &o.anchors, &o.casino, &o.feed).unwrap();
    let public = o.anchors.public_hex();
    let store = o.store;
    let stored = baccarat_server::store::History::latest_checkpoint(&store).unwrap().unwrap();
    let whole = checkpoint::open(&stored, &public).unwrap();
    assert!(whole.feed.as_ref().is_some_and(|f| !f.history.is_empty()), "the read model is in the checkpoint");
    let expected = serde_json::to_value(checkpoint::Checkpoint { feed: None, ..whole }).unwrap();
    let streamed = |public: &str| latest_without_read_model(&store, public).unwrap().expect("a checkpoint");

    let (id, got) = streamed(&public);
    assert_eq!(id, stored.id);
    assert_eq!(serde_json::to_value(got.unwrap()).unwrap(), expected, "one part");

    // The same body cut into parts of 997 bytes, then with its first 5,000
    // bytes in the row itself, as an older checkpoint keeps its body.
    let conn = store.sqlite().unwrap().connection();
    let body = stored.body.clone();
    let write_parts = |from: usize, size: usize| {
        conn.execute("DELETE FROM checkpoint_parts WHERE checkpoint = ?1", [id]).unwrap();
        conn.execute("UPDATE checkpoints SET body = ?1 WHERE id = ?2", rusqlite::params![&body[..from], id]).unwrap();
        for (n, part) in body[from..].chunks(size).enumerate() {
            conn.execute(
                "INSERT INTO checkpoint_parts (checkpoint, n, data) VALUES (?1, ?2, ?3)",
                rusqlite::params![id, n as i64, part],
            )
            .unwrap();
        }
    };
    write_parts(0, 997);
    let parts: i64 = conn.query_row("SELECT COUNT(*) FROM checkpoint_parts", [], |r| r.get(0)).unwrap();
    assert!(parts > 20, "{parts} parts");
    assert_eq!(serde_json::to_value(streamed(&public).1.unwrap()).unwrap(), expected, "many parts");
    write_parts(5_000, 997);
    assert_eq!(serde_json::to_value(streamed(&public).1.unwrap()).unwrap(), expected, "the row's body, then parts");

    // One byte altered inside the read model, which the parser skips.
    let text = String::from_utf8(body.clone()).unwrap();
    let at = text.find("\"history\"").expect("the read model's history") + 40;
    let mut altered = body.clone();
    altered[at] = if altered[at] == b'1' { b'2' } else { b'1' };
    conn.execute("DELETE FROM checkpoint_parts WHERE checkpoint = ?1", [id]).unwrap();
    conn.execute("UPDATE checkpoints SET body = ?1 WHERE id = ?2", rusqlite::params![altered, id]).unwrap();
    let why = streamed(&public).1.unwrap_err();
    assert!(why.contains("SHA-256"), "{why}");
    // And a body that no longer parses is named as altered too.
    conn.execute("UPDATE checkpoints SET body = ?1 WHERE id = ?2", rusqlite::params![&body[..body.len() / 2], id])
        .unwrap();
    let why = streamed(&public).1.unwrap_err();
    assert!(why.contains("SHA-256"), "{why}");
    let why = streamed(&"ab".repeat(32)).1.unwrap_err();
    assert!(why.contains("signed by key"), "{why}");
}

/// The checkpointer streams a checkpoint into the store a part at a time,
/// hashing as it goes, so the body is never whole in memory: what it stores
/// is, byte for byte, the checkpoint sealed whole (the same hash and
/// signature), in parts, and it opens to the same state. A part the store
/// refuses stops it with the store's own error, and leaves no complete
/// checkpoint behind.
#[test]
fn a_checkpoint_streamed_a_part_at_a_time_is_the_one_sealed_whole() {
    use baccarat_server::ledger::{Cause, Transfer, TransferKind};
    use baccarat_server::store::{History, CHECKPOINT_PART_BYTES};
    let (_dir, cfg) = config("streamed");
    let mut o = open(&cfg).unwrap();
    deposits(&mut o);
    play(&mut o, 1, 0, false);
    let mut cp = o.casino.checkpoint();
    cp.feed = Some(o.feed.state());
    // Bulk it past two parts (only its bytes matter here).
    cp.pending.extend((0..40_000u64).map(|i| {
        std::sync::Arc::new(Transfer {
            id: 1_000_000 + i,
            debit: 1,
            credit: 2,
            amount: Money(100),
            kind: TransferKind::Pending,
            memo: format!("table 1 wager {i}"),
            cause: Cause::Wager { table: 1, wager: baccarat_table::engine::WagerId(i) },
        })
    }));
    let key = baccarat_server::anchor::AnchorKey::load(&baccarat_server::anchor::default_paths(&cfg.db).1).unwrap();
    let whole = checkpoint::seal_with(&cp, &key);
    let parts = whole.body.len().div_ceil(CHECKPOINT_PART_BYTES);
    assert!(parts >= 3, "{} bytes", whole.body.len());

    checkpoint::write_streamed(&mut o.store, &cp, &key).unwrap();
    let read = o.store.latest_checkpoint().unwrap().unwrap();
    assert_eq!((read.sha256.as_str(), read.signature.as_str()), (whole.sha256.as_str(), whole.signature.as_str()));
    assert!(read.body == whole.body, "the same bytes");
    assert_eq!(checkpoint::open(&read, &key.public_hex()).unwrap(), cp);
    let conn = rusqlite::Connection::open(&cfg.db).unwrap();
    let stored: i64 =
        conn.query_row("SELECT COUNT(*) FROM checkpoint_parts WHERE checkpoint = ?1", [read.id], |r| r.get(0)).unwrap();
    assert_eq!(stored as usize, parts);

    // The store refuses the second part of the next one.
    conn.execute_batch(
        "CREATE TRIGGER full BEFORE INSERT ON checkpoint_parts WHEN NEW.n = 1 BEGIN SELECT RAISE(ABORT, 'disk full'); END",
    )
    .unwrap();
    cp.at_ms += 1;
    let err = checkpoint::write_streamed(&mut o.store, &cp, &key).unwrap_err();
    assert!(err.to_string().contains("disk full"), "{err}");
    assert_eq!(o.store.latest_checkpoint().unwrap().unwrap().id, read.id, "the last complete one is still the latest");
}

/// The background checkpointer frees the writer's gate (`checkpoint::Busy`)
/// once each checkpoint is written, and also when one fails: a gate left shut
/// would stop every later checkpoint, silently.
#[test]
fn the_checkpointer_frees_the_gate_after_each_checkpoint_written_or_failed() {
    use baccarat_server::store::History;
    let (_dir, cfg) = config("gate");
    let mut o = open(&cfg).unwrap();
    deposits(&mut o);
    let busy = o.casino.checkpointer_busy.clone();
    let key_path = baccarat_server::anchor::default_paths(&cfg.db).1;
    let cp = checkpoint::Checkpointer::start(&cfg.database(), &key_path, None, busy.clone()).unwrap();
    let wait_free = |what: &str| {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while busy.get() {
            assert!(std::time::Instant::now() < deadline, "the gate stayed shut after {what}");
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    };
    let before = o.store.latest_checkpoint().unwrap().map(|c| c.id);
    busy.set(true);
    let mut taken = o.casino.checkpoint();
    taken.feed = Some(o.feed.state());
    cp.offer(Box::new(taken.clone()));
    wait_free("a checkpoint written");
    let written = o.store.latest_checkpoint().unwrap().expect("written").id;
    assert!(Some(written) > before, "a new checkpoint: {written} after {before:?}");

    // The store refuses every part: the checkpoint fails, the gate opens.
    let conn = rusqlite::Connection::open(&cfg.db).unwrap();
    conn.execute_batch(
        "CREATE TRIGGER full BEFORE INSERT ON checkpoint_parts BEGIN SELECT RAISE(ABORT, 'disk full'); END",
    )
    .unwrap();
    busy.set(true);
    cp.offer(Box::new(taken));
    wait_free("a checkpoint that failed");
    assert_eq!(o.store.latest_checkpoint().unwrap().unwrap().id, written, "the failed one is not the latest");
}
