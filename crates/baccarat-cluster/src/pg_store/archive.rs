//! Archiving on PostgreSQL (`baccarat archive --db postgres://…`): each
//! whole UTC month of the logs taken out of the live tables, and still read
//! by everything that reads the whole history.
//!
//! # Design
//!
//! The logs (`transfers`, `audit`, `answer_log`) are range-partitioned by
//! month on `at`, the time of the commit's transaction (`pg_store.rs`). On
//! SQLite an archived month goes to a file of its own (`archive.rs`); here it
//! stays in the database, where every server of the casino still reads it,
//! and PostgreSQL's own tools look after it.
//!
//! * **Archiving a month is detaching its partition.** `ALTER TABLE audit
//!   DETACH PARTITION audit_2026_09` moves no row: the month becomes a table
//!   of its own. It leaves the live table's partitions, so the commit's
//!   inserts, the key lookups and the start's reads of the keys' window
//!   (`answers_since`) never plan for it, scan it or lock it again.
//! * **Still read, through a view per log.** `audit_all`, `transfers_all` and
//!   `answer_log_all` are the live table and every archived month, `UNION
//!   ALL`. Every reader of the whole history reads them: a full replay (a
//!   refused checkpoint), `verify`'s export, `migrate`'s check, the bank's
//!   check of a partition. Each branch keeps its own indexes, so a chain read
//!   by sequence is an ordered merge of index scans. Each archive rebuilds the
//!   views in the transaction that detaches, so a reader sees a month in the
//!   live table or in the views' archived part, never in both or neither.
//! * **Which months.** A log's months that ended before the cut
//!   (`--older-than-days`) and hold rows. The answers' months must also have
//!   ended before the keys' retention window: a retry must find its key in
//!   the live table (`key_reader.rs`). Nothing here needs a checkpoint: an
//!   archived month is read where it is.
//! * **Registered, with a digest.** `archived_months` holds each (month, log)
//!   with its row count and the SHA-256 of its rows in key order. `verify`
//!   recomputes it: a month altered, emptied or dropped after archiving is
//!   named (the chains and the ledger name what it broke). A month dropped
//!   with `CASCADE` takes the views with it; the next connection rebuilds them
//!   from the months still there ([`ensure_views`]), and `verify` names the
//!   missing one.
//! * **Locks.** The month's partition is locked against writes (`SHARE`, which
//!   no live commit needs) while its digest is taken, so the digest is of the
//!   rows detached. `DETACH` then takes the live table's `ACCESS EXCLUSIVE`
//!   lock for the rest of its short transaction (detach, register, rebuild the
//!   views): commits wait that long. It waits at most [`LOCK_WAIT`] for the
//!   lock, so an archive queued behind a long transaction does not hold the
//!   commits queued behind it; it then stops, naming why, and can be run
//!   again. (`DETACH … CONCURRENTLY` is not allowed beside a default
//!   partition.) The migrations' advisory lock is taken only then too, so a
//!   server's start is never held by a digest.
//! * **The default partition.** A month whose partition was never made (a
//!   server started before the month was made, and the month came before any
//!   checkpoint made it: `PgStore::ensure_months_ahead`) has its rows in the
//!   default partition. They are copied into a table of the month's own name
//!   and deleted from the default, in one repeatable-read transaction: a row
//!   that arrived after its snapshot (only a clock set back could write one)
//!   is neither copied nor deleted, and stays live.
//! * **Afterwards.** An archived month is an ordinary table, never written
//!   again. An operator may move it to cheaper disks (`ALTER TABLE
//!   audit_2026_09 SET TABLESPACE cold`), back it up on its own (`pg_dump -t`)
//!   or replicate it as any other table. Dropping it loses that month of the
//!   casino's history: `verify` names it.
//!
//! One run archives the casino's own schema and every partition's
//! (`pg_store::partition_url`), each month of each log in a transaction of
//! its own: an interrupted run leaves each month live or archived, and a
//! rerun goes on.

