//! `baccarat archive`: move the whole UTC months older than a number of days
//! out of the live database: on SQLite into one write-once archive file per
//! month (`baccarat_core::store::archive`), on PostgreSQL by detaching each
//! month's partition of the logs (`baccarat_cluster::pg_store::archive`).

use std::path::PathBuf;

use anyhow::{bail, Result};

#[derive(clap::Args)]
pub struct ArchiveArgs {
    /// The live database: a SQLite file, or a PostgreSQL URL (the casino's
    /// own: every partition of it is archived too).
    #[arg(long, env = "BACCARAT_DB", default_value = "baccarat.db")]
    db: PathBuf,
    /// Archive every whole UTC month that ended at least this many days ago
    /// (on SQLite each up to its last checkpoint); 1 to 36500.
    #[arg(long, default_value_t = 90)]
    older_than_days: u64,
    /// Where archive files are written [default: `archive` beside the
    /// database]. SQLite only.
    #[arg(long)]
    dir: Option<PathBuf>,
    /// How long the server remembers idempotency keys (answers within it
    /// stay live: a retry must find them); 1 to 8760. The default is the
    /// longest a server may be run with, so that nothing a retry needs is
    /// moved; pass the server's own setting (default 72) to archive more.
    #[arg(long, env = "BACCARAT_KEY_RETENTION_HOURS", default_value_t = 8760)]
    key_retention_hours: u64,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(a: ArchiveArgs) -> Result<()> {
    if !(1..=36_500).contains(&a.older_than_days) {
        bail!("--older-than-days: {} is not between 1 and 36500", a.older_than_days);
    }
    if !(1..=8760).contains(&a.key_retention_hours) {
        bail!("--key-retention-hours: {} is not between 1 and 8760", a.key_retention_hours);
    }
    if let Some(url) = a.db.to_str().filter(|d| d.starts_with("postgres://") || d.starts_with("postgresql://")) {
        return run_pg(&a, url);
    }
    if !a.db.exists() {
        bail!("--db: {} does not exist", a.db.display());
    }
    let dir = a.dir.clone().unwrap_or_else(|| a.db.parent().unwrap_or(std::path::Path::new(".")).join("archive"));
    let (months, seconds) = timed(&a, |before, now, keys| {
        baccarat_core::store::archive::archive(&a.db, &dir, before, now, keys).map_err(|e| e.to_string())
    })?;
    if a.json {
        let rows = months.iter().map(|r| r.records + r.transfers + r.answers).sum();
        return print_json("archives", &months, rows, seconds);
    }
    for r in &months {
        println!(
            "archived {}: {} records, {} transfers and {} answers, up to the checkpoint of {} ms, into {}",
            r.month,
            r.records,
            r.transfers,
            r.answers,
            r.cut_at_ms,
            r.file.display()
        );
        println!("  SHA-256 {} (registered in {}; the file is read-only)", r.sha256, a.db.display());
    }
    Ok(())
}

/// On PostgreSQL: each month detached from the live tables, still in the
/// database (`baccarat_cluster::pg_store::archive`).
fn run_pg(a: &ArchiveArgs, url: &str) -> Result<()> {
    if a.dir.is_some() {
        bail!(
            "--dir: on PostgreSQL an archived month stays in the database, as a table of its own \
             (docs/operating.md, \"Archiving on PostgreSQL\"); leave --dir out"
        );
    }
    let (months, seconds) = timed(a, |before, now, keys| {
        baccarat_cluster::pg_store::archive::archive(url, before, now, keys).map_err(|e| e.to_string())
    })?;
    if a.json {
        return print_json("archived_months", &months, months.iter().map(|m| m.rows).sum(), seconds);
    }
    for m in &months {
        let whose = m.partition.as_deref().map(|p| format!("partition {p}: ")).unwrap_or_default();
        let how = if m.from_default { "copied out of the default partition into" } else { "detached as" };
        println!(
            "{whose}archived {} of {}: {} rows, {how} {} (SHA-256 {}); the live table locked {:.1} ms",
            m.month, m.log, m.rows, m.table, m.sha256, m.locked_ms
        );
    }
    Ok(())
}

/// Run an archive of every month that ended `--older-than-days` ago, with
/// the keys' window of `--key-retention-hours`: its result and its seconds.
fn timed<T>(a: &ArchiveArgs, run: impl FnOnce(u64, u64, u64) -> Result<T, String>) -> Result<(T, f64)> {
    let now = baccarat_server::http::now_ms();
    let before = now.saturating_sub(a.older_than_days * 86_400_000);
    let started = std::time::Instant::now();
    let out = run(before, now, a.key_retention_hours * 3_600_000).map_err(anyhow::Error::msg)?;
    // Throughput is a statistic (floats are for statistics, never money).
    Ok((out, started.elapsed().as_secs_f64()))
}

/// The result as one JSON object: what was archived under `key`, the
/// seconds and the rows per second.
fn print_json(key: &str, archived: &impl serde::Serialize, rows: u64, seconds: f64) -> Result<()> {
    let out = serde_json::json!({
        key: archived,
        "seconds": seconds,
        "rows_per_second": if seconds > 0.0 { rows as f64 / seconds } else { 0.0 },
    });
    println!("{out}");
    Ok(())
}
