//! The server's log (issue 48, `docs/logging.md`): with `--log-format json`
//! every line on stderr is a JSON object with its time, level and fields;
//! each request has an access line, each staff action a line of its own,
//! done or refused; no password sent, and no session token, is in any line;
//! and a start that fails never says "listening".

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;

use serde_json::{json, Value};

use crate::common::{until_line, Server, TempDir, ADMIN_PASSWORD};

/// A player's password, sent at sign-in: in no line of the log.
const PLAYER_PASSWORD: &str = "a-players-own-secret-42";

/// `baccarat serve` on a new demo casino at `db` with `--log-format json`:
/// the process, its stdout's lines, and its stderr's lines (both read on
/// threads for the process's whole life).
fn serve_json(db: &std::path::Path) -> (Server, mpsc::Receiver<String>, mpsc::Receiver<String>) {
    serve_as(db, "json")
}

/// [`serve_json`] with `--log-format format`.
fn serve_as(db: &std::path::Path, format: &str) -> (Server, mpsc::Receiver<String>, mpsc::Receiver<String>) {
    serve_with(db, format, None)
}

/// [`serve_as`] with `RUST_LOG=rust_log` where one is given.
fn serve_with(
    db: &std::path::Path,
    format: &str,
    rust_log: Option<&str>,
) -> (Server, mpsc::Receiver<String>, mpsc::Receiver<String>) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_baccarat"));
    match rust_log {
        Some(directives) => command.env("RUST_LOG", directives),
        None => command.env_remove("RUST_LOG"),
    };
    let mut child = command
        .args(["serve", "--db", db.to_str().unwrap(), "--addr", "127.0.0.1:0", "--log-format", format])
        .args(["--betting-seconds", "1", "--deal-ms", "150", "--result-ms", "100"])
        .env("BACCARAT_DEMO", "true")
        .env("BACCARAT_ADMIN_PASSWORD", ADMIN_PASSWORD)
        .env_remove("BACCARAT_LOG_LEVEL")
        .env_remove("BACCARAT_ADMIN_PASSWORD_FILE")
        .env_remove("BACCARAT_DB")
        .env_remove("BACCARAT_ADDR")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn baccarat serve");

    let out = lines_of(child.stdout.take().unwrap());
    let err = lines_of(child.stderr.take().unwrap());
    (Server(child), out, err)
}

/// The URL the server says it serves at, from its stdout's lines.
fn served_at(out: &mpsc::Receiver<String>) -> String {
    until_line(out, 30, |l| {
        l.strip_prefix("baccarat table server on ")
            .map(|r| r.split_whitespace().next().unwrap().trim_end_matches('/').to_string())
    })
}

fn lines_of(r: impl std::io::Read + Send + 'static) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(r).lines() {
            let Ok(line) = line else { break };
            let _ = tx.send(line);
        }
    });
    rx
}

async fn post(c: &reqwest::Client, url: &str, token: &str, body: Value) -> (u16, Value) {
    let r = c.post(url).bearer_auth(token).json(&body).send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

/// Sign in as the admin, make a player (an admin action), sign in as it
/// and try to make a user (refused: a staff route), and a wrong password.
/// The admin's id, the admin's token and the new player's id.
async fn drive(url: &str) -> (u64, String, u64) {
    let c = reqwest::Client::new();
    let login = |name: &'static str, password: &'static str| {
        let c = c.clone();
        async move {
            let r = c.post(format!("{url}/api/login")).json(&json!({"name": name, "password": password})).send();
            let r = r.await.unwrap();
            (r.status().as_u16(), r.json::<Value>().await.unwrap())
        }
    };
    let (_, admin) = login("admin", ADMIN_PASSWORD).await;
    let token = admin["token"].as_str().expect("the admin signs in").to_string();
    let new = json!({"name": "logs-player", "role": "player", "password": PLAYER_PASSWORD});
    let (status, made) = post(&c, &format!("{url}/api/users"), &token, new).await;
    assert_eq!(status, 200, "{made}");
    let (_, player) = login("logs-player", PLAYER_PASSWORD).await;
    let player_token = player["token"].as_str().expect("the player signs in").to_string();
    let sneak = json!({"name": "sneak", "role": "admin", "password": "sneaky-password-123"});
    let (status, _) = post(&c, &format!("{url}/api/users"), &player_token, sneak).await;
    assert_eq!(status, 403, "a player may not make users");
    let (status, _) = login("logs-player", "not-the-password-at-all").await;
    assert_eq!(status, 401);
    (admin["user"].as_u64().unwrap(), token, made["id"].as_u64().unwrap())
}

/// Every line of `lines` parsed as JSON with a time, a level and fields.
fn parsed(lines: &[String]) -> Vec<Value> {
    lines
        .iter()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}"));
            assert!(v["timestamp"].as_str().is_some_and(|t| t.len() >= 20), "no timestamp: {l}");
            assert!(["TRACE", "DEBUG", "INFO", "WARN", "ERROR"].contains(&v["level"].as_str().unwrap_or("")), "{l}");
            assert!(v["fields"].is_object(), "no fields: {l}");
            v
        })
        .collect()
}

