//! Lookups that arrive together share one query: group lookup, as a batch
//! shares one commit.
//!
//! # Why
//!
//! A wager refused without the writer (`http/early.rs`) first asks the
//! store whether its key was answered before. On PostgreSQL each asked on
//! the one connection of [`PgKeyReader`](super::PgKeyReader), one query
//! after another: while sixteen tables settled their coups under `loadgen`
//! (about 1,400 such refusals a second, a query each of 1-3 ms on a busy
//! machine) they queued behind the connection, and were the slowest answers
//! timed: every request's p99 34-44 ms, against 11-16 ms for the wagers
//! taken (issue 51 item 5).
//!
//! # How
//!
//! A lookup joins the queue. If no query is running for the queue, it leads:
//! it takes every lookup waiting (its own among them), asks for all their
//! keys in one query from the earliest window any of them asks for, and
//! hands each its own rows (its keys, within its own window). Lookups that
//! arrive meanwhile wait; when the leader is done it passes the lead to the
//! first of them, which does the same for all that wait then. Each leader
//! runs one query, so none waits for more than the query before its own and
//! its own.
//!
//! # Why it answers as a lookup of its own would
//!
//! A lookup's query starts after it joined the queue, so the query's
//! snapshot is at least as new as the one a query of its own would have
//! had at that moment (the early refusal needs no more: its check of the
//! keys in flight comes before the lookup). The query returns each key's
//! latest answer (by number) from the earliest window; for a lookup whose
//! window is later, that row is also the latest within its own when it
//! falls within it. When it does not (a key answered last before the
//! lookup's window; or, with the clock set back, an earlier answer that is
//! within it), the group cannot tell, and that lookup asks on its own.
//!
//! # What it shows
//!
//! Each group's size ([`GROUP_SIZE`]: lookups sharing its query) and its
//! query's time ([`QUERY_SECONDS`]), on `/metrics` (docs/monitoring.md); a
//! lookup that asks on its own is in neither.

use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::sync::{Mutex, MutexGuard};

use crate::ledger::keys::{AnswerRow, ColdKeys, KeyId};
use crate::store::StoreError;

/// Lookups sharing one query, per query (a histogram).
pub const GROUP_SIZE: &str = "baccarat_key_lookup_group_size";
/// Seconds each group's query took (a histogram).
pub const QUERY_SECONDS: &str = "baccarat_key_lookup_seconds";

/// A reader whose concurrent lookups share one query.
#[derive(Debug)]
pub struct Grouped<C> {
    inner: C,
    queue: Mutex<Queue>,
    meters: Meters,
}

/// The group lookup's histograms, registered with the recorder there is
/// when the reader is made (the server's, installed before its stores).
struct Meters {
    size: metrics::Histogram,
    seconds: metrics::Histogram,
}

impl std::fmt::Debug for Meters {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Meters")
    }
}

#[derive(Debug, Default)]
struct Queue {
    waiting: Vec<Lookup>,
    /// A lookup is leading: running a query, or about to take the queue.
    leading: bool,
}

#[derive(Debug)]
struct Lookup {
    ids: Vec<KeyId>,
    since_ms: u64,
    tell: SyncSender<Told>,
}

/// What a waiting lookup is told.
#[derive(Debug)]
enum Told {
    /// Its answer.
    Found(Result<Vec<AnswerRow>, StoreError>),
    /// Lead the next query (for itself and every lookup waiting).
    Lead,
    /// Ask on its own: the group's query cannot say what is latest within
    /// its window.
    Alone,
}

impl<C: ColdKeys> Grouped<C> {
    pub fn new(inner: C) -> Grouped<C> {
        let meters = Meters { size: metrics::histogram!(GROUP_SIZE), seconds: metrics::histogram!(QUERY_SECONDS) };
        Grouped { inner, queue: Mutex::new(Queue::default()), meters }
    }

