//! The server's own OpenAPI document, written here (nothing is generated or
//! downloaded at build time).

use serde_json::{json, Value};

pub fn document() -> Value {
    let bearer = json!([{ "bearer": [] }]);
    json!({
        "openapi": "3.0.3",
        "info": { "title": "baccarat table server", "version": env!("CARGO_PKG_VERSION") },
        "components": { "securitySchemes": { "bearer": { "type": "http", "scheme": "bearer" } } },
        "paths": {
            "/api/login": { "post": { "summary": "Sign in; returns a session token", "requestBody": { "content": { "application/json": { "schema": { "type": "object", "required": ["name", "password"], "properties": { "name": { "type": "string" }, "password": { "type": "string" } } } } } }, "responses": { "200": { "description": "token, user, role" }, "401": { "description": "wrong name or password" } } } },
            "/api/logout": { "post": { "summary": "Revoke this session", "security": bearer, "responses": { "200": { "description": "revoked" } } } },
            "/api/me": { "get": { "summary": "Who I am and my wallet", "security": bearer, "responses": { "200": { "description": "balance and available, minor units" } } } },
            "/api/tables": { "get": { "summary": "The lobby", "responses": { "200": { "description": "every table's public view" } } }, "post": { "summary": "Admin: create a table ({name, config: TOML checked against its rulebook profile, mode?: rng|live})", "security": bearer, "responses": { "200": { "description": "table id" }, "400": { "description": "malformed" }, "409": { "description": "the configuration's problems, each with its field" } } } },
            "/api/tables/{id}": { "get": { "summary": "One table's public view", "responses": { "200": { "description": "view" }, "404": { "description": "no such table" } } } },
            "/api/tables/{id}/ws": { "get": { "summary": "WebSocket: the table's view after every durable change (token=… for the viewer's balance)", "responses": { "101": { "description": "upgrade" } } } },
            "/api/tables/{id}/wagers": { "post": { "summary": "Place a wager ({bet, amount, spot?, key}) or a bet slip ({wagers: [{bet, amount, spot?}], key}: each line placed or refused on its own, line i keyed key#i); acknowledged once durable; retry with the same key", "security": bearer, "requestBody": { "content": { "application/json": { "schema": { "type": "object", "required": ["key"], "properties": { "bet": { "type": "string" }, "amount": { "type": "integer" }, "spot": { "type": "integer" }, "wagers": { "type": "array", "maxItems": 32, "items": { "type": "object", "required": ["bet", "amount"], "properties": { "bet": { "type": "string" }, "amount": { "type": "integer" }, "spot": { "type": "integer" } } } }, "key": { "type": "string" } } } } } }, "responses": { "200": { "description": "wager id (or per-line results) and available balance" }, "400": { "description": "malformed, with the field" }, "409": { "description": "refused, with the rule" }, "429": { "description": "over the rate; retry_after_ms" } } } },
            "/api/tables/{id}/withdraw": { "post": { "summary": "Player: take back one's own wager while betting is open ({wager})", "security": bearer, "responses": { "200": { "description": "returned" }, "409": { "description": "refused, with the rule" } } } },
            "/api/tables/{id}/hand": { "post": { "summary": "Player holding a hand to squeeze: {action: expose|decline, side?}", "security": bearer, "responses": { "200": { "description": "done" }, "409": { "description": "not this player's hand, with the rule" } } } },
            "/api/tables/{id}/pit": { "get": { "summary": "Dealer, supervisor: the coup's wagers and their status, rule-bearing events, and every rule the profile cites with its text", "security": bearer, "responses": { "200": { "description": "pit view" } } } },
            "/api/tables/{id}/open": { "post": { "summary": "Supervisor: open or close the table ({open}); a closed table finishes its coup and stops", "security": bearer, "responses": { "200": { "description": "done" } } } },
            "/api/tables/{id}/void": { "post": { "summary": "Supervisor: void the coup of a table the server stopped because an invariant broke (every stake returned, the interruption recorded under the profile's rule)", "security": bearer, "responses": { "200": { "description": "events applied" }, "403": { "description": "supervisors and admins only" }, "409": { "description": "the table is not stopped" } } } },
            "/api/me/history": { "get": { "summary": "My settled wagers, newest first, line by line", "security": bearer, "responses": { "200": { "description": "history" } } } },
            "/api/players": { "post": { "summary": "Admin: create a player ({name, password, chips?})", "security": bearer, "responses": { "200": { "description": "player id" }, "409": { "description": "name taken" } } } },
            "/api/ledger/check": { "get": { "summary": "Inspector, admin: the ledger's invariants checked in full now", "security": bearer, "responses": { "200": { "description": "ok, problem, counts" } } } },
            "/api/verify": { "get": { "summary": "Inspector, admin: baccarat verify over the database now (chains against their signed anchors, seeds, cards, results, settlements, the betting clock, the ledger reconciled with the audit log; voids after the cards were out listed)", "security": bearer, "responses": { "200": { "description": "ok, counts, problems" } } } },
            "/api/tables/{id}/commands": { "post": { "summary": "A dealer's or supervisor's command to the table engine", "security": bearer, "responses": { "200": { "description": "events applied" }, "403": { "description": "role may not" }, "409": { "description": "refused, with the rule" } } } },
            "/api/players/{id}/deposit": { "post": { "summary": "Admin: chips into a wallet", "security": bearer, "responses": { "200": { "description": "new balance" } } } },
            "/api/tables/{id}/audit": { "get": { "summary": "Inspector: game recall, the last N coups (?last=N, at most 100) step by step from the audit record, with who issued each command, and the table's voids after the cards were out, per person and per shoe", "security": bearer, "responses": { "200": { "description": "coups with their records and hashes" }, "403": { "description": "inspectors and admins only" } } } },
            "/api/tables/{id}/shoes": { "get": { "summary": "Provably fair: each shoe's SHA-256 seed commitment, cut, and the seed once the shoe has ended", "responses": { "200": { "description": "shoes" } } } },
            "/api/openapi.json": { "get": { "summary": "This document", "responses": { "200": { "description": "OpenAPI 3" } } } }
        }
    })
}
