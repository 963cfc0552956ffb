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
//!   after the first minute. `--server-pid` samples it in any run.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};

#[derive(clap::Args)]
pub struct Args {
    /// The server (loopback only). Give it more than once for several servers
    /// of one PostgreSQL casino: the set-up and the final checks go to the
    /// first, the load workers to each in turn, the probe to the last.
    #[arg(long, default_value = "http://127.0.0.1:8080")]
    url: Vec<String>,
    /// The admin's password (printed on the server's first run).
    #[arg(long, env = "BACCARAT_ADMIN_PASSWORD")]
    admin_password: String,
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
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// How often the server's RSS is sampled.
const RSS_EVERY: Duration = Duration::from_secs(10);
/// RSS samples before this are the warm-up, left out of the slope.
const WARM_UP_SECONDS: f64 = 60.0;
/// Most probe wagers waiting for their answers at once; beyond it a tick is
/// skipped (and counted).
const PROBE_IN_FLIGHT: usize = 1024;
/// The probe's and the load tables' configuration: NSW, wide limits.
const LOAD_CONFIG: &str = "rulebook = \"nsw-2021\"\nchip = 100\nmin = 100\nmax = 1000000000\n";

pub fn run(a: Args) -> Result<()> {
    if a.url.len() > 16 {
        bail!("--url: at most 16 servers, not {}", a.url.len());
    }
    for url in &a.url {
        let host = url.trim_start_matches("http://").split(['/', ':']).next().unwrap_or_default().to_string();
        if !(host == "127.0.0.1" || host == "localhost" || host == "[::1]" || host.starts_with("127.")) {
            bail!("--url: loadgen drives loopback servers only, not {host}");
        }
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

async fn drive(a: Args) -> Result<()> {
    let c = reqwest::Client::builder().pool_max_idle_per_host(a.concurrency).build()?;
    let urls: Vec<String> = a.url.iter().map(|u| u.trim_end_matches('/').to_string()).collect();
    let url = urls[0].clone();
    let login = |name: String, password: String| {
        let (c, url) = (c.clone(), url.clone());
        async move {
            let r: Value = c
                .post(format!("{url}/api/login"))
                .json(&json!({"name": name, "password": password}))
                .send()
                .await?
                .json()
                .await?;
            r["token"].as_str().map(str::to_string).with_context(|| format!("login {name}: {r}"))
        }
    };
    let admin = login("admin".into(), a.admin_password.clone()).await?;
    let create_table = |name: String| {
        let (c, url, admin) = (c.clone(), url.clone(), admin.clone());
        async move {
            let r = send(&c, || {
                c.post(format!("{url}/api/tables"))
                    .bearer_auth(&admin)
                    .json(&json!({"name": name, "config": LOAD_CONFIG}))
            })
            .await?;
            Ok::<u32, anyhow::Error>(r["table"].as_u64().with_context(|| format!("create table {name:?}: {r}"))? as u32)
        }
    };
    let run_id = baccarat_server::auth::random_hex(4);
    let create_player = |name: String| {
        let (c, url, admin) = (c.clone(), url.clone(), admin.clone());
        async move {
            let r = send(&c, || {
                c.post(format!("{url}/api/players"))
                    .bearer_auth(&admin)
                    .json(&json!({"name": name, "password": "loadpass", "chips": 100_000_000_000i64}))
            })
            .await?;
            r["player"].as_u64().with_context(|| format!("create player {name}: {r}"))?;
            Ok::<(), anyhow::Error>(())
        }
    };
    // The probe's quiet table first: no load player is ever seated there.
    let probe_table = match a.probe {
        true => Some(create_table(format!("Probe {run_id}")).await?),
        false => None,
    };
    let load_tables = if a.hot_table { 1 } else { a.tables };
    let mut created = Vec::new();
    for i in 0..load_tables {
        let name = if a.hot_table { format!("Hot {run_id}") } else { format!("Load {}", i + 1) };
        created.push(create_table(name).await?);
    }
    let tables: Value = c.get(format!("{url}/api/tables")).send().await?.json().await?;
    let tables: Vec<(u32, i64)> = tables["tables"]
        .as_array()
        .context("tables")?
        .iter()
        .filter(|t| t["mode"] == "rng")
        .map(|t| (t["id"].as_u64().unwrap_or(0) as u32, t["min"].as_i64().unwrap_or(1000)))
        // With load tables, only they are driven (the others' limits would
        // refuse most of the load); without, every RNG table is, except the
        // probe's.
        .filter(|(id, _)| created.is_empty() || created.contains(id))
        .filter(|(id, _)| Some(*id) != probe_table)
        .collect();
    if tables.is_empty() {
        bail!("the server has no RNG table to drive");
    }
    // Players: one per seat, with ample play chips.
    let mut players = Vec::new();
    for (ti, &(table, min)) in tables.iter().enumerate() {
        for seat in 1..=a.players_per_table {
            let name = format!("load-{run_id}-{table}-{seat}");
            create_player(name.clone()).await?;
            let token = login(name, "loadpass".into()).await?;
            players.push(Player { table, index: ti, seat: seat as u8, min, token });
        }
    }
    let probe = match probe_table {
        Some(table) => {
            let name = format!("probe-{run_id}");
            create_player(name.clone()).await?;
            Some((table, login(name, "loadpass".into()).await?))
        }
        None => None,
    };
    let coups_before = coups(&c, &url).await?;
    let shared = Arc::new(Shared {
        stop: AtomicBool::new(false),
        accepted: AtomicU64::new(0),
        refused: AtomicU64::new(0),
        refused_closed: AtomicU64::new(0),
        per_table: tables.iter().map(|_| AtomicU64::new(0)).collect(),
    });
    let players = Arc::new(players);
    let length = duration(&a);
    let start = Instant::now();

    // The server's RSS, every 10 s from the start.
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let rss = a.server_pid.map(|pid| {
        let shared = shared.clone();
        let mut stop = stop_rx.clone();
        tokio::spawn(async move {
            let mut samples = Vec::new();
            let mut tick = tokio::time::interval(RSS_EVERY);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    _ = tick.tick() => {}
                    _ = stop.wait_for(|s| *s) => return samples,
                }
                if let Ok(mb) = rss_mb(pid) {
                    samples.push((start.elapsed().as_secs_f64(), shared.accepted.load(Ordering::Relaxed), mb));
                }
            }
        })
    });

    // The probe: one wager every interval, on a fixed schedule.
    let probe_task = probe.map(|(table, token)| {
        let shared = shared.clone();
        let url = urls[urls.len() - 1].clone();
        let every = Duration::from_millis(a.probe_interval_ms);
        let run_id = run_id.clone();
        let stop = stop_rx.clone();
        tokio::spawn(async move { probe_run(url, table, token, every, run_id, shared, stop).await })
    });

    // Wagers per coup at each load table, by watching the tables' phases.
    let watch = {
        let (c, url, shared) = (c.clone(), url.clone(), shared.clone());
        let ids: Vec<u32> = tables.iter().map(|t| t.0).collect();
        tokio::spawn(async move { watch_coups(c, url, ids, shared).await })
    };

    let mut workers = Vec::new();
    for w in 0..a.concurrency {
        let (c, url, shared, players) = (c.clone(), urls[w % urls.len()].clone(), shared.clone(), players.clone());
        let slip = a.slip;
        workers.push(tokio::spawn(async move { load_worker(c, url, w, slip, players, shared).await }));
    }
    if !a.json {
        match a.soak {
            Some(m) => {
                eprintln!("soak: {m} min against {}; RSS sampled every {} s", urls.join(", "), RSS_EVERY.as_secs())
            }
            None => eprintln!("load: {} s against {}", length.as_secs(), urls.join(", ")),
        }
    }
    tokio::time::sleep(length).await;
    shared.stop.store(true, Ordering::Relaxed);
    let _ = stop_tx.send(true);
    let mut load = Stats::default();
    for w in workers {
        if let Ok(s) = w.await {
            load.merge(&s);
        }
    }
    let secs = start.elapsed().as_secs_f64();
    let probe_stats = match probe_task {
        Some(p) => Some(p.await.context("the probe")?),
        None => None,
    };
    let coup_counts = watch.await.context("the coup watcher")?;
    let rss_samples = match rss {
        Some(r) => {
            let mut s = r.await.context("the RSS sampler")?;
            if let Some(pid) = a.server_pid {
                if let Ok(mb) = rss_mb(pid) {
                    s.push((start.elapsed().as_secs_f64(), shared.accepted.load(Ordering::Relaxed), mb));
                }
            }
            Some(s)
        }
        None => None,
    };
    let coups_after = coups(&c, &url).await?;
    let ledger: Value = c.get(format!("{url}/api/ledger/check")).bearer_auth(&admin).send().await?.json().await?;
    let ok = ledger["ok"] == true;

    let accepted = shared.accepted.load(Ordering::Relaxed);
    let largest = coup_counts.iter().map(|c| c.wagers).max();
    let with_wagers: Vec<u64> = coup_counts.iter().map(|c| c.wagers).filter(|&w| w > 0).collect();
    let mean_coup =
        (!with_wagers.is_empty()).then(|| with_wagers.iter().sum::<u64>() as f64 / with_wagers.len() as f64);
    let largest_at = coup_counts.iter().max_by_key(|c| c.wagers);
    let slope = rss_samples.as_deref().and_then(slope_mb_per_million);
    let report = json!({
        "servers": urls,
        "seconds": secs,
        "tables": tables.len(),
        "players": players.len(),
        "concurrency": a.concurrency,
        "slip": a.slip,
        "accepted_bets": accepted,
        "refused_bets": shared.refused.load(Ordering::Relaxed),
        "refused_bets_betting_closed": shared.refused_closed.load(Ordering::Relaxed),
        "accepted_bets_per_second": accepted as f64 / secs,
        // The requests with at least one wager accepted (as before).
        "ack_latency_ms": load.accepted_latency.summary(),
        "requests": load.outcomes(),
        "latency_ms": {
            "all": load.all_latency.summary(),
            "accepted": load.accepted_latency.summary(),
        },
        "probe": probe_stats.as_ref().map(|p| {
            let mut v = p.outcomes();
            v["table"] = json!(probe_table);
            v["interval_ms"] = json!(a.probe_interval_ms);
            v["skipped"] = json!(p.skipped);
            v["latency_ms"] = p.all_latency.summary();
            v["count"] = json!(p.all_latency.count());
            v["max_ms"] = json!(p.all_latency.max_ms());
            v["p9999_ms"] = json!(p.all_latency.quantile_ms(0.9999));
            v
        }),
        "hot_table": a.hot_table.then(|| tables[0].0),
        "coups": {
            "per_second": (coups_after - coups_before) as f64 / secs,
            "observed": coup_counts.len(),
            "largest_coup_wagers": largest,
            "largest_coup": largest_at.map(|c| json!({"table": c.table, "coup": c.coup, "complete": c.complete})),
            "mean_coup_wagers": mean_coup,
            "how": "accepted wagers counted by loadgen between closes of betting at each load table",
        },
        "coups_per_second": (coups_after - coups_before) as f64 / secs,
        "soak_minutes": a.soak,
        "rss": rss_samples.as_ref().map(|s| json!({
            "pid": a.server_pid,
            "every_seconds": RSS_EVERY.as_secs(),
            "samples": s.iter().map(|(t, n, mb)| json!({"t_s": t, "accepted_bets": n, "rss_mb": mb})).collect::<Vec<_>>(),
            "warm_up_seconds": WARM_UP_SECONDS,
            "slope_mb_per_million_bets": slope,
        })),
        "ledger": ledger,
    });
    if a.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_human(&report, &load, probe_stats.as_ref(), ok);
    }
    if !ok {
        bail!("the ledger check failed: {ledger}");
    }
    Ok(())
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

struct Player {
    table: u32,
    /// The table's place in the list of load tables.
    index: usize,
    seat: u8,
    min: i64,
    token: String,
}

/// How a request ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    /// At least one wager accepted.
    Accepted,
    /// Every wager refused because betting was not open.
    BettingClosed,
    /// Refused by a rule, a limit, the wallet or the server (409, 422, …).
    Refused,
    /// 429: over the per-user rate (retried with the same key).
    RateLimited,
    /// 503: the writer's queue was full (retried with the same key).
    Busy,
    /// No answer, a 5xx other than 503, or an answer that was not JSON.
    Error,
}

