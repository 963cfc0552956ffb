//! `baccarat serve`: open (or create) the database, recover every table, start the
//! writer, pace the RNG tables, and serve HTTP and WebSocket.
//!
//! On the first run the database is created, migrated, and seeded with a demo
//! casino: one table per rulebook profile, an admin whose password is printed
//! once, staff accounts and demo players holding play chips.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use baccarat_rules::Money;
use tokio::sync::broadcast;

use crate::anchor::{AnchorKey, AnchorLog, Head};
use crate::auth::{random_hex, Role, Users};

use crate::casino::{Casino, Clock, Mode, Request, DEFAULT_FLOAT};
use crate::feed::Feed;
use crate::http::{router, AppState, Pace};
use crate::store::{Commit, SqliteStore, Store};
use crate::views::Views;
use crate::writer::Writer;

/// How to run the server.
#[derive(Clone)]
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
    /// The anchor file (default: beside the database, `<db>.anchors`).
    pub anchor_file: Option<PathBuf>,
    /// The Ed25519 signing key (default: beside the database, `<db>.key`;
    /// keep it on another volume or in an HSM in production).
    pub key_file: Option<PathBuf>,
    /// No table maximum or personal maximum may exceed this.
    pub ceiling: Money,
    /// How long a session lasts idle, and in all.
    pub sessions: crate::auth::SessionPolicy,
    /// The time (ms since the epoch): the system clock, or a test's.
    pub clock: Clock,
}

impl std::fmt::Debug for ServeConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServeConfig")
            .field("db", &self.db)
            .field("addr", &self.addr)
            .field("betting", &self.betting)
            .field("deal", &self.deal)
            .field("result_pause", &self.result_pause)
            .field("squeeze", &self.squeeze)
            .field("rate_per_second", &self.rate_per_second)
            .field("web_dir", &self.web_dir)
            .field("anchor_file", &self.anchor_file)
            .field("key_file", &self.key_file)
            .field("ceiling", &self.ceiling)
            .field("sessions", &self.sessions)
            .finish_non_exhaustive()
    }
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
            anchor_file: None,
            key_file: None,
            ceiling: crate::casino::DEFAULT_CEILING,
            sessions: crate::auth::SessionPolicy::default(),
            clock: crate::casino::system_clock(),
        }
    }

    /// The anchor file and the key file in force.
    pub fn anchor_paths(&self) -> (PathBuf, PathBuf) {
        let (a, k) = crate::anchor::default_paths(&self.db);
        (self.anchor_file.clone().unwrap_or(a), self.key_file.clone().unwrap_or(k))
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

/// What [`open`] gives back: the store, the recovered (or new) casino, the
/// people, and the anchor file, open for appending.
pub struct Opened {
    pub store: SqliteStore,
    pub casino: Casino,
    pub users: Arc<Users>,
    pub anchors: AnchorLog,
}

/// The heads of the chains a commit appended to, for the anchor file.
pub fn heads_of(commit: &Commit) -> Vec<Head> {
    let mut last: std::collections::BTreeMap<u32, &crate::audit::Record> = std::collections::BTreeMap::new();
    for (t, r) in &commit.records {
        last.insert(*t, r);
    }
    last.into_iter().map(|(table, r)| Head { table, len: r.seq, head: r.hash.clone() }).collect()
}

/// Commit, then anchor what was committed (the anchor never runs ahead of the
/// database).
fn commit_anchored(store: &mut SqliteStore, anchors: &mut AnchorLog, commit: &Commit) -> Result<(), String> {
    store.commit(commit).map_err(|e| e.to_string())?;
    anchors.append(&heads_of(commit)).map_err(|e| e.to_string())
}

/// Open the store, seeding it on the first run; check every chain against the
/// signed anchors before serving it. A table whose chain was cut or rewritten
/// is not served (it is named on stderr); a cut in the casino's own chain
/// stops the start.
pub fn open(cfg: &ServeConfig) -> Result<Opened, String> {
    let mut store = SqliteStore::open(&cfg.db).map_err(|e| format!("{}: {e}", cfg.db.display()))?;
    let users = Arc::new(Users::open_with(&cfg.db, cfg.sessions, cfg.clock.clone()).map_err(|e| e.to_string())?);
    let (anchor_path, key_path) = cfg.anchor_paths();
    let key = AnchorKey::load_or_create(&key_path).map_err(|e| e.to_string())?;
    let public = key.public_hex();
    let anchored = if anchor_path.exists() {
        Some(crate::anchor::read(&anchor_path, Some(&public)).map_err(|e| e.to_string())?)
    } else {
        None
    };
    let mut anchors = AnchorLog::open(&anchor_path, key).map_err(|e| e.to_string())?;
    let mut snap = store.load().map_err(|e| e.to_string())?;
    if snap.tables.is_empty() {
        let mut c = Casino::new();
        c.ceiling = cfg.ceiling;
        c.clock = cfg.clock.clone();
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
            c.handle(
                Request::Deposit {
                    player: baccarat_table::engine::PlayerId(id),
                    amount: Money(1_000_000),
                    key: "demo chips".into(),
                },
                &mut commit,
            );
        }
        commit_anchored(&mut store, &mut anchors, &commit)?;
        println!("first run: created {} with a demo casino", cfg.db.display());
        println!("  admin password: {admin}   (sign in as \"admin\"; shown only now)");
        println!("  staff: dealer, supervisor, inspector; players: player1..player5; password {:?}", cfg.demo_password);
        println!("  anchors: {} signed by {} (public key {public})", anchor_path.display(), key_path.display());
        return Ok(Opened { store, casino: c, users, anchors });
    }
    if let Some(a) = &anchored {
        let cut = crate::verify::anchor_problems(&snap, a);
        if let Some(why) = cut.get(&crate::audit::CASINO_CHAIN) {
            return Err(format!("refusing to start: {why}"));
        }
        for (table, why) in &cut {
            eprintln!("table {table} is not served: {why}");
        }
        snap.tables.retain(|t| !cut.contains_key(&t.id));
        snap.records.retain(|(t, _)| !cut.contains_key(t));
    } else if !snap.records.is_empty() {
        eprintln!("warning: no anchor file at {}; the chains are anchored from now on", anchor_path.display());
    }
    let mut c = Casino::recover(snap)?;
    c.ceiling = cfg.ceiling;
    c.clock = cfg.clock.clone();
    let mut commit = Commit::default();
    let resumed = c.resume_interrupted(&mut commit);
    commit_anchored(&mut store, &mut anchors, &commit)?;
    for t in resumed {
        println!("table {t}: the coup in progress was interrupted; its profile's policy applied");
    }
    for t in c.tables.values().filter(|t| t.halted.is_some()) {
        eprintln!("table {} is stopped: {}", t.id, t.halted.as_deref().unwrap_or_default());
    }
    Ok(Opened { store, casino: c, users, anchors })
}

