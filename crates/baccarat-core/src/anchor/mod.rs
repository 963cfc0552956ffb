//! Anchors: a signed, append-only record, kept outside the database, of where
//! each table's audit chain ended.
//!
//! The audit chains ([`crate::audit`]) catch any edit to a record, but not a
//! forger with write access to the database who deletes a chain's tail (or a
//! whole chain) and rehashes: what is left is a valid chain. So the server
//! appends lines to the *anchor file* beside the database, each naming the
//! `(table, len, head)` of every chain its committed batches changed since the
//! line before (at most a line every quarter of a second by default:
//! `anchoring.rs` says when), signed with the server's Ed25519 key (kept in a key file of its
//! own). A verifier then checks each chain against the latest anchored head of
//! its table.
//!
//! Line format: one JSON object per line, fields in this order,
//! `{"seq":1,"prev":"<64 hex>","public":"<64 hex>","heads":[{"table":1,"len":10,"head":"<64 hex>"}],"sig":"<128 hex>"}`.
//! `seq` counts lines from 1; `prev` is the hex SHA-256 of the previous line's
//! bytes (without its newline; 64 zeros for the first); `public` is the signing
//! key, on every line so that each line stands alone; `sig` signs
//! `"baccarat-anchor-v1" ‖ the line without its sig field` (i.e. the object up to
//! `"heads":[..]}`). A line must be byte-for-byte in this canonical form.
//!
//! A *carry line* has `"carry":"YYYY-MM"` after `public`: it begins a file
//! (a segment: the file is moved aside each month, `segments.rs`), names the
//! month it began, and its `heads` are every head anchored so far, so the
//! file can be verified without the segments before it.
//!
//! Files: this one has the key, the line format and the log a server appends
//! to; `store/scan.rs` reads and verifies lines; `segments.rs` moves the file aside
//! each month and reads the segments with it.
//!
//! What an anchor proves: that the holder of the key saw each named chain reach
//! that length and head. Without the key, lines cannot be altered, removed from
//! the middle, reordered or added. What it does not prove:
//! - anything against someone holding the signing key: they can write a new file;
//! - that the file is complete: deleting its *last* lines (and a forger can
//!   truncate the database to match) looks like a server that stopped there, so
//!   publish or copy anchors elsewhere if that matters;
//! - anything when file and key are both replaced, unless the verifier pins the
//!   public key it trusts (operators should publish it; see [`read`]).
//!
//! An anchor is written after its database commit and is not fsynced, so after
//! a power cut anchors may lag the database, never run ahead of it. A
//! checkpoint, which keeps the file's mark, is written only after the file is
//! fsynced (`checkpoint::sync_anchors`), so no durable mark is past its end. A line torn
//! by a crash (no trailing newline) is ignored by [`read`] and cut off by
//! [`AnchorLog::open`]. The server must be the file's only writer.

use crate::ids::TableId;
use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use baccarat_table::hex;
use ed25519_dalek::{Signature, Signer, SigningKey, VerifyingKey};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

mod copy;
mod keys;
mod scan;
pub use copy::{each_line_after, lines_after, read_copy, CopiedLine, CopyRead, Outbox};
mod segments;
pub use keys::Rotation;
use keys::Trust;
use scan::scan_file;
pub use segments::{finish_rotation, read_all, refuse_orphaned, segment_files, Span};

/// Domain tag prefixed to the signed bytes, so an anchor signature can never be
/// mistaken for a signature over anything else.
const DOMAIN: &[u8] = b"baccarat-anchor-v1";

#[derive(Debug, thiserror::Error)]
pub enum AnchorError {
    #[error("{}: {source}", .path.display())]
    Io { path: PathBuf, source: io::Error },
    #[error("{}: malformed key file: expected 64 hex digits (a 32-byte Ed25519 secret) on one line", .0.display())]
    BadKey(PathBuf),
    #[error("{}: line {line}: {what}", .path.display())]
    BadLine { path: PathBuf, line: u64, what: String },
    #[error("pinned public key {0:?} is not an Ed25519 public key (64 hex digits)")]
    BadPinned(String),
    #[error("{}: an earlier write failed and could not be undone; reopen the log", .0.display())]
    Poisoned(PathBuf),
    #[error("{}: {what}", .path.display())]
    Segments { path: PathBuf, what: String },
}

