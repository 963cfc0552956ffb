//! What the router counts for `GET /metrics` (`metrics.rs`, issue 48):
//! each request by its matched route and status, and its latency; wagers
//! refused before the writer; WebSocket clients; sign-in failures and the
//! limits' refusals; and a serving turn's gauges read at the scrape.
//!
//! Every label is one of a fixed set: a route is the route table's pattern
//! (axum's `MatchedPath`), never the path asked for, so that a stranger
//! cannot make a series per URL; a request matching no route is
//! `unmatched`; a method outside the usual few is `other`. A request's
//! handles are looked up in a table made as they are first met, so that the
//! busiest routes allocate nothing to be counted.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock, RwLock};
use std::time::Duration;

use axum::extract::MatchedPath;
use axum::http::Method;
use metrics::{Counter, Gauge, Histogram};

use crate::metrics::{Gauged, Sample, HTTP_REQUESTS, HTTP_SECONDS, LIMITED, SIGNIN_FAILURES, WS_CLIENTS};
use crate::signin::SignInError;
use baccarat_casino::PhaseView;

/// The label of a request that matched no route.
const UNMATCHED: &str = "unmatched";

type Key = (&'static str, &'static str, u16);
type Handles = (Counter, Histogram);

/// Each (route, method, status) met so far: its handles.
static SEEN: OnceLock<RwLock<HashMap<Key, Handles, foldhash::fast::RandomState>>> = OnceLock::new();
/// Each route's pattern, as the route table holds it (`'static`).
static ROUTES: OnceLock<HashMap<&'static str, &'static str, foldhash::fast::RandomState>> = OnceLock::new();

/// Count a request answered with `status` after `elapsed`, by its matched
/// route and its method. Called by the access log's layer (`access.rs`), the
/// router's outermost, which times every request once for both.
pub(super) fn count(matched: Option<&MatchedPath>, method: &Method, status: u16, elapsed: Duration) {
    let route = matched.map_or(UNMATCHED, |m| route_label(m.as_str()));
    let key = (route, method_label(method), status);
    let seen = SEEN.get_or_init(Default::default);
    // Used under the read lock: no handle is cloned for a request.
    if let Some((count, time)) = seen.read().unwrap_or_else(|p| p.into_inner()).get(&key) {
        count.increment(1);
        time.record(elapsed.as_secs_f64());
        return;
    }
    let (count, time) = handles(key);
    count.increment(1);
    time.record(elapsed.as_secs_f64());
}

/// A matched route's label: its pattern in the route table.
fn route_label(matched: &str) -> &'static str {
    let routes = ROUTES.get_or_init(|| super::routes().list().iter().map(|(_, p)| (*p, *p)).collect());
    routes.get(matched).copied().unwrap_or("other")
}

fn method_label(m: &Method) -> &'static str {
    match *m {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::HEAD => "HEAD",
        Method::PUT => "PUT",
        Method::DELETE => "DELETE",
        Method::OPTIONS => "OPTIONS",
        Method::PATCH => "PATCH",
        _ => "other",
    }
}

/// The handles of `key`, made the first time it is met.
fn handles(key: Key) -> Handles {
    let seen = SEEN.get_or_init(Default::default);
    let (route, method, status) = key;
    let count = metrics::counter!(HTTP_REQUESTS, "route" => route, "method" => method, "status" => status.to_string());
    let time = metrics::histogram!(HTTP_SECONDS, "route" => route, "method" => method);
    let mut w = seen.write().unwrap_or_else(|p| p.into_inner());
    w.entry(key).or_insert((count, time)).clone()
}

/// Wagers refused before the writer (`early.rs`), by the same reasons as
/// the writer's.
pub(super) fn refused_early(reply: &crate::casino::Reply) {
    static WAGERS: OnceLock<baccarat_casino::Wagers> = OnceLock::new();
    if let crate::casino::Reply::Refused { code, .. } = reply {
        WAGERS.get_or_init(baccarat_casino::Wagers::new).refused(*code, 1);
    }
}

/// A refusal by a limit: `user_rate` (a person's requests, `rate_limit.rs`),
/// or sign-in's (`signin_address`, `signin_name`, `signin_global`,
/// `signin_busy`: `signin.rs`).
pub(super) fn limited(limit: &'static str) {
    const LIMITS: [&str; 5] = ["user_rate", "signin_address", "signin_name", "signin_global", "signin_busy"];
    static COUNTERS: OnceLock<Vec<Counter>> = OnceLock::new();
    let all = COUNTERS.get_or_init(|| LIMITS.iter().map(|l| metrics::counter!(LIMITED, "limit" => *l)).collect());
    if let Some(c) = LIMITS.iter().position(|l| *l == limit).and_then(|i| all.get(i)) {
        c.increment(1);
    }
}

/// A sign-in refused: a wrong name or password counted as a failure, a
/// limit's refusal as that limit's.
pub(super) fn sign_in_refused(e: &SignInError) {
    static FAILURES: OnceLock<Counter> = OnceLock::new();
    match e {
        SignInError::BadLogin => FAILURES.get_or_init(|| metrics::counter!(SIGNIN_FAILURES)).increment(1),
        SignInError::Limited(by, _) => limited(match *by {
            "from this address" => "signin_address",
            "for this name" => "signin_name",
            _ => "signin_global",
        }),
        SignInError::Busy => limited("signin_busy"),
        SignInError::Auth(_) => {}
    }
}

/// One WebSocket client, counted while it is connected.
pub(super) struct Socket(Gauge);

impl Socket {
    pub(super) fn open() -> Socket {
        let g = metrics::gauge!(WS_CLIENTS);
        g.increment(1.0);
        Socket(g)
    }
}

impl Drop for Socket {
    fn drop(&mut self) {
        self.0.decrement(1.0);
    }
}

impl Gauged for super::Server {
    fn gauge(&self, into: &mut Sample) -> bool {
        if self.retired.ended() {
            return false;
        }
        for t in &self.views.read().unwrap_or_else(|p| p.into_inner()).tables {
            if let Some(i) = PhaseView::ALL.iter().position(|p| *p == t.phase) {
                into.phases[i] += 1;
            }
        }
        into.queued += self.writer.queued() as u64;
        if let Some((buckets, ready)) = self.early.filter_state() {
            let (b, r) = into.key_filter.get_or_insert((0, 0));
            (*b, *r) = (*b + buckets as u64, *r + u64::from(ready));
        }
        true
    }
}

/// Read this turn's gauges at each scrape while it serves.
pub(super) fn watch(state: &super::AppState) {
    let weak: std::sync::Weak<dyn Gauged> = Arc::downgrade(&state.0) as std::sync::Weak<super::Server>;
    crate::metrics::watch(weak);
}
