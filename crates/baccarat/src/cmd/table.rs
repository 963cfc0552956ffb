//! `baccarat table check FILE`: validate a table configuration.

use anyhow::{Context, Result};
use baccarat_rules::{TableConfig, TableConfigSpec};
use clap::Subcommand;

#[derive(Subcommand)]
pub enum TableCommand {
    /// Check a table configuration (TOML) against its rulebook and list every problem.
    Check { file: String },
}

pub fn run(c: TableCommand) -> Result<()> {
    let TableCommand::Check { file } = c;
    let text = std::fs::read_to_string(&file).with_context(|| format!("cannot read {file}"))?;
    let spec: TableConfigSpec = toml::from_str(&text)
        .map_err(|e| anyhow::anyhow!("{file}: table config is invalid: {}", e.message().trim()))?;
    let rb = super::load_rulebook(&spec.rulebook)?;
    let t = TableConfig::from_toml(&rb, &text).map_err(|p| anyhow::anyhow!("{file}: {p}"))?;
    println!(
        "{file}: valid for {}: {} decks, variant {}, layout {} ({} boxes), {} wagers offered",
        t.rulebook,
        t.decks,
        t.variant.id,
        t.layout.name,
        t.layout.boxes,
        t.offers.len()
    );
    for o in &t.offers {
        println!("  {:<20} {:<26} {} to {}", o.bet, o.pay_table.name, o.min, o.max);
    }
    Ok(())
}
