//! Any server of a partitioned PostgreSQL casino answers for every partition
//! (issue 14: "clients may connect to any instance").
//!
//! # Design, and why
//!
//! A partition (`serve --partition NAME`, `bank/`) is a set of tables with
//! ids of its own: table 1 of `east` is not table 1 of `west`. So a request
//! for another partition names it in its path: `/p/NAME/` followed by any
//! route of the API, as `/p/east/api/tables/1/wagers`, or the table's feed
//! `/p/east/api/tables/1/ws`. Any server of the casino takes such a request:
//!
//! * **The partition's own server** (the one holding its lease) takes the
//!   prefix off and handles the rest as if it had come without it.
//! * **Any other server** (another partition's, the whole casino's, or a
//!   standby) passes it on unchanged to the server holding `NAME`'s lease,
//!   by the same pass-through a standby uses for its own holder
//!   (`forward.rs`): the client's address in a signed claim, WebSocket
//!   upgrades included, `x-baccarat-instance` naming who answered. The
//!   owner stays the only publisher of its tables' feeds; a viewer at any
//!   server gets them through that pass-through, with no second copy of the
//!   feed to keep in step (which `LISTEN/NOTIFY` would have needed, with its
//!   8 kB payloads and no replay for a late subscriber).
//!
//! A session is good at every server: people and sessions are the casino's
//! own, shared by its partitions (`pg_store.rs`).
//!
//! **Where a partition is served** is read from the partitions' lease rows
//! ([`crate::pg_store::bank::list`]) on a connection of this module's own, and kept for
//! a third of the lease's time: so a burst of requests, or a spray of
//! made-up names, costs one read of the database in that time, not one per
//! request. When the server it named cannot be reached (it died and a
//! standby has taken its lease), the list is read again, but no sooner than
//! [`REREAD_MS`] after the last read: a spray of requests for a partition
//! whose server is down costs a read each quarter second, not one each.
//!
//! **Loops.** A server passing a request on marks it ([`PASSED_ON`]), and a
//! server that does not serve the partition refuses a marked request: a
//! lease row naming the wrong server costs one hop, never a loop, whatever
//! each server's list says. The mark is not signed: partitions may have
//! keys of their own, and a signed mark another partition could not check
//! would let two servers with stale lists pass a request back and forth. A
//! client that sends the mark itself has only its own request refused, and
//! the list read again no sooner than [`REREAD_MS`] after the last read.
//!
//! The answers of its own (every one JSON `{"error", "code"}`, as `error.rs`):
//! a name that is not a partition's is 404 `no_partition`; a partition no
//! server has served yet, or whose server is out of reach, 503 (`Retry-After`)
//! or 502 `elsewhere`, naming it; a casino with no partitions (SQLite, or a
//! whole PostgreSQL casino without `--partition` servers) has none to route
//! to. `GET /api/partitions` lists them all, with their tables and paths.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::http::{header, Request, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::json;

use crate::casino::Clock;
use crate::forward::{authority_of, pass, Forwarder, RouteError};
use crate::pg_store::bank::PartitionInfo;
use baccarat_cluster::PgThread;

/// What a path naming a partition begins with.
pub const PREFIX: &str = "/p/";

/// A partition named at the head of `path`, and the rest of the path
/// (`/p/east/api/tables` → `("east", "/api/tables")`; `/p/east` → `("east",
/// "/")`). Any path beginning `/p/` is taken, a bad name included, so that it
/// is answered as a partition's path, never as some route of this server's.
pub fn split(path: &str) -> Option<(&str, &str)> {
    let after = path.strip_prefix(PREFIX)?;
    Some(match after.find('/') {
        Some(i) => (&after[..i], &after[i..]),
        None => (after, "/"),
    })
}

/// `req` with the prefix `/p/NAME` taken off its path (its query kept).
pub fn strip(mut req: Request<Body>) -> Request<Body> {
    let Some((_, rest)) = split(req.uri().path()) else { return req };
    let target = match req.uri().query() {
        Some(q) => format!("{rest}?{q}"),
        None => rest.to_string(),
    };
    if let Ok(uri) = target.parse::<Uri>() {
        *req.uri_mut() = uri;
    }
    req
}

