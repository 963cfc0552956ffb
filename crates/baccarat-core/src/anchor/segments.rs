//! Segments: the anchor file moved aside each month, so that what a start,
//! `verify --since-checkpoint` and an operator's disk hold of it is a
//! month's lines, not the casino's whole life.
//!
//! # Design
//!
//! A busy floor signs a line every quarter of a second, each naming the heads
//! of the chains that moved: about half a terabyte a year on a 200-table
//! floor, and a verifier without a mark checks every signature in it. Yet a
//! head covers every record before it, so the latest head of each chain is all
//! a verifier needs: the old lines only show when each head was signed.
//!
//! * **When.** At a checkpoint (`anchoring.rs`: the server's own clock, as
//!   the checkpoint's time), if its UTC month is later than the month the
//!   live file began, the file is moved aside as a *segment*,
//!   `<anchor file>.YYYY-MM` (the month it began), and a new one begun.
//!   A clock set back does not rotate. The checkpoint's mark is taken after,
//!   so it describes the new file.
//! * **A carry line begins each file.** Its `seq` and `prev` continue the
//!   segment's last line; `"carry":"YYYY-MM"` names the month; its heads are
//!   every head anchored so far. So the live file is verified on its own
//!   (`anchor::read`: a start, `verify --since-checkpoint`), and the lines
//!   are still one chain across the files: [`read_all`] (`verify --full`)
//!   checks every segment present, in order, then the live file, and that
//!   each carry line repeats exactly the heads anchored before it.
//! * **Retention.** A segment is write-once: an operator may copy it to cold
//!   storage with the month's archive (`store/archive.rs`), and destroy it after
//!   the retention period. `verify --full` notes the lines before the oldest
//!   segment present as not here (the carry line after them holds every head
//!   they signed); a segment missing *between* two present ones is a
//!   difference. A file begun before segments (no carry line) is moved aside
//!   at the first checkpoint as `<anchor file>.before-YYYY-MM`; a new server
//!   begins its file with a carry line naming its first month.
//! * **Crash-safe.** The new file is written and fsynced as
//!   `<anchor file>.next`; then the old one is fsynced and renamed to its
//!   segment name, and the new one renamed into place. A start finishes an
//!   interrupted rotation ([`finish_rotation`]): a `.next` beside the file
//!   is unfinished work and removed; a `.next` without it (a crash between
//!   the two renames) is put in its place. A segment's name is never reused.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::keys::{KeyChain, Trust};
use super::scan::{first_line, is_month, scan_lines, From};
use super::{io_err, pinned_key, render, AnchorError, AnchorLog, Anchored, Head};

/// What [`read_all`] read: the files in order (segments, then the live file)
/// and the first line verified (1 unless the oldest segments are not here).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span {
    pub files: Vec<PathBuf>,
    pub first: u64,
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

fn next_path(path: &Path) -> PathBuf {
    with_suffix(path, ".next")
}

/// Whether `rest` (what follows `<anchor file>.`) names a segment:
/// `YYYY-MM` or `before-YYYY-MM`, with `.N` after a name already taken.
fn is_segment_suffix(rest: &str) -> bool {
    let rest = rest.strip_prefix("before-").unwrap_or(rest);
    let (month, n) = rest.split_once('.').unwrap_or((rest, "1"));
    is_month(month) && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())
}

/// Finish or undo a rotation a crash interrupted (see the module doc):
/// before anything asks whether the file is there.
pub fn finish_rotation(path: &Path) -> io::Result<()> {
    let next = next_path(path);
    match (path.exists(), next.exists()) {
        (true, true) => fs::remove_file(&next),
        (false, true) => {
            fs::rename(&next, path)?;
            sync_dir(path)
        }
        _ => Ok(()),
    }
}

/// Refuse to begin a new chain of lines where segments of an old one are:
/// the live file is never empty once a segment exists (it begins with a
/// carry line), so an empty or missing one was lost, and a new file from line
/// 1 would hide what the segments' heads prove.
pub fn refuse_orphaned(path: &Path) -> Result<(), AnchorError> {
    let empty = fs::metadata(path).map_or(true, |m| m.len() == 0);
    if !empty {
        return Ok(());
    }
    if let Some((_, last)) = segments_of(path)?.pop() {
        return Err(AnchorError::Segments {
            path: path.into(),
            what: format!(
                "missing or empty, but its segments are here (the latest {}): restore it from a copy; a new file would begin a new chain of lines (if it is lost for good, move the segments elsewhere first)",
                last.display()
            ),
        });
    }
    Ok(())
}

