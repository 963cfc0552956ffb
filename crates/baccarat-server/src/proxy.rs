//! A TLS proxy in front (issue 48): whose address a request is, and whether
//! it came over https.
//!
//! Behind a proxy every connection comes from the proxy's address, so the
//! sign-in limits, which count failures per client address (`signin.rs`),
//! would count every player as one: ten wrong guesses by one stranger and
//! everyone is refused. With `--trusted-proxy ADDR` the server believes the
//! `X-Forwarded-For` and `X-Forwarded-Proto` headers of a connection from
//! ADDR, and only of such a connection (anyone may send the headers). The
//! client is the right-most address in `X-Forwarded-For` that is not itself
//! a trusted proxy (a client may put anything on the left; each proxy
//! appends what it saw). A request that came over https gets the session
//! cookie with `Secure`, so the browser never sends it in clear.

use std::net::{IpAddr, SocketAddr};

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::Request;

/// A request that came over https: to a trusted proxy (`X-Forwarded-Proto`),
/// or to the server's own TLS (`tls.rs`, set on every request of its port).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ViaHttps;

/// The proxies whose forwarding headers are believed.
#[derive(Clone, Debug, Default)]
pub struct Proxies(Vec<IpAddr>);

impl Proxies {
    pub fn new(trusted: &[IpAddr]) -> Proxies {
        Proxies(trusted.to_vec())
    }

    fn trusts(&self, ip: IpAddr) -> bool {
        self.0.contains(&ip)
    }

    /// `req` as from its client: if its connection is a trusted proxy's,
    /// the client's address from `X-Forwarded-For` and [`ViaHttps`] from
    /// `X-Forwarded-Proto`. A connection from anyone else is left alone.
    pub fn apply(&self, mut req: Request<Body>) -> Request<Body> {
        let peer = req.extensions().get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip());
        if !peer.is_some_and(|p| self.trusts(p)) {
            return req;
        }
        if let Some(client) = self.client(&req) {
            req.extensions_mut().insert(ConnectInfo(SocketAddr::new(client, 0)));
        }
        let proto = req.headers().get_all("x-forwarded-proto").iter().filter_map(|v| v.to_str().ok()).next_back();
        let last = proto.and_then(|p| p.rsplit(',').next()).map(str::trim);
        if last.is_some_and(|p| p.eq_ignore_ascii_case("https")) {
            req.extensions_mut().insert(ViaHttps);
        }
        req
    }

    /// The right-most address of `X-Forwarded-For` (all its headers, in
    /// order) that is not a trusted proxy; the left-most if all are. None
    /// if there is no address there that parses: the proxy's own stands.
    fn client(&self, req: &Request<Body>) -> Option<IpAddr> {
        let hops: Vec<IpAddr> = req
            .headers()
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .map(|h| h.trim().parse::<IpAddr>())
            .collect::<Result<_, _>>()
            .ok()?;
        hops.iter().rev().find(|ip| !self.trusts(**ip)).or(hops.first()).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(peer: &str, headers: &[(&str, &str)]) -> Request<Body> {
        let mut b = Request::builder().uri("/api/login");
        for (k, v) in headers {
            b = b.header(*k, *v);
        }
        let mut r = b.body(Body::empty()).unwrap();
        r.extensions_mut().insert(ConnectInfo(format!("{peer}:4000").parse::<SocketAddr>().unwrap()));
        r
    }

    fn client(r: &Request<Body>) -> IpAddr {
        r.extensions().get::<ConnectInfo<SocketAddr>>().unwrap().0.ip()
    }

    #[test]
    fn a_trusted_proxy_names_the_client_and_anyone_else_is_not_believed() {
        let p = Proxies::new(&["10.0.0.2".parse().unwrap(), "10.0.0.3".parse().unwrap()]);
        // Through two proxies: the client's own claim on the left is ignored.
        let r = p.apply(req("10.0.0.2", &[("x-forwarded-for", "6.6.6.6, 203.0.113.7, 10.0.0.3")]));
        assert_eq!(client(&r), "203.0.113.7".parse::<IpAddr>().unwrap());
        // Headers split over several lines read as one list.
        let r = p.apply(req("10.0.0.2", &[("x-forwarded-for", "1.1.1.1"), ("x-forwarded-for", "203.0.113.8")]));
        assert_eq!(client(&r), "203.0.113.8".parse::<IpAddr>().unwrap());
        // A stranger sending the header is who they are.
        let r = p.apply(req("198.51.100.4", &[("x-forwarded-for", "203.0.113.9"), ("x-forwarded-proto", "https")]));
        assert_eq!(client(&r), "198.51.100.4".parse::<IpAddr>().unwrap());
        assert!(r.extensions().get::<ViaHttps>().is_none());
        // A header that does not parse leaves the proxy's address.
        let r = p.apply(req("10.0.0.2", &[("x-forwarded-for", "203.0.113.7, not-an-ip")]));
        assert_eq!(client(&r), "10.0.0.2".parse::<IpAddr>().unwrap());
        // None trusted by default.
        let r = Proxies::default().apply(req("10.0.0.2", &[("x-forwarded-for", "203.0.113.7")]));
        assert_eq!(client(&r), "10.0.0.2".parse::<IpAddr>().unwrap());
    }

    #[test]
    fn https_is_believed_from_a_trusted_proxy_only() {
        let p = Proxies::new(&["10.0.0.2".parse().unwrap()]);
        let r = p.apply(req("10.0.0.2", &[("x-forwarded-proto", "https")]));
        assert_eq!(r.extensions().get::<ViaHttps>(), Some(&ViaHttps));
        let r = p.apply(req("10.0.0.2", &[("x-forwarded-proto", "http")]));
        assert!(r.extensions().get::<ViaHttps>().is_none());
    }
}
