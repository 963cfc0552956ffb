//! `baccarat serve` and `baccarat verify`.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use baccarat_server::serve::{serve, ServeConfig};
use baccarat_server::store::{SqliteStore, Store};

#[derive(clap::Args)]
pub struct ServeArgs {
    /// The database file; created with a demo casino if it does not exist.
    #[arg(long, env = "BACCARAT_DB", default_value = "baccarat.db")]
    db: PathBuf,
    /// Address to listen on.
    #[arg(long, env = "BACCARAT_ADDR", default_value = "127.0.0.1:8080")]
    addr: std::net::SocketAddr,
    /// Seconds betting stays open on RNG tables.
    #[arg(long, env = "BACCARAT_BETTING_SECONDS", default_value_t = 15)]
    betting_seconds: u64,
    /// Milliseconds between cards on RNG tables.
    #[arg(long, env = "BACCARAT_DEAL_MS", default_value_t = 700)]
    deal_ms: u64,
}

pub fn run_serve(a: ServeArgs) -> Result<()> {
    if a.betting_seconds == 0 || a.betting_seconds > 3600 {
        bail!("--betting-seconds: {} is outside 1 to 3600", a.betting_seconds);
    }
    if a.deal_ms > 60_000 {
        bail!("--deal-ms: {} is above 60000", a.deal_ms);
    }
    let cfg = ServeConfig {
        db: a.db,
        addr: a.addr,
        betting: Duration::from_secs(a.betting_seconds),
        deal: Duration::from_millis(a.deal_ms),
        demo_password: "demo".into(),
    };
    let rt = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    rt.block_on(serve(cfg)).map_err(anyhow::Error::msg)
}

#[derive(clap::Args)]
pub struct VerifyArgs {
    /// The database file to check.
    #[arg(long, env = "BACCARAT_DB", default_value = "baccarat.db")]
    db: PathBuf,
}

pub fn run_verify(a: VerifyArgs) -> Result<()> {
    if !a.db.exists() {
        bail!("--db: {} does not exist", a.db.display());
    }
    let mut store = SqliteStore::open(&a.db).map_err(|e| anyhow::anyhow!("{}: {e}", a.db.display()))?;
    let snap = store.load().map_err(|e| anyhow::anyhow!("{e}"))?;
    let f = baccarat_server::verify::verify(&snap);
    println!(
        "{}: {} tables, {} records, {} shoes, {} coups, {} settlements checked",
        a.db.display(),
        f.tables,
        f.records,
        f.shoes,
        f.coups,
        f.settlements
    );
    if f.problems.is_empty() {
        println!("verified: every chain, card, result, settlement and ledger balance agrees");
        Ok(())
    } else {
        for p in &f.problems {
            println!("DIFFERENCE: {p}");
        }
        bail!("{} differences found", f.problems.len())
    }
}
