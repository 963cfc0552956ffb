//! The log-structured index of idempotency keys (`key_index.rs`): whatever
//! runs, merges, crashes and restarts it goes through, a lookup finds
//! exactly the latest answer a brute-force search of the log finds.

use std::sync::Arc;

use baccarat_cluster::key_reader::KeyReader;
use baccarat_core::ledger::keys::{key_id, AnswerRow, KeyId};
use baccarat_core::ledger::{Cause, Changes};
use baccarat_core::store::key_index::{run, KeyIndex, Maintainer, FANOUT};
use baccarat_core::store::{Commit, SqliteStore, Store};
use proptest::prelude::*;
use rusqlite::Connection;

use super::common::TempDir;

/// A log of answers, its store, its index and its maintainer.
struct Log {
    _dir: TempDir,
    path: std::path::PathBuf,
    store: SqliteStore,
    index: Arc<KeyIndex>,
    maintainer: Maintainer,
    reader: KeyReader,
    /// The latest answer under each id: (seq, time).
    model: std::collections::HashMap<KeyId, (u64, u64)>,
    last_seq: u64,
    retention_ms: u64,
}

fn id(k: u32) -> KeyId {
    key_id(&format!("key-{k}"))
}

impl Log {
    fn new(name: &str, retention_ms: u64) -> Log {
        let dir = TempDir::new(&format!("baccarat-keyindex-{}-{name}", std::process::id()));
        let path = dir.join("casino.db");
        let mut store = SqliteStore::open(&path).unwrap();
        let index = store.index_keys().unwrap();
        let maintainer = Maintainer::new(Connection::open(&path).unwrap(), index.clone(), retention_ms).unwrap();
        let reader = KeyReader::open(&path, Some(index.clone())).unwrap();
        Log { _dir: dir, path, store, index, maintainer, reader, model: Default::default(), last_seq: 0, retention_ms }
    }

    /// Answer keys `ks` at `at_ms`, in one batch.
    fn answer(&mut self, ks: &[u32], at_ms: u64) {
        let mut c = Commit::default();
        for &k in ks {
            self.last_seq += 1;
            let seq = self.last_seq;
            self.model.insert(id(k), (seq, at_ms));
            c.ledger.push(Changes {
                transfers: Vec::new(),
                accounts: Vec::new(),
                answer: Some(AnswerRow {
                    seq,
                    key: format!("key-{k}"),
                    key_id: id(k),
                    request: [k as u8; 32],
                    answer: format!("{{\"Ok\":[{seq}]}}"),
                    cause: Cause::None,
                    at_ms,
                }),
            });
        }
        self.store.commit(&c).unwrap();
    }

    /// What a brute-force search of the log finds for `k` from `since`.
    fn expected(&self, k: u32, since: u64) -> Option<u64> {
        self.model.get(&id(k)).filter(|m| m.1 >= since).map(|m| m.0)
    }

    fn check(&self, keys: std::ops::Range<u32>, since: u64) {
        let ids: Vec<KeyId> = keys.clone().map(id).collect();
        let found = self.reader.find_many(&ids, since).unwrap();
        let found: std::collections::HashMap<KeyId, &AnswerRow> = found.iter().map(|r| (r.key_id, r)).collect();
        for k in keys {
            let got = found.get(&id(k));
            assert_eq!(got.map(|r| r.seq), self.expected(k, since), "key {k} from {since}");
            if let Some(r) = got {
                assert_eq!(r.request, [k as u8; 32], "the answer read is the key's own");
            }
        }
    }

    /// Stop without warning (the maintainer mid-step, the pending answers
    /// lost) and start again as a server does.
    fn crash_and_restart(&mut self) {
        self.store = SqliteStore::open(&self.path).unwrap();
        let problem = self.store.repair_key_index(self.retention_ms).unwrap();
        assert_eq!(problem, None, "an honest index passes its check at a start");
        self.index = self.store.index_keys().unwrap();
        self.maintainer =
            Maintainer::new(Connection::open(&self.path).unwrap(), self.index.clone(), self.retention_ms).unwrap();
        self.reader = KeyReader::open(&self.path, Some(self.index.clone())).unwrap();
    }

