//! `baccarat shoe --seed HEX --decks N [--cut-at A --cutting-card B]
//! [--commitment HEX]`: a published shoe dealt again from its seed, so that
//! a player can check it without trusting the server (the table page's
//! provably-fair page gives this command for each finished shoe).
//!
//! The seed's SHA-256 must equal the commitment published before the shoe
//! started; the cards are the seed's shuffle (`fisher-yates-chacha20-v1`,
//! `baccarat_table::shuffle`) of `decks` fresh decks, cut as recorded: the
//! first `at` cards moved to the back, the cutting card `from_back` cards
//! from the end. They are listed in the order they leave the shoe (the first
//! ones are burned, as the table's record says).

use anyhow::{bail, Result};
use baccarat_table::shuffled;
use baccarat_table::{Seed, SHUFFLE_ALGORITHM};
use clap::Args as ClapArgs;

#[derive(ClapArgs)]
pub struct Args {
    /// The shoe's seed, as published when the shoe ended (64 hex digits).
    #[arg(long)]
    seed: String,
    /// Decks in the shoe (the table's configuration).
    #[arg(long)]
    decks: u32,
    /// The cut as recorded: cards moved from the front to the back.
    #[arg(long, requires = "cutting_card")]
    cut_at: Option<usize>,
    /// The cut as recorded: cards behind the cutting card.
    #[arg(long, requires = "cut_at")]
    cutting_card: Option<usize>,
    /// The commitment published before the shoe started: the seed's SHA-256
    /// must equal it (the command fails, naming both, if not).
    #[arg(long)]
    commitment: Option<String>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> Result<()> {
    let Some(seed) = Seed::from_hex(a.seed.trim()) else {
        bail!("--seed: 64 hex digits (the seed published when the shoe ended), not {:?}", a.seed);
    };
    if !(1..=16).contains(&a.decks) {
        bail!("--decks: 1 to 16, not {}", a.decks);
    }
    let mut cards = shuffled(a.decks, &seed).0;
    let len = cards.len();
    let cutting_card = match (a.cut_at, a.cutting_card) {
        (Some(at), Some(from_back)) => {
            if at >= len || from_back == 0 || from_back >= len {
                bail!("--cut-at and --cutting-card: each within the shoe's {len} cards (cut at {at}, {from_back} behind the cutting card)");
            }
            cards.rotate_left(at);
            Some(len - from_back)
        }
        _ => None,
    };
    let commitment = seed.commitment_hex();
    let matches = a.commitment.as_deref().map(|c| c.trim().eq_ignore_ascii_case(&commitment));
    use std::fmt::Write as _;
    let mut out = String::new();
    if a.json {
        let doc = serde_json::json!({
            "algorithm": SHUFFLE_ALGORITHM,
            "commitment": commitment,
            "matches_published": matches,
            "decks": a.decks,
            "cutting_card_before": cutting_card,
            "cards": cards.iter().map(|c| c.to_string()).collect::<Vec<_>>(),
        });
        let _ = writeln!(out, "{doc}");
    } else {
        let _ = writeln!(out, "shuffle {SHUFFLE_ALGORITHM}; the seed's SHA-256 is {commitment}");
        match matches {
            Some(true) => out.push_str("it equals the commitment published before the shoe started\n"),
            Some(false) => {}
            None => out.push_str("(compare it with the commitment published before the shoe started: --commitment)\n"),
        }
        let _ = writeln!(out, "{len} cards in the order they leave the shoe:");
        for (i, c) in cards.iter().enumerate() {
            if Some(i) == cutting_card {
                out.push_str("  -- cutting card --\n");
            }
            let _ = writeln!(out, "  {:>3}. {c}", i + 1);
        }
    }
    // A reader that stops early (`| head`) is not an error.
    if let Err(e) = std::io::Write::write_all(&mut std::io::stdout().lock(), out.as_bytes()) {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            return Err(e.into());
        }
    }
    if matches == Some(false) {
        bail!(
            "the seed's SHA-256 {commitment} is not the published commitment {}: this is not the shoe that was promised",
            a.commitment.unwrap_or_default()
        );
    }
    Ok(())
}
