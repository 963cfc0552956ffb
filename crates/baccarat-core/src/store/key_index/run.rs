//! A run: the ids of a set of answered keys, each with the seq of its latest
//! answer, sorted by id and written once, in order, as `key_parts` rows of
//! [`CHUNK_KEYS`] entries (one page each). Beside them, in the same table:
//! the run's Bloom filter and its fences (each chunk's first id), which a
//! process holds in memory while the run is live, about 1.6 bytes a key.
//!
//! A part's rowid is the run's id shifted 32 bits, plus the part's number
//! and a base for what it holds ([`CHUNK`], [`BLOOM`], [`FENCE`]): a run's
//! rows are one rowid range, written at the table's end and removed whole.

use rusqlite::{params, Connection, OptionalExtension};

use super::bloom::Bloom;
use crate::ledger::keys::KeyId;
use crate::store::StoreError;

/// Keys in a chunk: 160 entries of 24 bytes, 3,840 bytes, under a 4 KB page's
/// limit for a row kept on its own leaf page.
pub const CHUNK_KEYS: usize = 160;
const ENTRY: usize = 24;
const PART_BYTES: usize = CHUNK_KEYS * ENTRY;

pub const CHUNK: i64 = 0;
pub const BLOOM: i64 = 1 << 30;
pub const FENCE: i64 = 2 << 30;

/// A run being written (its rows are not yet read by anyone).
pub const WRITING: i64 = 0;
/// A run lookups read.
pub const LIVE: i64 = 1;
/// A run replaced by a merge or past the retention window: its parts are
/// being removed.
pub const DROPPED: i64 = 2;

/// The rowid of a run's part.
pub fn part(run: i64, base: i64, n: i64) -> i64 {
    (run << 32) | (base + n)
}

/// The rowids of every part of a run.
pub fn parts(run: i64) -> std::ops::Range<i64> {
    (run << 32)..((run + 1) << 32)
}

/// A live run as memory holds it.
#[derive(Debug)]
pub struct Run {
    pub id: i64,
    /// How many merges made it (a run of fresh answers is level 0).
    pub level: u32,
    pub first_seq: u64,
    pub last_seq: u64,
    /// The latest answer time among its keys: once that has left the
    /// retention window, so has every key in it.
    pub newest_ms: u64,
    pub keys: u64,
    pub chunks: u32,
    bloom: Bloom,
    /// The first id of each chunk.
    fences: Vec<KeyId>,
}

/// What a run says of a key.
#[derive(Debug, PartialEq, Eq)]
pub enum Probe {
    Absent,
    /// The seq of its latest answer in this run.
    At(u64),
    /// The chunk was not there: the run was merged into another, or dropped,
    /// since it was read (the lookup starts again from the runs now live).
    Gone,
}

fn entry_at(data: &[u8], i: usize) -> (KeyId, u64) {
    let e = &data[i * ENTRY..(i + 1) * ENTRY];
    (
        KeyId::from_le_bytes(e[..16].try_into().expect("16 bytes")),
        u64::from_le_bytes(e[16..].try_into().expect("8 bytes")),
    )
}

/// The entries of a chunk as read.
pub fn entries(data: &[u8]) -> Result<Vec<(KeyId, u64)>, StoreError> {
    if data.len() % ENTRY != 0 {
        return Err(StoreError::Corrupt(format!("a key index chunk of {} bytes", data.len())));
    }
    Ok((0..data.len() / ENTRY).map(|i| entry_at(data, i)).collect())
}

/// Read a part, if it is there.
pub fn read_part(conn: &Connection, rowid: i64) -> Result<Option<Vec<u8>>, StoreError> {
    let mut q = conn.prepare_cached("SELECT data FROM key_parts WHERE id = ?1")?;
    Ok(q.query_row([rowid], |r| r.get::<_, Vec<u8>>(0)).optional()?)
}

