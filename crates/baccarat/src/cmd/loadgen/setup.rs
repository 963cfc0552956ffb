//! Setting up a run: the admin's session, the probe's quiet table, the load
//! tables (NSW, wide limits, so the server rather than the table maximums is
//! measured), and a new player with ample play chips at every seat. All of it
//! goes to the first server, and only then does the load start.

use std::time::Duration;

use anyhow::{bail, Context, Result};
use baccarat_core::trust::Mode;
use serde_json::{json, Value};

use super::counters::Counter;
use super::Args;

/// The probe's and the load tables' configuration: NSW, wide limits.
const LOAD_CONFIG: &str = "rulebook = \"nsw-2021\"\nchip = 100\nmin = 100\nmax = 1000000000\n";

/// With `--counters`: the Player Pair offered too (NSW 10.6), the wager a
/// counter beats.
const COUNT_CONFIG: &str =
    "rulebook = \"nsw-2021\"\nchip = 100\nmin = 100\nmax = 1000000000\n[bets.player_pair]\nmax = 1000000000\n";

/// A load player: seated at one load table, signed in.
#[derive(Clone)]
pub(super) struct Player {
    pub(super) table: u32,
    /// The table's place in the list of load tables.
    pub(super) index: usize,
    pub(super) seat: u8,
    pub(super) min: i64,
    pub(super) token: String,
    /// Their player id.
    pub(super) id: u64,
    /// Its server's place in `--url` (partitions; else 0).
    pub(super) server: usize,
}

/// What the set-up made: the admin's session, the run's id (in the names of
/// the tables, players and idempotency keys it creates), the load tables with
/// their minimums, the seated players, and the probe's table and session.
pub(super) struct Setup {
    pub(super) admin: String,
    pub(super) run_id: String,
    pub(super) tables: Vec<(u32, i64)>,
    pub(super) players: Vec<Player>,
    pub(super) probe_table: Option<u32>,
    pub(super) probe: Option<(u32, String)>,
    /// `--counters`: the counters at each load table.
    pub(super) counters: Vec<Counter>,
}

/// Sign in as the admin at `url`, create the probe's table and the load
/// tables, and seat a new player at every seat of the tables to drive.
pub(super) async fn setup(a: &Args, c: &reqwest::Client, url: &str) -> Result<Setup> {
    refuse_a_real_casino(c, url, a.allow_production).await?;
    let admin = login(c, url, "admin".into(), a.admin_password.clone()).await?;
    let run_id = baccarat_server::auth::random_hex(4);
    // The probe's quiet table first: no load player is ever seated there.
    let probe_table = match a.probe {
        true => Some(create_table(c, url, &admin, format!("Probe {run_id}"), a.counters > 0).await?),
        false => None,
    };
    let load_tables = if a.hot_table { 1 } else { a.tables };
    let mut created = Vec::new();
    for i in 0..load_tables {
        let name = if a.hot_table { format!("Hot {run_id}") } else { format!("Load {}", i + 1) };
        created.push(create_table(c, url, &admin, name, a.counters > 0).await?);
    }
    let tables = tables_to_drive(c, url, &created, probe_table).await?;
    if tables.is_empty() {
        bail!("the server has no RNG table to drive");
    }
    // Players: one per seat, with ample play chips.
    let mut players = Vec::new();
    for (ti, &(table, min)) in tables.iter().enumerate() {
        for seat in 1..=a.players_per_table {
            let name = format!("load-{run_id}-{table}-{seat}");
            let id = create_player(c, url, &admin, name.clone()).await?;
            let token = login(c, url, name, "loadpass".into()).await?;
            players.push(Player { table, index: ti, seat: seat as u8, min, token, id, server: 0 });
        }
    }
    let mut counters = Vec::new();
    for &(table, min) in &tables {
        for i in 1..=a.counters {
            let name = format!("count-{run_id}-{table}-{i}");
            let player = create_player(c, url, &admin, name.clone()).await?;
            let token = login(c, url, name, "loadpass".into()).await?;
            let seat = (a.players_per_table + i) as u8;
            counters.push(Counter { table, seat, min, player, token });
        }
    }
    let probe = match probe_table {
        Some(table) => {
            let name = format!("probe-{run_id}");
            create_player(c, url, &admin, name.clone()).await?;
            Some((table, login(c, url, name, "loadpass".into()).await?))
        }
        None => None,
    };
    let made: Vec<String> = probe_table.iter().chain(&created).map(u32::to_string).collect();
    eprintln!(
        "loadgen: made at {url}, for good: tables {} and {} players named load-{run_id}-*{}",
        made.join(", "),
        players.len(),
        if probe.is_some() { format!(" and probe-{run_id}") } else { String::new() }
    );
    Ok(Setup { admin, run_id, tables, players, probe_table, probe, counters })
}

