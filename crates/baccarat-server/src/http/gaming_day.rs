//! The casino's gaming day (`baccarat-casino`'s `books/gaming_day.rs`): an
//! admin sets it, an admin or an inspector reads it. The rulebooks are
//! silent on it; a change applies from the next gaming day not yet begun.

use crate::bodies::GamingDayView;
use axum::extract::State;
use axum::Json;
use serde::Deserialize;

use super::extract::{Auth, Body};
use super::{call, limited, reply_json, require, ApiError, AppState};
use crate::auth::Role;
use crate::casino::Request;
use baccarat_casino::books::{Calendar, GamingDay};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Setting {
    zone: String,
    cutoff_hour: i64,
}

/// The setting made last (the default, UTC 06:00, until one is), the first
/// gaming day it runs (`null`: the default), and the gaming day in progress.
fn view(calendar: &Calendar, now_ms: u64) -> GamingDayView {
    let (from, day) = calendar.latest();
    GamingDayView {
        zone: day.zone().to_string(),
        cutoff_hour: day.cutoff_hour(),
        from: from.map(|d| d.to_string()),
        today: calendar.date_of(now_ms).to_string(),
    }
}

/// The settings as the store holds them, read off the writer.
async fn calendar(s: &AppState) -> Result<Calendar, ApiError> {
    let db = s.db.clone();
    tokio::task::spawn_blocking(move || crate::verify::calendar_in(&db))
        .await
        .map_err(|_| ApiError::internal("the gaming day could not be read"))?
        .map_err(|e| ApiError::internal(e.to_string()))
}

/// Admin or inspector: the gaming day.
pub(super) async fn get(State(s): State<AppState>, Auth(sess, _): Auth) -> Result<Json<GamingDayView>, ApiError> {
    require(&sess, &[Role::Inspector, Role::Admin])?;
    let c = calendar(&s).await?;
    Ok(Json(view(&c, (s.clock)())))
}

/// Admin: set the gaming day, recorded in the casino's chain naming who.
/// Each field is checked here first, naming it; nothing is recorded then.
pub(super) async fn set(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Body(b): Body<Setting>,
) -> Result<Json<GamingDayView>, ApiError> {
    require(&sess, &[Role::Admin])?;
    limited(&s, &sess)?;
    let day = GamingDay::parse(&b.zone, b.cutoff_hour).map_err(|e| ApiError::bad(e.to_string()))?;
    let req = Request::SetGamingDay { zone: day.zone().to_string(), cutoff_hour: day.cutoff_hour(), by: sess.user };
    let _recorded = reply_json(call(&s, req).await?)?;
    let c = calendar(&s).await?;
    Ok(Json(view(&c, (s.clock)())))
}