fn io_err(path: &Path, source: io::Error) -> AnchorError {
    AnchorError::Io { path: path.into(), source }
}

/// Lower-case hex only, so every value has one spelling in a line.
fn unhex<const N: usize>(s: &str) -> Option<[u8; N]> {
    if s.len() != 2 * N || !s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return None;
    }
    let mut out = [0u8; N];
    for (i, b) in out.iter_mut().enumerate() {
        *b = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}

/// The server's signing key (Ed25519), kept in a file of its own.
#[derive(Clone)]
pub struct AnchorKey {
    key: SigningKey,
}

impl AnchorKey {
    /// Read the key from `path` (64 hex digits of the 32-byte secret, one line),
    /// or create it with OS randomness if the file does not exist: mode 0600 on
    /// unix, and `create_new`, so two processes cannot both create one. (A
    /// process that loses that race while the winner is still writing reads an
    /// empty file and gets an error; retrying succeeds.)
    pub fn load_or_create(path: &Path) -> Result<AnchorKey, AnchorError> {
        let key = AnchorKey::generate(path)?;
        match key.save_new(path) {
            Ok(()) => Ok(key),
            Err(AnchorError::Io { source, .. }) if source.kind() == io::ErrorKind::AlreadyExists => {
                AnchorKey::load(path)
            }
            Err(e) => Err(e),
        }
    }

    /// A new key from OS randomness, held in memory until
    /// [`AnchorKey::save_new`] writes it: a start makes its key file only
    /// once every check has passed (`signing_key.rs`). `path` names the file
    /// it is for, in an error.
    pub fn generate(path: &Path) -> Result<AnchorKey, AnchorError> {
        let mut secret = [0u8; 32];
        getrandom::fill(&mut secret).map_err(|e| io_err(path, io::Error::other(format!("OS randomness: {e}"))))?;
        Ok(AnchorKey { key: SigningKey::from_bytes(&secret) })
    }

    /// Write this key to `path`, which must not exist yet (`create_new`, so
    /// two processes cannot both write one): mode 0600 on unix, and synced
    /// (losing the key would orphan the anchor file).
    pub fn save_new(&self, path: &Path) -> Result<(), AnchorError> {
        let mut opts = OpenOptions::new();
        opts.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
        let mut file = opts.open(path).map_err(|e| io_err(path, e))?;
        let line = format!("{}\n", hex(&self.key.to_bytes()));
        if let Err(e) = file.write_all(line.as_bytes()).and_then(|()| file.sync_all()) {
            let _ = fs::remove_file(path); // an empty key file would fail every later start
            return Err(io_err(path, e));
        }
        Ok(())
    }

    pub fn load(path: &Path) -> Result<AnchorKey, AnchorError> {
        let bytes = fs::read(path).map_err(|e| io_err(path, e))?;
        let secret = std::str::from_utf8(&bytes).ok().and_then(|s| unhex::<32>(&s.trim().to_ascii_lowercase()));
        Ok(AnchorKey { key: SigningKey::from_bytes(&secret.ok_or_else(|| AnchorError::BadKey(path.into()))?) })
    }

    /// The public key, 64 hex digits (operators publish/pin this).
    pub fn public_hex(&self) -> String {
        hex(self.key.verifying_key().as_bytes())
    }

    /// Sign `message` (a checkpoint's digest): the signature in hex.
    pub fn sign(&self, message: &[u8]) -> String {
        hex(&self.key.sign(message).to_bytes())
    }
}

/// Whether `signature` (hex) is `public`'s (hex) signature of `message`.
pub fn signed_by(public: &str, message: &[u8], signature: &str) -> bool {
    let Some(key) = unhex::<32>(public).and_then(|k| VerifyingKey::from_bytes(&k).ok()) else {
        return false;
    };
    let Some(sig) = unhex::<64>(signature) else {
        return false;
    };
    key.verify_strict(message, &Signature::from_bytes(&sig)).is_ok()
}

/// One chain's end.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Head {
    pub table: TableId,
    pub len: u64,
    pub head: String,
}

/// A line. With `sig` empty (and so left out), it serializes to the bytes signed.
#[derive(Serialize, Deserialize)]
struct Line {
    seq: u64,
    prev: String,
    public: String,
    /// On a carry line only: the month its file began (`YYYY-MM`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    carry: Option<String>,
    /// On a rotation line only: the key that signs the lines after it (`keys.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    rotate: Option<String>,
    heads: Vec<Head>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    sig: String,
    /// On a rotation line only: the new key's countersignature (`keys.rs`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    cosig: String,
}

