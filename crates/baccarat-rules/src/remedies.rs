//! Remedies: where the rulebooks differ on what an irregularity or procedure
//! leads to, each profile chooses, and cites its own rule for the choice.
//!
//! # Design
//!
//! A remedy written for one rulebook and applied to all is a wrong result at
//! a real table: NSW 12.1.1 lets players withdraw after a reconstruction, AU
//! 12.6 makes them "abide by the consequences". So each remedy is a
//! [`Ruled`] value in the profile's `[remedies]` table — the choice and the
//! rule that makes it — and the engine reads the choice and cites the rule.
//! There is never an `if` on a jurisdiction. Where a rulebook is silent the
//! profile still chooses, and its `rule` says "not stated; assumption: …"
//! with the reason (docs/conformance.md lists these assumptions).

use serde::{Deserialize, Serialize};

use crate::{Bet, DealingStyle};

/// A profile's choice and the rule it comes from.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Ruled<T> {
    pub value: T,
    pub rule: String,
}

/// What becomes of a card drawn in excess that was not disclosed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ExcessCard {
    /// The first card of a no-bet coup (NSW 12.3).
    NoBetCoup,
    /// The first card of the next round, with wagers (AU 12.2(a)).
    NextCoup,
}

/// Cards delivered to the wrong place or player (AU 15.9): where a hand may
/// be voided at a player's request, and whether the round is then completed.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct WrongHandVoid {
    /// The dealing styles at which the voiding is allowed (none: the result
    /// stands, NSW 12.15; EU 5.1.7-5.1.8).
    pub styles: Vec<DealingStyle>,
    /// AU 15.9: "the round of play shall be completed even where all hands
    /// have been voided".
    pub complete_round: bool,
}

/// The remedies a profile chooses.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RemediesConfig {
    /// After a misdeal is reconstructed, each player may withdraw their wager
    /// before play resumes (NSW 12.1.1), or must abide by it (AU 12.6; EU 6.1.4).
    pub withdraw_after_reconstruction: Ruled<bool>,
    /// A third card dealt to the Banker's hand when none is authorised, not
    /// disclosed: a no-bet coup's first card (NSW 12.3), or the next round's
    /// (AU 12.2(a)). A disclosed one starts a no-bet coup everywhere.
    pub undisclosed_banker_excess: Ruled<ExcessCard>,
    /// The dealing styles at which a supervisor may let wagers change after
    /// the first card is drawn and before any is exposed (NSW 12.12: not
    /// Method A; AU 15.10: International Baccarat only, AU 5.14 elsewhere).
    pub late_wagers: Ruled<Vec<DealingStyle>>,
    /// Cards delivered to the wrong place (AU 15.9).
    pub wrong_hand_void: Ruled<WrongHandVoid>,
    /// Bets whose sign maximum is one maximum for the whole table, not one per
    /// player (EU 6.1.3: égalité and bonus).
    pub table_wide_maximum: Ruled<Vec<Bet>>,
    /// A player who wants to bet during the no-bet coups at the start of a
    /// shoe may; the remaining no-bet coups are played when the player wants
    /// (EU 3.1.2).
    pub defer_no_bet_coups: Ruled<bool>,
}
