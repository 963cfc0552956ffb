//! `GET /metrics` (issue 48): the process's metrics in the Prometheus text
//! format, for a scraper the operator names.
//!
//! # Design, and why
//!
//! * **One recorder per process.** Every crate records through the
//!   `metrics` facade (the writer its batches and wagers, `baccarat-casino`'s
//!   `metered.rs`; the lease its state, `baccarat-cluster`'s `lease.rs`; the
//!   router its requests, `http/metered.rs`). This module installs the one
//!   global Prometheus recorder ([`install`], once, before the first turn
//!   starts its writer) with no HTTP listener of its own: `/metrics` is
//!   answered on the server's own port by the front (`front.rs`), whether
//!   this server serves or stands by, and never passed on to another server.
//!   A thread runs the recorder's upkeep, so that histograms do not grow
//!   while no one scrapes.
//! * **What is read at the scrape** rather than on the hot path: the tables
//!   by phase, the writer's queue, the checkpoint's age ([`Gauged`]: each
//!   serving turn registers itself, weakly, and the gauges are the sum over
//!   the turns alive).
//! * **Who may scrape** ([`Scrapers`]): the count of wagers, sign-in failures
//!   and the like is the casino's business, so `/metrics` answers only a
//!   connection from loopback or from an address listed in
//!   `--metrics-from`, judged by the socket's own peer, before any
//!   forwarding header is believed (`proxy.rs`); anyone else gets 403.

use std::net::{IpAddr, SocketAddr};
use std::sync::{Mutex, OnceLock, Weak};
use std::time::Duration;

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{header, HeaderValue, Method, Request, StatusCode};
use axum::response::{IntoResponse, Response};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

use baccarat_casino::PhaseView;

/// The path.
pub const METRICS: &str = "/metrics";

/// Requests answered, by `route` (the matched route, never the raw path),
/// `method` and `status`.
pub const HTTP_REQUESTS: &str = "baccarat_http_requests_total";
/// Seconds each request took, by `route` and `method`.
pub const HTTP_SECONDS: &str = "baccarat_http_request_duration_seconds";
/// Tables in each `phase`.
pub const TABLES: &str = "baccarat_tables";
/// Requests waiting for the writer.
pub const QUEUE: &str = "baccarat_writer_queue_depth";
/// Seconds since the latest checkpoint this process wrote was taken.
pub const CHECKPOINT_AGE: &str = "baccarat_checkpoint_age_seconds";
/// WebSocket clients connected.
pub const WS_CLIENTS: &str = "baccarat_websocket_clients";
/// Sign-ins refused as a wrong name or password.
pub const SIGNIN_FAILURES: &str = "baccarat_signin_failures_total";
/// Requests refused by a limit, by `limit`.
pub const LIMITED: &str = "baccarat_limiter_refusals_total";
/// Seconds each table's pricing by the exposure monitor took on the
/// committer (`publish.rs`): its sum over a run is the monitor's cost.
pub const EXPOSURE_SECONDS: &str = "baccarat_exposure_pricing_seconds";
/// Exposure alerts raised (`baccarat_casino::Exposures`).
pub const EXPOSURE_ALERTS: &str = "baccarat_exposure_alerts_total";
/// PostgreSQL: wagers refused without the writer whose keys the filter of
/// answered keys proved new, so that no store was asked (`http/early.rs`).
pub const KEY_FILTER_PROVED: &str = "baccarat_key_filter_proved_total";
/// PostgreSQL: the filter's buckets (about 1.3 MB each).
pub const KEY_FILTER_BUCKETS: &str = "baccarat_key_filter_buckets";
/// PostgreSQL: 1 while the filter is used (complete, the lease certain), 0
/// while the store is asked instead (loading, the lease in doubt, stopped).
pub const KEY_FILTER_READY: &str = "baccarat_key_filter_ready";

/// Seconds: from half a millisecond to ten seconds.
const SECONDS: [f64; 14] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0];
/// A batch's requests, and a group lookup's lookups: powers of two up to the
/// writer's `MAX_BATCH`.
const BATCH: [f64; 13] = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0, 1024.0, 2048.0, 4096.0];