use postgres::fallible_iterator::FallibleIterator;
use postgres::GenericClient;
use serde::Serialize;
use sha2::{Digest, Sha256};

use super::{PgStore, ARCHIVE_LOCK, MIGRATION_LOCK, PARTITION_SCHEMA};
use crate::pg_store::PgResult;
use crate::store::StoreError;
use baccarat_core::civil_date;

/// Why a run archived nothing more: each names the URL's fault, the
/// partition or the month, as `baccarat archive` prints it.
#[derive(Debug, thiserror::Error)]
pub enum PgArchiveError {
    /// A partition's URL (with `options`) given instead of the casino's.
    #[error("--db: give the casino's own URL (without `options`): archive covers every partition of it")]
    NotOwnUrl,
    /// The casino's database could not be reached.
    #[error("--db: {0}")]
    Connect(#[source] StoreError),
    /// A question to the casino's database failed.
    #[error("--db: {0}")]
    Query(#[source] postgres::Error),
    /// The URL's schema is a partition's.
    #[error(
        "--db: its schema is {schema}, a partition's; give the casino's own URL: archive covers every partition of it"
    )]
    PartitionSchema { schema: String },
    /// Another run holds the archive's advisory lock.
    #[error("--db: another archive is running on this database (it holds advisory lock {lock}); let it end", lock = ARCHIVE_LOCK)]
    Running,
    /// No month before the cut holds live rows.
    #[error(
        "nothing to archive: no month before {logs} holds live rows (the answers' months must also end before the \
         keys' retention window, {answers})"
    )]
    Nothing { logs: String, answers: String },
    /// A step on the casino's schema (`partition` `None`) or a partition's.
    #[error("{}{source}", .partition.as_ref().map(|p| format!("partition {p}: ")).unwrap_or_default())]
    Schema { partition: Option<String>, source: StoreError },
    /// The casino's partitions could not be listed.
    #[error(transparent)]
    Partitions(#[from] postgres::Error),
    /// A listed partition's URL could not be made.
    #[error(transparent)]
    Partition(#[from] super::PartitionError),
    /// A failure after some months were archived: they stay archived, named.
    #[error("{source} (archived before this: {})", .done.join(", "))]
    Partial { source: Box<PgArchiveError>, done: Vec<String> },
}

/// How long a detach waits for the live table's lock.
pub const LOCK_WAIT: &str = "5s";

/// A log's columns as its view has them, and its rows as digested (times
/// in UTC to the microsecond, bytes as hex: text that depends on no
/// session setting or server version).
struct Log {
    name: &'static str,
    columns: &'static str,
    digest_row: &'static str,
    order: &'static str,
}

const LOGS: [Log; 3] = [
    Log {
        name: "transfers",
        columns: "id, debit, credit, amount, kind, memo, cause, at",
        digest_row:
            "json_build_array(id, debit, credit, amount, kind, memo, cause, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US'))",
        order: "id",
    },
    Log {
        name: "audit",
        columns: "tbl, seq, prev, body, hash, at",
        digest_row: "json_build_array(tbl, seq, prev, body, hash, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US'))",
        order: "tbl, seq",
    },
    Log {
        name: "answer_log",
        columns: "seq, key, key_id, digest, answer, at_ms, cause, at",
        digest_row: "json_build_array(seq, key, encode(key_id, 'hex'), encode(digest, 'hex'), answer, at_ms, cause, \
                     to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US'))",
        order: "seq",
    },
];

/// A UTC month: its table's suffix (`2026_09`), its label (`2026-09`) and
/// its bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Month {
    y: i64,
    m: i64,
}

impl Month {
    pub(super) fn of_ms(ms: u64) -> Month {
        let (y, m, _) = civil_date(ms);
        Month { y, m }
    }

    /// The month `n` months after this one (before it if `n` is negative).
    pub(super) fn after(self, n: i64) -> Month {
        let k = self.y * 12 + (self.m - 1) + n;
        Month { y: k.div_euclid(12), m: k.rem_euclid(12) + 1 }
    }