/// Make the directory's entries (a rename) durable.
fn sync_dir(path: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        File::open(dir)?.sync_all()?;
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

impl AnchorLog {
    /// Begin a new, empty file with a carry line naming `month` (the server's
    /// first start), so the file knows the month it began. Nothing for a file
    /// that has lines.
    pub fn begin(&mut self, month: &str) -> Result<(), AnchorError> {
        if self.seq > 0 {
            return Ok(());
        }
        self.append_line(&[], Some(month))?;
        self.month = Some(month.to_string());
        Ok(())
    }

    /// At a checkpoint in `month` (`YYYY-MM`): if that is later than the month
    /// this file began (or it began before segments), write what waits, move
    /// the file aside as a segment and begin a new one with a carry line.
    /// The segment's path when one was made. On an error the file is as it
    /// was, unless the log is poisoned (then a start finishes the rotation).
    pub fn rotate_for(&mut self, month: &str) -> Result<Option<PathBuf>, AnchorError> {
        if !is_month(month) {
            return Err(AnchorError::Segments { path: self.path.clone(), what: format!("{month:?} is not YYYY-MM") });
        }
        if self.seq == 0 {
            return self.begin(month).map(|()| None);
        }
        if self.month.as_deref().is_some_and(|m| m >= month) {
            return Ok(None);
        }
        if self.poisoned {
            return Err(AnchorError::Poisoned(self.path.clone()));
        }
        self.flush()?;
        let segment = self.segment_name(month);
        let heads: Vec<Head> =
            self.heads.iter().map(|(&table, (len, head))| Head { table, len: *len, head: head.clone() }).collect();
        let line = render(&self.key.key, self.seq + 1, &self.last, &heads, Some(month));
        let bytes = format!("{line}\n");
        let next = next_path(&self.path);
        let io = |e| io_err(&self.path, e);
        let prepared = (|| {
            let mut f = OpenOptions::new().write(true).create(true).truncate(true).open(&next)?;
            f.write_all(bytes.as_bytes())?;
            f.sync_all()?;
            self.file.sync_all()?;
            fs::rename(&self.path, &segment)
        })();
        if let Err(e) = prepared {
            let _ = fs::remove_file(&next);
            return Err(io(e));
        }
        // From here the live file is missing until the rename below; a
        // failure leaves it to the next start (`finish_rotation`).
        let reopened = fs::rename(&next, &self.path)
            .and_then(|()| sync_dir(&self.path))
            .and_then(|()| OpenOptions::new().read(true).append(true).open(&self.path));
        self.file = match reopened {
            Ok(f) => f,
            Err(e) => {
                self.poisoned = true;
                return Err(io(e));
            }
        };
        self.seq += 1;
        self.last = Sha256::digest(line.as_bytes()).into();
        (self.start, self.len) = (0, bytes.len() as u64);
        self.month = Some(month.to_string());
        if let Some(outbox) = &self.copy {
            outbox.push(self.seq, &line);
        }
        Ok(Some(segment))
    }

    /// `<file>.<the month it began>`, or `.before-<month>` for a file begun
    /// before segments; `.N` added if that name is taken (a name is never
    /// reused).
    fn segment_name(&self, month: &str) -> PathBuf {
        let base = match &self.month {
            Some(m) => format!(".{m}"),
            None => format!(".before-{month}"),
        };
        let mut name = with_suffix(&self.path, &base);
        let mut n = 2;
        while name.exists() {
            name = with_suffix(&self.path, &format!("{base}.{n}"));
            n += 1;
        }
        name
    }
}

/// The segments beside `path`, oldest first (a backup copies them with it:
/// `backup.rs`).
pub fn segment_files(path: &Path) -> Result<Vec<PathBuf>, AnchorError> {
    Ok(segments_of(path)?.into_iter().map(|(_, p)| p).collect())
}

/// The segments beside `path`, in the order of their lines: (first line,
/// path).
pub(super) fn segments_of(path: &Path) -> Result<Vec<(u64, PathBuf)>, AnchorError> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return Ok(Vec::new());
    };
    let prefix = format!("{name}.");
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).map_err(|e| io_err(dir, e))? {
        let entry = entry.map_err(|e| io_err(dir, e))?;
        let file_name = entry.file_name();
        let Some(rest) = file_name.to_str().and_then(|n| n.strip_prefix(&prefix)) else { continue };
        if !is_segment_suffix(rest) {
            continue;
        }
        let seg = entry.path();
        let mut file = File::open(&seg).map_err(|e| io_err(&seg, e))?;
        out.push((first_line(&seg, &mut file)?.from.seq + 1, seg));
    }
    out.sort();
    Ok(out)
}

