//! The front of a server: every request meets this first, before the
//! server serves (while it stands by or recovers: `lease.rs`, `forward.rs`)
//! and after.
//!
//! In order: a path naming a partition (`/p/NAME/`) that is not this
//! server's is passed on to the server holding it (`partition_route.rs`),
//! and one naming this server's own partition loses its prefix once this
//! server serves; then a serving server's router answers (a forwarded
//! client's address trusted under its key), and a standby passes the request
//! through to the holder.

use std::sync::{Arc, RwLock};

use axum::body::Body;
use axum::http::Request;
use tower::ServiceExt;

use crate::casino::Clock;
use crate::forward::{Forwarder, RouteError};
use crate::lease::Holder;
use crate::partition_route::{self as route, Directory};
use crate::serve_config::ServeConfig;

/// The router while the server serves, with the public key a forwarded
/// client's address is trusted under; none while it stands by (a partition
/// that stopped on a fatal condition stands by again: `fatal.rs`).
pub type Active = Arc<RwLock<Option<(axum::Router, String)>>>;

/// The router in force, if the server serves.
pub fn serving(active: &Active) -> Option<(axum::Router, String)> {
    active.read().unwrap_or_else(|p| p.into_inner()).clone()
}

/// Where each partition of a PostgreSQL casino is served, read on
/// connections of its own (none for SQLite).
///
/// A database out of reach is waited out, trying every third of the lease's
/// time and saying so once, as the wait for the lease does: a server started
/// while the database fails over (no node answers, or none yet allows
/// writes) stands by until one does, rather than exiting (issue 51, a
/// server killed during a failover and another started). A stop signal ends
/// the wait.
pub async fn directory(cfg: &ServeConfig) -> Result<Option<Arc<Directory>>, RouteError> {
    let Some(url) = &cfg.postgres else { return Ok(None) };
    let mut said = false;
    loop {
        let (url, own, clock) = (url.clone(), cfg.partition.clone(), cfg.clock.clone());
        let keep_ms = (cfg.lease / 3).as_millis() as u64;
        match tokio::task::spawn_blocking(move || Directory::connect(&url, own, keep_ms, clock)).await? {
            Ok(dir) => return Ok(Some(Arc::new(dir))),
            Err(RouteError::Directory(e) | RouteError::BankReader(e)) if e.unreached() => {
                if !std::mem::replace(&mut said, true) {
                    tracing::warn!("the database is out of reach ({e}); trying again every {} ms", keep_ms);
                }
            }
            Err(e) => return Err(e),
        }
        tokio::select! {
            _ = crate::stop::stopped() => return Err(RouteError::GivenUp),
            _ = tokio::time::sleep(cfg.lease / 3) => {}
        }
    }
}

/// The service every connection is served by (see the module's notes).
pub fn service(
    active: Active,
    holder: Holder,
    signer: Forwarder,
    clock: Clock,
    directory: Option<Arc<Directory>>,
    proxies: crate::proxy::Proxies,
    scrapers: crate::metrics::Scrapers,
) -> axum::Router {
    axum::Router::new().fallback_service(tower::service_fn(move |req: Request<Body>| {
        let (serving, holder, signer, now) = (serving(&active), holder.clone(), signer.clone(), clock());
        let directory = directory.clone();
        // `/metrics` is this process's own, answered here whether it serves
        // or not, by the connection's own peer (`metrics.rs`).
        let scrape = scrapers.answer(&req);
        // A trusted proxy's client first: every limit and record after
        // counts the player, not the proxy (`proxy.rs`).
        let req = proxies.apply(req);
        async move {
            if let Some(r) = scrape {
                return Ok(r);
            }
            // A probe is answered here while this server does not serve:
            // alive, not ready (`http/health.rs`), never passed on.
            if serving.is_none() {
                if let Some(r) = crate::http::health::not_serving(req.method(), req.uri().path()) {
                    return Ok(r);
                }
            }
            let partition = route::split(req.uri().path()).map(|(name, _)| name.to_string());
            let req = match (partition, &directory) {
                (Some(name), None) => return Ok(route::no_partitions(&name)),
                (Some(name), Some(dir)) if dir.own.as_deref() != Some(name.as_str()) => {
                    return Ok(route::elsewhere(req, &name, dir, &signer, now).await);
                }
                // This server's own partition: handled without the prefix
                // once it serves; passed on unchanged to its holder while it
                // stands by (the holder takes the prefix off).
                (Some(_), Some(_)) if serving.is_some() => route::strip(req),
                _ => req,
            };
            Ok::<_, std::convert::Infallible>(match serving {
                Some((r, public)) => {
                    let req = crate::forward::trust_forwarded(req, &public, now);
                    r.oneshot(req).await.unwrap_or_else(|e| match e {})
                }
                None => crate::forward::forward(req, &holder, &signer, now).await,
            })
        }
    }))
}
