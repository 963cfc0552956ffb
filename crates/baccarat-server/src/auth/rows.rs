//! The `users` and `sessions` tables, on SQLite or PostgreSQL: the few
//! statements [`super::Users`] makes, one implementation per back end. The
//! cache, the policy and the password hashing stay in `Users`, so both back
//! ends behave the same.

use baccarat_core::UserId;
use rusqlite::{params, Connection, OptionalExtension};

use super::AuthError;

/// A live session's row, with its person.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionRow {
    pub user: UserId,
    pub name: String,
    /// The role's stored name (`Role::parse` reads it).
    pub role: String,
    pub created_ms: i64,
    pub seen_ms: i64,
}

/// What `Users` asks of the database (and the people routes' statements,
/// `rows_admin.rs`).
pub trait Rows: super::rows_admin::Manage + Send {
    fn count(&mut self) -> Result<u32, AuthError>;
    /// id, role, password hash, of an enabled person (a disabled one is
    /// not found: sign-in checks the dummy hash, as for an unknown name).
    fn by_name(&mut self, name: &str) -> Result<Option<(UserId, String, String)>, AuthError>;
    /// A new person's id, disabled or not; [`AuthError::Taken`] if the name is.
    fn insert(&mut self, name: &str, role: &str, hash: &str, disabled: bool) -> Result<UserId, AuthError>;
    fn role(&mut self, id: UserId) -> Result<Option<String>, AuthError>;
    fn name(&mut self, id: UserId) -> Result<Option<String>, AuthError>;
    /// Open a session for `user` if they are enabled and their password
    /// hash is still `hash` (the one checked), in one statement: a sign-in
    /// that raced a disable or a password reset opens nothing. Whether it
    /// opened.
    fn open_session(&mut self, token_sha: &str, user: UserId, now: u64, hash: &str) -> Result<bool, AuthError>;
    /// A session not revoked, with its person (enabled).
    fn session(&mut self, token_sha: &str) -> Result<Option<SessionRow>, AuthError>;
    fn touch(&mut self, token_sha: &str, now: u64) -> Result<(), AuthError>;
    /// Revoke one session; how many were live.
    fn end(&mut self, token_sha: &str) -> Result<usize, AuthError>;
    /// Revoke every session of a person; how many were live.
    fn end_user(&mut self, user: UserId) -> Result<usize, AuthError>;
}

