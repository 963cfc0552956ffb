//! The maintainer: writes pending answers as runs, merges runs, drops those
//! past the retention window and removes dropped runs' rows, each step a
//! short transaction on a connection of its own (`store/key_index.rs` says why
//! and in which order). [`catch_up`] indexes, at a start, what a crash left
//! unindexed.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::Arc;

use rusqlite::{params, Connection, OptionalExtension};

use super::run::{self, entries, part, read_part, Run, RunWriter, CHUNK, DROPPED, LIVE, WRITING};
use super::{read_id, set_covered, KeyIndex, FANOUT, RUN_AGE_MS, RUN_KEYS};
use crate::ledger::keys::KeyId;
use crate::store::StoreError;

/// Chunks a merge writes in one transaction (about 1 MB).
pub const SLICE_CHUNKS: u32 = 256;
/// Rows a step removes of a dropped run.
const DROP_ROWS: i64 = 1024;
/// Answers read into one run at a start's catch-up.
pub const CATCH_UP_KEYS: usize = 1 << 20;
/// A run is dropped only this long after its newest answer left the window.
pub const DROP_MARGIN_MS: u64 = 3_600_000;

/// The level a run of `keys` keys starts at: the first whose merged runs are
/// at least as large.
fn level_for(keys: usize) -> u32 {
    let (mut level, mut size) = (0, RUN_KEYS);
    while size < keys {
        level += 1;
        size = size.saturating_mul(FANOUT);
    }
    level
}

/// Answers sorted by id, each id's latest only: a run's entries, its first
/// and last seq and its newest time.
struct Sorted {
    entries: Vec<(KeyId, u64)>,
    seqs: (u64, u64),
    newest_ms: u64,
}

fn sorted(mut answers: Vec<super::Pending>) -> Sorted {
    answers.sort_unstable_by_key(|a| (a.id, a.seq));
    let seqs = (answers.iter().map(|a| a.seq).min().unwrap_or(0), answers.iter().map(|a| a.seq).max().unwrap_or(0));
    let newest_ms = answers.iter().map(|a| a.at_ms).max().unwrap_or(0);
    let mut entries: Vec<(KeyId, u64)> = Vec::with_capacity(answers.len());
    for a in answers {
        match entries.last_mut() {
            // Sorted by seq within an id: the later answer replaces it.
            Some(last) if last.0 == a.id => last.1 = a.seq,
            _ => entries.push((a.id, a.seq)),
        }
    }
    Sorted { entries, seqs, newest_ms }
}

/// Write sorted answers as one live run (in `conn`'s transaction).
fn write_sorted(conn: &Connection, s: &Sorted, level: u32) -> Result<Run, StoreError> {
    let mut w = RunWriter::begin(conn, level, s.entries.len())?;
    for &(id, seq) in &s.entries {
        w.push(conn, id, seq)?;
    }
    w.finish(conn, s.seqs, s.newest_ms, LIVE)
}

/// A write transaction that takes SQLite's write lock at its start, waiting
/// for it as any writer does. (A deferred one that read first could not be
/// turned into a writer once the committer had written since its read: it
/// failed at once with "database is locked", every time under load.)
fn write_tx(conn: &mut Connection) -> Result<rusqlite::Transaction<'_>, StoreError> {
    Ok(conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?)
}

/// Index every answer after `covered`, as runs, before a server serves: a
/// crash's tail, or (once, migration 14) a log indexed the old way. Gives
/// the answers indexed.
pub fn catch_up(conn: &mut Connection) -> Result<u64, StoreError> {
    let mut done = 0;
    loop {
        let tx = write_tx(conn)?;
        let covered = super::covered(&tx)?;
        let (answers, last) = {
            let mut q =
                tx.prepare("SELECT rowid, key_id, at_ms FROM answer_log WHERE rowid > ?1 ORDER BY rowid LIMIT ?2")?;
            let mut rows = q.query(params![covered as i64, CATCH_UP_KEYS as i64])?;
            let (mut answers, mut last) = (Vec::new(), None);
            while let Some(r) = rows.next()? {
                let seq = r.get::<_, i64>(0)? as u64;
                last = Some(seq);
                if let Some(id) = read_id(r.get_ref(1)?)? {
                    answers.push(super::Pending { id, seq, at_ms: r.get::<_, i64>(2)? as u64 });
                }
            }
            (answers, last)
        };
        let Some(last) = last else { return Ok(done) };
        done += answers.len() as u64;
        if !answers.is_empty() {
            let level = level_for(answers.len());
            write_sorted(&tx, &sorted(answers), level)?;
        }
        set_covered(&tx, last)?;
        tx.commit()?;
    }
}

