//! The game of baccarat without time or randomness, as four real rulebooks
//! define it: cards, the drawing tableau, every wager and pay table, exact
//! settlement in integer minor units, and rulebook profiles as data.
//!
//! ```
//! use baccarat_rules::{profiles, Bet, Card, Coup, Money, settle_wager};
//!
//! let nsw = profiles::builtin("nsw-2021").unwrap();
//! let cards: Vec<Card> = ["6H", "3S", "KD", "3C", "4S"].iter().map(|c| c.parse().unwrap()).collect();
//! let (coup, used) = Coup::from_cards(&cards).unwrap();
//! // Player 6+K = 6 stands (NSW 9.3); Banker 3+3 = 6 stands when the Player stood (NSW 9.5).
//! assert_eq!(used, 4);
//! let banker = nsw.variant("standard").unwrap().banker.clone();
//! let outcome = Bet::Banker.classify(&coup);
//! let rules = baccarat_rules::SettleRules {
//!     chip: Money(100),
//!     fractional: nsw.fractional_payout,
//!     unpayable: nsw.unpayable_stake,
//! };
//! let s = settle_wager(Money(2000), &banker, outcome, &rules);
//! assert_eq!(s.player_net(), Money(0)); // 6-6 is a standoff
//! ```

mod ante;
mod bet;
mod card;
mod cite;
mod coup;
mod errors;
mod money;
mod paytable;
pub mod profiles;
pub mod promotion;
mod remedies;
mod rulebook;
#[cfg(feature = "schemars")]
mod schema_impls;
mod serde_impls;
mod settle;
mod table_config;
mod tableau;
pub mod tournament;

pub use ante::{settle_with_ante, Ante, AnteConfig, AnteRules, AnteSettlement, AnteSpec};
pub use bet::{Basis, Bet, Outcome, OutcomeDef};
pub use card::{deck, Card, Colour, ParseCardError, Rank, Suit};
pub use cite::Cite;
pub use coup::{BySide, Coup, CoupSummary, Hand, InsufficientCards, Side, Winner};
pub use errors::{Problem, Problems};
pub use money::{Money, Odds, ParseOddsError};
pub use paytable::{ParsePaysError, PayTable, Pays};
pub use remedies::{ExcessCard, RemediesConfig, Ruled, WrongHandVoid};
pub use rulebook::{
    BetRules, BurnProcedure, ConductConfig, DealingStyle, Exclusion, InterruptedCoup, LayoutConfig, Permission,
    Rulebook, RulebookConfig, SeatOrder, Variant, CITATION_KEYS, MAX_DECKS,
};
pub use settle::{payable_stake, settle, settle_wager, FractionalPayout, SettleRules, Settlement, UnpayableStake};
pub use table_config::{Approvals, Offer, OfferSpec, TableConfig, TableConfigSpec, MAX_LIMIT};
pub use tableau::{banker_draws, is_natural_total, player_action, PlayerAction};
