//! Closing a table for good (issue 47; `casino/closing.rs`): an admin's
//! route. Creating one is `staff.rs`'s `create_table`.

use axum::extract::State;
use axum::Json;
use baccarat_core::TableId;
use serde::Deserialize;

use super::extract::{Auth, Body, Id};
use super::{call, limited, reply_json, require, table_exists, ApiError, AppState};
use crate::auth::Role;
use crate::casino::{Reply, Request};
use crate::trust::Actor;

/// The body of a close: nothing to say but the route (`{}`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CloseBody {}

/// Admin: close table `{id}` for good. With no coup in play it closes now
/// and its float (with the commission and antes it collected) goes back to
/// the cage: `{"table", "closed": true, "credited"}`. With a coup in play it
/// takes no new wager and closes when that coup settles: `{"table",
/// "closed": false, "closing": true}`. Closed, it answers 409 `closed`, to
/// this route as to every wager and command; it stays in the lobby (its view
/// says `"closed": true`), the records and `verify`, and keeps its name.
pub(super) async fn close(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Id(id): Id<TableId>,
    Body(CloseBody {}): Body<CloseBody>,
) -> Result<Json<Reply>, ApiError> {
    require(&sess, &[Role::Admin])?;
    limited(&s, &sess)?;
    table_exists(&s, id)?;
    let by = Actor::Person { user: sess.user, role: sess.role };
    reply_json(call(&s, Request::CloseTable { table: id, by }).await?)
}
