//! A player's own limits (`casino/self_limits.rs`): read them, set them, or
//! start a cool-off. Only players, each for themselves; the writer enforces
//! them on every wager.

use crate::casino::self_limits::SelfLimitsView;
use axum::extract::State;
use axum::Json;
use baccarat_rules::Money;
use serde::Deserialize;

use super::extract::{Auth, Body};
use super::{call, error, limited, require, ApiError, AppState};
use crate::auth::{Role, Session};
use crate::casino::{Reply, Request, SelfLimitsChange};

/// The whole setting: a field left out, or `null`, is no limit.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Limits {
    #[serde(default)]
    loss_per_day: Option<i64>,
    #[serde(default)]
    minutes_per_day: Option<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CoolOff {
    hours: u64,
}

async fn ask(s: &AppState, sess: &Session, change: SelfLimitsChange) -> Result<Json<SelfLimitsView>, ApiError> {
    require(sess, &[Role::Player])?;
    limited(s, sess)?;
    let r = call(s, Request::SelfLimits { player: sess.user.as_player(), change }).await?;
    if let Some(e) = error::refusal(&r) {
        return Err(e);
    }
    match r {
        Reply::SelfLimits { view } => Ok(Json(*view)),
        other => Err(ApiError::internal(format!("unexpected reply {other:?}"))),
    }
}

/// The limits in force, those waiting to be, the cool-off, and today's play.
pub(super) async fn get(State(s): State<AppState>, Auth(sess, _): Auth) -> Result<Json<SelfLimitsView>, ApiError> {
    ask(&s, &sess, SelfLimitsChange::Read).await
}

/// Set the limits: tighter at once, looser a day later.
pub(super) async fn set(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Body(b): Body<Limits>,
) -> Result<Json<SelfLimitsView>, ApiError> {
    // Refused as they arrive, naming the field (the writer checks again, with
    // the casino's own ceiling).
    if let Some(m) = b.loss_per_day.filter(|m| !(1..=baccarat_rules::MAX_LIMIT).contains(m)) {
        return Err(ApiError::bad(format!(
            "loss_per_day: {m} is not from 1 to {} minor units",
            baccarat_rules::MAX_LIMIT
        )));
    }
    if let Some(m) = b.minutes_per_day.filter(|m| !(1..=crate::casino::self_limits::MAX_MINUTES).contains(m)) {
        return Err(ApiError::bad(format!(
            "minutes_per_day: {m} is not from 1 to {}",
            crate::casino::self_limits::MAX_MINUTES
        )));
    }
    let change = SelfLimitsChange::Set { loss_per_day: b.loss_per_day.map(Money), minutes_per_day: b.minutes_per_day };
    ask(&s, &sess, change).await
}

/// A cool-off of `hours`: no wagers until it ends; never shortened.
pub(super) async fn cool_off(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Body(b): Body<CoolOff>,
) -> Result<Json<SelfLimitsView>, ApiError> {
    let most = crate::casino::self_limits::MAX_COOL_OFF_HOURS;
    if !(1..=most).contains(&b.hours) {
        return Err(ApiError::bad(format!("hours: {} is not from 1 to {most}", b.hours)));
    }
    ask(&s, &sess, SelfLimitsChange::CoolOff { hours: b.hours }).await
}
