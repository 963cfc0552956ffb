//! The PostgreSQL store: the same contract as [`SqliteStore`](crate::store::SqliteStore)
//! (migrations that apply themselves, one transaction per batch, checkpoints
//! in parts, the [`History`] recovery reads), on a database an operator
//! already runs, backs up and replicates.
//!
//! # Design
//!
//! * **Client crate: `postgres`** (the synchronous face of `tokio-postgres`).
//!   The writer and committer are plain threads that block on a commit by
//!   design (`writer.rs`), so a blocking client fits without a runtime hop,
//!   and `tokio-postgres` underneath is the most used, best kept PostgreSQL
//!   client in Rust (sqlx adds compile-time query checking we cannot use
//!   offline, and its advisory-lock guard releases late).
//! * **One batch, one transaction, one statement per table.** Transfers,
//!   audit records and answers go in with `INSERT … SELECT FROM UNNEST($1, …)`:
//!   a batch of thousands of rows is three round trips, not thousands.
//!   Every log's end moves in one more (`advance_all`), and the commit's
//!   statements are prepared once per connection, so a batch is a handful of
//!   round trips whatever the number of tables in it. (Prepared statements
//!   live in the session: a pooler in front of PostgreSQL must keep each of
//!   the server's connections whole, or support prepared statements.)
//! * **Partitioned by time.** `transfers`, `audit` and `answer_log` are
//!   range-partitioned by month on `at` (the commit's transaction time), so
//!   archiving a month is detaching a partition. The months around now are
//!   created at open ([`PgStore::ensure_months`]); a default partition takes
//!   anything outside them, so no commit fails for want of a partition.
//! * **Schema** mirrors SQLite's (`store.rs`), version in `baccarat_schema`.
//!
//! `serve --db postgres://…` runs on it (`store/any.rs`); `migrate` and
//! `verify` read it (`migrate.rs`). Not yet here (issue 14): several servers
//! on one database taking leases in turn, with shared wallets.

use std::sync::{Mutex, MutexGuard};

use postgres::{Client, NoTls};

use crate::audit::Record;
use crate::checkpoint::Head;
use crate::ledger::{Account, AccountId, AnswerRow, Cause, Transfer};
use crate::store::{
    json, parse, CheckpointBody, CheckpointSeal, Commit, History, Snapshot, Store, StoreError, StoredCheckpoint,
    TableRow, CHECKPOINTS_KEPT, PAGE,
};

impl From<postgres::Error> for StoreError {
    fn from(e: postgres::Error) -> StoreError {
        // The error's own text is only "db error": name the server's message.
        match e.as_db_error() {
            Some(db) => {
                StoreError::Pg(format!("{} ({}): {}", db.message(), db.code().code(), db.detail().unwrap_or("")))
            }
            None => StoreError::Pg(e.to_string()),
        }
    }
}

const MIGRATIONS: &[&str] = &[
    // 1: everything SQLite's migrations 1–12 make, at once.
    "CREATE TABLE accounts (id BIGINT PRIMARY KEY, kind TEXT NOT NULL UNIQUE, balance BIGINT NOT NULL,
       held BIGINT NOT NULL);
     CREATE TABLE transfers (id BIGINT NOT NULL, debit BIGINT NOT NULL, credit BIGINT NOT NULL,
       amount BIGINT NOT NULL, kind TEXT NOT NULL, memo TEXT NOT NULL, cause TEXT NOT NULL,
       at TIMESTAMPTZ NOT NULL DEFAULT now(), PRIMARY KEY (id, at)) PARTITION BY RANGE (at);
     CREATE TABLE transfers_default PARTITION OF transfers DEFAULT;
     CREATE INDEX transfers_id ON transfers (id);
     CREATE TABLE audit (tbl BIGINT NOT NULL, seq BIGINT NOT NULL, prev TEXT NOT NULL, body TEXT NOT NULL,
       hash TEXT NOT NULL, at TIMESTAMPTZ NOT NULL DEFAULT now(), PRIMARY KEY (tbl, seq, at))
       PARTITION BY RANGE (at);
     CREATE TABLE audit_default PARTITION OF audit DEFAULT;
     CREATE TABLE answer_log (seq BIGINT NOT NULL, key TEXT NOT NULL, key_id BYTEA NOT NULL,
       digest BYTEA NOT NULL, answer TEXT NOT NULL, at_ms BIGINT NOT NULL, cause TEXT NOT NULL,
       at TIMESTAMPTZ NOT NULL DEFAULT now(), PRIMARY KEY (seq, at)) PARTITION BY RANGE (at);
     CREATE TABLE answer_log_default PARTITION OF answer_log DEFAULT;
     CREATE INDEX answer_log_key_id ON answer_log (key_id);
     CREATE TABLE tables (id BIGINT PRIMARY KEY, name TEXT NOT NULL, rulebook TEXT NOT NULL,
       config TEXT NOT NULL, mode TEXT NOT NULL DEFAULT 'rng', open BOOLEAN NOT NULL DEFAULT true);
     CREATE TABLE checkpoints (id BIGSERIAL PRIMARY KEY, at_ms BIGINT NOT NULL, sha256 TEXT NOT NULL,
       signature TEXT NOT NULL, public_key TEXT NOT NULL, complete BOOLEAN NOT NULL DEFAULT false);
     CREATE TABLE checkpoint_parts (checkpoint BIGINT NOT NULL, n INTEGER NOT NULL, data BYTEA NOT NULL,
       PRIMARY KEY (checkpoint, n));
     CREATE TABLE marks (id BIGSERIAL PRIMARY KEY, at_ms BIGINT NOT NULL, last_transfer BIGINT NOT NULL,
       heads TEXT NOT NULL);",
    // 2: table leases with fencing epochs (`PgStore::acquire`).
    "CREATE TABLE leases (tbl BIGINT PRIMARY KEY, owner TEXT NOT NULL, epoch BIGINT NOT NULL,
       expires_at TIMESTAMPTZ NOT NULL);",
    // 3: people and their sessions (only token hashes), as SQLite's 3 and 7.
    "CREATE TABLE users (id BIGINT PRIMARY KEY, name TEXT NOT NULL UNIQUE, role TEXT NOT NULL,
       password TEXT NOT NULL);
     CREATE TABLE sessions (token_sha256 TEXT PRIMARY KEY, \"user\" BIGINT NOT NULL REFERENCES users (id),
       revoked BOOLEAN NOT NULL DEFAULT false, created_ms BIGINT NOT NULL DEFAULT 0,
       seen_ms BIGINT NOT NULL DEFAULT 0);",
    // 4: where each log ends (`log_heads`): a partitioned table's unique keys
    // must include its partition key, so PostgreSQL alone would not refuse a
    // second record 7 of a chain written in another month. Every commit moves
    // these heads with conditional updates instead.
    "CREATE TABLE log_heads (log TEXT PRIMARY KEY, last BIGINT NOT NULL);",
    // 5: a start reads the keys' retention window by answer time
    // (`answers_since`); times rise with the log, so this index only appends.
    "CREATE INDEX answer_log_at_ms ON answer_log (at_ms);",
    // 6: where the holder of a lease serves (the casino's lease: `take_casino`),
    // so that another server can send clients there.
    "ALTER TABLE leases ADD COLUMN url TEXT NOT NULL DEFAULT '';",
];

