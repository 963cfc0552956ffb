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
//! The surface (issue 46): what the command line and the tests take from
//! the edge. Small pieces are named at the root (`TlsFiles`, `Forwarder`,
//! `Proxies`, `Scrapers`, `PasswordSource`…); the areas whose items read
//! best with the module in front stay public namespaces (`serve::run`,
//! `verify::verify`, `migrate::migrate`, `openapi::document`, `auth::Users`,
//! `http::SESSION_COOKIE`…). Everything else (the answers' bodies, the
//! WebSocket messages, publication, sign-in's limits, start-up's checks) is
//! private to the crate.
//!
//! ```
//! let doc = baccarat_server::openapi::document();
//! assert_eq!(doc["openapi"], "3.0.3");
//! assert!(baccarat_server::NAME_BURST > 0);
//! ```

// The floor's, the casino's and the cluster's modules, under the paths
// this crate's modules name them by (private: callers import them from
// their own crates).
use baccarat_casino::casino;
use baccarat_casino::casino::checkpoint;
use baccarat_cluster::pg_store::bank;
use baccarat_cluster::{key_reader, lease, pg_store, promotion_entries};
use baccarat_core::{anchor, audit, ledger, store, trust};

mod anchor_copy;
pub mod auth;
mod bodies;
mod demo;
mod first_admin;
mod forward;
mod founding;
pub mod front;
pub mod http;
pub mod key_rotation;
mod messages;
mod metrics;
pub mod migrate;
mod notify;
pub mod openapi;
pub mod partition_route;
mod proxy;
mod publish;
mod rate_limit;
pub mod serve;
mod serve_config;
mod serve_error;
mod signin;
pub mod standby_for;
mod start_checks;
mod stop;
mod tls;
pub mod verify;

pub use first_admin::PasswordSource;
pub use forward::Forwarder;
pub use metrics::Scrapers;
pub use proxy::Proxies;
pub use signin::{ADDRESS_BURST, NAME_BURST};
pub use tls::TlsFiles;
