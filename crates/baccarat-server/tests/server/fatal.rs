//! A fatal condition in a partition of a process serving several
//! (`fatal.rs`): the failed commit's requests are never answered, nothing
//! is committed after it, the writer ends, and the process lives on. (The
//! whole path, a lease taken from under a partition and taken back, is the
//! CLI test `partitions`.)

use baccarat_core::TableId;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::channel;
use std::sync::Arc;

use baccarat_casino::casino::{Casino, Mode, Reply, Request};
use baccarat_casino::Writer;
use baccarat_core::store::{CheckpointBody, CheckpointSeal, Commit, Snapshot, SqliteStore, Store, StoreError};
use baccarat_core::trust::Actor;
use baccarat_core::Fatal;
use baccarat_rules::{Bet, Money};
use baccarat_table::{Command, PlayerId, Spot};

use super::common::TempDir;

const CONFIG: &str = "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 100000\n";

/// A SQLite store whose commits fail once `failing` is set (a disk gone, a
/// database out of reach).
struct Failing {
    inner: SqliteStore,
    failing: Arc<AtomicBool>,
}

impl Store for Failing {
    fn commit(&mut self, c: &Commit) -> Result<(), StoreError> {
        if self.failing.load(Ordering::SeqCst) {
            return Err(StoreError::Pg("the connection was lost".into()));
        }
        self.inner.commit(c)
    }
    fn load(&mut self) -> Result<Snapshot, StoreError> {
        self.inner.load()
    }
    fn write_checkpoint_parts(
        &mut self,
        head: &baccarat_casino::casino::checkpoint::Head,
        body: &mut CheckpointBody<'_>,
        seal: &mut CheckpointSeal<'_>,
    ) -> Result<(), StoreError> {
        self.inner.write_checkpoint_parts(head, body, seal)
    }
}

fn wager(key: &str) -> Request {
    Request::Wager {
        table: TableId(1),
        player: PlayerId(1),
        spot: Spot::Box(1),
        bet: Bet::Player,
        amount: Money(1000),
        key: key.parse().unwrap(),
        ante: Money::ZERO,
    }
}

/// Send `r` and wait for its answer: `None` if it was dropped unanswered.
fn ask(w: &Writer, r: Request) -> Option<Reply> {
    let (tx, rx) = channel();
    w.send(r, move |reply| tx.send(reply).unwrap()).ok()?;
    rx.recv().ok()
}

#[test]
fn a_partitions_failed_commit_stops_it_unanswered_and_commits_nothing_after() {
    let dir = TempDir::new(&format!("baccarat-fatal-{}", std::process::id()));
    let path = dir.join("casino.db");
    let mut store = SqliteStore::open(&path).unwrap();
    let mut c = Casino::new();
    let mut commit = Commit::default();
    c.create_table(TableId(1), "NSW", "nsw-2021", CONFIG, Mode::Rng, Money(100_000_000), &mut commit).unwrap();
    c.handle(Request::Deposit { player: PlayerId(1), amount: Money(100_000), key: "in".parse().unwrap() }, &mut commit);
    c.handle(Request::NewShoe { table: TableId(1) }, &mut commit);
    let open = Command::OpenBetting { no_bet: false, closes_at: None };
    c.handle(Request::Table { table: TableId(1), command: open, by: Actor::Server }, &mut commit);
    store.commit(&commit).unwrap();

    let failing = Arc::new(AtomicBool::new(false));
    let fatal = Fatal::standing_by();
    let published = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let p = published.clone();
    let (writer, handle) = Writer::start(
        c,
        Failing { inner: store, failing: failing.clone() },
        None,
        |_, _| (),
        move |_, _, _| {
            p.fetch_add(1, Ordering::SeqCst);
            None
        },
        fatal.clone(),
    );
    assert!(matches!(ask(&writer, wager("before")), Some(Reply::Wager { .. })));
    assert!(!fatal.fired());
    // What `/readyz` reads (`http/health.rs`).
    let watching = writer.clone();
    assert!(watching.running());

    failing.store(true, Ordering::SeqCst);
    assert_eq!(ask(&writer, wager("lost")).map(|r| format!("{r:?}")), None, "not answered: it is not durable");
    assert!(fatal.fired(), "the partition knows it must stop");
    // The commits can work again: nothing is committed after the fatal
    // condition all the same, and later requests go unanswered.
    failing.store(false, Ordering::SeqCst);
    assert!(ask(&writer, wager("after")).is_none());
    assert_eq!(published.load(Ordering::SeqCst), 1, "only the first batch was published");
    drop(writer);
    handle.join().expect("the writer ended, and the process lives on");
    assert!(!watching.running(), "the writer is seen to have stopped");
    assert_eq!(
        tokio::runtime::Runtime::new().unwrap().block_on(fatal.wait()),
        "committer: commit failed: database: the connection was lost"
    );

    // What is durable is what was answered.
    let store = SqliteStore::open(&path).unwrap();
    let c = Casino::recover(&store).unwrap();
    assert_eq!(c.balance(PlayerId(1)).unwrap(), (Money(100_000), Money(99_000)), "one wager held: 'before'");
}
