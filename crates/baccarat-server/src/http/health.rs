//! Liveness and readiness, for a load balancer, systemd or Kubernetes
//! (issue 48): `GET /health` answers 200 while the process answers at all;
//! `GET /ready` answers 200 only while this server serves the casino (its
//! database open, recovered, its writer running, its lease held), and 503
//! while it starts, recovers or stands by for another server, so that a
//! balancer sends players only where their wagers are taken.
//!
//! Both are public and read nothing: a probe every second costs nothing and
//! tells an attacker nothing a connection would not. While the server serves,
//! its router answers them ([`health`], [`ready`]); before and between its
//! turns the front does ([`not_serving`]), since every other request is then
//! passed on to the server that serves (`front.rs`).

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};

use super::ApiError;

/// The liveness path.
pub const HEALTH: &str = "/health";
/// The readiness path.
pub const READY: &str = "/ready";

/// `GET /health` while serving.
pub(super) async fn health() -> Json<Value> {
    Json(json!({ "status": "ok", "serving": true, "version": env!("CARGO_PKG_VERSION") }))
}

/// `GET /ready` while serving.
pub(super) async fn ready() -> Json<Value> {
    Json(json!({ "status": "ready" }))
}

/// The front's answer to a probe while this server does not serve: alive,
/// and not ready. Any other path: none (the front passes it on).
pub fn not_serving(method: &axum::http::Method, path: &str) -> Option<Response> {
    if method != axum::http::Method::GET && method != axum::http::Method::HEAD {
        return None;
    }
    match path {
        HEALTH => {
            let alive = json!({ "status": "ok", "serving": false, "version": env!("CARGO_PKG_VERSION") });
            Some((StatusCode::OK, Json(alive)).into_response())
        }
        READY => Some(
            ApiError::unavailable(
                "this server does not serve the casino now: it is starting, recovering or standing by",
            )
            .into_response(),
        ),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::Method;

    #[test]
    fn a_server_not_serving_is_alive_but_not_ready_and_passes_the_rest_on() {
        assert_eq!(not_serving(&Method::GET, HEALTH).map(|r| r.status()), Some(StatusCode::OK));
        assert_eq!(not_serving(&Method::HEAD, READY).map(|r| r.status()), Some(StatusCode::SERVICE_UNAVAILABLE));
        assert!(not_serving(&Method::POST, READY).is_none(), "only a probe's methods");
        assert!(not_serving(&Method::GET, "/api/tables").is_none());
        assert!(not_serving(&Method::GET, "/readyz").is_none());
    }
}
