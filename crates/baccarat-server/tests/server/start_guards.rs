//! What a start refuses, and that a refused start writes nothing (issue 45,
//! findings 8, 9, 12 and 13): a second server on one SQLite casino, a schema
//! newer than the binary, a missing or world-readable signing key; and a
//! refusal found by the anchor file or by recovery comes before the first
//! write.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use baccarat_core::store::{SqliteStore, SCHEMA_VERSION};
use baccarat_server::serve::{open, ServeConfig};

use super::checkpoint::{config, deposits, play};

/// Every row of every table in the file, and its schema version: what a
/// start that writes nothing leaves as it was. (The files' bytes are no
/// measure: closing the last connection folds the WAL into the file.)
fn contents(db: &Path) -> Vec<String> {
    let c = rusqlite::Connection::open(db).unwrap();
    let version: i64 = c.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
    let mut out = vec![format!("user_version {version}")];
    let mut q = c.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").unwrap();
    let names: Vec<String> = q.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect();
    for name in names {
        let mut q = c.prepare(&format!("SELECT * FROM \"{name}\"")).unwrap();
        let n = q.column_count();
        let mut rows: Vec<String> = q
            .query_map([], |r| {
                let cells: Vec<String> =
                    (0..n).map(|i| format!("{:?}", r.get::<_, rusqlite::types::Value>(i).unwrap())).collect();
                Ok(format!("{name}: {}", cells.join(" | ")))
            })
            .unwrap()
            .map(Result::unwrap)
            .collect();
        rows.sort();
        out.extend(rows);
    }
    out
}

/// A casino with money, a coup played and another's betting open (wagers
/// held: a start completes or voids it), stopped as by a crash.
fn casino(name: &str) -> (super::common::TempDir, ServeConfig) {
    let (dir, cfg) = config(name);
    let mut o = open(&cfg).unwrap();
    deposits(&mut o);
    play(&mut o, 2, 0, true);
    drop(o);
    (dir, cfg)
}

/// Finding 9: a systemd unit and a manual start (or an overlapping
/// restart) put two servers on one file; the second "recovered" the
/// first's live coups and both wrote. The second is refused now, naming
/// the first's PID and host, and writes nothing; `migrate --from` is
/// refused alike; once the first ends, its lock goes with it.
#[test]
fn two_servers_on_one_sqlite_file_the_second_is_refused_naming_the_first() {
    let (_dir, cfg) = casino("two-servers");
    let first = open(&cfg).unwrap();
    let before = contents(&cfg.db);
    let anchors = std::fs::read(cfg.anchor_paths().0).unwrap();
    let holder = format!("pid {} on host {}", std::process::id(), baccarat_cluster::lease::host_name());
    let err = open(&cfg).err().expect("the second start is refused").to_string();
    assert!(err.contains("another server holds this casino") && err.contains(&holder), "{err}");
    assert!(err.contains("casino.db.lock"), "names the lock file: {err}");
    let copy =
        baccarat_server::migrate::migrate(&cfg.db, "postgres://nobody@%2Fnonexistent/db").unwrap_err().to_string();
    assert!(copy.starts_with("--from ") && copy.contains(&holder), "{copy}");
    assert_eq!(contents(&cfg.db), before, "the refused start wrote nothing");
    assert_eq!(std::fs::read(cfg.anchor_paths().0).unwrap(), anchors, "nor to the anchor file");
    // The first ends (a process's end releases it the same way, `kill -9`
    // included: the CLI's kill_9_mid_coup_loses_nothing starts again after one).
    drop(first);
    assert!(open(&cfg).is_ok(), "the lock is free once its holder has gone");
}