impl Run {
    /// What this run holds for `id`.
    pub fn find(&self, conn: &Connection, id: KeyId) -> Result<Probe, StoreError> {
        if !self.bloom.may_contain(id) {
            return Ok(Probe::Absent);
        }
        let Some(chunk) = self.fences.partition_point(|f| *f <= id).checked_sub(1) else {
            return Ok(Probe::Absent);
        };
        let Some(data) = read_part(conn, part(self.id, CHUNK, chunk as i64))? else {
            return Ok(Probe::Gone);
        };
        if data.len() % ENTRY != 0 {
            return Err(StoreError::Corrupt(format!("key index run {} chunk {chunk}", self.id)));
        }
        let (mut lo, mut hi) = (0, data.len() / ENTRY);
        while lo < hi {
            let mid = (lo + hi) / 2;
            let (k, seq) = entry_at(&data, mid);
            match k.cmp(&id) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Ok(Probe::At(seq)),
            }
        }
        Ok(Probe::Absent)
    }

    /// Bytes held in memory.
    pub fn bytes(&self) -> usize {
        self.bloom.bytes() + self.fences.len() * 16
    }

    /// Read a live run's filter and fences.
    pub fn load(conn: &Connection, id: i64) -> Result<Run, StoreError> {
        let (level, first_seq, last_seq, newest_ms, keys, chunks): (i64, i64, i64, i64, i64, i64) = conn.query_row(
            "SELECT level, first_seq, last_seq, newest_ms, keys, chunks FROM key_runs WHERE id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?)),
        )?;
        let read = |base: i64| -> Result<Vec<u8>, StoreError> {
            let mut q = conn.prepare_cached("SELECT data FROM key_parts WHERE id >= ?1 AND id < ?2 ORDER BY id")?;
            let mut out = Vec::new();
            let mut rows = q.query(params![part(id, base, 0), part(id, base + (1 << 30), 0)])?;
            while let Some(r) = rows.next()? {
                out.extend_from_slice(r.get_ref(0)?.as_blob()?);
            }
            Ok(out)
        };
        let bad = |what: &str| StoreError::Corrupt(format!("key index run {id}: {what}"));
        let bloom = Bloom::from_bytes(&read(BLOOM)?).ok_or_else(|| bad("its filter"))?;
        let fences: Vec<KeyId> =
            read(FENCE)?.chunks_exact(16).map(|f| KeyId::from_le_bytes(f.try_into().expect("16 bytes"))).collect();
        if fences.len() as i64 != chunks || !fences.windows(2).all(|w| w[0] < w[1]) {
            return Err(bad("its fences"));
        }
        Ok(Run {
            id,
            level: level as u32,
            first_seq: first_seq as u64,
            last_seq: last_seq as u64,
            newest_ms: newest_ms as u64,
            keys: keys as u64,
            chunks: chunks as u32,
            bloom,
            fences,
        })
    }
}

/// A run being written: entries pushed in ascending id order, each id once.
pub struct RunWriter {
    pub id: i64,
    level: u32,
    buf: Vec<u8>,
    chunks: u32,
    bloom: Bloom,
    fences: Vec<KeyId>,
    keys: u64,
    last: Option<KeyId>,
}

impl RunWriter {
    /// Start a run of about `keys` keys (its filter's size) at `level`: its
    /// row is written now, [`WRITING`].
    pub fn begin(conn: &Connection, level: u32, keys: usize) -> Result<RunWriter, StoreError> {
        conn.execute(
            "INSERT INTO key_runs (level, state, first_seq, last_seq, newest_ms, keys, chunks)
             VALUES (?1, ?2, 0, 0, 0, 0, 0)",
            params![level, WRITING],
        )?;
        Ok(RunWriter {
            id: conn.last_insert_rowid(),
            level,
            buf: Vec::with_capacity(PART_BYTES),
            chunks: 0,
            bloom: Bloom::with_keys(keys),
            fences: Vec::new(),
            keys: 0,
            last: None,
        })
    }

    pub fn push(&mut self, conn: &Connection, id: KeyId, seq: u64) -> Result<(), StoreError> {
        if self.last.is_some_and(|l| l >= id) {
            return Err(StoreError::Corrupt(format!("key index run {}: ids out of order", self.id)));
        }
        self.last = Some(id);
        if self.buf.is_empty() {
            self.fences.push(id);
        }
        self.buf.extend_from_slice(&id.to_le_bytes());
        self.buf.extend_from_slice(&seq.to_le_bytes());
        self.bloom.insert(id);
        self.keys += 1;
        if self.buf.len() == PART_BYTES {
            self.flush(conn)?;
        }
        Ok(())
    }

    fn flush(&mut self, conn: &Connection) -> Result<(), StoreError> {
        if !self.buf.is_empty() {
            let mut q = conn.prepare_cached("INSERT INTO key_parts (id, data) VALUES (?1, ?2)")?;
            q.execute(params![part(self.id, CHUNK, self.chunks as i64), &self.buf])?;
            self.chunks += 1;
            self.buf.clear();
        }
        Ok(())
    }

    /// Write the last chunk, the filter and the fences, and the run's
    /// figures, in state `state`.
    pub fn finish(
        mut self,
        conn: &Connection,
        seqs: (u64, u64),
        newest_ms: u64,
        state: i64,
    ) -> Result<Run, StoreError> {
        self.flush(conn)?;
        let mut q = conn.prepare_cached("INSERT INTO key_parts (id, data) VALUES (?1, ?2)")?;
        for (n, p) in self.bloom.to_bytes().chunks(PART_BYTES).enumerate() {
            q.execute(params![part(self.id, BLOOM, n as i64), p])?;
        }
        let fences: Vec<u8> = self.fences.iter().flat_map(|f| f.to_le_bytes()).collect();
        for (n, p) in fences.chunks(PART_BYTES).enumerate() {
            q.execute(params![part(self.id, FENCE, n as i64), p])?;
        }
        conn.execute(
            "UPDATE key_runs SET state = ?2, first_seq = ?3, last_seq = ?4, newest_ms = ?5, keys = ?6, chunks = ?7
             WHERE id = ?1",
            params![
                self.id,
                state,
                seqs.0 as i64,
                seqs.1 as i64,
                newest_ms.min(i64::MAX as u64) as i64,
                self.keys as i64,
                self.chunks
            ],
        )?;
        Ok(Run {
            id: self.id,
            level: self.level,
            first_seq: seqs.0,
            last_seq: seqs.1,
            newest_ms,
            keys: self.keys,
            chunks: self.chunks,
            bloom: self.bloom,
            fences: self.fences,
        })
    }
}
