//! Extractors that refuse through the error contract (`error.rs`).
//!
//! Order matters: a handler takes [`Auth`] (and [`Id`]) before [`Body`], so the
//! session is checked before the body is read. A request with no session and a
//! bad body is answered 401, and nothing of the body is parsed for a stranger.

use axum::extract::{FromRequest, FromRequestParts, Json, Path, Query, Request};
use axum::http::request::Parts;
use axum::http::HeaderMap;
use serde::de::DeserializeOwned;

use super::{ApiError, AppState};
use crate::auth::Session;

pub use crate::auth::SESSION_COOKIE;

/// A JSON body, refused through the contract.
pub struct Body<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for Body<T> {
    type Rejection = ApiError;

    /// A body sent as plain `application/json` is parsed straight from its
    /// bytes; only one that does not parse is parsed again by axum's `Json`,
    /// whose refusal names the field at fault (tracking the path costs on
    /// every request, and was a tenth of the HTTP threads' time under
    /// load). Any other content type goes to `Json` as it is, which accepts
    /// or refuses it as before.
    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        if !plain_json(req.headers()) {
            let Json(v) = Json::<serde_json::Value>::from_request(req, state).await.map_err(ApiError::from)?;
            if !v.is_object() {
                return Err(not_an_object());
            }
            return Json::<T>::from_bytes(v.to_string().as_bytes()).map(|Json(v)| Body(v)).map_err(ApiError::from);
        }
        let bytes = axum::body::Bytes::from_request(req, state)
            .await
            .map_err(|e| ApiError::from(axum::extract::rejection::JsonRejection::from(e)))?;
        // Every body of this API is an object; serde would also take a
        // struct's fields from an array in order (`[]` for `{}`).
        if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
            // Not JSON at all is a syntax error (400, named by axum); JSON
            // of another kind is the wrong shape (422).
            return Err(match serde_json::from_slice::<serde::de::IgnoredAny>(&bytes) {
                Ok(_) => not_an_object(),
                Err(_) => Json::<T>::from_bytes(&bytes).err().map_or_else(not_an_object, ApiError::from),
            });
        }
        match serde_json::from_slice::<T>(&bytes) {
            Ok(v) => Ok(Body(v)),
            Err(_) => Json::<T>::from_bytes(&bytes).map(|Json(v)| Body(v)).map_err(ApiError::from),
        }
    }
}

/// Well-formed JSON that is not an object: the wrong shape (422).
fn not_an_object() -> ApiError {
    ApiError::new(
        axum::http::StatusCode::UNPROCESSABLE_ENTITY,
        "unprocessable",
        "the body must be a JSON object, as the API document gives it",
    )
}

/// Whether the content type is `application/json` itself, or with its UTF-8
/// charset (any case): what `Json` takes, and nothing it would refuse.
fn plain_json(h: &HeaderMap) -> bool {
    let Some(v) = h.get(axum::http::header::CONTENT_TYPE).and_then(|v| v.to_str().ok()) else { return false };
    let v = v.trim();
    v.eq_ignore_ascii_case("application/json") || v.eq_ignore_ascii_case("application/json; charset=utf-8")
}

/// The `{id}` of a path: a `u32` (a tournament's, a promotion's), or a typed
/// id such as `Id<TableId>` on the table routes; refused through the contract
/// as any path parameter that is not a number.
pub struct Id<T = u32>(pub T);

impl<S: Send + Sync, T: serde::de::DeserializeOwned + Send> FromRequestParts<S> for Id<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        Path::<T>::from_request_parts(parts, state).await.map(|Path(id)| Id(id)).map_err(ApiError::from)
    }
}

/// A query string, refused through the contract.
pub struct Q<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for Q<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        Query::<T>::from_request_parts(parts, state).await.map(|Query(v)| Q(v)).map_err(ApiError::from)
    }
}

/// The session token a request carries: `Authorization: Bearer …` (API
/// clients), else the session cookie (the pages).
pub fn token_of(h: &HeaderMap) -> Option<String> {
    if let Some(t) = h.get("authorization").and_then(|v| v.to_str().ok()).and_then(|v| v.strip_prefix("Bearer ")) {
        return Some(t.trim().to_string());
    }
    h.get_all("cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|c| c.trim().split_once('='))
        .find(|(k, _)| *k == SESSION_COOKIE)
        .map(|(_, v)| v.to_string())
}

/// A signed-in person and their token; 401 otherwise.
pub struct Auth(pub Session, pub String);

impl FromRequestParts<AppState> for Auth {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, s: &AppState) -> Result<Self, ApiError> {
        let token = token_of(&parts.headers).ok_or_else(|| {
            ApiError::unauthorized("sign in: send Authorization: Bearer <token>, or the session cookie")
        })?;
        let sess = s.users.session(&token).map_err(|e| ApiError::unauthorized(e.to_string()))?;
        super::access::signed_in(&sess);
        Ok(Auth(sess, token))
    }
}

/// Whether the request came over https through a trusted proxy
/// (`proxy.rs`): the session cookie is then `Secure`.
pub struct Https(pub bool);

impl<S: Send + Sync> FromRequestParts<S> for Https {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(Https(parts.extensions.get::<crate::proxy::ViaHttps>().is_some()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_comes_from_the_bearer_header_else_the_cookie() {
        let mut h = HeaderMap::new();
        assert_eq!(token_of(&h), None);
        h.insert("cookie", "a=1; baccarat_session=abc; b=2".parse().unwrap());
        assert_eq!(token_of(&h).as_deref(), Some("abc"));
        h.insert("authorization", "Bearer xyz".parse().unwrap());
        assert_eq!(token_of(&h).as_deref(), Some("xyz"));
        let mut h = HeaderMap::new();
        h.insert("cookie", "baccarat_sessionx=abc".parse().unwrap());
        assert_eq!(token_of(&h), None, "only the exact cookie name");
    }
}
