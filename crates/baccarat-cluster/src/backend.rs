//! The store a server runs on, whichever it is: SQLite (the embedded
//! default, a file) or PostgreSQL (`postgres://…`). The writer, recovery and
//! the start-up checks take this one type; each call goes to the back end.
//! Here, above the store, because it names PostgreSQL's store: the store
//! itself (`store/`) knows only SQLite and the traits both implement.

use crate::audit::Record;
use crate::ledger::{Account, AnswerRow, Transfer};
use crate::pg_store::PgStore;
use crate::store::Head;
use crate::store::{
    CheckpointBody, CheckpointSeal, Commit, Db, History, Snapshot, SqliteStore, Store, StoreError, StoredCheckpoint,
    TableRow,
};
use baccarat_core::TableId;

/// Opening a [`Db`], either back end.
pub trait OpenDb {
    /// Open (creating and migrating if need be).
    fn open(&self) -> Result<AnyStore, StoreError>;
}

impl OpenDb for Db {
    fn open(&self) -> Result<AnyStore, StoreError> {
        Ok(match self {
            Db::Sqlite(p) => AnyStore::Sqlite(SqliteStore::open(p)?),
            Db::Postgres(url) => AnyStore::Postgres(PgStore::connect(url)?),
        })
    }
}

/// A store of either kind.
// A process holds a handful of stores (the writer's, the checkpointer's, a
// check's): the larger PostgreSQL variant costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
pub enum AnyStore {
    Sqlite(SqliteStore),
    Postgres(PgStore),
}

impl AnyStore {
    /// The SQLite store, if this is one (tools and tests that reach into the
    /// file).
    pub fn sqlite(&self) -> Option<&SqliteStore> {
        match self {
            AnyStore::Sqlite(s) => Some(s),
            AnyStore::Postgres(_) => None,
        }
    }

    /// SQLite's key index, checked against the log and caught up
    /// (`key_index.rs`; `retention_ms`, the keys' window, for the check);
    /// PostgreSQL has none of its own (its answer log's B-tree index finds
    /// keys).
    pub fn key_index(
        &mut self,
        retention_ms: u64,
    ) -> Result<Option<std::sync::Arc<crate::store::key_index::KeyIndex>>, StoreError> {
        match self {
            AnyStore::Sqlite(s) => s.index_keys_within(retention_ms).map(Some),
            AnyStore::Postgres(_) => Ok(None),
        }
    }
}

macro_rules! each {
    ($self:expr, $s:ident => $e:expr) => {
        match $self {
            AnyStore::Sqlite($s) => $e,
            AnyStore::Postgres($s) => $e,
        }
    };
}

impl Store for AnyStore {
    fn commit(&mut self, c: &Commit) -> Result<(), StoreError> {
        each!(self, s => s.commit(c))
    }
    fn load(&mut self) -> Result<Snapshot, StoreError> {
        each!(self, s => s.load())
    }
    fn write_checkpoint_parts(
        &mut self,
        head: &Head,
        body: &mut CheckpointBody<'_>,
        seal: &mut CheckpointSeal<'_>,
    ) -> Result<(), StoreError> {
        each!(self, s => s.write_checkpoint_parts(head, body, seal))
    }
}

impl History for AnyStore {
    fn tables(&self) -> Result<Vec<TableRow>, StoreError> {
        each!(self, s => History::tables(s))
    }
    fn accounts(&self) -> Result<Vec<Account>, StoreError> {
        each!(self, s => History::accounts(s))
    }
    fn each_transfer_after(
        &self,
        after: u64,
        f: &mut dyn FnMut(Transfer) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        each!(self, s => History::each_transfer_after(s, after, f))
    }
    fn each_record_after(
        &self,
        table: TableId,
        after: u64,
        f: &mut dyn FnMut(Record) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        each!(self, s => History::each_record_after(s, table, after, f))
    }
    fn answers_since(&self, since_ms: u64) -> Result<Vec<AnswerRow>, StoreError> {
        each!(self, s => History::answers_since(s, since_ms))
    }
    fn last_answer(&self) -> Result<u64, StoreError> {
        each!(self, s => History::last_answer(s))
    }
    fn last_transfer(&self) -> Result<u64, StoreError> {
        each!(self, s => History::last_transfer(s))
    }
    fn latest_checkpoint_seal(&self) -> Result<Option<StoredCheckpoint>, StoreError> {
        each!(self, s => History::latest_checkpoint_seal(s))
    }
    fn checkpoint_part(&self, id: i64, n: u64) -> Result<Option<Vec<u8>>, StoreError> {
        each!(self, s => History::checkpoint_part(s, id, n))
    }
    fn head(&self, table: TableId) -> Result<Option<Record>, StoreError> {
        each!(self, s => History::head(s, table))
    }
    fn record_at(&self, table: TableId, seq: u64) -> Result<Option<Record>, StoreError> {
        each!(self, s => History::record_at(s, table, seq))
    }
}

/// [`read_records`], on either back end.
pub fn read_records_in(db: &Db, table: TableId, from: u64) -> Result<Vec<Record>, StoreError> {
    match db {
        Db::Sqlite(path) => crate::store::read_records(path, table, from),
        Db::Postgres(url) => {
            let store = PgStore::connect(url)?;
            let mut out = Vec::new();
            History::each_record_after(&store, table, from.saturating_sub(1), &mut |r| {
                out.push(r);
                Ok(())
            })?;
            Ok(out)
        }
    }
}

/// Start the background checkpointer (`checkpoint::Checkpointer`) on its
/// own connection to `db`. Under a lease (several servers on PostgreSQL) it
/// writes only while the lease is this server's; on SQLite its connection
/// does not sync each write (`SqliteStore::relax_sync`).
pub fn start_checkpointer(
    db: &Db,
    key: crate::anchor::AnchorKey,
    anchors: &std::path::Path,
    lease: Option<crate::store::Lease>,
    busy: crate::casino::checkpoint::Busy,
) -> Result<crate::casino::checkpoint::Checkpointer, crate::casino::checkpoint::CheckpointerError> {
    let db = db.clone();
    let open = move || -> Result<AnyStore, StoreError> {
        let mut store = db.open()?;
        match (&mut store, lease) {
            (AnyStore::Sqlite(s), _) => s.relax_sync()?,
            (AnyStore::Postgres(s), Some(l)) => s.fence(l),
            (AnyStore::Postgres(_), None) => {}
        }
        Ok(store)
    };
    crate::casino::checkpoint::Checkpointer::start(open, key, anchors, busy)
}
