//! The load workers: each sends bet slips for the seated players in turn, as
//! fast as the server answers, retrying a 429 or 503 under the same key, and
//! classifies and counts every answer.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::setup::Player;
use super::stats::{Outcome, Stats};
use super::Shared;

/// One load worker: bet slips from the players in turn until told to stop.
pub(super) async fn load_worker(
    c: reqwest::Client,
    url: String,
    w: usize,
    slip: usize,
    players: Arc<Vec<Player>>,
    shared: Arc<Shared>,
) -> Stats {
    let mut stats = Stats::default();
    let mut n = 0u64;
    // A request to send again (429/503) under the same key: (player, key).
    let mut again: Option<(usize, String)> = None;
    while !shared.stop.load(Ordering::Relaxed) {
        let (pi, key) = again.take().unwrap_or_else(|| {
            let pi = (w + n as usize * 7919) % players.len();
            n += 1;
            (pi, format!("{w}-{n}"))
        });
        let p = &players[pi];
        // The same slip for the same key (Banker and Tie in turn by the key's number).
        let parity = key.rsplit('-').next().and_then(|s| s.parse::<usize>().ok()).unwrap_or(0);
        let wagers: Vec<Value> = (0..slip)
            .map(|i| json!({"bet": if (parity + i) % 2 == 0 { "banker" } else { "tie" }, "amount": p.min}))
            .collect();
        let body = json!({"wagers": wagers, "spot": p.seat, "key": key});
        let (outcome, status, us, answer) =
            timed(c.post(format!("{url}/api/tables/{}/wagers", p.table)).bearer_auth(&p.token).json(&body)).await;
        stats.add(outcome, status, us);
        match outcome {
            Outcome::RateLimited => {
                let wait = answer["retry_after_ms"].as_u64().unwrap_or(10).clamp(1, 1000);
                tokio::time::sleep(Duration::from_millis(wait)).await;
                again = Some((pi, key));
            }
            Outcome::Busy => {
                tokio::time::sleep(Duration::from_millis(5)).await;
                again = Some((pi, key));
            }
            Outcome::Error => tokio::time::sleep(Duration::from_millis(5)).await,
            _ => {}
        }
        let (ok, refused, closed) = wager_counts(status, &answer, slip);
        shared.accepted.fetch_add(ok, Ordering::Relaxed);
        shared.refused.fetch_add(refused, Ordering::Relaxed);
        shared.refused_closed.fetch_add(closed, Ordering::Relaxed);
        shared.per_table[p.index].fetch_add(ok, Ordering::Relaxed);
    }
    stats
}

/// Send a wager request and classify its answer. Returns the outcome, the
/// HTTP status, the microseconds until the whole answer was read, and the
/// answer's JSON (null if none).
pub(super) async fn timed(r: reqwest::RequestBuilder) -> (Outcome, Option<u16>, u64, Value) {
    let t0 = Instant::now();
    let resp = r.send().await;
    let (status, body) = match resp {
        Ok(resp) => {
            let status = resp.status().as_u16();
            (Some(status), resp.bytes().await.ok())
        }
        Err(_) => (None, None),
    };
    let us = t0.elapsed().as_micros().min(u64::MAX as u128) as u64;
    let answer: Value = body.as_deref().and_then(|b| serde_json::from_slice(b).ok()).unwrap_or(Value::Null);
    let outcome = match status {
        None => Outcome::Error,
        Some(_) if answer.is_null() => Outcome::Error,
        Some(200..=299) => {
            if answer["result"] == "wager" {
                Outcome::Accepted
            } else {
                let results = answer["results"].as_array().map_or(&[][..], Vec::as_slice);
                if results.iter().any(|r| r["result"] == "wager") {
                    Outcome::Accepted
                } else if !results.is_empty() && results.iter().all(closed) {
                    Outcome::BettingClosed
                } else {
                    Outcome::Refused
                }
            }
        }
        Some(429) => Outcome::RateLimited,
        Some(503) => Outcome::Busy,
        Some(_) if closed(&answer) => Outcome::BettingClosed,
        Some(400..=499) => Outcome::Refused,
        Some(_) => Outcome::Error,
    };
    (outcome, status, us, answer)
}

/// Whether a refusal (a slip's line, or a whole answer) says betting is not open.
fn closed(r: &Value) -> bool {
    let text = r["message"].as_str().or(r["error"].as_str()).unwrap_or_default();
    text.contains("betting is not open") || text.contains("wagers are closed") || text.contains("betting closed")
}

/// Wagers accepted, refused, and refused because betting was closed, in one
/// answer to a slip of `slip` wagers. A 429 or 503 is sent again and counts
/// nothing; any other refusal of the whole request refuses every wager.
fn wager_counts(status: Option<u16>, answer: &Value, slip: usize) -> (u64, u64, u64) {
    match status {
        Some(200..=299) => {
            let results = answer["results"].as_array().map_or(&[][..], Vec::as_slice);
            let ok = results.iter().filter(|r| r["result"] == "wager").count() as u64;
            let closed = results.iter().filter(|r| r["result"] != "wager" && closed(r)).count() as u64;
            (ok, results.len() as u64 - ok, closed)
        }
        None | Some(429) | Some(503) => (0, 0, 0),
        Some(_) => (0, slip as u64, if closed(answer) { slip as u64 } else { 0 }),
    }
}
