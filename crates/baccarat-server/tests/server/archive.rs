//! Archives: history moved out of the live database into write-once files is
//! still verified, recalled and replayed exactly; a file altered, replaced or
//! lost is named; nothing is archived that a start or a retry may need.

use baccarat_core::TableId;
use std::sync::atomic::Ordering;

use baccarat_casino::casino::{recover, Keys};
use baccarat_core::store::archive::archive;
use baccarat_core::store::{read_records, SqliteStore};
use baccarat_server::serve::{open, write_checkpoint};
use baccarat_server::verify::verify_file;

use super::checkpoint::{clocked, deposits, fingerprint, play, same};

const DAY: u64 = 86_400_000;
const T0: u64 = 1_790_000_000_000;

fn without_keys(mut v: serde_json::Value) -> serde_json::Value {
    v.as_object_mut().unwrap().remove("keys");
    v
}

fn count(db: &std::path::Path, table: &str) -> i64 {
    let c = rusqlite::Connection::open(db).unwrap();
    let rows: i64 = c.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0)).unwrap();
    // The logs' blocks (`store/blocks.rs`) count for the records or
    // transfers they hold.
    let packed = match table {
        "audit" => "SELECT COALESCE(SUM(last - first + 1), 0) FROM audit_blocks",
        "transfers" => "SELECT COALESCE(SUM(last - first + 1), 0) FROM transfer_blocks",
        _ => return rows,
    };
    rows + c.query_row(packed, [], |r| r.get::<_, i64>(0)).unwrap()
}

/// `verify` finds the history it found before archiving, clean, and the
/// recall of every chain reads the same records.
fn same_history(
    db: &std::path::Path,
    before: &baccarat_server::verify::Findings,
    recalled: &[Vec<baccarat_core::audit::Record>],
) {
    let (after, _) = verify_file(db, None, None).unwrap();
    assert!(after.problems.is_empty(), "{:?}", after.problems);
    assert_eq!(
        (after.records, after.transfers, after.answers, after.coups, after.settlements),
        (before.records, before.transfers, before.answers, before.coups, before.settlements)
    );
    let again: Vec<_> = [0, 1, 2, 4].map(TableId).iter().map(|&t| read_records(db, t, 1).unwrap()).collect();
    assert_eq!(again, recalled);
}

#[test]
fn archived_history_is_verified_recalled_and_replayed_as_before() {
    let (_dir, now, cfg) = clocked("archive", T0);
    let db = cfg.db.clone();
    let dir = db.parent().unwrap().join("archive");
    let mut o = open(&cfg).unwrap();
    // Nothing to cut at before the first checkpoint.
    let e = archive(&db, &dir, T0 + DAY, T0 + DAY, 3_600_000).unwrap_err().to_string();
    assert!(e.contains("no checkpoint"), "{e}");
    deposits(&mut o);
    play(&mut o, 4, 0, false);
    write_checkpoint(&mut o.store, &o.anchors, &o.casino, &o.feed).unwrap();
    // A month on: more play, and a table left in betting with wagers held.
    now.store(T0 + 30 * DAY, Ordering::SeqCst);
    play(&mut o, 2, 1, false);
    play(&mut o, 1, 2, true);
    write_checkpoint(&mut o.store, &o.anchors, &o.casino, &o.feed).unwrap();
    let live = without_keys(fingerprint(&o.casino, &o.feed));
    let (before, _) = verify_file(&db, None, None).unwrap();
    assert!(before.problems.is_empty(), "{:?}", before.problems);
    let recalled: Vec<_> = [0, 1, 2, 4].map(TableId).iter().map(|&t| read_records(&db, t, 1).unwrap()).collect();
    let (records, transfers, answers) = (count(&db, "audit"), count(&db, "transfers"), count(&db, "answer_log"));

    // Archive what is older than ten days: September, cut at its checkpoint.
    let months = archive(&db, &dir, T0 + 20 * DAY, T0 + 30 * DAY, 72 * 3_600_000).unwrap();
    assert_eq!(months.len(), 1, "{months:?}");
    let r = &months[0];
    assert_eq!(r.month, "2026-09");
    assert!(r.file.ends_with("baccarat-archive-2026-09.db"), "{}", r.file.display());
    assert!(r.records > 0 && r.transfers > 0 && r.answers > 0, "{r:?}");
    assert_eq!(r.cut_at_ms, T0);
    assert!(std::fs::metadata(&r.file).unwrap().permissions().readonly(), "written once");
    assert_eq!(count(&db, "audit"), records - r.records as i64, "the records left the live file");
    assert_eq!(count(&db, "transfers"), transfers - r.transfers as i64);
    assert_eq!(count(&db, "answer_log"), answers - r.answers as i64);
    // A table's cut names the hash its live records go on from.
    let cut = &r.cut.chains[&TableId(1)];
    let next = read_records(&db, TableId(1), cut.to + 1).unwrap();
    assert_eq!(next.first().map(|x| x.prev.clone()), Some(cut.head.clone()));

    // verify reads the archive with the live rows, and an inspector's
    // recall reads archived records: the same history as before.
    same_history(&db, &before, &recalled);
    // A start reads the latest checkpoint; a full replay reads the archive.
    drop(o);
    let started = open(&cfg).unwrap();
    assert!(started.recovery.from_checkpoint);
    // (A start holds only the last minutes' keys: the rest are on disk.)
    same(&without_keys(fingerprint(&started.casino, &started.feed)), &live, "a start after archiving");
    drop(started);
    let store = SqliteStore::open(&db).unwrap();
    let full = recover(&store, None, Keys::Since(0), &Default::default()).unwrap();
    same(&without_keys(fingerprint(&full.casino, &full.feed)), &live, "the whole history, archive first");
    drop(store);

    // Nothing new before that date: refused, naming why.
    let e = archive(&db, &dir, T0 + 20 * DAY, T0 + 30 * DAY, 72 * 3_600_000).unwrap_err().to_string();
    assert!(e.contains("nothing to archive"), "{e}");

    // A replaced archive is named by its hash; a lost one by its name.
    let mut perms = std::fs::metadata(&r.file).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    perms.set_readonly(false);
    std::fs::set_permissions(&r.file, perms).unwrap();
    let original = std::fs::read(&r.file).unwrap();
    let mut altered = original.clone();
    let last = altered.len() - 1;
    altered[last] ^= 1;
    std::fs::write(&r.file, &altered).unwrap();
    let (f, _) = verify_file(&db, None, None).unwrap();
    assert!(f.problems.iter().any(|p| p.contains("SHA-256") && p.contains("altered")), "{:?}", f.problems);
    std::fs::remove_file(&r.file).unwrap();
    let (f, _) = verify_file(&db, None, None).unwrap();
    assert!(f.problems.iter().any(|p| p.contains("missing") || p.contains("cannot be read")), "{:?}", f.problems);
    let e = read_records(&db, TableId(1), 1).unwrap_err().to_string();
    assert!(e.contains("missing"), "{e}");
}

