//! People over HTTP (issue 47): the admin creates staff of every role and
//! players, lists and finds them a page at a time, disables, enables,
//! resets a password and changes a role; each change ends the person's
//! sessions and is a record in the casino's chain naming the admin. The
//! hostile side: players and dealers calling each admin route, the last
//! admin disabling or demoting themself, bad bodies, a deposit into a
//! disabled player's wallet.

use baccarat_core::UserId;
use std::time::Duration;

use baccarat_core::audit::{Body, CasinoEvent, UserChange, CASINO_CHAIN};
use baccarat_server::auth::Role;
use reqwest::StatusCode;
use serde_json::{json, Value};

use super::common::{spawn_app, App};

/// Create a person as the test's admin: their id.
async fn create(app: &App, name: &str, role: &str, password: &str) -> u32 {
    let (status, r) =
        app.post("/api/users", Some(&app.admin), json!({ "name": name, "role": role, "password": password })).await;
    assert_eq!(status, StatusCode::OK, "{r}");
    assert_eq!((r["name"].as_str(), r["role"].as_str(), &r["disabled"]), (Some(name), Some(role), &json!(false)));
    r["id"].as_u64().unwrap() as u32
}

async fn me(app: &App, token: &str) -> (StatusCode, Value) {
    app.get("/api/me", Some(token)).await
}

/// The admin's (or anyone's) own id.
async fn id_of(app: &App, token: &str) -> u32 {
    me(app, token).await.1["user"].as_u64().unwrap() as u32
}

/// A sign-in's status and body.
async fn sign_in(app: &App, name: &str, password: &str) -> (StatusCode, Value) {
    app.post("/api/login", None, json!({ "name": name, "password": password })).await
}

/// `POST /api/users/{id}/{what}` with `body`, as `token`.
async fn change(app: &App, token: &str, id: u32, what: &str, body: Value) -> (StatusCode, Value) {
    app.post(&format!("/api/users/{id}/{what}"), Some(token), body).await
}

/// The person `id` as the list shows them.
async fn listed(app: &App, id: u32) -> Value {
    let (status, page) = app.get(&format!("/api/users?after={}&limit=1", id - 1), Some(&app.admin)).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    page["users"][0].clone()
}

/// The casino chain's person-changes of `user`, in order.
fn changes_of(app: &App, user: u32) -> Vec<(UserChange, u32, String)> {
    let records = baccarat_core::store::read_records(&app.dir.join("casino.db"), CASINO_CHAIN, 1).unwrap();
    let mut out = Vec::new();
    for r in records {
        if let Some(CasinoEvent::UserChanged { user: u, name, change, by }) = Body::decode(&r.body).unwrap().casino {
            if u == UserId(user) {
                out.push((change, by.0, name));
            }
        }
    }
    out
}

async fn deposit(app: &App, player: u32, amount: i64, key: &str) -> (StatusCode, Value) {
    let body = json!({ "amount": amount, "key": key });
    app.post(&format!("/api/players/{player}/deposit"), Some(&app.admin), body).await
}

