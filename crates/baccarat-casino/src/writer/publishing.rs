//! The third stage of the writer's pipeline: publishing each durable batch
//! and answering its requests, on a thread of its own (issue 51 item 5).
//!
//! The committer used to publish each batch (sign its anchor line, apply its
//! view changes, absorb its events, price the tables whose shown cards
//! changed, wake the sockets) and call each reply before it took the next
//! batch. On PostgreSQL that was 0.4-0.5 ms of every 3.2 ms cycle (a sixth)
//! during which the database had no commit to work on. Here the committer
//! hands the batch over once it is durable and takes the next one at once,
//! so the next commit overlaps this one's publishing.
//!
//! What stays true:
//! - a batch is published only after its commit is durable, and before any
//!   of its requests is answered (a client that has its answer reads its own
//!   change in every view);
//! - batches are published, and answered, in the order they committed (one
//!   thread, one queue);
//! - after a fatal condition nothing more is published or answered: a batch
//!   committed meanwhile (at most the [`AHEAD`] queued and the one in
//!   commit) is unanswered and unpublished, as a batch committed just before
//!   a crash is, and its clients find their answers by their keys;
//! - a checkpoint a request asked for (a clean stop's) is written by the
//!   committer, which owns the store: a batch with requests that wait for a
//!   checkpoint comes back to it once published, with the checkpoint if one
//!   was made (none while a table records a settlement: the request is then
//!   refused as `Settling`), and the committer takes no other batch until it
//!   has written it and answered those requests;
//! - a panic while publishing (a poisoned view's lock, a reply that
//!   panics) is a fatal condition, as a batch that cannot be anchored is: the
//!   committer commits nothing more.

use crossbeam_channel::{bounded, Receiver, Sender};

use crate::casino::checkpoint::WriteNow;
use crate::store::Commit;

use super::{Answer, DueCheckpoint};

/// Durable batches waiting to be published; the committer waits for room
/// beyond them (a publisher that falls behind slows the commits down rather
/// than letting memory grow).
pub(super) const AHEAD: usize = 2;

/// A durable batch to publish and answer.
pub(super) struct Durable<P> {
    pub(super) prepared: P,
    pub(super) commit: Commit,
    pub(super) due: Option<DueCheckpoint>,
    pub(super) answers: Vec<Answer>,
    /// Set when requests of the batch wait for a checkpoint: the checkpoint
    /// to write now, if publishing made one, goes back to the committer
    /// through it, which then answers them.
    pub(super) back: Option<Sender<Back>>,
}

/// What a batch whose requests wait for a checkpoint gives back to the
/// committer: the checkpoint to write now, if publishing made one.
pub(super) type Back = Option<WriteNow>;

/// The publisher's end of the hand-over, and the committer's.
pub(super) fn channel<P>() -> (Sender<Durable<P>>, Receiver<Durable<P>>) {
    bounded(AHEAD)
}

/// Publish and answer each batch handed over, in order, until the committer
/// ends or a fatal condition.
pub(super) fn publish_each<P>(
    rx: Receiver<Durable<P>>,
    publish: &mut impl FnMut(P, Commit, Option<DueCheckpoint>) -> Option<WriteNow>,
    stopped: &baccarat_core::Fatal,
) {
    let seconds = metrics::histogram!(crate::metered::PUBLISH_SECONDS);
    let _fatal_if_it_panics = PanicIsFatal(stopped);
    while let Ok(d) = rx.recv() {
        let began = std::time::Instant::now();
        // Nothing published after a fatal condition (a batch committed
        // after the one that failed to publish), nor answered if publishing
        // found one (the batch could not be anchored): their clients retry
        // with their keys.
        if stopped.fired() {
            return;
        }
        let now = publish(d.prepared, d.commit, d.due);
        if stopped.fired() {
            return;
        }
        for (reply, answer) in d.answers {
            reply(answer);
        }
        seconds.record(began.elapsed().as_secs_f64());
        if let Some(back) = d.back {
            // The committer waits for it; gone only if it ended.
            let _ = back.send(now);
        }
    }
}

/// Fires the fatal condition if the publisher's thread unwinds: the batches
/// it holds are then neither published nor answered, and none after them
/// may be committed.
struct PanicIsFatal<'a>(&'a baccarat_core::Fatal);

impl Drop for PanicIsFatal<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.fire(70, "publisher: a panic while publishing or answering a batch");
        }
    }
}
