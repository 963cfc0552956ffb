//! Fill a database with a realistic casino history, fast and without HTTP: for
//! restart, recovery and verify benchmarks.
//!
//! ```sh
//! cargo run --release -p baccarat-server --example filldb -- --db PATH --records N \
//!     [--tables T] [--players P] [--wagers-per-coup W] [--seed S]
//! ```
//!
//! It opens the casino as the server does (`serve::open`: the demo casino, the
//! anchor and key files beside the database on the first run; or the database
//! as it is), makes sure there are `T` fill tables (RNG, NSW, wide limits as
//! `baccarat loadgen` configures its tables, with the pair side bets; tables
//! named `Fill N` from an earlier run are used again), deposits chips for `P`
//! players (ids 1,000,000 and up: no person of the users table) and then plays
//! rounds. In a round every fill table plays one coup the way the pacer runs
//! an RNG coup (`pacer.rs`): a new shoe when there is none or it is over, open
//! betting with a 15 s clock, `W` wagers from the players seated there
//! (single wagers and bet slips, interleaved across the tables), no more bets,
//! and the cards dealt one by one to the result and its settlement.
//!
//! Requests go through `Casino::handle` into one `Commit` per batch of up to
//! 4,096 requests, as the server's writer batches them, and every batch is
//! written by one function, [`Filler::flush`]: the store's commit, then the
//! anchor file. It stops at the end of the round in which the database reaches
//! `N` rows of history (audit records + transfers + idempotency answers, as
//! counted in the file when it starts plus what it wrote), so every coup is
//! settled and no wager is open.
//!
//! With `--mirror-pg URL` the casino as opened is first copied into an empty
//! PostgreSQL database (`migrate.rs`), then every batch is also committed to it
//! (`pg_store.rs`), and the time each store's commits
//! took is reported: the same real batches on both back ends.
//!
//! Players, seats, bets and amounts come from a seeded generator (`--seed`,
//! default 1); shoes are seeded from the OS, as the server seeds them.

use baccarat_core::TableId;
use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use baccarat_casino::casino::{Actor, Casino, Mode, Reply, Request, SlipLine};
use baccarat_core::anchor::AnchorLog;
use baccarat_core::ledger::keys::IdempotencyKey;
use baccarat_core::store::{Commit, Store};
use baccarat_rules::{Bet, Money};
use baccarat_server::serve::{heads_of, open, Opened, ServeConfig};
use baccarat_table::{Command, Phase, PlayerId, Spot};

/// Most requests in one commit (as `writer::MAX_BATCH`).
const MAX_BATCH: usize = 4096;
/// The fill tables: NSW, loadgen's wide limits, and the pair side bets.
const CONFIG: &str =
    "rulebook = \"nsw-2021\"\nchip = 100\nmin = 100\nmax = 1000000000\n[bets.player_pair]\n[bets.banker_pair]\n";
/// Players' ids start here (the users table's ids are small).
const FIRST_PLAYER: u32 = 1_000_000;
/// Chips each player is given.
const CHIPS: Money = Money(10_000_000_000);
/// Seats at an NSW layout (one player per box).
const BOXES: usize = 14;
/// The betting clock of each coup.
const BETTING_MS: u64 = 15_000;
/// Stakes, in cents (chips of 100), small ones most often.
const STAKES: [(i64, u32); 9] =
    [(100, 20), (200, 15), (500, 20), (1_000, 15), (2_000, 10), (5_000, 9), (10_000, 6), (25_000, 3), (50_000, 2)];

/// What to fill (the benches fill databases with it too: `benches/year.rs`).
pub struct Args {
    pub db: PathBuf,
    pub records: u64,
    pub tables: usize,
    pub players: u32,
    pub wagers_per_coup: usize,
    pub seed: u64,
    /// Commit every batch to this PostgreSQL database too, and time both.
    pub mirror_pg: Option<String>,
}