fn code(r: &Value) -> &str {
    r["code"].as_str().unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn staff_of_every_role_are_created_recorded_and_sign_in_as_themselves() {
    let app = spawn_app().await;
    let admin = id_of(&app, &app.admin).await;
    for role in Role::ALL {
        let name = format!("new-{}", role.name());
        let password = format!("pass-{}", role.name());
        let id = create(&app, &name, role.name(), &password).await;
        let (status, r) = sign_in(&app, &name, &password).await;
        assert_eq!(status, StatusCode::OK, "{r}");
        let (_, who) = me(&app, r["token"].as_str().unwrap()).await;
        assert_eq!((who["user"].as_u64(), who["role"].as_str()), (Some(id as u64), Some(role.name())));
        if role == Role::Player {
            assert_eq!((&who["balance"], &who["available"]), (&json!(0), &json!(0)), "an empty wallet");
        }
        assert_eq!(changes_of(&app, id), vec![(UserChange::Created { role }, admin, name.clone())]);
        let (status, r) = app
            .post("/api/users", Some(&app.admin), json!({ "name": name, "role": "player", "password": "other" }))
            .await;
        assert_eq!((status, code(&r)), (StatusCode::CONFLICT, "taken"), "{r}");
    }
    // The older route creates a player the same way, recorded too.
    let (status, r) = app
        .post("/api/players", Some(&app.admin), json!({ "name": "walk-in", "password": "pass", "chips": 5000 }))
        .await;
    assert_eq!(status, StatusCode::OK, "{r}");
    let id = r["player"].as_u64().unwrap() as u32;
    assert_eq!(changes_of(&app, id), vec![(UserChange::Created { role: Role::Player }, admin, "walk-in".into())]);
    let (status, r) = sign_in(&app, "walk-in", "pass").await;
    assert_eq!(status, StatusCode::OK, "{r}");
    assert_eq!(me(&app, r["token"].as_str().unwrap()).await.1["balance"], 5000);
    // No password or hash is ever in the chain.
    let records = baccarat_core::store::read_records(&app.dir.join("casino.db"), CASINO_CHAIN, 1).unwrap();
    assert!(records.iter().all(|r| !r.body.contains("pass-") && !r.body.contains("argon2")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn people_are_listed_a_page_at_a_time_by_role_and_name() {
    let app = spawn_app().await;
    let mut zeds = Vec::new();
    for i in 1..=5 {
        zeds.push(create(&app, &format!("Zed-{i}"), "player", "pass").await);
    }
    let dealer = create(&app, "zedd", "dealer", "pass").await;
    let (status, first) = app.get("/api/users?q=ZED&limit=4", Some(&app.admin)).await;
    assert_eq!(status, StatusCode::OK, "{first}");
    let ids = |p: &Value| -> Vec<u32> {
        p["users"].as_array().unwrap().iter().map(|u| u["id"].as_u64().unwrap() as u32).collect()
    };
    assert_eq!(ids(&first), zeds[..4]);
    assert_eq!(first["next"], zeds[3]);
    let (_, second) = app.get(&format!("/api/users?q=zEd&limit=4&after={}", zeds[3]), Some(&app.admin)).await;
    assert_eq!((ids(&second), &second["next"]), (vec![zeds[4], dealer], &Value::Null));
    let (_, players) = app.get("/api/users?role=player&q=zed", Some(&app.admin)).await;
    assert_eq!(ids(&players), zeds);
    let (_, dealers) = app.get("/api/users?role=dealer&q=zed&limit=500", Some(&app.admin)).await;
    assert_eq!(dealers["users"], json!([{ "id": dealer, "name": "zedd", "role": "dealer", "disabled": false }]));
    // An empty text filters nothing; the default page is 50.
    let (status, all) = app.get("/api/users?q=", Some(&app.admin)).await;
    assert_eq!(status, StatusCode::OK, "{all}");
    assert!(ids(&all).len() >= 6 && ids(&all).len() <= 50);
    for (query, field) in [
        ("role=king", "role"),
        // A role given is one of the roles: an empty one is not "any".
        ("role=", "role"),
        ("limit=0", "limit"),
        ("limit=501", "limit"),
        ("after=-1", "after"),
        (&*format!("q={}", "x".repeat(65)), "q"),
    ] {
        let (status, r) = app.get(&format!("/api/users?{query}"), Some(&app.admin)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{query}: {r}");
        assert!(r["error"].as_str().unwrap().contains(field), "{query}: {r}");
    }
    // The inspector may read; a dealer, a player and a stranger may not.
    let inspector = create(&app, "auditor-7", "inspector", "pass").await;
    let token = sign_in(&app, "auditor-7", "pass").await.1["token"].as_str().unwrap().to_string();
    let (status, r) = app.get("/api/users?q=auditor-7", Some(&token)).await;
    assert_eq!((status, ids(&r)), (StatusCode::OK, vec![inspector]));
    for name in ["zedd", "Zed-1"] {
        let token = sign_in(&app, name, "pass").await.1["token"].as_str().unwrap().to_string();
        let (status, r) = app.get("/api/users", Some(&token)).await;
        assert_eq!((status, code(&r)), (StatusCode::FORBIDDEN, "role"), "{name}");
    }
    assert_eq!(app.get("/api/users", None).await.0, StatusCode::UNAUTHORIZED);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_disabled_person_cannot_sign_in_and_their_sessions_end() {
    let app = spawn_app().await;
    let admin = id_of(&app, &app.admin).await;
    let id = create(&app, "dee", "dealer", "pass").await;
    let token = sign_in(&app, "dee", "pass").await.1["token"].as_str().unwrap().to_string();
    assert_eq!(me(&app, &token).await.0, StatusCode::OK);
    let (status, r) = change(&app, &app.admin, id, "disable", json!({})).await;
    assert_eq!(status, StatusCode::OK, "{r}");
    assert_eq!(r, json!({ "id": id, "name": "dee", "role": "dealer", "disabled": true, "sessions_ended": 1 }));
    // The old session answers 401, by bearer token and by cookie.
    assert_eq!(me(&app, &token).await.0, StatusCode::UNAUTHORIZED);
    let by_cookie = app
        .client
        .get(format!("{}/api/me", app.base))
        .header("cookie", format!("{}={token}", baccarat_server::http::SESSION_COOKIE))
        .send()
        .await
        .unwrap();
    assert_eq!(by_cookie.status(), StatusCode::UNAUTHORIZED);
    // Signing in is answered exactly as a wrong password is.
    let (status, refused) = sign_in(&app, "dee", "pass").await;
    let (wrong_status, wrong) = sign_in(&app, "dee", "not-it").await;
    assert_eq!((status, &refused), (wrong_status, &wrong));
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(listed(&app, id).await["disabled"], true);
    // Disabling again changes nothing and records nothing.
    let (status, r) = change(&app, &app.admin, id, "disable", json!({})).await;
    assert_eq!((status, &r["sessions_ended"]), (StatusCode::OK, &json!(0)));
    let (status, r) = change(&app, &app.admin, id, "enable", json!({})).await;
    assert_eq!(status, StatusCode::OK, "{r}");
    assert_eq!(r, json!({ "id": id, "name": "dee", "role": "dealer", "disabled": false, "sessions_ended": 0 }));
    assert_eq!(sign_in(&app, "dee", "pass").await.0, StatusCode::OK);
    assert_eq!(me(&app, &token).await.0, StatusCode::UNAUTHORIZED, "an ended session stays ended");
    let recorded: Vec<UserChange> = changes_of(&app, id).into_iter().map(|c| c.0).collect();
    assert_eq!(recorded, [UserChange::Created { role: Role::Dealer }, UserChange::Disabled, UserChange::Enabled]);
    assert!(changes_of(&app, id).iter().all(|c| c.1 == admin));
    let (status, r) = change(&app, &app.admin, 999_999, "disable", json!({})).await;
    assert_eq!((status, code(&r)), (StatusCode::NOT_FOUND, "no_user"), "{r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_password_reset_ends_every_session_and_only_the_new_password_signs_in() {
    let app = spawn_app().await;
    let id = create(&app, "pam", "player", "first").await;
    let t1 = sign_in(&app, "pam", "first").await.1["token"].as_str().unwrap().to_string();
    let t2 = sign_in(&app, "pam", "first").await.1["token"].as_str().unwrap().to_string();
    let (status, r) = change(&app, &app.admin, id, "password", json!({ "password": "second" })).await;
    assert_eq!((status, r), (StatusCode::OK, json!({ "id": id, "sessions_ended": 2 })));
    for t in [&t1, &t2] {
        assert_eq!(me(&app, t).await.0, StatusCode::UNAUTHORIZED);
    }
    assert_eq!(sign_in(&app, "pam", "first").await.0, StatusCode::UNAUTHORIZED);
    assert_eq!(sign_in(&app, "pam", "second").await.0, StatusCode::OK);
    let recorded: Vec<UserChange> = changes_of(&app, id).into_iter().map(|c| c.0).collect();
    assert_eq!(recorded, [UserChange::Created { role: Role::Player }, UserChange::PasswordReset]);
    let (status, r) = change(&app, &app.admin, id, "password", json!({ "password": "abc" })).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{r}");
    assert!(r["error"].as_str().unwrap().starts_with("password:"), "{r}");
    let (status, r) = change(&app, &app.admin, 999_999, "password", json!({ "password": "long-enough" })).await;
    assert_eq!((status, code(&r)), (StatusCode::NOT_FOUND, "no_user"), "{r}");
    assert_eq!(sign_in(&app, "pam", "second").await.0, StatusCode::OK, "refusals changed nothing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_role_change_ends_sessions_and_the_next_sign_in_has_the_new_role() {
    let app = spawn_app().await;
    let admin = id_of(&app, &app.admin).await;
    let id = create(&app, "rob", "dealer", "pass").await;
    let token = sign_in(&app, "rob", "pass").await.1["token"].as_str().unwrap().to_string();
    let (status, r) = change(&app, &app.admin, id, "role", json!({ "role": "supervisor" })).await;
    assert_eq!(status, StatusCode::OK, "{r}");
    assert_eq!(r, json!({ "id": id, "name": "rob", "role": "supervisor", "disabled": false }));
    assert_eq!(me(&app, &token).await.0, StatusCode::UNAUTHORIZED);
    let token = sign_in(&app, "rob", "pass").await.1["token"].as_str().unwrap().to_string();
    assert_eq!(me(&app, &token).await.1["role"], "supervisor");
    let last = changes_of(&app, id).pop().unwrap();
    assert_eq!(last, (UserChange::RoleChanged { from: Role::Dealer, to: Role::Supervisor }, admin, "rob".into()));
    let (status, r) = change(&app, &app.admin, id, "role", json!({ "role": "king" })).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{r}");
    assert!(r["error"].as_str().unwrap().starts_with("role:"), "{r}");
    assert_eq!(me(&app, &token).await.0, StatusCode::OK, "a refused change ends no session");
}

/// Everyone but an admin calling each admin route (a player and a dealer
/// first among them, and no session at all): refused, and nothing of the
/// target or the chain changes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn players_and_dealers_calling_the_admin_routes_are_refused_and_change_nothing() {
    let app = spawn_app().await;
    let target = create(&app, "target", "supervisor", "pass").await;
    let callers = ["player", "dealer", "supervisor", "inspector", "tournament_manager"];
    for role in callers {
        create(&app, &format!("m-{role}"), role, "pass").await;
    }
    let before = listed(&app, target).await;
    let recorded = changes_of(&app, target);
    let mut tokens: Vec<(&str, Option<String>)> = vec![("public", None)];
    for role in callers {
        let token = sign_in(&app, &format!("m-{role}"), "pass").await.1["token"].as_str().unwrap().to_string();
        tokens.push((role, Some(token)));
    }
    for (role, token) in &tokens {
        let attempts = [
            ("/api/users".to_string(), json!({ "name": format!("{role}-made"), "role": "admin", "password": "pass" })),
            (format!("/api/users/{target}/disable"), json!({})),
            (format!("/api/users/{target}/enable"), json!({})),
            (format!("/api/users/{target}/password"), json!({ "password": "taken-over" })),
            (format!("/api/users/{target}/role"), json!({ "role": "player" })),
        ];
        for (path, body) in attempts {
            let (status, r) = app.post(&path, token.as_deref(), body).await;
            let want = if token.is_some() { StatusCode::FORBIDDEN } else { StatusCode::UNAUTHORIZED };
            assert_eq!(status, want, "{role} {path}: {r}");
        }
        let Some(token) = token else { continue };
        // Nor on themselves: no one promotes themself.
        let own = id_of(&app, token).await;
        let (status, _) = change(&app, token, own, "role", json!({ "role": "admin" })).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{role}");
        assert_eq!(me(&app, token).await.1["role"], *role);
    }
    assert_eq!(listed(&app, target).await, before);
    assert_eq!(changes_of(&app, target), recorded);
    assert_eq!(sign_in(&app, "target", "pass").await.0, StatusCode::OK, "the password is still theirs");
    let (_, made) = app.get("/api/users?q=-made", Some(&app.admin)).await;
    assert_eq!(made["users"], json!([]), "no one was created");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_last_enabled_admin_cannot_disable_or_demote_themself() {
    let app = spawn_app().await;
    let me_id = id_of(&app, &app.admin).await;
    // Every other admin of the casino (the demo's) disabled first.
    let (_, admins) = app.get("/api/users?role=admin&limit=500", Some(&app.admin)).await;
    for a in admins["users"].as_array().unwrap() {
        let id = a["id"].as_u64().unwrap() as u32;
        if id != me_id {
            assert_eq!(change(&app, &app.admin, id, "disable", json!({})).await.0, StatusCode::OK);
        }
    }
    let (status, r) = change(&app, &app.admin, me_id, "disable", json!({})).await;
    assert_eq!((status, code(&r)), (StatusCode::CONFLICT, "last_admin"), "{r}");
    let (status, r) = change(&app, &app.admin, me_id, "role", json!({ "role": "inspector" })).await;
    assert_eq!((status, code(&r)), (StatusCode::CONFLICT, "last_admin"), "{r}");
    let (status, who) = me(&app, &app.admin).await;
    assert_eq!((status, &who["role"]), (StatusCode::OK, &json!("admin")), "still signed in, still admin");
    assert_eq!(listed(&app, me_id).await["disabled"], false);
    assert!(changes_of(&app, me_id).is_empty(), "a refusal records nothing");

    // A second admin: now one of the two may go, but not by their own hand.
    let second = create(&app, "second", "admin", "pass").await;
    for (what, body) in [("disable", json!({})), ("role", json!({ "role": "dealer" }))] {
        let (status, r) = change(&app, &app.admin, me_id, what, body).await;
        assert_eq!((status, code(&r)), (StatusCode::CONFLICT, "own_account"), "{what}: {r}");
    }
    let (status, r) = change(&app, &app.admin, me_id, "password", json!({ "password": "my-own" })).await;
    assert_eq!((status, code(&r)), (StatusCode::CONFLICT, "own_account"), "{r}");
    let token = sign_in(&app, "second", "pass").await.1["token"].as_str().unwrap().to_string();
    let (status, r) = change(&app, &token, me_id, "role", json!({ "role": "inspector" })).await;
    assert_eq!(status, StatusCode::OK, "{r}");
    assert_eq!(me(&app, &app.admin).await.0, StatusCode::UNAUTHORIZED, "the demoted admin's session ended");
    let (status, r) = change(&app, &token, second, "disable", json!({})).await;
    assert_eq!((status, code(&r)), (StatusCode::CONFLICT, "last_admin"), "{r}");
    assert_eq!(me(&app, &token).await.1["role"], "admin");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_bodies_are_refused_naming_the_field_and_change_nothing() {
    let app = spawn_app().await;
    let cases = [
        (json!({ "name": "", "role": "dealer", "password": "pass" }), StatusCode::BAD_REQUEST, "name"),
        (json!({ "name": "x".repeat(65), "role": "dealer", "password": "pass" }), StatusCode::BAD_REQUEST, "name"),
        (json!({ "name": " admin", "role": "dealer", "password": "pass" }), StatusCode::BAD_REQUEST, "name"),
        (json!({ "name": "a\u{7}b", "role": "dealer", "password": "pass" }), StatusCode::BAD_REQUEST, "name"),
        (json!({ "name": "ok", "role": "king", "password": "pass" }), StatusCode::BAD_REQUEST, "role"),
        (json!({ "name": "ok", "role": "dealer", "password": "abc" }), StatusCode::BAD_REQUEST, "password"),
        (json!({ "name": "ok", "role": "dealer", "password": "p".repeat(129) }), StatusCode::BAD_REQUEST, "password"),
        (json!({ "name": "ok", "role": "dealer" }), StatusCode::UNPROCESSABLE_ENTITY, "password"),
        (
            json!({ "name": "ok", "role": "dealer", "password": "pass", "admin": true }),
            StatusCode::UNPROCESSABLE_ENTITY,
            "admin",
        ),
    ];
    for (body, status, field) in cases {
        let (got, r) = app.post("/api/users", Some(&app.admin), body.clone()).await;
        assert_eq!(got, status, "{body}: {r}");
        assert!(r["error"].as_str().unwrap().contains(field), "{body}: {r}");
    }
    let (_, none) = app.get("/api/users?q=ok", Some(&app.admin)).await;
    assert_eq!(none["users"], json!([]), "nothing was created");
    let id = create(&app, "ok", "dealer", "pass").await;
    let (status, r) = change(&app, &app.admin, id, "disable", json!({ "why": "x" })).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{r}");
    let (status, r) = change(&app, &app.admin, id, "role", json!({})).await;
    assert!(status == StatusCode::UNPROCESSABLE_ENTITY && r["error"].as_str().unwrap().contains("role"), "{r}");
    let (status, r) = app.post("/api/users/not-a-number/disable", Some(&app.admin), json!({})).await;
    assert!(status == StatusCode::BAD_REQUEST && r["error"].as_str().unwrap().starts_with("id:"), "{r}");
    assert_eq!(listed(&app, id).await["disabled"], false);
    assert_eq!(changes_of(&app, id).len(), 1, "only the creation");
}

/// A disabled player is paid nothing into; their wager already on the
/// layout settles as any other, and the wallet is theirs again once enabled.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_disabled_players_deposit_is_refused_and_their_open_wager_settles() {
    let app = spawn_app().await;
    let id = create(&app, "penny", "player", "pass").await;
    let (status, r) = deposit(&app, id, 100_000, "d-1").await;
    assert_eq!((status, &r["balance"]), (StatusCode::OK, &json!(100_000)), "{r}");
    let token = sign_in(&app, "penny", "pass").await.1["token"].as_str().unwrap().to_string();
    app.until_phase(3, "betting").await;
    let (status, w) =
        app.post("/api/tables/3/wagers", Some(&token), json!({ "bet": "player", "amount": 2500, "key": "w-1" })).await;
    assert_eq!(status, StatusCode::OK, "{w}");
    let coup = app.get("/api/tables/3", None).await.1["coup"].as_u64().unwrap();
    assert_eq!(change(&app, &app.admin, id, "disable", json!({})).await.0, StatusCode::OK);
    let (status, r) = deposit(&app, id, 50_000, "d-2").await;
    assert_eq!((status, code(&r)), (StatusCode::CONFLICT, "disabled"), "{r}");
    // The coup settles with the wager in it.
    for _ in 0..1500 {
        let (_, t) = app.get("/api/tables/3", None).await;
        if t["coup"].as_u64().unwrap() > coup || t["phase"] == "ready" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(change(&app, &app.admin, id, "enable", json!({})).await.0, StatusCode::OK);
    let token = sign_in(&app, "penny", "pass").await.1["token"].as_str().unwrap().to_string();
    let mut who = me(&app, &token).await.1;
    for _ in 0..500 {
        if who["available"] == who["balance"] {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        who = me(&app, &token).await.1;
    }
    let balance = who["balance"].as_i64().unwrap();
    assert_eq!(who["available"], balance, "no stake held: the wager settled");
    assert!([97_500, 100_000, 102_500].contains(&balance), "{balance}: the refused deposit is not in it");
    let (_, history) = app.get("/api/me/history", Some(&token)).await;
    assert!(history["history"].as_array().unwrap().iter().any(|h| h["line"]["wager"] == w["wager"]), "{history}");
    // Enabled, they are paid into again; the refused key was never bound.
    let (status, r) = deposit(&app, id, 50_000, "d-2").await;
    assert_eq!((status, r["balance"].as_i64()), (StatusCode::OK, Some(balance + 50_000)), "{r}");
    // The records of the changes verify with the rest.
    let (_, v) = app.get("/api/verify", Some(&app.admin)).await;
    assert_eq!(v["ok"], true, "{v}");
}
