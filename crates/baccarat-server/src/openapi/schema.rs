//! The schema helpers every part of the document is built from: small
//! functions that return inline JSON schemas (OpenAPI 3.0 ignores `nullable`
//! beside `$ref`, so nothing here is a reference but [`schema_ref`]), and the
//! request fields many routes share (an idempotency key, an amount, a name, a
//! password). Kept apart so that a route reads as its shape, not as JSON.

use serde_json::{json, Map, Value};

/// `baccarat_rules::MAX_LIMIT`: the largest amount a request may carry.
pub(super) const MAX_LIMIT: i64 = baccarat_rules::MAX_LIMIT;

/// Every wager id the API knows (`Bet::id`).
pub(super) fn bet_ids() -> Vec<&'static str> {
    baccarat_rules::Bet::ALL.iter().map(|b| b.id()).collect()
}

pub(super) fn int(min: i64, max: i64) -> Value {
    json!({ "type": "integer", "minimum": min, "maximum": max })
}

pub(super) fn u8s() -> Value {
    int(0, u8::MAX as i64)
}

pub(super) fn u32s() -> Value {
    int(0, u32::MAX as i64)
}

pub(super) fn u64s() -> Value {
    json!({ "type": "integer", "minimum": 0, "maximum": u64::MAX })
}

/// An amount in minor units (`Money`, an `i64`).
pub(super) fn money() -> Value {
    json!({ "type": "integer", "format": "int64", "minimum": i64::MIN, "maximum": i64::MAX })
}

pub(super) fn string() -> Value {
    json!({ "type": "string" })
}

pub(super) fn boolean() -> Value {
    json!({ "type": "boolean" })
}

pub(super) fn string_enum(values: &[&str]) -> Value {
    json!({ "type": "string", "enum": values })
}

pub(super) fn array(items: Value) -> Value {
    json!({ "type": "array", "items": items })
}

/// The schema or `null` (an `Option`). An enum lists `null` too, as OpenAPI
/// 3.0.3 asks.
pub(super) fn nullable(mut schema: Value) -> Value {
    schema["nullable"] = json!(true);
    if let Some(values) = schema.get_mut("enum").and_then(Value::as_array_mut) {
        values.push(Value::Null);
    }
    schema
}

pub(super) fn schema_ref(name: &str) -> Value {
    json!({ "$ref": format!("#/components/schemas/{name}") })
}

/// A component or `null`, as schemars writes an `Option` of one (OpenAPI
/// 3.0.3 reads `nullable` only beside a `type`, so not beside a `$ref`).
pub(super) fn nullable_ref(name: &str) -> Value {
    json!({ "anyOf": [schema_ref(name), { "enum": [null], "nullable": true }] })
}

/// An object with these properties, all of them required.
pub(super) fn object(props: &[(&str, Value)]) -> Value {
    let required: Vec<&str> = props.iter().map(|(k, _)| *k).collect();
    object_with(props, &required)
}

/// An object with these properties, `required` of them required; more may come.
pub(super) fn object_with(props: &[(&str, Value)], required: &[&str]) -> Value {
    let properties: Map<String, Value> = props.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
    let mut o = json!({ "type": "object", "properties": properties });
    if !required.is_empty() {
        o["required"] = json!(required);
    }
    o
}

/// A request body the server reads with `deny_unknown_fields`.
pub(super) fn closed(props: &[(&str, Value)], required: &[&str]) -> Value {
    let mut o = object_with(props, required);
    o["additionalProperties"] = json!(false);
    o
}

/// A card as the API writes it: rank (A, 2-10, J, Q, K; T for ten) then suit
/// (C, D, H, S), e.g. `10H`, `QS`; letters in either case but `T`, spaces
/// around it ignored (`Card::from_str`).
pub(super) fn card() -> Value {
    json!({ "type": "string", "pattern": "^\\s*(10|[2-9AJQKTajqk])[CDHScdhs]\\s*$", "example": "10H" })
}

pub(super) fn position() -> Value {
    string_enum(&["player1", "banker1", "player2", "banker2", "player3", "banker3"])
}

pub(super) fn side() -> Value {
    string_enum(&["player", "banker"])
}

pub(super) fn role() -> Value {
    string_enum(&["player", "dealer", "supervisor", "inspector", "admin", "tournament_manager", "surveillance"])
}

/// A 256-bit seed as 64 hex digits.
pub(super) fn seed() -> Value {
    json!({ "type": "string", "pattern": "^[0-9a-fA-F]{64}$" })
}

/// Where a wager stands: `{"box": n}` or `"standing"`.
pub(super) fn spot() -> Value {
    json!({ "oneOf": [
        string_enum(&["standing"]),
        closed(&[("box", u8s())], &["box"]),
    ] })
}

/// One key of an externally tagged enum: `{"name": {…}}`.
pub(super) fn tagged(name: &str, inner: Value) -> Value {
    closed(&[(name, inner)], &[name])
}

// ---------------------------------------------------------------------------
// Request fields shared by many routes.

/// The idempotency key of a money command.
pub(super) fn key() -> Value {
    json!({
        "type": "string", "minLength": 1, "maxLength": 128,
        "description": "the client's idempotency key, 1 to 128 bytes: a retry with the same key and request \
                        answers the first result; the key with another request is refused (`idempotency`)",
    })
}

/// A positive amount in minor units, at most `MAX_LIMIT`.
pub(super) fn amount() -> Value {
    let mut a = int(1, MAX_LIMIT);
    a["description"] = json!("minor units");
    a
}

/// A name of 1 to 64 bytes.
pub(super) fn name64() -> Value {
    json!({ "type": "string", "minLength": 1, "maxLength": 64, "description": "1 to 64 bytes" })
}

/// A new password: 4 characters to 128 bytes (`auth::MIN_PASSWORD`).
pub(super) fn password() -> Value {
    let min = crate::auth::MIN_PASSWORD;
    json!({ "type": "string", "minLength": min, "maxLength": 128,
            "description": format!("{min} characters to 128 bytes") })
}

/// A field that may only be `null` (serde reads it as absent).
pub(super) fn null_only(ty: &str) -> Value {
    json!({ "type": ty, "nullable": true, "enum": [null] })
}

/// How the document derives a schema from a type (`schemars`): for OpenAPI
/// 3.0 (`nullable`, references under `#/components/schemas/`), of what is
/// sent (the Serialize contract: a field skipped when empty is optional).
pub(super) fn settings() -> schemars::generate::SchemaSettings {
    schemars::generate::SchemaSettings::openapi3().with(|s| s.contract = schemars::generate::Contract::Serialize)
}

/// The schema of a body the server answers with, derived from its type
/// (`bodies/`), inline and closed: a struct serialises its fields
/// and no others.
pub(super) fn derived<T: schemars::JsonSchema>() -> Value {
    let settings = settings().with(|s| s.inline_subschemas = true);
    let mut schema = settings.into_generator().into_root_schema_for::<T>().to_value();
    if let Some(o) = schema.as_object_mut() {
        o.remove("$schema");
        o.remove("title");
        o.insert("additionalProperties".into(), Value::Bool(false));
    }
    schema
}
