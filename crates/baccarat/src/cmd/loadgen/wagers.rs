//! The load workers: each sends bet slips for the seated players in turn, as
//! fast as the server answers, on a connection of its own (`conn.rs`),
//! retrying a 429 or 503 under the same key, and classifies and counts every
//! answer.

use std::fmt::Write as _;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Deserialize;

use super::conn::{Conn, Target};
use super::setup::Player;
use super::stats::{Outcome, Stats};
use super::Shared;

/// One load worker: bet slips from the players in turn until told to stop.
/// What does not change between requests (each player's address and
/// credentials) is made once: `loadgen` shares the machine with the server,
/// and every microsecond it spends is one the server does not get.
pub(super) async fn load_worker(
    url: String,
    w: usize,
    slip: usize,
    players: Arc<Vec<Player>>,
    shared: Arc<Shared>,
) -> Stats {
    let mut stats = Stats::default();
    let mut n = 0u64;
    let mut conn = Conn::new(Target::of(&url).expect("a loopback http:// URL (checked at the start)"));
    let to: Vec<(String, String)> =
        players.iter().map(|p| (format!("/api/tables/{}/wagers", p.table), format!("Bearer {}", p.token))).collect();
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
        let body = slip_body(slip, parity, p.min, p.seat, &key);
        let (path, auth) = &to[pi];
        let t0 = Instant::now();
        let answer = conn.post(path, auth, body.as_bytes()).await;
        let us = t0.elapsed().as_micros().min(u64::MAX as u128) as u64;
        let (status, answer) = match answer {
            Ok(a) => (Some(a.status), serde_json::from_slice::<Answer>(&a.body).ok()),
            Err(_) => (None, None),
        };
        let outcome = classify(status, answer.as_ref());
        stats.add(outcome, status, us);
        match outcome {
            Outcome::RateLimited => {
                let wait = answer.as_ref().and_then(|a| a.retry_after_ms).unwrap_or(10).clamp(1, 1000);
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
        let (ok, refused, closed) = wager_counts(status, answer.as_ref(), slip);
        shared.accepted.fetch_add(ok, Ordering::Relaxed);
        shared.refused.fetch_add(refused, Ordering::Relaxed);
        shared.refused_closed.fetch_add(closed, Ordering::Relaxed);
        shared.per_table[p.index].fetch_add(ok, Ordering::Relaxed);
    }
    stats
}

/// A slip of `slip` wagers at the player's minimum, Banker and Tie in turn
/// from `parity`, as the server's JSON. (The key is `loadgen`'s own, digits
/// and a dash: nothing in it needs escaping.)
fn slip_body(slip: usize, parity: usize, min: i64, seat: u8, key: &str) -> String {
    let mut body = String::with_capacity(64 + 40 * slip);
    body.push_str(r#"{"wagers":["#);
    for i in 0..slip {
        let bet = if (parity + i) % 2 == 0 { "banker" } else { "tie" };
        if i > 0 {
            body.push(',');
        }
        let _ = write!(body, r#"{{"bet":"{bet}","amount":{min}}}"#);
    }
    let _ = write!(body, r#"],"spot":{seat},"key":"{key}"}}"#);
    body
}

/// The parts of an answer `loadgen` reads (the rest is skipped unread).
#[derive(Debug, Default, Deserialize)]
pub(super) struct Answer {
    result: Option<String>,
    #[serde(default)]
    results: Vec<Line>,
    message: Option<String>,
    error: Option<String>,
    retry_after_ms: Option<u64>,
}

/// One line of a slip's answer.
#[derive(Debug, Deserialize)]
struct Line {
    result: Option<String>,
    message: Option<String>,
    error: Option<String>,
}

impl Line {
    fn placed(&self) -> bool {
        self.result.as_deref() == Some("wager")
    }
}

/// Send a wager request and classify its answer. Returns the outcome, the
/// HTTP status, the microseconds until the whole answer was read, and the
/// answer (none if it was not JSON of an answer's shape).
pub(super) async fn timed(r: reqwest::RequestBuilder) -> (Outcome, Option<u16>, u64, Option<Answer>) {
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
    let answer: Option<Answer> = body.as_deref().and_then(|b| serde_json::from_slice(b).ok());
    (classify(status, answer.as_ref()), status, us, answer)
}

/// What an answer (its status, and its body if JSON of an answer's shape) was.
fn classify(status: Option<u16>, answer: Option<&Answer>) -> Outcome {
    match (status, answer) {
        (None, _) | (Some(_), None) => Outcome::Error,
        (Some(200..=299), Some(a)) => {
            if a.result.as_deref() == Some("wager") || a.results.iter().any(Line::placed) {
                Outcome::Accepted
            } else if !a.results.is_empty() && a.results.iter().all(|l| closed(&l.message, &l.error)) {
                Outcome::BettingClosed
            } else {
                Outcome::Refused
            }
        }
        (Some(429), _) => Outcome::RateLimited,
        (Some(503), _) => Outcome::Busy,
        (Some(_), Some(a)) if closed(&a.message, &a.error) => Outcome::BettingClosed,
        (Some(400..=499), _) => Outcome::Refused,
        (Some(_), _) => Outcome::Error,
    }
}

/// Whether a refusal (a slip's line, or a whole answer) says betting is not open.
fn closed(message: &Option<String>, error: &Option<String>) -> bool {
    let text = message.as_deref().or(error.as_deref()).unwrap_or_default();
    text.contains("betting is not open") || text.contains("wagers are closed") || text.contains("betting closed")
}

/// Wagers accepted, refused, and refused because betting was closed, in one
/// answer to a slip of `slip` wagers. A 429 or 503 is sent again and counts
/// nothing; any other refusal of the whole request refuses every wager.
fn wager_counts(status: Option<u16>, answer: Option<&Answer>, slip: usize) -> (u64, u64, u64) {
    match status {
        Some(200..=299) => {
            let lines = answer.map_or(&[][..], |a| a.results.as_slice());
            let ok = lines.iter().filter(|l| l.placed()).count() as u64;
            let closed = lines.iter().filter(|l| !l.placed() && closed(&l.message, &l.error)).count() as u64;
            (ok, lines.len() as u64 - ok, closed)
        }
        None | Some(429) | Some(503) => (0, 0, 0),
        Some(_) => {
            let closed = answer.is_some_and(|a| closed(&a.message, &a.error));
            (0, slip as u64, if closed { slip as u64 } else { 0 })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slip_is_the_json_the_server_reads() {
        for (slip, parity) in [(1, 0), (4, 0), (4, 1), (7, 3)] {
            let body: serde_json::Value = serde_json::from_str(&slip_body(slip, parity, 2500, 3, "12-345")).unwrap();
            let wagers: Vec<serde_json::Value> = (0..slip)
                .map(|i| serde_json::json!({"bet": if (parity + i) % 2 == 0 { "banker" } else { "tie" }, "amount": 2500}))
                .collect();
            assert_eq!(body, serde_json::json!({"wagers": wagers, "spot": 3, "key": "12-345"}));
        }
    }

    #[test]
    fn answers_are_classified_and_their_wagers_counted() {
        let read = |s: &str| serde_json::from_str::<Answer>(s).ok();
        let placed = read(
            r#"{"results":[{"result":"wager","wager":{"id":1}},{"result":"refused","message":"over the limit"}]}"#,
        );
        assert_eq!(classify(Some(200), placed.as_ref()), Outcome::Accepted);
        assert_eq!(wager_counts(Some(200), placed.as_ref(), 2), (1, 1, 0));
        let closed = read(
            r#"{"results":[{"result":"refused","message":"betting is not open"},{"result":"refused","error":"betting closed"}]}"#,
        );
        assert_eq!(classify(Some(200), closed.as_ref()), Outcome::BettingClosed);
        assert_eq!(wager_counts(Some(200), closed.as_ref(), 2), (0, 2, 2));
        let whole = read(r#"{"error":"bad_request","message":"wagers are closed at this table"}"#);
        assert_eq!(classify(Some(409), whole.as_ref()), Outcome::BettingClosed);
        assert_eq!(wager_counts(Some(409), whole.as_ref(), 4), (0, 4, 4));
        let refused = read(r#"{"error":"forbidden","message":"a player may not do this"}"#);
        assert_eq!(classify(Some(403), refused.as_ref()), Outcome::Refused);
        assert_eq!(wager_counts(Some(403), refused.as_ref(), 4), (0, 4, 0));
        let limited = read(r#"{"error":"too_many_requests","retry_after_ms":40}"#);
        assert_eq!(classify(Some(429), limited.as_ref()), Outcome::RateLimited);
        assert_eq!(limited.unwrap().retry_after_ms, Some(40));
        assert_eq!(wager_counts(Some(429), None, 4), (0, 0, 0));
        assert_eq!(classify(Some(200), read("not json").as_ref()), Outcome::Error);
        assert_eq!(classify(Some(500), read("{}").as_ref()), Outcome::Error);
        assert_eq!(classify(None, None), Outcome::Error);
        let single = read(r#"{"result":"wager","wager":{"id":9}}"#);
        assert_eq!(classify(Some(200), single.as_ref()), Outcome::Accepted);
    }
}
