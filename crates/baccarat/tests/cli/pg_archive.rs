//! `baccarat archive` on PostgreSQL (`pg_store/archive.rs`) beside a serving
//! server: the casino's history so far is moved into a past month (the
//! database's clock cannot be set back), then archived while `loadgen` runs.
//! The month leaves the live tables (but for the answers, which the server's
//! clock puts inside the keys' window), the load goes on with the ledger
//! balanced, and `verify` reads the archived month with the live rows.

use serde_json::Value;

use crate::common::{until_line, TempDir};
use crate::failover::{database, instance, verify_casino};

/// `loadgen` against `url` for `seconds`, started.
fn load(url: &str, admin: &str, seconds: &str) -> std::process::Child {
    std::process::Command::new(env!("CARGO_BIN_EXE_baccarat"))
        .args(["loadgen", "--url", url, "--admin-password", admin, "--tables", "2", "--players-per-table", "3"])
        .args(["--concurrency", "8", "--seconds", seconds, "--probe", "false", "--json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

/// A finished `loadgen`'s report, which must show wagers taken and the
/// ledger balanced.
fn report(child: std::process::Child) -> Value {
    let o = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "loadgen: {text}{}", String::from_utf8_lossy(&o.stderr));
    let r: Value = serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert!(r["accepted_bets"].as_u64().unwrap_or(0) > 0, "{r}");
    assert_eq!(r["ledger"]["ok"], true, "{r}");
    r
}

#[test]
fn archive_on_postgresql_detaches_a_month_while_a_server_serves() {
    let dir = TempDir::new(&format!("baccarat-pg-archive-{}", std::process::id()));
    let db = database("archive");
    let (server, lines, url) = instance("solo", &db, &dir);
    let admin = until_line(&lines, 30, crate::common::first_admin);
    until_line(&lines, 30, |l| l.starts_with("baccarat table server on ").then_some(()));
    report(load(&url, &admin, "3"));

    // Everything so far into August 2025, in a partition made for it.
    let mut pg = postgres::Client::connect(&db, postgres::NoTls).unwrap();
    let mut moved = std::collections::BTreeMap::new();
    for log in ["transfers", "audit", "answer_log"] {
        pg.batch_execute(&format!(
            "CREATE TABLE {log}_2025_08 PARTITION OF {log} FOR VALUES FROM ('2025-08-01 00:00:00+00') TO ('2025-09-01 00:00:00+00')"
        ))
        .unwrap();
        let n = pg.execute(&format!("UPDATE {log} SET at = '2025-08-15 12:00:00+00'"), &[]).unwrap();
        assert!(n > 0, "{log}");
        moved.insert(log.to_string(), n);
    }

    let during = load(&url, &admin, "4");
    std::thread::sleep(std::time::Duration::from_secs(1));
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_baccarat"))
        .args(["archive", "--db", &db, "--older-than-days", "1", "--key-retention-hours", "1", "--json"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "archive: {text}{}", String::from_utf8_lossy(&o.stderr));
    let out: Value = serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("{e}: {text}"));
    let months: Vec<(String, String, u64, bool)> = out["archived_months"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let s = |k: &str| m[k].as_str().unwrap().to_string();
            (s("month"), s("log"), m["rows"].as_u64().unwrap(), m["from_default"].as_bool().unwrap())
        })
        .collect();
    // The answers stay live: given minutes ago by the server's clock, they
    // are inside the keys' window whatever their month by the database's.
    let expected: Vec<_> =
        ["transfers", "audit"].iter().map(|l| ("2025-08".to_string(), l.to_string(), moved[*l], false)).collect();
    assert_eq!(months, expected, "{out}");
    let locked: Vec<f64> =
        out["archived_months"].as_array().unwrap().iter().map(|m| m["locked_ms"].as_f64().unwrap()).collect();
    eprintln!(
        "archive beside a serving server: {} rows in {:.3} s; the live tables locked {locked:.1?} ms",
        moved.values().sum::<u64>(),
        out["seconds"]
    );
    let r = report(during);
    eprintln!("loadgen while archiving: {} bets accepted in 4 s", r["accepted_bets"]);
    let attached: i64 = pg
        .query_one("SELECT count(*) FROM pg_inherits WHERE inhrelid = 'audit_2025_08'::regclass", &[])
        .unwrap()
        .get(0);
    assert_eq!(attached, 0, "detached from the live log");
    drop(server);
    let out = verify_casino(&db, &dir);
    assert!(
        out.contains("archived months read with the live logs") && out.contains("2025-08 (audit, transfers)"),
        "{out}"
    );
}
