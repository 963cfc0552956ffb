//! Checkpoints: the casino's live state, signed and kept in the store, so that
//! a restart reads what is live and replays only the tail written after it.
//!
//! # What a checkpoint holds, and what it does not
//!
//! The ledger's accounts and open holds, the last transfer id it covers, each
//! table's engine state (`baccarat_table::engine::State`: shoe, coup, roads,
//! limits) with its chain's head, and the read model the pages show (`coup_feed.rs`).
//! Not the history: transfers, audit records and answers stay in their logs.
//! Idempotency keys are not copied either: the answer log is in time order, so
//! recovery reads the retention window from it directly (`store.rs`).
//!
//! # When
//!
//! The writer takes one when a shoe starts or ends anywhere and at least
//! [`shoe_gap`] records were written since the last (ten thousand, or twice
//! the live state's items if that is more), when
//! [`MAX_GAP_RECORDS`] were written whatever happened (a table settling a
//! coup in chunks does not hold either back), on request (a clean
//! shutdown, which waits for every settlement to be recorded), and after a
//! recovery that replayed a long tail (taken by the start, handed to the
//! same thread, and written while the server serves: `serve::Opened::due`).
//! Cloning the state
//! is the writer's only cost; once the batch it describes is durable the
//! committer adds the read model and hands it to a thread of its own
//! ([`Checkpointer`]), which serialises it straight into the store on its own
//! connection, in parts of a megabyte, each hashed as it is written and each
//! its own short transaction, then signs the hash ([`write_streamed`]: a busy
//! floor's checkpoint is tens of megabytes; no request waits for it, no
//! commit waits long for SQLite's write lock, and it is never whole in
//! memory; `store.rs`). Its long lists are rows (`casino/checkpoint_rows.rs`). While
//! the thread is still writing the last one, none is taken ([`Busy`]): the
//! next is taken at the first boundary after it is done. A clean stop's checkpoint is written by the
//! committer before the stop is answered. A checkpoint never describes
//! anything that is not on disk, and a crash before it is written leaves the
//! one before, and a longer tail.
//!
//! # Trust
//!
//! The body's SHA-256 is signed with the anchor key (`anchor.rs`) under the
//! domain `baccarat-checkpoint-v1`. Recovery checks the hash, the signature and
//! the key; a checkpoint that fails any of them is reported and the whole
//! history is replayed instead. Recovery also checks the checkpoint against the
//! logs: its balances plus the tail's transfers must give the balances the
//! store holds, and each chain must continue from the checkpoint's head.

use baccarat_core::TableId;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use baccarat_table::hex;

use crate::anchor::{signed_by, AnchorLog};
use crate::ledger::{Account, Transfer, TransferId};
use crate::store::StoredCheckpoint;

/// The format written.
pub const FORMAT: u32 = 1;

/// Why a stored checkpoint is refused ([`open`]): each names the
/// checkpoint and what failed; a start then replays the whole history.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// Signed by another key than the server's.
    #[error("checkpoint {id} is signed by key {key}, not the server's {public}")]
    WrongKey { id: i64, key: String, public: String },
    /// The body's SHA-256 is not the stored one.
    #[error("checkpoint {id}: its body does not match its SHA-256 (altered or corrupt)")]
    Altered { id: i64 },
    /// The signature does not verify under the server's key.
    #[error("checkpoint {id}: its signature does not verify under the server's key")]
    Signature { id: i64 },
    /// The body does not parse.
    #[error("checkpoint {id}: unreadable: {source}")]
    Unreadable { id: i64, source: serde_json::Error },
    /// The body is in another format than [`FORMAT`].
    #[error("checkpoint {id}: format {format} is not {expected}", expected = FORMAT)]
    Format { id: i64, format: u32 },
}

/// Why the background [`Checkpointer`] did not start.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointerError {
    /// Its store did not open (the opener's own message).
    #[error(transparent)]
    Open(Box<dyn std::error::Error + Send + Sync>),
    /// Its thread could not be made.
    #[error("cannot start the checkpointer: {0}")]
    Spawn(#[source] std::io::Error),
    /// Its thread ended before saying whether the store opened.
    #[error("the checkpointer stopped")]
    Stopped,
}

