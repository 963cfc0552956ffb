//! The document checked against the server: the router's routes both ways,
//! every operation's responses and parameters, every `$ref`, the error codes
//! against the casino's refusal kinds, and the `Command` schema against serde.

use super::commands::commands;
use super::*;
use std::collections::BTreeSet;

/// Every (method, path template) of the document.
fn documented(doc: &Value) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for method in item.as_object().expect("path item").keys() {
            if ["get", "put", "post", "delete", "options", "head", "patch", "trace"].contains(&method.as_str()) {
                out.insert((method.to_uppercase(), path.clone()));
            }
        }
    }
    out
}

fn served() -> BTreeSet<(String, String)> {
    crate::http::routes().list().iter().map(|(m, p)| (m.as_str().to_string(), p.to_string())).collect()
}

/// Both ways: every route the router serves is documented, and every
/// documented operation is served. OpenAPI path templates and axum's use
/// the same `{name}` syntax, so they compare as they are.
#[test]
fn the_document_and_the_router_list_the_same_operations() {
    let doc = document();
    let (documented, served) = (documented(&doc), served());
    let undocumented: Vec<_> = served.difference(&documented).collect();
    assert!(undocumented.is_empty(), "served but not in the OpenAPI document: {undocumented:?}");
    let unserved: Vec<_> = documented.difference(&served).collect();
    assert!(unserved.is_empty(), "in the OpenAPI document but not served: {unserved:?}");
    assert_eq!(served.len(), crate::http::routes().list().len(), "a route is listed twice");
}

/// The comparison fails when a route is missing on either side.
#[test]
fn the_comparison_catches_a_route_missing_on_either_side() {
    let mut doc = document();
    doc["paths"]["/api/tables/{id}"].as_object_mut().unwrap().remove("get");
    assert!(served().difference(&documented(&doc)).any(|(m, p)| m == "GET" && p == "/api/tables/{id}"));
    let mut doc = document();
    doc["paths"]["/api/nowhere"] = json!({ "get": { "responses": { "200": { "description": "x" } } } });
    assert!(documented(&doc).difference(&served()).any(|(_, p)| p == "/api/nowhere"));
}

/// Errors of an API route that are not the JSON error body: none (the
/// WebSocket route turns axum's upgrade rejection into the contract too).
const PLAIN_TEXT_ERRORS: [(&str, &str); 0] = [];

/// Each operation answers something successful, has a summary, declares
/// every `{param}` of its path (and only those), and every response it
/// lists has a description; every error response is the shared Error.
#[test]
fn every_operation_has_a_success_response_and_declares_its_path_parameters() {
    let doc = document();
    for (path, item) in doc["paths"].as_object().unwrap() {
        let in_path: BTreeSet<String> = path
            .split('/')
            .filter_map(|seg| seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
            .map(str::to_string)
            .collect();
        for (method, op) in item.as_object().unwrap() {
            let what = format!("{method} {path}");
            assert!(op["summary"].is_string(), "{what}: no summary");
            let responses = op["responses"].as_object().unwrap_or_else(|| panic!("{what}: no responses"));
            assert!(responses.keys().any(|s| s.starts_with('2') || s == "101"), "{what}: no 2xx or 101 response");
            for (status, r) in responses {
                assert!(r["description"].is_string(), "{what} {status}: no description");
                let code: u16 = status.parse().unwrap_or_else(|_| panic!("{what}: status {status}"));
                if code >= 400 && path.starts_with("/api/") && !PLAIN_TEXT_ERRORS.contains(&(path, status)) {
                    assert_eq!(
                        r["content"]["application/json"]["schema"]["$ref"], "#/components/schemas/Error",
                        "{what} {status}: not the shared Error"
                    );
                }
            }
            let params = op["parameters"].as_array().cloned().unwrap_or_default();
            let declared: BTreeSet<String> = params
                .iter()
                .filter(|p| p["in"] == "path")
                .map(|p| {
                    assert_eq!(p["required"], true, "{what}: path parameter {} not required", p["name"]);
                    assert!(p["schema"].is_object(), "{what}: path parameter {} has no schema", p["name"]);
                    p["name"].as_str().unwrap().to_string()
                })
                .collect();
            assert_eq!(declared, in_path, "{what}: path parameters declared vs in the path");
            if in_path.contains("id") {
                let id = params.iter().find(|p| p["name"] == "id").unwrap();
                assert_eq!(id["schema"], json!({ "type": "integer", "minimum": 0, "maximum": 4294967295u64 }));
            }
        }
    }
}

/// Every `$ref` points at a schema that exists, and no keyword is null.
#[test]
fn every_reference_resolves() {
    fn walk(v: &Value, doc: &Value, at: &str) {
        match v {
            Value::Object(m) => {
                if let Some(r) = m.get("$ref").and_then(Value::as_str) {
                    let name = r.strip_prefix("#/components/schemas/").unwrap_or_else(|| panic!("{at}: {r}"));
                    assert!(doc["components"]["schemas"][name].is_object(), "{at}: {r} does not resolve");
                }
                // Examples are data; the rest is the document's own.
                for (k, x) in m.iter().filter(|(k, _)| *k != "example" && *k != "examples") {
                    // A keyword set to null is a slip of `value[key]` on a missing key.
                    assert!(!x.is_null(), "{at}/{k} is null");
                    walk(x, doc, &format!("{at}/{k}"));
                }
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, doc, at)),
            _ => {}
        }
    }
    let doc = document();
    walk(&doc, &doc, "#");
}