fn usage() -> String {
    "usage: filldb --db PATH --records N [--tables T (16)] [--players P (2000)] [--wagers-per-coup W (200)] [--seed S (1)] [--mirror-pg URL]"
        .into()
}

fn args() -> Result<Args, String> {
    let mut a = Args {
        db: PathBuf::new(),
        records: 0,
        tables: 16,
        players: 2000,
        wagers_per_coup: 200,
        seed: 1,
        mirror_pg: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        if flag == "--help" || flag == "-h" {
            return Err(usage());
        }
        let value = it.next().ok_or_else(|| format!("{flag}: needs a value\n{}", usage()))?;
        let num = |what: &str| value.parse::<u64>().map_err(|_| format!("{flag}: {what}, not {value:?}"));
        match flag.as_str() {
            "--db" => a.db = PathBuf::from(&value),
            "--records" => a.records = num("a number of rows")?,
            "--tables" => a.tables = num("a number of tables")? as usize,
            "--players" => a.players = num("a number of players")? as u32,
            "--wagers-per-coup" => a.wagers_per_coup = num("a number of wagers")? as usize,
            "--seed" => a.seed = num("a number")?,
            "--mirror-pg" => a.mirror_pg = Some(value.clone()),
            _ => return Err(format!("unknown flag {flag}\n{}", usage())),
        }
    }
    if a.db.as_os_str().is_empty() || a.records == 0 {
        return Err(format!("--db and --records are required\n{}", usage()));
    }
    if !(1..=200).contains(&a.tables) {
        return Err("--tables: 1 to 200".into());
    }
    if !(1..=1_000_000).contains(&a.players) {
        return Err("--players: 1 to 1,000,000".into());
    }
    if !(1..=100_000).contains(&a.wagers_per_coup) {
        return Err("--wagers-per-coup: 1 to 100,000 (the server's bound per coup)".into());
    }
    Ok(a)
}

/// SplitMix64: small, seeded, good enough to pick players and bets.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn weighted<T: Copy>(&mut self, items: &[(T, u32)]) -> T {
        let total: u32 = items.iter().map(|i| i.1).sum();
        let mut r = self.below(total as u64) as u32;
        for &(v, w) in items {
            if r < w {
                return v;
            }
            r -= w;
        }
        items[items.len() - 1].0
    }
}

/// Rows of history written: audit records, transfers, idempotency answers.
#[derive(Clone, Copy, Default)]
struct Rows {
    records: u64,
    transfers: u64,
    answers: u64,
}

impl Rows {
    fn total(&self) -> u64 {
        self.records + self.transfers + self.answers
    }

    fn of(commit: &Commit) -> Rows {
        Rows {
            records: commit.records.len() as u64,
            transfers: commit.ledger.iter().map(|c| c.transfers.len() as u64).sum(),
            answers: commit.ledger.iter().filter(|c| c.answer.is_some()).count() as u64,
        }
    }

    fn add(&mut self, o: Rows) {
        self.records += o.records;
        self.transfers += o.transfers;
        self.answers += o.answers;
    }
}

/// The casino, its store and anchor file, and the batch being made.
struct Filler {
    casino: Casino,
    store: baccarat_cluster::AnyStore,
    anchors: AnchorLog,
    /// The read model, as the server's committer keeps it (for checkpoints).
    feed: baccarat_casino::Feed,
    commit: Commit,
    /// Requests in `commit`.
    pending: usize,
    written: Rows,
    batches: u64,
    /// Wagers placed, and refused (by a rule or a limit).
    wagers: u64,
    refused: u64,
    refusals: HashMap<String, u64>,
    coups: u64,
    /// `--mirror-pg`: the PostgreSQL store every batch also goes to.
    mirror: Option<baccarat_cluster::pg_store::PgStore>,
    /// Time spent in each store's commits.
    sqlite_time: Duration,
    pg_time: Duration,
}

