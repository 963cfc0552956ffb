//! A copy of the anchor file's lines kept in the database (issue 51: a
//! server's machine lost, and the anchor file with it).
//!
//! # Design
//!
//! The anchor file is the casino's proof against a forger who cuts a chain's
//! tail in the database, and it lives on a server's disk. On PostgreSQL the
//! database outlives any one server's machine (a synchronous standby, a
//! failover), so each line the server writes to its file is also kept in
//! the database, byte for byte, by its number (`anchor_lines`):
//!
//! * **When.** A line is written to the file right after its batch commits
//!   (under a lease, a line per batch); the same text then waits in an
//!   [`Outbox`] and goes into the database inside the *next* commit's
//!   transaction, fenced by the lease's epoch like the rest of it (and
//!   inside the seal of a checkpoint the serving server writes itself, so a
//!   clean stop leaves none behind). No round trip of its own, and a server
//!   that lost its lease writes none.
//! * **Catching up.** A line the file has and the database lacks (a crash
//!   before the next commit, a casino from before this copy) is copied at
//!   the next start
//!   ([`lines_after`]). Lines the database has past the file's end (a
//!   backup takes the files first and the database after; a file lost with
//!   its machine and put back from an older copy) are written back to the
//!   file at a start, once they verify as the file's own continuation
//!   ([`super::AnchorLog::restore`]): they are signed lines, so this adds
//!   nothing a forger could make.
//! * **Reading.** The copy is verified as the file is, line by line
//!   ([`read_copy`]): signatures, numbers, the `prev` links, carry lines.
//!
//! A database forger gains nothing by deleting lines of the copy (the file
//! still has them) or by adding lines (they must be signed by the key).
//!
//! What each copy proves. Either, alone, proves that no record it signs was
//! altered, reordered or removed from the middle, and that no line was
//! forged without the key. The database's copy cannot prove that a chain's
//! tail was not cut *together with* the lines that sign it by someone who
//! can write to the database; the file, on another machine, can. So
//! `verify` reads both when both are there (the longer signs more), names
//! any difference, and says so when it had only the database's copy, which
//! it reads only under the key the casino published. Nor does a start
//! rebuild a lost file from the copy: it would sign whatever the copy says.

use std::io::{self, BufRead, Read};
use std::path::Path;
use std::sync::{Arc, Mutex};

use super::keys::{KeyChain, Trust};
use super::scan::{scan_lines, start_of};
use super::{io_err, pinned_key, AnchorError, Anchored};

/// One line of the anchor file, as the database keeps it: its number and
/// its text (without the newline).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CopiedLine {
    pub seq: u64,
    pub line: String,
}

/// What a copy of the anchor lines said, read and verified
/// ([`read_copy`]; the database's: `pg_store/anchor_lines.rs`).
#[derive(Debug)]
pub enum CopyRead {
    /// No line is kept (a casino on SQLite before, or never served since).
    Empty,
    /// The lines from `first` on, verified: what they signed.
    Read { first: u64, anchored: Anchored },
    /// A line that does not verify (named), or a run that does not begin
    /// at line 1 or at a carry line.
    Bad(AnchorError),
}

/// Lines written to the file and not yet in the database, oldest first.
/// The anchor log pushes to it ([`super::AnchorLog::copy_to`]); the store
/// takes them into its next transaction, and puts them back if that fails.
#[derive(Clone, Default)]
pub struct Outbox(Arc<Mutex<Vec<CopiedLine>>>);

impl Outbox {
    pub(super) fn push(&self, seq: u64, line: &str) {
        self.lock().push(CopiedLine { seq, line: line.to_string() });
    }

    /// Every line waiting, in order; the outbox is left empty.
    pub fn take(&self) -> Vec<CopiedLine> {
        std::mem::take(&mut *self.lock())
    }

    /// Lines taken and not written (their transaction failed): back at the
    /// front, before any pushed since.
    pub fn put_back(&self, mut lines: Vec<CopiedLine>) {
        let mut waiting = self.lock();
        lines.append(&mut waiting);
        *waiting = lines;
    }

