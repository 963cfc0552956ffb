//! `baccarat migrate`: a SQLite casino copied into an empty PostgreSQL
//! database (`pg_store.rs`), then checked against its source.
//!
//! # Design
//!
//! * **Only into an empty target.** A database that holds any table, account,
//!   transfer, record, answer, checkpoint, user or session is refused, naming
//!   what it holds: a copy never mixes two casinos, and never overwrites one.
//! * **Everything a server needs:** the tables, the accounts, every transfer
//!   and audit record (archived ones too: the history readers read the
//!   archive files first), every idempotency answer with its key, the users
//!   and sessions, the checkpoint marks and the latest checkpoint. The anchor
//!   file and the signing key stay files beside the SQLite database: keep
//!   them, the server needs both.
//! * **Streamed, in pages of [`PAGE_ROWS`]**, each page one commit of the
//!   target store: memory stays flat whatever the history.
//! * **Checked:** each stream (tables, accounts, transfers, each chain,
//!   answers, users, sessions, the checkpoint) is read back from both
//!   databases, counted and hashed (SHA-256); any difference is named.
//! * **`verify` on PostgreSQL** ([`verify_pg`]) is an export into a
//!   temporary SQLite file, then SQLite's own verifier, then a check of each
//!   archived month against the digest taken when it was archived.
//! * A copy that fails part way leaves a partial target, which a rerun
//!   refuses as not empty: drop and recreate the target database, then run
//!   it again. The source is only read (opening it applies its own pending
//!   SQLite migrations, as a server start would), under its lock: a source
//!   a server is serving is refused, naming the server (`db_lock.rs`).

use baccarat_core::TableId;
use std::collections::BTreeMap;
use std::path::Path;

use sha2::{Digest, Sha256};

use crate::audit::Record;
use crate::casino::checkpoint::{Checkpoint, Sealed};
use crate::ledger::{AnswerRow, Cause, Changes};
use crate::pg_store::PgResult;
use crate::pg_store::PgStore;
use crate::store::{Commit, History, SqliteStore, Store, StoreError};

mod error;
pub use error::MigrateError;

/// Rows per commit of the copy.
pub const PAGE_ROWS: usize = 10_000;

/// What was copied: each stream's rows, as counted in both databases.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Copied {
    pub streams: BTreeMap<String, u64>,
}

/// Copy the SQLite casino at `from` into the empty PostgreSQL database at
/// `to`, then check the copy.
pub fn migrate(from: &Path, to: &str) -> Result<Copied, MigrateError> {
    if !from.exists() {
        return Err(MigrateError::FromMissing(from.into()));
    }
    // No server writes the source meanwhile (`db_lock.rs`): the copy and its
    // check read it in many transactions, and must see one casino.
    let _lock = baccarat_core::DbLock::take(from).map_err(|e| MigrateError::FromLocked(e.to_string()))?;
    let src = SqliteStore::open(from).map_err(|source| MigrateError::FromOpen { path: from.into(), source })?;
    let mut dst = PgStore::connect(to).map_err(MigrateError::To)?;
    let held = dst.occupied()?;
    if !held.is_empty() {
        return Err(MigrateError::Occupied(held.iter().map(|(t, n)| format!("{n} {t}")).collect()));
    }
    copy(&src, &mut dst).map_err(MigrateError::Copying)?;
    check(&src, &dst)
}

