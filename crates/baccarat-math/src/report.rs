//! The odds report of a rulebook: every wager it permits, once per pay table.

use baccarat_rules::{Basis, Bet, BetRules, Rulebook};

use crate::bets::{distribution, needs_suits, price, BetOdds, Distribution};
use crate::closed::ShoeOdds;
use crate::exact::summary_table;
use crate::fast::main_odds;
use crate::shoe::Shoe;

/// The exact odds of a rulebook's wagers for one shoe composition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    pub rulebook: String,
    /// The deck count, when the shoe is whole full decks.
    pub decks: Option<u32>,
    pub cards: u32,
    pub bets: Vec<BetOdds>,
    /// Wagers the rulebook has but that are not priced here, and why.
    pub skipped: Vec<(Bet, String)>,
}

/// Price every wager of `rb` for `shoe`. `decks` is the table's deck count, used
/// to leave out wagers the rulebook does not permit with it (NSW 3.1).
///
/// By the class counts of `deals.rs` and the closed forms of `closed.rs`: tens of
/// microseconds for any shoe. The same figures as [`report_by_enumeration`]
/// (a test compares them for a thousand random shoes and every rulebook).
pub fn report(rb: &Rulebook, shoe: &Shoe, decks: Option<u32>) -> Report {
    report_from(&ShoeOdds::counted(shoe, needs_triples(rb)), rb, shoe, decks)
}

/// Whether `rb` has a wager on a hand's cards (Lucky Match, AU 11D), the only
/// user of the triple features.
pub fn needs_triples(rb: &Rulebook) -> bool {
    rb.bets.iter().any(|r| matches!(r.bet.basis(), Basis::HandCards(_)))
}

/// [`report`] from class counts already made for `shoe`: several rulebooks, or
/// a rulebook's wagers one by one, for one count of the classes.
pub fn report_from(odds: &ShoeOdds, rb: &Rulebook, shoe: &Shoe, decks: Option<u32>) -> Report {
    build(rb, shoe, decks, |bet| odds.distribution(bet).map_err(|_| SUITS.into()))
}

/// Why a suit-dependent wager is not priced for a shoe given by rank only.
const SUITS: &str = "depends on suits; give --shoe as 52 counts by rank and suit";

/// [`report`] by enumerating the shoe (`exact.rs`, `bets.rs`): hundreds of
/// microseconds per side bet; the independent reference.
pub fn report_by_enumeration(rb: &Rulebook, shoe: &Shoe, decks: Option<u32>) -> Report {
    let table = summary_table(&shoe.value_counts());
    build(rb, shoe, decks, |bet| {
        if needs_suits(bet) && !shoe.suits_known() {
            return Err(SUITS.into());
        }
        Ok(distribution(bet, shoe, &table).expect("suits checked above"))
    })
}

/// Price only the main wagers and the pair wagers of `rb`, by the fast path
/// ([`crate::main_odds`]); the same figures as [`report`] for those wagers.
pub fn report_main(rb: &Rulebook, shoe: &Shoe, decks: Option<u32>) -> Report {
    let main = main_odds(&shoe.value_counts(), &shoe.rank_counts());
    build(rb, shoe, decks, |bet| main.distribution(bet).ok_or_else(|| "not a main or pair wager (--main-only)".into()))
}

/// Price each wager of `rb` (in wager order, each pay table in profile order)
/// with the distribution `dist` gives, or record why it is not priced.
fn build(
    rb: &Rulebook,
    shoe: &Shoe,
    decks: Option<u32>,
    mut dist: impl FnMut(Bet) -> Result<Distribution, String>,
) -> Report {
    let mut rules: Vec<&BetRules> = rb.bets.iter().collect();
    rules.sort_by_key(|r| r.bet);
    let mut bets = Vec::new();
    let mut skipped = Vec::new();
    for r in rules {
        if let Some(d) = decks.filter(|&d| !r.allows_decks(d)) {
            let why = r.decks_rule.as_deref().unwrap_or(&r.rule);
            let allowed = r.decks.as_deref().unwrap_or(&[]);
            skipped.push((r.bet, format!("offered only with {allowed:?} decks, not {d} ({why})")));
            continue;
        }
        match dist(r.bet) {
            Ok(d) => bets.extend(r.pay_tables.iter().map(|t| price(&d, t))),
            Err(why) => skipped.push((r.bet, why)),
        }
    }
    Report { rulebook: rb.id.clone(), decks: decks.or(shoe.full_decks()), cards: shoe.len(), bets, skipped }
}
