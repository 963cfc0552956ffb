//! HTTP and WebSocket: the API around the writer, and the web pages.
//!
//! # Who may call what
//!
//! | route | public | player | dealer | supervisor | inspector | admin |
//! |---|---|---|---|---|---|---|
//! | `GET /`, `GET /pit`, `GET /assets/{file}` (pages) | yes | yes | yes | yes | yes | yes |
//! | `POST /api/login` | yes | yes | yes | yes | yes | yes |
//! | `POST /api/logout`, `GET /api/me`, `GET /api/me/history`, `POST /api/me/password` | | yes | yes | yes | yes | yes |
//! | `GET /api/tables`, `GET /api/tables/{id}`, `GET /api/tables/{id}/ws` | yes | yes | yes | yes | yes | yes |
//! | `GET /api/partitions`, and any route under `/p/{partition}/` (as that partition's server allows it) | yes | yes | yes | yes | yes | yes |
//! | `GET /api/tables/{id}/shoes` (commitments, revealed seeds) | yes | yes | yes | yes | yes | yes |
//! | `POST /api/tables/{id}/wagers`, `…/withdraw`, `…/hand` | | yes | | | | |
//! | `POST /api/tables/{id}/commands` (dealing, irregularities) | | | yes | yes | | yes |
//! | `POST /api/tables/{id}/commands` (approve or refuse a wager, invalidate, limits) | | | | yes | | yes |
//! | `GET /api/tables/{id}/pit` (pit console) | | | yes | yes | | yes |
//! | `POST /api/tables/{id}/open` (open or close the table) | | | | yes | | yes |
//! | `POST /api/tables/{id}/void` (void a stopped table's coup) | | | | yes | | yes |
//! | `GET /api/tables/{id}/audit?last=N` (game recall), `GET /api/verify`, `GET /api/ledger/check` | | | | | yes | yes |
//! | `POST /api/tables`, `POST /api/players`, `POST /api/players/{id}/deposit` | | | | | | yes |
//! | `POST /api/players/{id}/cash-out`, `POST /api/tables/{id}/fill`, `…/credit` (the cage: `cage.rs`) | | | | | | yes |
//! | `GET /api/casino/gaming-day`, `GET /api/reports/day` (the books) | | | | | yes | yes |
//! | `GET /api/ratings` (player rating: `ratings.rs`) | | | | yes | yes | yes |
//! | `GET /api/protection`, `GET /api/exposure`, `GET /api/tables/{id}/exposure` (also the surveillance role) | | | | yes | yes | yes |
//! | `POST /api/casino/gaming-day` | | | | | | yes |
//! | `GET /api/openapi.json` | yes | yes | yes | yes | yes | yes |
//! | `GET /healthz`, `GET /readyz` (and `/health`, `/ready`: `health.rs`) | yes | yes | yes | yes | yes | yes |
//! | `GET /metrics` (answered by the front, to loopback and `--metrics-from` only: `metrics.rs`) | | | | | | |
//! | `GET /api/users` (people, paged) | | | | | yes | yes |
//! | `POST /api/users`, `POST /api/users/{id}/disable`, `…/enable`, `…/password`, `…/role` | | | | | | yes |
//! | `GET /admin` (the back office's page) | yes | yes | yes | yes | yes | yes |
//! | `GET /api/rulebooks`, `POST /api/tables/check` (changes nothing) | | | | | yes | yes |
//!
//! Every refusal follows one contract (`error.rs`): JSON `{"error", "code"}`,
//! with `"rule"` where a rulebook's rule refused, and a status by kind. Money
//! commands carry an idempotency `key` chosen by the client (`casino.rs` says
//! what it binds). Routes that change something are rate-limited per user (429
//! with `retry_after_ms`), bodies are bounded at [`MAX_BODY`], and sign-in has
//! limits of its own (`signin.rs`).
//!
//! # Sessions
//!
//! Signing in answers the token (for API clients, sent back as
//! `Authorization: Bearer`) and sets it as an `HttpOnly`, `SameSite=Strict`
//! cookie for the pages, which never see it. A session ends on sign-out, on a
//! password change (every session of that person), after the idle time and
//! after the maximum age (`auth::SessionPolicy`). The WebSocket authenticates by
//! the cookie, or by a first message `{"token": …}`, never by the URL.
//!
//! Pages and JSON are gzip- or brotli-compressed when the client asks
//! (`compress.rs`). Every response carries a Content-Security-Policy with no inline script and
//! `frame-ancestors 'self'` (only the server's own pages may frame one: the
//! several-tables page, `/multi`), `X-Content-Type-Options: nosniff` and
//! `Referrer-Policy: no-referrer`.

