//! When the serving server adds a line to the anchor file (`anchor.rs`): the
//! heads of the batches it commits are kept and signed together, at most a
//! line every quarter of a second by default, at once before a checkpoint
//! and at a stop; and the file moved aside at a checkpoint in a new month.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Duration;

use crate::anchor::{AnchorError, AnchorLog, AnchorMark, Head};

/// The anchor log as a serving server writes it: the committer hands over
/// each durable batch's heads, and they are signed into one line at most
/// every `every` (a thread of its own writes what waits), or at once when a
/// checkpoint needs the file's mark, or at a stop.
///
/// One line per batch made the file the largest thing a server keeps: under
/// `loadgen` 80 MB in 90 s, and on a quiet floor of 200 tables (each card,
/// each wager its own batch) some hundreds of lines a second, terabytes a
/// year for `verify` to check one signature at a time. A line naming each
/// chain's latest head proves as much as the lines before it did, since a
/// head covers every record before it. What it costs: an answered batch is
/// anchored up to `every` later (250 ms by default), so a crash in that time
/// leaves it unanchored, as a crash between a commit and its line always
/// could (`verify` names such records). `every` zero writes a line per
/// batch, as before.
#[derive(Clone)]
pub struct Anchoring {
    log: Arc<Mutex<AnchorLog>>,
    /// Set when each batch gets its own line (`every` zero, or a stop).
    direct: Arc<AtomicBool>,
    /// What a line that cannot be written does (`fatal.rs`).
    fatal: crate::fatal::Fatal,
}

impl Anchoring {
    /// Take over `log`; with `every` above zero, start the thread that writes
    /// what waits. It stops when the last handle is dropped, or a line
    /// cannot be written (`fatal` then says so).
    pub fn start(log: AnchorLog, every: Duration, fatal: crate::fatal::Fatal) -> Anchoring {
        let direct = Arc::new(AtomicBool::new(every.is_zero()));
        let a = Anchoring { log: Arc::new(Mutex::new(log)), direct, fatal };
        if !every.is_zero() {
            let weak = Arc::downgrade(&a.log);
            let fatal = a.fatal.clone();
            let spawned = std::thread::Builder::new().name("anchors".into()).spawn(move || {
                write_waiting(&weak, &fatal, || {
                    std::thread::sleep(every);
                    true
                })
            });
            if let Err(e) = spawned {
                tracing::warn!(error = %e, "anchors: cannot start the thread that writes them; a line per batch instead");
                a.direct.store(true, Ordering::Release);
            }
        }
        a
    }

    /// A batch's heads, once it is durable: signed now if each batch gets
    /// its own line, else kept for the next.
    pub fn committed(&self, heads: &[Head]) -> Result<(), AnchorError> {
        let mut log = self.lock();
        log.stage(heads);
        if self.direct.load(Ordering::Acquire) {
            log.flush()?;
        }
        Ok(())
    }

    /// Write what waits, then where the file stands (a checkpoint keeps it:
    /// it must name every head the checkpoint's state has).
    pub fn mark(&self) -> Result<AnchorMark, AnchorError> {
        let mut log = self.lock();
        log.flush()?;
        Ok(log.mark())
    }

    /// As [`Anchoring::mark`], for a checkpoint taken at `at_ms`: first, in
    /// a new month, the file is moved aside as a segment (`anchor/segments.rs`),
    /// so the mark describes the new file.
    pub fn mark_at(&self, at_ms: u64) -> Result<AnchorMark, AnchorError> {
        let mut log = self.lock();
        log.flush()?;
        if let Some(segment) = log.rotate_for(&crate::civil::year_month(at_ms))? {
            tracing::info!(segment = %segment.display(), "anchors: last month's lines moved to their segment");
        }
        Ok(log.mark())
    }

    /// Write what waits, and from now on a line per batch (a stop: whatever
    /// is committed after it is anchored before the process ends).
    pub fn flush_and_go_direct(&self) -> Result<(), AnchorError> {
        let mut log = self.lock();
        self.direct.store(true, Ordering::Release);
        log.flush()
    }

    /// A batch committed and not anchored: the server stops (`fatal.rs`).
    pub fn unanchored(&self, e: &AnchorError) {
        unanchored(&self.fatal, e)
    }

    fn lock(&self) -> MutexGuard<'_, AnchorLog> {
        lock(&self.log)
    }
}

fn lock(log: &Mutex<AnchorLog>) -> MutexGuard<'_, AnchorLog> {
    log.lock().unwrap_or_else(|p| p.into_inner())
}

/// The thread's work: after each `wait` (until it says stop, or the log is
/// gone), write what waits.
fn write_waiting(log: &Weak<Mutex<AnchorLog>>, fatal: &crate::fatal::Fatal, mut wait: impl FnMut() -> bool) {
    while wait() {
        let Some(log) = log.upgrade() else { return };
        let written = lock(&log).flush();
        if let Err(e) = written {
            return unanchored(fatal, &e);
        }
    }
}

