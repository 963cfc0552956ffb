//! The PostgreSQL store: the same contract as [`SqliteStore`](crate::store::SqliteStore)
//! (migrations that apply themselves, one transaction per batch, checkpoints
//! in parts, the [`History`](crate::store::History) recovery reads), on a database an operator
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
//!   archiving a month is detaching a partition (`archive.rs`). The months
//!   around now are created at open ([`PgStore::ensure_months`]), and the two
//!   ahead at each checkpoint ([`PgStore::ensure_months_ahead`]); a default
//!   partition takes anything outside them, so no commit fails for want of a
//!   partition.
//! * **Schema** mirrors SQLite's (`store.rs`), version in `baccarat_schema`.
//!
//! * **Partitions.** One database may hold several casinos' worth of tables,
//!   each partition in a schema of its own ([`partition_url`]), under its
//!   own lease, sharing the casino's people and the bank of players' money
//!   (`bank/`).
//!
//! `serve --db postgres://…` runs on it (`store/any.rs`); `migrate` and
//! `verify` read it (`migrate.rs`); several servers take its leases in turn
//! (`lease.rs`).

use baccarat_core::TableId;
use std::sync::{Mutex, MutexGuard};

use postgres::Client;

mod anchor_lines;
pub mod archive;
pub mod bank;
mod commit;
mod commit_one;
mod connect;
pub use connect::{connect_client, ConnectError, PROBE};
mod history;

use crate::audit::Record;
use crate::ledger::{Cause, Transfer};
use crate::store::{parse, StoreError};

/// A PostgreSQL result as the store's: `.pg()?` where the store's traits
/// want a [`StoreError`] (the error type is the durable floor's,
/// `baccarat-core`, which knows no PostgreSQL; so the conversion is named
/// here rather than a `From`).
pub trait PgResult<T> {
    fn pg(self) -> Result<T, StoreError>;
}

impl<T> PgResult<T> for Result<T, postgres::Error> {
    fn pg(self) -> Result<T, StoreError> {
        self.map_err(pg_error)
    }
}

impl<T> PgResult<T> for Result<T, ConnectError> {
    fn pg(self) -> Result<T, StoreError> {
        self.map_err(StoreError::from)
    }
}

/// A PostgreSQL error as the store's.
pub fn pg_error(e: postgres::Error) -> StoreError {
    // The error's own text is only "db error": name the server's message.
    match e.as_db_error() {
        _ if unreached(&e) => StoreError::Unreachable(e.to_string()),
        Some(db) => StoreError::Pg(format!("{} ({}): {}", db.message(), db.code().code(), db.detail().unwrap_or(""))),
        // No answer: the connection failed or closed (an I/O error
        // underneath), or something of the client's own (a value that
        // does not convert).
        None => StoreError::Pg(e.to_string()),
    }
}

/// The SQLSTATEs that say the database is out of reach, not refusing:
/// operator intervention's 57P01-57P03 and every code of class 08
/// (connection exception), as the `postgres` crate names them.
const OUT_OF_REACH: [postgres::error::SqlState; 10] = {
    use postgres::error::SqlState as S;
    [
        S::ADMIN_SHUTDOWN,
        S::CRASH_SHUTDOWN,
        S::CANNOT_CONNECT_NOW,
        S::CONNECTION_EXCEPTION,
        S::CONNECTION_DOES_NOT_EXIST,
        S::CONNECTION_FAILURE,
        S::SQLCLIENT_UNABLE_TO_ESTABLISH_SQLCONNECTION,
        S::SQLSERVER_REJECTED_ESTABLISHMENT_OF_SQLCONNECTION,
        S::TRANSACTION_RESOLUTION_UNKNOWN,
        S::PROTOCOL_VIOLATION,
    ]
};

/// Whether `e` is no answer from the database: the connection failed or
/// closed (an I/O error underneath; `target_session_attrs=read-write` with
/// no host allowing writes is one too), or the database is starting, in
/// recovery or shutting down (SQLSTATE 57P01-57P03, class 08: a node
/// restarted after a failover says so for a moment), rather than the
/// database's refusal or something of the client's own (a value that does
/// not convert).
pub(crate) fn unreached(e: &postgres::Error) -> bool {
    match e.as_db_error() {
        Some(db) => OUT_OF_REACH.contains(db.code()),
        None => e.is_closed() || std::error::Error::source(e).is_some_and(|s| s.is::<std::io::Error>()),
    }
}

