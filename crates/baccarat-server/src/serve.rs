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
use baccarat_table::engine::Event;

use crate::casino::{Casino, Mode, Request, DEFAULT_FLOAT};
use crate::feed::Feed;
use crate::http::{call, now_ms, router, AppState, Pace};
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
    /// How long the result stays on an RNG table before betting reopens.
    pub result_pause: Duration,
    /// How long a player may hold a hand to squeeze on an RNG table before the
    /// dealer exposes it.
    pub squeeze: Duration,
    /// Demo players' password (printed on the first run).
    pub demo_password: String,
    /// Requests per second each signed-in session may make to money and
    /// command routes (a burst of this many is allowed).
    pub rate_per_second: u32,
    /// Serve the web pages from this folder instead of the embedded copies
    /// (for working on the pages without rebuilding).
    pub web_dir: Option<PathBuf>,
}

impl ServeConfig {
    /// The defaults, on a database file.
    pub fn new(db: PathBuf, addr: SocketAddr) -> ServeConfig {
        ServeConfig {
            db,
            addr,
            betting: Duration::from_secs(15),
            deal: Duration::from_millis(700),
            squeeze: Duration::from_secs(12),
            result_pause: Duration::from_secs(3),
            demo_password: "demo".into(),
            rate_per_second: 200,
            web_dir: None,
        }
    }
}

/// The demo tables: one per rulebook (RNG), and a live NSW table for the pit
/// console. Limits are in cents.
pub const DEMO_TABLES: [(u32, &str, &str, Mode, &str); 5] = [
    (1, "Sydney NSW", "nsw-2021", Mode::Rng, "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 500000\ndifferential = 1000000\n[bets.player_pair]\n[bets.banker_pair]\n[bets.super_six]\n[bets.tiger_tie]\n"),
    (2, "Melbourne AU", "au-casino", Mode::Rng, "rulebook = \"au-casino\"\nchip = 100\nmin = 2000\nmax = 500000\n[bets.tie]\npay_table = \"8_to_1\"\n[bets.perfect_pair_player]\npay_table = \"scale_one\"\n[bets.perfect_pair_banker]\npay_table = \"scale_one\"\n[bets.dragon_bonus_player]\npay_table = \"table_1\"\n[bets.dragon_bonus_banker]\npay_table = \"table_1\"\n"),
    (3, "Resort squeeze", "resort-house", Mode::Rng, "rulebook = \"resort-house\"\nchip = 100\nmin = 1000\nmax = 200000\ndealing = \"squeeze\"\n[bets.player_pair]\n[bets.banker_pair]\n"),
    (4, "European", "european-casino", Mode::Rng, "rulebook = \"european-casino\"\nchip = 100\nmin = 1000\nmax = 300000\ndifferential = 500000\n[bets.player_pair]\n[bets.banker_pair]\n"),
    (5, "Live pit NSW", "nsw-2021", Mode::Live, "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 500000\ndifferential = 1000000\n[bets.player_pair]\n[bets.banker_pair]\n"),
];

