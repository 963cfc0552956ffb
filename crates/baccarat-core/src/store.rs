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
//!
//! The files:
//! - `store.rs`: the [`Store`] trait and what it writes and reads ([`Commit`],
//!   [`Snapshot`], [`TableRow`], a checkpoint's parts), [`StoreError`], and
//!   [`SqliteStore`] and its opening;
//! - `store/migrations.rs`: SQLite's numbered migrations, run on open;
//! - `store/sqlite_commit.rs`: [`SqliteStore`]'s writes (its [`Store`]) and
//!   its WAL checkpoints in the background;
//! - `store/sqlite_read.rs`: what recovery and the checks read from SQLite, in
//!   bounded pieces;
//! - `store/logs.rs`: every read and write of the audit log and the transfers
//!   in SQLite, whether a row holds one record (or transfer) or a batch's
//!   (`store/blocks.rs`, the packed form and why);
//! - `store/history.rs`: the [`History`] trait, recovery's reads on either back
//!   end;
//! - `store/db.rs`: [`Db`], where a casino is kept (opened by `backend.rs`, above).

use crate::ids::TableId;
use std::path::Path;

use rusqlite::Connection;

use crate::audit::Record;
use crate::ledger::{Account, Changes, Transfer};

pub mod archive;
pub mod blocks;
mod db;
mod history;
pub mod key_index;
pub mod logs;
mod migrations;
pub mod scan;
mod sqlite_commit;
mod sqlite_read;
pub use db::{redact, Db};
pub use history::History;
pub use migrations::SCHEMA_VERSION;
pub use sqlite_read::{accounts_on, read_records, tables_on, PAGE};

/// A table as configured: recreated from this on restart.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableRow {
    pub id: TableId,
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
    pub records: Vec<(TableId, Record)>,
    /// The engine events among those records, with their table and sequence
    /// number (not stored: published to the feed after the commit, so that
    /// nothing re-reads the JSON).
    pub events: Vec<(TableId, u64, baccarat_table::Event)>,
    /// Moves of the shared bank made in the same transaction (a partition's
    /// returns: `casino/bank_side.rs`); PostgreSQL only.
    pub bank: Vec<crate::bank_log::Move>,
}

/// Everything read back on start.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    pub tables: Vec<TableRow>,
    pub accounts: Vec<Account>,
    pub transfers: Vec<Transfer>,
    pub answers: Vec<(String, [u8; 32], String)>,
    pub records: Vec<(TableId, Record)>,
}

pub use crate::store_error::StoreError;

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
        head: &Head,
        body: &mut CheckpointBody<'_>,
        seal: &mut CheckpointSeal<'_>,
    ) -> Result<(), StoreError>;

    /// Write a checkpoint already sealed, whole in memory.
    fn write_checkpoint(&mut self, c: &Sealed) -> Result<(), StoreError> {
        let mut body = |put: &mut PutPart<'_>| c.body.chunks(CHECKPOINT_PART_BYTES).try_for_each(&mut *put);
        // As sealed (a copy keeps its signature; a read checks both).
        let mut seal = |_: &str| Ok((c.sha256.clone(), c.signature.clone()));
        self.write_checkpoint_parts(&c.head(), &mut body, &mut seal)
    }
}

/// What a checkpoint's row says before its body: when it was taken, where it
/// stood, and the key that signs it.
#[derive(Clone, Debug)]
pub struct Head {
    pub at_ms: u64,
    pub mark: crate::store::archive::Mark,
    pub public_key: String,
}

/// A checkpoint ready for the store.
#[derive(Clone, Debug)]
pub struct Sealed {
    pub at_ms: u64,
    /// Where it stood, kept after it is superseded (`store/archive.rs` cuts there).
    pub mark: crate::store::archive::Mark,
    pub body: Vec<u8>,
    pub sha256: String,
    pub signature: String,
    pub public_key: String,
}

impl Sealed {
    pub fn head(&self) -> Head {
        Head { at_ms: self.at_ms, mark: self.mark.clone(), public_key: self.public_key.clone() }
    }
}

/// A table's lease, as this server holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lease {
    pub table: TableId,
    pub owner: String,
    /// The fencing token: raised by one at every change of owner.
    pub epoch: i64,
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

/// The size of one part of a checkpoint's body (migration 12).
pub const CHECKPOINT_PART_BYTES: usize = 1 << 20;

/// SQLite's own busy handler sleeps 1, 2, 5, 10, 15, 20, 25… ms between
/// tries: a commit that met the checkpoint thread's lock slept up to tens of
/// milliseconds after the lock was free. This one tries again every 200 µs,
/// for up to 30 s.
pub(crate) fn short_waits(tries: i32) -> bool {
    if tries >= 150_000 {
        return false;
    }
    std::thread::sleep(std::time::Duration::from_micros(200));
    true
}