fn copy(src: &dyn Side, dst: &mut dyn Sink) -> Result<(), StoreError> {
    let tables = src.tables()?;
    dst.commit(&Commit { tables: tables.clone(), ..Commit::default() })?;
    let mut page: Vec<crate::ledger::Transfer> = Vec::new();
    src.each_transfer_after(0, &mut |t| {
        page.push(t);
        if page.len() == PAGE_ROWS {
            dst.commit(&transfers(std::mem::take(&mut page)))?;
        }
        Ok(())
    })?;
    dst.commit(&transfers(page))?;
    for t in chains(&tables) {
        let mut page: Vec<(TableId, Record)> = Vec::new();
        src.each_record_after(t, 0, &mut |r| {
            page.push((t, r));
            if page.len() == PAGE_ROWS {
                dst.commit(&Commit { records: std::mem::take(&mut page), ..Commit::default() })?;
            }
            Ok(())
        })?;
        dst.commit(&Commit { records: page, ..Commit::default() })?;
    }
    let mut page = Vec::new();
    src.each_answer_with_key(&mut |a| {
        page.push(Changes { transfers: vec![], accounts: vec![], answer: Some(a) });
        if page.len() == PAGE_ROWS {
            dst.commit(&Commit { ledger: std::mem::take(&mut page), ..Commit::default() })?;
        }
        Ok(())
    })?;
    dst.commit(&Commit { ledger: page, ..Commit::default() })?;
    let accounts = src.accounts()?;
    dst.commit(&Commit { ledger: vec![Changes { transfers: vec![], accounts, answer: None }], ..Commit::default() })?;
    let (users, sessions) = src.people()?;
    dst.put_people(&users, &sessions)?;
    if let Some(cp) = src.latest_checkpoint()? {
        let c: Checkpoint = serde_json::from_slice(&cp.body)
            .map_err(|e| StoreError::Corrupt(format!("checkpoint {}: unreadable: {e}", cp.id)))?;
        dst.write_checkpoint(&Sealed {
            at_ms: c.at_ms,
            mark: c.mark(),
            body: cp.body,
            sha256: cp.sha256,
            signature: cp.signature,
            public_key: cp.public_key,
        })?;
    }
    Ok(())
}

/// One side of a copy: what is read beyond [`History`].
trait Side: History {
    /// Each idempotency answer, with its key's text, in order.
    fn each_answer_with_key(&self, f: &mut dyn FnMut(AnswerRow) -> Result<(), StoreError>) -> Result<(), StoreError>;
    /// The users and their sessions.
    fn people(&self) -> Result<(Vec<User>, Vec<Session>), StoreError>;
}

/// Where a copy writes: the store's commits, and the people.
trait Sink: Store {
    fn put_people(&mut self, users: &[User], sessions: &[Session]) -> Result<(), StoreError>;
}

impl Side for SqliteStore {
    fn each_answer_with_key(&self, f: &mut dyn FnMut(AnswerRow) -> Result<(), StoreError>) -> Result<(), StoreError> {
        each_sqlite_answer(self, f)
    }
    fn people(&self) -> Result<(Vec<User>, Vec<Session>), StoreError> {
        sqlite_people(self)
    }
}

impl Side for PgStore {
    fn each_answer_with_key(&self, f: &mut dyn FnMut(AnswerRow) -> Result<(), StoreError>) -> Result<(), StoreError> {
        each_pg_answer(self, f)
    }
    fn people(&self) -> Result<(Vec<User>, Vec<Session>), StoreError> {
        pg_people(self)
    }
}

impl Sink for PgStore {
    fn put_people(&mut self, users: &[User], sessions: &[Session]) -> Result<(), StoreError> {
        self.with_client(|c| -> Result<(), StoreError> {
            let mut tx = c.transaction().pg()?;
            for u in users {
                tx.execute("INSERT INTO users (id, name, role, password, disabled) VALUES ($1, $2, $3, $4, $5)", &[&u.0, &u.1, &u.2, &u.3, &u.4]).pg()?;
            }
            for s in sessions {
                tx.execute(
                    "INSERT INTO sessions (token_sha256, \"user\", revoked, created_ms, seen_ms) VALUES ($1, $2, $3, $4, $5)",
                    &[&s.0, &s.1, &s.2, &s.3, &s.4],
                ).pg()?;
            }
            tx.commit().pg()?;
            Ok(())
        })
    }
}

impl Sink for SqliteStore {
    fn put_people(&mut self, users: &[User], sessions: &[Session]) -> Result<(), StoreError> {
        let c = self.connection();
        c.execute_batch("BEGIN")?;
        for u in users {
            c.execute(
                "INSERT INTO users (id, name, role, password, disabled) VALUES (?1, ?2, ?3, ?4, ?5)",
                rusqlite::params![u.0, u.1, u.2, u.3, u.4 as i64],
            )?;
        }
        for s in sessions {
            c.execute(
                "INSERT INTO sessions (token_sha256, user, revoked, created_ms, seen_ms) VALUES (?1, ?2, ?3, ?4, ?5)",
                rusqlite::params![s.0, s.1, s.2 as i64, s.3, s.4],
            )?;
        }
        c.execute_batch("COMMIT")?;
        Ok(())
    }
}

fn transfers(page: Vec<crate::ledger::Transfer>) -> Commit {
    Commit { ledger: vec![Changes { transfers: page, accounts: vec![], answer: None }], ..Commit::default() }
}

