//! The pace of an RNG table: shoe, betting window, no more bets, cards, result.
//!
//! The pacer is the server acting at its own tables ([`Actor::Server`]): the
//! trust matrix lets no one else open or close betting or deal at an RNG table.
//! The betting deadline is not kept here: it goes into the record with
//! `betting_opened { closes_at }`, the engine refuses a wager stamped after it
//! whenever the close itself is sent, and `verify` checks it.
//!
//! A hand out with a player to squeeze waits for them up to the squeeze time;
//! then the dealer exposes it (NSW 8.15). Live tables are paced by their
//! dealer, and a closed table finishes its coup and waits.

use std::time::Duration;

use baccarat_table::engine::Command;

use crate::casino::Request;
use crate::http::{call, AppState};
use crate::trust::Actor;

/// Pace table `table` for as long as it exists and the server serves.
pub async fn pace(s: AppState, table: u32) {
    s.clone().until_ended(pace_table(s, table)).await
}

async fn pace_table(s: AppState, table: u32) {
    let cfg = s.pace;
    let mut paused_after: Option<u64> = None;
    loop {
        let t = s.views.read().expect("views").tables.iter().find(|t| t.id == table).cloned();
        let Some(t) = t else { return };
        if t.mode != "rng" {
            tokio::time::sleep(Duration::from_millis(500)).await;
            continue;
        }
        let req = match t.phase.as_str() {
            "no_shoe" | "shoe_over" if t.open => Request::NewShoe { table },
            "ready" if t.open => {
                // Let the result be seen before the next coup's betting opens;
                // then look again (a supervisor may have closed the table).
                if t.coup > 0 && paused_after != Some(t.coup) {
                    paused_after = Some(t.coup);
                    tokio::time::sleep(cfg.result_pause).await;
                    continue;
                }
                let closes_at = Some((s.clock)() + cfg.betting.as_millis() as u64);
                Request::Table { table, command: Command::OpenBetting { no_bet: false, closes_at }, by: Actor::Server }
            }
            "betting" => {
                let at = t.closes_at_ms.unwrap_or(0);
                let now = (s.clock)();
                if at > now {
                    tokio::time::sleep(Duration::from_millis(at - now)).await;
                }
                Request::Table { table, command: Command::CloseBetting, by: Actor::Server }
            }
            "no_more_bets" | "dealing" => {
                if let Some(h) = &t.out {
                    // From when the hand went out, as the table's view says
                    // (and as a page loaded mid-squeeze shows it).
                    let waited = Duration::from_millis((s.clock)().saturating_sub(h.since_ms));
                    if waited < cfg.squeeze {
                        tokio::time::sleep((cfg.squeeze - waited).min(Duration::from_millis(250))).await;
                        continue;
                    }
                    Request::Table { table, command: Command::Expose { side: h.side, player: None }, by: Actor::Server }
                } else {
                    tokio::time::sleep(cfg.deal).await;
                    Request::Table { table, command: Command::DealNext, by: Actor::Server }
                }
            }
            _ => {
                tokio::time::sleep(Duration::from_millis(500)).await;
                continue;
            }
        };
        if call(&s, req).await.is_err() {
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}
