//! The store: what must survive a crash, behind a small interface so that a
//! PostgreSQL back end can follow without touching the ledger or the tables.
//!
//! [`SqliteStore`] keeps everything in one SQLite file in WAL mode with
//! `synchronous=FULL`: a commit returns only once it is on disk. A [`Commit`]
//! carries a batch of ledger changes and audit records that belong together (a
//! coup's settlement and its events; many players' wagers) and is written in one
//! transaction, so one fsync covers them all (group commit). Migrations are
//! numbered and apply themselves on open.
//!
//! Besides the logs, the store keeps signed checkpoints (`checkpoint.rs`):
//! recovery reads the latest and then only what was written after it, through
//! the streaming readers here ([`SqliteStore::each_transfer_after`],
//! [`SqliteStore::each_record_after`], [`SqliteStore::answers_since`]), so a
//! restart reads what is live, never the whole history.

use std::path::Path;

use rusqlite::{params, Connection, OptionalExtension};

use crate::audit::Record;
use crate::ledger::{Account, AccountId, AnswerRow, Cause, Changes, Transfer};

mod any;
mod history;
pub use any::{redact, AnyStore, Db};
pub use history::History;

/// A table as configured: recreated from this on restart.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableRow {
    pub id: u32,
    pub name: String,
    pub rulebook: String,
    pub config: String,
    /// `rng` (the server shuffles and deals) or `live` (cards come from a dealer
    /// console or a scanning shoe).
    pub mode: String,
    /// Whether the table is open for play; a closed table deals no new coup.
    pub open: bool,
}

/// Everything written together.
#[derive(Clone, Debug, Default)]
pub struct Commit {
    pub tables: Vec<TableRow>,
    pub ledger: Vec<Changes>,
    /// `(table, record)` audit records, appended in order.
    pub records: Vec<(u32, Record)>,
    /// The engine events among those records, with their table and sequence
    /// number (not stored: published to the feed after the commit, so that
    /// nothing re-reads the JSON).
    pub events: Vec<(u32, u64, baccarat_table::engine::Event)>,
    /// The casino's state as this batch leaves it, when a checkpoint is due
    /// (`checkpoint.rs`): sealed and written by the committer once the batch is
    /// durable.
    pub checkpoint: Option<Box<crate::checkpoint::Checkpoint>>,
    /// A request asked for this checkpoint (a clean stop): it is written
    /// before that request is answered, not in the background.
    pub checkpoint_asked: bool,
}

/// Everything read back on start.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    pub tables: Vec<TableRow>,
    pub accounts: Vec<Account>,
    pub transfers: Vec<Transfer>,
    pub answers: Vec<(String, [u8; 32], String)>,
    pub records: Vec<(u32, Record)>,
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database: {0}")]
    Sql(#[from] rusqlite::Error),
    /// PostgreSQL (`pg_store.rs`).
    #[error("database: {0}")]
    Pg(String),
    /// A write under a table lease another server has since taken
    /// (`pg_store.rs`): refused whole.
    #[error("fenced: {0}")]
    Fenced(String),
    #[error("stored data is unreadable: {0}")]
    Corrupt(String),
}

impl From<rusqlite::types::FromSqlError> for StoreError {
    fn from(e: rusqlite::types::FromSqlError) -> StoreError {
        StoreError::Corrupt(e.to_string())
    }
}

/// Where a checkpoint's body goes, a part at a time.
pub type PutPart<'a> = dyn FnMut(&[u8]) -> Result<(), StoreError> + 'a;
/// What makes a checkpoint's body, handing each part to the store.
pub type CheckpointBody<'a> = dyn FnMut(&mut PutPart<'_>) -> Result<(), StoreError> + 'a;
/// Given the SHA-256 of the body written (hex), the hash and signature to store.
pub type CheckpointSeal<'a> = dyn FnMut(&str) -> Result<(String, String), StoreError> + 'a;

/// A durable store.
pub trait Store: Send {
    fn commit(&mut self, c: &Commit) -> Result<(), StoreError>;
    fn load(&mut self) -> Result<Snapshot, StoreError>;
    /// Write a checkpoint (after the batch it describes is durable), keeping
    /// the few latest: its body a part at a time as `body` makes it (each part
    /// to `put`, at most [`CHECKPOINT_PART_BYTES`]), then sealed by `seal`:
    /// given the SHA-256 of everything written (hex), it gives the hash and
    /// the signature to store. It counts only once sealed; a body or seal
    /// that fails leaves an incomplete checkpoint that the next one removes.
    fn write_checkpoint_parts(
        &mut self,
        head: &crate::checkpoint::Head,
        body: &mut CheckpointBody<'_>,
        seal: &mut CheckpointSeal<'_>,
    ) -> Result<(), StoreError>;