/// A merge under way.
struct Merge {
    inputs: Vec<Arc<Run>>,
    cursors: Vec<Cursor>,
    out: Option<RunWriter>,
    /// Its output run's id, once begun (removed if the merge is abandoned).
    out_id: Option<i64>,
    level: u32,
    /// The last entry taken, not yet written (a later run may hold a newer
    /// answer under the same id).
    held: Option<(KeyId, u64)>,
}

struct Cursor {
    run: Arc<Run>,
    next_chunk: u32,
    entries: Vec<(KeyId, u64)>,
    pos: usize,
}

impl Cursor {
    fn peek(&mut self, conn: &Connection) -> Result<Option<(KeyId, u64)>, StoreError> {
        while self.pos == self.entries.len() {
            if self.next_chunk == self.run.chunks {
                return Ok(None);
            }
            let data = read_part(conn, part(self.run.id, CHUNK, self.next_chunk as i64))?.ok_or_else(|| {
                StoreError::Corrupt(format!("key index run {} lacks chunk {}", self.run.id, self.next_chunk))
            })?;
            self.entries = entries(&data)?;
            self.pos = 0;
            self.next_chunk += 1;
        }
        Ok(Some(self.entries[self.pos]))
    }
}

/// See the module docs.
pub struct Maintainer {
    conn: Connection,
    index: Arc<KeyIndex>,
    retention_ms: u64,
    merge: Option<Merge>,
    /// Runs whose rows are being removed, oldest first.
    dropping: VecDeque<i64>,
}

