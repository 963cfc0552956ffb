//! `baccarat serve`: open (or create) the database, recover every table, start the
//! writer, pace the RNG tables, and serve HTTP and WebSocket.
//!
//! On the first run the database is created, migrated, and seeded with a demo
//! casino: one table per rulebook profile, an admin whose password is printed
//! once, staff accounts and demo players holding play chips.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use baccarat_rules::Money;
use baccarat_table::engine::Command;
use tokio::sync::broadcast;

use crate::auth::{random_hex, Role, Users};
use crate::casino::{Casino, Request};
use crate::http::{call, now_ms, router, AppState};
use crate::store::{Commit, SqliteStore, Store};
use crate::views::Views;
use crate::writer::Writer;

/// How to run the server.
#[derive(Clone, Debug)]
pub struct ServeConfig {
    pub db: PathBuf,
    pub addr: SocketAddr,
    /// How long betting stays open on RNG tables.
    pub betting: Duration,
    /// Pause between cards on RNG tables.
    pub deal: Duration,
    /// Demo players' password (printed on the first run).
    pub demo_password: String,
}

/// The demo tables: one per rulebook, with side bets and limits in cents.
pub const DEMO_TABLES: [(u32, &str, &str, &str); 4] = [
    (1, "Sydney NSW", "nsw-2021", "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 500000\ndifferential = 1000000\n[bets.player_pair]\n[bets.banker_pair]\n[bets.super_six]\n[bets.tiger_tie]\n"),
    (2, "Melbourne AU", "au-casino", "rulebook = \"au-casino\"\nchip = 100\nmin = 2000\nmax = 500000\n[bets.tie]\npay_table = \"8_to_1\"\n[bets.perfect_pair_player]\npay_table = \"scale_one\"\n[bets.perfect_pair_banker]\npay_table = \"scale_one\"\n[bets.dragon_bonus_player]\npay_table = \"table_1\"\n[bets.dragon_bonus_banker]\npay_table = \"table_1\"\n"),
    (3, "Resort", "resort-house", "rulebook = \"resort-house\"\nchip = 100\nmin = 1000\nmax = 200000\n[bets.player_pair]\n[bets.banker_pair]\n"),
    (4, "European", "european-casino", "rulebook = \"european-casino\"\nchip = 100\nmin = 1000\nmax = 300000\ndifferential = 500000\n[bets.player_pair]\n[bets.banker_pair]\n"),
];

/// Open the store, seeding it on the first run. Returns the store and the casino.
pub fn open(cfg: &ServeConfig) -> Result<(SqliteStore, Casino, Arc<Users>), String> {
    let mut store = SqliteStore::open(&cfg.db).map_err(|e| format!("{}: {e}", cfg.db.display()))?;
    let users = Arc::new(Users::open(&cfg.db).map_err(|e| e.to_string())?);
    let snap = store.load().map_err(|e| e.to_string())?;
    if snap.tables.is_empty() {
        let mut c = Casino::new();
        let mut commit = Commit::default();
        for (id, name, rb, config) in DEMO_TABLES {
            c.create_table(id, name, rb, config, Money(100_000_000_000), &mut commit)?;
        }
        let admin = random_hex(12);
        users.create("admin", Role::Admin, &admin).map_err(|e| e.to_string())?;
        for (name, role) in [("dealer", Role::Dealer), ("supervisor", Role::Supervisor), ("inspector", Role::Inspector)]
        {
            users.create(name, role, &cfg.demo_password).map_err(|e| e.to_string())?;
        }
        for i in 1..=5 {
            let id =
                users.create(&format!("player{i}"), Role::Player, &cfg.demo_password).map_err(|e| e.to_string())?;
            c.handle(Request::Deposit { player: id, amount: Money(1_000_000), key: "demo chips".into() }, &mut commit);
        }
        store.commit(&commit).map_err(|e| e.to_string())?;
        println!("first run: created {} with a demo casino", cfg.db.display());
        println!("  admin password: {admin}   (sign in as \"admin\"; shown only now)");
        println!("  staff: dealer, supervisor, inspector; players: player1..player5; password {:?}", cfg.demo_password);
        return Ok((store, c, users));
    }
    let c = Casino::recover(snap)?;
    Ok((store, c, users))
}

/// Run the server until it is stopped.
pub async fn serve(cfg: ServeConfig) -> Result<(), String> {
    let listener =
        tokio::net::TcpListener::bind(cfg.addr).await.map_err(|e| format!("cannot listen on {}: {e}", cfg.addr))?;
    run(cfg, listener).await
}

