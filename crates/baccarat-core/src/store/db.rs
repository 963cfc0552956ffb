//! Where a casino is kept: [`Db`], as `--db` names it (a SQLite file or a
//! PostgreSQL URL). Only the name lives here; opening either back end is
//! the layer's above (`backend.rs`), which knows PostgreSQL.

use std::path::PathBuf;

/// Where a casino is kept, as `--db` (or `BACCARAT_DB`) names it: a
/// `postgres://` or `postgresql://` URL, or else a SQLite file's path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Db {
    Sqlite(PathBuf),
    Postgres(String),
}

impl Db {
    pub fn parse(s: &str) -> Db {
        if s.starts_with("postgres://") || s.starts_with("postgresql://") {
            Db::Postgres(s.to_string())
        } else {
            Db::Sqlite(PathBuf::from(s))
        }
    }

    /// For messages: a URL without its password.
    pub fn shown(&self) -> String {
        match self {
            Db::Sqlite(p) => p.display().to_string(),
            Db::Postgres(url) => redact(url),
        }
    }
}

/// `postgres://user:secret@host/db` shown as `postgres://user:***@host/db`.
pub fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return url.to_string() };
    let Some((auth, host)) = rest.split_once('@') else { return url.to_string() };
    match auth.split_once(':') {
        Some((user, _)) => format!("{scheme}://{user}:***@{host}"),
        None => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_is_postgres_and_anything_else_a_file() {
        assert_eq!(Db::parse("postgres://u@h/db"), Db::Postgres("postgres://u@h/db".into()));
        assert_eq!(Db::parse("postgresql://u@h/db"), Db::Postgres("postgresql://u@h/db".into()));
        assert_eq!(Db::parse("casino.db"), Db::Sqlite("casino.db".into()));
        assert_eq!(Db::parse("./postgres/casino.db"), Db::Sqlite("./postgres/casino.db".into()));
    }

    #[test]
    fn a_password_is_never_shown() {
        assert_eq!(redact("postgres://bob:hunter2@db.example/casino"), "postgres://bob:***@db.example/casino");
        assert_eq!(redact("postgres://bob@%2Ftmp/casino"), "postgres://bob@%2Ftmp/casino");
        assert!(!Db::parse("postgres://bob:hunter2@h/c").shown().contains("hunter2"));
    }
}
