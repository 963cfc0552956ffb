//! `baccarat serve --tls-cert FILE --tls-key FILE` end to end (issue 48):
//! the flags and the environment reach the server, which says `https://`
//! and speaks nothing else on its port; one file without the other, or a
//! file that is not there, refuses the start naming the setting. (HTTPS
//! itself, the cookie and the WebSocket: `baccarat-server`'s
//! `tests/server/tls.rs`.)

use std::io::{Read, Write};
use std::process::Command;

use crate::common::{start, TempDir};

/// A self-signed certificate for 127.0.0.1 and localhost (P-256, valid to
/// 2126), and its key: a fixture, so that the test needs no tool to make one.
const CERT: &str = "-----BEGIN CERTIFICATE-----
MIIBmzCCAUGgAwIBAgIUMWzsDt7b9jldsh8rpZarxNRYd68wCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTIwMjE0MDkwNloYDzIxMjYxMTA4
MTQwOTA2WjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAARpphheMVUo6atsj8ETmqtLqn0aX8yC+PN3tPmSP8cE66gOz1WJzBma
IePxfSZLWcJXr1ecauprdNmSaiR9d3+bo28wbTAdBgNVHQ4EFgQUwirazsu69KN1
Rz5LP+IONykjYjgwHwYDVR0jBBgwFoAUwirazsu69KN1Rz5LP+IONykjYjgwDwYD
VR0TAQH/BAUwAwEB/zAaBgNVHREEEzARhwR/AAABgglsb2NhbGhvc3QwCgYIKoZI
zj0EAwIDSAAwRQIgJk7To+9S5RknzfoYHlv0x8LgXj//ijBI/Aup0lU3xqoCIQCp
jBX+L4I11oHbeih6wgl3iIBC/YELffd6cctF+oac0w==
-----END CERTIFICATE-----
";
const KEY: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQguJDPphJKsoWOqEVw
k30gmIkYLup0HLiQVIX0iVxgbIehRANCAARpphheMVUo6atsj8ETmqtLqn0aX8yC
+PN3tPmSP8cE66gOz1WJzBmaIePxfSZLWcJXr1ecauprdNmSaiR9d3+b
-----END PRIVATE KEY-----
";

#[test]
fn serve_over_tls_says_https_and_speaks_nothing_else() {
    let dir = TempDir::new(&format!("baccarat-cli-tls-{}", std::process::id()));
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    std::fs::write(&cert, CERT).unwrap();
    std::fs::write(&key, KEY).unwrap();
    let db = dir.join("casino.db");
    let (server, url, _) = start(&db, &["--tls-cert", cert.to_str().unwrap(), "--tls-key", key.to_str().unwrap()]);
    let addr = url.strip_prefix("https://").unwrap_or_else(|| panic!("the server says https: {url}"));
    // Plain HTTP on the port gets no HTTP answer (a TLS alert, or nothing).
    let mut tcp = std::net::TcpStream::connect(addr).unwrap();
    tcp.set_read_timeout(Some(std::time::Duration::from_secs(30))).unwrap();
    tcp.write_all(b"GET /api/tables HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").unwrap();
    let mut got = Vec::new();
    let _ = tcp.read_to_end(&mut got);
    assert!(!got.starts_with(b"HTTP/"), "plain HTTP answered: {}", String::from_utf8_lossy(&got));
    assert!(server.terminate().success(), "a clean stop");
}

/// `baccarat serve` with `args` and `envs`, which must be refused: its stderr.
fn refused(args: &[&str], envs: &[(&str, &str)]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_baccarat")).args(args).envs(envs.iter().copied()).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!out.status.success(), "{args:?} {envs:?} started: {err}");
    err
}

#[test]
fn one_file_without_the_other_or_a_missing_one_is_refused_naming_the_setting() {
    let dir = TempDir::new(&format!("baccarat-cli-tls-refused-{}", std::process::id()));
    let db = dir.join("casino.db");
    let base = ["serve", "--db", db.to_str().unwrap(), "--addr", "127.0.0.1:0"];
    let cert = dir.join("cert.pem");
    std::fs::write(&cert, CERT).unwrap();
    fn with<'a>(base: &[&'a str], extra: &[&'a str]) -> Vec<&'a str> {
        [base, extra].concat()
    }
    let err = refused(&with(&base, &["--tls-cert", cert.to_str().unwrap()]), &[]);
    assert!(err.contains("tls_key: "), "{err}");
    let err = refused(&base, &[("BACCARAT_TLS_KEY", cert.to_str().unwrap())]);
    assert!(err.contains("tls_cert: "), "{err}");
    let missing = dir.join("missing.pem");
    let envs = [("BACCARAT_TLS_CERT", cert.to_str().unwrap()), ("BACCARAT_TLS_KEY", missing.to_str().unwrap())];
    let err = refused(&base, &envs);
    assert!(err.contains("tls_key: cannot read ") && err.contains("missing.pem"), "{err}");
    // The certificate's own file as its key: no key there.
    let err = refused(&with(&base, &["--tls-cert", cert.to_str().unwrap(), "--tls-key", cert.to_str().unwrap()]), &[]);
    assert!(err.contains("tls_key: ") && err.contains("no PEM private key"), "{err}");
    assert!(!db.exists(), "no database was made by a refused start");
}
