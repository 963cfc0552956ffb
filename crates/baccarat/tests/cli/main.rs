//! The `baccarat` command's integration tests, one binary: a module per
//! area, `common::start` running `baccarat serve` as a child process.

mod admin;
#[cfg(unix)]
mod browser;
mod cli;
mod common;
mod failover;
mod founding;
mod keys;
mod network_cut;
mod newcomer;
mod partitions;
mod pg_archive;
mod pg_proxy;
mod rng_cli;
mod serve;
mod three_servers;
