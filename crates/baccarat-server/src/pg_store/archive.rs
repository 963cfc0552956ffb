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

use super::{PgStore, PARTITIONED, PARTITION_SCHEMA};
use crate::civil;
use crate::store::StoreError;

/// How long a detach waits for the live table's lock.
pub const LOCK_WAIT: &str = "5s";

/// The advisory lock the migrations take (`PgStore::migrate`).
const MIGRATION_LOCK: i64 = 7261;

/// A log's columns as its view has them, and its rows as digested (times
/// as microseconds, bytes as hex: nothing that depends on the session's
/// settings).
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
            "json_build_array(id, debit, credit, amount, kind, memo, cause, (extract(epoch FROM at) * 1000000)::bigint)",
        order: "id",
    },
    Log {
        name: "audit",
        columns: "tbl, seq, prev, body, hash, at",
        digest_row: "json_build_array(tbl, seq, prev, body, hash, (extract(epoch FROM at) * 1000000)::bigint)",
        order: "tbl, seq",
    },
    Log {
        name: "answer_log",
        columns: "seq, key, key_id, digest, answer, at_ms, cause, at",
        digest_row: "json_build_array(seq, key, encode(key_id, 'hex'), encode(digest, 'hex'), answer, at_ms, cause, \
                     (extract(epoch FROM at) * 1000000)::bigint)",
        order: "seq",
    },
];

fn log(name: &str) -> &'static Log {
    LOGS.iter().find(|l| l.name == name).expect("one of the partitioned logs")
}

/// A UTC month: its table's suffix (`2026_09`), its label (`2026-09`) and
/// its bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Month {
    y: i64,
    m: i64,
}

impl Month {
    fn of_ms(ms: u64) -> Month {
        let (y, m, _) = civil::civil_date(ms);
        Month { y, m }
    }

    fn next(self) -> Month {
        if self.m == 12 {
            Month { y: self.y + 1, m: 1 }
        } else {
            Month { y: self.y, m: self.m + 1 }
        }
    }

    fn table(self, log: &str) -> String {
        format!("{log}_{:04}_{:02}", self.y, self.m)
    }

    fn label(self) -> String {
        format!("{:04}-{:02}", self.y, self.m)
    }

    /// The month's first instant, as PostgreSQL reads a `timestamptz`.
    fn start(self) -> String {
        format!("{:04}-{:02}-01 00:00:00+00", self.y, self.m)
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
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
}

/// Archive the casino at `url` (its own URL, not a partition's), every
/// partition of it too: each log's months that ended by `before_ms`, the
/// answers' only if they also ended before `now_ms - key_retention_ms`.
/// Refuses, naming why, when there is nothing to archive.
pub fn archive(url: &str, before_ms: u64, now_ms: u64, key_retention_ms: u64) -> Result<Vec<Archived>, String> {
    if url.contains("options=") {
        return Err("--db: give the casino's own URL (without `options`): archive covers every partition of it".into());
    }
    let casino = PgStore::connect(url).map_err(|e| format!("--db: {e}"))?;
    let cut = Month::of_ms(before_ms);
    let answers_cut = cut.min(Month::of_ms(now_ms.saturating_sub(key_retention_ms)));
    let mut out = Vec::new();
    let run = |out: &mut Vec<Archived>| -> Result<(), String> {
        archive_schema(&casino, None, cut, answers_cut, out)?;
        for name in partition_names(&casino).map_err(|e| e.to_string())? {
            let p_url = super::partition_url(url, &name)?;
            let store = PgStore::connect(&p_url).map_err(|e| format!("partition {name}: {e}"))?;
            archive_schema(&store, Some(&name), cut, answers_cut, out)?;
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
            false => format!("{e} (archived before this: {})", done.join(", ")),
        });
    }
    if out.is_empty() {
        return Err(format!(
            "nothing to archive: no month before {} holds live rows (the answers' months must also end before the \
             keys' retention window, {})",
            cut.label(),
            answers_cut.label()
        ));
    }
    Ok(out)
}

