//! Archives: old history moved out of the live database into write-once files,
//! still read by `verify`, by an inspector's recall and by a full replay.
//!
//! # Design
//!
//! A year of a busy floor is billions of rows; the live database needs only
//! what is live (`checkpoint.rs`). `baccarat archive` moves every whole UTC
//! month older than a date into a SQLite file of that month's own
//! (`baccarat-archive-YYYY-MM.db`: the same `audit`, `transfers` and
//! `answer_log` tables, a subset of the rows), then deletes those rows from
//! the live file.
//!
//! * **One file per month, every table in it.** A regulator's retention, and
//!   an inspector's request, are by period; so are the files, and a month's
//!   file can be copied to cold storage or, after the retention period,
//!   destroyed on its own. They are not also split by table: a month's
//!   transfers move money between players' wallets and every table's escrow,
//!   so its ledger and its chains are verified together. Each file's cut
//!   names the chains it holds, so a reader of one table's history still
//!   skips nothing it needs.
//! * **Where to cut.** Each checkpoint also writes a *mark*: its time, the
//!   last transfer it covers and every chain's length. A month is cut at its
//!   last mark, and its file holds what came after the previous month's cut: each chain up to its length there,
//!   the transfers up to the mark's, and the idempotency answers given by the
//!   mark's time and before the keys' retention window (a key inside the
//!   window may still be retried). Recovery starts from the latest checkpoint, which is
//!   at or after every mark, so a start never needs an archive; a full replay
//!   (a refused checkpoint) reads them.
//! * **Write-once, and chained.** The file is written, fsynced, hashed
//!   (SHA-256) and made read-only, then registered in the live database's
//!   `archives` table with its hash and its cut: for each chain the range it
//!   holds and the hash of its last record, which the live chain's next record
//!   names as `prev`. `verify` checks each file's hash, and the chains, the
//!   anchors and the ledger over archives and live rows together: a forged
//!   archive breaks a chain's links or an anchor, a lost one is named.
//! * **Crash-safe.** The rows are deleted from the live file after the archive
//!   is registered, in small transactions (a serving writer waits at most one
//!   of them). Until then a row is in both places: readers carry their
//!   position from one file to the next, so each row is read once. A rerun
//!   finishes an interrupted deletion first.
//! * **Reading.** [`open_archives`] opens every registered file read-only;
//!   `store/scan.rs` and the store's history readers page through the archives, in
//!   order, then the live file ([`each_paged`]). SQLite's `ATTACH` would have
//!   done this in SQL, but a connection attaches at most ten files, and a
//!   year of monthly archives is more.
//!
//! Deleted pages are reused by the live file; it does not shrink unless
//! vacuumed (offline: `sqlite3 DB VACUUM`).

use crate::ids::TableId;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use rusqlite::{params, Connection, OptionalExtension, ToSql};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use baccarat_table::hex;

use crate::civil;
use crate::store::{logs, StoreError, PAGE};

/// Why [`archive`] moved nothing more: each names the file, the month or
/// the chain, as `baccarat archive` prints it. Months moved before the
/// failure stay moved (each is its own transaction).
#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    /// The live database at `db` could not be opened.
    #[error("{}: {source}", .db.display())]
    Open { db: PathBuf, source: StoreError },
    /// The live database could not be read or written.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A statement on the live database failed.
    #[error(transparent)]
    Sql(#[from] rusqlite::Error),
    /// A file could not be read or made read-only.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// No month can be cut yet (`month`: the first not to archive).
    #[error(
        "no checkpoint was taken before {month} (archives hold whole UTC months, and a month is cut at its last \
         checkpoint; a server takes one every shoe or so, and when it stops): nothing can be archived yet"
    )]
    NoCheckpoint { month: String },
    /// Every whole month before `month` is archived already.
    #[error("nothing to archive: the archives already hold every whole month before {month}")]
    Nothing { month: String },
    /// The archives' folder could not be made.
    #[error("{}: {source}", .dir.display())]
    Dir { dir: PathBuf, source: std::io::Error },
    /// A month's file exists but is not registered (written once).
    #[error(
        "{} exists but is not registered in {}: archives are written once (move it aside if it is a \
         leftover of an interrupted run)",
        .file.display(),
        .db.display()
    )]
    Exists { file: PathBuf, db: PathBuf },
    /// A month's file could not be written.
    #[error("{}: {source}", .file.display())]
    Write { file: PathBuf, source: StoreError },
    /// A month's file could not be read back for its digest.
    #[error("{}: {source}", .file.display())]
    Digest { file: PathBuf, source: std::io::Error },
    /// A checkpoint names a record its chain does not hold.
    #[error("chain {table} has no record {len}, which a checkpoint names")]
    NoRecord { table: TableId, len: u64 },
}

