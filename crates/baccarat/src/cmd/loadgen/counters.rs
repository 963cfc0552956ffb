//! `--counters N`: card counters among the load (issue 50, part 4). N more
//! players at each load table, each wagering the table minimum on Banker at
//! every coup as cover and ten times it on the Player Pair only at coups
//! where the pair's EV from the cards shown is positive: the player the
//! surveillance report is meant to find.
//!
//! A real counter computes the EV from the table's public feed (every card
//! it shows). The simulated one reads the same figure from the exposure
//! monitor (`GET /api/tables/{id}/exposure`, with the admin's session), which
//! prices exactly what the feed shows: the betting pattern is the same, and
//! loadgen spends no time counting. The load players are the flat bettors:
//! Banker and Tie at the minimum, whatever the shoe.
//!
//! After the run, loadgen reads the surveillance report of the server's
//! gaming day (`GET /api/protection`) and counts who was flagged: the
//! counters, and any of the other players of the run (false alarms).

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use serde_json::{json, Value};

/// How often a counter looks at its table.
const LOOK_EVERY: Duration = Duration::from_millis(100);

/// One counter: their table and its minimum, and their session.
#[derive(Clone)]
pub(super) struct Counter {
    pub(super) table: u32,
    /// Their box: past the load players' (a box seats one player).
    pub(super) seat: u8,
    pub(super) min: i64,
    pub(super) player: u64,
    pub(super) token: String,
}

/// What the counters did.
#[derive(Debug, Default)]
pub(super) struct Counted {
    /// Coups the counters wagered at, and Player Pairs among them.
    pub(super) coups: AtomicU64,
    pub(super) pairs: AtomicU64,
    /// Wagers refused, by the server's words (the first few kinds).
    pub(super) refused: std::sync::Mutex<std::collections::BTreeMap<String, u64>>,
}

impl Counted {
    /// A slip's answer: the coup counted if a wager stood, the pair if it
    /// did, and each refusal by its words.
    fn answer(&self, a: &Value) {
        let lines = a["results"].as_array().cloned().unwrap_or_else(|| vec![a.clone()]);
        let placed = |l: &Value| l["result"] == "wager";
        if lines.iter().any(placed) {
            self.coups.fetch_add(1, Ordering::Relaxed);
        }
        if lines.get(1).is_some_and(placed) {
            self.pairs.fetch_add(1, Ordering::Relaxed);
        }
        let mut refused = self.refused.lock().unwrap_or_else(|p| p.into_inner());
        for l in lines.iter().filter(|l| !placed(l)) {
            let words = l["message"].as_str().or(l["error"].as_str()).unwrap_or("?").to_string();
            if refused.len() < 16 || refused.contains_key(&words) {
                *refused.entry(words).or_default() += 1;
            }
        }
    }
}

/// A counter's loop until `stop`: at each coup's betting, Banker, and the
/// Player Pair when its EV is positive.
pub(super) async fn count(
    c: reqwest::Client,
    url: String,
    admin: String,
    me: Counter,
    shared: Arc<super::Shared>,
    n: Arc<Counted>,
) {
    let mut last: Option<(u64, u64)> = None;
    while !shared.stop.load(Ordering::Relaxed) {
        tokio::time::sleep(LOOK_EVERY).await;
        let Ok(t) = get(&c, &format!("{url}/api/tables/{}", me.table), None).await else { continue };
        let at = (t["shoe"].as_u64().unwrap_or(0), t["coup"].as_u64().unwrap_or(0));
        if t["phase"] != "betting" || last == Some(at) {
            continue;
        }
        let Ok(x) = get(&c, &format!("{url}/api/tables/{}/exposure", me.table), Some(&admin)).await else { continue };
        let positive = x["offers"]
            .as_array()
            .and_then(|o| o.iter().find(|o| o["bet"] == "player_pair"))
            .and_then(|o| o["ev"].as_str())
            .is_some_and(|ev| !ev.starts_with('-') && !ev.starts_with("0/"));
        let mut wagers = vec![json!({"bet": "banker", "amount": me.min})];
        if positive {
            wagers.push(json!({"bet": "player_pair", "amount": me.min * 10}));
        }
        let key = format!("count-{}-{}-{}-{}", me.player, me.table, at.0, at.1);
        let sent = c
            .post(format!("{url}/api/tables/{}/wagers", me.table))
            .bearer_auth(&me.token)
            .json(&json!({"wagers": wagers, "spot": me.seat, "key": key}))
            .send()
            .await;
        let Ok(answer) = sent else { continue };
        let ok = answer.status().is_success();
        if let Ok(a) = answer.json::<Value>().await {
            n.answer(&a);
        }
        if ok {
            last = Some(at);
        }
    }
}

