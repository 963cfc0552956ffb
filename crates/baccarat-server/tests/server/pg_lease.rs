//! The casino's lease on PostgreSQL (split from `pg.rs`): a stale owner's
//! write is refused by the database itself (the epoch is the fencing
//! token), a commit left open by a stalled network does not keep the lease
//! from a standby, a partition's own server is given its lease before any
//! guest, and a server that lost the lease completes no checkpoint.

use baccarat_core::TableId;

use baccarat_cluster::pg_store::PgStore;
use baccarat_core::store::{Commit, History, Store};

use super::pg::*;

/// Two servers on one database: the table's lease goes to one at a time, a
/// change of owner raises the epoch, and the database refuses a stale owner's
/// write whole, naming both epochs, while the new owner writes.
#[test]
fn a_stale_owners_write_is_refused_by_the_database() {
    use baccarat_core::audit::Record;
    use baccarat_core::store::StoreError;
    let url = database("fence");
    let mut a = PgStore::connect(&url).unwrap();
    let mut b = PgStore::connect(&url).unwrap();
    let record = |seq: u64| {
        let mut c = Commit::default();
        c.records
            .push((TableId(1), Record { seq, prev: "p".into(), body: format!("r{seq}"), hash: format!("h{seq}") }));
        c
    };
    let first = a.acquire(TableId(1), "server-a", 60_000).unwrap().expect("a free table is granted");
    assert_eq!(first.epoch, 1);
    assert_eq!(b.acquire(TableId(1), "server-b", 60_000).unwrap(), None, "held and not expired: refused");
    a.commit(&record(1)).unwrap();
    assert_eq!(a.one_statement(), (0, 1), "a chain's first record is the statements' (its log has no end yet)");
    a.commit(&record(2)).unwrap();
    assert_eq!(a.one_statement(), (1, 1), "the next in one statement");
    assert_eq!(a.acquire(TableId(1), "server-a", 60_000).unwrap().unwrap().epoch, 1, "a renewal keeps the epoch");

    // server-a stops renewing (a pause, a partition): its lease runs out.
    a.with_client(|c| c.execute("UPDATE leases SET expires_at = now() - interval '1 second'", &[]).unwrap());
    let second = b.acquire(TableId(1), "server-b", 60_000).unwrap().expect("an expired lease is taken");
    assert_eq!(second.epoch, 2, "a new owner, a new epoch");

    // server-a still believes it owns the table: its write is refused whole.
    let mut stale = record(3);
    stale.records.push((TableId(1), Record { seq: 4, prev: "p".into(), body: "r4".into(), hash: "h4".into() }));
    let err = a.commit(&stale).unwrap_err();
    let StoreError::Fenced(why) = &err else { panic!("{err}") };
    assert!(why.contains("epoch 1") && why.contains("server-b's, epoch 2"), "{why}");
    assert_eq!(a.one_statement(), (1, 2), "refused in one statement, then named by the statements");
    assert_eq!(b.head(TableId(1)).unwrap().unwrap().seq, 2, "nothing of the stale batch was written");
    b.commit(&record(3)).unwrap();
    assert_eq!(b.head(TableId(1)).unwrap().unwrap().seq, 3);
    assert_eq!(b.one_statement(), (1, 0));
    assert_eq!(a.acquire(TableId(1), "server-a", 60_000).unwrap(), None, "server-b holds it now");
    let leases = b.leases().unwrap();
    assert_eq!(leases.len(), 1);
    assert_eq!((leases[0].0.owner.as_str(), leases[0].0.epoch, leases[0].1), ("server-b", 2, true));
}

/// A server cut off in the middle of a commit (its transaction open, the
/// lease's row locked by the commit's fence, its next statement held by the
/// network) leaves the row locked for `IDLE_TRANSACTION_MS` at most: the
/// database ends the idle transaction, and a standby takes the lease once
/// it has expired. (Without the bound the standby waited on the row's lock
/// until the database's TCP keepalive gave up: two hours.)
#[test]
fn a_commit_left_open_by_a_stalled_network_does_not_keep_the_lease_from_a_standby() {
    use baccarat_cluster::pg_store::CASINO_LEASE;
    let url = database("idle_commit");
    let mut a = PgStore::connect(&url).unwrap();
    let lease = a.take_casino("alpha#1", "http://alpha", 300).unwrap().unwrap();
    a.fence(lease);
    // A commit's first statement, then nothing more.
    a.with_client(|c| {
        c.batch_execute("BEGIN").unwrap();
        c.execute("UPDATE leases SET tbl = tbl WHERE tbl = $1", &[&i64::from(CASINO_LEASE)]).unwrap();
    });
    let (tx, rx) = std::sync::mpsc::channel();
    let standby = url.clone();
    std::thread::spawn(move || {
        let mut b = PgStore::connect(&standby).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(400)); // alpha's lease has expired
        let _ = tx.send(b.take_casino("beta#2", "http://beta", 60_000).map_err(|e| e.to_string()));
    });
    let taken = rx
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("the standby still waits on the lock of alpha's open transaction");
    let l = taken.unwrap().expect("the expired lease is taken");
    assert_eq!((l.owner.as_str(), l.epoch), ("beta#2", 2));
    assert!(
        a.with_client(|c| c.simple_query("SELECT 1")).is_err(),
        "alpha's transaction was ended with its connection"
    );
}