/// Where a checkpoint stood: written beside each checkpoint, kept after the
/// checkpoint itself is superseded.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mark {
    pub at_ms: u64,
    pub last_transfer: u64,
    /// Each chain's length (the casino's own chain is 0).
    pub heads: BTreeMap<TableId, u64>,
}

impl Mark {
    /// The mark of a checkpoint taken at `at_ms` after transfer
    /// `last_transfer`, from the casino's chain's length and each table's
    /// (`checkpoint.rs`; the store's mark migration reads the same fields).
    pub fn of_chains(
        at_ms: u64,
        last_transfer: u64,
        casino: u64,
        tables: impl Iterator<Item = (TableId, u64)>,
    ) -> Mark {
        let mut heads: BTreeMap<TableId, u64> = tables.collect();
        heads.insert(crate::audit::CASINO_CHAIN, casino);
        Mark { at_ms, last_transfer, heads }
    }
}

/// What one archive holds: for each chain the records after `from` up to
/// `to` and the hash of record `to`; transfers and answers by id range.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cut {
    pub chains: BTreeMap<TableId, ChainCut>,
    pub transfers: (u64, u64),
    pub answers: (u64, u64),
}

/// One chain's part of an archive: records `from + 1 ..= to`, ending in `head`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChainCut {
    pub from: u64,
    pub to: u64,
    pub head: String,
}

/// An archive as the live database registers it.
#[derive(Clone, Debug)]
pub struct Registered {
    pub id: i64,
    /// As stored: relative to the database's directory, or absolute.
    pub file: String,
    pub sha256: String,
    pub at_ms: u64,
    pub cut: Cut,
}

impl Registered {
    /// The file's path, for a database at `db`.
    pub fn path(&self, db: &Path) -> PathBuf {
        let p = PathBuf::from(&self.file);
        if p.is_absolute() {
            p
        } else {
            db.parent().unwrap_or(Path::new(".")).join(p)
        }
    }
}

/// Every registered archive, oldest first (none before migration 11).
pub fn registered(conn: &Connection) -> Result<Vec<Registered>, StoreError> {
    let has: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'archives')",
        [],
        |r| r.get(0),
    )?;
    if !has {
        return Ok(Vec::new());
    }
    let mut q = conn.prepare("SELECT id, file, sha256, at_ms, cut FROM archives ORDER BY id")?;
    let rows = q.query_map([], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, i64>(3)?,
            r.get::<_, String>(4)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (id, file, sha256, at_ms, cut) = row?;
        let cut: Cut =
            serde_json::from_str(&cut).map_err(|e| StoreError::Corrupt(format!("archive {id}'s cut: {e}")))?;
        out.push(Registered { id, file, sha256, at_ms: at_ms as u64, cut });
    }
    Ok(out)
}

/// Open every archive the database at `db` registers, read-only, oldest
/// first. A missing file is an error naming it: history would be incomplete.
pub fn open_archives(conn: &Connection, db: &Path) -> Result<Vec<Connection>, StoreError> {
    registered(conn)?
        .iter()
        .map(|a| {
            let path = a.path(db);
            if !path.exists() {
                return Err(StoreError::Corrupt(format!(
                    "archive {} ({}) is registered but missing: the history before it cannot be read",
                    a.id,
                    path.display()
                )));
            }
            let c = Connection::open_with_flags(&path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)?;
            Ok(c)
        })
        .collect()
}