    /// Write a checkpoint already sealed, whole in memory.
    fn write_checkpoint(&mut self, c: &crate::checkpoint::Sealed) -> Result<(), StoreError> {
        let mut body = |put: &mut PutPart<'_>| c.body.chunks(CHECKPOINT_PART_BYTES).try_for_each(&mut *put);
        // As sealed (a copy keeps its signature; a read checks both).
        let mut seal = |_: &str| Ok((c.sha256.clone(), c.signature.clone()));
        self.write_checkpoint_parts(&c.head(), &mut body, &mut seal)
    }
}

/// A checkpoint as stored, not yet checked.
#[derive(Clone, Debug)]
pub struct StoredCheckpoint {
    pub id: i64,
    pub body: Vec<u8>,
    pub sha256: String,
    pub signature: String,
    pub public_key: String,
}

/// The write-ahead log's size beyond which it is restarted from its start
/// ([`SqliteStore::checkpoint_in_background`]).
pub const WAL_RESTART_BYTES: i64 = 256 << 20;

/// Checkpoints kept: the latest few (each supersedes the ones before).
pub const CHECKPOINTS_KEPT: i64 = 2;

/// The schema version a fully migrated database has.
pub const SCHEMA_VERSION: usize = MIGRATIONS.len();

const MIGRATIONS: &[&str] = &[
    // 1: ledger and audit
    "CREATE TABLE accounts (id INTEGER PRIMARY KEY, kind TEXT NOT NULL UNIQUE, balance INTEGER NOT NULL, held INTEGER NOT NULL);
     CREATE TABLE transfers (id INTEGER PRIMARY KEY, debit INTEGER NOT NULL, credit INTEGER NOT NULL, amount INTEGER NOT NULL, kind TEXT NOT NULL, memo TEXT NOT NULL);
     CREATE TABLE answers (key TEXT PRIMARY KEY, digest BLOB NOT NULL, answer TEXT NOT NULL);
     CREATE TABLE audit (tbl INTEGER NOT NULL, seq INTEGER NOT NULL, prev TEXT NOT NULL, body TEXT NOT NULL, hash TEXT NOT NULL, PRIMARY KEY (tbl, seq));",
    // 2: the tables' definitions
    "CREATE TABLE tables (id INTEGER PRIMARY KEY, name TEXT NOT NULL, rulebook TEXT NOT NULL, config TEXT NOT NULL);",
    // 3: accounts of people and their sessions (only token hashes are kept)
    "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, role TEXT NOT NULL, password TEXT NOT NULL);
     CREATE TABLE sessions (token_sha256 TEXT PRIMARY KEY, user INTEGER NOT NULL REFERENCES users(id), revoked INTEGER NOT NULL DEFAULT 0);",
    // 4: a table's mode (RNG or live) and whether it is open
    "ALTER TABLE tables ADD COLUMN mode TEXT NOT NULL DEFAULT 'rng';
     ALTER TABLE tables ADD COLUMN open INTEGER NOT NULL DEFAULT 1;",
    // 5: idempotency answers as an append-only log. Keyed by the client's key,
    // the old table's primary-key index took one scattered page write per wager;
    // the ledger already refuses a second answer for a key (it keeps them all in
    // memory), so the log needs no index.
    "CREATE TABLE answer_log (key TEXT NOT NULL, digest BLOB NOT NULL, answer TEXT NOT NULL);
     INSERT INTO answer_log SELECT key, digest, answer FROM answers;
     DROP TABLE answers;",
    // 6: each transfer names the audit record that explains it (`Cause`), so the
    // ledger and the audit log reconcile. Older holds named their wager in the
    // memo ("table N wager M"); their cause is taken from it once, here.
    "ALTER TABLE transfers ADD COLUMN cause TEXT NOT NULL DEFAULT '';
     UPDATE transfers SET cause = 'wager:' || replace(replace(memo, 'table ', ''), ' wager ', ':')
       WHERE memo LIKE 'table % wager %';",
    // 7: sessions expire: when each was opened and last used (ms since the
    // epoch). Sessions from before have 0 for both, so they have expired.
    "ALTER TABLE sessions ADD COLUMN created_ms INTEGER NOT NULL DEFAULT 0;
     ALTER TABLE sessions ADD COLUMN seen_ms INTEGER NOT NULL DEFAULT 0;",
    // 8: checkpoints, and the retention window of idempotency keys: each
    // answer's time (older answers have 0: outside any window) and the cause of
    // what it did (a retried wager is answered with its wager from here).
    "CREATE TABLE checkpoints (id INTEGER PRIMARY KEY, at_ms INTEGER NOT NULL, body BLOB NOT NULL,
       sha256 TEXT NOT NULL, signature TEXT NOT NULL, public_key TEXT NOT NULL);
     ALTER TABLE answer_log ADD COLUMN at_ms INTEGER NOT NULL DEFAULT 0;
     ALTER TABLE answer_log ADD COLUMN cause TEXT NOT NULL DEFAULT '';",
    // 9: each answer's key id (128 bits of its SHA-256), so that a start loads
    // the window's keys without hashing them again.
    "ALTER TABLE answer_log ADD COLUMN key_id BLOB;",
    // 10: keys older than a couple of minutes are found on disk (`keys.rs`),
    // by their id. (Rows written before migration 9 without an id get one
    // when the store opens: see `fill_key_ids`.)
    "CREATE INDEX answer_log_key_id ON answer_log (key_id);",
    // 11: archives (`archive.rs`): each checkpoint's mark (where every chain
    // and the transfers stood), kept after the checkpoint is superseded, and
    // the archive files that hold history moved out of this one.
    "CREATE TABLE marks (id INTEGER PRIMARY KEY, at_ms INTEGER NOT NULL, last_transfer INTEGER NOT NULL,
       heads TEXT NOT NULL);
     CREATE TABLE archives (id INTEGER PRIMARY KEY, file TEXT NOT NULL UNIQUE, sha256 TEXT NOT NULL,
       at_ms INTEGER NOT NULL, cut TEXT NOT NULL);",
    // 12: a checkpoint's body is written in parts, each in a short transaction
    // of its own, and the checkpoint counts only once `complete` (see
    // `write_checkpoint`). Older checkpoints keep their body whole.
    "CREATE TABLE checkpoint_parts (checkpoint INTEGER NOT NULL, n INTEGER NOT NULL, data BLOB NOT NULL,
       PRIMARY KEY (checkpoint, n));
     ALTER TABLE checkpoints ADD COLUMN complete INTEGER NOT NULL DEFAULT 1;",
];

