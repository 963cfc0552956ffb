//! HTTP and WebSocket: the API around the writer.
//!
//! # Who may call what
//!
//! | route | public | player | dealer | supervisor | inspector | admin |
//! |---|---|---|---|---|---|---|
//! | `POST /api/login` | yes | yes | yes | yes | yes | yes |
//! | `POST /api/logout` | | yes | yes | yes | yes | yes |
//! | `GET /api/tables`, `GET /api/tables/{id}`, `GET /api/tables/{id}/ws` | yes | yes | yes | yes | yes | yes |
//! | `GET /api/me` | | yes | yes | yes | yes | yes |
//! | `POST /api/tables/{id}/wagers` | | yes | | | | |
//! | `POST /api/tables/{id}/commands` (dealing, irregularities) | | | yes | yes | | yes |
//! | `POST /api/tables/{id}/commands` (approve or refuse a wager, invalidate) | | | | yes | | yes |
//! | `GET /api/tables/{id}/audit?last=N` (game recall) | | | | | yes | yes |
//! | `GET /api/tables/{id}/shoes` (commitments, revealed seeds) | yes | yes | yes | yes | yes | yes |
//! | `POST /api/players/{id}/deposit`, `POST /api/players` | | | | | | yes |
//! | `GET /api/ledger/check` | | | | | yes | yes |
//! | `GET /api/openapi.json` | yes | yes | yes | yes | yes | yes |
//!
//! Every refusal is a 4xx with `{"error": …}` (and `"rule"` where a rule refused
//! it). Money commands carry an idempotency `key` chosen by the client.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};

use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use baccarat_rules::{Bet, Money};
use baccarat_table::engine::{Command, Spot};
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::sync::{broadcast, oneshot};

use crate::auth::{Role, Session, Users};
use crate::casino::{Reply, Request};
use crate::views::Views;
use crate::writer::Writer;

/// Largest request body accepted.
pub const MAX_BODY: usize = 16 * 1024;

#[derive(Clone)]
pub struct AppState {
    pub writer: Writer,
    /// Per table: its coups as audited, each a list of records (bounded).
    pub recall: Arc<RwLock<HashMap<u32, Vec<Value>>>>,
    /// Per table: shoes with their commitment and, once ended, their seed.
    pub shoes: Arc<RwLock<HashMap<u32, Vec<Value>>>>,
    pub users: Arc<Users>,
    pub views: Arc<RwLock<Views>>,
    pub changed: broadcast::Sender<u64>,
    pub closes_at: Arc<Mutex<HashMap<u32, u64>>>,
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
            Err(ApiError(StatusCode::CONFLICT, json!({ "error": message, "rule": rule })))
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
    let (balance, available) =
        s.views.read().expect("views lock").balances.get(&sess.user).copied().unwrap_or_default();
    Ok(Json(
        json!({ "user": sess.user, "name": sess.name, "role": sess.role, "balance": balance, "available": available }),
    ))
}

#[derive(Deserialize)]
struct WagerBody {
    bet: String,
    amount: i64,
    #[serde(default)]
    spot: Option<u8>,
    key: String,
}

async fn wager(
    State(s): State<AppState>,
    h: HeaderMap,
    Path(id): Path<u32>,
    Json(b): Json<WagerBody>,
) -> Result<Json<Value>, ApiError> {
    let sess = session(&s, &h)?;
    require(&sess, &[Role::Player])?;
    let bet = Bet::from_id(&b.bet)
        .ok_or_else(|| err(StatusCode::BAD_REQUEST, format!("bet: unknown wager id {:?}", b.bet)))?;
    if b.key.is_empty() || b.key.len() > 128 {
        return Err(err(StatusCode::BAD_REQUEST, "key: an idempotency key of 1 to 128 characters is required"));
    }
    // Without a box the player sits at one derived from their id (boxes 1-7 exist
    // on every layout).
    let spot = Spot::Box(b.spot.unwrap_or(1 + (sess.user % 7) as u8));
    let r = call(&s, Request::Wager { table: id, player: sess.user, spot, bet, amount: Money(b.amount), key: b.key })
        .await?;
    reply_json(r)
}

async fn command(
    State(s): State<AppState>,
    h: HeaderMap,
    Path(id): Path<u32>,
    Json(cmd): Json<Command>,
) -> Result<Json<Value>, ApiError> {
    let sess = session(&s, &h)?;
    let supervisor_only = matches!(
        cmd,
        Command::ApproveWager { .. }
            | Command::RefuseWager { .. }
            | Command::Invalidate { .. }
            | Command::SetPersonalLimits { .. }
            | Command::ChangeMinimum { .. }
            | Command::AnnounceMinimum { .. }
            | Command::ReopenWagers
    );
    let players_own = matches!(
        cmd,
        Command::PlaceWager { .. }
            | Command::WithdrawWager { .. }
            | Command::Expose { .. }
            | Command::DeclineCards { .. }
    );
    if players_own {
        return Err(err(StatusCode::FORBIDDEN, "use the wager routes for a player's own actions"));
    }
    if supervisor_only {
        require(&sess, &[Role::Supervisor, Role::Admin])?;
    } else {
        require(&sess, &[Role::Dealer, Role::Supervisor, Role::Admin])?;
    }
    let r = call(&s, Request::Table { table: id, command: cmd }).await?;
    reply_json(r)
}

#[derive(Deserialize)]
struct Deposit {
    amount: i64,
    key: String,
}