/// The `CREATE TABLE` of the anchor lines' copy, for [`MIGRATIONS`] and
/// [`ANCHOR_LINES_TABLE`] alike (`concat!` takes only literals).
macro_rules! anchor_lines_table {
    () => {
        "CREATE TABLE anchor_lines (seq BIGINT PRIMARY KEY, line TEXT NOT NULL, at TIMESTAMPTZ NOT NULL DEFAULT now());\n"
    };
}

/// (People — `users`, `sessions` — are the casino's own schema's alone: a
/// partition drops its copies (`migrate`) and finds the casino's. A
/// migration that changes them runs once per schema, so it must leave the
/// casino's as it found them when run again: `IF NOT EXISTS`.)
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
    // 7: a partition's own server asks for its lease back from a server that
    // took it over (`Claim`): who asks, until when (renewed while it waits).
    "ALTER TABLE leases ADD COLUMN wanted_by TEXT NOT NULL DEFAULT '', ADD COLUMN wanted_until TIMESTAMPTZ;",
    // 8: archived months (`pg_store/archive.rs`): each log's months detached
    // from the live table, registered with their rows' digest, and read with
    // the live rows through a view per log (rebuilt by every archive).
    "CREATE TABLE archived_months (month TEXT NOT NULL, log TEXT NOT NULL, rows BIGINT NOT NULL,
       sha256 TEXT NOT NULL, from_default BOOLEAN NOT NULL, archived_at TIMESTAMPTZ NOT NULL DEFAULT now(),
       PRIMARY KEY (month, log));
     CREATE VIEW transfers_all AS SELECT id, debit, credit, amount, kind, memo, cause, at FROM transfers;
     CREATE VIEW audit_all AS SELECT tbl, seq, prev, body, hash, at FROM audit;
     CREATE VIEW answer_log_all AS SELECT seq, key, key_id, digest, answer, at_ms, cause, at FROM answer_log;",
    // 9: a person may be disabled (issue 47), as SQLite's 15. People are the
    // casino's schema's: run again for a partition, whose search path finds
    // the casino's table, it must change nothing (`IF NOT EXISTS`).
    "ALTER TABLE users ADD COLUMN IF NOT EXISTS disabled BOOLEAN NOT NULL DEFAULT false;",
    // 10: the database's copy of the anchor file's lines, by number
    // (`anchor_lines.rs`; issue 51: a server's machine lost with its file).
    // And the check that ends a batch sent as one statement
    // (`commit_one.rs`): an error, which undoes the statement, unless `ok`.
    concat!(
        anchor_lines_table!(),
        "CREATE FUNCTION baccarat_refuse(ok BOOLEAN) RETURNS BOOLEAN LANGUAGE plpgsql AS $$
       BEGIN IF NOT ok THEN RAISE EXCEPTION 'baccarat: batch refused'; END IF; RETURN true; END $$;"
    ),
    // 11: the index on the transfers' ids alone goes (issue 51 item 5): the
    // primary key (id, at) already serves every read by id (`id > $1 ORDER
    // BY id`, `MAX(id)`), and neither enforces that an id is unique (the
    // logs' ends do: migration 4). One index fewer to write per transfer.
    "DROP INDEX IF EXISTS transfers_id;",
];

/// The table of the database's copy of the anchor lines, as migration 10
/// makes it and as a new anchor file begins it again
/// (`anchor_lines.rs`: `set_anchor_copy_aside`).
const ANCHOR_LINES_TABLE: &str = anchor_lines_table!();

/// How a server claims the casino's lease ([`PgStore::take_casino_as`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Claim {
    /// Any server of the casino: it takes the lease when free or expired.
    Any,
    /// A partition's own server (`serve --partition`): while another holds
    /// the lease it asks for it, and no guest takes it meanwhile.
    Home,
    /// A server standing by for another's partition (`--standby-for`): it
    /// takes the lease only while the partition's own server does not ask
    /// for it, and gives it back when asked (`serve_turn.rs`).
    Guest,
}

/// The lease on the whole casino (its own chain's number): the server that
/// holds it serves every table; the others wait, sending clients to it
/// (`serve.rs`). While it is held, every commit and checkpoint proves it.
pub const CASINO_LEASE: TableId = crate::audit::CASINO_CHAIN;

