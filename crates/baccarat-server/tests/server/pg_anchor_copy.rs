//! The database's copy of the anchor lines (issue 51: a server's machine
//! lost with its anchor file). Each line the server writes reaches the
//! database with the next commit, a start copies what the copy lacks, and
//! `verify` reads the copy beside the file or, the file lost, alone; each
//! forgery of the copy, and a file put back older than its copy, is named.

use baccarat_casino::casino::{Reply, Request};
use baccarat_cluster::pg_store::PgStore;
use baccarat_rules::Money;
use baccarat_server::migrate::{verify_pg, verify_pg_from_copy};
use baccarat_server::serve::open;
use baccarat_table::PlayerId;

use super::checkpoint::{config, deposits, play, step};
use super::pg::database;

/// The database's copy, line by line.
fn copied(url: &str) -> Vec<(i64, String)> {
    let pg = PgStore::connect(url).unwrap();
    pg.with_client(|c| {
        let rows = c.query("SELECT seq, line FROM anchor_lines ORDER BY seq", &[]).unwrap();
        rows.iter().map(|r| (r.get(0), r.get(1))).collect()
    })
}

/// The anchor file, line by line, numbered.
fn in_file(path: &std::path::Path) -> Vec<(i64, String)> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines().enumerate().map(|(i, l)| (i as i64 + 1, l.to_string())).collect()
}

fn sql(url: &str, statement: &str) -> u64 {
    PgStore::connect(url).unwrap().with_client(|c| c.execute(statement, &[]).unwrap())
}

/// Served on PostgreSQL: every line of the file but the last is in the
/// database, byte for byte (the last waits for the next commit), and a
/// start copies it; `verify` with the file and the copy is clean, and
/// with the copy alone is clean and says what the copy cannot prove.
#[test]
fn every_anchor_line_reaches_the_database_and_verify_reads_it() {
    let (_dir, mut cfg) = config("anchor-copy");
    let url = database("anchorcopy");
    cfg.postgres = Some(url.clone());
    let mut o = open(&cfg).unwrap();
    deposits(&mut o);
    play(&mut o, 2, 0, false);
    let path = cfg.anchor_paths().0;
    let (file, copy) = (in_file(&path), copied(&url));
    assert!(file.len() > 20, "a line per batch: {}", file.len());
    assert_eq!(copy.len() + 1, file.len(), "all but the last line, which waits for the next commit");
    assert!(copy == file[..file.len() - 1]);
    let r = step(&mut o, Request::Deposit { player: PlayerId(100), amount: Money(500), key: "more".parse().unwrap() });
    assert!(matches!(r, Reply::Deposit { .. }), "{r:?}");
    let now = copied(&url);
    assert_eq!(now.len(), file.len(), "the next commit carried it");
    assert!(now == file);
    drop(o);
    // A crash leaves the last line in the file alone: the next start copies it.
    let before = in_file(&path);
    assert_eq!(copied(&url).len() + 1, before.len());
    let o = open(&cfg).unwrap();
    // (The start's own line waits, unless its checkpoint's seal carried it.)
    let (copy, file) = (copied(&url), in_file(&path));
    assert!(copy.len() >= before.len() && copy.len() + 1 >= file.len(), "{} of {}", copy.len(), file.len());
    assert!(copy == file[..copy.len()]);
    drop(o);

    let (f, key) = verify_pg(&url, &path, None).unwrap();
    assert!(f.problems.is_empty(), "{:?}", f.problems);
    assert!(f.unanchored.is_empty(), "{:?}", f.unanchored);
    let public = key.unwrap();
    let (f, key) = verify_pg_from_copy(&url, Some(&public)).unwrap();
    assert!(f.problems.is_empty(), "{:?}", f.problems);
    assert_eq!(key.as_deref(), Some(public.as_str()));
    assert!(
        f.notes.iter().any(|n| n.contains("no anchor file was given") && n.contains("cannot show")),
        "{:?}",
        f.notes
    );
    // The file lost with its machine: a cut is still found by the copy.
    sql(&url, "DELETE FROM audit WHERE tbl = 0 AND seq = (SELECT max(seq) FROM audit WHERE tbl = 0)");
    let (f, _) = verify_pg_from_copy(&url, Some(&public)).unwrap();
    assert!(f.problems.iter().any(|p| p.contains("(its tail was cut)")), "{:?}", f.problems);
}

