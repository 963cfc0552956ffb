//! Why `baccarat migrate` (or the export `verify` makes of a PostgreSQL
//! casino) stopped. Each variant's text is the one the command printed
//! before this type existed (issue 46: no change of behaviour).

use std::path::PathBuf;

use crate::store::StoreError;

/// A copy, a check of a copy, or an export that could not be made.
#[derive(Debug, thiserror::Error)]
pub enum MigrateError {
    /// The SQLite source named by `--from` is not there.
    #[error("--from: {} does not exist", .0.display())]
    FromMissing(PathBuf),
    /// A server holds the source (`db_lock.rs`'s words).
    #[error("--from {0}")]
    FromLocked(String),
    /// The SQLite source could not be opened.
    #[error("--from {}: {source}", .path.display())]
    FromOpen {
        path: PathBuf,
        #[source]
        source: StoreError,
    },
    /// The PostgreSQL target named by `--to` could not be reached.
    #[error("--to: {0}")]
    To(#[source] StoreError),
    /// The target holds a casino already: what it holds, e.g. "3 tables".
    #[error("--to: the database already holds a casino ({}); migrate copies only into an empty database", .0.join(", "))]
    Occupied(Vec<String>),
    /// The copy stopped part-way: the target is partial.
    #[error("copying: {0} (the target is now partial: drop and recreate it before running again)")]
    Copying(#[source] StoreError),
    /// The streams read back differ: each difference, named.
    #[error("the copy does not match its source: {}", .0.join("; "))]
    Differs(Vec<String>),
    /// The export's SQLite file is there already.
    #[error("{}: already exists; export writes only a new file", .0.display())]
    ExportExists(PathBuf),
    /// The export's SQLite file could not be made.
    #[error("{}: {source}", .path.display())]
    ExportOpen {
        path: PathBuf,
        #[source]
        source: StoreError,
    },
    /// The PostgreSQL casino named by `--db` could not be read.
    #[error("--db: {0}")]
    Db(#[source] StoreError),
    /// The export stopped reading the PostgreSQL casino.
    #[error("reading the PostgreSQL casino: {0}")]
    Reading(#[source] StoreError),
    /// The anchor file named for a PostgreSQL `verify` is not there.
    #[error("--anchor-file: {} does not exist", .0.display())]
    AnchorFileMissing(PathBuf),
    /// No anchor file named, and the database keeps no copy of the lines.
    #[error(
        "--anchor-file: required: this database keeps no copy of the anchor lines (a casino last served before \
         the copy began), so a PostgreSQL casino is verified with its anchor file"
    )]
    NoAnchors,
    /// The database's copy of the anchor lines alone, with no key pinned.
    #[error(
        "--anchor-key: required without --anchor-file: the database's copy of the anchor lines is checked against \
         the key the casino published (someone who can write to the database could sign a copy of their own)"
    )]
    CopyUnpinned,
    /// A read of either side failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The exported copy could not be verified.
    #[error(transparent)]
    Verify(#[from] crate::verify::VerifyError),
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words are the ones the command printed before.
    #[test]
    fn the_words_are_the_old_ones() {
        assert_eq!(MigrateError::FromMissing("/x.db".into()).to_string(), "--from: /x.db does not exist");
        assert_eq!(
            MigrateError::Occupied(vec!["3 tables".into(), "2 users".into()]).to_string(),
            "--to: the database already holds a casino (3 tables, 2 users); migrate copies only into an empty database"
        );
        assert_eq!(
            MigrateError::Differs(vec!["a: x".into(), "b: y".into()]).to_string(),
            "the copy does not match its source: a: x; b: y"
        );
        let e = MigrateError::Copying(StoreError::Corrupt("z".into()));
        assert_eq!(
            e.to_string(),
            "copying: stored data is unreadable: z (the target is now partial: drop and recreate it before running again)"
        );
    }
}
