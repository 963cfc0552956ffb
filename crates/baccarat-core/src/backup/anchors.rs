//! The anchor file's part of a backup (`backup.rs`): its lines up to the
//! database copy's point, under the names `serve` reads.
//!
//! The file is read after the database was copied, so it may end in lines
//! the copy cannot match: lines signed for batches committed after the
//! copy's read transaction began. Every line names heads of batches already
//! committed when it was written, and lines are written in order, so the
//! first line naming a head the copy does not hold marks where "after the
//! copy" begins, and it and every line after it are left out. A restored
//! server then appends after the last line kept, and its start finds no cut.
//!
//! A line the file held *before* the copy began cannot be after it: if it
//! names a head the copy does not hold, the database was cut, and leaving
//! the line out would make the backup agree with the cut. That is refused
//! (`lines_before` reads where the file stood first).
//!
//! Segments (`anchor/segments.rs`) are copied with the live file. A monthly
//! rotation between listing them and reading the live file leaves a gap the
//! final check (`anchor::read_all`) finds; the copy is then read again.

use std::path::{Path, PathBuf};

use rusqlite::Connection;

use super::{io_err, write_private, written, BackupError, Written};
use crate::anchor::{Anchored, Head};

/// The anchor files as copied.
pub(super) struct Copied {
    pub(super) files: Vec<Written>,
    /// The last line kept.
    pub(super) lines: u64,
    pub(super) anchored: Anchored,
    /// The key the lines are signed with.
    pub(super) public: String,
    /// Lines left out, written after the copy's point.
    pub(super) lines_after: u64,
}

/// The last line the anchor file at `path` held before the database was
/// copied: each must be matched by the copy. A missing or empty file is
/// refused (a casino's copy without it would not start).
pub(super) fn lines_before(path: &Path) -> Result<u64, BackupError> {
    if std::fs::metadata(path).map_or(true, |m| m.len() == 0) {
        return Err(BackupError::NoAnchors(path.into()));
    }
    Ok(crate::anchor::read(path, None)?.lines)
}

/// Copy the anchor file at `path` (and its segments) up to the point of the
/// database copy `dst` (at `dst_db`), the live file to `live_out`.
pub(super) fn copy(
    path: &Path,
    dst: &Connection,
    dst_db: &Path,
    live_out: &Path,
    before: u64,
) -> Result<Copied, BackupError> {
    let held = Held { archives: crate::store::archive::open_archives(dst, dst_db)?, live: dst };
    let mut last = String::new();
    for _ in 0..3 {
        match attempt(path, &held, live_out, before)? {
            Ok(copied) => return Ok(copied),
            Err(why) => last = why,
        }
    }
    Err(BackupError::Unsettled { path: path.into(), last })
}

/// One read of the files: `Ok(Err(why))` when they changed under it (what
/// it wrote is removed again).
fn attempt(path: &Path, held: &Held<'_>, live_out: &Path, before: u64) -> Result<Result<Copied, String>, BackupError> {
    let mut names = crate::anchor::segment_files(path)?;
    names.push(path.to_path_buf());
    let mut files = Vec::new();
    for name in &names {
        match std::fs::read(name) {
            Ok(bytes) => files.push((name.clone(), bytes)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Err(format!("{}: {e}", name.display()))),
            Err(e) => return Err(io_err(name)(e)),
        }
    }
    let lines = split(&files);
    let cut = first_not_held(path, &lines, held, before)?;
    let kept = cut.unwrap_or(lines.len());
    let out = write_kept(path, &files, &lines[..kept], live_out)?;
    let check = crate::anchor::read_all(live_out, None);
    let last_kept = lines[..kept].last().map_or(0, |l| l.seq);
    match check {
        Ok((anchored, _)) if anchored.lines == last_kept => Ok(Ok(Copied {
            public: anchored.public.clone(),
            lines: anchored.lines,
            anchored,
            files: out,
            lines_after: (lines.len() - kept) as u64,
        })),
        other => {
            for w in &out {
                let _ = std::fs::remove_file(&w.file);
            }
            Ok(Err(match other {
                Err(e) => e.to_string(),
                Ok((a, _)) => format!("{} lines read back, {last_kept} written", a.lines),
            }))
        }
    }
}

