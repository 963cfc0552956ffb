//! Which pages may open a table's WebSocket signed in by the session cookie.
//!
//! # Why
//!
//! A browser sends the session cookie with a WebSocket upgrade from any page
//! it allows the cookie for. `SameSite=Strict` keeps it from other sites,
//! but not from another port or subdomain of the same site (issue 45,
//! finding 7: with a dealer's cookie, an upgrade from
//! `Origin: http://evil.example` got 101 and the pit's staff data). A
//! WebSocket is not subject to CORS: the server must look at `Origin`
//! itself.
//!
//! # What is checked
//!
//! Only an upgrade signed in by the cookie (no `Authorization: Bearer`): a
//! page's script can set neither `Authorization` nor any other header of a
//! WebSocket handshake, so a bearer token, or a token sent as the first
//! message, came from a client that holds it, and is not affected. For a
//! cookie upgrade, `Origin` must be:
//!
//! * the server's own: `http://` and the request's `Host`
//!   (or, as a standby or another partition's server passed it on, the
//!   `X-Forwarded-Host` that server set to the `Host` the client asked it:
//!   `forward.rs`; a page's script cannot set that header either, as it
//!   cannot set `Origin`), or the `--advertise` URL's;
//! * or one of `--allowed-origin`, for a site served under several names,
//!   or over `https://` by a TLS front (the scheme is never taken from the
//!   `Origin` sent: see [`same_host`]).
//!
//! An upgrade with the cookie and no `Origin` is refused too: every browser
//! sends `Origin` with a WebSocket upgrade, so one without it is a program,
//! which signs in with its token instead (the first message), as the API
//! says. So is `Origin: null` (a sandboxed or `file:` page). A refusal is
//! 403 `origin`, naming the origin refused.

use axum::http::{header, HeaderMap, StatusCode};

use super::extract::SESSION_COOKIE;
use super::ApiError;

pub use crate::forward::FORWARDED_HOST;

/// The origins a cookie upgrade may come from beside the request's own host:
/// `--allowed-origin` and the `--advertise` URL's, each as
/// [`origin_of`] writes it; and the scheme the server itself speaks
/// (`http`, or `https` with its own TLS: `tls.rs`).
#[derive(Clone, Debug)]
pub struct Origins(Vec<String>, &'static str);

impl Default for Origins {
    fn default() -> Origins {
        Origins(Vec::new(), "http")
    }
}

impl Origins {
    /// From the configured list (each checked by [`origin_of`] when the
    /// server was configured; one that does not check is skipped) and the
    /// advertised URL's origin.
    pub fn new(allowed: &[String], advertise: &str) -> Origins {
        let advertised = advertise.split_once("://").map(|(scheme, rest)| {
            let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
            format!("{scheme}://{authority}")
        });
        let all = allowed.iter().map(String::as_str).chain(advertised.as_deref());
        Origins(all.filter_map(|o| origin_of(o).ok()).collect(), "http")
    }

    /// The scheme the server itself speaks: its own origin is that and the
    /// request's host (`https` with `--tls-cert`).
    pub fn scheme(self, scheme: &'static str) -> Origins {
        Origins(self.0, scheme)
    }

    /// Refuse a cookie upgrade whose page is not one of the server's own
    /// origins (see the module's notes); anything else passes.
    pub fn check(&self, h: &HeaderMap) -> Result<(), ApiError> {
        if !by_cookie(h) {
            return Ok(());
        }
        let refused = |why: String| ApiError::new(StatusCode::FORBIDDEN, "origin", why);
        let Some(sent) = h.get(header::ORIGIN) else {
            return Err(refused(
                "origin: a WebSocket signed in by the session cookie must come from a page, which sends the Origin \
                 header; a program signs in with a first message {\"token\": …} instead"
                    .into(),
            ));
        };
        let sent = sent.to_str().unwrap_or("");
        let Ok(origin) = origin_of(sent) else {
            return Err(refused(format!("origin: {sent:?} is no page's origin that may use the session cookie here")));
        };
        let hosts = [h.get(header::HOST), h.get(FORWARDED_HOST)];
        let mut hosts = hosts.into_iter().flatten().filter_map(|v| v.to_str().ok());
        let own = hosts.any(|host| same_host(&origin, self.1, host));
        if own || self.0.contains(&origin) {
            return Ok(());
        }
        Err(refused(format!(
            "origin: a page from {origin} may not open this WebSocket with the session cookie: it is not this \
             server's own origin, nor one of its --allowed-origin"
        )))
    }
}

/// Whether the request is signed in by the session cookie: it has one, and
/// no bearer token (which `extract::token_of` would take first).
fn by_cookie(h: &HeaderMap) -> bool {
    let bearer = h.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).is_some_and(|v| v.starts_with("Bearer "));
    let cookie = h
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .any(|c| c.trim().split_once('=').is_some_and(|(k, _)| k == SESSION_COOKIE));
    cookie && !bearer
}

