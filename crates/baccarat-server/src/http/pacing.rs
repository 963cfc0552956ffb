//! The server's pacing of its RNG tables: a loop per table that reads the
//! table's view, asks the casino's pacer what to do next
//! (`baccarat_casino::pacer::next`, a pure function of the typed view), and
//! sleeps or sends that request as the server (`Actor::Server`).
//!
//! **The pacers have a thread of their own** (a current-thread runtime,
//! [`spawn`]), not the request threads. A card dealt wakes every socket
//! watching its table; on the request threads a pacer's next step waited
//! behind all of them, so that at 10,000 viewers a table dealt one card per
//! fan-out (about 140 ms a card, against about 1 ms unwatched): the viewers
//! slowed the game, and each card was a fan-out of its own. On its own
//! thread a pacer deals at the table's pace whatever the viewers, and a
//! socket that is behind sends the frames it missed in one write
//! (`play.rs`). A pacer lives while the server's turn does, and no longer
//! than the runtime that spawned it (a guard task there holds it alive).

use baccarat_core::TableId;
use std::sync::OnceLock;
use std::time::Duration;

use baccarat_casino::pacer::{next, Step};

use super::{call, AppState};

/// The wait after a request the writer did not take.
const RETRY: Duration = Duration::from_millis(200);

/// Pace table `table`, on the pacers' thread, for as long as it exists, the
/// server serves, and the calling runtime runs. Must be called inside a
/// Tokio runtime (the guard is a task of it).
pub fn spawn(s: AppState, table: TableId) {
    let (mut alive, dropped) = tokio::sync::oneshot::channel::<()>();
    // Dropped with the calling runtime (a test's ends, the process stops):
    // the pacer then stops too, rather than run on alone. It ends with the
    // pacer (the turn ended, the table closed), so a server's turns leave
    // no guards behind.
    tokio::spawn(async move { alive.closed().await });
    pacers().spawn(async move {
        tokio::select! {
            () = pace(s, table) => {}
            _ = dropped => {}
        }
    });
}

/// The pacers' runtime: one thread, made on first use, for the process.
fn pacers() -> &'static tokio::runtime::Handle {
    static PACERS: OnceLock<tokio::runtime::Handle> = OnceLock::new();
    PACERS.get_or_init(|| {
        let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().expect("the pacers' runtime");
        let handle = rt.handle().clone();
        std::thread::Builder::new()
            .name("pacers".into())
            .spawn(move || rt.block_on(std::future::pending::<()>()))
            .expect("the pacers' thread");
        handle
    })
}

/// Pace table `table` for as long as it exists and the server serves.
async fn pace(s: AppState, table: TableId) {
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
