//! Several servers on one PostgreSQL casino: one serves, the others stand by.
//!
//! # Design, and why
//!
//! The casino in memory (`casino/`) holds every table and every wallet, and
//! its single writer is what keeps a wallet from going negative: each hold is
//! checked against a balance no other process changes. So one server serves
//! a casino (or one partition of it: `serve --partition`, whose players'
//! money comes from the shared bank, `bank/`; each partition is a casino of
//! its own to what follows, with its own lease in its own schema), and the
//! others stand by:
//!
//! * **One lease on the whole casino** ([`crate::pg_store::CASINO_LEASE`]),
//!   with an epoch (the fencing token). The server holding it recovers the
//!   casino from the store and serves every table; every commit and every
//!   checkpoint it writes proves the epoch in its own transaction, so a
//!   server that lost the lease (paused, partitioned, or simply slow) has
//!   every later write refused by PostgreSQL itself, whatever it believes.
//! * **Standby.** A server that cannot take the lease passes every request
//!   through to the holder's `--advertise` URL (`forward.rs`), WebSocket
//!   upgrades included, naming the client's address to the holder in a claim
//!   signed by the casino's key; so a client may use any server. (Only an
//!   `https://` holder, which a standby cannot reach itself, is answered with
//!   `307 Temporary Redirect` and a JSON body saying where.) It tries for the
//!   lease again every third of the lease's time.
//! * **Renewal.** The holder renews every third of the lease's time on a
//!   connection of its own. If it finds the lease taken it stops at once
//!   (exit 75; in a process serving several partitions, only the partition
//!   stops and stands by again: `fatal.rs`): nothing it could still write
//!   would be accepted. It stops too if no renewal has been answered for
//!   twice the lease's time (a network cut that stalls, [`keep`]).
//! * **Failover.** When the holder dies (kill -9), its lease expires; a
//!   standby takes it (a new epoch), recovers the casino from the latest
//!   checkpoint and the tail after it, applies each interrupted coup's
//!   policy, records `served` (its instance and epoch) in the casino's
//!   chain, and serves. Nothing acknowledged is lost (an answer is sent only
//!   after its commit) and nothing is paid twice (recovery replays what was
//!   committed, once).
//! * **A clean stop** writes its checkpoint and then gives the lease up, so
//!   a standby takes over at once rather than after the lease's time.
//!
//! The servers must share the signing key and the anchor file (`--key-file`,
//! `--anchor-file` on shared storage): a checkpoint is signed with the key
//! and marks its place in the anchor file, and the next holder goes on from
//! both.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use crate::pg_store::{Claim, Lease, PgStore, CASINO_LEASE};

