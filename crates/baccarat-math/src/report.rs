//! The odds report of a rulebook: every wager it permits, once per pay table.

use baccarat_rules::{Bet, Rulebook};

use crate::bets::{distribution, needs_suits, price, BetOdds};
use crate::exact::summary_table;
use crate::fast::main_odds;
use crate::shoe::Shoe;

/// The exact odds of a rulebook's wagers for one shoe composition.
#[derive(Clone, Debug)]
pub struct Report {
    pub rulebook: String,
    /// The deck count, when the shoe is whole full decks.
    pub decks: Option<u32>,
    pub cards: u32,
    pub bets: Vec<BetOdds>,
    /// Wagers the rulebook has but that are not priced here, and why.
    pub skipped: Vec<(Bet, String)>,
}

/// Price only the main wagers and the pair wagers of `rb`, by the fast path
/// ([`crate::main_odds`]); the same figures as [`report`] for those wagers.
pub fn report_main(rb: &Rulebook, shoe: &Shoe, decks: Option<u32>) -> Report {
    let main = main_odds(&shoe.value_counts(), &shoe.rank_counts());
    let mut rules: Vec<_> = rb.bets.iter().collect();
    rules.sort_by_key(|r| r.bet);
    let mut bets = Vec::new();
    let mut skipped = Vec::new();
    for r in rules {
        let Some(dist) = main.distribution(r.bet) else {
            skipped.push((r.bet, "not a main or pair wager (--main-only)".into()));
            continue;
        };
        if let Some(d) = decks {
            if !r.allows_decks(d) {
                let why = r.decks_rule.clone().unwrap_or_else(|| r.rule.clone());
                skipped.push((
                    r.bet,
                    format!(
                        "offered only with {:?} decks ({why})",
                        r.decks.as_deref().unwrap_or(&[])
                    ),
                ));
                continue;
            }
        }
        for t in &r.pay_tables {
            bets.push(price(&dist, t));
        }
    }
    Report {
        rulebook: rb.id.clone(),
        decks: decks.or(shoe.full_decks()),
        cards: shoe.len(),
        bets,
        skipped,
    }
}

/// Price every wager of `rb` for `shoe`. `decks` is the table's deck count, used
/// to leave out wagers the rulebook does not permit with it (NSW 3.1).
pub fn report(rb: &Rulebook, shoe: &Shoe, decks: Option<u32>) -> Report {
    let table = summary_table(&shoe.value_counts());
    let mut rules: Vec<_> = rb.bets.iter().collect();
    rules.sort_by_key(|r| r.bet);
    let mut bets = Vec::new();
    let mut skipped = Vec::new();
    for r in rules {
        if let Some(d) = decks {
            if !r.allows_decks(d) {
                let why = r.decks_rule.clone().unwrap_or_else(|| r.rule.clone());
                skipped.push((
                    r.bet,
                    format!(
                        "offered only with {:?} decks ({why})",
                        r.decks.as_deref().unwrap_or(&[])
                    ),
                ));
                continue;
            }
        }
        if needs_suits(r.bet) && !shoe.suits_known() {
            skipped.push((
                r.bet,
                "depends on suits; give --shoe as 52 counts by rank and suit".into(),
            ));
            continue;
        }
        let dist = distribution(r.bet, shoe, &table).expect("suits checked above");
        for t in &r.pay_tables {
            bets.push(price(&dist, t));
        }
    }
    Report {
        rulebook: rb.id.clone(),
        decks: decks.or(shoe.full_decks()),
        cards: shoe.len(),
        bets,
        skipped,
    }
}