impl Filler {
    /// Handle one request into the batch; a full batch is written.
    fn handle(&mut self, req: Request) -> Result<Reply, String> {
        let reply = self.casino.handle(req, &mut self.commit);
        // No writer here to record a large settlement chunk by chunk.
        self.casino.settle_all(&mut self.commit);
        self.pending += 1;
        if self.pending >= MAX_BATCH {
            self.flush_pending()?;
        }
        Ok(reply)
    }

    /// Write the batch being made, if any.
    fn flush_pending(&mut self) -> Result<(), String> {
        if self.pending == 0 && self.commit.records.is_empty() && self.commit.ledger.is_empty() {
            return Ok(());
        }
        let commit = std::mem::take(&mut self.commit);
        self.pending = 0;
        self.flush(commit)
    }

    /// Write one batch: the store's commit (one transaction, one fsync), then
    /// the heads of the chains it appended to, signed into the anchor file (the
    /// anchor never runs ahead of the database). Every batch goes through here.
    fn flush(&mut self, commit: Commit) -> Result<(), String> {
        let t = Instant::now();
        self.store.commit(&commit).map_err(|e| format!("commit: {e}"))?;
        self.sqlite_time += t.elapsed();
        if let Some(pg) = &mut self.mirror {
            let t = Instant::now();
            pg.commit(&commit).map_err(|e| format!("PostgreSQL commit: {e}"))?;
            self.pg_time += t.elapsed();
        }
        self.anchors.append(&heads_of(&commit)).map_err(|e| format!("anchors: {e}"))?;
        for (t, seq, e) in &commit.events {
            self.feed.absorb(*t, *seq, e);
        }
        // Checkpoints as the server's writer takes them (`checkpoint.rs`).
        if self.casino.checkpoint_due(&commit, false) {
            baccarat_server::serve::write_checkpoint(&mut self.store, &self.anchors, &self.casino, &self.feed)
                .map_err(|e| e.to_string())?;
            // Written here, at once: the checkpointer is free again.
            self.casino.checkpointer_busy.set(false);
        }
        self.written.add(Rows::of(&commit));
        self.batches += 1;
        Ok(())
    }

    /// A command of the server's own at a table (it must be accepted).
    fn server(&mut self, table: TableId, command: Command) -> Result<(), String> {
        let what = format!("{command:?}");
        match self.handle(Request::Table { table, command, by: Actor::Server })? {
            Reply::Refused { code, rule, message } => {
                Err(format!("table {table}: {what} refused ({code:?} {rule:?}): {message}"))
            }
            _ => Ok(()),
        }
    }

    fn phase(&self, table: TableId) -> Result<Phase, String> {
        self.casino.phase(table).ok_or(format!("no table {table}"))
    }

    /// Count a wager's answer.
    fn tally(&mut self, r: &Reply) {
        match r {
            Reply::Wager { .. } => self.wagers += 1,
            Reply::Wagers { results, .. } => results.iter().for_each(|r| self.tally(r)),
            Reply::Refused { code, rule, .. } => {
                self.refused += 1;
                *self.refusals.entry(format!("{code:?} {}", rule.as_deref().unwrap_or(""))).or_default() += 1;
            }
            _ => {}
        }
    }
}

/// One player's wagers in the coup at one table: main side and pairs taken.
#[derive(Default, Clone, Copy)]
struct Seat {
    player: u32,
    main: Option<Bet>,
    player_pair: bool,
    banker_pair: bool,
}

impl Seat {
    /// A bet this player may make now (NSW 5.6.6: Banker and Player together
    /// needs a supervisor, so a player keeps to one side; NSW 10.5: one of each
    /// side bet per coup, and only with a main wager).
    fn choose(&mut self, rng: &mut Rng) -> Bet {
        let wanted = rng.weighted(&[
            (Bet::Banker, 45),
            (Bet::Player, 40),
            (Bet::Tie, 8),
            (Bet::PlayerPair, 4),
            (Bet::BankerPair, 3),
        ]);
        let bet = match wanted {
            Bet::PlayerPair if self.main.is_some() && !self.player_pair => Bet::PlayerPair,
            Bet::BankerPair if self.main.is_some() && !self.banker_pair => Bet::BankerPair,
            Bet::PlayerPair | Bet::BankerPair => self.main.unwrap_or(Bet::Banker),
            Bet::Banker | Bet::Player => match self.main {
                Some(side @ (Bet::Banker | Bet::Player)) => side,
                _ => wanted,
            },
            other => other,
        };
        match bet {
            Bet::PlayerPair => self.player_pair = true,
            Bet::BankerPair => self.banker_pair = true,
            Bet::Banker | Bet::Player => self.main = Some(bet),
            _ => {
                if self.main.is_none() {
                    self.main = Some(Bet::Tie);
                }
            }
        }
        bet
    }
}

