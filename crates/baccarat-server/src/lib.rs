//! The edge of the casino server (issue 46): HTTP and WebSocket, the API
//! document, people and sign-in, serving and its start-up, a front for
//! several partitions, `verify` and `migrate`. What it serves lives below it
//! and is imported from there, not from here: the durable floor
//! (`baccarat-core`: the ledger, the audit chain, the store), the casino on
//! one machine (`baccarat-casino`: tables and money, the writer, the read
//! models) and several servers on PostgreSQL (`baccarat-cluster`). This
//! crate names their modules privately, under the short paths its own
//! modules use (`crate::store`), and exports none of them.
//!
//! ```
//! let doc = baccarat_server::openapi::document();
//! assert_eq!(doc["openapi"], "3.0.3");
//! ```

// The floor's, the casino's and the cluster's modules, under the paths
// this crate's modules name them by (private: callers import them from
// their own crates).
use baccarat_casino::casino;
use baccarat_casino::casino::checkpoint;
use baccarat_cluster::pg_store::bank;
use baccarat_cluster::{key_reader, lease, pg_store, promotion_entries};
use baccarat_core::{anchor, audit, ledger, store, trust};

pub mod auth;
pub mod bodies;
pub mod demo;
pub mod first_admin;
pub mod forward;
pub mod founding;
pub mod front;
pub mod http;
pub mod key_rotation;
pub mod messages;
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
