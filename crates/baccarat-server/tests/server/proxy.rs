//! Behind a trusted proxy (`proxy.rs`, issue 48): sign-in limits count the
//! proxy's clients, not the proxy, so one stranger's guesses lock no one
//! else out; a cookie sent over https is `Secure`; and the headers of a
//! connection not from a trusted proxy are not believed.

use reqwest::StatusCode;
use serde_json::json;

use super::common::{spawn_app_with, App};

/// `POST /api/login` as sent by the proxy for client `ip` over `proto`.
async fn login_via(app: &App, ip: &str, proto: &str, password: &str) -> reqwest::Response {
    app.client
        .post(format!("{}/api/login", app.base))
        .header("x-forwarded-for", ip)
        .header("x-forwarded-proto", proto)
        .json(&json!({ "name": "player1", "password": password }))
        .send()
        .await
        .unwrap()
}

/// A server whose clock stands still (no limit refills, however slow the
/// machine), trusting the test's own loopback address as its proxy or not.
async fn app(trusting: bool) -> App {
    let t0 = 1_780_000_000_000;
    spawn_app_with(move |c| {
        c.clock = std::sync::Arc::new(move || t0);
        if trusting {
            c.trusted_proxies = vec!["127.0.0.1".parse().unwrap()];
        }
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_strangers_guesses_lock_out_only_the_stranger_behind_a_trusted_proxy() {
    let app = app(true).await;
    let burst = baccarat_server::ADDRESS_BURST;
    let mut last = StatusCode::OK;
    for _ in 0..=burst {
        last = login_via(&app, "203.0.113.5", "https", "wrong").await.status();
    }
    assert_eq!(last, StatusCode::TOO_MANY_REQUESTS, "the stranger is limited");
    let r = login_via(&app, "203.0.113.6", "https", "demo").await;
    assert_eq!(r.status(), StatusCode::OK, "another player signs in");
    let cookie = r.headers()["set-cookie"].to_str().unwrap().to_string();
    assert!(cookie.contains("; Secure"), "{cookie}");
    let r = login_via(&app, "203.0.113.7", "http", "demo").await;
    assert!(!r.headers()["set-cookie"].to_str().unwrap().contains("Secure"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_trust_the_headers_are_not_believed() {
    let app = app(false).await;
    for _ in 0..=baccarat_server::ADDRESS_BURST {
        login_via(&app, "203.0.113.5", "https", "wrong").await;
    }
    // Every request is the loopback's: a forged X-Forwarded-For escapes nothing.
    let r = login_via(&app, "203.0.113.6", "https", "demo").await;
    assert_eq!(r.status(), StatusCode::TOO_MANY_REQUESTS);
}
