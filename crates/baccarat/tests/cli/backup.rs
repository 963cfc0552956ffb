//! `baccarat backup` and the restore drill (docs/backup.md): a backup taken
//! while players bet, restored into a new directory, serves a bet that
//! settles and passes `verify --full`, its anchor file continuing from the
//! backup's lines. The attacks: a backup without `--include-key` holds no
//! byte of the signing key; an old backup restored beside a newer anchor
//! file is refused naming the fix, and `--new-anchor-file` is not a way
//! round it. And the PostgreSQL procedure, run: the anchor file copied, then
//! `pg_dump`, restored with `pg_restore` into a new database that serves and
//! verifies.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::{start, TempDir};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_baccarat")
}

/// Run `baccarat args`: (success, stdout, stderr).
fn run(args: &[&str]) -> (bool, String, String) {
    let o = Command::new(bin()).args(args).env_remove("BACCARAT_DB").output().unwrap();
    (o.status.success(), String::from_utf8_lossy(&o.stdout).into(), String::from_utf8_lossy(&o.stderr).into())
}

/// `verify --full` of the SQLite casino at `db` passes; what it printed.
fn verify_full(db: &Path) -> String {
    let (ok, out, err) = run(&["verify", "--full", "--db", db.to_str().unwrap()]);
    assert!(ok, "verify --full {}: {out}{err}", db.display());
    out
}

