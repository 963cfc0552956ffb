//! `baccarat archive`: move the whole UTC months older than a number of days
//! out of the live database, into one write-once archive file per month
//! (`baccarat_server::archive`).

use std::path::PathBuf;

use anyhow::{bail, Result};

#[derive(clap::Args)]
pub struct ArchiveArgs {
    /// The live database.
    #[arg(long, env = "BACCARAT_DB", default_value = "baccarat.db")]
    db: PathBuf,
    /// Archive every whole UTC month that ended at least this many days ago
    /// (each up to its last checkpoint); 1 to 36500.
    #[arg(long, default_value_t = 90)]
    older_than_days: u64,
    /// Where archive files are written [default: `archive` beside the
    /// database].
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
    if a.db.to_str().is_some_and(|d| d.starts_with("postgres://") || d.starts_with("postgresql://")) {
        bail!(
            "--db: archive moves months out of a SQLite database; on PostgreSQL each month of the logs is a \
             partition of its own (README, \"PostgreSQL, and several servers\"), which this command does not \
             archive yet"
        );
    }
    if !a.db.exists() {
        bail!("--db: {} does not exist", a.db.display());
    }
    if !(1..=36_500).contains(&a.older_than_days) {
        bail!("--older-than-days: {} is not between 1 and 36500", a.older_than_days);
    }
    if !(1..=8760).contains(&a.key_retention_hours) {
        bail!("--key-retention-hours: {} is not between 1 and 8760", a.key_retention_hours);
    }
    let dir = a.dir.clone().unwrap_or_else(|| a.db.parent().unwrap_or(std::path::Path::new(".")).join("archive"));
    let now = baccarat_server::http::now_ms();
    let before = now.saturating_sub(a.older_than_days * 86_400_000);
    let started = std::time::Instant::now();
    let months = baccarat_server::archive::archive(&a.db, &dir, before, now, a.key_retention_hours * 3_600_000)
        .map_err(anyhow::Error::msg)?;
    // Throughput is a statistic (floats are for statistics, never money).
    let seconds = started.elapsed().as_secs_f64();
    let rows: u64 = months.iter().map(|r| r.records + r.transfers + r.answers).sum();
    if a.json {
        let out = serde_json::json!({
            "archives": months,
            "seconds": seconds,
            "rows_per_second": if seconds > 0.0 { rows as f64 / seconds } else { 0.0 },
        });
        println!("{out}");
        return Ok(());
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
