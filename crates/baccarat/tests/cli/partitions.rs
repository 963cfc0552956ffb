//! Two `baccarat serve` processes each serving a partition of one
//! PostgreSQL casino (`--partition`), with one bank of players' money
//! between them (`bank/`): one player's wagers sent at once to tables of
//! both servers never spend more than the player has; the people are the
//! casino's (made once, signing in at either); after the coups every chip
//! is back at the bank or won by a house. A bounded `loadgen --partitions`
//! drives both; after a SIGKILL of east's server, west's server, which
//! stands by for east (`--standby-for east`), takes east over and takes a
//! wager for it. A rival then takes east's lease from under west's process:
//! only east stops there (west's own partition goes on taking wagers), and
//! the process takes east back when the rival's lease lapses (`fatal.rs`).
//! When east's own server starts again, west's process hands east back to
//! it (`pg_store::Claim`).
//! `verify --partition` passes for each. Requests for one partition's
//! tables go to either server (`/p/NAME/`, `partition_route.rs`).

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::{until_line, Server, TempDir};
use crate::failover::serve_pg;

use crate::failover::pg_cluster;

/// A partition's server, standing by for the partitions `standby_for`
/// names (comma-separated); its process, its lines, and its own URL. Each
/// partition's files are its own (`{partition}`).
pub(crate) fn partition(
    part: &str,
    instance: &str,
    db: &str,
    dir: &std::path::Path,
    standby_for: &str,
) -> (Server, std::sync::mpsc::Receiver<String>, String) {
    let anchors = dir.join("{partition}.anchors");
    let key = dir.join("{partition}.key");
    let mut more = vec!["--partition", part, "--betting-seconds", "2", "--deal-ms", "50", "--result-ms", "50"];
    if !standby_for.is_empty() {
        more.extend(["--standby-for", standby_for]);
    }
    serve_pg(db, instance, &anchors, &key, &more)
}

/// East's server (instance east-1), the casino's first, standing by for
/// `standby_for` (as `--standby-for` takes it): its process, its lines, its
/// URL, once it serves, and the admin's password it printed.
pub(crate) fn east_first(
    db: &str,
    dir: &std::path::Path,
    standby_for: &str,
) -> (Server, std::sync::mpsc::Receiver<String>, String, String) {
    let (east, lines, url) = partition("east", "east-1", db, dir, standby_for);
    let admin = until_line(&lines, 30, crate::common::first_admin);
    until_line(&lines, 30, |l| l.starts_with("baccarat table server on ").then_some(()));
    (east, lines, url, admin)
}

pub(crate) async fn call(url: &str, token: &str, body: Option<&Value>) -> Value {
    let c = reqwest::Client::new();
    let rq = match body {
        Some(b) => c.post(url).json(b),
        None => c.get(url),
    };
    rq.bearer_auth(token).send().await.unwrap().json().await.unwrap()
}