/// Records between checkpoints at least, when a shoe boundary asks for one.
pub const MIN_GAP_RECORDS: u64 = 10_000;
/// Records between checkpoints at most.
pub const MAX_GAP_RECORDS: u64 = 2_000_000;

/// Records between checkpoints at least, when a shoe boundary asks for one,
/// for a live state of `live` items (open holds and accounts): twice that,
/// within [`MIN_GAP_RECORDS`] and [`MAX_GAP_RECORDS`].
///
/// A checkpoint writes every live item (a hold is three rows: the hold, the
/// engine's wager and the pit's line), and a restart replays the tail since
/// it. Under a fixed gap of 10,000 records, `loadgen` (no pauses; tens of
/// thousands of open wagers a coup on sixteen tables) had the checkpointer
/// write 60 MB checkpoints all the time it was free: a gap of 300,000 did
/// not lower its 7 s of CPU in 55, and without background checkpoints the
/// server accepted 47.6–49.1 k bets/s over 180 s, against 42.8–45.3 k. Spacing them by the state they copy bounds
/// that share, and keeps the tail a restart replays within a few times the
/// state it loads. A quiet floor's state is small, and it keeps a checkpoint
/// every shoe.
pub fn shoe_gap(live: u64) -> u64 {
    live.saturating_mul(2).clamp(MIN_GAP_RECORDS, MAX_GAP_RECORDS)
}

/// The signed domain.
const DOMAIN: &[u8] = b"baccarat-checkpoint-v1";

/// A chain's end: its length and the hash of its last record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChainHead {
    pub len: u64,
    pub head: String,
}

/// One table's live state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TableState {
    pub id: TableId,
    pub chain: ChainHead,
    pub engine: baccarat_table::State,
    pub halted: Option<String>,
    pub commitment: Option<String>,
    /// Closed for good, or closing (`closing.rs`); absent in the
    /// checkpoints written before tables could close, and for an open table.
    #[serde(default, skip_serializing_if = "crate::casino::closing::Closure::is_open")]
    pub closure: crate::casino::closing::Closure,
}

/// The casino's live state at the end of one batch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    pub format: u32,
    /// The server's time when it was taken (ms since the epoch).
    pub at_ms: u64,
    /// The last transfer it covers: the tail is every transfer after it.
    pub last_transfer: TransferId,
    pub accounts: Vec<Account>,
    /// The open holds, as rows (`casino/checkpoint_rows.rs`).
    #[serde(serialize_with = "crate::casino::checkpoint_rows::transfers")]
    pub pending: Vec<std::sync::Arc<Transfer>>,
    pub casino: ChainHead,
    pub tables: Vec<TableState>,
    /// The read model as of the same batch (filled in by the committer).
    pub feed: Option<crate::coup_feed::FeedState>,
    /// Tournaments (`casino/tournaments.rs`).
    #[serde(default)]
    pub tournaments: Vec<crate::casino::tournaments::TournamentState>,
    /// Promotions (`casino/promotions.rs`).
    #[serde(default)]
    pub promotions: Vec<crate::casino::promotions::PromotionState>,
    /// Players' own limits (`casino/self_limits.rs`).
    #[serde(default)]
    pub self_limits: Vec<crate::casino::self_limits::SelfLimits>,
    /// Where the anchor file stood when the checkpoint was taken: a start
    /// from this checkpoint verifies only the anchor lines after it.
    #[serde(default)]
    pub anchor: Option<crate::anchor::AnchorMark>,
    /// A partition's last allotment recorded, by the bank's record number
    /// (`casino/bank_side.rs`); 0 for a casino that is none.
    #[serde(default)]
    pub bank_seq: u64,
    /// A partition's last record of the bank's log of players' limits
    /// folded (`bank/limits.rs`); 0 for a casino that is none.
    #[serde(default)]
    pub limits_seq: u64,
}