impl Line {
    fn json(&self) -> String {
        serde_json::to_string(self).expect("plain data serializes")
    }
}

fn signed_bytes(unsigned: &str) -> Vec<u8> {
    [DOMAIN, unsigned.as_bytes()].concat()
}

fn render(key: &SigningKey, seq: u64, prev: &[u8; 32], heads: &[Head], carry: Option<&str>) -> String {
    let public = hex(key.verifying_key().as_bytes());
    let carry = carry.map(str::to_string);
    let (sig, cosig) = (String::new(), String::new());
    let mut line = Line { seq, prev: hex(prev), public, carry, rotate: None, heads: heads.to_vec(), sig, cosig };
    line.sig = hex(&key.sign(&signed_bytes(&line.json())).to_bytes());
    line.json()
}

/// What the anchor file says, verified.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Anchored {
    /// Latest anchored (len, head) per table.
    pub heads: BTreeMap<TableId, (u64, String)>,
    pub lines: u64,
    /// The public key the lines are signed with: after a rotation, the key
    /// in force at the last line (the one the server signs with now).
    pub public: String,
    /// The rotations read, in order (`keys.rs`): the first key is the
    /// first's `from`, or `public` when there is none.
    pub rotations: Vec<Rotation>,
}

/// Where the anchor file stood at a moment (a checkpoint keeps it, signed):
/// its first `len` bytes were verified, its `seq`th line (starting at byte
/// `start`) has SHA-256 `last`, and `heads` were the latest anchored heads.
/// A start reads only what follows it (`AnchorLog::open_at`, `read_at`): the
/// file grows with every batch, and verifying every signature since the first
/// would make a start slower with every day of history.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnchorMark {
    pub seq: u64,
    pub start: u64,
    pub len: u64,
    pub last: String,
    pub heads: BTreeMap<TableId, (u64, String)>,
}

impl AnchorMark {
    /// Whether `anchored` (the file as read now) has fewer lines than this
    /// mark, which a signed checkpoint keeps, saw: lines were removed, or an
    /// older copy of the file (or an old segment) put in its place. What
    /// removing lines hides is what a forger who cut the database wants
    /// hidden; this catches it while a checkpoint after them is left.
    pub fn behind(&self, anchored: &Anchored) -> Option<String> {
        (anchored.lines < self.seq).then(|| {
            format!(
                "the anchor file has {} lines, but the latest checkpoint (signed) saw it at line {}: lines were removed, \
                 or an older copy was put in its place",
                anchored.lines, self.seq
            )
        })
    }
}

/// The anchor file, open for appending.
pub struct AnchorLog {
    path: PathBuf,
    file: File,
    key: AnchorKey,
    seq: u64,
    last: [u8; 32],
    /// Where the last line starts.
    start: u64,
    /// The file's length: where a failed write is cut back to.
    len: u64,
    /// The latest anchored head of each chain.
    heads: BTreeMap<TableId, (u64, String)>,
    poisoned: bool,
    /// Heads committed but not yet signed into a line ([`AnchorLog::stage`]).
    staged: BTreeMap<TableId, Head>,
    /// The month this file began, from its carry line (`segments.rs`).
    month: Option<String>,
    /// Where each line written also goes, for the database's copy of the
    /// lines (`copy.rs`); none on SQLite, whose file is beside its database.
    copy: Option<Outbox>,
}

impl AnchorLog {
    /// Open (create if missing) the file at `path` for appending with `key`. An
    /// existing file is verified first, under this key, and a torn last line cut
    /// off; the log continues from its last line. A file signed by another key is
    /// an error: the key file was replaced, or this is another server's file.
    pub fn open(path: &Path, key: AnchorKey) -> Result<AnchorLog, AnchorError> {
        AnchorLog::open_at(path, key, None)
    }

