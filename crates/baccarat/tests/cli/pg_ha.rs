//! The database survives its machine (issue 51): `baccarat serve` on the
//! highly available PostgreSQL of `scripts/postgres-ha.sh` (pg_auto_failover:
//! a monitor, a primary and its synchronous standby), given the script's
//! multi-host URL (`target_session_attrs=read-write`). Players send wagers,
//! each with its own key, sent again with that key until it is answered
//! `wager`; meanwhile the primary's machine is killed (`kill -9` of its
//! keeper, postmaster and backends). The standby is promoted, the server
//! finds it through the same URL and serves again, and then: every
//! acknowledged wager is in the store once (its key answers the same wager,
//! and the store holds one stake for each key), the ledger check is clean
//! and `verify` passes. The time from the kill to the first wager
//! acknowledged after it is printed (a figure, not asserted).
//!
//! The same senders and checks run while the network between the serving
//! server and its database is cut (`pg_proxy.rs`: stalled, or reset), on
//! the test cluster: the standing-by server, which reaches the database
//! directly, takes the casino once the lease has expired. Stalled, what
//! the serving server sent meanwhile (its commit in flight, its renewals)
//! is held and delivered when the network heals, after the standby took
//! the casino: the test checks that some was, and the checks above that
//! nothing of it landed (the lease's epoch, checked in the batch's own
//! statement, refuses it: "baccarat: batch refused" in the database's log).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::{first_admin, until_line, TempDir};
use crate::failover::{pg_cluster, verify_casino};
use crate::pg_proxy::{Cut, Proxy};

/// The HA cluster of `scripts/postgres-ha.sh` in a directory of its own,
/// stopped and removed when dropped (also when a test fails).
pub struct HaCluster {
    dir: std::path::PathBuf,
    /// The multi-host URL the script printed.
    pub url: String,
}