/// Page through `sql` on each of `sources` in turn (archives oldest first,
/// then the live file). `sql` binds `?1` to the last key read (starting at
/// `after`), `?2` to the page size and `?3`… to `extra`; `f` reads a row and
/// returns its key, or `None` to stop. The key carries from one source to the
/// next, so a row in two of them (archived, its deletion not yet done) is read
/// once.
pub fn each_paged(
    sources: &[&Connection],
    sql: &str,
    mut after: i64,
    extra: &[&dyn ToSql],
    mut f: impl FnMut(&rusqlite::Row<'_>) -> Result<Option<i64>, StoreError>,
) -> Result<(), StoreError> {
    for conn in sources {
        let mut q = conn.prepare_cached(sql)?;
        loop {
            let from = after;
            let mut p: Vec<&dyn ToSql> = vec![&from, &PAGE];
            p.extend_from_slice(extra);
            let mut rows = q.query(&p[..])?;
            let mut n = 0;
            while let Some(r) = rows.next()? {
                match f(r)? {
                    Some(k) => after = k,
                    None => return Ok(()),
                }
                n += 1;
            }
            if n < PAGE {
                break;
            }
        }
    }
    Ok(())
}

/// The SHA-256 of a file, read in pieces.
pub fn file_sha256(path: &Path) -> std::io::Result<String> {
    let mut f = std::fs::File::open(path)?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(hex(&h.finalize()))
}

/// Each registered archive's problem, if any: missing, or its bytes not the
/// ones registered (for `verify`).
pub fn check_files(conn: &Connection, db: &Path) -> Result<Vec<String>, StoreError> {
    let mut problems = Vec::new();
    for a in registered(conn)? {
        let path = a.path(db);
        match file_sha256(&path) {
            Err(e) => problems.push(format!("archive {} ({}): cannot be read: {e}", a.id, path.display())),
            Ok(h) if h != a.sha256 => problems.push(format!(
                "archive {} ({}): its SHA-256 is {h}, but the database registered {} (altered or replaced)",
                a.id,
                path.display(),
                a.sha256
            )),
            Ok(_) => {}
        }
    }
    Ok(problems)
}

/// Write the mark of a checkpoint (in the checkpoint's transaction).
pub fn write_mark(tx: &Connection, m: &Mark) -> Result<(), StoreError> {
    tx.execute(
        "INSERT INTO marks (at_ms, last_transfer, heads) VALUES (?1, ?2, ?3)",
        params![m.at_ms as i64, m.last_transfer as i64, serde_json::to_string(&m.heads).expect("heads serialise")],
    )?;
    Ok(())
}

/// The latest mark taken before `end_ms`.
fn mark_before(conn: &Connection, end_ms: u64) -> Result<Option<Mark>, StoreError> {
    mark_where(conn, "at_ms < ?1 ORDER BY id DESC", end_ms)
}

/// The first mark taken after `after_ms`, or the first of all.
fn mark_after(conn: &Connection, after_ms: Option<u64>) -> Result<Option<Mark>, StoreError> {
    match after_ms {
        Some(t) => mark_where(conn, "at_ms > ?1 ORDER BY id", t),
        None => mark_where(conn, "at_ms >= ?1 ORDER BY id", 0),
    }
}

fn mark_where(conn: &Connection, clause: &str, ms: u64) -> Result<Option<Mark>, StoreError> {
    let row = conn
        .query_row(
            &format!("SELECT at_ms, last_transfer, heads FROM marks WHERE {clause} LIMIT 1"),
            [ms.min(i64::MAX as u64) as i64],
            |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?, r.get::<_, String>(2)?)),
        )
        .optional()?;
    row.map(|(at, last, heads)| {
        let heads = serde_json::from_str(&heads).map_err(|e| StoreError::Corrupt(format!("a mark's heads: {e}")))?;
        Ok(Mark { at_ms: at as u64, last_transfer: last as u64, heads })
    })
    .transpose()
}

/// One archive file that `baccarat archive` wrote.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub file: PathBuf,
    /// The UTC month it holds the end of (`YYYY-MM`).
    pub month: String,
    pub sha256: String,
    /// The time of the checkpoint it cut at: the month's last.
    pub cut_at_ms: u64,
    pub records: u64,
    pub transfers: u64,
    pub answers: u64,
    pub cut: Cut,
}

/// Rows deleted from the live file per transaction.
const DELETE_CHUNK: i64 = 10_000;

/// Move every whole UTC month that ended by `before_ms` out of the live file,
/// one archive file per month in `dir` (module docs), keeping the idempotency
/// answers given after `now_ms - key_retention_ms`. Each month is cut at its
/// last checkpoint, so a file holds what came after the previous month's cut
/// up to it. Refuses, naming why, when there is nothing to move or a month's
/// file exists.
pub fn archive(
    db: &Path,
    dir: &Path,
    before_ms: u64,
    now_ms: u64,
    key_retention_ms: u64,
) -> Result<Vec<Report>, ArchiveError> {
    let store =
        crate::store::SqliteStore::open(db).map_err(|source| ArchiveError::Open { db: db.to_path_buf(), source })?;
    purge(store.connection())?;
    let conn = store.connection();
    let limit = civil::month_start(before_ms);
    if mark_before(conn, limit)?.is_none() {
        return Err(ArchiveError::NoCheckpoint { month: civil::year_month(limit) });
    }
    let mut after = registered(conn)?.iter().map(|a| a.at_ms).max();
    let mut reports = Vec::new();
    while let Some(first) = mark_after(conn, after)?.filter(|m| m.at_ms < limit) {
        let mark = mark_before(conn, civil::next_month_start(first.at_ms).min(limit))?
            .expect("the month's first mark is before its end");
        // (A clock set back could make the month's last mark older than its
        // first; the loop still moves on.)
        after = Some(mark.at_ms.max(first.at_ms));
        if let Some(r) = archive_month(&store, db, dir, &mark, now_ms, key_retention_ms)? {
            reports.push(r);
        }
    }
    if reports.is_empty() {
        return Err(ArchiveError::Nothing { month: civil::year_month(limit) });
    }
    Ok(reports)
}

