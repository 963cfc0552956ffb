//! `/metrics`, `/healthz` and `/readyz` (issue 48): a scrape after some
//! play, parsed as Prometheus's text format, holds every family the manual
//! names (`docs/monitoring.md`) with the values the play implies; only
//! loopback and the listed addresses may read it, judged by the connection,
//! not by a header; and `/readyz` turns 503 once the writer stops or the
//! lease is lost.
//!
//! The recorder is the process's, shared by every test of this binary that
//! runs at the same time: counts are compared as what grew (at least what
//! this test did), never as totals.

use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::time::Duration;

use axum::body::Body;
use axum::extract::ConnectInfo;
use reqwest::StatusCode;
use serde_json::json;
use tower::ServiceExt;

use super::common::{spawn_app, spawn_app_with, App};

/// One scrape, parsed: each family's `# TYPE`, and every sample.
struct Scrape {
    types: HashMap<String, String>,
    samples: Vec<(String, BTreeMap<String, String>, f64)>,
}

/// Parse the text format: `# TYPE name kind` lines, and `name{k="v",…} value`
/// lines (label values with `\"`, `\\` and `\n` escaped). Anything else
/// fails the test.
fn parse(text: &str) -> Scrape {
    let mut s = Scrape { types: HashMap::new(), samples: Vec::new() };
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if let Some(t) = line.strip_prefix("# TYPE ") {
            let (name, kind) = t.split_once(' ').unwrap_or_else(|| panic!("a TYPE line: {line}"));
            s.types.insert(name.to_string(), kind.to_string());
            continue;
        }
        if line.starts_with('#') {
            continue;
        }
        let (head, value) = line.rsplit_once(' ').unwrap_or_else(|| panic!("a sample line: {line}"));
        let value = match value {
            "+Inf" => f64::INFINITY,
            "-Inf" => f64::NEG_INFINITY,
            v => v.parse().unwrap_or_else(|_| panic!("a value: {line}")),
        };
        let (name, labels) = match head.split_once('{') {
            Some((n, rest)) => (n, labels(rest.strip_suffix('}').unwrap_or_else(|| panic!("labels end: {line}")))),
            None => (head, BTreeMap::new()),
        };
        assert!(name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':'), "a name: {line}");
        s.samples.push((name.to_string(), labels, value));
    }
    s
}

/// `k="v",k2="v2"` into pairs.
fn labels(mut rest: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    while !rest.is_empty() {
        let (k, after) = rest.split_once("=\"").unwrap_or_else(|| panic!("a label: {rest}"));
        let (mut v, mut chars, mut end) = (String::new(), after.char_indices(), None);
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some((_, 'n')) => v.push('\n'),
                    Some((_, e)) => v.push(e),
                    None => panic!("an escape at the end: {after}"),
                },
                '"' => {
                    end = Some(i);
                    break;
                }
                c => v.push(c),
            }
        }
        let end = end.unwrap_or_else(|| panic!("a label's end: {after}"));
        out.insert(k.trim_start_matches(',').to_string(), v);
        rest = after[end + 1..].trim_start_matches(',');
    }
    out
}

impl Scrape {
    /// The sum of `name`'s samples carrying every label in `with`.
    fn sum(&self, name: &str, with: &[(&str, &str)]) -> f64 {
        self.samples
            .iter()
            .filter(|(n, l, _)| n == name && with.iter().all(|(k, v)| l.get(*k).map(String::as_str) == Some(*v)))
            .map(|(_, _, v)| v)
            .sum()
    }

    fn kind(&self, family: &str) -> Option<&str> {
        self.types.get(family).map(String::as_str)
    }

    fn has(&self, name: &str) -> bool {
        self.samples.iter().any(|(n, _, _)| n == name)
    }
}

async fn scrape(app: &App) -> Scrape {
    let r = app.client.get(format!("{}/metrics", app.base)).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let kind = r.headers()["content-type"].to_str().unwrap().to_string();
    assert!(kind.starts_with("text/plain; version=0.0.4"), "{kind}");
    parse(&r.text().await.unwrap())
}

