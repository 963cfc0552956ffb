//! What recovery reads, whatever the back end: the [`History`] trait, and
//! SQLite's implementation of it (PostgreSQL's is in `pg_store.rs`).

use crate::audit::Record;
use crate::ids::TableId;
use crate::ledger::{Account, AnswerRow, Transfer};
use crate::store::{SqliteStore, StoreError, StoredCheckpoint, TableRow};

/// What recovery reads (`casino/recover.rs`), in bounded pieces, whatever
/// the back end: [`SqliteStore`] and `pg_store::PgStore` each implement it,
/// and one recovery runs on both.
pub trait History {
    /// The tables' definitions, by id.
    fn tables(&self) -> Result<Vec<TableRow>, StoreError>;
    /// Every account as the last commit left it, by id.
    fn accounts(&self) -> Result<Vec<Account>, StoreError>;
    /// Each transfer after id `after`, in order.
    fn each_transfer_after(
        &self,
        after: u64,
        f: &mut dyn FnMut(Transfer) -> Result<(), StoreError>,
    ) -> Result<(), StoreError>;
    /// Each record of a table's chain after sequence number `after`, in order.
    fn each_record_after(
        &self,
        table: TableId,
        after: u64,
        f: &mut dyn FnMut(Record) -> Result<(), StoreError>,
    ) -> Result<(), StoreError>;
    /// The idempotency answers given at or after `since_ms`, oldest first.
    fn answers_since(&self, since_ms: u64) -> Result<Vec<AnswerRow>, StoreError>;
    /// The last answer's seq (0 if none).
    fn last_answer(&self) -> Result<u64, StoreError>;
    /// The last transfer id written (0 if none).
    fn last_transfer(&self) -> Result<u64, StoreError>;
    /// The latest complete checkpoint without its parts, if any: its body is
    /// the row's own, which only checkpoints older than migration 12 have.
    fn latest_checkpoint_seal(&self) -> Result<Option<StoredCheckpoint>, StoreError>;
    /// Part `n` (from 0) of checkpoint `id`'s body, if it has one.
    fn checkpoint_part(&self, id: i64, n: u64) -> Result<Option<Vec<u8>>, StoreError>;
    /// The latest complete checkpoint, if any, its body whole: the row's own
    /// followed by its parts in order. The parts are gathered first and copied
    /// once into a body of their exact size: grown part by part, a busy
    /// floor's 200 MB body was copied again at every doubling (6% of a start
    /// after `kill -9` under `loadgen`, in `memmove` and fresh pages).
    fn latest_checkpoint(&self) -> Result<Option<StoredCheckpoint>, StoreError> {
        let Some(mut c) = self.latest_checkpoint_seal()? else { return Ok(None) };
        let mut parts = Vec::new();
        while let Some(part) = self.checkpoint_part(c.id, parts.len() as u64)? {
            parts.push(part);
        }
        c.body.reserve_exact(parts.iter().map(Vec::len).sum());
        for part in parts {
            c.body.extend_from_slice(&part);
        }
        Ok(Some(c))
    }
    /// The last record of a table's chain, if any.
    fn head(&self, table: TableId) -> Result<Option<Record>, StoreError>;
    /// One record of a table's chain, if it exists.
    fn record_at(&self, table: TableId, seq: u64) -> Result<Option<Record>, StoreError>;
}

impl History for SqliteStore {
    fn tables(&self) -> Result<Vec<TableRow>, StoreError> {
        SqliteStore::tables(self)
    }
    fn accounts(&self) -> Result<Vec<Account>, StoreError> {
        SqliteStore::accounts(self)
    }
    fn each_transfer_after(
        &self,
        after: u64,
        f: &mut dyn FnMut(Transfer) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        SqliteStore::each_transfer_after(self, after, f)
    }
    fn each_record_after(
        &self,
        table: TableId,
        after: u64,
        f: &mut dyn FnMut(Record) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        SqliteStore::each_record_after(self, table, after, f)
    }
    fn answers_since(&self, since_ms: u64) -> Result<Vec<AnswerRow>, StoreError> {
        SqliteStore::answers_since(self, since_ms)
    }
    fn last_answer(&self) -> Result<u64, StoreError> {
        SqliteStore::last_answer(self)
    }
    fn last_transfer(&self) -> Result<u64, StoreError> {
        SqliteStore::last_transfer(self)
    }
    fn latest_checkpoint_seal(&self) -> Result<Option<StoredCheckpoint>, StoreError> {
        SqliteStore::latest_checkpoint_seal(self)
    }
    fn checkpoint_part(&self, id: i64, n: u64) -> Result<Option<Vec<u8>>, StoreError> {
        SqliteStore::checkpoint_part(self, id, n)
    }
    fn head(&self, table: TableId) -> Result<Option<Record>, StoreError> {
        SqliteStore::head(self, table)
    }
    fn record_at(&self, table: TableId, seq: u64) -> Result<Option<Record>, StoreError> {
        SqliteStore::record_at(self, table, seq)
    }
}
