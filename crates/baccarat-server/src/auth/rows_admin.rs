//! The statements of the people routes (issue 47): a person, a page of
//! people, and a change of one (disabled, enabled, role, password), on
//! SQLite or PostgreSQL. A change is one transaction that reads the person,
//! refuses to leave the casino without an enabled admin, writes the change
//! and ends every session of the person, so that no sign-in or other change
//! comes between the check and the write.

use baccarat_core::UserId;
use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};

use super::AuthError;

/// A person as the people routes show them (no password hash).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PersonRow {
    pub id: UserId,
    pub name: String,
    /// The role's stored name (`Role::parse` reads it).
    pub role: String,
    pub disabled: bool,
}

/// Which people a page lists: those after id `after`, of `role` if given,
/// whose name holds `q` (already in ASCII lower case) if given; at most
/// `limit`, by id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Filter {
    pub role: Option<String>,
    pub q: Option<String>,
    pub after: u32,
    pub limit: u32,
}

/// A change of one person's row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RowChange {
    Disable,
    Enable,
    /// The new role's stored name.
    Role(String),
    /// The new password's hash.
    Password(String),
}

/// A person before and after a change, and how many of their sessions it
/// ended (none when only checked).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Changed {
    pub before: PersonRow,
    pub after: PersonRow,
    pub sessions_ended: usize,
}

/// The stored name of the admin role (`Role::Admin.name()`).
const ADMIN: &str = "admin";

impl RowChange {
    fn applied_to(&self, p: &PersonRow) -> PersonRow {
        let mut after = p.clone();
        match self {
            RowChange::Disable => after.disabled = true,
            RowChange::Enable => after.disabled = false,
            RowChange::Role(r) => after.role = r.clone(),
            RowChange::Password(_) => {}
        }
        after
    }
}

fn enabled_admin(p: &PersonRow) -> bool {
    p.role == ADMIN && !p.disabled
}

/// Check `change` of `before` against the other enabled admins (counted by
/// `others`, in the change's transaction): the person after the change.
fn checked(
    before: PersonRow,
    change: &RowChange,
    others: impl FnOnce() -> Result<u64, AuthError>,
) -> Result<Changed, AuthError> {
    let after = change.applied_to(&before);
    if enabled_admin(&before) && !enabled_admin(&after) && others()? == 0 {
        return Err(AuthError::LastAdmin);
    }
    Ok(Changed { before, after, sessions_ended: 0 })
}

/// The transaction-level advisory lock every change of a person takes on
/// PostgreSQL, so that two servers' changes (two admins disabling each
/// other at once) come one after the other. (Distinct from the store's
/// locks in `pg_store.rs`: 7261 to 7263.)
pub const PEOPLE_LOCK: i64 = 7270;

/// What the people routes ask of the database.
pub trait Manage {
    fn person(&mut self, id: UserId) -> Result<Option<PersonRow>, AuthError>;
    /// At most `filter.limit` people, by id.
    fn list(&mut self, filter: &Filter) -> Result<Vec<PersonRow>, AuthError>;
    /// Check `change` of person `id` ([`AuthError::NoUser`],
    /// [`AuthError::LastAdmin`]), and if `apply`, make it and end every
    /// session of the person, in the same transaction.
    fn change(&mut self, id: UserId, change: &RowChange, apply: bool) -> Result<Changed, AuthError>;
    /// Remove a person reserved disabled whose creation was never recorded
    /// (`Users::forget`): only if still disabled with no session; whether it was.
    fn forget(&mut self, id: UserId) -> Result<bool, AuthError>;
}

fn sqlite_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<PersonRow> {
    Ok(PersonRow { id: r.get(0)?, name: r.get(1)?, role: r.get(2)?, disabled: r.get::<_, i64>(3)? != 0 })
}

fn sqlite_person(c: &Connection, id: UserId) -> Result<Option<PersonRow>, AuthError> {
    Ok(c.query_row("SELECT id, name, role, disabled FROM users WHERE id = ?1", [id], sqlite_row).optional()?)
}