fn with_target<'a>(log: &'a [Value], target: &str) -> Vec<&'a Value> {
    log.iter().filter(|v| v["target"] == target).collect()
}

#[test]
fn the_json_log_has_access_and_staff_lines_and_no_secrets() {
    let dir = TempDir::new(&format!("baccarat-logs-{}", std::process::id()));
    let (server, out, err) = serve_json(&dir.join("casino.db"));
    let url = served_at(&out);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (admin, token, player) = rt.block_on(drive(&url));
    assert!(server.terminate().success(), "a clean stop exits 0");
    // To the end of each pipe: the process has exited.
    let stdout: Vec<String> = out.iter().collect();
    let lines: Vec<String> = err.iter().collect();
    let log = parsed(&lines);
    let all = lines.join("\n");

    let access = with_target(&log, "baccarat_server::access");
    let made = access
        .iter()
        .find(|v| v["fields"]["route"] == "/api/users" && v["fields"]["status"] == 200)
        .unwrap_or_else(|| panic!("no access line for POST /api/users:\n{all}"));
    let f = &made["fields"];
    assert_eq!(
        (f["method"].as_str(), f["user"].as_u64(), f["role"].as_str()),
        (Some("POST"), Some(admin), Some("admin"))
    );
    assert_eq!(f["client"], "127.0.0.1");
    assert!(f["latency_us"].is_u64() && f["request"].is_u64(), "{made}");
    assert!(access.iter().any(|v| v["fields"]["route"] == "/api/login" && v["fields"]["status"] == 401), "{all}");

    let staff = with_target(&log, "baccarat_server::staff");
    let done = staff
        .iter()
        .find(|v| v["fields"]["action"] == "/api/users" && v["fields"]["outcome"] == "done")
        .unwrap_or_else(|| panic!("no staff line for the admin's new user:\n{all}"));
    assert_eq!((done["level"].as_str(), done["fields"]["actor"].as_u64()), (Some("INFO"), Some(admin)));
    assert!(done["fields"]["detail"].as_str().unwrap().contains("logs-player"), "{done}");
    let refused = staff
        .iter()
        .find(|v| v["fields"]["actor"].as_u64() == Some(player) && v["fields"]["status"] == 403)
        .unwrap_or_else(|| panic!("no staff line for the player's refused request:\n{all}"));
    assert_eq!((refused["level"].as_str(), refused["fields"]["role"].as_str()), (Some("WARN"), Some("player")));
    assert_eq!(refused["fields"]["outcome"], "role");
    assert!(!staff.iter().any(|v| v["fields"]["action"] == "/api/login"), "a sign-in is not a staff action");
    // The request span is at debug: at the default level, no line has it.
    assert!(log.iter().all(|v| v["span"]["name"] != "request"), "{all}");

    // The status lines are logged too; "listening" once the store is open.
    assert!(log.iter().any(|v| v["fields"]["message"].as_str().is_some_and(|m| m.starts_with("listening on "))));
    assert!(stdout.iter().chain(lines.iter()).all(|l| !l.contains(ADMIN_PASSWORD)), "the admin's password");
    for secret in [PLAYER_PASSWORD, "not-the-password-at-all", "sneaky-password-123", token.as_str()] {
        assert!(!all.contains(secret), "{secret:?} is in the log:\n{all}");
    }
}