    fn queue(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Join the queue; lead at once if no one does.
    fn join(&self, ids: &[KeyId], since_ms: u64) -> Receiver<Told> {
        let (tell, told) = sync_channel(1);
        let mut q = self.queue();
        q.waiting.push(Lookup { ids: ids.to_vec(), since_ms, tell });
        if !std::mem::replace(&mut q.leading, true) {
            drop(q);
            self.lead();
        }
        told
    }

    /// One query for every lookup waiting, each told its own rows; then the
    /// lead passes to the first lookup that joined meanwhile, if any.
    fn lead(&self) {
        let guard = Leading(self);
        let group = std::mem::take(&mut self.queue().waiting);
        let mut ids: Vec<KeyId> = group.iter().flat_map(|l| l.ids.iter().copied()).collect();
        ids.sort_unstable();
        ids.dedup();
        let since_ms = group.iter().map(|l| l.since_ms).min().unwrap_or(0);
        self.meters.size.record(group.len() as f64);
        let began = std::time::Instant::now();
        let found = self.inner.find(&ids, since_ms);
        self.meters.seconds.record(began.elapsed().as_secs_f64());
        for l in group {
            let told = match &found {
                Ok(rows) => {
                    let own: Vec<AnswerRow> = rows.iter().filter(|r| l.ids.contains(&r.key_id)).cloned().collect();
                    if own.iter().all(|r| r.at_ms >= l.since_ms) {
                        Told::Found(Ok(own))
                    } else {
                        Told::Alone
                    }
                }
                Err(e) => Told::Found(Err(copied(e))),
            };
            let _ = l.tell.send(told);
        }
        // Passes the lead on (as it does if the query panics).
        drop(guard);
    }

    /// The lead to the first lookup waiting, or to no one.
    fn pass_lead(&self) {
        let mut q = self.queue();
        while !q.waiting.is_empty() {
            // The first of them leads. It has been told nothing (a lookup
            // is told once it has left the queue, and only the first is
            // ever told to lead), so its channel has room.
            match q.waiting[0].tell.try_send(Told::Lead) {
                Ok(()) => return,
                // Its thread is gone: the next one.
                Err(TrySendError::Disconnected(_)) => {
                    q.waiting.remove(0);
                }
                Err(TrySendError::Full(_)) => {
                    debug_assert!(false, "a lookup waiting in the queue had been told something");
                    return;
                }
            }
        }
        q.leading = false;
    }
}

/// Ends a lead, finished or not: if its query panicked, the lookups of its
/// group are told nothing (their channels close: an error each); either way the lead
/// passes on, so no one waits for a leader that is gone.
struct Leading<'a, C: ColdKeys>(&'a Grouped<C>);

impl<C: ColdKeys> Drop for Leading<'_, C> {
    fn drop(&mut self) {
        self.0.pass_lead();
    }
}

/// The same error for each lookup of a group (`StoreError` is not `Clone`:
/// SQLite's own error is kept as its text).
fn copied(e: &StoreError) -> StoreError {
    match e {
        StoreError::Sql(e) => StoreError::Corrupt(e.to_string()),
        StoreError::Pg(m) => StoreError::Pg(m.clone()),
        StoreError::Unreachable(m) => StoreError::Unreachable(m.clone()),
        StoreError::Fenced(m) => StoreError::Fenced(m.clone()),
        StoreError::Corrupt(m) => StoreError::Corrupt(m.clone()),
    }
}

impl<C: ColdKeys> ColdKeys for Grouped<C> {
    fn find(&self, ids: &[KeyId], since_ms: u64) -> Result<Vec<AnswerRow>, StoreError> {
        let told = self.join(ids, since_ms);
        loop {
            match told.recv() {
                Ok(Told::Found(found)) => return found,
                Ok(Told::Lead) => self.lead(),
                Ok(Told::Alone) => return self.inner.find(ids, since_ms),
                Err(_) => return Err(StoreError::Unreachable("the key lookup it waited for failed".into())),
            }
        }
    }

    fn admits(&self) -> Result<(), crate::ledger::keys::Behind> {
        self.inner.admits()
    }
}

#[cfg(test)]
#[path = "grouped_tests.rs"]
mod tests;
