//! Checkpoints and idempotency keys, and settlement in chunks: keys are kept
//! for their retention window only and a start reads none into memory; a large
//! settlement is recorded in chunks and finished after a crash; tables settling
//! together share one chunk a batch.

use baccarat_core::TableId;
use std::time::Duration;

use baccarat_casino::casino::{Reply, Request};
use baccarat_core::store::{Commit, Store};
use baccarat_rules::{Bet, Money};
use baccarat_server::serve::{heads_of, open, open_leased, Opened};
use baccarat_table::{Command, Phase, PlayerId, Spot};

use std::collections::BTreeSet;

use baccarat_casino::casino::checkpoint;
use baccarat_casino::casino::{recover, Keys};
use baccarat_core::store::{History, SqliteStore};
use baccarat_server::serve::write_checkpoint;

use super::checkpoint::{clocked, config, deposits, fingerprint, play, same, server, step};

/// One batch of a settlement in chunks, as the writer makes it: settled,
/// committed, anchored and folded into the feed.
fn settle_a_chunk(o: &mut Opened) {
    let mut commit = Commit::default();
    o.casino.settle_some(&mut commit);
    o.store.commit(&commit).unwrap();
    o.anchors.append(&heads_of(&commit)).unwrap();
    for (t, seq, e) in &commit.events {
        o.feed.absorb(*t, *seq, e);
    }
}