/// One side's counts and latencies.
#[derive(Default)]
struct Stats {
    all_latency: Hist,
    accepted_latency: Hist,
    accepted: u64,
    betting_closed: u64,
    refused: u64,
    rate_limited: u64,
    busy: u64,
    errors: u64,
    by_status: BTreeMap<String, u64>,
    /// Probe ticks skipped because too many wagers were waiting.
    skipped: u64,
}

impl Stats {
    fn add(&mut self, outcome: Outcome, status: Option<u16>, us: u64) {
        self.all_latency.record(us);
        match outcome {
            Outcome::Accepted => {
                self.accepted += 1;
                self.accepted_latency.record(us);
            }
            Outcome::BettingClosed => self.betting_closed += 1,
            Outcome::Refused => self.refused += 1,
            Outcome::RateLimited => self.rate_limited += 1,
            Outcome::Busy => self.busy += 1,
            Outcome::Error => self.errors += 1,
        }
        let key = status.map_or_else(|| "no_answer".to_string(), |s| s.to_string());
        *self.by_status.entry(key).or_default() += 1;
    }

    fn merge(&mut self, o: &Stats) {
        self.all_latency.merge(&o.all_latency);
        self.accepted_latency.merge(&o.accepted_latency);
        self.accepted += o.accepted;
        self.betting_closed += o.betting_closed;
        self.refused += o.refused;
        self.rate_limited += o.rate_limited;
        self.busy += o.busy;
        self.errors += o.errors;
        self.skipped += o.skipped;
        for (k, v) in &o.by_status {
            *self.by_status.entry(k.clone()).or_default() += v;
        }
    }

