//! The writer's loop: a batch stays open to the requests that come while the
//! committer is busy, and is handed over as the committer is free.
//!
//! # Why (issue 51 item 5: commits that carry their weight)
//!
//! A request waits for its batch to be taken and for its batch's commit. The
//! writer used to apply a batch and hand it to a channel of one place, then
//! apply the next and wait to hand it over: one batch committing, one in the
//! channel, one applied and waiting. A request that came meanwhile waited for
//! about three and a half commits. On PostgreSQL under `loadgen` (64 requests
//! in flight, betting open throughout) that made batches of 15.8 requests,
//! commits of 1.5 ms, and a median answer of 7.4 ms: the commits stayed small
//! because the requests were queued behind batches already made
//! (docs/performance.md).
//!
//! Now the writer applies what waits into the open batch and, until the
//! committer is free, applies whatever comes next into the same batch; the
//! committer takes it as it then is. A request waits for the commit under
//! way and its own: larger commits, fewer of them, the same log in the same
//! order (a batch is the requests of several takes, one after another, in one
//! transaction), and memory still at most one batch ahead of the disk.
//!
//! What ends a batch is done as it is handed over, so that it sees the whole
//! batch: a partition's idle money given back, the checkpoint's decision (a
//! checkpoint is the state at the batch's end) and the views' changes (a
//! few microseconds, and a clone of the casino when a checkpoint is due,
//! now while the committer waits for it rather than during the commit
//! before). A settling table's next chunk (`casino/settle.rs`) is added once
//! per batch, as it opens (while the batch before commits), never while it
//! waits: an open batch would gather chunk after chunk.
//!
//! A batch takes no more once it holds [`MAX_BATCH`] requests, or a
//! checkpoint's request (a clean stop's: the requests after it, a pacer's
//! card that completes a coup say, could leave a table settling and the
//! checkpoint not due), and a partition's batch never does: each take's
//! wagers are funded at the shared bank in a transaction of their own
//! (`bank/link.rs`), one a batch as before.

use std::sync::atomic::{AtomicUsize, Ordering};

use crossbeam_channel::{Receiver, Select, Sender, TryRecvError};

use super::{Answer, Batch, DueCheckpoint, Funding, Job, MAX_BATCH};
use crate::casino::{Casino, Request};
use crate::store::Commit;

/// The writer's loop: each batch opened with what waits, kept open to what
/// comes until the committer is free, then handed over. `(rx, queued)`: the
/// requests, and how many are waiting.
pub(super) fn run<P>(
    casino: &mut Casino,
    mut bank: Option<&mut Box<dyn Funding>>,
    (rx, queued): (Receiver<Job>, &AtomicUsize),
    committer: Sender<Batch<P>>,
    prepare: &mut impl FnMut(&Casino, &Commit) -> P,
    fatal: &baccarat_core::Fatal,
) {
    let batches = crate::metered::Batches::default();
    loop {
        if fatal.fired() {
            return;
        }
        let Some(jobs) = next_batch(casino, &rx) else { return };
        let mut open = Open::default();
        open.apply(casino, bank.as_deref_mut(), jobs, queued);
        casino.settle_some(&mut open.commit);
        // Until the committer is free: what comes joins this batch. (The
        // requests' senders all gone, it is handed over when the committer
        // is free, and `next_batch` says whether a settlement goes on.)
        loop {
            if fatal.fired() {
                return;
            }
            match wait(&rx, &committer, open.takes_more(bank.is_some())) {
                Ready::Committer => break,
                Ready::Requests => match take(&rx, MAX_BATCH - open.jobs()) {
                    Ok(jobs) => open.apply(casino, bank.as_deref_mut(), jobs, queued),
                    Err(SendersGone) => break,
                },
            }
        }
        if open.jobs() > 0 {
            batches.size.record(open.jobs() as f64);
        }
        if committer.send(open.close(casino, prepare)).is_err() {
            return;
        }
    }
}

/// The next batch's first jobs: everything waiting, up to [`MAX_BATCH`],
/// once one has come. While a table records a large settlement in chunks,
/// the writer does not wait for requests: each batch carries one more chunk,
/// and may have no job. `None`: every sender is gone (and nothing is being
/// settled).
fn next_batch(casino: &Casino, rx: &Receiver<Job>) -> Option<Vec<Job>> {
    if casino.settling() {
        return Some(take(rx, MAX_BATCH).unwrap_or_default());
    }
    let first = rx.recv().ok()?;
    Some(with_waiting(first, rx, MAX_BATCH))
}