/// The chains: the casino's own and each table's.
fn chains(tables: &[crate::store::TableRow]) -> Vec<TableId> {
    std::iter::once(crate::audit::CASINO_CHAIN).chain(tables.iter().map(|t| t.id)).collect()
}

/// Each idempotency answer in the SQLite log, with its key's text.
fn each_sqlite_answer(
    src: &SqliteStore,
    f: &mut dyn FnMut(AnswerRow) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    let mut after = 0i64;
    loop {
        let mut q = src.connection().prepare(
            "SELECT rowid, key, key_id, digest, answer, at_ms, cause FROM answer_log WHERE rowid > ?1 ORDER BY rowid LIMIT ?2",
        )?;
        let mut rows = q.query(rusqlite::params![after, PAGE_ROWS as i64])?;
        let mut n = 0;
        while let Some(r) = rows.next()? {
            n += 1;
            after = r.get(0)?;
            let key: String = r.get(1)?;
            let key_id = match r.get_ref(2)?.as_blob_or_null()? {
                Some(b) => crate::ledger::keys::KeyId::from_le_bytes(
                    b.try_into().map_err(|_| StoreError::Corrupt(format!("answer {after}: its key id")))?,
                ),
                None => crate::ledger::keys::key_id(&key),
            };
            let request: [u8; 32] = r
                .get_ref(3)?
                .as_blob()?
                .try_into()
                .map_err(|_| StoreError::Corrupt(format!("answer {after}: its digest")))?;
            let cause: String = r.get(6)?;
            f(AnswerRow {
                seq: after as u64,
                key,
                key_id,
                request,
                answer: r.get(4)?,
                at_ms: r.get::<_, i64>(5)? as u64,
                cause: Cause::parse(&cause).ok_or_else(|| StoreError::Corrupt(format!("answer {after}: its cause")))?,
            })?;
        }
        if n < PAGE_ROWS {
            return Ok(());
        }
    }
}

/// id, name, role, password hash, disabled.
type User = (i64, String, String, String, bool);
type Session = (String, i64, bool, i64, i64);

fn sqlite_people(src: &SqliteStore) -> Result<(Vec<User>, Vec<Session>), StoreError> {
    let c = src.connection();
    let mut q = c.prepare("SELECT id, name, role, password, disabled FROM users ORDER BY id")?;
    let users = q
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get::<_, i64>(4)? != 0)))?
        .collect::<Result<_, _>>()?;
    let mut q =
        c.prepare("SELECT token_sha256, user, revoked, created_ms, seen_ms FROM sessions ORDER BY token_sha256")?;
    let sessions = q
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get::<_, i64>(2)? != 0, r.get(3)?, r.get(4)?)))?
        .collect::<Result<_, _>>()?;
    Ok((users, sessions))
}

fn pg_people(dst: &PgStore) -> Result<(Vec<User>, Vec<Session>), StoreError> {
    dst.with_client(|c| {
        let users = c
            .query("SELECT id, name, role, password, disabled FROM users ORDER BY id", &[])
            .pg()?
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4)))
            .collect();
        let sessions = c
            .query(
                "SELECT token_sha256, \"user\", revoked, created_ms, seen_ms FROM sessions ORDER BY token_sha256",
                &[],
            )
            .pg()?
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4)))
            .collect();
        Ok((users, sessions))
    })
}

fn each_pg_answer(dst: &PgStore, f: &mut dyn FnMut(AnswerRow) -> Result<(), StoreError>) -> Result<(), StoreError> {
    let mut after = 0i64;
    loop {
        let rows = dst.with_client(|c| {
            c.query(
                "SELECT seq, key, key_id, digest, answer, at_ms, cause FROM answer_log_all WHERE seq > $1 ORDER BY seq LIMIT $2",
                &[&after, &(PAGE_ROWS as i64)],
            )
        }).pg()?;
        for r in &rows {
            after = r.get(0);
            let bad = |what: &str| StoreError::Corrupt(format!("answer {after}: {what}"));
            let kid: Vec<u8> = r.get(2);
            let digest: Vec<u8> = r.get(3);
            let cause: String = r.get(6);
            f(AnswerRow {
                seq: after as u64,
                key: r.get(1),
                key_id: crate::ledger::keys::KeyId::from_le_bytes(kid.try_into().map_err(|_| bad("its key id"))?),
                request: digest.try_into().map_err(|_| bad("its digest"))?,
                answer: r.get(4),
                at_ms: r.get::<_, i64>(5) as u64,
                cause: Cause::parse(&cause).ok_or_else(|| bad("its cause"))?,
            })?;
        }
        if rows.len() < PAGE_ROWS {
            return Ok(());
        }
    }
}

