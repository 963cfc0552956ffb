//! `Type=notify` (issue 48): started as systemd starts it, with
//! `NOTIFY_SOCKET` naming a datagram socket this test binds in systemd's
//! place, the server says READY=1 only once it serves (its `/ready` answers
//! 200 by then: systemd's "started" is never ahead of the server), and
//! STOPPING=1 when SIGTERM begins the stop, which still ends cleanly.

use std::os::unix::net::UnixDatagram;
use std::time::Duration;

use crate::common::{served_url, spawn_under, until_line, TempDir};

/// The datagrams the server sent, read until one holds `want` (within a
/// liveness bound, not a speed figure), each as its lines.
fn until_state(socket: &UnixDatagram, want: &str, seen: &mut Vec<String>) -> String {
    let mut buf = [0u8; 4096];
    loop {
        let n = socket.recv(&mut buf).unwrap_or_else(|e| panic!("no {want} from the server ({e}); it sent {seen:?}"));
        let got = String::from_utf8_lossy(&buf[..n]).to_string();
        seen.push(got.clone());
        if got.lines().any(|l| l == want) {
            return got;
        }
    }
}

#[test]
fn ready_once_it_serves_and_stopping_on_sigterm() {
    let dir = TempDir::new(&format!("baccarat-notify-{}", std::process::id()));
    let path = dir.join("notify.sock");
    let socket = UnixDatagram::bind(&path).unwrap();
    socket.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let db = dir.join("casino.db");
    let env = format!("NOTIFY_SOCKET={}", path.display());
    let args = ["serve", "--db", db.to_str().unwrap(), "--addr", "127.0.0.1:0", "--betting-seconds", "1"];
    let (server, rx) = spawn_under(&["env", &env], &args);

    let mut seen = Vec::new();
    let ready = until_state(&socket, "READY=1", &mut seen);
    assert_eq!(seen.len(), 1, "READY=1 is the first word: {seen:?}");
    assert!(ready.lines().any(|l| l == "STATUS=serving the casino"), "{ready}");
    // The line that names the URL is printed before READY=1 is sent.
    let url = until_line(&rx, 10, served_url);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let status = rt.block_on(async { reqwest::get(format!("{url}/ready")).await.unwrap().status() });
    assert_eq!(status, reqwest::StatusCode::OK, "READY=1 was sent before /ready answered 200");

    let exit = server.terminate();
    assert!(exit.success(), "a clean stop: {exit:?}");
    let stopping = until_state(&socket, "STOPPING=1", &mut seen);
    assert!(!stopping.contains("READY=1"), "{seen:?}");
    until_line(&rx, 10, |l| l.starts_with("stopped: checkpoint written").then_some(()));
}

/// A `NOTIFY_SOCKET` that names nothing (a service manager gone, a wrong
/// setting) is named on stderr, and the server serves and stops as it
/// would without one.
#[test]
fn a_socket_that_names_nothing_stops_nothing() {
    let dir = TempDir::new(&format!("baccarat-notify-none-{}", std::process::id()));
    let db = dir.join("casino.db");
    let env = format!("NOTIFY_SOCKET={}", dir.join("absent.sock").display());
    let args = ["serve", "--db", db.to_str().unwrap(), "--addr", "127.0.0.1:0", "--betting-seconds", "1"];
    let (server, rx) = spawn_under(&["env", &env], &args);
    let url = until_line(&rx, 30, served_url);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let status = rt.block_on(async { reqwest::get(format!("{url}/ready")).await.unwrap().status() });
    assert_eq!(status, reqwest::StatusCode::OK);
    assert!(server.terminate().success());
}

/// A PostgreSQL server started while another holds the lease: READY=1 once
/// it answers as a standby (systemd's "started": it passes clients on to
/// the holder), with a STATUS that says so, while its `/readyz` says it
/// does not serve; then SIGTERM stops it, with STOPPING=1, while the other
/// keeps the lease (a standby's wait for the lease once never looked for the
/// stop, and the runtime's shutdown waited for it: the standby had to be
/// killed).
#[test]
fn a_standby_is_ready_as_a_standby_and_stops_when_told() {
    let dir = TempDir::new(&format!("baccarat-notify-standby-{}", std::process::id()));
    let db = crate::failover::database("notify_standby");
    let (anchors, key) = (dir.join("casino.anchors"), dir.join("casino.key"));
    let (alpha, alpha_lines, _) = crate::failover::serve_pg(&db, "alpha", &anchors, &key, &[]);
    until_line(&alpha_lines, 30, |l| l.starts_with("baccarat table server on ").then_some(()));

    let path = dir.join("notify.sock");
    let socket = UnixDatagram::bind(&path).unwrap();
    socket.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let env = format!("NOTIFY_SOCKET={}", path.display());
    let (anchors, key) = (anchors.to_str().unwrap(), key.to_str().unwrap());
    let args = ["serve", "--db", &db, "--addr", "127.0.0.1:0", "--instance", "beta", "--lease-ms", "1500"];
    let (beta, rx) = spawn_under(&["env", &env], &[&args[..], &["--anchor-file", anchors, "--key-file", key]].concat());
    let mut seen = Vec::new();
    let ready = until_state(&socket, "READY=1", &mut seen);
    assert!(ready.lines().any(|l| l == "STATUS=standing by for the lease of the casino"), "{ready}");
    let url = until_line(&rx, 30, |l| {
        l.strip_prefix("standing by on ")
            .map(|r| r.split_whitespace().next().unwrap().trim_end_matches('/').to_string())
    });
    let rt = tokio::runtime::Runtime::new().unwrap();
    let status = rt.block_on(async { reqwest::get(format!("{url}/readyz")).await.unwrap().status() });
    assert_eq!(status, reqwest::StatusCode::SERVICE_UNAVAILABLE, "a standby is not ready for traffic of its own");

    let exit = beta.terminate();
    assert!(exit.success(), "the standby's stop: {exit:?}");
    until_state(&socket, "STOPPING=1", &mut seen);
    assert!(alpha.terminate().success());
}
