//! The document's shared components: the security schemes and the named
//! schemas (the one error body, the table's view, the replies) that the
//! operations refer to by `$ref`, so each is written once. The replies and
//! the views are derived from their types (`replies.rs`, `views.rs`).

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
            "Command": command_schema(),
        },
    });
    // The casino's replies and the read models, derived from their types
    // (`replies.rs`, `views.rs`). A name taken twice would lose one of them.
    if let Some(schemas) = all["schemas"].as_object_mut() {
        for (name, schema) in super::replies::components().into_iter().chain(super::views::components()) {
            let same = schemas.get(&name).is_none_or(|old| *old == schema);
            assert!(same, "two schemas named {name} in the document");
            schemas.insert(name, schema);
        }
    }
    all
}