/// The tables that hold a casino: a database with a row in any is not empty.
const CASINO_TABLES: [&str; 8] =
    ["tables", "accounts", "transfers", "audit", "answer_log", "checkpoints", "users", "sessions"];

pub use crate::store::Lease;

/// How long the making of a month's partition waits for each lock
/// ([`PgStore::ensure_months_ahead`]).
pub const MONTH_LOCK_WAIT: &str = "1s";

/// The advisory locks this server takes, each its own key (a session's
/// and a transaction's advisory locks share one space of keys): a
/// store's migrations, the bank's migrations (`bank/moves.rs`), and an
/// archive run (`archive.rs`).
pub(crate) const MIGRATION_LOCK: i64 = 7261;
pub(crate) const BANK_MIGRATION_LOCK: i64 = 7262;
pub(crate) const ARCHIVE_LOCK: i64 = 7263;
const _: () = assert!(
    MIGRATION_LOCK != BANK_MIGRATION_LOCK && ARCHIVE_LOCK != MIGRATION_LOCK && ARCHIVE_LOCK != BANK_MIGRATION_LOCK
);

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
    fences: std::collections::BTreeMap<TableId, Lease>,
    /// The commit's statements, prepared once on this connection: a
    /// statement sent as text is parsed by the server first, one more round
    /// trip for each of a batch's statements.
    prepared: std::collections::HashMap<&'static str, postgres::Statement>,
    /// The anchor lines this store's commits carry into the database's copy
    /// of them (`anchor_lines.rs`): the serving server's writer's store only.
    anchor_copy: Option<crate::anchor::Outbox>,
    /// Batches committed in one statement, and refused by it and sent by
    /// the statements that name why (`commit_one.rs`).
    one_statement: (u64, u64),
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
        let client = connect_client(url).pg()?;
        let s = PgStore {
            client: Mutex::new(Some(client)),
            fences: Default::default(),
            prepared: Default::default(),
            anchor_copy: None,
            one_statement: (0, 0),
        };
        s.migrate()?;
        s.ensure_months(now_ms())?;
        Ok(s)
    }

    /// Whether the database answers a no-op within `within` (a paused
    /// primary does not: `connect.rs`). A store that did not answer is owed
    /// that answer: drop it on a thread of its own (`lease.rs`).
    pub fn answers(&self, within: std::time::Duration) -> bool {
        self.c().is_valid(within).is_ok()
    }

    /// Batches this store committed in one statement, and those that
    /// statement refused (sent again by the statements that name why).
    pub fn one_statement(&self) -> (u64, u64) {
        self.one_statement
    }

    /// The schema version a fully migrated database has.
    pub const SCHEMA_VERSION: usize = MIGRATIONS.len();

    fn c(&self) -> Held<'_> {
        Held(self.client.lock().unwrap_or_else(|p| p.into_inner()))
    }

    fn migrate(&self) -> Result<(), StoreError> {
        let mut c = self.c();
        let mut tx = c.transaction().pg()?;
        // One migrator at a time, whichever server opens first.
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK]).pg()?;
        let path: String = tx.query_one("SELECT current_setting('search_path')", &[]).pg()?.get(0);
        let first = path.split(',').next().unwrap_or_default().trim().to_string();
        let Some(partition) = first.strip_prefix(PARTITION_SCHEMA).filter(|n| partition_name(n).is_ok()) else {
            return migrate_schema(&mut tx).and_then(|()| tx.commit().pg());
        };
        // A partition ([`partition_url`]): the casino's own schema first,
        // whose people (users, sessions) every partition shares, then the
        // partition's, made on its first start, without people of its own
        // (its search path finds the casino's).
        tx.batch_execute("SET LOCAL search_path TO public").pg()?;
        migrate_schema(&mut tx)?;
        tx.batch_execute(&format!("CREATE SCHEMA IF NOT EXISTS {PARTITION_SCHEMA}{partition}")).pg()?;
        tx.batch_execute(&format!("SET LOCAL search_path TO {path}")).pg()?;
        migrate_schema(&mut tx)?;
        tx.batch_execute(&format!("DROP TABLE IF EXISTS {first}.sessions, {first}.users")).pg()?;
        tx.commit().pg()?;
        Ok(())
    }

    /// The schema version in force.
    pub fn version(&self) -> Result<usize, StoreError> {
        Ok(self.c().query_one("SELECT version FROM baccarat_schema", &[]).pg()?.get::<_, i32>(0) as usize)
    }

    /// Make the monthly partitions of the month of `at_ms`, the one before and
    /// the two after, where missing. (A month whose rows already fell into the
    /// default partition is left there: PostgreSQL refuses a partition that
    /// would take rows from the default.)
    pub fn ensure_months(&self, at_ms: u64) -> Result<(), StoreError> {
        self.make_months(at_ms, -1..=2)
    }

    /// Make the partitions of the two months after that of `at_ms`, where
    /// missing: each checkpoint does, so that a server running for months
    /// never writes into the default partition (archiving a month is then
    /// detaching it: `archive.rs`).
    pub fn ensure_months_ahead(&self, at_ms: u64) -> Result<(), StoreError> {
        self.make_months(at_ms, 1..=2)
    }

    /// Make the partitions of the months `offsets` from that of `at_ms`.
    /// Making one locks the live table (and scans its default partition,
    /// empty but for months no one made), and the log's commits queue behind
    /// that lock while it is asked for: each lock is asked for at most
    /// [`MONTH_LOCK_WAIT`], and a month whose lock is busy is left for a later
    /// checkpoint or start (with two months ahead, there are many; a month
    /// never made has its rows in the default partition, which `archive`
    /// copies out).
    fn make_months(&self, at_ms: u64, offsets: std::ops::RangeInclusive<i64>) -> Result<(), StoreError> {
        let base = archive::Month::of_ms(at_ms);
        let mut c = self.c();
        for k in offsets {
            let month = base.after(k);
            for t in PARTITIONED {
                let name = month.table(t);
                // In the schema the connection writes to (a partition's has its
                // own, whatever the casino's schema after it in the path has).
                let exists: bool = c
                    .query_one("SELECT to_regclass(quote_ident(current_schema()) || '.' || $1) IS NOT NULL", &[&name])
                    .pg()?
                    .get(0);
                if exists {
                    continue;
                }
                let sql = format!(
                    "CREATE TABLE {name} PARTITION OF {t} FOR VALUES FROM ('{}') TO ('{}')",
                    month.start(),
                    month.next().start()
                );
                let mut tx = c.transaction().pg()?;
                tx.batch_execute(&format!("SET LOCAL lock_timeout = '{MONTH_LOCK_WAIT}'")).pg()?;
                if let Err(e) = tx.batch_execute(&sql).and_then(|()| tx.commit()) {
                    // Another server made it first, its rows are in the
                    // default, or its lock is busy now.
                    use postgres::error::SqlState;
                    let later = [
                        SqlState::DUPLICATE_TABLE,
                        SqlState::CHECK_VIOLATION,
                        SqlState::LOCK_NOT_AVAILABLE,
                        SqlState::T_R_DEADLOCK_DETECTED,
                    ];
                    if !e.code().is_some_and(|c| later.contains(c)) {
                        return Err(pg_error(e));
                    }
                }
            }
        }
        Ok(())
    }

    /// The partitions of a partitioned table, by name.
    pub fn partitions(&self, table: &str) -> Result<Vec<String>, StoreError> {
        partitions_of(&mut self.c(), table)
    }

    /// Take (or keep) table `table`'s lease for `owner`, for `ttl_ms`: granted
    /// if nobody holds it, it has expired, or `owner` already holds it. A
    /// change of owner raises the epoch, and from then on every commit under
    /// the old epoch is refused by the database itself (the conditional
    /// update in [`Store::commit`](crate::store::Store::commit)), whatever the old owner believes about
    /// its lease: a lock or a lease alone is not safe across a pause or a
    /// partition, a fencing token checked where the write lands is.
    /// Returns the lease if granted, and writes under it from now on.
    pub fn acquire(&mut self, table: TableId, owner: &str, ttl_ms: u64) -> Result<Option<Lease>, StoreError> {
        self.acquire_yielding(table, owner, ttl_ms, false)
    }

    /// As [`PgStore::acquire`]; with `yield_to_wanted`, an expired lease
    /// that a partition's own server asks for (`Claim::Home`) is left to it.
    fn acquire_yielding(
        &mut self,
        table: TableId,
        owner: &str,
        ttl_ms: u64,
        yield_to_wanted: bool,
    ) -> Result<Option<Lease>, StoreError> {
        let ttl = ttl_ms as i64;
        let row = self.c().query_opt(
            "INSERT INTO leases AS l (tbl, owner, epoch, expires_at) VALUES ($1, $2, 1, now() + $3::bigint * interval '1 millisecond')
             ON CONFLICT (tbl) DO UPDATE
               SET owner = excluded.owner,
                   epoch = CASE WHEN l.owner = excluded.owner THEN l.epoch ELSE l.epoch + 1 END,
                   expires_at = excluded.expires_at
               WHERE l.owner = excluded.owner
                  OR (l.expires_at < now() AND NOT ($4 AND COALESCE(l.wanted_until > now(), false)))
             RETURNING epoch",
            &[&(table.0 as i64), &owner, &ttl, &yield_to_wanted],
        ).pg()?;
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
        self.take_casino_as(owner, url, ttl_ms, Claim::Any)
    }

    /// As [`PgStore::take_casino`], claimed as `claim` says: a partition's
    /// own server that finds the lease held asks for it (until `ttl_ms` from
    /// now: it asks again at each try), and clears the asking once it has
    /// it; a guest leaves to it a lease it asks for.
    pub fn take_casino_as(
        &mut self,
        owner: &str,
        url: &str,
        ttl_ms: u64,
        claim: Claim,
    ) -> Result<Result<Lease, (String, String, i64)>, StoreError> {
        let t = CASINO_LEASE.0 as i64;
        if let Some(l) = self.acquire_yielding(CASINO_LEASE, owner, ttl_ms, claim == Claim::Guest)? {
            let clear = claim == Claim::Home;
            self.c()
                .execute(
                    "UPDATE leases SET url = $2,
                   wanted_by = CASE WHEN $3 THEN '' ELSE wanted_by END,
                   wanted_until = CASE WHEN $3 THEN NULL ELSE wanted_until END
                 WHERE tbl = $1",
                    &[&t, &url, &clear],
                )
                .pg()?;
            return Ok(Ok(l));
        }
        if claim == Claim::Home {
            self.c()
                .execute(
                    "UPDATE leases SET wanted_by = $2, wanted_until = now() + $3::bigint * interval '1 millisecond'
                 WHERE tbl = $1",
                    &[&t, &owner, &(ttl_ms as i64)],
                )
                .pg()?;
        }
        let r = self.c().query_opt("SELECT owner, url, epoch FROM leases WHERE tbl = $1", &[&t]).pg()?;
        Ok(Err(r.map_or((String::new(), String::new(), 0), |r| (r.get(0), r.get(1), r.get(2)))))
    }

    /// Who asks for the casino's lease that `owner` holds (a partition's own
    /// server, `Claim::Home`), if anyone does now.
    pub fn wanted_from(&self, owner: &str) -> Result<Option<String>, StoreError> {
        let r = self
            .c()
            .query_opt(
                "SELECT wanted_by FROM leases WHERE tbl = $1 AND owner = $2 AND wanted_by <> ''
               AND wanted_until > now()",
                &[&(CASINO_LEASE.0 as i64), &owner],
            )
            .pg()?;
        Ok(r.map(|r| r.get(0)))
    }

    /// The database's `synchronous_standby_names`: empty while its commits
    /// wait for no standby (one PostgreSQL, or pg_auto_failover's
    /// `wait_primary` after the standby was lost).
    pub fn synchronous_standby_names(&self) -> Result<String, StoreError> {
        let r = self.c().query_one("SELECT current_setting('synchronous_standby_names')", &[]).pg()?;
        Ok(r.get(0))
    }

    /// Write under a lease another connection took (the checkpointer's
    /// store writes under the server's lease): from now on each commit and
    /// checkpoint proves it, and a transaction of this connection left idle
    /// is ended by the database ([`end_idle_transactions`]).
    pub fn fence(&mut self, lease: Lease) {
        self.fences.insert(lease.table, lease);
        // Should this fail, the connection is broken, and its next
        // statement says so.
        let _ = end_idle_transactions(&mut self.c());
    }

    /// Every lease, by table (an operator's view of who owns what).
    pub fn leases(&self) -> Result<Vec<(Lease, bool)>, StoreError> {
        let rows = self.c().query("SELECT tbl, owner, epoch, expires_at > now() FROM leases ORDER BY tbl", &[]).pg()?;
        Ok(rows
            .iter()
            .map(|r| (Lease { table: TableId(r.get::<_, i64>(0) as u32), owner: r.get(1), epoch: r.get(2) }, r.get(3)))
            .collect())
    }

    /// The rows in each table that holds a casino, those not empty only.
    pub fn occupied(&self) -> Result<Vec<(&'static str, i64)>, StoreError> {
        let mut c = self.c();
        let mut out = Vec::new();
        for t in CASINO_TABLES {
            let n: i64 = c.query_one(&format!("SELECT COUNT(*) FROM {t}"), &[]).pg()?.get(0);
            if n > 0 {
                out.push((t, n));
            }
        }
        Ok(out)
    }

    /// Run `f` with every read it makes through this store seeing one
    /// snapshot (a read-only repeatable-read transaction).
    pub fn in_snapshot<T>(&self, f: impl FnOnce(&PgStore) -> T) -> Result<T, StoreError> {
        self.c().batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY").pg()?;
        let out = f(self);
        self.c().batch_execute("COMMIT").pg()?;
        Ok(out)
    }

    /// Run `f` on the connection (tests also tamper through it, as an
    /// attacker would).
    pub fn with_client<T>(&self, f: impl FnOnce(&mut Client) -> T) -> T {
        f(&mut self.c())
    }
}

