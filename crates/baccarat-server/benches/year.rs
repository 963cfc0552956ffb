//! A year on one machine, as benchmarks (issue: restart, memory, stall):
//!
//! * `restart/*`: a start (`serve::open`, as `baccarat serve` opens) on
//!   databases of 100,000 and 1,000,000 rows of history filled as a busy floor
//!   would (`examples/filldb.rs`), from their latest checkpoint, ten minutes
//!   after the fill (flat in the history's size is the point), and just after
//!   it (every key still among the two minutes' memory holds: it reads them).
//! * `stall/*`: the longest single writer step (an engine command or a chunk
//!   of settlement, with its commit to SQLite) while one table settles a coup
//!   of 90,000 wagers: the most any other table's request waits behind it.
//! * Memory: after each restart bench, the resident memory and the keys a
//!   start holds are printed (a start holds only the last minutes' keys:
//!   `keys.rs`). The slope under load is `baccarat loadgen --soak`'s figure.
//!
//! `cargo bench -p baccarat-server --bench year`. The databases are made once
//! per run in the temp directory (about 10 s for the larger).

#[path = "../examples/filldb.rs"]
#[allow(dead_code)]
mod filldb;

use baccarat_core::TableId;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use baccarat_casino::casino::{Actor, Casino, Mode, Request, SlipLine};
use baccarat_core::store::{Commit, SqliteStore, Store};
use baccarat_rules::{Bet, Money};
use baccarat_server::serve::{open, ServeConfig};
use baccarat_table::{Command, Phase, PlayerId, Spot};
use criterion::{criterion_group, criterion_main, Criterion};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("baccarat-bench-year-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir.join("casino.db")
}

/// A database of about `records` rows of history, with a checkpoint at its end.
fn filled(records: u64) -> ServeConfig {
    let db = scratch(&format!("fill-{records}"));
    let a = filldb::Args {
        db: db.clone(),
        records,
        tables: 16,
        players: 2000,
        wagers_per_coup: 200,
        seed: 1,
        mirror_pg: None,
    };
    filldb::fill(&a).expect("fill");
    let mut cfg = ServeConfig::new(db, "127.0.0.1:0".parse().expect("an address"));
    cfg.founding = baccarat_core::audit::Founding::Demo;
    // The start comes ten minutes after the fill: a database written just
    // now has every key inside the two minutes memory holds, which no real
    // restart after a stop sees (`restart, just written` shows that case).
    let later = baccarat_server::http::now_ms() + 10 * 60_000;
    cfg.clock = std::sync::Arc::new(move || later);
    cfg
}

fn rss_mb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmRSS:")).map(str::to_string))
        .and_then(|l| l.split_whitespace().nth(1).and_then(|k| k.parse::<u64>().ok()))
        .map_or(0, |kb| kb / 1024)
}

fn restart(c: &mut Criterion) {
    let mut g = c.benchmark_group("restart");
    g.sample_size(10);
    for records in [100_000u64, 1_000_000] {
        let cfg = filled(records);
        drop(open(&cfg).expect("a first start"));
        g.bench_function(format!("from the checkpoint, {records} rows of history"), |b| {
            b.iter(|| {
                let o = open(&cfg).expect("a start");
                assert!(o.recovery.from_checkpoint);
                o
            })
        });
        let o = open(&cfg).expect("a start");
        println!(
            "memory: a start on {records} rows of history holds {} keys and {} open holds; RSS {} MB",
            o.casino.ledger.keys(),
            o.casino.ledger.pending().count(),
            rss_mb()
        );
        drop(o);
        let mut now = cfg.clone();
        now.clock = std::sync::Arc::new(baccarat_server::http::now_ms);
        g.bench_function(format!("just written (every key hot), {records} rows of history"), |b| {
            b.iter(|| open(&now).expect("a start"))
        });
    }
    g.finish();
}

