//! `baccarat verify`: the inspector's check of a database and its anchors,
//! whole (`--full`, the default: `baccarat_server::verify`) or since the
//! latest signed checkpoint (`--since-checkpoint`); or a gaming day's books
//! recomputed (`--day`) or a saved report checked (`--report`:
//! `verify_books.rs`).

use std::path::PathBuf;

use anyhow::{bail, Result};
use baccarat_server::verify::Findings;

#[derive(clap::Args)]
pub struct VerifyArgs {
    /// The database to check: a SQLite file, or a PostgreSQL URL (`postgres://…`).
    #[arg(long, env = "BACCARAT_DB", default_value = "baccarat.db")]
    db: PathBuf,
    /// The anchor file [default: the database's path with `.anchors` added].
    /// On PostgreSQL it is read beside the database's own copy of its lines;
    /// without it, that copy alone, under `--anchor-key` (the findings say
    /// what it cannot prove).
    #[arg(long)]
    anchor_file: Option<PathBuf>,
    /// The server's public key (64 hex digits) as published by the operator;
    /// without it, the key named in the anchor file is trusted and printed.
    #[arg(long)]
    anchor_key: Option<String>,
    /// Print the findings and the throughput as one JSON object.
    #[arg(long)]
    json: bool,
    /// Check only what was written after the latest checkpoint: its hash and
    /// signature, every chain's links from its heads, and that its balances
    /// plus the later transfers give the stored balances. Fast; the whole
    /// history is checked without it.
    #[arg(long, conflicts_with = "full")]
    since_checkpoint: bool,
    /// Check the whole history (the default).
    #[arg(long)]
    full: bool,
    /// With PostgreSQL: check partition NAME of the casino (as `serve
    /// --partition` serves it), then the casino's shared bank and that the
    /// partition's books agree with it.
    #[arg(long)]
    partition: Option<String>,
    /// Recompute gaming day DATE (YYYY-MM-DD) from the records and print its
    /// report as `GET /api/reports/day` answers it (players unnamed).
    #[arg(long, value_name = "DATE", conflicts_with_all = ["since_checkpoint", "report"])]
    day: Option<String>,
    /// Check a saved report (`GET /api/reports/day`'s JSON) against the
    /// records: each figure that differs is named; exit 1 if any does.
    #[arg(long, value_name = "FILE", conflicts_with = "since_checkpoint")]
    report: Option<PathBuf>,
}

/// Check the database whole, or since its checkpoint; with a partition, its
/// agreement with the casino's shared bank first.
pub fn run_verify(mut a: VerifyArgs) -> Result<()> {
    let bank = partition_db(&mut a)?;
    if let Some((url, p)) = &bank {
        bank_agrees(url, p, a.json)?;
    }

    let url = a.db.to_str().filter(|d| d.starts_with("postgres://") || d.starts_with("postgresql://"));
    if url.is_none() && !a.db.exists() {
        bail!("--db: {} does not exist", a.db.display());
    }
    if a.since_checkpoint {
        return since_checkpoint(&a);
    }
    if a.day.is_some() || a.report.is_some() {
        let db = baccarat_core::store::Db::parse(&a.db.to_string_lossy());
        return super::verify_books::run(&db, a.day.as_deref(), a.report.as_deref());
    }
    let started = std::time::Instant::now();
    let (f, public) = match url {
        // A URL has no file beside it: without --anchor-file, the
        // database's copy of the anchor lines alone (the findings say so).
        Some(url) => match a.anchor_file.as_deref() {
            Some(anchors) => baccarat_server::migrate::verify_pg(url, anchors, a.anchor_key.as_deref()),
            None => baccarat_server::migrate::verify_pg_from_copy(url, a.anchor_key.as_deref()),
        }
        .map_err(anyhow::Error::msg)?,
        None => baccarat_server::verify::verify_file(&a.db, a.anchor_file.as_deref(), a.anchor_key.as_deref())
            .map_err(anyhow::Error::msg)?,
    };
    // Throughput is a statistic (floats are for statistics, never money).
    let seconds = started.elapsed().as_secs_f64();
    if a.json {
        print_json(&a, &f, &public, seconds)
    } else {
        print_findings(&a, &f, &public, seconds)
    }
}

/// With `--partition`: the database becomes the partition's schema of the
/// PostgreSQL casino; returns its URL and name, for the bank check.
fn partition_db(a: &mut VerifyArgs) -> Result<Option<(String, String)>> {
    Ok(match a.partition.clone() {
        None => None,
        Some(p) => {
            let Some(url) = a.db.to_str().filter(|d| d.starts_with("postgres://") || d.starts_with("postgresql://"))
            else {
                bail!("--partition: a partition is of a PostgreSQL casino (--db postgres://…)");
            };
            let url = baccarat_cluster::pg_store::partition_url(url, &p).map_err(anyhow::Error::msg)?;
            a.db = PathBuf::from(&url);
            Some((url, p))
        }
    })
}

/// Rows read a second, 0 for a check too quick to time.
fn per_second(n: usize, seconds: f64) -> f64 {
    if seconds > 0.0 {
        n as f64 / seconds
    } else {
        0.0
    }
}

