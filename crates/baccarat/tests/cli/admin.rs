//! `baccarat admin` against a running server (`baccarat serve` as a child
//! process): what each subcommand prints, a refusal's words and exit status,
//! and that a password is never taken from a flag.

use std::process::{Command, Output, Stdio};

use serde_json::Value;

use crate::common::{Server, TempDir};

/// A running casino and its admin's password.
struct Casino {
    // The server is dropped (killed) before its directory is removed.
    _server: Server,
    dir: TempDir,
    url: String,
    password: String,
}

/// The one place these tests start a server: a fresh database, the demo
/// casino (staff, players, tables), and the admin's password (every test
/// server is founded with `--demo` and BACCARAT_ADMIN_PASSWORD: `common.rs`).
fn casino(test: &str) -> Casino {
    let dir = TempDir::new(&format!("baccarat-admin-{}-{test}", std::process::id()));
    let (server, url, password) = crate::common::start(&dir.join("casino.db"), &[]);
    let password = password.expect("a fresh database takes the admin password given");
    Casino { _server: server, dir, url, password }
}

/// Run `baccarat admin` with `args` and no terminal (standard input closed):
/// only `env` names the people and passwords.
fn admin_at(url: &str, env: &[(&str, &str)], args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_baccarat"))
        .args(["admin", "--url", url])
        .args(args)
        .env_remove("BACCARAT_ADMIN_USER")
        .env_remove("BACCARAT_ADMIN_PASSWORD")
        .env_remove("BACCARAT_NEW_PASSWORD")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .expect("run baccarat admin")
}

impl Casino {
    /// `baccarat admin` as the admin.
    fn admin(&self, args: &[&str]) -> Output {
        self.admin_env(&[], args)
    }

    /// `baccarat admin` as the admin, with `env` as well (a new password).
    fn admin_env(&self, env: &[(&str, &str)], args: &[&str]) -> Output {
        let mut all = vec![("BACCARAT_ADMIN_PASSWORD", self.password.as_str())];
        all.extend_from_slice(env);
        admin_at(&self.url, &all, args)
    }

    /// `baccarat admin` that must succeed: its standard output.
    fn ok(&self, args: &[&str]) -> String {
        ok(self.admin(args), args)
    }

    /// `baccarat admin … --json` that must succeed: the API's answer.
    fn json(&self, env: &[(&str, &str)], args: &[&str]) -> Value {
        let o = self.admin_env(env, &[args, &["--json"]].concat());
        serde_json::from_str(&ok(o, args)).unwrap_or_else(|e| panic!("{args:?}: not JSON: {e}"))
    }

    /// A table configuration file in the test's directory.
    fn config(&self, name: &str, text: &str) -> String {
        let p = self.dir.join(name);
        std::fs::write(&p, text).unwrap();
        p.to_string_lossy().into_owned()
    }
}

fn ok(o: Output, args: &[&str]) -> String {
    let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "{args:?}: {}\nstdout: {out}\nstderr: {err}", o.status);
    out.into_owned()
}

/// Refused: status 2, one line on stderr starting `error:` containing
/// `needle`, nothing on stdout.
fn refused(o: Output, needle: &str) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.starts_with("error: "), "{err}");
    assert!(err.contains(needle), "{err:?} lacks {needle:?}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(o.stdout.is_empty(), "{}", String::from_utf8_lossy(&o.stdout));
}

const TABLE: &str = "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 500000\n";

#[test]
fn players_add_then_deposit_and_a_refused_deposit_changes_nothing() {
    let c = casino("players");
    let env = [("BACCARAT_NEW_PASSWORD", "bobs-pw")];
    let v = c.json(&env, &["players", "add", "bob", "--chips", "100"]);
    let id = v["player"].as_u64().unwrap_or_else(|| panic!("{v}")).to_string();
    assert_eq!(v["name"], "bob");
    let out = c.ok(&["players", "deposit", &id, "50.25", "--key", "slip-1"]);
    assert_eq!(out.trim(), format!("deposited 50.25 to player {id}; wallet 150.25"));
    // The same slip again is the same deposit, not a second.
    let again = c.ok(&["players", "deposit", &id, "50.25", "--key", "slip-1"]);
    assert_eq!(again.trim(), out.trim());
    // The same key for another amount is refused, and changes nothing.
    refused(c.admin(&["players", "deposit", &id, "60", "--key", "slip-1"]), "409");
    refused(c.admin(&["players", "deposit", "999999", "10", "--key", "slip-2"]), "no player 999999");
    let out = c.ok(&["players", "deposit", &id, "10", "--key", "slip-3"]);
    assert_eq!(out.trim(), format!("deposited 10.00 to player {id}; wallet 160.25"));
    // The new player signs in with the password from the environment.
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(crate::common::login(&reqwest::Client::new(), &c.url, "bob", "bobs-pw"));
}