/// The error body's codes are the casino's refusal kinds (every one: the
/// match below stops compiling when a kind is added, and `Code::ALL` has
/// them all) and the HTTP layer's.
#[test]
fn the_error_codes_cover_every_refusal_kind() {
    use crate::casino::Code::{self, *};
    let _every_kind_is_listed = |c: Code| match c {
        Rule | NoTable | NoPlayer | Wallet | Float | Ledger | Slip | Bounds | Mode | Config | Idempotency | Halted
        | Role | Entropy | Engine | Settling | Unavailable | NoTournament | NoPromotion | SelfLimit | Closed
        | TableExists => (),
    };
    for k in Code::ALL {
        let wire = serde_json::to_value(k).unwrap();
        assert!(ERROR_CODES.contains(&wire.as_str().unwrap()), "{wire} is not in the Error schema's codes");
    }
    let schema = &document()["components"]["schemas"]["Error"];
    assert_eq!(schema["properties"]["code"]["enum"], json!(ERROR_CODES.as_slice()));
    assert_eq!(schema["required"], json!(["error", "code"]));
}

/// The Command schema names every command the engine takes: each variant
/// serialised by serde carries a `command` the schema lists.
#[test]
fn the_command_schema_names_the_engines_commands() {
    use baccarat_table::Command;
    let names: BTreeSet<&str> = commands().iter().map(|c| c.0).collect();
    assert_eq!(names.len(), commands().len(), "a command listed twice");
    // One per arm of `name_of` (each name parses to its own arm, below).
    assert_eq!(names.len(), 31, "every command of the engine is in the schema");
    for (name, _, required) in commands() {
        // A body with only the required fields, filled with their simplest
        // values, deserialises as the engine's command (so names and
        // required fields agree with serde).
        let fields = commands().into_iter().find(|c| c.0 == name).unwrap().1;
        let mut body = json!({ "command": name });
        for (k, schema) in fields {
            if !required.contains(&k) {
                continue;
            }
            body[k] = example(&schema);
        }
        let parsed: Command = serde_json::from_value(body.clone()).unwrap_or_else(|e| panic!("{body}: {e}"));
        assert_eq!(name_of(&parsed), name);
        // Leaving out any required field is refused.
        for k in &required {
            let mut less = body.clone();
            less.as_object_mut().unwrap().remove(*k);
            assert!(serde_json::from_value::<Command>(less).is_err(), "{name}: {k} is not required by serde");
        }
    }
    assert!(serde_json::from_value::<Command>(json!({ "command": "no_such_command" })).is_err());
    // The examples of the route are commands.
    let doc = document();
    let examples = doc["paths"]["/api/tables/{id}/commands"]["post"]["requestBody"]["content"]["application/json"]
        ["examples"]
        .as_object()
        .unwrap();
    assert!(!examples.is_empty());
    for (name, e) in examples {
        let parsed = serde_json::from_value::<Command>(e["value"].clone());
        assert!(parsed.is_ok(), "example {name}: {:?}", parsed.err());
    }
}

/// Each command's wire name: the match stops compiling when the engine
/// gains a command, so the schema cannot silently fall behind.
fn name_of(c: &baccarat_table::Command) -> &'static str {
    use baccarat_table::Command::*;
    match c {
        StartShoe { .. } => "start_shoe",
        OpenBetting { .. } => "open_betting",
        PlaceWager { .. } => "place_wager",
        ReopenWagers => "reopen_wagers",
        InvalidBet { .. } => "invalid_bet",
        SetPersonalLimits { .. } => "set_personal_limits",
        AnnounceMinimum { .. } => "announce_minimum",
        ChangeMinimum { .. } => "change_minimum",
        ChangeLimits { .. } => "change_limits",
        WithdrawWager { .. } => "withdraw_wager",
        ApproveWager { .. } => "approve_wager",
        RefuseWager { .. } => "refuse_wager",
        CloseBetting => "close_betting",
        DealNext => "deal_next",
        CardIn { .. } => "card_in",
        FaceUpInShoe { .. } => "face_up_in_shoe",
        CuttingCardOut => "cutting_card_out",
        MissingOrForeign { .. } => "missing_or_foreign",
        Misdeal { .. } => "misdeal",
        Expose { .. } => "expose",
        DeclineCards { .. } => "decline_cards",
        AppointNominee { .. } => "appoint_nominee",
        TakeMarker { .. } => "take_marker",
        PassMarker { .. } => "pass_marker",
        ResumeCoup => "resume_coup",
        ScannerDiscrepancy { .. } => "scanner_discrepancy",
        Invalidate { .. } => "invalidate",
        ShufflerMalfunction { .. } => "shuffler_malfunction",
        Interrupted => "interrupted",
        VoidInterrupted => "void_interrupted",
        WrongHand { .. } => "wrong_hand",
    }
}

/// The simplest value of a schema (enough for the command test above).
fn example(schema: &Value) -> Value {
    if let Some(first) = schema["oneOf"].as_array().and_then(|a| a.first()) {
        return example(first);
    }
    if let Some(e) = schema["enum"].as_array().and_then(|a| a.first()) {
        return e.clone();
    }
    match schema["type"].as_str() {
        Some("integer") => json!(schema["minimum"].as_i64().unwrap_or(0).max(0)),
        Some("boolean") => json!(false),
        Some("array") => json!([]),
        Some("string") if schema["pattern"].as_str().is_some_and(|p| p.contains("{64}")) => json!("00".repeat(32)),
        Some("string") if schema.get("example").is_some() => schema["example"].clone(),
        Some("string") => json!("x"),
        Some("object") => {
            let mut o = json!({});
            for k in schema["required"].as_array().cloned().unwrap_or_default() {
                let k = k.as_str().unwrap();
                o[k] = example(&schema["properties"][k]);
            }
            o
        }
        _ => Value::Null,
    }
}