impl Rows for Connection {
    fn count(&mut self) -> Result<u32, AuthError> {
        Ok(self.query_row("SELECT COUNT(*) FROM users", [], |r| r.get(0))?)
    }
    fn by_name(&mut self, name: &str) -> Result<Option<(UserId, String, String)>, AuthError> {
        Ok(self
            .query_row("SELECT id, role, password FROM users WHERE name = ?1 AND disabled = 0", [name], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .optional()?)
    }
    fn insert(&mut self, name: &str, role: &str, hash: &str, disabled: bool) -> Result<UserId, AuthError> {
        let taken: Option<u32> =
            self.query_row("SELECT id FROM users WHERE name = ?1", [name], |r| r.get(0)).optional()?;
        if taken.is_some() {
            return Err(AuthError::Taken(name.into()));
        }
        self.execute(
            "INSERT INTO users (name, role, password, disabled) VALUES (?1, ?2, ?3, ?4)",
            params![name, role, hash, disabled as i64],
        )?;
        Ok(UserId(self.last_insert_rowid() as u32))
    }
    fn role(&mut self, id: UserId) -> Result<Option<String>, AuthError> {
        Ok(self.query_row("SELECT role FROM users WHERE id = ?1", [id], |r| r.get(0)).optional()?)
    }
    fn name(&mut self, id: UserId) -> Result<Option<String>, AuthError> {
        Ok(self.query_row("SELECT name FROM users WHERE id = ?1", [id], |r| r.get(0)).optional()?)
    }
    fn open_session(&mut self, token_sha: &str, user: UserId, now: u64, hash: &str) -> Result<bool, AuthError> {
        let n = self.execute(
            "INSERT INTO sessions (token_sha256, user, created_ms, seen_ms)
             SELECT ?1, id, ?3, ?3 FROM users WHERE id = ?2 AND disabled = 0 AND password = ?4",
            params![token_sha, user, now as i64, hash],
        )?;
        Ok(n == 1)
    }
    fn session(&mut self, token_sha: &str) -> Result<Option<SessionRow>, AuthError> {
        Ok(self
            .query_row(
                "SELECT u.id, u.name, u.role, s.created_ms, s.seen_ms FROM sessions s JOIN users u ON u.id = s.user WHERE s.token_sha256 = ?1 AND s.revoked = 0 AND u.disabled = 0",
                [token_sha],
                |r| {
                    Ok(SessionRow {
                        user: r.get(0)?,
                        name: r.get(1)?,
                        role: r.get(2)?,
                        created_ms: r.get(3)?,
                        seen_ms: r.get(4)?,
                    })
                },
            )
            .optional()?)
    }
    fn touch(&mut self, token_sha: &str, now: u64) -> Result<(), AuthError> {
        self.execute("UPDATE sessions SET seen_ms = ?1 WHERE token_sha256 = ?2", params![now as i64, token_sha])?;
        Ok(())
    }
    fn end(&mut self, token_sha: &str) -> Result<usize, AuthError> {
        Ok(self.execute("UPDATE sessions SET revoked = 1 WHERE token_sha256 = ?1 AND revoked = 0", [token_sha])?)
    }
    fn end_user(&mut self, user: UserId) -> Result<usize, AuthError> {
        Ok(self.execute("UPDATE sessions SET revoked = 1 WHERE user = ?1 AND revoked = 0", [user])?)
    }
}

impl Rows for postgres::Client {
    fn count(&mut self) -> Result<u32, AuthError> {
        Ok(self.query_one("SELECT COUNT(*) FROM users", &[])?.get::<_, i64>(0) as u32)
    }
    fn by_name(&mut self, name: &str) -> Result<Option<(UserId, String, String)>, AuthError> {
        Ok(self
            .query_opt("SELECT id, role, password FROM users WHERE name = $1 AND NOT disabled", &[&name])?
            .map(|r| (UserId(r.get::<_, i64>(0) as u32), r.get(1), r.get(2))))
    }
    fn insert(&mut self, name: &str, role: &str, hash: &str, disabled: bool) -> Result<UserId, AuthError> {
        // Ids are taken as the next after the highest, as SQLite's rowids
        // are (and `migrate` keeps them). Two servers creating people at once
        // may pick the same id; the loser's insert is refused by the key and
        // tried again.
        for _ in 0..8 {
            let r = self.query_opt(
                "INSERT INTO users (id, name, role, password, disabled)
                 SELECT COALESCE(MAX(id), 0) + 1, $1, $2, $3, $4 FROM users
                 ON CONFLICT (name) DO NOTHING RETURNING id",
                &[&name, &role, &hash, &disabled],
            );
            match r {
                Ok(Some(row)) => return Ok(UserId(row.get::<_, i64>(0) as u32)),
                Ok(None) => return Err(AuthError::Taken(name.into())),
                Err(e) if e.code() == Some(&postgres::error::SqlState::UNIQUE_VIOLATION) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(AuthError::Busy)
    }
    fn role(&mut self, id: UserId) -> Result<Option<String>, AuthError> {
        Ok(self.query_opt("SELECT role FROM users WHERE id = $1", &[&(id.0 as i64)])?.map(|r| r.get(0)))
    }
    fn name(&mut self, id: UserId) -> Result<Option<String>, AuthError> {
        Ok(self.query_opt("SELECT name FROM users WHERE id = $1", &[&(id.0 as i64)])?.map(|r| r.get(0)))
    }
    fn open_session(&mut self, token_sha: &str, user: UserId, now: u64, hash: &str) -> Result<bool, AuthError> {
        // FOR SHARE: a disable or a reset of this person in progress is
        // waited for, and the row read again once it commits; one that comes
        // after waits for this insert, and ends the session it made.
        let n = self.execute(
            "INSERT INTO sessions (token_sha256, \"user\", created_ms, seen_ms)
             SELECT $1, id, $3, $3 FROM users WHERE id = $2 AND NOT disabled AND password = $4 FOR SHARE",
            &[&token_sha, &(user.0 as i64), &(now as i64), &hash],
        )?;
        Ok(n == 1)
    }
    fn session(&mut self, token_sha: &str) -> Result<Option<SessionRow>, AuthError> {
        Ok(self
            .query_opt(
                "SELECT u.id, u.name, u.role, s.created_ms, s.seen_ms FROM sessions s JOIN users u ON u.id = s.\"user\"
                 WHERE s.token_sha256 = $1 AND NOT s.revoked AND NOT u.disabled",
                &[&token_sha],
            )?
            .map(|r| SessionRow {
                user: UserId(r.get::<_, i64>(0) as u32),
                name: r.get(1),
                role: r.get(2),
                created_ms: r.get(3),
                seen_ms: r.get(4),
            }))
    }
    fn touch(&mut self, token_sha: &str, now: u64) -> Result<(), AuthError> {
        self.execute("UPDATE sessions SET seen_ms = $1 WHERE token_sha256 = $2", &[&(now as i64), &token_sha])?;
        Ok(())
    }
    fn end(&mut self, token_sha: &str) -> Result<usize, AuthError> {
        let n =
            self.execute("UPDATE sessions SET revoked = true WHERE token_sha256 = $1 AND NOT revoked", &[&token_sha])?;
        Ok(n as usize)
    }
    fn end_user(&mut self, user: UserId) -> Result<usize, AuthError> {
        let n = self
            .execute("UPDATE sessions SET revoked = true WHERE \"user\" = $1 AND NOT revoked", &[&(user.0 as i64)])?;
        Ok(n as usize)
    }
}

/// Every statement runs on the connection's own thread (`pg_thread.rs`):
/// these are called from the HTTP handlers, on the async runtime.
impl Rows for baccarat_cluster::PgThread {
    fn count(&mut self) -> Result<u32, AuthError> {
        self.run(|c| c.count()).unwrap_or(Err(AuthError::Gone))
    }
    fn by_name(&mut self, name: &str) -> Result<Option<(UserId, String, String)>, AuthError> {
        let name = name.to_string();
        self.run(move |c| c.by_name(&name)).unwrap_or(Err(AuthError::Gone))
    }
    fn insert(&mut self, name: &str, role: &str, hash: &str, disabled: bool) -> Result<UserId, AuthError> {
        let (name, role, hash) = (name.to_string(), role.to_string(), hash.to_string());
        self.run(move |c| c.insert(&name, &role, &hash, disabled)).unwrap_or(Err(AuthError::Gone))
    }
    fn role(&mut self, id: UserId) -> Result<Option<String>, AuthError> {
        self.run(move |c| Rows::role(c, id)).unwrap_or(Err(AuthError::Gone))
    }
    fn name(&mut self, id: UserId) -> Result<Option<String>, AuthError> {
        self.run(move |c| Rows::name(c, id)).unwrap_or(Err(AuthError::Gone))
    }
    fn open_session(&mut self, token_sha: &str, user: UserId, now: u64, hash: &str) -> Result<bool, AuthError> {
        let (t, h) = (token_sha.to_string(), hash.to_string());
        self.run(move |c| c.open_session(&t, user, now, &h)).unwrap_or(Err(AuthError::Gone))
    }
    fn session(&mut self, token_sha: &str) -> Result<Option<SessionRow>, AuthError> {
        let t = token_sha.to_string();
        self.run(move |c| Rows::session(c, &t)).unwrap_or(Err(AuthError::Gone))
    }
    fn touch(&mut self, token_sha: &str, now: u64) -> Result<(), AuthError> {
        let t = token_sha.to_string();
        self.run(move |c| c.touch(&t, now)).unwrap_or(Err(AuthError::Gone))
    }
    fn end(&mut self, token_sha: &str) -> Result<usize, AuthError> {
        let t = token_sha.to_string();
        self.run(move |c| c.end(&t)).unwrap_or(Err(AuthError::Gone))
    }
    fn end_user(&mut self, user: UserId) -> Result<usize, AuthError> {
        self.run(move |c| c.end_user(user)).unwrap_or(Err(AuthError::Gone))
    }
}
