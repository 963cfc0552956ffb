//! The single writer: one thread owns the casino. It takes requests in batches
//! — everything waiting, up to [`MAX_BATCH`] — and applies them in memory; a
//! second thread, the committer, owns the store and writes each batch in one
//! transaction (one fsync for the whole batch: group commit); a third, the
//! publisher, then publishes what changed and answers each request. A
//! request is never acknowledged before it is durable.
//!
//! The threads form a pipeline: while batch N is being committed, batch N+1
//! is applied, and the requests that come meanwhile join it until the
//! committer takes it (`writer/batching.rs` says why); while N+1 commits, N
//! is published and answered (`writer/publishing.rs`). So memory runs at
//! most one batch ahead of the disk, and batches commit, and are answered,
//! in order. What a batch changed for the read model is prepared on the
//! writer (it needs the casino) and made visible by the publisher after the
//! commit, so nothing is shown before it is durable.
//!
//! On a partition of a PostgreSQL casino, the writer also asks the shared
//! bank for a short wager's money, makes deposits there, and gives idle money
//! back with each batch (`bank/link.rs`, `casino/bank_side.rs`).
//!
//! If a commit fails the server stops (`fatal.rs`): memory would be ahead of
//! the disk, so it must start again and recover from what is durable. From
//! then on nothing is committed or answered, and the writer ends.
//!
//! When a checkpoint is due (`checkpoint.rs`), the writer clones the casino's
//! live state into the batch; `publish` completes and seals it once the batch
//! is durable, after the batch's answers are sent (it costs no request any
//! latency); a checkpoint a request asked for (a clean stop's) the committer
//! then writes, and only then answers that request.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use crossbeam_channel::{bounded, Receiver, Sender, TrySendError};

use crate::casino::checkpoint::WriteNow;
use crate::casino::{Casino, Reply, Request};
use crate::store::{Commit, Store};

mod batching;
#[cfg(test)]
mod batching_tests;
mod publishing;
#[cfg(test)]
mod publishing_tests;

/// Most requests in one transaction.
pub const MAX_BATCH: usize = 4096;
/// Most requests waiting for the writer; beyond it requests are refused as busy.
pub const QUEUE: usize = 65_536;

/// A request and where to send its answer.
pub struct Job {
    pub request: Request,
    pub reply: Box<dyn FnOnce(Reply) + Send>,
}

/// A handle to send requests to the writer.
#[derive(Clone)]
pub struct Writer {
    tx: Sender<Job>,
    /// Requests sent and not yet taken into a batch (`GET /metrics`).
    queued: Arc<AtomicUsize>,
    /// Whether both threads still run (`GET /readyz`): cleared when either
    /// ends, a fatal condition's or a panic's unwinding included.
    running: Arc<AtomicBool>,
}

/// Clears a writer's `running` when its thread ends, however it ends.
struct Alive(Arc<AtomicBool>);

impl Drop for Alive {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

/// The writer is overloaded or gone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Busy {
    #[error("the table server is busy; retry with the same idempotency key")]
    Full,
    #[error("the table server is stopping")]
    Stopped,
}

