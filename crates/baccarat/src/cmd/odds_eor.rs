//! `baccarat odds --eor`: the exact effect of removing one card of each rank
//! (and each card, for the wagers that see suits) on every wager's EV.

use anyhow::{anyhow, Result};
use baccarat_math::{effect_of_removal, rank_symbols, Eor, Ratio, Shoe};
use baccarat_rules::{Card, Rulebook, Suit};

/// Print the effects of removal of every wager `rb` prices for `shoe`.
pub fn run(rb: &Rulebook, shoe: &Shoe, decks: u32, json: bool) -> Result<()> {
    let (report, eors) = effect_of_removal(rb, shoe, Some(decks)).map_err(|e| anyhow!(e))?;
    if json {
        let skipped: Vec<_> =
            report.skipped.iter().map(|(b, why)| serde_json::json!({"bet": b.id(), "reason": why})).collect();
        let v = serde_json::json!({
            "rulebook": report.rulebook,
            "decks": report.decks,
            "cards": report.cards,
            "eor": eors.iter().map(eor_json).collect::<Vec<_>>(),
            "skipped": skipped,
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    println!("{} — {}: effect of removing one card on the EV per unit staked", report.rulebook, rb.title);
    println!("{} cards; changes in percentage points, exact fractions with --json\n", report.cards);
    let ranks = rank_symbols();
    println!("{:<22} {:<26} {:>9}  {}", "wager", "pay table", "EV %", ranks.map(|r| format!("{r:>8}")).join(""));
    for e in &eors {
        let cells: String =
            e.by_rank.iter().map(|x| x.map_or("       -".into(), |x| format!("{:>8.4}", pct(x)))).collect();
        println!("{:<22} {:<26} {:>9.4}  {cells}", e.bet.id(), e.pay_table, pct(e.ev));
        if let Some(cards) = &e.by_card {
            for suit in 0..4 {
                let cells: String = (0..13)
                    .map(|r| cards[r * 4 + suit].map_or("       -".into(), |x| format!("{:>8.4}", pct(x))))
                    .collect();
                let s = Suit::ALL[suit].symbol();
                println!("{:<22} {:<26} {:>9}  {cells}", "", format!("  suit {s}"), "");
            }
        }
    }
    for (b, why) in &report.skipped {
        println!("{:<22} not priced: {why}", b.id());
    }
    Ok(())
}

fn pct(x: Ratio) -> f64 {
    x.to_f64() * 100.0
}

fn ratio_json(x: Ratio) -> serde_json::Value {
    serde_json::json!({"value": x.to_f64(), "exact": format!("{}/{}", x.num, x.den)})
}

fn eor_json(e: &Eor) -> serde_json::Value {
    let ranks = rank_symbols();
    let by_rank: Vec<_> = e
        .by_rank
        .iter()
        .zip(ranks)
        .filter_map(|(x, r)| x.map(|x| serde_json::json!({"rank": r, "eor": ratio_json(x)})))
        .collect();
    let by_card = e.by_card.map(|cards| {
        (0..52)
            .filter_map(|c| {
                let card = Card::from_index(c)?;
                cards[c].map(|x| serde_json::json!({"card": card.to_string(), "eor": ratio_json(x)}))
            })
            .collect::<Vec<_>>()
    });
    serde_json::json!({
        "bet": e.bet.id(),
        "pay_table": e.pay_table,
        "ev": ratio_json(e.ev),
        "by_rank": by_rank,
        "by_card": by_card,
    })
}
