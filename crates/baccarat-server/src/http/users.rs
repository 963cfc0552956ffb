//! People (issue 47): the admin creates staff and players, lists and finds
//! them, disables and enables them, resets a password and changes a role;
//! the inspector may list. Every change is a record in the casino's chain
//! (`CasinoEvent::UserChanged`) naming the admin who made it.
//!
//! # The order of a change: check, record, then write the row
//!
//! A change is checked first (the person exists; the last enabled admin is
//! neither disabled nor demoted), then recorded in the casino's chain, and
//! only once that record is durable is the `users` row changed (in one
//! transaction that checks again and ends the person's sessions). Why this
//! order: the chain is what `verify` and the anchors sign for, so no change
//! of who may do what takes effect without its record; the reverse order
//! would let a crash between the two leave a change in force that no record
//! shows. If the second step fails (the database out of reach; another
//! server made the casino's last admin meanwhile), the chain holds a record
//! of a change not made: the answer says so, nothing of the person changed,
//! and sending the request again records it again and makes it. A record
//! of a change not made can grant nothing; a change without a record could.
//!
//! The check and the row's change are made under `Users::gate` (written),
//! so no other change on this server comes between them; a deposit reads
//! under the same gate (`staff.rs`).
//!
//! A creation needs its id before its record: the person is written first
//! disabled (opening nothing: no sign-in finds them), the creation recorded,
//! and then the person enabled. If the record certainly failed (the writer
//! did not take it), the reserved row is removed; if its fate is unknown, the
//! person stays disabled, for an admin to see in the list.
//!
//! The rulebooks are silent on the casino's own accounts; these are this
//! server's choices, as a casino's access control keeps who was given what
//! access, by whom and when.

use axum::extract::State;
use axum::Json;
use baccarat_core::UserId;
use serde::Deserialize;

use super::extract::{Auth, Body, Id, Q};
use super::{call, limited, require, ApiError, AppState};
use crate::audit::UserChange;
use crate::auth::{AuthError, Change, Changed, Listing, Page, Person, Role, Session};
use crate::bodies::{PasswordReset, PersonCreated, PersonSwitched};
use crate::casino::Request;

/// Most people on a page, and the page's size when none is asked.
pub const MAX_PAGE: u32 = 500;
pub const DEFAULT_PAGE: u32 = 50;
/// The longest search text, in bytes (a name is at most 64).
pub const MAX_QUERY: usize = 64;

/// A person's name: 1 to 64 bytes, no control characters, no space at
/// either end (so that "admin " is not shown beside "admin").
pub(super) fn checked_name(name: &str) -> Result<(), ApiError> {
    if name.is_empty() || name.len() > 64 || name.trim() != name || name.chars().any(char::is_control) {
        return Err(ApiError::bad("name: 1 to 64 bytes (UTF-8), no control characters, no spaces at either end"));
    }
    Ok(())
}

/// A role by its name (`Role::name`).
fn parse_role(field: &str, role: &str) -> Result<Role, ApiError> {
    Role::parse(role).ok_or_else(|| {
        let names: Vec<&str> = Role::ALL.iter().map(|r| r.name()).collect();
        ApiError::bad(format!("{field}: one of {}", names.join(", ")))
    })
}

/// A new password: 4 characters to 128 bytes (`auth::MIN_PASSWORD`).
fn checked_password(password: &str) -> Result<(), ApiError> {
    if password.chars().count() < crate::auth::MIN_PASSWORD || password.len() > 128 {
        return Err(ApiError::bad(format!("password: {} characters to 128 bytes (UTF-8)", crate::auth::MIN_PASSWORD)));
    }
    Ok(())
}

/// A people store's refusal as the API answers it.
fn auth_error(e: AuthError) -> ApiError {
    use axum::http::StatusCode;
    match e {
        AuthError::NoUser(id) => ApiError::new(StatusCode::NOT_FOUND, "no_user", format!("no user {id}")),
        AuthError::Taken(_) => ApiError::new(StatusCode::CONFLICT, "taken", e.to_string()),
        AuthError::LastAdmin => ApiError::new(StatusCode::CONFLICT, "last_admin", e.to_string()),
        e => ApiError::internal(e.to_string()),
    }
}

/// Hash a password off the async runtime (argon2's work).
async fn hashed(password: String) -> Result<String, ApiError> {
    tokio::task::spawn_blocking(move || crate::auth::hash_password(&password))
        .await
        .map_err(|_| ApiError::internal("the password could not be hashed"))
}