/// The casino's partitions (each a schema, [`partition_url`]), by name.
pub(crate) fn partition_names(c: &mut impl postgres::GenericClient) -> Result<Vec<String>, postgres::Error> {
    let rows = c.query(
        "SELECT substr(nspname::text, $1) FROM pg_namespace WHERE starts_with(nspname::text, $2) ORDER BY nspname",
        &[&(PARTITION_SCHEMA.len() as i32 + 1), &PARTITION_SCHEMA],
    )?;
    Ok(rows.iter().map(|r| r.get::<_, String>(0)).filter(|n| partition_name(n).is_ok()).collect())
}

/// The partitions of a partitioned table, by name.
fn partitions_of(c: &mut Client, table: &str) -> Result<Vec<String>, StoreError> {
    let rows = c.query(
        "SELECT c.relname::text FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = to_regclass($1) ORDER BY c.relname",
        &[&table],
    ).pg()?;
    Ok(rows.iter().map(|r| r.get(0)).collect())
}

/// Bring the schema first in `tx`'s search path to the latest version.
fn migrate_schema(tx: &mut postgres::Transaction<'_>) -> Result<(), StoreError> {
    tx.batch_execute("CREATE TABLE IF NOT EXISTS baccarat_schema (version INTEGER NOT NULL)").pg()?;
    let version: Option<i32> = tx.query_opt("SELECT version FROM baccarat_schema", &[]).pg()?.map(|r| r.get(0));
    if version.is_none() {
        tx.execute("INSERT INTO baccarat_schema (version) VALUES (0)", &[]).pg()?;
    }
    let version = version.unwrap_or(0) as usize;
    if version > MIGRATIONS.len() {
        return Err(StoreError::Corrupt(format!(
            "the database's schema is version {version}, newer than this server's {}",
            MIGRATIONS.len()
        )));
    }
    for (i, m) in MIGRATIONS.iter().enumerate().skip(version) {
        tx.batch_execute(m).pg()?;
        tx.execute("UPDATE baccarat_schema SET version = $1", &[&((i + 1) as i32)]).pg()?;
    }
    archive::ensure_views(tx)
}

