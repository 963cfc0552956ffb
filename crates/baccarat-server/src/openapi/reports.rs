//! The books' part of the API document (`http/gaming_day.rs`,
//! `http/reports.rs`): the casino's gaming day and a day's report.

use serde_json::{json, Value};

use super::*;

/// What the gaming-day routes answer, derived from its type.
fn gaming_day() -> Value {
    derived::<crate::bodies::GamingDayView>()
}

/// A table's figures, or the casino's (`books::Figures`); a table's line
/// adds `table` and `name`.
fn figures(line: &[(&str, Value)]) -> Value {
    let mut props = line.to_vec();
    props.extend([
        ("drop", money()),
        ("win", money()),
        ("hold_bp", nullable(json!({ "type": "integer", "format": "int64" }))),
        ("theo", money()),
        ("fills", money()),
        ("credits", money()),
        ("coups", u64s()),
        ("wagers", u64s()),
        ("players", u64s()),
    ]);
    object(&props)
}

fn report() -> Value {
    let player =
        object(&[("player", u32s()), ("name", string()), ("wagered", money()), ("won", money()), ("minutes", u64s())]);
    object(&[
        ("date", json!({ "type": "string", "format": "date" })),
        ("zone", string()),
        ("cutoff_hour", int(0, 23)),
        ("from_ms", u64s()),
        ("to_ms", u64s()),
        ("tables", array(figures(&[("table", u32s()), ("name", string())]))),
        ("casino", figures(&[])),
        ("players", array(player)),
        ("cash", object(&[("deposits", money()), ("cash_outs", money())])),
    ])
}

/// The gaming day and the day's report.
pub(super) fn operations() -> Vec<Operation> {
    let get = Op::new("Inspector, admin: the casino's gaming day (time zone and cut-off hour; UTC 06:00 until set)")
        .describe(
            "The setting made last, the first gaming day it runs (`from`; null for the default) and the gaming day \
             in progress (`today`). The rulebooks are silent on the gaming day; a change applies from the next \
             gaming day not yet begun.",
        )
        .auth()
        .roles("inspectors and admins")
        .ok("the gaming day", gaming_day())
        .err(500, "the database could not be read (`internal`)");
    let set = Op::new("Admin: set the casino's gaming day, from the next gaming day not yet begun")
        .describe("Recorded in the casino's chain, naming the admin. `zone` is an IANA time zone name.")
        .auth()
        .roles("admins")
        .limited()
        .body(closed(
            &[
                ("zone", json!({ "type": "string", "minLength": 1, "maxLength": 64, "example": "Australia/Sydney" })),
                ("cutoff_hour", int(0, 23)),
            ],
            &["zone", "cutoff_hour"],
        ))
        .example(json!({ "zone": "Australia/Sydney", "cutoff_hour": 6 }))
        .err(400, "zone: not an IANA time zone name; cutoff_hour: not 0 to 23 (`bad_request`)")
        .ok("the gaming day", gaming_day())
        .err(500, "the database could not be read (`internal`)")
        .writer();
    let mut day = Op::new("Inspector, admin: a gaming day's books, per table, for the casino and per player")
        .describe(
            "Computed from the audit records (off the writer): drop (chips wagered that stood), the house's win, \
             hold in basis points, theo (each wager's stake times its bet's exact house edge, rounded once per \
             table to the cent), fills and credits, coups, wagers, players; per player wagered, won (their net) \
             and minutes; the cage's deposits and cash-outs. Money in cents. `format=csv`: one CSV file in three \
             blocks, each with its header row (tables then the casino; players; the day and its cash), money in \
             major units with two decimals.",
        )
        .auth()
        .param(json!({
            "name": "date", "in": "query", "required": true,
            "description": "the gaming day, YYYY-MM-DD (1970-01-02 to 9999-12-30)",
            "schema": { "type": "string", "format": "date", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$" },
            "example": "2026-03-10",
        }))
        .param(json!({
            "name": "format", "in": "query", "required": false,
            "description": "json (the default) or csv",
            "schema": string_enum(&["json", "csv"]),
        }))
        .err(400, "date: not a date YYYY-MM-DD; format: not json or csv; an unknown query field (`bad_request`)")
        .roles("inspectors and admins")
        .err(429, "two reports are being made from the records already (`rate`); retry after `retry_after_ms`")
        .ok("the report", report())
        .err(500, "the database could not be read (`internal`)");
    day.0["responses"]["200"]["content"]["text/csv"] = json!({ "schema": string() });
    vec![
        ("get", "/api/casino/gaming-day", get),
        ("post", "/api/casino/gaming-day", set),
        ("get", "/api/reports/day", day),
    ]
}
