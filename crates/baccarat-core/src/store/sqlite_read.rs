//! What is read back from SQLite: recovery's readers on [`SqliteStore`], in
//! bounded pieces and archived history included, a consistent snapshot for
//! the checks, and one table's records read on a connection of its own.

use crate::ids::TableId;
use std::path::Path;

use rusqlite::{params, Connection, OptionalExtension};

use super::{logs, parse, SqliteStore, StoreError, StoredCheckpoint, TableRow};
use crate::audit::Record;
use crate::ledger::{Account, AnswerRow, Cause, Transfer};

impl SqliteStore {
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
        out.push(Account {
            id: crate::ledger::AccountId(r.get::<_, i64>(0)? as u64),
            kind: parse(&kind)?,
            balance: r.get(2)?,
            held: r.get(3)?,
        });
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
        logs::each_transfer_in(&self.history(), after as i64, &mut |t| f(t).map(|()| true))
    }

    /// Each record of a table's chain after sequence number `after`, in order
    /// (archived ones too).
    pub fn each_record_after(
        &self,
        table: TableId,
        after: u64,
        mut f: impl FnMut(Record) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        logs::each_record_in(&self.history(), table, after as i64, &mut |r| f(r).map(|()| true))
    }

    /// One record of a chain (archived or live).
    pub fn record_at(&self, table: TableId, seq: u64) -> Result<Option<Record>, StoreError> {
        for conn in self.history() {
            if let Some(r) = logs::record_at(conn, table, seq)? {
                return Ok(Some(r));
            }
        }
        Ok(None)
    }

    /// The last transfer id written (archived or live).
    pub fn last_transfer(&self) -> Result<u64, StoreError> {
        let mut last = 0u64;
        for conn in self.history() {
            last = last.max(logs::last_transfer(conn)?);
        }
        Ok(last)
    }

    /// The answers given at or after `since_ms`, oldest first. The log is in
    /// the order answers were given, so their times rise with the row: a binary
    /// search finds where the window starts (a minute early, in case the clock
    /// stepped back), and only the window is read. A key this misses after a
    /// larger step back is not lost: a key not in memory is looked up in the
    /// store (`ledger/keys.rs`). (It searched an hour early, and a start after a busy
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
                (Some(b), _) => crate::ledger::KeyId::from_le_bytes(
                    b.try_into().map_err(|_| StoreError::Corrupt("an answer's key id".into()))?,
                ),
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
    pub fn head(&self, table: TableId) -> Result<Option<Record>, StoreError> {
        logs::head(&self.conn, table)
    }
}

/// Read one table's audit records from sequence number `from` on, on a
/// connection of its own (the game-recall route reads while the writer
/// writes), archived ones included.
pub fn read_records(path: &Path, table: TableId, from: u64) -> Result<Vec<Record>, StoreError> {
    let conn = crate::store::scan::open_read_only(path)?;
    let archives = crate::store::archive::open_archives(&conn, path)?;
    let sources: Vec<&Connection> = archives.iter().chain(std::iter::once(&conn)).collect();
    let mut out = Vec::new();
    logs::each_record_in(&sources, table, from as i64 - 1, &mut |r| {
        out.push(r);
        Ok(true)
    })?;
    Ok(out)
}