impl Checkpoint {
    /// Where it stood: its time, its last transfer and every chain's length
    /// (`archive.rs` cuts at a mark).
    pub fn mark(&self) -> crate::store::archive::Mark {
        let tables = self.tables.iter().map(|t| (t.id, t.chain.len));
        crate::store::archive::Mark::of_chains(self.at_ms, self.last_transfer.0, self.casino.len, tables)
    }
}

pub use crate::store::{Head, Sealed};

/// Serialise `c` straight into the store a part at a time, hashing as it
/// goes, and sign the hash: the body is never whole in memory. (Whole, a busy
/// floor's checkpoint — 255 MB after 30 s of `loadgen`, most of it the open
/// coups' wagers — doubled the memory it describes while it was written.)
/// The bytes are those [`seal_with`] makes.
pub fn write_streamed(
    store: &mut dyn crate::store::Store,
    c: &Checkpoint,
    key: &crate::anchor::AnchorKey,
) -> Result<(), crate::store::StoreError> {
    use crate::store::{StoreError, CHECKPOINT_PART_BYTES};
    let head = Head { at_ms: c.at_ms, mark: c.mark(), public_key: key.public_hex() };
    let mut body = |put: &mut crate::store::PutPart<'_>| {
        let mut parts = Parts { buf: Vec::with_capacity(CHECKPOINT_PART_BYTES), put, failed: None };
        let written = serde_json::to_writer(&mut parts, c);
        if let Some(e) = parts.failed.take() {
            return Err(e);
        }
        written.map_err(|e| StoreError::Corrupt(format!("checkpoint: cannot serialise: {e}")))?;
        parts.flush_part()
    };
    store.write_checkpoint_parts(&head, &mut body, &mut |sha256| {
        Ok((sha256.to_string(), key.sign(&signed_message(sha256))))
    })?;
    note_written(c.at_ms);
    Ok(())
}

/// Say that a checkpoint taken at `at_ms` is written (for its age).
pub fn note_written(at_ms: u64) {
    LAST_WRITTEN_MS.fetch_max(at_ms, std::sync::atomic::Ordering::Relaxed);
}

/// When the latest checkpoint this process wrote was taken (ms since the
/// epoch, its own clock's); zero before the first. `GET /metrics` shows its
/// age.
static LAST_WRITTEN_MS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// When the latest checkpoint this process wrote was taken, if it wrote one
/// (ms since the epoch).
pub fn last_written_ms() -> Option<u64> {
    Some(LAST_WRITTEN_MS.load(std::sync::atomic::Ordering::Relaxed)).filter(|ms| *ms > 0)
}

/// A checkpoint to write now, on the committer, before the answers that wait
/// for it: a clean stop's. It is streamed like the background ones
/// ([`write_streamed`]), so a stop after a busy spell does not first build
/// the whole body in memory (about 100 MB, and half a second, after 30 s of
/// `loadgen`).
pub struct WriteNow {
    pub checkpoint: Box<Checkpoint>,
    pub key: std::sync::Arc<crate::anchor::AnchorKey>,
    /// The anchor file, made durable first ([`sync_anchors`]).
    pub anchors: std::path::PathBuf,
}

impl WriteNow {
    pub fn write(&self, store: &mut dyn crate::store::Store) -> Result<(), crate::store::StoreError> {
        sync_anchors(&self.anchors)?;
        write_streamed(store, &self.checkpoint, &self.key)
    }
}

/// Make the anchor file durable before a checkpoint that keeps its mark is:
/// its lines are written unsynced (`anchor.rs`), and after a power cut a
/// durable checkpoint whose mark is past the file's end would stop the start
/// as a file with lines removed (`AnchorMark::behind`). An fsync through any
/// descriptor of the file writes its data back.
pub fn sync_anchors(path: &std::path::Path) -> Result<(), crate::store::StoreError> {
    std::fs::File::open(path)
        .and_then(|f| f.sync_data())
        .map_err(|e| crate::store::StoreError::Corrupt(format!("{}: cannot make it durable: {e}", path.display())))
}

