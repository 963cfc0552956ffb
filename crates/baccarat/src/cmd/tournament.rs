//! `baccarat tournament check|show FILE`: tournament conditions (NSW 15.4).

use anyhow::{Context, Result};
use baccarat_rules::tournament::Conditions;
use clap::Subcommand;

#[derive(Subcommand)]
pub enum TournamentCommand {
    /// Check tournament conditions (TOML) against NSW 15 and list every problem.
    Check { file: String },
    /// Print the conditions as players are given them (NSW 15.4.1).
    Show { file: String },
}

pub fn run(c: TournamentCommand) -> Result<()> {
    let (file, show) = match c {
        TournamentCommand::Check { file } => (file, false),
        TournamentCommand::Show { file } => (file, true),
    };
    let text = std::fs::read_to_string(&file).with_context(|| format!("cannot read {file}"))?;
    let c = Conditions::from_toml(&text).map_err(|p| anyhow::anyhow!("{file}: {p}"))?;
    if show {
        print!("{}", c.published());
        return Ok(());
    }
    let s = &c.spec;
    println!(
        "{file}: valid under {}: {} to {} players, {} rounds, {} places paid",
        c.rulebook.id,
        s.entry.min_players,
        s.entry.max_players,
        s.structure.rounds.len(),
        s.prizes.places.len()
    );
    Ok(())
}