impl Writer {
    /// Start the writer and committer threads. `prepare` sees the casino and
    /// each batch's commit on the writer; `publish` gets what it returned, with
    /// the commit, once that is durable and before any of its requests is
    /// answered, and returns the checkpoint to write before the answers that
    /// wait for it (a clean stop's), if the batch carries one.
    pub fn start<S: Store + 'static, P: Send + 'static>(
        mut casino: Casino,
        mut store: S,
        mut bank: Option<Box<dyn Funding>>,
        mut prepare: impl FnMut(&Casino, &Commit) -> P + Send + 'static,
        publish: impl FnMut(P, Commit, Option<DueCheckpoint>) -> Option<WriteNow> + Send + 'static,
        fatal: baccarat_core::Fatal,
    ) -> (Writer, JoinHandle<()>) {
        let (tx, rx) = bounded::<Job>(QUEUE);
        // No place between them: the writer hands a batch over only when the
        // committer is free to take it, and adds to it until then.
        let (ctx, crx) = bounded::<Batch<P>>(0);
        // Tells the key memory which answers are on disk (and may leave it).
        let durable = casino.ledger.keys.durable();
        let stopped = fatal.clone();
        let running = Arc::new(AtomicBool::new(true));
        let (alive, queued) = (Alive(running.clone()), Arc::new(AtomicUsize::new(0)));
        std::thread::Builder::new()
            .name("committer".into())
            .spawn(move || {
                let _alive = alive;
                commit_each(crx, &mut store, &durable, publish, &stopped)
            })
            .expect("spawn the committer thread");
        let handle = std::thread::Builder::new()
            .name("writer".into())
            .spawn({
                let (alive, taken) = (Alive(running.clone()), queued.clone());
                move || {
                    let _alive = alive;
                    batching::run(&mut casino, bank.as_mut(), (rx, &taken), ctx, &mut prepare, &fatal)
                }
            })
            .expect("spawn the writer thread");
        (Writer { tx, queued, running }, handle)
    }

    /// Requests waiting for the writer.
    pub fn queued(&self) -> usize {
        self.queued.load(Ordering::Relaxed)
    }

    /// Whether the writer and its committer still run.
    pub fn running(&self) -> bool {
        self.running.load(Ordering::Acquire)
    }

    /// Queue a request; `reply` is called once it is durable (or refused).
    pub fn send(&self, request: Request, reply: impl FnOnce(Reply) + Send + 'static) -> Result<(), Busy> {
        // Counted before it is sent: the writer may take it at once.
        self.queued.fetch_add(1, Ordering::Relaxed);
        self.tx.try_send(Job { request, reply: Box::new(reply) }).map_err(|e| {
            self.queued.fetch_sub(1, Ordering::Relaxed);
            match e {
                TrySendError::Full(_) => Busy::Full,
                TrySendError::Disconnected(_) => Busy::Stopped,
            }
        })
    }
}

/// The committer: each batch committed (timed: `metered.rs`), then handed
/// to the publisher (`writer/publishing.rs`), which publishes and answers
/// it while the next one commits; until the writer ends or a fatal
/// condition. The publisher's thread ends with it, its last answers sent.
fn commit_each<S: Store, P: Send + 'static>(
    crx: Receiver<Batch<P>>,
    store: &mut S,
    durable: &std::sync::atomic::AtomicU64,
    mut publish: impl FnMut(P, Commit, Option<DueCheckpoint>) -> Option<WriteNow> + Send + 'static,
    stopped: &baccarat_core::Fatal,
) {
    let (ptx, prx) = publishing::channel::<P>();
    let publisher = std::thread::Builder::new()
        .name("publisher".into())
        .spawn({
            let stopped = stopped.clone();
            move || publishing::publish_each(prx, &mut publish, &stopped)
        })
        .expect("spawn the publisher thread");
    commit_and_hand_over(crx, store, durable, &ptx, stopped);
    drop(ptx);
    let _ = publisher.join();
}

/// Commit each batch, and hand it over to the publisher once durable; a
/// batch that carries a checkpoint is waited for, and its checkpoint written
/// here, before its waiting requests are answered.
fn commit_and_hand_over<S: Store, P>(
    crx: Receiver<Batch<P>>,
    store: &mut S,
    durable: &std::sync::atomic::AtomicU64,
    publisher: &crossbeam_channel::Sender<publishing::Durable<P>>,
    stopped: &baccarat_core::Fatal,
) {
    let (metered, wagers) = (crate::metered::Batches::default(), crate::metered::Wagers::new());
    while let Ok(b) = crx.recv() {
        let _commit = tracing::info_span!("commit", size = b.answers.len()).entered();
        // Nothing is committed after a fatal condition (the batch may have
        // been applied on top of one).
        if stopped.fired() {
            return;
        }
        let began = std::time::Instant::now();
        if let Err(e) = store.commit(&b.commit) {
            stopped.fire(70, &format!("committer: commit failed: {e}"));
            return;
        }
        metered.commit_seconds.record(began.elapsed().as_secs_f64());
        wagers.add(&b.tally);
        if let Some(seq) = b.commit.ledger.iter().filter_map(|c| c.answer.as_ref()).map(|a| a.seq).max() {
            durable.store(seq, Ordering::Release);
        }
        if hand_over(store, publisher, b).is_none() {
            return;
        }
    }
}

