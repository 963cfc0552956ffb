//! Coup watching: the server does not publish how many wagers a coup holds,
//! so loadgen watches each load table's phase and counts the wagers it had
//! accepted there between one close of betting and the next.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Result;
use baccarat_casino::PhaseView;
use serde_json::Value;

use super::Shared;

/// Wagers one coup of a load table held (as loadgen counted them).
pub(super) struct CoupCount {
    pub(super) table: u32,
    pub(super) coup: u64,
    pub(super) wagers: u64,
    /// False for a coup still taking wagers when the run ended.
    pub(super) complete: bool,
}

/// After betting closes, wait this long before reading the table's count of
/// accepted wagers, so that answers already on their way are in it. The next
/// coup opens only after the cards and the result's pause.
const ANSWERS_IN_FLIGHT: Duration = Duration::from_millis(150);

/// Watch the load tables' phases and count the wagers each coup took: the
/// table's accepted wagers are read once betting has closed (and the answers
/// have arrived); a coup's wagers are the difference from the previous close.
/// The tables are new, so the first coup starts from zero.
/// (`offset`: where these tables begin in the run's list of load tables.)
pub(super) async fn watch_coups(
    c: reqwest::Client,
    url: String,
    ids: Vec<u32>,
    offset: usize,
    shared: Arc<Shared>,
) -> Vec<CoupCount> {
    let mut w = Watcher {
        w: ids.iter().map(|_| Watch { betting: None, closing: None, counted: 0 }).collect(),
        out: Vec::new(),
        ids,
        offset,
        shared,
    };
    // One table: its own view, often. Several: the list, less often.
    let every = if w.ids.len() == 1 { Duration::from_millis(50) } else { Duration::from_millis(200) };
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    while !w.shared.stop.load(Ordering::Relaxed) {
        tick.tick().await;
        let Some(seen) = look(&c, &url, &w.ids).await else { continue };
        for (id, coup, phase) in seen {
            w.saw(id, coup, phase);
        }
    }
    // The load has stopped: let the last answers land, then count what each
    // table took since its last close (a coup closing, or still open).
    tokio::time::sleep(ANSWERS_IN_FLIGHT).await;
    w.finish()
}

/// One look at the tables' coups and phases: one table's own view, or the
/// list of every table; `None` if the server did not answer.
async fn look(c: &reqwest::Client, url: &str, ids: &[u32]) -> Option<Vec<(u32, u64, Option<PhaseView>)>> {
    if ids.len() == 1 {
        let t: Value = c.get(format!("{url}/api/tables/{}", ids[0])).send().await.ok()?.json().await.ok()?;
        Some(vec![(ids[0], t["coup"].as_u64().unwrap_or(0), phase_of(&t))])
    } else {
        let v: Value = c.get(format!("{url}/api/tables")).send().await.ok()?.json().await.ok()?;
        Some(
            v["tables"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .map(|t| {
                            let id = t["id"].as_u64().unwrap_or(0) as u32;
                            (id, t["coup"].as_u64().unwrap_or(0), phase_of(t))
                        })
                        .collect()
                })
                .unwrap_or_default(),
        )
    }
}

/// A table's phase as its view names it (`None`: a phase this build does
/// not know).
fn phase_of(t: &Value) -> Option<PhaseView> {
    serde_json::from_value(t["phase"].clone()).ok()
}

/// One load table as watched.
struct Watch {
    /// The coup seen taking wagers.
    betting: Option<u64>,
    /// A coup whose betting closed, and when that was seen.
    closing: Option<(u64, Instant)>,
    /// The table's accepted wagers at the last close.
    counted: u64,
}

/// The watch over one server's load tables, and the coups counted so far.
struct Watcher {
    w: Vec<Watch>,
    out: Vec<CoupCount>,
    ids: Vec<u32>,
    offset: usize,
    shared: Arc<Shared>,
}

impl Watcher {
    /// Count coup `coup` of table `i`: the wagers it accepted since the last
    /// close.
    fn settle(&mut self, i: usize, coup: u64, complete: bool) {
        let now = self.shared.per_table[self.offset + i].load(Ordering::Relaxed);
        let w = &mut self.w[i];
        self.out.push(CoupCount { table: self.ids[i], coup, wagers: now - w.counted, complete });
        w.counted = now;
    }

    /// Table `id` seen at coup `coup` in `phase`.
    fn saw(&mut self, id: u32, coup: u64, phase: Option<PhaseView>) {
        let Some(i) = self.ids.iter().position(|&x| x == id) else { return };
        let betting = phase == Some(PhaseView::Betting);
        // A close seen earlier: read the count once the answers are in, or
        // at once if the next coup is already taking wagers.
        if let Some((c0, at)) = self.w[i].closing {
            if at.elapsed() >= ANSWERS_IN_FLIGHT || (betting && coup != c0) {
                self.w[i].closing = None;
                self.settle(i, c0, true);
            }
        }
        match (self.w[i].betting, betting) {
            (Some(b), true) if b != coup => {
                // The close was missed between two looks: count it now.
                self.settle(i, b, true);
                self.w[i].betting = Some(coup);
            }
            (None, true) => self.w[i].betting = Some(coup),
            (Some(b), false) => {
                self.w[i].betting = None;
                self.w[i].closing = Some((b, Instant::now()));
            }
            _ => {}
        }
    }

    /// The run is over: count what each table took since its last close (a
    /// coup closing, or still open).
    fn finish(mut self) -> Vec<CoupCount> {
        for i in 0..self.ids.len() {
            if let Some((c0, _)) = self.w[i].closing.take() {
                self.settle(i, c0, true);
            }
            if let Some(b) = self.w[i].betting.take() {
                self.settle(i, b, false);
            }
        }
        self.out
    }
}

/// Coups dealt so far, summed over every table of the server.
pub(super) async fn coups(c: &reqwest::Client, url: &str) -> Result<u64> {
    let t: Value = c.get(format!("{url}/api/tables")).send().await?.json().await?;
    Ok(t["tables"].as_array().map_or(0, |a| a.iter().map(|t| t["coup"].as_u64().unwrap_or(0)).sum()))
}
