//! The probe: one player alone at a quiet table, wagering on a fixed schedule
//! (an open loop) for the whole run, so that what a player elsewhere waits
//! while the server is busy is measured, stalls and all.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;

use super::stats::Stats;
use super::wagers::timed;
use super::Shared;

/// Most probe wagers waiting for their answers at once; beyond it a tick is
/// skipped (and counted).
const PROBE_IN_FLIGHT: usize = 1024;

/// The probe: one small wager every `every` at its own table, sent on schedule
/// whether or not earlier ones were answered; every answer timed.
pub(super) async fn probe_run(
    url: String,
    table: u32,
    token: String,
    every: Duration,
    run_id: String,
    shared: Arc<Shared>,
    mut stop: tokio::sync::watch::Receiver<bool>,
) -> Stats {
    // Its own connections: a player elsewhere does not share the load's pool.
    let c = reqwest::Client::new();
    let stats = Arc::new(Mutex::new(Stats::default()));
    let in_flight = Arc::new(AtomicUsize::new(0));
    let mut set = tokio::task::JoinSet::new();
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut n = 0u64;
    let mut skipped = 0u64;
    while !shared.stop.load(Ordering::Relaxed) {
        tokio::select! {
            _ = tick.tick() => {}
            _ = stop.wait_for(|s| *s) => break,
        }
        while set.try_join_next().is_some() {}
        if in_flight.load(Ordering::Relaxed) >= PROBE_IN_FLIGHT {
            skipped += 1;
            continue;
        }
        n += 1;
        let req = c
            .post(format!("{url}/api/tables/{table}/wagers"))
            .bearer_auth(&token)
            .json(&json!({"bet": "banker", "amount": 100, "spot": 1, "key": format!("probe-{run_id}-{n}")}));
        let (stats, in_flight) = (stats.clone(), in_flight.clone());
        in_flight.fetch_add(1, Ordering::Relaxed);
        set.spawn(async move {
            let (outcome, status, us, _) = timed(req).await;
            stats.lock().expect("probe stats").add(outcome, status, us);
            in_flight.fetch_sub(1, Ordering::Relaxed);
        });
    }
    // The wagers still waiting are answered (or time out) and counted.
    let _ = tokio::time::timeout(Duration::from_secs(60), async { while set.join_next().await.is_some() {} }).await;
    set.abort_all();
    let mut s = std::mem::take(&mut *stats.lock().expect("probe stats"));
    s.skipped = skipped;
    s
}