/// Record a change of person `user` in the casino's chain, durably.
async fn record(s: &AppState, user: UserId, name: String, change: UserChange, by: &Session) -> Result<(), ApiError> {
    let r = call(s, Request::UserChanged { user, name, change, by: by.user }).await?;
    match super::error::refusal(&r) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Create a person (the creation recorded, naming `by`): their id. Also
/// `POST /api/players`'s way in (`staff.rs`). See the module's notes for the
/// order and what a failure leaves.
pub(super) async fn create_person(
    s: &AppState,
    by: &Session,
    name: &str,
    role: Role,
    password: String,
) -> Result<UserId, ApiError> {
    let hash = hashed(password).await?;
    let _gate = s.users.gate.write().await;
    let id = s.users.reserve(name, role, &hash).map_err(auth_error)?;
    if let Err(e) = record(s, id, name.to_string(), UserChange::Created { role }, by).await {
        // Not taken by the writer, or refused by it: certainly not recorded.
        if e.code != "outcome_unknown" {
            let _ = s.users.forget(id);
        }
        return Err(e);
    }
    s.users.apply(id, &Change::Enable).map_err(|e| {
        let mut e = auth_error(e);
        e.message = format!(
            "user {id}: created and recorded, but still disabled ({}): enable them (POST /api/users/{id}/enable)",
            e.message
        );
        e
    })?;
    Ok(id)
}

/// 409 `own_account` when `id` is the admin's own account. This server's
/// choice (the rulebooks are silent): an admin does not disable, demote or
/// reset the password of their own account through these routes; another
/// admin does. So a session taken over cannot lock its owner out by setting
/// a password without knowing the current one (`POST /api/me/password` asks
/// for it), and no admin removes their own access by a slip. The last
/// enabled admin is told `last_admin` first: that is the refusal that holds
/// whoever asks.
fn not_own(id: UserId, by: &Session) -> Result<(), ApiError> {
    if id == by.user {
        return Err(ApiError::new(
            axum::http::StatusCode::CONFLICT,
            "own_account",
            format!(
                "id: {id} is your own account; another admin changes it (your own password: POST /api/me/password)"
            ),
        ));
    }
    Ok(())
}

/// The second step failed after the record (see the module's notes).
fn not_made(id: UserId, e: AuthError) -> ApiError {
    let mut e = auth_error(e);
    e.message = format!(
        "user {id}: the change is recorded in the casino's chain but was not made ({}); nothing of the person \
         changed: send the request again",
        e.message
    );
    e
}

/// Check, record, then make `change` of person `id` (see the module's
/// notes). A change that changes nothing (disabling the disabled, a role
/// they already have) is answered as it stands, with no record and no
/// session ended.
async fn change_person(s: &AppState, by: &Session, id: UserId, change: Change) -> Result<Changed, ApiError> {
    let _gate = s.users.gate.write().await;
    let planned = s.users.check(id, &change).map_err(auth_error)?;
    let what = match &change {
        Change::Disable => UserChange::Disabled,
        Change::Enable => UserChange::Enabled,
        Change::Password(_) => UserChange::PasswordReset,
        Change::Role(to) => UserChange::RoleChanged { from: planned.before.role, to: *to },
    };
    if planned.before == planned.after && !matches!(change, Change::Password(_)) {
        return Ok(planned);
    }
    not_own(id, by)?;
    record(s, id, planned.before.name.clone(), what, by).await?;
    s.users.apply(id, &change).map_err(|e| not_made(id, e))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct NewUser {
    name: String,
    role: String,
    password: String,
}

/// Admin: create a person of any role; a player gets a wallet (opened empty
/// by the record of their creation).
pub(super) async fn create(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Body(b): Body<NewUser>,
) -> Result<Json<PersonCreated>, ApiError> {
    require(&sess, &[Role::Admin])?;
    limited(&s, &sess)?;
    checked_name(&b.name)?;
    let role = parse_role("role", &b.role)?;
    // The name and role for the staff's log line; never the password.
    super::access::detail(|| format!("name={:?} role={}", b.name, role.name()));
    checked_password(&b.password)?;
    let id = create_person(&s, &sess, &b.name, role, b.password).await?;
    Ok(Json(PersonCreated { id, name: b.name, role, disabled: false }))
}

#[derive(Deserialize)]
pub(super) struct ListQuery {
    #[serde(default)]
    role: Option<String>,
    #[serde(default)]
    q: Option<String>,
    #[serde(default)]
    after: Option<String>,
    #[serde(default)]
    limit: Option<String>,
}

/// A whole number of the query, named in its refusal (serde's own words
/// would not name it).
fn number(field: &str, text: Option<&str>, default: u32) -> Result<u32, ApiError> {
    match text.filter(|t| !t.is_empty()) {
        None => Ok(default),
        Some(t) => t.parse().map_err(|_| ApiError::bad(format!("{field}: a whole number from 0 to {}", u32::MAX))),
    }
}

/// Admin, inspector: people by id, a page at a time, of a role and with a
/// text in the name (ASCII letters in either case). An empty `q` filters
/// nothing; a `role`, given, must be one (as the document says: an empty one
/// is refused, not read as "any").
pub(super) async fn list(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Q(q): Q<ListQuery>,
) -> Result<Json<Page>, ApiError> {
    require(&sess, &[Role::Admin, Role::Inspector])?;
    let role = match q.role.as_deref() {
        Some(r) => Some(parse_role("role", r)?),
        None => None,
    };
    let text = q.q.filter(|t| !t.is_empty());
    if text.as_ref().is_some_and(|t| t.len() > MAX_QUERY) {
        return Err(ApiError::bad(format!("q: at most {MAX_QUERY} bytes (UTF-8)")));
    }
    let after = number("after", q.after.as_deref(), 0)?;
    let limit = number("limit", q.limit.as_deref(), DEFAULT_PAGE)
        .ok()
        .filter(|l| (1..=MAX_PAGE).contains(l))
        .ok_or_else(|| ApiError::bad(format!("limit: a whole number from 1 to {MAX_PAGE}")))?;
    let listing = Listing { role, q: text, after, limit };
    let page = s.users.list(&listing).map_err(auth_error)?;
    Ok(Json(page))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Nothing {}

/// Admin: disable a person: no sign-in, every session ended, no deposit
/// into a player's wallet; their open wagers settle as any other.
pub(super) async fn disable(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Id(id): Id<UserId>,
    Body(Nothing {}): Body<Nothing>,
) -> Result<Json<PersonSwitched>, ApiError> {
    switch(&s, &sess, id, Change::Disable).await
}

/// Admin: enable a person again.
pub(super) async fn enable(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Id(id): Id<UserId>,
    Body(Nothing {}): Body<Nothing>,
) -> Result<Json<PersonSwitched>, ApiError> {
    switch(&s, &sess, id, Change::Enable).await
}

/// Disable or enable: the admin's, then the person as changed, with how
/// many sessions ended.
async fn switch(s: &AppState, sess: &Session, id: UserId, change: Change) -> Result<Json<PersonSwitched>, ApiError> {
    require(sess, &[Role::Admin])?;
    limited(s, sess)?;
    let c = change_person(s, sess, id, change).await?;
    let p = c.after;
    Ok(Json(PersonSwitched {
        id: p.id,
        name: p.name,
        role: p.role,
        disabled: p.disabled,
        sessions_ended: c.sessions_ended,
    }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct NewPassword {
    password: String,
}

/// Admin: set a person's password (they are told it out of band); every
/// session of theirs ends.
pub(super) async fn password(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Id(id): Id<UserId>,
    Body(b): Body<NewPassword>,
) -> Result<Json<PasswordReset>, ApiError> {
    require(&sess, &[Role::Admin])?;
    limited(&s, &sess)?;
    checked_password(&b.password)?;
    // 404 and 409 before any hash is spent.
    s.users.person(id).map_err(auth_error)?.ok_or_else(|| auth_error(AuthError::NoUser(id)))?;
    not_own(id, &sess)?;
    let hash = hashed(b.password).await?;
    let c = change_person(&s, &sess, id, Change::Password(hash)).await?;
    Ok(Json(PasswordReset { id, sessions_ended: c.sessions_ended }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct NewRole {
    role: String,
}

/// Admin: change a person's role; every session of theirs ends (they sign
/// in again as what they now are). A player's wallet stays theirs.
pub(super) async fn role(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Id(id): Id<UserId>,
    Body(b): Body<NewRole>,
) -> Result<Json<Person>, ApiError> {
    require(&sess, &[Role::Admin])?;
    limited(&s, &sess)?;
    let role = parse_role("role", &b.role)?;
    super::access::detail(|| format!("role={}", role.name()));
    let c = change_person(&s, &sess, id, Change::Role(role)).await?;
    Ok(Json(c.after))
}
