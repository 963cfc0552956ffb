//! The people's rows on SQLite (a migrated file): pages and search, the last
//! enabled admin, and what a disable, a reset and a role change do to
//! sign-in and sessions, including a sign-in that races them.

use std::path::PathBuf;

use super::*;
use crate::auth::{verify_password, AuthError, Role, Users};

/// A migrated casino file in a fresh directory, removed on drop.
struct Db(PathBuf);

impl Db {
    fn new() -> Db {
        let dir = std::env::temp_dir().join(format!("baccarat-people-{}", baccarat_core::random_hex(8)));
        std::fs::create_dir(&dir).unwrap();
        let db = Db(dir);
        crate::store::SqliteStore::open(&db.file()).unwrap();
        db
    }
    fn file(&self) -> PathBuf {
        self.0.join("casino.db")
    }
    fn users(&self) -> Users {
        Users::open(&self.file()).unwrap()
    }
}

impl Drop for Db {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

fn listing(role: Option<Role>, q: Option<&str>, after: u32, limit: u32) -> Listing {
    Listing { role, q: q.map(str::to_string), after, limit }
}

fn names(p: &Page) -> Vec<&str> {
    p.users.iter().map(|u| u.name.as_str()).collect()
}

#[test]
fn pages_follow_each_other_by_id_and_filters_narrow_them() {
    let db = Db::new();
    let u = db.users();
    for (name, role) in [
        ("Ana", Role::Admin),
        ("dan", Role::Dealer),
        ("Bo", Role::Player),
        ("DANA", Role::Player),
        ("cy", Role::Player),
        ("50%_off", Role::Player),
        ("eve", Role::Inspector),
    ] {
        u.create(name, role, "pass").unwrap();
    }
    let first = u.list(&listing(None, None, 0, 3)).unwrap();
    assert_eq!(names(&first), ["Ana", "dan", "Bo"]);
    assert_eq!(first.next, Some(first.users[2].id));
    let second = u.list(&listing(None, None, first.next.unwrap().0, 3)).unwrap();
    assert_eq!(names(&second), ["DANA", "cy", "50%_off"]);
    let third = u.list(&listing(None, None, second.next.unwrap().0, 3)).unwrap();
    assert_eq!((names(&third), third.next), (vec!["eve"], None), "the last page names no next");
    // Exactly a page's worth left: no next page.
    let exact = u.list(&listing(None, None, second.next.unwrap().0, 1)).unwrap();
    assert_eq!((names(&exact), exact.next), (vec!["eve"], None));

    let players = u.list(&listing(Some(Role::Player), None, 0, 50)).unwrap();
    assert_eq!(names(&players), ["Bo", "DANA", "cy", "50%_off"]);
    assert!(players.users.iter().all(|p| p.role == Role::Player && !p.disabled));
    // Case-insensitive substring, on any role or one.
    assert_eq!(names(&u.list(&listing(None, Some("AN"), 0, 50)).unwrap()), ["Ana", "dan", "DANA"]);
    assert_eq!(names(&u.list(&listing(Some(Role::Player), Some("an"), 0, 50)).unwrap()), ["DANA"]);
    // A query's % and _ are letters, not patterns.
    assert_eq!(names(&u.list(&listing(None, Some("%_"), 0, 50)).unwrap()), ["50%_off"]);
    assert_eq!(names(&u.list(&listing(None, Some("_"), 0, 50)).unwrap()), ["50%_off"]);
    assert!(u.list(&listing(Some(Role::Supervisor), None, 0, 50)).unwrap().users.is_empty());
}

#[test]
fn the_last_enabled_admin_is_neither_disabled_nor_demoted() {
    let db = Db::new();
    let u = db.users();
    let a = u.create("a", Role::Admin, "pass").unwrap();
    let b = u.create("b", Role::Admin, "pass").unwrap();
    let d = u.create("d", Role::Dealer, "pass").unwrap();
    // Two admins: one may go.
    assert!(u.apply(a, &Change::Disable).unwrap().after.disabled);
    for change in [Change::Disable, Change::Role(Role::Supervisor)] {
        assert!(matches!(u.check(b, &change), Err(AuthError::LastAdmin)), "{change:?}");
        assert!(matches!(u.apply(b, &change), Err(AuthError::LastAdmin)), "{change:?}");
    }
    let still = u.person(b).unwrap().unwrap();
    assert_eq!((still.role, still.disabled), (Role::Admin, false), "refused, nothing changed");
    // A disabled admin is no enabled admin: their role may change; the
    // last one may still change their password, and stay admin.
    u.apply(a, &Change::Role(Role::Inspector)).unwrap();
    u.apply(b, &Change::Password(crate::auth::hash_password("new1"))).unwrap();
    u.apply(b, &Change::Role(Role::Admin)).unwrap();
    // A second admin made: now the first may be demoted.
    u.apply(d, &Change::Role(Role::Admin)).unwrap();
    let c = u.apply(b, &Change::Role(Role::Dealer)).unwrap();
    assert_eq!((c.before.role, c.after.role), (Role::Admin, Role::Dealer));
    assert!(matches!(u.apply(d, &Change::Disable), Err(AuthError::LastAdmin)));
    assert!(matches!(u.check(UserId(999), &Change::Enable), Err(AuthError::NoUser(UserId(999)))));
    assert!(matches!(u.apply(UserId(999), &Change::Disable), Err(AuthError::NoUser(UserId(999)))));
}

#[test]
fn a_disabled_person_cannot_sign_in_and_their_sessions_end() {
    let db = Db::new();
    let u = db.users();
    let p = u.create("pat", Role::Player, "pass").unwrap();
    let (t1, _) = u.login("pat", "pass").unwrap();
    let (t2, _) = u.login("pat", "pass").unwrap();
    assert_eq!(u.session(&t1).unwrap().user, p, "cached");
    let c = u.apply(p, &Change::Disable).unwrap();
    assert_eq!((c.before.disabled, c.after.disabled, c.sessions_ended), (false, true, 2));
    for t in [&t1, &t2] {
        assert!(matches!(u.session(t), Err(AuthError::BadToken)), "the cached session ended too");
    }
    // Answered as a wrong password, and no session opened.
    assert!(matches!(u.login("pat", "pass"), Err(AuthError::BadLogin)));
    assert!(u.credentials("pat").unwrap().is_none());
    // A new Users (another server, a restart) finds no session either.
    assert!(matches!(db.users().session(&t1), Err(AuthError::BadToken)));
    let c = u.apply(p, &Change::Enable).unwrap();
    assert_eq!((c.after.disabled, c.sessions_ended), (false, 0));
    let (t3, s) = u.login("pat", "pass").unwrap();
    assert_eq!(s.role, Role::Player);
    assert!(u.session(&t3).is_ok());
    assert!(matches!(u.session(&t1), Err(AuthError::BadToken)), "an ended session stays ended");
}

/// A sign-in checks the password off the lock, then opens its session: a
/// disable or a reset between the two leaves it with nothing.
#[test]
fn a_sign_in_that_races_a_disable_or_a_reset_opens_nothing() {
    let db = Db::new();
    let u = db.users();
    let p = u.create("pat", Role::Dealer, "pass").unwrap();
    let crate::auth::Credentials { id, role, hash } = u.credentials("pat").unwrap().unwrap();
    assert!(verify_password(&hash, "pass"));
    u.apply(p, &Change::Disable).unwrap();
    assert!(matches!(u.start_session(id, "pat", role, &hash), Err(AuthError::BadLogin)));
    u.apply(p, &Change::Enable).unwrap();
    let hash = u.credentials("pat").unwrap().unwrap().hash;
    u.set_password(p, "other").unwrap();
    assert!(matches!(u.start_session(id, "pat", role, &hash), Err(AuthError::BadLogin)), "the old hash");
    assert!(matches!(u.login("pat", "pass"), Err(AuthError::BadLogin)));
    assert!(u.login("pat", "other").is_ok());
}

#[test]
fn a_password_reset_and_a_role_change_end_every_session() {
    let db = Db::new();
    let u = db.users();
    let p = u.create("sam", Role::Dealer, "pass").unwrap();
    let (t1, _) = u.login("sam", "pass").unwrap();
    let c = u.apply(p, &Change::Password(crate::auth::hash_password("fresh"))).unwrap();
    assert_eq!(c.sessions_ended, 1);
    assert_eq!(c.before, c.after, "a reset shows nothing else changed");
    assert!(u.session(&t1).is_err());
    assert!(matches!(u.login("sam", "pass"), Err(AuthError::BadLogin)));
    let (t2, _) = u.login("sam", "fresh").unwrap();
    assert_eq!(u.session(&t2).unwrap().role, Role::Dealer);
    let c = u.apply(p, &Change::Role(Role::Supervisor)).unwrap();
    assert_eq!((c.before.role, c.after.role, c.sessions_ended), (Role::Dealer, Role::Supervisor, 1));
    assert!(u.session(&t2).is_err(), "the dealer's session does not become a supervisor's");
    let (t3, s) = u.login("sam", "fresh").unwrap();
    assert_eq!((s.role, u.session(&t3).unwrap().role), (Role::Supervisor, Role::Supervisor));
}

#[test]
fn a_reserved_person_opens_nothing_and_is_forgotten_only_while_reserved() {
    let db = Db::new();
    let u = db.users();
    let r = u.reserve("new", Role::Inspector, &crate::auth::hash_password("pass")).unwrap();
    assert!(u.person(r).unwrap().unwrap().disabled);
    assert!(matches!(u.login("new", "pass"), Err(AuthError::BadLogin)));
    assert!(matches!(u.reserve("new", Role::Dealer, "x"), Err(AuthError::Taken(_))), "the name is held");
    assert!(u.forget(r).unwrap());
    assert!(u.person(r).unwrap().is_none());
    let r = u.reserve("new", Role::Inspector, &crate::auth::hash_password("pass")).unwrap();
    u.apply(r, &Change::Enable).unwrap();
    assert!(!u.forget(r).unwrap(), "an enabled person is never forgotten");
    assert!(u.login("new", "pass").is_ok());
}

/// A file made before people could be disabled (its `users` without the
/// column, at schema 14) opens, everyone enabled, and signs in as before.
#[test]
fn a_database_from_before_the_disabled_column_keeps_its_people() {
    let db = Db::new();
    {
        let u = db.users();
        u.create("old", Role::Admin, "pass").unwrap();
    }
    {
        let c = rusqlite::Connection::open(db.file()).unwrap();
        c.execute_batch("ALTER TABLE users DROP COLUMN disabled; PRAGMA user_version = 14;").unwrap();
    }
    let store = crate::store::SqliteStore::open(&db.file()).unwrap();
    assert_eq!(store.version().unwrap(), crate::store::SCHEMA_VERSION);
    drop(store);
    let u = db.users();
    let old = u.list(&listing(None, Some("old"), 0, 10)).unwrap();
    assert_eq!(old.users.len(), 1);
    assert!(!old.users[0].disabled);
    assert!(u.login("old", "pass").is_ok());
}
