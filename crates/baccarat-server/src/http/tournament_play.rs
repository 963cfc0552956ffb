//! Tournament play routes (NSW 15.5-15.11). A player acts for themself only,
//! from the box the draw gave them; the Tournament Manager (the
//! `tournament_manager` role, NSW 15.1.1) starts play, records a late or
//! absent player, calls "no more bets", deals, moves players between tables,
//! ends rounds and disqualifies.
//! Every step is a casino record naming who took it. Tables are numbered
//! from 1, as the play view shows them; the play-off's table follows the
//! round's.

use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::response::Response;
use axum::Json;
use baccarat_core::{TournamentId, UserId};
use baccarat_table::PlayerId;
use serde::Deserialize;

use super::extract::{Auth, Body, Id};
use super::{call, limited, reply_json, require, ApiError, AppState};
use crate::auth::{Role, Session};
use crate::casino::tournament_manager::PlayStep;
use crate::casino::tournament_play::{PlayAction, Stake};
use crate::casino::tournament_view::PlayView;
use crate::casino::{Reply, Request};
use crate::messages::TournamentMessage;
use crate::trust::Actor;

async fn step(s: &AppState, sess: &Session, id: TournamentId, step: PlayStep) -> Result<Json<Reply>, ApiError> {
    limited(s, sess)?;
    let by = Actor::Person { user: sess.user, role: sess.role };
    reply_json(call(s, Request::TournamentPlay { tournament: id, step, by }).await?)
}

fn no_tournament(id: TournamentId) -> ApiError {
    ApiError::new(axum::http::StatusCode::NOT_FOUND, "no_tournament", format!("no tournament {id}"))
}

/// Put each player's name beside their id, wherever the play names one
/// (after the read model's lock is let go: a name may be read from the
/// database).
fn named(s: &AppState, play: &mut Option<PlayView>) {
    if let Some(play) = play {
        play.name_players(|p| s.users.name(UserId::from(p)));
    }
}

/// The play as everyone sees it: tables, chips, marker, turn, standings;
/// null before the start.
pub(super) async fn view(
    State(s): State<AppState>,
    Id(id): Id<TournamentId>,
) -> Result<Json<Option<PlayView>>, ApiError> {
    let mut play = s.tournaments.read().expect("tournaments lock").play(id).ok_or_else(|| no_tournament(id))?;
    named(&s, &mut play);
    Ok(Json(play))
}

/// What a tournament's WebSocket sends: the tournament, its play with the
/// players' names, and the server's clock (for the time left to wager).
fn message(s: &AppState, id: TournamentId) -> TournamentMessage {
    let (tournament, mut play) = {
        let v = s.tournaments.read().expect("tournaments lock");
        (v.public(id), v.play(id).flatten())
    };
    named(s, &mut play);
    TournamentMessage { tournament, play, now_ms: (s.clock)() }
}

/// The tournament's WebSocket: public, as a leaderboard on the casino floor
/// is (nothing in it is secret: the view withholds what is). A message
/// after every durable change to it.
pub(super) async fn ws(
    State(s): State<AppState>,
    Id(id): Id<TournamentId>,
    up: Result<WebSocketUpgrade, axum::extract::ws::rejection::WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    if !s.tournaments.read().expect("tournaments lock").all.contains_key(&id) {
        return Err(no_tournament(id));
    }
    let up = up.map_err(|r| {
        ApiError::new(r.status(), "upgrade", format!("a WebSocket upgrade is needed: {}", r.body_text()))
    })?;
    Ok(up.on_upgrade(move |sock| async move {
        let _counted = super::metered::Socket::open();
        s.clone().until_ended(push(sock, s, id)).await
    }))
}