impl Maintainer {
    /// Maintain `index` through `conn` (a writing connection of its own).
    /// Runs left half-written, or dropped but not yet removed, are removed.
    pub fn new(conn: Connection, index: Arc<KeyIndex>, retention_ms: u64) -> Result<Maintainer, StoreError> {
        conn.execute("UPDATE key_runs SET state = ?1 WHERE state = ?2", params![DROPPED, WRITING])?;
        let dropping: VecDeque<i64> = conn
            .prepare("SELECT id FROM key_runs WHERE state = ?1 ORDER BY id")?
            .query_map([DROPPED], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        Ok(Maintainer { conn, index, retention_ms, merge: None, dropping })
    }

    /// Open a connection of its own to `path` and maintain `index` on a
    /// thread until the process ends. Its writes need no sync of their own:
    /// a run lost to a power cut is rebuilt from the answer log at the start
    /// ([`catch_up`]).
    pub fn spawn(path: &Path, index: Arc<KeyIndex>, retention_ms: u64) -> Result<(), StoreError> {
        let conn = Connection::open(path)?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.busy_handler(Some(crate::store::short_waits))?;
        let mut m = Maintainer::new(conn, index, retention_ms)?;
        std::thread::Builder::new()
            .name("key-index".into())
            .spawn(move || loop {
                // The last holder: the store and its readers are gone.
                if Arc::strong_count(&m.index) == 1 {
                    return;
                }
                match m.step() {
                    Ok(true) => m.index.note_error(None),
                    Ok(false) => std::thread::sleep(std::time::Duration::from_millis(50)),
                    Err(e) => {
                        tracing::warn!(error = %e, "key index: its upkeep failed; tried again in a second");
                        m.index.note_error(Some(e.to_string()));
                        std::thread::sleep(std::time::Duration::from_secs(1));
                    }
                }
            })
            .map_err(|e| StoreError::Corrupt(format!("cannot start the key index thread: {e}")))?;
        Ok(())
    }

    /// Do the most pressing piece of work: a run of pending answers, else a
    /// dropped run's rows, else a slice of a merge, else expiry. False if
    /// there was nothing to do.
    pub fn step(&mut self) -> Result<bool, StoreError> {
        if self.run_due(false) {
            self.write_pending()?;
            return Ok(true);
        }
        if !self.dropping.is_empty() {
            self.remove_slice()?;
            return Ok(true);
        }
        if self.merge.is_some() || self.start_merge() {
            self.merge_slice()?;
            return Ok(true);
        }
        self.expire()
    }

    /// Step until nothing is left to do, writing even a young pending run
    /// (tests).
    pub fn settle(&mut self) -> Result<(), StoreError> {
        self.write_pending_now()?;
        while self.step()? {}
        Ok(())
    }

    /// Write every pending answer as level-0 runs, however young.
    pub fn write_pending_now(&mut self) -> Result<(), StoreError> {
        while self.run_due(true) {
            self.write_pending()?;
        }
        Ok(())
    }

    fn run_due(&self, now: bool) -> bool {
        let (n, oldest) = self.index.pending_age();
        n >= RUN_KEYS || oldest.is_some_and(|t| now || t.saturating_add(RUN_AGE_MS) <= self.index.newest_ms())
    }

    /// Write the oldest pending answers (up to [`RUN_KEYS`]) as a level-0
    /// run, show it, then take them out of pending.
    fn write_pending(&mut self) -> Result<(), StoreError> {
        let answers = self.index.oldest(RUN_KEYS);
        let n = answers.len();
        let s = sorted(answers);
        let last = s.seqs.1;
        let tx = write_tx(&mut self.conn)?;
        // Another maintainer of the same file (a server stopped and started
        // again in one process) may have indexed them already.
        if super::covered(&tx)? < last {
            let r = write_sorted(&tx, &s, 0)?;
            set_covered(&tx, last)?;
            tx.commit()?;
            let mut runs: Vec<Arc<Run>> = self.index.runs().iter().cloned().collect();
            runs.push(Arc::new(r));
            self.index.publish(runs);
        }
        self.index.covered(n);
        Ok(())
    }

    /// Choose the oldest [`FANOUT`] runs of the lowest level that has as many.
    fn start_merge(&mut self) -> bool {
        let runs = self.index.runs();
        let mut levels: std::collections::BTreeMap<u32, Vec<Arc<Run>>> = Default::default();
        for r in runs.iter() {
            levels.entry(r.level).or_default().push(r.clone());
        }
        let Some((level, mut inputs)) = levels.into_iter().find(|(_, rs)| rs.len() >= FANOUT) else {
            return false;
        };
        inputs.sort_by_key(|r| r.id);
        inputs.truncate(FANOUT);
        let cursors =
            inputs.iter().map(|r| Cursor { run: r.clone(), next_chunk: 0, entries: Vec::new(), pos: 0 }).collect();
        self.merge = Some(Merge { inputs, cursors, out: None, out_id: None, level: level + 1, held: None });
        true
    }

    /// Merge up to [`SLICE_CHUNKS`] chunks' worth; at the end, swap the
    /// merged run in for its inputs. The inputs are read first, outside the
    /// transaction (they do not change while merged), so that the write lock
    /// is held only to write.
    fn merge_slice(&mut self) -> Result<(), StoreError> {
        let mut m = self.merge.take().expect("a merge is under way");
        match self.merge_slice_of(&mut m) {
            Ok(false) => self.merge = Some(m),
            Ok(true) => {}
            // Abandoned: what it wrote is removed; a later step starts again.
            Err(e) => {
                self.dropping.extend(m.out_id);
                return Err(e);
            }
        }
        Ok(())
    }

    /// One slice of `m`; true once the merged run is swapped in.
    fn merge_slice_of(&mut self, m: &mut Merge) -> Result<bool, StoreError> {
        let want = SLICE_CHUNKS as usize * run::CHUNK_KEYS;
        let mut slice: Vec<(KeyId, u64)> = Vec::with_capacity(want);
        let mut done = false;
        while slice.len() < want {
            let mut next: Option<(usize, (KeyId, u64))> = None;
            for (i, c) in m.cursors.iter_mut().enumerate() {
                if let Some(e) = c.peek(&self.conn)? {
                    if next.is_none_or(|(_, n)| e.0 < n.0 || (e.0 == n.0 && e.1 > n.1)) {
                        next = Some((i, e));
                    }
                }
            }
            let Some((i, e)) = next else {
                done = true;
                break;
            };
            m.cursors[i].pos += 1;
            match m.held {
                Some(h) if h.0 == e.0 => m.held = Some((h.0, h.1.max(e.1))),
                Some(h) => {
                    slice.push(h);
                    m.held = Some(e);
                }
                None => m.held = Some(e),
            }
        }
        if done {
            slice.extend(m.held.take());
        }
        let tx = write_tx(&mut self.conn)?;
        if m.out.is_none() {
            let keys = m.inputs.iter().map(|r| r.keys as usize).sum();
            let w = RunWriter::begin(&tx, m.level, keys)?;
            m.out_id = Some(w.id);
            m.out = Some(w);
        }
        let out = m.out.as_mut().expect("begun");
        for (id, seq) in slice {
            out.push(&tx, id, seq)?;
        }
        if !done {
            tx.commit()?;
            return Ok(false);
        }
        let out = m.out.take().expect("begun");
        let first = m.inputs.iter().map(|r| r.first_seq).min().unwrap_or(0);
        let last = m.inputs.iter().map(|r| r.last_seq).max().unwrap_or(0);
        let newest = m.inputs.iter().map(|r| r.newest_ms).max().unwrap_or(0);
        let merged = out.finish(&tx, (first, last), newest, LIVE)?;
        let gone: Vec<i64> = m.inputs.iter().map(|r| r.id).collect();
        Self::mark_dropped(&tx, &gone)?;
        tx.commit()?;
        let mut runs: Vec<Arc<Run>> = self.index.runs().iter().filter(|r| !gone.contains(&r.id)).cloned().collect();
        runs.push(Arc::new(merged));
        runs.sort_by_key(|r| r.id);
        self.index.publish(runs);
        self.dropping.extend(gone);
        Ok(true)
    }

    /// Mark live runs dropped; an error (the transaction not committed) if
    /// one was no longer live.
    fn mark_dropped(conn: &Connection, ids: &[i64]) -> Result<(), StoreError> {
        let mut q = conn.prepare_cached("UPDATE key_runs SET state = ?1 WHERE id = ?2 AND state = ?3")?;
        for id in ids {
            if q.execute(params![DROPPED, id, LIVE])? != 1 {
                return Err(StoreError::Corrupt(format!("key index run {id} is no longer live")));
            }
        }
        Ok(())
    }

    /// Drop the live runs (not being merged) whose newest answer left the
    /// window more than [`DROP_MARGIN_MS`] ago.
    fn expire(&mut self) -> Result<bool, StoreError> {
        let horizon = self.index.newest_ms().saturating_sub(self.retention_ms.saturating_add(DROP_MARGIN_MS));
        let merging: Vec<i64> = self.merge.iter().flat_map(|m| m.inputs.iter().map(|r| r.id)).collect();
        let runs = self.index.runs();
        let old: Vec<i64> =
            runs.iter().filter(|r| r.newest_ms < horizon && !merging.contains(&r.id)).map(|r| r.id).collect();
        if old.is_empty() {
            return Ok(false);
        }
        let tx = write_tx(&mut self.conn)?;
        Self::mark_dropped(&tx, &old)?;
        tx.commit()?;
        self.index.publish(runs.iter().filter(|r| !old.contains(&r.id)).cloned().collect());
        self.dropping.extend(old);
        Ok(true)
    }

    /// Remove some rows of the oldest dropped run; its row last.
    fn remove_slice(&mut self) -> Result<(), StoreError> {
        let id = *self.dropping.front().expect("a run to remove");
        // Never a live run: an abandoned merge's id may not have been
        // committed, and may since belong to another run.
        let state: Option<i64> =
            self.conn.query_row("SELECT state FROM key_runs WHERE id = ?1", [id], |r| r.get(0)).optional()?;
        if state.is_none_or(|s| s == LIVE) {
            self.dropping.pop_front();
            return Ok(());
        }
        let parts = run::parts(id);
        let n = self.conn.execute(
            "DELETE FROM key_parts WHERE id IN (SELECT id FROM key_parts WHERE id >= ?1 AND id < ?2 LIMIT ?3)",
            params![parts.start, parts.end, DROP_ROWS],
        )?;
        if n == 0 {
            self.conn.execute("DELETE FROM key_runs WHERE id = ?1", [id])?;
            self.dropping.pop_front();
        }
        Ok(())
    }

    /// The connection (tests that tamper with or inspect the file).
    pub fn connection(&self) -> &Connection {
        &self.conn
    }
}
