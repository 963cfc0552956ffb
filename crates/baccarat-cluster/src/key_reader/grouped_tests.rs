//! Group lookup: lookups that wait share a query, each is told exactly its
//! own keys' answers within its own window (or asks alone when the group
//! cannot say), an answer written while a lookup waits is seen, an error
//! reaches every lookup of its group, and a query that panics leaves no
//! lookup waiting. A lookup that never returns fails its test after a
//! deadline instead of hanging it.

use super::*;
use crate::ledger::Cause;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Receiver};
use std::sync::{Arc, Condvar};
use std::time::Duration;

/// A store holding `rows`. Each query takes a permit first, and waits for
/// one (so that lookups pile up behind it); `fail` makes every query fail,
/// `panic` makes them panic. It counts its queries and what they asked.
#[derive(Debug, Default)]
struct Store {
    rows: Mutex<Vec<AnswerRow>>,
    permits: Mutex<usize>,
    granted: Condvar,
    /// Queries begun (held for a permit or not).
    entered: AtomicUsize,
    queries: AtomicUsize,
    asked: Mutex<Vec<(Vec<KeyId>, u64)>>,
    fail: bool,
    panic: bool,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Store {
    fn with(rows: Vec<AnswerRow>) -> Store {
        Store { rows: Mutex::new(rows), ..Store::default() }
    }

    fn grant(&self, n: usize) {
        *lock(&self.permits) += n;
        self.granted.notify_all();
    }
}

impl ColdKeys for Store {
    fn find(&self, ids: &[KeyId], since_ms: u64) -> Result<Vec<AnswerRow>, StoreError> {
        // The query's snapshot: the rows as it begins.
        let rows = lock(&self.rows).clone();
        self.entered.fetch_add(1, Ordering::SeqCst);
        {
            let mut permits =
                self.granted.wait_while(lock(&self.permits), |p| *p == 0).unwrap_or_else(|p| p.into_inner());
            *permits -= 1;
        }
        self.queries.fetch_add(1, Ordering::SeqCst);
        lock(&self.asked).push((ids.to_vec(), since_ms));
        if self.panic {
            panic!("the query panicked");
        }
        if self.fail {
            return Err(StoreError::Unreachable("network cut".into()));
        }
        // The latest answer (by number) under each id at or after `since_ms`.
        let mut found: Vec<AnswerRow> = Vec::new();
        for r in rows.iter().filter(|r| ids.contains(&r.key_id) && r.at_ms >= since_ms) {
            match found.iter_mut().find(|f| f.key_id == r.key_id) {
                Some(f) if f.seq < r.seq => *f = r.clone(),
                Some(_) => {}
                None => found.push(r.clone()),
            }
        }
        Ok(found)
    }
}

fn row(id: u128, seq: u64, at_ms: u64) -> AnswerRow {
    AnswerRow {
        seq,
        key: String::new(),
        key_id: KeyId(id),
        request: [0; 32],
        answer: format!("answer {seq}"),
        cause: Cause::None,
        at_ms,
    }
}

type Told = (usize, Result<Vec<AnswerRow>, StoreError>);

/// Lookups that report on `tx` (their number and what they were told).
struct Lookups {
    g: Arc<Grouped<Store>>,
    tx: std::sync::mpsc::Sender<Told>,
    rx: Receiver<Told>,
    sent: usize,
}

impl Lookups {
    fn new(store: Store) -> Lookups {
        Lookups::over(Grouped::new(store))
    }

    fn over(g: Grouped<Store>) -> Lookups {
        let (tx, rx) = channel();
        Lookups { g: Arc::new(g), tx, rx, sent: 0 }
    }

    /// Lookup number `sent` for `ids` from `since`, on a thread of its own.
    fn send(&mut self, ids: &[u128], since: u64) {
        let (g, tx, n) = (self.g.clone(), self.tx.clone(), self.sent);
        let ids: Vec<KeyId> = ids.iter().map(|&i| KeyId(i)).collect();
        std::thread::spawn(move || {
            let _ = tx.send((n, g.find(&ids, since)));
        });
        self.sent += 1;
    }

    /// Wait until `n` queries have begun and `k` lookups wait in the queue.
    fn until(&self, n: usize, k: usize) {
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while self.g.inner.entered.load(Ordering::SeqCst) < n || self.g.queue().waiting.len() < k {
            assert!(std::time::Instant::now() < deadline, "the lookups did not queue");
            std::thread::yield_now();
        }
    }

