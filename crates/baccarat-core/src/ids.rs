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

/// An id type: the newtype, its bare-number text and JSON, its order.
macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident($int:ty)) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize)]
        #[derive(schemars::JsonSchema)]
        #[serde(transparent)]
        pub struct $name(pub $int);

        impl $name {
            /// The largest id there can be (a bound in tests and checks).
            pub const MAX: $name = $name(<$int>::MAX);

            /// The id after this one, if there is one (ids are given in
            /// order; past the last, a creation is refused, never wrapped).
            pub fn next(self) -> Option<$name> {
                self.0.checked_add(1).map($name)
            }
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

    };
}

/// An id that is also a column: [`id_type!`], and its `BIGINT` (PostgreSQL)
/// and SQLite forms. Only ids of 32 bits: every value fits an `i64`.
macro_rules! id {
    ($(#[$doc:meta])* $name:ident($int:ty)) => {
        id_type!($(#[$doc])* $name($int));

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

id!(
    /// A tournament's number, in the casino's own series (not a table's:
    /// a tournament's tables are numbered within it, `u32` on purpose).
    TournamentId(u32)
);

id!(
    /// A person's number in the casino's list of people, staff or player
    /// (`auth`'s users). A player's user id is also their `PlayerId` at the
    /// tables; the conversion is [`UserId::as_player`], made where the
    /// session's role has been checked.
    UserId(u32)
);

id_type!(
    /// A ledger transfer's number, from 1, in the order they were made
    /// (`ledger`). 64 bits: it counts every posting of every coup; the
    /// ledger's own tables store it (`store`), so it has no column form here.
    TransferId(u64)
);

impl UserId {
    /// The player this user plays as at the tables (the same number).
    pub fn as_player(self) -> baccarat_table::PlayerId {
        baccarat_table::PlayerId(self.0)
    }
}

impl From<baccarat_table::PlayerId> for UserId {
    /// Every player is a user of the same number.
    fn from(p: baccarat_table::PlayerId) -> UserId {
        UserId(p.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A player's user number is their number at the tables, both ways.
    #[test]
    fn a_players_user_id_is_their_player_id() {
        let p = UserId(12).as_player();
        assert_eq!(p, baccarat_table::PlayerId(12));
        assert_eq!(UserId::from(p), UserId(12));
        assert_eq!(serde_json::to_string(&UserId(12)).unwrap(), "12");
    }

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
        assert_eq!(TableId::MAX.next(), None, "past the last id, none");
        assert_eq!(TournamentId(7).next(), Some(TournamentId(8)));
        let neg = db.query_row("SELECT -1", [], |r| r.get::<_, TableId>(0));
        assert!(neg.is_err(), "a negative number is not a table");
    }
}
