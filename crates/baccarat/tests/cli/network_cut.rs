//! The network between a server and PostgreSQL cut, as a network is
//! (`pg_proxy.rs`): first stalled (nothing arrives, nothing fails), then
//! reset (every connection closed). West's process, which serves partition
//! west and stands by for east, reaches the database through the proxy;
//! east's process, which serves east and stands by for west, reaches it
//! directly.
//!
//! Each time west stops serving west (a stall: within twice its lease's
//! time, as its renewals go unanswered; a reset: at its next commit), the process
//! stays up and answers at once meanwhile (it is starting: `503`), east
//! goes on taking wagers, east's process takes west over and takes a wager
//! there, and once the network heals west's own server asks for it back,
//! is handed it, and takes wagers. A wager sent once the network was cut is answered
//! when west stops (`outcome_unknown`; nothing taken, after a reset, if
//! it came after west stopped), not held until the network heals,
//! and sent again with its key after, it is taken once. `verify` passes
//! for both partitions at the end.

use baccarat_core::TableId;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::{until_line, TempDir};
use crate::failover::pg_cluster;
use crate::partitions::{call, east_first, partition, until_phase, verify};
use crate::pg_proxy::{Cut, Proxy};

/// Player `token`'s wager of 10.00 on Player at table 1 of `url` with `key`,
/// sent until it is taken (the table may be between coups, or west between
/// turns), within 60 s; the answer.
async fn wager(url: &str, token: &str, key: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let r = send(url, token, key, Duration::from_secs(10)).await;
        if r["result"] == "wager" {
            return r;
        }
        assert!(Instant::now() < deadline, "no wager at {url}: {r}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// One send of that wager; its answer, or the error met (`within` passed,
/// the connection closed).
async fn send(url: &str, token: &str, key: &str, within: Duration) -> Value {
    send_to(url, TableId(1), token, key, within).await
}

/// [`send`] to table `table`.
async fn send_to(url: &str, table: TableId, token: &str, key: &str, within: Duration) -> Value {
    let c = reqwest::Client::builder().timeout(within).build().unwrap();
    let body = json!({"bet": "player", "amount": 1000, "key": key});
    match c.post(format!("{url}/api/tables/{table}/wagers")).bearer_auth(token).json(&body).send().await {
        Ok(r) => r.json().await.unwrap_or(Value::Null),
        Err(e) => json!({"error": e.to_string()}),
    }
}

/// The first line saying partition west is served (again).
fn served_west(lines: &std::sync::mpsc::Receiver<String>, secs: u64) {
    until_line(lines, secs, |l| {
        (l.starts_with("baccarat table server on ") && l.contains("for partition west")).then_some(())
    });
}

#[test]
fn a_partition_cut_off_from_its_database_stands_by_and_is_served_again_once_the_network_heals() {
    let dir = TempDir::new(&format!("baccarat-cut-{}", std::process::id()));
    let db = pg_cluster::database(&format!("cli{}_cut", std::process::id()));
    let proxy = Proxy::start(pg_cluster::cluster());
    let rt = tokio::runtime::Runtime::new().unwrap();
    let c = reqwest::Client::new();

    let (east, east_lines, east_url, admin) = east_first(&db, &dir, "west");
    let east_port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let (mut west, west_lines, west_url) =
        partition("west", "west-1", &proxy.url(&db), &dir, &format!("east:{east_port}"));
    served_west(&west_lines, 30);

    let token = rt.block_on(async {
        let admin = crate::common::login(&c, &east_url, "admin", &admin).await;
        let made = call(
            &format!("{east_url}/api/players"),
            &admin,
            Some(&json!({"name": "cut", "password": "demo", "chips": 1_000_000})),
        )
        .await;
        assert!(made["player"].is_u64(), "{made}");
        let token = crate::common::login(&c, &west_url, "cut", "demo").await;
        wager(&west_url, &token, "before").await;
        token
    });

    for (cut, name) in [(Cut::Stall, "stalled"), (Cut::Reset, "reset")] {
        // A wager sent once the network is cut, while west's table bets: it
        // cannot be committed.
        rt.block_on(until_phase(&west_url, "betting"));
        proxy.set(cut);
        let at = Instant::now();
        let (url, tk, key) = (west_url.clone(), token.clone(), format!("{name}-in-flight"));
        let in_flight = rt.spawn(async move { send(&url, &tk, &key, Duration::from_secs(60)).await });
        // And one at table 5, dealt live and not betting: refused without
        // the writer once the store has said its key is new (`http/early.rs`).
        let (url, tk, key) = (west_url.clone(), token.clone(), format!("{name}-closed"));
        let at_closed = rt.spawn(async move { send_to(&url, TableId(5), &tk, &key, Duration::from_secs(60)).await });
        until_line(&west_lines, 30, |l| l.starts_with("no longer serving partition west here").then_some(()));
        eprintln!("network {name}: west stopped serving west {:?} after the cut", at.elapsed());
        // Its sender is told at once that its outcome is unknown, and to
        // send it again (it is not held until the network heals).
        // (Reset, another table's commit may fail first: the wager then
        // meets a server that stopped, or no server, and is not taken.)
        let first = rt.block_on(in_flight).unwrap();
        let known = match cut {
            Cut::Stall => &["outcome_unknown"][..],
            _ => &["outcome_unknown", "unavailable", "starting"][..],
        };
        assert!(first["code"].as_str().is_some_and(|c| known.contains(&c)), "{first}");
        eprintln!("network {name}: the wager in flight answered {:?} after the cut", at.elapsed());
        // The one at table 5 too, while the network is still cut:
        // refused (the key read failed, the writer said so), refused by the
        // table's rule at once (its key proved new from memory while the
        // lease was still certain: `ledger/answered.rs`), or, stalled on
        // the key read, told that nothing was taken. Never taken.
        let closed = rt.block_on(at_closed).unwrap();
        assert!(closed["code"].is_string(), "{closed}");
        if cut == Cut::Stall {
            let code = closed["code"].as_str().unwrap_or("");
            assert!(code == "unavailable" || code == "rule", "{closed}");
        }
        assert!(west.alive(), "the process ended when the network was {name}");
        // East's process, standing by for west, takes it over once its
        // lease has expired (a commit the cut left open holds the lease's
        // row 5 s at most), and takes a wager there.
        until_line(&east_lines, 30, |l| {
            (l.starts_with("baccarat table server on ") && l.contains("for partition west")).then_some(())
        });
        eprintln!("network {name}: east's process had taken west over by {:?} after the cut", at.elapsed());
        rt.block_on(wager(&format!("{east_url}/p/west"), &token, &format!("west-at-east-{name}")));
        rt.block_on(async {
            // East, on its own way to the database, goes on.
            wager(&east_url, &token, &format!("east-while-{name}")).await;
            // West's server answers at once meanwhile: it waits for its lease.
            let r = c.get(format!("{west_url}/api/tables/1")).timeout(Duration::from_secs(5)).send().await.unwrap();
            assert_eq!(r.status(), reqwest::StatusCode::SERVICE_UNAVAILABLE);
        });
        // Cut for longer than the lease (1.5 s), then healed.
        std::thread::sleep(Duration::from_secs(3));
        proxy.set(Cut::Open);
        let healed = Instant::now();
        // West's own server asks for it back, and is handed it.
        until_line(&east_lines, 60, |l| {
            l.starts_with("handing partition west back to its own server, instance west-1").then_some(())
        });
        served_west(&west_lines, 60);
        rt.block_on(wager(&west_url, &token, &format!("west-after-{name}")));
        eprintln!("network {name}: a wager at west {:?} after the network healed", healed.elapsed());
        assert!(west.alive());
        // Sent again with its key: taken once, whether or not the first send
        // reached the store.
        let again = rt.block_on(wager(&west_url, &token, &format!("{name}-in-flight")));
        let twice = rt.block_on(wager(&west_url, &token, &format!("{name}-in-flight")));
        assert_eq!(again["wager"], twice["wager"], "one wager for one key");
    }
    drop(west);
    drop(east);
    verify(&db, "east", &dir);
    verify(&db, "west", &dir);
}