    /// Rows of `key_parts`, and the rows the live runs account for.
    fn parts(&self) -> (i64, i64) {
        let c = self.maintainer.connection();
        let rows: i64 = c.query_row("SELECT count(*) FROM key_parts", [], |r| r.get(0)).unwrap();
        let mut live = 0;
        for r in self.index.runs().iter() {
            let range = run::parts(r.id);
            live += c
                .query_row("SELECT count(*) FROM key_parts WHERE id >= ?1 AND id < ?2", [range.start, range.end], |r| {
                    r.get::<_, i64>(0)
                })
                .unwrap();
        }
        (rows, live)
    }
}

#[derive(Clone, Debug)]
enum Op {
    /// A batch answering these keys, a time later.
    Answer(Vec<u32>, u64),
    /// Maintainer steps.
    Step(u8),
    /// Every pending answer into a run, and every merge done.
    Settle,
    CrashAndRestart,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (proptest::collection::vec(0u32..400, 1..40), 0u64..2_000).prop_map(|(k, dt)| Op::Answer(k, dt)),
        2 => (1u8..6).prop_map(Op::Step),
        2 => Just(Op::Settle),
        1 => Just(Op::CrashAndRestart),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Keys answered again and again, runs written and merged at any moment,
    /// crashes anywhere: every lookup, from any point of the window, finds
    /// what a search of the whole log finds.
    #[test]
    fn lookups_match_the_log_through_runs_merges_and_crashes(ops in proptest::collection::vec(op(), 1..120)) {
        let mut log = Log::new("model", u64::MAX / 4);
        let mut now = 1_000;
        for op in ops {
            match op {
                Op::Answer(ks, dt) => {
                    now += dt;
                    log.answer(&ks, now);
                }
                Op::Step(n) => {
                    for _ in 0..n {
                        log.maintainer.step().unwrap();
                    }
                }
                Op::Settle => log.maintainer.settle().unwrap(),
                Op::CrashAndRestart => log.crash_and_restart(),
            }
            for since in [0, now.saturating_sub(3_000), now] {
                log.check(0..400, since);
            }
        }
        log.maintainer.settle().unwrap();
        log.check(0..400, 0);
        let (rows, live) = log.parts();
        prop_assert_eq!(rows, live, "no row is left of a dropped or half-written run");
        prop_assert!(log.index.runs().len() < 2 * FANOUT * 4, "merges keep the runs few: {}", log.index.runs().len());
    }
}

/// An answer is found the moment its batch is durable (a wager refused
/// without the writer relies on it: `http/early.rs`), before any run holds
/// it, and after.
#[test]
fn an_answer_is_found_as_soon_as_it_is_committed() {
    let mut log = Log::new("at-once", u64::MAX / 4);
    log.answer(&[1, 2, 3], 10);
    assert_eq!(log.index.pending(), 3);
    log.check(0..5, 0);
    log.maintainer.settle().unwrap();
    assert_eq!(log.index.pending(), 0);
    assert_eq!(log.index.runs().len(), 1);
    log.check(0..5, 0);
}

/// Eight runs of a level merge into one of the next, over several
/// transactions; a crash part way leaves a half-written run, which the next
/// start removes, and the merge's inputs stay live until then.
#[test]
fn a_crash_mid_merge_leaves_a_half_written_run_that_the_next_start_removes() {
    let mut log = Log::new("mid-merge", u64::MAX / 4);
    let per_run = 8_000u32;
    let all = 0..FANOUT as u32 * per_run;
    for r in 0..FANOUT as u32 {
        log.answer(&(r * per_run..(r + 1) * per_run).collect::<Vec<_>>(), 1_000 + r as u64);
        log.maintainer.write_pending_now().unwrap();
    }
    assert_eq!(log.index.runs().len(), FANOUT);
    assert!(log.maintainer.step().unwrap(), "the merge's first slice");
    let writing: i64 = log
        .maintainer
        .connection()
        .query_row("SELECT count(*) FROM key_runs WHERE state = ?1", [run::WRITING], |r| r.get(0))
        .unwrap();
    assert_eq!(writing, 1, "a half-written run");
    log.check(all.clone(), 0);
    log.crash_and_restart();
    assert_eq!(log.index.runs().len(), FANOUT, "the inputs are still live");
    log.check(all.clone(), 0);
    log.maintainer.settle().unwrap();
    let runs = log.index.runs();
    assert_eq!(runs.len(), 1);
    assert_eq!((runs[0].level, runs[0].keys), (1, all.len() as u64));
    // Memory for the run: its filter (12 bits a key, in whole 64-byte
    // blocks) and its fences (16 bytes a chunk of 160), about 1.6 bytes a key.
    let per_key = log.index.run_bytes() as f64 / all.len() as f64;
    assert!((1.5..1.7).contains(&per_key), "{per_key} bytes a key");
    let (rows, live) = log.parts();
    assert_eq!(rows, live, "the half-written run's rows, and the inputs', are gone");
    log.check(all, 0);
}