/// An origin as this server compares them: `http://` or `https://`, the
/// host in lower case, the port only where it is not the scheme's default
/// (80, 443); no path, query, fragment or user. The words say what is wrong.
pub fn origin_of(s: &str) -> Result<String, BadOrigin> {
    let lower = s.trim().trim_end_matches('/').to_ascii_lowercase();
    let (scheme, authority) = lower.split_once("://").ok_or_else(|| BadOrigin::NoScheme(s.into()))?;
    let default: u16 = match scheme {
        "http" => 80,
        "https" => 443,
        _ => return Err(BadOrigin::Scheme(s.into())),
    };
    if authority.is_empty() || authority.contains(['/', '?', '#', '@', ' ']) {
        return Err(BadOrigin::MoreThanAnOrigin(s.into()));
    }
    let (host, port) = split_port(authority);
    if host.is_empty() {
        return Err(BadOrigin::NoHost(s.into()));
    }
    let port = match port.map(str::parse::<u16>) {
        Some(Err(_)) => return Err(BadOrigin::Port(s.into())),
        Some(Ok(p)) => Some(p),
        None => None,
    };
    Ok(match port.filter(|p| *p != default) {
        Some(p) => format!("{scheme}://{host}:{p}"),
        None => format!("{scheme}://{host}"),
    })
}

/// Why a text is not an origin (`allowed_origins`, or a browser's
/// `Origin`), each naming the text as given.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BadOrigin {
    #[error("{0:?} is not scheme://host[:port]")]
    NoScheme(String),
    #[error("{0:?}: the scheme is http or https")]
    Scheme(String),
    #[error("{0:?} is an origin, scheme://host[:port], with nothing after the port")]
    MoreThanAnOrigin(String),
    #[error("{0:?} names no host")]
    NoHost(String),
    #[error("{0:?}: the port is a number from 0 to 65535")]
    Port(String),
}

/// `host` and its port, if it has one (an IPv6 address is in brackets).
fn split_port(authority: &str) -> (&str, Option<&str>) {
    match authority.rfind(':') {
        Some(i) if !authority[i..].contains(']') => (&authority[..i], Some(&authority[i + 1..])),
        _ => (authority, None),
    }
}