pub mod access;
mod cage;
pub mod compress;
pub mod delta;
pub mod early;
mod error;
mod exposure;
mod extract;
pub mod folds;
mod gaming_day;
pub mod health;
mod help;
mod metered;
pub mod origin;
pub(crate) mod pacing;
mod play;
mod promotions;
mod ratings;
mod reports;
mod rulebooks;
mod self_limits;
mod session;
mod staff;
pub mod table_push;
mod tables;
mod tournament_play;
mod tournaments;
mod users;
mod web;

pub use error::ApiError;
pub use extract::SESSION_COOKIE;
pub use play::message;

use baccarat_core::TableId;
use std::path::PathBuf;
use std::sync::{Arc, RwLock};

use axum::extract::{DefaultBodyLimit, State};
use axum::handler::Handler;
use axum::http::{header, HeaderValue, Method};
use axum::response::{IntoResponse, Response};
use axum::routing::MethodRouter;
use axum::{Json, Router};
use serde_json::Value;
use tokio::sync::oneshot;

use crate::auth::{Role, Session, Users};
use crate::casino::{Clock, Reply, Request};
use crate::rate_limit::Limiter;
use crate::signin::SignIn;
use baccarat_casino::Feed;
use baccarat_casino::Views;
use baccarat_casino::Writer;
use extract::Id;

/// Largest request body accepted.
pub const MAX_BODY: usize = 16 * 1024;

/// What every handler reads: one shared [`Server`], so a request's copy of
/// the state (axum's `State` clones it for each) is one reference count,
/// not a copy of every field (paths and names included).
#[derive(Clone)]
pub struct AppState(pub Arc<Server>);

impl std::ops::Deref for AppState {
    type Target = Server;
    fn deref(&self) -> &Server {
        &self.0
    }
}

/// The server's shared parts (see [`AppState`]).
pub struct Server {
    /// How the casino was founded: empty, or the demo (`GET /api/casino`).
    pub founding: crate::audit::Founding,
    pub writer: Writer,
    pub feed: Arc<RwLock<Feed>>,
    /// The exposure monitor (`baccarat_casino::Exposures`): the pit's and
    /// surveillance's `GET /api/exposure`.
    pub exposure: Arc<RwLock<baccarat_casino::Exposures>>,
    pub users: Arc<Users>,
    pub views: Arc<RwLock<Views>>,
    /// The sockets' wake-ups, per table, player and tournament
    /// (`publish/wakes.rs`).
    pub wakes: crate::publish::Wakes,
    /// The tables' messages shared among the sockets of viewers signed in as
    /// no one (`table_push.rs`).
    pub casts: table_push::Casts,
    /// The database file (recall and verify read it on their own connections).
    pub db: crate::store::Db,
    /// The anchor file (verify reads it).
    pub anchor_file: PathBuf,
    /// The server's public key (hex): checkpoints are checked under it.
    pub anchor_public: String,
    pub limiter: Arc<Limiter>,
    /// Sign-in: its limits and hashing pool.
    pub signin: Arc<SignIn>,
    pub web_dir: Option<PathBuf>,
    /// The pace of RNG tables.
    pub pace: Pace,
    /// The time (ms since the epoch), injected.
    pub clock: Clock,
    /// Tournaments as the pages show them.
    pub tournaments: Arc<RwLock<crate::casino::tournaments::TournamentViews>>,
    /// Wagers refused without the writer while their table takes none.
    pub early: Arc<early::Early>,
    /// The casino's partitions, where it has them (PostgreSQL):
    /// `GET /api/partitions`, and the bank's balance in `GET /api/me`.
    pub directory: Option<Arc<crate::partition_route::Directory>>,
    /// Set when this server's turn ends (`serve/turn.rs`): a fatal
    /// condition, a partition handed back, a stop. Its sockets and pacers
    /// end with it.
    pub retired: Retired,
    /// The pages that may open a table's WebSocket with the session cookie
    /// (`origin.rs`).
    pub origins: origin::Origins,
    /// The casino's ceiling on any table maximum (`serve --ceiling`), as
    /// the writer's casino has it: a table configuration is checked against
    /// it before it is sent (`rulebooks.rs`).
    pub ceiling: baccarat_rules::Money,
    /// What `GET /readyz` checks beyond the writer: the turn's fatal
    /// condition and its lease (`health.rs`).
    pub ready: health::Readiness,
    /// The folds over the whole history running now (`folds.rs`).
    pub folds: Arc<tokio::sync::Semaphore>,
}