/// The size of one part of a checkpoint's body (migration 12).
pub const CHECKPOINT_PART_BYTES: usize = 1 << 20;

/// SQLite's own busy handler sleeps 1, 2, 5, 10, 15, 20, 25… ms between
/// tries: a commit that met the checkpoint thread's lock slept up to tens of
/// milliseconds after the lock was free. This one tries again every 200 µs,
/// for up to 30 s.
fn short_waits(tries: i32) -> bool {
    if tries >= 150_000 {
        return false;
    }
    std::thread::sleep(std::time::Duration::from_micros(200));
    true
}

pub struct SqliteStore {
    conn: Connection,
    /// The archive files history was moved to, oldest first (`archive.rs`):
    /// the history readers read them before the live rows.
    archives: Vec<Connection>,
}

impl SqliteStore {
    /// Open (creating if needed) and migrate.
    pub fn open(path: &Path) -> Result<SqliteStore, StoreError> {
        let conn = Connection::open(path)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        // The checkpointer writes on a connection of its own: wait for it
        // rather than fail a commit, and try again soon.
        conn.busy_handler(Some(short_waits))?;
        let mut s = SqliteStore { conn, archives: Vec::new() };
        s.migrate()?;
        s.archives = crate::archive::open_archives(&s.conn, path)?;
        Ok(s)
    }

