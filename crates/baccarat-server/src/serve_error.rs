//! Why a server's start (or its turn of serving) failed: `serve.rs`,
//! `serve/turn.rs`, `start_checks.rs` and the demo casino's first run.
//!
//! Each variant's text is the one the start printed before this type existed
//! (issue 46: no change of behaviour). Where the function called still gives
//! its reason as text (the signing key, the lease, recovery, the engine), the
//! variant holds that text as it was.

use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;

use crate::anchor::AnchorError;
use crate::store::StoreError;

/// A start, or a turn of serving, that failed.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// Another server holds this SQLite casino, or its file is refused
    /// (`db_lock.rs`'s words).
    #[error("{0}")]
    Locked(String),
    /// The database (as shown: a path, or a URL without its password) could
    /// not be opened, or a reader of it made.
    #[error("{db}: {source}")]
    Open {
        db: String,
        #[source]
        source: StoreError,
    },
    /// SQLite's key index could not be caught up.
    #[error("{db}: the key index: {source}")]
    KeyIndex {
        db: String,
        #[source]
        source: StoreError,
    },
    /// The first admin's password could not be had (`first_admin.rs`).
    #[error(transparent)]
    FirstAdmin(#[from] crate::first_admin::FirstAdminError),
    /// A read or write of the store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The anchor file could not be read, written or begun.
    #[error(transparent)]
    Anchor(#[from] AnchorError),
    /// A rotation of the anchor file a crash cut could not be finished.
    #[error("{}: {source}", .path.display())]
    AnchorRotation {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// No anchor file (or an empty one) beside a database that holds a
    /// casino, and no `--new-anchor-file`.
    #[error(
        "{}: the anchor file is missing or empty, but the database holds a casino: restore the file from a copy; \
         if it is lost for good, start once with --new-anchor-file, which begins a new one signing every chain as it \
         now stands (what the old file signed is then not checked)",
        .0.display()
    )]
    AnchorFileLost(PathBuf),
    /// `--new-anchor-file` beside an anchor file that exists and holds lines:
    /// refused, not ignored (issue 48).
    #[error(
        "--new-anchor-file: {} exists and is not empty: the flag begins a new anchor file only where the old one \
         is lost for good, and this one still signs the casino. Start without the flag; if the file is not this \
         database's (a backup restored beside a newer file), move it aside (keep it) and put the backup's anchor \
         file in its place (docs/backup.md)",
        .0.display()
    )]
    NewAnchorFileExists(PathBuf),
    /// An anchor file that signs a casino, beside a database that holds none.
    #[error(
        "{}: the anchor file signs a casino, but the database holds none: restore the database from its copy; \
         to begin a new casino here, move the anchor file (and its segments) aside first",
        .0.display()
    )]
    AnchorFileOfAnother(PathBuf),
    /// The anchor file is behind where the checkpoint saw it.
    #[error("{}: {why}; restore the file", .path.display())]
    AnchorBehind { path: PathBuf, why: String },
    /// The chains could not be checked against the anchored heads.
    #[error("{0}")]
    Cuts(String),
    /// The casino's own chain falls short of what the anchor file signed.
    #[error("refusing to start: {0}")]
    CasinoChainCut(String),
    /// The signing key could not be read or made (`signing_key.rs`'s words).
    #[error("{0}")]
    Key(String),
    /// The people could not be read.
    #[error(transparent)]
    Users(#[from] crate::auth::AuthError),
    /// The casino could not be recovered (recovery's words).
    #[error("{0}")]
    Recovery(String),
    /// The engine refused a part of the start (the demo casino's tables and
    /// chips, the bank's allotments): its words.
    #[error("{0}")]
    Casino(String),
    /// The bank could not be read.
    #[error("the bank: {0}")]
    Bank(#[source] crate::bank::BankError),
    /// The players' limits shared at the bank could not be read.
    #[error("the bank's limits: {0}")]
    BankLimits(#[source] crate::bank::BankError),
    /// The lease, the bank's link, the checkpointer or the partitions'
    /// directory could not be had (their words).
    #[error("{0}")]
    Cluster(String),
    /// Partitions taken over here would be advertised at an address other
    /// servers cannot reach (`standby_for.rs`'s words).
    #[error("{0}")]
    Unreachable(String),
    /// Where the partitions are served could not be read.
    #[error(transparent)]
    Route(#[from] crate::forward::RouteError),
    /// The TLS files, or the URL advertised with them, refuse the start
    /// (`tls.rs`'s words).
    #[error(transparent)]
    Tls(#[from] crate::tls::TlsError),
    /// The address could not be listened on.
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        addr: SocketAddr,
        #[source]
        source: io::Error,
    },
    /// The listener, or the server on it, failed.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// The start's blocking work ended without an answer (a panic).
    #[error("the start failed: {0}")]
    StartFailed(#[source] tokio::task::JoinError),
    /// The task serving HTTP ended without an answer (a panic).
    #[error("{0}")]
    ServerTask(#[source] tokio::task::JoinError),
    /// The turn's listener was gone before it was served.
    #[error("no listener")]
    NoListener,
    /// The writer would not take the clean stop's checkpoint.
    #[error("{0}")]
    Writer(#[source] baccarat_casino::Busy),
    /// The writer ended before it answered the clean stop's checkpoint.
    #[error("the writer stopped before the checkpoint")]
    WriterStopped,
}

/// The variants that hold a lower layer's words, made from any error that
/// displays them: they compile whether the callee gives its reason as text
/// or as an enum of its own.
impl ServeError {
    pub(crate) fn locked(e: impl std::fmt::Display) -> Self {
        ServeError::Locked(e.to_string())
    }
    pub(crate) fn cuts(e: impl std::fmt::Display) -> Self {
        ServeError::Cuts(e.to_string())
    }
    pub(crate) fn key(e: impl std::fmt::Display) -> Self {
        ServeError::Key(e.to_string())
    }
    pub(crate) fn recovery(e: impl std::fmt::Display) -> Self {
        ServeError::Recovery(e.to_string())
    }
    pub(crate) fn casino(e: impl std::fmt::Display) -> Self {
        ServeError::Casino(e.to_string())
    }
    pub(crate) fn cluster(e: impl std::fmt::Display) -> Self {
        ServeError::Cluster(e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words are the ones the start printed before (a test that fails
    /// if a format changes).
    #[test]
    fn the_words_are_the_old_ones() {
        let path = PathBuf::from("/c/casino.db.anchors");
        assert_eq!(
            ServeError::AnchorBehind { path: path.clone(), why: "cut".into() }.to_string(),
            "/c/casino.db.anchors: cut; restore the file"
        );
        assert_eq!(
            ServeError::AnchorFileLost(path.clone()).to_string(),
            "/c/casino.db.anchors: the anchor file is missing or empty, but the database holds a casino: restore the \
             file from a copy; if it is lost for good, start once with --new-anchor-file, which begins a new one \
             signing every chain as it now stands (what the old file signed is then not checked)"
        );
        assert_eq!(ServeError::CasinoChainCut("x".into()).to_string(), "refusing to start: x");
        let e = ServeError::KeyIndex { db: "c.db".into(), source: StoreError::Corrupt("y".into()) };
        assert_eq!(e.to_string(), "c.db: the key index: stored data is unreadable: y");
        let addr: SocketAddr = "127.0.0.1:1".parse().unwrap();
        let e = ServeError::Listen { addr, source: io::Error::other("busy") };
        assert_eq!(e.to_string(), "cannot listen on 127.0.0.1:1: busy");
        assert_eq!(ServeError::Store(StoreError::Corrupt("z".into())).to_string(), "stored data is unreadable: z");
    }
}
