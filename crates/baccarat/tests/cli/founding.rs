//! A real casino is born empty (issue 47): `baccarat serve` on a fresh
//! database, without `--demo`, founds a casino with one admin and nothing
//! else; the admin's password is the operator's or written to a file only
//! its owner reads, and never appears in the server's output.

use std::process::{Command, Stdio};
use std::sync::mpsc;

use serde_json::Value;

use crate::common::{until_line, Server, TempDir};

/// `baccarat serve` on `db` as an operator starts it: no demo, no password
/// unless `password` (then from `BACCARAT_ADMIN_PASSWORD`), plus `extra`.
pub(crate) fn serve(db: &std::path::Path, password: Option<&str>, extra: &[&str]) -> (Server, mpsc::Receiver<String>) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_baccarat"));
    c.args(["serve", "--db", db.to_str().unwrap(), "--addr", "127.0.0.1:0"]).args(extra);
    for v in ["BACCARAT_DEMO", "BACCARAT_ADMIN_PASSWORD", "BACCARAT_ADMIN_PASSWORD_FILE", "BACCARAT_DB"] {
        c.env_remove(v);
    }
    if let Some(p) = password {
        c.env("BACCARAT_ADMIN_PASSWORD", p);
    }
    let mut child = c.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn baccarat serve");
    let (tx, rx) = mpsc::channel();
    for out in [
        Box::new(child.stdout.take().unwrap()) as Box<dyn std::io::Read + Send>,
        Box::new(child.stderr.take().unwrap()),
    ] {
        let tx = tx.clone();
        std::thread::spawn(move || {
            use std::io::BufRead;
            for line in std::io::BufReader::new(out).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
    }
    (Server(child), rx)
}

/// Every line up to the one naming the address; the base URL.
pub(crate) fn started(rx: &mpsc::Receiver<String>) -> (Vec<String>, String) {
    let mut seen = Vec::new();
    let url = until_line(rx, 60, |l| {
        seen.push(l.to_string());
        l.strip_prefix("baccarat table server on ").map(|r| r.split_whitespace().next().unwrap().to_string())
    });
    (seen, url.trim_end_matches('/').to_string())
}

async fn get(url: &str, path: &str) -> Value {
    reqwest::get(format!("{url}{path}")).await.unwrap().json().await.unwrap()
}

async fn login(url: &str, name: &str, password: &str) -> reqwest::StatusCode {
    let body = serde_json::json!({ "name": name, "password": password });
    reqwest::Client::new().post(format!("{url}/api/login")).json(&body).send().await.unwrap().status()
}

#[test]
fn a_fresh_database_is_an_empty_casino_whose_admin_password_is_in_a_private_file() {
    let dir = TempDir::new(&format!("baccarat-founding-{}", std::process::id()));
    let db = dir.join("casino.db");
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (server, rx) = serve(&db, None, &[]);
    let (out, url) = started(&rx);
    let file = dir.join("casino.db.admin-password");
    let password = std::fs::read_to_string(&file).unwrap().trim_end().to_string();
    assert_eq!(password.len(), 32, "128 random bits in hex");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);
    }
    let all = out.join("\n");
    assert!(all.contains("with an empty casino"), "{all}");
    assert!(all.contains(&file.display().to_string()), "the file's path is printed: {all}");
    assert!(!all.contains(&password), "the password is never printed: {all}");
    rt.block_on(async {
        assert_eq!(get(&url, "/api/tables").await["tables"], serde_json::json!([]));
        assert_eq!(get(&url, "/api/casino").await["demo"], false);
        assert_eq!(login(&url, "admin", &password).await, 200);
        // None of the demo's people.
        assert_eq!(login(&url, "player1", "demo").await, 401);
        assert_eq!(login(&url, "dealer", "demo").await, 401);
    });
    // loadgen leaves no trace in a real casino: refused, nothing made.
    let load = Command::new(env!("CARGO_BIN_EXE_baccarat"))
        .args(["loadgen", "--url", &url, "--admin-password", &password, "--seconds", "1", "--tables", "1"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&load.stderr);
    assert!(!load.status.success() && said.contains("--allow-production"), "{said}");
    rt.block_on(async { assert_eq!(get(&url, "/api/tables").await["tables"], serde_json::json!([])) });
    drop(server);
    // An existing casino ignores --demo and a password: named, not taken.
    let (server, rx) = serve(&db, Some("another-password-123"), &["--demo"]);
    let (out, url) = started(&rx);
    let all = out.join("\n");
    assert!(all.contains("--demo is ignored"), "{all}");
    assert!(all.contains("BACCARAT_ADMIN_PASSWORD is ignored"), "{all}");
    rt.block_on(async {
        assert_eq!(get(&url, "/api/casino").await["demo"], false);
        assert_eq!(get(&url, "/api/tables").await["tables"], serde_json::json!([]));
        assert_eq!(login(&url, "admin", "another-password-123").await, 401);
        assert_eq!(login(&url, "admin", &password).await, 200);
    });
    drop(server);
    // An empty casino's records verify.
    let o =
        Command::new(env!("CARGO_BIN_EXE_baccarat")).args(["verify", "--db", db.to_str().unwrap()]).output().unwrap();
    assert!(o.status.success(), "{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
}

#[test]
fn the_operators_password_is_taken_and_written_nowhere_and_a_weak_one_refused() {
    let dir = TempDir::new(&format!("baccarat-founding-given-{}", std::process::id()));
    let rt = tokio::runtime::Runtime::new().unwrap();
    // Too short: refused before anything is made.
    let weak = dir.join("weak.db");
    let (mut server, rx) = serve(&weak, Some("short"), &[]);
    let why = until_line(&rx, 60, |l| l.contains("BACCARAT_ADMIN_PASSWORD:").then(|| l.to_string()));
    assert!(why.contains("at least 12 characters") && !why.contains("short\""), "{why}");
    assert!(!server.0.wait().unwrap().success());
    // Given in a file, with --demo: the demo casino, the admin the operator's.
    let pw = dir.join("admin.txt");
    std::fs::write(&pw, "a long operator secret\n").unwrap();
    let db = dir.join("casino.db");
    let (server, rx) = serve(&db, None, &["--demo", "--admin-password-file", pw.to_str().unwrap()]);
    let (out, url) = started(&rx);
    let all = out.join("\n");
    assert!(all.contains("with a demo casino") && !all.contains("a long operator secret"), "{all}");
    assert!(!dir.join("casino.db.admin-password").exists(), "a given password is written nowhere");
    rt.block_on(async {
        assert_eq!(get(&url, "/api/casino").await["demo"], true);
        assert_eq!(get(&url, "/api/tables").await["tables"].as_array().unwrap().len(), 5);
        assert_eq!(login(&url, "admin", "a long operator secret").await, 200);
        assert_eq!(login(&url, "player1", "demo").await, 200);
    });
    drop(server);
}
