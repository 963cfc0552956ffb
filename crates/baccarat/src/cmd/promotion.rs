//! `baccarat promotion check|seed|draw`: promotional prizes (NSW 16) and their
//! provably fair draw (`baccarat_table::draw`).

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use baccarat_rules::promotion::Terms;
use baccarat_table::draw::{draw, listing, PROCEDURE};
use baccarat_table::PlayerId;
use baccarat_table::{hex, Seed};
use clap::Subcommand;

#[derive(Subcommand)]
pub enum PromotionCommand {
    /// Check a promotion's terms (TOML) against NSW 16 and list every problem.
    Check { file: String },
    /// The entries the terms give for what was wagered, read from a database's
    /// audit chains (archives included): `player:entries` lines on stdout,
    /// ready to publish; their count and SHA-256 on stderr.
    Entries {
        #[arg(long, env = "BACCARAT_DB", default_value = "baccarat.db")]
        db: PathBuf,
        #[arg(long)]
        terms: String,
    },
    /// Make a draw's secret seed from the OS and print its commitment, to be
    /// published before entries close (keep the seed secret until the draw).
    Seed,
    /// Draw the winners: the entries list (`player:entries` lines), the
    /// revealed seed, and the commitment published before the close.
    Draw {
        #[arg(long)]
        terms: String,
        #[arg(long)]
        entries: PathBuf,
        /// The seed, 64 hex digits.
        #[arg(long)]
        seed: String,
        /// The commitment published before entries closed, 64 hex digits.
        #[arg(long)]
        commitment: String,
        #[arg(long)]
        json: bool,
    },
}

fn read_terms(file: &str) -> Result<Terms> {
    let text = std::fs::read_to_string(file).with_context(|| format!("cannot read {file}"))?;
    Terms::from_toml(&text).map_err(|p| anyhow::anyhow!("{file}: {p}"))
}

/// `player:entries` lines; every bad line is named.
fn read_entries(path: &PathBuf) -> Result<Vec<(PlayerId, u64)>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let parsed =
            line.trim().split_once(':').and_then(|(p, n)| Some((p.parse::<u32>().ok()?, n.parse::<u64>().ok()?)));
        match parsed {
            Some((p, n)) => out.push((PlayerId(p), n)),
            None => bail!("--entries: line {}: {line:?} is not player:entries", i + 1),
        }
    }
    Ok(out)
}

/// Run a `promotion` subcommand.
pub fn run(c: PromotionCommand) -> Result<()> {
    match c {
        PromotionCommand::Check { file } => {
            let t = read_terms(&file)?;
            println!(
                "{file}: valid: {} prizes drawn, entries close {} and the draw is {} at {}",
                t.draws().len(),
                t.spec.closes,
                t.spec.draw_at,
                t.spec.draw_place
            );
            Ok(())
        }
        PromotionCommand::Entries { db, terms } => {
            if !db.exists() {
                bail!("--db: {} does not exist", db.display());
            }
            let t = read_terms(&terms)?;
            let list = baccarat_cluster::promotion_entries::entries(&db, &t).map_err(anyhow::Error::msg)?;
            let (text, digest) = listing(&list);
            print!("{text}");
            eprintln!(
                "{} players, {} entries; entries list SHA-256 {}",
                list.len(),
                list.iter().map(|(_, n)| n).sum::<u64>(),
                hex(&digest)
            );
            Ok(())
        }
        PromotionCommand::Seed => {
            let seed = baccarat_core::os_seed().map_err(anyhow::Error::msg)?;
            println!("commitment {}   (publish this before entries close)", seed.commitment_hex());
            println!("seed       {}   (keep this secret until the draw)", seed.hex());
            Ok(())
        }
        PromotionCommand::Draw { terms, entries, seed, commitment, json } => {
            run_draw(&terms, &entries, &seed, &commitment, json)
        }
    }
}

/// `promotion draw`: the winners from the entries and the revealed seed,
/// once the seed is shown to be the one committed to before entries closed.
fn run_draw(terms: &str, entries: &PathBuf, seed: &str, commitment: &str, json: bool) -> Result<()> {
    let t = read_terms(terms)?;
    let seed = Seed::from_hex(seed).context("--seed: not 64 hex digits")?;
    if seed.commitment_hex() != commitment.to_ascii_lowercase() {
        bail!(
            "--seed: its SHA-256 is {}, not the published commitment {commitment}: this is not the committed seed",
            seed.commitment_hex()
        );
    }
    let list = read_entries(entries)?;
    let (_, digest) = listing(&list);
    let prizes = t.draws();
    let winners = draw(&list, &seed, prizes.len(), t.spec.one_prize_per_player);
    if json {
        let out = serde_json::json!({
            "procedure": PROCEDURE,
            "commitment": seed.commitment_hex(),
            "entries_sha256": hex(&digest),
            "winners": prizes.iter().zip(&winners).map(|(p, w)| serde_json::json!({"prize": p.description, "player": w.0})).collect::<Vec<_>>(),
            "undrawn": prizes.len() - winners.len(),
        });
        println!("{out}");
        return Ok(());
    }
    println!("{}: {PROCEDURE}", t.spec.name);
    println!("  seed commitment {} (matches)", seed.commitment_hex());
    println!("  entries list SHA-256 {}", hex(&digest));
    for (i, p) in prizes.iter().enumerate() {
        match winners.get(i) {
            Some(w) => println!("  {}. {}: player {}", i + 1, p.description, w.0),
            None => println!("  {}. {}: not drawn (no entries left)", i + 1, p.description),
        }
    }
    Ok(())
}
