//! The server's pacing of its RNG tables: a loop per table that reads the
//! table's view, asks the casino's pacer what to do next
//! (`baccarat_casino::pacer::next`, a pure function of the typed view), and
//! sleeps or sends that request as the server (`Actor::Server`).

use baccarat_core::TableId;
use std::time::Duration;

use baccarat_casino::pacer::{next, Step};

use super::{call, AppState};

/// The wait after a request the writer did not take.
const RETRY: Duration = Duration::from_millis(200);

/// Pace table `table` for as long as it exists and the server serves.
pub async fn pace(s: AppState, table: TableId) {
    s.clone().until_ended(pace_table(s, table)).await
}

async fn pace_table(s: AppState, table: TableId) {
    let mut paused_after: Option<u64> = None;
    loop {
        let t = s.views.read().expect("views").tables.iter().find(|t| t.id == table).cloned();
        // A table gone, or closed for good (`casino/closing.rs`), is paced no more.
        let Some(t) = t.filter(|t| !t.closed) else { return };
        match next(&t, s.pace, (s.clock)(), paused_after) {
            Step::Look(after) => tokio::time::sleep(after).await,
            Step::ShowResult { coup, pause } => {
                paused_after = Some(coup);
                tokio::time::sleep(pause).await;
            }
            Step::Send { after, request } => {
                if !after.is_zero() {
                    tokio::time::sleep(after).await;
                }
                if call(&s, request).await.is_err() {
                    tokio::time::sleep(RETRY).await;
                }
            }
        }
    }
}