pub struct SqliteStore {
    conn: Connection,
    /// The index of idempotency keys that this store feeds with each batch's
    /// answers, once a server asked for it ([`SqliteStore::index_keys`]).
    keys: Option<std::sync::Arc<crate::store::key_index::KeyIndex>>,
    /// The archive files history was moved to, oldest first (`store/archive.rs`):
    /// the history readers read them before the live rows.
    archives: Vec<Connection>,
}

impl SqliteStore {
    /// Open (creating if needed) and migrate; a schema newer than this
    /// binary's is refused first, before anything is written.
    pub fn open(path: &Path) -> Result<SqliteStore, StoreError> {
        let conn = Connection::open(path)?;
        SqliteStore::refuse_newer(&conn)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        // The checkpointer writes on a connection of its own: wait for it
        // rather than fail a commit, and try again soon.
        conn.busy_handler(Some(short_waits))?;
        let mut s = SqliteStore { conn, keys: None, archives: Vec::new() };
        s.migrate()?;
        s.archives = crate::store::archive::open_archives(&s.conn, path)?;
        Ok(s)
    }

    /// An in-memory store, for tests.
    pub fn memory() -> Result<SqliteStore, StoreError> {
        let mut s = SqliteStore { conn: Connection::open_in_memory()?, keys: None, archives: Vec::new() };
        s.migrate()?;
        Ok(s)
    }

    /// The index of idempotency keys (`store/key_index.rs`): answers after its
    /// last run indexed now, and from now on each batch's answers fed to it.
    /// Called once by a server before it serves; the same index after.
    pub fn index_keys(&mut self) -> Result<std::sync::Arc<crate::store::key_index::KeyIndex>, StoreError> {
        if let Some(k) = &self.keys {
            return Ok(k.clone());
        }
        crate::store::key_index::catch_up(&mut self.conn)?;
        let k = std::sync::Arc::new(crate::store::key_index::KeyIndex::load(&self.conn)?);
        self.keys = Some(k.clone());
        Ok(k)
    }

    /// Keep the key index (see [`SqliteStore::index_keys`]) on a thread of
    /// its own, with its own connection to `path`.
    ///
    /// First (once) the index is checked against the answer log, and
    /// rebuilt from it if they disagree ([`SqliteStore::repair_key_index`]).
    pub fn maintain_keys_in_background(&mut self, path: &Path, retention_ms: u64) -> Result<(), StoreError> {
        let index = self.index_keys_within(retention_ms)?;
        crate::store::key_index::Maintainer::spawn(path, index, retention_ms)
    }

    /// As [`SqliteStore::index_keys`], as a server starts: first (once) the
    /// index is checked against the answer log, and rebuilt from it if they
    /// disagree ([`SqliteStore::repair_key_index`]), with a warning.
    pub fn index_keys_within(
        &mut self,
        retention_ms: u64,
    ) -> Result<std::sync::Arc<crate::store::key_index::KeyIndex>, StoreError> {
        if self.keys.is_none() {
            if let Some(problem) = self.repair_key_index(retention_ms)? {
                tracing::warn!(%problem, "the key index is rebuilt from the answer log");
            }
        }
        self.index_keys()
    }

    /// Check the key index against the answer log (`key_index/check.rs`)
    /// and, if they disagree, drop its runs so that [`SqliteStore::index_keys`]
    /// indexes the whole log again. Gives what was wrong. Before the index
    /// is in use only.
    pub fn repair_key_index(&mut self, retention_ms: u64) -> Result<Option<String>, StoreError> {
        if self.keys.is_some() {
            return Err(StoreError::Corrupt("the key index is checked before it is in use".into()));
        }
        let problem = crate::store::key_index::check::check(&self.conn, retention_ms)?;
        if problem.is_some() {
            crate::store::key_index::check::drop_all(&mut self.conn)?;
        }
        Ok(problem)
    }

    /// Direct access for tests that tamper with the file as an attacker would.
    pub fn connection(&self) -> &Connection {
        &self.conn
    }
}

/// A stored JSON column's text (either back end writes rows this way).
pub fn json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).expect("serialises")
}

/// A stored JSON column read back; unreadable is [`StoreError::Corrupt`].
pub fn parse<T: serde::de::DeserializeOwned>(s: &str) -> Result<T, StoreError> {
    serde_json::from_str(s).map_err(|e| StoreError::Corrupt(format!("{e}: {s}")))
}
