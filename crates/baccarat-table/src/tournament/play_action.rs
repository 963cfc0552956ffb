//! A tournament player's action for a coup, as the casino records it in its
//! chain (NSW 15.6-15.8): the vocabulary shared by the table's tournament
//! session and the server's audit records.

use baccarat_rules::{Bet, Money};
use serde::{Deserialize, Serialize};

/// A player's (or the Tournament Manager's) action for the coup, as recorded.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PlayAction {
    /// A wager in tournament chips (NSW 15.6.4, 15.6.14).
    Wager { bet: Bet, amount: Money },
    /// A pass card in lieu of a wager (NSW 15.7).
    Pass,
    /// An undisclosed wager: the SHA-256 of its form and secret, in hex
    /// (NSW 15.8.2.1), with any wager in chips beside it (15.8.2.4).
    Undisclosed {
        commitment: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        with: Option<Stake>,
    },
    /// The Tournament Manager: the minimum on `bet` for a player who did not
    /// wager in time (NSW 15.6.12).
    Late { bet: Bet },
    /// The Tournament Manager: the player is absent; the minimum is deducted
    /// (NSW 15.5.6.1).
    Absent,
}

/// A bet and an amount.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Stake {
    pub bet: Bet,
    pub amount: Money,
}

impl PlayAction {
    /// Only the Tournament Manager records a player late or absent.
    pub fn by_manager(&self) -> bool {
        matches!(self, PlayAction::Late { .. } | PlayAction::Absent)
    }
}
