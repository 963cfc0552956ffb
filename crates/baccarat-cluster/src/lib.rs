//! Several servers on one PostgreSQL casino, above the single-machine casino
//! (`baccarat-casino`) and below the edge (`baccarat-server`): it knows
//! PostgreSQL and no HTTP, and the build refuses HTTP here, since it depends
//! on no server crate.
//!
//! * `pg_store`: the PostgreSQL store (the same traits as SQLite's), monthly
//!   partitions, archives; `pg_thread`, a connection on a thread of its own;
//! * `backend`: the store a server runs on, whichever it is (`OpenDb`), and
//!   the checkpointer's own connection;
//! * `lease`: the casino's lease, its epochs (the fencing token) and its
//!   keeping;
//! * `pg_store::bank`: players' money shared by every server of a casino (a
//!   schema of the casino's PostgreSQL), and a partition's link to it
//!   (`bank::link`, the writer's `Funding`);
//! * `key_reader`: idempotency answers read back from either store;
//! * `promotion_entries`: a promotion's entries from every chain.
//!
//! The surface (issue 46): the store a server runs on (`AnyStore`,
//! `OpenDb`, `start_checkpointer`) and `PgThread` are named at the root and
//! their modules are private; the PostgreSQL store, the lease, the key
//! reader and the promotions' entries stay public namespaces, since their
//! items read best with the module in front (`lease::wait_for`,
//! `key_reader::open`, `pg_store::bank::Bank`).
//!
//! ```
//! use baccarat_cluster::OpenDb;
//! use baccarat_core::store::Db;
//!
//! let dir = std::env::temp_dir().join(format!("baccarat-cluster-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! let store = Db::parse(dir.join("casino.db").to_str().unwrap()).open().unwrap();
//! assert!(store.sqlite().is_some());
//! # std::fs::remove_dir_all(&dir).unwrap();
//! ```

// The layers below, under the paths this crate's modules name them by.
use baccarat_casino::casino;
use baccarat_core::{anchor, audit, ledger, store};

mod backend;
pub mod key_reader;
pub mod lease;
pub mod pg_store;
mod pg_thread;
pub mod promotion_entries;

pub use backend::{read_records_in, start_checkpointer, AnyStore, OpenDb};
pub use pg_thread::PgThread;
