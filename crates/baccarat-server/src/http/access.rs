//! The access log, and a line for every staff action (issue 48;
//! `docs/logging.md`).
//!
//! Every request the serving router answers runs in a span `request` at
//! debug (method, matched route, a request id: what it logs carries them
//! when the filter takes debug for this target) and ends
//! in one line at info under the target `baccarat_server::access`: method,
//! route (the route's pattern, `/api/users/{id}`, or the path when none
//! matched), status, latency in µs, the client's address (after a trusted
//! proxy's is replaced by its client's: `proxy.rs`, run before the router),
//! the signed-in user's id and role where the request named a session, and
//! the refusal's code where it was refused.
//!
//! A request that may change something (any method but GET, HEAD and
//! OPTIONS) made by staff, or refused at a route that is not a player's,
//! also gets a line under `baccarat_server::staff` (info when done, warn
//! when refused; signing in and out are not actions): actor, role, action (method and route), target (the
//! path's id), outcome, and what the handler adds (`detail`). That is one
//! place for every staff route, present and future: none can be missed.
//!
//! Cheap under load: no body, header or query string is read; the actor and
//! a refusal's code are noted by the session's extractor and the error's
//! response (`extract.rs`, `error.rs`) into a task-local slot, not found
//! again; nothing is allocated for a request matching a route but its span
//! and the line itself. The same layer counts and times the request for
//! `GET /metrics` (`metered.rs`). The line is written on the log's own
//! thread (`baccarat`'s `cmd/logging.rs`).
//! `RUST_LOG=info,baccarat_server::access=warn` turns the access line off,
//! leaving the staff's lines.
//!
//! Never logged: bodies (passwords), headers (the session token, cookies),
//! query strings.

use baccarat_core::UserId;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::Instant;

use axum::extract::{ConnectInfo, MatchedPath, Request};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::Response;
use tracing::Instrument;

use crate::auth::{Role, Session};

tokio::task_local! {
    /// What the request's handler noted, for its access line.
    static NOTE: Note;
}

/// What a request's handling notes for its lines.
#[derive(Default, Clone)]
struct Note {
    /// The signed-in actor: user id and role.
    who: OnceLock<(UserId, Role)>,
    /// A refusal's code (`error.rs`).
    refused: OnceLock<&'static str>,
    /// What the handler adds to a staff action's line.
    detail: OnceLock<String>,
}

/// The next request's id (per process, from 1).
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// The request is made by `sess`'s person.
pub fn signed_in(sess: &Session) {
    let _ = NOTE.try_with(|n| n.who.set((sess.user, sess.role)));
}

/// The request is refused with `code`.
pub fn refused(code: &'static str) {
    let _ = NOTE.try_with(|n| n.refused.set(code));
}

/// What a staff action's line says besides its route and target (a new
/// user's role, a command's kind, an amount): never a secret.
pub fn detail(what: impl FnOnce() -> String) {
    let _ = NOTE.try_with(|n| n.detail.set(what()));
}

/// The routes that change something on a player's own behalf, or anyone's
/// (sign-in): refused there, a request is not a staff action.
const NOT_STAFF: &[&str] = &[
    "/api/login",
    "/api/logout",
    "/api/me/password",
    "/api/me/limits",
    "/api/me/cool-off",
    "/api/tables/{id}/wagers",
    "/api/tables/{id}/withdraw",
    "/api/tables/{id}/hand",
    "/api/tournaments/{id}/enter",
    "/api/tournaments/{id}/withdraw",
    "/api/tournaments/{id}/act",
    "/api/tournaments/{id}/reveal",
];