    fn total(&self) -> u64 {
        self.all_latency.count()
    }

    /// Requests by outcome. `refused_other` counts every refusal but a closed
    /// betting window: rules and limits, 429 and 503 (also listed apart).
    fn outcomes(&self) -> Value {
        json!({
            "total": self.total(),
            "accepted": self.accepted,
            "refused_betting_closed": self.betting_closed,
            "refused_other": self.refused + self.rate_limited + self.busy,
            "rate_limited": self.rate_limited,
            "busy": self.busy,
            "errors": self.errors,
            "by_status": self.by_status,
        })
    }
}

/// One load worker: bet slips from the players in turn until told to stop.
async fn load_worker(
    c: reqwest::Client,
    url: String,
    w: usize,
    slip: usize,
    players: Arc<Vec<Player>>,
    shared: Arc<Shared>,
) -> Stats {
    let mut stats = Stats::default();
    let mut n = 0u64;
    // A request to send again (429/503) under the same key: (player, key).
    let mut again: Option<(usize, String)> = None;
    while !shared.stop.load(Ordering::Relaxed) {
        let (pi, key) = again.take().unwrap_or_else(|| {
            let pi = (w + n as usize * 7919) % players.len();
            n += 1;
            (pi, format!("{w}-{n}"))
        });
        let p = &players[pi];
        // The same slip for the same key (Banker and Tie in turn by the key's number).
        let parity = key.rsplit('-').next().and_then(|s| s.parse::<usize>().ok()).unwrap_or(0);
        let wagers: Vec<Value> = (0..slip)
            .map(|i| json!({"bet": if (parity + i) % 2 == 0 { "banker" } else { "tie" }, "amount": p.min}))
            .collect();
        let body = json!({"wagers": wagers, "spot": p.seat, "key": key});
        let (outcome, status, us, answer) =
            timed(c.post(format!("{url}/api/tables/{}/wagers", p.table)).bearer_auth(&p.token).json(&body)).await;
        stats.add(outcome, status, us);
        match outcome {
            Outcome::RateLimited => {
                let wait = answer["retry_after_ms"].as_u64().unwrap_or(10).clamp(1, 1000);
                tokio::time::sleep(Duration::from_millis(wait)).await;
                again = Some((pi, key));
            }
            Outcome::Busy => {
                tokio::time::sleep(Duration::from_millis(5)).await;
                again = Some((pi, key));
            }
            Outcome::Error => tokio::time::sleep(Duration::from_millis(5)).await,
            _ => {}
        }
        let (ok, refused, closed) = wager_counts(status, &answer, slip);
        shared.accepted.fetch_add(ok, Ordering::Relaxed);
        shared.refused.fetch_add(refused, Ordering::Relaxed);
        shared.refused_closed.fetch_add(closed, Ordering::Relaxed);
        shared.per_table[p.index].fetch_add(ok, Ordering::Relaxed);
    }
    stats
}

