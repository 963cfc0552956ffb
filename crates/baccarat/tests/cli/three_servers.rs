//! Three `baccarat serve` processes on one PostgreSQL casino (`lease.rs`):
//! one serves, two stand by. Each holder in turn is killed with SIGKILL,
//! twice: each time exactly one server takes the casino (the lease's
//! conditional update lets one take it), under the next epoch, and the one
//! still standing by says who serves now and passes requests through to
//! it. A wager acknowledged before each kill is still that wager after it
//! (its retry with the same key answers it), the ledger balances, each
//! server's taking is recorded in the casino's chain under epochs 1, 2 and
//! 3, and `verify` passes.

use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::{until_line, Server};
use crate::failover::{call, database, instance, login, served_records, verify_casino};

/// A server of the test: its instance, process, lines and URL.
struct Instance {
    name: &'static str,
    process: Server,
    lines: Receiver<String>,
    url: String,
}

/// The standbys' lines until one of them serves: which one (its index),
/// and every line each printed meanwhile.
fn first_to_serve(standbys: &[Instance]) -> (usize, Vec<Vec<String>>) {
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut seen = vec![Vec::new(); standbys.len()];
    loop {
        for (i, s) in standbys.iter().enumerate() {
            while let Ok(line) = s.lines.try_recv() {
                let serving = line.starts_with("baccarat table server on ");
                seen[i].push(line);
                if serving {
                    return (i, seen);
                }
            }
        }
        assert!(Instant::now() < deadline, "no standby took the casino: {seen:?}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A wager of 10.00 on Player at table 1 with `key`, sent through `url`
/// until taken (the table between coups, the casino between servers); the
/// answer and the instance that answered.
async fn wager(url: &str, token: &str, key: &str) -> (Value, String) {
    let deadline = Instant::now() + Duration::from_secs(60);
    let c = reqwest::Client::new();
    loop {
        let body = json!({"bet": "player", "amount": 1000, "key": key});
        let r = c.post(format!("{url}/api/tables/1/wagers")).bearer_auth(token).json(&body).send().await;
        if let Ok(r) = r {
            let by = r.headers().get("x-baccarat-instance").and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
            let v: Value = r.json().await.unwrap_or(Value::Null);
            if v["result"] == "wager" {
                return (v, by);
            }
            assert!(Instant::now() < deadline, "no wager at {url}: {v}");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[test]
fn three_servers_pass_the_casino_on_twice_one_holder_at_a_time() {
    let dir = crate::common::TempDir::new(&format!("baccarat-three-{}", std::process::id()));
    let db = database("three");
    let rt = tokio::runtime::Runtime::new().unwrap();
    let c = reqwest::Client::new();

    let start = |name: &'static str| {
        let (process, lines, url) = instance(name, &db, &dir);
        Instance { name, process, lines, url }
    };
    let mut holder = start("alpha");
    let admin = until_line(&holder.lines, 30, crate::common::first_admin);
    until_line(&holder.lines, 30, |l| l.starts_with("baccarat table server on ").then_some(()));
    let mut standbys = vec![start("beta"), start("gamma")];
    for s in &standbys {
        until_line(&s.lines, 30, |l| l.starts_with("standing by: instance alpha").then_some(()));
    }
    // A player made, and signed in, through a standby.
    let token = rt.block_on(async {
        let admin = crate::common::login(&c, &standbys[1].url, "admin", &admin).await;
        let made = call(
            &format!("{}/api/players", standbys[1].url),
            &admin,
            Some(&json!({"name": "three", "password": "demo", "chips": 100_000})),
        )
        .await;
        assert!(made["player"].is_u64(), "{made}");
        login(&c, &standbys[0].url, "three").await
    });
    let mut taken = vec![holder.name];
    for round in 1..=2 {
        // A wager acknowledged through a standby (the holder answers it),
        // then the holder killed.
        let key = format!("before-kill-{round}");
        let (before, by) = rt.block_on(wager(&standbys[0].url, &token, &key));
        assert_eq!(by, holder.name, "the standby passed the wager on to the holder");
        drop(holder.process);
        let killed = Instant::now();
        let (i, seen) = first_to_serve(&standbys);
        holder = standbys.remove(i);
        eprintln!("{} took the casino {:?} after the kill", holder.name, killed.elapsed());
        taken.push(holder.name);
        // The other standby, if any, never served meanwhile, says who serves
        // now, and passes requests through to it.
        if let Some(other) = standbys.first() {
            let j = 1 - i;
            assert!(!seen[j].iter().any(|l| l.starts_with("baccarat table server on ")), "{seen:?}");
            let now = format!("standing by: instance {} serves the casino", holder.name);
            if !seen[j].iter().any(|l| l.starts_with(&now)) {
                until_line(&other.lines, 30, |l| l.starts_with(&now).then_some(()));
            }
            let (_, by) = rt.block_on(wager(&other.url, &token, &format!("through-{round}")));
            assert_eq!(by, holder.name);
        }
        // The wager acknowledged before the kill is that wager still.
        let (again, _) = rt.block_on(wager(&holder.url, &token, &key));
        assert_eq!(again["wager"], before["wager"], "{before} then {again}");
    }
    let check = rt.block_on(async {
        let t = login(&c, &holder.url, "inspector").await;
        call(&format!("{}/api/ledger/check", holder.url), &t, None).await
    });
    assert_eq!(check["ok"], true, "{check}");
    drop(holder);
    // Each taking recorded in the casino's chain, under rising epochs.
    let expected: Vec<(String, i64)> = taken.iter().zip(1..).map(|(n, e)| (n.to_string(), e)).collect();
    assert_eq!(served_records(&db), expected);
    verify_casino(&db, &dir);
}
