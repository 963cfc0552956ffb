//! The rules crate's integration tests, one binary: a module per area.

mod classify;
mod profiles;
mod promotion;
mod quotes;
mod settlement;
mod table_config;
mod tournament;
