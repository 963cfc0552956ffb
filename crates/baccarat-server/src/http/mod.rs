//! HTTP and WebSocket: the API around the writer, and the web pages.
//!
//! # Who may call what
//!
//! | route | public | player | dealer | supervisor | inspector | admin |
//! |---|---|---|---|---|---|---|
//! | `GET /`, `GET /pit`, `GET /assets/{file}` (pages) | yes | yes | yes | yes | yes | yes |
//! | `POST /api/login` | yes | yes | yes | yes | yes | yes |
//! | `POST /api/logout`, `GET /api/me`, `GET /api/me/history` | | yes | yes | yes | yes | yes |
//! | `GET /api/tables`, `GET /api/tables/{id}`, `GET /api/tables/{id}/ws` | yes | yes | yes | yes | yes | yes |
//! | `GET /api/tables/{id}/shoes` (commitments, revealed seeds) | yes | yes | yes | yes | yes | yes |
//! | `POST /api/tables/{id}/wagers`, `…/withdraw`, `…/hand` | | yes | | | | |
//! | `POST /api/tables/{id}/commands` (dealing, irregularities) | | | yes | yes | | yes |
//! | `POST /api/tables/{id}/commands` (approve or refuse a wager, invalidate, limits) | | | | yes | | yes |
//! | `GET /api/tables/{id}/pit` (pit console) | | | yes | yes | | yes |
//! | `POST /api/tables/{id}/open` (open or close the table) | | | | yes | | yes |
//! | `POST /api/tables/{id}/void` (void a stopped table's coup) | | | | yes | | yes |
//! | `GET /api/tables/{id}/audit?last=N` (game recall), `GET /api/verify`, `GET /api/ledger/check` | | | | | yes | yes |
//! | `POST /api/tables`, `POST /api/players`, `POST /api/players/{id}/deposit` | | | | | | yes |
//! | `GET /api/openapi.json` | yes | yes | yes | yes | yes | yes |
//!
//! Every refusal is a 4xx with `{"error": …}` (and `"rule"` where a rule refused
//! it). Money commands carry an idempotency `key` chosen by the client. Routes
//! that change something are rate-limited per user (429 with `retry_after_ms`),
//! and bodies are bounded at [`MAX_BODY`]; sign-in is limited per name to
//! [`LOGINS_PER_SECOND`] attempts a second.

mod play;
mod staff;
mod web;

pub use play::message;

use std::path::PathBuf;
use std::sync::{Arc, RwLock};

use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::sync::{broadcast, oneshot};

use crate::auth::{Role, Session, Users};
use crate::casino::{Reply, Request};
use crate::feed::Feed;
use crate::limits::Limiter;
use crate::views::Views;
use crate::writer::Writer;

/// Sign-in attempts a second for one name (a burst of as many).
pub const LOGINS_PER_SECOND: u32 = 5;

/// Largest request body accepted.
pub const MAX_BODY: usize = 16 * 1024;

#[derive(Clone)]
pub struct AppState {
    pub writer: Writer,
    pub feed: Arc<RwLock<Feed>>,
    pub users: Arc<Users>,
    pub views: Arc<RwLock<Views>>,
    pub changed: broadcast::Sender<u64>,
    /// The database file (recall and verify read it on their own connections).
    pub db: PathBuf,
    /// The anchor file (verify reads it).
    pub anchor_file: PathBuf,
    pub limiter: Arc<Limiter>,
    /// Sign-in attempts per name (password guessing), apart from the users' rate.
    pub logins: Arc<Limiter>,
    pub web_dir: Option<PathBuf>,
    /// The pace of RNG tables.
    pub pace: Pace,
}

/// The pace of RNG tables.
#[derive(Clone, Copy, Debug)]
pub struct Pace {
    pub betting: std::time::Duration,
    pub deal: std::time::Duration,
    pub squeeze: std::time::Duration,
    pub result_pause: std::time::Duration,
}

/// An API error: status and JSON body.
pub struct ApiError(StatusCode, Value);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.0, Json(self.1)).into_response()
    }
}

fn err(status: StatusCode, msg: impl Into<String>) -> ApiError {
    ApiError(status, json!({ "error": msg.into() }))
}

fn session(s: &AppState, h: &HeaderMap) -> Result<Session, ApiError> {
    let token = h
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .ok_or_else(|| err(StatusCode::UNAUTHORIZED, "sign in: send Authorization: Bearer <token>"))?;
    s.users.session(token).map_err(|e| err(StatusCode::UNAUTHORIZED, e.to_string()))
}

/// Refuse a user over their rate (429).
fn limited(s: &AppState, sess: &Session) -> Result<(), ApiError> {
    s.limiter.take(sess.user).map_err(|wait| {
        ApiError(
            StatusCode::TOO_MANY_REQUESTS,
            json!({ "error": format!("too many requests; retry in {wait} ms"), "retry_after_ms": wait }),
        )
    })
}

fn require(sess: &Session, roles: &[Role]) -> Result<(), ApiError> {
    if roles.contains(&sess.role) {
        Ok(())
    } else {
        Err(err(StatusCode::FORBIDDEN, format!("a {} may not do this", sess.role.name())))
    }
}

/// Send a request to the writer and wait until it is durable.
pub async fn call(s: &AppState, req: Request) -> Result<Reply, ApiError> {
    let (tx, rx) = oneshot::channel();
    s.writer
        .send(req, move |r| {
            let _ = tx.send(r);
        })
        .map_err(|e| err(StatusCode::SERVICE_UNAVAILABLE, e.to_string()))?;
    rx.await.map_err(|_| err(StatusCode::SERVICE_UNAVAILABLE, "the table server stopped"))
}