/// Refuse a casino not founded as the demo (`GET /api/casino`) unless told
/// otherwise: what loadgen makes stays in a casino's records for good.
async fn refuse_a_real_casino(c: &reqwest::Client, url: &str, allowed: bool) -> Result<()> {
    let r = c.get(format!("{url}/api/casino")).send().await?;
    let demo = match r.status().is_success() {
        true => r.json::<Value>().await?["demo"].as_bool(),
        false => None,
    };
    match (demo, allowed) {
        (Some(true), _) | (_, true) => Ok(()),
        (Some(false), false) => bail!(
            "{url} serves a real casino (not founded with serve --demo): loadgen would add its tables and players \
             there for good; give --allow-production to run anyway"
        ),
        (None, false) => bail!(
            "{url} does not say whether it is a demo casino (GET /api/casino); give --allow-production to run anyway"
        ),
    }
}

/// Sign in as `name`: the session's token.
async fn login(c: &reqwest::Client, url: &str, name: String, password: String) -> Result<String> {
    let r: Value = c
        .post(format!("{url}/api/login"))
        .json(&json!({"name": name, "password": password}))
        .send()
        .await?
        .json()
        .await?;
    r["token"].as_str().map(str::to_string).with_context(|| format!("login {name}: {r}"))
}

/// Create a table on the load configuration (NSW, wide limits; the Player
/// Pair too with `pairs`): its id.
async fn create_table(c: &reqwest::Client, url: &str, admin: &str, name: String, pairs: bool) -> Result<u32> {
    let config = if pairs { COUNT_CONFIG } else { LOAD_CONFIG };
    let r = send(c, || {
        c.post(format!("{url}/api/tables")).bearer_auth(admin).json(&json!({"name": name, "config": config}))
    })
    .await?;
    Ok(r["table"].as_u64().with_context(|| format!("create table {name:?}: {r}"))? as u32)
}

/// Create a player with ample play chips: their id.
async fn create_player(c: &reqwest::Client, url: &str, admin: &str, name: String) -> Result<u64> {
    let r = send(c, || {
        c.post(format!("{url}/api/players"))
            .bearer_auth(admin)
            .json(&json!({"name": name, "password": "loadpass", "chips": 100_000_000_000i64}))
    })
    .await?;
    r["player"].as_u64().with_context(|| format!("create player {name}: {r}"))
}

/// The RNG tables to drive, with their minimums: with load tables, only they
/// (the others' limits would refuse most of the load); without, every RNG
/// table, except the probe's.
async fn tables_to_drive(
    c: &reqwest::Client,
    url: &str,
    created: &[u32],
    probe_table: Option<u32>,
) -> Result<Vec<(u32, i64)>> {
    let tables: Value = c.get(format!("{url}/api/tables")).send().await?.json().await?;
    Ok(tables["tables"]
        .as_array()
        .context("tables")?
        .iter()
        .filter(|t| serde_json::from_value::<Mode>(t["mode"].clone()).ok() == Some(Mode::Rng))
        .map(|t| (t["id"].as_u64().unwrap_or(0) as u32, t["min"].as_i64().unwrap_or(1000)))
        // With load tables, only they are driven (the others' limits would
        // refuse most of the load); without, every RNG table is, except the
        // probe's.
        .filter(|(id, _)| created.is_empty() || created.contains(id))
        .filter(|(id, _)| Some(*id) != probe_table)
        .collect())
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
