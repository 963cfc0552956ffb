//! Tournament routes (NSW 15.3, 15.4): the published list and conditions,
//! an admin's publishing and cancelling, a player's entering and withdrawing.
//! Money moves in the writer (`casino/tournaments.rs`); the lists are read
//! from the read model.

use axum::extract::State;
use axum::Json;
use baccarat_core::TournamentId;
use serde::Deserialize;

use super::extract::{Auth, Body, Id};
use super::{call, limited, reply_json, require, ApiError, AppState};
use crate::auth::Role;
use crate::casino::tournaments::TournamentSummary;
use crate::casino::{Reply, Request};

/// Every tournament, as the public sees it.
pub(super) async fn list(State(s): State<AppState>) -> Json<Vec<TournamentSummary>> {
    let v = s.tournaments.read().expect("tournaments lock");
    Json(v.all.keys().filter_map(|id| v.public(*id)).collect())
}

/// One tournament with its published conditions (NSW 15.4.1).
pub(super) async fn one(
    State(s): State<AppState>,
    Id(id): Id<TournamentId>,
) -> Result<Json<TournamentSummary>, ApiError> {
    let v = s.tournaments.read().expect("tournaments lock");
    let no = || ApiError::new(axum::http::StatusCode::NOT_FOUND, "no_tournament", format!("no tournament {id}"));
    let (summary, t) = v.public(id).zip(v.all.get(&id)).ok_or_else(no)?;
    Ok(Json(TournamentSummary { conditions: Some(t.conditions.published()), ..summary }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Publish {
    conditions: String,
}

/// Admin: publish a tournament from its conditions file.
pub(super) async fn create(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Body(b): Body<Publish>,
) -> Result<Json<Reply>, ApiError> {
    require(&sess, &[Role::Admin])?;
    limited(&s, &sess)?;
    reply_json(call(&s, Request::CreateTournament { conditions: b.conditions }).await?)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Nothing {}

/// A player enters, paying the fee from their wallet (NSW 15.3.2).
pub(super) async fn enter(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Id(id): Id<TournamentId>,
    Body(_): Body<Nothing>,
) -> Result<Json<Reply>, ApiError> {
    require(&sess, &[Role::Player])?;
    limited(&s, &sess)?;
    reply_json(call(&s, Request::EnterTournament { tournament: id, player: sess.user.as_player() }).await?)
}

/// A player withdraws within the terms, the fee refunded (NSW 15.4.2(i)).
pub(super) async fn withdraw(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Id(id): Id<TournamentId>,
    Body(_): Body<Nothing>,
) -> Result<Json<Reply>, ApiError> {
    require(&sess, &[Role::Player])?;
    limited(&s, &sess)?;
    reply_json(call(&s, Request::WithdrawFromTournament { tournament: id, player: sess.user.as_player() }).await?)
}

/// Admin: cancel, refunding every fee (NSW 15.3.4).
pub(super) async fn cancel(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Id(id): Id<TournamentId>,
    Body(_): Body<Nothing>,
) -> Result<Json<Reply>, ApiError> {
    require(&sess, &[Role::Admin])?;
    limited(&s, &sess)?;
    reply_json(call(&s, Request::CancelTournament { tournament: id }).await?)
}
