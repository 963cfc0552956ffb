//! Group lookup: lookups that wait share a query, each is told exactly its
//! own keys' answers within its own window, an error reaches every lookup
//! of its group, and a query that panics leaves no lookup waiting.

use super::*;
use crate::ledger::Cause;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar};

/// A store holding `rows`; its first query waits until `open` is called
/// (so that lookups pile up behind it); `fail` makes every query fail,
/// `panic` makes them panic. It counts its queries and the keys they asked.
#[derive(Debug, Default)]
struct Store {
    rows: Vec<AnswerRow>,
    gate: Mutex<bool>,
    opened: Condvar,
    /// Queries begun (held at the gate or not).
    entered: AtomicUsize,
    queries: AtomicUsize,
    asked: Mutex<Vec<(Vec<KeyId>, u64)>>,
    fail: bool,
    panic: bool,
}

impl Store {
    fn open(&self) {
        *self.gate.lock().unwrap() = true;
        self.opened.notify_all();
    }
}

impl ColdKeys for Store {
    fn find(&self, ids: &[KeyId], since_ms: u64) -> Result<Vec<AnswerRow>, StoreError> {
        self.entered.fetch_add(1, Ordering::SeqCst);
        let _open = self.opened.wait_while(self.gate.lock().unwrap(), |open| !*open).unwrap();
        self.queries.fetch_add(1, Ordering::SeqCst);
        self.asked.lock().unwrap().push((ids.to_vec(), since_ms));
        if self.panic {
            panic!("the query panicked");
        }
        if self.fail {
            return Err(StoreError::Unreachable("network cut".into()));
        }
        // The latest answer under each id at or after `since_ms`.
        let mut found: Vec<AnswerRow> = Vec::new();
        for r in self.rows.iter().filter(|r| ids.contains(&r.key_id) && r.at_ms >= since_ms) {
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

/// Lookup `i` asks for keys `10i` and `10i + 1`, from `since(i)`.
fn lookup(g: &Arc<Grouped<Store>>, i: u128, since: u64) -> std::thread::JoinHandle<Result<Vec<AnswerRow>, StoreError>> {
    let g = g.clone();
    std::thread::spawn(move || g.find(&[KeyId(10 * i), KeyId(10 * i + 1)], since))
}

/// `n` lookups, the first held at the gate leading a query of its own and
/// the others waiting behind it, then the gate opened; `since(i)` is each
/// one's window.
fn held(
    g: &Arc<Grouped<Store>>,
    n: u128,
    since: fn(u128) -> u64,
) -> Vec<std::thread::JoinHandle<Result<Vec<AnswerRow>, StoreError>>> {
    let first = lookup(g, 0, since(0));
    while g.inner.entered.load(Ordering::SeqCst) == 0 {
        std::thread::yield_now();
    }
    let mut all = vec![first];
    all.extend((1..n).map(|i| lookup(g, i, since(i))));
    while g.queue().waiting.len() < n as usize - 1 {
        std::thread::yield_now();
    }
    g.inner.open();
    all
}

#[test]
fn lookups_that_wait_share_one_query_and_each_is_told_its_own_rows() {
    // Key 10i answered twice (seq i and 100 + i, at 1,000 and 2,000 ms);
    // key 10i + 1 never; key 999 by someone else.
    let mut rows: Vec<AnswerRow> =
        (0..20).flat_map(|i| [row(10 * i, i as u64, 1_000), row(10 * i, 100 + i as u64, 2_000)]).collect();
    rows.push(row(999, 7, 5_000));
    let g = Arc::new(Grouped::new(Store { rows, ..Store::default() }));
    // Odd lookups' windows start after their key's latest answer.
    let handles = held(&g, 20, |i| if i % 2 == 1 { 3_000 } else { 0 });
    let answers: Vec<_> = handles.into_iter().map(|h| h.join().unwrap().unwrap()).collect();
    // Two queries: the first lookup's, then one for all nineteen.
    assert_eq!(g.inner.queries.load(Ordering::SeqCst), 2);
    let asked = g.inner.asked.lock().unwrap();
    assert_eq!(asked[1].0.len(), 38, "the second query asks for every key that waited, once");
    assert_eq!(asked[1].1, 0, "from the earliest window asked for");
    for (i, found) in answers.iter().enumerate() {
        let i = i as u128;
        if i % 2 == 1 {
            assert!(found.is_empty(), "lookup {i}: its window starts after its key's latest answer");
        } else {
            assert_eq!(found.len(), 1, "lookup {i}: its own key's latest answer only");
            assert_eq!((found[0].key_id, found[0].seq), (KeyId(10 * i), 100 + i as u64));
        }
    }
    assert!(!g.queue().leading, "no one leads once the queue is empty");
}

#[test]
fn a_failed_query_fails_every_lookup_of_its_group() {
    let g = Arc::new(Grouped::new(Store { fail: true, ..Store::default() }));
    let handles = held(&g, 8, |_| 0);
    for h in handles {
        assert!(matches!(h.join().unwrap(), Err(StoreError::Unreachable(m)) if m == "network cut"));
    }
    assert_eq!(g.inner.queries.load(Ordering::SeqCst), 2);
}

#[test]
fn a_query_that_panics_leaves_no_lookup_waiting() {
    let g = Arc::new(Grouped::new(Store { panic: true, ..Store::default() }));
    let handles = held(&g, 6, |_| 0);
    let mut panicked = 0;
    for h in handles {
        match h.join() {
            // The leader's own thread carries the panic.
            Err(_) => panicked += 1,
            Ok(r) => assert!(matches!(r, Err(StoreError::Unreachable(_))), "{r:?}"),
        }
    }
    // Each leader panicked; every other lookup was told, none hangs.
    assert!(panicked >= 1);
    assert!(!g.queue().leading);
}

#[test]
fn a_lookup_alone_runs_its_own_query_at_once() {
    let g = Grouped::new(Store { rows: vec![row(5, 1, 10)], ..Store::default() });
    g.inner.open();
    assert_eq!(g.find(&[KeyId(5)], 0).unwrap(), vec![row(5, 1, 10)]);
    assert_eq!(g.find(&[KeyId(5)], 11).unwrap(), vec![]);
    assert_eq!(g.find(&[KeyId(6)], 0).unwrap(), vec![]);
    assert_eq!(g.inner.queries.load(Ordering::SeqCst), 3);
    assert!(!g.queue().leading);
}