#[test]
fn tables_add_from_a_config_file_then_list_shows_it() {
    let c = casino("tables");
    let file = c.config("salon.toml", TABLE);
    let out = c.ok(&["tables", "add", "CLI Salon", "--config", &file]);
    let id: u32 = out
        .strip_prefix("table ")
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{out}"));
    assert_eq!(out.trim(), format!("table {id} \"CLI Salon\" (rng) is set up"));
    let list = c.ok(&["tables", "list"]);
    let line = list.lines().find(|l| l.starts_with(&format!("{id} "))).unwrap_or_else(|| panic!("{list}"));
    assert!(line.starts_with(&format!("{id} \"CLI Salon\" nsw-2021 rng ")), "{line}");
    assert!(line.ends_with(", 10.00 to 5000.00"), "{line}");
    let v = c.json(&[], &["tables", "list"]);
    assert!(v["tables"].as_array().unwrap().iter().any(|t| t["id"] == id && t["name"] == "CLI Salon"), "{v}");
    // A file that is not there is refused before anything is sent.
    refused(c.admin(&["tables", "add", "Nowhere", "--config", "/nonexistent/x.toml"]), "cannot read");
    // A configuration the server refuses: its words, status 2, no table.
    let bad = c.config("bad.toml", "rulebook = \"no-such-rulebook\"\nchip = 100\nmin = 1000\nmax = 500000\n");
    let o = c.admin(&["tables", "add", "Bad Salon", "--config", &bad]);
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!c.ok(&["tables", "list"]).contains("Bad Salon"));
}

#[test]
fn a_wrong_password_is_refused_clearly() {
    let c = casino("wrong-password");
    let o = admin_at(&c.url, &[("BACCARAT_ADMIN_PASSWORD", "not-the-password")], &["tables", "list"]);
    refused(o, "sign-in as \"admin\" refused: wrong name or password");
    let o = admin_at(
        &c.url,
        &[("BACCARAT_ADMIN_USER", "nobody"), ("BACCARAT_ADMIN_PASSWORD", &c.password)],
        &["tables", "list"],
    );
    refused(o, "sign-in as \"nobody\" refused");
}

#[test]
fn a_password_flag_is_refused_and_no_terminal_means_no_prompt() {
    // No server: both are refused before anything is sent.
    let url = "http://127.0.0.1:9";
    for args in [&["--password", "pw", "tables", "list"][..], &["users", "password", "7", "--password", "pw"]] {
        let o = admin_at(url, &[("BACCARAT_ADMIN_PASSWORD", "pw")], args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("unexpected argument '--password'"), "{args:?}: {err}");
    }
    let o = admin_at(url, &[], &["tables", "list"]);
    refused(o, "set BACCARAT_ADMIN_PASSWORD");
    let o = admin_at(url, &[("BACCARAT_ADMIN_PASSWORD", "pw")], &["users", "add", "al", "--role", "dealer"]);
    refused(o, "no terminal to type the password at: set BACCARAT_NEW_PASSWORD");
}

#[test]
fn an_unreachable_server_is_said_so() {
    let o = admin_at("http://127.0.0.1:9", &[("BACCARAT_ADMIN_PASSWORD", "pw")], &["tables", "list"]);
    refused(o, "no answer from http://127.0.0.1:9");
}

