//! `baccarat migrate`: copy a SQLite casino into an empty PostgreSQL database
//! and check the copy (`baccarat_server::migrate`).

use std::path::PathBuf;

use anyhow::{bail, Result};

#[derive(clap::Args)]
pub struct MigrateArgs {
    /// The SQLite database to copy (read, never changed beyond its own pending
    /// migrations).
    #[arg(long)]
    from: PathBuf,
    /// The PostgreSQL database to copy into, as a URL
    /// (`postgres://user@host/db`); it must hold no casino yet.
    #[arg(long)]
    to: String,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(a: MigrateArgs) -> Result<()> {
    if !(a.to.starts_with("postgres://") || a.to.starts_with("postgresql://")) {
        bail!("--to: {:?} is not a postgres:// URL", a.to);
    }
    let started = std::time::Instant::now();
    let copied = baccarat_server::migrate::migrate(&a.from, &a.to).map_err(anyhow::Error::msg)?;
    // Duration is a statistic (floats are for statistics, never money).
    let seconds = started.elapsed().as_secs_f64();
    if a.json {
        println!("{}", serde_json::json!({ "copied": copied.streams, "checked": true, "seconds": seconds }));
    } else {
        println!("copied {} into PostgreSQL and checked the copy in {seconds:.1} s:", a.from.display());
        for (stream, rows) in &copied.streams {
            println!("  {stream}: {rows} rows");
        }
        println!("keep {0}.anchors and {0}.key: the server needs both", a.from.display());
    }
    Ok(())
}