/// Hand durable `b` to the publisher. One with requests that wait for a
/// checkpoint (a clean stop's: answered after it is written, or refused as
/// `Settling` while a table records a settlement) is waited for, its
/// checkpoint, if publishing made one, written here, and those requests
/// answered, before the next batch is committed. `None`: the publisher has
/// ended (a fatal condition).
fn hand_over<S: Store, P>(
    store: &mut S,
    publisher: &crossbeam_channel::Sender<publishing::Durable<P>>,
    b: Batch<P>,
) -> Option<()> {
    let (back, returned) = match b.after.is_empty() {
        false => {
            let (tx, rx) = bounded(1);
            (Some(tx), Some(rx))
        }
        true => (None, None),
    };
    let d = publishing::Durable { prepared: b.prepared, commit: b.commit, due: b.due, answers: b.answers, back };
    publisher.send(d).ok()?;
    let Some(returned) = returned else { return Some(()) };
    if let Some(now) = returned.recv().ok()? {
        // A checkpoint that cannot be written costs a longer replay at the
        // next start, nothing else.
        if let Err(e) = now.write(store) {
            tracing::warn!(error = %e, "committer: checkpoint not written; the next start reads a longer tail");
        }
    }
    for (reply, answer) in b.after {
        reply(answer);
    }
    Some(())
}

/// A request's reply callback and its answer, waiting for the commit.
type Answer = (Box<dyn FnOnce(Reply) + Send>, Reply);

/// Where a casino's players' money comes from beyond its own ledger, called
/// by the writer at three points of each take of requests (a batch gathers
/// several takes while it waits for the committer: `writer/batching.rs`). One server's casino holds
/// all its money and has none (`None`); a partition of a PostgreSQL casino
/// is funded by the shared bank (`bank/link.rs`'s `BankLink`), which lives
/// in the layer above and is handed in as this trait, so that the writer
/// names no PostgreSQL.
pub trait Funding: Send {
    /// Before a take's requests: players' limits changed elsewhere are
    /// folded, and the take's wagers funded at once.
    fn before_batch(&mut self, casino: &mut Casino, requests: &mut dyn Iterator<Item = &Request>, commit: &mut Commit);
    /// Before one request: a request the funding answers itself (a deposit
    /// at a partition's cage), else `None` for the casino to handle.
    fn before(&mut self, casino: &mut Casino, request: &Request, commit: &mut Commit) -> Option<Reply>;
    /// After a take's requests: what they changed that others must see.
    fn after_batch(&mut self, casino: &mut Casino);
}

/// The casino's state as a batch leaves it, when a checkpoint is due
/// (`checkpoint.rs`): it travels beside the batch's commit (the store never
/// sees it) and is sealed and written once the batch is durable.
pub struct DueCheckpoint {
    pub checkpoint: Box<crate::casino::checkpoint::Checkpoint>,
    /// A request asked for this checkpoint (a clean stop): it is written
    /// before that request is answered, not in the background.
    pub asked: bool,
}

/// One applied batch on its way to the disk.
struct Batch<P> {
    commit: Commit,
    due: Option<DueCheckpoint>,
    answers: Vec<Answer>,
    /// Answers that wait for the batch's checkpoint to be written.
    after: Vec<Answer>,
    prepared: P,
    /// Its wagers, counted once it is durable.
    tally: crate::metered::Tally,
}
