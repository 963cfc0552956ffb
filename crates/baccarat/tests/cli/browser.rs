//! Browser scenarios: each `browser/tests/<name>.mjs` drives Debian's headless
//! Chromium (through the npm package playwright-core) against a fresh
//! `baccarat serve`. `scripts/browser-deps.sh` installs both on first use.
//! Screenshots go to `target/screenshots/<name>/`.
#![cfg(unix)]

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::common::TempDir;

/// How long one scenario's `node` may run before it is killed; it gives up
/// itself ten seconds earlier (lib.mjs's run()), with screenshots.
const SCENARIO_TIMEOUT: Duration = Duration::from_secs(120);

fn workspace() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.canonicalize().unwrap_or(root)
}

/// Run `scripts/browser-deps.sh` once per test process (tests run in parallel;
/// apt-get and npm must not).
fn browser_deps() {
    static DEPS: OnceLock<Result<String, String>> = OnceLock::new();
    let result = DEPS.get_or_init(|| {
        let root = workspace();
        let out = Command::new("bash")
            .arg(root.join("scripts/browser-deps.sh"))
            .current_dir(&root)
            .output()
            .map_err(|e| format!("cannot run bash scripts/browser-deps.sh: {e}"))?;
        let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        if out.status.success() {
            Ok(text)
        } else {
            Err(format!("bash scripts/browser-deps.sh failed ({}):\n{text}", out.status))
        }
    });
    match result {
        Ok(text) => print!("{text}"),
        Err(e) => panic!("the browser tests need chromium and playwright-core: {e}"),
    }
}

/// Run `node browser/tests/<name>.mjs` against a fresh server started with
/// `serve_args` (e.g. `&["--betting-seconds", "3"]`), with `BASE_URL`,
/// `ADMIN_PASSWORD`, `SCREENSHOT_DIR` (`target/screenshots/<name>`) and
/// `SCENARIO_TIMEOUT_MS`; the scenario must exit 0 within two minutes.
fn scenario(name: &str, serve_args: &[&str]) {
    browser_deps();
    // Declared before the server so that the server is dropped (killed) first.
    let dir = TempDir::new(&format!("baccarat-browser-{name}-{}", std::process::id()));
    let (_server, url, password) = crate::common::start(&dir.join("casino.db"), serve_args);
    let password = password.expect("a fresh database prints the admin password");
    scenario_at(name, &url, &password);
}

/// Run `node browser/tests/<name>.mjs` against the server at `url` (its
/// admin password `password`), as [`scenario`] does.
fn scenario_at(name: &str, url: &str, password: &str) {
    browser_deps();
    let root = workspace();
    let script = root.join("browser/tests").join(format!("{name}.mjs"));
    assert!(script.exists(), "no scenario {}", script.display());
    let screenshots = root.join("target/screenshots").join(name);
    let _ = std::fs::remove_dir_all(&screenshots);
    std::fs::create_dir_all(&screenshots).unwrap();

    let mut child = Command::new("node")
        .arg(&script)
        .current_dir(&root)
        .env("BASE_URL", url)
        .env("ADMIN_PASSWORD", password)
        .env("SCREENSHOT_DIR", &screenshots)
        // run() in lib.mjs fails the scenario (with screenshots) before we kill node.
        .env("SCENARIO_TIMEOUT_MS", SCENARIO_TIMEOUT.saturating_sub(Duration::from_secs(10)).as_millis().to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run node (is Node.js installed?): {e}"));
    let read = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = r.read_to_end(&mut buf);
            String::from_utf8_lossy(&buf).into_owned()
        })
    };
    let stdout = read(Box::new(child.stdout.take().unwrap()));
    let stderr = read(Box::new(child.stderr.take().unwrap()));
    let deadline = Instant::now() + SCENARIO_TIMEOUT;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if Instant::now() > deadline {
            // SIGKILL to node's own pid only; Chromium exits when its pipe to node closes.
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let (stdout, stderr) = (stdout.join().unwrap(), stderr.join().unwrap());
    let outcome = match status {
        Some(s) if s.success() => {
            print!("{stdout}");
            eprint!("{stderr}");
            return;
        }
        Some(s) => format!("failed ({s})"),
        None => format!("did not finish within {} s and was killed", SCENARIO_TIMEOUT.as_secs()),
    };
    panic!(
        "browser scenario {name} {outcome}; screenshots in {}\n--- stdout ---\n{stdout}\n--- stderr ---\n{stderr}",
        screenshots.display()
    );
}

