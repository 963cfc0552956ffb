//! Where SQLite finds an idempotency key that has left memory: a
//! log-structured index of key ids, written in order, never in place.
//!
//! # Why not a B-tree index
//!
//! The answer log was indexed on its key ids. Each answer's id is random,
//! so once that index outgrew the page cache every answer dirtied a leaf
//! page of its own: a 4 KB frame in the write-ahead log per wager, written,
//! synced and copied back. Over 180 s of `loadgen` it was the largest single
//! cost of the server (docs/performance.md: "Sustained"; `ledger/keys.rs`).
//!
//! # Design
//!
//! * **Pending.** The committer hands each durable batch's answers (id, seq,
//!   time) to [`KeyIndex::push`], in memory (about 60 bytes each). They stay
//!   there until a run holds them.
//! * **Runs.** The maintainer (`key_index/maintain.rs`, a thread of its own
//!   with its own connection) writes the pending answers as a *run* once
//!   there are [`RUN_KEYS`] of them or the oldest is [`RUN_AGE_MS`] old:
//!   sorted by id, in chunks of 160 written at the end of `key_parts`, with a
//!   Bloom filter and fences (`key_index/run.rs`). In the same transaction
//!   it moves `key_index.covered` to the run's last seq; then it shows the
//!   run to lookups, and only then takes its answers out of pending.
//! * **Merges.** When a level holds [`FANOUT`] runs, the maintainer merges
//!   them into one run of the next level, a slice of chunks per short
//!   transaction, and swaps it in (the merged run live, the old ones dropped)
//!   in one transaction. A key is rewritten about once per level: a few
//!   dozen bytes a key in all, where the B-tree wrote a page.
//! * **Retention.** A run whose newest answer has left the retention window
//!   (with an hour's margin) is dropped whole. Dropped runs' rows are removed
//!   a slice at a time.
//! * **Lookups** ([`KeyIndex::lookup`]) read pending first, then the live
//!   runs: for each run within the window whose filter may hold the id, one
//!   chunk (one page). Pending is read *before* the runs, and the runs
//!   before the store's snapshot, so that an answer moving from pending into
//!   a run is always seen in one or the other. A chunk that is gone (its run
//!   was merged away since the runs were read) starts the lookup again.
//! * **Start.** The live runs are checked against the log, and rebuilt
//!   from it if a run or a chunk is missing (`key_index/check.rs`). Answers
//!   after `covered` (a crash's tail, at most a run's
//!   worth and what was committed meanwhile) are written as runs before the
//!   server serves ([`catch_up`]); runs left half-written by a crash are
//!   removed. A database from before this index (migration 14) is caught up
//!   the same way, once, and its old index dropped.
//!
//! Memory: each live run's filter and fences (about 1.6 bytes a key in the
//! retention window) and the pending answers. Pending is bounded: a thread
//! that cannot write runs (a full disk, a lock it never gets) would
//! otherwise let it grow by every answer made, about 3 MB a second under
//! `loadgen`. Past [`MAX_PENDING`] answers the index says it is behind
//! ([`KeyIndex::behind`]) and the writer takes no new key (each such
//! request is refused as `unavailable`, naming the thread's last error,
//! and nothing is remembered), while retries of keys in memory are still
//! answered; once the thread catches up, keys are taken again. PostgreSQL keeps its own
//! B-tree index (`pg_store.rs`), which its own storage handles.
//!
//! The index is derived from the answer log: every run can be rebuilt from
//! it, and a lookup's answer is always read from the log itself, its key id
//! checked.

pub mod bloom;
pub mod check;
pub mod maintain;
pub mod run;

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use rusqlite::{params, Connection};

pub use maintain::{catch_up, Maintainer};
use run::{Probe, Run};

use crate::ledger::keys::KeyId;
use crate::store::StoreError;

/// Answers in a run written from pending (level 0).
pub const RUN_KEYS: usize = 65_536;
/// The longest an answer waits in pending, by answer time.
pub const RUN_AGE_MS: u64 = 30_000;
/// Runs of one level merged into one of the next.
pub const FANOUT: usize = 8;
/// Pending answers past which the index is behind and no new key is taken:
/// sixteen runs' worth, about 60 MB (a healthy thread keeps pending under
/// about one run; at 50 k answers a second this is 20 s of a thread that
/// writes nothing).
pub const MAX_PENDING: usize = 16 * RUN_KEYS;

