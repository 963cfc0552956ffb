//! Ids as types (issue 46): a table's number is not a tournament's, a user's
//! or a count of anything, and the compiler now says so.
//!
//! Each id is a newtype over the integer it always was, and reads and writes
//! as that bare number everywhere it leaves the process: JSON (serde
//! transparent), SQLite (`ToSql`/`FromSql`), `Display` and `Debug` (so the
//! audit chain's signed bytes, log lines and messages are the same as before
//! the type existed: old records verify unchanged). PostgreSQL stores them
//! as `BIGINT`; the cluster converts at its edge with `.0`.

use std::fmt;
use std::str::FromStr;

use rusqlite::types::{FromSql, FromSqlResult, ToSql, ToSqlOutput, ValueRef};
use serde::{Deserialize, Serialize};

macro_rules! id {
    ($(#[$doc:meta])* $name:ident($int:ty)) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub $int);

        impl $name {
            /// The largest id there can be (a bound in tests and checks).
            pub const MAX: $name = $name(<$int>::MAX);
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.0, f)
            }
        }

        /// The bare number, as `Display`: ids appear in `{:?}` messages and
        /// in records whose text is signed.
        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.0, f)
            }
        }

        impl FromStr for $name {
            type Err = std::num::ParseIntError;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                s.parse().map($name)
            }
        }

        impl From<$name> for u64 {
            fn from(id: $name) -> u64 {
                u64::from(id.0)
            }
        }

        /// PostgreSQL keeps ids as `BIGINT`.
        impl From<$name> for i64 {
            fn from(id: $name) -> i64 {
                i64::from(id.0)
            }
        }

        impl ToSql for $name {
            fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
                Ok(ToSqlOutput::from(i64::from(self.0)))
            }
        }

        impl FromSql for $name {
            fn column_result(v: ValueRef<'_>) -> FromSqlResult<Self> {
                <$int>::column_result(v).map($name)
            }
        }
    };
}

id!(
    /// A casino table's number (the audit chain of table `n` is chain `n`;
    /// chain 0 is the casino's own, `audit::CASINO_CHAIN`).
    TableId(u32)
);

#[cfg(test)]
mod tests {
    use super::*;

    /// The same bytes on every wire as the bare number: JSON, text, SQLite.
    #[test]
    fn an_id_reads_and_writes_as_its_number() {
        let id = TableId(42);
        assert_eq!(serde_json::to_string(&id).unwrap(), "42");
        assert_eq!(serde_json::from_str::<TableId>("42").unwrap(), id);
        assert!(serde_json::from_str::<TableId>("-1").is_err());
        assert_eq!(format!("{id} {id:?}"), "42 42");
        assert_eq!("42".parse::<TableId>().unwrap(), id);
        assert!("x".parse::<TableId>().is_err());
        assert_eq!(u64::from(id), 42);
        let db = rusqlite::Connection::open_in_memory().unwrap();
        let back: TableId = db.query_row("SELECT ?1", [id], |r| r.get(0)).unwrap();
        assert_eq!(back, id);
        let neg = db.query_row("SELECT -1", [], |r| r.get::<_, TableId>(0));
        assert!(neg.is_err(), "a negative number is not a table");
    }
}
