//! `baccarat odds`: the exact odds report of a rulebook.

use std::time::Instant;

use anyhow::{bail, Result};
use baccarat_math::{report, report_main, Report, Shoe};

#[derive(clap::Args)]
pub struct Args {
    /// A built-in rulebook (see `baccarat profiles`) or a profile file.
    #[arg(long, default_value = "nsw-2021")]
    rulebook: String,
    /// Deck count; must be one the rulebook allows. Default: its largest.
    #[arg(long)]
    decks: Option<u32>,
    /// A remaining shoe: 13 counts by rank (A,2,...,10,J,Q,K) or 52 by rank and
    /// suit (AC,AD,AH,AS,2C,...), comma-separated.
    #[arg(long, allow_hyphen_values = true)]
    shoe: Option<String>,
    /// Only the main wagers and pairs, by the fast path (microseconds per shoe).
    #[arg(long)]
    main_only: bool,
    /// The effect of removal: the exact change in every wager's EV from
    /// removing one card of each rank (and each card, for wagers that see suits).
    #[arg(long, conflicts_with = "main_only")]
    eor: bool,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> Result<()> {
    let rb = super::load_rulebook(&a.rulebook)?;
    let decks = a.decks.unwrap_or_else(|| rb.default_decks());
    if !rb.decks.contains(&decks) {
        bail!("--decks: {} allows {:?} decks, not {decks} ({})", rb.id, rb.decks, rb.decks_rule);
    }
    let shoe = match &a.shoe {
        Some(s) => Shoe::parse(s, decks)?,
        None => Shoe::decks(decks)?,
    };
    if a.eor {
        return super::odds_eor::run(&rb, &shoe, decks, a.json);
    }
    let setup = Instant::now();
    // The shoe-independent tables, once per process: apart from the timing.
    if a.main_only {
        baccarat_math::prepare_fast_path();
    } else {
        baccarat_math::prepare();
    }
    let setup_us = setup.elapsed().as_secs_f64() * 1e6;
    let start = Instant::now();
    let r = if a.main_only { report_main(&rb, &shoe, Some(decks)) } else { report(&rb, &shoe, Some(decks)) };
    let micros = start.elapsed().as_secs_f64() * 1e6;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&json(&r, &a.shoe, micros, setup_us))?);
    } else {
        text(&rb.title, &r, a.shoe.is_some(), micros);
    }
    Ok(())
}

fn json(r: &Report, shoe: &Option<String>, micros: f64, setup_us: f64) -> serde_json::Value {
    let bets: Vec<_> = r
        .bets
        .iter()
        .map(|b| {
            let (n, d) = b.house_edge_exact();
            serde_json::json!({
                "bet": b.bet.id(),
                "pay_table": b.pay_table,
                "rule": b.rule,
                "house_edge": b.house_edge(),
                "house_edge_exact": format!("{n}/{d}"),
                "std_dev": b.std_dev(),
                "outcomes": b.outcomes.iter().map(|o| serde_json::json!({
                    "outcome": o.outcome.id(),
                    "probability": b.probability(o),
                    "count": o.count,
                    "pays": o.pays.report(),
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    serde_json::json!({
        "rulebook": r.rulebook,
        "decks": r.decks,
        "cards": r.cards,
        "shoe": shoe,
        "sequences": r.bets.first().map(|b| b.total),
        "bets": bets,
        "skipped": r.skipped.iter().map(|(b, why)| serde_json::json!({"bet": b.id(), "reason": why})).collect::<Vec<_>>(),
        "elapsed_us": micros,
        "setup_us": setup_us,
    })
}

fn text(title: &str, r: &Report, custom: bool, micros: f64) {
    println!("{} — {title}", r.rulebook);
    let decks = r.decks.map(|d| format!("{d} decks, ")).unwrap_or_default();
    let what = if custom { "remaining shoe" } else { "full shoe" };
    let seqs = r.bets.first().map(|b| group(b.total)).unwrap_or_default();
    println!("{decks}{} cards ({what}); exact over {seqs} ordered six-card sequences\n", r.cards);
    println!("{:<22} {:<26} {:>11} {:>9}", "wager", "pay table", "house edge", "std dev");
    for b in &r.bets {
        println!("{:<22} {:<26} {:>10.4}% {:>9.4}", b.bet.id(), b.pay_table, b.house_edge() * 100.0, b.std_dev());
        for o in &b.outcomes {
            println!("    {:<30} {:>9} {:>14.10}", o.outcome.id(), o.pays.report(), b.probability(o));
        }
    }
    for (b, why) in &r.skipped {
        println!("{:<22} not priced: {why}", b.id());
    }
    println!("\ncomputed in {:.2} ms", micros / 1000.0);
}

/// 4998398275503360 -> "4,998,398,275,503,360".
fn group(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    out
}