/// Runs whose newest answer left the retention window (with the margin)
/// are dropped whole and their rows removed; the keys still in the window
/// are found.
#[test]
fn runs_past_the_retention_window_are_dropped_whole() {
    let hour = 3_600_000;
    let mut log = Log::new("retention", hour);
    log.answer(&[1, 2], 0);
    log.maintainer.settle().unwrap();
    log.answer(&[3], hour);
    log.maintainer.settle().unwrap();
    assert_eq!(log.index.runs().len(), 2);
    // Two hours and a bit later: the first run's answers left the window
    // an hour and a bit ago.
    log.answer(&[4], 2 * hour + 1);
    log.maintainer.settle().unwrap();
    assert_eq!(log.index.runs().len(), 2, "the oldest run was dropped");
    let (rows, live) = log.parts();
    assert_eq!(rows, live);
    log.check(3..5, hour + 1);
    assert!(log.reader.find_many(&[id(1)], 0).unwrap().is_empty(), "key 1 is forgotten with its run");
    // A run dropped by expiry is not mistaken for one removed.
    log.crash_and_restart();
    log.check(3..5, hour + 1);
}

/// Remove a run, its header and every part, as a forger with the file would.
fn remove_run(c: &Connection, id: i64) {
    let r = run::parts(id);
    c.execute("DELETE FROM key_parts WHERE id >= ?1 AND id < ?2", [r.start, r.end]).unwrap();
    assert_eq!(c.execute("DELETE FROM key_runs WHERE id = ?1", [id]).unwrap(), 1);
}

/// A forger (or a lost write) removes what the index holds: a whole run, or
/// one chunk of one. Until the start, the keys in it are not found (a retry
/// under one would be taken as new); the start's check sees it and indexes
/// the log again, and every key is found.
#[test]
fn a_run_or_a_chunk_removed_from_the_index_is_seen_at_the_start_and_rebuilt() {
    let hour = 3_600_000;
    for what in ["run", "chunk", "oldest run", "last run's tail"] {
        let mut log = Log::new(&format!("forged-{}", what.replace(' ', "-").replace('\'', "")), hour);
        for r in 0..3u32 {
            log.answer(&(r * 1_000..(r + 1) * 1_000).collect::<Vec<_>>(), 1_000 + r as u64);
            log.maintainer.write_pending_now().unwrap();
        }
        let runs = log.index.runs();
        assert_eq!(runs.len(), 3);
        let c = log.store.connection();
        let victim = match what {
            "oldest run" => &runs[0],
            "last run's tail" => &runs[2],
            _ => &runs[1],
        };
        let hidden = match what {
            "oldest run" => 0u32,
            "last run's tail" => 2_000,
            _ => 1_000,
        };
        if what == "chunk" {
            // One chunk of the run: any will do, all of the run's keys are
            // checked below.
            let n = c.execute("DELETE FROM key_parts WHERE id = ?1", [run::part(victim.id, run::CHUNK, 3)]).unwrap();
            assert_eq!(n, 1);
        } else {
            // The last run's removal leaves `covered` where it was: its
            // answers lie between the runs and `covered`.
            remove_run(c, victim.id);
        }
        // The attack works on an index nobody checks: the keys it held are
        // lost to a process that loads it as it is.
        let mut plain = SqliteStore::open(&log.path).unwrap();
        let index = plain.index_keys().unwrap();
        let reader = KeyReader::open(&log.path, Some(index)).unwrap();
        let ids: Vec<KeyId> = (hidden..hidden + 1_000).map(id).collect();
        let lost = reader.find_many(&ids, 0).map(|f| ids.len() - f.len());
        assert!(!matches!(lost, Ok(0)), "{what}: without the check, keys are lost or the lookup fails");
        drop((reader, plain));
        // A start checks it, says what is wrong, and rebuilds.
        let mut store = SqliteStore::open(&log.path).unwrap();
        let problem = store.repair_key_index(hour).unwrap();
        assert!(problem.is_some(), "{what}: the check sees it");
        log.index = store.index_keys().unwrap();
        log.store = store;
        log.reader = KeyReader::open(&log.path, Some(log.index.clone())).unwrap();
        log.check(0..3_000, 0);
        assert!(log.store.repair_key_index(hour).is_err(), "not once the index is in use");
        let mut again = SqliteStore::open(&log.path).unwrap();
        assert_eq!(again.repair_key_index(hour).unwrap(), None, "{what}: the rebuilt index passes");
    }
}

