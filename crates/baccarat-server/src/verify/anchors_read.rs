//! The anchor file as `verify` reads it: before the database's snapshot is
//! taken, never after (see the module doc of `verify`).
//!
//! The server signs a head only once its records are committed, so every head
//! in lines read before the snapshot is in the snapshot. Lines read after it
//! may sign records the snapshot does not hold: a live casino, still writing,
//! would then look cut (issue 45 finding 10: `verify` on a serving PostgreSQL
//! casino said "its tail was cut" in 3 of 5 runs). A real cut is still found:
//! a head signed before the snapshot that the snapshot lacks is one.

use std::path::{Path, PathBuf};

use crate::anchor::{Anchored, Span};

/// The anchor file at `path`, read (or not) at one moment.
pub struct AnchorsRead {
    pub(super) path: PathBuf,
    /// What it signed, if it was there and could be read.
    pub(super) anchored: Option<Anchored>,
    /// Why it could not be read, as `verify` reports it.
    pub(super) unread: Option<String>,
    /// Which of its segments were read.
    pub(super) span: Option<Span>,
    /// Whether the database's copy of the lines was read too (or instead:
    /// then a missing file is no finding), and what comparing the two found
    /// (`anchor_copy.rs`).
    pub(super) copied: bool,
    pub(super) problems: Vec<String>,
    pub(super) notes: Vec<String>,
}

impl AnchorsRead {
    /// Read the anchor file at `path` now, with every segment of it still
    /// beside it (`anchor::read_all`). `pinned`: the public key the verifier
    /// trusts, as for [`super::verify_file`]. A missing file is not an error
    /// here: `verify` names it if the database has records.
    pub fn now(path: &Path, pinned: Option<&str>) -> AnchorsRead {
        let (anchored, unread, span) = if path.exists() {
            match crate::anchor::read_all(path, pinned) {
                Ok((a, span)) => (Some(a), None, Some(span)),
                Err(e) => (None, Some(format!("anchors: {e}")), None),
            }
        } else {
            (None, None, None)
        };
        AnchorsRead {
            path: path.to_path_buf(),
            anchored,
            unread,
            span,
            copied: false,
            problems: Vec::new(),
            notes: Vec::new(),
        }
    }
}
