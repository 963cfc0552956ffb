//! `baccarat serve --print-config`: every setting in effect and where it came
//! from — a flag, an environment variable (named), the `--config` file (its
//! path), or the default — so that an operator can see why a server runs as
//! it does without starting it. Secrets are never printed: the first admin's
//! password only shows whether it is set, and a database URL's password is
//! masked.

use clap::parser::ValueSource;
use clap::ArgMatches;

use super::settings::{self, Setting, ADMIN_PASSWORD_ENV};

/// One line of the report: a setting, its value and where it came from.
struct Line {
    key: String,
    from: String,
    value: String,
}

/// The report for `serve`'s matches, the `--config` file's text (if any) and
/// the admin password's variable (whether it is set).
pub fn report(m: &ArgMatches, file: Option<(&str, &toml::Table)>, admin_password_set: bool) -> String {
    let mut lines: Vec<Line> = settings::all().iter().map(|s| line(s, m, file)).collect();
    let at = lines.iter().position(|l| l.key == "admin_password_file").map_or(lines.len(), |i| i + 1);
    let (from, value) = if admin_password_set {
        (format!("environment {ADMIN_PASSWORD_ENV}"), "set (hidden)".to_string())
    } else {
        (format!("environment {ADMIN_PASSWORD_ENV}"), "not set".to_string())
    };
    lines.insert(at, Line { key: "admin_password".into(), from, value });
    let kw = lines.iter().map(|l| l.key.len()).max().unwrap_or(0).max("setting".len());
    let fw = lines.iter().map(|l| l.from.chars().count()).max().unwrap_or(0).max("from".len());
    let mut out = String::from(
        "# baccarat serve: each setting in effect and where it came from (a flag, else its\n\
         # environment variable, else the --config file, else the default)\n",
    );
    out.push_str(&format!("{:kw$}  {:fw$}  value\n", "setting", "from"));
    for l in lines {
        out.push_str(format!("{:kw$}  {:fw$}  {}", l.key, l.from, l.value).trim_end());
        out.push('\n');
    }
    out
}

fn line(s: &Setting, m: &ArgMatches, file: Option<(&str, &toml::Table)>) -> Line {
    let given = |v: &str| !(s.switch && v == "false");
    let raw = m.get_raw(&s.key).map(|v| v.map(|x| x.to_string_lossy().into_owned()).collect::<Vec<_>>().join(","));
    let flag = s.flag.split(' ').next().unwrap_or_default();
    let (from, value) = match (m.value_source(&s.key), raw) {
        (Some(ValueSource::CommandLine), Some(v)) if given(&v) => (format!("flag {flag}"), v),
        (Some(ValueSource::EnvVariable), Some(v)) if given(&v) => {
            (format!("environment {}", s.env.as_deref().unwrap_or("?")), v)
        }
        _ => match file.and_then(|(path, t)| t.get(&s.key).filter(|_| s.in_file).map(|v| (path, v))) {
            Some((path, v)) => (format!("config file {path}"), toml_value(v)),
            None => ("default".to_string(), s.default.clone().unwrap_or_default()),
        },
    };
    Line { key: s.key.clone(), from, value: mask_password(&value) }
}

/// A value from the file as it would be typed after the flag.
fn toml_value(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        toml::Value::Array(a) => a.iter().map(toml_value).collect::<Vec<_>>().join(","),
        other => other.to_string(),
    }
}

/// `value` with the password of any URL in it (`scheme://user:PASSWORD@host`,
/// or `password=…` in its query) replaced by `***`.
pub fn mask_password(value: &str) -> String {
    let mut out = value.to_string();
    if let Some(start) = out.find("://").map(|i| i + 3) {
        let authority_end = out[start..].find('/').map_or(out.len(), |i| start + i);
        if let Some(at) = out[start..authority_end].rfind('@').map(|i| start + i) {
            if let Some(colon) = out[start..at].find(':').map(|i| start + i) {
                out.replace_range(colon + 1..at, "***");
            }
        }
    }
    let lower = out.to_ascii_lowercase();
    if let Some(i) = lower.find("password=") {
        let from = i + "password=".len();
        let end = out[from..].find('&').map_or(out.len(), |j| from + j);
        out.replace_range(from..end, "***");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(args: &[&str]) -> ArgMatches {
        let mut all = vec!["serve"];
        all.extend_from_slice(args);
        settings::command().try_get_matches_from(all).unwrap()
    }

    fn row<'r>(report: &'r str, key: &str) -> &'r str {
        report.lines().find(|l| l.split_whitespace().next() == Some(key)).unwrap_or_else(|| panic!("{key}: {report}"))
    }

    /// A flag names itself, a key names the file's path, the rest are the
    /// default; a flag wins over the file; the admin's password is hidden.
    #[test]
    fn each_setting_says_where_it_came_from() {
        let table: toml::Table =
            toml::from_str("rate = 9\nbetting_seconds = 7\nallowed_origins = [\"https://a.example\"]\n").unwrap();
        let r = report(&matches(&["--rate", "5", "--demo"]), Some(("/etc/baccarat/b.toml", &table)), true);
        assert!(row(&r, "rate").contains("flag --rate") && row(&r, "rate").ends_with(" 5"), "{r}");
        assert!(row(&r, "demo").contains("flag --demo"), "{r}");
        assert!(row(&r, "betting_seconds").contains("config file /etc/baccarat/b.toml"), "{r}");
        assert!(row(&r, "betting_seconds").ends_with(" 7"), "{r}");
        assert!(row(&r, "allowed_origins").ends_with(" https://a.example"), "{r}");
        assert!(row(&r, "deal_ms").contains("default") && row(&r, "deal_ms").ends_with(" 700"), "{r}");
        assert!(row(&r, "admin_password").ends_with("set (hidden)"), "{r}");
        for s in settings::all() {
            row(&r, &s.key);
        }
        let r = report(&matches(&[]), None, false);
        assert!(row(&r, "admin_password").ends_with("not set"), "{r}");
        assert!(row(&r, "demo").ends_with(" off"), "{r}");
    }

    /// A database URL's password is never printed.
    #[test]
    fn a_database_password_is_masked() {
        let r = report(&matches(&["--db", "postgres://casino:s3cret@db.internal:5432/casino"]), None, false);
        assert!(!r.contains("s3cret"), "{r}");
        assert!(row(&r, "db").ends_with("postgres://casino:***@db.internal:5432/casino"), "{r}");
        assert_eq!(
            mask_password("postgres://u@h/c?sslmode=require&password=pw&x=1"),
            "postgres://u@h/c?sslmode=require&password=***&x=1"
        );
        assert_eq!(mask_password("/var/lib/baccarat/casino.db"), "/var/lib/baccarat/casino.db");
    }
}