    /// The same, verifying only what follows `mark` when the mark describes
    /// this file (a start from a checkpoint); else the whole file.
    pub fn open_at(path: &Path, key: AnchorKey, mark: Option<&AnchorMark>) -> Result<AnchorLog, AnchorError> {
        let io = |e| io_err(path, e);
        segments::finish_rotation(path).map_err(io)?;
        segments::refuse_orphaned(path)?;
        let mut file = OpenOptions::new().read(true).append(true).create(true).open(path).map_err(io)?;
        let scan = scan_file(path, &mut file, Trust::Signer(key.key.verifying_key()), mark)?;
        if scan.complete < file.metadata().map_err(io)?.len() {
            file.set_len(scan.complete).map_err(io)?;
        }
        let (seq, last, len, start) = (scan.anchored.lines, scan.last, scan.complete, scan.start);
        Ok(AnchorLog {
            path: path.into(),
            file,
            key,
            seq,
            last,
            start,
            len,
            heads: scan.anchored.heads,
            poisoned: false,
            staged: BTreeMap::new(),
            month: scan.month,
            copy: None,
        })
    }

    /// Where the file stands now (a checkpoint keeps it).
    pub fn mark(&self) -> AnchorMark {
        AnchorMark { seq: self.seq, start: self.start, len: self.len, last: hex(&self.last), heads: self.heads.clone() }
    }

    /// Append one signed line naming these heads (nothing if empty): one
    /// signature and one `write`, no fsync. The database commit before it is
    /// what must be durable; an anchor may lag it after a power cut, never lead.
    pub fn append(&mut self, heads: &[Head]) -> Result<(), AnchorError> {
        if heads.is_empty() {
            return Ok(());
        }
        self.append_line(heads, None)
    }

    /// Append one line, a carry line when `carry` names a month.
    fn append_line(&mut self, heads: &[Head], carry: Option<&str>) -> Result<(), AnchorError> {
        if self.poisoned {
            return Err(AnchorError::Poisoned(self.path.clone()));
        }
        debug_assert!(heads.iter().all(|h| unhex::<32>(&h.head).is_some()), "heads are 64 lower-case hex");
        let line = render(&self.key.key, self.seq + 1, &self.last, heads, carry);
        self.write_line(&line, heads)
    }

    /// Rotate the signing key (`baccarat key rotate`, the server stopped):
    /// what waits is written first, then a rotation line signed by the key
    /// in force and countersigned by `new` (`keys.rs`), made durable; every
    /// line after it is signed by `new`.
    pub fn rotate_key(&mut self, new: AnchorKey) -> Result<(), AnchorError> {
        self.flush()?;
        if self.poisoned {
            return Err(AnchorError::Poisoned(self.path.clone()));
        }
        let line = keys::render_rotation(&self.key.key, &new.key, self.seq + 1, &self.last);
        self.write_line(&line, &[])?;
        self.sync()?;
        self.key = new;
        Ok(())
    }

    /// Append `line` (rendered and signed), naming `heads`.
    fn write_line(&mut self, line: &str, heads: &[Head]) -> Result<(), AnchorError> {
        let bytes = format!("{line}\n");
        if let Err(e) = self.file.write_all(bytes.as_bytes()).and_then(|()| self.file.flush()) {
            // Cut a partial write off, lest the next line follow a torn one.
            self.poisoned = self.file.set_len(self.len).is_err();
            return Err(io_err(&self.path, e));
        }
        self.seq += 1;
        self.last = Sha256::digest(line.as_bytes()).into();
        self.start = self.len;
        self.len += bytes.len() as u64;
        for h in heads {
            self.heads.insert(h.table, (h.len, h.head.clone()));
        }
        if let Some(outbox) = &self.copy {
            outbox.push(self.seq, line);
        }
        Ok(())
    }

    /// Append `lines`, the database's copy of lines past this file's end,
    /// byte for byte, once they verify as this file's continuation: numbered
    /// on from its last line, each `prev` its predecessor's hash, signed by
    /// this log's key (`copy.rs`). Nothing is written if any does not.
    pub fn restore(&mut self, lines: &[CopiedLine]) -> Result<(), AnchorError> {
        let from =
            scan::From { seq: self.seq, last: self.last, heads: self.heads.clone(), whole: true, offset: self.len };
        let reader = std::io::BufReader::new(copy::LinesReader::new(lines.iter().map(|l| l.line.clone())));
        let scan = scan::scan_lines(&self.path, reader, keys::KeyChain::default(), from)?;
        if let Err((line, what)) = scan.chain.meets(Trust::Signer(self.key.key.verifying_key()), self.seq + 1) {
            return Err(AnchorError::BadLine { path: self.path.clone(), line, what });
        }
        for l in lines {
            self.write_line(&l.line, &[])?;
        }
        self.heads = scan.anchored.heads;
        Ok(())
    }

