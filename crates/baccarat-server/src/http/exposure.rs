//! The exposure monitor's routes (issue 50, part 3): every table's offered
//! wagers priced from what it has shown, and the alerts raised when one
//! turns in the player's favour (`baccarat_casino::Exposures`, kept by the
//! publisher after every batch).
//!
//! Who may read them: the pit's supervisors, inspectors, surveillance and
//! admins. Not a dealer (a dealer who knew the count could signal it to a
//! player) and not a player (the EVs are the counter's own answer).

use axum::extract::State;
use axum::Json;
use baccarat_casino::TableWatch;
use baccarat_core::TableId;
use serde::Deserialize;

use super::extract::{Auth, Id, Q};
use super::{require, ApiError, AppState};
use crate::auth::{Role, Session};
use crate::bodies::ExposureView;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct AlertsQuery {
    #[serde(default)]
    after: Option<u64>,
}

/// The roles that read the monitor.
pub const WATCHERS: [Role; 4] = [Role::Supervisor, Role::Inspector, Role::Surveillance, Role::Admin];

fn watcher(sess: &Session) -> Result<(), ApiError> {
    require(sess, &WATCHERS)
}

/// Every table and the alerts after `after` (default: all kept).
pub(super) async fn all(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Q(q): Q<AlertsQuery>,
) -> Result<Json<ExposureView>, ApiError> {
    watcher(&sess)?;
    let after = q.after.unwrap_or(0);
    // The document's `int64`, as every id of this API.
    if after > i64::MAX as u64 {
        return Err(ApiError::bad(format!("after: at most {}", i64::MAX)));
    }
    let x = s.exposure.read().expect("exposure");
    Ok(Json(ExposureView { tables: x.tables().cloned().collect(), alerts: x.alerts(after).cloned().collect() }))
}

/// One table's offers as last priced.
pub(super) async fn table(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Id(id): Id<TableId>,
) -> Result<Json<TableWatch>, ApiError> {
    watcher(&sess)?;
    let x = s.exposure.read().expect("exposure");
    x.table(id).cloned().map(Json).ok_or_else(|| ApiError::not_found(format!("no table {id}")))
}