/// A partition's own server is given its lease before any guest (a server
/// standing by for it with `--standby-for`, `pg_store::Claim`): finding it
/// held, it asks for it; the guest holding it learns who asks; once the
/// lease is free no guest takes it, the own server does (a new epoch, the
/// asking cleared); and an asking not renewed lapses, leaving an expired
/// lease to guests again.
#[test]
fn a_partitions_own_server_is_given_its_lease_before_any_guest() {
    use baccarat_cluster::pg_store::{partition_url, Claim};
    let db = database("claim");
    let url = partition_url(&db, "east").unwrap();
    let asked_by = || baccarat_cluster::pg_store::bank::partitions(&db).unwrap()[0].asked_by.clone();
    let mut guest = PgStore::connect(&url).unwrap();
    let mut home = PgStore::connect(&url).unwrap();
    let mut other = PgStore::connect(&url).unwrap();
    let expire = |s: &PgStore| {
        s.with_client(|c| c.execute("UPDATE leases SET expires_at = now() - interval '1 ms'", &[]).unwrap());
    };
    let g =
        guest.take_casino_as("west-1#g", "http://g", 60_000, Claim::Guest).unwrap().expect("free: a guest takes it");
    assert_eq!(guest.wanted_from("west-1#g").unwrap(), None, "no one asks yet");

    let (who, at, epoch) = home.take_casino_as("east-1#h", "http://h", 60_000, Claim::Home).unwrap().unwrap_err();
    assert_eq!((who.as_str(), at.as_str(), epoch), ("west-1#g", "http://g", g.epoch), "held: told by whom");
    assert_eq!(guest.wanted_from("west-1#g").unwrap().as_deref(), Some("east-1#h"), "the guest learns who asks");
    assert_eq!(asked_by().as_deref(), Some("east-1"), "`baccarat partitions` shows the hand-back asked for");
    assert_eq!(other.wanted_from("north-1#o").unwrap(), None, "only the holder is asked");
    let renewed = guest.take_casino_as("west-1#g", "http://g", 60_000, Claim::Guest).unwrap().unwrap();
    assert_eq!(renewed, g, "the guest renews on until it has handed the partition back");

    // The guest gives the lease up (a clean stop's release): no guest, not
    // even it under a new owner, takes it; the own server does.
    expire(&guest);
    for (s, owner) in [(&mut other, "north-1#o"), (&mut guest, "west-1#g2")] {
        let refused = s.take_casino_as(owner, "http://x", 60_000, Claim::Guest).unwrap();
        assert!(refused.is_err(), "{owner} took a lease the partition's own server asks for: {refused:?}");
    }
    let h = home.take_casino_as("east-1#h", "http://h", 60_000, Claim::Home).unwrap().unwrap();
    assert_eq!(h.epoch, g.epoch + 1, "a new owner, a new epoch");
    assert_eq!(home.wanted_from("east-1#h").unwrap(), None, "the asking is cleared once answered");
    assert_eq!(asked_by(), None);

    // A second own server (a dedicated standby) asks too, and stops asking:
    // its asking lapses after the time it gave, and an expired lease is a
    // guest's to take again.
    let mut second = PgStore::connect(&url).unwrap();
    assert!(second.take_casino_as("east-2#s", "http://s", 1, Claim::Home).unwrap().is_err(), "held by east-1");
    expire(&home);
    std::thread::sleep(std::time::Duration::from_millis(20));
    let taken = other.take_casino_as("north-1#o", "http://o", 60_000, Claim::Guest).unwrap();
    assert_eq!(taken.map(|l| l.epoch), Ok(h.epoch + 1), "the lapsed asking holds no lease back");
}

/// A server that lost the casino's lease writes no checkpoint that a start
/// would read: its parts may reach the database, but it is never marked
/// complete, the latest checkpoint stays the holder's, and the holder's next
/// checkpoint clears the stale parts away.
#[test]
fn a_server_that_lost_the_casinos_lease_completes_no_checkpoint() {
    use baccarat_cluster::pg_store::CASINO_LEASE;
    use baccarat_core::store::StoreError;
    let mut b = both("cpfence");
    b.coup(0);
    let mut holder = PgStore::connect(&b.url).unwrap();
    let old = b.pg.acquire(CASINO_LEASE, "server-a", 60_000).unwrap().expect("free");
    b.pg.fence(old);
    let (first, _) = b.sealed("cpfence");
    b.pg.write_checkpoint(&first).unwrap();
    let kept = b.pg.latest_checkpoint().unwrap().expect("written under the lease").id;

    b.coup(1);
    let (stale, _) = b.sealed("cpfence");
    // server-a's lease runs out and server-b takes the casino, while server-a's
    // checkpoint of coup 1 is on its way.
    b.pg.with_client(|c| c.execute("UPDATE leases SET expires_at = now() - interval '1 second'", &[]).unwrap());
    let new = holder.acquire(CASINO_LEASE, "server-b", 60_000).unwrap().expect("expired: taken");
    assert_eq!(new.epoch, 2);
    let err = b.pg.write_checkpoint(&stale).unwrap_err();
    let StoreError::Fenced(why) = &err else { panic!("{err}") };
    assert!(why.contains("server-a") && why.contains("epoch 1"), "{why}");
    assert_eq!(b.pg.latest_checkpoint().unwrap().unwrap().id, kept, "the stale checkpoint is not read");
    let incomplete = |s: &PgStore| {
        s.with_client(|c| {
            c.query_one("SELECT count(*) FROM checkpoints WHERE NOT complete", &[]).unwrap().get::<_, i64>(0)
        })
    };
    assert_eq!(incomplete(&b.pg), 1, "its parts were written, and only those");

    // The holder's own checkpoint is complete and removes the stale one.
    holder.fence(new);
    holder.write_checkpoint(&stale).unwrap();
    assert!(holder.latest_checkpoint().unwrap().unwrap().id > kept);
    assert_eq!(incomplete(&holder), 0);
}
