//! SQLite's schema: numbered migrations, each applied once in its own
//! transaction when the store opens (`PRAGMA user_version` counts those
//! applied), and the rows an older database is given once upgraded.

use crate::ids::TableId;
use rusqlite::params;

use super::{SqliteStore, StoreError};

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
    // 10: keys older than a couple of minutes are found on disk (`ledger/keys.rs`),
    // by their id. (Rows written before migration 9 without an id get one
    // when the store opens: see `fill_key_ids`.)
    "CREATE INDEX answer_log_key_id ON answer_log (key_id);",
    // 11: archives (`store/archive.rs`): each checkpoint's mark (where every chain
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
    // 13: a batch's records of each chain, and its transfers, in one row each
    // (`blocks.rs`: a row per record and per transfer was most of the
    // committer's work). The rows written before stay in `audit` and
    // `transfers`, and are read first (`logs.rs`).
    super::logs::SCHEMA,
    // 14: keys that left memory are found through a log-structured index of
    // their own (`store/key_index.rs`), written in order, instead of a B-tree index
    // on the answer log that dirtied a page per answer. The answers already
    // logged are indexed when a server next starts (`catch_up`).
    // A run's id is never used again (AUTOINCREMENT): a lookup holding the
    // runs as they were a moment ago reads a run's chunks or finds them gone,
    // never another run's.
    "CREATE TABLE key_runs (id INTEGER PRIMARY KEY AUTOINCREMENT, level INTEGER NOT NULL, state INTEGER NOT NULL,
       first_seq INTEGER NOT NULL, last_seq INTEGER NOT NULL, newest_ms INTEGER NOT NULL, keys INTEGER NOT NULL,
       chunks INTEGER NOT NULL);
     CREATE TABLE key_parts (id INTEGER PRIMARY KEY, data BLOB NOT NULL);
     CREATE TABLE key_index (id INTEGER PRIMARY KEY CHECK (id = 1), covered INTEGER NOT NULL);
     INSERT INTO key_index VALUES (1, 0);
     DROP INDEX IF EXISTS answer_log_key_id;",
    // 15: a person may be disabled (issue 47): they cannot sign in, and a
    // disabled player is paid nothing into. Everyone before is enabled.
    "ALTER TABLE users ADD COLUMN disabled INTEGER NOT NULL DEFAULT 0;",
];

impl SqliteStore {
    /// A mark for each checkpoint kept, read from its body (its signature is
    /// checked where it is used: an archive cuts only where the chains' own
    /// records agree, `store/archive.rs`).
    fn fill_marks(&mut self) -> Result<(), StoreError> {
        let tx = self.conn.transaction()?;
        {
            let mut q = tx.prepare("SELECT body FROM checkpoints ORDER BY id")?;
            let bodies: Vec<Vec<u8>> = q.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?;
            for body in bodies {
                let Ok(c) = serde_json::from_slice::<MarkOfCheckpoint>(&body) else { continue };
                crate::store::archive::write_mark(&tx, &c.mark())?;
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

    /// Refuse a database whose schema is newer than this binary's (a newer
    /// server migrated it): its tables may mean what this one cannot read,
    /// and a start would write into them as if they were its own. Read
    /// before anything is written; PostgreSQL refuses alike, in the same
    /// words (`pg_store::migrate_schema`).
    pub(super) fn refuse_newer(conn: &rusqlite::Connection) -> Result<(), StoreError> {
        let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        if version > SCHEMA_VERSION as i64 {
            return Err(StoreError::Corrupt(format!(
                "the database's schema is version {version}, newer than this server's {SCHEMA_VERSION}"
            )));
        }
        Ok(())
    }

    pub(super) fn migrate(&mut self) -> Result<(), StoreError> {
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
        // Migration 11 keeps a mark of each checkpoint (`store/archive.rs`): the
        // checkpoints already kept get theirs, so an upgraded database can be
        // archived without waiting for the next one.
        if (1..11).contains(&version) {
            self.fill_marks()?;
        }
        Ok(())
    }

    /// The schema version in force.
    pub fn version(&self) -> Result<usize, StoreError> {
        Ok(self.conn.query_row("PRAGMA user_version", [], |r| r.get(0))?)
    }
}

/// The part of a checkpoint's body a mark is read from (`checkpoint.rs`'s
/// `Checkpoint::mark`): the store reads only these fields, so that it needs
/// none of the casino's types.
#[derive(serde::Deserialize)]
struct MarkOfCheckpoint {
    at_ms: u64,
    last_transfer: u64,
    casino: ChainLength,
    tables: Vec<TableLength>,
}

#[derive(serde::Deserialize)]
struct ChainLength {
    len: u64,
}

#[derive(serde::Deserialize)]
struct TableLength {
    id: TableId,
    chain: ChainLength,
}

impl MarkOfCheckpoint {
    fn mark(&self) -> crate::store::archive::Mark {
        let tables = self.tables.iter().map(|t| (t.id, t.chain.len));
        crate::store::archive::Mark::of_chains(self.at_ms, self.last_transfer, self.casino.len, tables)
    }
}