/// A batch that ends a shoe, past the gap a boundary needs for a live state
/// of `live` items: a checkpoint is due after it.
fn boundary(live: u64) -> Commit {
    use baccarat_core::audit::Record;
    use baccarat_table::Event;
    let r = Record { seq: 1, prev: String::new(), body: String::new(), hash: String::new() };
    let n = baccarat_casino::casino::checkpoint::shoe_gap(live) as usize;
    let mut c = Commit { records: vec![(TableId(1), r); n], ..Commit::default() };
    c.events.push((TableId(1), 1, Event::ShoeEnded { shoe: 1, seed: None, reason: "test".into() }));
    c
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
    let deposit =
        |amount: i64| Request::Deposit { player: PlayerId(100), amount: Money(amount), key: "once".parse().unwrap() };
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
    use baccarat_casino::casino::SlipLine;
    let (_dir, _now, cfg) = clocked("keys-on-disk", 1_000_000_000_000);
    let mut o = open(&cfg).unwrap();
    deposits(&mut o);
    play(&mut o, 1, 0, true);
    let wager = |amount: i64| Request::Wager {
        table: TableId(1),
        player: PlayerId(100),
        spot: Spot::Box(1),
        bet: Bet::Player,
        amount: Money(amount),
        ante: Money::ZERO,
        key: "r0c0t1p100".parse().unwrap(),
    };
    let line = |bet, amount| SlipLine { spot: Spot::Box(2), bet, amount: Money(amount), ante: Money::ZERO };
    let slip = |amount: i64| Request::Wagers {
        table: TableId(2),
        player: PlayerId(101),
        // The third line is under the table's minimum: refused, and so it
        // stays on a retry.
        slip: vec![line(Bet::Banker, amount), line(Bet::Banker, 2000), line(Bet::Banker, 100)],
        key: "slip".parse().unwrap(),
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
        c.tables[&TableId(1)].engine.state().coup.wagers.iter().next().map(|w| w.id)
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
                matches!(&a[2], Reply::Refused { code: baccarat_casino::casino::Code::Idempotency, .. }),
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

/// A copy of `from`'s files (the database, its WAL, anchors and key) as
/// `to`'s: what a crash leaves, to start again.
fn copy_casino(from: &baccarat_server::serve::ServeConfig, to: &baccarat_server::serve::ServeConfig) {
    for suffix in ["", "-wal", ".anchors", ".key"] {
        std::fs::copy(format!("{}{suffix}", from.db.display()), format!("{}{suffix}", to.db.display())).unwrap();
    }
}

/// Table 6 (RNG, NSW) with a coup of 5,000 wagers completed and settling
/// in chunks: only the completing command's first chunk recorded.
fn a_big_coup_settling(o: &mut Opened) {
    use baccarat_casino::casino::SlipLine;
    let players = 7u32;
    let r = step(
        o,
        Request::CreateTable {
            name: "Busy".into(),
            rulebook: "nsw-2021".into(),
            config: "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 1000000000\n".into(),
            mode: baccarat_core::trust::Mode::Rng,
            float: None,
        },
    );
    assert!(matches!(r, Reply::Table { table: TableId(6) }), "{r:?}");
    for p in 0..players {
        step(
            o,
            Request::Deposit {
                player: PlayerId(500 + p),
                amount: Money(100_000_000),
                key: format!("d{p}").parse().unwrap(),
            },
        );
    }
    step(o, Request::NewShoe { table: TableId(6) });
    step(o, server(TableId(6), Command::OpenBetting { no_bet: false, closes_at: None }));
    for i in 0..5_000u32 {
        let p = 500 + i % players;
        let bet = if (i / players) % 2 == 0 { Bet::Banker } else { Bet::Tie };
        let slip =
            vec![SlipLine { spot: Spot::Box(1 + (p % players) as u8), bet, amount: Money(2000), ante: Money::ZERO }];
        let r = step(
            o,
            Request::Wagers { table: TableId(6), player: PlayerId(p), slip, key: format!("w{i}").parse().unwrap() },
        );
        assert!(matches!(&r, Reply::Wagers { results, .. } if matches!(results[0], Reply::Wager { .. })), "{r:?}");
    }
    step(o, server(TableId(6), Command::CloseBetting));
    while matches!(o.casino.phase(TableId(6)), Some(Phase::Closed | Phase::Dealing)) && !o.casino.settling() {
        step(o, server(TableId(6), Command::DealNext));
    }
    assert!(o.casino.settling(), "5,000 settlements do not fit one chunk");
}

/// A coup of 5,000 wagers settles in chunks: the command records the first
/// chunk, the table refuses play until the rest is recorded, and a crash
/// between chunks is finished at the restart with exactly the records and
/// balances an uninterrupted run makes.
#[test]
fn a_large_settlement_is_recorded_in_chunks_and_finished_after_a_crash() {
    use baccarat_casino::casino::Code;
    let (_dir, cfg) = config("chunks");
    let mut o = open(&cfg).unwrap();
    a_big_coup_settling(&mut o);
    let r = step(&mut o, server(TableId(6), Command::OpenBetting { no_bet: false, closes_at: None }));
    assert_eq!(r.code(), Some(Code::Settling), "{r:?}");
    // A clean stop's checkpoint waits for the settlement to be recorded, so
    // that the next start has none to finish.
    let r = step(&mut o, Request::Checkpoint);
    assert_eq!(r.code(), Some(Code::Settling), "{r:?}");
    // The ledger check accounts for the holds of wagers still to be recorded
    // as settled (loadgen's check, run during a chunked settlement, flagged
    // them as held for no coup).
    let r = step(&mut o, Request::CheckLedger);
    assert!(matches!(&r, Reply::Ledger { ok: true, .. }), "{r:?}");
    // One chunk more, and a checkpoint falls due in its batch: a settling
    // table does not hold it back (under a load of big coups some table is
    // always settling, and a checkpoint that waited for none was put off
    // past its longest gap), so it is written mid-settlement.
    settle_a_chunk(&mut o);
    assert!(o.casino.settling());
    assert!(o.casino.checkpoint_due(&boundary(o.casino.ledger.live_items()), false), "a checkpoint mid-settlement");
    write_checkpoint(&mut o.store, &o.anchors, &o.casino, &o.feed).unwrap();
    let at_checkpoint = fingerprint(&o.casino, &o.feed);
    // One chunk more, then a crash: a copy of the files as they are now.
    settle_a_chunk(&mut o);
    assert!(o.casino.settling());
    let at_crash = fingerprint(&o.casino, &o.feed);
    let o_len_at_crash = o.casino.tables[&TableId(6)].chain.len();
    assert_ne!(at_crash, at_checkpoint, "the tail holds a chunk of settlements");
    let (_crashed_dir, crashed) = config("chunks-crashed");
    copy_casino(&cfg, &crashed);
    // The uninterrupted run records the rest.
    let mut commit = Commit::default();
    o.casino.settle_all(&mut commit);
    o.store.commit(&commit).unwrap();
    assert!(!o.casino.settling());
    o.casino.ledger.check().unwrap();
    assert!(o.casino.tables[&TableId(6)].open_wagers().0.is_empty(), "every hold released");
    let whole = (
        o.casino.tables[&TableId(6)].chain.head(),
        serde_json::to_value(o.casino.ledger.accounts().collect::<Vec<_>>()).unwrap(),
    );
    // Recovery from the mid-settlement checkpoint and its tail gives what the
    // whole history gives, and what the server had in memory at the crash.
    {
        let store = SqliteStore::open(&crashed.db).unwrap();
        let stored = History::latest_checkpoint(&store).unwrap().expect("a checkpoint");
        let cp = checkpoint::open(&stored, &o.anchors.public_hex()).unwrap();
        assert!(cp.tables.iter().any(|t| t.id == TableId(6) && t.engine.completed), "taken mid-settlement");
        let none = BTreeSet::new();
        let from_cp = recover(&store, Some(cp), Keys::Since(0), &none).unwrap();
        let full = recover(&store, None, Keys::Since(0), &none).unwrap();
        let chunk = baccarat_casino::casino::settle::CHUNK as u64;
        assert_eq!(from_cp.tail_records, chunk, "the tail is the one chunk recorded after it");
        assert!(full.tail_records > 5_000);
        let a = fingerprint(&from_cp.casino, &from_cp.feed);
        same(&a, &fingerprint(&full.casino, &full.feed), "the checkpoint and its tail give the whole history");
        same(&a, &at_crash, "and what the server had in memory");
    }
    // An inspector's checks pass on it as it is: from the mid-settlement
    // checkpoint (`verify --since-checkpoint`), and over the whole history.
    let db = baccarat_core::store::Db::Sqlite(crashed.db.clone());
    let since = baccarat_server::verify::verify_since_checkpoint(&db, None, None).unwrap();
    assert!(since.problems.is_empty(), "{:?}", since.problems);
    assert_eq!(since.tail_records, baccarat_casino::casino::settle::CHUNK as u64);
    let (full, _) = baccarat_server::verify::verify_file(&crashed.db, None, None).unwrap();
    assert!(full.problems.is_empty(), "{:?}", full.problems);
    // A second copy, for a tool's start (no writer) below.
    let (_tool_dir, tool) = config("chunks-tool");
    copy_casino(&crashed, &tool);
    let finished = |o: &Opened| {
        (
            o.casino.tables[&TableId(6)].chain.head(),
            serde_json::to_value(o.casino.ledger.accounts().collect::<Vec<_>>()).unwrap(),
        )
    };
    // The crashed copy starts from that checkpoint as `serve` starts: the
    // table is still settling when the start ends (the start records none
    // of it), it refuses play, the other tables serve, and the writer's
    // batches record the rest a chunk at a time.
    let mut again = open_leased(&crashed, None).unwrap();
    assert!(again.recovery.from_checkpoint, "{:?}", again.recovery);
    assert!(again.recovery.tail_records <= 1_000, "{:?}", again.recovery);
    assert!(again.casino.settling(), "the start leaves the settlement to the writer");
    let settled_at_start = again.casino.tables[&TableId(6)].chain.len();
    assert_eq!(settled_at_start, o_len_at_crash, "nothing recorded at table 6 by the start");
    let r = step(&mut again, server(TableId(6), Command::OpenBetting { no_bet: false, closes_at: None }));
    assert_eq!(r.code(), Some(Code::Settling), "{r:?}");
    let r = step(&mut again, Request::NewShoe { table: TableId(1) });
    assert_eq!(r.code(), None, "another table is served meanwhile: {r:?}");
    again.casino.ledger.check().unwrap();
    let mut batches = 0;
    while again.casino.settling() {
        settle_a_chunk(&mut again);
        batches += 1;
    }
    let left = 5_000 - baccarat_casino::casino::settle::FIRST_CHUNK - 2 * baccarat_casino::casino::settle::CHUNK;
    assert_eq!(batches, left.div_ceil(baccarat_casino::casino::settle::CHUNK), "a chunk a batch");
    again.casino.ledger.check().unwrap();
    assert!(again.casino.tables[&TableId(6)].open_wagers().0.is_empty(), "every hold released");
    assert_eq!(finished(&again), whole, "the same records and the same balances");
    // A tool's start (no writer: `serve::open`) records the rest at once.
    let tool = open(&tool).unwrap();
    assert!(!tool.casino.settling());
    tool.casino.ledger.check().unwrap();
    assert_eq!(finished(&tool), whole, "the same records and the same balances");
}

/// Tables that complete big coups together share one chunk of settlements a
/// batch (`casino/settle.rs`): the completing command settles only the first
/// few, then each batch carries at most `CHUNK` settlements between them, each
/// table its share, so every table goes on and a quiet table's request never
/// waits behind one chunk per table. (Each settling table used to take a whole
/// chunk a batch: this test then saw 2,000 in one batch.)
#[test]
fn tables_settling_together_share_one_chunk_a_batch() {
    use baccarat_casino::casino::settle::{CHUNK, FIRST_CHUNK};
    use baccarat_casino::casino::SlipLine;
    let (_dir, cfg) = config("shared-chunks");
    let mut o = open(&cfg).unwrap();
    let config = "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 1000000000\n";
    let tables = [6, 7].map(TableId);
    for (i, want) in tables.iter().enumerate() {
        let r = step(
            &mut o,
            Request::CreateTable {
                name: format!("Busy {i}"),
                rulebook: "nsw-2021".into(),
                config: config.into(),
                mode: baccarat_core::trust::Mode::Rng,
                float: None,
            },
        );
        assert!(matches!(r, Reply::Table { table } if table == *want), "{r:?}");
    }
    let players = 7u32;
    for p in 0..players {
        step(
            &mut o,
            Request::Deposit {
                player: PlayerId(500 + p),
                amount: Money(100_000_000),
                key: format!("d{p}").parse().unwrap(),
            },
        );
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
            let r = step(
                &mut o,
                Request::Wagers { table, player: PlayerId(p), slip, key: format!("t{table}-{i}").parse().unwrap() },
            );
            assert!(
                matches!(&r, Reply::Wagers { results, .. } if results.iter().all(|r| matches!(r, Reply::Wager { .. }))),
                "{r:?}"
            );
        }
        step(&mut o, server(table, Command::CloseBetting));
    }
    let settled = |commit: &Commit, table: TableId| {
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

/// A server started on a log that stops inside a coup's settlement serves at
/// once and its writer records the rest, a chunk a batch, with no player's
/// request (the pacer's commands at the table are refused `settling`
/// meanwhile): the coup is closed and the table is ready for the next.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_started_mid_settlement_serves_and_finishes_it_alone() {
    let (_dir, cfg) = config("chunks-serve");
    let c = cfg.clone();
    let coup = tokio::task::spawn_blocking(move || {
        let mut o = open(&c).unwrap();
        a_big_coup_settling(&mut o);
        o.casino.tables[&TableId(6)].engine.state().coup_number
        // Dropped here: a crash between chunks.
    })
    .await
    .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(baccarat_server::serve::run(cfg, listener));
    let client = reqwest::Client::new();
    let mut seen = Vec::new();
    // Bounded: 6,000 polls 10 ms apart at most (a liveness bound, not a
    // speed figure: the rest takes a few batches).
    for _ in 0..6_000 {
        if let Ok(r) = client.get(format!("{base}/api/tables/6")).send().await {
            if let Ok(v) = r.json::<serde_json::Value>().await {
                let (phase, n) = (v["phase"].as_str().unwrap_or_default().to_string(), v["coup"].as_u64());
                if seen.last() != Some(&(phase.clone(), n)) {
                    seen.push((phase.clone(), n));
                }
                // `ready` once the coup is closed (then the pacer opens the next).
                if n.is_some_and(|n| n > coup as u64) || matches!(phase.as_str(), "ready" | "betting") {
                    return;
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("table 6 never left coup {coup}'s settlement: {seen:?}");
}