    /// From now on, every line written also waits in `outbox` for the
    /// database's copy of the lines (`copy.rs`).
    pub fn copy_to(&mut self, outbox: Outbox) {
        self.copy = Some(outbox);
    }

    /// The number of the last line written (0 for an empty file).
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// The lines numbered after `after`: the last one read from where it
    /// starts, any more from the files ([`lines_after`]: a start
    /// whose database copy lacks only the line of the batch before a crash
    /// reads one line, not the month's file).
    pub fn lines_after(&self, after: u64) -> Result<Vec<CopiedLine>, AnchorError> {
        use std::io::{Read, Seek, SeekFrom};
        if after >= self.seq {
            return Ok(Vec::new());
        }
        if after + 1 < self.seq {
            return lines_after(&self.path, after);
        }
        let io = |e| io_err(&self.path, e);
        let mut file = File::open(&self.path).map_err(io)?;
        file.seek(SeekFrom::Start(self.start)).map_err(io)?;
        let mut line = String::new();
        file.take(self.len - self.start).read_to_string(&mut line).map_err(io)?;
        if line.pop() != Some('\n') || <[u8; 32]>::from(Sha256::digest(line.as_bytes())) != self.last {
            return lines_after(&self.path, after);
        }
        Ok(vec![CopiedLine { seq: self.seq, line }])
    }

    /// Make the lines written so far durable (before a checkpoint keeps the
    /// file's mark: `checkpoint::sync_anchors`).
    pub fn sync(&self) -> Result<(), AnchorError> {
        self.file.sync_data().map_err(|e| io_err(&self.path, e))
    }

    /// Keep these heads for the next line instead of writing one now: a
    /// later head of the same chain replaces an earlier one, since a chain's
    /// head covers every record before it. See `anchoring.rs`.
    pub fn stage(&mut self, heads: &[Head]) {
        for h in heads {
            self.staged.insert(h.table, h.clone());
        }
    }

    /// Whether heads wait for a line.
    pub fn has_staged(&self) -> bool {
        !self.staged.is_empty()
    }

    /// Write the staged heads as one line (nothing if none). They stay
    /// staged if the write fails.
    pub fn flush(&mut self) -> Result<(), AnchorError> {
        let heads: Vec<Head> = self.staged.values().cloned().collect();
        self.append(&heads)?;
        self.staged.clear();
        Ok(())
    }

    pub fn public_hex(&self) -> String {
        self.key.public_hex()
    }

    /// The key this log signs with (a clean stop's checkpoint is signed by
    /// it too: `serve_turn.rs`).
    pub fn key(&self) -> &AnchorKey {
        &self.key
    }

    /// Sign with the anchor key (checkpoints are signed like the anchors).
    pub fn sign(&self, message: &[u8]) -> String {
        self.key.sign(message)
    }
}

/// Read and verify the file. `pinned`: the public key the verifier trusts
/// (hex). When None, the key on the file's first line is used, and the caller
/// should report it: a forger could have replaced file and key together. Any
/// bad signature, broken `prev` link, wrong seq, unparsable line or key mismatch
/// is an error naming the line; a torn last line (no newline) is ignored.
/// Only this file is read: when it begins with a carry line, that line's
/// heads stand for the segments before it ([`read_all`] reads those too).
pub fn read(path: &Path, pinned: Option<&str>) -> Result<Anchored, AnchorError> {
    read_at(path, pinned, None)
}

/// The same, verifying only what follows `mark` when the key is pinned and
/// the mark describes this file (a start from a signed checkpoint).
pub fn read_at(path: &Path, pinned: Option<&str>, mark: Option<&AnchorMark>) -> Result<Anchored, AnchorError> {
    let trust = pinned_key(pinned)?.map_or(Trust::Any, Trust::Pinned);
    read_trusting(path, trust, mark)
}

/// As [`read_at`], for the server whose key is `signer` (a start's check):
/// the chain of keys must end in it, not merely name it (`keys.rs`).
pub fn read_signed_at(path: &Path, signer: &str, mark: Option<&AnchorMark>) -> Result<Anchored, AnchorError> {
    let trust = Trust::Signer(pinned_key(Some(signer))?.expect("given"));
    read_trusting(path, trust, mark)
}

