//! A standby passes every request through to the server that holds the
//! casino (`lease.rs`), so that a client may use any server.
//!
//! # Design, and why
//!
//! A redirect was the first answer (`307` to the holder's `--advertise` URL).
//! But a client library drops the bearer token on a redirect to another
//! origin, a page opened from the standby could not sign in, and `loadgen`
//! could not be pointed at a standby at all. So the standby forwards: the
//! request goes to the holder unchanged but for its `Host` and the
//! connection's own headers; the holder's answer comes back, with
//! `x-baccarat-instance` naming the server that answered. A WebSocket
//! upgrade is passed through the same way, and its bytes are then copied both
//! ways. Only an `https://` advertised address, which this server cannot
//! reach itself, is still answered with the redirect.
//!
//! **The client's address.** Sign-in limits count failures by the client's
//! address (`signin.rs`). Forwarded, every client would have the standby's
//! address: one address's failures would lock out everyone who came through
//! that standby. So the standby names the client in `x-baccarat-client`:
//! `IP MS SIGNATURE`, the signature by the casino's key (which every server
//! shares: `--key-file`) over the address and the time, under a domain of
//! its own. The holder takes the address from the header only if the
//! signature verifies under its own key and the time is within
//! [`CLAIM_MAX_AGE_MS`] of its clock; otherwise it uses the connection's, as
//! before. Either way the header is removed before the request is handled,
//! and a standby removes any such header a client sent. A client therefore
//! cannot choose its address; someone who can read the traffic between two
//! servers could replay a claim for that minute, which only repeats an
//! address already seen.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::{Arc, RwLock};

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{header, HeaderName, HeaderValue, Request, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;

use crate::anchor::{signed_by, AnchorKey};
use crate::lease::Holder;

mod error;
pub use error::RouteError;

/// The header in which a standby names the client (see the module's notes).
pub const CLIENT_HEADER: &str = "x-baccarat-client";
/// The header naming the instance that answered a forwarded request.
pub const ANSWERED_BY: &str = "x-baccarat-instance";
/// How far a claim's time may be from the holder's clock.
pub const CLAIM_MAX_AGE_MS: u64 = 60_000;
/// The signed domain of a claim.
const DOMAIN: &[u8] = b"baccarat-forwarded-client-v1\n";

/// Headers of one connection, not of the request: never passed on.
const HOP_BY_HOP: [&str; 8] = [
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
];

/// A standby's way to the holder: the casino's signing key, read from the
/// key file when first needed (the holder may create the file after this
/// server starts), and a pool of kept-alive connections. (A connection per
/// request overflowed the holder's listen queue under `loadgen`: dropped
/// connection attempts were retried by TCP after 1, 3, 7 and 15 s.)
#[derive(Clone)]
pub struct Forwarder {
    path: PathBuf,
    key: Arc<RwLock<Option<Arc<AnchorKey>>>>,
    pool: Client<HttpConnector, Body>,
}

impl Forwarder {
    pub fn new(key_file: PathBuf) -> Forwarder {
        let pool = Client::builder(TokioExecutor::new()).build_http();
        Forwarder { path: key_file, key: Arc::default(), pool }
    }

    fn key(&self) -> Option<Arc<AnchorKey>> {
        if let Some(k) = self.key.read().expect("signer lock").clone() {
            return Some(k);
        }
        // As the start reads it: never a key other users could read.
        let k = Arc::new(baccarat_core::signing_key::load_private(&self.path).ok()?);
        *self.key.write().expect("signer lock") = Some(k.clone());
        Some(k)
    }
}

fn message(ip: IpAddr, at_ms: u64) -> Vec<u8> {
    let mut m = DOMAIN.to_vec();
    m.extend_from_slice(format!("{ip} {at_ms}").as_bytes());
    m
}

/// A claim that the client is at `ip`, made at `at_ms`.
pub fn claim(key: &AnchorKey, ip: IpAddr, at_ms: u64) -> String {
    format!("{ip} {at_ms} {}", key.sign(&message(ip, at_ms)))
}

/// The client's address a claim names, if it is signed under `public` and
/// made within [`CLAIM_MAX_AGE_MS`] of `now_ms`.
pub fn trusted_client(value: &str, public: &str, now_ms: u64) -> Option<IpAddr> {
    let mut parts = value.split(' ');
    let (ip, at, sig) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let (ip, at_ms): (IpAddr, u64) = (ip.parse().ok()?, at.parse().ok()?);
    if now_ms.abs_diff(at_ms) > CLAIM_MAX_AGE_MS {
        return None;
    }
    signed_by(public, &message(ip, at_ms), sig).then_some(ip)
}

/// At the holder, before the request is handled: the client's address is the
/// claim's, if it is trusted (`public`: this server's key), and the header
/// goes either way.
pub fn trust_forwarded(mut req: Request<Body>, public: &str, now_ms: u64) -> Request<Body> {
    let Some(value) = req.headers_mut().remove(CLIENT_HEADER) else { return req };
    if let Some(ip) = value.to_str().ok().and_then(|v| trusted_client(v, public, now_ms)) {
        req.extensions_mut().insert(ConnectInfo(SocketAddr::new(ip, 0)));
    }
    req
}

/// Whether `req` asks to become a WebSocket.
pub fn is_websocket(req: &Request<Body>) -> bool {
    req.headers()
        .get(header::UPGRADE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("websocket"))
}

/// A standby's answer to any request: passed through to the holder (an
/// upgrade becomes a WebSocket between the client and the holder). A holder
/// that cannot be reached is a 502 naming it; none known yet, a 503.
pub async fn forward(req: Request<Body>, holder: &Holder, to: &Forwarder, now_ms: u64) -> Response {
    let Some((instance, url)) = holder.read().expect("holder lock").clone().filter(|(_, u)| !u.is_empty()) else {
        return standby_answer(&req, holder);
    };
    let Some(authority) = authority_of(&url) else {
        // An https:// holder: the client is told where to go instead.
        return standby_answer(&req, holder);
    };
    pass(req, &instance, &authority, to, now_ms).await.unwrap_or_else(|why| {
        let body = json!({
            "error": format!("this server stands by, and instance {instance} at {url} could not be reached: {why}"),
            "code": "elsewhere",
        });
        (StatusCode::BAD_GATEWAY, axum::Json(body)).into_response()
    })
}

/// The `host:port` of an `http://` URL this server can pass requests to
/// (none for `https://`, which it cannot reach itself).
pub fn authority_of(url: &str) -> Option<String> {
    url.strip_prefix("http://").map(|a| a.trim_end_matches('/').to_string())
}

/// Pass `req` through to the server at `authority` (its instance named
/// `instance`) and answer what it answers, with [`ANSWERED_BY`] naming it; an
/// upgrade becomes a WebSocket between the client and that server. Why it
/// could not be reached, if it could not.
pub async fn pass(
    req: Request<Body>,
    instance: &str,
    authority: &str,
    to: &Forwarder,
    now_ms: u64,
) -> Result<Response, RouteError> {
    let mut answer = if is_websocket(&req) {
        upgrade(req, authority, to, now_ms).await?
    } else {
        let up = upstream(&req, &format!("http://{authority}"), to, now_ms, false).body(req.into_body())?;
        to.pool.request(up).await.map(|a| a.map(Body::new))?
    };
    if let Ok(v) = HeaderValue::from_str(instance) {
        answer.headers_mut().insert(HeaderName::from_static(ANSWERED_BY), v);
    }
    Ok(answer)
}

/// The request to send on: the client's method, path and headers but for
/// `Host`, a client's own claim and (`upgrade` aside) the connection's
/// headers; the `Host` it asked as `X-Forwarded-Host`; and this server's
/// claim naming the client. `base`: what goes
/// before the path (`http://host:port` for the pool, nothing on a
/// connection of its own).
fn upstream(
    req: &Request<Body>,
    base: &str,
    to: &Forwarder,
    now_ms: u64,
    upgrade: bool,
) -> axum::http::request::Builder {
    let path = req.uri().path_and_query().map_or("/", |p| p.as_str());
    let mut up = Request::builder().method(req.method().clone()).uri(format!("{base}{path}"));
    for (name, value) in req.headers() {
        let hop = HOP_BY_HOP.contains(&name.as_str()) && !upgrade;
        if name != header::HOST && name != CLIENT_HEADER && !hop {
            up = up.header(name, value);
        }
    }
    // The Host the client asked, for the holder's check of a cookie
    // WebSocket's Origin (`http/origin.rs`); a hop after the first keeps
    // the first's.
    let forwarded = FORWARDED_HOST;
    if let (None, Some(host)) = (req.headers().get(forwarded), req.headers().get(header::HOST)) {
        up = up.header(forwarded, host);
    }
    let client = req.extensions().get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip());
    if let (Some(ip), Some(key)) = (client, to.key()) {
        up = up.header(CLIENT_HEADER, claim(&key, ip, now_ms));
    }
    let authority = base.strip_prefix("http://").unwrap_or(base);
    if authority.is_empty() {
        up
    } else {
        up.header(header::HOST, authority)
    }
}

