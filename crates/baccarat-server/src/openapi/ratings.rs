//! Player rating and the surveillance report's part of the API document
//! (`http/ratings.rs`).

use serde_json::json;

use super::*;

fn day() -> Value {
    json!({
        "name": "day", "in": "query", "required": false,
        "description": "the gaming day, YYYY-MM-DD (1970-01-02 to 9999-12-30; default: the current one); `date` is read as the same",
        "schema": { "type": "string", "format": "date", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$" },
        "example": "2026-03-10",
    })
}

fn player() -> Value {
    json!({
        "name": "player", "in": "query", "required": false,
        "description": "only this player's lines",
        "schema": { "type": "integer", "format": "int64", "minimum": 0, "maximum": 4294967295u64 },
    })
}

pub(super) fn operations() -> Vec<Operation> {
    let mut ratings = Op::new("Pit, inspector, admin: a gaming day's player ratings, per player and table")
        .describe(
            "Computed from the audit records (off the writer). Per player and table: time at the table (spans \
             split by breaks of over 30 minutes), decisions and decisions per hour as measured, wagers, chips \
             wagered and the average bet per decision, theo (each stake times its bet's exact house edge for a \
             fresh shoe, as the day's books), theo_shoe (each stake times its exact house edge from the cards the \
             table had shown when it was placed), the actual result (`won`, the player's net: the ledger's, to \
             the cent) against `expected_won` with half its 95% band. Per table: coups, time in play, coups per \
             hour, theo and theo per hour. Money in cents; rates are statistics (numbers). `format=csv`: one CSV \
             file in two blocks, money in major units.",
        )
        .auth()
        .param(day())
        .param(player())
        .param(json!({
            "name": "format", "in": "query", "required": false,
            "description": "json (the default) or csv",
            "schema": string_enum(&["json", "csv"]),
        }))
        .err(400, "day: not a date YYYY-MM-DD; player: not a whole number; format: not json or csv; an unknown query field (`bad_request`)")
        .roles("supervisors, inspectors and admins")
        .err(429, "two reports are being made from the records already (`rate`); retry after `retry_after_ms`")
        .ok("the ratings", derived::<baccarat_casino::books::Ratings>())
        .err(500, "the database could not be read (`internal`)");
    ratings.0["responses"]["200"]["content"]["text/csv"] = json!({ "schema": string() });
    let protection = Op::new("Pit, surveillance: who is taking it, a gaming day's wagers tested against the shoe")
        .describe(
            "For each player's wagers of each kind at each table over the day: the coups of their session (first \
             wager to last), how many wagers were placed while the EV was positive and at how many coups it was, \
             the stake-weighted EV taken, the rank correlation and slope of stake against EV, and `z`: the \
             correlation as a z-score, corrected for runs in both series. `flagged` when `z` reaches `z_flag` \
             with at least `min_wagers` wagers: a threshold derived from simulating players who ignore the \
             shoe (docs/game-protection.md states its false-alarm rate). Each line lists the wagers of highest \
             EV with the cards then unseen, by rank. Most suspicious first. `players` and `tables` are empty \
             here (see `GET /api/ratings`).",
        )
        .auth()
        .param(day())
        .param(player())
        .err(400, "day: not a date YYYY-MM-DD; player: not a whole number; an unknown query field (`bad_request`)")
        .roles("supervisors, inspectors, surveillance and admins")
        .err(429, "two reports are being made from the records already (`rate`); retry after `retry_after_ms`")
        .ok("the report", derived::<baccarat_casino::books::Ratings>())
        .err(500, "the database could not be read (`internal`)");
    vec![("get", "/api/ratings", ratings), ("get", "/api/protection", protection)]
}