static HANDLE: OnceLock<Option<PrometheusHandle>> = OnceLock::new();

/// Install the process's recorder, once; its handle. `None` if another
/// recorder was installed first (an embedding program's): then `/metrics`
/// answers 503.
pub fn install() -> Option<&'static PrometheusHandle> {
    HANDLE
        .get_or_init(|| {
            let b = PrometheusBuilder::new()
                .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), &SECONDS)
                .and_then(|b| b.set_buckets_for_metric(Matcher::Full(baccarat_casino::BATCH_SIZE.into()), &BATCH))
                .and_then(|b| {
                    b.set_buckets_for_metric(Matcher::Full(baccarat_cluster::key_reader::GROUP_SIZE.into()), &BATCH)
                })
                .ok()?;
            let handle = b.install_recorder().ok()?;
            let upkeep = handle.clone();
            std::thread::Builder::new()
                .name("metrics".into())
                .spawn(move || loop {
                    std::thread::sleep(Duration::from_secs(5));
                    upkeep.run_upkeep();
                })
                .ok()?;
            Some(handle)
        })
        .as_ref()
}

/// What a serving turn adds to the gauges read at the scrape.
#[derive(Default)]
pub struct Sample {
    /// Tables per phase, in [`PhaseView::ALL`]'s order.
    pub phases: [u64; PhaseView::ALL.len()],
    /// Requests waiting for the writer.
    pub queued: u64,
    /// The filters of answered keys, where turns have one (PostgreSQL; a
    /// process serves one turn at a time): their buckets, and how many are
    /// in use (`http/early.rs`).
    pub key_filter: Option<(u64, u64)>,
}

/// A serving turn's state, read at each scrape (`http/metered.rs`).
pub trait Gauged: Send + Sync {
    /// Add this turn's share; false once the turn has ended.
    fn gauge(&self, into: &mut Sample) -> bool;
}

static LIVE: Mutex<Vec<Weak<dyn Gauged>>> = Mutex::new(Vec::new());

/// Read `turn` at each scrape while it lives.
pub fn watch(turn: Weak<dyn Gauged>) {
    LIVE.lock().unwrap_or_else(|p| p.into_inner()).push(turn);
}

/// The gauges read at the scrape, set.
fn sample() {
    let mut s = Sample::default();
    LIVE.lock().unwrap_or_else(|p| p.into_inner()).retain(|w| w.upgrade().is_some_and(|t| t.gauge(&mut s)));
    for (p, n) in PhaseView::ALL.iter().zip(s.phases) {
        metrics::gauge!(TABLES, "phase" => phase_name(*p)).set(n as f64);
    }
    metrics::gauge!(QUEUE).set(s.queued as f64);
    static FILTERED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if let Some((buckets, ready)) = key_filter_gauges(s.key_filter, &FILTERED) {
        metrics::gauge!(KEY_FILTER_BUCKETS).set(buckets as f64);
        metrics::gauge!(KEY_FILTER_READY).set(ready as f64);
    }
    if let Some(at) = crate::casino::checkpoint::last_written_ms() {
        let age_ms = now_ms().saturating_sub(at);
        metrics::gauge!(CHECKPOINT_AGE).set(age_ms as f64 / 1000.0);
    }
}

/// What the key filter's gauges are set to at a scrape, given the turns'
/// filters (`sampled`): nothing until a turn has had one (SQLite never
/// does), then their figures, or zeros once none has (the turn ended: the
/// lease lost, a stop). `seen` stays set once set, so that two scrapes at
/// once cannot leave a stale 1: the later scrape that finds no filter
/// always writes 0.
fn key_filter_gauges(sampled: Option<(u64, u64)>, seen: &std::sync::atomic::AtomicBool) -> Option<(u64, u64)> {
    let had = seen.fetch_or(sampled.is_some(), std::sync::atomic::Ordering::AcqRel);
    (had || sampled.is_some()).then_some(sampled.unwrap_or((0, 0)))
}

