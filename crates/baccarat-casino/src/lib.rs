//! The single-machine casino, above the durable floor (`baccarat-core`) and
//! below the cluster and the edge (`baccarat-server`): it knows no HTTP and no
//! PostgreSQL, and the build refuses it, since it depends on neither.
//!
//! * `casino`: tables and money (wagers, settlement, the cage), tournaments,
//!   promotions, players' own limits, recovery from a store;
//! * `writer`: the single writer that applies each batch of requests and
//!   hands it to the committer, with the `Funding` a partition's bank plugs
//!   in from above;
//! * `casino::checkpoint`, `casino::checkpoint_rows`, `checkpoint_check`: the
//!   casino's state as a batch leaves it, sealed and signed;
//! * `table_view`, `coup_feed` (and its `lines`): the read models published after
//!   each commit;
//! * `float`: the house float that covers the worst case of a coup;
//! * `pacer`: what an RNG table's pace calls for next, from its typed view;
//! * `books`: the gaming day and its books, a pure fold over the records.
//! * `table_check`: a table's configuration checked as a creation would, changing nothing.
//!
//! ```
//! use baccarat_casino::casino::Casino;
//!
//! let casino = Casino::new();
//! assert!(casino.tables.is_empty());
//! ```

// The floor's modules, under the paths this crate's modules name them by.
use baccarat_core::{anchor, audit, ledger, store, trust};

pub mod books;
pub mod casino;
pub mod checkpoint_check;
pub mod coup_feed;
pub mod float;
pub mod metered;
pub mod pacer;
/// A table's configuration checked without making the table.
pub mod table_check;
pub mod table_view;
pub mod writer;
