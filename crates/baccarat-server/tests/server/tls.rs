//! HTTPS in the server itself (`tls.rs`, issue 48): with a test certificate
//! for 127.0.0.1 and localhost, the pages, the API and a table's WebSocket
//! are served over TLS and the session cookie is `Secure`; plain HTTP on the
//! port gets nothing; a bad certificate or key refuses the start, naming the
//! setting. And compressed answers (`http/compress.rs`): gzip and brotli when
//! asked, the same bytes once decoded, nothing when not asked.

use std::io::Read;
use std::sync::Arc;
use std::time::Duration;

use baccarat_server::serve::{run, ServeConfig};
use baccarat_server::TlsFiles;
use reqwest::{Client, StatusCode};
use serde_json::{json, Value};

use super::common::{spawn_app, TempDir};

/// A fresh self-signed certificate for 127.0.0.1 and localhost, written to
/// `dir` as `{prefix}cert.pem` and `{prefix}key.pem`; and the certificate's PEM.
fn certificate(dir: &std::path::Path, prefix: &str) -> (TlsFiles, String) {
    let names = vec!["127.0.0.1".to_string(), "localhost".to_string()];
    let made = rcgen::generate_simple_self_signed(names).unwrap();
    let files = TlsFiles { cert: dir.join(format!("{prefix}cert.pem")), key: dir.join(format!("{prefix}key.pem")) };
    std::fs::write(&files.cert, made.cert.pem()).unwrap();
    std::fs::write(&files.key, made.signing_key.serialize_pem()).unwrap();
    (files, made.cert.pem())
}

/// The demo casino's settings on a fresh database in `dir`, with `tls`.
fn settings(dir: &TempDir, tls: Option<TlsFiles>) -> ServeConfig {
    ServeConfig {
        betting: Duration::from_millis(3000),
        deal: Duration::from_millis(10),
        rate_per_second: 100_000,
        founding: baccarat_core::audit::Founding::Demo,
        tls,
        ..ServeConfig::new(dir.join("casino.db"), "127.0.0.1:0".parse().unwrap())
    }
}

/// A server over HTTPS: its base URL (`https://127.0.0.1:PORT`), a client
/// that trusts its certificate (and only that one), and the certificate.
struct Https {
    base: String,
    client: Client,
    cert_pem: String,
    _dir: TempDir,
}

async fn spawn_https() -> Https {
    let dir = TempDir::new(&format!("baccarat-tls-{}-{}", std::process::id(), baccarat_server::auth::random_hex(4)));
    let (files, cert_pem) = certificate(&dir, "");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(run(settings(&dir, Some(files)), listener));
    let root = reqwest::Certificate::from_pem(cert_pem.as_bytes()).unwrap();
    let client =
        Client::builder().use_rustls_tls().tls_built_in_root_certs(false).add_root_certificate(root).build().unwrap();
    Https { base: format!("https://{addr}"), client, cert_pem, _dir: dir }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn https_serves_the_pages_and_the_api_and_the_cookie_is_secure() {
    let s = spawn_https().await;
    let page = s.client.get(format!("{}/", s.base)).send().await.unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    assert!(page.headers()["content-type"].to_str().unwrap().starts_with("text/html"));
    assert!(page.text().await.unwrap().contains("<html"), "the table page");
    let tables: Value = s.client.get(format!("{}/api/tables", s.base)).send().await.unwrap().json().await.unwrap();
    assert!(tables["tables"].as_array().is_some_and(|t| !t.is_empty()), "{tables}");
    let login = json!({"name": "player1", "password": "demo"});
    let r = s.client.post(format!("{}/api/login", s.base)).json(&login).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let cookie = r.headers()["set-cookie"].to_str().unwrap().to_string();
    assert!(cookie.contains("; Secure") && cookie.contains("HttpOnly"), "{cookie}");
    let token = r.json::<Value>().await.unwrap()["token"].as_str().unwrap().to_string();
    let me: Value =
        s.client.get(format!("{}/api/me", s.base)).bearer_auth(&token).send().await.unwrap().json().await.unwrap();
    assert_eq!(me["name"], "player1", "{me}");
}

/// Plain HTTP on the TLS port is no way in; nor is a client that does not
/// trust the certificate (a man in the middle would need the key).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plain_http_and_an_untrusting_client_get_nothing() {
    let s = spawn_https().await;
    let plain = s.base.replacen("https://", "http://", 1);
    let r = Client::new().get(format!("{plain}/api/tables")).send().await;
    assert!(r.is_err(), "plain HTTP answered: {:?}", r.map(|r| r.status()));
    let stranger = Client::builder().use_rustls_tls().build().unwrap();
    assert!(stranger.get(format!("{}/api/tables", s.base)).send().await.is_err());
    // The server still serves those who trust it.
    assert_eq!(s.client.get(format!("{}/api/tables", s.base)).send().await.unwrap().status(), StatusCode::OK);
}

