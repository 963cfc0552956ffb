//! Why a request could not be passed on to the server that serves it, or
//! where the partitions are served could not be read: `forward.rs`,
//! `partition_route.rs` and `front.rs`.
//!
//! Each variant's text is the one these said before this type existed
//! (issue 46: no change of behaviour): it is what a 502's or 503's
//! `error` names after "could not be reached: " or "partition NAME: ".

use crate::bank::BankError;

/// A pass-through, or a read of the partitions' lease rows, that failed.
#[derive(Debug, thiserror::Error)]
pub enum RouteError {
    /// The request to pass on could not be built.
    #[error(transparent)]
    Request(#[from] axum::http::Error),
    /// The pool's connection to the other server failed.
    #[error(transparent)]
    Pool(#[from] hyper_util::client::legacy::Error),
    /// A WebSocket's own connection to the other server could not be made.
    #[error(transparent)]
    Connect(#[from] std::io::Error),
    /// The other server's HTTP failed on that connection.
    #[error(transparent)]
    Http(#[from] hyper::Error),
    /// The connection for the partitions' directory could not be made.
    #[error("the partitions' directory: {0}")]
    Directory(#[source] baccarat_cluster::pg_store::ConnectError),
    /// The connection for players' reads of the bank could not be made.
    #[error("the bank's reader: {0}")]
    BankReader(#[source] baccarat_cluster::pg_store::ConnectError),
    /// A stop signal came while the database was out of reach at the start.
    #[error("the partitions' directory: the wait for the database was given up (a stop signal)")]
    GivenUp,
    /// The bank's rows could not be read.
    #[error(transparent)]
    Bank(#[from] BankError),
    /// The blocking read ended without an answer (a panic).
    #[error(transparent)]
    Task(#[from] tokio::task::JoinError),
    /// The directory's connection thread is gone.
    #[error("the partitions' directory's connection thread stopped; restart the server")]
    DirectoryStopped,
    /// The bank reader's connection thread is gone.
    #[error("the bank's reader's connection thread stopped; restart the server")]
    BankReaderStopped,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words are the ones said before (a test that fails if a format
    /// changes).
    #[test]
    fn the_words_are_the_old_ones() {
        assert_eq!(
            RouteError::DirectoryStopped.to_string(),
            "the partitions' directory's connection thread stopped; restart the server"
        );
        assert_eq!(
            RouteError::BankReaderStopped.to_string(),
            "the bank's reader's connection thread stopped; restart the server"
        );
        let io = std::io::Error::other("refused");
        assert_eq!(RouteError::Connect(io).to_string(), "refused");
    }
}
