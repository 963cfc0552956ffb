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
            "/api/tables": { "get": { "summary": "The lobby", "responses": { "200": { "description": "every table's public view" } } } },
            "/api/tables/{id}": { "get": { "summary": "One table's public view", "responses": { "200": { "description": "view" }, "404": { "description": "no such table" } } } },
            "/api/tables/{id}/ws": { "get": { "summary": "WebSocket: the table's view after every durable change (token=… for the viewer's balance)", "responses": { "101": { "description": "upgrade" } } } },
            "/api/tables/{id}/wagers": { "post": { "summary": "Place a wager; acknowledged once durable; retry with the same key", "security": bearer, "requestBody": { "content": { "application/json": { "schema": { "type": "object", "required": ["bet", "amount", "key"], "properties": { "bet": { "type": "string" }, "amount": { "type": "integer" }, "spot": { "type": "integer" }, "key": { "type": "string" } } } } } }, "responses": { "200": { "description": "wager id and available balance" }, "409": { "description": "refused, with the rule" } } } },
            "/api/tables/{id}/commands": { "post": { "summary": "A dealer's or supervisor's command to the table engine", "security": bearer, "responses": { "200": { "description": "events applied" }, "403": { "description": "role may not" }, "409": { "description": "refused, with the rule" } } } },
            "/api/players/{id}/deposit": { "post": { "summary": "Admin: chips into a wallet", "security": bearer, "responses": { "200": { "description": "new balance" } } } },
            "/api/tables/{id}/audit": { "get": { "summary": "Inspector: game recall, the last N coups (?last=N, at most 100) step by step from the audit record", "security": bearer, "responses": { "200": { "description": "coups with their records and hashes" }, "403": { "description": "inspectors and admins only" } } } },
            "/api/tables/{id}/shoes": { "get": { "summary": "Provably fair: each shoe's SHA-256 seed commitment, cut, and the seed once the shoe has ended", "responses": { "200": { "description": "shoes" } } } },
            "/api/openapi.json": { "get": { "summary": "This document", "responses": { "200": { "description": "OpenAPI 3" } } } }
        }
    })
}
