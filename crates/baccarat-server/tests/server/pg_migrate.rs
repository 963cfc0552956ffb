//! `migrate` and `verify` against PostgreSQL (split from `pg.rs`): a SQLite
//! casino copied into an empty database and checked, a non-empty target
//! refused; a PostgreSQL casino verified, a forgery in it named, and a
//! serving casino's anchors read before its snapshot.

use std::collections::BTreeSet;

use baccarat_casino::casino::checkpoint;
use baccarat_casino::casino::{recover, Keys, Reply, Request};
use baccarat_cluster::pg_store::PgStore;
use baccarat_core::store::{History, SqliteStore};
use baccarat_rules::Money;
use baccarat_table::PlayerId;

use super::checkpoint::{fingerprint, same};

use super::pg::*;

/// `migrate` copies a served SQLite casino (demo tables, people, sessions,
/// coups, a checkpoint) into an empty PostgreSQL database and checks it;
/// recovery from the copy gives the casino recovery from the source gives;
/// a second run is refused, naming what the target holds; a missing source
/// is named.
#[test]
fn migrate_copies_a_sqlite_casino_and_refuses_a_non_empty_target() {
    use super::checkpoint::{config, deposits, play};
    use baccarat_server::serve::{open, write_checkpoint};
    let (_dir, cfg) = config("migrate");
    let mut o = open(&cfg).unwrap();
    deposits(&mut o);
    play(&mut o, 2, 0, false);
    write_checkpoint(&mut o.store, &o.anchors, &o.casino, &o.feed).unwrap();
    play(&mut o, 1, 1, true);
    let public = o.anchors.public_hex();
    drop(o);

    let url = database("migrate");
    let copied = baccarat_server::migrate::migrate(&cfg.db, &url).unwrap();
    for (stream, least) in [("tables", 4), ("users", 5), ("transfers", 20), ("answers", 10), ("checkpoint", 1)] {
        assert!(copied.streams[stream] >= least, "{stream}: {:?}", copied.streams);
    }
    assert!(copied.streams["chain 1"] > 10, "{:?}", copied.streams);

    let sqlite = SqliteStore::open(&cfg.db).unwrap();
    let pg = PgStore::connect(&url).unwrap();
    let none = BTreeSet::new();
    let cp = |h: &dyn History| checkpoint::open(&h.latest_checkpoint().unwrap().unwrap(), &public).unwrap();
    let a = recover(&sqlite, Some(cp(&sqlite)), Keys::Since(0), &none).unwrap();
    let b = recover(&pg, Some(cp(&pg)), Keys::Since(0), &none).unwrap();
    same(&fingerprint(&a.casino, &a.feed), &fingerprint(&b.casino, &b.feed), "recovered from SQLite and from the copy");
    // Both read every answer from time 0 and none from past every time (a
    // time past i64 once wrapped round to -1 and read them all: verify and
    // the ledger check held the whole answer log in memory).
    for h in [&sqlite as &dyn History, &pg] {
        assert!(h.answers_since(0).unwrap().len() >= 10);
        assert!(h.answers_since(u64::MAX).unwrap().is_empty());
    }
    // The readers that find keys out of memory find the same answers in
    // both, in one read for many keys: each key's latest answer, nothing for
    // a key never answered, nothing before the window.
    let answered: Vec<baccarat_core::ledger::keys::KeyId> =
        sqlite.answers_since(0).unwrap().iter().map(|a| a.key_id).collect();
    let mut ids = answered.clone();
    ids.extend([1u128, 2, u128::MAX].map(baccarat_core::ledger::keys::KeyId));
    let sqlite_keys =
        baccarat_cluster::key_reader::open(&baccarat_core::store::Db::Sqlite(cfg.db.clone()), None).unwrap();
    let pg_keys = baccarat_cluster::key_reader::open(&baccarat_core::store::Db::Postgres(url.clone()), None).unwrap();
    let found = |k: &std::sync::Arc<dyn baccarat_core::ledger::keys::ColdKeys>, since: u64| {
        let mut rows: Vec<String> = k
            .find(&ids, since)
            .unwrap()
            .into_iter()
            .map(|a| format!("{:x} {} {:?} {} {} {:?}", a.key_id, a.seq, a.request, a.answer, a.at_ms, a.cause))
            .collect();
        rows.sort();
        rows
    };
    let (a_rows, b_rows) = (found(&sqlite_keys, 0), found(&pg_keys, 0));
    assert_eq!(a_rows.len(), answered.len(), "every answered key, and no other");
    assert_eq!(a_rows, b_rows);
    assert!(found(&pg_keys, u64::MAX).is_empty() && found(&sqlite_keys, u64::MAX).is_empty());
    assert!(pg_keys.find(&[], 0).unwrap().is_empty());
    // A check that answers nothing reads no key (`Keys::None`).
    assert_eq!(recover(&pg, Some(cp(&pg)), Keys::None, &none).unwrap().casino.ledger.keys(), 0);

    // The check reads both back: a transfer altered in the copy is named.
    assert_eq!(baccarat_server::migrate::check_copy(&cfg.db, &url).unwrap(), copied);
    pg.with_client(|c| c.execute("UPDATE transfers SET amount = amount + 1 WHERE id = 3", &[]).unwrap());
    let altered = baccarat_server::migrate::check_copy(&cfg.db, &url).unwrap_err().to_string();
    assert!(altered.contains("transfers") && !altered.contains("accounts"), "{altered}");

    let again = baccarat_server::migrate::migrate(&cfg.db, &url).unwrap_err().to_string();
    assert!(again.contains("already holds a casino") && again.contains("tables"), "{again}");
    let missing = baccarat_server::migrate::migrate(std::path::Path::new("/nonexistent/casino.db"), &url)
        .unwrap_err()
        .to_string();
    assert!(missing.contains("--from") && missing.contains("does not exist"), "{missing}");
}

