//! Exact odds of every baccarat wager for any shoe composition.
//!
//! Every figure is an exact count of ordered six-card sequences (see [`exact`]
//! for the method); floats appear only when a ratio is printed.
//!
//! [`report`] prices any shoe in tens of microseconds from a table built once
//! per process ([`deals`]: the orderings of every multiset of values a coup can
//! deal, by result class) and closed forms in the rank and card counts
//! (`closed.rs`); [`report_by_enumeration`] is the independent enumeration it
//! is tested against. [`effect_of_removal`] gives each wager's exact change in
//! EV from removing one card (`eor.rs`).
//!
//! ```
//! use baccarat_math::{report, Shoe};
//! use baccarat_rules::{profiles, Bet};
//!
//! let nsw = profiles::builtin("nsw-2021").unwrap();
//! let r = report(&nsw, &Shoe::decks(8).unwrap(), Some(8));
//! let banker = r.bets.iter().find(|b| b.bet == Bet::Banker && b.pay_table == "commission").unwrap();
//! assert!((banker.house_edge() - 0.010579).abs() < 1e-6);
//! ```

mod bets;
mod closed;
pub mod count;
pub mod count_file;
pub mod count_report;
pub mod deals;
mod eor;
pub mod exact;
mod fast;
mod report;
pub mod rng_evidence;
mod shoe;
pub mod sim;

pub use bets::{distribution, needs_suits, price, reported_outcome, BetOdds, Distribution, NeedsSuits, OutcomeOdds};
pub use closed::ShoeOdds;
pub use deals::prepare;
pub use eor::{effect_of_removal, rank_symbols, Eor, Ratio};
pub use exact::{falling, summary_table, SummaryTable};
pub use fast::{main_odds, main_odds_reference, pair_count, prepare as prepare_fast_path, MainOdds, CLASSES};
pub use report::{report, report_by_enumeration, report_from, report_main, Report};
pub use shoe::{Shoe, ShoeError, MAX_CARDS, MIN_CARDS};
