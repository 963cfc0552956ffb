//! Player rating and who is taking it (issue 50, parts 4 and 5): a gaming
//! day's ratings (`GET /api/ratings`) and the surveillance report
//! (`GET /api/protection`), computed from the records on a connection of
//! their own (`verify::ratings_in`), never by the writer, as the day's
//! report is.
//!
//! Who may read them: ratings are the pit's and the back office's
//! (supervisors, inspectors, admins); the surveillance report is read by
//! those who read the exposure monitor (`exposure.rs`), surveillance too.
//! Neither is a dealer's or a player's: the report says which players the
//! casino suspects.

use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::Json;
use baccarat_casino::books::{self, Ratings};
use baccarat_core::UserId;
use serde::Deserialize;

use super::exposure::WATCHERS;
use super::extract::{Auth, Q};
use super::{require, ApiError, AppState};
use crate::auth::Role;

/// Who reads the ratings.
const RATERS: [Role; 3] = [Role::Supervisor, Role::Inspector, Role::Admin];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RatingsQuery {
    #[serde(default, alias = "date")]
    day: Option<String>,
    #[serde(default)]
    player: Option<u32>,
    #[serde(default)]
    format: Option<String>,
}

/// The day's ratings, every player's or one's, as JSON or CSV.
pub(super) async fn ratings(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Q(q): Q<RatingsQuery>,
) -> Result<Response, ApiError> {
    require(&sess, &RATERS)?;
    let csv = match q.format.as_deref() {
        None | Some("json") => false,
        Some("csv") => true,
        Some(_) => return Err(ApiError::bad("format: \"json\" or \"csv\"")),
    };
    let (date, r) = read(&s, q.day, q.player).await?;
    let r = Ratings { taking: Vec::new(), across: Vec::new(), ..r };
    if !csv {
        return Ok(Json(r).into_response());
    }
    let name = format!("attachment; filename=\"ratings-{date}.csv\"");
    Ok((
        [(header::CONTENT_TYPE, "text/csv; charset=utf-8".to_string()), (header::CONTENT_DISPOSITION, name)],
        books::ratings_csv(&r),
    )
        .into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ProtectionQuery {
    #[serde(default, alias = "date")]
    day: Option<String>,
    #[serde(default)]
    player: Option<u32>,
}

/// The day's surveillance report: each player's wagers of each kind at each
/// table tested against the shoe, most suspicious first.
pub(super) async fn protection(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Q(q): Q<ProtectionQuery>,
) -> Result<Json<Ratings>, ApiError> {
    require(&sess, &WATCHERS)?;
    let (_, r) = read(&s, q.day, q.player).await?;
    Ok(Json(Ratings { players: Vec::new(), tables: Vec::new(), ..r }))
}

/// The ratings of the day named by `day` (the current gaming day if none),
/// kept to `player`'s lines if one is named.
async fn read(s: &AppState, day: Option<String>, player: Option<u32>) -> Result<(books::Date, Ratings), ApiError> {
    let date = day
        .map(|text| books::parse_date(&text).map_err(|e| ApiError::bad(e.to_string().replacen("date", "day", 1))))
        .transpose()?;
    let (db, users, now) = (s.db.clone(), s.users.clone(), (s.clock)());
    let permit = super::folds::permit(&s.folds)?;
    let (date, mut r) = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        let date = match date {
            Some(d) => d,
            None => crate::verify::calendar_in(&db)?.date_of(now),
        };
        crate::verify::ratings_in(&db, date, &|p| users.name(UserId::from(p))).map(|r| (date, r))
    })
    .await
    .map_err(|_| ApiError::internal("the ratings could not be made"))?
    .map_err(|e| ApiError::internal(e.to_string()))?;
    if let Some(p) = player {
        r.players.retain(|l| l.player == p);
        r.taking.retain(|l| l.player == p);
        r.across.retain(|l| l.player == p);
    }
    Ok((date, r))
}
