//! The admin's work on people (issue 47): a person, a page of people, and a
//! change of one, checked first ([`Users::check`]) and then made
//! ([`Users::apply`]), as `http/users.rs` orders them around the change's
//! record in the casino's chain.
//!
//! The rulebooks say nothing of the casino's own accounts; what follows is
//! this server's choice, as a casino's access control does: every change
//! ends the person's sessions (a role or a password changed, an account
//! disabled: whoever held a session signs in again under what now holds),
//! and the casino always keeps an enabled admin, so that someone can still
//! change anything.

use baccarat_core::UserId;
use serde::Serialize;

#[cfg(doc)]
use super::hash_password;
use super::rows_admin::{Filter, PersonRow, RowChange};
use super::{AuthError, Role, Users};

/// A person as the people routes answer them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Person {
    #[schemars(with = "u32")]
    pub id: UserId,
    pub name: String,
    pub role: Role,
    pub disabled: bool,
}

/// Which people to list: of a role, with `q` in the name (ASCII letters in
/// either case), after id `after`, at most `limit`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listing {
    pub role: Option<Role>,
    pub q: Option<String>,
    pub after: u32,
    pub limit: u32,
}

/// A page of people, and the `after` of the next page if there is one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Page {
    pub users: Vec<Person>,
    /// The `after` of the next page; null on the last.
    #[schemars(with = "Option<u32>")]
    pub next: Option<UserId>,
}

/// A change of a person's account.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    Disable,
    Enable,
    Role(Role),
    /// The new password's hash (`hash_password`), never the password.
    Password(String),
}

/// A person before and after a change, and how many of their sessions ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Changed {
    pub before: Person,
    pub after: Person,
    pub sessions_ended: usize,
}

impl Change {
    fn row(&self) -> RowChange {
        match self {
            Change::Disable => RowChange::Disable,
            Change::Enable => RowChange::Enable,
            Change::Role(r) => RowChange::Role(r.name().to_string()),
            Change::Password(h) => RowChange::Password(h.clone()),
        }
    }
}

/// A stored row as a person; a role no one knows is refused as corrupt
/// rather than shown as another.
fn person(r: PersonRow) -> Result<Person, AuthError> {
    let role = Role::parse(&r.role).ok_or_else(|| AuthError::UnknownRole(r.id, r.role.clone()))?;
    Ok(Person { id: r.id, name: r.name, role, disabled: r.disabled })
}

fn changed(c: super::rows_admin::Changed) -> Result<Changed, AuthError> {
    Ok(Changed { before: person(c.before)?, after: person(c.after)?, sessions_ended: c.sessions_ended })
}

impl Users {
    /// A person by id.
    pub fn person(&self, id: UserId) -> Result<Option<Person>, AuthError> {
        self.rows().person(id)?.map(person).transpose()
    }

    /// A page of people by id (one more is read, to know whether a next
    /// page exists).
    pub fn list(&self, l: &Listing) -> Result<Page, AuthError> {
        let filter = Filter {
            role: l.role.map(|r| r.name().to_string()),
            q: l.q.as_ref().map(|q| q.to_ascii_lowercase()),
            after: l.after,
            limit: l.limit.saturating_add(1),
        };
        let mut rows = self.rows().list(&filter)?;
        let more = rows.len() > l.limit as usize;
        rows.truncate(l.limit as usize);
        let next = if more { rows.last().map(|r| r.id) } else { None };
        let users = rows.into_iter().map(person).collect::<Result<_, _>>()?;
        Ok(Page { users, next })
    }

    /// Whether `change` of person `id` may be made now (no such person;
    /// the last enabled admin), and what they would be after it. Nothing
    /// is written.
    pub fn check(&self, id: UserId, change: &Change) -> Result<Changed, AuthError> {
        changed(self.rows().change(id, &change.row(), false)?)
    }

    /// Make `change` of person `id`, checked again in its transaction, and
    /// end every session of theirs: in the database, and in the cache under
    /// the same lock (see `Users::live`).
    pub fn apply(&self, id: UserId, change: &Change) -> Result<Changed, AuthError> {
        let mut rows = self.rows();
        let c = rows.change(id, &change.row(), true)?;
        self.cache.write().expect("session cache").retain(|_, l| l.session.user != id);
        drop(rows);
        changed(c)
    }

    /// A new person with the password hashed as `hash` ([`super::hash_password`],
    /// done by the caller off any lock), written disabled (they can open
    /// nothing) until their creation is recorded and [`Users::apply`]
    /// enables them: the id is the database's to give, and the record names
    /// it. [`AuthError::Taken`] if the name is.
    pub fn reserve(&self, name: &str, role: Role, hash: &str) -> Result<UserId, AuthError> {
        self.rows().insert(name, role.name(), hash, true)
    }

    /// Remove a person reserved whose creation was certainly not recorded
    /// (the writer never took the request): whether they were removed (not
    /// if enabled since, or holding a session).
    pub fn forget(&self, id: UserId) -> Result<bool, AuthError> {
        self.rows().forget(id)
    }
}

#[cfg(test)]
mod tests;
