//! The server's own OpenAPI 3.0.3 document, written here by hand (nothing is
//! generated or downloaded at build time).
//!
//! It describes every route of [`crate::http::routes`]: each path parameter,
//! each request body with the bounds the handlers enforce (`additionalProperties:
//! false` where the body is `deny_unknown_fields`), each success body, and every
//! error status the route can answer, all with the one error body of `error.rs`
//! (`components.schemas.Error`). The unit tests below check it against the
//! router both ways, and `scripts/schemathesis.sh` fuzzes the running server
//! against it in CI.
//!
//! Organised for reading: small schema helpers first, then the shared
//! components, then the operations grouped as the handlers are (pages,
//! session, tables and players' routes, the pit, the cage), each built with
//! [`Op`], which adds the responses that follow from what a route takes (a
//! session: 401; a path id: 400 and 404; a JSON body: 400, 413, 415, 422; a
//! rate limit: 429; the writer: 503) and then the route's own.

use serde_json::{json, Map, Value};

mod promotions;
mod self_limits;
mod tournaments;

/// `baccarat_rules::MAX_LIMIT`: the largest amount a request may carry.
const MAX_LIMIT: i64 = baccarat_rules::MAX_LIMIT;

/// Every wager id the API knows (`Bet::id`).
fn bet_ids() -> Vec<&'static str> {
    baccarat_rules::Bet::ALL.iter().map(|b| b.id()).collect()
}

/// Every code an error body may carry: the HTTP layer's own and the casino's
/// refusal kinds (`error.rs`, `casino::Code`).
pub const ERROR_CODES: [&str; 32] = [
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
];

// ---------------------------------------------------------------------------
// Schema helpers (inline schemas: OpenAPI 3.0 ignores `nullable` beside `$ref`).

fn int(min: i64, max: i64) -> Value {
    json!({ "type": "integer", "minimum": min, "maximum": max })
}

fn u8s() -> Value {
    int(0, u8::MAX as i64)
}

fn u32s() -> Value {
    int(0, u32::MAX as i64)
}

fn u64s() -> Value {
    json!({ "type": "integer", "minimum": 0, "maximum": u64::MAX })
}

/// An amount in minor units (`Money`, an `i64`).
fn money() -> Value {
    json!({ "type": "integer", "format": "int64", "minimum": i64::MIN, "maximum": i64::MAX })
}

fn string() -> Value {
    json!({ "type": "string" })
}

fn boolean() -> Value {
    json!({ "type": "boolean" })
}

fn string_enum(values: &[&str]) -> Value {
    json!({ "type": "string", "enum": values })
}

fn array(items: Value) -> Value {
    json!({ "type": "array", "items": items })
}

/// The schema or `null` (an `Option`). An enum lists `null` too, as OpenAPI
/// 3.0.3 asks.
fn nullable(mut schema: Value) -> Value {
    schema["nullable"] = json!(true);
    if let Some(values) = schema.get_mut("enum").and_then(Value::as_array_mut) {
        values.push(Value::Null);
    }
    schema
}

fn schema_ref(name: &str) -> Value {
    json!({ "$ref": format!("#/components/schemas/{name}") })
}

/// An object with these properties, all of them required.
fn object(props: &[(&str, Value)]) -> Value {
    let required: Vec<&str> = props.iter().map(|(k, _)| *k).collect();
    object_with(props, &required)
}

/// An object with these properties, `required` of them required; more may come.
fn object_with(props: &[(&str, Value)], required: &[&str]) -> Value {
    let properties: Map<String, Value> = props.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
    let mut o = json!({ "type": "object", "properties": properties });
    if !required.is_empty() {
        o["required"] = json!(required);
    }
    o
}

/// A request body the server reads with `deny_unknown_fields`.
fn closed(props: &[(&str, Value)], required: &[&str]) -> Value {
    let mut o = object_with(props, required);
    o["additionalProperties"] = json!(false);
    o
}

/// A card as the API writes it: rank (A, 2-10, J, Q, K; T for ten) then suit
/// (C, D, H, S), e.g. `10H`, `QS`; letters in either case but `T`, spaces
/// around it ignored (`Card::from_str`).
fn card() -> Value {
    json!({ "type": "string", "pattern": "^\\s*(10|[2-9AJQKTajqk])[CDHScdhs]\\s*$", "example": "10H" })
}

fn position() -> Value {
    string_enum(&["player1", "banker1", "player2", "banker2", "player3", "banker3"])
}

fn side() -> Value {
    string_enum(&["player", "banker"])
}

fn role() -> Value {
    string_enum(&["player", "dealer", "supervisor", "inspector", "admin", "tournament_manager"])
}

/// A 256-bit seed as 64 hex digits.
fn seed() -> Value {
    json!({ "type": "string", "pattern": "^[0-9a-fA-F]{64}$" })
}

/// Where a wager stands: `{"box": n}` or `"standing"`.
fn spot() -> Value {
    json!({ "oneOf": [
        string_enum(&["standing"]),
        closed(&[("box", u8s())], &["box"]),
    ] })
}