/// Read and verify every segment beside `path` that is here, in order, then
/// `path` itself: one chain of lines across the files, each carry line
/// repeating the heads before it. `pinned` as for [`super::read`]. A segment
/// missing between two present ones, or ending in a torn line, is an error
/// naming it; the lines before the oldest present are not read (see
/// [`Span::first`]).
pub fn read_all(path: &Path, pinned: Option<&str>) -> Result<(Anchored, Span), AnchorError> {
    let trust = pinned_key(pinned)?.map_or(Trust::Any, Trust::Pinned);
    let mut chain = KeyChain::default();
    let mut files: Vec<PathBuf> = segments_of(path)?.into_iter().map(|(_, p)| p).collect();
    let segments = files.len();
    files.push(path.to_path_buf());
    let mut carried: Option<(From, PathBuf)> = None;
    let mut first = 1;
    let mut anchored = Anchored::default();
    for (i, file_path) in files.iter().enumerate() {
        let mut file = File::open(file_path).map_err(|e| io_err(file_path, e))?;
        let start = first_line(file_path, &mut file)?;
        let from = match carried.take() {
            None => {
                first = start.from.seq + 1;
                start.from
            }
            Some((before, before_path)) => {
                if start.from.seq != before.seq {
                    let (at, end) = (start.from.seq + 1, before.seq);
                    let why = if at <= end {
                        "its lines are already in the files before it (a copy of a segment?)"
                    } else {
                        "the lines between are in a segment that is not here"
                    };
                    return Err(AnchorError::Segments {
                        path: file_path.clone(),
                        what: format!("begins at line {at}, but {} ends at line {end}: {why}", before_path.display()),
                    });
                }
                before
            }
        };
        file.seek(SeekFrom::Start(0)).map_err(|e| io_err(file_path, e))?;
        let size = file.metadata().map_err(|e| io_err(file_path, e))?.len();
        let scan = scan_lines(file_path, io::BufReader::new(&file), chain, from)?;
        if i < segments && scan.complete != size {
            return Err(AnchorError::Segments {
                path: file_path.clone(),
                what: "a segment ends in a torn line (it was cut, or is still being written)".into(),
            });
        }
        chain = scan.chain.clone();
        carried = Some((
            From {
                seq: scan.anchored.lines,
                last: scan.last,
                heads: scan.anchored.heads.clone(),
                whole: true,
                offset: 0,
            },
            file_path.clone(),
        ));
        anchored = scan.anchored;
    }
    if let Err((line, what)) = chain.meets(trust, first) {
        return Err(AnchorError::BadLine { path: files[0].clone(), line, what });
    }
    Ok((anchored, Span { files, first }))
}

#[cfg(test)]
mod tests {
    use super::super::tests::{head, Tmp};
    use super::super::{read, read_at};
    use super::*;
    use crate::ids::TableId;

    fn lines(path: &Path) -> Vec<String> {
        fs::read_to_string(path).unwrap().lines().map(String::from).collect()
    }

    /// A log begun in 2026-10, three months of lines, rotated at each month's
    /// first checkpoint: (the live path, the log still open).
    fn three_months(tmp: &Tmp) -> (PathBuf, AnchorLog) {
        let path = tmp.0.join("db.anchors");
        let mut log = AnchorLog::open(&path, tmp.key("db.key")).unwrap();
        log.begin("2026-10").unwrap();
        log.append(&[head(TableId(1), 1), head(TableId(2), 1)]).unwrap();
        log.append(&[head(TableId(1), 2)]).unwrap();
        assert_eq!(log.rotate_for("2026-10").unwrap(), None, "the same month: no rotation");
        log.stage(&[head(TableId(3), 1)]);
        let seg = log.rotate_for("2026-11").unwrap().unwrap();
        assert_eq!(seg, tmp.0.join("db.anchors.2026-10"));
        log.append(&[head(TableId(2), 5)]).unwrap();
        assert_eq!(log.rotate_for("2026-09").unwrap(), None, "a clock set back: no rotation");
        assert_eq!(log.rotate_for("2026-12").unwrap().unwrap(), tmp.0.join("db.anchors.2026-11"));
        log.append(&[head(TableId(1), 7)]).unwrap();
        (path, log)
    }