/// Bytes gathered into parts of [`crate::store::CHECKPOINT_PART_BYTES`], each
/// handed to the store when full. A store error stops the serialiser (an I/O
/// error to it) and is kept to be reported as itself.
struct Parts<'a> {
    buf: Vec<u8>,
    put: &'a mut crate::store::PutPart<'a>,
    failed: Option<crate::store::StoreError>,
}

impl Parts<'_> {
    fn flush_part(&mut self) -> Result<(), crate::store::StoreError> {
        if !self.buf.is_empty() {
            (self.put)(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }
}

impl std::io::Write for Parts<'_> {
    fn write(&mut self, mut data: &[u8]) -> std::io::Result<usize> {
        let n = data.len();
        // serde_json writes a token at a time: most fit in the part as it is.
        if n < crate::store::CHECKPOINT_PART_BYTES - self.buf.len() {
            self.buf.extend_from_slice(data);
            return Ok(n);
        }
        while !data.is_empty() {
            let room = crate::store::CHECKPOINT_PART_BYTES - self.buf.len();
            let (now, later) = data.split_at(room.min(data.len()));
            self.buf.extend_from_slice(now);
            data = later;
            if self.buf.len() == crate::store::CHECKPOINT_PART_BYTES {
                if let Err(e) = self.flush_part() {
                    self.failed = Some(e);
                    return Err(std::io::Error::other("the store refused a part"));
                }
            }
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn signed_message(sha256: &str) -> Vec<u8> {
    [DOMAIN, b"|", sha256.as_bytes()].concat()
}

/// Serialise, hash and sign.
pub fn seal(c: &Checkpoint, anchors: &AnchorLog) -> Sealed {
    sealed(c, |m| anchors.sign(m), anchors.public_hex())
}

fn sealed(c: &Checkpoint, sign: impl Fn(&[u8]) -> String, public_key: String) -> Sealed {
    let body = serde_json::to_vec(c).expect("checkpoints serialise");
    let sha256 = hex(&Sha256::digest(&body));
    let signature = sign(&signed_message(&sha256));
    Sealed { at_ms: c.at_ms, mark: c.mark(), body, sha256, signature, public_key }
}

/// Check a stored checkpoint against the server's public key and read it.
/// Every failure names what failed.
pub fn open(s: &StoredCheckpoint, public: &str) -> Result<Checkpoint, CheckpointError> {
    check_key(s, public)?;
    check_seal(s, public, &hex(&Sha256::digest(&s.body)))?;
    let c: Checkpoint =
        serde_json::from_slice(&s.body).map_err(|source| CheckpointError::Unreadable { id: s.id, source })?;
    check_format(s.id, c.format)?;
    Ok(c)
}

/// The checkpoint is signed by the server's key.
pub(crate) fn check_key(s: &StoredCheckpoint, public: &str) -> Result<(), CheckpointError> {
    if s.public_key != public {
        return Err(CheckpointError::WrongKey { id: s.id, key: s.public_key.clone(), public: public.to_string() });
    }
    Ok(())
}

/// The body's SHA-256 (`sha256`, computed) is the stored one, and signed.
pub(crate) fn check_seal(s: &StoredCheckpoint, public: &str, sha256: &str) -> Result<(), CheckpointError> {
    if sha256 != s.sha256 {
        return Err(CheckpointError::Altered { id: s.id });
    }
    if !signed_by(public, &signed_message(sha256), &s.signature) {
        return Err(CheckpointError::Signature { id: s.id });
    }
    Ok(())
}

/// The body is in the format this server reads.
pub(crate) fn check_format(id: i64, format: u32) -> Result<(), CheckpointError> {
    if format != FORMAT {
        return Err(CheckpointError::Format { id, format });
    }
    Ok(())
}

/// Whether the background [`Checkpointer`] is still on the last checkpoint
/// taken. While it is, the writer takes no other: under `loadgen` a shoe ends
/// somewhere every few hundred milliseconds, and each checkpoint taken then
/// cost the writer a copy of the state (2.5–15 ms) and the committer a copy
/// of the read model under its lock, only to be dropped at the busy thread.
#[derive(Clone, Debug, Default)]
pub struct Busy(std::sync::Arc<std::sync::atomic::AtomicBool>);

impl Busy {
    pub fn get(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::Acquire)
    }

    pub fn set(&self, busy: bool) {
        self.0.store(busy, std::sync::atomic::Ordering::Release)
    }
}

/// Clears [`Busy`] when dropped.
struct Free(Busy);

impl Drop for Free {
    fn drop(&mut self) {
        self.0.set(false);
    }
}

/// The thread that seals and writes checkpoints in the background.
pub struct Checkpointer {
    tx: std::sync::mpsc::SyncSender<Box<Checkpoint>>,
    busy: Busy,
}

impl Checkpointer {
    /// Start it on a store of its own, which `open` opens on the
    /// checkpointer's thread (PostgreSQL's client may not be driven from the
    /// async runtime's threads), signing with `key`: the key the start
    /// checked and loaded (`serve_turn.rs`: the key file is not read again
    /// after the start's first write, so it cannot fail the start then).
    /// `backend::start_checkpointer` opens either back end, fenced by the
    /// lease on PostgreSQL.
    pub fn start<S: crate::store::Store + 'static, E: Into<Box<dyn std::error::Error + Send + Sync>>>(
        open: impl FnOnce() -> Result<S, E> + Send + 'static,
        key: crate::anchor::AnchorKey,
        anchors: &std::path::Path,
        busy: Busy,
    ) -> Result<Checkpointer, CheckpointerError> {
        let anchors = anchors.to_path_buf();
        let (tx, rx) = std::sync::mpsc::sync_channel::<Box<Checkpoint>>(1);
        let (ready, opened) = std::sync::mpsc::sync_channel::<Result<(), CheckpointerError>>(1);
        let done = busy.clone();
        std::thread::Builder::new()
            .name("checkpointer".into())
            .spawn(move || {
                let mut store = match open() {
                    Ok(s) => {
                        let _ = ready.send(Ok(()));
                        s
                    }
                    Err(e) => {
                        let _ = ready.send(Err(CheckpointerError::Open(e.into())));
                        return;
                    }
                };
                while let Ok(c) = rx.recv() {
                    // Free again once this one is written, or failed, or
                    // the thread unwinds: a thread stuck busy would stop
                    // every later checkpoint.
                    let _free = Free(done.clone());
                    let written = sync_anchors(&anchors).and_then(|()| write_streamed(&mut store, &c, &key));
                    if let Err(e) = written {
                        tracing::warn!(error = %e, "checkpointer: checkpoint not written; the next start reads a longer tail");
                    }
                }
            })
            .map_err(CheckpointerError::Spawn)?;
        opened.recv().map_err(|_| CheckpointerError::Stopped)??;
        Ok(Checkpointer { tx, busy })
    }

    /// Hand over a checkpoint; dropped if the last is still being written
    /// (the writer's [`Busy`] gate makes that rare).
    pub fn offer(&self, c: Box<Checkpoint>) {
        if self.tx.try_send(c).is_err() {
            self.busy.set(false);
        }
    }
}

/// Serialise, hash and sign with a key.
pub fn seal_with(c: &Checkpoint, key: &crate::anchor::AnchorKey) -> Sealed {
    sealed(c, |m| key.sign(m), key.public_hex())
}

#[cfg(test)]
mod error_tests {
    use super::*;

    /// A refused checkpoint reads as the string it replaced, byte for byte
    /// (a start prints it; operators and tests match on it).
    #[test]
    fn refusals_read_as_before() {
        assert_eq!(CheckpointError::Format { id: 7, format: 9 }.to_string(), "checkpoint 7: format 9 is not 1");
        let e = CheckpointError::WrongKey { id: 7, key: "ab".into(), public: "cd".into() };
        assert_eq!(e.to_string(), "checkpoint 7 is signed by key ab, not the server's cd");
        assert_eq!(CheckpointerError::Open("no db".into()).to_string(), "no db");
    }
}