/// An answer as the index takes it: its key's id, its seq, its time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pending {
    pub id: KeyId,
    pub seq: u64,
    pub at_ms: u64,
}

#[derive(Debug, Default)]
struct PendingAnswers {
    /// The seq of each id's latest pending answer.
    map: HashMap<KeyId, u64, foldhash::fast::RandomState>,
    /// The same answers, in seq order.
    rows: VecDeque<Pending>,
}

/// The runs live now, oldest first.
pub type Runs = Arc<Vec<Arc<Run>>>;

/// The index a process shares between the committer (which feeds it), the
/// maintainer (which writes runs) and the readers.
#[derive(Debug)]
pub struct KeyIndex {
    pending: Mutex<PendingAnswers>,
    runs: Mutex<Runs>,
    /// The latest answer time seen: a run older than the window by this
    /// clock is dropped.
    newest_ms: AtomicU64,
    /// Answers in pending, as last set under its lock: read without it by
    /// [`KeyIndex::behind`], which the writer asks for every new key.
    pending_len: AtomicUsize,
    /// Pending answers past which the index is behind ([`MAX_PENDING`]).
    max_pending: AtomicUsize,
    /// The maintainer's last error, until it next makes progress.
    last_error: Mutex<Option<String>>,
}

impl Default for KeyIndex {
    fn default() -> KeyIndex {
        KeyIndex {
            pending: Mutex::default(),
            runs: Mutex::default(),
            newest_ms: AtomicU64::new(0),
            pending_len: AtomicUsize::new(0),
            max_pending: AtomicUsize::new(MAX_PENDING),
            last_error: Mutex::new(None),
        }
    }
}

pub use crate::ledger::keys::Behind;