/// `loadgen` against `url` for `seconds`, started (its output kept).
fn load(url: &str, admin: &str, seconds: &str) -> Child {
    Command::new(bin())
        .args(["loadgen", "--url", url, "--admin-password", admin, "--tables", "2", "--players-per-table", "3"])
        .args(["--concurrency", "4", "--seconds", seconds, "--probe", "false", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// A finished `loadgen` took bets and its ledger balanced.
fn loaded(child: Child) {
    let o = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "loadgen: {text}{}", String::from_utf8_lossy(&o.stderr));
    let r: Value = serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert!(r["accepted_bets"].as_u64().unwrap_or(0) > 0, "{r}");
    assert_eq!(r["ledger"]["ok"], true, "{r}");
}

/// The accounts holding wagers in play in the SQLite casino at `db` (read
/// beside the server): above zero while players' bets await their coup.
fn holding(db: &Path) -> i64 {
    let c = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    c.query_row("SELECT count(*) FROM accounts WHERE held > 0", [], |r| r.get(0)).unwrap()
}

/// Wait (a liveness bound, not a speed figure) until `f` holds.
fn until(what: &str, mut f: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(90);
    while !f() {
        assert!(Instant::now() < deadline, "{what}: not within 90 s");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Every file under `dir`.
fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(files_in(&p));
        } else {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// Restoring: copy every file of `from` into `to`.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let dest = to.join(p.file_name().unwrap());
        if p.is_dir() {
            copy_dir(&p, &dest);
        } else {
            std::fs::copy(&p, &dest).unwrap();
        }
    }
}

/// As `player1`, bet on the Banker at table 1 and wait until the coup has
/// settled it (nothing held); the coup it was placed in.
fn bet_and_settle(url: &str) -> u64 {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let c = reqwest::Client::new();
    rt.block_on(async {
        let token = crate::common::login(&c, url, "player1", "demo").await;
        let get = |path: String| {
            let (c, token) = (c.clone(), token.clone());
            async move { c.get(path).bearer_auth(token).send().await.unwrap().json::<Value>().await.unwrap() }
        };
        let deadline = Instant::now() + Duration::from_secs(90);
        let coup = loop {
            assert!(Instant::now() < deadline, "no bet taken within 90 s");
            let t = get(format!("{url}/api/tables/1")).await;
            if t["phase"] == "betting" {
                let r: Value = c
                    .post(format!("{url}/api/tables/1/wagers"))
                    .bearer_auth(&token)
                    .json(&json!({"bet": "banker", "amount": 5000, "key": format!("restored-{}", t["coup"])}))
                    .send()
                    .await
                    .unwrap()
                    .json()
                    .await
                    .unwrap();
                if r["result"] == "wager" {
                    break t["coup"].as_u64().unwrap();
                }
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        loop {
            assert!(Instant::now() < deadline, "the bet was not settled within 90 s");
            let t = get(format!("{url}/api/tables/1")).await;
            let me = get(format!("{url}/api/me")).await;
            if t["coup"].as_u64().unwrap() > coup && me["balance"] == me["available"] {
                return coup;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
}

/// `serve` with `args`, which must refuse to start: its error output. A
/// server that starts instead fails the test (and is killed).
fn refused(args: &[&str]) -> String {
    let mut child = Command::new(bin())
        .args(args)
        .args(["--addr", "127.0.0.1:0"])
        .env("BACCARAT_DEMO", "true")
        .env("BACCARAT_ADMIN_PASSWORD", crate::common::ADMIN_PASSWORD)
        .env_remove("BACCARAT_DB")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(90);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("serve {args:?} was not refused: it still runs after 90 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let o = child.wait_with_output().unwrap();
    assert!(!o.status.success(), "serve {args:?} started");
    String::from_utf8_lossy(&o.stderr).into()
}

/// The drill: a backup under load, restored into a new directory, serves a
/// bet to its settlement, and verifies whole; the anchor file goes on from
/// the backup's lines.
#[test]
fn a_backup_taken_under_load_restores_serves_and_verifies() {
    let dir = TempDir::new(&format!("baccarat-backup-drill-{}", std::process::id()));
    let db = dir.join("casino.db");
    let (server, url, admin) = start(&db, &[]);
    let admin = admin.expect("a first run");
    let mut players = load(&url, &admin, "8");
    // Under load: bets in play as the copy is taken.
    until("bets in play", || holding(&db) > 0);
    let bk = dir.join("backup");
    let (ok, out, err) = run(&["backup", "--db", db.to_str().unwrap(), "--to", bk.to_str().unwrap(), "--json"]);
    assert!(ok, "backup: {out}{err}");
    assert!(players.try_wait().unwrap().is_none(), "the players were still betting when the backup ended");
    loaded(players);
    let report: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    let whats: Vec<&str> = report["files"].as_array().unwrap().iter().map(|f| f["what"].as_str().unwrap()).collect();
    assert_eq!(whats, ["database", "anchors", "public key"], "{report}");
    assert_eq!(report["key_included"], false);
    assert!(report["anchor_lines"].as_u64().unwrap() > 0, "{report}");
    let records = report["chains"]["0"].as_u64().unwrap();
    assert!(records > 0 && report["anchored"]["0"].as_u64().unwrap() <= records, "{report}");
    let public = std::fs::read_to_string(bk.join("casino.db.pub")).unwrap();
    assert_eq!(public.trim(), report["public_key"].as_str().unwrap());
    assert!(server.terminate().success());

    // Restore into a new directory: the backup's files, and the original
    // key (not in the backup) beside them.
    let restored = dir.join("restored");
    copy_dir(&bk, &restored);
    let rdb = restored.join("casino.db");
    let no_key = refused(&["serve", "--db", rdb.to_str().unwrap()]);
    assert!(
        no_key.contains("casino.db.key: the signing key is missing") && no_key.contains("--include-key"),
        "{no_key}"
    );
    std::fs::copy(dir.join("casino.db.key"), restored.join("casino.db.key")).unwrap();
    let copied = std::fs::read(restored.join("casino.db.anchors")).unwrap();
    let (server, url, first) = start(&rdb, &[]);
    assert!(first.is_none(), "the restored casino is the old one, not a new first run");
    bet_and_settle(&url);
    assert!(server.terminate().success());
    let out = verify_full(&rdb);
    assert!(out.contains("verified"), "{out}");
    let after = std::fs::read(restored.join("casino.db.anchors")).unwrap();
    assert!(
        after.len() > copied.len() && after.starts_with(&copied),
        "the anchor file goes on from the backup's lines"
    );
}

/// Attack: a backup made without `--include-key` holds no byte of the
/// signing key (hex in either case, or raw); with it, the key is there,
/// private, and the operator was warned.
#[test]
fn a_backup_without_include_key_holds_no_private_key_bytes() {
    let dir = TempDir::new(&format!("baccarat-backup-key-{}", std::process::id()));
    let db = dir.join("casino.db");
    let (server, _url, _) = start(&db, &[]);
    let secret_hex = std::fs::read_to_string(dir.join("casino.db.key")).unwrap().trim().to_string();
    let raw: Vec<u8> =
        (0..32).map(|i| u8::from_str_radix(&secret_hex[2 * i..2 * i + 2], 16).unwrap()).collect::<Vec<u8>>();
    let bk = dir.join("backup");
    let (ok, out, err) = run(&["backup", "--db", db.to_str().unwrap(), "--to", bk.to_str().unwrap()]);
    assert!(ok, "backup: {out}{err}");
    assert!(out.contains("the signing key is not in the backup"), "{out}");
    for f in files_in(&bk) {
        let bytes = std::fs::read(&f).unwrap();
        for needle in [secret_hex.as_bytes(), secret_hex.to_uppercase().as_bytes(), &raw[..]] {
            assert!(!bytes.windows(needle.len()).any(|w| w == needle), "{}: holds the signing key", f.display());
        }
    }
    let with = dir.join("with-key");
    let (ok, out, err) =
        run(&["backup", "--db", db.to_str().unwrap(), "--to", with.to_str().unwrap(), "--include-key"]);
    assert!(ok, "backup --include-key: {out}{err}");
    assert!(err.contains("warning: --include-key") && err.contains("can sign"), "{err}");
    let key = with.join("casino.db.key");
    assert_eq!(std::fs::read_to_string(&key).unwrap().trim(), secret_hex);
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(&key).unwrap().permissions().mode() & 0o077, 0, "private");
    drop(server);
}

/// What is refused, and named: a `--to` with something in it, a file that
/// is not a casino, a PostgreSQL URL (pointing to the manual).
#[test]
fn a_backup_refuses_a_used_directory_a_file_that_is_no_casino_and_postgresql() {
    let dir = TempDir::new(&format!("baccarat-backup-refusals-{}", std::process::id()));
    let used = dir.join("used");
    std::fs::create_dir_all(&used).unwrap();
    std::fs::write(used.join("x"), "x").unwrap();
    let notes = dir.join("notes.db");
    std::fs::write(&notes, "not a database").unwrap();
    let (ok, _, err) = run(&["backup", "--db", notes.to_str().unwrap(), "--to", used.to_str().unwrap()]);
    assert!(!ok && err.contains("--to:") && err.contains("is not an empty directory"), "{err}");
    let (ok, _, err) = run(&["backup", "--db", notes.to_str().unwrap(), "--to", dir.join("a").to_str().unwrap()]);
    assert!(!ok && err.contains("notes.db: not a casino's database"), "{err}");
    let other = dir.join("other.db");
    rusqlite::Connection::open(&other).unwrap().execute_batch("CREATE TABLE t (x)").unwrap();
    let (ok, _, err) = run(&["backup", "--db", other.to_str().unwrap(), "--to", dir.join("b").to_str().unwrap()]);
    assert!(!ok && err.contains("other.db: not a casino's database (it has no audit chains)"), "{err}");
    let (ok, _, err) =
        run(&["backup", "--db", "postgres://u:secret@h/casino", "--to", dir.join("c").to_str().unwrap()]);
    assert!(!ok && err.contains("pg_dump") && err.contains("docs/backup.md") && !err.contains("secret"), "{err}");
}

/// Attack (or a tired operator): last night's database restored beside
/// today's anchor file. The start is refused as a cut, saying to put the
/// backup's own anchor file in place; `--new-anchor-file` does not get
/// round it (it used to be ignored beside a file that exists); the fix the
/// message names starts.
#[test]
fn an_old_backup_beside_a_newer_anchor_file_is_refused_naming_the_fix() {
    let dir = TempDir::new(&format!("baccarat-backup-old-{}", std::process::id()));
    let db = dir.join("casino.db");
    let (server, url, admin) = start(&db, &[]);
    let bk = dir.join("backup");
    let (ok, out, err) = run(&["backup", "--db", db.to_str().unwrap(), "--to", bk.to_str().unwrap()]);
    assert!(ok, "backup: {out}{err}");
    // After the backup: new players and their deposits (the casino's own
    // chain grows), and their bets.
    loaded(load(&url, &admin.unwrap(), "1"));
    assert!(server.terminate().success());
    let (anchors, newer) = (dir.join("casino.db.anchors"), std::fs::read(dir.join("casino.db.anchors")).unwrap());
    // Restoring the database alone (its WAL and index with it, as a restore must).
    for stale in ["casino.db-wal", "casino.db-shm"] {
        let _ = std::fs::remove_file(dir.join(stale));
    }
    std::fs::copy(bk.join("casino.db"), &db).unwrap();
    let err = refused(&["serve", "--db", db.to_str().unwrap()]);
    assert!(err.contains("refusing to start: the casino's chain") && err.contains("(its tail was cut)"), "{err}");
    assert!(err.contains("restored from a backup") && err.contains("put the backup's own anchor file"), "{err}");
    let err = refused(&["serve", "--db", db.to_str().unwrap(), "--new-anchor-file"]);
    let named = format!("--new-anchor-file: {} exists and is not empty", anchors.display());
    assert!(err.contains(&named) && err.contains("Start without the flag"), "{err}");
    assert_eq!(std::fs::read(&anchors).unwrap(), newer, "the refused starts left the newer file as it was");
    // The fix: the newer file kept aside, the backup's in its place.
    std::fs::rename(&anchors, dir.join("casino.db.anchors.newer")).unwrap();
    std::fs::copy(bk.join("casino.db.anchors"), &anchors).unwrap();
    let (server, _url, _) = start(&db, &[]);
    assert!(server.terminate().success());
    verify_full(&db);
}

/// `pg_dump`, found as `scripts/postgres.sh` finds PostgreSQL's programs
/// (the newest `/usr/lib/postgresql/*/bin`), else on the PATH.
fn pg_tool(name: &str) -> PathBuf {
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("bin").join(name))
        .filter(|p| p.is_file())
        .collect();
    found.sort_by_key(|p| {
        let v = p.parent().and_then(Path::parent).and_then(|d| d.file_name()).and_then(|v| v.to_str()).unwrap_or("");
        v.split('.').map(|n| n.parse::<u32>().unwrap_or(0)).collect::<Vec<_>>()
    });
    found.pop().unwrap_or_else(|| PathBuf::from(name))
}

/// The PostgreSQL procedure of docs/backup.md, run: while players bet, the
/// anchor file is copied, then `pg_dump` takes the database; `pg_restore`
/// puts it in a new database, a server starts on it with the copy of the
/// anchor file and the original key, takes bets, and `verify` passes.
#[test]
fn a_postgresql_casino_dumped_under_load_restores_serves_and_verifies() {
    use crate::failover::{database, instance, verify_casino};
    let dir = TempDir::new(&format!("baccarat-pg-backup-{}", std::process::id()));
    let db = database("backup_src");
    let (server, lines, url) = instance("solo", &db, &dir);
    let admin = crate::common::until_line(&lines, 30, crate::common::first_admin);
    crate::common::until_line(&lines, 30, |l| l.starts_with("baccarat table server on ").then_some(()));
    loaded(load(&url, &admin, "2"));
    let players = load(&url, &admin, "4");
    let bk = dir.join("backup");
    std::fs::create_dir_all(&bk).unwrap();
    // 1. The anchor file first: every line in it signs what the dump holds.
    std::fs::copy(dir.join("casino.anchors"), bk.join("casino.anchors")).unwrap();
    // 2. The database: one consistent snapshot.
    let dump = bk.join("casino.dump");
    let o = Command::new(pg_tool("pg_dump"))
        .args(["--format=custom", "--file", dump.to_str().unwrap(), "--dbname", &db])
        .output()
        .unwrap();
    assert!(o.status.success(), "pg_dump: {}", String::from_utf8_lossy(&o.stderr));
    loaded(players);
    drop(server);

    let new = database("backup_dst");
    let o = Command::new(pg_tool("pg_restore"))
        .args(["--no-owner", "--no-privileges", "--exit-on-error", "--dbname", &new, dump.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "pg_restore: {}", String::from_utf8_lossy(&o.stderr));
    let restored = dir.join("restored");
    std::fs::create_dir_all(&restored).unwrap();
    std::fs::copy(bk.join("casino.anchors"), restored.join("casino.anchors")).unwrap();
    std::fs::copy(dir.join("casino.key"), restored.join("casino.key")).unwrap();
    let copied = std::fs::read(restored.join("casino.anchors")).unwrap();
    let (server, lines, url) = instance("restored", &new, &restored);
    crate::common::until_line(&lines, 60, |l| l.starts_with("baccarat table server on ").then_some(()));
    loaded(load(&url, crate::common::ADMIN_PASSWORD, "1"));
    drop(server);
    let out = verify_casino(&new, &restored);
    assert!(out.contains("verified"), "{out}");
    let after = std::fs::read(restored.join("casino.anchors")).unwrap();
    assert!(after.len() > copied.len() && after.starts_with(&copied), "the anchor file goes on from the copy's lines");
}