/// The schema of partition `name` is this prefix and the name.
pub const PARTITION_SCHEMA: &str = "baccarat_p_";

/// Why a partition's name or URL is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PartitionError {
    /// Not 1 to 40 lower-case letters, digits or `_`, beginning with a letter.
    #[error("partition {name:?}: 1 to 40 lower-case letters, digits or _, beginning with a letter")]
    Name { name: String },
    /// The casino's URL sets `options` itself.
    #[error("a partition's URL sets the search path itself: leave `options` out of --db")]
    Options,
}

/// A partition's name: 1 to 40 lower-case letters, digits or `_`, beginning
/// with a letter (it becomes part of a schema's name).
pub fn partition_name(name: &str) -> Result<&str, PartitionError> {
    let ok = (1..=40).contains(&name.len())
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if !ok {
        return Err(PartitionError::Name { name: name.to_string() });
    }
    Ok(name)
}

/// The URL of partition `name` of the casino at `url`: the same database,
/// with the partition's own schema first in the search path, so that every
/// connection made from it (the writer's, the checkpointer's, the lease's,
/// `verify`'s) reads and writes the partition's tables, and the casino's
/// own schema (`public`) after it, where the people every partition shares
/// are found. (`options=-c search_path=…`, which PostgreSQL sets for the
/// session.)
pub fn partition_url(url: &str, name: &str) -> Result<String, PartitionError> {
    let name = partition_name(name)?;
    if url.contains("options=") {
        return Err(PartitionError::Options);
    }
    let sep = if url.contains('?') { '&' } else { '?' };
    Ok(format!("{url}{sep}options=-c%20search_path%3D{PARTITION_SCHEMA}{name}%2Cpublic"))
}