fn read_trusting(path: &Path, trust: Trust, mark: Option<&AnchorMark>) -> Result<Anchored, AnchorError> {
    let mut file = File::open(path).map_err(|e| io_err(path, e))?;
    // A mark is used only under a pinned key: without one, the first line's
    // key is the one trusted, and that line is before the mark.
    let mark = mark.filter(|_| !matches!(trust, Trust::Any));
    Ok(scan_file(path, &mut file, trust, mark)?.anchored)
}

/// The key a verifier pins (hex, any case), if any.
fn pinned_key(pinned: Option<&str>) -> Result<Option<VerifyingKey>, AnchorError> {
    let key = |p: &str| VerifyingKey::from_bytes(&unhex::<32>(&p.trim().to_ascii_lowercase())?).ok();
    pinned.map(|p| key(p).ok_or_else(|| AnchorError::BadPinned(p.into()))).transpose()
}

/// Default paths beside a database file: `<db>.anchors` and `<db>.key`.
pub fn default_paths(db: &Path) -> (PathBuf, PathBuf) {
    let with = |suffix: &str| {
        let mut s = db.as_os_str().to_owned();
        s.push(suffix);
        PathBuf::from(s)
    };
    (with(".anchors"), with(".key"))
}

/// The chains (by table; the casino's is 0) that fall short of the heads the
/// anchor file signed, or are gone: the start-up check. It reads one record
/// per chain (the anchored one); the links after it are checked as recovery
/// reads them, and `verify` checks the whole history.
pub fn anchor_cuts(
    store: &dyn crate::store::History,
    anchored: &Anchored,
) -> Result<std::collections::BTreeMap<TableId, String>, crate::store::StoreError> {
    let tables: Vec<TableId> = store.tables()?.iter().map(|t| t.id).collect();
    let mut out = std::collections::BTreeMap::new();
    for (table, (len, head)) in &anchored.heads {
        let known = *table == crate::audit::CASINO_CHAIN || tables.contains(table);
        let why = if !known {
            Some(format!("the anchor file signed {len} records, but the table is gone from the database"))
        } else if *len == 0 {
            None
        } else {
            match store.record_at(*table, *len)? {
                None => Some(format!("the anchor file signed {len} records, the chain is shorter (its tail was cut)")),
                Some(r) if r.hash != *head => {
                    Some(format!("record {len} is not the one the anchor file signed (the chain was rewritten)"))
                }
                Some(_) => None,
            }
        };
        if let Some(w) = why {
            out.insert(*table, w);
        }
    }
    Ok(out)
}

