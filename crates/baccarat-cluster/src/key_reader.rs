//! Reading idempotency answers back from the store's answer log, on a
//! read-only connection of the writer's own: the keys that left memory
//! (`keys.rs` says when, and why this is safe).

use std::path::Path;
use std::sync::{Arc, Mutex};

use rusqlite::{Connection, OptionalExtension};

use crate::pg_store::PgResult;
use crate::store::key_index::KeyIndex;

use crate::ledger::keys::{AnswerRow, ColdKeys, KeyId};

mod grouped;
use crate::ledger::Cause;
use crate::store::StoreError;
pub use grouped::{Grouped, GROUP_SIZE, QUERY_SECONDS};

/// A read connection to the answer log, finding keys through the key index.
#[derive(Debug)]
pub struct KeyReader {
    conn: Mutex<Connection>,
    index: Arc<KeyIndex>,
}

const ROW: &str = "SELECT key_id, digest, answer, at_ms, cause FROM answer_log WHERE rowid = ?1";

/// Lookups started again after a run was merged away under them: one almost
/// always suffices.
const TRIES: usize = 8;

/// The PostgreSQL lookup: each key's latest answer from `$2` (ms) on.
///
/// A lookup asks for a few keys, so the key's index is always the way in.
/// Planned once for every lookup (a generic plan, chosen while `answer_log`
/// was still small), PostgreSQL sometimes read the month's whole partition
/// instead, or the window through `answer_log_at_ms`: 9 million and 5.5
/// million rows read in two 15 s `loadgen` rounds, lookups of 0.8 and 5 ms
/// instead of 0.3, the refusals waiting behind them (docs/performance.md).
/// So the window's condition is written `at_ms + 0`, which no index serves,
/// and the reader's session plans without sequential scans ([`READER`]).
pub const LOOKUP: &str = "SELECT DISTINCT ON (key_id) key_id, seq, digest, answer, at_ms, cause FROM answer_log
     WHERE key_id = ANY($1) AND at_ms + 0 >= $2 ORDER BY key_id, seq DESC";

/// The key reader's session: no sequential scan where an index serves (see
/// [`LOOKUP`]; the lookup is the only statement this connection runs).
pub const READER: &str = "SET enable_seqscan = off";

/// A connection for the key reader, its session set as [`READER`].
fn reader_client(url: &str) -> Result<postgres::Client, StoreError> {
    let mut c = crate::pg_store::connect_client(url).pg()?;
    c.batch_execute(READER).pg()?;
    Ok(c)
}

impl KeyReader {
    /// Open a read-only connection to the database at `path`, finding keys
    /// through `index` (the server's), or else through the index as stored
    /// now (a tool's or a test's view).
    pub fn open(path: &Path, index: Option<Arc<KeyIndex>>) -> Result<KeyReader, StoreError> {
        let conn = crate::store::scan::open_read_only(path)?;
        // The runs' chunks stay cached across one batch's reads (not
        // between batches: SQLite empties a connection's cache when its next
        // read finds that another connection has written the log since).
        conn.pragma_update(None, "cache_size", -32_000)?;
        let index = match index {
            Some(i) => i,
            None => Arc::new(KeyIndex::load(&conn)?),
        };
        Ok(KeyReader { conn: Mutex::new(conn), index })
    }

    /// The latest answers under `ids` at or after `since_ms`, from one
    /// snapshot.
    pub fn find_many(&self, ids: &[KeyId], since_ms: u64) -> Result<Vec<AnswerRow>, StoreError> {
        let mut c = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        for _ in 0..TRIES {
            // Nothing is read in this transaction before the index's lookup.
            let tx = c.transaction()?;
            let Some(seqs) = self.index.lookup(&tx, ids, since_ms)? else { continue };
            let mut found = Vec::new();
            {
                let mut q = tx.prepare_cached(ROW)?;
                for (id, seq) in seqs {
                    if let Some(r) = row_at(&mut q, id, seq, since_ms)? {
                        found.push(r);
                    }
                }
            }
            tx.finish()?;
            return Ok(found);
        }
        Err(StoreError::Corrupt(format!("the key index changed under {TRIES} lookups in a row")))
    }
}