const PLAYERS: u32 = 14;
const CONFIG: &str = "rulebook = \"nsw-2021\"\nchip = 100\nmin = 100\nmax = 1000000000\n";

/// A casino on a fresh database whose table 1 has `wagers` wagers and betting
/// closed, all of it committed.
fn crowded(db: &std::path::Path, wagers: u32) -> (Casino, SqliteStore) {
    let _ = std::fs::remove_file(db);
    let mut store = SqliteStore::open(db).expect("a store");
    let mut c = Casino::new();
    let mut commit = Commit::default();
    c.create_table(TableId(1), "Busy", "nsw-2021", CONFIG, Mode::Rng, Money(1_000_000_000_000), &mut commit)
        .expect("table");
    c.create_table(TableId(2), "Quiet", "nsw-2021", CONFIG, Mode::Rng, Money(1_000_000_000), &mut commit)
        .expect("table");
    for p in 0..=PLAYERS {
        c.handle(
            Request::Deposit {
                player: PlayerId(p),
                amount: Money(1_000_000_000),
                key: format!("d{p}").parse().unwrap(),
            },
            &mut commit,
        );
    }
    for t in [TableId(1), TableId(2)] {
        c.handle(Request::NewShoe { table: t }, &mut commit);
        let open = Command::OpenBetting { no_bet: false, closes_at: None };
        c.handle(Request::Table { table: t, command: open, by: Actor::Server }, &mut commit);
    }
    store.commit(&std::mem::take(&mut commit)).expect("commit");
    for i in 0..wagers / 32 {
        let p = i % PLAYERS;
        let line = SlipLine { spot: Spot::Box(1 + p as u8), bet: Bet::Banker, amount: Money(2000), ante: Money::ZERO };
        c.handle(
            Request::Wagers {
                table: TableId(1),
                player: PlayerId(p),
                slip: vec![line; 32],
                key: format!("w{i}").parse().unwrap(),
            },
            &mut commit,
        );
        if i % 128 == 0 {
            store.commit(&std::mem::take(&mut commit)).expect("commit");
        }
    }
    c.handle(Request::Table { table: TableId(1), command: Command::CloseBetting, by: Actor::Server }, &mut commit);
    store.commit(&commit).expect("commit");
    (c, store)
}

/// Deal table 1 to its result and record its settlement as the writer does,
/// a quiet table's wager with each step; the longest step.
fn longest_step(c: &mut Casino, store: &mut SqliteStore, n: u32) -> Duration {
    let mut longest = Duration::ZERO;
    let quiet = |k: u32| Request::Wager {
        table: TableId(2),
        player: PlayerId(PLAYERS),
        spot: Spot::Box(1),
        bet: Bet::Player,
        amount: Money(100),
        ante: Money::ZERO,
        key: format!("q{n}-{k}").parse().unwrap(),
    };
    let mut k = 0;
    loop {
        let t = Instant::now();
        let mut commit = Commit::default();
        c.handle(quiet(k), &mut commit);
        k += 1;
        let dealing = matches!(c.phase(TableId(1)), Some(Phase::Closed | Phase::Dealing)) && !c.settling();
        if dealing {
            c.handle(Request::Table { table: TableId(1), command: Command::DealNext, by: Actor::Server }, &mut commit);
        } else if c.settling() {
            c.settle_some(&mut commit);
        }
        store.commit(&commit).expect("commit");
        longest = longest.max(t.elapsed());
        if !dealing && !c.settling() {
            return longest;
        }
    }
}

fn stall(c: &mut Criterion) {
    let mut g = c.benchmark_group("stall");
    g.sample_size(10);
    let db = scratch("stall");
    let mut n = 0;
    g.bench_function("longest writer step while 90,000 wagers settle", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let (mut casino, mut store) = crowded(&db, 90_000);
                n += 1;
                total += longest_step(&mut casino, &mut store, n);
            }
            total
        })
    });
    g.finish();
}

criterion_group!(benches, restart, stall);
criterion_main!(benches);