/// A complete line: which file, where it ends in it, its `seq` and heads.
struct Line {
    file: usize,
    start: usize,
    seq: u64,
    heads: Vec<Head>,
}

/// The fields of a line this needs (the rest is checked by `read_all`).
#[derive(serde::Deserialize)]
struct Fields {
    seq: u64,
    heads: Vec<Head>,
}

/// Every complete line of `files`, in order (a torn last one left out).
fn split(files: &[(PathBuf, Vec<u8>)]) -> Vec<Line> {
    let mut out = Vec::new();
    for (file, (_, bytes)) in files.iter().enumerate() {
        let mut start = 0;
        while let Some(n) = bytes[start..].iter().position(|&b| b == b'\n') {
            let f: Option<Fields> = serde_json::from_slice(&bytes[start..start + n]).ok();
            let (seq, heads) = f.map_or((0, Vec::new()), |f| (f.seq, f.heads));
            out.push(Line { file, start, seq, heads });
            start += n + 1;
        }
    }
    out
}

/// The index of the first line naming a head the copy does not hold, if
/// any; refused when that line was in the file before the copy began, or a
/// head is held with another hash.
fn first_not_held(path: &Path, lines: &[Line], held: &Held<'_>, before: u64) -> Result<Option<usize>, BackupError> {
    for (i, line) in lines.iter().enumerate() {
        for h in &line.heads {
            match held.check(h)? {
                Some(true) => {}
                Some(false) => {
                    let why = format!(
                        "line {} signs record {} of chain {}, and the copy holds another there (the chain was rewritten, \
                         or the file is another casino's)",
                        line.seq, h.len, h.table
                    );
                    return Err(BackupError::Mismatch { path: path.into(), why });
                }
                None if line.seq <= before => {
                    let why = format!(
                        "line {} signs chain {} at {} records, but the database holds fewer (its tail was cut)",
                        line.seq, h.table, h.len
                    );
                    return Err(BackupError::Mismatch { path: path.into(), why });
                }
                None => return Ok(Some(i)),
            }
        }
    }
    Ok(None)
}

/// Write the files that hold `kept` lines: the last one as `live_out`, the
/// ones before it as segments beside it under their own suffixes.
fn write_kept(
    path: &Path,
    files: &[(PathBuf, Vec<u8>)],
    kept: &[Line],
    live_out: &Path,
) -> Result<Vec<Written>, BackupError> {
    let Some(last) = kept.last() else { return Ok(Vec::new()) };
    let prefix = format!("{}.", path.file_name().and_then(|n| n.to_str()).unwrap_or_default());
    let mut out = Vec::new();
    for (i, (name, bytes)) in files.iter().enumerate().take(last.file + 1) {
        let end = if i < last.file {
            bytes.len()
        } else {
            let tail = &bytes[last.start..];
            last.start + tail.iter().position(|&b| b == b'\n').map_or(tail.len(), |n| n + 1)
        };
        let (to, what) = if i == last.file {
            (live_out.to_path_buf(), "anchors")
        } else {
            let own = name.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            let suffix = own.strip_prefix(&prefix).unwrap_or(own);
            let mut s = live_out.as_os_str().to_owned();
            s.push(format!(".{suffix}"));
            (PathBuf::from(s), "anchor segment")
        };
        write_private(&to, &bytes[..end])?;
        out.push(written(&to, what)?);
    }
    Ok(out)
}

/// Where the copy's records are: its archives, then its live rows.
struct Held<'a> {
    archives: Vec<Connection>,
    live: &'a Connection,
}

impl Held<'_> {
    /// Whether the copy holds `h`'s record: `Some(true)` with its hash,
    /// `Some(false)` with another, `None` not at all.
    fn check(&self, h: &Head) -> Result<Option<bool>, BackupError> {
        if h.len == 0 {
            return Ok(Some(true));
        }
        for conn in self.archives.iter().chain(std::iter::once(self.live)) {
            if let Some(r) = crate::store::logs::record_at(conn, h.table, h.len)? {
                return Ok(Some(r.hash == h.head));
            }
        }
        Ok(None)
    }
}
