//! The store keeps the ledger and the audit chains across a restart, writes each
//! commit whole or not at all, and a tampered file fails verification.

use baccarat_core::audit::{verify, Chain};
use baccarat_core::ledger::{AccountKind, KeyMemory, Ledger, Op};
use baccarat_core::store::{Commit, SqliteStore, Store, SCHEMA_VERSION};
use baccarat_core::TableId;
use baccarat_rules::Money;
use baccarat_table::PlayerId;
use baccarat_table::WagerId;

use super::common::TempDir;

/// A fresh database path, in a directory removed when the test passes.
fn temp_db(name: &str) -> (TempDir, std::path::PathBuf) {
    let dir = TempDir::new(&format!("baccarat-store-{}-{name}", std::process::id()));
    let db = dir.join("casino.db");
    (dir, db)
}

#[test]
fn ledger_and_chains_survive_a_restart() {
    let (_dir, path) = temp_db("restart");
    let mut store = SqliteStore::open(&path).unwrap();
    assert_eq!(store.version().unwrap(), SCHEMA_VERSION, "migrations applied on first open");
    assert_eq!(SCHEMA_VERSION, 15);
    let mut l = Ledger::new();
    let cage = l.open(AccountKind::Cage);
    let wallet = l.open(AccountKind::Wallet { player: PlayerId(7) });
    let escrow = l.open(AccountKind::Escrow { table: TableId(1) });
    let mut chain = Chain::new();
    let mut commit = Commit::default();
    let (a, ch) = l.apply_logged(
        "buy",
        &[Op::Transfer { debit: cage, credit: wallet, amount: Money(5000), memo: "chips".into() }],
        baccarat_core::ledger::Cause::Deposit { seq: 1 },
    );
    a.unwrap();
    commit.ledger.push(ch);
    let (a, ch) = l.apply_logged(
        "w1",
        &[Op::Hold { debit: wallet, credit: escrow, amount: Money(1000), memo: "wager".into() }],
        baccarat_core::ledger::Cause::Wager { table: TableId(1), wager: WagerId(1) },
    );
    a.unwrap();
    commit.ledger.push(ch);
    for i in 0..3 {
        let r = chain.append(format!("{{\"event\":{i}}}"));
        commit.records.push((TableId(1), r));
    }
    store.commit(&commit).unwrap();
    drop(store);

    let mut store = SqliteStore::open(&path).unwrap();
    let snap = store.load().unwrap();
    // What recovery reads: the accounts, the holds still open, the last
    // transfer's id, and the answers in the retention window (all, here).
    let (mut pending, mut last) = (Vec::new(), baccarat_core::ledger::TransferId(0));
    store
        .each_transfer_after(0, |t| {
            last = t.id;
            if t.kind == baccarat_core::ledger::TransferKind::Pending {
                pending.push(std::sync::Arc::new(t));
            }
            Ok(())
        })
        .unwrap();
    let keys = KeyMemory::restore(store.answers_since(0).unwrap(), store.last_answer().unwrap()).unwrap();
    // A time past every answer reads none (past i64 it once wrapped round to
    // -1 and read them all).
    assert_eq!(store.answers_since(0).unwrap().len(), 2);
    assert!(store.answers_since(u64::MAX).unwrap().is_empty());
    let restored = Ledger::restore(store.accounts().unwrap(), pending, last, keys).unwrap();
    assert_eq!(restored.account(wallet).unwrap().available(), 4000);
    assert_eq!(restored.account(wallet).unwrap().held, 1000);
    // The idempotency answer survived too: a retry returns the first answer.
    let mut restored = restored;
    let again =
        restored.apply("w1", &[Op::Hold { debit: wallet, credit: escrow, amount: Money(1000), memo: "wager".into() }]);
    assert_eq!(
        again,
        l.apply("w1", &[Op::Hold { debit: wallet, credit: escrow, amount: Money(1000), memo: "wager".into() }])
    );
    assert_eq!(restored.account(wallet).unwrap().held, 1000);
    let records: Vec<_> = snap.records.into_iter().map(|(_, r)| r).collect();
    assert_eq!(verify(&records).unwrap(), chain.head());
}

#[test]
fn a_commit_is_all_or_nothing() {
    let mut store = SqliteStore::memory().unwrap();
    let mut chain = Chain::new();
    let r1 = chain.append("{}".into());
    store.commit(&Commit { records: vec![(TableId(1), r1.clone())], ..Commit::default() }).unwrap();
    let r2 = chain.append("{\"b\":1}".into());
    // The same record twice in one commit violates the key: nothing of it lands.
    let bad = Commit { records: vec![(TableId(1), r2.clone()), (TableId(1), r1)], ..Commit::default() };
    assert!(store.commit(&bad).is_err());
    assert_eq!(store.load().unwrap().records.len(), 1);
    store.commit(&Commit { records: vec![(TableId(1), r2)], ..Commit::default() }).unwrap();
    assert_eq!(store.load().unwrap().records.len(), 2);
}

#[test]
fn tampering_with_the_file_is_found() {
    let (_dir, path) = temp_db("tamper");
    let mut store = SqliteStore::open(&path).unwrap();
    let mut chain = Chain::new();
    let records: Vec<_> = (0..5).map(|i| (TableId(2), chain.append(format!("{{\"payout\":{i}}}")))).collect();
    store.commit(&Commit { records, ..Commit::default() }).unwrap();
    baccarat_core::store::logs::unpack(store.connection()).unwrap();
    store.connection().execute("UPDATE audit SET body = '{\"payout\":1000}' WHERE seq = 4", []).unwrap();
    let recs: Vec<_> = store.load().unwrap().records.into_iter().map(|(_, r)| r).collect();
    let e = verify(&recs).unwrap_err();
    assert_eq!(e.seq, 4);
    assert_eq!(store.head(TableId(2)).unwrap().unwrap().seq, 5);
}
