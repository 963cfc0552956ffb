//! The server's own OpenAPI 3.0.3 document, written here by hand (nothing is
//! generated or downloaded at build time).
//!
//! It describes every route of `http::routes`: each path parameter,
//! each request body with the bounds the handlers enforce (`additionalProperties:
//! false` where the body is `deny_unknown_fields`), each success body, and every
//! error status the route can answer, all with the one error body of `error.rs`
//! (`components.schemas.Error`). The unit tests (`tests.rs`) check it against the
//! router both ways, and `scripts/schemathesis.sh` fuzzes the running server
//! against it in CI.
//!
//! Organised for reading, a file a job: `schema` holds the small schema
//! helpers, `components` the shared components (with the engine's
//! `commands`), `op` the `Op` builder every operation is written with,
//! which adds the responses that follow from what a route takes (a session:
//! 401; a path id: 400 and 404; a JSON body: 400, 413, 415, 422; a rate limit:
//! 429; the writer: 503) and then the route's own; the operations come grouped
//! as the handlers are (pages, session, tables and players' routes, the pit,
//! the cage, tournaments, promotions, a player's own limits, the books).

use serde_json::{json, Map, Value};

#[cfg(test)]
mod answers_tests;
mod cage;
mod commands;
mod components;
mod exposure;
#[cfg(test)]
mod fits;
mod op;
mod pages;
mod pit;
mod promotions;
mod ratings;
mod replies;
mod reports;
mod rulebooks;
mod schema;
mod self_limits;
mod session;
mod tables;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tournament_answers_tests;
mod tournaments;
mod users;
mod views;

// What the parts of the document build with, for their `use super::*`.
use components::*;
use op::*;
use schema::*;

/// Every code an error body may carry: the HTTP layer's own and the casino's
/// refusal kinds (`error.rs`, `casino::Code`).
pub const ERROR_CODES: [&str; 44] = [
    "bad_request",
    "unauthorized",
    "role",
    "password",
    "not_found",
    "no_table",
    "no_player",
    "method",
    "conflict",
    "rule",
    "wallet",
    "float",
    "ledger",
    "slip",
    "bounds",
    "mode",
    "idempotency",
    "halted",
    "engine",
    "too_large",
    "media_type",
    "unprocessable",
    "config",
    "rate",
    "unavailable",
    "entropy",
    "internal",
    "upgrade",
    "settling",
    "no_tournament",
    "no_promotion",
    "self_limit",
    "no_partition",
    "elsewhere",
    "starting",
    "outcome_unknown",
    "origin",
    "closed",
    "table_exists",
    "no_user",
    "taken",
    "last_admin",
    "own_account",
    "disabled",
];

/// Every operation: (method, path, operation).
fn operations() -> Vec<Operation> {
    [
        pages::operations(),
        session::operations(),
        tables::operations(),
        pit::operations(),
        cage::operations(),
        tournaments::operations(),
        tournaments::play_operations(),
        promotions::operations(),
        self_limits::operations(),
        reports::operations(),
        exposure::operations(),
        ratings::operations(),
        users::operations(),
        rulebooks::operations(),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// The document.
pub fn document() -> Value {
    let mut paths = Map::new();
    for (method, path, op) in operations() {
        let item = paths.entry(path).or_insert_with(|| json!({}));
        item[method] = op.0;
    }
    json!({
        "openapi": "3.0.3",
        "info": {
            "title": "baccarat table server",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "Every error is JSON {\"error\", \"code\", \"rule\"?, \"retry_after_ms\"?} \
                            (components.schemas.Error), with a status by kind. A wrong method on a route is 405 \
                            (`method`), a missing route 404 (`not_found`). Bodies are at most 16 KB.",
        },
        "components": components(),
        "paths": paths,
    })
}
