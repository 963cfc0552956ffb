//! `baccarat loadgen`: many players betting at many tables of a running server on
//! loopback, for a bounded time. Reports accepted bets per second, the p50 and
//! p99 latency of a durable acknowledgement, coups per second, and the server's
//! full ledger check afterwards.
//!
//! It first creates `--tables` load tables (NSW rules, wide limits, so that what
//! is measured is the server rather than the table maximums) and seats
//! `--players-per-table` new players at every table. Each request is a bet slip
//! of `--slip` main wagers (Banker and Tie in turn: NSW 10.5 allows one of each
//! side bet per coup, and Banker with Player needs a supervisor, NSW 5.6.6);
//! every wager in a slip counts as a bet. A request refused with 429 waits as
//! told and is retried with the same idempotency key.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};

#[derive(clap::Args)]
pub struct Args {
    /// The server (loopback only).
    #[arg(long, default_value = "http://127.0.0.1:8080")]
    url: String,
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
    /// How long to run.
    #[arg(long, default_value_t = 20)]
    seconds: u64,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> Result<()> {
    let host = a.url.trim_start_matches("http://").split(['/', ':']).next().unwrap_or_default().to_string();
    if !(host == "127.0.0.1" || host == "localhost" || host == "[::1]" || host.starts_with("127.")) {
        bail!("--url: loadgen drives loopback servers only, not {host}");
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
    let rt = tokio::runtime::Runtime::new().context("async runtime")?;
    rt.block_on(drive(a))
}

async fn drive(a: Args) -> Result<()> {
    let c = reqwest::Client::builder().pool_max_idle_per_host(a.concurrency).build()?;
    let url = a.url.trim_end_matches('/').to_string();
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
    let mut created = Vec::new();
    for i in 0..a.tables {
        let config = "rulebook = \"nsw-2021\"\nchip = 100\nmin = 100\nmax = 1000000000\n";
        let r = send(&c, || {
            c.post(format!("{url}/api/tables"))
                .bearer_auth(&admin)
                .json(&json!({"name": format!("Load {}", i + 1), "config": config}))
        })
        .await?;
        created.push(r["table"].as_u64().with_context(|| format!("create a load table: {r}"))? as u32);
    }
    let tables: Value = c.get(format!("{url}/api/tables")).send().await?.json().await?;
    let tables: Vec<(u32, i64)> = tables["tables"]
        .as_array()
        .context("tables")?
        .iter()
        .filter(|t| t["mode"] == "rng")
        .map(|t| (t["id"].as_u64().unwrap_or(0) as u32, t["min"].as_i64().unwrap_or(1000)))
        // With load tables, only they are driven (the others' limits would
        // refuse most of the load); without, every RNG table is.
        .filter(|(id, _)| created.is_empty() || created.contains(id))
        .collect();
    let run_id = baccarat_server::auth::random_hex(4);
    // Players: one per seat, with ample play chips.
    let mut players = Vec::new();
    for &(table, min) in &tables {
        for seat in 1..=a.players_per_table {
            let name = format!("load-{run_id}-{table}-{seat}");
            let r = send(&c, || {
                c.post(format!("{url}/api/players"))
                    .bearer_auth(&admin)
                    .json(&json!({"name": name, "password": "loadpass", "chips": 100_000_000_000i64}))
            })
            .await?;
            r["player"].as_u64().with_context(|| format!("create player: {r}"))?;
            let token = login(name, "loadpass".into()).await?;
            players.push((table, seat as u8, min, token));
        }
    }
    let coups_before = coups(&c, &url).await?;
    let stop = Arc::new(AtomicBool::new(false));
    let accepted = Arc::new(AtomicU64::new(0));
    let refused = Arc::new(AtomicU64::new(0));
    let latencies = Arc::new(Mutex::new(Vec::<u32>::with_capacity(1 << 20)));
    let players = Arc::new(players);
    let slip = a.slip;
    let start = Instant::now();
    let mut workers = Vec::new();
    for w in 0..a.concurrency {
        let (c, url, stop, acc, refd, lat, players) = (
            c.clone(),
            url.clone(),
            stop.clone(),
            accepted.clone(),
            refused.clone(),
            latencies.clone(),
            players.clone(),
        );
        workers.push(tokio::spawn(async move {
            let mut n = 0u64;
            let mut mine = Vec::new();
            while !stop.load(Ordering::Relaxed) {
                let (table, seat, min, token) = &players[(w + n as usize * 7919) % players.len()];
                let wagers: Vec<Value> = (0..slip)
                    .map(|i| json!({"bet": if (n as usize + i) % 2 == 0 { "banker" } else { "tie" }, "amount": min}))
                    .collect();
                let key = format!("{w}-{n}");
                n += 1;
                let t0 = Instant::now();
                let r = c
                    .post(format!("{url}/api/tables/{table}/wagers"))
                    .bearer_auth(token)
                    .json(&json!({"wagers": wagers, "spot": seat, "key": key}))
                    .send()
                    .await;
                match r {
                    Ok(resp) if resp.status() == reqwest::StatusCode::TOO_MANY_REQUESTS => {
                        tokio::time::sleep(Duration::from_millis(10)).await;
                    }
                    Ok(resp) if resp.status().is_success() => {
                        let body: Value = resp.json().await.unwrap_or_default();
                        let ms = t0.elapsed().as_micros().min(u32::MAX as u128) as u32;
                        let results = body["results"].as_array().map_or(&[][..], Vec::as_slice);
                        let ok = results.iter().filter(|r| r["result"] == "wager").count() as u64;
                        if ok > 0 {
                            mine.push(ms);
                        }
                        acc.fetch_add(ok, Ordering::Relaxed);
                        refd.fetch_add(results.len() as u64 - ok, Ordering::Relaxed);
                    }
                    Ok(_) => {
                        refd.fetch_add(slip as u64, Ordering::Relaxed);
                    }
                    Err(_) => tokio::time::sleep(Duration::from_millis(5)).await,
                }
            }
            lat.lock().expect("latencies").extend(mine);
        }));
    }
    tokio::time::sleep(Duration::from_secs(a.seconds)).await;
    stop.store(true, Ordering::Relaxed);
    for w in workers {
        let _ = w.await;
    }
    let secs = start.elapsed().as_secs_f64();
    let coups_after = coups(&c, &url).await?;
    let mut lat = latencies.lock().expect("latencies").clone();
    lat.sort_unstable();
    let pct = |p: f64| {
        lat.get(((lat.len() as f64 * p) as usize).min(lat.len().saturating_sub(1))).copied().unwrap_or(0) as f64
            / 1000.0
    };
    let ledger: Value = c.get(format!("{url}/api/ledger/check")).bearer_auth(&admin).send().await?.json().await?;
    let ok = ledger["ok"] == true;
    let report = json!({
        "seconds": secs,
        "tables": tables.len(),
        "players": players.len(),
        "concurrency": a.concurrency,
        "slip": a.slip,
        "accepted_bets": accepted.load(Ordering::Relaxed),
        "refused_bets": refused.load(Ordering::Relaxed),
        "accepted_bets_per_second": accepted.load(Ordering::Relaxed) as f64 / secs,
        "ack_latency_ms": {"p50": pct(0.50), "p99": pct(0.99), "max": lat.last().copied().unwrap_or(0) as f64 / 1000.0},
        "coups_per_second": (coups_after - coups_before) as f64 / secs,
        "ledger": ledger,
    });
    if a.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!(
            "{:.0} accepted bets/s ({} accepted, {} refused by the rules or limits) over {:.1} s; ack p50 {:.2} ms, p99 {:.2} ms; {:.2} coups/s; ledger {}",
            report["accepted_bets_per_second"].as_f64().unwrap_or(0.0),
            report["accepted_bets"],
            report["refused_bets"],
            secs,
            pct(0.5),
            pct(0.99),
            report["coups_per_second"].as_f64().unwrap_or(0.0),
            if ok { "balanced" } else { "NOT BALANCED" }
        );
    }
    if !ok {
        bail!("the ledger check failed: {ledger}");
    }
    Ok(())
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