async fn deposit(
    State(s): State<AppState>,
    h: HeaderMap,
    Path(player): Path<u32>,
    Json(b): Json<Deposit>,
) -> Result<Json<Value>, ApiError> {
    let sess = session(&s, &h)?;
    require(&sess, &[Role::Admin])?;
    if b.amount <= 0 || b.amount > baccarat_rules::MAX_LIMIT {
        return Err(err(StatusCode::BAD_REQUEST, "amount: must be positive minor units"));
    }
    reply_json(call(&s, Request::Deposit { player, amount: Money(b.amount), key: b.key }).await?)
}

#[derive(Deserialize)]
struct NewPlayer {
    name: String,
    password: String,
    #[serde(default)]
    chips: i64,
}

/// Admin: create a player, with play chips.
async fn create_player(
    State(s): State<AppState>,
    h: HeaderMap,
    Json(b): Json<NewPlayer>,
) -> Result<Json<Value>, ApiError> {
    let sess = session(&s, &h)?;
    require(&sess, &[Role::Admin])?;
    if b.name.is_empty() || b.name.len() > 64 || b.password.len() < 4 || b.password.len() > 128 {
        return Err(err(StatusCode::BAD_REQUEST, "name: 1 to 64 characters; password: 4 to 128"));
    }
    if b.chips < 0 || b.chips > baccarat_rules::MAX_LIMIT {
        return Err(err(StatusCode::BAD_REQUEST, "chips: 0 or more minor units"));
    }
    let users = s.users.clone();
    let (name, password) = (b.name.clone(), b.password.clone());
    let id = tokio::task::spawn_blocking(move || users.create(&name, Role::Player, &password))
        .await
        .map_err(|_| err(StatusCode::INTERNAL_SERVER_ERROR, "could not create the player"))?
        .map_err(|e| err(StatusCode::CONFLICT, e.to_string()))?;
    if b.chips > 0 {
        let _deposited = reply_json(
            call(&s, Request::Deposit { player: id, amount: Money(b.chips), key: "opening chips".into() }).await?,
        )?;
    }
    Ok(Json(json!({ "player": id, "name": b.name })))
}

/// Inspector or admin: the ledger's invariants, checked in full now.
async fn ledger_check(State(s): State<AppState>, h: HeaderMap) -> Result<Json<Value>, ApiError> {
    let sess = session(&s, &h)?;
    require(&sess, &[Role::Inspector, Role::Admin])?;
    reply_json(call(&s, Request::CheckLedger).await?)
}

#[derive(Deserialize)]
struct WsQuery {
    #[serde(default)]
    token: Option<String>,
}

async fn ws(
    State(s): State<AppState>,
    Path(id): Path<u32>,
    Query(q): Query<WsQuery>,
    up: WebSocketUpgrade,
) -> Response {
    let viewer = q.token.and_then(|t| s.users.session(&t).ok());
    up.on_upgrade(move |sock| push(sock, s, id, viewer))
}

/// Push the table's view, and the viewer's balance, after every durable batch.
async fn push(mut sock: WebSocket, s: AppState, id: u32, viewer: Option<Session>) {
    let mut rx = s.changed.subscribe();
    loop {
        let msg = {
            let v = s.views.read().expect("views lock");
            let table = v.tables.iter().find(|t| t.id == id).cloned();
            let balance = viewer.as_ref().and_then(|u| v.balances.get(&u.user).copied());
            json!({ "table": table, "balance": balance.map(|b| b.0), "available": balance.map(|b| b.1), "now_ms": now_ms() })
        };
        if sock.send(Message::Text(msg.to_string().into())).await.is_err() {
            return;
        }
        match rx.recv().await {
            Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
            Err(_) => return,
        }
    }
}

pub fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

#[derive(Deserialize)]
struct RecallQuery {
    #[serde(default)]
    last: Option<usize>,
}

/// Game recall for inspectors: the last coups of a table step by step, rendered
/// from the audit record (not from the current configuration).
async fn audit(
    State(s): State<AppState>,
    h: HeaderMap,
    Path(id): Path<u32>,
    Query(q): Query<RecallQuery>,
) -> Result<Json<Value>, ApiError> {
    let sess = session(&s, &h)?;
    require(&sess, &[Role::Inspector, Role::Admin])?;
    let last = q.last.unwrap_or(5).clamp(1, 100);
    let recall = s.recall.read().expect("recall lock");
    let coups = recall.get(&id).ok_or_else(|| err(StatusCode::NOT_FOUND, format!("no table {id}")))?;
    let from = coups.len().saturating_sub(last);
    Ok(Json(json!({ "table": id, "coups": &coups[from..] })))
}

/// Provably fair: each shoe's seed commitment, and its seed once the shoe ended.
async fn shoes(State(s): State<AppState>, Path(id): Path<u32>) -> Result<Json<Value>, ApiError> {
    let r = s.shoes.read().expect("shoes lock");
    let list = r.get(&id).ok_or_else(|| err(StatusCode::NOT_FOUND, format!("no table {id}")))?;
    Ok(Json(json!({ "table": id, "algorithm": baccarat_table::shuffle::SHUFFLE_ALGORITHM, "shoes": list })))
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
        .route("/api/login", post(login))
        .route("/api/logout", post(logout))
        .route("/api/me", get(me))
        .route("/api/tables", get(tables))
        .route("/api/tables/{id}", get(table))
        .route("/api/tables/{id}/ws", get(ws))
        .route("/api/tables/{id}/wagers", post(wager))
        .route("/api/tables/{id}/commands", post(command))
        .route("/api/players/{id}/deposit", post(deposit))
        .route("/api/tables/{id}/audit", get(audit))
        .route("/api/players", post(create_player))
        .route("/api/ledger/check", get(ledger_check))
        .route("/api/tables/{id}/shoes", get(shoes))
        .route("/api/openapi.json", get(openapi))
        .fallback(fallback)
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(state)
}