/// A WebSocket upgrade, on a connection of its own: once both sides have
/// switched protocols, the bytes are copied both ways until either closes.
async fn upgrade(mut req: Request<Body>, authority: &str, to: &Forwarder, now_ms: u64) -> Result<Response, RouteError> {
    let tcp = tokio::net::TcpStream::connect(authority).await?;
    let (mut send, conn) = hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(tcp)).await?;
    tokio::spawn(conn.with_upgrades());
    let downstream = hyper::upgrade::on(&mut req);
    let up = upstream(&req, "", to, now_ms, true).header(header::HOST, authority).body(Body::empty())?;
    let mut answer = send.send_request(up).await?;
    if answer.status() != StatusCode::SWITCHING_PROTOCOLS {
        let (parts, body) = answer.into_parts();
        return Ok(Response::from_parts(parts, Body::new(body)));
    }
    let upstream = hyper::upgrade::on(&mut answer);
    tokio::spawn(async move {
        if let (Ok(down), Ok(up)) = (downstream.await, upstream.await) {
            let (mut down, mut up) = (hyper_util::rt::TokioIo::new(down), hyper_util::rt::TokioIo::new(up));
            let _ = tokio::io::copy_bidirectional(&mut down, &mut up).await;
        }
    });
    let (parts, _) = answer.into_parts();
    Ok(Response::from_parts(parts, Body::empty()))
}

