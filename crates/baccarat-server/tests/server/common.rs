//! The server started in-process on port 0 with a fresh database, and a client.
#![allow(dead_code)]

use std::time::Duration;

use baccarat_server::serve::{run, ServeConfig};
use reqwest::{Client, StatusCode};
use serde_json::{json, Value};

pub struct App {
    pub base: String,
    pub client: Client,
    pub admin: String,
    /// The database's directory: removed when the test passes.
    pub dir: TempDir,
}

#[path = "../shared/temp_dir.rs"]
mod temp_dir;
pub use temp_dir::TempDir;

/// Start the server on 127.0.0.1:0 with a fresh database (zero2prod's spawn_app).
pub async fn spawn_app() -> App {
    spawn_app_with(|_| {}).await
}

/// As [`spawn_app`], with the settings changed by `tweak` first.
pub async fn spawn_app_with(tweak: impl FnOnce(&mut ServeConfig)) -> App {
    let dir = TempDir::new(&format!("baccarat-http-{}-{}", std::process::id(), rand_suffix()));
    let db = dir.join("casino.db");
    let mut cfg = ServeConfig {
        betting: Duration::from_millis(3000),
        deal: Duration::from_millis(10),
        squeeze: Duration::from_millis(300),
        result_pause: Duration::from_millis(50),
        rate_per_second: 100_000,
        founding: baccarat_core::audit::Founding::Demo,
        ..ServeConfig::new(db.clone(), "127.0.0.1:0".parse().unwrap())
    };
    tweak(&mut cfg);
    // Create the database first so the admin's password can be set for the test.
    let first = cfg.clone();
    tokio::task::spawn_blocking(move || {
        let users = baccarat_server::serve::open(&first).unwrap().users;
        users.create("test-admin", baccarat_server::auth::Role::Admin, "admin-pass").unwrap();
    })
    .await
    .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(run(cfg, listener));
    let app = App { base: format!("http://{addr}"), client: Client::new(), admin: String::new(), dir };
    // A server on PostgreSQL answers 503 while it takes the lease and recovers.
    for _ in 0..1500 {
        if app.get("/api/tables", None).await.0 != StatusCode::SERVICE_UNAVAILABLE {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let admin = app.login("test-admin", "admin-pass").await;
    App { admin, ..app }
}

/// Run one statement on the test server's database, whichever it is (an
/// attacker with the database's credentials); the rows it changed.
pub async fn execute(cfg: &ServeConfig, sql: &str) -> usize {
    let (cfg, sql) = (cfg.clone(), sql.to_string());
    tokio::task::spawn_blocking(move || match &cfg.postgres {
        Some(url) => postgres::Client::connect(url, postgres::NoTls).unwrap().execute(&sql, &[]).unwrap() as usize,
        None => {
            let c = rusqlite::Connection::open(&cfg.db).unwrap();
            c.busy_timeout(Duration::from_secs(5)).unwrap();
            c.execute(&sql, []).unwrap()
        }
    })
    .await
    .unwrap()
}

/// A WebSocket upgrade request signed in by the session cookie, as a page's
/// is: from a page of the server it connects to (`Origin`, which a browser
/// sends, and without which a cookie upgrade is refused: `http/origin.rs`).
pub fn ws_request(url: &str, token: &str) -> tokio_tungstenite::tungstenite::handshake::client::Request {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut req = url.into_client_request().unwrap();
    req.headers_mut().insert("cookie", format!("{}={token}", baccarat_server::http::SESSION_COOKIE).parse().unwrap());
    let page = url.replacen("wss://", "https://", 1).replacen("ws://", "http://", 1);
    let end = page.find("://").map_or(page.len(), |i| page[i + 3..].find('/').map_or(page.len(), |j| i + 3 + j));
    req.headers_mut().insert("origin", page[..end].parse().unwrap());
    req
}

fn rand_suffix() -> String {
    baccarat_server::auth::random_hex(4)
}

impl App {
    pub async fn login(&self, name: &str, password: &str) -> String {
        let r: Value = self
            .client
            .post(format!("{}/api/login", self.base))
            .json(&json!({"name": name, "password": password}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        r["token"].as_str().unwrap_or_else(|| panic!("login {name}: {r}")).to_string()
    }

    pub async fn get(&self, path: &str, token: Option<&str>) -> (StatusCode, Value) {
        let mut rq = self.client.get(format!("{}{path}", self.base));
        if let Some(t) = token {
            rq = rq.bearer_auth(t);
        }
        let r = rq.send().await.unwrap();
        (r.status(), r.json().await.unwrap_or(Value::Null))
    }

    pub async fn post(&self, path: &str, token: Option<&str>, body: Value) -> (StatusCode, Value) {
        let mut rq = self.client.post(format!("{}{path}", self.base)).json(&body);
        if let Some(t) = token {
            rq = rq.bearer_auth(t);
        }
        let r = rq.send().await.unwrap();
        (r.status(), r.json().await.unwrap_or(Value::Null))
    }

    /// Wait until table `id` is in `phase`.
    pub async fn until_phase(&self, id: u32, phase: &str) {
        for _ in 0..1000 {
            let (_, t) = self.get(&format!("/api/tables/{id}"), None).await;
            if t["phase"] == phase {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("table {id} never reached {phase}");
    }
}
