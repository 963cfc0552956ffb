//! `baccarat profiles` and `baccarat profile show|check`.

use anyhow::{Context, Result};
use baccarat_rules::{profiles, Rulebook};
use clap::Subcommand;

#[derive(clap::Args)]
pub struct ListArgs {
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Subcommand)]
pub enum ProfileCommand {
    /// Show a built-in profile: its wagers, pay tables, variants and procedures.
    Show {
        name: String,
        /// Print the profile's TOML as shipped.
        #[arg(long, conflicts_with = "json")]
        toml: bool,
        /// Print the validated profile as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Check a profile file and list every problem with where it is.
    Check { file: String },
}

pub fn list(a: ListArgs) -> Result<()> {
    let all = profiles::all();
    if a.json {
        let v: Vec<_> = all
            .iter()
            .map(|r| serde_json::json!({"id": r.id, "title": r.title, "decks": r.decks, "variants": r.variants.iter().map(|v| &v.id).collect::<Vec<_>>(), "bets": bet_ids(r)}))
            .collect();
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    for r in &all {
        println!("{:<16} {}", r.id, r.title);
        println!(
            "{:<16} decks {:?}; variants: {}",
            "",
            r.decks,
            r.variants.iter().map(|v| v.id.as_str()).collect::<Vec<_>>().join(", ")
        );
        println!("{:<16} wagers: {}", "", bet_ids(r).join(", "));
    }
    Ok(())
}

fn bet_ids(r: &Rulebook) -> Vec<&'static str> {
    let mut b: Vec<_> = r.bets.iter().map(|b| b.bet).collect();
    b.sort();
    b.into_iter().map(|b| b.id()).collect()
}

pub fn run(c: ProfileCommand) -> Result<()> {
    match c {
        ProfileCommand::Show { name, toml, json } => {
            if toml {
                print!("{}", profiles::builtin_text(&name)?);
                return Ok(());
            }
            let r = super::load_rulebook(&name)?;
            if json {
                println!("{}", serde_json::to_string_pretty(&r.config)?);
            } else {
                show(&r);
            }
            Ok(())
        }
        ProfileCommand::Check { file } => {
            let text = std::fs::read_to_string(&file).with_context(|| format!("cannot read {file}"))?;
            let r = Rulebook::from_toml(&text).map_err(|p| anyhow::anyhow!("{file}: {p}"))?;
            println!("{file}: profile {} is valid ({} wagers, {} variants)", r.id, r.bets.len(), r.variants.len());
            Ok(())
        }
    }
}

fn show(r: &Rulebook) {
    println!("{} — {}", r.id, r.title);
    println!("source: shared/rulebooks/{}", r.source);
    println!("decks: {:?} ({})", r.decks, r.decks_rule);
    println!(
        "settlement: fractional payouts {:?}, unpayable stakes {:?} ({})",
        r.fractional_payout, r.unpayable_stake, r.settlement_rule
    );
    println!(
        "table differential: {} ({})",
        if r.table_differential { "may be set" } else { "not provided" },
        r.limits_rule
    );
    if let Some(a) = &r.ante {
        println!("ante: at most {}/{} of the table minimum ({})", a.max_num, a.max_den, a.rule);
    }
    let p = &r.procedures;
    println!("burn: {:?} ({})", p.burn, p.burn_rule);
    println!(
        "cut: at least {} cards from either end; cutting card at least {} from the back ({})",
        p.cut_min_from_either_end, p.cutting_card_min_from_back, p.cut_rule
    );
    println!("dealing: {:?} ({})", p.dealing, p.dealing_rule);
    for l in &r.layouts {
        println!(
            "layout {}: {} boxes, up to {} per box{} ({})",
            l.name,
            l.boxes,
            l.players_per_box,
            if l.standing_players { ", standing players" } else { "" },
            l.rule
        );
    }
    println!("\nvariants:");
    for v in &r.variants {
        println!("  {:<26} player {:<12} banker {:<26} {} ({})", v.id, v.player.name, v.banker.name, v.title, v.rule);
    }
    println!("\nwagers:");
    let mut bets: Vec<_> = r.bets.iter().collect();
    bets.sort_by_key(|b| b.bet);
    for b in bets {
        let decks = b
            .decks
            .as_ref()
            .map(|d| format!(" — decks {d:?} ({})", b.decks_rule.as_deref().unwrap_or("")))
            .unwrap_or_default();
        println!("  {} ({}){decks}", b.bet, b.rule);
        for t in &b.pay_tables {
            let lines: Vec<String> = t.lines.iter().map(|(o, p)| format!("{o} {p}")).collect();
            println!("    {:<28} {}  [{}]", t.name, lines.join(", "), t.rule);
        }
    }
    if !r.exclusions.is_empty() {
        println!("\nexclusions:");
        for e in &r.exclusions {
            let ids = |v: &[baccarat_rules::Bet]| v.iter().map(|b| b.id()).collect::<Vec<_>>().join(", ");
            println!("  {}: {} exclude {}", e.rule, ids(&e.offered), ids(&e.excludes));
        }
    }
}
