//! Idempotency keys: which answers a retry gets, kept in memory only while
//! they are recent, and found in the store's answer log after that.
//!
//! # Design
//!
//! Every keyed request (a deposit, a wager, a bet slip) is answered once; a
//! retry with the same key within the retention window (`--key-retention-hours`,
//! default [`DEFAULT_KEY_RETENTION_MS`]) gets the first answer, and the same
//! key for another request is refused. Every answer is written to the answer
//! log with its batch, numbered in order (its `seq` is the log's rowid).
//!
//! Holding a whole window in memory cost about 150 bytes a key: a busy floor's
//! 72 hours is tens of millions of keys, and memory grew with every wager. So
//! memory holds only the *hot* keys, those answered in the last
//! [`DEFAULT_HOT_MS`], and the rest of the window is on disk, found by the
//! key's id ([`ColdKeys`]; below, "How the store finds them"). A lookup must never miss a key that was
//! answered, so:
//!
//! * A key leaves memory only once its batch is durable (`durable`, set by the
//!   committer) and it is older than the hot window; so a key not in memory is
//!   either new or visible to a read of the store.
//! * Keys leave memory only between the writer's takes of requests
//!   ([`KeyMemory::begin_batch`]; a batch is one take, or several while it
//!   waits for the committer). At the start of each take the writer reads
//!   every key its requests name that memory does not hold, in one read of
//!   the store (sorted, on its own read-only connection), and marks them
//!   checked. During the take a key in neither memory nor that read is new:
//!   nothing left memory since (and a key answered by an earlier take of the
//!   same batch is not durable yet, so it stays in memory).
//! * A key no request named (the server's own keys) is read when asked for.
//!
//! The read costs a few microseconds a key on the writer, overlapped with the
//! committer's fsync of the batch before. (Reading them on the HTTP threads
//! instead cost more: a thread hop and a lock per request.)
//!
//! # How the store finds them
//!
//! On SQLite, through a log-structured index of its own (`store/key_index.rs`):
//! the committer hands each durable batch's answers to it, a thread of its
//! own writes them as sorted runs and merges runs in tiers, and a lookup
//! probes each run's Bloom filter in memory and reads a chunk only where one
//! may hold the key. It replaced a B-tree index on the answer log's key ids,
//! whose random inserts dirtied a page per answer once it outgrew the cache:
//! over 180 s of `loadgen` (no pauses, 64 connections, docs/performance.md: "Sustained")
//! that index held the server to 43–48 k bets/s at p99 22–26 ms, where a
//! build without it (and unsafe) took 58 k at 18 ms. PostgreSQL keeps its
//! B-tree index (`pg_store.rs`).
//!
//! A key outside the retention window is forgotten: a request sent again after
//! it is new (the log still holds the first answer, for an inspector).
//!
//! Without a store ([`KeyMemory::set_cold`] never called: tests, `Casino`
//! used directly) every key of the window stays in memory.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use sha2::{Digest, Sha256};

use crate::ledger::{Answer, Cause, LedgerError, TransferId};

/// How long an idempotency key is remembered: 72 hours.
pub const DEFAULT_KEY_RETENTION_MS: u64 = 72 * 3600 * 1000;

/// How long an answered key stays in memory once the store can find it: two
/// minutes, far beyond any batch's time to commit and any retry's usual delay.
pub const DEFAULT_HOT_MS: u64 = 2 * 60 * 1000;

/// A key as memory and the store's index hold it: the first 128 bits of its
/// SHA-256 (issue 46: a type of its own, not any `u128`; the bits are
/// public because the index's Bloom filter and its SQLite rows take them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KeyId(pub u128);

impl KeyId {
    /// The 16 bytes the store keeps (little-endian, as the index's rows).
    pub fn to_le_bytes(self) -> [u8; 16] {
        self.0.to_le_bytes()
    }

    /// The id of 16 stored bytes.
    pub fn from_le_bytes(b: [u8; 16]) -> KeyId {
        KeyId(u128::from_le_bytes(b))
    }
}

/// In hex, as messages name a key that is not kept.
impl std::fmt::LowerHex for KeyId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::LowerHex::fmt(&self.0, f)
    }
}

