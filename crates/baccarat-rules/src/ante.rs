//! Ante Up Baccarat (AU 14), in one place: the rulebook's bound on the ante
//! (AU 1.0 "Ante": at most 12.5% of the table minimum), a table's ante and its
//! waiver (AU 14.3-14.4), and its settlement — a fee held with the initial
//! wager (AU 14.5), collected whatever the result (AU 14.6), and a wager
//! accepted without a required ante void (AU 14.7).

use serde::{Deserialize, Serialize};

use crate::{settle_wager, Money, Outcome, PayTable, SettleRules, Settlement};

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AnteConfig {
    /// The largest ante as a fraction of the table minimum, "n/d" (AU 1.0: 12.5%).
    pub max_fraction_of_minimum: String,
    pub rule: String,
}

/// The ante of Ante Up Baccarat as the rulebook bounds it (AU 1.0 "Ante", 14).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnteRules {
    pub max_num: i64,
    pub max_den: i64,
    pub rule: String,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AnteSpec {
    pub amount: i64,
    /// AU 14.4: the ante is waived when the initial wager is at least this.
    #[serde(default)]
    pub waived_at: Option<i64>,
}

/// The ante of an Ante Up Baccarat table (AU 14).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ante {
    pub amount: Money,
    pub waived_at: Option<Money>,
}

impl Ante {
    /// The ante due with an initial wager of `wager`: the amount, or nothing when
    /// the wager meets the waiver (AU 14.4).
    pub fn due(&self, wager: Money) -> Money {
        match self.waived_at {
            Some(w) if wager >= w => Money::ZERO,
            _ => self.amount,
        }
    }
}

/// An initial wager at an Ante Up Baccarat table, settled with its ante.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AnteSettlement {
    pub wager: Settlement,
    /// The ante kept by the house as a fee (AU 14.6), whatever the result.
    pub ante_collected: Money,
    /// Ante handed back: all of it when the wager is void.
    pub ante_returned: Money,
}

/// AU 14.5-14.7: the ante is a fee, not a wager. It is collected at settlement
/// (14.6) unless waived for a large wager (14.4); a wager accepted without the
/// ante it required is void (14.7), and what ante was paid comes back with it.
pub fn settle_with_ante(
    stake: Money,
    ante_paid: Money,
    ante: &Ante,
    table: &PayTable,
    outcome: Outcome,
    rules: &SettleRules,
) -> AnteSettlement {
    let due = ante.due(stake);
    if ante_paid < due {
        return AnteSettlement {
            wager: Settlement::void(stake),
            ante_collected: Money::ZERO,
            ante_returned: ante_paid,
        };
    }
    AnteSettlement {
        wager: settle_wager(stake, table, outcome, rules),
        ante_collected: due,
        ante_returned: ante_paid - due,
    }
}