/// Whether a server's turn has ended (see [`Server::retired`]), and how:
/// cleanly (every request the writer took is still answered), or by a
/// fatal condition (an answer may never come: its commit may hang on a
/// stalled network, or have failed).
#[derive(Clone, Default)]
pub struct Retired(Arc<tokio::sync::watch::Sender<u8>>);

const ENDED: u8 = 1;
const FAILED: u8 = 2;

impl Retired {
    /// The turn ends cleanly.
    pub fn now(&self) {
        self.0.send_if_modified(|r| {
            let first = *r < ENDED;
            *r = (*r).max(ENDED);
            first
        });
    }

    /// The turn ends on a fatal condition.
    pub fn failed(&self) {
        self.0.send_replace(FAILED);
    }

    /// Whether the turn has ended, either way.
    pub fn ended(&self) -> bool {
        *self.0.borrow() >= ENDED
    }

    /// Once the turn has ended, either way.
    pub async fn wait(&self) {
        self.until(ENDED).await
    }

    /// Once the turn has ended on a fatal condition.
    pub async fn until_failed(&self) {
        self.until(FAILED).await
    }

    async fn until(&self, state: u8) {
        let mut rx = self.0.subscribe();
        // The sender lives in `self`: the wait ends only when it is set.
        let _ = rx.wait_for(|r| *r >= state).await;
    }
}

impl Server {
    /// Run `work` (a socket's pushes, a table's pacer) until it ends or the
    /// server's turn does: a socket is then closed, and its client connects
    /// again to whichever server serves next.
    pub async fn until_ended(&self, work: impl std::future::Future<Output = ()>) {
        let retired = self.retired.clone();
        tokio::select! {
            _ = work => {}
            _ = retired.wait() => {}
        }
    }
}

pub use baccarat_casino::pacer::Pace;

/// Refuse a user over their rate (429).
fn limited(s: &AppState, sess: &Session) -> Result<(), ApiError> {
    s.limiter.take(sess.user).map_err(|wait| {
        metered::limited("user_rate");
        ApiError::too_many(format!("too many requests; retry in {wait} ms"), wait)
    })
}

fn require(sess: &Session, roles: &[Role]) -> Result<(), ApiError> {
    if roles.contains(&sess.role) {
        Ok(())
    } else {
        Err(ApiError::forbidden(format!("a {} may not do this", sess.role.name())))
    }
}

/// Send a request to the writer and wait until it is durable.
pub async fn call(s: &AppState, req: Request) -> Result<Reply, ApiError> {
    let (tx, rx) = oneshot::channel();
    s.writer
        .send(req, move |r| {
            let _ = tx.send(r);
        })
        .map_err(|e| ApiError::unavailable(e.to_string()))?;
    answer(s, rx).await
}

/// The writer's answer to a request it took. If this server's turn ends on
/// a fatal condition first, the answer may never come, and whether the
/// request was taken is not known here: the client is told so at once
/// (`outcome_unknown`), to send it again, with its key, once the partition
/// is served again, rather than wait on a stalled network.
pub async fn answer(s: &AppState, rx: oneshot::Receiver<Reply>) -> Result<Reply, ApiError> {
    // An answer dropped unsent is as unknown: the writer or committer
    // stopped on a fatal condition (a clean stop answers all it took).
    tokio::select! {
        biased;
        r = rx => r.map_err(|_| ApiError::outcome_unknown()),
        _ = s.retired.until_failed() => Err(ApiError::outcome_unknown()),
    }
}

/// A casino reply as the API answers it: a refusal by its kind's status,
/// anything else the reply itself, serialised straight from its type (no
/// JSON tree between).
fn reply_json(r: Reply) -> Result<Json<Reply>, ApiError> {
    match error::refusal(&r) {
        Some(e) => Err(e),
        None => Ok(Json(r)),
    }
}

/// 404 unless the table exists.
fn table_exists(s: &AppState, id: TableId) -> Result<(), ApiError> {
    if s.views.read().expect("views lock").tables.iter().any(|t| t.id == id) {
        Ok(())
    } else {
        Err(no_table(id))
    }
}

/// The refusal of a table that is not there.
fn no_table(id: TableId) -> ApiError {
    ApiError::new(axum::http::StatusCode::NOT_FOUND, "no_table", format!("no table {id}"))
}

/// The casino as anyone may see it: whether it is the demo (whose tables
/// and players are play things: `loadgen` refuses any other casino unless
/// told otherwise).
async fn casino(State(s): State<AppState>) -> Json<crate::bodies::CasinoFounding> {
    Json(crate::bodies::CasinoFounding { founding: s.founding, demo: s.founding == crate::audit::Founding::Demo })
}