/// Run the server on a bound listener (tests bind port 0).
pub async fn run(cfg: ServeConfig, listener: tokio::net::TcpListener) -> Result<(), String> {
    let (store, casino, users) = open(&cfg)?;
    let table_ids: Vec<u32> = casino.tables.keys().copied().collect();
    let views = Arc::new(RwLock::new(Views::default()));
    let closes_at: Arc<Mutex<HashMap<u32, u64>>> = Arc::new(Mutex::new(HashMap::new()));
    views.write().expect("views").refresh(&casino, &closes_at.lock().expect("closes"));
    let (changed, _) = broadcast::channel(1024);
    let recall = Arc::new(RwLock::new(HashMap::new()));
    let shoes = Arc::new(RwLock::new(HashMap::new()));
    for (id, t) in &casino.tables {
        let records: Vec<(u32, crate::audit::Record)> = t.chain.records().iter().map(|r| (*id, r.clone())).collect();
        absorb(&records, &recall, &shoes);
    }
    let (v, ch, ca) = (views.clone(), changed.clone(), closes_at.clone());
    let (rc, sh) = (recall.clone(), shoes.clone());
    let (writer, _handle) = Writer::start(
        casino,
        store,
        move |records| absorb(records, &rc, &sh),
        move |c| {
            let closes = ca.lock().expect("closes").clone();
            let mut w = v.write().expect("views");
            w.refresh(c, &closes);
            let _ = ch.send(w.version);
        },
    );
    let state = AppState { writer, recall, shoes, users, views, changed, closes_at };
    for id in table_ids {
        tokio::spawn(pace(state.clone(), id, cfg.betting, cfg.deal));
    }
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    println!("baccarat table server on http://{addr}/  (API: http://{addr}/api/openapi.json)");
    axum::serve(listener, router(state)).await.map_err(|e| e.to_string())
}

/// The pace of an RNG table: shoe, betting window, no more bets, cards, result.
async fn pace(s: AppState, table: u32, betting: Duration, deal: Duration) {
    loop {
        let phase = s.views.read().expect("views").tables.iter().find(|t| t.id == table).map(|t| t.phase.clone());
        let Some(phase) = phase else { return };
        let req = match phase.as_str() {
            "no_shoe" | "shoe_over" => Request::NewShoe { table },
            "ready" => {
                s.closes_at.lock().expect("closes").insert(table, now_ms() + betting.as_millis() as u64);
                Request::Table { table, command: Command::OpenBetting { no_bet: false } }
            }
            "betting" => {
                let at = s.closes_at.lock().expect("closes").get(&table).copied().unwrap_or(0);
                let now = now_ms();
                if at > now {
                    tokio::time::sleep(Duration::from_millis(at - now)).await;
                }
                Request::Table { table, command: Command::CloseBetting }
            }
            "no_more_bets" | "dealing" => {
                tokio::time::sleep(deal).await;
                Request::Table { table, command: Command::DealNext }
            }
            _ => {
                tokio::time::sleep(Duration::from_millis(500)).await;
                continue;
            }
        };
        if call(&s, req).await.is_err() {
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

/// Coups kept per table for recall.
const RECALL_COUPS: usize = 100;

type PerTable = Arc<RwLock<HashMap<u32, Vec<serde_json::Value>>>>;

/// Fold committed audit records into the recall and shoe lists.
fn absorb(records: &[(u32, crate::audit::Record)], recall: &PerTable, shoes: &PerTable) {
    let mut rc = recall.write().expect("recall lock");
    let mut sh = shoes.write().expect("shoes lock");
    for (table, r) in records {
        let body: serde_json::Value = serde_json::from_str(&r.body).unwrap_or_default();
        let e = &body["event"];
        let kind = e["event"].as_str().unwrap_or_default();
        let coups = rc.entry(*table).or_default();
        match kind {
            "betting_opened" => {
                coups.push(serde_json::json!({ "coup": e["coup"], "records": [] }));
                if coups.len() > RECALL_COUPS {
                    coups.remove(0);
                }
            }
            "shoe_started" => sh.entry(*table).or_default().push(
                serde_json::json!({ "shoe": e["shoe"], "commitment": e["commitment"], "cut": e["cut"], "seed": null }),
            ),
            "shoe_ended" => {
                if let Some(s) = sh.entry(*table).or_default().iter_mut().rev().find(|s| s["shoe"] == e["shoe"]) {
                    s["seed"] = e["seed"].clone();
                }
            }
            _ => {}
        }
        // The seed stays secret until its shoe ends (it is in /shoes then).
        let mut e = e.clone();
        if kind == "shoe_started" {
            e["seed"] = serde_json::Value::Null;
        }
        if let Some(c) = coups.last_mut() {
            if let Some(list) = c["records"].as_array_mut() {
                list.push(serde_json::json!({ "seq": r.seq, "hash": r.hash, "event": e }));
            }
        }
    }
}