fn file_size(p: &Path) -> u64 {
    std::fs::metadata(p).map_or(0, |m| m.len())
}

/// Rows of history already in the database (0 for a table it lacks).
fn rows_in(db: &Path) -> Rows {
    let Ok(conn) = rusqlite::Connection::open(db) else { return Rows::default() };
    let (records, transfers) = baccarat_core::store::logs::counts(&conn).unwrap_or_default();
    let answers = conn.query_row("SELECT count(*) FROM answer_log", [], |r| r.get::<_, i64>(0)).map_or(0, |n| n as u64);
    Rows { records, transfers, answers }
}

fn main() {
    if let Err(e) = args().and_then(|a| fill(&a)) {
        eprintln!("error: {e}");
        baccarat_core::exit::exit(2);
    }
}

/// Fill the database `a.db` (module docs).
pub fn fill(a: &Args) -> Result<(), String> {
    if let Some(dir) = a.db.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let addr: SocketAddr = "127.0.0.1:0".parse().expect("an address");
    let cfg = ServeConfig { founding: baccarat_core::audit::Founding::Demo, ..ServeConfig::new(a.db.clone(), addr) };
    let t_open = Instant::now();
    // The casino's lock is held while it fills (`db_lock.rs`).
    let Opened { mut store, casino, anchors, feed, lock: _lock, .. } = open(&cfg).map_err(|e| e.to_string())?;
    // Its answers are indexed as a server's are (`key_index.rs`), so that
    // the next start has only a run's worth to index.
    if let baccarat_cluster::AnyStore::Sqlite(s) = &mut store {
        s.maintain_keys_in_background(&a.db, cfg.key_retention.as_millis() as u64).map_err(|e| e.to_string())?;
    }
    let before = rows_in(&a.db);
    println!(
        "opened {} in {:.1} s: {} rows of history ({} audit records, {} transfers, {} answers)",
        a.db.display(),
        t_open.elapsed().as_secs_f64(),
        before.total(),
        before.records,
        before.transfers,
        before.answers
    );
    let mut f = Filler {
        casino,
        store,
        anchors,
        feed,
        commit: Commit::default(),
        pending: 0,
        written: Rows::default(),
        batches: 0,
        wagers: 0,
        refused: 0,
        refusals: HashMap::new(),
        coups: 0,
        mirror: match &a.mirror_pg {
            Some(url) => {
                // The mirror starts as a copy of the casino as opened (the
                // demo casino of a first run, or an earlier fill), so that
                // its chains and logs go on from the same ends.
                baccarat_server::migrate::migrate(&a.db, url).map_err(|e| format!("--mirror-pg: {e}"))?;
                Some(baccarat_cluster::pg_store::PgStore::connect(url).map_err(|e| format!("--mirror-pg: {e}"))?)
            }
            None => None,
        },
        sqlite_time: Duration::ZERO,
        pg_time: Duration::ZERO,
    };
    let mut rng = Rng(a.seed ^ 0x5EED_F111);
    // Keys are unique to this run (a database filled again is topped up).
    let nonce = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis());
    let start = Instant::now();

    // The fill tables: those of an earlier run, then new ones.
    let mut tables: Vec<TableId> = f
        .casino
        .tables
        .values()
        .filter(|t| t.mode == Mode::Rng && t.name.starts_with("Fill "))
        .map(|t| t.id)
        .take(a.tables)
        .collect();
    while tables.len() < a.tables {
        let name = format!("Fill {}", tables.len() + 1);
        let req = Request::CreateTable {
            name,
            rulebook: "nsw-2021".into(),
            config: CONFIG.into(),
            mode: Mode::Rng,
            float: None,
        };
        match f.handle(req)? {
            Reply::Table { table } => tables.push(table),
            r => return Err(format!("create a fill table: {r:?}")),
        }
    }
    // Chips for every player.
    for i in 0..a.players {
        let key = format!("fill-chips-{nonce}").parse().map_err(|e| format!("{e}"))?;
        let r = f.handle(Request::Deposit { player: PlayerId(FIRST_PLAYER + i), amount: CHIPS, key })?;
        if let Reply::Refused { message, .. } = r {
            return Err(format!("deposit for player {}: {message}", FIRST_PLAYER + i));
        }
    }
    f.flush_pending()?;

    let mut n = 0u64;
    let mut last_report = Instant::now();
    let mut rounds = 0u64;
    loop {
        // Every table to betting: a shoe where needed, then open.
        for &t in &tables {
            if matches!(f.phase(t)?, Phase::NoShoe | Phase::ShoeOver) {
                if let Reply::Refused { message, .. } = f.handle(Request::NewShoe { table: t })? {
                    return Err(format!("table {t}: new shoe: {message}"));
                }
            }
            if f.phase(t)? != Phase::Ready {
                return Err(format!("table {t} is {:?}, not ready for a coup", f.phase(t)?));
            }
            let closes_at = Some((f.casino.clock)() + BETTING_MS);
            f.server(t, Command::OpenBetting { no_bet: false, closes_at })?;
        }
        // Seat up to 14 players at each table, and take the wagers, the tables
        // interleaved as their players' requests would be.
        let mut seats: Vec<Vec<Seat>> = tables
            .iter()
            .map(|_| {
                let mut taken = HashSet::new();
                let want = BOXES.min(a.players as usize);
                let mut s = Vec::with_capacity(want);
                while s.len() < want {
                    let p = FIRST_PLAYER + rng.below(a.players as u64) as u32;
                    if taken.insert(p) {
                        s.push(Seat { player: p, ..Seat::default() });
                    }
                }
                s
            })
            .collect();
        let mut left: Vec<usize> = vec![a.wagers_per_coup; tables.len()];
        let mut open: Vec<usize> = (0..tables.len()).collect();
        while !open.is_empty() {
            let oi = rng.below(open.len() as u64) as usize;
            let ti = open[oi];
            let table = tables[ti];
            let si = rng.below(seats[ti].len() as u64) as usize;
            let seat = &mut seats[ti][si];
            let player = PlayerId(seat.player);
            let spot = Spot::Box(si as u8 + 1);
            // A quarter of the requests are slips of 2 to 4 wagers.
            let lines = if rng.below(4) == 0 { 2 + rng.below(3) as usize } else { 1 }.min(left[ti]);
            n += 1;
            let key: IdempotencyKey = format!("fill-{nonce}-{n}").parse().map_err(|e| format!("{e}"))?;
            let req = if lines == 1 {
                let bet = seat.choose(&mut rng);
                let amount = Money(rng.weighted(&STAKES));
                Request::Wager { table, player, spot, bet, amount, ante: Money::ZERO, key }
            } else {
                let slip = (0..lines)
                    .map(|_| SlipLine {
                        spot,
                        bet: seat.choose(&mut rng),
                        amount: Money(rng.weighted(&STAKES)),
                        ante: Money::ZERO,
                    })
                    .collect();
                Request::Wagers { table, player, slip, key }
            };
            let r = f.handle(req)?;
            f.tally(&r);
            left[ti] -= lines;
            if left[ti] == 0 {
                open.swap_remove(oi);
            }
        }
        // No more bets, then the cards, a table at a time in turn.
        for &t in &tables {
            f.server(t, Command::CloseBetting)?;
        }
        let mut dealing: Vec<TableId> = tables.clone();
        let mut steps = 0;
        while !dealing.is_empty() {
            steps += 1;
            if steps > 100 {
                return Err(format!("tables {dealing:?} did not finish their coups"));
            }
            for &t in &dealing {
                f.server(t, Command::DealNext)?;
            }
            let mut still = Vec::new();
            for &t in &dealing {
                match f.phase(t)? {
                    Phase::Closed | Phase::Dealing => still.push(t),
                    Phase::Ready | Phase::ShoeOver => f.coups += 1,
                    p => return Err(format!("table {t} is {p:?} after a card")),
                }
            }
            dealing = still;
        }
        rounds += 1;
        let total = before.total() + f.written.total() + Rows::of(&f.commit).total();
        if last_report.elapsed() >= Duration::from_secs(3) {
            last_report = Instant::now();
            let secs = start.elapsed().as_secs_f64();
            println!(
                "  {:>6.1} s  {:>11} rows ({:>5.1}%)  {:>9} wagers  {:>6} coups  {:>8.0} rows/s",
                secs,
                total,
                100.0 * total as f64 / a.records as f64,
                f.wagers,
                f.coups,
                f.written.total() as f64 / secs
            );
        }
        if total >= a.records {
            break;
        }
    }
    f.flush_pending()?;
    // As a clean stop does: a checkpoint of the end.
    baccarat_server::serve::write_checkpoint(&mut f.store, &f.anchors, &f.casino, &f.feed)
        .map_err(|e| e.to_string())?;
    let secs = start.elapsed().as_secs_f64();
    let (written, wagers, refused, coups, batches) = (f.written, f.wagers, f.refused, f.coups, f.batches);
    let per_wager = |d: Duration| d.as_secs_f64() * 1e6 / wagers.max(1) as f64;
    println!(
        "commits: SQLite {:.1} s ({:.1} µs a wager){}; {:.1} rows a wager",
        f.sqlite_time.as_secs_f64(),
        per_wager(f.sqlite_time),
        if f.mirror.is_some() {
            format!(", PostgreSQL {:.1} s ({:.1} µs a wager)", f.pg_time.as_secs_f64(), per_wager(f.pg_time))
        } else {
            String::new()
        },
        written.total() as f64 / wagers.max(1) as f64
    );
    let mut refusals: Vec<(String, u64)> = f.refusals.drain().collect();
    refusals.sort_by_key(|r| std::cmp::Reverse(r.1));
    drop(f); // the store closes (and checkpoints its log into the file)
    let after = rows_in(&a.db);
    let (anchor_file, key_file) = cfg.anchor_paths();
    let wal = PathBuf::from(format!("{}-wal", a.db.display()));
    println!(
        "wrote {} rows ({} audit records, {} transfers, {} answers) in {:.1} s: {:.0} rows/s, {} batches",
        written.total(),
        written.records,
        written.transfers,
        written.answers,
        secs,
        written.total() as f64 / secs,
        batches
    );
    println!(
        "{} rounds, {coups} coups, {wagers} wagers placed, {refused} refused{}",
        rounds,
        if refusals.is_empty() {
            String::new()
        } else {
            format!(" ({})", refusals.iter().take(4).map(|(k, n)| format!("{k}: {n}")).collect::<Vec<_>>().join(", "))
        }
    );
    println!(
        "the database now holds {} rows of history ({} audit records, {} transfers, {} answers)",
        after.total(),
        after.records,
        after.transfers,
        after.answers
    );
    println!(
        "{}: {:.1} MB (+ {:.1} MB WAL); {}: {:.1} MB; key {}",
        a.db.display(),
        file_size(&a.db) as f64 / 1e6,
        file_size(&wal) as f64 / 1e6,
        anchor_file.display(),
        file_size(&anchor_file) as f64 / 1e6,
        key_file.display()
    );
    Ok(())
}