    /// Every answer so far, by lookup; a lookup that never answers fails.
    fn answers(&self, n: usize) -> Vec<Result<Vec<AnswerRow>, StoreError>> {
        let mut got: Vec<Option<_>> = (0..n).map(|_| None).collect();
        for _ in 0..n {
            let (i, r) = self.rx.recv_timeout(Duration::from_secs(60)).expect("a lookup never answered");
            got[i] = Some(r);
        }
        got.into_iter().map(|r| r.expect("each lookup answers once")).collect()
    }
}

#[test]
fn lookups_that_wait_share_one_query_and_each_is_told_its_own_rows() {
    // Key 10i answered twice (seq i and 100 + i, at 1,000 and 2,000 ms);
    // key 10i + 1 never.
    let rows = (0..20).flat_map(|i| [row(10 * i, i as u64, 1_000), row(10 * i, 100 + i as u64, 2_000)]).collect();
    let mut l = Lookups::new(Store::with(rows));
    // The first lookup leads and waits for a permit; nineteen more queue.
    l.send(&[0, 1], 0);
    l.until(1, 0);
    for i in 1..20u128 {
        l.send(&[10 * i, 10 * i + 1], 0);
    }
    l.until(1, 19);
    l.g.inner.grant(2);
    let answers = l.answers(20);
    // Two queries: the first lookup's, then one for all nineteen.
    assert_eq!(l.g.inner.queries.load(Ordering::SeqCst), 2);
    let asked = lock(&l.g.inner.asked);
    assert_eq!(asked[1].0.len(), 38, "the second query asks for every key that waited, once");
    for (i, found) in answers.into_iter().enumerate() {
        let found = found.unwrap();
        assert_eq!(found.len(), 1, "lookup {i}: its own key's latest answer only: {found:?}");
        assert_eq!((found[0].key_id, found[0].seq), (KeyId(10 * i as u128), 100 + i as u64));
    }
    assert!(!l.g.queue().leading, "no one leads once the queue is empty");
}

/// The group asks from the earliest window; a lookup with a later one is
/// told the group's row when it falls within its window, and asks on its
/// own when not (the key's latest answer is before its window: nothing; or,
/// the clock set back, the latest by number is older than an earlier one).
#[test]
fn a_lookup_with_a_later_window_is_told_only_what_the_group_can_say() {
    let rows = vec![
        row(1, 1, 5_000),
        row(2, 2, 1_000),
        // Key 3: answered at 5,000 ms, then again with the clock set back.
        row(3, 3, 5_000),
        row(3, 4, 1_000),
    ];
    let mut l = Lookups::new(Store::with(rows));
    l.send(&[99], 0);
    l.until(1, 0);
    l.send(&[1], 0); // the group's window
    l.send(&[1], 3_000);
    l.send(&[2], 3_000);
    l.send(&[3], 3_000);
    l.until(1, 4);
    l.g.inner.grant(10);
    let answers: Vec<Vec<u64>> = l.answers(5).into_iter().map(|r| r.unwrap().iter().map(|r| r.seq).collect()).collect();
    assert_eq!(answers, vec![vec![], vec![1], vec![1], vec![], vec![3]]);
    // The first query, the group's, and one of its own each for keys 2 and 3.
    assert_eq!(l.g.inner.queries.load(Ordering::SeqCst), 4);
    let asked = lock(&l.g.inner.asked);
    assert_eq!(asked[1], (vec![KeyId(1), KeyId(2), KeyId(3)], 0), "keys asked once, from the earliest window");
}

/// A lookup that waits behind a query sees an answer written while it
/// waited: its group's query starts after it joined.
#[test]
fn a_lookup_sees_an_answer_written_while_it_waited() {
    let mut l = Lookups::new(Store::with(Vec::new()));
    l.send(&[7], 0);
    l.until(1, 0);
    l.send(&[7], 0);
    l.until(1, 1);
    lock(&l.g.inner.rows).push(row(7, 1, 10));
    l.g.inner.grant(2);
    let found: Vec<usize> = l.answers(2).into_iter().map(|r| r.unwrap().len()).collect();
    // The first query's snapshot is older than the answer; the lookup that
    // waited behind it is not told that query's rows.
    assert_eq!(found, vec![0, 1], "the lookup that waited sees the answer written meanwhile");
}

/// The lead passes on as long as lookups come: three waves, three queries,
/// every lookup answered, the same key in two lookups asked once.
#[test]
fn the_lead_passes_from_group_to_group() {
    let mut l = Lookups::new(Store::with(vec![row(5, 1, 10)]));
    l.send(&[5], 0);
    l.until(1, 0);
    for _ in 0..4 {
        l.send(&[5, 6], 0);
    }
    l.until(1, 4);
    l.g.inner.grant(1);
    // The second wave's leader waits for its permit; a third wave queues.
    l.until(2, 0);
    for _ in 0..4 {
        l.send(&[5], 0);
    }
    l.until(2, 4);
    l.g.inner.grant(2);
    for (i, found) in l.answers(9).into_iter().enumerate() {
        assert_eq!(found.unwrap(), vec![row(5, 1, 10)], "lookup {i}");
    }
    assert_eq!(l.g.inner.queries.load(Ordering::SeqCst), 3);
    assert_eq!(lock(&l.g.inner.asked)[1].0, vec![KeyId(5), KeyId(6)], "each key asked once");
    assert!(!l.g.queue().leading);
}

#[test]
fn a_failed_query_fails_every_lookup_of_its_group() {
    let mut l = Lookups::new(Store { fail: true, ..Store::default() });
    l.send(&[1], 0);
    l.until(1, 0);
    for i in 2..9 {
        l.send(&[i], 0);
    }
    l.until(1, 7);
    l.g.inner.grant(2);
    for r in l.answers(8) {
        assert!(matches!(r, Err(StoreError::Unreachable(m)) if m == "network cut"));
    }
    assert_eq!(l.g.inner.queries.load(Ordering::SeqCst), 2);
}

/// Both leaders' queries panic (their own threads carry it: they never
/// answer); every other lookup is told an error, and no one leads after.
#[test]
fn a_query_that_panics_leaves_no_lookup_waiting() {
    let mut l = Lookups::new(Store { panic: true, ..Store::default() });
    l.send(&[1], 0);
    l.until(1, 0);
    for i in 2..7 {
        l.send(&[i], 0);
    }
    l.until(1, 5);
    l.g.inner.grant(2);
    // All but the two leaders are told (a lookup never told fails here).
    for _ in 0..4 {
        let (i, r) = l.rx.recv_timeout(Duration::from_secs(60)).expect("a lookup never answered");
        assert!(matches!(r, Err(StoreError::Unreachable(_))), "lookup {i}: {r:?}");
        assert!(i != 0, "the first leader panicked and never answers");
    }
    assert_eq!(l.g.inner.queries.load(Ordering::SeqCst), 2, "two leaders, two queries");
    // The second leader's lead ends as its group is told.
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while l.g.queue().leading {
        assert!(std::time::Instant::now() < deadline, "the lead was never given up");
        std::thread::yield_now();
    }
    assert!(l.rx.try_recv().is_err(), "the leaders never answer");
}

#[test]
fn a_lookup_alone_runs_its_own_query_at_once() {
    let g = Grouped::new(Store::with(vec![row(5, 1, 10)]));
    g.inner.grant(3);
    assert_eq!(g.find(&[KeyId(5)], 0).unwrap(), vec![row(5, 1, 10)]);
    assert_eq!(g.find(&[KeyId(5)], 11).unwrap(), vec![]);
    assert_eq!(g.find(&[KeyId(6)], 0).unwrap(), vec![]);
    assert_eq!(g.inner.queries.load(Ordering::SeqCst), 3);
    assert!(!g.queue().leading);
}

/// Each group's size and query time reach the exporter: a lookup alone
/// (a group of one), then a group of three behind a held query.
#[test]
fn each_groups_size_and_query_time_are_measured() {
    let recorder = metrics_exporter_prometheus::PrometheusBuilder::new().build_recorder();
    let shown = recorder.handle();
    let g = metrics::with_local_recorder(&recorder, || Grouped::new(Store::with(vec![row(5, 1, 10)])));
    let mut l = Lookups::over(g);
    l.send(&[5], 0);
    l.until(1, 0);
    for k in 0..3 {
        l.send(&[6 + k], 0);
    }
    l.until(1, 3);
    l.g.inner.grant(2);
    l.answers(4);
    let text = shown.render();
    let value = |name: &str| -> f64 {
        let line =
            text.lines().find(|x| x.starts_with(&format!("{name} "))).unwrap_or_else(|| panic!("{name} in {text}"));
        line.rsplit(' ').next().unwrap().parse().unwrap()
    };
    assert_eq!(value("baccarat_key_lookup_group_size_count"), 2.0, "two queries: {text}");
    assert_eq!(value("baccarat_key_lookup_group_size_sum"), 4.0, "one lookup, then three: {text}");
    assert_eq!(value("baccarat_key_lookup_seconds_count"), 2.0, "{text}");
}
