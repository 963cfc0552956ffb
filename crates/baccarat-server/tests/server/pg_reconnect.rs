//! A database restart (here: every backend of the test's database
//! terminated, as a restart or a broken network does) does not leave a
//! server's long-lived connections dead: a standby still takes the lease
//! when its holder dies, and a connection on a thread of its own (people,
//! sessions, the partitions' directory) is made again for its next call.

use std::sync::Arc;
use std::time::Duration;

use baccarat_cluster::pg_store::PgStore;

use super::pg::database;

/// Close every connection to the test's database but the caller's.
fn terminate_all(url: &str) -> i64 {
    let mut c = postgres::Client::connect(url, postgres::NoTls).unwrap();
    let rows = c
        .query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
             WHERE datname = current_database() AND pid <> pg_backend_pid()",
            &[],
        )
        .unwrap();
    rows.len() as i64
}

/// The calls that find the connection closed fail; a later one is answered
/// on a new connection.
#[test]
fn a_connection_the_database_closed_is_made_again_for_the_next_call() {
    let url = database("thread_reconnects");
    let t = baccarat_cluster::PgThread::connect(&url).unwrap();
    let one = || t.run(|c| c.query_one("SELECT 1::int", &[]).map(|r| r.get::<_, i32>(0)).map_err(|e| e.to_string()));
    assert_eq!(one(), Some(Ok(1)));
    assert!(terminate_all(&url) >= 1, "the thread's connection was open");
    // The calls that find it closed fail: one or two, as the client learns
    // it from the database's message and then from the closed socket.
    let tries: Vec<_> = (0..3).map(|_| one()).collect();
    assert!(tries.contains(&Some(Ok(1))), "no call is answered after the database closed the connection: {tries:?}");
    assert_eq!(one(), Some(Ok(1)));
}

/// The same for the reader of idempotency keys (`key_reader.rs`), which
/// wagers refused without the writer look keys up on.
#[test]
fn the_key_reader_reconnects_after_the_database_closed_its_connection() {
    let url = database("keys_reconnect");
    drop(PgStore::connect(&url).unwrap()); // migrated
    let r = baccarat_cluster::key_reader::PgKeyReader::connect(&url).unwrap();
    let find = || r.find_many(&[baccarat_core::ledger::keys::KeyId(7)], 0).map(|v| v.len()).map_err(|e| e.to_string());
    assert_eq!(find(), Ok(0));
    assert!(terminate_all(&url) >= 1);
    let tries: Vec<_> = (0..3).map(|_| find()).collect();
    assert!(tries.contains(&Ok(0)), "no lookup is answered after the connection closed: {tries:?}");
    assert_eq!(find(), Ok(0));
}

/// A standby whose connection the database closed while it waited still
/// takes the casino's lease once its holder's expires. (On a runtime of the
/// test's own, let go of at the end: a standby that never takes the lease
/// would otherwise hold the test open for ever, not fail it.)
#[test]
fn a_standby_whose_connection_broke_still_takes_the_lease() {
    let url = database("standby_reconnects");
    // Another server holds the lease for 1.5 s and never renews it.
    let alpha = PgStore::connect(&url).unwrap().take_casino("alpha#1", "http://127.0.0.1:1", 1_500).unwrap().unwrap();
    let holder: baccarat_cluster::lease::Holder = Arc::default();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (u, h) = (url.clone(), holder.clone());
    let waiting = rt.spawn(async move {
        baccarat_cluster::lease::wait_for(
            &u,
            "beta#2",
            "http://127.0.0.1:2",
            Duration::from_millis(300),
            &h,
            "the casino",
            baccarat_cluster::pg_store::Claim::Any,
        )
        .await
    });
    for _ in 0..500 {
        if holder.read().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(holder.read().unwrap().clone().map(|h| h.0), Some("alpha".to_string()), "standing by for alpha");
    assert!(terminate_all(&url) >= 1, "the standby's connection was open");
    let taken = rt.block_on(async { tokio::time::timeout(Duration::from_secs(60), waiting).await });
    rt.shutdown_background();
    let (lease, _) = taken.expect("the standby never took the lease after its connection broke").unwrap().unwrap();
    assert_eq!(lease.owner, "beta#2");
    assert!(lease.epoch > alpha.epoch, "a new epoch: {} after {}", lease.epoch, alpha.epoch);
}
