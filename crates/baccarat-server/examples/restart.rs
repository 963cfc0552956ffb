//! How long a start takes on a database, and what it reads: `cargo run
//! --release -p baccarat-server --example restart -- DB [--times N]`. Each
//! start opens the database as `baccarat serve` does (`serve::open_leased`:
//! the anchor check, recovery from the latest checkpoint and its tail, or the
//! whole history without one) and prints one JSON line: seconds until it could
//! serve, whether a checkpoint was used, the tail read, and the process's peak
//! and current RSS. The start's own checkpoint, which `serve` writes in the
//! background while it serves, is then written here and timed on its own
//! (`checkpoint_seconds`, null when none was due). A table whose settlement
//! a crash cut short is still settling when the start ends
//! (`settling_tables`): `serve`'s writer records the rest while it serves.
//! The first start on a database without a checkpoint replays it all and then
//! writes one; the starts after it read only the tail. `--key-retention-hours H`
//! sets the idempotency keys' window (default 72). A start reads none of the
//! window's keys (`recover::Keys::OnDisk`): the `keys` figure is 0.

use std::time::Instant;

/// The allocator `baccarat serve` runs with (`crates/baccarat/src/main.rs`),
/// so that a start here costs what it costs there.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use baccarat_server::serve::{open_leased, ServeConfig};

fn rss(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with(field)).map(|l| l.to_string()))
        .and_then(|l| l.split_whitespace().nth(1).and_then(|k| k.parse::<u64>().ok()))
        .map_or(0, |kb| kb / 1024)
}

fn main() {
    // As `baccarat serve` runs (`crates/baccarat/src/cmd/serve.rs`): without
    // transparent huge pages, whose first touch the kernel zeroes two
    // megabytes at a time. With them on, that zeroing was 27% of a start's
    // samples after a crash under `loadgen` (`perf`: `clear_page_erms`), a
    // cost `serve` does not pay.
    #[cfg(target_os = "linux")]
    if let Err(e) = nix::sys::prctl::set_thp_disable(true) {
        eprintln!("warning: cannot turn transparent huge pages off ({e}); measuring with them");
    }
    let mut args = std::env::args().skip(1);
    let Some(db) = args.next() else {
        eprintln!("usage: restart DB [--times N]");
        baccarat_core::exit::exit(2);
    };
    let mut times = 1usize;
    let mut cfg = ServeConfig::new(db.into(), "127.0.0.1:0".parse().expect("address"));
    cfg.founding = baccarat_core::audit::Founding::Demo;
    while let (Some(flag), Some(n)) = (args.next(), args.next()) {
        let Ok(n) = n.parse::<u64>() else {
            eprintln!("{flag}: {n} is not a number");
            baccarat_core::exit::exit(2);
        };
        match flag.as_str() {
            "--times" => times = n as usize,
            "--key-retention-hours" => cfg.key_retention = std::time::Duration::from_secs(n * 3600),
            _ => {
                eprintln!("usage: restart DB [--times N] [--key-retention-hours H]");
                baccarat_core::exit::exit(2);
            }
        }
    }
    for _ in 0..times {
        let t = Instant::now();
        let mut o = match open_leased(&cfg, None) {
            Ok(o) => o,
            Err(e) => {
                eprintln!("{e}");
                baccarat_core::exit::exit(1);
            }
        };
        let secs = t.elapsed().as_secs_f64();
        let (due, t) = (o.due.is_some(), Instant::now());
        if let Err(e) = o.write_due() {
            eprintln!("the start's checkpoint: {e}");
            baccarat_core::exit::exit(1);
        }
        let checkpoint_secs = due.then(|| t.elapsed().as_secs_f64());
        println!(
            "{}",
            serde_json::json!({
                "seconds": secs,
                "checkpoint_seconds": checkpoint_secs,
                "from_checkpoint": o.recovery.from_checkpoint,
                "refused_checkpoint": o.recovery.refused_checkpoint,
                "tail_records": o.recovery.tail_records,
                "tail_transfers": o.recovery.tail_transfers,
                "tables": o.casino.tables.len(),
                "keys": o.casino.ledger.keys(),
                "pending_holds": o.casino.ledger.pending().count(),
                "settling_tables": o.casino.tables.values().filter(|t| t.engine.settling()).count(),
                "rss_mb": rss("VmRSS:"),
                "peak_rss_mb": rss("VmHWM:"),
            })
        );
    }
}