/// Whether `origin` (as [`origin_of`] writes it) is the server's own for a
/// `Host` header: the scheme the server speaks (`http`, or `https` with its
/// own TLS) and that host and port (a `Host` without a port is the
/// scheme's default). The scheme is never taken from the `Origin` sent, or
/// a page on the other scheme's port (`https://host` against `http://host`)
/// would pass as the server's own. Behind a TLS front, its `https://`
/// origin is named in `--allowed-origin`.
fn same_host(origin: &str, scheme: &str, host: &str) -> bool {
    origin_of(&format!("{scheme}://{}", host.trim())).is_ok_and(|own| own == origin)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, v.parse().unwrap());
        }
        h
    }

    /// The words are the ones `origin_of` gave as text before `BadOrigin`
    /// (issue 46): `serve` prints them after "allowed_origins: ".
    #[test]
    fn a_bad_origin_is_named_as_before() {
        assert_eq!(origin_of("casino").unwrap_err().to_string(), "\"casino\" is not scheme://host[:port]");
        assert_eq!(origin_of("ftp://c").unwrap_err().to_string(), "\"ftp://c\": the scheme is http or https");
        assert_eq!(
            origin_of("http://c/x").unwrap_err().to_string(),
            "\"http://c/x\" is an origin, scheme://host[:port], with nothing after the port"
        );
        assert_eq!(origin_of("http://:80").unwrap_err().to_string(), "\"http://:80\" names no host");
        assert_eq!(
            origin_of("http://c:x").unwrap_err().to_string(),
            "\"http://c:x\": the port is a number from 0 to 65535"
        );
    }

    #[test]
    fn an_origin_is_written_one_way() {
        assert_eq!(origin_of("HTTP://Casino.Example:80/").as_deref(), Ok("http://casino.example"));
        assert_eq!(origin_of("https://casino.example:443").as_deref(), Ok("https://casino.example"));
        assert_eq!(origin_of("http://casino.example:8443").as_deref(), Ok("http://casino.example:8443"));
        assert_eq!(origin_of("http://casino.example:0080").as_deref(), Ok("http://casino.example"));
        assert_eq!(origin_of("http://[::1]:8080").as_deref(), Ok("http://[::1]:8080"));
        for bad in ["casino.example", "ftp://x", "http://", "http://x/path", "http://x:99999", "null", "http://u@x"] {
            assert!(origin_of(bad).is_err(), "{bad}");
        }
    }

    /// Issue 45, finding 7, as a unit: the cookie's upgrade from another
    /// origin, another port of the same host, or none, is refused; its own
    /// host, a forwarded host, a listed or the advertised origin pass; a
    /// bearer token or no cookie is not looked at.
    #[test]
    fn a_cookie_upgrade_passes_only_from_the_servers_own_origins() {
        let o = Origins::new(&["https://casino.example".into()], "http://10.0.0.5:8080/");
        let cookie = ("cookie", "baccarat_session=abc");
        let check = |pairs: &[(&'static str, &str)]| o.check(&headers(pairs)).map_err(|e| (e.status, e.code));
        let host = ("host", "127.0.0.1:8080");
        let refused = Err((StatusCode::FORBIDDEN, "origin"));
        assert_eq!(check(&[cookie, host, ("origin", "http://evil.example")]), refused);
        assert_eq!(check(&[cookie, host, ("origin", "http://127.0.0.1:9090")]), refused, "another port");
        assert_eq!(check(&[cookie, host]), refused, "no Origin");
        assert_eq!(check(&[cookie, host, ("origin", "null")]), refused);
        assert_eq!(check(&[cookie, host, ("origin", "http://127.0.0.1:8080")]), Ok(()));
        assert_eq!(check(&[cookie, ("host", "casino.lan"), ("origin", "http://casino.lan")]), Ok(()), "port 80");
        // The other scheme's default port is another port: the scheme is the
        // server's (plain HTTP), never the one the Origin sent.
        let other_scheme = [cookie, ("host", "casino.lan"), ("origin", "https://casino.lan")];
        assert_eq!(check(&other_scheme), refused, "https://host is not http://host");
        let forwarded = [cookie, host, (FORWARDED_HOST, "front:81"), ("origin", "http://front:81")];
        assert_eq!(check(&forwarded), Ok(()));
        assert_eq!(check(&[cookie, host, ("origin", "https://casino.example")]), Ok(()), "listed");
        assert_eq!(check(&[cookie, host, ("origin", "http://casino.example")]), refused, "not the listed scheme");
        assert_eq!(check(&[cookie, host, ("origin", "http://10.0.0.5:8080")]), Ok(()), "advertised");
        let bearer = ("authorization", "Bearer abc");
        assert_eq!(check(&[cookie, bearer, host, ("origin", "http://evil.example")]), Ok(()));
        assert_eq!(check(&[host, ("origin", "http://evil.example")]), Ok(()), "no cookie: a public view");
        assert_eq!(check(&[("cookie", "other=1"), host]), Ok(()));
    }

    /// With its own TLS the server's origin is `https://` and the host
    /// asked; `http://` on the same host is another origin.
    #[test]
    fn over_its_own_tls_the_servers_origin_is_https() {
        let o = Origins::new(&[], "https://127.0.0.1:8443").scheme("https");
        let cookie = ("cookie", "baccarat_session=abc");
        let check = |pairs: &[(&'static str, &str)]| o.check(&headers(pairs)).map_err(|e| (e.status, e.code));
        let refused = Err((StatusCode::FORBIDDEN, "origin"));
        let host = ("host", "localhost:8443");
        assert_eq!(check(&[cookie, host, ("origin", "https://localhost:8443")]), Ok(()));
        assert_eq!(check(&[cookie, host, ("origin", "http://localhost:8443")]), refused);
        let default_port = [cookie, ("host", "casino.example"), ("origin", "https://casino.example")];
        assert_eq!(check(&default_port), Ok(()), "443");
        assert_eq!(check(&[cookie, ("host", "casino.example"), ("origin", "http://casino.example")]), refused);
        assert_eq!(check(&[cookie, host, ("origin", "https://127.0.0.1:8443")]), Ok(()), "advertised");
    }
}
