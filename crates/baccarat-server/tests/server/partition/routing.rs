//! Any server of a partitioned casino answers for every partition (`partition_route.rs`).

use super::*;

/// A partition's server on port 0, in this process, with a betting window
/// long enough that no coup settles during a test; its URL once it serves.
async fn serve_partition(db: &str, name: &str, dir: &crate::common::TempDir) -> String {
    use baccarat_server::serve::{run, ServeConfig};
    let mut cfg = ServeConfig {
        betting: std::time::Duration::from_secs(120),
        rate_per_second: 100_000,
        instance: format!("{name}-1"),
        founding: baccarat_core::audit::Founding::Demo,
        ..ServeConfig::new(dir.join(format!("{name}.db")), "127.0.0.1:0".parse().unwrap())
    };
    cfg.postgres = Some(partition_url(db, name).unwrap());
    cfg.partition = Some(name.into());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(run(cfg, listener));
    for _ in 0..1500 {
        let r = reqwest::get(format!("{url}/api/tables")).await.unwrap();
        if r.status() == reqwest::StatusCode::OK {
            return url;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    panic!("partition {name} never served");
}

/// Any server of a partitioned casino answers for every partition
/// (`partition_route.rs`): a request under `/p/NAME/` is passed on to the
/// server holding NAME's lease, WebSocket included, and answered there as
/// its route; under its own name a server answers itself. `/api/me` shows
/// the bank's balance beside the partition's wallet, and the money adds up
/// across the two. A name that is no partition is 404, and a partition
/// whose server is out of reach a 502 naming it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn any_server_passes_a_partitions_requests_on_to_the_server_that_holds_it() {
    use crate::common::{spawn_app_with, ws_request, TempDir};
    use futures_util::StreamExt;
    use reqwest::StatusCode;
    use serde_json::{json, Value};

    let db = tokio::task::spawn_blocking(|| database("partition_route")).await.unwrap();
    let east_db = partition_url(&db, "east").unwrap();
    let east = spawn_app_with(move |c| {
        c.postgres = Some(east_db);
        c.partition = Some("east".into());
        c.instance = "east-1".into();
    })
    .await;
    let dir = TempDir::new(&format!("baccarat-route-{}", std::process::id()));
    let west = serve_partition(&db, "west", &dir).await;
    // A third partition, whose server has gone: its lease names a port
    // nothing listens on.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let north_db = partition_url(&db, "north").unwrap();
    tokio::task::spawn_blocking(move || {
        let mut s = PgStore::connect(&north_db).unwrap();
        s.take_casino("north-1#00", &format!("http://127.0.0.1:{closed}"), 60_000).unwrap().unwrap();
    })
    .await
    .unwrap();

    // Where each is served, from either server.
    let (s, list) = east.get("/api/partitions", None).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(list["partition"], "east");
    let seen: Vec<(&str, &str, &str, &str)> = list["partitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let s = |k: &str| p[k].as_str().unwrap_or("");
            (s("name"), s("instance"), s("url"), s("path"))
        })
        .collect();
    let north_url = format!("http://127.0.0.1:{closed}");
    assert_eq!(
        seen,
        [
            ("east", "east-1", east.base.as_str(), "/p/east/"),
            ("north", "north-1", north_url.as_str(), "/p/north/"),
            ("west", "west-1", west.as_str(), "/p/west/"),
        ]
    );
    let tables = |v: &Value| v["tables"].as_array().unwrap().iter().map(|t| t["id"].clone()).collect::<Vec<_>>();
    let west_direct: Value = reqwest::get(format!("{west}/api/tables")).await.unwrap().json().await.unwrap();
    let r = reqwest::get(format!("{}/p/west/api/tables", east.base)).await.unwrap();
    assert_eq!(r.headers()["x-baccarat-instance"], "west-1", "answered by west's server");
    let via_east: Value = r.json().await.unwrap();
    assert!(!tables(&west_direct).is_empty());
    assert_eq!(tables(&via_east), tables(&west_direct));
    let r = reqwest::get(format!("{}/p/east/api/tables", east.base)).await.unwrap();
    assert!(r.headers().get("x-baccarat-instance").is_none(), "its own partition: answered here");
    let (_, own) = east.get("/api/tables", None).await;
    assert_eq!(tables(&r.json().await.unwrap()), tables(&own));

    // A player made at east, chips at the bank, bets at west through east.
    let (s, made) = east
        .post("/api/players", Some(&east.admin), json!({"name": "roamer", "password": "demo", "chips": 30_000}))
        .await;
    assert_eq!(s, StatusCode::OK, "{made}");
    let token = east.login("roamer", "demo").await;
    let (_, me) = east.get("/api/me", Some(&token)).await;
    assert_eq!((me["bank"].as_i64(), me["balance"].as_i64()), (Some(30_000), Some(0)), "{me}");
    for _ in 0..1500 {
        if east.get("/p/west/api/tables/1", None).await.1["phase"] == "betting" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let wager = json!({"bet": "banker", "amount": 5_000, "key": "roam-1"});
    let (s, placed) = east.post("/p/west/api/tables/1/wagers", Some(&token), wager).await;
    assert_eq!((s, placed["result"].as_str()), (StatusCode::OK, Some("wager")), "{placed}");
    let (_, at_west) = east.get("/p/west/api/me", Some(&token)).await;
    let (_, at_east) = east.get("/api/me", Some(&token)).await;
    let (bank, west_wallet) = (at_west["bank"].as_i64().unwrap(), at_west["balance"].as_i64().unwrap());
    assert_eq!(at_east["bank"].as_i64(), Some(bank), "one bank, whichever server reads it");
    assert_eq!(bank + west_wallet, 30_000, "the money is at the bank or at west: {at_west}");
    assert!(bank <= 25_000 && at_west["available"].as_i64() == Some(west_wallet - 5_000), "{at_west}");

    // West's table feed, through east.
    let ws_url = format!("{}/p/west/api/tables/1/ws", east.base.replace("http", "ws"));
    let (mut ws, answer) = tokio_tungstenite::connect_async(ws_request(&ws_url, &token)).await.unwrap();
    assert_eq!(answer.headers()["x-baccarat-instance"], "west-1");
    let first: Value = serde_json::from_str(&ws.next().await.unwrap().unwrap().into_text().unwrap()).unwrap();
    assert_eq!((first["table"]["id"].as_u64(), first["balance"].as_i64()), (Some(1), Some(west_wallet)), "{first}");

    // And the other way: east's wallet read through west.
    let r = reqwest::Client::new().get(format!("{west}/p/east/api/me")).bearer_auth(&token).send().await.unwrap();
    assert_eq!(r.headers()["x-baccarat-instance"], "east-1");
    let me: Value = r.json().await.unwrap();
    assert_eq!((me["bank"].as_i64(), me["balance"].as_i64()), (Some(bank), Some(0)), "{me}");

    // A cool-off asked at east stops the player's wagers at west too, once
    // west's writer has read the bank's log of limits (every 200 ms).
    let (s, v) = east.post("/api/me/cool-off", Some(&token), json!({"hours": 24})).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let mut refused = None;
    for i in 0..500 {
        let wager = json!({"bet": "player", "amount": 1_000, "key": format!("after-cool-off-{i}")});
        let (s, r) = east.post("/p/west/api/tables/1/wagers", Some(&token), wager).await;
        if s == StatusCode::FORBIDDEN {
            refused = Some(r);
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let refused = refused.expect("west never refused a wager during the cool-off");
    assert_eq!(refused["code"], "self_limit", "{refused}");
    let (_, limits) = east.get("/p/west/api/me/limits", Some(&token)).await;
    assert!(limits["cool_off_until_ms"].as_u64().is_some(), "west shows the cool-off: {limits}");

    // What cannot be reached is named.
    let (s, e) = east.get("/p/north/api/tables", None).await;
    assert_eq!((s, e["code"].as_str()), (StatusCode::BAD_GATEWAY, Some("elsewhere")), "{e}");
    assert!(e["error"].as_str().unwrap().contains("partition north: instance north-1"), "{e}");
    // A lease row naming the wrong server (here, a forger's: south's names
    // east) costs one hop, not a loop. (North's 502 made east read the rows
    // again.)
    let (south_db, east_base) = (partition_url(&db, "south").unwrap(), east.base.clone());
    tokio::task::spawn_blocking(move || {
        let mut s = PgStore::connect(&south_db).unwrap();
        s.take_casino("south-1#00", &east_base, 60_000).unwrap().unwrap();
    })
    .await
    .unwrap();
    // (East reads the rows again REREAD_MS after north's 502 at the soonest.)
    let mut south = east.get("/p/south/api/tables", None).await;
    for _ in 0..100 {
        if south.1["code"] != "no_partition" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        south = east.get("/p/south/api/tables", None).await;
    }
    let (s, e) = south;
    assert_eq!((s, e["code"].as_str()), (StatusCode::BAD_GATEWAY, Some("elsewhere")), "{e}");
    assert!(e["error"].as_str().unwrap().contains("partition south: passed on to this server"), "{e}");
    for path in ["/p/nowhere/api/tables", "/p/West/api/tables"] {
        let (s, e) = east.get(path, None).await;
        assert_eq!((s, e["code"].as_str()), (StatusCode::NOT_FOUND, Some("no_partition")), "{path}: {e}");
    }
}

/// What a client can make a server's router do (`partition_route.rs`):
/// * a spray of made-up partition names costs one read of the lease rows,
///   answered 404 from the list kept;
/// * a spray for a partition whose server is down costs a read each
///   `REREAD_MS`, not one per request;
/// * a loop mark the client wrote itself has only that request refused,
///   and the list read again no sooner.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_cannot_make_the_router_loop_or_read_the_database_per_request() {
    use axum::body::Body;
    use baccarat_server::partition_route::{elsewhere, Directory, PASSED_ON, REREAD_MS};
    use baccarat_server::Forwarder;
    use std::sync::atomic::{AtomicU64, Ordering};
    // East's lease names a server nothing listens on.
    let db = tokio::task::spawn_blocking(|| {
        let db = database("partition_router_attack");
        drop(Part::new(&db, "east"));
        db
    })
    .await
    .unwrap();
    let dir = crate::common::TempDir::new(&format!("baccarat-router-{}", std::process::id()));
    let to = Forwarder::new(dir.join("casino.key"));
    let now = std::sync::Arc::new(AtomicU64::new(1_795_000_000_000));
    let clock = now.clone();
    let clock: baccarat_casino::casino::Clock = std::sync::Arc::new(move || clock.load(Ordering::Relaxed));
    let url = db.clone();
    let d = tokio::task::spawn_blocking(move || Directory::connect(&url, None, 60_000, clock)).await.unwrap().unwrap();
    let ask = |name: &str, mark: Option<String>| {
        let mut b = axum::http::Request::builder().uri(format!("/p/{name}/api/tables"));
        if let Some(m) = mark {
            b = b.header(PASSED_ON, m);
        }
        b.body(Body::empty()).unwrap()
    };
    let t = || now.load(Ordering::Relaxed);
    let body = |r: axum::response::Response| async move {
        let status = r.status();
        let bytes = axum::body::to_bytes(r.into_body(), 1 << 16).await.unwrap();
        (status, String::from_utf8_lossy(&bytes).into_owned())
    };

    for i in 0..300 {
        let (status, text) =
            body(elsewhere(ask(&format!("made_up_{i}"), None), &format!("made_up_{i}"), &d, &to, t()).await).await;
        assert_eq!(status, axum::http::StatusCode::NOT_FOUND, "{text}");
        assert!(text.contains("no_partition"), "{text}");
    }
    assert_eq!(d.reads(), 1, "300 made-up names, one read");

    let unreachable = |text: &str| text.contains("could not be reached");
    for round in 1..=3u64 {
        for _ in 0..50 {
            let (status, text) = body(elsewhere(ask("east", None), "east", &d, &to, t()).await).await;
            assert_eq!(status, axum::http::StatusCode::BAD_GATEWAY);
            assert!(unreachable(&text), "{text}");
        }
        assert_eq!(d.reads(), round, "50 requests for a partition out of reach: read again once each {REREAD_MS} ms");
        now.fetch_add(REREAD_MS, Ordering::Relaxed);
    }

    // A client's own mark has only its request refused (never passed on
    // again, whoever set it), and the list read again no sooner.
    let reads = d.reads();
    for _ in 0..50 {
        let (status, text) = body(elsewhere(ask("east", Some("1".into())), "east", &d, &to, t()).await).await;
        assert_eq!(status, axum::http::StatusCode::BAD_GATEWAY);
        assert!(text.contains("passed on to this server") && text.contains("out of date"), "{text}");
    }
    let (_, text) = body(elsewhere(ask("east", None), "east", &d, &to, t()).await).await;
    assert!(unreachable(&text), "{text}");
    assert_eq!(d.reads(), reads + 1, "one read for all 51");
}
