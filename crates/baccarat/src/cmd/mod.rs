//! One module per subcommand.

pub mod admin;
pub mod archive;
pub mod backup;
pub mod key;
pub mod loadgen;
pub mod logging;
pub mod migrate;
pub mod odds;
mod odds_eor;
pub mod partitions;
pub mod profiles;
pub mod promotion;
pub mod rng;
pub mod roads;
pub mod serve;
pub mod shoe;
pub mod simulate;
mod simulate_count;
pub mod table;
pub mod tournament;
pub mod verify;
pub mod verify_books;

use anyhow::{Context, Result};
use baccarat_rules::{profiles as builtin, Rulebook};

/// A rulebook by built-in name, or from a profile file when the name is a path
/// (contains `/` or ends in `.toml`).
pub fn load_rulebook(name: &str) -> Result<Rulebook> {
    if name.contains('/') || name.ends_with(".toml") {
        let text = std::fs::read_to_string(name).with_context(|| format!("cannot read profile {name}"))?;
        return Rulebook::from_toml(&text).map_err(|p| anyhow::anyhow!("{name}: {p}"));
    }
    Ok(builtin::builtin(name)?)
}