/// Archive what came after the registered archives up to `mark` into the
/// file of the mark's month; `None` when that is nothing.
fn archive_month(
    store: &crate::store::SqliteStore,
    db: &Path,
    dir: &Path,
    mark: &Mark,
    now_ms: u64,
    key_retention_ms: u64,
) -> Result<Option<Report>, ArchiveError> {
    let conn = store.connection();
    let (cut, records) = month_cut(store, mark, now_ms, key_retention_ms)?;
    let transfers = cut.transfers.1 - cut.transfers.0;
    let answers = cut.answers.1 - cut.answers.0;
    if records == 0 && transfers == 0 && answers == 0 {
        return Ok(None);
    }
    std::fs::create_dir_all(dir).map_err(|source| ArchiveError::Dir { dir: dir.to_path_buf(), source })?;
    let month = civil::year_month(mark.at_ms);
    let file = dir.join(format!("baccarat-archive-{month}.db"));
    if file.exists() {
        return Err(ArchiveError::Exists { file, db: db.to_path_buf() });
    }
    write_file(conn, &file, &cut).map_err(|source| ArchiveError::Write { file: file.clone(), source })?;
    let sha256 = file_sha256(&file).map_err(|source| ArchiveError::Digest { file: file.clone(), source })?;
    let mut perms = std::fs::metadata(&file)?.permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(&file, perms)?;
    let stored = stored_name(db, &file);
    conn.execute(
        "INSERT INTO archives (file, sha256, at_ms, cut) VALUES (?1, ?2, ?3, ?4)",
        params![stored, sha256, mark.at_ms as i64, serde_json::to_string(&cut).expect("cuts serialise")],
    )?;
    purge(store.connection())?;
    Ok(Some(Report { file, month, sha256, cut_at_ms: mark.at_ms, records, transfers, answers, cut }))
}

/// What comes after the registered archives up to `mark`: each chain's
/// records, the transfers, and the answers older than both the mark and the
/// keys' window. With the number of records.
fn month_cut(
    store: &crate::store::SqliteStore,
    mark: &Mark,
    now_ms: u64,
    key_retention_ms: u64,
) -> Result<(Cut, u64), ArchiveError> {
    let conn = store.connection();
    let done = registered(conn)?;
    let mut cut = Cut::default();
    let prev_transfers = done.iter().map(|a| a.cut.transfers.1).max().unwrap_or(0);
    let prev_answers = done.iter().map(|a| a.cut.answers.1).max().unwrap_or(0);
    let mut records = 0u64;
    for (&table, &len) in &mark.heads {
        let from = done.iter().filter_map(|a| a.cut.chains.get(&table)).map(|c| c.to).max().unwrap_or(0);
        if len <= from {
            continue;
        }
        let head = store.record_at(table, len)?.ok_or(ArchiveError::NoRecord { table, len })?.hash;
        records += len - from;
        cut.chains.insert(table, ChainCut { from, to: len, head });
    }
    cut.transfers = (prev_transfers, mark.last_transfer.max(prev_transfers));
    // Answers older than the mark and the keys' window; never the last one
    // (the ledger numbers the next answer after it).
    let horizon = now_ms.saturating_sub(key_retention_ms);
    let last_answer: i64 = conn.query_row(
        "SELECT COALESCE(MAX(rowid), 0) FROM answer_log WHERE at_ms < ?1 AND at_ms <= ?2",
        params![horizon as i64, mark.at_ms as i64],
        |r| r.get(0),
    )?;
    let newest: i64 = conn.query_row("SELECT COALESCE(MAX(rowid), 0) FROM answer_log", [], |r| r.get(0))?;
    cut.answers = (prev_answers, (last_answer.min(newest - 1).max(0) as u64).max(prev_answers));
    Ok((cut, records))
}

/// The name to register: relative to the database's directory if inside it.
fn stored_name(db: &Path, file: &Path) -> String {
    let base = db.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let (base, abs) = (std::path::absolute(base).ok(), std::path::absolute(file).ok());
    match (base, abs) {
        (Some(b), Some(f)) => f.strip_prefix(&b).map(|r| r.to_path_buf()).unwrap_or(f),
        _ => file.to_path_buf(),
    }
    .display()
    .to_string()
}