/// A stream's rows, counted and hashed.
#[derive(Default)]
struct Tally {
    rows: u64,
    sha: Sha256,
}

impl Tally {
    fn add(&mut self, row: impl std::fmt::Debug) {
        self.rows += 1;
        self.sha.update(format!("{row:?}\n").as_bytes());
    }

    fn done(self) -> (u64, [u8; 32]) {
        (self.rows, self.sha.finalize().into())
    }
}

/// Every stream of one database, counted and hashed.
fn tallies(h: &dyn Side) -> Result<BTreeMap<String, (u64, [u8; 32])>, StoreError> {
    let people = h.people()?;
    let mut out = BTreeMap::new();
    let tables = h.tables()?;
    let mut t = Tally::default();
    tables.iter().for_each(|r| t.add(r));
    out.insert("tables".to_string(), t.done());
    let mut t = Tally::default();
    h.accounts()?.iter().for_each(|a| t.add(a));
    out.insert("accounts".to_string(), t.done());
    let mut t = Tally::default();
    h.each_transfer_after(0, &mut |x| {
        t.add(x);
        Ok(())
    })?;
    out.insert("transfers".to_string(), t.done());
    for c in chains(&tables) {
        let mut t = Tally::default();
        h.each_record_after(c, 0, &mut |r| {
            t.add(r);
            Ok(())
        })?;
        out.insert(format!("chain {c}"), t.done());
    }
    let mut t = Tally::default();
    h.each_answer_with_key(&mut |a| {
        t.add(a);
        Ok(())
    })?;
    out.insert("answers".to_string(), t.done());
    let mut t = Tally::default();
    people.0.iter().for_each(|u| t.add(u));
    out.insert("users".to_string(), t.done());
    let mut t = Tally::default();
    people.1.iter().for_each(|s| t.add(s));
    out.insert("sessions".to_string(), t.done());
    let mut t = Tally::default();
    if let Some(c) = h.latest_checkpoint()? {
        // The body's bytes as they are: a busy casino's body is tens of
        // megabytes, and formatted as a list of numbers it took 450 MB.
        t.add((c.sha256, c.signature, c.public_key));
        t.sha.update(&c.body);
    }
    out.insert("checkpoint".to_string(), t.done());
    Ok(out)
}

/// Check a copy made earlier: every stream of the SQLite casino at `from`
/// against the PostgreSQL database at `to`.
pub fn check_copy(from: &Path, to: &str) -> Result<Copied, MigrateError> {
    if !from.exists() {
        return Err(MigrateError::FromMissing(from.into()));
    }
    let src = SqliteStore::open(from).map_err(|source| MigrateError::FromOpen { path: from.into(), source })?;
    let dst = PgStore::connect(to).map_err(MigrateError::To)?;
    check(&src, &dst)
}

/// Read every stream back from both and compare.
fn check(src: &dyn Side, dst: &dyn Side) -> Result<Copied, MigrateError> {
    let a = tallies(src)?;
    let b = tallies(dst)?;
    let mut differ = Vec::new();
    for (k, (n, h)) in &a {
        match b.get(k) {
            Some((m, g)) if m == n && g == h => {}
            Some((m, _)) => {
                differ.push(format!("{k}: {n} rows in the source, {m} in the copy, or their contents differ"))
            }
            None => differ.push(format!("{k}: missing from the copy")),
        }
    }
    if !differ.is_empty() {
        return Err(MigrateError::Differs(differ));
    }
    Ok(Copied { streams: a.into_iter().map(|(k, (n, _))| (k, n)).collect() })
}