/// The lease on the whole casino (its own chain's number): the server that
/// holds it serves every table; the others wait, sending clients to it
/// (`serve.rs`). While it is held, every commit and checkpoint proves it.
pub const CASINO_LEASE: u32 = crate::audit::CASINO_CHAIN;

/// The tables that hold a casino: a database with a row in any is not empty.
const CASINO_TABLES: [&str; 8] =
    ["tables", "accounts", "transfers", "audit", "answer_log", "checkpoints", "users", "sessions"];

/// A table's lease, as this server holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lease {
    pub table: u32,
    pub owner: String,
    /// The fencing token: raised by one at every change of owner.
    pub epoch: i64,
}

/// The partitioned tables.
const PARTITIONED: [&str; 3] = ["transfers", "audit", "answer_log"];

/// A casino kept in PostgreSQL.
pub struct PgStore {
    /// `postgres::Client` queries through `&mut`, and [`History`] reads
    /// through `&self`; a store is used by one thread at a time, so the lock
    /// is never contended. (`None` only while the store is dropped.)
    client: Mutex<Option<Client>>,
    /// The leases this server writes under, by table: every commit that
    /// touches a table proves, in its own transaction, that the lease's
    /// epoch is still this one ([`PgStore::acquire`]). Empty: one server
    /// alone, unfenced.
    fences: std::collections::BTreeMap<u32, Lease>,
    /// The commit's statements, prepared once on this connection: a
    /// statement sent as text is parsed by the server first, one more round
    /// trip for each of a batch's statements.
    prepared: std::collections::HashMap<&'static str, postgres::Statement>,
}

/// `sql` prepared on this connection, from `cache` after the first time.
fn prepared(
    tx: &mut postgres::Transaction<'_>,
    cache: &mut std::collections::HashMap<&'static str, postgres::Statement>,
    sql: &'static str,
) -> Result<postgres::Statement, StoreError> {
    if let Some(s) = cache.get(sql) {
        return Ok(s.clone());
    }
    let s = tx.prepare(sql)?;
    cache.insert(sql, s.clone());
    Ok(s)
}

/// The client, locked.
struct Held<'a>(MutexGuard<'a, Option<Client>>);

impl std::ops::Deref for Held<'_> {
    type Target = Client;
    fn deref(&self) -> &Client {
        self.0.as_ref().expect("the client is open until the store is dropped")
    }
}

impl std::ops::DerefMut for Held<'_> {
    fn deref_mut(&mut self) -> &mut Client {
        self.0.as_mut().expect("the client is open until the store is dropped")
    }
}

/// The `postgres` client drives a runtime of its own, even to close, which
/// tokio forbids on its own threads: a store dropped there (a start that
/// failed part-way, in `serve`) closes its client on a thread of its own.
impl Drop for PgStore {
    fn drop(&mut self) {
        let client = self.client.get_mut().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(c) = client {
            if tokio::runtime::Handle::try_current().is_ok() {
                let _ = std::thread::Builder::new().name("postgres-close".into()).spawn(move || drop(c));
            }
        }
    }
}

