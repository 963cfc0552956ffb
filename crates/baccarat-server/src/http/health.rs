//! Liveness and readiness, for a load balancer, systemd or Kubernetes
//! (issue 48): `GET /healthz` answers 200 while the process answers at all;
//! `GET /readyz` answers 200 only while this server serves the casino (its
//! store open and recovered, its writer running, its lease held), and 503
//! naming the reason otherwise: while it starts, recovers or stands by for
//! another server, and from the moment its lease is lost, its writer stops
//! or a fatal condition is found (`fatal.rs`), so that a balancer sends
//! players only where their wagers are taken. `/health` and `/ready` are
//! the same answers under their first names.
//!
//! Both are public and read nothing from the store: a probe every second
//! costs nothing and tells an attacker nothing a connection would not. While
//! the server serves, its router answers them ([`health`], [`ready`]);
//! before and between its turns the front does ([`not_serving`]), since
//! every other request is then passed on to the server that serves
//! (`front.rs`).

use crate::bodies::{Alive, Ready};
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;

use super::{ApiError, AppState};

/// The liveness path.
pub const HEALTHZ: &str = "/healthz";
/// The readiness path.
pub const READYZ: &str = "/readyz";
/// The liveness path's first name.
pub const HEALTH: &str = "/health";
/// The readiness path's first name.
pub const READY: &str = "/ready";

/// What a serving turn's readiness depends on besides its writer: its
/// fatal condition (none fired) and its lease (still held; none on SQLite).
#[derive(Clone, Default)]
pub struct Readiness {
    pub fatal: Option<baccarat_core::Fatal>,
    pub lease: Option<crate::lease::Held>,
}

impl Readiness {
    /// Why the server that holds this is not ready, if it is not.
    pub fn why_not(&self, s: &super::Server) -> Option<String> {
        if let Some(why) = self.fatal.as_ref().and_then(baccarat_core::Fatal::why) {
            return Some(format!("this server is stopping: {why}"));
        }
        if self.lease.as_ref().is_some_and(|l| !l.now()) {
            return Some("this server no longer holds the casino's lease".into());
        }
        if !s.writer.running() {
            return Some("this server's writer has stopped".into());
        }
        if s.retired.ended() {
            return Some("this server's turn has ended".into());
        }
        None
    }
}

/// `GET /healthz` while serving.
pub(super) async fn health() -> Json<Alive> {
    Json(Alive::new(true))
}

/// `GET /readyz` while serving: 200, or 503 naming why not.
pub(super) async fn ready(State(s): State<AppState>) -> Result<Json<Ready>, ApiError> {
    match s.ready.why_not(&s) {
        None => Ok(Json(Ready::default())),
        Some(why) => Err(ApiError::unavailable(why)),
    }
}

/// The front's answer to a probe while this server does not serve: alive,
/// and not ready. Any other path: none (the front passes it on).
pub fn not_serving(method: &axum::http::Method, path: &str) -> Option<Response> {
    if method != axum::http::Method::GET && method != axum::http::Method::HEAD {
        return None;
    }
    match path {
        HEALTHZ | HEALTH => Some((StatusCode::OK, Json(Alive::new(false))).into_response()),
        READYZ | READY => Some(
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
        for (health, ready) in [(HEALTH, READY), (HEALTHZ, READYZ)] {
            assert_eq!(not_serving(&Method::GET, health).map(|r| r.status()), Some(StatusCode::OK));
            assert_eq!(not_serving(&Method::HEAD, ready).map(|r| r.status()), Some(StatusCode::SERVICE_UNAVAILABLE));
            assert!(not_serving(&Method::POST, ready).is_none(), "only a probe's methods");
        }
        assert!(not_serving(&Method::GET, "/api/tables").is_none());
        assert!(not_serving(&Method::GET, "/readyz/").is_none());
    }
}