    /// Each month's file begins with a carry line naming every head so far;
    /// the live file alone gives the same heads as all the files together,
    /// and reopening continues the chain across the files.
    #[test]
    fn a_rotation_carries_every_head_into_the_new_file() {
        let tmp = Tmp::new();
        let (path, log) = three_months(&tmp);
        let public = log.public_hex();
        let mark = log.mark();
        drop(log);
        let live = lines(&path);
        assert_eq!(live.len(), 2);
        assert!(live[0].contains("\"carry\":\"2026-12\""), "{}", live[0]);
        let oct = lines(&tmp.0.join("db.anchors.2026-10"));
        assert!(oct[0].starts_with("{\"seq\":1,") && oct[0].contains("\"carry\":\"2026-10\",\"heads\":[]"));
        assert_eq!(oct.len(), 4, "the carry, two lines, and what was staged, written before the move");
        let want: std::collections::BTreeMap<TableId, (u64, String)> =
            [head(TableId(1), 7), head(TableId(2), 5), head(TableId(3), 1)]
                .into_iter()
                .map(|h| (h.table, (h.len, h.head)))
                .collect();
        let alone = read(&path, Some(&public)).unwrap();
        assert_eq!((alone.lines, &alone.heads), (8, &want));
        let (all, span) = read_all(&path, Some(&public)).unwrap();
        assert_eq!(all, alone);
        assert_eq!(span.first, 1);
        let names: Vec<_> = span.files.iter().map(|p| p.file_name().unwrap().to_str().unwrap().to_string()).collect();
        assert_eq!(names, ["db.anchors.2026-10", "db.anchors.2026-11", "db.anchors"]);
        assert_eq!(read_at(&path, Some(&public), Some(&mark)).unwrap(), alone);
        let mut again = AnchorLog::open_at(&path, tmp.key("db.key"), Some(&mark)).unwrap();
        assert_eq!(again.month.as_deref(), Some("2026-12"));
        again.append(&[head(TableId(4), 1)]).unwrap();
        assert_eq!(read_all(&path, None).unwrap().0.lines, 9);
    }