/// How long the database lets a transaction of a connection that writes
/// under a lease wait for its next statement.
pub const IDLE_TRANSACTION_MS: u64 = 5_000;

/// Have the database end a transaction of connection `c` that waits more
/// than [`IDLE_TRANSACTION_MS`] for its next statement. Every commit, and
/// every move of the bank, locks its lease's row first: a network that
/// stalls after that statement would otherwise leave the row locked, with
/// the transaction open, until the database's TCP keepalive gives up (two
/// hours by default), and no standby could take the lease meanwhile. This
/// server's transactions never wait on anything but the network between
/// their statements.
pub fn end_idle_transactions(c: &mut Client) -> Result<(), postgres::Error> {
    c.batch_execute(&format!("SET idle_in_transaction_session_timeout = {IDLE_TRANSACTION_MS}"))
}

/// Milliseconds since the epoch, now.
fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// A record from a row of `seq, prev, body, hash` (the audit log's, or the
/// bank's: `bank/`).
pub(crate) fn record_of(r: &postgres::Row) -> Record {
    Record { seq: r.get::<_, i64>(0) as u64, prev: r.get(1), body: r.get(2), hash: r.get(3) }
}

fn transfer_of(r: &postgres::Row) -> Result<Transfer, StoreError> {
    let id: i64 = r.get(0);
    let kind: String = r.get(4);
    let cause: String = r.get(6);
    Ok(Transfer {
        id: crate::ledger::TransferId(id as u64),
        debit: crate::ledger::AccountId(r.get::<_, i64>(1) as u64),
        credit: crate::ledger::AccountId(r.get::<_, i64>(2) as u64),
        amount: baccarat_rules::Money(r.get(3)),
        kind: parse(&kind)?,
        memo: r.get(5),
        cause: Cause::parse(&cause)
            .ok_or_else(|| StoreError::Corrupt(format!("transfer {id}: unreadable cause {cause:?}")))?,
    })
}

