//! The cage's routes (issue 47), for the admin: a player's cash-out, and a
//! table's fill and credit. The casino decides and records each
//! (`casino/cage.rs`); here the body is checked, naming the field, and the
//! player or table must exist, before the writer sees it.

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use baccarat_core::{TableId, UserId};
use baccarat_rules::{Money, MAX_LIMIT};
use serde::Deserialize;

use super::extract::{Auth, Body, Id};
use super::{call, limited, reply_json, require, table_exists, ApiError, AppState};
use crate::auth::{Role, Session};
use crate::casino::{Reply, Request};
use crate::ledger::keys::IdempotencyKey;

/// The body of every movement at the cage: an amount and the client's
/// idempotency key.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Movement {
    amount: i64,
    key: String,
}

impl Movement {
    /// The amount and the key, each checked (a refusal names the field).
    fn checked(self) -> Result<(Money, IdempotencyKey), ApiError> {
        if !(1..=MAX_LIMIT).contains(&self.amount) {
            return Err(ApiError::bad(format!("amount: must be positive minor units, at most {MAX_LIMIT}")));
        }
        let key = IdempotencyKey::parse(self.key).map_err(|e| ApiError::bad(e.to_string()))?;
        Ok((Money(self.amount), key))
    }
}

/// Only an admin moves the cage's money; each movement is rate-limited.
fn admin(s: &AppState, sess: &Session) -> Result<(), ApiError> {
    require(sess, &[Role::Admin])?;
    limited(s, sess)
}

/// Admin: chips from a player's wallet back to the cage, at most what its
/// open wagers leave free (`casino/cage.rs`).
pub(super) async fn cash_out(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Id(player): Id<UserId>,
    Body(b): Body<Movement>,
) -> Result<Json<Reply>, ApiError> {
    admin(&s, &sess)?;
    let (amount, key) = b.checked()?;
    super::access::detail(|| format!("amount={}", amount.0));
    // Only a player has a wallet to cash out; an id that is no one, or
    // staff, is named as such (as a deposit does).
    match s.users.role(player).map_err(|e| ApiError::internal(e.to_string()))? {
        Some(Role::Player) => {}
        Some(r) => {
            let why = format!("{player} is a {}, not a player: only a player's wallet is cashed out", r.name());
            return Err(ApiError::new(StatusCode::NOT_FOUND, "no_player", why));
        }
        None => return Err(ApiError::new(StatusCode::NOT_FOUND, "no_player", format!("no player {player}"))),
    }
    let by = sess.user;
    reply_json(call(&s, Request::CashOut { player: player.as_player(), amount, key, by }).await?)
}

/// Admin: chips from the cage to a table's float.
pub(super) async fn fill(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Id(table): Id<TableId>,
    Body(b): Body<Movement>,
) -> Result<Json<Reply>, ApiError> {
    movement(&s, &sess, table, b, |amount, key, by| Request::Fill { table, amount, key, by }).await
}

/// Admin: chips from a table's float back to the cage, never leaving it
/// short of what the open wagers could win.
pub(super) async fn credit(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Id(table): Id<TableId>,
    Body(b): Body<Movement>,
) -> Result<Json<Reply>, ApiError> {
    movement(&s, &sess, table, b, |amount, key, by| Request::Credit { table, amount, key, by }).await
}

/// A fill or a credit of `table`: the admin's, the body checked, the table
/// found, then the writer's answer.
async fn movement(
    s: &AppState,
    sess: &Session,
    table: TableId,
    b: Movement,
    request: impl FnOnce(Money, IdempotencyKey, UserId) -> Request,
) -> Result<Json<Reply>, ApiError> {
    admin(s, sess)?;
    let (amount, key) = b.checked()?;
    super::access::detail(|| format!("amount={}", amount.0));
    table_exists(s, table)?;
    reply_json(call(s, request(amount, key, sess.user)).await?)
}
