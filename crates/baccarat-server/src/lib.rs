//! The table server's core: a double-entry ledger with holds and idempotency, a
//! SHA-256-chained audit log, and the store that keeps them.

pub mod anchor;
pub mod archive;
pub mod audit;
pub mod auth;
pub mod casino;
pub mod checkpoint;
pub mod checkpoint_check;
pub mod civil;
pub mod coup_feed;
pub mod entropy;
pub mod float;
pub mod forward;
pub mod http;
pub mod key_reader;
pub mod keys;
pub mod lease;
pub mod ledger;
pub mod migrate;
pub mod openapi;
pub mod pacer;
pub mod pg_store;
pub mod pg_thread;
pub mod postings;
pub mod promotion_entries;
pub mod rate_limit;
pub mod reconcile;
pub mod scan;
pub mod serve;
pub mod signin;
pub mod slip_answers;
pub mod store;
pub mod table_view;
pub mod trust;
pub mod verify;
pub mod writer;