/// Why the lease was not waited for, kept, or given up: each names what
/// failed, as the start prints it.
#[derive(Debug, thiserror::Error)]
pub enum LeaseError {
    /// The blocking task that waited for the lease ended abnormally.
    #[error(transparent)]
    Task(#[from] tokio::task::JoinError),
    /// The database answered with an error (not being out of reach).
    #[error("the lease of {what}: {source}")]
    Connect { what: String, source: crate::store::StoreError },
    #[error("cannot start the lease thread: {0}")]
    Thread(#[source] std::io::Error),
    #[error("cannot start the lease's watch: {0}")]
    Watch(#[source] std::io::Error),
    /// Giving the lease up failed at the database.
    #[error(transparent)]
    Release(#[from] postgres::Error),
    /// No connection to give the lease up on.
    #[error(transparent)]
    Unreached(#[from] crate::pg_store::ConnectError),
    /// Giving the lease up had no answer within its time.
    #[error("no answer within {ms} ms")]
    NoAnswer { ms: u128 },
    /// The wait for the lease was given up (a stop while standing by).
    #[error("the wait for the lease of {what} was given up")]
    GivenUp { what: String },
}

/// Who holds the lease while this server stands by: (instance, URL).
pub type Holder = Arc<RwLock<Option<(String, String)>>>;

pub use crate::pg_store::{instance_of, owner_of};

pub use baccarat_core::host_name;

/// Wait for the casino's lease (`what`: "the casino", or "partition NAME",
/// for what this server says), claimed as `claim` says, noting who holds it
/// meanwhile; the lease, and when the call that took it was sent (its
/// time runs from then at the latest: [`Renewal::since`]).
///
/// A database out of reach is waited out: this is called again after a
/// partition stopped because of it (`serve_turn.rs`). An error the database
/// answers (a schema newer than this server, a role that may not write)
/// ends the wait with it.
/// (The client is used, and dropped, on a blocking thread: `pg_thread.rs`.)
///
/// The wait ends when its future is dropped (a stop while standing by, or
/// the runtime shutting down): a runtime waits for its blocking tasks when
/// it is dropped, so a loop that never looked would hold a standby's stop,
/// and a test's runtime, for as long as another server holds the lease. A
/// lease taken in the moment between the drop and the loop's next look is
/// never renewed, and expires in its time.
pub async fn wait_for(
    url: &str,
    owner: &str,
    advertise: &str,
    ttl: Duration,
    holder: &Holder,
    what: &str,
    claim: Claim,
) -> Result<(Lease, Instant), LeaseError> {
    let (url, owner, advertise, holder) = (url.to_string(), owner.to_string(), advertise.to_string(), holder.clone());
    let what = what.to_string();
    let given_up = GivenUp::default();
    let gone = given_up.0.clone();
    let waiting = tokio::task::spawn_blocking(move || {
        let mut store = None;
        let mut told: Option<(String, i64)> = None;
        // What was last said of a database out of reach: said once, not at
        // every try, for the whole of an outage.
        let mut unreached: Option<String> = None;
        loop {
            if gone.load(Ordering::Relaxed) {
                return Err(LeaseError::GivenUp { what });
            }
            // The database restarted, or the connection broke: a new one.
            // (On the broken one a standby could never take the lease.)
            if store.is_none() {
                store = connect_waiting(&url, ttl, &what, &mut unreached)?;
            }
            // A database whose machine is paused answers nothing, and the
            // try below would wait for it forever (`pg_store/connect.rs`).
            if store.as_ref().is_some_and(|s| !s.answers(crate::pg_store::PROBE)) {
                abandon(store.take());
            }
            let Some(s) = store.as_mut() else {
                nap(ttl / 3, &gone);
                continue;
            };
            let sent = Instant::now();
            match s.take_casino_as(&owner, &advertise, ttl.as_millis() as u64, claim) {
                Ok(Ok(lease)) => {
                    *holder.write().expect("holder lock") = None;
                    return Ok((lease, sent));
                }
                Ok(Err((who, at, epoch))) => {
                    // Requests pass through to the holder from now on; then
                    // it is said (again when another server takes the
                    // lease: a failover this standby lost to a third).
                    *holder.write().expect("holder lock") = Some((instance_of(&who).to_string(), at.clone()));
                    if told.as_ref() != Some(&(who.clone(), epoch)) {
                        baccarat_core::status::say(&format!(
                            "standing by: instance {} serves {what} at {at} (lease epoch {epoch})",
                            instance_of(&who)
                        ));
                        told = Some((who.clone(), epoch));
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e, "standing by: the lease of {what} cannot be read");
                    store = None;
                }
            }
            nap(ttl / 3, &gone);
        }
    });
    let waited = waiting.await?;
    drop(given_up);
    waited
}

/// Drop a store whose database stopped answering on a thread of its own:
/// closing a connection waits for the answers it is owed, so the thread
/// ends only when that database answers or its connection breaks.
fn abandon(store: Option<PgStore>) {
    let ms = crate::pg_store::PROBE.as_millis();
    tracing::warn!("standing by: the database did not answer within {ms} ms; connecting again");
    let _ = std::thread::Builder::new().name("postgres-close".into()).spawn(move || drop(store));
}

/// Set when [`wait_for`]'s future is dropped: its blocking loop then ends.
#[derive(Default)]
struct GivenUp(Arc<AtomicBool>);

impl Drop for GivenUp {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Sleep `d`, in slices of at most 100 ms, or until `gone` is set.
fn nap(d: Duration, gone: &AtomicBool) {
    let until = Instant::now() + d;
    while !gone.load(Ordering::Relaxed) {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return;
        }
        std::thread::sleep(left.min(Duration::from_millis(100)));
    }
}

/// A connection for [`wait_for`], or `None` while the database is out of
/// reach: waited out, and said once (`unreached`: what was last said) for
/// the whole of an outage. Any other error (a schema newer than this
/// server, a role that may not write) ends the wait.
fn connect_waiting(
    url: &str,
    ttl: Duration,
    what: &str,
    unreached: &mut Option<String>,
) -> Result<Option<PgStore>, LeaseError> {
    match PgStore::connect(url) {
        Ok(s) => {
            *unreached = None;
            Ok(Some(s))
        }
        Err(e @ crate::store::StoreError::Unreachable(_)) => {
            let said = e.to_string();
            if unreached.as_ref() != Some(&said) {
                tracing::warn!("standing by: {said}; trying again every {} ms", (ttl / 3).as_millis());
                *unreached = Some(said);
            }
            Ok(None)
        }
        Err(source) => Err(LeaseError::Connect { what: what.to_string(), source }),
    }
}

/// Who asks for a partition this server serves as a guest (its own server,
/// by instance), once one does: the guest hands it back (`serve_turn.rs`).
pub type Asked = Arc<tokio::sync::watch::Sender<Option<String>>>;

/// What a lease's renewal does besides renewing ([`keep`]).
pub struct Renewal {
    /// What the server serves under the lease, as its lines name it.
    pub what: String,
    /// What losing the lease does.
    pub fatal: baccarat_core::Fatal,
    /// How the lease is claimed.
    pub claim: Claim,
    /// Where a guest is told that the partition's own server asks for it.
    pub asked: Asked,
    /// When the call that took the lease was sent: the database's time for
    /// the lease began after it, so until `since` + the lease's time no
    /// other server can hold it.
    pub since: Instant,
}

/// Renewing a lease: renewal stops when this is dropped (the server that
/// held it stopped, or could not start), and the lease then expires.
/// (Dropped with its process for a single partition; in a process serving
/// several, `standby_for.rs`, a partition that fails must not keep a lease
/// no one serves under.)
#[must_use = "renewal stops when this is dropped"]
pub struct Keeping(Arc<std::sync::atomic::AtomicBool>, metrics::Gauge, Certain);

/// Until when the lease is this server's for certain: the last renewal's
/// sending plus the lease's time (the watch's deadline less that time).
#[derive(Clone, Debug)]
struct Certain {
    deadline: Arc<std::sync::Mutex<Instant>>,
    ttl: Duration,
}

impl Drop for Keeping {
    fn drop(&mut self) {
        self.0.store(true, std::sync::atomic::Ordering::Relaxed);
        self.1.set(0.0);
    }
}

impl Keeping {
    /// Whether the lease is still held, as its renewal knows it (for
    /// `GET /readyz`).
    pub fn held(&self) -> Held {
        Held(self.0.clone(), self.2.clone())
    }
}

/// Whether a lease is still held: false once it is lost, not renewed in
/// time, or given up ([`Keeping::held`]).
#[derive(Clone)]
pub struct Held(Arc<std::sync::atomic::AtomicBool>, Certain);

impl Held {
    pub fn now(&self) -> bool {
        !self.0.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Whether no other server can hold the lease now: not lost, and within
    /// the lease's time of the last renewal sent. A server paused past it
    /// (SIGSTOP, a stalled machine) may find, once it runs again, that
    /// another took over before its own renewal noticed; what it decides
    /// from memory alone (`http/early.rs`) must wait for this.
    pub fn certain(&self) -> bool {
        let until = *self.1.deadline.lock().unwrap_or_else(|p| p.into_inner());
        self.now() && Instant::now() + self.1.ttl < until
    }
}

/// `GET /metrics`: whether this process holds the lease (1 or 0), and its
/// epoch, labelled `lease` by what it serves ("casino", or the
/// partition's name: an operator's few, never a request's).
pub const LEASE_HELD: &str = "baccarat_lease_held";
pub const LEASE_EPOCH: &str = "baccarat_lease_epoch";

/// `GET /metrics`: 1 while the database this server's lease is renewed on
/// names a synchronous standby (each commit waits for a second copy), 0
/// while it names none (one PostgreSQL, or an HA formation that lost its
/// standby and commits alone: pg_auto_failover's `wait_primary` empties
/// `synchronous_standby_names`; the next loss of the primary then loses the
/// commits made since). Read after each renewal; absent on SQLite.
pub const PG_SYNCHRONOUS_STANDBY: &str = "baccarat_pg_synchronous_standby";

/// [`PG_SYNCHRONOUS_STANDBY`]'s value for the setting `names`.
fn standby_named(names: &str) -> f64 {
    if names.trim().is_empty() {
        0.0
    } else {
        1.0
    }
}

/// Set [`PG_SYNCHRONOUS_STANDBY`] from the database `s` reaches; left as it
/// was if the setting cannot be read (logged at debug: a connection that
/// broke fails the next renewal, which says so).
fn standby_gauge(s: &PgStore) {
    match s.synchronous_standby_names() {
        Ok(names) => metrics::gauge!(PG_SYNCHRONOUS_STANDBY).set(standby_named(&names)),
        Err(e) => tracing::debug!(error = %e, "lease: synchronous_standby_names not read"),
    }
}

/// The lease's gauges for `what` ("the casino", "partition NAME"): set held
/// under `epoch`.
fn gauges(what: &str, epoch: i64) -> metrics::Gauge {
    let name = what.strip_prefix("partition ").unwrap_or("casino").to_string();
    metrics::gauge!(LEASE_EPOCH, "lease" => name.clone()).set(epoch as f64);
    let held = metrics::gauge!(LEASE_HELD, "lease" => name);
    held.set(1.0);
    held
}

/// Renew the lease of `what` every third of its time on a thread of its
/// own, until the answer is dropped; if another server has taken it, the
/// server stops (`fatal`: the process exits, or in a process serving
/// several partitions this one stands by again). A guest (`claim`) that the
/// partition's own server asks for it is told so in `asked`, and renews on
/// until it has handed the partition back.
///
/// The server also stops if the lease is not renewed within twice its time
/// (a second thread watches): a network that stalls neither answers nor
/// fails a call, and a server that cannot renew may have lost the lease to
/// another without learning it. The fence keeps such a server's writes out
/// either way; stopping makes it say so, rather than hold its clients'
/// requests until the network heals, and lets the next turn start afresh
/// on new connections. (Twice: a renewal late by less than the lease's
/// time, on a busy machine, finds the lease still its own if no one took
/// it, and a server need not stop for that.)
pub fn keep(url: &str, lease: &Lease, advertise: &str, ttl: Duration, renewal: Renewal) -> Result<Keeping, LeaseError> {
    let Renewal { what, fatal, claim, asked, since } = renewal;
    let stopped = Arc::new(std::sync::atomic::AtomicBool::new(false));
    // The watch's deadline: the lease is this server's for certain until
    // the last renewal's sending + `ttl`, and the watch waits `ttl` more.
    let deadline = Arc::new(std::sync::Mutex::new(since + 2 * ttl));
    let held = gauges(&what, lease.epoch);
    let stopping = Stopping { stopped: stopped.clone(), fatal, what, held: held.clone() };
    // Made first: if a thread cannot be started, dropping it stops the other.
    let keeping = Keeping(stopped.clone(), held, Certain { deadline: deadline.clone(), ttl });
    let renewing = Renewing {
        url: url.to_string(),
        lease: lease.clone(),
        advertise: advertise.to_string(),
        ttl,
        claim,
        asked,
        stop: stopped.clone(),
        until: deadline.clone(),
        stopping: stopping.clone(),
    };
    std::thread::Builder::new().name("lease".into()).spawn(move || renewing.run()).map_err(LeaseError::Thread)?;
    let stop = stopped.clone();
    std::thread::Builder::new()
        .name("lease-watch".into())
        .spawn(move || loop {
            std::thread::sleep((ttl / 10).min(Duration::from_millis(50)));
            if stop.load(std::sync::atomic::Ordering::Relaxed) {
                return;
            }
            if Instant::now() >= *deadline.lock().unwrap_or_else(|p| p.into_inner()) {
                return stopping.unrenewed(ttl);
            }
        })
        .map_err(LeaseError::Watch)?;
    Ok(keeping)
}

/// Stop serving under the lease of `what`, saying why: renewal stops, and
/// `fatal` fires.
#[derive(Clone)]
struct Stopping {
    stopped: Arc<std::sync::atomic::AtomicBool>,
    fatal: baccarat_core::Fatal,
    what: String,
    /// The lease's `held` gauge, 0 once it stops.
    held: metrics::Gauge,
}

impl Stopping {
    fn stop(&self, why: String) {
        self.stopped.store(true, std::sync::atomic::Ordering::Relaxed);
        self.held.set(0.0);
        self.fatal.fire(75, &why);
    }

    /// Not renewed within twice the lease's time `ttl` (the watch).
    fn unrenewed(&self, ttl: Duration) {
        let (what, twice) = (&self.what, 2 * ttl.as_millis());
        self.stop(format!(
            "lease: the lease of {what} was not renewed within {twice} ms, twice its time (the database is out \
             of reach): another server may hold it now"
        ))
    }

    /// Another server holds the lease, or held it meanwhile.
    fn lost(&self, why: String) {
        let what = &self.what;
        self.stop(format!("lease: this server lost the lease of {what} ({why}): nothing more it writes is accepted"))
    }
}

/// The lease thread of [`keep`]: what it renews, and with what.
struct Renewing {
    url: String,
    lease: Lease,
    advertise: String,
    ttl: Duration,
    claim: Claim,
    asked: Asked,
    /// Set when renewal stops (the [`Keeping`] dropped, or the server
    /// stopping).
    stop: Arc<std::sync::atomic::AtomicBool>,
    /// The watch's deadline, moved on by each renewal.
    until: Arc<std::sync::Mutex<Instant>>,
    stopping: Stopping,
}

/// How one renewal went.
enum Renewed {
    /// Renewed: the watch's deadline moved on.
    Yes,
    /// Renewal is over (stopped, or the lease lost).
    Over,
    /// The database is out of reach: try again on a new connection.
    Unreached,
}

impl Renewing {
    /// Renew every third of the lease's time until stopped or lost.
    fn run(self) {
        let mut store = None;
        loop {
            // Connected ahead of the renewal: its time is the lease's.
            if store.is_none() {
                store = PgStore::connect(&self.url)
                    .map_err(|e| tracing::warn!(error = %e, "lease: cannot reach the database"))
                    .ok();
            }
            std::thread::sleep(self.ttl / 3);
            if self.stop.load(std::sync::atomic::Ordering::Relaxed) {
                return;
            }
            let Some(s) = store.as_mut() else { continue };
            match self.renew(s) {
                Renewed::Yes => {}
                Renewed::Over => return,
                Renewed::Unreached => store = None,
            }
        }
    }

    /// One renewal; a guest also learns whether its partition's own server
    /// asks for it.
    fn renew(&self, s: &mut PgStore) -> Renewed {
        let (lease, ttl, claim) = (&self.lease, self.ttl, self.claim);
        let sent = Instant::now();
        let renewed = s.take_casino_as(&lease.owner, &self.advertise, ttl.as_millis() as u64, claim);
        let late = self.stop.load(std::sync::atomic::Ordering::Relaxed);
        match renewed {
            // Answered after the watch gave the lease up (a stalled
            // call), or taken again under a new epoch after another
            // server's lapsed: not this turn's to keep. Expired
            // again, for the next turn or another server not to
            // wait it out.
            Ok(Ok(l)) if late || l.epoch != lease.epoch => {
                let _ = s.with_client(|c| expire(c, &l));
                if !late {
                    self.stopping.lost(format!("another server held it meanwhile, epoch {} now", l.epoch));
                }
                Renewed::Over
            }
            _ if late => Renewed::Over,
            Ok(Ok(_)) => {
                *self.until.lock().unwrap_or_else(|p| p.into_inner()) = sent + 2 * ttl;
                standby_gauge(s);
                if claim == Claim::Guest {
                    if let Ok(Some(who)) = s.wanted_from(&lease.owner) {
                        self.asked.send_if_modified(|a| a.replace(instance_of(&who).to_string()).is_none());
                    }
                }
                Renewed::Yes
            }
            Ok(Err((who, _, epoch))) => {
                self.stopping.lost(format!("{} holds it under epoch {epoch}", instance_of(&who)));
                Renewed::Over
            }
            Err(e) => {
                // The database is out of reach: commits fail too, so
                // nothing is acknowledged; try again with a new
                // connection.
                tracing::warn!(error = %e, "lease: not renewed");
                Renewed::Unreached
            }
        }
    }
}

/// Give the lease up (a clean stop, or a partition that stopped), so that a
/// standby need not wait for it to expire. Waited for at most the lease's
/// time `ttl`: a database out of reach lets it expire instead. (It blocks
/// for that long: callers on the async runtime call it through
/// `spawn_blocking`.)
pub fn release(url: &str, lease: &Lease, ttl: Duration) -> Result<(), LeaseError> {
    let (url, lease) = (url.to_string(), lease.clone());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let done = crate::pg_store::connect_client(&url)
            .map_err(LeaseError::from)
            .and_then(|mut c| Ok(expire(&mut c, &lease).map(|_| ())?));
        let _ = tx.send(done);
    });
    rx.recv_timeout(ttl).map_err(|_| LeaseError::NoAnswer { ms: ttl.as_millis() })?
}

/// Expire `lease` now, if it is still the one given (its owner and epoch).
fn expire(c: &mut postgres::Client, lease: &Lease) -> Result<u64, postgres::Error> {
    c.execute(
        "UPDATE leases SET expires_at = now() - interval '1 millisecond' WHERE tbl = $1 AND owner = $2 AND epoch = $3",
        &[&(CASINO_LEASE.0 as i64), &lease.owner, &lease.epoch],
    )
}

#[cfg(test)]
mod error_tests {
    use super::LeaseError;

    /// A failure reads as the string it replaced, byte for byte (the start
    /// and the stop print it).
    #[test]
    fn failures_read_as_before() {
        let source = crate::store::StoreError::Corrupt("x".into());
        let shown = source.to_string();
        let e = LeaseError::Connect { what: "the casino".into(), source };
        assert_eq!(e.to_string(), format!("the lease of the casino: {shown}"));
        assert_eq!(LeaseError::NoAnswer { ms: 300 }.to_string(), "no answer within 300 ms");
    }
}

#[cfg(test)]
mod held_tests {
    use super::*;

    /// Certain only while held and within the lease's time of the last
    /// renewal sent (the watch's deadline is that sending plus twice the
    /// time): a server paused past it must not trust what it remembers.
    #[test]
    fn certain_only_while_held_and_within_the_lease_time_of_the_last_renewal() {
        let ttl = Duration::from_secs(600);
        let sent = Instant::now();
        let stopped = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let deadline = Arc::new(std::sync::Mutex::new(sent + 2 * ttl));
        let held = Held(stopped.clone(), Certain { deadline: deadline.clone(), ttl });
        assert!(held.certain(), "renewed just now");
        // The last renewal sent a lease's time ago: another may hold it.
        *deadline.lock().unwrap() = sent + ttl;
        assert!(!held.certain(), "trusted past the lease's time");
        assert!(held.now(), "still held as the renewal knows it");
        // Renewed again, but lost (or given up).
        *deadline.lock().unwrap() = sent + 2 * ttl;
        stopped.store(true, std::sync::atomic::Ordering::Relaxed);
        assert!(!held.certain(), "trusted once lost");
    }
}

#[cfg(test)]
mod standby_tests {
    /// No standby named (one PostgreSQL, or `wait_primary`) reads 0; any
    /// name, as pg_auto_failover writes it, reads 1.
    #[test]
    fn a_synchronous_standby_is_named_or_not() {
        assert_eq!(super::standby_named(""), 0.0);
        assert_eq!(super::standby_named("  "), 0.0);
        assert_eq!(super::standby_named("ANY 1 (pgautofailover_standby_2)"), 1.0);
        assert_eq!(super::standby_named("standby1"), 1.0);
    }
}