    /// How many lines wait.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<CopiedLine>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The complete lines of the anchor file at `path` numbered after `after`,
/// in memory ([`each_line_after`] reads them one at a time).
pub fn lines_after(path: &Path, after: u64) -> Result<Vec<CopiedLine>, AnchorError> {
    let mut out = Vec::new();
    each_line_after(path, after, |l| -> Result<(), AnchorError> {
        out.push(l);
        Ok(())
    })?;
    Ok(out)
}

/// Each complete line numbered after `after`, of the segments beside the
/// anchor file at `path` (those that reach past `after`: a copy that stopped
/// in an earlier month goes on from there) and then of the file itself, in
/// order, one line in memory at a time; a torn last line (no newline) is no
/// line. The files are not verified here: their writer verified them as it
/// opened them.
pub fn each_line_after<E: From<AnchorError>>(
    path: &Path,
    after: u64,
    mut each: impl FnMut(CopiedLine) -> Result<(), E>,
) -> Result<(), E> {
    let mut files = super::segments::segments_of(path)?;
    let mut live = std::fs::File::open(path).map_err(|e| io_err(path, e))?;
    files.push((super::scan::first_line(path, &mut live)?.from.seq + 1, path.to_path_buf()));
    for (i, (first, file)) in files.iter().enumerate() {
        let next = files.get(i + 1).map_or(u64::MAX, |f| f.0);
        if next.saturating_sub(1) <= after {
            continue;
        }
        let mut reader = io::BufReader::new(std::fs::File::open(file).map_err(|e| io_err(file, e))?);
        let mut buf = Vec::new();
        for seq in *first.. {
            buf.clear();
            reader.read_until(b'\n', &mut buf).map_err(|e| io_err(file, e))?;
            if buf.pop() != Some(b'\n') {
                break;
            }
            if seq > after {
                let line = String::from_utf8(std::mem::take(&mut buf)).map_err(|_| AnchorError::BadLine {
                    path: file.clone(),
                    line: seq,
                    what: "not UTF-8".into(),
                })?;
                each(CopiedLine { seq, line })?;
            }
        }
    }
    Ok(())
}

/// Read and verify a copy of the anchor lines (`lines`, in order, the first
/// numbered 1 or a carry line), as [`super::read`] reads the file. `name`
/// says where the copy is, in errors. `pinned`: the key trusted (the
/// verifier's, or the anchor file's first); without one, the first line's.
pub fn read_copy(
    name: &str,
    lines: impl Iterator<Item = String>,
    pinned: Option<&str>,
) -> Result<Anchored, AnchorError> {
    let path = Path::new(name);
    let mut lines = lines.peekable();
    let Some(first) = lines.peek() else { return Ok(Anchored::default()) };
    let start = start_of(path, first.as_bytes())?;
    let first_seq = start.from.seq + 1;
    let trust = pinned_key(pinned)?.map_or(Trust::Any, Trust::Pinned);
    let reader = io::BufReader::new(LinesReader::new(lines));
    let scan = scan_lines(path, reader, KeyChain::default(), start.from)?;
    if let Err((line, what)) = scan.chain.meets(trust, first_seq) {
        return Err(AnchorError::BadLine { path: path.into(), line, what });
    }
    Ok(scan.anchored)
}

/// Lines as the bytes of a file: each followed by a newline.
pub(super) struct LinesReader<I> {
    lines: I,
    buf: Vec<u8>,
    at: usize,
}

impl<I> LinesReader<I> {
    pub(super) fn new(lines: I) -> LinesReader<I> {
        LinesReader { lines, buf: Vec::new(), at: 0 }
    }
}

impl<I: Iterator<Item = String>> Read for LinesReader<I> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.at == self.buf.len() {
            let Some(line) = self.lines.next() else { return Ok(0) };
            self.buf = line.into_bytes();
            self.buf.push(b'\n');
            self.at = 0;
        }
        let n = out.len().min(self.buf.len() - self.at);
        out[..n].copy_from_slice(&self.buf[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anchor::tests::{head, Tmp};
    use crate::anchor::{read, AnchorLog};
    use crate::ids::TableId;

    /// Every line the log writes reaches the outbox, byte for byte; read
    /// back as a copy, the lines say what the file says.
    #[test]
    fn the_outbox_gets_each_line_and_the_copy_reads_as_the_file() {
        let tmp = Tmp::new();
        let path = tmp.0.join("db.anchors");
        let mut log = AnchorLog::open(&path, tmp.key("db.key")).unwrap();
        let outbox = Outbox::default();
        log.append(&[head(TableId(1), 1)]).unwrap();
        log.copy_to(outbox.clone());
        log.append(&[head(TableId(1), 2), head(TableId(2), 1)]).unwrap();
        log.append(&[head(TableId(2), 5)]).unwrap();
        let waiting = outbox.take();
        assert_eq!(waiting.iter().map(|l| l.seq).collect::<Vec<_>>(), [2, 3]);
        assert!(outbox.is_empty());
        let file = std::fs::read_to_string(&path).unwrap();
        let on_disk: Vec<&str> = file.lines().collect();
        assert_eq!(waiting.iter().map(|l| l.line.as_str()).collect::<Vec<_>>(), on_disk[1..]);
        // What a start copies: the lines after the copy's last (the log
        // reads only the last line when only it is missing).
        assert_eq!(lines_after(&path, 1).unwrap(), waiting);
        assert_eq!(lines_after(&path, 3).unwrap(), []);
        assert_eq!(log.lines_after(1).unwrap(), waiting);
        assert_eq!(log.lines_after(2).unwrap(), waiting[1..]);
        assert_eq!(log.lines_after(3).unwrap(), []);
        let all = lines_after(&path, 0).unwrap();
        let copy = read_copy("copy", all.iter().map(|l| l.line.clone()), None).unwrap();
        assert_eq!(copy, read(&path, None).unwrap());
        // Put back in front of what came since.
        outbox.put_back(waiting.clone());
        log.append(&[head(TableId(3), 1)]).unwrap();
        assert_eq!(outbox.take().iter().map(|l| l.seq).collect::<Vec<_>>(), [2, 3, 4]);
    }

    /// A copy is verified as the file is: an altered line, a missing one, or
    /// another key than the one pinned is named by its line.
    #[test]
    fn a_forged_copy_is_named_by_its_line() {
        let tmp = Tmp::new();
        let path = tmp.0.join("db.anchors");
        let mut log = AnchorLog::open(&path, tmp.key("db.key")).unwrap();
        for n in 1..=4 {
            log.append(&[head(TableId(1), n)]).unwrap();
        }
        let lines: Vec<String> = lines_after(&path, 0).unwrap().into_iter().map(|l| l.line).collect();
        let bad = |lines: Vec<String>, pinned: Option<&str>| match read_copy("the database", lines.into_iter(), pinned)
        {
            Err(AnchorError::BadLine { line, what, .. }) => (line, what),
            other => panic!("expected a bad line, got {other:?}"),
        };
        let mut altered = lines.clone();
        altered[2] = altered[2].replace("\"len\":3", "\"len\":9");
        assert_eq!(bad(altered, None).0, 3);
        let mut gap = lines.clone();
        gap.remove(1);
        assert_eq!(bad(gap, None).0, 2);
        let other = tmp.key("other.key").public_hex();
        let (line, what) = bad(lines.clone(), Some(&other));
        assert_eq!(line, 1, "{what}");
        let ours = tmp.key("db.key").public_hex();
        assert_eq!(read_copy("the database", lines.into_iter(), Some(&ours)).unwrap().lines, 4);
        // A torn last line in the file is not copied.
        std::fs::write(&path, std::fs::read_to_string(&path).unwrap() + "{\"seq\":5").unwrap();
        assert_eq!(lines_after(&path, 3).unwrap().len(), 1);
    }

    /// Across the months: the carry lines a rotation writes reach the
    /// outbox too, so the copy is every line of every segment in one run,
    /// and a copy that begins at the live file's carry line (a casino whose
    /// copy began after a rotation) reads as the live file alone.
    #[test]
    fn the_copy_follows_the_file_across_its_segments() {
        let tmp = Tmp::new();
        let path = tmp.0.join("db.anchors");
        let mut log = AnchorLog::open(&path, tmp.key("db.key")).unwrap();
        let outbox = Outbox::default();
        log.copy_to(outbox.clone());
        log.begin("2026-10").unwrap();
        log.append(&[head(TableId(1), 1)]).unwrap();
        log.rotate_for("2026-11").unwrap().unwrap();
        log.append(&[head(TableId(2), 1)]).unwrap();
        log.rotate_for("2026-12").unwrap().unwrap();
        log.append(&[head(TableId(1), 4)]).unwrap();
        let copied = outbox.take();
        assert_eq!(copied.iter().map(|l| l.seq).collect::<Vec<_>>(), [1, 2, 3, 4, 5, 6]);
        let (whole, _) = crate::anchor::read_all(&path, None).unwrap();
        let all = read_copy("copy", copied.iter().map(|l| l.line.clone()), None).unwrap();
        assert_eq!(all, whole);
        assert_eq!(lines_after(&path, 0).unwrap(), copied, "every segment's lines, then the live file's");
        assert_eq!(lines_after(&path, 2).unwrap(), copied[2..], "from the middle of a segment");
        let live = lines_after(&path, 4).unwrap();
        assert_eq!(live, copied[4..], "the live file: its carry line and the line after");
        let from_carry = read_copy("copy", live.iter().map(|l| l.line.clone()), None).unwrap();
        assert_eq!(from_carry, read(&path, None).unwrap());
        assert_eq!(from_carry.heads, whole.heads);
    }

    /// An older copy of the file is brought up to date from the database's
    /// lines, byte for byte; a line altered, out of its place, or signed by
    /// another key writes nothing.
    #[test]
    fn restore_appends_only_the_files_own_continuation() {
        let tmp = Tmp::new();
        let (path, older) = (tmp.0.join("db.anchors"), tmp.0.join("older.anchors"));
        let mut log = AnchorLog::open(&path, tmp.key("db.key")).unwrap();
        let outbox = Outbox::default();
        log.copy_to(outbox.clone());
        log.append(&[head(TableId(1), 1)]).unwrap();
        log.append(&[head(TableId(2), 1)]).unwrap();
        std::fs::copy(&path, &older).unwrap();
        log.append(&[head(TableId(1), 3)]).unwrap();
        log.append(&[head(TableId(3), 1)]).unwrap();
        let past = outbox.take()[2..].to_vec();
        let mut behind = AnchorLog::open(&older, tmp.key("db.key")).unwrap();
        let before = std::fs::read(&older).unwrap();
        let mut altered = past.clone();
        altered[1].line = altered[1].line.replace("\"len\":1", "\"len\":2");
        for bad in [altered, past[1..].to_vec(), vec![past[1].clone(), past[0].clone()]] {
            assert!(behind.restore(&bad).is_err());
            assert_eq!(std::fs::read(&older).unwrap(), before, "nothing written");
        }
        // Numbered on and linked to the file's last line, but signed by
        // another key: the signer's check is what refuses it.
        let other = tmp.key("other.key");
        let line = super::super::render(&other.key, behind.seq + 1, &behind.last, &[head(TableId(1), 9)], None);
        let forged = vec![CopiedLine { seq: behind.seq + 1, line }];
        match behind.restore(&forged) {
            Err(AnchorError::BadLine { what, .. }) => assert!(what.contains("not the trusted key"), "{what}"),
            other => panic!("another key's line: {other:?}"),
        }
        assert_eq!(std::fs::read(&older).unwrap(), before, "nothing written");
        behind.restore(&past).unwrap();
        assert_eq!(std::fs::read(&older).unwrap(), std::fs::read(&path).unwrap());
        assert_eq!(behind.mark(), log.mark());
        behind.append(&[head(TableId(4), 1)]).unwrap();
        assert_eq!(read(&older, None).unwrap().lines, 5, "it goes on from there");
    }
}
