//! Two `baccarat serve` processes on one PostgreSQL casino (`lease.rs`): one
//! serves, the other stands by and passes every request through to it (`forward.rs`;
//! a bounded `loadgen` runs against both); killed with SIGKILL
//! mid-coup, the server's lease expires, the standby takes the casino under
//! a new epoch, recovers it, finishes the interrupted coup, and serves.
//! Nothing acknowledged is lost, nothing is paid twice, a player's
//! concurrent wagers sent to both servers never overdraw, the ledger
//! balances and `verify` passes. The failover time is printed.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::{spawn, until_line, Server, TempDir};

/// A fresh database on the test cluster (`pg_cluster.rs`, shared with the
/// server crate's tests).
pub(crate) fn database(name: &str) -> String {
    pg_cluster::database(&format!("cli{}_{name}", std::process::id()))
}

#[path = "../../../baccarat-server/tests/server/pg_cluster.rs"]
pub mod pg_cluster;

/// Start an instance; its process, its lines, and its own URL.
pub(crate) fn instance(
    name: &str,
    db: &str,
    dir: &std::path::Path,
) -> (Server, std::sync::mpsc::Receiver<String>, String) {
    let pace = ["--betting-seconds", "1", "--deal-ms", "150", "--result-ms", "100"];
    serve_pg(db, name, &dir.join("casino.anchors"), &dir.join("casino.key"), &pace)
}

/// Start `serve` on PostgreSQL at `db` as `instance`, with a 1.5 s lease,
/// these anchor and key files and the `more` arguments; its process, its
/// lines, and its own URL.
pub fn serve_pg(
    db: &str,
    instance: &str,
    anchors: &std::path::Path,
    key: &std::path::Path,
    more: &[&str],
) -> (Server, std::sync::mpsc::Receiver<String>, String) {
    let mut args = vec!["serve", "--db", db, "--addr", "127.0.0.1:0", "--instance", instance, "--lease-ms", "1500"];
    args.extend(["--anchor-file", anchors.to_str().unwrap(), "--key-file", key.to_str().unwrap()]);
    args.extend(more);
    let (server, rx) = spawn(&args);
    // A server on PostgreSQL answers at once, standing by until it holds the
    // lease (it says "listening on" only once it serves). A process that
    // also stands by for other partitions says so for each, in no set
    // order: the URL is the line for its own.
    let own = match more.iter().position(|a| *a == "--partition") {
        Some(i) => format!(" for partition {} ", more[i + 1]),
        None => " for the casino ".to_string(),
    };
    let url = until_line(&rx, 30, |l| {
        l.strip_prefix("standing by on ")
            .filter(|r| r.contains(&own))
            .map(|r| r.split_whitespace().next().unwrap().trim_end_matches('/').to_string())
    });
    (server, rx, url)
}

pub(crate) async fn login(c: &reqwest::Client, url: &str, name: &str) -> String {
    crate::common::login(c, url, name, "demo").await
}

/// A signed-in request, to either server (a standby passes it through).
pub(crate) async fn call(url: &str, token: &str, body: Option<&Value>) -> Value {
    let c = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    let rq = match body {
        Some(b) => c.post(url).json(b),
        None => c.get(url),
    };
    let r = rq.bearer_auth(token).send().await.unwrap();
    assert_ne!(r.status(), reqwest::StatusCode::TEMPORARY_REDIRECT, "no server redirects an http:// client");
    r.json().await.unwrap()
}

async fn get(_c: &reqwest::Client, url: &str, token: &str) -> Value {
    call(url, token, None).await
}