/// Send a wager request and classify its answer. Returns the outcome, the
/// HTTP status, the microseconds until the whole answer was read, and the
/// answer's JSON (null if none).
async fn timed(r: reqwest::RequestBuilder) -> (Outcome, Option<u16>, u64, Value) {
    let t0 = Instant::now();
    let resp = r.send().await;
    let (status, body) = match resp {
        Ok(resp) => {
            let status = resp.status().as_u16();
            (Some(status), resp.bytes().await.ok())
        }
        Err(_) => (None, None),
    };
    let us = t0.elapsed().as_micros().min(u64::MAX as u128) as u64;
    let answer: Value = body.as_deref().and_then(|b| serde_json::from_slice(b).ok()).unwrap_or(Value::Null);
    let outcome = match status {
        None => Outcome::Error,
        Some(_) if answer.is_null() => Outcome::Error,
        Some(200..=299) => {
            if answer["result"] == "wager" {
                Outcome::Accepted
            } else {
                let results = answer["results"].as_array().map_or(&[][..], Vec::as_slice);
                if results.iter().any(|r| r["result"] == "wager") {
                    Outcome::Accepted
                } else if !results.is_empty() && results.iter().all(closed) {
                    Outcome::BettingClosed
                } else {
                    Outcome::Refused
                }
            }
        }
        Some(429) => Outcome::RateLimited,
        Some(503) => Outcome::Busy,
        Some(_) if closed(&answer) => Outcome::BettingClosed,
        Some(400..=499) => Outcome::Refused,
        Some(_) => Outcome::Error,
    };
    (outcome, status, us, answer)
}