impl HaCluster {
    /// Start one (the script installs pg_auto_failover if it is missing).
    pub fn start(name: &str) -> HaCluster {
        let dir = std::env::temp_dir().join(format!("baccarat-ha-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let out = Self::script(&["start", dir.to_str().unwrap()]);
        let url = String::from_utf8(out.stdout).unwrap().trim().to_string();
        assert!(url.contains("target_session_attrs=read-write"), "{url}");
        HaCluster { dir, url }
    }

    /// Run the script with `args`; its output, having checked it succeeded.
    fn script(args: &[&str]) -> std::process::Output {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let out = std::process::Command::new("bash")
            .arg(root.join("scripts/postgres-ha.sh"))
            .args(args)
            .output()
            .expect("run scripts/postgres-ha.sh");
        assert!(out.status.success(), "postgres-ha.sh {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        out
    }

    /// `kill-primary`, `kill-standby`, `pause-primary`, `resume-primary` or
    /// `status`.
    pub fn drive(&self, command: &str) -> String {
        self.drive_node(command, "")
    }

    /// `restart-node` with its node (`1` or `2`), or [`HaCluster::drive`]'s
    /// commands (`node` empty).
    pub fn drive_node(&self, command: &str, node: &str) -> String {
        let mut args = vec![command, self.dir.to_str().unwrap()];
        args.extend((!node.is_empty()).then_some(node));
        let out = Self::script(&args);
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
    }
}

impl HaCluster {
    /// Stop the cluster, and check that none of its processes is left: each
    /// keeper's wrappers (`runuser`, which stops itself when a paused node
    /// stops, and the script's subshell waiting on it) outlived every stop of
    /// a paused cluster before.
    pub fn stop_leaving_nothing(self) {
        Self::script(&["stop", self.dir.to_str().unwrap()]);
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let left = processes_naming(&self.dir);
            if left.is_empty() {
                return;
            }
            assert!(Instant::now() < deadline, "left running after postgres-ha.sh stop: {left:?}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// The processes whose command line names `dir` (a zombie's names nothing),
/// each as its pid, its state and its command line.
fn processes_naming(dir: &std::path::Path) -> Vec<String> {
    let dir = dir.to_string_lossy().into_owned();
    let Ok(procs) = std::fs::read_dir("/proc") else { return Vec::new() };
    let mut found = Vec::new();
    for p in procs.flatten() {
        let Ok(cmdline) = std::fs::read(p.path().join("cmdline")) else { continue };
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if cmdline.contains(&dir) {
            let stat = std::fs::read_to_string(p.path().join("stat")).unwrap_or_default();
            let state = stat.rsplit_once(") ").map(|(_, rest)| &rest[..1]).unwrap_or("?").to_string();
            found.push(format!("{} {state} {}", p.file_name().to_string_lossy(), cmdline.trim()));
        }
    }
    found
}

impl Drop for HaCluster {
    fn drop(&mut self) {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let _ = std::process::Command::new("bash")
            .arg(root.join("scripts/postgres-ha.sh"))
            .args(["stop", self.dir.to_str().unwrap()])
            .output();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// What the players' senders saw: each acknowledged key with its answer,
/// and when each was acknowledged.
#[derive(Default)]
struct Acks {
    by_key: BTreeMap<String, (Value, Instant)>,
}

/// Player `token` sends wagers of 10.00 on Player at `table`, keys
/// `{who}-0`, `{who}-1`, …, each sent again with its key (whatever the
/// answer: outcome unknown, unavailable, not betting, no connection) until
/// it is answered `wager`, until `stop` is set; then the key in hand is
/// finished too (so that every key sent is acknowledged).
async fn sender(url: Arc<RwLock<String>>, table: u64, token: String, who: String, stop: Arc<AtomicBool>) -> Acks {
    let c = reqwest::Client::builder().timeout(Duration::from_secs(10)).build().unwrap();
    let mut acks = Acks::default();
    let deadline = Instant::now() + Duration::from_secs(150);
    for i in 0.. {
        if stop.load(Ordering::Relaxed) {
            return acks;
        }
        let key = format!("{who}-{i}");
        let body = json!({"bet": "player", "amount": 1000, "key": key});
        let mut answer = Value::Null;
        loop {
            assert!(Instant::now() < deadline, "{key} never acknowledged; the last answer: {answer}");
            let at = url.read().unwrap().clone();
            let r = c.post(format!("{at}/api/tables/{table}/wagers")).bearer_auth(&token).json(&body).send().await;
            // (What failed is kept, for the message if the key is never
            // acknowledged.)
            answer = match r {
                Ok(r) => r.json::<Value>().await.unwrap_or_else(|e| json!({"body": e.to_string()})),
                Err(e) => json!({"request": format!("{e:?}")}),
            };
            if answer["result"] == "wager" {
                acks.by_key.insert(key, (answer, Instant::now()));
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    acks
}

/// Each acknowledged key, sent again, answers the same wager (nothing
/// acknowledged was lost: a lost key would be taken anew).
async fn resend_all(url: &str, table: u64, token: &str, acks: &Acks) {
    let c = reqwest::Client::new();
    for (key, (first, _)) in &acks.by_key {
        let body = json!({"bet": "player", "amount": 1000, "key": key});
        // (Paced by the server's rate limit, as it asks.)
        let again = loop {
            let url = format!("{url}/api/tables/{table}/wagers");
            let r: Value = c.post(url).bearer_auth(token).json(&body).send().await.unwrap().json().await.unwrap();
            match r["retry_after_ms"].as_u64() {
                Some(ms) if r["code"] == "rate" => tokio::time::sleep(Duration::from_millis(ms)).await,
                _ => break r,
            }
        };
        assert_eq!(again["wager"], first["wager"], "{key}: first {first}, again {again}");
    }
}

/// The stakes the store holds from player `name`'s wallet (each wager's
/// hold, posted or voided later): how many, and for how many wagers.
fn stakes_of(db: &str, name: &str) -> (i64, i64) {
    let mut pg = postgres::Client::connect(db, postgres::NoTls).unwrap();
    let id: i64 = pg.query_one("SELECT id FROM users WHERE name = $1", &[&name]).unwrap().get(0);
    let wallet = json!({"kind": "wallet", "player": id}).to_string();
    let r = pg
        .query_one(
            "SELECT count(*), count(DISTINCT t.cause) FROM transfers t JOIN accounts a ON a.id = t.debit
             WHERE a.kind = $1 AND t.kind = '\"pending\"' AND t.memo LIKE 'table % wager %'",
            &[&wallet],
        )
        .unwrap();
    (r.get(0), r.get(1))
}

#[test]
fn the_casino_serves_again_after_its_primary_database_machine_is_killed_without_losing_a_wager() {
    fault_case(Fault::Kill);
}

#[test]
fn the_casino_serves_again_after_its_primary_database_machine_is_paused_past_the_lease_and_resumed() {
    fault_case(Fault::Pause);
}

#[test]
fn the_casino_serves_again_after_its_standby_then_its_primary_database_machine_die() {
    fault_case(Fault::StandbyThenPrimary);
}

#[test]
fn the_casino_serves_again_when_a_server_is_killed_during_the_database_failover() {
    fault_case(Fault::ServerDuringFailover);
}

#[test]
fn the_casino_serves_again_when_its_server_is_cut_off_from_the_database_by_a_stalled_network() {
    fault_case(Fault::NetworkCut(Cut::Stall));
}

#[test]
fn the_casino_serves_again_when_its_server_is_cut_off_from_the_database_by_a_reset_network() {
    fault_case(Fault::NetworkCut(Cut::Reset));
}

/// What befalls the casino.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Fault {
    /// `kill -9` of the primary's keeper, postmaster and backends.
    Kill,
    /// SIGSTOP of them all, past the servers' lease; SIGCONT once a server
    /// serves again on the promoted standby.
    Pause,
    /// `kill -9` of the standby's machine (the primary commits alone once
    /// the monitor has let it: `wait_primary`), then of the primary's: no
    /// copy is left running, and the casino waits until the primary's
    /// machine is started again (`restart-node`), with every commit it
    /// acknowledged.
    StandbyThenPrimary,
    /// `kill -9` of the primary's machine, and a second later of the
    /// standing-by server (beta) that would have taken the casino; a third
    /// server (gamma) takes it instead.
    ServerDuringFailover,
    /// The network between alpha and the database cut (on the test
    /// cluster, alpha's way to it through [`Proxy`]) until beta serves,
    /// then healed (stalled: what it held is delivered then).
    NetworkCut(Cut),
}

/// The casino's database: the HA cluster, or the test cluster with alpha's
/// way to it through a proxy the test cuts.
enum Database {
    Ha(HaCluster),
    Proxied { url: String, proxy: Proxy },
}

impl Database {
    fn for_fault(fault: Fault, name: &str) -> Database {
        match fault {
            Fault::NetworkCut(_) => {
                let url = pg_cluster::database(&format!("cli{}_ha_{name}", std::process::id()));
                Database::Proxied { proxy: Proxy::start(pg_cluster::cluster()), url }
            }
            _ => Database::Ha(HaCluster::start(name)),
        }
    }

    /// The URL the checks and the standing-by servers use.
    fn url(&self) -> &str {
        match self {
            Database::Ha(ha) => &ha.url,
            Database::Proxied { url, .. } => url,
        }
    }

    /// The URL alpha, the first server, uses.
    fn alpha_url(&self) -> String {
        match self {
            Database::Ha(ha) => ha.url.clone(),
            Database::Proxied { url, proxy } => proxy.url(url),
        }
    }

    fn ha(&self) -> &HaCluster {
        match self {
            Database::Ha(ha) => ha,
            Database::Proxied { .. } => unreachable!("a fault of the HA cluster on the test cluster"),
        }
    }
}

/// What a case left serving: the server, its lines, its name.
type Serving = (crate::common::Server, std::sync::mpsc::Receiver<String>, &'static str);

/// Two servers on the HA cluster (alpha serving, beta standing by), three
/// players sending wagers with keys through beta, then `fault`; then the
/// checks of this file's header.
fn fault_case(fault: Fault) {
    let name: String = format!("{fault:?}").to_lowercase().chars().filter(char::is_ascii_alphanumeric).collect();
    let db = Database::for_fault(fault, &name);
    let dir = TempDir::new(&format!("baccarat-ha-servers-{name}-{}", std::process::id()));
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (alpha, alpha_lines, alpha_at) = crate::failover::instance("alpha", &db.alpha_url(), &dir);
    let admin = until_line(&alpha_lines, 90, first_admin);
    until_line(&alpha_lines, 90, |l| l.starts_with("baccarat table server on ").then_some(()));
    // The operator's sign of a second copy: the HA cluster's primary names
    // its synchronous standby, the test cluster none.
    let named = if matches!(db, Database::Ha(_)) { 1.0 } else { 0.0 };
    assert_eq!(rt.block_on(synchronous_standby_gauge(&alpha_at, named)), Some(named), "{name}");
    // Beta stands by, passing requests through to alpha; the players send
    // theirs to beta, which serves them itself once it holds the casino.
    let (beta, lines, beta_url) = crate::failover::instance("beta", db.url(), &dir);
    until_line(&lines, 90, |l| l.starts_with("standing by: instance alpha").then_some(()));
    let url = Arc::new(RwLock::new(beta_url));

    let players = [("ha1", 1u64), ("ha2", 1), ("ha3", 1)];
    let stop = Arc::new(AtomicBool::new(false));
    let (tokens, handles) = rt.block_on(async {
        let c = reqwest::Client::new();
        let at = url.read().unwrap().clone();
        let admin = crate::common::login(&c, &at, "admin", &admin).await;
        let mut tokens = Vec::new();
        let mut handles = Vec::new();
        for (name, table) in players {
            let body = json!({"name": name, "password": "demo", "chips": 10_000_000});
            let made = crate::failover::call(&format!("{at}/api/players"), &admin, Some(&body)).await;
            assert!(made["player"].is_u64(), "{made}");
            let token = crate::common::login(&c, &at, name, "demo").await;
            let s = sender(url.clone(), table, token.clone(), name.to_string(), stop.clone());
            handles.push(tokio::spawn(s));
            tokens.push(token);
        }
        (tokens, handles)
    });

    std::thread::sleep(Duration::from_secs(3));
    let fault_at = Instant::now();
    let serving = strike(fault, &db, &dir, (beta, lines), &url, &name);
    eprintln!("pg_ha {name}: {} said it serves again {:?} after the fault", serving.2, fault_at.elapsed());
    heal(fault, &db, &name);
    std::thread::sleep(Duration::from_secs(3));
    stop.store(true, Ordering::Relaxed);
    let acks: Vec<Acks> = rt.block_on(async {
        let mut all = Vec::new();
        for h in handles {
            all.push(h.await.unwrap());
        }
        all
    });
    let first_after = acks.iter().flat_map(|a| a.by_key.values()).map(|(_, at)| *at).filter(|at| *at > fault_at).min();
    let first_after = first_after.expect("a wager acknowledged after the fault");
    let total: usize = acks.iter().map(|a| a.by_key.len()).sum();
    eprintln!(
        "pg_ha {name}: from the fault to the first wager acknowledged after it, {:?}; {total} wagers acknowledged",
        first_after - fault_at
    );

    let url = url.read().unwrap().clone();
    let sent: Vec<(&str, u64, &str, &Acks)> =
        players.iter().zip(&tokens).zip(&acks).map(|(((p, t), token), a)| (*p, *t, token.as_str(), a)).collect();
    nothing_lost_or_doubled(&rt, &url, db.url(), &sent);
    eprintln!("pg_ha {name}: 0 lost, 0 doubled of {total} acknowledged");
    drop(alpha);
    let last = serving.2;
    drop(serving);
    // The casino was taken by alpha, then under rising epochs by the server
    // serving now (beta, when killed during its recovery, may have taken it
    // in between), on either database node.
    let served = crate::failover::served_records(db.url());
    assert_eq!(served.first(), Some(&("alpha".to_string(), 1)), "{served:?}");
    assert_eq!(served.last().map(|s| s.0.as_str()), Some(last), "{served:?}");
    assert!(served.windows(2).all(|w| w[0].1 < w[1].1), "epochs rise: {served:?}");
    verify_casino(db.url(), &dir);
    if let Database::Ha(ha) = db {
        ha.stop_leaving_nothing();
    }
}

/// `baccarat_pg_synchronous_standby` on the server at `url` once it reads
/// `want`, or as it last read after 30 s (`None`: never shown). Set after
/// each renewal of the lease, a third of its 1.5 s; a scrape that fails is
/// tried again.
async fn synchronous_standby_gauge(url: &str, want: f64) -> Option<f64> {
    let mut last = None;
    for _ in 0..300 {
        let text = match reqwest::get(format!("{url}/metrics")).await {
            Ok(r) => r.text().await.unwrap_or_default(),
            Err(_) => String::new(),
        };
        last = text
            .lines()
            .find_map(|l| l.strip_prefix("baccarat_pg_synchronous_standby "))
            .and_then(|v| v.trim().parse::<f64>().ok())
            .or(last);
        if last == Some(want) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    last
}

/// Each player's (name, table, token, acknowledged keys): every key sent
/// again to the server at `url` answers the same wager, the ledger check is
/// clean, and the store at `db` holds one stake for each key.
/// (The store is read outside the runtime: the `postgres` client runs its own.)
fn nothing_lost_or_doubled(rt: &tokio::runtime::Runtime, url: &str, db: &str, sent: &[(&str, u64, &str, &Acks)]) {
    rt.block_on(async {
        for (_, table, token, a) in sent {
            resend_all(url, *table, token, a).await;
        }
        let c = reqwest::Client::new();
        let inspector = crate::common::login(&c, url, "inspector", "demo").await;
        let check = crate::failover::call(&format!("{url}/api/ledger/check"), &inspector, None).await;
        assert_eq!(check["ok"], true, "{check}");
    });
    for (name, _, _, a) in sent {
        let n = a.by_key.len() as i64;
        assert_eq!(stakes_of(db, name), (n, n), "{name}: one stake for each acknowledged key");
    }
}

/// A cut network healed, a second after beta serves under its new epoch;
/// stalled, what alpha sent meanwhile reaches the database then (checked:
/// some did).
fn heal(fault: Fault, db: &Database, name: &str) {
    let Database::Proxied { proxy, .. } = db else { return };
    std::thread::sleep(Duration::from_secs(1));
    let before = proxy.held();
    proxy.set(Cut::Open);
    if fault == Fault::NetworkCut(Cut::Stall) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while proxy.held() == before && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(proxy.held() > before, "the stall held nothing of alpha's to deliver");
        eprintln!("pg_ha {name}: {} bytes of alpha's held by the stall, delivered on healing", proxy.held());
    }
}

/// Do `fault` to the casino whose standing-by server is `beta`, pointing the
/// players at whichever server will serve; that server, once it says it
/// serves.
fn strike(
    fault: Fault,
    db: &Database,
    dir: &TempDir,
    beta: (crate::common::Server, std::sync::mpsc::Receiver<String>),
    url: &RwLock<String>,
    name: &str,
) -> Serving {
    let serves = |l: &str| l.starts_with("baccarat table server on ").then_some(());
    let (beta, lines) = beta;
    // Alpha cannot renew its lease and stops (a service manager would start
    // it again: packaging/baccarat.service); a standby takes the casino once
    // it reaches a primary database node and alpha's lease has expired.
    match fault {
        Fault::NetworkCut(cut) => {
            let Database::Proxied { proxy, .. } = db else { unreachable!("a cut needs the proxy") };
            proxy.set(cut);
            eprintln!("pg_ha {name}: alpha's network to the database {cut:?}");
            until_line(&lines, 90, serves);
        }
        Fault::Kill | Fault::Pause => {
            let ha = db.ha();
            let which = ha.drive(if fault == Fault::Kill { "kill-primary" } else { "pause-primary" });
            eprintln!("pg_ha {name}: the primary's machine ({})", which.trim());
            until_line(&lines, 90, serves);
            if fault == Fault::Pause {
                // The old primary wakes, still believing it is the primary,
                // with the old lease in its tables: its keeper is told to
                // demote it.
                ha.drive("resume-primary");
            }
        }
        Fault::StandbyThenPrimary => {
            let ha = db.ha();
            let which = ha.drive("kill-standby");
            eprintln!("pg_ha {name}: the standby's machine ({}), then after 3 s the primary's", which.trim());
            std::thread::sleep(Duration::from_secs(3));
            let primary = ha.drive("kill-primary");
            std::thread::sleep(Duration::from_secs(3));
            // No copy is running: nothing serves until the primary's machine
            // is back, with every commit it acknowledged alone.
            let node = if primary.trim() == "node1" { "1" } else { "2" };
            ha.drive_node("restart-node", node);
            // Beta, if it had taken the casino from alpha (whose renewals
            // waited on the dead standby), stopped when its commit failed
            // ("stopping so that recovery can run"); its service manager
            // starts a server again: gamma here.
            let mut beta = beta;
            if !beta.alive() {
                let (gamma, lines, gamma_url) = crate::failover::instance("gamma", db.url(), dir);
                *url.write().unwrap() = gamma_url;
                until_line(&lines, 90, serves);
                return (gamma, lines, "gamma");
            }
            until_line(&lines, 90, serves);
            return (beta, lines, "beta");
        }
        Fault::ServerDuringFailover => {
            db.ha().drive("kill-primary");
            std::thread::sleep(Duration::from_secs(1));
            drop(beta);
            drop(lines);
            let (gamma, lines, gamma_url) = crate::failover::instance("gamma", db.url(), dir);
            *url.write().unwrap() = gamma_url;
            until_line(&lines, 90, serves);
            return (gamma, lines, "gamma");
        }
    }
    (beta, lines, "beta")
}
