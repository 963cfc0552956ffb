//! `baccarat loadgen`: many players betting at many tables of a running server on
//! loopback, for a bounded time. Reports accepted bets per second, the latency
//! of every request as a player feels it (accepted, refused or failed), coups
//! per second, and the server's full ledger check afterwards.
//!
//! It first creates `--tables` load tables (NSW rules, wide limits, so that what
//! is measured is the server rather than the table maximums) and seats
//! `--players-per-table` new players at every table. Each request is a bet slip
//! of `--slip` main wagers (Banker and Tie in turn: NSW 10.5 allows one of each
//! side bet per coup, and Banker with Player needs a supervisor, NSW 5.6.6);
//! every wager in a slip counts as a bet. A request refused with 429 waits as
//! told and is retried with the same idempotency key (so is one refused with
//! 503, after a short pause).
//!
//! What is measured:
//!
//! * **Every request.** The time from sending a request to having its whole
//!   answer, for every request: accepted, refused (betting closed, a limit, 409,
//!   422, 429, 503) or failed. Kept in a log-bucket histogram in microseconds
//!   (32 buckets per power of two: a percentile is at most 3% above the true
//!   value, never below it), so memory stays fixed however long the run.
//!   Reported over all requests and over those with an accepted wager, with the
//!   counts by outcome.
//! * **The probe** (`--probe`, on by default). One more player, alone at a
//!   table of their own (a quiet table: no load player bets there), places one
//!   small wager every `--probe-interval-ms` for the whole run. The wagers are
//!   sent on a fixed schedule whether or not the previous one was answered (an
//!   open loop: a stall is seen by every wager it delays, not by one). Wagers
//!   sent while betting is closed at that table are refused, and timed too: the
//!   point is what a player at a quiet table waits while the server is busy
//!   elsewhere.
//! * **`--hot-table`.** Every load player sits at ONE load table, so that one
//!   coup holds tens of thousands of wagers and its settlement is one big batch,
//!   while the probe sits at its quiet table: the probe's maximum is the stall a
//!   big settlement causes.
//! * **Wagers per coup.** The server does not publish how many wagers a coup
//!   holds, so loadgen counts the wagers it had accepted at each load table
//!   between one close of betting and the next (it watches each table's phase
//!   in its view); the largest is reported.
//! * **`--soak MINUTES`** runs that long and samples the server's resident
//!   memory (`VmRSS` of `/proc/<--server-pid>/status`) every 10 s, reporting
//!   each sample and the least-squares slope of RSS against accepted wagers
//!   after a warm-up of 150 s (past the two minutes of idempotency keys the
//!   server holds in memory). `--server-pid` samples it in any run.
//!
//! * **`--viewers N`** opens N sockets watching the first load table, signed
//!   in as no one, as its page does (the whole message once, then deltas),
//!   and reports the push's latency from commit to receipt, the bytes a
//!   viewer receives per coup, and the server's memory (with
//!   `--server-pid`): [`viewers`] says how each is measured.
//!
//! A module a job: [`setup`] makes the tables and players, [`wagers`] holds the
//! load workers, [`probe`] the probe, [`coups`](mod@coups) counts the wagers per coup,
//! [`stats`] and [`hist`] keep the counts and latencies, [`rss`] samples the
//! server's memory, and [`report`] writes it all out; this file checks the
//! arguments and runs them together.

mod conn;
mod counters;
mod coups;
mod hist;
mod probe;
mod report;
mod rss;
mod setup;
mod stats;
mod viewers;
mod wagers;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde_json::Value;

use coups::{coups, watch_coups, CoupCount};
use probe::probe_run;
use report::{print_human, Measured};
use rss::{rss_mb, RSS_EVERY};
use setup::Player;
use stats::Stats;
use wagers::load_worker;