/// The casino's partitions, by name.
fn partition_names(casino: &PgStore) -> Result<Vec<String>, StoreError> {
    let rows = casino.c().query(
        "SELECT substr(nspname::text, $1) FROM pg_namespace WHERE starts_with(nspname::text, $2) ORDER BY nspname",
        &[&(PARTITION_SCHEMA.len() as i32 + 1), &PARTITION_SCHEMA],
    )?;
    Ok(rows.iter().map(|r| r.get::<_, String>(0)).filter(|n| super::partition_name(n).is_ok()).collect())
}

/// Archive one schema's months: those before `cut`, the answers' before
/// `answers_cut`.
fn archive_schema(
    store: &PgStore,
    partition: Option<&str>,
    cut: Month,
    answers_cut: Month,
    out: &mut Vec<Archived>,
) -> Result<(), String> {
    let named = |e: StoreError| match partition {
        Some(p) => format!("partition {p}: {e}"),
        None => e.to_string(),
    };
    let mut c = store.c();
    let schema: String = c.query_one("SELECT current_schema()::text", &[]).map_err(|e| named(e.into()))?.get(0);
    for name in PARTITIONED {
        let before = if name == "answer_log" { answers_cut } else { cut };
        let mut months: Vec<(Month, bool)> = super::partitions_of(&mut c, &format!("{schema}.{name}"))
            .map_err(named)?
            .iter()
            .filter_map(|t| Month::of_table(name, t))
            .filter(|m| *m < before)
            .map(|m| (m, false))
            .collect();
        let in_default = c
            .query(
                &format!(
                    "SELECT DISTINCT extract(year FROM at AT TIME ZONE 'UTC')::bigint, extract(month FROM at AT TIME ZONE 'UTC')::bigint
                     FROM {schema}.{name}_default WHERE at < $1::text::timestamptz"
                ),
                &[&before.start()],
            )
            .map_err(|e| named(e.into()))?;
        months.extend(in_default.iter().map(|r| (Month { y: r.get(0), m: r.get(1) }, true)));
        months.sort();
        for (month, from_default) in months {
            let done = if from_default {
                copy_out_of_default(&mut c, &schema, log(name), month)
            } else {
                detach(&mut c, &schema, log(name), month)
            };
            if let Some((rows, sha256)) = done.map_err(&named)? {
                out.push(Archived {
                    partition: partition.map(str::to_string),
                    month: month.label(),
                    log: name.to_string(),
                    table: month.table(name),
                    rows,
                    sha256,
                    from_default,
                });
            }
        }
    }
    Ok(())
}

/// Detach `month`'s partition of `log`, registered with its digest; `None`
/// when it holds no row (it is left as it is).
fn detach(
    c: &mut postgres::Client,
    schema: &str,
    log: &Log,
    month: Month,
) -> Result<Option<(u64, String)>, StoreError> {
    let table = month.table(log.name);
    let mut tx = c.transaction()?;
    tx.batch_execute(&format!("LOCK TABLE {schema}.{table} IN SHARE MODE"))?;
    let (rows, sha256) = digest(&mut tx, schema, &table, log)?;
    if rows == 0 {
        return Ok(None);
    }
    let busy = busy(schema, log, month);
    take_locks(&mut tx, &busy)?;
    // Another run may have detached it meanwhile.
    let attached: bool = tx
        .query_one(
            "SELECT EXISTS (SELECT 1 FROM pg_inherits WHERE inhrelid = to_regclass($1) AND inhparent = to_regclass($2))",
            &[&format!("{schema}.{table}"), &format!("{schema}.{}", log.name)],
        )?
        .get(0);
    if !attached {
        return Ok(None);
    }
    tx.batch_execute(&format!("ALTER TABLE {schema}.{} DETACH PARTITION {schema}.{table}", log.name)).map_err(&busy)?;
    register(&mut tx, schema, log, month, rows, &sha256, false)?;
    tx.commit()?;
    Ok(Some((rows, sha256)))
}