impl PgStore {
    /// Connect to `url` (`postgres://user@host/db`; a Unix socket's directory
    /// as the host, percent-encoded) and migrate.
    pub fn connect(url: &str) -> Result<PgStore, StoreError> {
        let client = Client::connect(url, NoTls)?;
        let s = PgStore { client: Mutex::new(Some(client)), fences: Default::default(), prepared: Default::default() };
        s.migrate()?;
        s.ensure_months(now_ms())?;
        Ok(s)
    }

    /// The schema version a fully migrated database has.
    pub const SCHEMA_VERSION: usize = MIGRATIONS.len();

    fn c(&self) -> Held<'_> {
        Held(self.client.lock().unwrap_or_else(|p| p.into_inner()))
    }

    fn migrate(&self) -> Result<(), StoreError> {
        let mut c = self.c();
        let mut tx = c.transaction()?;
        // One migrator at a time, whichever server opens first.
        tx.execute("SELECT pg_advisory_xact_lock(7261)", &[])?;
        tx.batch_execute("CREATE TABLE IF NOT EXISTS baccarat_schema (version INTEGER NOT NULL)")?;
        let version: Option<i32> = tx.query_opt("SELECT version FROM baccarat_schema", &[])?.map(|r| r.get(0));
        if version.is_none() {
            tx.execute("INSERT INTO baccarat_schema (version) VALUES (0)", &[])?;
        }
        let version = version.unwrap_or(0) as usize;
        if version > MIGRATIONS.len() {
            return Err(StoreError::Corrupt(format!(
                "the database's schema is version {version}, newer than this server's {}",
                MIGRATIONS.len()
            )));
        }
        for (i, m) in MIGRATIONS.iter().enumerate().skip(version) {
            tx.batch_execute(m)?;
            tx.execute("UPDATE baccarat_schema SET version = $1", &[&((i + 1) as i32)])?;
        }
        tx.commit()?;
        Ok(())
    }

    /// The schema version in force.
    pub fn version(&self) -> Result<usize, StoreError> {
        Ok(self.c().query_one("SELECT version FROM baccarat_schema", &[])?.get::<_, i32>(0) as usize)
    }

    /// Make the monthly partitions of the month of `at_ms`, the one before and
    /// the two after, where missing. (A month whose rows already fell into the
    /// default partition is left there: PostgreSQL refuses a partition that
    /// would take rows from the default.)
    pub fn ensure_months(&self, at_ms: u64) -> Result<(), StoreError> {
        let (y, m) = year_month(at_ms);
        let month = y * 12 + (m - 1);
        let mut c = self.c();
        for k in month - 1..=month + 2 {
            let (from, to) = ((k / 12, k % 12 + 1), ((k + 1) / 12, (k + 1) % 12 + 1));
            for t in PARTITIONED {
                let name = format!("{t}_{:04}_{:02}", from.0, from.1);
                let exists: bool =
                    c.query_one("SELECT EXISTS (SELECT 1 FROM pg_class WHERE relname = $1)", &[&name])?.get(0);
                if exists {
                    continue;
                }
                let sql = format!(
                    "CREATE TABLE {name} PARTITION OF {t} FOR VALUES FROM ('{:04}-{:02}-01 00:00:00+00') TO ('{:04}-{:02}-01 00:00:00+00')",
                    from.0, from.1, to.0, to.1
                );
                if let Err(e) = c.batch_execute(&sql) {
                    // Another server made it first, or its rows are in the default.
                    let code = e.code().cloned();
                    if code != Some(postgres::error::SqlState::DUPLICATE_TABLE)
                        && code != Some(postgres::error::SqlState::CHECK_VIOLATION)
                    {
                        return Err(e.into());
                    }
                }
            }
        }
        Ok(())
    }

    /// The partitions of a partitioned table, by name.
    pub fn partitions(&self, table: &str) -> Result<Vec<String>, StoreError> {
        let rows = self.c().query(
            "SELECT c.relname::text FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
             JOIN pg_class p ON p.oid = i.inhparent WHERE p.relname = $1 ORDER BY c.relname",
            &[&table],
        )?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    /// Take (or keep) table `table`'s lease for `owner`, for `ttl_ms`: granted
    /// if nobody holds it, it has expired, or `owner` already holds it. A
    /// change of owner raises the epoch, and from then on every commit under
    /// the old epoch is refused by the database itself (the conditional
    /// update in [`Store::commit`]), whatever the old owner believes about
    /// its lease: a lock or a lease alone is not safe across a pause or a
    /// partition, a fencing token checked where the write lands is.
    /// Returns the lease if granted, and writes under it from now on.
    pub fn acquire(&mut self, table: u32, owner: &str, ttl_ms: u64) -> Result<Option<Lease>, StoreError> {
        let ttl = ttl_ms as i64;
        let row = self.c().query_opt(
            "INSERT INTO leases AS l (tbl, owner, epoch, expires_at) VALUES ($1, $2, 1, now() + $3::bigint * interval '1 millisecond')
             ON CONFLICT (tbl) DO UPDATE
               SET owner = excluded.owner,
                   epoch = CASE WHEN l.owner = excluded.owner THEN l.epoch ELSE l.epoch + 1 END,
                   expires_at = excluded.expires_at
               WHERE l.owner = excluded.owner OR l.expires_at < now()
             RETURNING epoch",
            &[&(table as i64), &owner, &ttl],
        )?;
        let lease = row.map(|r| Lease { table, owner: owner.to_string(), epoch: r.get(0) });
        match &lease {
            Some(l) => {
                self.fences.insert(table, l.clone());
            }
            None => {
                self.fences.remove(&table);
            }
        }
        Ok(lease)
    }

    /// Take (or renew) the casino's lease for `owner`, serving at `url`:
    /// the lease, or who holds it now (owner, url, epoch) if another server
    /// does and it has not expired.
    pub fn take_casino(
        &mut self,
        owner: &str,
        url: &str,
        ttl_ms: u64,
    ) -> Result<Result<Lease, (String, String, i64)>, StoreError> {
        if let Some(l) = self.acquire(CASINO_LEASE, owner, ttl_ms)? {
            self.c().execute("UPDATE leases SET url = $2 WHERE tbl = $1", &[&(CASINO_LEASE as i64), &url])?;
            return Ok(Ok(l));
        }
        let r = self.c().query_opt("SELECT owner, url, epoch FROM leases WHERE tbl = $1", &[&(CASINO_LEASE as i64)])?;
        Ok(Err(r.map_or((String::new(), String::new(), 0), |r| (r.get(0), r.get(1), r.get(2)))))
    }

    /// Write under a lease another connection took (the checkpointer's
    /// store writes under the server's lease): from now on each commit and
    /// checkpoint proves it.
    pub fn fence(&mut self, lease: Lease) {
        self.fences.insert(lease.table, lease);
    }

    /// Every lease, by table (an operator's view of who owns what).
    pub fn leases(&self) -> Result<Vec<(Lease, bool)>, StoreError> {
        let rows = self.c().query("SELECT tbl, owner, epoch, expires_at > now() FROM leases ORDER BY tbl", &[])?;
        Ok(rows
            .iter()
            .map(|r| (Lease { table: r.get::<_, i64>(0) as u32, owner: r.get(1), epoch: r.get(2) }, r.get(3)))
            .collect())
    }

    /// The rows in each table that holds a casino, those not empty only.
    pub fn occupied(&self) -> Result<Vec<(&'static str, i64)>, StoreError> {
        let mut c = self.c();
        let mut out = Vec::new();
        for t in CASINO_TABLES {
            let n: i64 = c.query_one(&format!("SELECT COUNT(*) FROM {t}"), &[])?.get(0);
            if n > 0 {
                out.push((t, n));
            }
        }
        Ok(out)
    }

    /// Run `f` on the connection: for tests that tamper as an attacker would.
    /// Run `f` with every read it makes through this store seeing one
    /// snapshot (a read-only repeatable-read transaction).
    pub fn in_snapshot<T>(&self, f: impl FnOnce(&PgStore) -> T) -> Result<T, StoreError> {
        self.c().batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")?;
        let out = f(self);
        self.c().batch_execute("COMMIT")?;
        Ok(out)
    }

    pub fn with_client<T>(&self, f: impl FnOnce(&mut Client) -> T) -> T {
        f(&mut self.c())
    }
}