/// Every family a scrape must hold, with its type.
const FAMILIES: [(&str, &str); 14] = [
    ("baccarat_http_requests_total", "counter"),
    ("baccarat_http_request_duration_seconds", "histogram"),
    ("baccarat_wagers_accepted_total", "counter"),
    ("baccarat_wagers_refused_total", "counter"),
    ("baccarat_writer_queue_depth", "gauge"),
    ("baccarat_writer_batch_size", "histogram"),
    ("baccarat_writer_commit_seconds", "histogram"),
    ("baccarat_writer_publish_seconds", "histogram"),
    ("baccarat_tables", "gauge"),
    ("baccarat_websocket_clients", "gauge"),
    ("baccarat_signin_failures_total", "counter"),
    ("baccarat_limiter_refusals_total", "counter"),
    ("baccarat_checkpoint_age_seconds", "gauge"),
    ("baccarat_exposure_pricing_seconds", "histogram"),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scrape_after_play_holds_every_family_with_what_the_play_did() {
    let app = spawn_app().await;
    let p = app.login("player1", "demo").await;
    // A table's socket, open through the scrape.
    let url = format!("{}/api/tables/1/ws", app.base.replacen("http://", "ws://", 1));
    let (_socket, _) = tokio_tungstenite::connect_async(super::common::ws_request(&url, &p)).await.unwrap();
    app.until_phase(1, "betting").await;
    let before = scrape(&app).await;
    const BETS: usize = 3;
    for i in 0..BETS {
        let slip = json!({"bet": "banker", "amount": 1000, "key": format!("metrics-{i}")});
        let (s, r) = app.post("/api/tables/1/wagers", Some(&p), slip).await;
        assert_eq!((s, r["result"].as_str()), (StatusCode::OK, Some("wager")), "{r}");
    }
    // One refused: more than the wallet holds.
    let available = app.get("/api/me", Some(&p)).await.1["available"].as_i64().unwrap();
    let slip = json!({"bet": "player", "amount": available + 100, "key": "metrics-refused"});
    let (s, refused) = app.post("/api/tables/1/wagers", Some(&p), slip).await;
    assert!(s.is_client_error(), "{refused}");
    let reason = refused["code"].as_str().unwrap().to_string();
    // Sign-in: five wrong guesses for a name, then its limit.
    for _ in 0..6 {
        let body = json!({"name": "nobody-metrics", "password": "wrong"});
        app.client.post(format!("{}/api/login", app.base)).json(&body).send().await.unwrap();
    }
    // An attacker's paths: none becomes a label.
    for i in 0..3 {
        assert_eq!(app.get(&format!("/x-{i}-attacker-path"), None).await.0, StatusCode::NOT_FOUND);
    }
    let after = until_checkpointed(&app).await;
    for (family, kind) in FAMILIES {
        assert_eq!(after.kind(family), Some(kind), "{family}");
    }
    let grew = |name: &str, with: &[(&str, &str)]| after.sum(name, with) - before.sum(name, with);
    assert!(grew("baccarat_wagers_accepted_total", &[]) >= BETS as f64, "the wagers placed are counted");
    assert!(grew("baccarat_wagers_refused_total", &[("reason", &reason)]) >= 1.0, "refused as {reason}");
    let wagers = [("route", "/api/tables/{id}/wagers"), ("method", "POST"), ("status", "200")];
    assert!(grew("baccarat_http_requests_total", &wagers) >= BETS as f64, "counted by route and status");
    let timed = [("route", "/api/tables/{id}/wagers"), ("method", "POST")];
    assert!(grew("baccarat_http_request_duration_seconds_count", &timed) >= (BETS + 1) as f64);
    assert!(after.sum("baccarat_http_request_duration_seconds_bucket", &[("le", "+Inf")]) > 0.0);
    let unmatched = [("route", "unmatched"), ("status", "404")];
    assert!(grew("baccarat_http_requests_total", &unmatched) >= 3.0);
    assert!(
        after.samples.iter().all(|(_, l, _)| l.values().all(|v| !v.contains("attacker"))),
        "a path asked for is never a label"
    );
    assert!(grew("baccarat_writer_batch_size_count", &[]) >= 1.0);
    assert!(grew("baccarat_writer_commit_seconds_count", &[]) >= 1.0);
    assert!(grew("baccarat_writer_publish_seconds_count", &[]) >= 1.0);
    assert!(after.sum("baccarat_writer_queue_depth", &[]) >= 0.0);
    let tables: f64 = after.sum("baccarat_tables", &[]);
    assert!(tables >= baccarat_server::serve::DEMO_TABLES.len() as f64, "every table has a phase: {tables}");
    assert!(after.sum("baccarat_tables", &[("phase", "betting")]) >= 0.0 && after.has("baccarat_tables"));
    assert!(after.sum("baccarat_websocket_clients", &[]) >= 1.0, "the socket open");
    assert!(grew("baccarat_signin_failures_total", &[]) >= 5.0);
    assert!(grew("baccarat_limiter_refusals_total", &[("limit", "signin_name")]) >= 1.0);
    let age = after.sum("baccarat_checkpoint_age_seconds", &[]);
    assert!((0.0..3600.0).contains(&age), "the start's checkpoint, moments ago: {age}");
}

/// Scrapes until the start's checkpoint (written in the background) shows.
async fn until_checkpointed(app: &App) -> Scrape {
    let s = scrape_until(app, 500, Duration::from_millis(20), |s| s.has("baccarat_checkpoint_age_seconds")).await;
    assert!(s.has("baccarat_checkpoint_age_seconds"), "no checkpoint's age after the start's checkpoint");
    s
}

/// Scrapes until `shown` holds, at most `tries` times `pause` apart (a wait
/// for the server's background work, not a measure of its speed); the last
/// scrape, for the caller's assertions.
async fn scrape_until(app: &App, tries: u32, pause: Duration, shown: impl Fn(&Scrape) -> bool) -> Scrape {
    let mut s = scrape(app).await;
    for _ in 1..tries {
        if shown(&s) {
            break;
        }
        tokio::time::sleep(pause).await;
        s = scrape(app).await;
    }
    s
}

/// The front that answers `/metrics`, with `peer` as the connection.
async fn ask_front(peer: &str, forwarded: Option<&str>, proxies: &[&str], listed: &[&str]) -> axum::http::StatusCode {
    let ips = |l: &[&str]| l.iter().map(|a| a.parse().unwrap()).collect::<Vec<std::net::IpAddr>>();
    let front = baccarat_server::front::service(
        Default::default(),
        Default::default(),
        baccarat_server::Forwarder::new(std::env::temp_dir().join("no-such-metrics-key")),
        baccarat_core::system_clock(),
        None,
        baccarat_server::Proxies::new(&ips(proxies)),
        baccarat_server::Scrapers::new(&ips(listed)),
    );
    let mut req = axum::http::Request::get("/metrics");
    if let Some(f) = forwarded {
        req = req.header("x-forwarded-for", f);
    }
    let mut req = req.body(Body::empty()).unwrap();
    req.extensions_mut().insert(ConnectInfo(format!("{peer}:4000").parse::<SocketAddr>().unwrap()));
    front.oneshot(req).await.unwrap().status()
}

/// Only loopback and `--metrics-from`'s addresses read `/metrics`, by the
/// connection's own address: a forged `X-Forwarded-For` from anyone, or
/// even a trusted proxy's naming loopback, is refused.
#[tokio::test]
async fn only_loopback_and_the_listed_may_scrape_whatever_a_header_says() {
    use axum::http::StatusCode as S;
    assert_eq!(ask_front("127.0.0.1", None, &[], &[]).await, S::OK);
    assert_eq!(ask_front("10.0.0.5", None, &[], &["10.0.0.5"]).await, S::OK, "listed");
    assert_eq!(ask_front("203.0.113.7", None, &[], &["10.0.0.5"]).await, S::FORBIDDEN, "not listed");
    let forged = Some("127.0.0.1");
    assert_eq!(ask_front("203.0.113.7", forged, &[], &[]).await, S::FORBIDDEN, "a stranger's header");
    assert_eq!(ask_front("203.0.113.7", Some("10.0.0.5"), &[], &["10.0.0.5"]).await, S::FORBIDDEN);
    // Through a trusted proxy, the proxy is who connects: its clients'
    // addresses never open `/metrics`.
    assert_eq!(ask_front("10.0.0.2", forged, &["10.0.0.2"], &[]).await, S::FORBIDDEN, "a proxy's client");
    // Over the network, from this test's loopback: it answers.
    let app = spawn_app().await;
    let r = app.client.get(format!("{}/metrics", app.base)).header("x-forwarded-for", "203.0.113.7").send();
    assert_eq!(r.await.unwrap().status(), StatusCode::OK);
}

/// Polls `path` until it answers `want`; the last answer's body.
async fn until_status(app: &App, path: &str, want: StatusCode) -> serde_json::Value {
    let mut last = None;
    // Bounded: 60 s at most however slow each answer (a renewal notices a
    // lost lease within a third of its time; a stopped writer at once).
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while std::time::Instant::now() < deadline {
        // A probe answers at once, or not at all: never waited for.
        if let Ok((s, v)) = tokio::time::timeout(Duration::from_secs(2), app.get(path, None)).await {
            if s == want {
                return v;
            }
            last = Some((s, v));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("{path} never answered {want}; last {last:?}");
}

/// The writer stops (its commit fails: the database refuses every write
/// from now on) in a process that stands by on a fatal condition:
/// `/readyz` answers 503 naming why, and `/healthz` still 200.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readyz_turns_503_when_the_writer_stops() {
    let mut cfg = None;
    let app = spawn_app_with(|c| {
        c.stand_by_on_fatal = true;
        cfg = Some(c.clone());
    })
    .await;
    let (s, v) = app.get("/readyz", None).await;
    assert_eq!((s, v["status"].as_str()), (StatusCode::OK, Some("ready")), "{v}");
    assert_eq!(app.get("/healthz", None).await.0, StatusCode::OK);
    let p = app.login("player1", "demo").await;
    super::common::execute(
        cfg.as_ref().unwrap(),
        "CREATE TRIGGER refuse_all BEFORE INSERT ON audit_blocks BEGIN SELECT RAISE(ABORT, 'the disk is gone'); END",
    )
    .await;
    // A write: its commit fails.
    let slip = json!({"bet": "banker", "amount": 1000, "key": "metrics-writer-stops"});
    // (Its connection may be dropped as the turn ends: whatever it answers.)
    let _ = app.client.post(format!("{}/api/tables/1/wagers", app.base)).bearer_auth(&p).json(&slip).send().await;
    let v = until_status(&app, "/readyz", StatusCode::SERVICE_UNAVAILABLE).await;
    assert_eq!(v["code"], "unavailable", "{v}");
    assert!(!v["error"].as_str().unwrap_or_default().is_empty(), "the reason is named: {v}");
    assert_eq!(app.get("/healthz", None).await.0, StatusCode::OK, "the process still answers");
}

/// Another server takes the lease (PostgreSQL): `/readyz` answers 503 once
/// the renewal finds it gone. Then the server stands by, waiting for the
/// lease on a blocking task; the test's runtime is dropped while it waits,
/// as a standby's runtime is at a stop, and that drop must end: a runtime
/// waits for its blocking tasks, and the wait once looped for as long as
/// the intruder held the lease (here an hour), which hung the whole suite
/// whenever the test ended after the standby had begun to wait.
#[test]
fn readyz_turns_503_when_the_lease_is_lost_and_a_standby_stops_at_once() {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    rt.block_on(lease_lost());
    // Dropped on a thread of its own, so that a drop that never ends fails
    // the test rather than hang the suite.
    let (done, dropped) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        drop(rt);
        let _ = done.send(());
    });
    let ended = dropped.recv_timeout(Duration::from_secs(60));
    assert!(ended.is_ok(), "the runtime's drop did not end: a blocking task outlived the stop");
}

