//! `baccarat serve --print-config`: every setting in effect and where it came
//! from (a flag, an environment variable by name, the `--config` file by its
//! path, or the default), checked, and nothing opened; secrets never shown.

use std::process::{Command, Output};

use crate::common::TempDir;

/// `baccarat serve --print-config ARGS` with only the `BACCARAT_*` variables given.
fn print_config(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_baccarat"));
    for (k, _) in std::env::vars().filter(|(k, _)| k.starts_with("BACCARAT_")) {
        c.env_remove(k);
    }
    c.arg("serve").arg("--print-config").args(args).envs(env.iter().copied()).output().expect("run baccarat")
}

/// The row of setting `key`: (where it came from, its value).
fn row(out: &str, key: &str) -> String {
    let line = out.lines().find(|l| l.split_whitespace().next() == Some(key));
    line.unwrap_or_else(|| panic!("no row {key}:\n{out}")).split_whitespace().skip(1).collect::<Vec<_>>().join(" ")
}

#[test]
fn print_config_says_where_each_setting_came_from_and_opens_nothing() {
    let dir = TempDir::new(&format!("baccarat-cli-{}-print-config", std::process::id()));
    let db = dir.join("casino.db");
    let file = dir.join("settings.toml");
    std::fs::write(&file, "betting_seconds = 7\nrate = 9\ntrusted_proxies = [\"127.0.0.1\"]\n").unwrap();
    let (db_s, file_s) = (db.to_string_lossy().into_owned(), file.to_string_lossy().into_owned());
    let secret = "never-print-this-password";
    let env = [("BACCARAT_DEAL_MS", "900"), ("BACCARAT_ADMIN_PASSWORD", secret), ("BACCARAT_CONFIG", file_s.as_str())];
    let o = print_config(&["--rate", "5", "--db", &db_s], &env);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success(), "{out}{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(row(&out, "rate"), "flag --rate 5", "a flag over the file");
    assert_eq!(row(&out, "db"), format!("flag --db {db_s}"));
    assert_eq!(row(&out, "deal_ms"), "environment BACCARAT_DEAL_MS 900");
    assert_eq!(row(&out, "config"), format!("environment BACCARAT_CONFIG {file_s}"));
    assert_eq!(row(&out, "betting_seconds"), format!("config file {file_s} 7"));
    assert_eq!(row(&out, "trusted_proxies"), format!("config file {file_s} 127.0.0.1"));
    assert_eq!(row(&out, "squeeze_seconds"), "default 12");
    assert_eq!(row(&out, "admin_password"), "environment BACCARAT_ADMIN_PASSWORD set (hidden)");
    assert!(!out.contains(secret), "the password was printed:\n{out}");
    let left: Vec<_> = std::fs::read_dir(&*dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(
        left,
        [std::ffi::OsString::from("settings.toml")],
        "nothing opened or made: no database, key or anchors"
    );

    // A database URL's password is masked; a setting out of range is shown,
    // then refused naming it, status 2, and still nothing opened.
    let url = "postgres://casino:pg-secret@db.internal/casino";
    let o = print_config(&["--db", url], &[("BACCARAT_BETTING_SECONDS", "0")]);
    let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert_eq!(o.status.code(), Some(2), "{out}{err}");
    assert!(err.starts_with("error: betting_seconds: 0 is outside"), "{err}");
    assert_eq!(row(&out, "betting_seconds"), "environment BACCARAT_BETTING_SECONDS 0");
    assert_eq!(row(&out, "db"), "flag --db postgres://casino:***@db.internal/casino");
    assert!(!out.contains("pg-secret") && !err.contains("pg-secret"), "{out}{err}");
}

/// The reference (docs/configuration.md) is printed by a hidden flag, and
/// `serve --help` does not list it.
#[test]
fn the_reference_is_printed_by_a_hidden_flag() {
    let bin = env!("CARGO_BIN_EXE_baccarat");
    let o = Command::new(bin).args(["serve", "--config-reference"]).output().unwrap();
    let md = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success() && md.starts_with("# Configuration reference\n"), "{md}");
    let help = Command::new(bin).args(["serve", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("--print-config") && !help.contains("--config-reference"), "{help}");
}
