//! The open batch (`batching.rs`): requests that come while the committer
//! is busy join the batch that waits for it, up to `MAX_BATCH`; nothing is
//! answered before its commit; the log keeps their order.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::casino::{Casino, Reply, Request};
use crate::store::{CheckpointBody, CheckpointSeal, Commit, Snapshot, SqliteStore, Store, StoreError};
use crate::writer::{Funding, Writer, MAX_BATCH};
use baccarat_table::PlayerId;

/// A bound on every wait below: a lost batch fails the test instead of
/// hanging it (no rate is measured).
const DEADLINE: Duration = Duration::from_secs(60);

/// A store whose first commit waits until the test lets it go, and which
/// keeps each commit's answers' keys, in order.
pub(super) struct Gated {
    pub(super) inner: SqliteStore,
    /// Told when the first commit has begun.
    pub(super) began: Sender<()>,
    /// Waited on by the first commit.
    pub(super) gate: Receiver<()>,
    pub(super) commits: Arc<Mutex<Vec<Vec<String>>>>,
}

impl Store for Gated {
    fn commit(&mut self, c: &Commit) -> Result<(), StoreError> {
        let first = self.commits.lock().unwrap().is_empty();
        if first {
            self.began.send(()).unwrap();
            self.gate.recv_timeout(DEADLINE).expect("the test lets the first commit go");
        }
        // The ledger keeps a deposit's key under its kind and player.
        let keys =
            c.ledger.iter().filter_map(|ch| ch.answer.as_ref()).map(|a| a.key.replace("deposit:1:", "")).collect();
        self.inner.commit(c)?;
        self.commits.lock().unwrap().push(keys);
        Ok(())
    }
    fn load(&mut self) -> Result<Snapshot, StoreError> {
        self.inner.load()
    }
    fn write_checkpoint_parts(
        &mut self,
        head: &crate::casino::checkpoint::Head,
        body: &mut CheckpointBody<'_>,
        seal: &mut CheckpointSeal<'_>,
    ) -> Result<(), StoreError> {
        self.inner.write_checkpoint_parts(head, body, seal)
    }
}

/// A request's key and its answer.
type Answered = (String, Reply);

/// A writer over a [`Gated`] store: the writer, the gate's opener, the
/// first commit's start, the commits' keys, and every answer as it comes.
struct Rig {
    writer: Writer,
    open: Sender<()>,
    began: Receiver<()>,
    commits: Arc<Mutex<Vec<Vec<String>>>>,
    answers: (Sender<Answered>, Receiver<Answered>),
    answered: Arc<AtomicUsize>,
}

/// A partition's funding that funds nothing (the casino's own money pays).
struct NoBank;

impl Funding for NoBank {
    fn before_batch(&mut self, _: &mut Casino, _: &mut dyn Iterator<Item = &Request>, _: &mut Commit) {}
    fn before(&mut self, _: &mut Casino, _: &Request, _: &mut Commit) -> Option<Reply> {
        None
    }
    fn after_batch(&mut self, _: &mut Casino) {}
}

/// A writer over a gated store; a partition's (funded by a bank) if `bank`.
fn rig_with(bank: Option<Box<dyn Funding>>) -> Rig {
    let (open, gate) = channel();
    let (began_tx, began) = channel();
    let commits = Arc::default();
    let store = Gated { inner: SqliteStore::memory().unwrap(), began: began_tx, gate, commits: Arc::clone(&commits) };
    let (writer, _handle) =
        Writer::start(Casino::new(), store, bank, |_, _| (), |(), _, _| None, baccarat_core::Fatal::standing_by());
    Rig { writer, open, began, commits, answers: channel(), answered: Arc::default() }
}

fn rig() -> Rig {
    rig_with(None)
}

impl Rig {
    /// A deposit under key `key`, its answer sent on `answers`.
    fn deposit(&self, key: &str) {
        let (tx, k, n) = (self.answers.0.clone(), key.to_string(), Arc::clone(&self.answered));
        let r = Request::Deposit { player: PlayerId(1), amount: baccarat_rules::Money(100), key: key.parse().unwrap() };
        self.writer
            .send(r, move |reply| {
                n.fetch_add(1, Ordering::SeqCst);
                tx.send((k, reply)).unwrap();
            })
            .unwrap();
    }