/// Finding 9, by another name: a server started through a symlink to the
/// file meets the first's lock (the lock is named after the file's true
/// name); a hard link, which would be a second true name with a WAL of its
/// own, and a SQLite URI, which SQLite opens as the file it names, are
/// refused; and a symlink planted where the lock file goes is not followed
/// (the server would have truncated the file it points at).
#[test]
fn another_name_for_the_same_sqlite_file_meets_the_same_lock() {
    let (dir, cfg) = casino("other-names");
    let first = open(&cfg).unwrap();
    let before = contents(&cfg.db);
    let linked = ServeConfig { db: dir.join("linked.db"), ..cfg.clone() };
    std::os::unix::fs::symlink(&cfg.db, &linked.db).unwrap();
    let err = open(&linked).err().expect("a symlink's start is refused").to_string();
    assert!(err.contains("another server holds this casino"), "{err}");
    let uri = ServeConfig { db: format!("file:{}", cfg.db.display()).into(), ..cfg.clone() };
    let err = open(&uri).err().expect("a URI's start is refused").to_string();
    assert!(err.contains("a SQLite URI is not accepted"), "{err}");
    drop(first);
    let hard = ServeConfig { db: dir.join("hard.db"), ..cfg.clone() };
    std::fs::hard_link(&cfg.db, &hard.db).unwrap();
    for c in [&cfg, &hard] {
        let err = open(c).err().expect("a file with two hard links is refused").to_string();
        assert!(err.contains("2 hard links"), "{err}");
    }
    std::fs::remove_file(&hard.db).unwrap();
    assert_eq!(contents(&cfg.db), before, "the refused starts wrote nothing");
    // A symlink in the lock file's place, to a file the server must not touch.
    let victim = dir.join("victim.txt");
    std::fs::write(&victim, "keep me").unwrap();
    let lock = std::fs::canonicalize(&cfg.db).unwrap().with_extension("db.lock");
    std::fs::remove_file(&lock).unwrap();
    std::os::unix::fs::symlink(&victim, &lock).unwrap();
    let err = open(&cfg).err().expect("a symlinked lock file is refused").to_string();
    assert!(err.contains("lock file"), "{err}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
}

/// Finding 8, the tester's case: the signing key deleted and a table's
/// chain cut. The start is refused, and leaves the database (its key index
/// too), the anchor file and the key's place as they were: no key made, no
/// coup completed.
#[test]
fn a_start_refused_for_a_deleted_key_and_a_cut_chain_writes_nothing() {
    let (_dir, cfg) = casino("refused-key-cut");
    let c = rusqlite::Connection::open(&cfg.db).unwrap();
    baccarat_core::store::logs::unpack(&c).unwrap();
    let cut = c.execute("DELETE FROM audit WHERE tbl = 2 AND seq > (SELECT max(seq) - 3 FROM audit WHERE tbl = 2)", []);
    assert_eq!(cut.unwrap(), 3, "table 2's last three records cut");
    drop(c);
    let (anchor_path, key_path) = cfg.anchor_paths();
    std::fs::remove_file(&key_path).unwrap();
    let (before, anchors) = (contents(&cfg.db), std::fs::read(&anchor_path).unwrap());
    let err = open(&cfg).err().expect("refused").to_string();
    assert!(err.contains("casino.db.key: the signing key is missing"), "{err}");
    assert_eq!(contents(&cfg.db), before, "the refused start wrote nothing to the database");
    assert_eq!(std::fs::read(&anchor_path).unwrap(), anchors, "nor to the anchor file");
    assert!(!key_path.exists(), "no key made on the spot");
}

/// Finding 8, a refusal found by recovery: with the anchor file gone and
/// `--new-anchor-file`, a forged balance stops the start, which used to
/// have begun the new file already (its carry line), so that the next
/// start no longer found the file missing. Now nothing is begun, nor a new
/// key written when the key is gone too.
#[test]
fn a_start_refused_by_recovery_under_new_anchor_file_begins_no_anchor_file() {
    let (_dir, cfg) = casino("refused-recovery");
    let c = rusqlite::Connection::open(&cfg.db).unwrap();
    let moved =
        c.execute("UPDATE accounts SET balance = balance + 500000 WHERE id = (SELECT max(id) FROM accounts)", []);
    assert_eq!(moved.unwrap(), 1);
    drop(c);
    let anchor_path = cfg.anchor_paths().0;
    std::fs::remove_file(&anchor_path).unwrap();
    let before = contents(&cfg.db);
    let knowingly = ServeConfig { new_anchor_file: true, ..cfg.clone() };
    let err = open(&knowingly).err().expect("refused").to_string();
    assert!(err.contains("account"), "recovery names the account: {err}");
    assert!(!anchor_path.exists(), "no anchor file begun by a refused start");
    assert_eq!(contents(&cfg.db), before, "the refused start wrote nothing to the database");
    assert!(open(&cfg).err().expect("refused").to_string().contains("the anchor file is missing or empty"));
    // The key lost too: the new one is made in memory and written only at
    // the first write, so this refusal leaves no key file either.
    let key_path = cfg.anchor_paths().1;
    std::fs::remove_file(&key_path).unwrap();
    assert!(open(&knowingly).err().expect("refused").to_string().contains("account"));
    assert!(!key_path.exists() && !anchor_path.exists(), "no key file and no anchor file");
    assert_eq!(contents(&cfg.db), before);
}

/// Finding 12: a file whose `user_version` is 999 (a newer server migrated
/// it) was served. It is refused, as PostgreSQL refuses it, naming both
/// versions, and left as it was.
#[test]
fn a_sqlite_schema_newer_than_the_server_is_refused_naming_both_versions() {
    let (_dir, cfg) = casino("newer-schema");
    rusqlite::Connection::open(&cfg.db).unwrap().pragma_update(None, "user_version", 999).unwrap();
    let before = contents(&cfg.db);
    let want = format!("the database's schema is version 999, newer than this server's {SCHEMA_VERSION}");
    let err = open(&cfg).err().expect("refused").to_string();
    assert!(err.contains(&want), "{err}");
    let err = SqliteStore::open(&cfg.db).err().expect("refused").to_string();
    assert!(err.contains(&want), "{err}");
    assert_eq!(contents(&cfg.db), before, "left as it was");
}

/// Finding 13: a deleted key was made anew for a casino that exists, and
/// the start then failed on a key mismatch. It is refused now, naming the
/// file and what to do; only an operator who has lost the anchor file too
/// (moved aside) begins again with a new key, knowingly.
#[test]
fn a_deleted_signing_key_is_not_made_anew_for_a_casino_that_exists() {
    let (_dir, cfg) = casino("deleted-key");
    let (anchor_path, key_path) = cfg.anchor_paths();
    let old = baccarat_core::anchor::AnchorKey::load(&key_path).unwrap().public_hex();
    std::fs::remove_file(&key_path).unwrap();
    let err = open(&cfg).err().expect("refused").to_string();
    let named = format!("{}: the signing key is missing, but the database holds a casino", key_path.display());
    assert!(err.contains(&named) && err.contains("restore the key file"), "{err}");
    assert!(!err.contains("not the trusted key"), "no key mismatch: {err}");
    assert!(!key_path.exists(), "no key made");
    // With the anchor file still there, --new-anchor-file makes no key
    // either: the old file cannot be extended without the old key.
    let knowingly = ServeConfig { new_anchor_file: true, ..cfg.clone() };
    assert!(open(&knowingly).err().expect("refused").to_string().contains(&named));
    std::fs::rename(&anchor_path, anchor_path.with_extension("anchors.lost")).unwrap();
    let o = open(&knowingly).unwrap();
    assert_ne!(o.anchors.public_hex(), old, "a new key, made knowingly");
    drop(o);
    let (f, _) = baccarat_server::verify::verify_file(&cfg.db, None, None).unwrap();
    assert!(f.problems.is_empty(), "the new file and key verify: {:?}", f.problems);
}

/// Finding 13: a key file anyone could read was accepted without a word.
/// It is refused, naming the file and the `chmod` that fixes it.
#[test]
fn a_signing_key_readable_by_others_is_refused_naming_the_chmod() {
    let (_dir, cfg) = casino("open-key");
    let key_path = cfg.anchor_paths().1;
    assert_eq!(std::fs::metadata(&key_path).unwrap().permissions().mode() & 0o777, 0o600, "made private");
    std::fs::set_permissions(&key_path, std::fs::Permissions::from_mode(0o644)).unwrap();
    let before = contents(&cfg.db);
    let err = open(&cfg).err().expect("refused").to_string();
    assert!(err.contains(&format!("run `chmod 600 {}`", key_path.display())), "{err}");
    assert_eq!(contents(&cfg.db), before, "the refused start wrote nothing");
    std::fs::set_permissions(&key_path, std::fs::Permissions::from_mode(0o600)).unwrap();
    assert!(open(&cfg).is_ok());
}

/// The attack: a forger deletes (or swaps) the database and leaves the
/// anchor file. A first start used to make a new casino and sign its heads
/// after the old ones in the same file, so the next start and `verify` saw
/// an anchor file that had always signed this casino. It is refused now,
/// naming the file, and the file is left as it was.
#[test]
fn a_new_casino_is_not_begun_under_an_anchor_file_that_signs_another() {
    let (_dir, cfg) = casino("wiped");
    let anchors = std::fs::read(cfg.anchor_paths().0).unwrap();
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", cfg.db.display()));
    }
    let err = open(&cfg).err().expect("a first run under another casino's anchors is refused").to_string();
    assert!(err.contains("the anchor file signs a casino, but the database holds none"), "{err}");
    assert_eq!(std::fs::read(cfg.anchor_paths().0).unwrap(), anchors, "the anchor file is left as it was");
    // Moved aside, as the message says, a new casino begins.
    std::fs::rename(cfg.anchor_paths().0, cfg.db.with_extension("old-anchors")).unwrap();
    assert!(open(&cfg).is_ok(), "a new casino once the old file is moved aside");
}
