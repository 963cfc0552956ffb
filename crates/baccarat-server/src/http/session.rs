//! Signing in and out, who I am, and changing one's password.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use axum::extract::{ConnectInfo, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use baccarat_rules::Money;
use serde::Deserialize;

use super::extract::{Auth, Body, Https, SESSION_COOKIE};
use super::{ApiError, AppState};
use crate::bodies::{Me, PasswordChanged, SignedIn, SignedOut};
use crate::signin::SignInError;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Login {
    name: String,
    password: String,
}

/// The client's address, where the server was started with it (`serve` is);
/// else one shared address, so the limits still hold.
fn client_addr(h: &axum::http::Extensions) -> IpAddr {
    h.get::<ConnectInfo<SocketAddr>>().map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |c| c.0.ip())
}

/// The session cookie for `token`, living as long as the session may;
/// `Secure` when the request came over https: the server's own TLS
/// (`tls.rs`) or a trusted proxy's (`proxy.rs`), so the browser never sends
/// it in clear.
fn cookie(token: &str, max_age_s: u64, secure: bool) -> HeaderValue {
    let secure = if secure { "; Secure" } else { "" };
    HeaderValue::from_str(&format!(
        "{SESSION_COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/; Max-Age={max_age_s}{secure}"
    ))
    .expect("a hex token is a valid header")
}

/// Whether the request came over https (the server's own TLS, or a trusted
/// proxy's).
fn via_https(h: &axum::http::Extensions) -> bool {
    h.get::<crate::proxy::ViaHttps>().is_some()
}

fn sign_in_error(e: SignInError) -> ApiError {
    super::metered::sign_in_refused(&e);
    match e {
        SignInError::BadLogin => ApiError::unauthorized(e.to_string()),
        SignInError::Limited(_, wait) => ApiError::too_many(e.to_string(), wait),
        SignInError::Busy => ApiError::unavailable(e.to_string()),
        SignInError::Auth(e) => ApiError::internal(e.to_string()),
    }
}

/// Sign in: the token in the answer (API clients) and in the session cookie
/// (the pages). Limits and the hashing pool are `signin.rs`'s.
pub(super) async fn login(State(s): State<AppState>, req: axum::extract::Request) -> Result<Response, ApiError> {
    let addr = client_addr(req.extensions());
    let secure = via_https(req.extensions());
    let Body(b) = <Body<Login> as axum::extract::FromRequest<AppState>>::from_request(req, &s).await?;
    if b.name.is_empty() || b.name.len() > 64 {
        return Err(ApiError::bad("name: 1 to 64 bytes (UTF-8)"));
    }
    if b.password.len() > 128 {
        return Err(ApiError::bad("password: at most 128 bytes (UTF-8)"));
    }
    // Who failed is not logged: a name field often holds a password typed
    // one box too early. The access line has the client and the code.
    let (token, sess) = s.signin.sign_in(&s.users, &b.name, &b.password, addr).await.map_err(sign_in_error)?;
    super::access::signed_in(&sess);
    tracing::info!(target: "baccarat_server::signin", user = sess.user.0, role = sess.role.name(), "signed in");
    let max_age = s.users.policy().max_ms / 1000;
    let idle_seconds = s.users.policy().idle_ms / 1000;
    let (user, role) = (sess.user, sess.role);
    let body = SignedIn { token: token.clone(), user, name: sess.name, role, idle_seconds, max_seconds: max_age };
    let mut r = Json(body).into_response();
    r.headers_mut().insert(header::SET_COOKIE, cookie(&token, max_age, secure));
    Ok(r)
}

/// Sign out: the session ends and the cookie is cleared.
pub(super) async fn logout(
    State(s): State<AppState>,
    Https(secure): Https,
    Auth(_, token): Auth,
) -> Result<Response, ApiError> {
    s.users.revoke(&token).map_err(|e| ApiError::unauthorized(e.to_string()))?;
    let mut r = Json(SignedOut { revoked: true }).into_response();
    r.headers_mut().insert(header::SET_COOKIE, cookie("", 0, secure));
    Ok(r)
}

/// Who I am, and my wallet. At a partition's server (`serve --partition`),
/// `balance` is the wallet at this partition and `bank` the player's money
/// at the casino's bank, which any partition takes wagers from (`bank/`);
/// elsewhere `bank` is null.
pub(super) async fn me(State(s): State<AppState>, Auth(sess, _): Auth) -> Result<Json<Me>, ApiError> {
    let bank = match s.directory.as_ref().filter(|d| d.own.is_some()) {
        None => None,
        Some(d) => {
            let user = sess.user.0;
            let read = d.read_bank(move |c| crate::pg_store::bank::wallet_in(c, user)).await;
            let read = read.and_then(|r| r.map_err(crate::forward::RouteError::Bank));
            Some(read.map_err(|e| ApiError::unavailable(format!("the bank cannot be read: {e}")))?)
        }
    };
    let v = s.views.read().expect("views lock");
    let me = sess.user.as_player();
    let (balance, available) = v.balances.get(&me).copied().unwrap_or_default();
    let tokens = v.tokens.get(&me).map_or(Money::ZERO, |t| t.1);
    Ok(Json(Me { user: sess.user, name: sess.name, role: sess.role, balance, available, tokens, bank }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct NewPassword {
    old: String,
    new: String,
}

/// Change one's password: the old one is checked (on the sign-in pool), every
/// session of the person ends, and a fresh one is opened for this client.
pub(super) async fn password(
    State(s): State<AppState>,
    Https(secure): Https,
    Auth(sess, _): Auth,
    Body(b): Body<NewPassword>,
) -> Result<Response, ApiError> {
    if b.old.len() > 128 {
        return Err(ApiError::bad("old: at most 128 bytes (UTF-8)"));
    }
    // Refused as it arrives, before any hash is spent on the old password.
    if b.new.chars().count() < crate::auth::MIN_PASSWORD || b.new.len() > 128 {
        return Err(ApiError::bad(format!("new: {} characters to 128 bytes (UTF-8)", crate::auth::MIN_PASSWORD)));
    }
    let Some(crate::auth::Credentials { hash, .. }) =
        s.users.credentials(&sess.name).map_err(|e| ApiError::internal(e.to_string()))?
    else {
        return Err(ApiError::unauthorized("the session's person no longer exists"));
    };
    let ok = s.signin.check(hash, b.old, false).map_err(sign_in_error)?.await.unwrap_or(false);
    if !ok {
        return Err(ApiError::new(StatusCode::FORBIDDEN, "password", "old: not the current password"));
    }
    // Hashing the new password is argon2's work: off the async runtime.
    let users = s.users.clone();
    let new = b.new;
    let hash = tokio::task::spawn_blocking(move || users.set_password(sess.user, &new))
        .await
        .map_err(|_| ApiError::internal("the password change failed"))?
        .map_err(|e| match e {
            crate::auth::AuthError::Weak(_) => ApiError::bad(format!("new: {e}")),
            e => ApiError::internal(e.to_string()),
        })?;
    // On the new hash: none if an admin disabled the person or reset the
    // password meanwhile.
    let (token, _) = s.users.start_session(sess.user, &sess.name, sess.role, &hash).map_err(|e| match e {
        crate::auth::AuthError::BadLogin => ApiError::unauthorized("the account was changed meanwhile; sign in again"),
        e => ApiError::internal(e.to_string()),
    })?;
    let max_age = s.users.policy().max_ms / 1000;
    let mut r = Json(PasswordChanged { token: token.clone(), revoked_others: true }).into_response();
    r.headers_mut().insert(header::SET_COOKIE, cookie(&token, max_age, secure));
    Ok(r)
}