/// `verify --since-checkpoint` on PostgreSQL reads the database's copy of
/// the anchor lines beside the file (their comparison noted), or alone
/// under the casino's published key; without the file and the key it is
/// refused, as is a file named and missing; a tail cut below the anchored
/// heads is found from the copy alone.
#[test]
fn since_the_checkpoint_reads_the_copy_beside_the_file_or_alone() {
    use baccarat_server::verify::{verify_since_checkpoint, VerifyError};
    let (_dir, mut cfg) = config("anchor-copy-since");
    let url = database("anchorcopysince");
    cfg.postgres = Some(url.clone());
    let mut o = open(&cfg).unwrap();
    deposits(&mut o);
    play(&mut o, 2, 0, false);
    drop(o);
    // A start writes a checkpoint; play after it leaves a tail to check.
    let mut o = open(&cfg).unwrap();
    play(&mut o, 1, 0, false);
    drop(o);
    let (path, db) = (cfg.anchor_paths().0, baccarat_core::store::Db::Postgres(url.clone()));
    let with_file = verify_since_checkpoint(&db, Some(&path), None).unwrap();
    assert!(with_file.problems.is_empty(), "{:?}", with_file.problems);
    assert!(with_file.tail_records > 0, "{with_file:?}");
    // The last line waits in the file for the next commit: the copy ends one before.
    assert!(with_file.notes.iter().any(|n| n.contains("the anchor file at line")), "{:?}", with_file.notes);
    let public = with_file.public.clone();
    let alone = verify_since_checkpoint(&db, None, Some(&public)).unwrap();
    assert!(alone.problems.is_empty(), "{:?}", alone.problems);
    assert_eq!((alone.checkpoint, alone.tail_records), (with_file.checkpoint, with_file.tail_records));
    assert!(alone.notes.iter().any(|n| n.contains("no anchor file was given")), "{:?}", alone.notes);
    let unpinned = verify_since_checkpoint(&db, None, None).unwrap_err();
    assert!(matches!(unpinned, VerifyError::CopyUnpinned), "{unpinned}");
    assert!(unpinned.to_string().contains("--anchor-file: required") && unpinned.to_string().contains("--anchor-key"));
    let gone = path.with_extension("gone");
    let missing = verify_since_checkpoint(&db, Some(&gone), None).unwrap_err().to_string();
    assert!(missing.contains("gone"), "{missing}");
    // A forger at the database cuts the casino's chain below its anchored head.
    sql(&url, "DELETE FROM audit WHERE tbl = 0 AND seq > (SELECT max(seq) - 4 FROM audit WHERE tbl = 0)");
    let cut = verify_since_checkpoint(&db, None, Some(&public)).unwrap();
    assert!(!cut.problems.is_empty(), "{cut:?}");
}

