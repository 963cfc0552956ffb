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
//! ```
//! use baccarat_core::ledger::Ledger;
//!
//! let ledger = Ledger::new();
//! assert!(ledger.accounts().next().is_none());
//! ```

pub mod anchor;
pub mod anchoring;
pub mod audit;
pub mod backup;
pub mod bank_log;
pub mod civil;
pub mod clock;
pub mod db_lock;
pub mod entropy;
pub mod exit;
pub mod fatal;
pub mod ids;
pub mod ledger;
pub mod postings;
pub mod reconcile;
pub mod signing_key;
pub mod slip_answers;
pub mod status;
pub mod store;
pub mod store_error;
pub mod trust;