/// A table's WebSocket signed in by the cookie, over TLS: a page of the
/// server's own `https://` origin is let in and gets the table; a page of
/// `http://` on the same host and port is another origin, refused 403.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_websocket_over_tls_takes_the_servers_https_origin_only() {
    let s = spawn_https().await;
    let login = json!({"name": "player1", "password": "demo"});
    let r: Value =
        s.client.post(format!("{}/api/login", s.base)).json(&login).send().await.unwrap().json().await.unwrap();
    let token = r["token"].as_str().unwrap().to_string();
    let (base, pem) = (s.base.clone(), s.cert_pem.clone());
    let (own, other) = tokio::task::spawn_blocking(move || {
        let own = ws_over_tls(&base, &pem, &token, &base);
        let other = ws_over_tls(&base, &pem, &token, &base.replacen("https://", "http://", 1));
        (own, other)
    })
    .await
    .unwrap();
    let first: Value = serde_json::from_str(&own.expect("the server's own origin is let in")).unwrap();
    assert_eq!(first["table"]["id"], 3, "the table's state: {first}");
    assert_eq!(other.unwrap_err(), 403, "http:// is not the origin of an https server");
}

/// Open `/api/tables/3/ws` at `base` over TLS (trusting `pem`) with the
/// session cookie, from a page of `origin`: the first message, or the
/// refusal's status.
fn ws_over_tls(base: &str, pem: &str, token: &str, origin: &str) -> Result<String, u16> {
    use rustls::pki_types::pem::PemObject;
    let mut roots = rustls::RootCertStore::empty();
    roots.add(rustls::pki_types::CertificateDer::from_pem_slice(pem.as_bytes()).unwrap()).unwrap();
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let addr = base.trim_start_matches("https://");
    let name = rustls::pki_types::ServerName::try_from("127.0.0.1").unwrap();
    let conn = rustls::ClientConnection::new(Arc::new(config), name).unwrap();
    let tls = rustls::StreamOwned::new(conn, std::net::TcpStream::connect(addr).unwrap());
    let url = format!("wss://{addr}/api/tables/3/ws");
    let mut req = super::common::ws_request(&url, token);
    req.headers_mut().insert("origin", origin.parse().unwrap());
    match tokio_tungstenite::tungstenite::client(req, tls) {
        Ok((mut sock, _)) => Ok(sock.read().unwrap().into_text().unwrap().to_string()),
        Err(tokio_tungstenite::tungstenite::HandshakeError::Failure(tokio_tungstenite::tungstenite::Error::Http(
            r,
        ))) => Err(r.status().as_u16()),
        Err(e) => panic!("the handshake failed: {e}"),
    }
}

/// Each bad input refuses the start before anything is opened, naming the
/// setting (and the file).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_certificate_or_key_refuses_the_start_naming_the_setting() {
    let dir = TempDir::new(&format!("baccarat-tls-refusals-{}", std::process::id()));
    let (good, _) = certificate(&dir, "");
    let (other, _) = certificate(&dir, "other-");
    std::fs::write(dir.join("junk.pem"), "-----BEGIN CERTIFICATE-----\nnot base64!\n").unwrap();
    let cases = [
        (TlsFiles { cert: dir.join("missing.pem"), ..good.clone() }, "tls_cert: cannot read "),
        (TlsFiles { key: dir.join("missing.pem"), ..good.clone() }, "tls_key: cannot read "),
        (TlsFiles { cert: dir.join("junk.pem"), ..good.clone() }, "tls_cert: "),
        (TlsFiles { key: good.cert.clone(), ..good.clone() }, "tls_key: "),
        (TlsFiles { key: other.key.clone(), ..good.clone() }, "tls_key: the key in "),
    ];
    for (files, starts) in cases {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let e = run(settings(&dir, Some(files.clone())), listener).await.unwrap_err().to_string();
        assert!(e.starts_with(starts), "{files:?}: {e}");
    }
    // Nothing was opened: no database was made by the refused starts.
    assert!(!dir.join("casino.db").exists());
    // With TLS an http:// advertised URL is refused (nothing listens for it).
    let mut cfg = settings(&dir, Some(good));
    cfg.advertise = Some("http://casino.example".into());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let e = run(cfg, listener).await.unwrap_err().to_string();
    assert!(e.starts_with("advertise: "), "{e}");
}

