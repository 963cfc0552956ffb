//! People's part of the API document (`http/users.rs`): creating, listing,
//! disabling, enabling, a password reset and a role change.

use serde_json::json;

use super::*;
use crate::auth::{Page, Person};
use crate::bodies::{PasswordReset, PersonCreated, PersonSwitched};

/// A route on a person `{id}` (400, 404 `no_user`). The example is the demo
/// casino's dealer (2), not its admin (1): an example sent as it is changes
/// no one who signs in for the document's checks.
fn on_user(op: Op) -> Op {
    op.param(json!({
        "name": "id", "in": "path", "required": true,
        "description": "the person's id",
        "schema": u32s(),
        "example": 2,
    }))
    .err(400, "id: a whole number from 0 to 4294967295 (`bad_request`)")
    .err(404, "no such person (`no_user`)")
}

/// What every change of a person may answer besides its success.
fn change(op: Op) -> Op {
    on_user(op.auth().roles("admins").limited())
        .err(
            409,
            "the casino's last enabled admin (`last_admin`); or the admin's own account, which another admin changes \
             (`own_account`)",
        )
        .err(500, "the change was recorded in the casino's chain but not made; send it again (`internal`)")
        .writer()
}

/// People: `users.rs`.
// Longer than 70 lines: a table, one entry per route (data, not steps).
pub(super) fn operations() -> Vec<Operation> {
    let create = Op::new("Admin: create a person of any role; a player gets a wallet")
        .describe(
            "Recorded in the casino's chain (`user_changed`, `created`) naming the admin. Names are unique, exactly \
             as written; no control characters and no spaces at either end.",
        )
        .auth()
        .roles("admins")
        .limited()
        .body(closed(&[("name", name64()), ("role", role()), ("password", password())], &["name", "role", "password"]))
        .example(json!({ "name": "floor-2", "role": "supervisor", "password": "change-me" }))
        .ok("created", derived::<PersonCreated>())
        .err(409, "the name is taken (`taken`)")
        .writer();
    let list = Op::new("Admin, inspector: people by id, a page at a time, of a role and with a text in the name")
        .describe("`next` is the `after` of the next page; null on the last. Letters A-Z match in either case.")
        .auth()
        .roles("admins and inspectors")
        .param(json!({ "name": "role", "in": "query", "required": false, "schema": role(),
                       "description": "only this role (empty: any)" }))
        .param(json!({ "name": "q", "in": "query", "required": false,
                       "schema": { "type": "string", "maxLength": 64 },
                       "description": "a text the name holds (at most 64 bytes; empty: any)" }))
        .param(json!({ "name": "after", "in": "query", "required": false, "schema": u32s(),
                       "description": "the last id of the previous page (default 0)" }))
        .param(json!({ "name": "limit", "in": "query", "required": false, "schema": int(1, 500),
                       "description": "people on the page (default 50)" }))
        .err(400, "a query parameter out of bounds, named (`bad_request`)")
        .ok("a page", derived::<Page>());
    let disable = change(Op::new("Admin: disable a person: no sign-in, every session ended, no deposit"))
        .describe(
            "A disabled player's open wagers settle as any other; their wallet stays theirs. Recorded in the \
             casino's chain (`disabled`). Disabling the disabled changes nothing and records nothing.",
        )
        .body(closed(&[], &[]))
        .example(json!({}))
        .ok("disabled", derived::<PersonSwitched>());
    let enable = change(Op::new("Admin: enable a person again"))
        .body(closed(&[], &[]))
        .example(json!({}))
        .ok("enabled", derived::<PersonSwitched>());
    let reset = change(Op::new("Admin: set a person's password; every session of theirs ends"))
        .describe("Never in the chain: the record says only `password_reset`. An admin's own: POST /api/me/password.")
        .body(closed(&[("password", password())], &["password"]))
        .example(json!({ "password": "temporary-1" }))
        .ok("reset", derived::<PasswordReset>());
    let role_change = change(Op::new("Admin: change a person's role; every session of theirs ends"))
        .body(closed(&[("role", role())], &["role"]))
        .example(json!({ "role": "supervisor" }))
        .ok("changed", derived::<Person>());
    vec![
        ("post", "/api/users", create),
        ("get", "/api/users", list),
        ("post", "/api/users/{id}/disable", disable),
        ("post", "/api/users/{id}/enable", enable),
        ("post", "/api/users/{id}/password", reset),
        ("post", "/api/users/{id}/role", role_change),
    ]
}