/// Whether a refusal (a slip's line, or a whole answer) says betting is not open.
fn closed(r: &Value) -> bool {
    let text = r["message"].as_str().or(r["error"].as_str()).unwrap_or_default();
    text.contains("betting is not open") || text.contains("wagers are closed") || text.contains("betting closed")
}

/// Wagers accepted, refused, and refused because betting was closed, in one
/// answer to a slip of `slip` wagers. A 429 or 503 is sent again and counts
/// nothing; any other refusal of the whole request refuses every wager.
fn wager_counts(status: Option<u16>, answer: &Value, slip: usize) -> (u64, u64, u64) {
    match status {
        Some(200..=299) => {
            let results = answer["results"].as_array().map_or(&[][..], Vec::as_slice);
            let ok = results.iter().filter(|r| r["result"] == "wager").count() as u64;
            let closed = results.iter().filter(|r| r["result"] != "wager" && closed(r)).count() as u64;
            (ok, results.len() as u64 - ok, closed)
        }
        None | Some(429) | Some(503) => (0, 0, 0),
        Some(_) => (0, slip as u64, if closed(answer) { slip as u64 } else { 0 }),
    }
}

/// The probe: one small wager every `every` at its own table, sent on schedule
/// whether or not earlier ones were answered; every answer timed.
async fn probe_run(
    url: String,
    table: u32,
    token: String,
    every: Duration,
    run_id: String,
    shared: Arc<Shared>,
    mut stop: tokio::sync::watch::Receiver<bool>,
) -> Stats {
    // Its own connections: a player elsewhere does not share the load's pool.
    let c = reqwest::Client::new();
    let stats = Arc::new(Mutex::new(Stats::default()));
    let in_flight = Arc::new(AtomicUsize::new(0));
    let mut set = tokio::task::JoinSet::new();
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut n = 0u64;
    let mut skipped = 0u64;
    while !shared.stop.load(Ordering::Relaxed) {
        tokio::select! {
            _ = tick.tick() => {}
            _ = stop.wait_for(|s| *s) => break,
        }
        while set.try_join_next().is_some() {}
        if in_flight.load(Ordering::Relaxed) >= PROBE_IN_FLIGHT {
            skipped += 1;
            continue;
        }
        n += 1;
        let req = c
            .post(format!("{url}/api/tables/{table}/wagers"))
            .bearer_auth(&token)
            .json(&json!({"bet": "banker", "amount": 100, "spot": 1, "key": format!("probe-{run_id}-{n}")}));
        let (stats, in_flight) = (stats.clone(), in_flight.clone());
        in_flight.fetch_add(1, Ordering::Relaxed);
        set.spawn(async move {
            let (outcome, status, us, _) = timed(req).await;
            stats.lock().expect("probe stats").add(outcome, status, us);
            in_flight.fetch_sub(1, Ordering::Relaxed);
        });
    }
    // The wagers still waiting are answered (or time out) and counted.
    let _ = tokio::time::timeout(Duration::from_secs(60), async { while set.join_next().await.is_some() {} }).await;
    set.abort_all();
    let mut s = std::mem::take(&mut *stats.lock().expect("probe stats"));
    s.skipped = skipped;
    s
}

/// Wagers one coup of a load table held (as loadgen counted them).
struct CoupCount {
    table: u32,
    coup: u64,
    wagers: u64,
    /// False for a coup still taking wagers when the run ended.
    complete: bool,
}

/// After betting closes, wait this long before reading the table's count of
/// accepted wagers, so that answers already on their way are in it. The next
/// coup opens only after the cards and the result's pause.
const ANSWERS_IN_FLIGHT: Duration = Duration::from_millis(150);