#[derive(clap::Args)]
pub struct Args {
    /// The server (loopback only). Give it more than once for several servers
    /// of one PostgreSQL casino: the set-up and the final checks go to the
    /// first, the load workers to each in turn, the probe to the last.
    #[arg(long, default_value = "http://127.0.0.1:8080")]
    url: Vec<String>,
    /// The admin's password (as the server's first run was given it, or
    /// from the file it wrote).
    #[arg(long, env = "BACCARAT_ADMIN_PASSWORD")]
    admin_password: String,
    /// Run against a casino not founded with `serve --demo`: loadgen adds
    /// its tables and players there for good (it names what it made).
    #[arg(long)]
    allow_production: bool,
    /// Seated players per table (at most the layout's seats).
    #[arg(long, default_value_t = 7)]
    players_per_table: u32,
    /// Load tables to create first (besides the tables already there).
    #[arg(long, default_value_t = 16)]
    tables: u32,
    /// Wagers per request (a bet slip), 1 to 32.
    #[arg(long, default_value_t = 4)]
    slip: usize,
    /// Requests in flight at once.
    #[arg(long, default_value_t = 64)]
    concurrency: usize,
    /// How long to run (1 to 600 s; see --soak for longer).
    #[arg(long, default_value_t = 20, conflicts_with = "soak")]
    seconds: u64,
    /// A probe player alone at a quiet table of their own, wagering every
    /// --probe-interval-ms for the whole run (`--probe false` to leave it out).
    #[arg(long, default_value_t = true, num_args = 0..=1, default_missing_value = "true", action = clap::ArgAction::Set)]
    probe: bool,
    /// How often the probe wagers, in ms (10 to 60000).
    #[arg(long, default_value_t = 100)]
    probe_interval_ms: u64,
    /// Seat every load player at ONE load table (instead of --tables), so one
    /// coup holds tens of thousands of wagers and settles in one batch.
    #[arg(long, conflicts_with = "tables")]
    hot_table: bool,
    /// Run this many minutes (1 to 60) and sample the server's RSS every 10 s
    /// (needs --server-pid).
    #[arg(long, value_name = "MINUTES")]
    soak: Option<u64>,
    /// The server's process id on this machine, to sample its RSS
    /// (/proc/PID/status).
    #[arg(long, value_name = "PID")]
    server_pid: Option<u32>,
    /// The `--url`s are servers of different partitions of one PostgreSQL
    /// casino (`serve --partition`), each with its own tables: each is set
    /// up on its own (its load tables, its players), its load workers send
    /// only to it, and each server's ledger is checked; the probe goes to
    /// the last.
    #[arg(long)]
    partitions: bool,
    /// Open this many sockets (1 to 20000) watching the first load table, and
    /// report the push's latency, bytes per viewer per coup and (with
    /// --server-pid) the server's memory; the open-file limit is raised to fit.
    #[arg(long, value_name = "N")]
    viewers: Option<u32>,
    /// Seat this many card counters (0 to 7) at each load table besides the
    /// players: each wagers Banker at every coup and the Player Pair (offered
    /// at the load tables then) only when its EV is positive; the report
    /// says how many the server's surveillance report flagged, and how many
    /// of the other players (`counters.rs`).
    #[arg(long, default_value_t = 0)]
    counters: u32,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> Result<()> {
    if a.url.len() > 16 {
        bail!("--url: at most 16 servers, not {}", a.url.len());
    }
    for url in &a.url {
        let host = url.trim_start_matches("http://").split(['/', ':']).next().unwrap_or_default().to_string();
        if !(host == "127.0.0.1" || host == "localhost" || host == "[::1]" || host.starts_with("127.")) {
            bail!("--url: loadgen drives loopback servers only, not {host}");
        }
        conn::Target::of(url.trim_end_matches('/')).map_err(|e| anyhow::anyhow!("--url: {e}"))?;
    }
    if a.seconds == 0
        || a.seconds > 600
        || a.concurrency == 0
        || a.concurrency > 1024
        || a.players_per_table == 0
        || a.players_per_table > 14
        || a.tables > 200
        || a.slip == 0
        || a.slip > 32
    {
        bail!("--seconds 1-600, --concurrency 1-1024, --players-per-table 1-14, --tables 0-200, --slip 1-32");
    }
    if a.counters > 7 || a.players_per_table + a.counters > 14 {
        bail!("--counters: 0 to 7 a table, each in a box of its own past the players' (14 boxes), not {}", a.counters);
    }
    if !(10..=60_000).contains(&a.probe_interval_ms) {
        bail!("--probe-interval-ms: 10 to 60000 ms, not {}", a.probe_interval_ms);
    }
    if let Some(m) = a.soak {
        if !(1..=60).contains(&m) {
            bail!("--soak: 1 to 60 minutes, not {m}");
        }
        if a.server_pid.is_none() {
            bail!("--soak needs --server-pid PID: the server's process id on this machine, to sample its RSS");
        }
    }
    if let Some(pid) = a.server_pid {
        rss_mb(pid).with_context(|| format!("--server-pid {pid}: cannot read the RSS of process {pid}"))?;
    }
    if let Some(n) = a.viewers {
        if !(1..=viewers::MAX_VIEWERS).contains(&n) {
            bail!("--viewers: 1 to {} sockets, not {n}", viewers::MAX_VIEWERS);
        }
        viewers::raise_fd_limit(n)?;
    }
    let rt = tokio::runtime::Runtime::new().context("async runtime")?;
    rt.block_on(drive(a))
}

/// The run's length.
fn duration(a: &Args) -> Duration {
    match a.soak {
        Some(m) => Duration::from_secs(m * 60),
        None => Duration::from_secs(a.seconds),
    }
}

/// Set up, run the load for its length beside the probe, the coup watchers
/// and the RSS sampler, stop them all, then check each ledger and report.
async fn drive(a: Args) -> Result<()> {
    let c = reqwest::Client::builder().pool_max_idle_per_host(a.concurrency).build()?;
    let urls: Vec<String> = a.url.iter().map(|u| u.trim_end_matches('/').to_string()).collect();
    let url = urls[0].clone();
    // The servers set up, each with its own tables and players (partitions),
    // or the first for all.
    let set_up = if a.partitions { urls.clone() } else { vec![url.clone()] };
    let (s, groups) = set_up_all(&a, &c, &set_up).await?;
    let setup::Setup { admin, run_id, tables, players, probe_table, probe, counters } = s;
    // The viewers count from here, once every socket has its first message.
    let watching = viewers::start(a.viewers, &url, tables[0].0).await?;
    let coups_before = sum_coups(&c, &set_up).await?;
    let shared = Arc::new(Shared::new(tables.len()));
    let players: Arc<Vec<Player>> = Arc::new(players);
    let length = duration(&a);
    let start = Instant::now();

    // The server's RSS, every 10 s from the start.
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let rss = a.server_pid.map(|pid| {
        let (shared, stop) = (shared.clone(), stop_rx.clone());
        tokio::spawn(async move { rss::sample(pid, start, shared, stop).await })
    });
    let probe_task = probe.map(|probe| spawn_probe(&a, probe, &urls, &run_id, &shared, &stop_rx));
    let watches = spawn_watchers(&c, &groups, &shared);
    let workers = spawn_workers(&a, &urls, &players, &shared);
    let counting = counters::spawn(&c, &url, &admin, counters, &shared);
    announce(&a, &urls, length);
    tokio::time::sleep(length).await;
    shared.stop.store(true, Ordering::Relaxed);
    let _ = stop_tx.send(true);
    let load = merged(workers).await;
    let secs = start.elapsed().as_secs_f64();
    let viewers = viewers::finish(watching, a.server_pid).await?;
    let probe_stats = match probe_task {
        Some(p) => Some(p.await.context("the probe")?),
        None => None,
    };
    let mut coup_counts = Vec::new();
    for w in watches {
        coup_counts.extend(w.await.context("the coup watcher")?);
    }
    let rss_samples = match rss {
        Some(r) => Some(last_rss_sample(r.await.context("the RSS sampler")?, &a, start, &shared)),
        None => None,
    };
    let coups_after = sum_coups(&c, &set_up).await?;
    let (ledger, ok) = check_ledgers(&c, &set_up, &admin).await?;
    let verdict = counting.verdict(&c, &url, &admin, &players).await?;
    let m = Measured {
        urls: &urls,
        secs,
        tables: &tables,
        players: &players,
        shared: &shared,
        load: &load,
        probe_stats: probe_stats.as_ref(),
        probe_table,
        coups_before,
        coups_after,
        coup_counts: &coup_counts,
        rss_samples: rss_samples.as_deref(),
        viewers: viewers.as_ref(),
        ledger: &ledger,
        counters: verdict.as_ref(),
    };
    write_report(&a, m, ok)
}

/// The load workers' counts, merged as each ends.
async fn merged(workers: Vec<tokio::task::JoinHandle<Stats>>) -> Stats {
    let mut load = Stats::default();
    for w in workers {
        if let Ok(s) = w.await {
            load.merge(&s);
        }
    }
    load
}

/// A load table group: a server's URL, its load tables, and where they
/// begin in the run's list of load tables.
type Group = (String, Vec<u32>, usize);

/// Set up each server in `set_up` (its load tables and players), numbered
/// as one list of load tables; the admin's session and the run's id are the
/// first server's, the probe the last's.
async fn set_up_all(a: &Args, c: &reqwest::Client, set_up: &[String]) -> Result<(setup::Setup, Vec<Group>)> {
    let mut setups = Vec::new();
    for u in set_up {
        setups.push(setup::setup(a, c, u).await?);
    }
    let (mut tables, mut players, mut groups) = (Vec::new(), Vec::new(), Vec::new());
    let (admin, run_id) = (setups[0].admin.clone(), setups[0].run_id.clone());
    let (mut probe_table, mut probe, mut counters) = (None, None, Vec::new());
    for (k, s) in setups.into_iter().enumerate() {
        counters.extend(s.counters);
        let offset = tables.len();
        groups.push((set_up[k].clone(), s.tables.iter().map(|t| t.0).collect::<Vec<u32>>(), offset));
        players.extend(s.players.into_iter().map(|p| setup::Player { index: p.index + offset, server: k, ..p }));
        tables.extend(s.tables);
        (probe_table, probe) = (s.probe_table, s.probe);
    }
    Ok((setup::Setup { admin, run_id, tables, players, probe_table, probe, counters }, groups))
}

/// The probe: one wager every interval, on a fixed schedule, at the last
/// server.
fn spawn_probe(
    a: &Args,
    (table, token): (u32, String),
    urls: &[String],
    run_id: &str,
    shared: &Arc<Shared>,
    stop: &tokio::sync::watch::Receiver<bool>,
) -> tokio::task::JoinHandle<Stats> {
    let shared = shared.clone();
    let url = urls[urls.len() - 1].clone();
    let every = Duration::from_millis(a.probe_interval_ms);
    let run_id = run_id.to_string();
    let stop = stop.clone();
    tokio::spawn(async move { probe_run(url, table, token, every, run_id, shared, stop).await })
}

/// Wagers per coup at each load table, by watching the tables' phases: a
/// watcher per group of load tables (per server).
fn spawn_watchers(
    c: &reqwest::Client,
    groups: &[Group],
    shared: &Arc<Shared>,
) -> Vec<tokio::task::JoinHandle<Vec<CoupCount>>> {
    groups
        .iter()
        .map(|(url, ids, offset)| {
            let (c, url, ids, offset, shared) = (c.clone(), url.clone(), ids.clone(), *offset, shared.clone());
            tokio::spawn(async move { watch_coups(c, url, ids, offset, shared).await })
        })
        .collect()
}

/// `--concurrency` load workers, spread over the servers in turn; with
/// partitions a worker sends only to its server, its players only.
fn spawn_workers(
    a: &Args,
    urls: &[String],
    players: &Arc<Vec<Player>>,
    shared: &Arc<Shared>,
) -> Vec<tokio::task::JoinHandle<Stats>> {
    let by_server: Vec<Arc<Vec<Player>>> = (0..urls.len())
        .map(|k| match a.partitions {
            true => Arc::new(players.iter().filter(|p| p.server == k).cloned().collect()),
            false => players.clone(),
        })
        .collect();
    let mut workers = Vec::new();
    for w in 0..a.concurrency {
        let k = w % urls.len();
        let (url, shared, players) = (urls[k].clone(), shared.clone(), by_server[k].clone());
        let slip = a.slip;
        workers.push(tokio::spawn(async move { load_worker(url, w, slip, players, shared).await }));
    }
    workers
}

/// Say what is running (not with `--json`, whose output is the report alone).
fn announce(a: &Args, urls: &[String], length: Duration) {
    if !a.json {
        match a.soak {
            Some(m) => {
                eprintln!("soak: {m} min against {}; RSS sampled every {} s", urls.join(", "), RSS_EVERY.as_secs())
            }
            None => eprintln!("load: {} s against {}", length.as_secs(), urls.join(", ")),
        }
    }
}

/// The RSS samples with one more taken as the load stops.
fn last_rss_sample(mut s: Vec<(f64, u64, f64)>, a: &Args, start: Instant, shared: &Shared) -> Vec<(f64, u64, f64)> {
    if let Some(pid) = a.server_pid {
        if let Ok(mb) = rss_mb(pid) {
            s.push((start.elapsed().as_secs_f64(), shared.accepted.load(Ordering::Relaxed), mb));
        }
    }
    s
}

/// Each server's ledger (partitions: each its own), the first's reported,
/// and whether every one balanced.
async fn check_ledgers(c: &reqwest::Client, set_up: &[String], admin: &str) -> Result<(Value, bool)> {
    let mut ledger = Value::Null;
    let mut ok = true;
    for u in set_up.iter().rev() {
        ledger = c.get(format!("{u}/api/ledger/check")).bearer_auth(admin).send().await?.json().await?;
        ok &= ledger["ok"] == true;
    }
    Ok((ledger, ok))
}

/// Print the report (JSON, or for a person), and fail the run if a ledger
/// did not balance.
fn write_report(a: &Args, m: Measured, ok: bool) -> Result<()> {
    let (load, probe_stats, ledger) = (m.load, m.probe_stats, m.ledger);
    let report = report::build(a, m);
    if a.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_human(&report, load, probe_stats, ok);
    }
    if !ok {
        bail!("the ledger check failed: {ledger}");
    }
    Ok(())
}

/// Coups dealt so far at every table of each server.
async fn sum_coups(c: &reqwest::Client, urls: &[String]) -> Result<u64> {
    let mut n = 0;
    for u in urls {
        n += coups(c, u).await?;
    }
    Ok(n)
}

/// What workers share.
struct Shared {
    stop: AtomicBool,
    /// Wagers accepted, refused, and refused because betting was closed.
    accepted: AtomicU64,
    refused: AtomicU64,
    refused_closed: AtomicU64,
    /// Wagers accepted at each load table (by its place in the list).
    per_table: Vec<AtomicU64>,
}

impl Shared {
    /// Nothing counted yet, at `tables` load tables.
    fn new(tables: usize) -> Shared {
        Shared {
            stop: AtomicBool::new(false),
            accepted: AtomicU64::new(0),
            refused: AtomicU64::new(0),
            refused_closed: AtomicU64::new(0),
            per_table: (0..tables).map(|_| AtomicU64::new(0)).collect(),
        }
    }
}
