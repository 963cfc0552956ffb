//! Signing in and out and who I am: the session routes' part of the API
//! document (`http/session.rs`, and `http/play.rs`'s history).

use serde_json::json;

use super::*;
use crate::bodies::{Me, PasswordChanged, SignedIn, SignedOut};

/// Signing in and out, who I am: `session.rs`, and `play.rs`'s history.
// Longer than 70 lines: a table, one entry per route (data, not steps).
pub(super) fn operations() -> Vec<Operation> {
    let login = Op::new("Sign in; returns a session token and sets the session cookie")
        .describe(
            "The token is for API clients (`Authorization: Bearer`); the HttpOnly, SameSite=Strict cookie is for \
             the pages. Sign-in is limited per address, per name and per server (signin.rs).",
        )
        .body(closed(
            &[("name", name64()), ("password", json!({ "type": "string", "maxLength": 128 }))],
            &["name", "password"],
        ))
        .example(json!({ "name": "player1", "password": "demo" }))
        .ok("signed in", derived::<SignedIn>())
        .err(401, "wrong name or password (`unauthorized`)")
        .err(429, "too many sign-ins from this address, for this name or on this server (`rate`)")
        .err(503, "the sign-in pool is busy (`unavailable`)");
    let logout = Op::new("Sign out: this session ends and the cookie is cleared")
        .auth()
        .ok("signed out", derived::<SignedOut>());
    let me = Op::new("Who I am, my wallet and my promotional tokens available (minor units)")
        .describe(
            "At a partition's server (serve --partition), `balance` and `available` are the wallet at this \
             partition, and `bank` the player's money at the casino's bank, which every partition takes wagers \
             from; on a casino without partitions `bank` is null.",
        )
        .auth()
        .ok("me", derived::<Me>())
        .err(503, "the bank cannot be read (`unavailable`)");
    let password_change =
        Op::new("Change my password: every session of mine ends and a fresh one is opened for this client")
            .auth()
            .body(closed(
                &[("old", json!({ "type": "string", "maxLength": 128 })), ("new", password())],
                &["old", "new"],
            ))
            .ok("changed", derived::<PasswordChanged>())
            .err(403, "old: not the current password (`password`)")
            .err(429, "too many password checks (`rate`)")
            .err(503, "the sign-in pool is busy (`unavailable`)");
    let line = object(&[("table", u32s()), ("coup", u64s()), ("line", schema_ref("WagerLine"))]);
    let history = Op::new("My settled wagers, newest first, line by line (the last 200)")
        .auth()
        .ok("history", object(&[("player", u32s()), ("history", array(line))]));
    vec![
        ("post", "/api/login", login),
        ("post", "/api/logout", logout),
        ("get", "/api/me", me),
        ("post", "/api/me/password", password_change),
        ("get", "/api/me/history", history),
    ]
}
