//! One error contract for every route.
//!
//! Every refusal is JSON: `{"error": words for a person, "code": what kind,
//! "rule": the rulebook's rule (only where a rule refused)}`, plus
//! `retry_after_ms` on a 429. The status follows from the kind:
//!
//! | status | code | when |
//! |---|---|---|
//! | 400 | `bad_request` | malformed input (the message names the field) |
//! | 401 | `unauthorized` | not signed in, or the session has ended |
//! | 403 | `role` | this person's role may not do this (here) |
//! | 403 | `self_limit`, `origin` | the player's own limit or cool-off; a cookie WebSocket from another origin (`origin.rs`) |
//! | 404 | `not_found`, `no_table`, `no_player` | no such route, table or player |
//! | 405 | `method` | the route exists, the method does not |
//! | 409 | `rule`, `wallet`, `float`, `halted`, `idempotency`, `closed`, `table_exists`, … | a conflict with the game's state or a rule |
//! | 413 | `too_large` | the body is over [`super::MAX_BODY`] |
//! | 415 | `media_type` | the body is not `application/json` |
//! | 422 | `unprocessable`, `config` | well-formed JSON of the wrong shape; a table configuration its profile refuses |
//! | 429 | `rate` | over a rate limit |
//! | 503 | `unavailable`, `entropy` | the writer has stopped; no OS entropy |
//! | 404, 409 | `no_user`; `taken`, `last_admin`, `own_account`, `disabled` | people (`users.rs`): no such person; a name taken, the last enabled admin, an admin's own account, a disabled player's deposit |
//!
//! axum's own rejections (a body it cannot parse, a path id that is not a
//! number, a wrong method, a missing route) go through the same contract: the
//! extractors in `extract.rs` and the fallbacks in `mod.rs` turn them into an
//! [`ApiError`].

use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};

use crate::casino::{Code, Reply};

/// A refusal: its status, kind, words, the rule where one refused, and how long
/// to wait on a 429.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
    pub rule: Option<String>,
    pub retry_after_ms: Option<u64>,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError { status, code, message: message.into(), rule: None, retry_after_ms: None }
    }

    /// 400: malformed input; the message names the field.
    pub fn bad(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, "bad_request", message)
    }

    /// 401: not signed in.
    pub fn unauthorized(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNAUTHORIZED, "unauthorized", message)
    }

    /// 403: the role may not.
    pub fn forbidden(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::FORBIDDEN, "role", message)
    }

    /// 404.
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, "not_found", message)
    }

    /// 409: a conflict with the game's state.
    pub fn conflict(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::CONFLICT, "conflict", message)
    }

    /// 429, with the wait.
    pub fn too_many(message: impl Into<String>, wait_ms: u64) -> ApiError {
        ApiError { retry_after_ms: Some(wait_ms), ..ApiError::new(StatusCode::TOO_MANY_REQUESTS, "rate", message) }
    }

    /// 503: the server cannot answer now.
    pub fn unavailable(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "unavailable", message)
    }

    /// 503: this server stopped serving (a fatal condition) before the
    /// request was answered; it may or may not have been taken.
    pub fn outcome_unknown() -> ApiError {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "outcome_unknown",
            "this server stopped serving (its database out of reach, or its lease lost) before the request was \
             answered, so it may have been taken: send it again (with its key, if it has one) once it is served",
        )
    }

    /// 500: a fault of the server's (never a refusal of the input).
    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", message)
    }

    /// The JSON body.
    pub fn body(&self) -> Value {
        let mut v = json!({ "error": self.message, "code": self.code });
        if let Some(rule) = &self.rule {
            v["rule"] = json!(rule);
        }
        if let Some(wait) = self.retry_after_ms {
            v["retry_after_ms"] = json!(wait);
        }
        v
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        super::access::refused(self.code);
        let mut r = (self.status, Json(self.body())).into_response();
        if let Some(wait) = self.retry_after_ms {
            if let Ok(v) = wait.div_ceil(1000).to_string().parse() {
                r.headers_mut().insert(axum::http::header::RETRY_AFTER, v);
            }
        }
        r
    }
}

/// The status of each kind of the casino's refusals.
pub fn status_of(code: Code) -> StatusCode {
    match code {
        Code::NoTable | Code::NoPlayer | Code::NoTournament | Code::NoPromotion => StatusCode::NOT_FOUND,
        // The player's own limit forbids it (or the limit asked for is out of
        // range, said in the message).
        Code::Role | Code::SelfLimit => StatusCode::FORBIDDEN,
        Code::Slip => StatusCode::BAD_REQUEST,
        Code::Config => StatusCode::UNPROCESSABLE_ENTITY,
        Code::Entropy | Code::Settling | Code::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
        Code::Rule
        | Code::Wallet
        | Code::Float
        | Code::Ledger
        | Code::Bounds
        | Code::Mode
        | Code::Idempotency
        | Code::Halted
        | Code::Engine
        | Code::Closed
        | Code::TableExists => StatusCode::CONFLICT,
    }
}

/// A casino refusal as an API error; anything else is not an error.
pub fn refusal(r: &Reply) -> Option<ApiError> {
    match r {
        Reply::Refused { code, rule, message } => {
            Some(ApiError { rule: rule.clone(), ..ApiError::new(status_of(*code), code.name(), message.clone()) })
        }
        _ => None,
    }
}

impl From<JsonRejection> for ApiError {
    /// axum's own words name the field and the position; the status is its own
    /// (400 syntax, 413 too large, 415 not JSON, 422 wrong shape).
    fn from(r: JsonRejection) -> ApiError {
        let status = r.status();
        let code = match status {
            StatusCode::PAYLOAD_TOO_LARGE => "too_large",
            StatusCode::UNSUPPORTED_MEDIA_TYPE => "media_type",
            StatusCode::UNPROCESSABLE_ENTITY => "unprocessable",
            _ => "bad_request",
        };
        let text = match status {
            StatusCode::PAYLOAD_TOO_LARGE => format!("body: at most {} bytes", super::MAX_BODY),
            StatusCode::UNSUPPORTED_MEDIA_TYPE => "body: send Content-Type: application/json".into(),
            _ => format!("body: {}", r.body_text()),
        };
        ApiError::new(status, code, text)
    }
}

impl From<PathRejection> for ApiError {
    fn from(r: PathRejection) -> ApiError {
        ApiError::bad(format!("id: a whole number from 0 to 4294967295 ({})", r.body_text()))
    }
}

impl From<QueryRejection> for ApiError {
    fn from(r: QueryRejection) -> ApiError {
        ApiError::bad(format!("query: {}", r.body_text()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind has a status, and its wire name is the one the reply carries.
    #[test]
    fn every_code_maps_to_its_wire_name_and_a_4xx_or_503() {
        for code in Code::ALL {
            let wire = serde_json::to_value(code).unwrap();
            assert_eq!(wire, json!(code.name()), "{code:?}");
            let s = status_of(code);
            assert!(s.is_client_error() || s == StatusCode::SERVICE_UNAVAILABLE, "{code:?}: {s}");
        }
    }
}