/// Copy the cut's rows into a new file, and make it durable.
fn write_file(conn: &Connection, file: &Path, cut: &Cut) -> Result<(), StoreError> {
    conn.execute("ATTACH DATABASE ?1 AS arc", [file.display().to_string()])?;
    let copy = || -> Result<(), StoreError> {
        conn.execute_batch(
            "PRAGMA arc.journal_mode = DELETE;
             BEGIN;
             CREATE TABLE arc.audit (tbl INTEGER NOT NULL, seq INTEGER NOT NULL, prev TEXT NOT NULL, body TEXT NOT NULL,
               hash TEXT NOT NULL, PRIMARY KEY (tbl, seq));
             CREATE TABLE arc.transfers (id INTEGER PRIMARY KEY, debit INTEGER NOT NULL, credit INTEGER NOT NULL,
               amount INTEGER NOT NULL, kind TEXT NOT NULL, memo TEXT NOT NULL, cause TEXT NOT NULL);
             CREATE TABLE arc.answer_log (key TEXT NOT NULL, digest BLOB NOT NULL, answer TEXT NOT NULL,
               at_ms INTEGER NOT NULL, cause TEXT NOT NULL, key_id BLOB);",
        )?;
        // The logs as blocks (`store/blocks.rs`), whichever form the live
        // rows have; the empty `audit` and `transfers` keep the file's
        // schema the one every reader knows.
        conn.execute_batch(
            &logs::SCHEMA.replace("CREATE TABLE ", "CREATE TABLE arc.").replace("INDEX ", "INDEX arc."),
        )?;
        for (table, c) in &cut.chains {
            logs::copy_records(conn, "arc", *table, c.from, c.to)?;
        }
        logs::copy_transfers(conn, "arc", cut.transfers.0, cut.transfers.1)?;
        conn.execute(
            "INSERT INTO arc.answer_log (rowid, key, digest, answer, at_ms, cause, key_id)
             SELECT rowid, key, digest, answer, at_ms, cause, key_id FROM main.answer_log
             WHERE rowid > ?1 AND rowid <= ?2 ORDER BY rowid",
            params![cut.answers.0 as i64, cut.answers.1 as i64],
        )?;
        conn.execute_batch("COMMIT")?;
        Ok(())
    };
    let r = copy();
    if r.is_err() {
        let _ = conn.execute_batch("ROLLBACK");
    }
    conn.execute("DETACH DATABASE arc", [])?;
    r?;
    std::fs::File::open(file).and_then(|f| f.sync_all()).map_err(|e| StoreError::Corrupt(e.to_string()))?;
    Ok(())
}

/// Delete from the live file every row a registered archive holds, a chunk
/// per transaction.
fn purge(conn: &Connection) -> Result<(), StoreError> {
    for a in registered(conn)? {
        for (table, c) in &a.cut.chains {
            logs::delete_records(conn, *table, c.from, c.to, DELETE_CHUNK)?;
        }
        logs::delete_transfers(conn, a.cut.transfers.0, a.cut.transfers.1, DELETE_CHUNK)?;
        delete_chunked(
            conn,
            "DELETE FROM answer_log WHERE rowid IN (SELECT rowid FROM answer_log WHERE rowid > ?1 AND rowid <= ?2 LIMIT ?3)",
            params![a.cut.answers.0 as i64, a.cut.answers.1 as i64, DELETE_CHUNK],
        )?;
    }
    Ok(())
}

fn delete_chunked(conn: &Connection, sql: &str, p: &[&dyn ToSql]) -> Result<(), StoreError> {
    let mut q = conn.prepare(sql)?;
    while q.execute(p)? > 0 {}
    Ok(())
}

#[cfg(test)]
mod error_tests {
    use super::ArchiveError;

    /// The refusals read as the strings they replaced, byte for byte (the
    /// CLI prints them; tests match on them).
    #[test]
    fn refusals_read_as_before() {
        let e = ArchiveError::Nothing { month: "2026-12".into() };
        assert_eq!(e.to_string(), "nothing to archive: the archives already hold every whole month before 2026-12");
        let e = ArchiveError::Exists { file: "/a/f.db".into(), db: "/a/c.db".into() };
        assert_eq!(
            e.to_string(),
            "/a/f.db exists but is not registered in /a/c.db: archives are written once (move it aside if it is a \
             leftover of an interrupted run)"
        );
    }
}