/// `GET path` with `Accept-Encoding: encoding` (none if empty): the status,
/// the `Content-Encoding` and `Vary`, and the body as sent.
async fn fetch(base: &str, path: &str, encoding: &str) -> (StatusCode, Option<String>, String, Vec<u8>) {
    let mut rq = Client::new().get(format!("{base}{path}"));
    if !encoding.is_empty() {
        rq = rq.header("accept-encoding", encoding);
    }
    let r = rq.send().await.unwrap();
    let h = |n: &str| r.headers().get(n).map(|v| v.to_str().unwrap().to_string());
    let (enc, vary) = (h("content-encoding"), h("vary").unwrap_or_default());
    (r.status(), enc, vary, r.bytes().await.unwrap().to_vec())
}

/// The table page, a script and a JSON answer: gzip or brotli as asked,
/// each the same bytes once decoded; nothing compressed when not asked, nor
/// a small answer, nor a WebSocket's upgrade.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_and_json_are_compressed_when_asked_and_decode_to_the_same_bytes() {
    let app = spawn_app().await;
    for path in ["/", "/assets/table.js", "/api/openapi.json", "/api/tables"] {
        let (status, enc, _, plain) = fetch(&app.base, path, "").await;
        assert_eq!((status, enc), (StatusCode::OK, None), "{path}: not asked, not compressed");
        assert!(plain.len() > 512, "{path} is big enough to compress: {}", plain.len());
        let (_, enc, vary, gz) = fetch(&app.base, path, "gzip").await;
        assert_eq!(enc.as_deref(), Some("gzip"), "{path}");
        assert!(vary.to_ascii_lowercase().contains("accept-encoding"), "{path}: {vary}");
        let mut unzipped = Vec::new();
        flate2::read::GzDecoder::new(&gz[..]).read_to_end(&mut unzipped).unwrap();
        let (_, enc, _, br) = fetch(&app.base, path, "gzip, br").await;
        assert_eq!(enc.as_deref(), Some("br"), "{path}: brotli preferred");
        let mut unbrotlied = Vec::new();
        brotli_decompressor::Decompressor::new(&br[..], 4096).read_to_end(&mut unbrotlied).unwrap();
        // `/api/tables` moves with the tables' clocks: compare its shape.
        if path == "/api/tables" {
            let count = |b: &[u8]| serde_json::from_slice::<Value>(b).unwrap()["tables"].as_array().unwrap().len();
            assert_eq!((count(&unzipped), count(&unbrotlied)), (count(&plain), count(&plain)));
        } else {
            assert_eq!(unzipped, plain, "{path}: gzip decodes to the same bytes");
            assert_eq!(unbrotlied, plain, "{path}: brotli decodes to the same bytes");
        }
        assert!(gz.len() < plain.len() && br.len() < plain.len(), "{path}: smaller");
    }
    // A small answer is sent as it is.
    let (status, enc, _, body) = fetch(&app.base, "/api/me", "gzip, br").await;
    assert_eq!((status, enc), (StatusCode::UNAUTHORIZED, None), "{}", String::from_utf8_lossy(&body));
    // A WebSocket asked with Accept-Encoding is upgraded and speaks plainly.
    let url = format!("{}/api/tables/3/ws", app.base.replacen("http://", "ws://", 1));
    let mut req = super::common::ws_request(&url, &app.login("player1", "demo").await);
    req.headers_mut().insert("accept-encoding", "gzip, br".parse().unwrap());
    let (mut sock, resp) = tokio_tungstenite::connect_async(req).await.unwrap();
    assert!(resp.headers().get("content-encoding").is_none());
    use futures_util::StreamExt;
    let first: Value = serde_json::from_str(&sock.next().await.unwrap().unwrap().into_text().unwrap()).unwrap();
    assert_eq!(first["table"]["id"], 3, "{first}");
}