/// A database upgraded from before marks were kept gets one for each
/// checkpoint it holds, so it can be archived at once.
#[test]
fn an_upgraded_database_gets_marks_for_its_checkpoints() {
    let (_dir, _now, cfg) = clocked("archive-upgraded", T0);
    let db = cfg.db.clone();
    let mut o = open(&cfg).unwrap();
    deposits(&mut o);
    play(&mut o, 2, 0, false);
    write_checkpoint(&mut o.store, &o.anchors, &o.casino, &o.feed).unwrap();
    drop(o);
    // As a database written before migration 11: no marks, schema 10, and
    // (before migration 12) each checkpoint's body whole in its row.
    {
        let c = rusqlite::Connection::open(&db).unwrap();
        let parts: i64 = c.query_row("SELECT MAX(n) + 1 FROM checkpoint_parts", [], |r| r.get(0)).unwrap();
        assert_eq!(parts, 1, "a small checkpoint is one part");
        // (and, before migration 13, the logs a row per record and per transfer)
        baccarat_core::store::logs::unpack(&c).unwrap();
        c.execute_batch(
            "DROP TABLE audit_blocks; DROP TABLE transfer_blocks;
             UPDATE checkpoints SET body = (SELECT data FROM checkpoint_parts WHERE checkpoint = checkpoints.id);
             DROP TABLE checkpoint_parts; ALTER TABLE checkpoints DROP COLUMN complete;
             DROP TABLE marks; DROP TABLE archives;
             DROP TABLE key_runs; DROP TABLE key_parts; DROP TABLE key_index;
             CREATE INDEX answer_log_key_id ON answer_log (key_id); ALTER TABLE users DROP COLUMN disabled;
             PRAGMA user_version = 10;",
        )
        .unwrap();
    }
    drop(SqliteStore::open(&db).unwrap());
    assert_eq!(count(&db, "marks"), 1, "the checkpoint's mark is back");
    let r = archive(&db, &db.parent().unwrap().join("archive"), T0 + 15 * DAY, T0 + 30 * DAY, 3_600_000).unwrap();
    let r = &r[0];
    assert_eq!(r.cut_at_ms, T0);
    assert!(r.records > 0);
    let (f, _) = verify_file(&db, None, None).unwrap();
    assert!(f.problems.is_empty(), "{:?}", f.problems);
}