/// The lobby (`bodies::Lobby`), written while the views are read.
async fn tables(State(s): State<AppState>) -> Response {
    let v = s.views.read().expect("views lock");
    Json(crate::bodies::Lobby { tables: &v.tables }).into_response()
}

/// The casino's partitions: which this server serves, and for each where it
/// is served, its tables and the path that reaches them through any server
/// (`partition_route.rs`). None on a casino without partitions.
async fn partitions(State(s): State<AppState>) -> Result<Json<crate::bodies::Partitions>, ApiError> {
    use crate::bodies::Partitions;
    let Some(dir) = &s.directory else { return Ok(Json(Partitions { partition: None, partitions: Vec::new() })) };
    let places = dir.places().await.map_err(|e| ApiError::unavailable(e.to_string()))?;
    Ok(Json(Partitions { partition: dir.own.clone(), partitions: places.values().cloned().collect() }))
}

/// One table's public view (`TableView`), written while the views are read.
async fn table(State(s): State<AppState>, Id(id): Id<TableId>) -> Result<Response, ApiError> {
    let v = s.views.read().expect("views lock");
    let t = v.tables.iter().find(|t| t.id == id);
    let t = t.ok_or_else(|| no_table(id))?;
    Ok(Json(t).into_response())
}

pub fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

async fn openapi() -> Json<Value> {
    Json(crate::openapi::document())
}

async fn no_route() -> ApiError {
    ApiError::not_found("no such route; see /api/openapi.json")
}

async fn no_method() -> ApiError {
    ApiError::new(
        axum::http::StatusCode::METHOD_NOT_ALLOWED,
        "method",
        "this route does not take that method; see /api/openapi.json",
    )
}

/// The router under construction, and every (method, path) it serves: the
/// OpenAPI document is checked against this list, both ways.
pub struct Routes {
    router: Router<AppState>,
    list: Vec<(Method, &'static str)>,
}

impl Routes {
    fn new() -> Routes {
        Routes { router: Router::new(), list: Vec::new() }
    }

    fn add(mut self, method: Method, path: &'static str, r: MethodRouter<AppState>) -> Routes {
        self.list.push((method, path));
        self.router = self.router.route(path, r);
        self
    }

    /// A route that reads: its answer may be compressed (`compress.rs`).
    fn get<H: Handler<T, AppState>, T: 'static>(self, path: &'static str, h: H) -> Routes {
        self.add(Method::GET, path, axum::routing::get(h).layer(compress::layer()))
    }

    fn post<H: Handler<T, AppState>, T: 'static>(self, path: &'static str, h: H) -> Routes {
        self.add(Method::POST, path, axum::routing::post(h))
    }

    /// Every (method, path) served.
    pub fn list(&self) -> &[(Method, &'static str)] {
        &self.list
    }
}