/// What the writer waits for with a batch open.
enum Ready {
    /// The committer is free to take it (or gone: the handing over says).
    Committer,
    /// Requests have come (or every sender is gone: the taking says).
    Requests,
}

/// Wait for the committer to be free or, while the batch takes more
/// (`more`), for a request; the committer first when both are ready, so it
/// never waits for requests that can join the next batch.
fn wait<P>(rx: &Receiver<Job>, committer: &Sender<Batch<P>>, more: bool) -> Ready {
    let mut sel = Select::new();
    let free = sel.send(committer);
    if !more || sel.try_ready() == Ok(free) {
        return Ready::Committer;
    }
    sel.recv(rx);
    if sel.ready() == free {
        Ready::Committer
    } else {
        Ready::Requests
    }
}

/// Every sender of requests is gone: no request will come.
struct SendersGone;

/// Everything waiting, up to `room`. (`Select` may wake for nothing: then
/// none.)
fn take(rx: &Receiver<Job>, room: usize) -> Result<Vec<Job>, SendersGone> {
    match rx.try_recv() {
        Ok(first) => Ok(with_waiting(first, rx, room)),
        Err(TryRecvError::Empty) => Ok(Vec::new()),
        Err(TryRecvError::Disconnected) => Err(SendersGone),
    }
}

/// `first`, then whatever waits, `room` jobs in all at most.
fn with_waiting(first: Job, rx: &Receiver<Job>, room: usize) -> Vec<Job> {
    std::iter::once(first).chain(rx.try_iter().take(room.saturating_sub(1))).collect()
}

/// A batch the writer is still adding to.
#[derive(Default)]
struct Open {
    commit: Commit,
    answers: Vec<Answer>,
    /// Answers that wait for the batch's checkpoint to be written.
    after: Vec<Answer>,
    tally: crate::metered::Tally,
}

impl Open {
    /// Whether requests that come may still join this batch (the module's
    /// notes say when not): `partition`, whether a bank funds its wagers.
    fn takes_more(&self, partition: bool) -> bool {
        !partition && self.jobs() < MAX_BATCH && self.after.is_empty()
    }

    /// Requests in it: each is answered once, now or after the checkpoint.
    fn jobs(&self) -> usize {
        self.answers.len() + self.after.len()
    }

    /// Apply `jobs`, taken together, to the casino and into this batch.
    fn apply(
        &mut self,
        casino: &mut Casino,
        mut bank: Option<&mut Box<dyn Funding>>,
        jobs: Vec<Job>,
        queued: &AtomicUsize,
    ) {
        if jobs.is_empty() {
            return;
        }
        // What the take logs (a table stopped, a key not read) names it.
        let _take = tracing::info_span!("batch", size = jobs.len()).entered();
        queued.fetch_sub(jobs.len(), Ordering::Relaxed);
        // The keys the take names that left memory are read in one go.
        casino.begin_batch(jobs.iter().map(|j| &j.request));
        // A partition's players' limits as changed at any partition, then
        // its wagers funded at the bank, the take's at once.
        if let Some(link) = bank.as_deref_mut() {
            link.before_batch(casino, &mut jobs.iter().map(|j| &j.request), &mut self.commit);
        }
        for j in jobs {
            // A deposit at a partition's cage is paid into the bank.
            if let Some(link) = bank.as_deref_mut() {
                if let Some(reply) = link.before(casino, &j.request, &mut self.commit) {
                    self.answers.push((j.reply, reply));
                    continue;
                }
            }
            let asked = matches!(j.request, Request::Checkpoint);
            let lines = crate::metered::Tally::lines(&j.request);
            let reply = casino.handle(j.request, &mut self.commit);
            self.tally.add(lines, &reply);
            if asked {
                self.after.push((j.reply, reply));
            } else {
                self.answers.push((j.reply, reply));
            }
        }
        // The days its wagers opened, for the other partitions.
        if let Some(link) = bank {
            link.after_batch(casino);
        }
    }

    /// End the batch for the committer: a partition's idle money given back
    /// with it, its checkpoint if one is due, what it changed in the views.
    fn close<P>(mut self, casino: &mut Casino, prepare: &mut impl FnMut(&Casino, &Commit) -> P) -> Batch<P> {
        casino.return_idle(&mut self.commit);
        let asked = !self.after.is_empty();
        let due = casino
            .checkpoint_due(&self.commit, asked)
            .then(|| DueCheckpoint { checkpoint: Box::new(casino.checkpoint()), asked });
        let prepared = prepare(casino, &self.commit);
        Batch { commit: self.commit, due, answers: self.answers, after: self.after, prepared, tally: self.tally }
    }
}