/// Run `node browser/tests/<name>.mjs`, as [`scenario`] does, against a
/// fresh server that founds an empty casino (no `--demo`: its one admin and
/// nothing else), so the scenario sets the casino up itself.
fn scenario_empty(name: &str, serve_args: &[&str]) {
    browser_deps();
    let dir = TempDir::new(&format!("baccarat-browser-{name}-{}", std::process::id()));
    let db = dir.join("casino.db");
    let mut args = vec!["serve", "--db", db.to_str().expect("a UTF-8 path"), "--addr", "127.0.0.1:0"];
    args.extend_from_slice(serve_args);
    // Every test's server is the demo (`common::spawn`); `env -u` takes
    // that away for this one.
    let (_server, lines) = crate::common::spawn_under(&["env", "-u", "BACCARAT_DEMO"], &args);
    let password = crate::common::until_line(&lines, 30, crate::common::first_admin);
    let url = crate::common::until_line(&lines, 30, |l| {
        l.strip_prefix("baccarat table server on ").map(|r| r.split_whitespace().next().unwrap_or("").to_string())
    });
    scenario_at(name, url.trim_end_matches('/'), &password);
}

/// The back office (`/admin`) at 1440×900 on an empty casino: the admin
/// makes staff and a player, deposits, makes two tables of different
/// rulebooks from the form (a problem shown as typed, gone when fixed),
/// fills and credits a float, cashes the player out after a coup, and reads
/// the day's report and its CSV; the inspector reads with no control that
/// changes anything.
#[test]
fn backoffice() {
    scenario_empty("backoffice", &["--betting-seconds", "3", "--deal-ms", "300", "--result-ms", "300"]);
}

/// A partitioned PostgreSQL casino (`--partition`): the player's page
/// opened at west's server under east's path (`/p/east/`) signs in, shows
/// the money at the casino's bank beside east's wallet, and bets at east's
/// table, every call and the feed under that path (`partition_route.rs`).
#[test]
fn partition() {
    browser_deps();
    let dir = TempDir::new(&format!("baccarat-browser-partition-{}", std::process::id()));
    let db = crate::failover::pg_cluster::database(&format!("browser{}_partition", std::process::id()));
    let serve = |part: &str| {
        let (anchors, key) = (dir.join(format!("{part}.anchors")), dir.join(format!("{part}.key")));
        let more = ["--partition", part, "--betting-seconds", "15", "--deal-ms", "300"];
        crate::failover::serve_pg(&db, &format!("{part}-1"), &anchors, &key, &more)
    };
    let (_east, east_lines, _) = serve("east");
    let password = crate::common::until_line(&east_lines, 30, crate::common::first_admin);
    crate::common::until_line(&east_lines, 30, |l| l.starts_with("baccarat table server on ").then_some(()));
    let (_west, west_lines, west_url) = serve("west");
    crate::common::until_line(&west_lines, 30, |l| l.starts_with("baccarat table server on ").then_some(()));
    scenario_at("partition", &format!("{west_url}/p/east"), &password);
}

#[test]
fn smoke() {
    scenario("smoke", &[]);
}

/// The felt's words for a coup (`web/felt-net.js`), checked by node alone (no
/// browser, no server): a net of nothing after a pair won and the main wager
/// lost is "even", with both amounts, not "your stakes are returned" (issue
/// 45 §5); only a coup where nothing was won or lost returns the stakes.
#[test]
fn felt_net_words() {
    node_unit("felt-net.mjs");
}