fn reply_json(r: Reply) -> Result<Json<Value>, ApiError> {
    match r {
        Reply::Refused { rule, message } => {
            // A refusal by the trust matrix for who is asking is a 403.
            let status = if rule == "role" { StatusCode::FORBIDDEN } else { StatusCode::CONFLICT };
            Err(ApiError(status, json!({ "error": message, "rule": rule })))
        }
        r => Ok(Json(serde_json::to_value(r).expect("replies serialise"))),
    }
}

#[derive(Deserialize)]
struct Login {
    name: String,
    password: String,
}

async fn login(State(s): State<AppState>, Json(b): Json<Login>) -> Result<Json<Value>, ApiError> {
    if b.name.len() > 64 || b.password.len() > 128 {
        return Err(err(StatusCode::BAD_REQUEST, "name: at most 64 characters; password: at most 128"));
    }
    // A few attempts a second per name: guessing a password is slow.
    let name_key = b.name.bytes().fold(0x811c_9dc5u32, |h, c| (h ^ u32::from(c)).wrapping_mul(0x0100_0193));
    s.logins.take(name_key).map_err(|wait| {
        ApiError(
            StatusCode::TOO_MANY_REQUESTS,
            json!({ "error": format!("too many sign-in attempts; retry in {wait} ms"), "retry_after_ms": wait }),
        )
    })?;
    let users = s.users.clone();
    let (token, sess) = tokio::task::spawn_blocking(move || users.login(&b.name, &b.password))
        .await
        .map_err(|_| err(StatusCode::INTERNAL_SERVER_ERROR, "login failed"))?
        .map_err(|e| err(StatusCode::UNAUTHORIZED, e.to_string()))?;
    Ok(Json(json!({ "token": token, "user": sess.user, "name": sess.name, "role": sess.role })))
}

async fn logout(State(s): State<AppState>, h: HeaderMap) -> Result<Json<Value>, ApiError> {
    session(&s, &h)?;
    let token = h
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or_default();
    s.users.revoke(token).map_err(|e| err(StatusCode::UNAUTHORIZED, e.to_string()))?;
    Ok(Json(json!({ "revoked": true })))
}

async fn tables(State(s): State<AppState>) -> Json<Value> {
    let v = s.views.read().expect("views lock");
    Json(json!({ "tables": v.tables }))
}

async fn table(State(s): State<AppState>, Path(id): Path<u32>) -> Result<Json<Value>, ApiError> {
    let v = s.views.read().expect("views lock");
    let t = v.tables.iter().find(|t| t.id == id).ok_or_else(|| err(StatusCode::NOT_FOUND, format!("no table {id}")))?;
    Ok(Json(serde_json::to_value(t).expect("views serialise")))
}

async fn me(State(s): State<AppState>, h: HeaderMap) -> Result<Json<Value>, ApiError> {
    let sess = session(&s, &h)?;
    let (balance, available) = s
        .views
        .read()
        .expect("views lock")
        .balances
        .get(&baccarat_table::engine::PlayerId(sess.user))
        .copied()
        .unwrap_or_default();
    Ok(Json(
        json!({ "user": sess.user, "name": sess.name, "role": sess.role, "balance": balance, "available": available }),
    ))
}

pub fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

async fn openapi() -> Json<Value> {
    Json(crate::openapi::document())
}

async fn fallback() -> ApiError {
    err(StatusCode::NOT_FOUND, "no such route; see /api/openapi.json")
}

/// The router.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/", get(web::index))
        .route("/pit", get(web::pit))
        .route("/assets/{name}", get(web::asset))
        .route("/api/login", post(login))
        .route("/api/logout", post(logout))
        .route("/api/me", get(me))
        .route("/api/me/history", get(play::history))
        .route("/api/tables", get(tables).post(staff::create_table))
        .route("/api/tables/{id}", get(table))
        .route("/api/tables/{id}/ws", get(play::ws))
        .route("/api/tables/{id}/wagers", post(play::wager))
        .route("/api/tables/{id}/withdraw", post(play::withdraw))
        .route("/api/tables/{id}/hand", post(play::hand))
        .route("/api/tables/{id}/commands", post(staff::command))
        .route("/api/tables/{id}/pit", get(staff::pit))
        .route("/api/tables/{id}/open", post(staff::set_open))
        .route("/api/tables/{id}/void", post(staff::void_halted))
        .route("/api/tables/{id}/audit", get(staff::audit))
        .route("/api/tables/{id}/shoes", get(shoes))
        .route("/api/players", post(staff::create_player))
        .route("/api/players/{id}/deposit", post(staff::deposit))
        .route("/api/ledger/check", get(staff::ledger_check))
        .route("/api/verify", get(staff::verify))
        .route("/api/openapi.json", get(openapi))
        .fallback(fallback)
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(state)
}

/// Provably fair: each shoe's seed commitment, and its seed once the shoe ended.
async fn shoes(State(s): State<AppState>, Path(id): Path<u32>) -> Result<Json<Value>, ApiError> {
    if !s.views.read().expect("views lock").tables.iter().any(|t| t.id == id) {
        return Err(err(StatusCode::NOT_FOUND, format!("no table {id}")));
    }
    let f = s.feed.read().expect("feed lock");
    let list = f.shoes.get(&id).cloned().unwrap_or_default();
    Ok(Json(json!({ "table": id, "algorithm": baccarat_table::shuffle::SHUFFLE_ALGORITHM, "shoes": list })))
}