/// One partition as `GET /api/partitions` shows it to anyone: where it is
/// served and its tables (not what it holds from the bank).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Place {
    pub name: String,
    /// The instance holding its lease, and where it serves (none until a
    /// server has served it).
    pub instance: Option<String>,
    pub url: Option<String>,
    /// Whether that lease is unexpired.
    pub live: bool,
    pub tables: Vec<u32>,
    /// The path prefix that reaches it through any server.
    pub path: String,
}

impl From<PartitionInfo> for Place {
    fn from(p: PartitionInfo) -> Place {
        let path = format!("{PREFIX}{}/", p.name);
        Place { name: p.name, instance: p.instance, url: p.url, live: p.live, tables: p.tables, path }
    }
}

/// Every partition, by name.
pub type Places = Arc<BTreeMap<String, Place>>;

/// The partitions of this server's casino, read on a connection of its own
/// and kept for `keep_ms` (see the module's notes).
pub struct Directory {
    pg: Arc<PgThread>,
    /// Players' reads of the bank (`/api/me`), on a connection of their own
    /// so that a player who asks often does not hold up the routing.
    reads: Arc<PgThread>,
    /// This server's own partition, if it serves one.
    pub own: Option<String>,
    keep_ms: u64,
    clock: Clock,
    /// When the list was read, until when it is kept, and the list by name.
    known: Mutex<Option<(u64, u64, Places)>>,
    /// How many times the list has been read.
    list_reads: std::sync::atomic::AtomicU64,
    /// Held while the list is read: requests that find it stale meanwhile
    /// wait for that one read rather than each making their own.
    reading: tokio::sync::Mutex<()>,
}

impl Directory {
    /// On the casino at `url` (a partition's URL will do: the lease rows are
    /// read by their schemas' names).
    pub fn connect(url: &str, own: Option<String>, keep_ms: u64, clock: Clock) -> Result<Directory, RouteError> {
        let pg = PgThread::connect(url).map_err(RouteError::Directory)?;
        let reads = PgThread::connect(url).map_err(RouteError::BankReader)?;
        Ok(Directory {
            pg: Arc::new(pg),
            reads: Arc::new(reads),
            own,
            keep_ms,
            clock,
            known: Mutex::new(None),
            list_reads: Default::default(),
            reading: tokio::sync::Mutex::new(()),
        })
    }

    /// Every partition, by name: the kept list if it is fresh, else read anew.
    pub async fn places(&self) -> Result<Places, RouteError> {
        if let Some(list) = self.fresh() {
            return Ok(list);
        }
        let _reading = self.reading.lock().await;
        if let Some(list) = self.fresh() {
            return Ok(list);
        }
        let now = (self.clock)();
        let pg = self.pg.clone();
        let read = tokio::task::spawn_blocking(move || pg.run(|c| crate::pg_store::bank::list(c, false)))
            .await?
            .ok_or(RouteError::DirectoryStopped)??;
        self.list_reads.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let list: Places = Arc::new(read.into_iter().map(|p| (p.name.clone(), Place::from(p))).collect());
        *self.known.lock().expect("directory lock") = Some((now, now.saturating_add(self.keep_ms), list.clone()));
        Ok(list)
    }

    fn fresh(&self) -> Option<Places> {
        let now = (self.clock)();
        let known = self.known.lock().expect("directory lock");
        known.as_ref().filter(|(_, until, _)| now < *until).map(|(_, _, list)| list.clone())
    }

    /// Forget the kept list: a request [`REREAD_MS`] or more after it was
    /// read reads it anew.
    pub fn forget(&self) {
        if let Some((at, until, _)) = self.known.lock().expect("directory lock").as_mut() {
            *until = (*until).min(at.saturating_add(REREAD_MS));
        }
    }

    /// How many times the list has been read from the database.
    pub fn reads(&self) -> u64 {
        self.list_reads.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Run `f` on the connection for players' reads of the bank, off the
    /// async runtime's threads.
    pub async fn read_bank<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut postgres::Client) -> T + Send + 'static,
    ) -> Result<T, RouteError> {
        let pg = self.reads.clone();
        tokio::task::spawn_blocking(move || pg.run(f)).await?.ok_or(RouteError::BankReaderStopped)
    }
}