#[test]
fn users_add_then_list_shows_it_and_the_last_admin_stays() {
    let c = casino("users");
    let env = [("BACCARAT_NEW_PASSWORD", "alices-pw")];
    let out = ok(c.admin_env(&env, &["users", "add", "alice", "--role", "dealer"]), &["users add"]);
    let id: u32 = out
        .strip_prefix("created user ")
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{out}"));
    assert_eq!(out.trim(), format!("created user {id} \"alice\" (dealer)"));
    let list = c.ok(&["users", "list", "--role", "dealer", "--all"]);
    assert!(list.lines().any(|l| l == format!("{id} \"alice\" (dealer)")), "{list}");
    let found = c.json(&[], &["users", "list", "--q", "ALI"]);
    assert!(found["users"].as_array().unwrap().iter().any(|u| u["id"] == id), "{found}");
    refused(c.admin_env(&env, &["users", "add", "alice", "--role", "dealer"]), "409");
    let out = c.ok(&["users", "role", &id.to_string(), "supervisor"]);
    assert_eq!(out.trim(), format!("user {id} \"alice\" is now supervisor"));
    assert!(c.ok(&["users", "disable", &id.to_string()]).starts_with(&format!("disabled user {id} \"alice\"")));
    assert!(c.ok(&["users", "enable", &id.to_string()]).starts_with(&format!("enabled user {id}")));
    let reset = c.admin_env(&[("BACCARAT_NEW_PASSWORD", "newer-pw")], &["users", "password", &id.to_string()]);
    assert!(ok(reset, &["users password"]).starts_with(&format!("reset the password of user {id}")));
    // The admin (the demo's only one) cannot disable themself.
    let me = c.json(&[], &["users", "list", "--role", "admin", "--all"]);
    let admin_id = me["users"][0]["id"].to_string();
    refused(c.admin(&["users", "disable", &admin_id]), "409");
}

#[test]
fn players_cash_out_within_the_wallet_and_refused_beyond() {
    let c = casino("cash-out");
    let v = c.json(&[("BACCARAT_NEW_PASSWORD", "pw-pw")], &["players", "add", "cora", "--chips", "100"]);
    let id = v["player"].to_string();
    let out = c.ok(&["players", "cash-out", &id, "30", "--key", "out-1"]);
    assert_eq!(out.trim(), format!("cashed out 30.00 from player {id}; wallet 70.00"));
    refused(c.admin(&["players", "cash-out", &id, "70.01", "--key", "out-2"]), "70.00");
    let out = c.ok(&["players", "cash-out", &id, "70", "--key", "out-3"]);
    assert_eq!(out.trim(), format!("cashed out 70.00 from player {id}; wallet 0.00"));
}

#[test]
fn tables_fill_and_credit_move_the_float() {
    let c = casino("fill");
    let file = c.config("float.toml", TABLE);
    let id = c.json(&[], &["tables", "add", "Float Salon", "--config", &file])["table"].to_string();
    let filled = c.json(&[], &["tables", "fill", &id, "1000", "--key", "fill-1"]);
    let float = filled["float"].as_i64().unwrap();
    let out = c.ok(&["tables", "credit", &id, "500", "--key", "credit-1"]);
    let after = baccarat_rules::Money(float - 50_000);
    assert_eq!(out.trim(), format!("credited 500.00 from table {id} to the cage; float {after}"));
    // The same key for another amount is refused (keys are per route: a
    // credit's key is not a fill's).
    refused(c.admin(&["tables", "credit", &id, "400", "--key", "credit-1"]), "409");
}

#[test]
fn tables_close_closes_for_good() {
    let c = casino("close");
    let file = c.config("close.toml", TABLE);
    let id = c.json(&[], &["tables", "add", "Closing Salon", "--config", &file])["table"].to_string();
    let out = c.ok(&["tables", "close", &id]);
    assert!(
        out.starts_with(&format!("closed table {id}; ")) || out.starts_with(&format!("table {id} closes when")),
        "{out}"
    );
}

#[test]
fn gaming_day_set_and_show_and_a_days_report() {
    let c = casino("books");
    let out = c.ok(&["gaming-day", "set", "Australia/Sydney", "6"]);
    assert!(out.starts_with("gaming day: Australia/Sydney, cut-off 06:00, from the gaming day "), "{out}");
    assert_eq!(c.ok(&["gaming-day", "show"]).trim(), out.trim());
    refused(c.admin(&["gaming-day", "set", "Mars/Olympus", "6"]), "zone");
    // A day that has surely ended: two days ago (UTC).
    let ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64;
    let (y, m, d) = baccarat_core::civil_date(ms - 2 * 86_400_000);
    let date = format!("{y:04}-{m:02}-{d:02}");
    let out = c.ok(&["report", "day", &date]);
    assert!(out.starts_with(&format!("gaming day {date} (")), "{out}");
    let file = c.dir.join("day.json");
    c.ok(&["report", "day", &date, "--out", file.to_str().unwrap()]);
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(v["date"], date.as_str());
    let csv = c.ok(&["report", "day", &date, "--csv"]);
    assert!(csv.contains(','), "{csv}");
}
