//! Streaming readers over a read-only SQLite connection, for `verify`
//! (DESIGN 11: verify streams).
//!
//! Every reader walks a table in pages along its key (a chain's records and
//! the transfers through `store/logs.rs`, in rows or blocks; `answer_log`'s
//! rowid here), each page one index seek and a short range scan, so memory
//! holds one page, never a whole table, and a database of any size is read in
//! one pass per reader. The
//! queries name their columns, so columns and tables added by later
//! migrations do not disturb them.
//!
//! A verification reads inside one read transaction ([`Scan::begin`]): on a
//! live database (`/api/verify`) the writer keeps committing, and without it a
//! page read later would see transfers whose audit records were read before
//! they existed. In WAL mode the transaction costs the writer nothing; the
//! WAL just cannot be checkpointed past it until the verification ends.
//!
//! The one set `verify` needs — the transfer ids the idempotency answers name
//! — goes to a table in SQLite's temporary database ([`Scan::answered`]),
//! which spills to a temporary file past its page cache, and is read back in
//! id order to be merged with the transfers.

use crate::ids::TableId;
use std::path::Path;

use rusqlite::{params, Connection, OpenFlags};

use crate::audit::Record;
use crate::ledger::{Account, Transfer, TransferId};
use crate::slip_answers::SlipHold;
use crate::store::archive::each_paged;
use crate::store::{logs, Snapshot, SqliteStore, StoreError, TableRow};

/// Rows read per query.
pub const PAGE: i64 = 10_000;

/// The oldest schema a verification can read: transfers name their cause
/// from migration 6 on.
const OLDEST_SCHEMA: usize = 6;

/// Open a database file for reading only: nothing is migrated or written.
pub fn open_read_only(path: &Path) -> Result<Connection, StoreError> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX | OpenFlags::SQLITE_OPEN_URI,
    )?;
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    // The temporary set of answered ids spills to a file, not to memory.
    conn.pragma_update(None, "temp_store", "FILE")?;
    let version: usize = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version < OLDEST_SCHEMA {
        return Err(StoreError::Corrupt(format!(
            "schema version {version} is older than {OLDEST_SCHEMA}: start the server on it once to migrate it"
        )));
    }
    Ok(conn)
}

/// A snapshot held in memory, written to an in-memory database of the current
/// schema, so that it is verified by the same streaming code as a file.
pub fn store_snapshot(snap: &Snapshot) -> Result<SqliteStore, StoreError> {
    let store = SqliteStore::memory()?;
    let conn = store.connection();
    let tx = conn.unchecked_transaction()?;
    {
        let mut q =
            tx.prepare("INSERT INTO tables (id, name, rulebook, config, mode, open) VALUES (?1, ?2, ?3, ?4, ?5, ?6)")?;
        for t in &snap.tables {
            q.execute(params![t.id, t.name, t.rulebook, t.config, t.mode, t.open])?;
        }
        let mut q = tx.prepare("INSERT INTO accounts (id, kind, balance, held) VALUES (?1, ?2, ?3, ?4)")?;
        for a in &snap.accounts {
            q.execute(params![a.id.0 as i64, json(&a.kind), a.balance, a.held])?;
        }
        // Rows, not blocks: a snapshot may come from anywhere (a forged
        // one too), and is written as it is, for `verify` to name what is
        // wrong with it, where a block would refuse to hold it.
        let mut q = tx.prepare(
            "INSERT INTO transfers (id, debit, credit, amount, kind, memo, cause) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        for t in &snap.transfers {
            q.execute(params![
                t.id.0 as i64,
                t.debit.0 as i64,
                t.credit.0 as i64,
                t.amount.0,
                json(&t.kind),
                t.memo,
                t.cause.encode()
            ])?;
        }
        let mut q = tx.prepare("INSERT INTO answer_log (key, digest, answer) VALUES (?1, ?2, ?3)")?;
        for (k, d, a) in &snap.answers {
            q.execute(params![k, &d[..], a])?;
        }
        let mut q = tx.prepare("INSERT INTO audit (tbl, seq, prev, body, hash) VALUES (?1, ?2, ?3, ?4, ?5)")?;
        for (tbl, r) in &snap.records {
            q.execute(params![tbl, r.seq as i64, r.prev, r.body, r.hash])?;
        }
    }
    tx.commit()?;
    Ok(store)
}

fn json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).expect("serialises")
}

/// The readers over one connection, and the archive files history was moved
/// to (`store/archive.rs`), read before the live rows.
pub struct Scan<'c> {
    conn: &'c Connection,
    archives: Vec<Connection>,
}