/// The heads of the chains a commit appended to, for the anchor file.
pub fn heads_of(commit: &crate::store::Commit) -> Vec<Head> {
    let mut last: std::collections::BTreeMap<TableId, &crate::audit::Record> = std::collections::BTreeMap::new();
    for (t, r) in &commit.records {
        last.insert(*t, r);
    }
    last.into_iter().map(|(table, r)| Head { table, len: r.seq, head: r.hash.clone() }).collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A fresh directory under the system temp dir, removed on drop (kept if
    /// the test failed, to be looked at).
    pub(crate) struct Tmp(pub(crate) PathBuf);
    impl Tmp {
        pub(crate) fn new() -> Tmp {
            let mut r = [0u8; 8];
            getrandom::fill(&mut r).unwrap();
            let dir = std::env::temp_dir().join(format!("anchor-test-{}", hex(&r)));
            fs::create_dir(&dir).unwrap();
            Tmp(dir)
        }
        pub(crate) fn key(&self, name: &str) -> AnchorKey {
            AnchorKey::load_or_create(&self.0.join(name)).unwrap()
        }
    }
    impl Drop for Tmp {
        fn drop(&mut self) {
            if !std::thread::panicking() {
                let _ = fs::remove_dir_all(&self.0);
            }
        }
    }

    pub(crate) fn head(table: TableId, len: u64) -> Head {
        Head { table, len, head: hex(&Sha256::digest(format!("{table}/{len}"))) }
    }

    /// Four lines: tables 1 and 2, then 1, then 3, then 2.
    fn log(tmp: &Tmp) -> PathBuf {
        let path = tmp.0.join("db.anchors");
        let mut log = AnchorLog::open(&path, tmp.key("db.key")).unwrap();
        for batch in [
            vec![head(TableId(1), 3), head(TableId(2), 1)],
            vec![head(TableId(1), 5)],
            vec![],
            vec![head(TableId(3), 2)],
            vec![head(TableId(2), 4)],
        ] {
            log.append(&batch).unwrap();
        }
        path
    }

    fn lines(path: &Path) -> Vec<String> {
        fs::read_to_string(path).unwrap().lines().map(String::from).collect()
    }

    fn write_lines(path: &Path, lines: &[String]) {
        fs::write(path, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    }

    /// The line number and message of a bad-line error.
    fn bad_line(r: Result<Anchored, AnchorError>) -> (u64, String) {
        match r {
            Err(e @ AnchorError::BadLine { line, .. }) => (line, e.to_string()),
            other => panic!("expected a bad line, got {other:?}"),
        }
    }

    #[test]
    fn round_trip_gives_the_latest_head_per_table() {
        let tmp = Tmp::new();
        let path = log(&tmp);
        let a = read(&path, None).unwrap();
        assert_eq!(a.lines, 4);
        assert_eq!(a.public, tmp.key("db.key").public_hex());
        let want: BTreeMap<TableId, (u64, String)> = [head(TableId(1), 5), head(TableId(2), 4), head(TableId(3), 2)]
            .into_iter()
            .map(|h| (h.table, (h.len, h.head)))
            .collect();
        assert_eq!(a.heads, want);
        assert_eq!(read(&path, Some(&a.public)).unwrap(), a);
        assert!(lines(&path)[0].starts_with(&format!("{{\"seq\":1,\"prev\":\"{}\"", "0".repeat(64))));
    }

    #[test]
    fn reopening_continues_the_chain() {
        let tmp = Tmp::new();
        let path = log(&tmp);
        let mut log = AnchorLog::open(&path, tmp.key("db.key")).unwrap();
        log.append(&[head(TableId(1), 9)]).unwrap();
        let a = read(&path, Some(&log.public_hex())).unwrap();
        assert_eq!((a.lines, &a.heads[&TableId(1)]), (5, &(9, head(TableId(1), 9).head)));
        let l = lines(&path);
        assert!(l[4].contains(&format!("\"seq\":5,\"prev\":\"{}\"", hex(&Sha256::digest(&l[3])))));
    }

    #[test]
    fn tampering_is_found_at_its_line() {
        let tmp = Tmp::new();
        let path = log(&tmp);
        let orig = lines(&path);
        let mut changed = orig.clone();
        let at = changed[1].find("\"head\":\"").unwrap() + 8;
        let flip = if &changed[1][at..at + 1] == "0" { "1" } else { "0" };
        changed[1].replace_range(at..at + 1, flip);
        write_lines(&path, &changed);
        let (line, msg) = bad_line(read(&path, None));
        assert!(line == 2 && msg.contains("bad signature"), "{msg}");

        write_lines(&path, &[orig[0].clone(), orig[2].clone(), orig[3].clone()]);
        let (line, msg) = bad_line(read(&path, None));
        assert!(line == 2 && msg.contains("seq 3 where 2"), "{msg}");
        write_lines(&path, &[orig[0].clone(), orig[2].clone(), orig[1].clone(), orig[3].clone()]);
        assert_eq!(bad_line(read(&path, None)).0, 2);

        // Line 2 re-signed by another key, with the right seq and prev.
        let other = tmp.key("other.key");
        let mut resigned = orig.clone();
        resigned[1] = render(&other.key, 2, &Sha256::digest(&orig[0]).into(), &[head(TableId(1), 5)], None);
        write_lines(&path, &resigned);
        let (line, msg) = bad_line(read(&path, None));
        assert!(line == 2 && msg.contains("signed by key"), "{msg}");

        write_lines(&path, &orig);
        let (line, msg) = bad_line(read(&path, Some(&other.public_hex())));
        assert!(line == 1 && msg.contains("db.anchors: line 1: signed by key"), "{msg}");
        assert!(matches!(read(&path, Some("zz")), Err(AnchorError::BadPinned(_))));
        assert!(matches!(AnchorLog::open(&path, other), Err(AnchorError::BadLine { line: 1, .. })));
    }

    #[test]
    fn a_torn_last_line_is_tolerated() {
        let tmp = Tmp::new();
        let path = log(&tmp);
        let whole = fs::read(&path).unwrap();
        let last = lines(&path).pop().unwrap();
        let mut torn = whole.clone();
        torn.extend_from_slice(&last.as_bytes()[..last.len() / 2]);
        fs::write(&path, &torn).unwrap();
        assert_eq!(read(&path, None).unwrap().lines, 4);

        let mut log = AnchorLog::open(&path, tmp.key("db.key")).unwrap();
        assert_eq!(fs::read(&path).unwrap(), whole);
        log.append(&[head(TableId(4), 1)]).unwrap();
        let a = read(&path, None).unwrap();
        assert_eq!((a.lines, a.heads[&TableId(4)].0), (5, 1));
    }

    #[test]
    fn keys_are_created_once_and_malformed_ones_refused() {
        let tmp = Tmp::new();
        let path = tmp.0.join("k.key");
        let made = AnchorKey::load_or_create(&path).unwrap();
        assert_eq!(AnchorKey::load_or_create(&path).unwrap().public_hex(), made.public_hex());
        assert_eq!(AnchorKey::load(&path).unwrap().public_hex(), made.public_hex());
        #[cfg(unix)]
        assert_eq!(std::os::unix::fs::PermissionsExt::mode(&fs::metadata(&path).unwrap().permissions()) & 0o777, 0o600);
        fs::write(&path, "not a key\n").unwrap();
        let err = AnchorKey::load_or_create(&path).err().unwrap();
        assert!(matches!(&err, AnchorError::BadKey(p) if p == &path));
        assert!(err.to_string().contains("k.key"), "{err}");
        let (anchors, key) = default_paths(Path::new("/var/casino.db"));
        assert_eq!((anchors, key), (PathBuf::from("/var/casino.db.anchors"), PathBuf::from("/var/casino.db.key")));
    }

    /// A start from a checkpoint's mark verifies only the lines after it,
    /// with the same result as reading the whole file; a mark that does not
    /// describe the file (its line altered or gone) means the whole file.
    #[test]
    fn a_mark_skips_the_lines_before_it_and_only_those() {
        let tmp = Tmp::new();
        let path = tmp.0.join("db.anchors");
        let mut log = AnchorLog::open(&path, tmp.key("db.key")).unwrap();
        for n in 1..=5 {
            log.append(&[head(TableId(1), n), head(TableId(2), n * 2)]).unwrap();
        }
        let mark = log.mark();
        assert_eq!(mark.seq, 5);
        for n in 6..=8 {
            log.append(&[head(TableId(1), n)]).unwrap();
        }
        let public = log.public_hex();
        drop(log);
        let whole = read(&path, Some(&public)).unwrap();
        assert_eq!(read_at(&path, Some(&public), Some(&mark)).unwrap(), whole);
        let reopened = AnchorLog::open_at(&path, tmp.key("db.key"), Some(&mark)).unwrap();
        assert_eq!((reopened.seq, reopened.heads.clone()), (8, whole.heads.clone()));
        let full = AnchorLog::open(&path, tmp.key("db.key")).unwrap();
        assert_eq!(
            (full.seq, full.last, full.start, full.len),
            (reopened.seq, reopened.last, reopened.start, reopened.len)
        );
        drop((reopened, full));
        // A line before the mark altered: not read from the mark (verify reads
        // it all), refused reading all.
        let text = fs::read_to_string(&path).unwrap();
        let altered = text.replacen("\"len\":2", "\"len\":9", 1);
        assert_ne!(altered, text);
        fs::write(&path, &altered).unwrap();
        assert!(read(&path, Some(&public)).is_err());
        assert!(read_at(&path, Some(&public), Some(&mark)).is_ok());
        // A line after the mark altered: refused either way.
        let tail = text.rfind("\"len\":7").unwrap();
        let mut after = text.clone();
        after.replace_range(tail..tail + 7, "\"len\":3");
        fs::write(&path, &after).unwrap();
        assert!(read_at(&path, Some(&public), Some(&mark)).is_err());
        assert!(AnchorLog::open_at(&path, tmp.key("db.key"), Some(&mark)).is_err());
        // A mark that does not describe the file reads it all.
        fs::write(&path, &text).unwrap();
        let wrong = AnchorMark { last: "0".repeat(64), ..mark.clone() };
        assert_eq!(read_at(&path, Some(&public), Some(&wrong)).unwrap(), whole);
        let beyond = AnchorMark { len: 1 << 40, ..mark };
        assert_eq!(read_at(&path, Some(&public), Some(&beyond)).unwrap(), whole);
    }
}