/// `307 Temporary Redirect` of `req` to the server at `url` (which this one
/// cannot reach itself: `https://`), saying why in `error`, code `elsewhere`.
pub fn redirect(req: &Request<Body>, url: &str, error: String) -> Response {
    let path = req.uri().path_and_query().map_or("/", |p| p.as_str());
    let location = format!("{}{path}", url.trim_end_matches('/'));
    let body = json!({ "error": error, "code": "elsewhere", "location": location });
    (StatusCode::TEMPORARY_REDIRECT, [(header::LOCATION, location)], axum::Json(body)).into_response()
}

/// A standby's answer to any request: where the casino is served, or that
/// this server is starting.
pub fn standby_answer(req: &Request<Body>, holder: &Holder) -> Response {
    match holder.read().expect("holder lock").clone() {
        Some((instance, url)) if !url.is_empty() => {
            redirect(req, &url, format!("this server stands by; instance {instance} serves the casino at {url}"))
        }
        _ => {
            let body = json!({"error": "the server is starting; retry in a moment", "code": "starting"});
            (StatusCode::SERVICE_UNAVAILABLE, [(header::RETRY_AFTER, "1")], axum::Json(body)).into_response()
        }
    }
}

/// The header a server sets when it passes a request on (`forward.rs`): the
/// `Host` the client asked it.
pub const FORWARDED_HOST: &str = "x-forwarded-host";

#[cfg(test)]
mod tests {
    use super::*;

    fn upgrade() -> Request<Body> {
        Request::builder()
            .uri("/api/tables/1/ws")
            .header(header::UPGRADE, "websocket")
            .header(header::CONNECTION, "upgrade")
            .body(Body::empty())
            .unwrap()
    }

