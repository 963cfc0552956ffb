//! The database's copy of the anchor lines, begun at a start on PostgreSQL
//! (`baccarat-core`'s `anchor/copy.rs` has the design; the store's side is
//! `pg_store/anchor_lines.rs`): the lines the copy lacks are copied from the
//! file, and from then on each line written waits for the next commit.

use std::path::Path;

use crate::anchor::{AnchorLog, Outbox};
use crate::serve_error::ServeError;
use baccarat_cluster::AnyStore;

/// Begin the copy for `store` (nothing on SQLite, whose anchor file is
/// beside its database on one machine). `new_file`: this start began the
/// anchor file at `path` (a first run, or `--new-anchor-file`), so a copy
/// of an older file's lines is set aside, kept, before the new file's
/// lines (numbered from 1 again) are copied.
///
/// A copy that reaches further than the file is refused as a file that is
/// behind: a line goes into the database only after it is in the file, so
/// the file lost lines (an older copy put in its place).
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
        return Err(ServeError::AnchorBehind {
            path: path.into(),
            why: format!(
                "the anchor file ends at line {}, but the database's copy of its lines reaches line {last}: lines \
                 were removed from the file, or an older copy of it was put in its place (`baccarat verify` reads \
                 the database's copy)",
                anchors.seq()
            ),
        });
    }
    let missing = anchors.lines_after(last)?;
    if !missing.is_empty() {
        tracing::info!(lines = missing.len(), after = last, "anchors: copying the file's lines the database lacks");
    }
    s.copy_anchor_lines(&missing)?;
    let outbox = Outbox::default();
    anchors.copy_to(outbox.clone());
    s.copy_anchors_from(outbox);
    Ok(())
}