/// Milliseconds since the epoch, now.
fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// The (year, month) of a time in ms since the epoch, in UTC.
fn year_month(at_ms: u64) -> (i64, i64) {
    let (y, m, _) = crate::civil::civil_date(at_ms);
    (y, m)
}

fn record_of(r: &postgres::Row) -> Record {
    Record { seq: r.get::<_, i64>(0) as u64, prev: r.get(1), body: r.get(2), hash: r.get(3) }
}

fn transfer_of(r: &postgres::Row) -> Result<Transfer, StoreError> {
    let id: i64 = r.get(0);
    let kind: String = r.get(4);
    let cause: String = r.get(6);
    Ok(Transfer {
        id: id as u64,
        debit: r.get::<_, i64>(1) as u64,
        credit: r.get::<_, i64>(2) as u64,
        amount: baccarat_rules::Money(r.get(3)),
        kind: parse(&kind)?,
        memo: r.get(5),
        cause: Cause::parse(&cause)
            .ok_or_else(|| StoreError::Corrupt(format!("transfer {id}: unreadable cause {cause:?}")))?,
    })
}

impl Store for PgStore {
    fn commit(&mut self, c: &Commit) -> Result<(), StoreError> {
        let PgStore { client, fences, prepared: cache } = self;
        let client = client.get_mut().unwrap_or_else(|p| p.into_inner());
        let mut tx = client.as_mut().expect("the client is open until the store is dropped").transaction()?;
        // The fence: each leased table this batch writes must still be under
        // this server's epoch. The update also locks the lease's row until the
        // commit, so a new owner's `acquire` waits for this batch and then
        // raises the epoch past it.
        let mut touched: std::collections::BTreeSet<u32> =
            c.records.iter().map(|(t, _)| *t).chain(c.tables.iter().map(|t| t.id)).collect();
        // Under the casino's lease every batch proves it, whatever it holds.
        if fences.contains_key(&CASINO_LEASE) {
            touched.insert(CASINO_LEASE);
        }
        for t in touched {
            let Some(l) = fences.get(&t) else { continue };
            let st =
                prepared(&mut tx, cache, "UPDATE leases SET tbl = tbl WHERE tbl = $1 AND owner = $2 AND epoch = $3")?;
            let held = tx.execute(&st, &[&(t as i64), &l.owner, &l.epoch])?;
            if held == 0 {
                let now: Option<(String, i64)> = tx
                    .query_opt("SELECT owner, epoch FROM leases WHERE tbl = $1", &[&(t as i64)])?
                    .map(|r| (r.get(0), r.get(1)));
                return Err(StoreError::Fenced(format!(
                    "table {t}: this server ({}) writes under epoch {}, but the lease is now {}; nothing of this batch was written",
                    l.owner,
                    l.epoch,
                    now.map_or("gone".to_string(), |(o, e)| format!("{o}'s, epoch {e}"))
                )));
            }
        }
        for t in &c.tables {
            let st = prepared(
                &mut tx,
                cache,
                "INSERT INTO tables (id, name, rulebook, config, mode, open) VALUES ($1, $2, $3, $4, $5, $6)
                 ON CONFLICT (id) DO UPDATE SET name = excluded.name, mode = excluded.mode, open = excluded.open",
            )?;
            tx.execute(&st, &[&(t.id as i64), &t.name, &t.rulebook, &t.config, &t.mode, &t.open])?;
        }
        // Columns of the batch's rows, each sent as one array.
        let (mut xid, mut xdebit, mut xcredit, mut xamount) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let (mut xkind, mut xmemo, mut xcause) = (Vec::new(), Vec::new(), Vec::new());
        let (mut aseq, mut akey, mut akid, mut adigest) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let (mut aanswer, mut aat, mut acause) = (Vec::new(), Vec::new(), Vec::new());
        let mut last: std::collections::BTreeMap<AccountId, &Account> = std::collections::BTreeMap::new();
        for ch in &c.ledger {
            for t in &ch.transfers {
                xid.push(t.id as i64);
                xdebit.push(t.debit as i64);
                xcredit.push(t.credit as i64);
                xamount.push(t.amount.0);
                xkind.push(json(&t.kind));
                xmemo.push(t.memo.clone());
                xcause.push(t.cause.encode());
            }
            for a in &ch.accounts {
                last.insert(a.id, a);
            }
            if let Some(a) = &ch.answer {
                aseq.push(a.seq as i64);
                akey.push(a.key.clone());
                akid.push(a.key_id.to_le_bytes().to_vec());
                adigest.push(a.request.to_vec());
                aanswer.push(a.answer.clone());
                aat.push(a.at_ms as i64);
                acause.push(a.cause.encode());
            }
        }
        // The logs' ends move forward only: each chain by exactly its new
        // records (no gap, no repeat), transfers and answers to higher ids.
        let mut chains: std::collections::BTreeMap<u32, (u64, u64)> = std::collections::BTreeMap::new();
        for (t, r) in &c.records {
            match chains.get_mut(t) {
                Some((_, last)) if r.seq == *last + 1 => *last = r.seq,
                Some((_, last)) => {
                    return Err(StoreError::Corrupt(format!(
                        "table {t}: record {} follows record {last} in one batch",
                        r.seq
                    )))
                }
                None => {
                    chains.insert(*t, (r.seq, r.seq));
                }
            }
        }
        let mut moves: Vec<Move> =
            chains.into_iter().map(|(t, (first, last))| (format!("audit:{t}"), first, last, true)).collect();
        if let (Some(first), Some(last)) = (xid.iter().min(), xid.iter().max()) {
            moves.push(("transfers".into(), *first as u64, *last as u64, false));
        }
        if let (Some(first), Some(last)) = (aseq.iter().min(), aseq.iter().max()) {
            moves.push(("answers".into(), *first as u64, *last as u64, false));
        }
        advance_all(&mut tx, cache, &moves)?;
        if !xid.is_empty() {
            let st = prepared(&mut tx, cache, "INSERT INTO transfers (id, debit, credit, amount, kind, memo, cause)
                 SELECT * FROM UNNEST($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[], $5::text[], $6::text[], $7::text[])")?;
            tx.execute(&st, &[&xid, &xdebit, &xcredit, &xamount, &xkind, &xmemo, &xcause])?;
        }
        if !aseq.is_empty() {
            let st = prepared(&mut tx, cache, "INSERT INTO answer_log (seq, key, key_id, digest, answer, at_ms, cause)
                 SELECT * FROM UNNEST($1::bigint[], $2::text[], $3::bytea[], $4::bytea[], $5::text[], $6::bigint[], $7::text[])")?;
            tx.execute(&st, &[&aseq, &akey, &akid, &adigest, &aanswer, &aat, &acause])?;
        }
        if !last.is_empty() {
            let ids: Vec<i64> = last.keys().map(|&id| id as i64).collect();
            let kinds: Vec<String> = last.values().map(|a| json(&a.kind)).collect();
            let balances: Vec<i64> = last.values().map(|a| a.balance).collect();
            let helds: Vec<i64> = last.values().map(|a| a.held).collect();
            let st = prepared(
                &mut tx,
                cache,
                "INSERT INTO accounts (id, kind, balance, held)
                 SELECT * FROM UNNEST($1::bigint[], $2::text[], $3::bigint[], $4::bigint[])
                 ON CONFLICT (id) DO UPDATE SET balance = excluded.balance, held = excluded.held",
            )?;
            tx.execute(&st, &[&ids, &kinds, &balances, &helds])?;
        }
        if !c.records.is_empty() {
            let tbl: Vec<i64> = c.records.iter().map(|(t, _)| *t as i64).collect();
            let seq: Vec<i64> = c.records.iter().map(|(_, r)| r.seq as i64).collect();
            let prev: Vec<&str> = c.records.iter().map(|(_, r)| r.prev.as_str()).collect();
            let body: Vec<&str> = c.records.iter().map(|(_, r)| r.body.as_str()).collect();
            let hash: Vec<&str> = c.records.iter().map(|(_, r)| r.hash.as_str()).collect();
            let st = prepared(
                &mut tx,
                cache,
                "INSERT INTO audit (tbl, seq, prev, body, hash)
                 SELECT * FROM UNNEST($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::text[])",
            )?;
            tx.execute(&st, &[&tbl, &seq, &prev, &body, &hash])?;
        }
        tx.commit()?;
        Ok(())
    }

    fn load(&mut self) -> Result<Snapshot, StoreError> {
        let mut snap = Snapshot { tables: self.tables()?, accounts: self.accounts()?, ..Snapshot::default() };
        self.each_transfer_after(0, &mut |t| {
            snap.transfers.push(t);
            Ok(())
        })?;
        let mut c = self.c();
        for r in c.query("SELECT key, digest, answer FROM answer_log ORDER BY seq", &[])? {
            let k: String = r.get(0);
            let d: Vec<u8> = r.get(1);
            let d: [u8; 32] = d.try_into().map_err(|_| StoreError::Corrupt(format!("digest of answer {k}")))?;
            snap.answers.push((k, d, r.get(2)));
        }
        for r in c.query("SELECT tbl, seq, prev, body, hash FROM audit ORDER BY tbl, seq", &[])? {
            let tbl: i64 = r.get(0);
            let rec = Record { seq: r.get::<_, i64>(1) as u64, prev: r.get(2), body: r.get(3), hash: r.get(4) };
            snap.records.push((tbl as u32, rec));
        }
        Ok(snap)
    }

    /// In parts, each its own transaction, marked complete last, as in
    /// SQLite (`store.rs`): a long transaction would hold back the vacuum of
    /// every row the writer updates meanwhile.
    fn write_checkpoint_parts(
        &mut self,
        s: &Head,
        body: &mut CheckpointBody<'_>,
        seal: &mut CheckpointSeal<'_>,
    ) -> Result<(), StoreError> {
        use sha2::Digest;
        let fence = self.fences.get(&CASINO_LEASE).cloned();
        let mut c = self.c();
        let id: i64 = c
            .query_one(
                "INSERT INTO checkpoints (at_ms, sha256, signature, public_key, complete) VALUES ($1, '', '', $2, false)
                 RETURNING id",
                &[&(s.at_ms as i64), &s.public_key],
            )?
            .get(0);
        let (mut n, mut hash) = (0i32, sha2::Sha256::new());
        body(&mut |part: &[u8]| {
            hash.update(part);
            c.execute("INSERT INTO checkpoint_parts (checkpoint, n, data) VALUES ($1, $2, $3)", &[&id, &n, &part])?;
            n += 1;
            Ok(())
        })?;
        let (sha256, signature) = seal(&baccarat_table::shuffle::hex(&hash.finalize()))?;
        let mut tx = c.transaction()?;
        // A checkpoint is marked complete only under the casino's lease, if
        // this store writes under one: a server that lost it writes none.
        if let Some(l) = &fence {
            let held = tx.execute(
                "UPDATE leases SET tbl = tbl WHERE tbl = $1 AND owner = $2 AND epoch = $3",
                &[&(CASINO_LEASE as i64), &l.owner, &l.epoch],
            )?;
            if held == 0 {
                return Err(StoreError::Fenced(format!(
                    "checkpoint: this server ({}) lost the casino's lease (epoch {})",
                    l.owner, l.epoch
                )));
            }
        }
        tx.execute(
            "UPDATE checkpoints SET sha256 = $2, signature = $3, complete = true WHERE id = $1",
            &[&id, &sha256, &signature],
        )?;
        let superseded = "id <= $1::bigint - $2::bigint OR (NOT complete AND id < $1::bigint)";
        tx.execute(
            &format!(
                "DELETE FROM checkpoint_parts WHERE checkpoint IN (SELECT id FROM checkpoints WHERE {superseded})"
            ),
            &[&id, &CHECKPOINTS_KEPT],
        )?;
        tx.execute(&format!("DELETE FROM checkpoints WHERE {superseded}"), &[&id, &CHECKPOINTS_KEPT])?;
        let heads = serde_json::to_string(&s.mark.heads).expect("heads serialise");
        tx.execute(
            "INSERT INTO marks (at_ms, last_transfer, heads) VALUES ($1, $2, $3)",
            &[&(s.mark.at_ms as i64), &(s.mark.last_transfer as i64), &heads],
        )?;
        tx.commit()?;
        Ok(())
    }
}

/// Move log `log`'s end to `last`, for rows starting at `first`: the end must
/// be `first - 1` exactly (`contiguous`: a chain), or below `first`; refused
/// otherwise, naming where the log ends. A log with no end yet starts at 1
/// (a chain) or anywhere (the others).
/// A log's end to move: `(log, first, last, contiguous)` as [`advance`] takes them.
type Move = (String, u64, u64, bool);

/// Move every log's end in one statement (a batch touches a log per busy
/// table: one round trip each cost the committer more than the rows did).
/// A log that did not move as asked — its first row, or a gap or repeat —
/// is then tried alone by [`advance`], which names what is wrong.
fn advance_all(
    tx: &mut postgres::Transaction<'_>,
    cache: &mut std::collections::HashMap<&'static str, postgres::Statement>,
    moves: &[Move],
) -> Result<(), StoreError> {
    if moves.is_empty() {
        return Ok(());
    }
    let logs: Vec<&str> = moves.iter().map(|m| m.0.as_str()).collect();
    let firsts: Vec<i64> = moves.iter().map(|m| m.1 as i64).collect();
    let lasts: Vec<i64> = moves.iter().map(|m| m.2 as i64).collect();
    let contiguous: Vec<bool> = moves.iter().map(|m| m.3).collect();
    let update = prepared(
        tx,
        cache,
        "UPDATE log_heads h SET last = v.last
         FROM UNNEST($1::text[], $2::bigint[], $3::bigint[], $4::bool[]) AS v(log, first, last, contiguous)
         WHERE h.log = v.log AND CASE WHEN v.contiguous THEN h.last = v.first - 1 ELSE h.last < v.first END
         RETURNING h.log",
    )?;
    let moved: std::collections::BTreeSet<String> =
        tx.query(&update, &[&logs, &firsts, &lasts, &contiguous])?.iter().map(|r| r.get(0)).collect();
    for (log, first, last, contiguous) in moves.iter().filter(|m| !moved.contains(&m.0)) {
        advance(tx, log, *first, *last, *contiguous)?;
    }
    Ok(())
}

fn advance(
    tx: &mut postgres::Transaction<'_>,
    log: &str,
    first: u64,
    last: u64,
    contiguous: bool,
) -> Result<(), StoreError> {
    let (first, last) = (first as i64, last as i64);
    let moved = if contiguous {
        tx.execute(
            "UPDATE log_heads SET last = $3::bigint WHERE log = $1 AND last = $2::bigint - 1",
            &[&log, &first, &last],
        )?
    } else {
        tx.execute(
            "UPDATE log_heads SET last = $3::bigint WHERE log = $1 AND last < $2::bigint",
            &[&log, &first, &last],
        )?
    };
    if moved == 1 {
        return Ok(());
    }
    let end: Option<i64> = tx.query_opt("SELECT last FROM log_heads WHERE log = $1", &[&log])?.map(|r| r.get(0));
    if end.is_none() && (!contiguous || first == 1) {
        tx.execute("INSERT INTO log_heads (log, last) VALUES ($1, $2)", &[&log, &last])?;
        return Ok(());
    }
    Err(StoreError::Corrupt(format!(
        "{log}: rows {first} to {last} do not follow its end ({}); nothing of this batch was written",
        end.map_or("none".to_string(), |e| e.to_string())
    )))
}

impl History for PgStore {
    fn tables(&self) -> Result<Vec<TableRow>, StoreError> {
        let rows = self.c().query("SELECT id, name, rulebook, config, mode, open FROM tables ORDER BY id", &[])?;
        Ok(rows
            .iter()
            .map(|r| TableRow {
                id: r.get::<_, i64>(0) as u32,
                name: r.get(1),
                rulebook: r.get(2),
                config: r.get(3),
                mode: r.get(4),
                open: r.get(5),
            })
            .collect())
    }

    fn accounts(&self) -> Result<Vec<Account>, StoreError> {
        let rows = self.c().query("SELECT id, kind, balance, held FROM accounts ORDER BY id", &[])?;
        rows.iter()
            .map(|r| {
                let kind: String = r.get(1);
                Ok(Account { id: r.get::<_, i64>(0) as u64, kind: parse(&kind)?, balance: r.get(2), held: r.get(3) })
            })
            .collect()
    }

    fn each_transfer_after(
        &self,
        after: u64,
        f: &mut dyn FnMut(Transfer) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let mut from = after as i64;
        loop {
            let rows = self.c().query(
                "SELECT id, debit, credit, amount, kind, memo, cause FROM transfers WHERE id > $1 ORDER BY id LIMIT $2",
                &[&from, &PAGE],
            )?;
            for r in &rows {
                let t = transfer_of(r)?;
                from = t.id as i64;
                f(t)?;
            }
            if (rows.len() as i64) < PAGE {
                return Ok(());
            }
        }
    }

    fn each_record_after(
        &self,
        table: u32,
        after: u64,
        f: &mut dyn FnMut(Record) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let mut from = after as i64;
        loop {
            let rows = self.c().query(
                "SELECT seq, prev, body, hash FROM audit WHERE tbl = $3 AND seq > $1 ORDER BY seq LIMIT $2",
                &[&from, &PAGE, &(table as i64)],
            )?;
            for r in &rows {
                let rec = record_of(r);
                from = rec.seq as i64;
                f(rec)?;
            }
            if (rows.len() as i64) < PAGE {
                return Ok(());
            }
        }
    }

    fn answers_since(&self, since_ms: u64) -> Result<Vec<AnswerRow>, StoreError> {
        let rows = self.c().query(
            "SELECT seq, key_id, digest, answer, at_ms, cause FROM answer_log WHERE at_ms >= $1 ORDER BY seq",
            // A time past i64 (none is) reads nothing rather than wrapping round.
            &[&(since_ms.min(i64::MAX as u64) as i64)],
        )?;
        rows.iter()
            .map(|r| {
                let seq = r.get::<_, i64>(0) as u64;
                let bad = |what: &str| StoreError::Corrupt(format!("answer {seq}: {what}"));
                let kid: Vec<u8> = r.get(1);
                let digest: Vec<u8> = r.get(2);
                let cause: String = r.get(5);
                Ok(AnswerRow {
                    seq,
                    key: String::new(),
                    key_id: u128::from_le_bytes(kid.try_into().map_err(|_| bad("its key id"))?),
                    request: digest.try_into().map_err(|_| bad("its digest"))?,
                    answer: r.get(3),
                    at_ms: r.get::<_, i64>(4) as u64,
                    cause: Cause::parse(&cause).ok_or_else(|| bad("its cause"))?,
                })
            })
            .collect()
    }

    fn last_answer(&self) -> Result<u64, StoreError> {
        Ok(self.c().query_one("SELECT COALESCE(MAX(seq), 0) FROM answer_log", &[])?.get::<_, i64>(0) as u64)
    }

    fn last_transfer(&self) -> Result<u64, StoreError> {
        Ok(self.c().query_one("SELECT COALESCE(MAX(id), 0) FROM transfers", &[])?.get::<_, i64>(0) as u64)
    }

    fn latest_checkpoint_seal(&self) -> Result<Option<StoredCheckpoint>, StoreError> {
        Ok(self
            .c()
            .query_opt(
                "SELECT id, sha256, signature, public_key FROM checkpoints WHERE complete ORDER BY id DESC LIMIT 1",
                &[],
            )?
            .map(|r| StoredCheckpoint {
                id: r.get(0),
                body: Vec::new(),
                sha256: r.get(1),
                signature: r.get(2),
                public_key: r.get(3),
            }))
    }

    fn checkpoint_part(&self, id: i64, n: u64) -> Result<Option<Vec<u8>>, StoreError> {
        // `n` is an INTEGER column; a part past it does not exist.
        let Ok(n) = i32::try_from(n) else { return Ok(None) };
        Ok(self
            .c()
            .query_opt("SELECT data FROM checkpoint_parts WHERE checkpoint = $1 AND n = $2", &[&id, &n])?
            .map(|r| r.get(0)))
    }

    fn head(&self, table: u32) -> Result<Option<Record>, StoreError> {
        Ok(self
            .c()
            .query_opt(
                "SELECT seq, prev, body, hash FROM audit WHERE tbl = $1 ORDER BY seq DESC LIMIT 1",
                &[&(table as i64)],
            )?
            .map(|r| record_of(&r)))
    }

    fn record_at(&self, table: u32, seq: u64) -> Result<Option<Record>, StoreError> {
        Ok(self
            .c()
            .query_opt(
                "SELECT seq, prev, body, hash FROM audit WHERE tbl = $1 AND seq = $2",
                &[&(table as i64), &(seq as i64)],
            )?
            .map(|r| record_of(&r)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The month of a time, against dates worked out by hand.
    #[test]
    fn year_month_of_known_times() {
        assert_eq!(year_month(0), (1970, 1));
        assert_eq!(year_month(951_782_400_000), (2000, 2)); // 2000-02-29
        assert_eq!(year_month(951_868_800_000), (2000, 3)); // 2000-03-01
        assert_eq!(year_month(1_795_996_800_000), (2026, 11)); // 2026-11-30
        assert_eq!(year_month(1_796_083_200_000), (2026, 12)); // 2026-12-01
        assert_eq!(year_month(1_798_761_599_999), (2026, 12)); // 2026-12-31 23:59:59.999
        assert_eq!(year_month(1_798_761_600_000), (2027, 1));
    }
}