pub(crate) async fn until_phase(url: &str, phase: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        let t: Value = reqwest::get(format!("{url}/api/tables/1")).await.unwrap().json().await.unwrap();
        if t["phase"] == phase {
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("table 1 at {url} never reached {phase}");
}

/// Player `player`'s money at the bank, and the partitions' net positions
/// for them (on a thread of its own: the synchronous client may not run on
/// the test's runtime).
fn at_bank(db: &str, player: u64) -> (i64, i64) {
    let db = db.to_string();
    std::thread::spawn(move || {
        let mut pg = postgres::Client::connect(&db, postgres::NoTls).unwrap();
        let p = player as i64;
        let wallet = pg
            .query_opt("SELECT balance FROM baccarat_bank.wallets WHERE player = $1", &[&p])
            .unwrap()
            .map_or(0, |r| r.get(0));
        let net = pg
            .query_one("SELECT COALESCE(SUM(amount), 0)::bigint FROM baccarat_bank.positions WHERE player = $1", &[&p])
            .unwrap()
            .get(0);
        (wallet, net)
    })
    .join()
    .unwrap()
}

/// Where each partition is served: (name, instance, URL, live), from
/// `baccarat partitions --json`.
fn served_at(db: &str) -> Vec<(String, String, String, bool)> {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_baccarat"))
        .args(["partitions", "--db", db, "--json"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let list: Value = serde_json::from_slice(&o.stdout).unwrap();
    let s = |p: &Value, k: &str| p[k].as_str().unwrap_or("").to_string();
    list.as_array().unwrap().iter().map(|p| (s(p, "name"), s(p, "instance"), s(p, "url"), p["live"] == true)).collect()
}

fn served(name: &str, instance: &str, url: &str) -> (String, String, String, bool) {
    (name.into(), instance.into(), url.into(), true)
}

/// Player `token`'s wager of 10.00 at table 1 of the server at `url`, sent
/// until it is taken (the table may be between coups, or the partition
/// between servers), within 60 s.
pub(crate) async fn wager_until_taken(url: &str, token: &str, key: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let wager = json!({"bet": "player", "amount": 1000, "key": key});
        let c = reqwest::Client::new();
        let r = c.post(format!("{url}/api/tables/1/wagers")).bearer_auth(token).json(&wager).send().await;
        let r: Value = match r {
            Ok(r) => r.json().await.unwrap_or(Value::Null),
            Err(e) => json!({"error": e.to_string()}),
        };
        if r["result"] == "wager" {
            return;
        }
        assert!(Instant::now() < deadline, "no wager at {url}: {r}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A rival server's taking of partition `part`'s lease, for `ms` and never
/// renewed: a new owner under the next epoch, as `pg_store::acquire` makes.
fn rival_takes_lease(db: &str, part: &str, ms: i64) {
    let (db, schema) = (db.to_string(), format!("{}{part}", baccarat_cluster::pg_store::PARTITION_SCHEMA));
    std::thread::spawn(move || {
        let mut pg = postgres::Client::connect(&db, postgres::NoTls).unwrap();
        let n = pg
            .execute(
                &format!(
                    "UPDATE {schema}.leases SET owner = 'rival#0', epoch = epoch + 1, url = '', \
                     expires_at = now() + $1::bigint * interval '1 millisecond' WHERE tbl = $2"
                ),
                &[&ms, &i64::from(baccarat_cluster::pg_store::CASINO_LEASE)],
            )
            .unwrap();
        assert_eq!(n, 1, "partition {schema} has a lease");
    })
    .join()
    .unwrap()
}

pub(crate) fn verify(db: &str, part: &str, dir: &std::path::Path) {
    let anchors = dir.join(format!("{part}.anchors"));
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_baccarat"))
        .args(["verify", "--db", db, "--partition", part, "--anchor-file", anchors.to_str().unwrap()])
        .output()
        .unwrap();
    let out = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "verify --partition {part}: {out}");
    assert!(out.contains(&format!("partition {part}'s account at it")), "{out}");
}

#[test]
fn two_partitions_share_one_bank_and_no_wager_overdraws() {
    let dir = TempDir::new(&format!("baccarat-partitions-{}", std::process::id()));
    let db = pg_cluster::database(&format!("cli{}_partitions", std::process::id()));
    let rt = tokio::runtime::Runtime::new().unwrap();
    let c = reqwest::Client::new();

    let (east, _east_lines, east_url, admin) = east_first(&db, &dir, "");
    // West stands by for east at a port given (one free a moment ago).
    let east_port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let (west, west_lines, west_url) = partition("west", "west-1", &db, &dir, &format!("east:{east_port}"));
    until_line(&west_lines, 30, |l| l.starts_with("baccarat table server on ").then_some(()));

    let stake = 10_000i64;
    let (player, held, token) = rt.block_on(async {
        let admin = crate::common::login(&c, &west_url, "admin", &admin).await;
        // Made through one server, chips deposited at the bank.
        let mut round = 0;
        loop {
            round += 1;
            assert!(round <= 5, "no betting window took all the sends in five coups");
            let name = format!("split{round}");
            let made = call(
                &format!("{east_url}/api/players"),
                &admin,
                Some(&json!({"name": name, "password": "demo", "chips": 30_000})),
            )
            .await;
            let player = made["player"].as_u64().unwrap_or_else(|| panic!("{made}"));
            assert_eq!(at_bank(&db, player), (30_000, 0), "the chips are at the bank");
            // One sign-in, good at either server: the people are the casino's.
            let token = crate::common::login(&c, &west_url, &name, "demo").await;
            until_phase(&east_url, "betting").await;
            until_phase(&west_url, "betting").await;
            // Six wagers at once, three to each partition's table 1, all
            // sent to east's server (west's through its path, `/p/west/`,
            // which east passes on): 60,000 asked of 30,000.
            let sends = (0..6).map(|i| {
                let url = if i % 2 == 0 { east_url.clone() } else { format!("{east_url}/p/west") };
                let token = token.clone();
                tokio::spawn(async move {
                    let wager = json!({"bet": "banker", "amount": stake, "key": format!("split-{i}")});
                    call(&format!("{url}/api/tables/1/wagers"), &token, Some(&wager)).await
                })
            });
            let mut answers = Vec::new();
            for s in sends.collect::<Vec<_>>() {
                answers.push(s.await.unwrap());
            }
            let held: i64 = answers.iter().filter(|r| r["result"] == "wager").map(|_| stake).sum();
            assert!(held <= 30_000, "more accepted than the player has: {answers:?}");
            let other: Vec<&Value> =
                answers.iter().filter(|r| r["result"] != "wager" && r["code"] != "wallet").collect();
            if other.is_empty() {
                assert_eq!(held, 30_000, "as much as the player has, and no more: {answers:?}");
                assert_eq!(at_bank(&db, player), (0, 30_000), "all of it held at the two tables");
                break (player, held, token);
            }
            eprintln!("round {round}: sends refused other than by the wallet, again: {other:?}");
        }
    });
    // Both coups settle, and the money left goes back to the bank: the
    // player holds nothing at either partition.
    rt.block_on(async {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let e = call(&format!("{east_url}/api/me"), &token, None).await;
            let w = call(&format!("{west_url}/api/me"), &token, None).await;
            if e["balance"] == 0 && w["balance"] == 0 {
                break;
            }
            assert!(Instant::now() < deadline, "the coups did not settle and give back: {e} {w}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    });
    let (back, net) = at_bank(&db, player);
    assert_eq!(back + net, 30_000, "the bank's books: what came back is what went out, less the net");
    let me = rt.block_on(call(&format!("{west_url}/api/me"), &token, None));
    assert_eq!(me["bank"].as_i64(), Some(back), "the player sees the bank's balance: {me}");
    // Lost, pushed, or won at even money less commission (Banker), at each.
    assert!((0..=30_000 + held).contains(&back), "{back}");

    // A bounded load against both partitions at once, each with its own
    // tables and players (`loadgen --partitions`): both ledgers balance.
    let load = std::process::Command::new(env!("CARGO_BIN_EXE_baccarat"))
        .args(["loadgen", "--url", &east_url, "--url", &west_url, "--partitions", "--admin-password", &admin])
        .args(["--tables", "2", "--players-per-table", "3", "--concurrency", "8", "--seconds", "4", "--json"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&load.stdout);
    assert!(load.status.success(), "loadgen --partitions: {text}{}", String::from_utf8_lossy(&load.stderr));
    let report: Value = serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert!(report["accepted_bets"].as_u64().unwrap_or(0) > 0, "{report}");
    assert_eq!(report["ledger"]["ok"], true, "{report}");
    eprintln!("loadgen against two partitions: {} bets accepted in 4 s", report["accepted_bets"]);

    // West's server stands by for east: it takes east over after a SIGKILL
    // of east's server, and the player bets there.
    let killed = Instant::now();
    drop(east);
    let adopted_url = until_line(&west_lines, 30, |l| {
        l.strip_prefix("baccarat table server on ")
            .filter(|r| r.contains("for partition east"))
            .map(|r| r.split_whitespace().next().unwrap().trim_end_matches('/').to_string())
    });
    // Sent to west's server, by east's path: west passes it on to whoever
    // holds east's lease (after the kill, west's own process).
    let rich = rt.block_on(crate::common::login(&c, &west_url, "player1", "demo"));
    rt.block_on(wager_until_taken(&format!("{west_url}/p/east"), &rich, "after"));
    eprintln!("partition failover: from SIGKILL to a wager at east, taken over by west, {:?}", killed.elapsed());
    // Where each partition is served now: both by west's process, east on a
    // port of its own.
    let at = served_at(&db);
    assert_eq!(adopted_url, format!("http://127.0.0.1:{east_port}"), "east is served at the port given");
    assert_eq!(at, [served("east", "west-1", &adopted_url), served("west", "west-1", &west_url)]);

    // A rival takes east's lease from under west's process, as a server
    // would after west's renewals stalled: east stops there, and only east.
    let mut west = west;
    let rival = Instant::now();
    rival_takes_lease(&db, "east", 3_000);
    until_line(&west_lines, 30, |l| l.starts_with("no longer serving partition east here").then_some(()));
    assert!(west.alive(), "one partition's lost lease ended the process serving two");
    // West's own partition goes on serving meanwhile.
    rt.block_on(wager_until_taken(&west_url, &rich, "west-after-rival"));
    // The rival never renews: once its lease lapses the process takes east
    // back, recovered under a new epoch, on the same port.
    let back_at = until_line(&west_lines, 30, |l| {
        l.strip_prefix("baccarat table server on ")
            .filter(|r| r.contains("for partition east"))
            .map(|r| r.split_whitespace().next().unwrap().trim_end_matches('/').to_string())
    });
    assert_eq!(back_at, adopted_url, "east is served again where it was");
    rt.block_on(wager_until_taken(&format!("{west_url}/p/east"), &rich, "east-after-rival"));
    assert!(west.alive());
    eprintln!("east stood by for {:?} after its lease was taken, then was served again", rival.elapsed());

    // East's own server starts again: west's process hands east back to it
    // (with a clean stop's checkpoint) and stands by for east once more.
    let handing = Instant::now();
    let (east2, east2_lines, east2_url) = partition("east", "east-2", &db, &dir, "");
    until_line(&west_lines, 30, |l| {
        l.starts_with("handing partition east back to its own server, instance east-2").then_some(())
    });
    until_line(&east2_lines, 30, |l| l.starts_with("baccarat table server on ").then_some(()));
    rt.block_on(wager_until_taken(&format!("{west_url}/p/east"), &rich, "east-handed-back"));
    eprintln!("east handed back to its own server: a wager there {:?} after it started", handing.elapsed());
    assert!(west.alive());
    assert_eq!(served_at(&db), [served("east", "east-2", &east2_url), served("west", "west-1", &west_url)]);
    drop(east2);
    drop(west);
    verify(&db, "east", &dir);
    verify(&db, "west", &dir);
}