/// The answer at `seq`, if it is under `id` (an index entry names a row; the
/// row is the truth) and at or after `since_ms`.
fn row_at(
    q: &mut rusqlite::CachedStatement<'_>,
    id: KeyId,
    seq: u64,
    since_ms: u64,
) -> Result<Option<AnswerRow>, StoreError> {
    let row = q
        .query_row([seq as i64], |r| {
            Ok((
                r.get::<_, Option<Vec<u8>>>(0)?,
                r.get::<_, Vec<u8>>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, i64>(3)?,
                r.get::<_, String>(4)?,
            ))
        })
        .optional()?;
    let Some((key_id, digest, answer, at_ms, cause)) = row else {
        return Ok(None); // archived: outside any window
    };
    if key_id.as_deref() != Some(&id.to_le_bytes()[..]) || (at_ms as u64) < since_ms {
        return Ok(None);
    }
    let request: [u8; 32] =
        digest.try_into().map_err(|_| StoreError::Corrupt(format!("digest of answer {seq} is not 32 bytes")))?;
    let cause =
        Cause::parse(&cause).ok_or_else(|| StoreError::Corrupt(format!("answer {seq}: unreadable cause {cause:?}")))?;
    Ok(Some(AnswerRow { seq, key: String::new(), key_id: id, request, answer, cause, at_ms: at_ms as u64 }))
}

impl ColdKeys for KeyReader {
    fn find(&self, ids: &[KeyId], since_ms: u64) -> Result<Vec<AnswerRow>, StoreError> {
        self.find_many(ids, since_ms)
    }

    fn admits(&self) -> Result<(), crate::store::key_index::Behind> {
        self.index.behind()
    }
}

/// The same reader on PostgreSQL: its own connection, one statement (one
/// snapshot) per lookup, the latest answer under each id in the window. A
/// connection the database closed (a restart) fails the lookups that find
/// it so, and is made again for the next (`pg_thread.rs` does the same).
pub struct PgKeyReader {
    url: String,
    /// Always `Some` until dropped (see `Drop`); with the lookup's statement
    /// once prepared.
    client: Mutex<Option<(postgres::Client, Option<postgres::Statement>)>>,
}

/// The blocking client drives a runtime of its own, which may not be entered
/// from the server's: a reader dropped there closes its connection on a
/// thread of its own (as `PgStore` does).
impl Drop for PgKeyReader {
    fn drop(&mut self) {
        if let Some((c, _)) = self.client.get_mut().unwrap_or_else(|p| p.into_inner()).take() {
            close(c);
        }
    }
}

/// Drop `c`, on a thread of its own if this one is the runtime's.
fn close(c: postgres::Client) {
    if tokio::runtime::Handle::try_current().is_ok() {
        let _ = std::thread::Builder::new().name("postgres-close".into()).spawn(move || drop(c));
    }
}

impl std::fmt::Debug for PgKeyReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PgKeyReader")
    }
}

impl PgKeyReader {
    pub fn connect(url: &str) -> Result<PgKeyReader, StoreError> {
        let client = reader_client(url)?;
        Ok(PgKeyReader { url: url.to_string(), client: Mutex::new(Some((client, None))) })
    }