async fn lease_lost() {
    let url = tokio::task::spawn_blocking(|| super::pg::database("readyz_lease")).await.unwrap();
    let mut cfg = None;
    let app = spawn_app_with(|c| {
        c.postgres = Some(url);
        c.stand_by_on_fatal = true;
        c.lease = Duration::from_millis(1500);
        cfg = Some(c.clone());
    })
    .await;
    until_status(&app, "/readyz", StatusCode::OK).await;
    let s = scrape(&app).await;
    assert_eq!((s.kind("baccarat_lease_held"), s.kind("baccarat_lease_epoch")), (Some("gauge"), Some("gauge")));
    // The filter of answered keys is read from the store, then used while
    // the lease is certain (a sum over the process's turns: other tests'
    // servers share this recorder).
    let pause = Duration::from_millis(100);
    let s = scrape_until(&app, 300, pause, |s| {
        s.has("baccarat_key_filter_ready") && s.sum("baccarat_key_filter_ready", &[]) >= 1.0
    })
    .await;
    assert_eq!(
        (s.kind("baccarat_key_filter_ready"), s.kind("baccarat_key_filter_buckets")),
        (Some("gauge"), Some("gauge"))
    );
    assert!(s.sum("baccarat_key_filter_ready", &[]) >= 1.0, "the filter was never in use");
    // The test cluster names no synchronous standby: each commit is its
    // only copy (set after each renewal of the lease).
    let s = scrape_until(&app, 300, pause, |s| s.has("baccarat_pg_synchronous_standby")).await;
    assert_eq!(s.kind("baccarat_pg_synchronous_standby"), Some("gauge"));
    assert_eq!(s.sum("baccarat_pg_synchronous_standby", &[]), 0.0, "no standby on the test cluster");
    // The intruder's lease, for an hour, under a later epoch, at an address
    // where nothing answers (the discard port).
    let taken = super::common::execute(
        cfg.as_ref().unwrap(),
        "UPDATE leases SET owner = 'intruder@elsewhere', url = 'http://127.0.0.1:9', epoch = epoch + 1, \
         expires_at = now() + interval '1 hour'",
    )
    .await;
    assert!(taken >= 1, "the lease row was taken");
    let v = until_status(&app, "/readyz", StatusCode::SERVICE_UNAVAILABLE).await;
    assert!(!v["error"].as_str().unwrap_or_default().is_empty(), "the reason is named: {v}");
    assert_eq!(app.get("/healthz", None).await.0, StatusCode::OK, "the process still answers");
    // The standby waits for the lease now: it has read who holds it, and
    // passes requests on to that server (which does not answer).
    let v = until_status(&app, "/api/tables", StatusCode::BAD_GATEWAY).await;
    assert_eq!(v["code"], "elsewhere", "{v}");
}