/// The id of a key.
pub fn key_id(key: &str) -> KeyId {
    let d = Sha256::digest(key.as_bytes());
    KeyId(u128::from_le_bytes(d[..16].try_into().expect("16 bytes")))
}

/// One idempotency answer as the store keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnswerRow {
    /// Its place in the answer log (the log's rowid).
    pub seq: u64,
    /// The key's text (empty when read back: the id is what is looked up).
    pub key: String,
    /// The key as memory holds it ([`key_id`]), kept beside it so that a
    /// start loads the window's keys without hashing each again.
    pub key_id: KeyId,
    /// SHA-256 of the request the key is bound to.
    pub request: [u8; 32],
    /// The answer as JSON.
    pub answer: String,
    /// What the answered batch was for (a retried wager is answered with its
    /// wager id from here, long after its hold has settled).
    pub cause: Cause,
    /// When it was answered (ms since the epoch): the retention window runs
    /// from here.
    pub at_ms: u64,
}

/// Where keys that left memory are found: the store's answer log.
pub trait ColdKeys: Send + Sync + std::fmt::Debug {
    /// The latest answers under `ids` given at or after `since_ms` (those
    /// found), from one snapshot.
    fn find(&self, ids: &[KeyId], since_ms: u64) -> Result<Vec<AnswerRow>, crate::store_error::StoreError>;

    /// Whether a key not in memory may be taken as new now: not while the
    /// store's index of answers is too far behind to keep the answers it has
    /// yet to index in bounded memory (`key_index.rs`); the reason if not.
    fn admits(&self) -> Result<(), Behind> {
        Ok(())
    }
}

/// An answered key in memory.
#[derive(Clone, Debug)]
pub struct Bound {
    pub request: [u8; 32],
    answer: Kept,
    pub cause: Cause,
    at_ms: u64,
    seq: u64,
}

impl Bound {
    pub fn answer(&self) -> Answer {
        self.answer.answer()
    }
}

/// An answer, compact: nearly every one is a single transfer (a wager's hold).
#[derive(Clone, Debug)]
enum Kept {
    One(TransferId),
    Many(Box<[TransferId]>),
    Refused(Box<LedgerError>),
}

impl Kept {
    fn of(a: &Answer) -> Kept {
        match a {
            Ok(ids) if ids.len() == 1 => Kept::One(ids[0]),
            Ok(ids) => Kept::Many(ids.clone().into_boxed_slice()),
            Err(e) => Kept::Refused(Box::new(e.clone())),
        }
    }

    fn answer(&self) -> Answer {
        match self {
            Kept::One(id) => Ok(vec![*id]),
            Kept::Many(ids) => Ok(ids.to_vec()),
            Kept::Refused(e) => Err((**e).clone()),
        }
    }
}

/// Read a stored answer; the common `{"Ok":[N]}` without the JSON parser.
fn read_answer(json: &str) -> Result<Kept, serde_json::Error> {
    if let Some(n) = json.strip_prefix("{\"Ok\":[").and_then(|r| r.strip_suffix("]}")) {
        if let Ok(id) = n.parse::<TransferId>() {
            return Ok(Kept::One(id));
        }
    }
    serde_json::from_str::<Answer>(json).map(|a| Kept::of(&a))
}

impl Bound {
    fn of_row(r: &AnswerRow) -> Result<Bound, LedgerError> {
        let answer =
            read_answer(&r.answer).map_err(|e| LedgerError::Invariant(format!("stored answer {:x}: {e}", r.key_id)))?;
        Ok(Bound { request: r.request, answer, cause: r.cause, at_ms: r.at_ms, seq: r.seq })
    }
}

/// How much time one generation of the hot keys spans at most: memory holds
/// the hot window as a queue of maps, each of at most [`GENERATION_MS`] of
/// answers.
///
/// One map for the whole window held a couple of million keys under load, and
/// each time it doubled, rehashing all of them stalled the single writer (and
/// so every table) for 70–290 ms (measured with `loadgen`, 16 tables). A
/// generation never grows: it is allocated for what the one before held (or
/// twice that, if the one before filled up), and when it is full a new one
/// opens. So no insert rehashes, and a generation leaves memory whole, with no
/// per-key eviction. A lookup probes each generation, newest first: a dozen or
/// two probes.
pub const GENERATION_MS: u64 = 10_000;

