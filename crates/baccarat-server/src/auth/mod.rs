//! People and sessions: passwords hashed with argon2, session tokens random and
//! kept only as their SHA-256, revocable, and ending after an idle time and a
//! maximum age ([`SessionPolicy`]). Roles decide which routes a session may
//! call (see the matrix in `http.rs`).

use baccarat_core::UserId;
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use rusqlite::Connection;
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::store::Db;
use baccarat_core::Clock;

mod manage;
mod rows;
mod rows_admin;
pub use manage::{Change, Changed, Listing, Page, Person};
use rows::Rows;

pub use crate::trust::Role;

/// The session cookie's name (HttpOnly, SameSite=Strict; set by
/// `http/session.rs`).
pub const SESSION_COOKIE: &str = "baccarat_session";

/// A signed-in person.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Session {
    pub user: UserId,
    pub name: String,
    pub role: Role,
}

#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    #[error("unknown name or wrong password")]
    BadLogin,
    #[error("the session is unknown or revoked")]
    BadToken,
    #[error("the session has expired; sign in again")]
    Expired,
    #[error("name {0:?} is taken")]
    Taken(String),
    #[error("password: {0}")]
    Weak(&'static str),
    #[error("database: {0}")]
    Sql(#[from] rusqlite::Error),
    #[error("database: {0}")]
    Pg(#[from] postgres::Error),
    #[error("database: {0}")]
    Connect(#[from] baccarat_cluster::pg_store::ConnectError),
    #[error("too many people are being created at once; retry")]
    Busy,
    #[error("the database connection for people and sessions has stopped; restart the server")]
    Gone,
    #[error("no user {0}")]
    NoUser(UserId),
    #[error("the casino's last enabled admin cannot be disabled or lose the role; make or enable another admin first")]
    LastAdmin,
    #[error("user {0}: the stored role {1:?} is not one this server knows")]
    UnknownRole(UserId, String),
}

/// How long a session lasts: it ends after `idle_ms` without a request, and
/// `max_ms` after it was opened whatever happens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionPolicy {
    pub idle_ms: u64,
    pub max_ms: u64,
}

impl Default for SessionPolicy {
    /// 30 minutes idle, 12 hours in all: a shift, not a week.
    fn default() -> SessionPolicy {
        SessionPolicy { idle_ms: 30 * 60 * 1000, max_ms: 12 * 60 * 60 * 1000 }
    }
}

/// A session as the cache holds it: who, when it was opened, and when it was
/// last used (written back to the database at most once a minute, so that an
/// idle session also ends across a restart without a write per request).
struct Live {
    session: Session,
    created_ms: u64,
    seen_ms: AtomicU64,
    stored_seen_ms: AtomicU64,
}

/// How often a session's last use is written back.
const SEEN_WRITE_MS: u64 = 60_000;

/// The users and sessions, on their own connection to the casino's database.
/// Sessions looked up once are cached by token hash (every request checks its
/// token); revoking goes through here too, so the cache never outlives a
/// revocation. Password hashing is not done under the lock: the HTTP layer
/// verifies on the sign-in pool (`signin.rs`) between [`Users::credentials`]
/// and [`Users::start_session`].
pub struct Users {
    conn: Mutex<Box<dyn Rows>>,
    cache: RwLock<HashMap<String, Arc<Live>>>,
    names: RwLock<HashMap<UserId, String>>,
    policy: SessionPolicy,
    clock: Clock,
    /// The people routes' order (`http/users.rs`): a change of a person
    /// holds it for writing from its check to its row's change, across its
    /// record in the casino's chain; a deposit holds it for reading from its
    /// check that the player is enabled to its answer. So no deposit lands
    /// in a wallet between a disable's check and its row, and no two
    /// changes interleave on this server (the database's transaction
    /// checks again, for other servers).
    pub gate: tokio::sync::RwLock<()>,
}

fn sha(s: &str) -> String {
    baccarat_table::hex(&Sha256::digest(s.as_bytes()))
}

pub use baccarat_core::random_hex;

/// The argon2 PHC string of `password` with a fresh salt (argon2id, the
/// crate's default parameters: 19 MiB, 2 passes).
pub fn hash_password(password: &str) -> String {
    let salt = SaltString::encode_b64(random_hex(16).as_bytes()).expect("salt");
    Argon2::default().hash_password(password.as_bytes(), &salt).expect("argon2").to_string()
}

/// Whether `password` matches the PHC string `hash`. A malformed hash matches
/// nothing.
pub fn verify_password(hash: &str, password: &str) -> bool {
    PasswordHash::new(hash).is_ok_and(|h| Argon2::default().verify_password(password.as_bytes(), &h).is_ok())
}

/// As [`verify_password`], hashing in `memory`, which is kept between calls:
/// a sign-in thread allocates its argon2 memory once, not 19 MiB per attempt
/// (the allocator kept those, and a spray of guesses grew the server by
/// gigabytes). The comparison of the outputs is constant-time.
pub fn verify_password_in(memory: &mut Vec<argon2::Block>, hash: &str, password: &str) -> bool {
    use argon2::password_hash::Output;
    use argon2::{Algorithm, Params, Version};
    let Ok(h) = PasswordHash::new(hash) else { return false };
    let (Ok(alg), Ok(params)) = (Algorithm::try_from(h.algorithm), Params::try_from(&h)) else { return false };
    let Ok(version) = h.version.map(Version::try_from).transpose().map(Option::unwrap_or_default) else {
        return false;
    };
    let (Some(salt), Some(expected)) = (h.salt, h.hash) else { return false };
    let mut salt_buf = [0u8; 64];
    let Ok(salt) = salt.decode_b64(&mut salt_buf) else { return false };
    if memory.len() < params.block_count() {
        memory.resize(params.block_count(), argon2::Block::default());
    }
    let blocks = params.block_count();
    let a = Argon2::new(alg, version, params);
    let mut out = vec![0u8; expected.len()];
    if a.hash_password_into_with_memory(password.as_bytes(), salt, &mut out, &mut memory[..blocks]).is_err() {
        return false;
    }
    Output::new(&out).is_ok_and(|o| o == expected)
}

/// A hash of a random password with the same parameters as every real one: an
/// unknown name is checked against it, so it costs what a known name costs and
/// the time of a refusal does not tell whether the name exists.
pub fn dummy_hash() -> &'static str {
    static DUMMY: OnceLock<String> = OnceLock::new();
    DUMMY.get_or_init(|| hash_password(&random_hex(16)))
}

/// A name's credentials: what a password is checked against.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Credentials {
    pub id: UserId,
    pub role: Role,
    /// The password's hash (`hash_password`).
    pub hash: String,
}