    pub(super) fn next(self) -> Month {
        self.after(1)
    }

    pub(super) fn table(self, log: &str) -> String {
        format!("{log}_{:04}_{:02}", self.y, self.m)
    }

    pub(super) fn label(self) -> String {
        format!("{:04}-{:02}", self.y, self.m)
    }

    /// The month's first instant, as PostgreSQL reads a `timestamptz`.
    pub(super) fn start(self) -> String {
        format!("{:04}-{:02}-01 00:00:00+00", self.y, self.m)
    }

    /// The month of a label (`2026-09`), if it is one.
    fn of_label(label: &str) -> Option<Month> {
        let (y, m) = label.split_once('-')?;
        let digits = |t: &str, n: usize| t.len() == n && t.bytes().all(|b| b.is_ascii_digit());
        if !digits(y, 4) || !digits(m, 2) {
            return None;
        }
        let (y, m): (i64, i64) = (y.parse().ok()?, m.parse().ok()?);
        (1..=12).contains(&m).then_some(Month { y, m })
    }

    /// The month of a partition's name (`audit_2026_09`), if it is one.
    fn of_table(log: &str, table: &str) -> Option<Month> {
        let rest = table.strip_prefix(log)?.strip_prefix('_')?;
        let (y, m) = rest.split_once('_')?;
        if y.len() != 4 || m.len() != 2 {
            return None;
        }
        let (y, m): (i64, i64) = (y.parse().ok()?, m.parse().ok()?);
        (1..=12).contains(&m).then_some(Month { y, m })
    }
}

/// One log's month, archived.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Archived {
    /// The partition (`None`: the casino's own schema).
    pub partition: Option<String>,
    /// `YYYY-MM`.
    pub month: String,
    pub log: String,
    /// The table that now holds it.
    pub table: String,
    pub rows: u64,
    pub sha256: String,
    /// Copied out of the default partition, rather than detached.
    pub from_default: bool,
    /// How long its last step held its locks, from the moment it had them
    /// all to the commit (for a detach that includes the live table's lock:
    /// the log's commits waited this long, besides any wait for the commits
    /// in flight before it). A statistic.
    pub locked_ms: f64,
}

/// Archive the casino at `url` (its own URL, not a partition's), every
/// partition of it too: each log's months that ended by `before_ms`; the
/// answers' only if they also ended before `now_ms - key_retention_ms`, and
/// every answer in them was given before then (`at_ms`, the server's clock).
/// One archive runs at a time on a database. Refuses, naming why, when there
/// is nothing to archive.
pub fn archive(url: &str, before_ms: u64, now_ms: u64, key_retention_ms: u64) -> Result<Vec<Archived>, PgArchiveError> {
    if url.contains("options=") {
        return Err(PgArchiveError::NotOwnUrl);
    }
    let casino = PgStore::connect(url).map_err(PgArchiveError::Connect)?;
    let schema: String =
        casino.c().query_one("SELECT current_schema()::text", &[]).map_err(PgArchiveError::Query)?.get(0);
    if schema.starts_with(PARTITION_SCHEMA) {
        return Err(PgArchiveError::PartitionSchema { schema });
    }
    // Held by this connection until the run ends (or it closes).
    let alone: bool = casino
        .c()
        .query_one("SELECT pg_try_advisory_lock($1)", &[&ARCHIVE_LOCK])
        .map_err(PgArchiveError::Query)?
        .get(0);
    if !alone {
        return Err(PgArchiveError::Running);
    }
    let horizon = now_ms.saturating_sub(key_retention_ms);
    let cuts = Cuts {
        logs: Month::of_ms(before_ms),
        answers: Month::of_ms(before_ms).min(Month::of_ms(horizon)),
        answers_before_ms: horizon.min(i64::MAX as u64) as i64,
    };
    let mut out = Vec::new();
    let run = |out: &mut Vec<Archived>| -> Result<(), PgArchiveError> {
        archive_schema(&casino, None, cuts, out)?;
        for name in super::partition_names(&mut *casino.c())? {
            let p_url = super::partition_url(url, &name)?;
            let store = PgStore::connect(&p_url)
                .map_err(|source| PgArchiveError::Schema { partition: Some(name.clone()), source })?;
            archive_schema(&store, Some(&name), cuts, out)?;
        }
        Ok(())
    };
    if let Err(e) = run(&mut out) {
        // Each month archived before the error stays archived: say which.
        let done: Vec<String> = out
            .iter()
            .map(|a| {
                format!(
                    "{}{} of {}",
                    a.partition.as_ref().map(|p| format!("{p}: ")).unwrap_or_default(),
                    a.month,
                    a.log
                )
            })
            .collect();
        return Err(match done.is_empty() {
            true => e,
            false => PgArchiveError::Partial { source: Box::new(e), done },
        });
    }
    if out.is_empty() {
        return Err(PgArchiveError::Nothing { logs: cuts.logs.label(), answers: cuts.answers.label() });
    }
    Ok(out)
}