async fn push(mut sock: WebSocket, s: AppState, id: TournamentId) {
    // Woken by a batch with this tournament's records (`publish/wakes.rs`).
    let mut rx = s.wakes.tournament(id);
    let mut last = String::new();
    loop {
        let m = message(&s, id);
        // Sent when the tournament or its play changed, not the clock alone.
        let body = serde_json::to_string(&(&m.tournament, &m.play)).expect("messages serialise");
        if body != last {
            let text = serde_json::to_string(&m).expect("messages serialise");
            if sock.send(Message::Text(text.into())).await.is_err() {
                return;
            }
            last = body;
        }
        tokio::select! {
            r = rx.changed() => if r.is_err() {
                return;
            },
            m = sock.recv() => match m {
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return,
                _ => {}
            },
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Nothing {}

/// Tournament Manager: start play.
pub(super) async fn start(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Id(id): Id<TournamentId>,
    Body(_): Body<Nothing>,
) -> Result<Json<Reply>, ApiError> {
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
    Id(id): Id<TournamentId>,
    Body(b): Body<Act>,
) -> Result<Json<Reply>, ApiError> {
    require(&sess, &[Role::Player, Role::TournamentManager])?;
    let player = match (sess.role, b.player, b.action.by_manager()) {
        (Role::Player, None, false) => sess.user.as_player(),
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
    Id(id): Id<TournamentId>,
    Body(b): Body<Reveal>,
) -> Result<Json<Reply>, ApiError> {
    require(&sess, &[Role::Player])?;
    step(&s, &sess, id, PlayStep::Reveal { player: sess.user.as_player(), form: b.form, salt: b.salt }).await
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
    Id(id): Id<TournamentId>,
    Body(b): Body<AtTable>,
) -> Result<Json<Reply>, ApiError> {
    require(&sess, &[Role::TournamentManager])?;
    step(&s, &sess, id, PlayStep::NoMoreBets { table: index(b.table)? }).await
}

/// Tournament Manager: deal the coup at a table.
pub(super) async fn deal(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Id(id): Id<TournamentId>,
    Body(b): Body<AtTable>,
) -> Result<Json<Reply>, ApiError> {
    require(&sess, &[Role::TournamentManager])?;
    step(&s, &sess, id, PlayStep::Deal { table: index(b.table)? }).await
}

/// Tournament Manager: end the round (advance, play-off, or the final's end
/// with the prizes paid).
pub(super) async fn end_round(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Id(id): Id<TournamentId>,
    Body(_): Body<Nothing>,
) -> Result<Json<Reply>, ApiError> {
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
    Id(id): Id<TournamentId>,
    Body(b): Body<Disqualify>,
) -> Result<Json<Reply>, ApiError> {
    require(&sess, &[Role::TournamentManager])?;
    step(&s, &sess, id, PlayStep::Disqualify { player: PlayerId(b.player), rule: b.rule, why: b.why }).await
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Move {
    player: u32,
    table: u32,
}

/// Tournament Manager: move a player to another table of the round, between
/// coups (NSW 15.5.1, 15.5.4).
pub(super) async fn move_player(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Id(id): Id<TournamentId>,
    Body(b): Body<Move>,
) -> Result<Json<Reply>, ApiError> {
    require(&sess, &[Role::TournamentManager])?;
    step(&s, &sess, id, PlayStep::Move { player: PlayerId(b.player), table: index(b.table)? }).await
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Limits {
    min: baccarat_rules::Money,
    max: baccarat_rules::Money,
    #[serde(default)]
    changes: Vec<baccarat_rules::tournament::LimitChange>,
}

/// Tournament Manager: change the limits, before the start only (NSW 15.6.15).
pub(super) async fn limits(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Id(id): Id<TournamentId>,
    Body(b): Body<Limits>,
) -> Result<Json<Reply>, ApiError> {
    require(&sess, &[Role::TournamentManager])?;
    limited(&s, &sess)?;
    if b.changes.len() > 100 {
        return Err(ApiError::bad("changes: at most 100"));
    }
    let by = Actor::Person { user: sess.user, role: sess.role };
    let req = Request::AmendTournamentLimits { tournament: id, min: b.min, max: b.max, changes: b.changes, by };
    reply_json(call(&s, req).await?)
}