/// Every route.
// Longer than 70 lines: a table, one entry per route (data, not steps).
pub fn routes() -> Routes {
    Routes::new()
        .get("/", web::index)
        .get("/pit", web::pit)
        .get("/multi", web::multi)
        .get("/tournament", web::tournament)
        .get("/leaderboard", web::leaderboard)
        .get("/fair", web::fair)
        .get("/help", web::help)
        .get("/assets/{name}", web::asset)
        .post("/api/login", session::login)
        .post("/api/logout", session::logout)
        .get("/api/me", session::me)
        .post("/api/me/password", session::password)
        .get("/api/me/history", play::history)
        .get("/api/me/limits", self_limits::get)
        .post("/api/me/limits", self_limits::set)
        .post("/api/me/cool-off", self_limits::cool_off)
        .get("/api/tables", tables)
        .get("/api/partitions", partitions)
        .post("/api/tables", staff::create_table)
        .get("/api/tables/{id}", table)
        .get("/api/tables/{id}/ws", play::ws)
        .post("/api/tables/{id}/wagers", play::wager)
        .post("/api/tables/{id}/withdraw", play::withdraw)
        .post("/api/tables/{id}/hand", play::hand)
        .post("/api/tables/{id}/commands", staff::command)
        .get("/api/tables/{id}/pit", staff::pit)
        .post("/api/tables/{id}/open", staff::set_open)
        .post("/api/tables/{id}/void", staff::void_halted)
        .get("/api/tables/{id}/audit", staff::audit)
        .get("/api/tables/{id}/shoes", shoes)
        .get("/api/tables/{id}/help", help::help)
        .post("/api/players", staff::create_player)
        .post("/api/players/{id}/deposit", staff::deposit)
        .get("/api/tournaments", tournaments::list)
        .post("/api/tournaments", tournaments::create)
        .get("/api/tournaments/{id}", tournaments::one)
        .post("/api/tournaments/{id}/enter", tournaments::enter)
        .post("/api/tournaments/{id}/withdraw", tournaments::withdraw)
        .post("/api/tournaments/{id}/cancel", tournaments::cancel)
        .get("/api/promotions", promotions::list)
        .post("/api/promotions", promotions::create)
        .get("/api/promotions/{id}", promotions::one)
        .post("/api/promotions/{id}/draw", promotions::draw)
        .post("/api/promotions/{id}/claims", promotions::claim)
        .get("/api/promotions/{id}/refused-claims", promotions::refused)
        .post("/api/promotions/{id}/refused-claims", promotions::refuse)
        .get("/api/tournaments/{id}/play", tournament_play::view)
        .get("/api/tournaments/{id}/ws", tournament_play::ws)
        .post("/api/tournaments/{id}/start", tournament_play::start)
        .post("/api/tournaments/{id}/act", tournament_play::act)
        .post("/api/tournaments/{id}/reveal", tournament_play::reveal)
        .post("/api/tournaments/{id}/no-more-bets", tournament_play::no_more_bets)
        .post("/api/tournaments/{id}/deal", tournament_play::deal)
        .post("/api/tournaments/{id}/end-round", tournament_play::end_round)
        .post("/api/tournaments/{id}/disqualify", tournament_play::disqualify)
        .post("/api/tournaments/{id}/move", tournament_play::move_player)
        .post("/api/tournaments/{id}/limits", tournament_play::limits)
        .get("/api/ledger/check", staff::ledger_check)
        .get("/api/verify", staff::verify)
        .get("/api/openapi.json", openapi)
        .get("/api/casino", casino)
        .get(health::HEALTH, health::health)
        .get(health::READY, health::ready)
        .get(health::HEALTHZ, health::health)
        .get(health::READYZ, health::ready)
        .post("/api/players/{id}/cash-out", cage::cash_out)
        .post("/api/tables/{id}/fill", cage::fill)
        .post("/api/tables/{id}/credit", cage::credit)
        .post("/api/tables/{id}/close", tables::close)
        .get("/api/casino/gaming-day", gaming_day::get)
        .post("/api/casino/gaming-day", gaming_day::set)
        .get("/api/reports/day", reports::day)
        .get("/api/ratings", ratings::ratings)
        .get("/api/protection", ratings::protection)
        .get("/api/exposure", exposure::all)
        .get("/api/tables/{id}/exposure", exposure::table)
        .post("/api/users", users::create)
        .get("/api/users", users::list)
        .post("/api/users/{id}/disable", users::disable)
        .post("/api/users/{id}/enable", users::enable)
        .post("/api/users/{id}/password", users::password)
        .post("/api/users/{id}/role", users::role)
        .get("/admin", web::admin)
        .get("/surveillance", web::surveillance)
        .get("/api/rulebooks", rulebooks::list)
        .post("/api/tables/check", rulebooks::check)
}

/// The Content-Security-Policy of every response: scripts only from this
/// origin (no inline script), framed only by this origin's own pages (the
/// several-tables page, `/multi`). Inline `style` attributes are
/// allowed: the pages place road cells with them, and a style cannot run code.
pub const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'self'";

async fn security_headers(mut r: Response) -> Response {
    let h = r.headers_mut();
    h.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("SAMEORIGIN"));
    r
}

/// The router.
pub fn router(state: AppState) -> Router {
    // This turn's tables and queue, read at each scrape (`metrics.rs`).
    crate::metrics::install();
    metered::watch(&state);
    routes()
        .router
        .fallback(no_route)
        .method_not_allowed_fallback(no_method)
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .layer(axum::middleware::map_response(security_headers))
        // Outermost: the access log times and sees every answer, refusals
        // by the layers above included, and counts it for the metrics
        // (`access.rs`, `metered.rs`).
        .layer(axum::middleware::from_fn(access::log))
        .with_state(state)
}

/// Provably fair: each shoe's seed commitment, and its seed once the shoe ended.
async fn shoes(State(s): State<AppState>, Id(id): Id<TableId>) -> Result<Response, ApiError> {
    table_exists(&s, id)?;
    let f = s.feed.read().expect("feed lock");
    let shoes = f.shoes.get(&id).map_or(&[][..], |l| &l[..]);
    let algorithm = baccarat_table::SHUFFLE_ALGORITHM;
    Ok(Json(crate::bodies::Shoes { table: id, algorithm, shoes }).into_response())
}