/// Copy the PostgreSQL casino at `from` into a new SQLite file `to` (which
/// must not exist), from one consistent snapshot of it (a repeatable-read
/// transaction: a serving server may go on writing), and check the copy.
/// `verify` reads a PostgreSQL casino this way, with SQLite's own verifier.
pub fn export(from: &str, to: &Path) -> Result<Copied, MigrateError> {
    if to.exists() {
        return Err(MigrateError::ExportExists(to.into()));
    }
    let src = PgStore::connect(from).map_err(MigrateError::Db)?;
    let mut dst = SqliteStore::open(to).map_err(|source| MigrateError::ExportOpen { path: to.into(), source })?;
    let db = |e| MigrateError::Db(crate::pg_store::pg_error(e));
    src.with_client(|c| c.batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")).map_err(db)?;
    copy(&src, &mut dst).map_err(MigrateError::Reading)?;
    let checked = check(&src, &dst);
    src.with_client(|c| c.batch_execute("COMMIT")).map_err(db)?;
    checked
}

/// `read` with the database's copy of the anchor lines beside it, read
/// under the pinned key or else the file's first (`verify/anchor_copy.rs`).
fn with_copy(
    url: &str,
    read: crate::verify::AnchorsRead,
    pinned: Option<&str>,
    file_given: bool,
) -> Result<crate::verify::AnchorsRead, MigrateError> {
    let store = PgStore::connect(url).map_err(MigrateError::Db)?;
    let trust = pinned.map(str::to_string).or_else(|| read.first_key());
    let copy = store.read_anchor_copy(trust.as_deref()).map_err(MigrateError::Db)?;
    if matches!(copy, crate::anchor::CopyRead::Empty) && !file_given {
        return Err(MigrateError::NoAnchors);
    }
    Ok(read.with_copy(copy, file_given))
}

/// Verify a casino kept in PostgreSQL (`pg_store.rs`): exported from one
/// consistent snapshot into a temporary SQLite file, the copy checked stream
/// by stream against the source (`migrate::export`), then read by the same
/// verifier as any SQLite casino, so every check is the same. The chains are
/// checked against the anchor file at `anchors` and the database's own copy
/// of its lines (`verify/anchor_copy.rs`). The temporary file is removed
/// afterwards, whatever the result.
///
/// The anchors are read before the snapshot is taken, as for SQLite
/// (`verify/anchors_read.rs`): a serving server signs a head only once it is
/// committed, so every head read is in the snapshot. Read after it, the
/// lines a serving casino signed meanwhile looked like a cut (issue 45
/// finding 10: "its tail was cut" in 3 of 5 runs on a live casino).
pub fn verify_pg(
    url: &str,
    anchors: &std::path::Path,
    pinned: Option<&str>,
) -> Result<(crate::verify::Findings, Option<String>), MigrateError> {
    verify_pg_with(url, Some(anchors), pinned, || {})
}

/// [`verify_pg`] with no anchor file (lost with its server's machine): the
/// database's copy of its lines alone, which the findings say; refused when
/// the database keeps none, and without the key the casino published
/// (`pinned`): someone who can write to the database could sign a copy of
/// their own, under a key of their own.
pub fn verify_pg_from_copy(
    url: &str,
    pinned: Option<&str>,
) -> Result<(crate::verify::Findings, Option<String>), MigrateError> {
    if pinned.is_none() {
        return Err(MigrateError::CopyUnpinned);
    }
    verify_pg_with(url, None, pinned, || {})
}

/// [`verify_pg`], running `exported` once the snapshot is copied out and
/// before the copy is verified: where a serving server goes on committing and
/// signing. The tests write there; `verify_pg` runs nothing.
#[doc(hidden)]
pub fn verify_pg_with(
    url: &str,
    anchors: Option<&std::path::Path>,
    pinned: Option<&str>,
    exported: impl FnOnce(),
) -> Result<(crate::verify::Findings, Option<String>), MigrateError> {
    let read = match anchors {
        Some(path) if !path.exists() => return Err(MigrateError::AnchorFileMissing(path.into())),
        Some(path) => crate::verify::AnchorsRead::now(path, pinned),
        None => crate::verify::AnchorsRead::without_file(),
    };
    // The anchors first (the file, then the database's copy), then the
    // snapshot.
    let read = with_copy(url, read, pinned, anchors.is_some())?;
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let tmp = std::env::temp_dir().join(format!("baccarat-verify-{}-{nanos}.db", std::process::id()));
    let result = export(url, &tmp)
        .and_then(|_| {
            exported();
            Ok(crate::verify::verify_file_read(&tmp, read)?)
        })
        .and_then(|(mut f, key)| {
            // The archived months were read through the views; each must
            // still be the rows archived (`pg_store/archive.rs`).
            let store = PgStore::connect(url).map_err(MigrateError::Db)?;
            let (problems, note) = crate::pg_store::archive::check(&store).map_err(MigrateError::Db)?;
            f.problems.extend(problems);
            f.notes.extend(note);
            Ok((f, key))
        });
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", tmp.display()));
    }
    result
}