/// A durable batch that cannot be anchored stops the server (`fatal`), so
/// that nothing goes on unanchored.
fn unanchored(fatal: &crate::fatal::Fatal, e: &AnchorError) {
    fatal.fire(70, &format!("anchors: {e}: a durable batch cannot go unanchored"));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anchor::read;
    use crate::anchor::tests::{head, Tmp};
    use crate::fatal::Fatal;
    use crate::ids::TableId;
    use std::collections::BTreeMap;

    #[test]
    fn staged_heads_make_one_line_naming_each_chains_latest() {
        let tmp = Tmp::new();
        let path = tmp.0.join("db.anchors");
        let a = Anchoring::start(
            AnchorLog::open(&path, tmp.key("db.key")).unwrap(),
            Duration::from_secs(3600),
            Fatal::exiting(),
        );
        for batch in [
            vec![head(TableId(1), 3), head(TableId(2), 1)],
            vec![head(TableId(1), 5)],
            vec![],
            vec![head(TableId(3), 2)],
        ] {
            a.committed(&batch).unwrap();
        }
        // An hour apart: nothing written yet.
        assert_eq!(read(&path, None).unwrap().lines, 0);
        // A checkpoint's mark writes what waits first, as one line.
        let mark = a.mark().unwrap();
        let got = read(&path, None).unwrap();
        assert_eq!(got.lines, 1);
        assert_eq!(mark.seq, 1);
        let want: BTreeMap<TableId, (u64, String)> = [head(TableId(1), 5), head(TableId(2), 1), head(TableId(3), 2)]
            .into_iter()
            .map(|h| (h.table, (h.len, h.head)))
            .collect();
        assert_eq!(got.heads, want);
        assert_eq!(mark.heads, want);
        // Nothing waiting: no line.
        a.mark().unwrap();
        assert_eq!(read(&path, None).unwrap().lines, 1);
        // A stop writes what waits, and every batch after it at once.
        a.committed(&[head(TableId(2), 7)]).unwrap();
        a.flush_and_go_direct().unwrap();
        a.committed(&[head(TableId(1), 9)]).unwrap();
        let got = read(&path, None).unwrap();
        assert_eq!((got.lines, got.heads[&TableId(2)].0, got.heads[&TableId(1)].0), (3, 7, 9));
    }

    /// A checkpoint in a later month than the file began moves the file
    /// aside first, so its mark describes the new file.
    #[test]
    fn a_checkpoint_in_a_new_month_rotates_the_file_before_its_mark() {
        let tmp = Tmp::new();
        let path = tmp.0.join("db.anchors");
        let oct_31 = 1_793_491_199_000; // 2026-10-31 23:59:59 UTC
        let mut log = AnchorLog::open(&path, tmp.key("db.key")).unwrap();
        log.begin(&crate::civil::year_month(oct_31)).unwrap();
        let a = Anchoring::start(log, Duration::from_secs(3600), Fatal::exiting());
        a.committed(&[head(TableId(1), 3)]).unwrap();
        let in_october = a.mark_at(oct_31).unwrap();
        assert_eq!(in_october.seq, 2);
        assert!(!tmp.0.join("db.anchors.2026-10").exists());
        a.committed(&[head(TableId(1), 4)]).unwrap();
        let in_november = a.mark_at(oct_31 + 1000).unwrap();
        assert!(tmp.0.join("db.anchors.2026-10").exists());
        assert_eq!((in_november.seq, in_november.start), (4, 0), "the new file's carry line, after the waiting line");
        assert_eq!(in_november.heads[&TableId(1)].0, 4);
        let (all, span) = crate::anchor::read_all(&path, None).unwrap();
        assert_eq!((all.lines, span.files.len()), (4, 2));
        assert_eq!(crate::anchor::read_at(&path, None, Some(&in_november)).unwrap().heads, all.heads);
    }

    #[test]
    fn zero_writes_a_line_a_batch_and_the_thread_writes_what_waits() {
        let tmp = Tmp::new();
        let path = tmp.0.join("db.anchors");
        let a = Anchoring::start(AnchorLog::open(&path, tmp.key("db.key")).unwrap(), Duration::ZERO, Fatal::exiting());
        a.committed(&[head(TableId(1), 1)]).unwrap();
        a.committed(&[head(TableId(1), 2)]).unwrap();
        assert_eq!(read(&path, None).unwrap().lines, 2, "zero: a line per batch");
        drop(a);
        // The thread's loop, driven here: a wait that lets it run once.
        let path = tmp.0.join("db2.anchors");
        let a = Anchoring::start(
            AnchorLog::open(&path, tmp.key("db.key")).unwrap(),
            Duration::from_secs(3600),
            Fatal::exiting(),
        );
        a.committed(&[head(TableId(1), 1)]).unwrap();
        a.committed(&[head(TableId(2), 1)]).unwrap();
        let mut turns = 0;
        write_waiting(&Arc::downgrade(&a.log), &a.fatal, || {
            turns += 1;
            turns == 1
        });
        let got = read(&path, None).unwrap();
        assert_eq!((got.lines, got.heads.len()), (1, 2), "one line for what waited");
        // Once the log is gone the loop ends, whatever the wait says.
        let weak = Arc::downgrade(&a.log);
        drop(a);
        write_waiting(&weak, &Fatal::exiting(), || true);
    }
}