    /// The latest answer under each of `ids` at or after `since_ms`, in one
    /// statement (one round trip, one snapshot) prepared once. (A
    /// transaction, a prepare and a query per key cost four round trips a
    /// key, behind this one connection: under `loadgen` the wagers refused
    /// without the writer queued here for seconds.)
    pub fn find_many(&self, ids: &[KeyId], since_ms: u64) -> Result<Vec<AnswerRow>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut guard = self.client.lock().unwrap_or_else(|p| p.into_inner());
        if guard.as_ref().is_some_and(|(c, _)| c.is_closed()) {
            let new = reader_client(&self.url)?;
            if let Some((old, _)) = guard.replace((new, None)) {
                close(old);
            }
        }
        let (c, statement) = guard.as_mut().ok_or_else(|| StoreError::Corrupt("the key reader is closed".into()))?;
        let statement = match statement {
            Some(s) => s.clone(),
            None => {
                let s = c.prepare(LOOKUP).pg()?;
                *statement = Some(s.clone());
                s
            }
        };
        let key_ids: Vec<Vec<u8>> = ids.iter().map(|id| id.to_le_bytes().to_vec()).collect();
        let since = since_ms.min(i64::MAX as u64) as i64;
        let mut found = Vec::new();
        for r in c.query(&statement, &[&key_ids, &since]).pg()? {
            let seq: i64 = r.get(1);
            let bad = |what: &str| StoreError::Corrupt(format!("answer {seq}: {what}"));
            let kid: Vec<u8> = r.get(0);
            let digest: Vec<u8> = r.get(2);
            let cause: String = r.get(5);
            found.push(AnswerRow {
                seq: seq as u64,
                key: String::new(),
                key_id: KeyId::from_le_bytes(kid.try_into().map_err(|_| bad("its key id is not 16 bytes"))?),
                request: digest.try_into().map_err(|_| bad("its digest is not 32 bytes"))?,
                answer: r.get(3),
                cause: Cause::parse(&cause).ok_or_else(|| bad("its cause is unreadable"))?,
                at_ms: r.get::<_, i64>(4) as u64,
            });
        }
        Ok(found)
    }
}

impl ColdKeys for PgKeyReader {
    fn find(&self, ids: &[KeyId], since_ms: u64) -> Result<Vec<AnswerRow>, StoreError> {
        self.find_many(ids, since_ms)
    }
}

/// The reader for a store of either kind; for SQLite, through `index` (the
/// server's: [`crate::store::SqliteStore::index_keys`]) if given. On
/// PostgreSQL the lookups made at once share one query ([`Grouped`]: the
/// early refusals', many at a time; the writer's come one at a time); on
/// SQLite each is a few microseconds' read of its own.
pub fn open(db: &crate::store::Db, index: Option<Arc<KeyIndex>>) -> Result<Arc<dyn ColdKeys>, StoreError> {
    Ok(match db {
        crate::store::Db::Sqlite(p) => std::sync::Arc::new(KeyReader::open(p, index)?),
        crate::store::Db::Postgres(url) => std::sync::Arc::new(Grouped::new(PgKeyReader::connect(url)?)),
    })
}

/// Put every key the PostgreSQL store at `url` answered at or after
/// `since_ms` into `into`, then mark it complete (`ledger/answered.rs`: the
/// server attaches it to the key memory first, so no answer falls between).
/// Streamed, a row at a time; returns how many keys it put in. On an error
/// the filter stays incomplete, and the refusals ask the store as before.
pub fn load_answered(url: &str, since_ms: u64, into: &crate::ledger::answered::Answered) -> Result<u64, StoreError> {
    use postgres::fallible_iterator::FallibleIterator;
    let mut c = crate::pg_store::connect_client(url).pg()?;
    let since = i64::try_from(since_ms).unwrap_or(i64::MAX);
    let mut rows = c.query_raw("SELECT key_id, at_ms FROM answer_log WHERE at_ms >= $1", [since]).pg()?;
    let mut n = 0;
    while let Some(r) = rows.next().pg()? {
        let kid: &[u8] = r.get(0);
        let id = KeyId::from_le_bytes(
            kid.try_into().map_err(|_| StoreError::Corrupt("an answer's key id is not 16 bytes".into()))?,
        );
        let at = r.get::<_, i64>(1).max(0) as u64;
        into.insert(id, at, at);
        n += 1;
    }
    into.completed(since_ms);
    Ok(n)
}