/// Passwords of fewer characters are refused when set.
pub const MIN_PASSWORD: usize = 4;

impl Users {
    /// Open on a database the store has migrated, with the default session
    /// policy and the system clock.
    pub fn open(path: &Path) -> Result<Users, AuthError> {
        Users::open_with(path, SessionPolicy::default(), baccarat_core::system_clock())
    }

    /// Open with a session policy and a clock (tests move the clock).
    pub fn open_with(path: &Path, policy: SessionPolicy, clock: Clock) -> Result<Users, AuthError> {
        Users::open_db(&Db::Sqlite(path.into()), policy, clock)
    }

    /// Open on either back end, on a connection of its own.
    pub fn open_db(db: &Db, policy: SessionPolicy, clock: Clock) -> Result<Users, AuthError> {
        let conn: Box<dyn Rows> = match db {
            Db::Sqlite(path) => {
                let conn = Connection::open(path)?;
                conn.busy_timeout(std::time::Duration::from_secs(5))?;
                Box::new(conn)
            }
            Db::Postgres(url) => Box::new(baccarat_cluster::PgThread::connect(url)?),
        };
        Ok(Users {
            conn: Mutex::new(conn),
            cache: RwLock::new(HashMap::new()),
            names: RwLock::new(HashMap::new()),
            policy,
            clock,
            gate: tokio::sync::RwLock::new(()),
        })
    }

    fn rows(&self) -> std::sync::MutexGuard<'_, Box<dyn Rows>> {
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn policy(&self) -> SessionPolicy {
        self.policy
    }

    pub fn count(&self) -> Result<u32, AuthError> {
        self.rows().count()
    }

    /// Create a person; their id is also their player id.
    pub fn create(&self, name: &str, role: Role, password: &str) -> Result<UserId, AuthError> {
        let hash = hash_password(password);
        self.rows().insert(name, role.name(), &hash, false)
    }

    /// A person's role by id, if they exist.
    pub fn role(&self, id: UserId) -> Result<Option<Role>, AuthError> {
        Ok(self.rows().role(id)?.and_then(|r| Role::parse(&r)))
    }

    /// The credentials of `name`, if it exists and is enabled (a quick
    /// lookup under the lock; the hash is checked elsewhere, without it). A
    /// disabled person's are none: sign-in checks the dummy hash and answers
    /// as for a wrong password, in the same time.
    ///
    /// Where the rulebooks are silent (they say nothing of staff accounts),
    /// this server's choice: a disabled person is told nothing more than a
    /// stranger, so that a guesser learns nothing of who was let go.
    pub fn credentials(&self, name: &str) -> Result<Option<Credentials>, AuthError> {
        let row = self.rows().by_name(name)?;
        Ok(row.and_then(|(id, role, hash)| Role::parse(&role).map(|role| Credentials { id, role, hash })))
    }

    /// Open a session for a person whose password was checked against
    /// `hash`: the token, once. [`AuthError::BadLogin`] if meanwhile the
    /// person was disabled or given another password (`Rows::open_session`).
    pub fn start_session(
        &self,
        id: UserId,
        name: &str,
        role: Role,
        hash: &str,
    ) -> Result<(String, Session), AuthError> {
        let token = random_hex(32);
        let now = (self.clock)();
        if !self.rows().open_session(&sha(&token), id, now, hash)? {
            return Err(AuthError::BadLogin);
        }
        Ok((token, Session { user: id, name: name.into(), role }))
    }