impl Manage for Connection {
    fn person(&mut self, id: UserId) -> Result<Option<PersonRow>, AuthError> {
        sqlite_person(self, id)
    }
    fn list(&mut self, f: &Filter) -> Result<Vec<PersonRow>, AuthError> {
        // SQLite's lower() folds ASCII letters only: the query is folded
        // the same way, and PostgreSQL's statement below does the same.
        let mut q = self.prepare_cached(
            "SELECT id, name, role, disabled FROM users
             WHERE id > ?1 AND (?2 IS NULL OR role = ?2) AND (?3 IS NULL OR instr(lower(name), ?3) > 0)
             ORDER BY id LIMIT ?4",
        )?;
        let rows = q.query_map(params![f.after, f.role, f.q, f.limit], sqlite_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
    fn change(&mut self, id: UserId, change: &RowChange, apply: bool) -> Result<Changed, AuthError> {
        // IMMEDIATE: the write lock is taken before the check is read.
        let how = if apply { TransactionBehavior::Immediate } else { TransactionBehavior::Deferred };
        let tx = self.transaction_with_behavior(how)?;
        let before = sqlite_person(&tx, id)?.ok_or(AuthError::NoUser(id))?;
        let mut ch = checked(before, change, || {
            let sql = "SELECT COUNT(*) FROM users WHERE role = ?1 AND disabled = 0 AND id <> ?2";
            Ok(tx.query_row(sql, params![ADMIN, id], |r| r.get(0))?)
        })?;
        if !apply {
            return Ok(ch);
        }
        match change {
            RowChange::Disable | RowChange::Enable => {
                tx.execute("UPDATE users SET disabled = ?1 WHERE id = ?2", params![ch.after.disabled as i64, id])?
            }
            RowChange::Role(r) => tx.execute("UPDATE users SET role = ?1 WHERE id = ?2", params![r, id])?,
            RowChange::Password(h) => tx.execute("UPDATE users SET password = ?1 WHERE id = ?2", params![h, id])?,
        };
        ch.sessions_ended = tx.execute("UPDATE sessions SET revoked = 1 WHERE user = ?1 AND revoked = 0", [id])?;
        tx.commit()?;
        Ok(ch)
    }
    fn forget(&mut self, id: UserId) -> Result<bool, AuthError> {
        let n = self.execute(
            "DELETE FROM users WHERE id = ?1 AND disabled = 1 AND NOT EXISTS (SELECT 1 FROM sessions WHERE user = ?1)",
            [id],
        )?;
        Ok(n == 1)
    }
}

fn pg_row(r: &postgres::Row) -> PersonRow {
    PersonRow { id: UserId(r.get::<_, i64>(0) as u32), name: r.get(1), role: r.get(2), disabled: r.get(3) }
}

impl Manage for postgres::Client {
    fn person(&mut self, id: UserId) -> Result<Option<PersonRow>, AuthError> {
        let r = self.query_opt("SELECT id, name, role, disabled FROM users WHERE id = $1", &[&(id.0 as i64)])?;
        Ok(r.as_ref().map(pg_row))
    }
    fn list(&mut self, f: &Filter) -> Result<Vec<PersonRow>, AuthError> {
        // ASCII letters folded only, as SQLite's lower() does.
        let rows = self.query(
            "SELECT id, name, role, disabled FROM users
             WHERE id > $1 AND ($2::text IS NULL OR role = $2)
               AND ($3::text IS NULL
                    OR strpos(translate(name, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'), $3) > 0)
             ORDER BY id LIMIT $4",
            &[&(f.after as i64), &f.role, &f.q, &(f.limit as i64)],
        )?;
        Ok(rows.iter().map(pg_row).collect())
    }
    fn change(&mut self, id: UserId, change: &RowChange, apply: bool) -> Result<Changed, AuthError> {
        let mut tx = self.transaction()?;
        if apply {
            tx.execute("SELECT pg_advisory_xact_lock($1)", &[&PEOPLE_LOCK])?;
        }
        let row = tx.query_opt("SELECT id, name, role, disabled FROM users WHERE id = $1", &[&(id.0 as i64)])?;
        let before = row.as_ref().map(pg_row).ok_or(AuthError::NoUser(id))?;
        let mut ch = {
            let tx = &mut tx;
            checked(before, change, move || {
                let sql = "SELECT COUNT(*) FROM users WHERE role = $1 AND NOT disabled AND id <> $2";
                Ok(tx.query_one(sql, &[&ADMIN, &(id.0 as i64)])?.get::<_, i64>(0) as u64)
            })?
        };
        if !apply {
            return Ok(ch);
        }
        let id64 = id.0 as i64;
        match change {
            RowChange::Disable | RowChange::Enable => {
                tx.execute("UPDATE users SET disabled = $1 WHERE id = $2", &[&ch.after.disabled, &id64])?
            }
            RowChange::Role(r) => tx.execute("UPDATE users SET role = $1 WHERE id = $2", &[r, &id64])?,
            RowChange::Password(h) => tx.execute("UPDATE users SET password = $1 WHERE id = $2", &[h, &id64])?,
        };
        let sql = "UPDATE sessions SET revoked = true WHERE \"user\" = $1 AND NOT revoked";
        ch.sessions_ended = tx.execute(sql, &[&id64])? as usize;
        tx.commit()?;
        Ok(ch)
    }
    fn forget(&mut self, id: UserId) -> Result<bool, AuthError> {
        let n = self.execute(
            "DELETE FROM users WHERE id = $1 AND disabled AND NOT EXISTS (SELECT 1 FROM sessions WHERE \"user\" = $1)",
            &[&(id.0 as i64)],
        )?;
        Ok(n == 1)
    }
}

/// On the connection's own thread, as `rows.rs`'s statements.
impl Manage for baccarat_cluster::PgThread {
    fn person(&mut self, id: UserId) -> Result<Option<PersonRow>, AuthError> {
        self.run(move |c| Manage::person(c, id)).unwrap_or(Err(AuthError::Gone))
    }
    fn list(&mut self, f: &Filter) -> Result<Vec<PersonRow>, AuthError> {
        let f = f.clone();
        self.run(move |c| Manage::list(c, &f)).unwrap_or(Err(AuthError::Gone))
    }
    fn change(&mut self, id: UserId, change: &RowChange, apply: bool) -> Result<Changed, AuthError> {
        let change = change.clone();
        self.run(move |c| Manage::change(c, id, &change, apply)).unwrap_or(Err(AuthError::Gone))
    }
    fn forget(&mut self, id: UserId) -> Result<bool, AuthError> {
        self.run(move |c| Manage::forget(c, id)).unwrap_or(Err(AuthError::Gone))
    }
}