    /// A mark for each checkpoint kept, read from its body (its signature is
    /// checked where it is used: an archive cuts only where the chains' own
    /// records agree, `archive.rs`).
    fn fill_marks(&mut self) -> Result<(), StoreError> {
        let tx = self.conn.transaction()?;
        {
            let mut q = tx.prepare("SELECT body FROM checkpoints ORDER BY id")?;
            let bodies: Vec<Vec<u8>> = q.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?;
            for body in bodies {
                let Ok(c) = serde_json::from_slice::<crate::checkpoint::Checkpoint>(&body) else { continue };
                crate::archive::write_mark(&tx, &c.mark())?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Give each answer still inside any plausible window (it has a time) its
    /// key's id, if it was written before ids were: the index finds keys by
    /// id only.
    fn fill_key_ids(&mut self) -> Result<(), StoreError> {
        let tx = self.conn.transaction()?;
        {
            let mut q = tx.prepare("SELECT rowid, key FROM answer_log WHERE key_id IS NULL AND at_ms > 0")?;
            let rows: Vec<(i64, String)> =
                q.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<Result<_, _>>()?;
            let mut up = tx.prepare("UPDATE answer_log SET key_id = ?1 WHERE rowid = ?2")?;
            for (rowid, key) in rows {
                up.execute(params![&crate::ledger::key_id(&key).to_le_bytes()[..], rowid])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// An in-memory store, for tests.
    pub fn memory() -> Result<SqliteStore, StoreError> {
        let mut s = SqliteStore { conn: Connection::open_in_memory()?, archives: Vec::new() };
        s.migrate()?;
        Ok(s)
    }

    fn migrate(&mut self) -> Result<(), StoreError> {
        let version: usize = self.conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        for (i, m) in MIGRATIONS.iter().enumerate().skip(version) {
            let tx = self.conn.transaction()?;
            tx.execute_batch(m)?;
            tx.pragma_update(None, "user_version", i + 1)?;
            tx.commit()?;
        }
        // Migration 10 indexes answers by key id: older rows get theirs once.
        if (1..10).contains(&version) {
            self.fill_key_ids()?;
        }
        // Migration 11 keeps a mark of each checkpoint (`archive.rs`): the
        // checkpoints already kept get theirs, so an upgraded database can be
        // archived without waiting for the next one.
        if (1..11).contains(&version) {
            self.fill_marks()?;
        }
        Ok(())
    }

    /// Run `f` on one consistent snapshot of the database: every read it
    /// makes sees the same commits (a check reads while the writer writes).
    pub fn in_snapshot<T>(&self, f: impl FnOnce(&SqliteStore) -> T) -> Result<T, StoreError> {
        self.conn.execute_batch("BEGIN DEFERRED")?;
        // A deferred transaction takes its snapshot at its first read.
        self.conn.query_row("SELECT count(*) FROM sqlite_schema", [], |_| Ok(()))?;
        let out = f(self);
        self.conn.execute_batch("COMMIT")?;
        Ok(out)
    }

    /// Move WAL checkpoints off the committing thread: this connection stops
    /// checkpointing on commit, and a thread of its own copies the log into the
    /// database every `every` (PASSIVE: it never blocks the writer). Commits stay
    /// durable as before — a committed transaction is in the fsynced log.
    ///
    /// Under a steady stream of commits a passive checkpoint never catches the
    /// log's end, and the log grew without bound (6.3 GB in a ten-minute
    /// soak). So once it holds more than [`WAL_RESTART_BYTES`], the thread
    /// runs a RESTART checkpoint: it holds new commits back while it copies
    /// the last frames (few: the passive ones kept up), so the next commit
    /// writes the log from its start, and the file is cut back to that size.
    pub fn checkpoint_in_background(&mut self, path: &Path, every: std::time::Duration) -> Result<(), StoreError> {
        let conn = Connection::open(path)?;
        // No waiting: a RESTART that waits for readers holds every commit
        // back while it waits (it stalled all tables for up to 0.9 s). Without
        // a busy handler it gives up at once if a commit or a reader is in
        // the way, having copied what it could, and is tried again next time.
        conn.busy_timeout(std::time::Duration::ZERO)?;
        self.conn.pragma_update(None, "wal_autocheckpoint", 0)?;
        self.conn.pragma_update(None, "journal_size_limit", WAL_RESTART_BYTES)?;
        let page: i64 = conn.query_row("PRAGMA page_size", [], |r| r.get(0))?;
        std::thread::Builder::new()
            .name("checkpoint".into())
            .spawn(move || loop {
                std::thread::sleep(every);
                let log = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| r.get::<_, i64>(1));
                let r = match log {
                    Ok(frames) if frames * page > WAL_RESTART_BYTES => {
                        conn.query_row("PRAGMA wal_checkpoint(RESTART)", [], |_| Ok(()))
                    }
                    other => other.map(|_| ()),
                };
                match r {
                    Err(rusqlite::Error::SqliteFailure(e, _)) if e.code == rusqlite::ErrorCode::DatabaseBusy => {}
                    Err(e) => eprintln!("checkpoint: {e}"),
                    Ok(()) => {}
                }
            })
            .map_err(|e| StoreError::Corrupt(format!("cannot start the checkpoint thread: {e}")))?;
        Ok(())
    }

    /// Commit without waiting for the disk (the write-ahead log keeps the
    /// order of commits, so nothing is torn; the last few may be lost to a
    /// power cut). For the checkpoint thread only: a checkpoint lost that way
    /// leaves the one before it, and a longer replay.
    pub fn relax_sync(&self) -> Result<(), StoreError> {
        self.conn.pragma_update(None, "synchronous", "NORMAL")?;
        Ok(())
    }

    /// The schema version in force.
    pub fn version(&self) -> Result<usize, StoreError> {
        Ok(self.conn.query_row("PRAGMA user_version", [], |r| r.get(0))?)
    }
}

pub(crate) fn json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).expect("serialises")
}

pub(crate) fn parse<T: serde::de::DeserializeOwned>(s: &str) -> Result<T, StoreError> {
    serde_json::from_str(s).map_err(|e| StoreError::Corrupt(format!("{e}: {s}")))
}

impl Store for SqliteStore {
    fn commit(&mut self, c: &Commit) -> Result<(), StoreError> {
        let tx = self.conn.transaction()?;
        {
            let mut tbl = tx.prepare_cached(
                "INSERT INTO tables (id, name, rulebook, config, mode, open) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                 ON CONFLICT(id) DO UPDATE SET name = excluded.name, mode = excluded.mode, open = excluded.open",
            )?;
            for t in &c.tables {
                tbl.execute(params![t.id, t.name, t.rulebook, t.config, t.mode, t.open])?;
            }
            let mut acct = tx.prepare_cached(
                "INSERT INTO accounts (id, kind, balance, held) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT(id) DO UPDATE SET balance = excluded.balance, held = excluded.held",
            )?;
            let mut xfer = tx.prepare_cached(
                "INSERT INTO transfers (id, debit, credit, amount, kind, memo, cause) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?;
            let mut ans = tx.prepare_cached(
                "INSERT INTO answer_log (rowid, key, digest, answer, at_ms, cause, key_id)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?;
            // An account touched many times in one batch (a table's escrow and
            // house at a settlement) is written once, as it ends the batch.
            let mut last: std::collections::BTreeMap<AccountId, &Account> = std::collections::BTreeMap::new();
            for ch in &c.ledger {
                for t in &ch.transfers {
                    xfer.execute(params![
                        t.id as i64,
                        t.debit as i64,
                        t.credit as i64,
                        t.amount.0,
                        json(&t.kind),
                        t.memo,
                        t.cause.encode()
                    ])?;
                }
                for a in &ch.accounts {
                    last.insert(a.id, a);
                }
                if let Some(a) = &ch.answer {
                    ans.execute(params![
                        a.seq as i64,
                        a.key,
                        &a.request[..],
                        a.answer,
                        a.at_ms as i64,
                        a.cause.encode(),
                        &a.key_id.to_le_bytes()[..]
                    ])?;
                }
            }
            for a in last.values() {
                acct.execute(params![a.id as i64, json(&a.kind), a.balance, a.held])?;
            }
            let mut rec =
                tx.prepare_cached("INSERT INTO audit (tbl, seq, prev, body, hash) VALUES (?1, ?2, ?3, ?4, ?5)")?;
            for (tbl, r) in &c.records {
                rec.execute(params![tbl, r.seq as i64, r.prev, r.body, r.hash])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    fn load(&mut self) -> Result<Snapshot, StoreError> {
        let mut snap = Snapshot { tables: self.tables()?, accounts: self.accounts()?, ..Snapshot::default() };
        self.each_transfer_after(0, |t| {
            snap.transfers.push(t);
            Ok(())
        })?;
        let mut q = self.conn.prepare("SELECT key, digest, answer FROM answer_log ORDER BY rowid")?;
        let rows =
            q.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, Vec<u8>>(1)?, r.get::<_, String>(2)?)))?;
        for row in rows {
            let (k, d, a) = row?;
            let d: [u8; 32] = d.try_into().map_err(|_| StoreError::Corrupt(format!("digest of answer {k}")))?;
            snap.answers.push((k, d, a));
        }
        let mut q = self.conn.prepare("SELECT tbl, seq, prev, body, hash FROM audit ORDER BY tbl, seq")?;
        let rows = q.query_map([], |r| {
            Ok((
                r.get::<_, u32>(0)?,
                Record { seq: r.get::<_, i64>(1)? as u64, prev: r.get(2)?, body: r.get(3)?, hash: r.get(4)? },
            ))
        })?;
        for row in rows {
            snap.records.push(row?);
        }
        Ok(snap)
    }

    /// Written in parts of [`CHECKPOINT_PART_BYTES`], each in its own short
    /// transaction, and marked complete last: one transaction holding a busy
    /// floor's 125 MB body held SQLite's write lock for half a second, and
    /// every commit (so every table) waited for it. A crash part way leaves an
    /// incomplete checkpoint that no reader takes, removed by the next write.
    fn write_checkpoint_parts(
        &mut self,
        c: &crate::checkpoint::Head,
        body: &mut CheckpointBody<'_>,
        seal: &mut CheckpointSeal<'_>,
    ) -> Result<(), StoreError> {
        use sha2::Digest;
        self.conn.execute(
            "INSERT INTO checkpoints (at_ms, body, sha256, signature, public_key, complete) VALUES (?1, X'', '', '', ?2, 0)",
            params![c.at_ms as i64, c.public_key],
        )?;
        let id = self.conn.last_insert_rowid();
        let (mut n, mut hash) = (0i64, sha2::Sha256::new());
        body(&mut |part: &[u8]| {
            hash.update(part);
            self.conn.execute(
                "INSERT INTO checkpoint_parts (checkpoint, n, data) VALUES (?1, ?2, ?3)",
                params![id, n, part],
            )?;
            n += 1;
            Ok(())
        })?;
        let (sha256, signature) = seal(&baccarat_table::shuffle::hex(&hash.finalize()))?;
        let tx = self.conn.transaction()?;
        tx.execute(
            "UPDATE checkpoints SET sha256 = ?2, signature = ?3, complete = 1 WHERE id = ?1",
            params![id, sha256, signature],
        )?;
        let superseded = "id <= ?1 - ?2 OR (complete = 0 AND id < ?1)";
        tx.execute(
            &format!(
                "DELETE FROM checkpoint_parts WHERE checkpoint IN (SELECT id FROM checkpoints WHERE {superseded})"
            ),
            [id, CHECKPOINTS_KEPT],
        )?;
        tx.execute(&format!("DELETE FROM checkpoints WHERE {superseded}"), [id, CHECKPOINTS_KEPT])?;
        crate::archive::write_mark(&tx, &c.mark)?;
        tx.commit()?;
        Ok(())
    }
}

fn record_of(r: &rusqlite::Row) -> Result<Record, StoreError> {
    Ok(Record { seq: r.get::<_, i64>(0)? as u64, prev: r.get(1)?, body: r.get(2)?, hash: r.get(3)? })
}

fn transfer_of(r: &rusqlite::Row) -> Result<Transfer, StoreError> {
    let id: i64 = r.get(0)?;
    let kind: String = r.get(4)?;
    let cause: String = r.get(6)?;
    Ok(Transfer {
        id: id as u64,
        debit: r.get::<_, i64>(1)? as u64,
        credit: r.get::<_, i64>(2)? as u64,
        amount: baccarat_rules::Money(r.get(3)?),
        kind: parse(&kind)?,
        memo: r.get(5)?,
        cause: Cause::parse(&cause)
            .ok_or_else(|| StoreError::Corrupt(format!("transfer {id}: unreadable cause {cause:?}")))?,
    })
}

/// Rows read per query by the streaming readers: bounded memory, and the
/// writer's commits are not held off by one long read.
pub const PAGE: i64 = 20_000;

/// The tables' definitions, by id, on any connection (the store's, or
/// `verify`'s read-only one).
pub fn tables_on(conn: &Connection) -> Result<Vec<TableRow>, StoreError> {
    let mut q = conn.prepare("SELECT id, name, rulebook, config, mode, open FROM tables ORDER BY id")?;
    let rows = q.query_map([], |r| {
        Ok(TableRow {
            id: r.get(0)?,
            name: r.get(1)?,
            rulebook: r.get(2)?,
            config: r.get(3)?,
            mode: r.get(4)?,
            open: r.get(5)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Every account, by id, on any connection.
pub fn accounts_on(conn: &Connection) -> Result<Vec<Account>, StoreError> {
    let mut q = conn.prepare("SELECT id, kind, balance, held FROM accounts ORDER BY id")?;
    let mut rows = q.query([])?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        let kind: String = r.get(1)?;
        out.push(Account { id: r.get::<_, i64>(0)? as u64, kind: parse(&kind)?, balance: r.get(2)?, held: r.get(3)? });
    }
    Ok(out)
}

/// What recovery reads, in bounded pieces.
impl SqliteStore {
    /// The tables' definitions.
    pub fn tables(&self) -> Result<Vec<TableRow>, StoreError> {
        tables_on(&self.conn)
    }

    /// Every account as the last commit left it.
    pub fn accounts(&self) -> Result<Vec<Account>, StoreError> {
        accounts_on(&self.conn)
    }

    /// Where history is read from: the archives, oldest first, then the live
    /// rows.
    fn history(&self) -> Vec<&Connection> {
        self.archives.iter().chain(std::iter::once(&self.conn)).collect()
    }

    /// Each transfer after id `after`, in order (archived ones too).
    pub fn each_transfer_after(
        &self,
        after: u64,
        mut f: impl FnMut(Transfer) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        crate::archive::each_paged(
            &self.history(),
            "SELECT id, debit, credit, amount, kind, memo, cause FROM transfers WHERE id > ?1 ORDER BY id LIMIT ?2",
            after as i64,
            &[],
            |r| {
                let t = transfer_of(r)?;
                let id = t.id as i64;
                f(t)?;
                Ok(Some(id))
            },
        )
    }

    /// Each record of a table's chain after sequence number `after`, in order
    /// (archived ones too).
    pub fn each_record_after(
        &self,
        table: u32,
        after: u64,
        mut f: impl FnMut(Record) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        crate::archive::each_paged(
            &self.history(),
            "SELECT seq, prev, body, hash FROM audit WHERE tbl = ?3 AND seq > ?1 ORDER BY seq LIMIT ?2",
            after as i64,
            &[&table],
            |r| {
                let rec = record_of(r)?;
                let seq = rec.seq as i64;
                f(rec)?;
                Ok(Some(seq))
            },
        )
    }

    /// One record of a chain (archived or live).
    pub fn record_at(&self, table: u32, seq: u64) -> Result<Option<Record>, StoreError> {
        for conn in self.history() {
            let r = conn
                .query_row(
                    "SELECT seq, prev, body, hash FROM audit WHERE tbl = ?1 AND seq = ?2",
                    params![table, seq as i64],
                    |r| record_of(r).map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e))),
                )
                .optional()?;
            if r.is_some() {
                return Ok(r);
            }
        }
        Ok(None)
    }

    /// The last transfer id written (archived or live).
    pub fn last_transfer(&self) -> Result<u64, StoreError> {
        let mut last = 0u64;
        for conn in self.history() {
            let m = conn.query_row("SELECT COALESCE(MAX(id), 0) FROM transfers", [], |r| r.get::<_, i64>(0))? as u64;
            last = last.max(m);
        }
        Ok(last)
    }

    /// The answers given at or after `since_ms`, oldest first. The log is in
    /// the order answers were given, so their times rise with the row: a binary
    /// search finds where the window starts (a minute early, in case the clock
    /// stepped back), and only the window is read. A key this misses after a
    /// larger step back is not lost: a key not in memory is looked up in the
    /// store (`keys.rs`). (It searched an hour early, and a start after a busy
    /// hour read every answer of that hour: 55% of a start on 80 M rows.)
    pub fn answers_since(&self, since_ms: u64) -> Result<Vec<AnswerRow>, StoreError> {
        let last: i64 = self.conn.query_row("SELECT COALESCE(MAX(rowid), 0) FROM answer_log", [], |r| r.get(0))?;
        // A time past i64 (none is) reads nothing rather than wrapping round.
        let since_ms = since_ms.min(i64::MAX as u64);
        let early = since_ms.saturating_sub(60_000) as i64;
        let mut at = self.conn.prepare("SELECT at_ms FROM answer_log WHERE rowid >= ?1 ORDER BY rowid LIMIT 1")?;
        let (mut lo, mut hi) = (1i64, last + 1);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let t: Option<i64> = at.query_row([mid], |r| r.get(0)).optional()?;
            if t.is_some_and(|t| t >= early) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        let mut q = self.conn.prepare(
            "SELECT CASE WHEN key_id IS NULL THEN key END, digest, answer, at_ms, cause, key_id, rowid
             FROM answer_log WHERE rowid >= ?1 AND at_ms >= ?2 ORDER BY rowid",
        )?;
        let mut rows = q.query(params![lo, since_ms as i64])?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            // The key's text is read only for rows written before its id was.
            let key: Option<String> = r.get(0)?;
            let key_id = match (r.get_ref(5)?.as_blob_or_null()?, &key) {
                (Some(b), _) => {
                    u128::from_le_bytes(b.try_into().map_err(|_| StoreError::Corrupt("an answer's key id".into()))?)
                }
                (None, Some(k)) => crate::ledger::key_id(k),
                (None, None) => return Err(StoreError::Corrupt("an answer without its key".into())),
            };
            let request: [u8; 32] = r
                .get_ref(1)?
                .as_blob()?
                .try_into()
                .map_err(|_| StoreError::Corrupt(format!("digest of answer {key_id:x}")))?;
            let cause = r.get_ref(4)?.as_str()?;
            let cause = Cause::parse(cause)
                .ok_or_else(|| StoreError::Corrupt(format!("answer {key_id:x}: unreadable cause {cause:?}")))?;
            out.push(AnswerRow {
                seq: r.get::<_, i64>(6)? as u64,
                key: key.unwrap_or_default(),
                key_id,
                request,
                answer: r.get(2)?,
                at_ms: r.get::<_, i64>(3)? as u64,
                cause,
            });
        }
        Ok(out)
    }

    /// The last answer's seq (0 if none).
    pub fn last_answer(&self) -> Result<u64, StoreError> {
        Ok(self.conn.query_row("SELECT COALESCE(MAX(rowid), 0) FROM answer_log", [], |r| r.get::<_, i64>(0))? as u64)
    }

    /// The latest complete checkpoint without its parts, if any (its body is
    /// the row's own: only older checkpoints have one).
    pub fn latest_checkpoint_seal(&self) -> Result<Option<StoredCheckpoint>, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT id, body, sha256, signature, public_key FROM checkpoints WHERE complete = 1
                 ORDER BY id DESC LIMIT 1",
                [],
                |r| {
                    Ok(StoredCheckpoint {
                        id: r.get(0)?,
                        body: r.get(1)?,
                        sha256: r.get(2)?,
                        signature: r.get(3)?,
                        public_key: r.get(4)?,
                    })
                },
            )
            .optional()?)
    }

    /// Part `n` of checkpoint `id`'s body, if it has one.
    pub fn checkpoint_part(&self, id: i64, n: u64) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self
            .conn
            .prepare_cached("SELECT data FROM checkpoint_parts WHERE checkpoint = ?1 AND n = ?2")?
            .query_row(params![id, n as i64], |r| r.get(0))
            .optional()?)
    }
}