/// With the request span on (`RUST_LOG=…,baccarat_server::http=debug`), a
/// line logged while a request is handled carries the request's span, whose
/// id is the request's access line's.
#[test]
fn the_request_span_at_debug_carries_the_access_lines_id() {
    let dir = TempDir::new(&format!("baccarat-logs-span-{}", std::process::id()));
    let directives = "info,baccarat_server::http=debug";
    let (server, out, err) = serve_with(&dir.join("casino.db"), "json", Some(directives));
    let url = served_at(&out);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (admin, _, _) = rt.block_on(drive(&url));
    assert!(server.terminate().success(), "a clean stop exits 0");
    let lines: Vec<String> = err.iter().collect();
    let (log, all) = (parsed(&lines), lines.join("\n"));
    let signed_in = with_target(&log, "baccarat_server::signin");
    let admins = signed_in.iter().find(|v| v["fields"]["user"].as_u64() == Some(admin));
    let span = &admins.unwrap_or_else(|| panic!("no sign-in line for the admin:\n{all}"))["span"];
    assert_eq!((span["name"].as_str(), span["route"].as_str()), (Some("request"), Some("/api/login")), "{all}");
    let id = span["id"].as_u64().expect("the span's id");
    let access = with_target(&log, "baccarat_server::access");
    let line = access.iter().find(|v| v["fields"]["request"].as_u64() == Some(id));
    assert_eq!(line.map(|v| v["fields"]["route"].clone()), Some(json!("/api/login")), "{all}");
}

/// A start on a file that is not a database ends non-zero, says why, and
/// never says it listens.
#[test]
fn a_start_on_a_bad_database_fails_without_listening() {
    let dir = TempDir::new(&format!("baccarat-logs-bad-{}", std::process::id()));
    let db = dir.join("casino.db");
    std::fs::write(&db, "this is not a database, only some text in its place\n".repeat(200)).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_baccarat"))
        .args(["serve", "--db", db.to_str().unwrap(), "--addr", "127.0.0.1:0"])
        .env_remove("RUST_LOG")
        .env_remove("BACCARAT_DEMO")
        .env_remove("BACCARAT_DB")
        .env_remove("BACCARAT_ADDR")
        .env("BACCARAT_ADMIN_PASSWORD", ADMIN_PASSWORD)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(!o.status.success(), "stdout: {stdout}\nstderr: {stderr}");
    assert!(!stdout.contains("listening") && !stderr.contains("listening"), "stdout: {stdout}\nstderr: {stderr}");
    assert!(!stdout.contains("table server on"), "{stdout}");
    assert!(stderr.lines().any(|l| l.starts_with("error: ")), "the reason: {stderr}");
}

/// A server that must stop (the database refuses its commit) exits 70, and
/// its log says why: the log is written on a thread of its own, and the line
/// logged just before the exit is written out before the process ends
/// (`baccarat_core::exit`).
#[test]
fn a_fatal_stop_still_logs_why() {
    let dir = TempDir::new(&format!("baccarat-logs-fatal-{}", std::process::id()));
    let db = dir.join("casino.db");
    let (mut server, out, err) = serve_as(&db, "text");
    until_line(&out, 30, |l| l.starts_with("baccarat table server on ").then_some(()));
    // The demo's tables deal on: their next coup's chain records are refused.
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.busy_timeout(std::time::Duration::from_secs(60)).unwrap();
    conn.execute_batch(
        "CREATE TRIGGER refuse_blocks BEFORE INSERT ON audit_blocks BEGIN SELECT RAISE(ABORT, 'refused by the test'); END;
         CREATE TRIGGER refuse_rows BEFORE INSERT ON audit BEGIN SELECT RAISE(ABORT, 'refused by the test'); END;",
    )
    .unwrap();
    drop(conn);
    // Bounded (a liveness bound, not a speed figure).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    let status = loop {
        if let Some(status) = server.0.try_wait().unwrap() {
            break status;
        }
        assert!(std::time::Instant::now() < deadline, "the server did not stop within 120 s");
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let lines: Vec<String> = err.iter().collect();
    assert_eq!(status.code(), Some(70), "{}", lines.join("\n"));
    let why = lines.iter().find(|l| l.contains("committer: commit failed") && l.contains("refused by the test"));
    let why = why.unwrap_or_else(|| panic!("no line says why; stderr:\n{}", lines.join("\n")));
    assert!(why.contains("ERROR") && why.ends_with("stopping so that recovery can run"), "{why}");
}