/// One key of an externally tagged enum: `{"name": {…}}`.
fn tagged(name: &str, inner: Value) -> Value {
    closed(&[(name, inner)], &[name])
}

/// A card as a viewer may see it: `[position, card or null]`.
fn card_seen() -> Value {
    json!({ "type": "array", "minItems": 2, "maxItems": 2, "items": nullable(string()) })
}

// ---------------------------------------------------------------------------
// Components.

fn error_schema() -> Value {
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

fn reply(result: &str, props: &[(&str, Value)]) -> Value {
    let mut all = vec![("result", string_enum(&[result]))];
    all.extend(props.iter().cloned());
    object(&all)
}

fn refused_reply() -> Value {
    object_with(
        &[
            ("result", string_enum(&["refused"])),
            ("code", string_enum(&ERROR_CODES)),
            ("rule", string()),
            ("message", string()),
        ],
        &["result", "code", "message"],
    )
}

fn wager_line() -> Value {
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

fn coup_feed() -> Value {
    object(&[
        ("coup", u64s()),
        ("wagers", array(schema_ref("WagerLine"))),
        ("result", nullable(json!({ "type": "object" }))),
        ("void", nullable(string())),
    ])
}

fn shoe() -> Value {
    object(&[
        ("shoe", u64s()),
        ("commitment", nullable(string())),
        ("cut", nullable(object(&[("at", u64s()), ("from_back", u64s())]))),
        ("seed", nullable(seed())),
    ])
}

/// A wager a table offers, as its view shows it (`OfferView`); the help adds
/// its odds to these.
fn offer_fields() -> Vec<(&'static str, Value)> {
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

fn table_view() -> Value {
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
    ])
}

/// One command: its name, its fields with their schemas, the required ones.
type CommandVariant = (&'static str, Vec<(&'static str, Value)>, Vec<&'static str>);

/// The engine's `Command` (`baccarat_table::engine::types`): internally tagged
/// by `command`, snake_case; fields of `Option` type may be left out.
fn commands() -> Vec<CommandVariant> {
    let cards = || array(card());
    let shoe_source = json!({ "oneOf": [
        tagged("shuffle", object_with(&[("seed", seed())], &["seed"])),
        tagged("pre_shuffled", object_with(&[("cards", cards())], &["cards"])),
        tagged("live", object_with(&[("decks", u32s())], &["decks"])),
        tagged("shuffler_set", object_with(&[("seed", seed()), ("set", u8s())], &["seed", "set"])),
        tagged("continuous", object_with(&[("seed", seed())], &["seed"])),
    ] });
    let cut = nullable(object_with(&[("at", u64s()), ("from_back", u64s())], &["at", "from_back"]));
    let burn = nullable(string_enum(&["burn_one", "burn_one_shown", "turn_and_burn", "three_no_bet_coups"]));
    vec![
        (
            "start_shoe",
            vec![("source", shoe_source), ("cut", cut), ("burn", burn), ("show_burn", boolean())],
            vec!["source", "show_burn"],
        ),
        ("open_betting", vec![("no_bet", boolean()), ("closes_at", nullable(u64s()))], vec!["no_bet"]),
        (
            "place_wager",
            vec![
                ("player", u32s()),
                ("spot", spot()),
                ("bet", string_enum(&bet_ids())),
                ("amount", money()),
                ("ante", money()),
                ("token", boolean()),
                ("at_ms", nullable(u64s())),
            ],
            vec!["player", "spot", "bet", "amount", "ante", "token"],
        ),
        ("reopen_wagers", vec![], vec![]),
        ("invalid_bet", vec![("wager", u64s())], vec!["wager"]),
        (
            "set_personal_limits",
            vec![("player", u32s()), ("min", money()), ("max", money())],
            vec!["player", "min", "max"],
        ),
        ("announce_minimum", vec![("minimum", money()), ("at_ms", u64s())], vec!["minimum", "at_ms"]),
        (
            "change_minimum",
            vec![("minimum", money()), ("at_ms", u64s()), ("present", array(u32s()))],
            vec!["minimum", "at_ms", "present"],
        ),
        (
            "change_limits",
            vec![("bet", string_enum(&bet_ids())), ("min", nullable(money())), ("max", money())],
            vec!["bet", "max"],
        ),
        ("withdraw_wager", vec![("player", u32s()), ("wager", u64s())], vec!["player", "wager"]),
        ("approve_wager", vec![("wager", u64s())], vec!["wager"]),
        ("refuse_wager", vec![("wager", u64s())], vec!["wager"]),
        ("close_betting", vec![], vec![]),
        ("deal_next", vec![], vec![]),
        (
            "card_in",
            vec![("card", card()), ("to", nullable(position())), ("face_up", boolean())],
            vec!["card", "face_up"],
        ),
        ("face_up_in_shoe", vec![("card", card())], vec!["card"]),
        ("cutting_card_out", vec![], vec![]),
        ("missing_or_foreign", vec![("card", nullable(card()))], vec![]),
        ("misdeal", vec![("reconstructed", nullable(cards()))], vec![]),
        ("expose", vec![("side", side()), ("player", nullable(u32s()))], vec!["side"]),
        ("decline_cards", vec![("player", u32s())], vec!["player"]),
        ("appoint_nominee", vec![("player", u32s()), ("nominee", nullable(u32s()))], vec!["player"]),
        ("take_marker", vec![("player", u32s()), ("seat", u8s())], vec!["player", "seat"]),
        ("pass_marker", vec![("player", u32s())], vec!["player"]),
        ("resume_coup", vec![], vec![]),
        ("scanner_discrepancy", vec![("confirmed", nullable(cards()))], vec![]),
        ("invalidate", vec![("forfeit", array(u32s())), ("reason", nullable(string()))], vec!["forfeit"]),
        (
            "shuffler_malfunction",
            vec![("disadvantage", boolean()), ("other_device", boolean())],
            vec!["disadvantage", "other_device"],
        ),
        ("interrupted", vec![], vec![]),
        ("void_interrupted", vec![], vec![]),
        ("wrong_hand", vec![("void_hand", boolean())], vec!["void_hand"]),
    ]
}

fn command_schema() -> Value {
    let variants: Vec<Value> = commands()
        .into_iter()
        .map(|(name, fields, required)| {
            let mut props = vec![("command", string_enum(&[name]))];
            props.extend(fields);
            let mut req = vec!["command"];
            req.extend(required);
            object_with(&props, &req)
        })
        .collect();
    let names: Vec<&str> = commands().iter().map(|c| c.0).collect();
    json!({
        "description": "A command to the table engine, tagged by `command`. Which staff may send which command \
                        at which kind of table is the trust matrix's (trust.rs): at an RNG table no person sends \
                        cards, seeds or the pace.",
        "type": "object",
        "required": ["command"],
        "properties": { "command": string_enum(&names) },
        "oneOf": variants,
    })
}

fn components() -> Value {
    json!({
        "securitySchemes": {
            "bearer": { "type": "http", "scheme": "bearer", "description": "The token POST /api/login answers" },
            "cookie": {
                "type": "apiKey", "in": "cookie", "name": crate::http::SESSION_COOKIE,
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
            "WagerReply": reply("wager", &[("wager", u64s()), ("balance", money())]),
            "RefusedReply": refused_reply(),
            "SlipReply": reply("wagers", &[
                ("results", array(json!({ "oneOf": [schema_ref("WagerReply"), schema_ref("RefusedReply")] }))),
                ("balance", money()),
            ]),
            "TableReply": reply("table", &[("table", u32s())]),
            "DepositReply": reply("deposit", &[("balance", money())]),
            "TournamentReply": reply("tournament", &[("tournament", u32s()), ("entrants", u64s())]),
            "PromotionReply": reply("promotion", &[("promotion", u32s())]),
            "EventsReply": reply("events", &[("count", u64s())]),
            "LedgerReply": reply("ledger", &[
                ("ok", boolean()),
                ("problem", nullable(string())),
                ("accounts", u64s()),
                ("transfers", u64s()),
            ]),
        },
    })
}

// ---------------------------------------------------------------------------
// Operations.

/// (method, path template, operation).
type Operation = (&'static str, &'static str, Op);

/// One operation, its responses added as what it takes implies.
struct Op(Value);

impl Op {
    fn new(summary: &str) -> Op {
        Op(json!({ "summary": summary, "responses": {} }))
    }

    fn describe(mut self, text: &str) -> Op {
        self.0["description"] = json!(text);
        self
    }

    /// A response with the error body; a second reason for a status is added
    /// to its description.
    fn err(mut self, status: u16, why: &str) -> Op {
        let key = status.to_string();
        let r = &mut self.0["responses"][&key];
        match r["description"].as_str() {
            Some(d) => *r = json!({ "description": format!("{d}; {why}"), "content": r["content"].clone() }),
            None => {
                *r = json!({ "description": why, "content": { "application/json": { "schema": schema_ref("Error") } } })
            }
        }
        if status == 429 {
            r["headers"] = json!({ "Retry-After": {
                "description": "seconds to wait (retry_after_ms rounded up)",
                "schema": { "type": "integer", "minimum": 0 }
            } });
        }
        self
    }

    fn ok(mut self, why: &str, schema: Value) -> Op {
        self.0["responses"]["200"] =
            json!({ "description": why, "content": { "application/json": { "schema": schema } } });
        self
    }

    fn page(mut self, why: &str, kinds: &[&str]) -> Op {
        let content: Map<String, Value> = kinds
            .iter()
            .map(|k| {
                let schema = if *k == "application/json" { json!({ "type": "object" }) } else { string() };
                (k.to_string(), json!({ "schema": schema }))
            })
            .collect();
        self.0["responses"]["200"] = json!({ "description": why, "content": content });
        self.0["responses"]["404"] = json!({
            "description": "no such file (a page, not the API: plain text)",
            "content": { "text/plain": { "schema": string() } }
        });
        self
    }

    fn param(mut self, p: Value) -> Op {
        match self.0["parameters"].as_array_mut() {
            Some(list) => list.push(p),
            None => self.0["parameters"] = json!([p]),
        }
        self
    }

    /// A session: bearer token or cookie; 401 without a live one.
    fn auth(mut self) -> Op {
        self.0["security"] = json!([{ "bearer": [] }, { "cookie": [] }]);
        self.err(401, "not signed in, or the session has ended (`unauthorized`)")
    }

    /// Only these roles; 403 for the others.
    fn roles(self, roles: &str) -> Op {
        self.err(403, &format!("{roles} only (`role`)"))
    }

    /// A path `{id}`: a u32; 400 otherwise, 404 where nothing has it.
    fn id(self, what: &str, missing: &str) -> Op {
        self.param(json!({
            "name": "id", "in": "path", "required": true,
            "description": format!("the {what}'s id"),
            "schema": u32s(),
            "example": if what == "player" { 5 } else { 1 },
        }))
        .err(400, "id: a whole number from 0 to 4294967295 (`bad_request`)")
        .err(404, missing)
    }

    /// A JSON body, read after the session (so a stranger gets 401 whatever the
    /// body is).
    fn body(mut self, schema: Value) -> Op {
        self.0["requestBody"] = json!({ "required": true, "content": { "application/json": { "schema": schema } } });
        self.err(400, "malformed JSON or a field out of bounds, named in the message (`bad_request`)")
            .err(413, "the body is over 16 KB (`too_large`)")
            .err(415, "the body is not Content-Type: application/json (`media_type`)")
            .err(422, "well-formed JSON of the wrong shape: a missing, unknown or mistyped field (`unprocessable`)")
    }

    /// An example of the body (after [`Op::body`]).
    fn example(mut self, body: Value) -> Op {
        self.0["requestBody"]["content"]["application/json"]["example"] = body;
        self
    }

    /// Named examples of the body, in order (after [`Op::body`]): numbered,
    /// since the document's maps are sorted by key.
    fn examples(mut self, list: &[(&str, Value)]) -> Op {
        let named: Map<String, Value> =
            list.iter().enumerate().map(|(i, (k, v))| (format!("{:02}-{k}", i + 1), json!({ "value": v }))).collect();
        self.0["requestBody"]["content"]["application/json"]["examples"] = Value::Object(named);
        self
    }

    /// Rate-limited per user.
    fn limited(self) -> Op {
        self.err(429, "over the user's rate (`rate`); retry after `retry_after_ms`")
    }

    /// Answered by the writer once durable.
    fn writer(self) -> Op {
        self.err(503, "the table server's writer has stopped (`unavailable`)")
    }

    /// A game refusal, by its kind.
    fn refusals(self) -> Op {
        self.err(
            409,
            "refused by the game: a rulebook's rule (`rule`, naming it in `rule`), the wallet, the float, the \
             table stopped (`halted`), a reused idempotency key, a bound, the kind of table (`mode`), the ledger \
             or the engine",
        )
    }
}

/// The 404 of a route with a table `{id}`.
const NO_TABLE: &str = "no such table (`no_table`)";

/// An operation on a table: its `{id}` (400, 404) after the session, if any.
fn on_table(op: Op) -> Op {
    op.id("table", NO_TABLE)
}

/// The idempotency key of a money command.
fn key() -> Value {
    json!({
        "type": "string", "minLength": 1, "maxLength": 128,
        "description": "the client's idempotency key, 1 to 128 bytes: a retry with the same key and request \
                        answers the first result; the key with another request is refused (`idempotency`)",
    })
}

/// A positive amount in minor units, at most `MAX_LIMIT`.
fn amount() -> Value {
    let mut a = int(1, MAX_LIMIT);
    a["description"] = json!("minor units");
    a
}

/// A name of 1 to 64 bytes.
fn name64() -> Value {
    json!({ "type": "string", "minLength": 1, "maxLength": 64, "description": "1 to 64 bytes" })
}

/// A new password: 4 characters to 128 bytes (`auth::MIN_PASSWORD`).
fn password() -> Value {
    let min = crate::auth::MIN_PASSWORD;
    json!({ "type": "string", "minLength": min, "maxLength": 128,
            "description": format!("{min} characters to 128 bytes") })
}

/// A field that may only be `null` (serde reads it as absent).
fn null_only(ty: &str) -> Value {
    json!({ "type": ty, "nullable": true, "enum": [null] })
}

/// The body of a wager or a bet slip (`play.rs`'s `WagerBody`, `SlipLine`).
/// Every optional field is an `Option` read with `#[serde(default)]`, so
/// `null` stands for absent.
fn wager_body() -> Value {
    let spot = || {
        let mut b = nullable(int(1, 14));
        b["description"] = json!("the box (default: one derived from the player's id)");
        b
    };
    let ante = || {
        let mut a = nullable(int(0, MAX_LIMIT));
        a["description"] = json!("the ante with an initial wager at an Ante Up table (AU 14.5)");
        a
    };
    let bet = || string_enum(&bet_ids());
    let line = closed(&[("bet", bet()), ("amount", amount()), ("spot", spot()), ("ante", ante())], &["bet", "amount"]);
    let slip = json!({ "type": "array", "minItems": 1, "maxItems": crate::casino::MAX_SLIP, "items": line });
    let one = closed(
        &[
            ("bet", bet()),
            ("amount", amount()),
            ("spot", spot()),
            ("ante", ante()),
            ("wagers", null_only("array")),
            ("token", {
                let mut t = nullable(boolean());
                t["description"] = json!("made with the player's promotional tokens (NSW 1.1); no ante");
                t
            }),
            ("key", key()),
        ],
        &["bet", "amount", "key"],
    );
    let slip = closed(
        &[
            ("wagers", slip),
            ("spot", spot()),
            ("bet", null_only("string")),
            ("amount", null_only("integer")),
            ("ante", null_only("integer")),
            ("token", json!({ "type": "boolean", "enum": [false], "nullable": true })),
            ("key", key()),
        ],
        &["wagers", "key"],
    );
    json!({ "oneOf": [one, slip] })
}

/// The pages: `web.rs`.
fn page_operations() -> Vec<Operation> {
    let asset = Op::new(
        "A file of the pages: index.html, pit.html, tournament.html, leaderboard.html, fair.html, help.html, \
         style.css, common.js, table.js, pit.js (with pit-base.js, pit-words.js, pit-cards.js, pit-dialogs.js and \
         pit-recall.js), tournament.js, leaderboard.js, fair.js, help.js, sound.js, limits.js, \
         i18n.js, and the player's page's message catalogue messages.json",
    )
    .param(json!({ "name": "name", "in": "path", "required": true, "schema": string(), "example": "style.css" }))
    .page("the file", &["text/html", "text/css", "text/javascript", "application/json"]);
    vec![
        ("get", "/", Op::new("The lobby and table page (HTML)").page("the page", &["text/html"])),
        ("get", "/pit", Op::new("The pit console and the inspector's recall (HTML)").page("the page", &["text/html"])),
        (
            "get",
            "/tournament",
            Op::new("A player's tournament page, `?t=<id>` (HTML)").page("the page", &["text/html"]),
        ),
        (
            "get",
            "/leaderboard",
            Op::new("A tournament's public leaderboard, `?t=<id>` (HTML)").page("the page", &["text/html"]),
        ),
        (
            "get",
            "/fair",
            Op::new("A table's shoes, provably fair: commitments, seeds, the check, `?table=<id>` (HTML)")
                .page("the page", &["text/html"]),
        ),
        (
            "get",
            "/help",
            Op::new("A table's rules, pay tables and house edges, `?table=<id>` (HTML)")
                .page("the page", &["text/html"]),
        ),
        ("get", "/assets/{name}", asset),
    ]
}

/// Signing in and out, who I am: `session.rs`, and `play.rs`'s history.
fn session_operations() -> Vec<Operation> {
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
        .ok(
            "signed in",
            object(&[
                ("token", string()),
                ("user", u32s()),
                ("name", string()),
                ("role", role()),
                ("idle_seconds", u64s()),
                ("max_seconds", u64s()),
            ]),
        )
        .err(401, "wrong name or password (`unauthorized`)")
        .err(429, "too many sign-ins from this address, for this name or on this server (`rate`)")
        .err(503, "the sign-in pool is busy (`unavailable`)");
    let logout = Op::new("Sign out: this session ends and the cookie is cleared")
        .auth()
        .ok("signed out", object(&[("revoked", json!({ "type": "boolean", "enum": [true] }))]));
    let me = Op::new("Who I am, my wallet and my promotional tokens available (minor units)").auth().ok(
        "me",
        object(&[
            ("user", u32s()),
            ("name", string()),
            ("role", role()),
            ("balance", money()),
            ("available", money()),
            ("tokens", money()),
        ]),
    );
    let password_change =
        Op::new("Change my password: every session of mine ends and a fresh one is opened for this client")
            .auth()
            .body(closed(
                &[("old", json!({ "type": "string", "maxLength": 128 })), ("new", password())],
                &["old", "new"],
            ))
            .ok("changed", object(&[("token", string()), ("revoked_others", boolean())]))
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

/// The lobby, one table, its WebSocket, and a player's routes: `mod.rs`, `play.rs`.
fn table_operations() -> Vec<Operation> {
    let lobby = Op::new("The lobby: every table's public view")
        .ok("tables", object(&[("tables", array(schema_ref("TableView")))]));
    let create = Op::new("Admin: create a table from a configuration in TOML, checked against its rulebook profile")
        .auth()
        .roles("admins")
        .limited()
        .body(closed(
            &[
                (
                    "name",
                    json!({ "type": "string", "minLength": 1, "maxLength": 64,
                            "description": "1 to 64 bytes, not only spaces" }),
                ),
                (
                    "config",
                    json!({ "type": "string", "description": "a table configuration in TOML, with its `rulebook`" }),
                ),
                ("mode", nullable(string_enum(&["rng", "live"]))),
            ],
            &["name", "config"],
        ))
        .example(json!({
            "name": "Salon 9",
            "config": "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 100000\n",
            "mode": "rng",
        }))
        .ok("created", schema_ref("TableReply"))
        .err(400, "config: not TOML, or no `rulebook` (`bad_request`)")
        .err(422, "the configuration's problems against its profile, or the casino's bounds (`config`)")
        .writer();
    let one = on_table(Op::new("One table's public view")).ok("the table", schema_ref("TableView"));
    let mut ws = on_table(Op::new("WebSocket: the table's view after every durable change").describe(
        "Signed in by the session cookie sent with the upgrade, or by a first message {\"token\": …}; never by \
             the URL. Each message is the table as the viewer may see it, their balance and their wagers in this \
             coup, the server's time (`now_ms`) and how long a player may squeeze a hand out with them at an \
             RNG table (`squeeze_ms`) before the dealer exposes it. A dealer's, supervisor's or admin's message also \
             carries `pit` (as GET …/pit without the table and the rulebook's quotes: the coup's wagers and \
             approvals, the notices, the shoes), so the pit console polls nothing.",
    ))
    .err(400, "a token in the URL (`bad_request`), or not a WebSocket upgrade (`upgrade`)")
    .err(401, "the cookie's session has ended (`unauthorized`)")
    .err(426, "the connection cannot be upgraded (`upgrade`)");
    ws.0["security"] = json!([{}, { "cookie": [] }]);
    ws.0["responses"]["101"] = json!({ "description": "switching to the WebSocket" });
    let wagers =
        on_table(Op::new("Player: place a wager, or a bet slip of up to 32; acknowledged once durable").describe(
            "One wager ({bet, amount, spot?, ante?, key}) or a slip ({wagers: [{bet, amount, spot?, ante?}], \
             spot?, key}): each line of a slip is placed or refused on its own. Retry with the same key.",
        ))
        .auth()
        .roles("players")
        .limited()
        .body(wager_body())
        .example(json!({ "bet": "banker", "amount": 1000, "key": "wager-1" }))
        .ok(
            "placed (one wager), or each line's result (a slip)",
            json!({ "oneOf": [schema_ref("WagerReply"), schema_ref("SlipReply")] }),
        )
        .err(
            400,
            "an unknown bet id, an amount or ante out of range, a box not from 1 to 14, an empty or long slip, a key \
         not 1 to 128 bytes, bet and wagers together or neither (`bad_request`, `slip`)",
        )
        .err(403, "the player's own loss or time limit, or cool-off, refuses it (`self_limit`): /api/me/limits")
        .refusals()
        .writer();
    let withdraw = on_table(Op::new("Player: take back one's own wager while betting is open (NSW 5.4)"))
        .auth()
        .roles("players")
        .limited()
        .body(closed(&[("wager", u64s())], &["wager"]))
        .example(json!({ "wager": 1 }))
        .ok("withdrawn", schema_ref("EventsReply"))
        .refusals()
        .writer();
    let hand = on_table(Op::new(
        "Player holding a hand to squeeze: expose it, or decline it so it passes on (NSW 8.9-8.15; AU 8.9-8.16)",
    ))
    .auth()
    .roles("players")
    .limited()
    .body(closed(&[("action", string_enum(&["expose", "decline"])), ("side", nullable(side()))], &["action"]))
    .example(json!({ "action": "expose", "side": "player" }))
    .ok("done", schema_ref("EventsReply"))
    .refusals()
    .err(409, "no hand is out with a player to expose (`conflict`)")
    .writer();
    vec![
        ("get", "/api/tables", lobby),
        ("post", "/api/tables", create),
        ("get", "/api/tables/{id}", one),
        ("get", "/api/tables/{id}/ws", ws),
        ("post", "/api/tables/{id}/wagers", wagers),
        ("post", "/api/tables/{id}/withdraw", withdraw),
        ("post", "/api/tables/{id}/hand", hand),
    ]
}

/// The pit: commands, the console, opening, voiding, recall: `staff.rs`, and
/// the provably fair shoes (`mod.rs`).
fn pit_operations() -> Vec<Operation> {
    // Examples: a coup's commands at a live table (5 in the demo casino), in
    // the order a dealer sends them.
    let card = |c: &str| json!({ "command": "card_in", "card": c, "face_up": true });
    let live_coup = [
        (
            "start_live_shoe",
            json!({ "command": "start_shoe", "source": { "live": { "decks": 8 } },
                    "cut": { "at": 100, "from_back": 30 }, "burn": null, "show_burn": false }),
        ),
        ("open_betting", json!({ "command": "open_betting", "no_bet": false })),
        ("close_betting", json!({ "command": "close_betting" })),
        ("player_first_card", card("2H")),
        ("banker_first_card", card("3S")),
        ("player_second_card", card("9D")),
        ("banker_second_card", card("KC")),
        ("player_third_card", card("5C")),
        ("banker_third_card", card("4D")),
        ("invalidate", json!({ "command": "invalidate", "forfeit": [], "reason": "invalidated" })),
    ];
    let mut command = on_table(Op::new(
        "Dealer, supervisor, admin: a command to the table engine (dealing, irregularities; a supervisor's \
         approvals, refusals, voids and limits)",
    ))
    .auth()
    .roles("dealers, supervisors and admins")
    .err(403, "the trust matrix: this role may not send this command at this kind of table (`role`)")
    .limited()
    .body(schema_ref("Command"))
    .examples(&live_coup)
    .ok("the events applied", schema_ref("EventsReply"))
    .refusals()
    .writer();
    command.0["parameters"][0]["example"] = json!(5);
    let rule = object_with(&[("key", string()), ("cite", string()), ("quote", nullable(string()))], &["key", "cite"]);
    let notice = object(&[("seq", u64s()), ("rule", string()), ("event", json!({ "type": "object" }))]);
    let pit = on_table(Op::new(
        "Dealer, supervisor, admin: the pit console's view: the coup's wagers and their status, rule-bearing \
         events, every rule the profile cites with its text",
    ))
    .auth()
    .roles("dealers, supervisors and admins")
    .ok(
        "the pit view",
        object(&[
            ("table", schema_ref("TableView")),
            ("coup", schema_ref("CoupFeed")),
            ("names", json!({ "type": "object", "additionalProperties": { "type": "string" } })),
            ("notices", array(notice)),
            ("rules", array(rule)),
            ("shoes", array(schema_ref("Shoe"))),
            ("squeeze_seconds", u64s()),
        ]),
    );
    let open = on_table(Op::new(
        "Supervisor, admin: open or close the table; a closed table finishes its coup and deals no more",
    ))
    .auth()
    .roles("supervisors and admins")
    .limited()
    .body(closed(&[("open", boolean())], &["open"]))
    .example(json!({ "open": true }))
    .ok("done", schema_ref("TableReply"))
    .writer();
    let void = on_table(
        Op::new(
            "Supervisor, admin: void the coup of a table the server stopped because an invariant broke (every \
             stake returned, the interruption recorded under the profile's rule)",
        )
        .describe("No body is read."),
    )
    .auth()
    .roles("supervisors and admins")
    .limited()
    .ok("the events applied", schema_ref("EventsReply"))
    .err(409, "the table is not stopped (`halted`), or the void was refused")
    .writer();
    let counts = || json!({ "type": "object", "additionalProperties": { "type": "integer" } });
    let record = object(&[
        ("seq", u64s()),
        ("hash", string()),
        ("by", nullable(json!({ "type": "object" }))),
        ("event", nullable(json!({ "type": "object" }))),
    ]);
    let coup = object(&[
        ("coup", u64s()),
        ("rulebook", string()),
        ("rulebook_sha256", string()),
        ("engine", string()),
        ("records", array(record)),
    ]);
    let voids = object(&[("list", array(json!({ "type": "object" }))), ("by_person", counts()), ("by_shoe", counts())]);
    let audit = on_table(Op::new(
        "Inspector, admin: game recall, the last N coups step by step from the audit record, with who issued each \
         command, and the table's voids after the cards were out, per person and per shoe",
    ))
    .auth()
    .param(json!({
        "name": "last", "in": "query", "required": false,
        "description": "how many coups (default 5; clamped to 1..100)",
        "schema": u64s(),
    }))
    .err(400, "query: `last` is not a whole number (`bad_request`)")
    .roles("inspectors and admins")
    .ok("the recall", object(&[("table", u32s()), ("coups", array(coup)), ("voids", voids)]));
    let shoes = on_table(Op::new(
        "Provably fair: each shoe's SHA-256 seed commitment and cut, and the seed once the shoe has ended",
    ))
    .ok("the shoes", object(&[("table", u32s()), ("algorithm", string()), ("shoes", array(schema_ref("Shoe")))]));
    let outcome = object(&[("outcome", string()), ("pays", string()), ("probability", string())]);
    let mut priced = offer_fields();
    priced.extend([
        ("house_edge", nullable(string())),
        ("house_edge_exact", nullable(string())),
        ("outcomes", array(outcome)),
        ("not_priced", nullable(string())),
    ]);
    let offer = object(&priced);
    let rule = object(&[("key", string()), ("cite", string()), ("quote", string())]);
    let help = on_table(Op::new(
        "A table's help: each wager offered with its pay table, its limits and its house edge from the exact odds of \
         a full shoe (as a percentage and an exact fraction), and the rulebook's rules in its own words",
    ))
    .ok(
        "the help",
        object(&[
            ("table", u32s()),
            ("name", string()),
            ("rulebook", string()),
            ("rulebook_title", string()),
            ("variant", string()),
            ("mode", string()),
            ("dealing", string()),
            ("decks", u32s()),
            ("chip", money()),
            ("min", money()),
            ("max", money()),
            ("differential", nullable(money())),
            ("offers", array(offer)),
            ("rules", array(rule)),
        ]),
    );
    vec![
        ("get", "/api/tables/{id}/help", help),
        ("post", "/api/tables/{id}/commands", command),
        ("get", "/api/tables/{id}/pit", pit),
        ("post", "/api/tables/{id}/open", open),
        ("post", "/api/tables/{id}/void", void),
        ("get", "/api/tables/{id}/audit", audit),
        ("get", "/api/tables/{id}/shoes", shoes),
    ]
}

/// The cage and the inspector: `staff.rs`; and this document.
fn cage_operations() -> Vec<Operation> {
    let player = Op::new("Admin: create a player, with play chips")
        .auth()
        .roles("admins")
        .limited()
        .body(closed(
            &[("name", name64()), ("password", password()), ("chips", int(0, MAX_LIMIT))],
            &["name", "password"],
        ))
        .example(json!({ "name": "newcomer", "password": "secret", "chips": 100000 }))
        .ok("created", object(&[("player", u32s()), ("name", string())]))
        .err(409, "the name is taken, or the opening chips were refused (`conflict`, …)")
        .writer();
    let deposit = Op::new("Admin: chips from the cage into a player's wallet")
        .auth()
        .id("player", "no such player, or not a player (`no_player`)")
        .roles("admins")
        .limited()
        .body(closed(&[("amount", amount()), ("key", key())], &["amount", "key"]))
        .example(json!({ "amount": 100000, "key": "cage-1" }))
        .ok("the new balance", schema_ref("DepositReply"))
        .err(409, "the key was used for another deposit (`idempotency`), or the ledger refused (`ledger`)")
        .writer();
    let ledger = Op::new("Inspector, admin: the ledger's invariants, checked in full now")
        .describe(
            "Checked on the database, off the writer: the latest checkpoint (its hash and signature) and the \
             transfers after it rebuild the ledger; the balances must be the stored ones, the holds must match, and \
             every hold must be for a wager its table still holds.",
        )
        .auth()
        .roles("inspectors and admins")
        .ok("the check", schema_ref("LedgerReply"))
        .err(500, "the database could not be read (`internal`)");
    let verify = Op::new("Inspector, admin: `baccarat verify` over the database now")
        .describe(
            "Chains against their signed anchors, seeds against commitments, cards, results, settlements, the \
             betting clock, the ledger reconciled with the audit log; voids after the cards were out listed.",
        )
        .auth()
        .roles("inspectors and admins")
        .ok(
            "the findings",
            object(&[
                ("ok", boolean()),
                ("tables", u64s()),
                ("records", u64s()),
                ("shoes", u64s()),
                ("coups", u64s()),
                ("settlements", u64s()),
                ("problems", array(string())),
                ("voids", array(json!({ "type": "object" }))),
                ("unanchored", array(string())),
                ("anchor_key", nullable(string())),
            ]),
        );
    let this = Op::new("This document").ok("OpenAPI 3.0.3", json!({ "type": "object" }));
    vec![
        ("post", "/api/players", player),
        ("post", "/api/players/{id}/deposit", deposit),
        ("get", "/api/ledger/check", ledger),
        ("get", "/api/verify", verify),
        ("get", "/api/openapi.json", this),
    ]
}

/// Every operation: (method, path, operation).
fn operations() -> Vec<Operation> {
    [
        page_operations(),
        session_operations(),
        table_operations(),
        pit_operations(),
        cage_operations(),
        tournaments::operations(),
        tournaments::play_operations(),
        promotions::operations(),
        self_limits::operations(),
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

#[cfg(test)]
mod tests {
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
            Rule | NoTable | NoPlayer | Wallet | Float | Ledger | Slip | Bounds | Mode | Config | Idempotency
            | Halted | Role | Entropy | Engine | Settling | Unavailable | NoTournament | NoPromotion | SelfLimit => (),
        };
        for k in Code::ALL {
            let wire = serde_json::to_value(k).unwrap();
            assert!(ERROR_CODES.contains(&wire.as_str().unwrap()), "{wire} is not in the Error schema's codes");
        }
        let schema = &document()["components"]["schemas"]["Error"];
        assert_eq!(schema["properties"]["code"]["enum"], json!(ERROR_CODES));
        assert_eq!(schema["required"], json!(["error", "code"]));
    }

    /// The Command schema names every command the engine takes: each variant
    /// serialised by serde carries a `command` the schema lists.
    #[test]
    fn the_command_schema_names_the_engines_commands() {
        use baccarat_table::engine::Command;
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
    fn name_of(c: &baccarat_table::engine::Command) -> &'static str {
        use baccarat_table::engine::Command::*;
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
}