    /// Wait until the writer has taken every request sent (they are in a
    /// batch, applied).
    fn taken(&self) {
        let until = Instant::now() + DEADLINE;
        while self.writer.queued() > 0 {
            assert!(Instant::now() < until, "the writer took nothing for a minute");
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// The next `n` answers, each within the deadline.
    fn answers(&self, n: usize) -> Vec<Answered> {
        (0..n)
            .map(|i| match self.answers.1.recv_timeout(DEADLINE) {
                Ok(a) => a,
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => {
                    panic!("answer {i} of {n} never came")
                }
            })
            .collect()
    }
}

fn keys(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}-{i}")).collect()
}

/// Requests taken in two goes while the committer is busy go in one batch:
/// two commits in all (the old pipeline, with a batch waiting in a channel
/// and the next applied behind it, made three), answered only after their
/// commit, the log in the order they were sent.
#[test]
fn requests_that_come_while_the_committer_is_busy_join_the_waiting_batch() {
    let rig = rig();
    rig.deposit("first");
    rig.began.recv_timeout(DEADLINE).expect("the first batch reached the committer");
    rig.deposit("second");
    rig.taken();
    let later = keys("later", 5);
    for k in &later {
        rig.deposit(k);
    }
    rig.taken();
    assert_eq!(rig.answered.load(Ordering::SeqCst), 0, "nothing is answered before its commit");
    rig.open.send(()).unwrap();
    let answers = rig.answers(7);
    assert!(answers.iter().all(|(_, r)| !matches!(r, Reply::Refused { .. })), "{answers:?}");
    let mut second = vec!["second".to_string()];
    second.extend(later);
    assert_eq!(*rig.commits.lock().unwrap(), vec![vec!["first".to_string()], second]);
}

/// A waiting batch takes no more than `MAX_BATCH` requests: the rest wait
/// for the batch after it, in order.
#[test]
fn a_waiting_batch_stops_at_the_most_a_batch_takes() {
    let rig = rig();
    rig.deposit("first");
    rig.began.recv_timeout(DEADLINE).expect("the first batch reached the committer");
    let many = keys("many", MAX_BATCH + 10);
    for k in &many {
        rig.deposit(k);
    }
    // The writer takes a full batch, then waits for the committer with the
    // other ten still queued.
    let until = Instant::now() + DEADLINE;
    while rig.writer.queued() > 10 {
        assert!(Instant::now() < until, "the writer did not fill the batch");
        std::thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(rig.writer.queued(), 10, "a full batch takes no more");
    rig.open.send(()).unwrap();
    rig.answers(MAX_BATCH + 11);
    let commits = rig.commits.lock().unwrap();
    assert_eq!(commits.len(), 3, "the first, a full batch, the rest");
    assert!(commits[1] == many[..MAX_BATCH], "the full batch: the first {MAX_BATCH}, in order");
    assert_eq!(commits[2], many[MAX_BATCH..]);
}

/// Commit 1 held; `second` taken into the batch that waits, then `between`
/// sent and taken; then three more sent (and, if they can `join` it, taken:
/// else the writer waits on the committer with the batch closed): the
/// commits' keys once released.
fn after_a_waiting_batch_takes(rig: &Rig, between: Option<Request>, join: bool) -> Vec<Vec<String>> {
    rig.deposit("first");
    rig.began.recv_timeout(DEADLINE).expect("the first batch reached the committer");
    rig.deposit("second");
    rig.taken();
    let sent = between.is_some();
    let (tx, asked) = channel();
    if let Some(r) = between {
        rig.writer.send(r, move |reply| tx.send(reply).unwrap()).unwrap();
        rig.taken();
    }
    for k in keys("later", 3) {
        rig.deposit(&k);
    }
    if join {
        rig.taken();
    }
    rig.open.send(()).unwrap();
    rig.answers(5);
    if sent {
        asked.recv_timeout(DEADLINE).expect("the request between was answered");
    }
    rig.commits.lock().unwrap().clone()
}

/// A clean stop's checkpoint request closes the batch it joins: what comes
/// after it waits for the next batch, so the checkpoint is the state the
/// request asked for it in (a card after it could leave a table settling,
/// and no checkpoint due).
#[test]
fn a_checkpoint_request_closes_the_waiting_batch() {
    let commits = after_a_waiting_batch_takes(&rig(), Some(Request::Checkpoint), false);
    assert_eq!(commits, [vec!["first".to_string()], vec!["second".to_string()], keys("later", 3)]);
}

/// A partition's waiting batch takes no more: each take's wagers are funded
/// at the shared bank in a transaction of their own, one a batch.
#[test]
fn a_partitions_waiting_batch_takes_no_more() {
    let commits = after_a_waiting_batch_takes(&rig_with(Some(Box::new(NoBank))), None, false);
    assert_eq!(commits, [vec!["first".to_string()], vec!["second".to_string()], keys("later", 3)]);
    // And without a bank, the same requests join the waiting batch.
    let commits = after_a_waiting_batch_takes(&rig(), None, true);
    let mut second = vec!["second".to_string()];
    second.extend(keys("later", 3));
    assert_eq!(commits, [vec!["first".to_string()], second]);
}