async fn get(c: &reqwest::Client, url: &str, token: Option<&str>) -> Result<Value> {
    let mut r = c.get(url);
    if let Some(t) = token {
        r = r.bearer_auth(t);
    }
    Ok(r.send().await?.error_for_status()?.json().await?)
}

/// The counters at work: who they are, what they did, their loops.
pub(super) struct Counting {
    counters: Vec<Counter>,
    counted: Arc<Counted>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

/// Start every counter's loop (each stops with the load).
pub(super) fn spawn(
    c: &reqwest::Client,
    url: &str,
    admin: &str,
    counters: Vec<Counter>,
    shared: &Arc<super::Shared>,
) -> Counting {
    let counted = Arc::new(Counted::default());
    let tasks = counters
        .iter()
        .map(|k| {
            let (c, url, admin, k) = (c.clone(), url.to_string(), admin.to_string(), k.clone());
            let (shared, n) = (shared.clone(), counted.clone());
            tokio::spawn(async move { count(c, url, admin, k, shared, n).await })
        })
        .collect();
    Counting { counters, counted, tasks }
}

impl Counting {
    /// Once the load has stopped: who the surveillance report of the
    /// server's gaming day flagged, the counters and the run's other
    /// players (false alarms), with what the counters did; `None` without
    /// counters.
    pub(super) async fn verdict(
        self,
        c: &reqwest::Client,
        url: &str,
        admin: &str,
        players: &[super::setup::Player],
    ) -> Result<Option<Value>> {
        for t in self.tasks {
            let _ = t.await;
        }
        verdict(c, url, admin, (&self.counters, &self.counted), players).await
    }
}

async fn verdict(
    c: &reqwest::Client,
    url: &str,
    admin: &str,
    (counters, counted): (&[Counter], &Counted),
    players: &[super::setup::Player],
) -> Result<Option<Value>> {
    if counters.is_empty() {
        return Ok(None);
    }
    let day = get(c, &format!("{url}/api/casino/gaming-day"), Some(admin)).await?;
    let today = day["today"].as_str().context("the gaming day's date")?;
    let r = get(c, &format!("{url}/api/protection?day={today}"), Some(admin)).await?;
    let mine: HashSet<u64> = counters.iter().map(|k| k.player).collect();
    let others: HashSet<u64> = players.iter().map(|p| p.id).collect();
    let flagged: HashSet<u64> = r["taking"]
        .as_array()
        .context("the report's lines")?
        .iter()
        .filter(|l| l["flagged"] == true)
        .filter_map(|l| l["player"].as_u64())
        .collect();
    let refused = counted.refused.lock().unwrap_or_else(|p| p.into_inner()).clone();
    Ok(Some(json!({
        "day": today,
        "z_flag": r["z_flag"],
        "counters": mine.len(),
        "counters_flagged": flagged.intersection(&mine).count(),
        "others": others.len(),
        "others_flagged": flagged.intersection(&others).count(),
        "coups_wagered": counted.coups.load(Ordering::Relaxed),
        "pair_wagers": counted.pairs.load(Ordering::Relaxed),
        "refused": refused,
    })))
}