/// Which months a run archives: each log's before `logs`, the answers'
/// before `answers` and only if every answer in them was given before
/// `answers_before_ms`.
#[derive(Clone, Copy)]
struct Cuts {
    logs: Month,
    answers: Month,
    answers_before_ms: i64,
}

/// The schema first in `c`'s search path, quoted for SQL.
fn quoted_schema(c: &mut impl GenericClient) -> Result<String, postgres::Error> {
    Ok(c.query_one("SELECT quote_ident(current_schema())", &[])?.get(0))
}

/// Archive one schema's months (`Cuts`), appending each to `out`.
fn archive_schema(
    store: &PgStore,
    partition: Option<&str>,
    cuts: Cuts,
    out: &mut Vec<Archived>,
) -> Result<(), PgArchiveError> {
    let named = |source: StoreError| PgArchiveError::Schema { partition: partition.map(str::to_string), source };
    let pg = |e: postgres::Error| named(crate::pg_store::pg_error(e));
    let mut c = store.c();
    let s = quoted_schema(&mut *c).map_err(pg)?;
    for log in &LOGS {
        let answers = log.name == "answer_log";
        let before = if answers { cuts.answers } else { cuts.logs };
        let mut months: Vec<(Month, bool)> = super::partitions_of(&mut c, &format!("{s}.{}", log.name))
            .map_err(named)?
            .iter()
            .filter_map(|t| Month::of_table(log.name, t))
            .filter(|m| *m < before)
            .map(|m| (m, false))
            .collect();
        let in_default = c
            .query(
                &format!(
                    "SELECT DISTINCT extract(year FROM at AT TIME ZONE 'UTC')::bigint, extract(month FROM at AT TIME ZONE 'UTC')::bigint
                     FROM {s}.{}_default WHERE at < $1::text::timestamptz",
                    log.name
                ),
                &[&before.start()],
            )
            .map_err(pg)?;
        months.extend(in_default.iter().map(|r| (Month { y: r.get(0), m: r.get(1) }, true)));
        months.sort();
        for (month, from_default) in months {
            // An answer given inside the keys' window by the server's clock
            // stays live, whatever its month by the database's.
            if answers && newest_answer(&mut c, &s, month, from_default).map_err(pg)? >= cuts.answers_before_ms {
                continue;
            }
            let done = match from_default {
                true => copy_out_of_default(&mut c, &s, log, month),
                false => detach(&mut c, &s, log, month),
            };
            if let Some(Done { rows, sha256, locked_ms }) = done.map_err(&named)? {
                out.push(Archived {
                    partition: partition.map(str::to_string),
                    month: month.label(),
                    log: log.name.to_string(),
                    table: month.table(log.name),
                    rows,
                    sha256,
                    from_default,
                    locked_ms,
                });
            }
        }
    }
    Ok(())
}

