//! The gaming day's report (`baccarat-casino`'s `books`), for an admin or an
//! inspector, computed from the records on a connection of its own
//! (`verify::day_in`), never by the writer: as JSON, or as one CSV file a
//! spreadsheet opens (`books::to_csv`: three blocks, each with its header
//! row: the tables and the casino, the players, the day and its cash).

use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::Json;
use baccarat_core::UserId;
use serde::Deserialize;

use super::extract::{Auth, Q};
use super::{require, ApiError, AppState};
use crate::auth::Role;
use baccarat_casino::books;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct DayQuery {
    #[serde(default)]
    date: Option<String>,
    #[serde(default)]
    format: Option<String>,
}

/// Admin or inspector: gaming day `date`'s report.
pub(super) async fn day(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Q(q): Q<DayQuery>,
) -> Result<Response, ApiError> {
    require(&sess, &[Role::Inspector, Role::Admin])?;
    let text = q.date.ok_or_else(|| ApiError::bad("date: required, YYYY-MM-DD"))?;
    let date = books::parse_date(&text).map_err(|e| ApiError::bad(e.to_string()))?;
    let csv = match q.format.as_deref() {
        None | Some("json") => false,
        Some("csv") => true,
        Some(_) => return Err(ApiError::bad("format: \"json\" or \"csv\"")),
    };
    let (db, users) = (s.db.clone(), s.users.clone());
    let permit = super::folds::permit(&s.folds)?;
    let report = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        crate::verify::day_in(&db, date, &|p| users.name(UserId::from(p)))
    })
    .await
    .map_err(|_| ApiError::internal("the report could not be made"))?
    .map_err(|e| ApiError::internal(e.to_string()))?;
    if !csv {
        return Ok(Json(report).into_response());
    }
    let name = format!("attachment; filename=\"gaming-day-{date}.csv\"");
    Ok((
        [(header::CONTENT_TYPE, "text/csv; charset=utf-8".to_string()), (header::CONTENT_DISPOSITION, name)],
        books::to_csv(&report),
    )
        .into_response())
}