/// History over four months is archived as one file per whole month, each cut
/// at the month's last checkpoint and going on where the one before stopped;
/// the month still under way stays live, and later runs add the months that
/// have ended since.
#[test]
fn each_whole_month_is_one_archive_cut_at_its_last_checkpoint() {
    let (_dir, now, cfg) = clocked("archive-months", T0);
    let db = cfg.db.clone();
    let dir = db.parent().unwrap().join("archive");
    let mut o = open(&cfg).unwrap();
    deposits(&mut o);
    // Checkpoints on 21 September; 3 and 11 October; 5 November; 5 December.
    let days = [0, 12, 20, 45, 75];
    for (round, &d) in days.iter().enumerate() {
        now.store(T0 + d * DAY, Ordering::SeqCst);
        play(&mut o, 2, round, false);
        write_checkpoint(&mut o.store, &o.anchors, &o.casino, &o.feed).unwrap();
    }
    let live = without_keys(fingerprint(&o.casino, &o.feed));
    let (before, _) = verify_file(&db, None, None).unwrap();
    assert!(before.problems.is_empty(), "{:?}", before.problems);
    let recalled: Vec<_> = [0, 1, 2, 4].map(TableId).iter().map(|&t| read_records(&db, t, 1).unwrap()).collect();

    // On 10 December, with nothing newer than five days archived: September,
    // October and November, and December stays live.
    let at = T0 + 80 * DAY;
    let months = archive(&db, &dir, at - 5 * DAY, at, 3_600_000).unwrap();
    let names: Vec<_> = months.iter().map(|r| r.month.as_str()).collect();
    assert_eq!(names, ["2026-09", "2026-10", "2026-11"]);
    let cuts: Vec<_> = months.iter().map(|r| r.cut_at_ms).collect();
    assert_eq!(cuts, [T0, T0 + 20 * DAY, T0 + 45 * DAY], "each month at its last checkpoint");
    for (r, name) in months.iter().zip(["2026-09", "2026-10", "2026-11"]) {
        assert!(r.file.ends_with(format!("baccarat-archive-{name}.db")), "{}", r.file.display());
        assert!(r.records > 0 && r.transfers > 0, "{r:?}");
    }
    // Each month goes on where the one before stopped, chain by chain and
    // transfer by transfer.
    for w in months.windows(2) {
        assert_eq!(w[0].cut.transfers.1, w[1].cut.transfers.0);
        for (t, c) in &w[1].cut.chains {
            assert_eq!(w[0].cut.chains.get(t).map_or(0, |p| p.to), c.from, "chain {t}");
        }
    }
    let kept = read_records(&db, TableId(1), months[2].cut.chains[&TableId(1)].to + 1).unwrap();
    assert!(!kept.is_empty(), "December's records stay live");
    assert_eq!(kept[0].prev, months[2].cut.chains[&TableId(1)].head);

    same_history(&db, &before, &recalled);

    // Again the same day: nothing; the month under way is never cut.
    let e = archive(&db, &dir, at - 5 * DAY, at, 3_600_000).unwrap_err().to_string();
    assert!(e.contains("nothing to archive") && e.contains("2026-12"), "{e}");
    // In February, December has ended: its own file.
    let feb = T0 + 140 * DAY;
    let next = archive(&db, &dir, feb - 5 * DAY, feb, 3_600_000).unwrap();
    assert_eq!(next.iter().map(|r| r.month.as_str()).collect::<Vec<_>>(), ["2026-12"]);
    assert_eq!(next[0].cut_at_ms, T0 + 75 * DAY);
    let (f, _) = verify_file(&db, None, None).unwrap();
    assert!(f.problems.is_empty(), "{:?}", f.problems);
    assert_eq!((f.records, f.transfers, f.coups), (before.records, before.transfers, before.coups));
    // A full replay reads the four files, then the live rows.
    drop(o);
    let store = SqliteStore::open(&db).unwrap();
    let full = recover(&store, None, Keys::Since(0), &Default::default()).unwrap();
    same(&without_keys(fingerprint(&full.casino, &full.feed)), &live, "the whole history, four months first");
}

/// A leftover file under a month's name (an interrupted run, or a copy put
/// back) is never overwritten: the run is refused, naming it.
#[test]
fn a_months_file_is_written_once() {
    let (_dir, _now, cfg) = clocked("archive-once", T0);
    let db = cfg.db.clone();
    let dir = db.parent().unwrap().join("archive");
    let mut o = open(&cfg).unwrap();
    deposits(&mut o);
    play(&mut o, 1, 0, false);
    write_checkpoint(&mut o.store, &o.anchors, &o.casino, &o.feed).unwrap();
    drop(o);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("baccarat-archive-2026-09.db"), b"left over").unwrap();
    let e = archive(&db, &dir, T0 + 15 * DAY, T0 + 15 * DAY, 3_600_000).unwrap_err().to_string();
    assert!(e.contains("baccarat-archive-2026-09.db") && e.contains("written once"), "{e}");
    assert_eq!(std::fs::read(dir.join("baccarat-archive-2026-09.db")).unwrap(), b"left over");
    assert_eq!(count(&db, "archives"), 0, "nothing registered");
}