/// The middleware (see the module's notes), the router's outermost layer.
/// It also counts and times the request for `GET /metrics` (`metered.rs`):
/// one layer, one clock, one look at the matched route for both.
pub async fn log(req: Request, next: Next) -> Response {
    let started = Instant::now();
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    let method = req.method().clone();
    let matched = req.extensions().get::<MatchedPath>().cloned();
    let client = req.extensions().get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip());
    let path = match &matched {
        Some(_) => None,
        None => Some(req.uri().path().to_string()),
    };
    let route = matched.as_ref().map_or_else(|| path.as_deref().unwrap_or(""), |m| m.as_str());
    // Read now, while the request is at hand: only a request that may be a
    // staff action has a target.
    let target = if is_read(&method) { None } else { target_of(route, req.uri().path()) };
    // At debug, as tower-http's `TraceLayer` makes its request span: at the
    // default level the span is never made (its fields formatted, its
    // slot taken, entered at each poll), about a fiftieth of a wager's
    // CPU (docs/performance.md); the access line carries the id anyway.
    let span = tracing::debug_span!("request", method = %method, route, id);
    let run = async move {
        let response = next.run(req).await;
        // What was noted, out of the slot (only a staff action's detail
        // allocates to be copied).
        (response, NOTE.with(Note::clone))
    };
    let (response, note) = NOTE.scope(Note::default(), run).instrument(span).await;
    let (status, latency) = (response.status().as_u16(), started.elapsed());
    super::metered::count(matched.as_ref(), &method, status, latency);
    let line = Line {
        id,
        method: &method,
        route,
        target,
        status,
        latency_us: latency.as_micros() as u64,
        client,
        note: &note,
    };
    line.access();
    if line.is_staff_action(matched.is_some()) {
        line.staff();
    }
    response
}

/// Whether `method` only reads.
fn is_read(method: &Method) -> bool {
    matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

/// The path's `{id}`: the segment of `path` where `route` has it (a path
/// under `/p/NAME/` has lost that prefix before the router: `front.rs`).
fn target_of(route: &str, path: &str) -> Option<u32> {
    let at = route.split('/').position(|s| s == "{id}")?;
    path.split('/').nth(at)?.parse().ok()
}

/// One request's lines.
struct Line<'a> {
    id: u64,
    method: &'a Method,
    route: &'a str,
    target: Option<u32>,
    status: u16,
    latency_us: u64,
    client: Option<std::net::IpAddr>,
    note: &'a Note,
}

impl Line<'_> {
    fn who(&self) -> (Option<u32>, Option<&'static str>) {
        let who = self.note.who.get();
        (who.map(|w| w.0 .0), who.map(|w| w.1.name()))
    }

    /// The access line.
    fn access(&self) {
        let (user, role) = self.who();
        tracing::info!(
            target: "baccarat_server::access",
            request = self.id,
            method = %self.method,
            route = self.route,
            status = self.status,
            latency_us = self.latency_us,
            client = self.client.map(tracing::field::display),
            user,
            role,
            refused = self.note.refused.get().copied(),
            "request answered"
        );
    }

    /// Whether the request was a staff action (see the module's notes): it
    /// may change something, and was made by staff or refused at a route
    /// that is not a player's.
    fn is_staff_action(&self, routed: bool) -> bool {
        // Signing in and out is no action on anything (the access line has it).
        if is_read(self.method) || !routed || self.route == "/api/login" || self.route == "/api/logout" {
            return false;
        }
        let staff = self.note.who.get().is_some_and(|w| w.1 != Role::Player);
        staff || (self.status >= 400 && !NOT_STAFF.contains(&self.route))
    }

    /// The staff action's line: info when done, warn when refused.
    fn staff(&self) {
        let (actor, role) = self.who();
        let detail = self.note.detail.get().map(String::as_str);
        let action = self.route;
        let ok = self.status < 400;
        let outcome = if ok { "done" } else { self.note.refused.get().copied().unwrap_or("refused") };
        macro_rules! staff_line {
            ($level:ident, $msg:literal) => {
                tracing::$level!(
                    target: "baccarat_server::staff",
                    request = self.id,
                    actor,
                    role,
                    method = %self.method,
                    action,
                    target = self.target,
                    status = self.status,
                    outcome,
                    detail,
                    client = self.client.map(tracing::field::display),
                    $msg
                )
            };
        }
        if ok {
            staff_line!(info, "staff action done");
        } else {
            staff_line!(warn, "staff action refused");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_target_is_the_paths_id_where_the_route_has_it() {
        assert_eq!(target_of("/api/users/{id}/role", "/api/users/7/role"), Some(7));
        assert_eq!(target_of("/api/users", "/api/users"), None);
        assert_eq!(target_of("/api/tables/{id}/fill", "/api/tables/x/fill"), None);
    }
}