/// A server's start (`serve::open`, through `AnyStore::key_index`) checks
/// the index: a run removed while the server was down is rebuilt before
/// any key is looked up.
#[test]
fn a_servers_start_checks_the_index_before_it_serves() {
    let hour = 3_600_000;
    let mut log = Log::new("start-check", hour);
    for r in 0..3u32 {
        log.answer(&(r * 500..(r + 1) * 500).collect::<Vec<_>>(), 1_000 + r as u64);
        log.maintainer.write_pending_now().unwrap();
    }
    remove_run(log.store.connection(), log.index.runs()[1].id);
    let mut store = baccarat_cluster::OpenDb::open(&baccarat_core::store::Db::Sqlite(log.path.clone())).unwrap();
    let index = store.key_index(hour).unwrap().expect("SQLite has a key index");
    log.reader = KeyReader::open(&log.path, Some(index.clone())).unwrap();
    log.index = index;
    log.check(0..1_500, 0);
}

/// A database from before the index (its answers found by a B-tree index on
/// the log) is indexed once, at its first start, and the B-tree dropped.
#[test]
fn an_old_database_is_indexed_once_and_its_b_tree_dropped() {
    let mut log = Log::new("upgrade", u64::MAX / 4);
    for b in 0..20u32 {
        log.answer(&(b * 50..b * 50 + 50).collect::<Vec<_>>(), 100 + b as u64);
    }
    log.answer(&[7, 8, 9], 500);
    // As schema 13 left it.
    log.store
        .connection()
        .execute_batch(
            "DROP TABLE key_runs; DROP TABLE key_parts; DROP TABLE key_index;
             CREATE INDEX answer_log_key_id ON answer_log (key_id); ALTER TABLE users DROP COLUMN disabled;
             PRAGMA user_version = 13;",
        )
        .unwrap();
    let mut store = SqliteStore::open(&log.path).unwrap();
    let index = store.index_keys().unwrap();
    assert_eq!(index.pending(), 0, "every answer is in a run");
    assert_eq!(index.runs().len(), 1);
    let old: i64 = store
        .connection()
        .query_row("SELECT count(*) FROM sqlite_master WHERE name = 'answer_log_key_id'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(old, 0, "the B-tree index is gone");
    log.index = index.clone();
    log.reader = KeyReader::open(&log.path, Some(index)).unwrap();
    log.check(0..1_000, 0);
    log.check(0..1_000, 500);
}

/// The maintainer writes while the committer commits batch after batch: no
/// step fails. (Its transactions once read before writing, and SQLite
/// refuses such a transaction the write lock at once, without waiting,
/// whenever another connection wrote in between: under `loadgen` every
/// step failed with "database is locked" and pending answers piled up.)
#[test]
fn the_maintainer_writes_beside_a_busy_committer_without_failing() {
    let mut log = Log::new("busy", u64::MAX / 4);
    let Log { store, index, maintainer, .. } = &mut log;
    let batches = 400u32;
    let committed = std::sync::atomic::AtomicBool::new(false);
    let mut failures = Vec::new();
    std::thread::scope(|s| {
        s.spawn(|| {
            for b in 0..batches {
                let mut c = Commit::default();
                for k in 0..200 {
                    let seq = (b * 200 + k + 1) as u64;
                    c.ledger.push(Changes {
                        transfers: Vec::new(),
                        accounts: Vec::new(),
                        answer: Some(AnswerRow {
                            seq,
                            key: String::new(),
                            key_id: id(b * 200 + k),
                            request: [0; 32],
                            answer: "{\"Ok\":[1]}".into(),
                            cause: Cause::None,
                            at_ms: 1_000 + b as u64,
                        }),
                    });
                }
                store.commit(&c).unwrap();
            }
            committed.store(true, std::sync::atomic::Ordering::Release);
        });
        while !committed.load(std::sync::atomic::Ordering::Acquire) {
            // A run every time there is anything pending: as many write
            // transactions as can be, racing the committer's.
            if let Err(e) = maintainer.write_pending_now().and_then(|()| maintainer.step().map(|_| ())) {
                failures.push(e.to_string());
            }
        }
    });
    assert!(failures.is_empty(), "{} steps failed, the first: {:?}", failures.len(), failures.first());
    maintainer.settle().unwrap();
    assert_eq!(index.pending(), 0);
    let ids: Vec<KeyId> = (0..batches * 200).map(id).collect();
    let reader = KeyReader::open(&log.path, Some(log.index.clone())).unwrap();
    assert_eq!(reader.find_many(&ids, 0).unwrap().len(), ids.len(), "every key is found");
}

/// Pending answers are bounded (`key_index::MAX_PENDING`): a maintainer
/// that writes no run (here: none runs) would let them grow by every answer
/// made. Past the bound the server takes no new key, refusing the request
/// as unavailable and naming the index; a retry of a key in memory is still
/// answered; once the thread catches up, new keys are taken again, and the
/// refused request, sent again, is made once.
#[test]
fn past_the_pending_bound_no_new_key_is_taken_until_the_index_catches_up() {
    use super::checkpoint::{config, step};
    use baccarat_casino::casino::{Code, Reply, Request};
    use baccarat_cluster::AnyStore;
    use baccarat_rules::Money;
    use baccarat_table::PlayerId;

    let (_dir, cfg) = config("pending-bound");
    let mut o = baccarat_server::serve::open(&cfg).unwrap();
    let AnyStore::Sqlite(store) = &mut o.store else { panic!("the default store is SQLite") };
    let index = store.index_keys().unwrap();
    let p = PlayerId(900);
    let deposit = |key: &str| Request::Deposit { player: p, amount: Money(1_000), key: key.parse().unwrap() };
    let first = step(&mut o, deposit("a"));
    assert!(!matches!(first, Reply::Refused { .. }), "{first:?}");
    // The bound is what pending holds now: the next answer passes it.
    index.set_max_pending(index.pending());
    assert!(index.behind().is_ok());
    let second = step(&mut o, deposit("b"));
    assert!(!matches!(second, Reply::Refused { .. }), "{second:?}");
    let why = index.behind().expect_err("one answer past the bound");
    let balance = o.casino.balance(p).unwrap();
    assert_eq!(balance.0, Money(2_000));

    let r = step(&mut o, deposit("c"));
    assert_eq!(r.code(), Some(Code::Unavailable), "{r:?}");
    let Reply::Refused { message, .. } = &r else { unreachable!() };
    assert!(message.contains("key index is behind") && message == &why.to_string(), "{message}");
    assert_eq!(o.casino.balance(p).unwrap(), balance, "nothing was made");
    // A retry of a key still in memory is answered as before.
    assert_eq!(format!("{:?}", step(&mut o, deposit("b"))), format!("{second:?}"));
    assert_eq!(o.casino.balance(p).unwrap(), balance);

    // The thread writes its runs: keys are taken again, and the refused
    // request, sent again, is made once.
    let mut m = Maintainer::new(Connection::open(&cfg.db).unwrap(), index.clone(), 3_600_000).unwrap();
    m.write_pending_now().unwrap();
    assert_eq!(index.pending(), 0);
    assert!(index.behind().is_ok());
    let r = step(&mut o, deposit("c"));
    assert!(!matches!(r, Reply::Refused { .. }), "{r:?}");
    assert_eq!(format!("{:?}", step(&mut o, deposit("c"))), format!("{r:?}"), "a retry, answered again");
    assert_eq!(o.casino.balance(p).unwrap().0, Money(3_000));
}