/// The fewest keys a generation is allocated for.
const GENERATION_MIN_KEYS: usize = 4096;

/// The keys answered in one [`GENERATION_MS`] span (or fewer, if it filled).
#[derive(Clone, Debug, Default)]
struct Generation {
    map: HashMap<KeyId, Bound, foldhash::fast::RandomState>,
    /// When it opened.
    start_ms: u64,
    /// The latest answer time in it.
    newest_ms: u64,
    /// The highest seq in it.
    max_seq: u64,
}

impl Generation {
    fn insert(&mut self, id: KeyId, b: Bound) {
        self.newest_ms = self.newest_ms.max(b.at_ms);
        self.max_seq = self.max_seq.max(b.seq);
        self.map.insert(id, b);
    }
}

/// The keys answered within the retention window: recent ones in memory, the
/// rest found in the store (module docs).
#[derive(Clone, Debug)]
pub struct KeyMemory {
    /// The hot keys, oldest generation first. Hashed with foldhash, seeded
    /// per process: every wager adds a key, and SipHash made the map's growth
    /// a tenth of the writer's time.
    hot: VecDeque<Generation>,
    /// The seq the next answer gets.
    next_seq: u64,
    /// Every answer with a seq above this is in memory.
    evicted_through: u64,
    /// The last seq the committer has made durable (shared with it).
    durable: Arc<AtomicU64>,
    now_ms: u64,
    retention_ms: u64,
    hot_ms: u64,
    cold: Option<Arc<dyn ColdKeys>>,
    /// The keys of this batch already looked for in the store.
    checked: HashSet<KeyId, foldhash::fast::RandomState>,
    /// Every key answered is also put here, for the refusals made without
    /// the writer (`answered.rs`).
    answered: Option<Arc<super::answered::Answered>>,
}

impl Default for KeyMemory {
    fn default() -> KeyMemory {
        KeyMemory {
            hot: VecDeque::new(),
            next_seq: 1,
            evicted_through: 0,
            durable: Arc::new(AtomicU64::new(0)),
            now_ms: 0,
            retention_ms: DEFAULT_KEY_RETENTION_MS,
            hot_ms: DEFAULT_HOT_MS,
            cold: None,
            checked: HashSet::default(),
            answered: None,
        }
    }
}

impl KeyMemory {
    /// Rebuild from the store: the answers read back (the hot window, or the
    /// whole retention window without a cold store) and the log's last seq.
    pub fn restore(answers: Vec<AnswerRow>, last_seq: u64) -> Result<KeyMemory, LedgerError> {
        let mut k = KeyMemory { next_seq: last_seq + 1, ..KeyMemory::default() };
        k.evicted_through = answers.first().map_or(last_seq, |r| r.seq.saturating_sub(1));
        k.durable.store(last_seq, Ordering::Release);
        for r in answers {
            k.now_ms = k.now_ms.max(r.at_ms);
            let b = Bound::of_row(&r)?;
            k.current(r.at_ms).insert(r.key_id, b);
        }
        Ok(k)
    }

    /// The generation an answer at `at_ms` goes into: the newest, or a new
    /// one once the newest has spanned [`GENERATION_MS`] or is full (so that
    /// no insert ever rehashes a map).
    fn current(&mut self, at_ms: u64) -> &mut Generation {
        let (open, capacity) = match self.hot.back() {
            None => (false, GENERATION_MIN_KEYS),
            Some(g) if g.map.len() >= g.map.capacity() => (false, g.map.capacity() * 2),
            Some(g) => (at_ms < g.start_ms + GENERATION_MS, g.map.len() + g.map.len() / 4),
        };
        if !open {
            let mut g = Generation { start_ms: at_ms, ..Generation::default() };
            g.map.reserve(capacity.max(GENERATION_MIN_KEYS));
            self.hot.push_back(g);
        }
        self.hot.back_mut().expect("a generation is open")
    }