/// Open the store, seeding it on the first run. Returns the store and the casino.
pub fn open(cfg: &ServeConfig) -> Result<(SqliteStore, Casino, Arc<Users>), String> {
    let mut store = SqliteStore::open(&cfg.db).map_err(|e| format!("{}: {e}", cfg.db.display()))?;
    let users = Arc::new(Users::open(&cfg.db).map_err(|e| e.to_string())?);
    let snap = store.load().map_err(|e| e.to_string())?;
    if snap.tables.is_empty() {
        let mut c = Casino::new();
        let mut commit = Commit::default();
        for (id, name, rb, mode, config) in DEMO_TABLES {
            c.create_table(id, name, rb, config, mode, DEFAULT_FLOAT, &mut commit)?;
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
    let mut c = Casino::recover(snap)?;
    let mut commit = Commit::default();
    let resumed = c.resume_interrupted(&mut commit);
    store.commit(&commit).map_err(|e| e.to_string())?;
    for t in resumed {
        println!("table {t}: the coup in progress was interrupted; its profile's policy applied");
    }
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
    let (mut store, casino, users) = open(&cfg)?;
    store.checkpoint_in_background(&cfg.db, Duration::from_millis(200)).map_err(|e| e.to_string())?;
    let table_ids: Vec<u32> = casino.tables.keys().copied().collect();
    let views = Arc::new(RwLock::new(Views::default()));
    let closes_at: Arc<Mutex<HashMap<u32, u64>>> = Arc::new(Mutex::new(HashMap::new()));
    views.write().expect("views").rebuild(&casino, &closes_at.lock().expect("closes"));
    let (changed, _) = broadcast::channel(1024);
    let feed = Arc::new(RwLock::new(Feed::default()));
    {
        let mut f = feed.write().expect("feed");
        for id in casino.tables.keys() {
            let records = crate::store::read_records(&cfg.db, *id, 0).map_err(|e| e.to_string())?;
            for r in &records {
                let body: serde_json::Value = serde_json::from_str(&r.body).map_err(|e| e.to_string())?;
                let e: Event = serde_json::from_value(body["event"].clone()).map_err(|e| e.to_string())?;
                f.absorb(*id, r.seq, &e);
            }
        }
    }
    let (v, ca) = (views.clone(), closes_at.clone());
    let v2 = views.clone();
    let (fd, ch) = (feed.clone(), changed.clone());
    let mut version = 0u64;
    let (writer, _handle) = Writer::start(
        casino,
        store,
        move |c, commit| {
            let closes = ca.lock().expect("closes").clone();
            v.read().expect("views").changes(c, &closes, commit)
        },
        // On the committer, once durable and before the batch's answers: so a
        // client that has its answer reads its own change in every view.
        move |changes, commit: Commit| {
            v2.write().expect("views").apply(changes);
            let mut f = fd.write().expect("feed");
            for ((table, r), e) in commit.records.iter().zip(&commit.events) {
                f.absorb(*table, r.seq, e);
            }
            drop(f);
            version += 1;
            let _ = ch.send(version);
        },
    );
    let state = AppState {
        writer,
        feed,
        users,
        views,
        changed,
        closes_at,
        db: cfg.db.clone(),
        limiter: Arc::new(crate::limits::Limiter::new(cfg.rate_per_second)),
        logins: Arc::new(crate::limits::Limiter::new(crate::http::LOGINS_PER_SECOND)),
        web_dir: cfg.web_dir.clone(),
        pace: Pace { betting: cfg.betting, deal: cfg.deal, squeeze: cfg.squeeze, result_pause: cfg.result_pause },
    };
    for id in table_ids {
        tokio::spawn(pace(state.clone(), id));
    }
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    println!("baccarat table server on http://{addr}/  (API: http://{addr}/api/openapi.json)");
    axum::serve(listener, router(state)).await.map_err(|e| e.to_string())
}

/// The pace of an RNG table: shoe, betting window, no more bets, cards, result.
/// A hand out with a player to squeeze waits for them up to `squeeze`; then the
/// dealer exposes it (NSW 8.15). Live tables are paced by their dealer, and a
/// closed table finishes its coup and waits.
pub async fn pace(s: AppState, table: u32) {
    let cfg = s.pace;
    let mut out_since: Option<(String, std::time::Instant)> = None;
    let mut paused_after: Option<u64> = None;
    loop {
        let t = s.views.read().expect("views").tables.iter().find(|t| t.id == table).cloned();
        let Some(t) = t else { return };
        if t.mode != "rng" {
            tokio::time::sleep(Duration::from_millis(500)).await;
            continue;
        }
        let req = match t.phase.as_str() {
            "no_shoe" | "shoe_over" if t.open => Request::NewShoe { table },
            "ready" if t.open => {
                // Let the result be seen before the next coup's betting opens;
                // then look again (a supervisor may have closed the table).
                if t.coup > 0 && paused_after != Some(t.coup) {
                    paused_after = Some(t.coup);
                    tokio::time::sleep(cfg.result_pause).await;
                    continue;
                }
                s.closes_at.lock().expect("closes").insert(table, now_ms() + cfg.betting.as_millis() as u64);
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
                if let Some(h) = &t.out {
                    let key = format!("{}:{:?}:{}", t.coup, h.side, h.player);
                    let since = match &out_since {
                        Some((k, at)) if *k == key => *at,
                        _ => {
                            let now = std::time::Instant::now();
                            out_since = Some((key, now));
                            now
                        }
                    };
                    let waited = since.elapsed();
                    if waited < cfg.squeeze {
                        tokio::time::sleep((cfg.squeeze - waited).min(Duration::from_millis(250))).await;
                        continue;
                    }
                    Request::Table { table, command: Command::Expose { side: h.side, player: None } }
                } else {
                    tokio::time::sleep(cfg.deal).await;
                    Request::Table { table, command: Command::DealNext }
                }
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