    /// Check a password and open a session (hashing on the calling thread:
    /// for tools and tests; the server signs in through `signin.rs`).
    pub fn login(&self, name: &str, password: &str) -> Result<(String, Session), AuthError> {
        let creds = self.credentials(name)?;
        let hash = creds.as_ref().map_or(dummy_hash(), |c| c.hash.as_str());
        let ok = verify_password(hash, password);
        match creds {
            Some(Credentials { id, role, hash }) if ok => self.start_session(id, name, role, &hash),
            _ => Err(AuthError::BadLogin),
        }
    }

    /// The session a token opens, if it is live: not revoked, not idle longer
    /// than the policy allows, not older than its maximum. Using it counts as
    /// activity.
    pub fn session(&self, token: &str) -> Result<Session, AuthError> {
        self.live(token, true)
    }

    /// As [`Users::session`], for a socket that only watches: it does not
    /// count as activity, so a page left open still ends after the idle time.
    pub fn watching(&self, token: &str) -> Result<Session, AuthError> {
        self.live(token, false)
    }

    fn live(&self, token: &str, touch: bool) -> Result<Session, AuthError> {
        let hash = sha(token);
        let now = (self.clock)();
        let cached = self.cache.read().expect("session cache").get(&hash).cloned();
        let live = match cached {
            Some(l) => l,
            None => {
                // Read and cached under the rows' lock, which a revocation
                // holds while it clears the cache (`revoke_user`,
                // `Users::apply`): a session read just before it ended is
                // never cached after.
                let mut rows = self.rows();
                let row = rows.session(&hash)?;
                let rows::SessionRow { user, name, role, created_ms, seen_ms } = row.ok_or(AuthError::BadToken)?;
                let session = Session { user, name, role: Role::parse(&role).ok_or(AuthError::BadToken)? };
                let seen = seen_ms.max(0) as u64;
                let l = Arc::new(Live {
                    session,
                    created_ms: created_ms.max(0) as u64,
                    seen_ms: AtomicU64::new(seen),
                    stored_seen_ms: AtomicU64::new(seen),
                });
                self.cache.write().expect("session cache").insert(hash.clone(), l.clone());
                drop(rows);
                l
            }
        };
        let seen = live.seen_ms.load(Ordering::Relaxed);
        if now.saturating_sub(live.created_ms) >= self.policy.max_ms || now.saturating_sub(seen) >= self.policy.idle_ms
        {
            self.end(&hash)?;
            return Err(AuthError::Expired);
        }
        if !touch {
            return Ok(live.session.clone());
        }
        live.seen_ms.fetch_max(now, Ordering::Relaxed);
        if now.saturating_sub(live.stored_seen_ms.load(Ordering::Relaxed)) >= SEEN_WRITE_MS {
            live.stored_seen_ms.store(now, Ordering::Relaxed);
            self.rows().touch(&hash, now)?;
        }
        Ok(live.session.clone())
    }

    /// A person's name by id (cached: names do not change).
    pub fn name(&self, id: UserId) -> Option<String> {
        if let Some(n) = self.names.read().expect("names cache").get(&id) {
            return Some(n.clone());
        }
        let n = self.rows().name(id).ok()??;
        self.names.write().expect("names cache").insert(id, n.clone());
        Some(n)
    }

    /// Mark a session ended (by its token's hash), in the cache and the store.
    fn end(&self, hash: &str) -> Result<usize, AuthError> {
        self.cache.write().expect("session cache").remove(hash);
        self.rows().end(hash)
    }

    /// Sign out: the token opens nothing any more.
    pub fn revoke(&self, token: &str) -> Result<(), AuthError> {
        if self.end(&sha(token))? == 0 {
            return Err(AuthError::BadToken);
        }
        Ok(())
    }

    /// End every session of a person (a password change, a suspension).
    pub fn revoke_user(&self, user: UserId) -> Result<usize, AuthError> {
        let mut rows = self.rows();
        self.cache.write().expect("session cache").retain(|_, l| l.session.user != user);
        rows.end_user(user)
    }

    /// Set a new password (hashed here) and end every session of the
    /// person, in one transaction: the new hash, for a session opened on it
    /// ([`Users::start_session`]).
    pub fn set_password(&self, user: UserId, password: &str) -> Result<String, AuthError> {
        if password.chars().count() < MIN_PASSWORD || password.len() > 128 {
            return Err(AuthError::Weak("4 to 128 characters"));
        }
        let hash = hash_password(password);
        match self.apply(user, &Change::Password(hash.clone())) {
            Ok(_) => Ok(hash),
            Err(AuthError::NoUser(_)) => Err(AuthError::BadLogin),
            Err(e) => Err(e),
        }
    }
}
