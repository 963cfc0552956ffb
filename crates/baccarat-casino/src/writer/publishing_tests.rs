//! The publisher (`publishing.rs`): the next batch commits while one is
//! published; answers come after their batch is published, in the order
//! the batches committed; nothing is answered once publishing finds a fatal
//! condition.

use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::batching_tests::Gated;
use crate::casino::{Casino, Reply, Request};
use crate::store::{Commit, SqliteStore};
use crate::writer::Writer;
use baccarat_table::PlayerId;

/// A bound on every wait below: a lost batch fails the test instead of
/// hanging it (no rate is measured).
const DEADLINE: Duration = Duration::from_secs(60);

/// A writer whose first publish says it began and then waits for the test
/// (and, if `fail`, then fires a fatal condition, as a batch that cannot be
/// anchored does); the publishes' keys in order, the commits counted, and
/// every answer as it comes.
struct Rig {
    writer: Writer,
    open: Sender<()>,
    began: Receiver<()>,
    commits: Arc<Mutex<Vec<Vec<String>>>>,
    published: Arc<Mutex<Vec<Vec<String>>>>,
    answers: (Sender<String>, Receiver<String>),
    fatal: baccarat_core::Fatal,
    /// The store's word that its first commit began (unread).
    _reached: Receiver<()>,
}

fn rig(fail: bool) -> Rig {
    let (open, gate) = channel::<()>();
    let (began_tx, began) = channel();
    let (commits, published) = (Arc::default(), Arc::new(Mutex::new(Vec::<Vec<String>>::new())));
    let fatal = baccarat_core::Fatal::standing_by();
    // The store's own gate open from the start: only publishing is held.
    let ((store_began, reached), store_gate) = (channel(), channel());
    store_gate.0.send(()).unwrap();
    let store = Gated {
        inner: SqliteStore::memory().unwrap(),
        began: store_began,
        gate: store_gate.1,
        commits: Arc::clone(&commits),
    };
    let (log, stopped) = (Arc::clone(&published), fatal.clone());
    let publish = move |(), c: Commit, _| {
        let first = log.lock().unwrap().is_empty();
        if first {
            began_tx.send(()).unwrap();
            gate.recv_timeout(DEADLINE).expect("the test lets the first publish go");
            if fail {
                stopped.fire(70, "the test: this batch cannot be anchored");
            }
        }
        log.lock().unwrap().push(keys_of(&c));
        None
    };
    let (writer, _handle) = Writer::start(Casino::new(), store, None, |_, _| (), publish, fatal.clone());
    Rig { writer, open, began, commits, published, answers: channel(), fatal, _reached: reached }
}

/// A commit's answers' keys (the ledger keeps a deposit's under its kind and
/// player).
fn keys_of(c: &Commit) -> Vec<String> {
    c.ledger.iter().filter_map(|ch| ch.answer.as_ref()).map(|a| a.key.replace("deposit:1:", "")).collect()
}

impl Rig {
    /// A deposit under key `key`, its key sent on `answers` when answered.
    fn deposit(&self, key: &str) {
        let (tx, k) = (self.answers.0.clone(), key.to_string());
        let r = Request::Deposit { player: PlayerId(1), amount: baccarat_rules::Money(100), key: key.parse().unwrap() };
        self.writer
            .send(r, move |reply| {
                assert!(!matches!(reply, Reply::Refused { .. }), "{reply:?}");
                tx.send(k).unwrap();
            })
            .unwrap();
    }

