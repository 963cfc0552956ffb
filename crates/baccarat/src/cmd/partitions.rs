//! `baccarat partitions`: the partitions of a PostgreSQL casino and where
//! each is served (`baccarat_cluster::pg_store::bank::partitions`), so that a client,
//! or an operator, knows which server takes a partition's tables.

use anyhow::{bail, Result};

#[derive(clap::Args)]
pub struct PartitionsArgs {
    /// The casino's PostgreSQL URL (`postgres://…`, as `serve --db` takes it).
    #[arg(long, env = "BACCARAT_DB")]
    db: String,
    /// Print the list as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(a: PartitionsArgs) -> Result<()> {
    if !(a.db.starts_with("postgres://") || a.db.starts_with("postgresql://")) {
        bail!("--db: partitions are of a PostgreSQL casino (postgres://…), not {:?}", a.db);
    }
    let list = baccarat_cluster::pg_store::bank::partitions(&a.db).map_err(|e| anyhow::anyhow!("--db: {e}"))?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&list)?);
        return Ok(());
    }
    if list.is_empty() {
        println!("no partitions: the casino is served whole (serve without --partition)");
    }
    for p in &list {
        let at = match (&p.instance, &p.url, p.live) {
            (Some(i), Some(u), true) => format!("served by {i} at {u} (epoch {})", p.epoch.unwrap_or(0)),
            (Some(i), _, false) => format!("not served (its lease, last {i}'s, has expired)"),
            _ => "never served".to_string(),
        };
        let asked = p.asked_by.as_ref().map_or(String::new(), |a| format!(" (asked for by its own server {a})"));
        println!("{}: {at}{asked}; tables {:?}; {} held from the bank", p.name, p.tables, p.allotted);
    }
    Ok(())
}