/// A phase's label, as the table's view names it.
fn phase_name(p: PhaseView) -> &'static str {
    match p {
        PhaseView::NoShoe => "no_shoe",
        PhaseView::Ready => "ready",
        PhaseView::Betting => "betting",
        PhaseView::NoMoreBets => "no_more_bets",
        PhaseView::Dealing => "dealing",
        PhaseView::Reconstruction => "reconstruction",
        PhaseView::ShoeOver => "shoe_over",
    }
}

/// A refusal in the API's contract (`{"error", "code"}`, `http/error.rs`).
fn refused(status: StatusCode, code: &str, why: &str) -> Response {
    (status, axum::Json(serde_json::json!({ "error": why, "code": code }))).into_response()
}

/// Now, in ms since the epoch.
fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// Who may read `/metrics`: loopback, and the addresses listed
/// (`--metrics-from`).
#[derive(Clone, Debug, Default)]
pub struct Scrapers(Vec<IpAddr>);

impl Scrapers {
    pub fn new(listed: &[IpAddr]) -> Scrapers {
        Scrapers(listed.iter().map(IpAddr::to_canonical).collect())
    }

    /// Whether a connection from `peer` may scrape.
    pub fn allow(&self, peer: IpAddr) -> bool {
        let peer = peer.to_canonical();
        peer.is_loopback() || self.0.contains(&peer)
    }

    /// The answer to `req` if it asks for `/metrics` (none otherwise: the
    /// front goes on with it). Called with the connection's own peer in
    /// `req`, before any proxy's header is believed.
    pub fn answer(&self, req: &Request<Body>) -> Option<Response> {
        if req.uri().path() != METRICS {
            return None;
        }
        if req.method() != Method::GET && req.method() != Method::HEAD {
            return Some(refused(StatusCode::METHOD_NOT_ALLOWED, "method", "/metrics: GET only"));
        }
        let peer = req.extensions().get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip());
        if !peer.is_some_and(|p| self.allow(p)) {
            let why = "/metrics answers loopback and the addresses listed in --metrics-from only";
            return Some(refused(StatusCode::FORBIDDEN, "role", why));
        }
        let Some(handle) = install() else {
            let why = "another metrics recorder holds this process";
            return Some(refused(StatusCode::SERVICE_UNAVAILABLE, "unavailable", why));
        };
        sample();
        let mut r = handle.render().into_response();
        let h = r.headers_mut();
        h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"));
        h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
        h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        Some(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_and_the_listed_may_scrape_and_no_one_else() {
        let s = Scrapers::new(&["10.0.0.9".parse().unwrap()]);
        for ok in ["127.0.0.1", "::1", "::ffff:127.0.0.1", "10.0.0.9", "::ffff:10.0.0.9"] {
            assert!(s.allow(ok.parse().unwrap()), "{ok}");
        }
        for no in ["10.0.0.8", "0.0.0.0", "203.0.113.7", "fe80::1"] {
            assert!(!s.allow(no.parse().unwrap()), "{no}");
        }
        assert!(!Scrapers::default().allow("10.0.0.9".parse().unwrap()));
    }

    /// Absent until a filter is seen; then its figures; then zeros for
    /// good once none is, whatever a scrape that read the turn before it
    /// ended wrote meanwhile (the next one writes 0 again).
    #[test]
    fn the_key_filter_gauges_are_absent_then_shown_then_zero_never_stale() {
        let seen = std::sync::atomic::AtomicBool::new(false);
        assert_eq!(key_filter_gauges(None, &seen), None, "SQLite: no gauges");
        assert_eq!(key_filter_gauges(None, &seen), None);
        assert_eq!(key_filter_gauges(Some((3, 1)), &seen), Some((3, 1)));
        assert_eq!(key_filter_gauges(None, &seen), Some((0, 0)), "the turn ended: zeros, not its last figures");
        assert_eq!(key_filter_gauges(None, &seen), Some((0, 0)), "and again at every scrape after");
    }
}
