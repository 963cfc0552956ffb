//! `baccarat serve` as a process: killed with SIGKILL in the middle of a coup, it
//! loses nothing; on restart the interrupted coup completes and settles once, and
//! `baccarat verify` passes before and after. A tampered database fails verify.

mod common;

use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_baccarat")
}

/// Start the server; returns the process and its base URL.
fn start(db: &std::path::Path) -> (common::Server, String) {
    let (s, url, _) = common::start(db, &[]);
    (s, url)
}

fn verify(db: &std::path::Path) -> (bool, String) {
    let o = Command::new(bin()).args(["verify", "--db", db.to_str().unwrap()]).output().unwrap();
    (o.status.success(), format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr)))
}

async fn table(c: &reqwest::Client, url: &str) -> Value {
    c.get(format!("{url}/api/tables/1")).send().await.unwrap().json().await.unwrap()
}

#[test]
fn kill_9_mid_coup_loses_nothing() {
    let dir = std::env::temp_dir().join(format!("baccarat-kill-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("casino.db");
    let rt = tokio::runtime::Runtime::new().unwrap();
    let c = reqwest::Client::new();

    let (child, url) = start(&db);
    let (start_balance, held, coup) = rt.block_on(async {
        let login: Value = c
            .post(format!("{url}/api/login"))
            .json(&json!({"name": "player1", "password": "demo"}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let token = login["token"].as_str().unwrap().to_string();
        let me: Value = c.get(format!("{url}/api/me")).bearer_auth(&token).send().await.unwrap().json().await.unwrap();
        let start_balance = me["balance"].as_i64().unwrap();
        // Bet when betting opens, then wait for the deal to begin.
        let deadline = Instant::now() + Duration::from_secs(20);
        let mut placed = 0;
        while placed == 0 {
            assert!(Instant::now() < deadline);
            if table(&c, &url).await["phase"] == "betting" {
                // Banker and Tie: a combination NSW 5.6.4 allows without approval.
                for (i, bet) in ["banker", "tie"].iter().enumerate() {
                    let r: Value = c
                        .post(format!("{url}/api/tables/1/wagers"))
                        .bearer_auth(&token)
                        .json(&json!({"bet": bet, "amount": 5000, "key": format!("k{i}")}))
                        .send()
                        .await
                        .unwrap()
                        .json()
                        .await
                        .unwrap();
                    if r["result"] == "wager" {
                        placed += 1;
                    }
                }
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            assert!(Instant::now() < deadline, "the deal never began");
            let t = table(&c, &url).await;
            if t["phase"] == "dealing" {
                break (start_balance, placed * 5000, t["coup"].as_u64().unwrap());
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    });
    drop(child); // SIGKILL, mid-coup
    let (ok, out) = verify(&db);
    assert!(ok, "verify after the crash: {out}");
    // The acknowledged wagers are durable: still held in the database.
    {
        let conn = baccarat_server_conn(&db);
        let held_now: i64 = conn
            .query_row("SELECT COALESCE(SUM(held), 0) FROM accounts WHERE kind LIKE '%wallet%'", [], |r| r.get(0))
            .unwrap();
        assert_eq!(held_now, held, "the acknowledged wagers are held in the database");
    }

    let (child, url) = start(&db);
    let (end_balance, end_available) = rt.block_on(async {
        let login: Value = c
            .post(format!("{url}/api/login"))
            .json(&json!({"name": "player1", "password": "demo"}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let token = login["token"].as_str().unwrap().to_string();
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            assert!(Instant::now() < deadline, "the interrupted coup did not finish");
            let t = table(&c, &url).await;
            if t["coup"].as_u64().unwrap() > coup || t["phase"] == "ready" {
                let me: Value =
                    c.get(format!("{url}/api/me")).bearer_auth(&token).send().await.unwrap().json().await.unwrap();
                if me["balance"] == me["available"] {
                    break (me["balance"].as_i64().unwrap(), me["available"].as_i64().unwrap());
                }
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    });
    drop(child);
    assert_eq!(end_balance, end_available);
    // Banker 50.00 and Tie 50.00: from losing both to a tie at 8:1 with the Banker pushed.
    assert!(
        (start_balance - 10_000..=start_balance + 40_000).contains(&end_balance),
        "{start_balance} -> {end_balance}"
    );
    let (ok, out) = verify(&db);
    assert!(ok, "verify after the restart: {out}");
    assert!(out.contains("verified"), "{out}");

    // Tampering with a payout is found, and verify exits non-zero.
    let conn = baccarat_server_conn(&db);
    let n = conn.execute("UPDATE audit SET body = replace(body, '\"stake\":5000', '\"stake\":4000') WHERE body LIKE '%wager_settled%'", []).unwrap();
    assert!(n > 0, "the tampering changed a record");
    let (ok, out) = verify(&db);
    assert!(!ok && out.contains("DIFFERENCE"), "{out}");
}

fn baccarat_server_conn(db: &std::path::Path) -> rusqlite_conn::Connection {
    rusqlite_conn::Connection::open(db).unwrap()
}

mod rusqlite_conn {
    pub use rusqlite::Connection;
}

#[test]
fn loadgen_runs_bounded_against_loopback_and_the_ledger_balances() {
    let dir = std::env::temp_dir().join(format!("baccarat-load-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("casino.db");
    let (server, url, password) = common::start(&db, &[]);
    let o = Command::new(bin())
        .args([
            "loadgen",
            "--url",
            &url,
            "--admin-password",
            &password.expect("first run prints it"),
            "--seconds",
            "2",
            "--concurrency",
            "8",
            "--players-per-table",
            "2",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(r["accepted_bets"].as_u64().unwrap() > 0, "{r}");
    assert!(r["ack_latency_ms"]["p99"].as_f64().unwrap() > 0.0);
    assert_eq!(r["ledger"]["ok"], true);
    drop(server);
    let (ok, out) = verify(&db);
    assert!(ok, "{out}");
    // Loadgen refuses anything but loopback.
    let o = Command::new(bin())
        .args(["loadgen", "--url", "http://10.0.0.1:8080", "--admin-password", "x", "--seconds", "1"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("loopback"));
}