    /// `first` sent and held in publishing, then `second` sent and
    /// committed (waited for).
    fn second_committed_while_first_publishes(&self) {
        self.deposit("first");
        self.began.recv_timeout(DEADLINE).expect("the first batch reached the publisher");
        self.deposit("second");
        let until = Instant::now() + DEADLINE;
        while self.commits.lock().unwrap().len() < 2 {
            assert!(Instant::now() < until, "the second commit never came");
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

/// While the first batch is being published (held by the test), the second
/// is committed (the committer no longer waits for publishing), yet neither
/// is answered; once let go, both are published and answered in the order
/// they committed.
#[test]
fn the_next_batch_commits_while_one_is_published() {
    let rig = rig(false);
    rig.second_committed_while_first_publishes();
    assert!(rig.answers.1.try_recv().is_err(), "nothing is answered before it is published");
    assert!(rig.published.lock().unwrap().is_empty());
    rig.open.send(()).unwrap();
    let answered: Vec<String> = (0..2).map(|_| rig.answers.1.recv_timeout(DEADLINE).unwrap()).collect();
    assert_eq!(answered, ["first", "second"]);
    assert_eq!(*rig.published.lock().unwrap(), [vec!["first".to_string()], vec!["second".to_string()]]);
}

/// A batch whose publishing fires a fatal condition is not answered, nor is
/// the batch committed behind it, nor anything after: the writer stops.
#[test]
fn nothing_is_answered_once_publishing_finds_a_fatal_condition() {
    let rig = rig(true);
    rig.second_committed_while_first_publishes();
    rig.open.send(()).unwrap();
    let until = Instant::now() + DEADLINE;
    while !rig.fatal.fired() {
        assert!(Instant::now() < until, "the publish never fired");
        std::thread::sleep(Duration::from_millis(1));
    }
    // The writer ends at its next request, which it drops unanswered (or,
    // had it already ended, refuses as stopped).
    let (tx, k) = (rig.answers.0.clone(), "third".to_string());
    let r = Request::Deposit { player: PlayerId(1), amount: baccarat_rules::Money(100), key: k.parse().unwrap() };
    let _ = rig.writer.send(r, move |_| tx.send(k).unwrap());
    while rig.writer.running() {
        assert!(Instant::now() < until, "the writer never stopped");
        std::thread::sleep(Duration::from_millis(1));
    }
    assert!(rig.answers.1.try_recv().is_err(), "nothing answered after the fatal condition");
    assert_eq!(rig.published.lock().unwrap().len(), 1, "the batch behind it was not published");
    assert_eq!(rig.commits.lock().unwrap().len(), 2, "nor the request after it committed");
}

/// A batch whose requests wait for a checkpoint that publishing does not
/// make (a clean stop's, refused as `Settling` while a table records a
/// settlement) still has them answered, once published, before the
/// committer goes on.
#[test]
fn requests_that_wait_for_a_checkpoint_are_answered_when_none_is_made() {
    let fatal = baccarat_core::Fatal::standing_by();
    let (ptx, prx) = super::publishing::channel::<()>();
    let stopped = fatal.clone();
    let publisher = std::thread::spawn(move || super::publishing::publish_each(prx, &mut |(), _, _| None, &stopped));
    let (tx, answered) = channel();
    let refused = Reply::refused(crate::casino::Code::Settling, "a coup's settlement is being recorded");
    let batch = super::Batch {
        commit: Commit::default(),
        due: None,
        answers: Vec::new(),
        after: vec![(Box::new(move |r: Reply| tx.send(r).unwrap()) as Box<dyn FnOnce(Reply) + Send>, refused.clone())],
        prepared: (),
        tally: Default::default(),
    };
    let mut store = SqliteStore::memory().unwrap();
    assert_eq!(super::hand_over(&mut store, &ptx, batch), Some(()));
    // Answered before `hand_over` returned: the committer goes on only then.
    assert_eq!(answered.try_recv().ok(), Some(refused));
    drop(ptx);
    publisher.join().unwrap();
}

/// A panic while publishing is a fatal condition: the committer commits
/// nothing after it.
#[test]
fn a_panic_while_publishing_is_fatal() {
    let fatal = baccarat_core::Fatal::standing_by();
    let (ptx, prx) = super::publishing::channel::<()>();
    let stopped = fatal.clone();
    let publisher = std::thread::spawn(move || {
        super::publishing::publish_each(prx, &mut |(), _, _| panic!("the test: a poisoned view"), &stopped)
    });
    let d = super::publishing::Durable {
        prepared: (),
        commit: Commit::default(),
        due: None,
        answers: Vec::new(),
        back: None,
    };
    ptx.send(d).unwrap();
    assert!(publisher.join().is_err(), "the publisher panicked");
    assert!(fatal.fired(), "and said so");
}