impl<'c> Scan<'c> {
    /// Read the live rows only (an in-memory store has no archives).
    pub fn new(conn: &'c Connection) -> Scan<'c> {
        Scan { conn, archives: Vec::new() }
    }

    /// Read the archives the database at `db` registers, then its live rows.
    pub fn with_archives(conn: &'c Connection, db: &Path) -> Result<Scan<'c>, StoreError> {
        Ok(Scan { conn, archives: crate::store::archive::open_archives(conn, db)? })
    }

    fn history(&self) -> Vec<&Connection> {
        self.archives.iter().chain(std::iter::once(self.conn)).collect()
    }

    /// Start the read transaction every later read sees the database through.
    pub fn begin(&self) -> Result<(), StoreError> {
        self.conn.execute_batch("BEGIN DEFERRED")?;
        // A deferred transaction takes its snapshot at its first read.
        self.conn.query_row("SELECT count(*) FROM sqlite_schema", [], |_| Ok(()))?;
        Ok(())
    }

    /// End the read transaction (and drop the temporary set).
    pub fn end(&self) -> Result<(), StoreError> {
        self.conn.execute_batch("DROP TABLE IF EXISTS temp.answered; COMMIT")?;
        Ok(())
    }

    /// The tables' definitions, by id.
    pub fn tables(&self) -> Result<Vec<TableRow>, StoreError> {
        crate::store::tables_on(self.conn)
    }

    /// Every account, by id (what the ledger checks hold: O(accounts)).
    pub fn accounts(&self) -> Result<Vec<Account>, StoreError> {
        crate::store::accounts_on(self.conn)
    }

    /// Whether any chain has a record.
    pub fn has_records(&self) -> Result<bool, StoreError> {
        for c in self.history() {
            if logs::has_records(c)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// How many records a chain has (from the keys alone; a record still in
    /// both an archive and the live file counts once).
    pub fn count_records(&self, table: TableId) -> Result<u64, StoreError> {
        let mut after = 0i64;
        let mut n = 0u64;
        for c in self.history() {
            let (count, last) = logs::count_records(c, table, after)?;
            n += count;
            after = after.max(last.unwrap_or(after));
        }
        Ok(n)
    }

    /// Each record of a chain, in sequence order, until `f` says stop
    /// (returns `false`).
    pub fn each_record(
        &self,
        table: TableId,
        mut f: impl FnMut(Record) -> Result<bool, StoreError>,
    ) -> Result<(), StoreError> {
        logs::each_record_in(&self.history(), table, i64::MIN, &mut f)
    }

    /// Each transfer, in id order.
    pub fn each_transfer(&self, mut f: impl FnMut(Transfer) -> Result<(), StoreError>) -> Result<(), StoreError> {
        logs::each_transfer_in(&self.history(), i64::MIN, &mut |t| f(t).map(|()| true))
    }

    /// Each idempotency answer in the order it was given: its key and its
    /// answer's JSON, until `f` says stop.
    /// Each answer as `(key, answer, cause)`.
    pub fn each_answer(
        &self,
        mut f: impl FnMut(&str, &str, &str) -> Result<bool, StoreError>,
    ) -> Result<(), StoreError> {
        each_paged(
            &self.history(),
            "SELECT rowid, key, digest, answer, cause FROM answer_log WHERE rowid > ?1 ORDER BY rowid LIMIT ?2",
            i64::MIN,
            &[],
            |r| {
                let rowid: i64 = r.get(0)?;
                let key = r.get_ref(1)?.as_str().map_err(rusqlite::Error::from)?;
                if r.get_ref(2)?.as_blob().map_err(rusqlite::Error::from)?.len() != 32 {
                    return Err(StoreError::Corrupt(format!("digest of answer {key}")));
                }
                let answer = r.get_ref(3)?.as_str().map_err(rusqlite::Error::from)?;
                let go = f(key, answer, r.get_ref(4)?.as_str().map_err(rusqlite::Error::from)?)?;
                Ok(go.then_some(rowid))
            },
        )
    }

    /// A fresh, empty set of answered transfer ids in the temporary database.
    pub fn answered(&self) -> Result<Answered<'c>, StoreError> {
        self.conn.execute_batch(
            "DROP TABLE IF EXISTS temp.answered;
                 CREATE TEMP TABLE answered (id INTEGER PRIMARY KEY, key TEXT, cause TEXT, player INTEGER)",
        )?;
        Ok(Answered { conn: self.conn, page: std::collections::VecDeque::new(), after: i64::MIN, done: false })
    }
}

/// Transfer ids named by idempotency answers, kept in SQLite's temporary
/// database: added in any order, then read back in id order. A slip's holds
/// carry what its answer says each is (`slip_answers.rs`).
pub struct Answered<'c> {
    conn: &'c Connection,
    /// Ids are compared as SQLite keeps them (`i64`), the order both sides
    /// are read in.
    page: std::collections::VecDeque<(i64, Option<SlipHold>)>,
    after: i64,
    done: bool,
}

impl Answered<'_> {
    /// Add ids (a repeat is kept once).
    pub fn add(&self, ids: &[TransferId]) -> Result<(), StoreError> {
        let mut q = self.conn.prepare_cached("INSERT OR IGNORE INTO temp.answered (id) VALUES (?1)")?;
        for id in ids {
            q.execute([id.0 as i64])?;
        }
        Ok(())
    }

    /// Add a slip's holds, each with what its answer says it is (a repeat
    /// takes the slip's word: a slip's holds are named by its answer alone).
    pub fn add_slip(&self, holds: &[(TransferId, SlipHold)]) -> Result<(), StoreError> {
        let mut q = self
            .conn
            .prepare_cached("INSERT OR REPLACE INTO temp.answered (id, key, cause, player) VALUES (?1, ?2, ?3, ?4)")?;
        for (id, h) in holds {
            q.execute(params![id.0 as i64, h.key, h.cause, h.player])?;
        }
        Ok(())
    }

    /// Whether `id` is in the set, and if a slip's answer named it, what it
    /// said the hold is. The ids asked about must rise (as the transfers are
    /// read, by their stored `i64`): the set is read once, in order, alongside
    /// them (a merge).
    pub fn next(&mut self, id: TransferId) -> Result<Option<Option<SlipHold>>, StoreError> {
        let id = id.0 as i64;
        loop {
            match self.page.front() {
                Some((a, _)) if *a < id => {
                    self.page.pop_front();
                }
                Some((a, _)) if *a > id => return Ok(None),
                Some(_) => return Ok(self.page.pop_front().map(|(_, h)| h)),
                None if self.done => return Ok(None),
                None => self.fetch()?,
            }
        }
    }

    fn fetch(&mut self) -> Result<(), StoreError> {
        let mut q = self
            .conn
            .prepare_cached("SELECT id, key, cause, player FROM temp.answered WHERE id > ?1 ORDER BY id LIMIT ?2")?;
        let rows = q.query_map(params![self.after, PAGE], |r| {
            let hold = match (r.get::<_, Option<String>>(1)?, r.get::<_, Option<String>>(2)?, r.get(3)?) {
                (Some(key), Some(cause), Some(player)) => Some(SlipHold { key, cause, player }),
                _ => None,
            };
            Ok((r.get::<_, i64>(0)?, hold))
        })?;
        for row in rows {
            let row = row?;
            self.after = row.0;
            self.page.push_back(row);
        }
        self.done = (self.page.len() as i64) < PAGE;
        Ok(())
    }
}

/// Every table's chain read from its start, whatever the back end: a SQLite
/// [`Scan`] (archives first), or any [`crate::store::History`] (PostgreSQL).
/// What reads whole chains outside `verify` (an inspector's recall of voids,
/// a promotion's entries) reads through this.
pub trait Chains {
    fn chain_tables(&self) -> Result<Vec<TableRow>, StoreError>;
    /// Each record of a chain, in order, until `f` says stop (`false`).
    fn each_in_chain(
        &self,
        table: TableId,
        f: &mut dyn FnMut(Record) -> Result<bool, StoreError>,
    ) -> Result<(), StoreError>;
}

impl Chains for Scan<'_> {
    fn chain_tables(&self) -> Result<Vec<TableRow>, StoreError> {
        self.tables()
    }
    fn each_in_chain(
        &self,
        table: TableId,
        f: &mut dyn FnMut(Record) -> Result<bool, StoreError>,
    ) -> Result<(), StoreError> {
        self.each_record(table, f)
    }
}

/// A [`crate::store::History`] read as [`Chains`] (it pages to the end of a
/// chain; records after a stop are skipped).
pub struct HistoryChains<'a>(pub &'a dyn crate::store::History);

impl Chains for HistoryChains<'_> {
    fn chain_tables(&self) -> Result<Vec<TableRow>, StoreError> {
        self.0.tables()
    }
    fn each_in_chain(
        &self,
        table: TableId,
        f: &mut dyn FnMut(Record) -> Result<bool, StoreError>,
    ) -> Result<(), StoreError> {
        let mut going = true;
        self.0.each_record_after(table, 0, &mut |r| {
            if going {
                going = f(r)?;
            }
            Ok(())
        })
    }
}
