//! The document's shared components: the security schemes and the named
//! schemas (the one error body, the table's view, the replies) that the
//! operations refer to by `$ref`, so each is written once.

use serde_json::{json, Value};

use super::commands::command_schema;
use super::schema::*;
use super::ERROR_CODES;

pub(super) fn error_schema() -> Value {
    json!({
        "type": "object",
        "description": "Every refusal (error.rs): words for a person, the kind of refusal, the rulebook's rule \
                        where one refused, and the wait on a 429.",
        "required": ["error", "code"],
        "additionalProperties": false,
        "properties": {
            "error": { "type": "string" },
            "code": string_enum(&ERROR_CODES),
            "rule": { "type": "string" },
            "retry_after_ms": { "type": "integer", "minimum": 0 },
        }
    })
}

pub(super) fn wager_line() -> Value {
    object(&[
        ("wager", u64s()),
        ("player", u32s()),
        ("spot", spot()),
        ("bet", string_enum(&bet_ids())),
        ("amount", money()),
        ("ante", money()),
        ("needs_approval", boolean()),
        ("status", string_enum(&["open", "withdrawn", "returned", "settled"])),
        ("rule", nullable(string())),
        ("outcome", nullable(string())),
        ("pays", nullable(string())),
        (
            "settlement",
            nullable(object(&[
                ("stake", money()),
                ("returned", money()),
                ("lost", money()),
                ("won", money()),
                ("commission", money()),
                ("void", money()),
            ])),
        ),
        ("net", nullable(money())),
    ])
}

pub(super) fn coup_feed() -> Value {
    object(&[
        ("coup", u64s()),
        ("wagers", array(schema_ref("WagerLine"))),
        ("result", nullable(json!({ "type": "object" }))),
        ("void", nullable(string())),
    ])
}

pub(super) fn shoe() -> Value {
    object(&[
        ("shoe", u64s()),
        ("commitment", nullable(string())),
        ("cut", nullable(object(&[("at", u64s()), ("from_back", u64s())]))),
        ("seed", nullable(seed())),
    ])
}

/// A wager a table offers, as its view shows it (`OfferView`); the help adds
/// its odds to these.
pub(super) fn offer_fields() -> Vec<(&'static str, Value)> {
    let pay_line = object(&[("outcome", string()), ("pays", string())]);
    vec![
        ("bet", string()),
        ("name", string()),
        ("min", money()),
        ("max", money()),
        ("pay_table", string()),
        ("rule", string()),
        ("lines", array(pay_line)),
    ]
}

pub(super) fn table_view() -> Value {
    let offer = object(&offer_fields());
    let ante = object(&[("amount", money()), ("waived_at", nullable(money())), ("rule", string())]);
    let pair = json!({ "type": "array", "minItems": 2, "maxItems": 2, "items": { "type": "integer" } });
    let triple = json!({ "type": "array", "minItems": 3, "maxItems": 3, "items": { "type": "integer" } });
    object(&[
        ("id", u32s()),
        ("name", string()),
        ("rulebook", string()),
        ("rulebook_title", string()),
        ("variant", string()),
        ("variant_title", string()),
        ("mode", string_enum(&["rng", "live"])),
        ("open", boolean()),
        ("dealing", string()),
        ("decks", u32s()),
        ("chip", money()),
        ("min", money()),
        ("max", money()),
        ("differential", nullable(money())),
        ("announced_minimum", nullable(pair)),
        ("bets", array(string())),
        ("offers", array(offer)),
        ("ante", nullable(ante)),
        (
            "phase",
            string_enum(&["no_shoe", "ready", "betting", "no_more_bets", "dealing", "reconstruction", "shoe_over"]),
        ),
        ("shoe", u64s()),
        ("coup", u64s()),
        ("cards", array(card_seen())),
        ("due", nullable(position())),
        ("out", nullable(object(&[("side", side()), ("player", u32s()), ("since_ms", u64s())]))),
        ("last", nullable(string_enum(&["B", "P", "T"]))),
        ("results", json!({ "type": "string", "pattern": "^[BPT]*$" })),
        (
            "stats",
            object(&[
                ("coups", u32s()),
                ("banker", u32s()),
                ("player", u32s()),
                ("tie", u32s()),
                ("player_pairs", u32s()),
                ("banker_pairs", u32s()),
                ("naturals", u32s()),
            ]),
        ),
        (
            "roads",
            json!({ "type": "object", "description": "every road of the shoe laid out for drawing (bead plate, big \
                                                      road, big eye boy, small road, cockroach pig, ask-road)" }),
        ),
        ("dealt", u64s()),
        ("shoe_size", u64s()),
        ("seed_commitment", nullable(string())),
        ("closes_at_ms", nullable(u64s())),
        ("halted", nullable(string())),
        ("personal_limits", array(triple)),
        ("closed", boolean()),
        ("closing", boolean()),
    ])
}

pub(super) fn components() -> Value {
    let mut all = json!({
        "securitySchemes": {
            "bearer": { "type": "http", "scheme": "bearer", "description": "The token POST /api/login answers" },
            "cookie": {
                "type": "apiKey", "in": "cookie", "name": crate::auth::SESSION_COOKIE,
                "description": "The HttpOnly session cookie POST /api/login sets (the pages)",
            },
        },
        "schemas": {
            "Error": error_schema(),
            "TableView": table_view(),
            "WagerLine": wager_line(),
            "CoupFeed": coup_feed(),
            "Shoe": shoe(),
            "Command": command_schema(),
        },
    });
    // The casino's replies, derived from the type (`replies.rs`).
    if let Some(schemas) = all["schemas"].as_object_mut() {
        schemas.extend(super::replies::components());
    }
    all
}