/// `verify` on PostgreSQL: a casino migrated from SQLite verifies clean with
/// the anchor file it came with; a transfer forged in PostgreSQL afterwards is
/// named, as it would be in SQLite; a missing anchor file is named.
#[test]
fn verify_reads_a_postgres_casino_and_names_a_forgery() {
    use super::checkpoint::{config, deposits, play};
    use baccarat_server::serve::{open, write_checkpoint};
    let (_dir, cfg) = config("verify-pg");
    let mut o = open(&cfg).unwrap();
    deposits(&mut o);
    play(&mut o, 2, 0, false);
    write_checkpoint(&mut o.store, &o.anchors, &o.casino, &o.feed).unwrap();
    play(&mut o, 1, 1, true);
    drop(o);
    let url = database("verifypg");
    baccarat_server::migrate::migrate(&cfg.db, &url).unwrap();
    let anchors = cfg.anchor_paths().0;

    let (f, key) = baccarat_server::migrate::verify_pg(&url, &anchors, None).unwrap();
    assert!(f.problems.is_empty(), "{:?}", f.problems);
    assert!(f.records > 20 && f.transfers > 20 && key.is_some(), "{f:?}");
    // `verify --since-checkpoint`: the checkpoint and the coup after it.
    let db = baccarat_core::store::Db::Postgres(url.clone());
    let since = || baccarat_server::verify::verify_since_checkpoint(&db, Some(&anchors), None).unwrap();
    let t = since();
    assert!(t.problems.is_empty() && t.tail_records > 0 && t.tail_transfers > 0, "{t:?}");

    let pg = PgStore::connect(&url).unwrap();
    let forged = pg.with_client(|c| {
        c.execute("UPDATE transfers SET amount = amount + 100 WHERE id = (SELECT MAX(id) FROM transfers)", &[]).unwrap()
    });
    assert_eq!(forged, 1);
    let (f, _) = baccarat_server::migrate::verify_pg(&url, &anchors, None).unwrap();
    assert!(
        f.problems.iter().any(|p| p.contains("does not match its audit event") && p.contains("the record calls for")),
        "{:?}",
        f.problems
    );
    let t = since();
    assert!(t.problems.iter().any(|p| p.contains("account")), "the tail's balances no longer follow: {t:?}");
    let no_file = baccarat_server::verify::verify_since_checkpoint(&db, None, None);
    assert!(no_file.unwrap_err().to_string().contains("--anchor-file"));

    let missing = baccarat_server::migrate::verify_pg(&url, std::path::Path::new("/nonexistent.anchors"), None);
    assert!(missing.unwrap_err().to_string().contains("--anchor-file"));
}

/// Issue 45 finding 10: `verify` on a serving PostgreSQL casino read the
/// anchor file after taking its snapshot, so a line the server signed in
/// between (a head the snapshot does not hold) read as a cut: "its tail was
/// cut" in 3 of 5 runs. The anchor file is now read first; here the server
/// commits and signs a deposit after the snapshot is copied out and before
/// it is verified (the one moment the old order read the file), and no
/// alarm is raised. A real cut is still named: the casino's last record,
/// signed, then deleted.
#[test]
fn verify_on_a_serving_postgres_casino_reads_the_anchors_before_its_snapshot() {
    use super::checkpoint::{config, deposits, play, step};
    use baccarat_server::serve::open;
    let (_dir, mut cfg) = config("verify-live-pg");
    let url = database("verifylive");
    cfg.postgres = Some(url.clone());
    let mut o = open(&cfg).unwrap();
    deposits(&mut o);
    play(&mut o, 1, 0, false);
    let anchors = cfg.anchor_paths().0;
    for round in 0..3 {
        let serving = || {
            let key = format!("live{round}");
            let r = step(
                &mut o,
                Request::Deposit { player: PlayerId(100), amount: Money(5000), key: key.parse().unwrap() },
            );
            assert!(matches!(r, Reply::Deposit { .. }), "{r:?}");
        };
        let (f, _) = baccarat_server::migrate::verify_pg_with(&url, Some(&anchors), None, serving).unwrap();
        assert!(f.problems.is_empty(), "round {round}: a line signed after the snapshot is no cut: {:?}", f.problems);
    }
    // Signed and then removed: a cut, found as before.
    let pg = PgStore::connect(&url).unwrap();
    let cut = pg.with_client(|c| {
        c.execute("DELETE FROM audit WHERE tbl = 0 AND seq = (SELECT max(seq) FROM audit WHERE tbl = 0)", &[]).unwrap()
    });
    assert_eq!(cut, 1);
    let (f, _) = baccarat_server::migrate::verify_pg(&url, &anchors, None).unwrap();
    assert!(f.problems.iter().any(|p| p.contains("(its tail was cut)")), "{:?}", f.problems);
}