/// Watch the load tables' phases and count the wagers each coup took: the
/// table's accepted wagers are read once betting has closed (and the answers
/// have arrived); a coup's wagers are the difference from the previous close.
/// The tables are new, so the first coup starts from zero.
async fn watch_coups(c: reqwest::Client, url: String, ids: Vec<u32>, shared: Arc<Shared>) -> Vec<CoupCount> {
    struct Watch {
        /// The coup seen taking wagers.
        betting: Option<u64>,
        /// A coup whose betting closed, and when that was seen.
        closing: Option<(u64, Instant)>,
        /// The table's accepted wagers at the last close.
        counted: u64,
    }
    let mut w: Vec<Watch> = ids.iter().map(|_| Watch { betting: None, closing: None, counted: 0 }).collect();
    let mut out = Vec::new();
    // One table: its own view, often. Several: the list, less often.
    let every = if ids.len() == 1 { Duration::from_millis(50) } else { Duration::from_millis(200) };
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let settle = |w: &mut Watch, i: usize, coup: u64, complete: bool, out: &mut Vec<CoupCount>| {
        let now = shared.per_table[i].load(Ordering::Relaxed);
        out.push(CoupCount { table: ids[i], coup, wagers: now - w.counted, complete });
        w.counted = now;
    };
    while !shared.stop.load(Ordering::Relaxed) {
        tick.tick().await;
        let seen: Vec<(u32, u64, String)> = if ids.len() == 1 {
            match c.get(format!("{url}/api/tables/{}", ids[0])).send().await {
                Ok(r) => match r.json::<Value>().await {
                    Ok(t) => vec![(ids[0], t["coup"].as_u64().unwrap_or(0), t["phase"].as_str().unwrap_or("").into())],
                    Err(_) => continue,
                },
                Err(_) => continue,
            }
        } else {
            match c.get(format!("{url}/api/tables")).send().await {
                Ok(r) => match r.json::<Value>().await {
                    Ok(v) => v["tables"]
                        .as_array()
                        .map(|a| {
                            a.iter()
                                .map(|t| {
                                    let id = t["id"].as_u64().unwrap_or(0) as u32;
                                    (id, t["coup"].as_u64().unwrap_or(0), t["phase"].as_str().unwrap_or("").into())
                                })
                                .collect()
                        })
                        .unwrap_or_default(),
                    Err(_) => continue,
                },
                Err(_) => continue,
            }
        };
        for (id, coup, phase) in seen {
            let Some(i) = ids.iter().position(|&x| x == id) else { continue };
            let t = &mut w[i];
            let betting = phase == "betting";
            // A close seen earlier: read the count once the answers are in, or
            // at once if the next coup is already taking wagers.
            if let Some((c0, at)) = t.closing {
                if at.elapsed() >= ANSWERS_IN_FLIGHT || (betting && coup != c0) {
                    t.closing = None;
                    settle(t, i, c0, true, &mut out);
                }
            }
            match (t.betting, betting) {
                (Some(b), true) if b != coup => {
                    // The close was missed between two looks: count it now.
                    settle(t, i, b, true, &mut out);
                    t.betting = Some(coup);
                }
                (None, true) => t.betting = Some(coup),
                (Some(b), false) => {
                    t.betting = None;
                    t.closing = Some((b, Instant::now()));
                }
                _ => {}
            }
        }
    }
    // The load has stopped: let the last answers land, then count what each
    // table took since its last close (a coup closing, or still open).
    tokio::time::sleep(ANSWERS_IN_FLIGHT).await;
    for i in 0..ids.len() {
        let t = &mut w[i];
        if let Some((c0, _)) = t.closing.take() {
            settle(t, i, c0, true, &mut out);
        }
        if let Some(b) = t.betting.take() {
            settle(t, i, b, false, &mut out);
        }
    }
    out
}

/// A log-bucket histogram of microseconds: exact below 64 µs, then 32 buckets
/// per power of two. A quantile is reported as its bucket's upper bound (at
/// most ~3% above the true value, never below), and never above the exact
/// maximum. Fixed memory: 2,048 counters.
#[derive(Clone)]
struct Hist {
    counts: Vec<u64>,
    n: u64,
    sum: u128,
    max: u64,
}

const SUB_BITS: u32 = 5;
const SUB: u64 = 1 << SUB_BITS;
const BUCKETS: usize = 2048;

impl Default for Hist {
    fn default() -> Hist {
        Hist { counts: vec![0; BUCKETS], n: 0, sum: 0, max: 0 }
    }
}

