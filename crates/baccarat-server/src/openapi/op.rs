//! [`Op`], the builder every operation is written with: it adds the
//! responses that follow from what a route takes (a session: 401; a path id:
//! 400 and 404; a JSON body: 400, 413, 415, 422; a rate limit: 429; the
//! writer: 503), so that each route lists only its own.

use serde_json::{json, Map, Value};

use super::schema::*;

/// (method, path template, operation).
pub(super) type Operation = (&'static str, &'static str, Op);

/// One operation, its responses added as what it takes implies.
pub(super) struct Op(pub(super) Value);

impl Op {
    pub(super) fn new(summary: &str) -> Op {
        Op(json!({ "summary": summary, "responses": {} }))
    }

    pub(super) fn describe(mut self, text: &str) -> Op {
        self.0["description"] = json!(text);
        self
    }

    /// A response with the error body; a second reason for a status is added
    /// to its description.
    pub(super) fn err(mut self, status: u16, why: &str) -> Op {
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

    pub(super) fn ok(mut self, why: &str, schema: Value) -> Op {
        self.0["responses"]["200"] =
            json!({ "description": why, "content": { "application/json": { "schema": schema } } });
        self
    }

    pub(super) fn page(mut self, why: &str, kinds: &[&str]) -> Op {
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

    pub(super) fn param(mut self, p: Value) -> Op {
        match self.0["parameters"].as_array_mut() {
            Some(list) => list.push(p),
            None => self.0["parameters"] = json!([p]),
        }
        self
    }

    /// A session: bearer token or cookie; 401 without a live one.
    pub(super) fn auth(mut self) -> Op {
        self.0["security"] = json!([{ "bearer": [] }, { "cookie": [] }]);
        self.err(401, "not signed in, or the session has ended (`unauthorized`)")
    }

    /// Only these roles; 403 for the others.
    pub(super) fn roles(self, roles: &str) -> Op {
        self.err(403, &format!("{roles} only (`role`)"))
    }

    /// A path `{id}`: a u32; 400 otherwise, 404 where nothing has it.
    pub(super) fn id(self, what: &str, missing: &str) -> Op {
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
    pub(super) fn body(mut self, schema: Value) -> Op {
        self.0["requestBody"] = json!({ "required": true, "content": { "application/json": { "schema": schema } } });
        self.err(400, "malformed JSON or a field out of bounds, named in the message (`bad_request`)")
            .err(413, "the body is over 16 KB (`too_large`)")
            .err(415, "the body is not Content-Type: application/json (`media_type`)")
            .err(422, "well-formed JSON of the wrong shape: a missing, unknown or mistyped field (`unprocessable`)")
    }

    /// An example of the body (after [`Op::body`]).
    pub(super) fn example(mut self, body: Value) -> Op {
        self.0["requestBody"]["content"]["application/json"]["example"] = body;
        self
    }

    /// Named examples of the body, in order (after [`Op::body`]): numbered,
    /// since the document's maps are sorted by key.
    pub(super) fn examples(mut self, list: &[(&str, Value)]) -> Op {
        let named: Map<String, Value> =
            list.iter().enumerate().map(|(i, (k, v))| (format!("{:02}-{k}", i + 1), json!({ "value": v }))).collect();
        self.0["requestBody"]["content"]["application/json"]["examples"] = Value::Object(named);
        self
    }

    /// Rate-limited per user.
    pub(super) fn limited(self) -> Op {
        self.err(429, "over the user's rate (`rate`); retry after `retry_after_ms`")
    }

    /// Answered by the writer once durable.
    pub(super) fn writer(self) -> Op {
        self.err(503, "the table server's writer has stopped (`unavailable`)")
    }

    /// A game refusal, by its kind.
    pub(super) fn refusals(self) -> Op {
        self.err(
            409,
            "refused by the game: a rulebook's rule (`rule`, naming it in `rule`), the wallet, the float, the \
             table stopped (`halted`), a reused idempotency key, a bound, the kind of table (`mode`), the ledger \
             or the engine; the table closed for good, or closing (`closed`)",
        )
    }
}

/// The 404 of a route with a table `{id}`.
pub(super) const NO_TABLE: &str = "no such table (`no_table`)";

/// An operation on a table: its `{id}` (400, 404) after the session, if any.
pub(super) fn on_table(op: Op) -> Op {
    op.id("table", NO_TABLE)
}