async fn until_phase(c: &reqwest::Client, url: &str, phase: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        let t: Value = c.get(format!("{url}/api/tables/1")).send().await.unwrap().json().await.unwrap();
        if t["phase"] == phase {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("table 1 never reached {phase}");
}

#[test]
fn two_servers_on_postgresql_fail_over_without_losing_a_chip() {
    let dir = TempDir::new(&format!("baccarat-failover-{}", std::process::id()));
    let db = database("failover");
    let rt = tokio::runtime::Runtime::new().unwrap();
    let c = reqwest::Client::new();
    let plain = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();

    let (a, a_lines, a_url) = instance("alpha", &db, &dir);
    let admin = until_line(&a_lines, 30, crate::common::first_admin);
    until_line(&a_lines, 30, |l| l.starts_with("baccarat table server on ").then_some(()));
    let (b, b_lines, b_url) = instance("beta", &db, &dir);
    until_line(&b_lines, 30, |l| l.starts_with("standing by: instance alpha").then_some(()));

    // Load against both servers, bounded: half the load workers send their
    // slips to the standby, which passes them through to alpha. It ends with
    // the ledger balanced, and verify below reads what it wrote.
    let load = std::process::Command::new(env!("CARGO_BIN_EXE_baccarat"))
        .args(["loadgen", "--url", &b_url, "--url", &a_url, "--admin-password", &admin, "--tables", "2"])
        .args(["--players-per-table", "3", "--concurrency", "8", "--seconds", "4", "--probe", "false", "--json"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&load.stdout);
    assert!(load.status.success(), "loadgen through the standby: {text}{}", String::from_utf8_lossy(&load.stderr));
    let report: Value = serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert!(report["accepted_bets"].as_u64().unwrap_or(0) > 0, "{report}");
    assert_eq!(report["ledger"]["ok"], true, "{report}");
    assert_eq!(report["servers"], json!([b_url, a_url]), "{report}");
    eprintln!("loadgen against both servers: {} bets accepted in 4 s", report["accepted_bets"]);
    let (token, before, held, coup) = rt.block_on(async {
        // The standby passes a request through to the server that holds the
        // casino, and says which answered.
        let r = plain.get(format!("{b_url}/api/tables/1")).send().await.unwrap();
        assert_eq!(r.status(), reqwest::StatusCode::OK);
        assert_eq!(r.headers()["x-baccarat-instance"].to_str().unwrap(), "alpha");
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["id"], 1, "{body}");
        // A browser's WebSocket follows no redirect: the standby passes a
        // table's feed through from the server that holds the casino.
        let ws_url = format!("{}/api/tables/1/ws", b_url.replace("http://", "ws://"));
        let (mut feed, _) = tokio_tungstenite::connect_async(ws_url).await.expect("a WebSocket through the standby");
        let pushed = next_json(&mut feed).await.expect("a message through the standby");
        assert_eq!(pushed["table"]["id"], 1, "{pushed}");
        let admin = crate::common::login(&c, &b_url, "admin", &admin).await;
        // One player's wagers sent at once to both servers, more than the
        // wallet holds: they meet in one writer, so what is accepted fits.
        // Betting closes after a second: on a busy machine some sends may
        // arrive after it, and are refused for that, not by the wallet. Such
        // a round proves only that nothing overdrew; it is tried again with
        // a new player (the wagers it placed are settled with their coup).
        let stake = 10_000i64;
        let mut round = 0;
        let (token, before, accepted) = loop {
            round += 1;
            assert!(round <= 5, "no betting window took all eight sends in five coups");
            let thin = json!({"name": format!("thin{round}"), "password": "demo", "chips": 30_000});
            let made = call(&format!("{b_url}/api/players"), &admin, Some(&thin)).await;
            assert!(made["player"].is_u64(), "{made}");
            let token = login(&c, &b_url, &format!("thin{round}")).await;
            let me = get(&c, &format!("{b_url}/api/me"), &token).await;
            let before = me["available"].as_i64().unwrap();
            assert_eq!(before, 30_000, "{me}");
            until_phase(&c, &a_url, "betting").await;
            let sends = (0..8).map(|i| {
                let token = token.clone();
                let url = if i % 2 == 0 { a_url.clone() } else { b_url.clone() };
                async move {
                    let wager = json!({"bet": "banker", "amount": stake, "key": format!("both-{i}")});
                    call(&format!("{url}/api/tables/1/wagers"), &token, Some(&wager)).await
                }
            });
            let answers = futures_join(sends).await;
            let accepted: Vec<i64> = answers.iter().filter(|r| r["result"] == "wager").map(|_| stake).collect();
            assert!(accepted.iter().sum::<i64>() <= before, "more accepted than the wallet holds: {answers:?}");
            let other: Vec<&Value> =
                answers.iter().filter(|r| r["result"] != "wager" && r["code"] != "wallet").collect();
            if other.is_empty() {
                break (token, before, accepted);
            }
            eprintln!("round {round}: {} sends refused other than by the wallet, again: {other:?}", other.len());
        };
        // The feed through the standby shows the wagers' coup going on.
        let seen = loop {
            let m = next_json(&mut feed).await.expect("the feed goes on");
            if m["table"]["phase"] != "betting" {
                break m;
            }
        };
        assert!(seen["table"]["coup"].as_u64().is_some(), "{seen}");
        let held: i64 = accepted.iter().sum();
        assert_eq!(held, before - before % stake, "as many as the wallet holds, and no more: {accepted:?} of {before}");
        let me = get(&c, &format!("{a_url}/api/me"), &token).await;
        assert!(me["available"].as_i64().unwrap() >= 0, "{me}");
        assert_eq!(me["available"].as_i64().unwrap(), before - held, "{me}");
        until_phase(&c, &a_url, "dealing").await;
        let t: Value = c.get(format!("{a_url}/api/tables/1")).send().await.unwrap().json().await.unwrap();
        (token, before, held, t["coup"].as_u64().unwrap())
    });
    let killed = Instant::now();
    drop(a); // SIGKILL, mid-coup, lease held
    until_line(&b_lines, 30, |l| l.starts_with("baccarat table server on ").then_some(()));
    let (served_after, after) = rt.block_on(async {
        // The wagers acknowledged before the kill are settled once, by the
        // interrupted coup's policy, at the server that took over.
        let deadline = Instant::now() + Duration::from_secs(30);
        let settled = loop {
            assert!(Instant::now() < deadline, "the interrupted coup did not finish");
            let t: Value = c.get(format!("{b_url}/api/tables/1")).send().await.unwrap().json().await.unwrap();
            let me = get(&c, &format!("{b_url}/api/me"), &token).await;
            if (t["coup"].as_u64().unwrap_or(0) > coup || t["phase"] == "ready") && me["balance"] == me["available"] {
                break me["balance"].as_i64().unwrap();
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        // Lost, pushed, or won at even money (half on a six: Super Six).
        assert!((before - held..=before + held).contains(&settled), "{before} -> {settled} with {held} staked");
        // A new wager at the server that took over (from a player with
        // chips left: the thin one may have lost them all).
        let rich = login(&c, &b_url, "player1").await;
        loop {
            let wager = json!({"bet": "player", "amount": 1000, "key": "after"});
            let r = call(&format!("{b_url}/api/tables/1/wagers"), &rich, Some(&wager)).await;
            if r["result"] == "wager" {
                break (killed.elapsed(), settled);
            }
            assert!(killed.elapsed() < Duration::from_secs(60), "no wager accepted after the failover: {r}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    });
    eprintln!("failover: from SIGKILL to the first wager accepted at the other server, {served_after:?}");
    let inspector_ok = rt.block_on(async {
        let t = login(&c, &b_url, "inspector").await;
        get(&c, &format!("{b_url}/api/ledger/check"), &t).await
    });
    assert_eq!(inspector_ok["ok"], true, "{inspector_ok}");
    assert!(after >= 0);
    drop(b);
    // Each server recorded that it took the casino, under rising epochs.
    assert_eq!(served_records(&db), [("alpha".to_string(), 1), ("beta".to_string(), 2)]);
    verify_casino(&db, &dir);
}

/// The servers that took the casino, as its chain records them: (instance,
/// epoch), in order.
pub(crate) fn served_records(db: &str) -> Vec<(String, i64)> {
    let mut pg = postgres::Client::connect(db, postgres::NoTls).unwrap();
    pg.query("SELECT body FROM audit WHERE tbl = 0 AND body LIKE '%\"served\"%' ORDER BY seq", &[])
        .unwrap()
        .iter()
        .map(|r| {
            let s = serde_json::from_str::<Value>(r.get(0)).unwrap()["casino"].clone();
            (s["instance"].as_str().unwrap_or("").to_string(), s["epoch"].as_i64().unwrap_or(0))
        })
        .collect()
}

/// `verify` of the casino at `db`, with its anchor file in `dir`, passes,
/// and so does `verify` with the database's copy of the anchor lines alone
/// (the anchor file lost with its machine: issue 51); what the first
/// printed.
pub(crate) fn verify_casino(db: &str, dir: &std::path::Path) -> String {
    let verify = |more: &[&str]| {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_baccarat"))
            .args(["verify", "--db", db])
            .args(more)
            .output()
            .unwrap();
        let out = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
        assert!(o.status.success(), "verify {more:?}: {out}");
        out
    };
    let out = verify(&["--anchor-file", dir.join("casino.anchors").to_str().unwrap()]);
    let key = std::process::Command::new(env!("CARGO_BIN_EXE_baccarat"))
        .args(["key", "show", "--db", db, "--key-file", dir.join("casino.key").to_str().unwrap()])
        .output()
        .unwrap();
    let public = String::from_utf8_lossy(&key.stdout).trim().to_string();
    assert_eq!(public.len(), 64, "key show: {public}");
    let alone = verify(&["--anchor-key", &public]);
    assert!(alone.contains("no anchor file was given"), "the copy alone, named as such: {alone}");
    out
}

/// Run the futures at once, each on its own task; their results in order.
/// The next JSON text message of a WebSocket (`None` once it is closed).
async fn next_json<S>(ws: &mut S) -> Option<Value>
where
    S: futures_util::Stream<
            Item = Result<tokio_tungstenite::tungstenite::Message, tokio_tungstenite::tungstenite::Error>,
        > + Unpin,
{
    use futures_util::StreamExt;
    let deadline = Duration::from_secs(30);
    loop {
        match tokio::time::timeout(deadline, ws.next()).await.expect("a message within 30 s") {
            Some(Ok(tokio_tungstenite::tungstenite::Message::Text(t))) => return serde_json::from_str(&t).ok(),
            Some(Ok(_)) => continue,
            _ => return None,
        }
    }
}

async fn futures_join<F>(fs: impl Iterator<Item = F>) -> Vec<F::Output>
where
    F: std::future::Future + Send + 'static,
    F::Output: Send + 'static,
{
    let handles: Vec<_> = fs.map(tokio::spawn).collect();
    let mut out = Vec::new();
    for h in handles {
        out.push(h.await.expect("a send"));
    }
    out
}