/// A forger at the database: a line of the copy altered, or lines signed by
/// another key, is named; a copy that reaches further than the file (the
/// file put back older) is noted by `verify` and gives the file its lines
/// back at a start, unless they do not continue it; with neither file nor
/// copy, `verify` asks for the file.
#[test]
fn a_forged_copy_and_a_file_older_than_its_copy_are_named() {
    let (dir, mut cfg) = config("anchor-copy-forged");
    let url = database("anchorforged");
    cfg.postgres = Some(url.clone());
    let mut o = open(&cfg).unwrap();
    deposits(&mut o);
    let path = cfg.anchor_paths().0;
    let older = std::fs::read(&path).unwrap();
    let older_lines = in_file(&path).len();
    play(&mut o, 1, 0, false);
    let public = o.anchors.public_hex();
    drop(o);
    let n = copied(&url).len();

    // An older copy of the file put in its place (or a backup that copied
    // the file before the database): `verify` checks the copy's heads and
    // says so; a start writes the copy's lines back to the file, byte for
    // byte.
    let newer = std::fs::read(&path).unwrap();
    std::fs::write(&path, &older).unwrap();
    let (f, _) = verify_pg(&url, &path, None).unwrap();
    assert!(f.problems.is_empty(), "{:?}", f.problems);
    assert!(f.notes.iter().any(|p| p.contains(&format!("reaches line {n}"))), "{:?}", f.notes);
    drop(open(&cfg).unwrap());
    // (The newer file's last line never reached the database: it was lost
    // with it.)
    let newer_lines: Vec<String> = String::from_utf8(newer.clone()).unwrap().lines().map(String::from).collect();
    let back: Vec<(i64, String)> = in_file(&path).into_iter().take(n).collect();
    assert!(back.iter().map(|l| &l.1).eq(newer_lines[..n].iter()), "written back, byte for byte");
    // A copy whose lines past the file do not continue it is refused.
    let grown = std::fs::read(&path).unwrap();
    std::fs::write(&path, &older).unwrap();
    let line = copied(&url)[older_lines].1.clone();
    let bent = line.replacen("\"len\":", "\"len\":9", 1);
    sql(&url, &format!("UPDATE anchor_lines SET line = '{bent}' WHERE seq = {}", older_lines + 1));
    let refused = open(&cfg).err().expect("a copy that does not continue the file").to_string();
    assert!(refused.contains("do not continue it"), "{refused}");
    sql(&url, &format!("UPDATE anchor_lines SET line = '{line}' WHERE seq = {}", older_lines + 1));
    std::fs::write(&path, &grown).unwrap();
    let (f, _) = verify_pg(&url, &path, None).unwrap();
    assert!(f.problems.is_empty(), "put back: {:?}", f.problems);

    // A line of the copy altered: its signature no longer holds.
    let line = copied(&url)[4].1.clone();
    let forged = line.replacen("\"len\":", "\"len\":9", 1);
    assert_ne!(forged, line);
    PgStore::connect(&url).unwrap().with_client(|c| {
        c.execute("UPDATE anchor_lines SET line = $1 WHERE seq = 5", &[&forged]).unwrap();
    });
    for (f, _) in [verify_pg(&url, &path, None).unwrap(), verify_pg_from_copy(&url, Some(&public)).unwrap()] {
        assert!(
            f.problems.iter().any(|p| p.contains("the database's copy of the anchor lines") && p.contains("line 5")),
            "{:?}",
            f.problems
        );
    }
    PgStore::connect(&url).unwrap().with_client(|c| {
        c.execute("UPDATE anchor_lines SET line = $1 WHERE seq = 5", &[&line]).unwrap();
    });

    // Lines signed by another key: not the key pinned, nor the file's.
    let other = baccarat_core::anchor::AnchorKey::load_or_create(&dir.join("other.key")).unwrap();
    let mut forger = baccarat_core::anchor::AnchorLog::open(&dir.join("forged.anchors"), other).unwrap();
    for seq in 1..=n as u64 {
        forger
            .append(&[baccarat_core::anchor::Head { table: baccarat_core::TableId(0), len: seq, head: "0".repeat(64) }])
            .unwrap();
    }
    drop(forger);
    sql(&url, "DELETE FROM anchor_lines");
    let forged_lines = in_file(&dir.join("forged.anchors"));
    PgStore::connect(&url).unwrap().with_client(|c| {
        for (seq, line) in &forged_lines {
            c.execute("INSERT INTO anchor_lines (seq, line) VALUES ($1, $2)", &[seq, line]).unwrap();
        }
    });
    let (f, _) = verify_pg(&url, &path, None).unwrap();
    assert!(f.problems.iter().any(|p| p.contains("not the trusted key")), "the file's key: {:?}", f.problems);
    let (f, _) = verify_pg_from_copy(&url, Some(&public)).unwrap();
    assert!(f.problems.iter().any(|p| p.contains("not the trusted key")), "the pinned key: {:?}", f.problems);

    // The copy alone is read only under the key the casino published.
    let unpinned = verify_pg_from_copy(&url, None).unwrap_err().to_string();
    assert!(unpinned.contains("--anchor-key: required without --anchor-file"), "{unpinned}");
    // Neither file nor copy.
    sql(&url, "DELETE FROM anchor_lines");
    let missing = verify_pg_from_copy(&url, Some(&public)).unwrap_err().to_string();
    assert!(missing.contains("--anchor-file: required"), "{missing}");
}