impl Hist {
    fn bucket(v: u64) -> usize {
        if v < 2 * SUB {
            return v as usize;
        }
        let e = 63 - v.leading_zeros();
        let shift = e - SUB_BITS;
        ((shift as u64 + 1) * SUB + ((v >> shift) - SUB)) as usize
    }

    /// The largest value bucket `i` holds.
    fn upper(i: usize) -> u64 {
        let i = i as u64;
        if i < 2 * SUB {
            return i;
        }
        let shift = i / SUB - 1;
        let m = i % SUB + SUB;
        (((m + 1) as u128) << shift).saturating_sub(1).min(u64::MAX as u128) as u64
    }

    fn record(&mut self, us: u64) {
        self.counts[Self::bucket(us)] += 1;
        self.n += 1;
        self.sum += us as u128;
        self.max = self.max.max(us);
    }

    fn merge(&mut self, o: &Hist) {
        for (a, b) in self.counts.iter_mut().zip(&o.counts) {
            *a += b;
        }
        self.n += o.n;
        self.sum += o.sum;
        self.max = self.max.max(o.max);
    }

    fn count(&self) -> u64 {
        self.n
    }

    /// The `q` quantile in ms (0 when empty).
    fn quantile_ms(&self, q: f64) -> f64 {
        if self.n == 0 {
            return 0.0;
        }
        let rank = ((q * self.n as f64).ceil() as u64).clamp(1, self.n);
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return Self::upper(i).min(self.max) as f64 / 1000.0;
            }
        }
        self.max_ms()
    }

    fn max_ms(&self) -> f64 {
        self.max as f64 / 1000.0
    }

    fn summary(&self) -> Value {
        json!({
            "count": self.n,
            "mean": if self.n == 0 { 0.0 } else { self.sum as f64 / self.n as f64 / 1000.0 },
            "p50": self.quantile_ms(0.50),
            "p99": self.quantile_ms(0.99),
            "p999": self.quantile_ms(0.999),
            "p9999": self.quantile_ms(0.9999),
            "max": self.max_ms(),
        })
    }
}

/// The resident memory of process `pid` in MB (VmRSS of /proc/PID/status).
fn rss_mb(pid: u32) -> Result<f64> {
    let path = format!("/proc/{pid}/status");
    let text = std::fs::read_to_string(&path).with_context(|| path.clone())?;
    let kb: f64 = text
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .with_context(|| format!("{path} has no VmRSS line"))?;
    Ok(kb / 1024.0)
}

/// The least-squares slope of RSS (MB) against accepted wagers (millions),
/// over the samples after the warm-up; None with fewer than two such samples
/// or no wagers accepted between them.
fn slope_mb_per_million(samples: &[(f64, u64, f64)]) -> Option<f64> {
    let pts: Vec<(f64, f64)> =
        samples.iter().filter(|s| s.0 >= WARM_UP_SECONDS).map(|&(_, n, mb)| (n as f64 / 1e6, mb)).collect();
    if pts.len() < 2 {
        return None;
    }
    let k = pts.len() as f64;
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / k;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / k;
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}