impl KeyIndex {
    /// Read the live runs, and the answers after `covered` into pending.
    pub fn load(conn: &Connection) -> Result<KeyIndex, StoreError> {
        let index = KeyIndex::default();
        let ids: Vec<i64> = conn
            .prepare("SELECT id FROM key_runs WHERE state = ?1 ORDER BY id")?
            .query_map([run::LIVE], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        let mut runs = Vec::new();
        for id in ids {
            let r = Run::load(conn, id)?;
            index.newest_ms.fetch_max(r.newest_ms, Ordering::Relaxed);
            runs.push(Arc::new(r));
        }
        *index.runs.lock().unwrap_or_else(|p| p.into_inner()) = Arc::new(runs);
        let covered: i64 = conn.query_row("SELECT covered FROM key_index", [], |r| r.get(0))?;
        let mut q = conn.prepare("SELECT rowid, key_id, at_ms FROM answer_log WHERE rowid > ?1 ORDER BY rowid")?;
        let mut rows = q.query([covered])?;
        let mut tail = Vec::new();
        while let Some(r) = rows.next()? {
            if let Some(id) = read_id(r.get_ref(1)?)? {
                tail.push(Pending { id, seq: r.get::<_, i64>(0)? as u64, at_ms: r.get::<_, i64>(2)? as u64 });
            }
        }
        index.push(tail);
        Ok(index)
    }

    /// Take a durable batch's answers (in seq order, after those before).
    pub fn push(&self, answers: impl IntoIterator<Item = Pending>) {
        let mut p = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        for a in answers {
            self.newest_ms.fetch_max(a.at_ms, Ordering::Relaxed);
            p.map.insert(a.id, a.seq);
            p.rows.push_back(a);
        }
        self.pending_len.store(p.rows.len(), Ordering::Relaxed);
    }

    /// Answers in pending.
    pub fn pending(&self) -> usize {
        self.pending.lock().unwrap_or_else(|p| p.into_inner()).rows.len()
    }

    /// Why no new key may be taken now, if none may: more than the bound's
    /// answers wait in pending (module docs), the maintainer's last error
    /// named. Answers already made are still found.
    pub fn behind(&self) -> Result<(), Behind> {
        let (n, max) = (self.pending_len.load(Ordering::Relaxed), self.max_pending.load(Ordering::Relaxed));
        if n <= max {
            return Ok(());
        }
        let last_error = self.last_error.lock().unwrap_or_else(|p| p.into_inner()).clone();
        Err(Behind { pending: n, max, last_error })
    }

    /// Set the bound on pending answers (tests; [`MAX_PENDING`] otherwise).
    pub fn set_max_pending(&self, n: usize) {
        self.max_pending.store(n, Ordering::Relaxed);
    }

    /// The maintainer failed a step (`Some`), or made progress (`None`).
    pub fn note_error(&self, e: Option<String>) {
        *self.last_error.lock().unwrap_or_else(|p| p.into_inner()) = e;
    }

    /// The runs live now.
    pub fn runs(&self) -> Runs {
        self.runs.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Bytes of memory the live runs hold.
    pub fn run_bytes(&self) -> usize {
        self.runs().iter().map(|r| r.bytes()).sum()
    }

    fn publish(&self, runs: Vec<Arc<Run>>) {
        *self.runs.lock().unwrap_or_else(|p| p.into_inner()) = Arc::new(runs);
    }

    /// The seq of the latest answer under each of `ids` that may be within
    /// the window from `since_ms` (the caller reads the answer and checks its
    /// time and id). `None`: a run was merged away while this read it; try
    /// again, in a new snapshot.
    ///
    /// `conn` must not have read in its transaction yet: pending and the runs
    /// are read first (module docs).
    pub fn lookup(
        &self,
        conn: &Connection,
        ids: &[KeyId],
        since_ms: u64,
    ) -> Result<Option<Vec<(KeyId, u64)>>, StoreError> {
        let pending: Vec<Option<u64>> = {
            let p = self.pending.lock().unwrap_or_else(|p| p.into_inner());
            ids.iter().map(|id| p.map.get(id).copied()).collect()
        };
        let runs = self.runs();
        let mut found = Vec::new();
        for (&id, pending) in ids.iter().zip(pending) {
            let mut best = pending;
            for r in runs.iter().filter(|r| r.newest_ms >= since_ms) {
                match r.find(conn, id)? {
                    Probe::Absent => {}
                    Probe::At(seq) => best = best.max(Some(seq)),
                    Probe::Gone => return Ok(None),
                }
            }
            if let Some(seq) = best {
                found.push((id, seq));
            }
        }
        Ok(Some(found))
    }

    /// Forget pending answers now in a run: the first `n`, each unless a
    /// later answer under its id replaced it.
    fn covered(&self, n: usize) {
        let mut p = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        for _ in 0..n {
            let Some(Pending { id, seq, .. }) = p.rows.pop_front() else { break };
            if p.map.get(&id) == Some(&seq) {
                p.map.remove(&id);
            }
        }
        self.pending_len.store(p.rows.len(), Ordering::Relaxed);
    }

    /// The first `n` pending answers.
    fn oldest(&self, n: usize) -> Vec<Pending> {
        self.pending.lock().unwrap_or_else(|p| p.into_inner()).rows.iter().take(n).copied().collect()
    }

    /// How many answers are pending, and the time of the oldest.
    fn pending_age(&self) -> (usize, Option<u64>) {
        let p = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        (p.rows.len(), p.rows.front().map(|r| r.at_ms))
    }

    fn newest_ms(&self) -> u64 {
        self.newest_ms.load(Ordering::Relaxed)
    }
}

/// A stored key id (NULL for answers from before ids were kept, none of them
/// in any window).
pub fn read_id(v: rusqlite::types::ValueRef<'_>) -> Result<Option<KeyId>, StoreError> {
    match v.as_blob_or_null()? {
        None => Ok(None),
        Some(b) => Ok(Some(KeyId::from_le_bytes(
            b.try_into().map_err(|_| StoreError::Corrupt("an answer's key id is not 16 bytes".into()))?,
        ))),
    }
}

/// The seq the index covers: every answer up to it is in a run.
pub fn covered(conn: &Connection) -> Result<u64, StoreError> {
    Ok(conn.query_row("SELECT covered FROM key_index", [], |r| r.get::<_, i64>(0))? as u64)
}

fn set_covered(conn: &Connection, seq: u64) -> Result<(), StoreError> {
    conn.execute("UPDATE key_index SET covered = ?1", params![seq as i64])?;
    Ok(())
}

#[cfg(test)]
mod behind_tests {
    use super::Behind;

    /// The refusal reads as the string it replaced, byte for byte (a
    /// request is refused with it; tests match on it).
    #[test]
    fn behind_reads_as_before() {
        let e = Behind { pending: 5, max: 4, last_error: Some("disk full".into()) };
        assert_eq!(
            e.to_string(),
            "the idempotency key index is behind: 5 answers wait for its thread to write them, more than 4; no new \
             key is taken until it catches up (its last error: disk full)"
        );
        let e = Behind { last_error: None, ..e };
        assert!(e.to_string().ends_with("until it catches up"), "{e}");
    }
}