    /// The newest answer under `id` in memory and within the window.
    fn hot_get(&self, id: &KeyId) -> Option<&Bound> {
        let horizon = self.horizon();
        self.hot.iter().rev().find_map(|g| g.map.get(id)).filter(|b| b.at_ms >= horizon)
    }

    /// Find keys that left memory in `cold`; keep them in memory for `hot_ms`.
    pub fn set_cold(&mut self, cold: Arc<dyn ColdKeys>, hot_ms: u64) {
        self.cold = Some(cold);
        self.hot_ms = hot_ms;
    }

    /// Put every key answered from now on into `answered` too, as it is
    /// answered (`answered.rs`: the filter is complete once the answers
    /// already in the store are in it as well).
    pub fn set_answered(&mut self, answered: Arc<super::answered::Answered>) {
        self.answered = Some(answered);
    }

    /// The counter the committer raises to the last seq it made durable.
    pub fn durable(&self) -> Arc<AtomicU64> {
        self.durable.clone()
    }

    /// How long keys are remembered.
    pub fn set_retention(&mut self, ms: u64) {
        self.retention_ms = ms;
    }

    /// The start of the retention window.
    pub fn horizon(&self) -> u64 {
        self.now_ms.saturating_sub(self.retention_ms)
    }

    /// Keys in memory now.
    pub fn len(&self) -> usize {
        self.hot.iter().map(|g| g.map.len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.hot.iter().all(|g| g.map.is_empty())
    }

    /// The seq of the last answer given.
    pub fn last_seq(&self) -> u64 {
        self.next_seq - 1
    }

    /// Set the time the batch's requests are answered at. Without a cold
    /// store, keys past the window leave memory now; with one, only between
    /// batches ([`KeyMemory::begin_batch`]).
    pub fn set_time(&mut self, now_ms: u64) {
        self.now_ms = now_ms;
        if self.cold.is_none() {
            self.evict();
        }
    }

    /// Let generations leave memory: those wholly past the retention window,
    /// and (with a cold store) those wholly durable and older than the hot
    /// window.
    fn evict(&mut self) {
        let horizon = self.horizon();
        let hot_from = if self.cold.is_some() { self.now_ms.saturating_sub(self.hot_ms) } else { horizon };
        let durable = self.durable.load(Ordering::Acquire);
        while let Some(g) = self.hot.front() {
            let expired = g.newest_ms < horizon;
            if !expired && (g.newest_ms >= hot_from || g.max_seq > durable) {
                break;
            }
            if !expired && self.cold.is_some() {
                self.evicted_through = self.evicted_through.max(g.max_seq);
            }
            self.hot.pop_front();
        }
    }

    /// Start a take of requests (a batch, or part of one) at `now_ms` whose
    /// requests name the keys `ids`: let keys leave memory, then read those
    /// not in memory from the store in one go. Until the next take, a key of
    /// `ids` in neither is new.
    pub fn begin_batch(&mut self, now_ms: u64, ids: &[KeyId]) -> Result<(), LedgerError> {
        self.now_ms = now_ms;
        self.checked.clear();
        self.evict();
        let Some(cold) = self.cold.clone() else {
            return Ok(());
        };
        if self.evicted_through == 0 {
            return Ok(()); // nothing has left memory: nothing to read
        }
        let mut missing: Vec<KeyId> = ids.iter().copied().filter(|id| self.hot_get(id).is_none()).collect();
        missing.sort_unstable();
        missing.dedup();
        if missing.is_empty() {
            return Ok(());
        }
        let found = cold.find(&missing, self.horizon()).map_err(unreadable)?;
        for r in &found {
            self.warm(r)?;
        }
        self.checked.extend(missing);
        Ok(())
    }

    /// Keep a key read from the store in memory (if still in the window): it
    /// joins the newest generation, keeping its own time and seq.
    fn warm(&mut self, r: &AnswerRow) -> Result<(), LedgerError> {
        if r.at_ms >= self.horizon() && self.hot_get(&r.key_id).is_none() {
            let b = Bound::of_row(r)?;
            let now = self.now_ms;
            self.current(now).insert(r.key_id, b);
        }
        Ok(())
    }

    /// What `key` has answered within the window, if anything.
    pub fn find(&mut self, key: &str) -> Result<Option<&Bound>, LedgerError> {
        let id = key_id(key);
        if self.hot_get(&id).is_none() {
            // New, or left memory: refused while the store's index is
            // behind (a retry of a key in memory is still answered).
            if let Some(cold) = &self.cold {
                cold.admits().map_err(|e| LedgerError::Unavailable(e.to_string()))?;
            }
            // Past the window: forgotten.
            let horizon = self.horizon();
            for g in &mut self.hot {
                if g.map.get(&id).is_some_and(|b| b.at_ms < horizon) {
                    g.map.remove(&id);
                }
            }
        }
        if self.hot_get(&id).is_none() && self.may_be_cold(id) {
            let cold = self.cold.clone().expect("may_be_cold needs a cold store");
            for r in cold.find(&[id], self.horizon()).map_err(unreadable)? {
                self.warm(&r)?;
            }
            self.checked.insert(id);
        }
        Ok(self.hot_get(&id))
    }

    /// Whether a key not in memory may still be in the store's window.
    fn may_be_cold(&self, id: KeyId) -> bool {
        self.cold.is_some() && self.evicted_through > 0 && !self.checked.contains(&id)
    }

    /// Remember an answer: it gets the next seq.
    pub fn remember(&mut self, key: &str, request: [u8; 32], answer: &Answer, cause: Cause) -> AnswerRow {
        let id = key_id(key);
        let (at_ms, seq) = (self.now_ms, self.next_seq);
        self.next_seq += 1;
        let json = serde_json::to_string(answer).expect("answers serialise");
        if let Some(a) = &self.answered {
            a.insert(id, at_ms, at_ms);
        }
        self.current(at_ms).insert(id, Bound { request, answer: Kept::of(answer), cause, at_ms, seq });
        AnswerRow { seq, key: key.to_string(), key_id: id, request, answer: json, cause, at_ms }
    }
}

fn unreadable(e: crate::store_error::StoreError) -> LedgerError {
    LedgerError::Unavailable(format!("the answer log cannot be read: {e}"))
}

/// Why no new key is taken now (`store::key_index::KeyIndex::behind`): `pending` answers
/// wait, more than `max`; the maintainer's last error, if any, named.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "the idempotency key index is behind: {pending} answers wait for its thread to write them, more than {max}; \
     no new key is taken until it catches up{}",
    .last_error.as_ref().map_or(String::new(), |e| format!(" (its last error: {e})"))
)]
pub struct Behind {
    pub pending: usize,
    pub max: usize,
    pub last_error: Option<String>,
}