/// The latest `at_ms` of `month`'s answers (0: none).
fn newest_answer(c: &mut postgres::Client, s: &str, month: Month, in_default: bool) -> Result<i64, postgres::Error> {
    let row = match in_default {
        true => c.query_one(
            &format!(
                "SELECT COALESCE(max(at_ms), 0) FROM {s}.answer_log_default
                 WHERE at >= $1::text::timestamptz AND at < $2::text::timestamptz"
            ),
            &[&month.start(), &month.next().start()],
        )?,
        false => c.query_one(&format!("SELECT COALESCE(max(at_ms), 0) FROM {s}.{}", month.table("answer_log")), &[])?,
    };
    Ok(row.get(0))
}

/// A month archived: its rows, their digest, and how long its last step
/// held its locks.
struct Done {
    rows: u64,
    sha256: String,
    locked_ms: f64,
}

/// Detach `month`'s partition of `log` (in schema `s`, quoted), registered
/// with its digest; `None` when it holds no row (it is left as it is).
///
/// Locks, in order, each waited for at most [`LOCK_WAIT`]: the month's
/// partition against writes (`SHARE`: no live commit writes a past month,
/// and a reader is not held) while its digest is taken; the migrations'
/// lock, only if free (a start migrating now is not waited for, so the two
/// never wait on each other); then the log's view, `ACCESS EXCLUSIVE`, which
/// PostgreSQL also takes on every table the view reads, in the view's order:
/// the archived months first, the live table last. Readers of the view lock
/// it before its tables, so taking the view first never deadlocks with
/// them, and an archived month held elsewhere (`pg_dump -t`) is waited for
/// before the live table is asked for. The log's commits queue from when the
/// live table's lock is asked for to the commit.
fn detach(c: &mut postgres::Client, s: &str, log: &Log, month: Month) -> Result<Option<Done>, StoreError> {
    let table = month.table(log.name);
    let busy = busy(s, log, month);
    let mut tx = c.transaction().pg()?;
    let mut digested = || -> Result<(u64, String), postgres::Error> {
        tx.batch_execute(&format!("SET LOCAL lock_timeout = '{LOCK_WAIT}'; LOCK TABLE {s}.{table} IN SHARE MODE"))?;
        digest(&mut tx, s, &table, log)
    };
    let (rows, sha256) = digested().map_err(&busy)?;
    if rows == 0 {
        return Ok(None);
    }
    let mut steps = || -> Result<Option<std::time::Instant>, postgres::Error> {
        migrations_lock(&mut tx)?;
        tx.batch_execute(&format!("LOCK TABLE {s}.{}_all IN ACCESS EXCLUSIVE MODE", log.name))?;
        let locked = std::time::Instant::now();
        // Another run may have detached it meanwhile.
        let attached: bool = tx
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM pg_inherits WHERE inhrelid = to_regclass($1) AND inhparent = to_regclass($2))",
                &[&format!("{s}.{table}"), &format!("{s}.{}", log.name)],
            )?
            .get(0);
        if !attached {
            return Ok(None);
        }
        tx.batch_execute(&format!("ALTER TABLE {s}.{} DETACH PARTITION {s}.{table}", log.name))?;
        register(&mut tx, s, log, month, rows, &sha256, false)?;
        Ok(Some(locked))
    };
    let Some(locked) = steps().map_err(&busy)? else { return Ok(None) };
    tx.commit().pg()?;
    Ok(Some(Done { rows, sha256, locked_ms: locked.elapsed().as_secs_f64() * 1e3 }))
}

/// A lock not granted within [`LOCK_WAIT`], the migrations' lock taken, or
/// a deadlock, named; other errors as they are.
fn busy(s: &str, log: &Log, month: Month) -> impl Fn(postgres::Error) -> StoreError {
    let (s, log, month) = (s.to_string(), log.name, month.label());
    move |e| match e.code() {
        Some(&postgres::error::SqlState::LOCK_NOT_AVAILABLE | &postgres::error::SqlState::T_R_DEADLOCK_DETECTED) => {
            StoreError::Pg(format!(
                "{s}.{log}: a lock was not granted within {LOCK_WAIT} (a long transaction holds it, such as a \
                 verify reading the history, or a server is migrating the schema); nothing of {month} was \
                 archived: run archive again"
            ))
        }
        _ => crate::pg_store::pg_error(e),
    }
}