/// The findings and the throughput as one JSON object (`--json`).
fn print_json(a: &VerifyArgs, f: &Findings, public: &Option<String>, seconds: f64) -> Result<()> {
    let rows = f.records + f.transfers + f.answers;
    let out = serde_json::json!({
        "db": a.db.display().to_string(),
        "ok": f.problems.is_empty(),
        "tables": f.tables,
        "records": f.records,
        "transfers": f.transfers,
        "answers": f.answers,
        "shoes": f.shoes,
        "coups": f.coups,
        "settlements": f.settlements,
        "seconds": seconds,
        "records_per_second": per_second(f.records, seconds),
        "rows_per_second": per_second(rows, seconds),
        "anchor_key": public,
        "anchor_key_pinned": public.is_some() && a.anchor_key.is_some(),
        "problems": f.problems,
        "voids": f.voids,
        "unanchored": f.unanchored,
        "notes": f.notes,
    });
    println!("{out}");
    if f.problems.is_empty() {
        return Ok(());
    }
    bail!("{} differences found", f.problems.len())
}

/// The findings for a person: what was checked and how fast, the key that
/// signed the anchors, the voids, the notes, and every difference.
fn print_findings(a: &VerifyArgs, f: &Findings, public: &Option<String>, seconds: f64) -> Result<()> {
    let rows = f.records + f.transfers + f.answers;
    println!(
        "{}: {} tables, {} records, {} shoes, {} coups, {} settlements checked",
        a.db.display(),
        f.tables,
        f.records,
        f.shoes,
        f.coups,
        f.settlements
    );
    println!(
        "read {} records, {} transfers and {} answers in {seconds:.2} s ({:.0} records/s, {:.0} rows/s)",
        f.records,
        f.transfers,
        f.answers,
        per_second(f.records, seconds),
        per_second(rows, seconds)
    );
    match (public, &a.anchor_key) {
        (Some(k), None) => {
            println!("anchors signed by {k} (not pinned: pass --anchor-key to trust only the published key)")
        }
        (Some(k), Some(p)) if !k.eq_ignore_ascii_case(p.trim()) => println!(
            "anchors signed by the pinned key {} and the keys it was rotated to (NOTE lines); the key in force is {k}",
            p.trim().to_ascii_lowercase()
        ),
        (Some(k), Some(_)) => println!("anchors signed by the pinned key {k}"),
        _ => {}
    }
    for v in &f.voids {
        let by = match v.by {
            Some(baccarat_core::trust::Actor::Person { user, role }) => format!("{} {user}", role.name()),
            _ => "the server".into(),
        };
        println!(
            "void after the cards were out: table {} shoe {} coup {} by {by} ({})",
            v.table, v.shoe, v.coup, v.rule
        );
    }
    for u in &f.unanchored {
        println!("NOTE: {u} (a crash between a commit and its anchor, or records added outside the server)");
    }
    for n in &f.notes {
        println!("NOTE: {n}");
    }
    if f.problems.is_empty() {
        println!("verified: every chain and anchor, card, result, settlement, ledger balance and transfer agrees");
        Ok(())
    } else {
        for p in &f.problems {
            println!("DIFFERENCE: {p}");
        }
        bail!("{} differences found", f.problems.len())
    }
}

/// `verify --since-checkpoint`.
fn since_checkpoint(a: &VerifyArgs) -> Result<()> {
    let started = std::time::Instant::now();
    let db = baccarat_core::store::Db::parse(&a.db.to_string_lossy());
    let t = baccarat_server::verify::verify_since_checkpoint(&db, a.anchor_file.as_deref(), a.anchor_key.as_deref())
        .map_err(anyhow::Error::msg)?;
    let seconds = started.elapsed().as_secs_f64();
    let rows = t.tail_records + t.tail_transfers;
    let per_second = if seconds > 0.0 { rows as f64 / seconds } else { 0.0 };
    if a.json {
        println!(
            "{}",
            serde_json::json!({
                "db": a.db.display().to_string(),
                "ok": t.problems.is_empty(),
                "checkpoint": t.checkpoint,
                "checkpoint_at_ms": t.at_ms,
                "tail_records": t.tail_records,
                "tail_transfers": t.tail_transfers,
                "seconds": seconds,
                "rows_per_second": per_second,
                "anchor_key": t.public,
                "problems": t.problems,
                "notes": t.notes,
            })
        );
    } else {
        println!(
            "{}: checkpoint {} (signed by {}); {} records and {} transfers after it checked in {seconds:.2} s ({per_second:.0} rows/s)",
            a.db.display(),
            t.checkpoint,
            t.public,
            t.tail_records,
            t.tail_transfers
        );
        for p in &t.problems {
            println!("DIFFERENCE: {p}");
        }
        for n in &t.notes {
            println!("NOTE: {n}");
        }
        if t.problems.is_empty() {
            println!("verified since the checkpoint: its signature, every chain's links after it, and the balances");
        }
    }
    if t.problems.is_empty() {
        Ok(())
    } else {
        bail!("{} differences found", t.problems.len())
    }
}

/// `verify --partition`: the shared bank's own chain and balances, and the
/// partition's books against it (`bank::verify`); on stderr with `--json`,
/// whose object is the partition's.
fn bank_agrees(url: &str, partition: &str, json: bool) -> Result<()> {
    let say = |line: String| if json { eprintln!("{line}") } else { println!("{line}") };
    let (r, notes, mut problems) = baccarat_cluster::pg_store::bank::verify::check_partition(url, partition)
        .map_err(|e| anyhow::anyhow!("the bank: {e}"))?;
    problems.extend(r.problems.iter().cloned());
    say(format!(
        "the bank: {} moves, {} at the bank, {} deposited, {} withdrawn, net allotted by partition {:?}",
        r.moves, r.at_bank, r.deposited, r.withdrawn, r.allotted
    ));
    for n in &notes {
        say(format!("NOTE: {n}"));
    }
    if problems.is_empty() {
        say(format!("verified: the bank's chain and balances, and partition {partition}'s account at it"));
        return Ok(());
    }
    for p in &problems {
        say(format!("DIFFERENCE: {p}"));
    }
    bail!("{} differences found at the bank", problems.len())
}