/// The longest idempotency key a client may send, in bytes.
pub const MAX_KEY_BYTES: usize = 128;

/// A client's idempotency key as the edge takes it: 1 to [`MAX_KEY_BYTES`]
/// bytes of UTF-8, checked once where a request arrives (a deposit, a wager,
/// a slip) rather than by each route. The ledger scopes it to its player and
/// request kind (`casino/protocol.rs`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IdempotencyKey(String);

/// A key refused at the edge: empty, or longer than [`MAX_KEY_BYTES`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("key: an idempotency key of 1 to {MAX_KEY_BYTES} bytes (UTF-8) is required")]
pub struct BadKey;

impl IdempotencyKey {
    /// The key `s`, if it is one a client may send.
    pub fn parse(s: String) -> Result<IdempotencyKey, BadKey> {
        if s.is_empty() || s.len() > MAX_KEY_BYTES {
            return Err(BadKey);
        }
        Ok(IdempotencyKey(s))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

/// The same check as [`IdempotencyKey::parse`], for a key the server or a
/// test spells itself (`"demo chips".parse()`): it must pass the rules a
/// client's key does.
impl std::str::FromStr for IdempotencyKey {
    type Err = BadKey;

    fn from_str(s: &str) -> Result<IdempotencyKey, BadKey> {
        IdempotencyKey::parse(s.to_string())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_idempotency_key_is_one_to_128_bytes_and_the_refusal_names_the_field() {
        assert_eq!(super::IdempotencyKey::parse(String::new()), Err(super::BadKey));
        assert_eq!(super::IdempotencyKey::parse("é".repeat(64)).map(|k| k.as_str().len()), Ok(128));
        assert_eq!(super::IdempotencyKey::parse("k".repeat(129)), Err(super::BadKey));
        assert_eq!(
            super::BadKey.to_string(),
            "key: an idempotency key of 1 to 128 bytes (UTF-8) is required",
            "the words the routes always answered"
        );
    }

    use super::*;
    use std::sync::Mutex;

    /// A store's answer log in memory, counting the keys it was asked for.
    #[derive(Debug, Default)]
    struct Log {
        rows: Mutex<Vec<AnswerRow>>,
        asked: AtomicU64,
    }

    impl ColdKeys for Log {
        fn find(&self, ids: &[KeyId], since_ms: u64) -> Result<Vec<AnswerRow>, crate::store_error::StoreError> {
            self.asked.fetch_add(ids.len() as u64, Ordering::Relaxed);
            let rows = self.rows.lock().unwrap();
            Ok(ids
                .iter()
                .filter_map(|id| rows.iter().find(|r| r.key_id == *id && r.at_ms >= since_ms).cloned())
                .collect())
        }
    }

    const MIN: u64 = 60_000;

    #[test]
    fn every_key_answered_goes_into_the_attached_filter() {
        let (mut k, log) = (KeyMemory::default(), Log::default());
        let filter = Arc::new(crate::ledger::answered::Answered::new(10 * MIN));
        filter.completed(0);
        answer(&mut k, &log, "before", MIN, true);
        k.set_answered(filter.clone());
        answer(&mut k, &log, "after", 2 * MIN, false);
        assert!(!filter.none_answered(&[key_id("after")], 0), "a key answered once attached is in the filter");
        // Not the one answered before: the loader's read of the store is
        // what puts those in (`answered.rs`).
        assert!(filter.none_answered(&[key_id("before")], 0));
    }

    /// Answer `key` at `now` in a batch of its own, and commit it to `log` (or
    /// not).
    fn answer(k: &mut KeyMemory, log: &Log, key: &str, now: u64, durable: bool) {
        k.begin_batch(now, &[key_id(key)]).unwrap();
        assert!(k.find(key).unwrap().is_none(), "{key} is new");
        let row = k.remember(key, [1; 32], &Ok(vec![TransferId(7)]), Cause::None);
        if durable {
            log.rows.lock().unwrap().push(row.clone());
            k.durable.store(row.seq, Ordering::Release);
        }
    }

    fn setup() -> (KeyMemory, Arc<Log>) {
        let log = Arc::new(Log::default());
        let mut k = KeyMemory::default();
        k.set_cold(log.clone(), 2 * MIN);
        (k, log)
    }

    fn asked(log: &Log) -> u64 {
        log.asked.load(Ordering::Relaxed)
    }

    #[test]
    fn a_key_older_than_the_hot_window_is_found_in_the_store() {
        let (mut k, log) = setup();
        answer(&mut k, &log, "a", 0, true);
        answer(&mut k, &log, "b", 10 * MIN, true);
        assert_eq!(k.len(), 1, "a left memory");
        let before = asked(&log);
        assert!(k.find("a").unwrap().is_some(), "a is found in the store");
        assert_eq!(asked(&log), before + 1);
        assert!(k.find("c").unwrap().is_none());
    }

    /// A burst of keys at one instant fills a generation and opens the next
    /// (twice as large) instead of rehashing: every map keeps the capacity it
    /// was allocated with, and every key is still found.
    #[test]
    fn a_full_generation_opens_another_instead_of_growing() {
        let (mut k, log) = setup();
        let n = GENERATION_MIN_KEYS * 4;
        let mut capacities = Vec::new();
        for i in 0..n {
            answer(&mut k, &log, &format!("burst{i}"), MIN, false);
            let caps: Vec<usize> = k.hot.iter().map(|g| g.map.capacity()).collect();
            assert!(caps.starts_with(&capacities), "no generation grew: {capacities:?} then {caps:?}");
            capacities = caps;
        }
        assert!(k.hot.len() >= 2, "the burst filled a generation");
        assert!(capacities.windows(2).all(|w| w[1] >= w[0] * 2), "each full generation doubles: {capacities:?}");
        assert_eq!(k.len(), n);
        for i in (0..n).step_by(97) {
            assert!(k.find(&format!("burst{i}")).unwrap().is_some());
        }
    }

    #[test]
    fn a_key_not_yet_durable_never_leaves_memory() {
        let (mut k, log) = setup();
        answer(&mut k, &log, "a", 0, false);
        answer(&mut k, &log, "b", 10 * MIN, false);
        assert_eq!(k.len(), 2, "nothing is durable, so nothing leaves memory");
        // The store is empty: only memory can answer.
        assert!(k.find("a").unwrap().is_some());
    }

    #[test]
    fn a_batch_reads_its_missing_keys_once_and_then_needs_no_read() {
        let (mut k, log) = setup();
        for (key, at) in [("a", 0), ("b", 10 * MIN), ("c", 29 * MIN)] {
            answer(&mut k, &log, key, at, true);
        }
        let before = asked(&log);
        k.begin_batch(30 * MIN, &[key_id("a"), key_id("new"), key_id("c")]).unwrap();
        assert_eq!(asked(&log), before + 2, "a and new were read together; c is in memory");
        assert!(k.find("a").unwrap().is_some(), "a came with the batch's read");
        assert!(k.find("new").unwrap().is_none());
        assert!(k.find("c").unwrap().is_some());
        assert_eq!(asked(&log), before + 2, "nothing more was read");
        // A key the batch did not name is read when asked for.
        assert!(k.find("b").unwrap().is_some());
        assert_eq!(asked(&log), before + 3);
    }

    #[test]
    fn a_key_leaves_memory_only_between_batches() {
        let (mut k, log) = setup();
        answer(&mut k, &log, "a", 0, true);
        k.begin_batch(MIN, &[key_id("x")]).unwrap();
        // Time runs on within the batch; "a" stays where the batch found it.
        k.set_time(10 * MIN);
        assert_eq!(k.len(), 1);
        assert!(k.find("a").unwrap().is_some());
    }

    #[test]
    fn a_key_outside_the_retention_window_is_forgotten() {
        let (mut k, log) = setup();
        k.set_retention(60 * MIN);
        answer(&mut k, &log, "a", 0, true);
        answer(&mut k, &log, "b", 61 * MIN, true);
        assert!(k.find("a").unwrap().is_none());
        assert!(k.find("b").unwrap().is_some());
        // In memory too: past the window, a hot key is forgotten.
        k.set_time(122 * MIN);
        assert!(k.find("b").unwrap().is_none());
    }

    #[test]
    fn without_a_store_the_whole_window_stays_in_memory() {
        let log = Log::default();
        let mut k = KeyMemory::default();
        answer(&mut k, &log, "a", 0, true);
        answer(&mut k, &log, "b", 600 * MIN, true);
        assert_eq!(k.len(), 2);
        assert!(k.find("a").unwrap().is_some());
        k.set_time(DEFAULT_KEY_RETENTION_MS + 1);
        assert_eq!(k.len(), 1, "a is past the window");
    }

    #[test]
    fn restored_keys_continue_the_seq_and_know_what_is_on_disk() {
        let (mut k, log) = setup();
        for i in 0..5u64 {
            answer(&mut k, &log, &format!("k{i}"), i * MIN, true);
        }
        let rows = log.rows.lock().unwrap().clone();
        let mut r = KeyMemory::restore(rows[3..].to_vec(), 5).unwrap();
        r.set_cold(log.clone(), 2 * MIN);
        assert_eq!(r.len(), 2);
        assert_eq!(r.evicted_through, 3);
        assert!(r.find("k0").unwrap().is_some(), "k0 is found on disk");
        let row = r.remember("k5", [1; 32], &Ok(vec![TransferId(9)]), Cause::None);
        assert_eq!(row.seq, 6);
    }
}