/// The migrations' lock, if free: one archive or migration at a time
/// changes the views. Not waited for: the archive already holds table
/// locks, which a migration taken first might ask for.
fn migrations_lock(tx: &mut postgres::Transaction<'_>) -> Result<(), postgres::Error> {
    if tx.query_one("SELECT pg_try_advisory_xact_lock($1)", &[&MIGRATION_LOCK])?.get(0) {
        return Ok(());
    }
    // As a lock not granted in time: [`busy`] names it.
    tx.batch_execute("SET LOCAL lock_timeout = '1ms'")?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])?;
    Ok(())
}

/// Copy `month`'s rows of `log` out of its default partition into a table
/// of the month's own, and delete them there, registered with their digest.
/// Each lock is waited for at most [`LOCK_WAIT`]. (The view is replaced at
/// the end, and only its own lock is taken for that: this transaction holds
/// nothing a reader of the view waits for.)
fn copy_out_of_default(c: &mut postgres::Client, s: &str, log: &Log, month: Month) -> Result<Option<Done>, StoreError> {
    let table = month.table(log.name);
    let mut tx = c.build_transaction().isolation_level(postgres::IsolationLevel::RepeatableRead).start().pg()?;
    tx.batch_execute(&format!("SET LOCAL lock_timeout = '{LOCK_WAIT}'")).pg()?;
    let exists: bool = tx.query_one("SELECT to_regclass($1) IS NOT NULL", &[&format!("{s}.{table}")]).pg()?.get(0);
    if exists {
        return Err(StoreError::Corrupt(format!(
            "{s}.{}_default holds rows of {}, but {s}.{table} exists already (archived before, and rows of the month \
             written since: was the database's clock set back?); they stay live, and later months were not archived",
            log.name,
            month.label()
        )));
    }
    let (from, to) = (month.start(), month.next().start());
    let range = "at >= $1::text::timestamptz AND at < $2::text::timestamptz";
    let mut moved = || -> Result<(u64, u64), postgres::Error> {
        tx.batch_execute(&format!("CREATE TABLE {s}.{table} (LIKE {s}.{} INCLUDING ALL)", log.name))?;
        let copied = tx.execute(
            &format!(
                "INSERT INTO {s}.{table} ({cols}) SELECT {cols} FROM {s}.{log}_default WHERE {range}",
                cols = log.columns,
                log = log.name
            ),
            &[&from, &to],
        )?;
        let deleted = tx.execute(&format!("DELETE FROM {s}.{}_default WHERE {range}", log.name), &[&from, &to])?;
        Ok((copied, deleted))
    };
    let busy = busy(s, log, month);
    let (copied, deleted) = moved().map_err(&busy)?;
    if copied != deleted {
        return Err(StoreError::Corrupt(format!(
            "{s}.{}_default: {copied} rows of {} copied but {deleted} deleted; nothing was archived",
            log.name,
            month.label()
        )));
    }
    let (rows, sha256) = digest(&mut tx, s, &table, log).pg()?;
    migrations_lock(&mut tx).map_err(&busy)?;
    let locked = std::time::Instant::now();
    register(&mut tx, s, log, month, rows, &sha256, true).map_err(&busy)?;
    tx.commit().pg()?;
    Ok(Some(Done { rows, sha256, locked_ms: locked.elapsed().as_secs_f64() * 1e3 }))
}

/// Register an archived month and rebuild its log's view with it.
fn register(
    tx: &mut postgres::Transaction<'_>,
    s: &str,
    log: &Log,
    month: Month,
    rows: u64,
    sha256: &str,
    from_default: bool,
) -> Result<(), postgres::Error> {
    tx.execute(
        &format!(
            "INSERT INTO {s}.archived_months (month, log, rows, sha256, from_default) VALUES ($1, $2, $3, $4, $5)"
        ),
        &[&month.label(), &log.name, &(rows as i64), &sha256, &from_default],
    )?;
    rebuild_view(tx, s, log)
}