fn print_human(r: &Value, load: &Stats, probe: Option<&Stats>, ok: bool) {
    let f = |v: &Value| v.as_f64().unwrap_or(0.0);
    println!(
        "{:.0} accepted bets/s ({} accepted, {} refused by the rules or limits, {} of them as betting was closed) over {:.1} s; {:.2} coups/s; ledger {}",
        f(&r["accepted_bets_per_second"]),
        r["accepted_bets"],
        r["refused_bets"],
        r["refused_bets_betting_closed"],
        f(&r["seconds"]),
        f(&r["coups_per_second"]),
        if ok { "balanced" } else { "NOT BALANCED" }
    );
    println!(
        "requests: {} ({} with a wager accepted, {} refused as betting was closed, {} refused otherwise (429: {}, 503: {}), {} errors)",
        load.total(),
        load.accepted,
        load.betting_closed,
        load.refused + load.rate_limited + load.busy,
        load.rate_limited,
        load.busy,
        load.errors
    );
    let line = |name: &str, h: &Hist| {
        println!(
            "  {name:<14} p50 {:>8.2} ms   p99 {:>8.2} ms   p99.9 {:>8.2} ms   max {:>8.2} ms   ({} requests)",
            h.quantile_ms(0.5),
            h.quantile_ms(0.99),
            h.quantile_ms(0.999),
            h.max_ms(),
            h.count()
        )
    };
    line("every request", &load.all_latency);
    line("accepted", &load.accepted_latency);
    if let Some(p) = probe {
        println!(
            "probe at table {} every {} ms: {} wagers ({} accepted, {} refused as betting was closed, {} refused otherwise, {} errors, {} ticks skipped)",
            r["probe"]["table"],
            r["probe"]["interval_ms"],
            p.total(),
            p.accepted,
            p.betting_closed,
            p.refused + p.rate_limited + p.busy,
            p.errors,
            p.skipped
        );
        println!(
            "  probe          p50 {:>8.2} ms   p99 {:>8.2} ms   p99.99 {:>6.2} ms   max {:>8.2} ms",
            p.all_latency.quantile_ms(0.5),
            p.all_latency.quantile_ms(0.99),
            p.all_latency.quantile_ms(0.9999),
            p.all_latency.max_ms()
        );
    }
    let coups = &r["coups"];
    let hot = match r["hot_table"].as_u64() {
        Some(t) => format!(" (hot table {t})"),
        None => String::new(),
    };
    match coups["largest_coup_wagers"].as_u64() {
        Some(n) => println!(
            "wagers per coup{hot}: largest {n}, mean {:.0} over {} coups (counted by loadgen between closes of betting)",
            f(&coups["mean_coup_wagers"]),
            coups["observed"]
        ),
        None => println!("wagers per coup{hot}: no coup observed"),
    }
    if let Some(samples) = r["rss"]["samples"].as_array() {
        println!("server RSS (pid {}), every {} s:", r["rss"]["pid"], r["rss"]["every_seconds"]);
        for s in samples {
            println!(
                "  {:>7.1} s  {:>12} accepted  {:>9.1} MB",
                f(&s["t_s"]),
                s["accepted_bets"].as_u64().unwrap_or(0),
                f(&s["rss_mb"])
            );
        }
        match r["rss"]["slope_mb_per_million_bets"].as_f64() {
            Some(s) => println!("  slope after the first minute: {s:.2} MB per million accepted wagers"),
            None => println!("  slope: too few samples after the first minute"),
        }
    }
}

async fn coups(c: &reqwest::Client, url: &str) -> Result<u64> {
    let t: Value = c.get(format!("{url}/api/tables")).send().await?.json().await?;
    Ok(t["tables"].as_array().map_or(0, |a| a.iter().map(|t| t["coup"].as_u64().unwrap_or(0)).sum()))
}

/// Send an admin request, waiting and retrying while it is rate-limited.
async fn send(c: &reqwest::Client, make: impl Fn() -> reqwest::RequestBuilder) -> Result<Value> {
    let _ = c;
    loop {
        let r = make().send().await?;
        if r.status() == reqwest::StatusCode::TOO_MANY_REQUESTS {
            let v: Value = r.json().await.unwrap_or_default();
            tokio::time::sleep(Duration::from_millis(v["retry_after_ms"].as_u64().unwrap_or(50).max(1))).await;
            continue;
        }
        return Ok(r.json().await?);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_contiguous_and_bound_their_values() {
        let mut last = 0;
        for v in 0..1_000_000u64 {
            let b = Hist::bucket(v);
            assert!(b == last || b == last + 1, "{v}");
            assert!(Hist::upper(b) >= v, "{v}");
            assert!(Hist::upper(b) as f64 <= v as f64 * (1.0 + 1.0 / SUB as f64) + 1.0, "{v}");
            last = b;
        }
        assert!(Hist::bucket(u64::MAX) < BUCKETS);
        assert_eq!(Hist::upper(Hist::bucket(u64::MAX)), u64::MAX);
    }

    #[test]
    fn quantiles() {
        let mut h = Hist::default();
        for v in 1..=10_000u64 {
            h.record(v);
        }
        assert!((h.quantile_ms(0.5) - 5.0).abs() < 0.2);
        assert!((h.quantile_ms(0.99) - 9.9).abs() < 0.4);
        assert_eq!(h.max_ms(), 10.0);
        assert_eq!(h.quantile_ms(1.0), 10.0);
        assert_eq!(Hist::default().quantile_ms(0.5), 0.0);
    }

    #[test]
    fn slope_after_warm_up() {
        let s: Vec<(f64, u64, f64)> =
            (0..10).map(|i| (i as f64 * 10.0, i * 1_000_000, 100.0 + 2.0 * i as f64)).collect();
        assert!((slope_mb_per_million(&s).unwrap() - 2.0).abs() < 1e-9);
        assert_eq!(slope_mb_per_million(&s[..7]), None);
    }
}
