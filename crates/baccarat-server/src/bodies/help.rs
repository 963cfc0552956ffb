//! `GET /api/tables/{id}/help`'s answer (`http/help.rs`): a table's offers
//! with their exact odds, its limits, how it settles what is not a whole
//! number of chips, and its rulebook's rules in the rulebook's own words.

use baccarat_casino::{OfferView, ViewDealing};
use baccarat_core::trust::Mode;
use baccarat_core::TableId;
use baccarat_rules::{FractionalPayout, Money, UnpayableStake};
use schemars::JsonSchema;
use serde::Serialize;

/// A table's help.
#[derive(Serialize, JsonSchema)]
pub struct TableHelp {
    #[schemars(with = "u32")]
    pub table: TableId,
    pub name: String,
    /// The rulebook profile's id, and its title.
    pub rulebook: String,
    pub rulebook_title: String,
    /// The variant's title (its Player and Banker pay tables).
    pub variant: String,
    pub mode: Mode,
    pub dealing: ViewDealing,
    pub decks: u32,
    pub chip: Money,
    pub min: Money,
    pub max: Money,
    pub differential: Option<Money>,
    pub offers: Vec<OfferHelp>,
    pub settlement: SettlementHelp,
    pub rules: Vec<QuotedRule>,
}

/// One offer as the table lists it, with its house edge and each
/// outcome's probability from the exact odds of a full shoe, or why the
/// odds do not price it.
#[derive(Clone, Serialize, JsonSchema)]
pub struct OfferHelp {
    #[serde(flatten)]
    pub offer: OfferView,
    /// A percentage with four decimals; null where not priced.
    pub house_edge: Option<String>,
    /// The same as an exact fraction, `num/den`; null where not priced.
    pub house_edge_exact: Option<String>,
    pub outcomes: Vec<OutcomeHelp>,
    /// Why the exact odds do not price this offer; null where they do.
    pub not_priced: Option<String>,
}

/// One outcome of a priced offer.
#[derive(Clone, Serialize, JsonSchema)]
pub struct OutcomeHelp {
    pub outcome: String,
    pub pays: String,
    /// A percentage with four decimals.
    pub probability: String,
}

/// How a win that is not a whole number of chips is paid, and what becomes
/// of a commission wager that could not be paid exactly, with the rule
/// (NSW 5.8; AU 5.12-5.13; the others silent: the profile says what it
/// assumed), so that the page explains the rounding.
#[derive(Serialize, JsonSchema)]
pub struct SettlementHelp {
    pub fractional: FractionalPayout,
    pub unpayable: UnpayableStake,
    pub rule: String,
}

/// A rule the profile cites and quotes, in the rulebook's words.
#[derive(Serialize, JsonSchema)]
pub struct QuotedRule {
    pub key: String,
    pub cite: String,
    pub quote: String,
}