    /// A fresh key and a forwarder that signs with it, in a directory of the
    /// test's own (which it removes once it has passed).
    fn signer(test: &str) -> (PathBuf, Forwarder, Arc<AnchorKey>) {
        let dir = std::env::temp_dir().join(format!("baccarat-forward-{}-{test}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("casino.key");
        let key = Arc::new(AnchorKey::load_or_create(&path).unwrap());
        (dir, Forwarder::new(path), key)
    }

    /// A holder that cannot be reached is named in a 502, for a plain request
    /// and an upgrade alike; with no holder known yet the standby says it is
    /// starting.
    #[tokio::test]
    async fn a_holder_out_of_reach_is_a_502_naming_it() {
        assert!(is_websocket(&upgrade()));
        assert!(!is_websocket(&Request::builder().uri("/").body(Body::empty()).unwrap()));
        // A port nothing listens on: bound, then closed.
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let holder: Holder = Arc::new(RwLock::new(Some(("alpha".into(), format!("http://127.0.0.1:{port}")))));
        let (dir, s, _) = signer("502");
        for req in [upgrade(), Request::builder().uri("/api/tables").body(Body::empty()).unwrap()] {
            let r = forward(req, &holder, &s, 0).await;
            assert_eq!(r.status(), StatusCode::BAD_GATEWAY);
            let body = axum::body::to_bytes(r.into_body(), 4096).await.unwrap();
            let text = String::from_utf8_lossy(&body);
            assert!(text.contains("instance alpha") && text.contains("elsewhere"), "{text}");
        }
        let none: Holder = Arc::default();
        assert_eq!(forward(upgrade(), &none, &s, 0).await.status(), StatusCode::SERVICE_UNAVAILABLE);
        // An https:// holder is named in a redirect instead.
        let tls: Holder = Arc::new(RwLock::new(Some(("alpha".into(), "https://casino.example".into()))));
        let r = forward(upgrade(), &tls, &s, 0).await;
        assert_eq!(r.status(), StatusCode::TEMPORARY_REDIRECT);
        let _ = std::fs::remove_dir_all(dir);
    }

    /// The holder takes the client's address from a claim signed by the
    /// casino's key and made within the minute, and from nothing else: not a
    /// claim by another key, an old one, an altered one or a made-up one.
    /// The header is gone once the request is let in.
    #[test]
    fn only_a_fresh_claim_signed_by_the_casinos_key_names_the_client() {
        let (dir, _, key) = signer("claims");
        let public = key.public_hex();
        let other = AnchorKey::load_or_create(&dir.join("other.key")).unwrap();
        let ip: IpAddr = "203.0.113.7".parse().unwrap();
        let t = 1_800_000_000_000u64;
        let good = claim(&key, ip, t);
        assert_eq!(trusted_client(&good, &public, t + 5_000), Some(ip));
        assert_eq!(trusted_client(&good, &public, t - 5_000), Some(ip), "a clock a little behind");
        assert_eq!(trusted_client(&good, &public, t + CLAIM_MAX_AGE_MS + 1), None, "too old");
        assert_eq!(trusted_client(&claim(&other, ip, t), &public, t), None, "another key");
        let altered = good.replacen("203.0.113.7", "203.0.113.8", 1);
        assert_eq!(trusted_client(&altered, &public, t), None, "another address under the signature");
        let later = good.replacen(&t.to_string(), &(t + 1).to_string(), 1);
        assert_eq!(trusted_client(&later, &public, t), None, "another time under the signature");
        for junk in ["", "203.0.113.7", "203.0.113.7 1 2 3", "me 1 00"] {
            assert_eq!(trusted_client(junk, &public, t), None, "{junk:?}");
        }

        let real: SocketAddr = "198.51.100.1:4000".parse().unwrap();
        let with = |value: &str| {
            let mut r =
                Request::builder().uri("/api/session").header(CLIENT_HEADER, value).body(Body::empty()).unwrap();
            r.extensions_mut().insert(ConnectInfo(real));
            trust_forwarded(r, &public, t)
        };
        let r = with(&good);
        assert_eq!(r.extensions().get::<ConnectInfo<SocketAddr>>().unwrap().0.ip(), ip);
        assert!(r.headers().get(CLIENT_HEADER).is_none());
        let r = with(&claim(&other, ip, t));
        assert_eq!(r.extensions().get::<ConnectInfo<SocketAddr>>().unwrap().0, real, "the connection's address");
        assert!(r.headers().get(CLIENT_HEADER).is_none());
        let _ = std::fs::remove_dir_all(dir);
    }
}