/// A lock not granted within [`LOCK_WAIT`], named; other errors as they are.
fn busy(schema: &str, log: &Log, month: Month) -> impl Fn(postgres::Error) -> StoreError {
    let (schema, log, month) = (schema.to_string(), log.name, month.label());
    move |e| match e.code() {
        Some(&postgres::error::SqlState::LOCK_NOT_AVAILABLE) => StoreError::Pg(format!(
            "{schema}.{log}: a lock was not granted within {LOCK_WAIT} (a long transaction holds it); nothing of \
             {month} was archived: run archive again"
        )),
        _ => e.into(),
    }
}

/// From here on wait at most [`LOCK_WAIT`] for each lock, and take the
/// migrations' lock: one archive or migration at a time changes the views.
fn take_locks(
    tx: &mut postgres::Transaction<'_>,
    busy: &impl Fn(postgres::Error) -> StoreError,
) -> Result<(), StoreError> {
    tx.batch_execute(&format!("SET LOCAL lock_timeout = '{LOCK_WAIT}'"))?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK]).map_err(busy)?;
    Ok(())
}

/// Copy `month`'s rows of `log` out of its default partition into a table
/// of the month's own, and delete them there, registered with their digest.
fn copy_out_of_default(
    c: &mut postgres::Client,
    schema: &str,
    log: &Log,
    month: Month,
) -> Result<Option<(u64, String)>, StoreError> {
    let table = month.table(log.name);
    let mut tx = c.build_transaction().isolation_level(postgres::IsolationLevel::RepeatableRead).start()?;
    let exists: bool = tx.query_one("SELECT to_regclass($1) IS NOT NULL", &[&format!("{schema}.{table}")])?.get(0);
    if exists {
        return Err(StoreError::Corrupt(format!(
            "{schema}.{}_default holds rows of {}, but {schema}.{table} exists already (archived before, and rows of \
             the month written since: was the database's clock set back?); they stay live",
            log.name,
            month.label()
        )));
    }
    let (from, to) = (month.start(), month.next().start());
    tx.batch_execute(&format!("CREATE TABLE {schema}.{table} (LIKE {schema}.{} INCLUDING ALL)", log.name))?;
    let range = "at >= $1::text::timestamptz AND at < $2::text::timestamptz";
    let copied = tx.execute(
        &format!(
            "INSERT INTO {schema}.{table} ({cols}) SELECT {cols} FROM {schema}.{log}_default WHERE {range}",
            cols = log.columns,
            log = log.name
        ),
        &[&from, &to],
    )?;
    let deleted = tx.execute(&format!("DELETE FROM {schema}.{}_default WHERE {range}", log.name), &[&from, &to])?;
    if copied != deleted {
        return Err(StoreError::Corrupt(format!(
            "{schema}.{}_default: {copied} rows of {} copied but {deleted} deleted; nothing was archived",
            log.name,
            month.label()
        )));
    }
    let (rows, sha256) = digest(&mut tx, schema, &table, log)?;
    take_locks(&mut tx, &busy(schema, log, month))?;
    register(&mut tx, schema, log, month, rows, &sha256, true)?;
    tx.commit()?;
    Ok(Some((rows, sha256)))
}

/// Register an archived month and rebuild the views with it.
fn register(
    tx: &mut postgres::Transaction<'_>,
    schema: &str,
    log: &Log,
    month: Month,
    rows: u64,
    sha256: &str,
    from_default: bool,
) -> Result<(), StoreError> {
    tx.execute(
        &format!(
            "INSERT INTO {schema}.archived_months (month, log, rows, sha256, from_default) VALUES ($1, $2, $3, $4, $5)"
        ),
        &[&month.label(), &log.name, &(rows as i64), &sha256, &from_default],
    )?;
    rebuild_views(tx, schema)?;
    Ok(())
}

/// The SHA-256 of a month table's rows in key order, and their number.
fn digest(c: &mut impl GenericClient, schema: &str, table: &str, log: &Log) -> Result<(u64, String), StoreError> {
    let sql = format!("SELECT {}::text FROM {schema}.{table} ORDER BY {}", log.digest_row, log.order);
    let mut rows = c.query_raw(sql.as_str(), std::iter::empty::<i32>())?;
    let (mut n, mut sha) = (0u64, Sha256::new());
    while let Some(r) = rows.next()? {
        sha.update(r.get::<_, &str>(0).as_bytes());
        sha.update(b"\n");
        n += 1;
    }
    Ok((n, baccarat_table::shuffle::hex(&sha.finalize())))
}