/// This server's name in a lease's `owner` column (`lease.rs`): its instance and a nonce of this start,
/// so that a restarted server (or two started with one name) is a new owner
/// and raises the epoch.
pub fn owner_of(instance: &str) -> String {
    format!("{instance}#{}", baccarat_core::random_hex(4))
}

/// The instance named in an owner string.
pub fn instance_of(owner: &str) -> &str {
    owner.split('#').next().unwrap_or(owner)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Out of reach: the three of 57P and every connection exception the
    /// server sends (class 08); a refusal (a unique violation, a
    /// serialization failure, a read-only transaction) is not.
    #[test]
    fn out_of_reach_is_57p01_to_57p03_and_class_08() {
        use postgres::error::SqlState;
        for code in ["57P01", "57P02", "57P03", "08000", "08001", "08003", "08004", "08006", "08007", "08P01"] {
            assert!(OUT_OF_REACH.contains(&SqlState::from_code(code)), "{code}");
        }
        for code in ["23505", "40001", "25006", "57014", "0A000"] {
            assert!(!OUT_OF_REACH.contains(&SqlState::from_code(code)), "{code}");
        }
    }

    /// The month of a time, against dates worked out by hand.
    #[test]
    fn year_month_of_known_times() {
        let ym = |ms| archive::Month::of_ms(ms).label();
        assert_eq!(ym(0), "1970-01");
        assert_eq!(ym(951_782_400_000), "2000-02"); // 2000-02-29
        assert_eq!(ym(951_868_800_000), "2000-03"); // 2000-03-01
        assert_eq!(ym(1_795_996_800_000), "2026-11"); // 2026-11-30
        assert_eq!(ym(1_796_083_200_000), "2026-12"); // 2026-12-01
        assert_eq!(ym(1_798_761_599_999), "2026-12"); // 2026-12-31 23:59:59.999
        assert_eq!(ym(1_798_761_600_000), "2027-01");
    }
}
