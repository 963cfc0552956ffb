//! Every key answered within the retention window, as a filter in memory
//! that can say "never answered" without asking the store (issue 51 item 5).
//!
//! # Why
//!
//! A wager refused without the writer (`http/early.rs` in the server) must
//! first be sure its key was never answered within the window: a retry gets
//! its first answer, not the table's refusal. On PostgreSQL each such
//! refusal asked the store (one query shared by the lookups made at once),
//! and under `loadgen` at 128-256 in flight those refusals were the
//! every-request p99 (28-37 ms against 14-27 ms for the wagers taken) and
//! held a third of the requests in flight away from the tables taking
//! wagers. A build that skipped the lookup (unsafe) reached 0.70-0.73 of the
//! batched-insert baseline at a p99 of 18-24 ms (docs/performance.md).
//!
//! # What it promises
//!
//! A Bloom filter never forgets what was put in it: "absent" is proof that
//! the key was never inserted; "present" may be wrong (about 1% of new keys
//! here), and then the store is asked as before. So the filter is used only
//! once it is **complete**: every key answered within the window is in it.
//! That holds when
//!
//! * every answer the server makes from the moment the filter is attached to
//!   the key memory is inserted as it is made (`KeyMemory::remember`, before
//!   the answer is committed or sent), and
//! * every answer already in the store within the window (read after the
//!   attachment, so no answer falls between the two) has been inserted by
//!   the loader, which then calls [`Answered::completed`].
//!
//! # Sliding with the window
//!
//! Keys go into buckets of at most [`BUCKET_KEYS`]; a bucket is closed when
//! full and dropped once its newest answer is older than the window kept
//! (`keep_ms`: the lookups' own window, with their margin), so memory follows
//! the keys of one window: about 1.2 bytes a key (ten bits), 1.3 MB a
//! bucket, at most [`MOST_BUCKETS`]; a window busier than that (134 million
//! keys) loses its oldest bucket early, and the refusals ask the store again
//! until the window has passed it.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::RwLock;

use super::keys::KeyId;

/// Keys a bucket holds before a new one is begun.
pub const BUCKET_KEYS: u64 = 1 << 20;
/// Buckets held at most (about 170 MB, 134 million keys a window): past it
/// the oldest is dropped early, and the lookups whose window reaches back to
/// it ask the store (all of them, while the window is that busy).
pub const MOST_BUCKETS: usize = 128;
/// Bits a key: with [`PROBES`] probes, about 1% false "present".
const BITS_PER_KEY: u64 = 10;
const PROBES: u64 = 7;

#[derive(Debug)]
struct Bucket {
    bits: Vec<u64>,
    keys: u64,
    newest_ms: u64,
}

impl Bucket {
    fn new(keys: u64) -> Bucket {
        Bucket { bits: vec![0; (keys * BITS_PER_KEY).div_ceil(64) as usize], keys: 0, newest_ms: 0 }
    }

    fn insert(&mut self, id: KeyId, at_ms: u64) {
        let m = self.bits.len() as u64 * 64;
        for p in probes(m, id) {
            self.bits[p / 64] |= 1 << (p % 64);
        }
        self.keys += 1;
        self.newest_ms = self.newest_ms.max(at_ms);
    }

    fn may_hold(&self, id: KeyId) -> bool {
        let m = self.bits.len() as u64 * 64;
        probes(m, id).all(|p| self.bits[p / 64] & (1 << (p % 64)) != 0)
    }
}

/// The bit positions of `id` among `m`: double hashing of its two halves (a
/// key id is a SHA-256 prefix, so both are uniform).
fn probes(m: u64, id: KeyId) -> impl Iterator<Item = usize> {
    let (h1, h2) = (id.0 as u64, (id.0 >> 64) as u64 | 1);
    (0..PROBES).map(move |i| (h1.wrapping_add(i.wrapping_mul(h2)) % m) as usize)
}

/// The keys answered within the window (module docs).
#[derive(Debug)]
pub struct Answered {
    buckets: RwLock<Vec<Bucket>>,
    complete: AtomicBool,
    /// Where the loader began reading the store (`u64::MAX` until it is
    /// done), and just past the newest answer of any bucket dropped (0 while
    /// none is): the filter holds every key answered at or after both. A lookup whose window begins earlier
    /// (the clock set back while serving) asks the store.
    loaded_from_ms: AtomicU64,
    dropped_before_ms: AtomicU64,
    keep_ms: u64,
    /// [`BUCKET_KEYS`] and [`MOST_BUCKETS`] (smaller in tests).
    bucket_keys: u64,
    most_buckets: usize,
}

