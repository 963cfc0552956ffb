//! People and sessions: passwords hashed with argon2, session tokens random and
//! kept only as their SHA-256, revocable. Roles decide which routes a session may
//! call (see the matrix in `http.rs`).

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Mutex, RwLock};

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// What a person may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Player,
    Dealer,
    Supervisor,
    Inspector,
    Admin,
}

impl Role {
    pub const ALL: [Role; 5] = [Role::Player, Role::Dealer, Role::Supervisor, Role::Inspector, Role::Admin];

    fn parse(s: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.name() == s)
    }

    pub fn name(self) -> &'static str {
        match self {
            Role::Player => "player",
            Role::Dealer => "dealer",
            Role::Supervisor => "supervisor",
            Role::Inspector => "inspector",
            Role::Admin => "admin",
        }
    }
}

/// A signed-in person.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Session {
    pub user: u32,
    pub name: String,
    pub role: Role,
}

#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    #[error("unknown name or wrong password")]
    BadLogin,
    #[error("the session is unknown or revoked")]
    BadToken,
    #[error("name {0:?} is taken")]
    Taken(String),
    #[error("database: {0}")]
    Sql(#[from] rusqlite::Error),
}

/// The users and sessions, on their own connection to the casino's database.
/// Sessions looked up once are cached by token hash (every request checks its
/// token); revoking goes through here too, so the cache never outlives a
/// revocation.
pub struct Users {
    conn: Mutex<Connection>,
    cache: RwLock<HashMap<String, Session>>,
    names: RwLock<HashMap<u32, String>>,
}

fn sha(s: &str) -> String {
    baccarat_table::shuffle::hex(&Sha256::digest(s.as_bytes()))
}

/// A fresh random token or password (hex of `bytes` random bytes).
pub fn random_hex(bytes: usize) -> String {
    let mut b = vec![0u8; bytes];
    getrandom::fill(&mut b).expect("OS entropy");
    baccarat_table::shuffle::hex(&b)
}

impl Users {
    /// Open on a database the store has migrated.
    pub fn open(path: &Path) -> Result<Users, AuthError> {
        let conn = Connection::open(path)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        Ok(Users { conn: Mutex::new(conn), cache: RwLock::new(HashMap::new()), names: RwLock::new(HashMap::new()) })
    }

    pub fn count(&self) -> Result<u32, AuthError> {
        Ok(self.conn.lock().expect("users lock").query_row("SELECT COUNT(*) FROM users", [], |r| r.get(0))?)
    }

    /// Create a person; their id is also their player id.
    pub fn create(&self, name: &str, role: Role, password: &str) -> Result<u32, AuthError> {
        let salt = SaltString::encode_b64(random_hex(16).as_bytes()).expect("salt");
        let hash = Argon2::default().hash_password(password.as_bytes(), &salt).expect("argon2").to_string();
        let conn = self.conn.lock().expect("users lock");
        let taken: Option<u32> =
            conn.query_row("SELECT id FROM users WHERE name = ?1", [name], |r| r.get(0)).optional()?;
        if taken.is_some() {
            return Err(AuthError::Taken(name.into()));
        }
        conn.execute("INSERT INTO users (name, role, password) VALUES (?1, ?2, ?3)", params![name, role.name(), hash])?;
        Ok(conn.last_insert_rowid() as u32)
    }

    /// Check a password and open a session: the token, once.
    pub fn login(&self, name: &str, password: &str) -> Result<(String, Session), AuthError> {
        let conn = self.conn.lock().expect("users lock");
        let row: Option<(u32, String, String)> = conn
            .query_row("SELECT id, role, password FROM users WHERE name = ?1", [name], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .optional()?;
        let Some((id, role, hash)) = row else { return Err(AuthError::BadLogin) };
        let parsed = PasswordHash::new(&hash).map_err(|_| AuthError::BadLogin)?;
        Argon2::default().verify_password(password.as_bytes(), &parsed).map_err(|_| AuthError::BadLogin)?;
        let token = random_hex(32);
        conn.execute("INSERT INTO sessions (token_sha256, user) VALUES (?1, ?2)", params![sha(&token), id])?;
        let role = Role::parse(&role).ok_or(AuthError::BadLogin)?;
        Ok((token, Session { user: id, name: name.into(), role }))
    }

    pub fn session(&self, token: &str) -> Result<Session, AuthError> {
        let hash = sha(token);
        if let Some(s) = self.cache.read().expect("session cache").get(&hash) {
            return Ok(s.clone());
        }
        let conn = self.conn.lock().expect("users lock");
        let row: Option<(u32, String, String)> = conn
            .query_row(
                "SELECT u.id, u.name, u.role FROM sessions s JOIN users u ON u.id = s.user WHERE s.token_sha256 = ?1 AND s.revoked = 0",
                [sha(token)],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?;
        let (user, name, role) = row.ok_or(AuthError::BadToken)?;
        let s = Session { user, name, role: Role::parse(&role).ok_or(AuthError::BadToken)? };
        self.cache.write().expect("session cache").insert(hash, s.clone());
        Ok(s)
    }

    /// A person's name by id (cached: names do not change).
    pub fn name(&self, id: u32) -> Option<String> {
        if let Some(n) = self.names.read().expect("names cache").get(&id) {
            return Some(n.clone());
        }
        let conn = self.conn.lock().expect("users lock");
        let n: String =
            conn.query_row("SELECT name FROM users WHERE id = ?1", [id], |r| r.get(0)).optional().ok()??;
        self.names.write().expect("names cache").insert(id, n.clone());
        Some(n)
    }

    pub fn revoke(&self, token: &str) -> Result<(), AuthError> {
        self.cache.write().expect("session cache").remove(&sha(token));
        let n = self
            .conn
            .lock()
            .expect("users lock")
            .execute("UPDATE sessions SET revoked = 1 WHERE token_sha256 = ?1 AND revoked = 0", [sha(token)])?;
        if n == 0 {
            return Err(AuthError::BadToken);
        }
        Ok(())
    }
}