/// One registered month: (month, log, rows, sha256).
type RegisteredMonth = (String, String, i64, String);

fn registered(c: &mut impl GenericClient, schema: &str) -> Result<Vec<RegisteredMonth>, StoreError> {
    Ok(c.query(&format!("SELECT month, log, rows, sha256 FROM {schema}.archived_months ORDER BY month, log"), &[])?
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
        .collect())
}

fn table_of(month: &str, log: &str) -> String {
    format!("{log}_{}", month.replace('-', "_"))
}

/// Make each log's view the live table and every registered month still
/// there.
fn rebuild_views(c: &mut impl GenericClient, schema: &str) -> Result<(), StoreError> {
    let months = registered(c, schema)?;
    for log in &LOGS {
        let mut sql = format!(
            "CREATE OR REPLACE VIEW {schema}.{n}_all AS SELECT {} FROM {schema}.{n}",
            log.columns,
            n = log.name
        );
        for (month, _, _, _) in months.iter().filter(|m| m.1 == log.name) {
            let table = table_of(month, log.name);
            let there: bool =
                c.query_one("SELECT to_regclass($1) IS NOT NULL", &[&format!("{schema}.{table}")])?.get(0);
            if there {
                sql.push_str(&format!(" UNION ALL SELECT {} FROM {schema}.{table}", log.columns));
            }
        }
        c.batch_execute(&sql)?;
    }
    Ok(())
}

/// Rebuild the views of the schema first in `tx`'s search path if any is
/// missing (an archived month dropped with `CASCADE` takes them with it).
pub(super) fn ensure_views(tx: &mut postgres::Transaction<'_>) -> Result<(), StoreError> {
    let schema: String = tx.query_one("SELECT current_schema()::text", &[])?.get(0);
    let missing: bool = tx
        .query_one(
            "SELECT bool_or(to_regclass(quote_ident($1) || '.' || v) IS NULL)
             FROM unnest(ARRAY['transfers_all', 'audit_all', 'answer_log_all']) v",
            &[&schema],
        )?
        .get(0);
    if missing {
        rebuild_views(tx, &schema)?;
    }
    Ok(())
}

/// What is wrong with the archived months of `store`'s schema (for
/// `verify`): each registered month that is missing, or whose rows are not
/// the ones digested when it was archived; and a note naming what was read.
pub fn check(store: &PgStore) -> Result<(Vec<String>, Option<String>), StoreError> {
    let mut c = store.c();
    let schema: String = c.query_one("SELECT current_schema()::text", &[])?.get(0);
    let months = registered(&mut *c, &schema)?;
    let mut problems = Vec::new();
    for (month, name, rows, sha256) in &months {
        let table = table_of(month, name);
        let there: bool = c.query_one("SELECT to_regclass($1) IS NOT NULL", &[&format!("{schema}.{table}")])?.get(0);
        if !there {
            problems.push(format!(
                "archived month {month} of {name} ({schema}.{table}) is registered but missing: its rows cannot be read"
            ));
            continue;
        }
        let (n, h) = digest(&mut *c, &schema, &table, log(name))?;
        if n != *rows as u64 || h != *sha256 {
            problems.push(format!(
                "archived month {month} of {name} ({schema}.{table}): {n} rows with SHA-256 {h}, but {rows} rows with \
                 SHA-256 {sha256} were archived (altered since)"
            ));
        }
    }
    let note = (!months.is_empty()).then(|| {
        let mut by_month: std::collections::BTreeMap<&str, Vec<&str>> = Default::default();
        for (month, name, _, _) in &months {
            by_month.entry(month).or_default().push(name);
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
        assert_eq!(Month::of_ms(1_796_083_200_000).label(), "2026-12");
        assert_eq!(table_of("2026-09", "transfers"), "transfers_2026_09");
    }
}