/// The anchor file lost for good: `--new-anchor-file` begins a new one,
/// numbered from 1 again, so the old file's copy is kept aside in a table
/// of its own (evidence is never deleted), and the new copy follows the new
/// file; but first the chains are checked against the copy, so a cut made
/// before the file was deleted is refused, not signed anew.
#[test]
fn a_new_anchor_file_keeps_the_old_copy_aside() {
    let (_dir, mut cfg) = config("anchor-copy-new");
    let url = database("anchornew");
    cfg.postgres = Some(url.clone());
    let mut o = open(&cfg).unwrap();
    deposits(&mut o);
    drop(o);
    let old = copied(&url);
    let path = cfg.anchor_paths().0;
    std::fs::remove_file(&path).unwrap();
    cfg.new_anchor_file = true;
    drop(open(&cfg).unwrap());
    let kept = PgStore::connect(&url).unwrap().with_client(|c| {
        let names =
            c.query("SELECT tablename::text FROM pg_tables WHERE tablename LIKE 'anchor_lines_until_%'", &[]).unwrap();
        assert_eq!(names.len(), 1, "one copy kept aside");
        let name: String = names[0].get(0);
        let rows = c.query(&format!("SELECT seq, line FROM {name} ORDER BY seq"), &[]).unwrap();
        rows.iter().map(|r| (r.get::<_, i64>(0), r.get::<_, String>(1))).collect::<Vec<_>>()
    });
    assert!(kept == old, "kept as it was: {} lines of {}", kept.len(), old.len());
    let (copy, file) = (copied(&url), in_file(&path));
    assert_eq!(copy.first().map(|l| l.0), Some(1));
    assert!(copy.len() + 1 >= file.len() && copy == file[..copy.len()], "{} of {}", copy.len(), file.len());
    let (f, _) = verify_pg(&url, &path, None).unwrap();
    assert!(f.problems.is_empty(), "{:?}", f.problems);

    // A forger cuts the casino's chain and deletes the file: the new file
    // would sign the cut, but the chains are first checked against the
    // copy, which finds it.
    cfg.new_anchor_file = false;
    let mut o = open(&cfg).unwrap();
    deposits(&mut o);
    drop(o);
    std::fs::remove_file(&path).unwrap();
    cfg.new_anchor_file = true;
    let cut = sql(&url, "DELETE FROM audit WHERE tbl = 0 AND seq > (SELECT max(seq) - 3 FROM audit WHERE tbl = 0)");
    assert_eq!(cut, 3);
    let refused = open(&cfg).err().expect("a cut found by the copy").to_string();
    assert!(refused.contains("the casino's chain") && refused.contains("cut"), "{refused}");
}

/// A server that lost its lease copies no anchor line: the lines ride in
/// the fenced transaction, so the stale owner's batch is refused whole, its
/// lines stay in its outbox, and the database's copy is the new owner's.
#[test]
fn a_stale_owner_copies_no_anchor_line() {
    use baccarat_core::anchor::{AnchorKey, AnchorLog, Head, Outbox};
    use baccarat_core::audit::Record;
    use baccarat_core::store::{Commit, Store, StoreError};
    use baccarat_core::TableId;
    let dir = super::common::TempDir::new(&format!("baccarat-anchor-stale-{}", std::process::id()));
    let url = database("anchorstale");
    let (mut a, mut b) = (PgStore::connect(&url).unwrap(), PgStore::connect(&url).unwrap());
    a.acquire(TableId(1), "server-a", 60_000).unwrap().expect("granted");
    let outbox = Outbox::default();
    a.copy_anchors_from(outbox.clone());
    let mut log =
        AnchorLog::open(&dir.join("a.anchors"), AnchorKey::load_or_create(&dir.join("a.key")).unwrap()).unwrap();
    log.copy_to(outbox.clone());
    let record = |seq: u64| {
        let mut c = Commit::default();
        c.records
            .push((TableId(1), Record { seq, prev: "p".into(), body: format!("r{seq}"), hash: format!("{seq:064x}") }));
        c
    };
    let head = |n: u64| [Head { table: TableId(1), len: n, head: format!("{n:064x}") }];
    a.commit(&record(1)).unwrap();
    log.append(&head(1)).unwrap();
    assert_eq!(outbox.len(), 1);
    // While it holds the lease, its next commit carries the line.
    a.commit(&record(2)).unwrap();
    let first = copied(&url);
    assert_eq!((first.len(), outbox.len()), (1, 0), "the line went in with the next commit");
    log.append(&head(2)).unwrap();
    // server-a's lease runs out and server-b takes the table.
    a.with_client(|c| c.execute("UPDATE leases SET expires_at = now() - interval '1 second'", &[]).unwrap());
    b.acquire(TableId(1), "server-b", 60_000).unwrap().expect("an expired lease is taken");
    let err = a.commit(&record(3)).unwrap_err();
    assert!(matches!(err, StoreError::Fenced(_)), "{err}");
    assert_eq!(copied(&url), first, "the stale owner's line is not in the database");
    assert_eq!(outbox.len(), 1, "it waits in the outbox, put back");
}
