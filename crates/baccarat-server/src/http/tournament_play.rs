//! Tournament play routes (NSW 15.5-15.11). A player acts for themself only,
//! from the box the draw gave them; the Tournament Manager (the
//! `tournament_manager` role, NSW 15.1.1) starts play, records a late or
//! absent player, calls "no more bets", deals, ends rounds and disqualifies.
//! Every step is a casino record naming who took it. Tables are numbered
//! from 1, as the play view shows them; the play-off's table follows the
//! round's.

use axum::extract::State;
use axum::Json;
use baccarat_table::engine::PlayerId;
use serde::Deserialize;
use serde_json::Value;

use super::extract::{Auth, Body, Id};
use super::{call, limited, reply_json, require, ApiError, AppState};
use crate::auth::{Role, Session};
use crate::casino::tournament_manager::PlayStep;
use crate::casino::tournament_play::{PlayAction, Stake};
use crate::casino::Request;
use crate::trust::Actor;

async fn step(s: &AppState, sess: &Session, id: u32, step: PlayStep) -> Result<Json<Value>, ApiError> {
    limited(s, sess)?;
    let by = Actor::Person { user: sess.user, role: sess.role };
    reply_json(call(s, Request::TournamentPlay { tournament: id, step, by }).await?)
}

/// The play as everyone sees it: tables, chips, marker, turn, standings.
pub(super) async fn view(State(s): State<AppState>, Id(id): Id) -> Result<Json<Value>, ApiError> {
    let v = s.tournaments.read().expect("tournaments lock");
    v.play(id)
        .map(Json)
        .ok_or_else(|| ApiError::new(axum::http::StatusCode::NOT_FOUND, "no_tournament", format!("no tournament {id}")))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Nothing {}

/// Tournament Manager: start play.
pub(super) async fn start(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Id(id): Id,
    Body(_): Body<Nothing>,
) -> Result<Json<Value>, ApiError> {
    require(&sess, &[Role::TournamentManager])?;
    step(&s, &sess, id, PlayStep::Start).await
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Act {
    action: PlayAction,
    /// The Tournament Manager names the player a late or absent action is for.
    #[serde(default)]
    player: Option<u32>,
}

/// A player's action from their own box; or the Tournament Manager's
/// `late` or `absent` for a named player (NSW 15.6.12, 15.5.6.1).
pub(super) async fn act(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Id(id): Id,
    Body(b): Body<Act>,
) -> Result<Json<Value>, ApiError> {
    require(&sess, &[Role::Player, Role::TournamentManager])?;
    let player = match (sess.role, b.player, b.action.by_manager()) {
        (Role::Player, None, false) => PlayerId(sess.user),
        (Role::Player, Some(_), _) => {
            return Err(ApiError::bad("player: a player acts only for themself (NSW 15.6.10)"))
        }
        (Role::Player, None, true) => {
            return Err(ApiError::forbidden("action: only the Tournament Manager records a player late or absent"))
        }
        (_, Some(p), true) => PlayerId(p),
        (_, None, true) => return Err(ApiError::bad("player: name the player who is late or absent")),
        (_, _, false) => return Err(ApiError::forbidden("action: the Tournament Manager does not wager for a player")),
    };
    step(&s, &sess, id, PlayStep::Act { player, action: b.action }).await
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Reveal {
    /// The form as written; `null` if it shows no amount or type.
    form: Option<Stake>,
    salt: String,
}

/// A player shows their undisclosed wager after "no more bets" (NSW 15.8.2.6).
pub(super) async fn reveal(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Id(id): Id,
    Body(b): Body<Reveal>,
) -> Result<Json<Value>, ApiError> {
    require(&sess, &[Role::Player])?;
    step(&s, &sess, id, PlayStep::Reveal { player: PlayerId(sess.user), form: b.form, salt: b.salt }).await
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct AtTable {
    table: u32,
}

fn index(table: u32) -> Result<u32, ApiError> {
    table.checked_sub(1).ok_or_else(|| ApiError::bad("table: tables are numbered from 1"))
}

/// Tournament Manager: "no more bets" at a table.
pub(super) async fn no_more_bets(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Id(id): Id,
    Body(b): Body<AtTable>,
) -> Result<Json<Value>, ApiError> {
    require(&sess, &[Role::TournamentManager])?;
    step(&s, &sess, id, PlayStep::NoMoreBets { table: index(b.table)? }).await
}

/// Tournament Manager: deal the coup at a table.
pub(super) async fn deal(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Id(id): Id,
    Body(b): Body<AtTable>,
) -> Result<Json<Value>, ApiError> {
    require(&sess, &[Role::TournamentManager])?;
    step(&s, &sess, id, PlayStep::Deal { table: index(b.table)? }).await
}

/// Tournament Manager: end the round (advance, play-off, or the final's end
/// with the prizes paid).
pub(super) async fn end_round(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Id(id): Id,
    Body(_): Body<Nothing>,
) -> Result<Json<Value>, ApiError> {
    require(&sess, &[Role::TournamentManager])?;
    step(&s, &sess, id, PlayStep::EndRound).await
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Disqualify {
    player: u32,
    rule: String,
    why: String,
}

/// Tournament Manager: disqualify a player, citing the rule.
pub(super) async fn disqualify(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Id(id): Id,
    Body(b): Body<Disqualify>,
) -> Result<Json<Value>, ApiError> {
    require(&sess, &[Role::TournamentManager])?;
    step(&s, &sess, id, PlayStep::Disqualify { player: PlayerId(b.player), rule: b.rule, why: b.why }).await
}