/// The table socket's deltas as the pages follow them (`web/delta.js`),
/// checked by node alone: objects merge, `null` is a value, a road's tail is
/// appended, a gap in the numbers asks for the whole message again, and a
/// `__proto__` key is data (the server's side: `http/delta.rs`).
#[test]
fn delta_js() {
    node_unit("delta.mjs");
}

/// A player joins table 1, bets through the page, sees the cards and the result,
/// and the balance moves by exactly the settled amounts (checked against the
/// cards and the pay tables); screenshots at 1280×800 and 390×844.
#[test]
fn player() {
    scenario("player", &["--betting-seconds", "6", "--deal-ms", "300"]);
}

/// At the squeeze table only the player holding a hand sees it until they
/// reveal it; the other player's WebSocket never carries it before then.
/// The squeeze's time (12 s by default) is a minute here: the scenario does
/// much while the hand is out (a reload, screenshots at two sizes), and on a
/// busy machine the server revealed the hand itself before the scenario's
/// own Reveal (issue 45: no test races a real server's pace).
#[test]
fn squeeze() {
    scenario("squeeze", &["--betting-seconds", "6", "--deal-ms", "300", "--squeeze-seconds", "60"]);
}

/// Several tables at once (`/multi`): four tables side by side at 1440×900,
/// a bet at two of them in the same window, each taken by its own table; a
/// table taken off leaves the others, and the address keeps the choice.
#[test]
fn multi() {
    scenario("multi", &["--betting-seconds", "8", "--deal-ms", "300"]);
}

/// The exposure monitor (issue 50): a live shoe stacked until the pairs
/// turn in the player's favour; the surveillance page and the supervisor's
/// pit raise the alert naming the card that turned it.
#[test]
fn surveillance() {
    scenario("surveillance", &["--betting-seconds", "8", "--deal-ms", "300"]);
}

/// Responsible gaming: a loss limit set on the page stops a bet past it (the
/// server refuses it), a reality check comes after the chosen minutes, and a
/// break stops every bet.
#[test]
fn limits() {
    scenario("limits", &["--betting-seconds", "6", "--deal-ms", "300"]);
}

/// The language switch: English, Simplified and Traditional Chinese from one
/// catalogue, with the spots' and roads' conventional labels, kept across a
/// reload, and accessible in each.
#[test]
fn language() {
    scenario("language", &["--betting-seconds", "4", "--deal-ms", "300"]);
}

/// A dealer runs the live table from the pit console: starts a shoe, opens and
/// closes betting, enters cards from the keyboard (a fast burst as a scanner
/// would), reports a card found face up with the rule's own text quoted, and the
/// player's balance moves by exactly the settlement.
#[test]
fn dealer() {
    scenario("dealer", &["--betting-seconds", "6", "--deal-ms", "300"]);
}

/// An inspector steps through a coup's recall and runs verify and the ledger
/// check from the console.
#[test]
fn inspector() {
    scenario("inspector", &["--betting-seconds", "6", "--deal-ms", "300"]);
}

/// A two-table tournament of eight (NSW 15): entry, an undisclosed wager
/// kept off the WebSocket until "no more bets", a pass card, a wager out of
/// the marker's order refused, play-offs for level players, the final, and
/// the prizes paid, on the player's page and the leaderboard.
#[test]
fn tournament() {
    scenario("tournament", &[]);
}

/// Run a node-only unit script of `browser/unit/` and fail with its output
/// if it fails.
fn node_unit(name: &str) {
    let script = workspace().join("browser/unit").join(name);
    let out = Command::new("node")
        .arg(&script)
        .current_dir(workspace())
        .output()
        .unwrap_or_else(|e| panic!("cannot run node (is Node.js installed?): {e}"));
    assert!(
        out.status.success(),
        "{} failed ({}):\n{}{}",
        script.display(),
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
