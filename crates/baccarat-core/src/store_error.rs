//! Why the store could not do what was asked: its own module, below the
//! store and the ledger alike, since the ledger's reader of keys that left
//! memory (`ledger::keys::ColdKeys`) answers with it too.

/// A store's failure, either back end (SQLite here; PostgreSQL's errors are
/// turned into it by `pg_store` in the cluster crate).
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database: {0}")]
    Sql(#[from] rusqlite::Error),
    /// PostgreSQL (`pg_store.rs`): an error the database answered.
    #[error("database: {0}")]
    Pg(String),
    /// PostgreSQL out of reach: the connection could not be made, or broke
    /// (a network cut, a restart), as against an error it answered.
    #[error("database out of reach: {0}")]
    Unreachable(String),
    /// A write under a table lease another server has since taken
    /// (`pg_store.rs`): refused whole.
    #[error("fenced: {0}")]
    Fenced(String),
    #[error("stored data is unreadable: {0}")]
    Corrupt(String),
}

impl From<rusqlite::types::FromSqlError> for StoreError {
    fn from(e: rusqlite::types::FromSqlError) -> StoreError {
        StoreError::Corrupt(e.to_string())
    }
}
