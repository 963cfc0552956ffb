//! The single writer: one thread owns the casino and the store. It takes requests
//! in batches — everything waiting, up to [`MAX_BATCH`] — applies them in memory,
//! writes them in one transaction (one fsync for the whole batch: group commit),
//! and only then answers each request and publishes the committed records. A
//! request is never acknowledged before it is durable.
//!
//! If a commit fails the writer stops: memory would be ahead of the disk, so the
//! process must restart and recover from what is durable.

use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::thread::JoinHandle;

use crate::casino::{Casino, Reply, Request};
use crate::store::{Commit, Store};

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
    tx: SyncSender<Job>,
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
    /// Start the writer thread. `committed` sees the casino and each batch's
    /// commit once it is durable, before any of the batch's requests is answered.
    pub fn start<S: Store + 'static>(
        mut casino: Casino,
        mut store: S,
        committed: impl FnMut(&Casino, Commit) + Send + 'static,
    ) -> (Writer, JoinHandle<()>) {
        let (tx, rx) = sync_channel::<Job>(QUEUE);
        let handle = std::thread::Builder::new()
            .name("writer".into())
            .spawn(move || run(&mut casino, &mut store, rx, committed))
            .expect("spawn the writer thread");
        (Writer { tx }, handle)
    }

    /// Queue a request; `reply` is called once it is durable (or refused).
    pub fn send(&self, request: Request, reply: impl FnOnce(Reply) + Send + 'static) -> Result<(), Busy> {
        self.tx.try_send(Job { request, reply: Box::new(reply) }).map_err(|e| match e {
            TrySendError::Full(_) => Busy::Full,
            TrySendError::Disconnected(_) => Busy::Stopped,
        })
    }
}

fn run<S: Store>(casino: &mut Casino, store: &mut S, rx: Receiver<Job>, mut committed: impl FnMut(&Casino, Commit)) {
    while let Ok(first) = rx.recv() {
        let mut jobs = vec![first];
        while jobs.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(j) => jobs.push(j),
                Err(_) => break,
            }
        }
        let mut commit = Commit::default();
        let mut answers = Vec::with_capacity(jobs.len());
        for j in jobs {
            let reply = casino.handle(j.request, &mut commit);
            answers.push((j.reply, reply));
        }
        if let Err(e) = store.commit(&commit) {
            eprintln!("writer: commit failed, stopping so that recovery can run: {e}");
            std::process::exit(70);
        }
        committed(casino, commit);
        for (reply, answer) in answers {
            reply(answer);
        }
    }
}