fn refusal(status: StatusCode, code: &str, error: String) -> Response {
    let mut r = (status, axum::Json(json!({ "error": error, "code": code }))).into_response();
    if status == StatusCode::SERVICE_UNAVAILABLE {
        r.headers_mut().insert(header::RETRY_AFTER, header::HeaderValue::from_static("1"));
    }
    r
}

/// A casino with no partitions: a partition's path names nothing here.
pub fn no_partitions(name: &str) -> Response {
    refusal(
        StatusCode::NOT_FOUND,
        "no_partition",
        format!("partition {name:?}: this casino has no partitions (only servers started with --partition have them)"),
    )
}

/// The header a server sets on a request it passes on to another
/// partition's server. A server that would pass such a request on again
/// refuses it instead: a lease row naming the wrong server (out of date, or
/// written by hand) costs one hop, never a loop.
pub const PASSED_ON: &str = "x-baccarat-partition-hop";

/// The list is read again no sooner than this after its last read when a
/// server it named could not be reached.
pub const REREAD_MS: u64 = 250;

/// A request for partition `name`, which this server does not serve: passed
/// on, unchanged, to the server holding its lease.
pub async fn elsewhere(mut req: Request<Body>, name: &str, dir: &Directory, to: &Forwarder, now_ms: u64) -> Response {
    if let Err(why) = crate::pg_store::partition_name(name) {
        return refusal(StatusCode::NOT_FOUND, "no_partition", why.to_string());
    }
    if req.headers().contains_key(PASSED_ON) {
        dir.forget();
        return refusal(
            StatusCode::BAD_GATEWAY,
            "elsewhere",
            format!("partition {name}: passed on to this server, which does not serve it (its lease row is out of date); retry in a moment"),
        );
    }
    req.headers_mut().insert(PASSED_ON, header::HeaderValue::from_static("1"));
    let places = match dir.places().await {
        Ok(p) => p,
        Err(e) => return refusal(StatusCode::SERVICE_UNAVAILABLE, "unavailable", format!("partition {name}: {e}")),
    };
    let Some(place) = places.get(name) else {
        return refusal(StatusCode::NOT_FOUND, "no_partition", format!("partition {name}: no such partition"));
    };
    let (Some(instance), Some(url)) = (&place.instance, &place.url) else {
        return refusal(
            StatusCode::SERVICE_UNAVAILABLE,
            "starting",
            format!("partition {name}: no server has served it yet; retry in a moment"),
        );
    };
    let Some(authority) = authority_of(url) else {
        // An https:// server, which this one cannot reach: the client is
        // sent there instead.
        let why = format!("partition {name} is served by instance {instance} at {url}");
        return crate::forward::redirect(&req, url, why);
    };
    match pass(req, instance, &authority, to, now_ms).await {
        Ok(answer) => answer,
        Err(why) => {
            // Its server may have died and a standby taken its lease: the
            // next request reads the list anew.
            dir.forget();
            refusal(
                StatusCode::BAD_GATEWAY,
                "elsewhere",
                format!(
                    "partition {name}: instance {instance} at {url} could not be reached ({why}); retry in a moment"
                ),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The partition and the rest of the path, for every shape of path; the
    /// query survives the prefix's removal.
    #[test]
    fn a_partitions_path_splits_into_its_name_and_the_route() {
        assert_eq!(split("/p/east/api/tables/1/ws"), Some(("east", "/api/tables/1/ws")));
        assert_eq!(split("/p/east/"), Some(("east", "/")));
        assert_eq!(split("/p/east"), Some(("east", "/")));
        assert_eq!(split("/p//api/tables"), Some(("", "/api/tables")));
        assert_eq!(split("/p/Bad Name/x"), Some(("Bad Name", "/x")));
        for other in ["/", "/pit", "/api/tables", "/p", "/px/east/api", "/api/p/east"] {
            assert_eq!(split(other), None, "{other}");
        }
        let req = Request::builder().uri("/p/east/api/tables/2/audit?last=5").body(Body::empty()).unwrap();
        assert_eq!(strip(req).uri(), "/api/tables/2/audit?last=5");
        let req = Request::builder().uri("/p/east").body(Body::empty()).unwrap();
        assert_eq!(strip(req).uri(), "/");
        let req = Request::builder().uri("/api/tables").body(Body::empty()).unwrap();
        assert_eq!(strip(req).uri(), "/api/tables", "a path with no partition is left alone");
    }
}
