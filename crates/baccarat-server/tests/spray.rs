//! A password spray against sign-in (issue 11): thousands of wrong passwords,
//! 80 at a time, from several addresses, on real and unknown names. Before, 80
//! parallel guesses took the server from 166 MB to 3.5 GB and held the users
//! lock while hashing, so a real user waited 3.3 s. Now memory grows by less
//! than 64 MB and a real user, from an address that has not failed, signs in
//! during the spray.
//!
//! Alone in its binary: it measures this process's resident memory.

#[path = "server/common.rs"]
mod common;

use std::net::{IpAddr, Ipv4Addr};
use std::time::{Duration, Instant};

use common::spawn_app;
use futures_util::stream::{self, StreamExt};
use reqwest::StatusCode;
use serde_json::json;

/// This process's resident set, in bytes.
fn rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    kb * 1024
}

const ATTEMPTS: usize = 2_000;
const PARALLEL: usize = 80;
const ADDRESSES: u8 = 8;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spray_of_wrong_passwords_keeps_memory_bounded_and_lets_a_real_user_in() {
    let app = spawn_app().await;
    // Warm up: the pool's threads have hashed, the dummy hash exists.
    for _ in 0..4 {
        app.login("player5", "demo").await;
    }
    let before = rss();
    let attackers: Vec<reqwest::Client> = (0..ADDRESSES)
        .map(|i| {
            reqwest::Client::builder().local_address(IpAddr::V4(Ipv4Addr::new(127, 0, 0, 10 + i))).build().unwrap()
        })
        .collect();
    let base = app.base.clone();
    let spray = stream::iter(0..ATTEMPTS)
        .map(move |i| {
            let c = attackers[i % attackers.len()].clone();
            let name = if i % 2 == 0 { format!("player{}", 1 + i % 4) } else { format!("nobody{i}") };
            let url = format!("{base}/api/login");
            async move {
                let r = c.post(url).json(&json!({"name": name, "password": format!("guess{i}")})).send().await;
                r.map(|r| r.status()).ok()
            }
        })
        .buffer_unordered(PARALLEL)
        .collect::<Vec<_>>();
    let spray = tokio::spawn(spray);
    // While it runs, a real user signs in from their own address.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let real = reqwest::Client::builder().local_address(IpAddr::V4(Ipv4Addr::LOCALHOST)).build().unwrap();
    let t0 = Instant::now();
    let r =
        real.post(format!("{}/api/login", app.base)).json(&json!({"name": "player1", "password": "demo"})).send().await;
    let latency = t0.elapsed();
    let status = r.unwrap().status();
    let spray_done = spray.is_finished();
    let codes = spray.await.unwrap();
    let after = rss();
    let count = |s: StatusCode| codes.iter().filter(|c| **c == Some(s)).count();
    println!(
        "spray: {ATTEMPTS} attempts, {PARALLEL} at a time, from {ADDRESSES} addresses: 401 x{}, 429 x{}, 503 x{}; RSS {} MB -> {} MB (+{} MB); real user's sign-in {} ms ({})",
        count(StatusCode::UNAUTHORIZED),
        count(StatusCode::TOO_MANY_REQUESTS),
        count(StatusCode::SERVICE_UNAVAILABLE),
        before >> 20,
        after >> 20,
        after.saturating_sub(before) >> 20,
        latency.as_millis(),
        if spray_done { "after the spray ended" } else { "during the spray" },
    );
    assert_eq!(status, StatusCode::OK, "the real user signs in during the spray");
    assert!(latency < Duration::from_millis(1500), "the real user waited {latency:?}");
    assert!(after.saturating_sub(before) < 64 << 20, "RSS grew {} MB", after.saturating_sub(before) >> 20);
    assert_eq!(codes.len(), ATTEMPTS);
    assert!(codes.iter().all(|c| c.is_some_and(|s| s != StatusCode::OK)), "no guess succeeded");
    // Only a few guesses were hashed (401); the rest were refused before
    // hashing, by a limit (429) or a full queue (503).
    assert!(count(StatusCode::UNAUTHORIZED) < ATTEMPTS / 10, "hashed {}", count(StatusCode::UNAUTHORIZED));
    assert_eq!(
        count(StatusCode::UNAUTHORIZED) + count(StatusCode::TOO_MANY_REQUESTS) + count(StatusCode::SERVICE_UNAVAILABLE),
        ATTEMPTS
    );
}