impl Answered {
    /// An empty, incomplete filter keeping answers `keep_ms` old.
    pub fn new(keep_ms: u64) -> Answered {
        Answered::sized(keep_ms, BUCKET_KEYS, MOST_BUCKETS)
    }

    fn sized(keep_ms: u64, bucket_keys: u64, most_buckets: usize) -> Answered {
        Answered {
            buckets: RwLock::new(Vec::new()),
            complete: AtomicBool::new(false),
            loaded_from_ms: AtomicU64::new(u64::MAX),
            dropped_before_ms: AtomicU64::new(0),
            keep_ms,
            bucket_keys,
            most_buckets,
        }
    }

    /// Put `id`, answered at `at_ms`, in; buckets past the window (by
    /// `now_ms`) are dropped.
    pub fn insert(&self, id: KeyId, at_ms: u64, now_ms: u64) {
        let mut b = self.buckets.write().unwrap_or_else(|p| p.into_inner());
        let horizon = now_ms.saturating_sub(self.keep_ms);
        // Oldest first, while past the window; the open bucket (the last)
        // is never dropped: it takes this key. Only the oldest is looked
        // at on every answer (the writer's thread makes them): a bucket
        // behind a younger one (the loader's keys are older than the live
        // answers beside them) waits, which keeps more keys than needed,
        // never fewer, until a bucket opens (once a million keys): then
        // every closed bucket past the window goes, wherever it sits, so
        // that only buckets within it count towards the most kept.
        let mut dropped_through = None;
        while b.len() > 1 && b[0].newest_ms < horizon {
            let gone = b.remove(0);
            dropped_through = dropped_through.max(Some(gone.newest_ms));
        }
        if b.last().is_none_or(|k| k.keys >= self.bucket_keys) {
            b.retain(|k| {
                let keep = k.newest_ms >= horizon;
                if !keep {
                    dropped_through = dropped_through.max(Some(k.newest_ms));
                }
                keep
            });
            if b.len() >= self.most_buckets {
                let oldest = b.remove(0);
                dropped_through = dropped_through.max(Some(oldest.newest_ms));
            }
            b.push(Bucket::new(self.bucket_keys));
        }
        if let Some(t) = dropped_through {
            self.dropped_before_ms.fetch_max(t.saturating_add(1), Ordering::AcqRel);
        }
        b.last_mut().expect("a bucket is open").insert(id, at_ms);
    }

    /// Every key answered at or after `since_ms` is in: the loader, which
    /// read the store from there, is done.
    pub fn completed(&self, since_ms: u64) {
        self.loaded_from_ms.store(since_ms, Ordering::Release);
        self.complete.store(true, Ordering::Release);
    }

    /// Whether none of `ids` was ever answered at or after `since_ms`, as far
    /// as the filter can prove it: `false` when it is not complete yet, when
    /// the window begins before what it holds, or when any may have been
    /// (ask the store then).
    pub fn none_answered(&self, ids: &[KeyId], since_ms: u64) -> bool {
        // Read under the lock: a bucket is dropped, and `dropped_before_ms`
        // raised, under the write lock, so the two are seen together.
        let b = self.buckets.read().unwrap_or_else(|p| p.into_inner());
        if !self.is_complete()
            || since_ms < self.loaded_from_ms.load(Ordering::Acquire)
            || since_ms < self.dropped_before_ms.load(Ordering::Acquire)
        {
            return false;
        }
        !ids.iter().any(|&id| b.iter().any(|k| k.may_hold(id)))
    }

    /// Whether the loader is done: every key answered within the window is
    /// in (`GET /metrics`).
    pub fn is_complete(&self) -> bool {
        self.complete.load(Ordering::Acquire)
    }

    /// Buckets held, each about 1.3 MB ([`BUCKET_KEYS`] keys): the
    /// filter's memory (`GET /metrics`, tests).
    pub fn buckets(&self) -> usize {
        self.buckets.read().unwrap_or_else(|p| p.into_inner()).len()
    }
}

#[cfg(test)]
#[path = "answered_tests.rs"]
mod tests;
