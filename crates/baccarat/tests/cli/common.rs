//! Shared by the integration tests that run `baccarat serve` as a child process.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

#[path = "../../../baccarat-server/tests/shared/temp_dir.rs"]
mod temp_dir;
pub use temp_dir::TempDir;

/// A server process, killed when dropped (also when a test fails).
pub struct Server(pub Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Server {
    /// Whether the process is still running.
    pub fn alive(&mut self) -> bool {
        matches!(self.0.try_wait(), Ok(None))
    }

    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.0.id()
    }

    /// Stop it as a service manager does (SIGTERM) and wait for it to exit.
    pub fn terminate(self) -> std::process::ExitStatus {
        self.signal("TERM")
    }

    /// Send it `signal` (as `kill` names it: TERM, HUP, QUIT) and wait for
    /// it to exit.
    pub fn signal(mut self, signal: &str) -> std::process::ExitStatus {
        let pid = self.0.id().to_string();
        let sent = Command::new("kill").args([&format!("-{signal}"), &pid]).status().expect("run kill");
        assert!(sent.success(), "kill -{signal} {pid}");
        // Bounded (a liveness bound, not a speed figure): a server that
        // takes no notice of the signal fails the test instead of hanging it.
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            if let Some(status) = self.0.try_wait().expect("wait for the server") {
                return status;
            }
            assert!(Instant::now() < deadline, "SIG{signal}: the server did not exit within 120 s");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Run `baccarat` with `args`, its stdout read line by line on a thread
/// for the whole life of the process (so the server never blocks on a full
/// pipe, and a silent server cannot hang the test).
pub fn spawn(args: &[&str]) -> (Server, mpsc::Receiver<String>) {
    spawn_via(Command::new(env!("CARGO_BIN_EXE_baccarat")), args)
}

/// [`spawn`], through a wrapper that execs it (`nohup baccarat …`, `env
/// --default-signal=HUP baccarat …`): the wrapper's command and its own
/// arguments, then `baccarat` and `args`.
pub fn spawn_under(wrapper: &[&str], args: &[&str]) -> (Server, mpsc::Receiver<String>) {
    let mut c = Command::new(wrapper[0]);
    c.args(&wrapper[1..]).arg(env!("CARGO_BIN_EXE_baccarat"));
    spawn_via(c, args)
}

fn spawn_via(mut command: Command, args: &[&str]) -> (Server, mpsc::Receiver<String>) {
    let child = command
        .args(args)
        // Every test's server founds the demo casino, its first admin's
        // password this one (a test of an empty casino removes them).
        .env("BACCARAT_DEMO", "true")
        .env("BACCARAT_ADMIN_PASSWORD", ADMIN_PASSWORD)
        .env_remove("BACCARAT_ADMIN_PASSWORD_FILE")
        .env_remove("BACCARAT_DB")
        .env_remove("BACCARAT_ADDR")
        .env_remove("BACCARAT_BETTING_SECONDS")
        .env_remove("BACCARAT_DEAL_MS")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn baccarat serve");
    let mut server = Server(child);
    let stdout = server.0.stdout.take().expect("piped stdout");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let _ = tx.send(line);
        }
    });
    (server, rx)
}

/// The first admin's password of every test's server (`BACCARAT_ADMIN_PASSWORD`).
pub const ADMIN_PASSWORD: &str = "test-admin-password";

/// The first admin's password, if `line` is a first run's word that the
/// admin was made (with [`ADMIN_PASSWORD`], as every test's server is).
pub fn first_admin(line: &str) -> Option<String> {
    let made = line.trim().starts_with("sign in as \"admin\" with the password from BACCARAT_ADMIN_PASSWORD");
    made.then(|| ADMIN_PASSWORD.to_string())
}

/// The first line `f` picks something out of, within `secs` seconds.
pub fn until_line<T>(rx: &mpsc::Receiver<String>, secs: u64, mut f: impl FnMut(&str) -> Option<T>) -> T {
    let deadline = Instant::now() + Duration::from_secs(secs);
    let mut seen = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(line) => {
                if let Some(t) = f(&line) {
                    return t;
                }
                seen.push(line);
            }
            Err(e) => panic!("no such line ({e:?}); the output:\n{}", seen.join("\n")),
        }
    }
}

/// The serve options every test gets unless `extra_args` names them: a fast table.
const DEFAULTS: [(&str, &str); 3] = [("--betting-seconds", "1"), ("--deal-ms", "150"), ("--result-ms", "100")];

/// Start `baccarat serve --db <db> --addr 127.0.0.1:0` plus `extra_args` (which
/// replace the defaults `--betting-seconds 1 --deal-ms 150 --result-ms 100` when they name them).
/// Returns the process, its base URL (no trailing slash) and the admin password
/// a first run was given (`None` when the database already existed).
pub fn start(db: &Path, extra_args: &[&str]) -> (Server, String, Option<String>) {
    let mut args = vec!["serve", "--db", db.to_str().expect("a UTF-8 database path"), "--addr", "127.0.0.1:0"];
    for (flag, value) in DEFAULTS {
        let named = extra_args.iter().any(|a| *a == flag || a.starts_with(&format!("{flag}=")));
        if !named {
            args.extend([flag, value]);
        }
    }
    args.extend_from_slice(extra_args);
    let (server, rx) = spawn(&args);
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut password = None;
    let mut seen = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = match rx.recv_timeout(left) {
            Ok(line) => line,
            Err(e) => panic!("baccarat serve {args:?} did not start ({e:?}); its output:\n{}", seen.join("\n")),
        };
        if let Some(p) = first_admin(&line) {
            password = Some(p);
        }
        if let Some(url) = served_url(&line) {
            return (server, url, password);
        }
        seen.push(line);
    }
}

/// The base URL (no trailing slash), if `line` is the one a server prints
/// once it serves.
pub fn served_url(line: &str) -> Option<String> {
    let rest = line.strip_prefix("baccarat table server on ")?;
    rest.split_whitespace().next().map(|u| u.trim_end_matches('/').to_string())
}

/// Sign in at a running server; the session token.
pub async fn login(c: &reqwest::Client, url: &str, name: &str, password: &str) -> String {
    let r: serde_json::Value = c
        .post(format!("{url}/api/login"))
        .json(&serde_json::json!({"name": name, "password": password}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    r["token"].as_str().unwrap_or_else(|| panic!("login {name}: {r}")).to_string()
}