    /// The oldest segments may go (retention): the rest still verifies, from
    /// the first line present. One missing between two present ones, a
    /// segment cut short, or a carry line that drops a head, is refused.
    #[test]
    fn segments_are_one_chain_and_a_gap_is_named() {
        let tmp = Tmp::new();
        let (path, log) = three_months(&tmp);
        drop(log);
        let (oct, nov) = (tmp.0.join("db.anchors.2026-10"), tmp.0.join("db.anchors.2026-11"));
        let whole = read_all(&path, None).unwrap();
        let oct_text = fs::read(&oct).unwrap();
        fs::remove_file(&oct).unwrap();
        let (heads, span) = read_all(&path, None).unwrap();
        assert_eq!((heads, span.first, span.files.len()), (whole.0.clone(), 5, 2));
        fs::write(&oct, &oct_text).unwrap();
        let nov_text = fs::read(&nov).unwrap();
        fs::remove_file(&nov).unwrap();
        let err = read_all(&path, None).unwrap_err().to_string();
        assert!(err.contains("db.anchors: begins at line 7") && err.contains("2026-10 ends at line 4"), "{err}");
        // A segment cut short: its last line torn.
        fs::write(&nov, &nov_text[..nov_text.len() - 10]).unwrap();
        let err = read_all(&path, None).unwrap_err().to_string();
        assert!(err.contains("2026-11: a segment ends in a torn line"), "{err}");
        // Cut at a line's end instead: the next file's carry no longer follows.
        let cut = nov_text[..nov_text.len() - 1].iter().rposition(|&b| b == b'\n').unwrap() + 1;
        fs::write(&nov, &nov_text[..cut]).unwrap();
        assert!(read_all(&path, None).unwrap_err().to_string().contains("begins at line 7"));
        fs::write(&nov, &nov_text).unwrap();
        assert_eq!(read_all(&path, None).unwrap(), whole);
        // A copy of a segment beside it: named as such.
        fs::write(tmp.0.join("db.anchors.2026-10.2"), &oct_text).unwrap();
        let err = read_all(&path, None).unwrap_err().to_string();
        assert!(err.contains("2026-10.2: begins at line 1") && err.contains("(a copy of a segment?)"), "{err}");
        fs::remove_file(tmp.0.join("db.anchors.2026-10.2")).unwrap();
        // A carry line re-signed without table 3's head (the key's holder,
        // or a bug): refused against the lines before it.
        let key = tmp.key("db.key");
        let live = lines(&path);
        let nov_lines = lines(&nov);
        let last: [u8; 32] = Sha256::digest(nov_lines.last().unwrap()).into();
        let short = render(&key.key, 7, &last, &[head(TableId(1), 2), head(TableId(2), 5)], Some("2026-12"));
        fs::write(&path, format!("{short}\n")).unwrap();
        let err = read_all(&path, None).unwrap_err().to_string();
        assert!(err.contains("line 7: a carry line must name every head"), "{err}");
        // Alone, the live file trusts its carry line: only `--full` can tell.
        assert_eq!(read(&path, None).unwrap().heads.len(), 2);
        fs::write(&path, live.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
        // A live file whose carry line was removed begins mid-chain: refused.
        fs::write(&path, format!("{}\n", live[1])).unwrap();
        let err = read(&path, None).unwrap_err().to_string();
        assert!(err.contains("line 8: the file begins at line 8, not at a carry line"), "{err}");
    }

    /// A crash at each step of a rotation: the next start has one live file,
    /// the chain whole across the files.
    #[test]
    fn a_rotation_interrupted_by_a_crash_is_finished_or_undone() {
        let tmp = Tmp::new();
        let path = tmp.0.join("db.anchors");
        let mut log = AnchorLog::open(&path, tmp.key("db.key")).unwrap();
        log.begin("2026-10").unwrap();
        log.append(&[head(TableId(1), 1)]).unwrap();
        let seg = log.rotate_for("2026-11").unwrap().unwrap();
        drop(log);
        let (seg_text, live_text) = (fs::read(&seg).unwrap(), fs::read(&path).unwrap());
        let next = next_path(&path);
        // Crash before the first rename: the old file in place, `.next` beside.
        fs::remove_file(&seg).unwrap();
        fs::write(&path, &seg_text).unwrap();
        fs::write(&next, &live_text).unwrap();
        let log = AnchorLog::open(&path, tmp.key("db.key")).unwrap();
        assert!(!next.exists());
        assert_eq!(
            (log.seq, log.month.as_deref()),
            (2, Some("2026-10")),
            "undone: rotated again at the next checkpoint"
        );
        drop(log);
        // Crash between the renames: the segment made, `.next` not yet moved.
        fs::rename(&path, &seg).unwrap();
        fs::write(&next, &live_text).unwrap();
        let mut log = AnchorLog::open(&path, tmp.key("db.key")).unwrap();
        assert!(!next.exists());
        assert_eq!((log.seq, log.month.as_deref()), (3, Some("2026-11")), "finished");
        log.append(&[head(TableId(1), 2)]).unwrap();
        let (a, span) = read_all(&path, None).unwrap();
        assert_eq!((a.lines, a.heads[&TableId(1)].0, span.files.len()), (4, 2, 2));
    }

    /// A live file lost after a rotation (missing, or emptied) is not
    /// silently begun again from line 1: the start is refused, naming it.
    #[test]
    fn a_lost_live_file_beside_its_segments_stops_the_start() {
        let tmp = Tmp::new();
        let (path, log) = three_months(&tmp);
        drop(log);
        let text = fs::read(&path).unwrap();
        fs::remove_file(&path).unwrap();
        let err = AnchorLog::open(&path, tmp.key("db.key")).err().unwrap().to_string();
        assert!(err.contains("db.anchors: missing or empty, but its segments are here (the latest"), "{err}");
        assert!(err.contains("2026-11)"), "{err}");
        assert!(!path.exists(), "nothing created");
        fs::write(&path, "").unwrap();
        assert!(AnchorLog::open(&path, tmp.key("db.key")).is_err());
        fs::write(&path, &text).unwrap();
        assert_eq!(AnchorLog::open(&path, tmp.key("db.key")).unwrap().seq, 8);
    }

    /// A file begun before segments is moved aside at the first checkpoint
    /// under a name that says so; a name is never reused.
    #[test]
    fn a_file_from_before_segments_is_moved_aside_and_names_are_never_reused() {
        let tmp = Tmp::new();
        let path = tmp.0.join("db.anchors");
        let mut log = AnchorLog::open(&path, tmp.key("db.key")).unwrap();
        log.append(&[head(TableId(1), 1)]).unwrap();
        fs::write(tmp.0.join("db.anchors.before-2026-11"), "taken\n").unwrap();
        let seg = log.rotate_for("2026-11").unwrap().unwrap();
        assert_eq!(seg, tmp.0.join("db.anchors.before-2026-11.2"));
        fs::remove_file(tmp.0.join("db.anchors.before-2026-11")).unwrap();
        assert!(log.rotate_for("2026-11").unwrap().is_none());
        assert!(matches!(log.rotate_for("2026-13x"), Err(AnchorError::Segments { .. })));
        log.append(&[head(TableId(1), 2)]).unwrap();
        let (a, span) = read_all(&path, None).unwrap();
        assert_eq!((a.lines, span.first, span.files.len()), (3, 1, 2));
        assert!(!is_segment_suffix("next") && !is_segment_suffix("2026-11.") && is_segment_suffix("2026-11.12"));
    }
}
