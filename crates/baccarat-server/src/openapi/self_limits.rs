//! A player's own limits' part of the API document (`http/self_limits.rs`).

use serde_json::{json, Value};

use super::*;
use crate::casino::self_limits::SelfLimitsView;

/// What the three routes answer, derived from its type: the limits in
/// force, a looser one waiting for its time, the cool-off and today's play.
fn view() -> Value {
    derived::<SelfLimitsView>()
}

/// A player's limits (`casino/self_limits.rs`).
pub(super) fn operations() -> Vec<Operation> {
    let refused = "above the casino's ceiling, named (`self_limit`); or not a player (`role`)";
    let get = Op::new("Player: my own limits, a looser one waiting for its time, my cool-off and today's play")
        .auth()
        .roles("players")
        .limited()
        .ok("my limits", view())
        .writer();
    let set = Op::new(
        "Player: set my own loss limit and play-time limit per UTC day (the whole setting; null or left out is no \
         limit). Tighter is in force at once, looser 24 hours later; the server refuses any wager past them",
    )
    .auth()
    .roles("players")
    .limited()
    .body(closed(
        &[
            (
                "loss_per_day",
                nullable(json!({ "type": "integer", "minimum": 1, "maximum": baccarat_rules::MAX_LIMIT })),
            ),
            ("minutes_per_day", nullable(int(1, i64::from(crate::casino::self_limits::MAX_MINUTES)))),
        ],
        &[],
    ))
    .example(json!({ "loss_per_day": 50000, "minutes_per_day": 120 }))
    .ok("my limits", view())
    .err(403, refused)
    .writer();
    let cool_off = Op::new("Player: a cool-off of 1 to 8760 hours: no wagers until it ends; it cannot be shortened")
        .auth()
        .roles("players")
        .limited()
        .body(closed(&[("hours", int(1, 8760))], &["hours"]))
        .example(json!({ "hours": 24 }))
        .ok("my limits", view())
        .err(403, refused)
        .writer();
    vec![("get", "/api/me/limits", get), ("post", "/api/me/limits", set), ("post", "/api/me/cool-off", cool_off)]
}
