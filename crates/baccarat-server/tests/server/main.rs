//! The server's integration tests, one binary: a module per area, the
//! in-process server (`common::spawn_app`) shared. `spray.rs` (it measures
//! its process's memory) and `fuzz/` stay binaries of their own.
//! proptest keeps failing seeds in `../proptest-regressions/<file>.txt`.

mod anchor_segments;
mod approvals;
mod archive;
mod attack;
mod bank;
mod cage;
mod casino;
mod checkpoint;
mod checkpoint_keys_and_settlement;
mod checkpoint_parts;
mod common;
mod exposure;
mod fatal;
mod forgery;
mod health;
mod http;
mod http_play;
mod into_play;
mod key_index;
mod liveness;
mod lobby;
mod metrics;
mod pacing;
mod partition;
mod pg;
mod pg_anchor_copy;
mod pg_archive;
mod pg_cluster;
mod pg_lease;
mod pg_migrate;
mod pg_reconnect;
mod pg_suite;
mod pre_shuffled;
mod promotion;
mod proxy;
mod ratings;
mod recovery;
mod reports;
mod rulebooks;
mod self_limits;
mod start_guards;
mod store;
mod tables;
mod tls;
mod tournament;
mod tournament_play;
mod trust;
mod users;
mod verify;
