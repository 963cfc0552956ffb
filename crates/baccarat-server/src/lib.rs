//! The table server's core: a double-entry ledger with holds and idempotency, a
//! SHA-256-chained audit log, and the store that keeps them.

// The durable floor (`baccarat-core`), under its old paths while the layers
// above are split out (issue 46).
pub use baccarat_core::ledger::keys;
pub use baccarat_core::store::{archive, key_index, scan};
pub use baccarat_core::{
    anchor, anchoring, audit, backup, bank_log, civil, clock, db_lock, entropy, fatal, ids, ledger, postings,
    reconcile, signing_key, slip_answers, status, store, trust,
};
// The single-machine casino (`baccarat-casino`), likewise.
pub use baccarat_casino::casino::{checkpoint, checkpoint_rows};
pub use baccarat_casino::coup_feed::lines as coup_lines;
pub use baccarat_casino::{casino, checkpoint_check, coup_feed, float, pacer, table_view, writer};
// The gaming day's books (issue 47): the fold the report route and `verify --day` feed.
pub use baccarat_casino::books;
// Several servers on PostgreSQL (`baccarat-cluster`), likewise.
pub use baccarat_cluster::pg_store::bank;
pub use baccarat_cluster::{backend, key_reader, lease, pg_store, pg_thread, promotion_entries};

pub mod auth;
pub mod bodies;
pub mod demo;
pub mod first_admin;
pub mod forward;
pub mod founding;
pub mod front;
pub mod http;
pub mod key_rotation;
pub mod metrics;
pub mod migrate;
pub mod notify;
pub mod openapi;
pub mod partition_route;
pub mod proxy;
pub mod publish;
pub mod rate_limit;
pub mod serve;
pub mod serve_config;
pub mod serve_error;
pub mod signin;
pub mod standby_for;
pub mod start_checks;
pub mod stop;
pub mod tls;
pub mod verify;
