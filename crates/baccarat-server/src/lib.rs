//! The table server's core: a double-entry ledger with holds and idempotency, a
//! SHA-256-chained audit log, and the store that keeps them.

pub mod anchor;
pub mod audit;
pub mod auth;
pub mod casino;
pub mod checkpoint;
pub mod entropy;
pub mod feed;
pub mod float;
pub mod http;
pub mod ledger;
pub mod limits;
pub mod openapi;
pub mod pacer;
pub mod postings;
pub mod reconcile;
pub mod scan;
pub mod serve;
pub mod signin;
pub mod store;
pub mod trust;
pub mod verify;
pub mod views;
pub mod writer;