/// Run the server until it is stopped.
pub async fn serve(cfg: ServeConfig) -> Result<(), String> {
    let listener =
        tokio::net::TcpListener::bind(cfg.addr).await.map_err(|e| format!("cannot listen on {}: {e}", cfg.addr))?;
    run(cfg, listener).await
}

/// Run the server on a bound listener (tests bind port 0).
pub async fn run(cfg: ServeConfig, listener: tokio::net::TcpListener) -> Result<(), String> {
    let Opened { mut store, casino, users, mut anchors } = open(&cfg)?;
    store.checkpoint_in_background(&cfg.db, Duration::from_millis(200)).map_err(|e| e.to_string())?;
    let table_ids: Vec<u32> = casino.tables.keys().copied().collect();
    let views = Arc::new(RwLock::new(Views::default()));
    views.write().expect("views").rebuild(&casino);
    let (changed, _) = broadcast::channel(1024);
    let feed = Arc::new(RwLock::new(Feed::default()));
    {
        let mut f = feed.write().expect("feed");
        for id in casino.tables.keys() {
            let records = crate::store::read_records(&cfg.db, *id, 0).map_err(|e| e.to_string())?;
            for r in &records {
                let body =
                    crate::audit::Body::decode(&r.body).map_err(|e| format!("table {id} record {}: {e}", r.seq))?;
                if let Some(e) = &body.event {
                    f.absorb(*id, r.seq, e);
                }
            }
        }
    }
    let v = views.clone();
    let v2 = views.clone();
    let (fd, ch) = (feed.clone(), changed.clone());
    let mut version = 0u64;
    let (writer, _handle) = Writer::start(
        casino,
        store,
        move |c, commit| v.read().expect("views").changes(c, commit),
        // On the committer, once durable and before the batch's answers: so a
        // client that has its answer reads its own change in every view.
        move |changes, commit: Commit| {
            // The batch is durable: sign its chains' heads into the anchor file.
            if let Err(e) = anchors.append(&heads_of(&commit)) {
                eprintln!("anchors: {e}; stopping so that nothing goes unanchored");
                std::process::exit(70);
            }
            v2.write().expect("views").apply(changes);
            let mut f = fd.write().expect("feed");
            for (table, seq, e) in &commit.events {
                f.absorb(*table, *seq, e);
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
        db: cfg.db.clone(),
        anchor_file: cfg.anchor_paths().0,
        limiter: Arc::new(crate::limits::Limiter::new(cfg.rate_per_second, cfg.clock.clone())),
        signin: Arc::new(crate::signin::SignIn::new(cfg.clock.clone())),
        web_dir: cfg.web_dir.clone(),
        pace: Pace { betting: cfg.betting, deal: cfg.deal, squeeze: cfg.squeeze, result_pause: cfg.result_pause },
        clock: cfg.clock.clone(),
    };
    for id in table_ids {
        tokio::spawn(crate::pacer::pace(state.clone(), id));
    }
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    println!("baccarat table server on http://{addr}/  (API: http://{addr}/api/openapi.json)");
    // With each connection's address: sign-in limits count by client address.
    axum::serve(listener, router(state).into_make_service_with_connect_info::<SocketAddr>())
        .await
        .map_err(|e| e.to_string())
}
