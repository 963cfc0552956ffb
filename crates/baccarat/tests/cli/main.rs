//! The `baccarat` command's integration tests, one binary: a module per
//! area, `common::start` running `baccarat serve` as a child process.

mod admin;
mod backup;
#[cfg(unix)]
mod browser;
mod cli;
mod common;
mod failover;
mod founding;
mod keys;
mod logs;
mod network_cut;
mod newcomer;
#[cfg(unix)]
mod notify;
#[cfg(unix)]
mod package;
mod partitions;
mod pg_archive;
mod pg_ha;
mod pg_proxy;
mod print_config;
mod rng_cli;
mod serve;
mod three_servers;
mod tls;
