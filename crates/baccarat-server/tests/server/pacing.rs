//! The RNG tables' pacers run on a thread of their own, not on the threads
//! that serve requests and push to sockets (`http/pacing.rs`): with those
//! threads all busy (ten thousand sockets woken by a card), a table still
//! deals at its own pace.

use std::time::{Duration, Instant};

use crate::common::spawn_app_with;

/// The records in the casino's chains so far, read from its file as an
/// outsider reads it (the server's threads are not asked).
fn records(db: &std::path::Path) -> i64 {
    let conn = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    conn.query_row("SELECT COALESCE(SUM(last - first + 1), 0) FROM audit_blocks", [], |r| r.get(0)).unwrap()
}

/// The test's runtime has one thread, which serves the requests too; it is
/// held (a blocking wait) until the tables have dealt several coups' worth
/// of records. A pacer on the serving threads could deal nothing meanwhile
/// (at most the request it had in flight), and the wait would run out.
#[tokio::test]
async fn the_tables_are_dealt_while_the_serving_threads_are_held() {
    let app = spawn_app_with(|c| {
        c.betting = Duration::from_millis(100);
        c.deal = Duration::ZERO;
        c.result_pause = Duration::ZERO;
    })
    .await;
    let db = app.dir.join("casino.db");
    let before = records(&db);
    let started = Instant::now();
    // Blocking on purpose: the serving runtime does nothing until this ends.
    let dealt = loop {
        std::thread::sleep(Duration::from_millis(20));
        let dealt = records(&db) - before;
        if dealt >= 40 || started.elapsed() > Duration::from_secs(60) {
            break dealt;
        }
    };
    assert!(dealt >= 40, "only {dealt} records in 60 s with the serving thread held: the pacers wait on it");
}