/// The SHA-256 of a month table's rows in key order, and their number.
fn digest(c: &mut impl GenericClient, s: &str, table: &str, log: &Log) -> Result<(u64, String), postgres::Error> {
    let sql = format!("SELECT {}::text FROM {s}.{table} ORDER BY {}", log.digest_row, log.order);
    let mut rows = c.query_raw(sql.as_str(), std::iter::empty::<i32>())?;
    let (mut n, mut sha) = (0u64, Sha256::new());
    while let Some(r) = rows.next()? {
        sha.update(r.get::<_, &str>(0).as_bytes());
        sha.update(b"\n");
        n += 1;
    }
    Ok((n, baccarat_table::hex(&sha.finalize())))
}

/// One row of `archived_months`, as stored, and what it names if it names
/// a month of a log (anything else was not written by an archive).
struct Registered {
    month: String,
    log: String,
    rows: i64,
    sha256: String,
    names: Option<(Month, &'static Log)>,
}

fn registered(c: &mut impl GenericClient, s: &str) -> Result<Vec<Registered>, postgres::Error> {
    Ok(c.query(&format!("SELECT month, log, rows, sha256 FROM {s}.archived_months ORDER BY month, log"), &[])?
        .iter()
        .map(|r| {
            let (month, log): (String, String) = (r.get(0), r.get(1));
            let names = Month::of_label(&month).zip(LOGS.iter().find(|l| l.name == log));
            Registered { month, log, rows: r.get(2), sha256: r.get(3), names }
        })
        .collect())
}

/// Make `log`'s view the live table and every registered month of it still
/// there.
///
/// The archived months come first and the live table last: locking the
/// view (`detach`) locks its tables in this order, so a month held
/// elsewhere is waited for before the live table, whose commits would queue.
fn rebuild_view(c: &mut impl GenericClient, s: &str, log: &Log) -> Result<(), postgres::Error> {
    let mut branches = Vec::new();
    for r in registered(c, s)? {
        let Some((month, _)) = r.names.filter(|(_, l)| l.name == log.name) else { continue };
        let table = month.table(log.name);
        let there: bool = c.query_one("SELECT to_regclass($1) IS NOT NULL", &[&format!("{s}.{table}")])?.get(0);
        if there {
            branches.push(format!("SELECT {} FROM {s}.{table}", log.columns));
        }
    }
    branches.push(format!("SELECT {} FROM {s}.{}", log.columns, log.name));
    c.batch_execute(&format!("CREATE OR REPLACE VIEW {s}.{}_all AS {}", log.name, branches.join(" UNION ALL ")))
}

/// Rebuild the views of the schema first in `tx`'s search path if any is
/// missing (an archived month dropped with `CASCADE` takes them with it).
pub(super) fn ensure_views(tx: &mut postgres::Transaction<'_>) -> Result<(), StoreError> {
    let s = quoted_schema(tx).pg()?;
    let missing: bool = tx
        .query_one(
            "SELECT bool_or(to_regclass($1 || '.' || v) IS NULL)
             FROM unnest(ARRAY['transfers_all', 'audit_all', 'answer_log_all']) v",
            &[&s],
        )
        .pg()?
        .get(0);
    if missing {
        for log in &LOGS {
            rebuild_view(tx, &s, log).pg()?;
        }
    }
    Ok(())
}

/// What is wrong with the archived months of `store`'s schema (for
/// `verify`): each registered month that is missing, or whose rows are not
/// the ones digested when it was archived, and any row of the registry an
/// archive did not write; and a note naming what was read.
pub fn check(store: &PgStore) -> Result<(Vec<String>, Option<String>), StoreError> {
    let mut c = store.c();
    let s = quoted_schema(&mut *c).pg()?;
    let months = registered(&mut *c, &s).pg()?;
    let mut problems = Vec::new();
    for r in &months {
        let (month, name, rows, sha256) = (&r.month, &r.log, r.rows, &r.sha256);
        let Some((m, log)) = r.names else {
            problems.push(format!(
                "{s}.archived_months names {month:?} of {name:?}, which is not a month of a log: no archive wrote it"
            ));
            continue;
        };
        let table = m.table(log.name);
        let there: bool = c.query_one("SELECT to_regclass($1) IS NOT NULL", &[&format!("{s}.{table}")]).pg()?.get(0);
        if !there {
            problems.push(format!(
                "archived month {month} of {name} ({s}.{table}) is registered but missing: its rows cannot be read"
            ));
            continue;
        }
        let (n, h) = digest(&mut *c, &s, &table, log).pg()?;
        if n != rows as u64 || h != *sha256 {
            problems.push(format!(
                "archived month {month} of {name} ({s}.{table}): {n} rows with SHA-256 {h}, but {rows} rows with \
                 SHA-256 {sha256} were archived (altered since)"
            ));
        }
    }
    let note = (!months.is_empty()).then(|| {
        let mut by_month: std::collections::BTreeMap<&str, Vec<&str>> = Default::default();
        for r in &months {
            by_month.entry(&r.month).or_default().push(&r.log);
        }
        let list: Vec<String> = by_month.iter().map(|(m, logs)| format!("{m} ({})", logs.join(", "))).collect();
        format!("archived months read with the live logs, each checked against its digest: {}", list.join("; "))
    });
    Ok((problems, note))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_months_table_name_reads_back() {
        let m = Month { y: 2026, m: 9 };
        assert_eq!(Month::of_table("audit", &m.table("audit")), Some(m));
        assert_eq!(Month::of_table("answer_log", "answer_log_2026_12"), Some(Month { y: 2026, m: 12 }));
        assert_eq!(Month::of_table("audit", "audit_default"), None);
        assert_eq!(Month::of_table("audit", "audit_2026_13"), None);
        assert_eq!(Month::of_table("audit", "answer_log_2026_01"), None);
        assert_eq!(Month { y: 2026, m: 12 }.next(), Month { y: 2027, m: 1 });
        assert_eq!(Month { y: 2026, m: 12 }.after(1), Month { y: 2027, m: 1 });
        assert_eq!(Month { y: 2026, m: 1 }.after(-1), Month { y: 2025, m: 12 });
        assert_eq!(Month { y: 2026, m: 11 }.after(14), Month { y: 2028, m: 1 });
        assert_eq!(Month::of_ms(1_796_083_200_000).label(), "2026-12");
        assert_eq!(Month::of_label("2026-09"), Some(m));
        for bad in ["2026-13", "2026-9", "26-09", "2026_09", "2026-09; DROP", "+026-09", ""] {
            assert_eq!(Month::of_label(bad), None, "{bad}");
        }
    }
}

#[cfg(test)]
mod error_tests {
    use super::PgArchiveError;

    /// The refusals read as the strings they replaced, byte for byte (the
    /// CLI prints them; tests match on them).
    #[test]
    fn refusals_read_as_before() {
        let e = PgArchiveError::Schema {
            partition: Some("east".into()),
            source: crate::store::StoreError::Corrupt("x".into()),
        };
        let e = PgArchiveError::Partial { source: Box::new(e), done: vec!["2025-06 of audit".into(), "b".into()] };
        assert_eq!(
            e.to_string(),
            "partition east: stored data is unreadable: x (archived before this: 2025-06 of audit, b)"
        );
        let e = PgArchiveError::Partition(super::super::PartitionError::Name { name: "East".into() });
        assert_eq!(
            e.to_string(),
            "partition \"East\": 1 to 40 lower-case letters, digits or _, beginning with a letter"
        );
        assert!(PgArchiveError::Running.to_string().contains(&format!("advisory lock {}); let", super::ARCHIVE_LOCK)));
    }
}
