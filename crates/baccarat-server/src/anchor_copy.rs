//! The database's copy of the anchor lines, begun at a start on PostgreSQL
//! (`baccarat-core`'s `anchor/copy.rs` has the design; the store's side is
//! `pg_store/anchor_lines.rs`): the lines the copy lacks are copied from the
//! file, and from then on each line written waits for the next commit.

use std::path::Path;

use crate::anchor::{AnchorLog, CopyRead, Outbox};
use crate::serve_error::ServeError;
use baccarat_cluster::AnyStore;

/// Begin the copy for `store` (nothing on SQLite, whose anchor file is
/// beside its database on one machine). `new_file`: this start began the
/// anchor file at `path` (a first run, or `--new-anchor-file`), so a copy
/// of an older file's lines is set aside, kept, before the new file's
/// lines (numbered from 1 again) are copied.
///
/// The file was given the copy's lines past its end before the checks
/// ([`restore_file`]).
pub(crate) fn begin(
    store: &mut AnyStore,
    anchors: &mut AnchorLog,
    path: &Path,
    new_file: bool,
    now_ms: u64,
) -> Result<(), ServeError> {
    let AnyStore::Postgres(s) = store else { return Ok(()) };
    if new_file {
        if let Some(kept) = s.set_anchor_copy_aside(now_ms)? {
            tracing::warn!(
                kept = %kept,
                "a new anchor file: the database's copy of the old file's lines is kept aside"
            );
        }
    }
    let last = s.anchor_lines_last()?;
    if last > anchors.seq() {
        // `restore_file` gave the file the copy's lines before the checks;
        // a copy that grew since is another server's, writing meanwhile.
        return Err(ServeError::AnchorBehind {
            path: path.into(),
            why: format!(
                "the database's copy of the anchor lines reaches line {last}, past the file's line {}: another \
                 server writes to this casino",
                anchors.seq()
            ),
        });
    }
    copy_missing(s, anchors, path, last)?;
    let outbox = Outbox::default();
    anchors.copy_to(outbox.clone());
    s.copy_anchors_from(outbox);
    Ok(())
}

/// Copy the lines of the anchor file (and of its segments) numbered after
/// `last` into the database, in transactions of at most [`CHUNK`] lines,
/// one chunk in memory at a time: after a crash only the last line, read
/// from where it starts; at the first start after the copy began, every
/// line of every segment beside the file.
fn copy_missing(
    s: &mut baccarat_cluster::pg_store::PgStore,
    anchors: &AnchorLog,
    path: &Path,
    last: u64,
) -> Result<(), ServeError> {
    if anchors.seq() <= last + 1 {
        return Ok(s.copy_anchor_lines(&anchors.lines_after(last)?)?);
    }
    tracing::info!(lines = anchors.seq() - last, after = last, "anchors: copying the file's lines the database lacks");
    let mut chunk = Vec::new();
    crate::anchor::each_line_after(path, last, |l| -> Result<(), ServeError> {
        chunk.push(l);
        if chunk.len() == CHUNK {
            s.copy_anchor_lines(&std::mem::take(&mut chunk))?;
        }
        Ok(())
    })?;
    Ok(s.copy_anchor_lines(&chunk)?)
}

/// Lines copied per transaction at a start.
const CHUNK: usize = 10_000;

/// Before the start's checks, on PostgreSQL: lines the database's copy has
/// past the anchor file's end (a backup takes the file first and the
/// database after; a file lost with its machine and put back from an older
/// copy) are written back to the file, once they verify as its own
/// continuation (`AnchorLog::restore`: numbered on, each `prev` its
/// predecessor's hash, signed by this key), so that the checks read the
/// whole file. Lines that do not continue it refuse the start. `mark`: the
/// checkpoint's, where the file is read from when it describes it.
pub(crate) fn restore_file(
    store: &AnyStore,
    path: &Path,
    key: &crate::anchor::AnchorKey,
    mark: Option<&crate::anchor::AnchorMark>,
) -> Result<(), ServeError> {
    let AnyStore::Postgres(s) = store else { return Ok(()) };
    let last = s.anchor_lines_last()?;
    let mut anchors = AnchorLog::open_at(path, key.clone(), mark)?;
    let seq = anchors.seq();
    if last <= seq {
        return Ok(());
    }
    let past = s.anchor_lines_after(seq)?;
    anchors.restore(&past).map_err(|e| ServeError::AnchorBehind {
        path: path.into(),
        why: format!(
            "the anchor file ends at line {seq}, and the database's copy of its lines reaches line {last}, but its \
             lines after the file's end do not continue it ({e}): the file or the copy is not this casino's"
        ),
    })?;
    anchors.sync()?;
    tracing::warn!(
        lines = past.len(),
        through = last,
        "anchors: the file was behind the database's copy of its lines; their lines past its end, verified, were \
         written back to it"
    );
    Ok(())
}

/// What the database's copy of the anchor lines signed, read under the
/// server's key (`public`), for a start whose file is lost: the chains are
/// checked against it before a new file signs them. None on SQLite, or when
/// the copy is empty; a copy that does not verify refuses the start.
pub(crate) fn read_for_start(store: &AnyStore, public: &str) -> Result<Option<crate::anchor::Anchored>, ServeError> {
    let AnyStore::Postgres(s) = store else { return Ok(None) };
    match s.read_anchor_copy(Some(public))? {
        CopyRead::Empty => Ok(None),
        CopyRead::Read { anchored, .. } => Ok(Some(anchored)),
        CopyRead::Bad(e) => Err(e.into()),
    }
}
