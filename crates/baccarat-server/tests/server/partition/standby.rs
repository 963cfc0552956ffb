//! Whose partition a server standing by for another's (`--standby-for`)
//! may take (`standby_for::until_ours_to_stand_by`), on a paused clock: one
//! served now, at once; one never served, never (its own server makes it);
//! one served before and unserved now, after `GRACE` lease times, which
//! are left to its own server.

use std::time::Duration;

use baccarat_cluster::pg_store::{partition_url, PgStore};
use baccarat_server::serve::ServeConfig;
use baccarat_server::standby_for::{until_ours_to_stand_by, GRACE};
use tokio::time::Instant;

use crate::pg::database;

/// How long (virtual) `until_ours_to_stand_by` waited, or `None` if it was
/// still waiting after `limit`.
fn waited(cfg: &ServeConfig, limit: Duration) -> Option<Duration> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().start_paused(true).build().unwrap();
    let out = rt.block_on(async {
        let started = Instant::now();
        tokio::time::timeout(limit, until_ours_to_stand_by(cfg, started)).await.ok().map(|()| started.elapsed())
    });
    rt.shutdown_background();
    out
}

#[test]
fn a_standby_takes_only_a_partition_served_before_and_leaves_it_a_grace_first() {
    let db = database("standby_grace");
    let url = partition_url(&db, "east").unwrap();
    let mut east = PgStore::connect(&url).unwrap();
    let mut cfg = ServeConfig::new("x.db".into(), "127.0.0.1:0".parse().unwrap());
    cfg.founding = baccarat_core::audit::Founding::Demo;
    (cfg.postgres, cfg.partition, cfg.lease) = (Some(url), Some("east".into()), Duration::from_millis(1_500));

    // Made, never served: left to its own server however long it takes.
    assert_eq!(waited(&cfg, cfg.lease * 20), None, "a partition never served was taken");

    // Served now: stood by for at once.
    east.take_casino("east-1#a", "http://127.0.0.1:1", 60_000).unwrap().unwrap();
    let now = waited(&cfg, cfg.lease * 20).expect("a served partition is stood by for");
    assert!(now < cfg.lease, "{now:?}");

    // Served before, its server gone: stood by for after the grace.
    east.with_client(|c| c.execute("UPDATE leases SET expires_at = now() - interval '1 ms'", &[]).unwrap());
    let after = waited(&cfg, cfg.lease * 20).expect("an unserved partition is stood by for in the end");
    assert!(after >= cfg.lease * GRACE, "taken after {after:?}, within {GRACE} lease times");
}
