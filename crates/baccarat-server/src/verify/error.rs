//! Why `verify` (or one of its reads for the HTTP routes) could not run at
//! all, as distinct from what it found (a finding is a line of
//! [`super::Findings::problems`], never an error).
//!
//! Each variant's text is the one the command printed before this type
//! existed (issue 46: no change of behaviour), so the CLI and the routes say
//! the same words.

use crate::store::StoreError;
use baccarat_core::TableId;

/// A verification that could not be made.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// The database (a file's path, or a URL as shown) could not be opened.
    #[error("{db}: {source}")]
    Open {
        db: String,
        #[source]
        source: StoreError,
    },
    /// A read of the store failed part-way.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A PostgreSQL casino has no anchor file beside it to default to.
    #[error("--anchor-file: required with a PostgreSQL --db (a URL has no file beside it)")]
    AnchorFileRequired,
    /// A PostgreSQL casino checked without its anchor file and without the
    /// key to trust the database's copy of its lines by.
    #[error(
        "--anchor-file: required with a PostgreSQL --db (a URL has no file beside it), or --anchor-key to check \
         against the database's copy of the anchor lines alone, which is trusted only under the key the casino \
         published (anyone who can write to the database could sign a copy of their own)"
    )]
    CopyUnpinned,
    /// The anchor file could not be read or is not signed by the key.
    #[error("anchors: {0}")]
    Anchors(#[source] crate::anchor::AnchorError),
    /// `--since-checkpoint` on a database that has none.
    #[error("the database has no checkpoint: verify the whole history (--full)")]
    NoCheckpoint,
    /// The chains could not be checked against the anchored heads (the
    /// store's words, as the anchor module gives them).
    #[error("{0}")]
    Cuts(String),
    /// A table's rulebook is not one this build knows.
    #[error("table {table}: {source}")]
    Rulebook {
        table: TableId,
        #[source]
        source: baccarat_rules::profiles::UnknownRulebook,
    },
    /// A table's stored configuration is refused by its rulebook.
    #[error("table {table}: configuration: {source}")]
    Configuration {
        table: TableId,
        #[source]
        source: baccarat_rules::Problems,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words are the ones the command printed before (a test that fails
    /// if a format changes).
    #[test]
    fn the_words_are_the_old_ones() {
        assert_eq!(
            VerifyError::AnchorFileRequired.to_string(),
            "--anchor-file: required with a PostgreSQL --db (a URL has no file beside it)"
        );
        let e = VerifyError::Open { db: "x.db".into(), source: StoreError::Corrupt("bad".into()) };
        assert_eq!(e.to_string(), "x.db: stored data is unreadable: bad");
        assert_eq!(VerifyError::Store(StoreError::Corrupt("bad".into())).to_string(), "stored data is unreadable: bad");
        let source = baccarat_rules::profiles::UnknownRulebook("x".into());
        let e = VerifyError::Rulebook { table: TableId(3), source: source.clone() };
        assert_eq!(e.to_string(), format!("table 3: {source}"));
    }
}