impl SqliteStore {
    /// The last record of a table's chain, if any.
    pub fn head(&self, table: u32) -> Result<Option<Record>, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT seq, prev, body, hash FROM audit WHERE tbl = ?1 ORDER BY seq DESC LIMIT 1",
                [table],
                |r| Ok(Record { seq: r.get::<_, i64>(0)? as u64, prev: r.get(1)?, body: r.get(2)?, hash: r.get(3)? }),
            )
            .optional()?)
    }

    /// Direct access for tests that tamper with the file as an attacker would.
    pub fn connection(&self) -> &Connection {
        &self.conn
    }
}

/// Read one table's audit records from sequence number `from` on, on a
/// connection of its own (the game-recall route reads while the writer
/// writes), archived ones included.
/// The same, on either back end.
pub fn read_records_in(db: &Db, table: u32, from: u64) -> Result<Vec<Record>, StoreError> {
    match db {
        Db::Sqlite(path) => read_records(path, table, from),
        Db::Postgres(url) => {
            let store = crate::pg_store::PgStore::connect(url)?;
            let mut out = Vec::new();
            History::each_record_after(&store, table, from.saturating_sub(1), &mut |r| {
                out.push(r);
                Ok(())
            })?;
            Ok(out)
        }
    }
}

pub fn read_records(path: &Path, table: u32, from: u64) -> Result<Vec<Record>, StoreError> {
    let conn = crate::scan::open_read_only(path)?;
    let archives = crate::archive::open_archives(&conn, path)?;
    let sources: Vec<&Connection> = archives.iter().chain(std::iter::once(&conn)).collect();
    let mut out = Vec::new();
    crate::archive::each_paged(
        &sources,
        "SELECT seq, prev, body, hash FROM audit WHERE tbl = ?3 AND seq > ?1 ORDER BY seq LIMIT ?2",
        from as i64 - 1,
        &[&table],
        |r| {
            let rec = record_of(r)?;
            let seq = rec.seq as i64;
            out.push(rec);
            Ok(Some(seq))
        },
    )?;
    Ok(out)
}
