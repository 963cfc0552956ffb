//! The durable floor of the casino server: what is kept, and the proofs that
//! it was kept honestly. It knows no HTTP and no PostgreSQL (issue 46: the
//! layers above are `baccarat-server`'s; nothing here may name them, and the
//! build refuses it, since this crate does not depend on them).
//!
//! * the double-entry ledger with holds (`ledger`), its idempotency keys
//!   (`keys`, `key_index`) and the postings of a coup (`postings`);
//! * the online backup of a SQLite casino (`backup`);
//! * the SHA-256-chained audit log (`audit`) and who may do what (`trust`);
//! * the anchor file that signs the chains' heads (`anchor`, `anchoring`,
//!   `signing_key`);
//! * the store's traits and the embedded SQLite store (`store`), monthly
//!   archives (`archive`) and the streaming readers `verify` uses (`scan`,
//!   `reconcile`, `slip_answers`);
//! * the process's small vocabulary: the clock, fatal conditions, entropy,
//!   the database lock, the bank's log lines, the one way out (`exit`).
//!
//! The surface (issue 46): the small vocabulary is named at the root
//! (`TableId`, `Clock`, `Fatal`, `DbLock`, the bank's `Move`…) and its
//! modules are private; the areas whose items read best with their module
//! in front stay public as namespaces (`ledger::Ledger`, `audit::Record`,
//! `store::SqliteStore`, `anchor::read`, `exit::exit`…).
//!
//! ```
//! use baccarat_core::ledger::Ledger;
//! use baccarat_core::{civil_date, TableId};
//!
//! let ledger = Ledger::new();
//! assert!(ledger.accounts().next().is_none());
//! // The gaming day's civil date of a moment (ms since 1970, UTC).
//! assert_eq!(civil_date(0), (1970, 1, 1));
//! assert_eq!(TableId(3).to_string(), "3");
//! ```

pub mod anchor;
mod anchoring;
pub mod audit;
pub mod backup;
mod bank_log;
mod civil;
mod clock;
mod db_lock;
mod entropy;
pub mod exit;
mod fatal;
mod ids;
pub mod ledger;
mod postings;
pub mod reconcile;
pub mod signing_key;
pub mod slip_answers;
pub mod status;
pub mod store;
pub mod store_error;
pub mod trust;

pub use anchoring::Anchoring;
pub use bank_log::{cage_reference, LossDay, Move, MoveBody, MoveKind, MAX_REFERENCE, SKEW_MS};
pub use civil::{civil_date, year_month};
pub use clock::{system_clock, Clock};
pub use db_lock::{host_name, DbLock, LockError};
pub use entropy::{os_seed, random_hex};
pub use fatal::Fatal;
pub use ids::{TableId, TournamentId, UserId};
pub use postings::{settlement_ops, settlement_ops_with, TableAccounts, TokenAccounts};
