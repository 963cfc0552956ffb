//! Exact settlement of one wager in integer minor units.
//!
//! A payout that is not a whole number of the table's smallest chip is handled by a
//! named rule from the profile, never by silent truncation:
//!
//! * [`FractionalPayout::UpToChip`] — NSW 5.8: "paid to the next highest amount to
//!   which payment can be made in chips".
//! * [`UnpayableStake::VoidExcess`] — AU 5.12/5.13: a Banker wager that could not be
//!   paid exactly at 1 to 1 less commission is not accepted; if accepted anyway,
//!   only the part that could be paid exactly is valid and the rest is void
//!   (returned). [`payable_stake`] gives that part, so the table can also refuse
//!   the wager up front.
//!
//! Commission is booked apart from winnings (AU 5.10(b) "collected … at the time
//! the Winnings are paid"): `won` is the gross amount paid at the odds before
//! commission and `commission` the amount taken back, so `won - commission` is the
//! net the player receives.

use crate::bet::Outcome;
use crate::money::Money;
use crate::paytable::{PayTable, Pays};

/// What to do when a payout is not a whole number of chips.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum FractionalPayout {
    /// NSW 5.8: pay up to the next amount payable in chips.
    UpToChip,
    /// Pay down to the amount payable in chips (house practice where a rulebook
    /// allows it; no rulebook here requires it).
    DownToChip,
}

/// What to do with a commission wager whose net win is not a whole number of chips.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum UnpayableStake {
    /// Accept it and round the payout by [`FractionalPayout`].
    Accept,
    /// AU 5.12/5.13: only the exactly payable part is valid; the rest is void.
    VoidExcess,
}

/// The money rules of a table: smallest chip and the two rounding rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SettleRules {
    /// The smallest chip in minor units (at least 1).
    pub chip: Money,
    pub fractional: FractionalPayout,
    pub unpayable: UnpayableStake,
}

/// The money movements of one settled wager.
///
/// Invariants (checked by property tests): `returned + lost == stake`; all fields
/// are non-negative; `commission <= won`. The player's balance moves by
/// `returned + won - commission - stake`, the house's by the opposite.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Settlement {
    pub stake: Money,
    /// Stake handed back: on a win, a push, or the void part (AU 5.13).
    pub returned: Money,
    /// Stake collected by the house on a loss.
    pub lost: Money,
    /// Gross winnings paid by the house, before commission.
    pub won: Money,
    /// Commission taken from the winnings (AU 5.10(b)).
    pub commission: Money,
    /// Part of the stake that was void and returned (AU 5.13); included in `returned`.
    pub void: Money,
}

impl Settlement {
    /// The player's balance change.
    pub fn player_net(&self) -> Money {
        self.returned + self.won - self.commission - self.stake
    }

    /// A wager returned whole: void coup (NSW 12.11.2), invalid bet (NSW 12.17),
    /// missing ante (AU 14.7).
    pub fn void(stake: Money) -> Settlement {
        Settlement { stake, returned: stake, lost: Money::ZERO, won: Money::ZERO, commission: Money::ZERO, void: stake }
    }
}

/// The part of `stake` that is valid under AU 5.13 for a line that pays `pays`:
/// the largest amount not above `stake` whose net win is a whole number of chips.
/// Lines without commission, and tables that accept unpayable stakes, keep the
/// whole stake.
pub fn payable_stake(stake: Money, pays: Pays, rules: &SettleRules) -> Money {
    match (pays, rules.unpayable) {
        (Pays::LessCommission { .. }, UnpayableStake::VoidExcess) => {
            let odds = pays.net_odds().expect("commission line wins");
            // Smallest step s with s * win / stake_units a multiple of the chip.
            let modulus = odds.stake as i128 * rules.chip.0.max(1) as i128;
            let step = modulus / gcd_i(odds.win as i128, modulus);
            Money(((stake.0 as i128 / step) * step) as i64)
        }
        _ => stake,
    }
}

fn gcd_i(a: i128, b: i128) -> i128 {
    if b == 0 {
        a.abs().max(1)
    } else {
        gcd_i(b, a % b)
    }
}

/// Round `num / den` (exact winnings) to the chip by the table's rule.
fn to_chip(num: i128, den: i128, chip: i64, rule: FractionalPayout) -> i64 {
    let unit = den * chip.max(1) as i128;
    let chips = match rule {
        FractionalPayout::UpToChip => (num + unit - 1) / unit,
        FractionalPayout::DownToChip => num / unit,
    };
    (chips * chip.max(1) as i128) as i64
}

/// Settle a wager of `stake` whose pay table is `table` and whose outcome is
/// `outcome`. Applies AU 5.13 first: only the part of the stake that the table's
/// winning lines could pay exactly is valid, the rest is void and returned,
/// whatever the outcome.
pub fn settle_wager(stake: Money, table: &PayTable, outcome: Outcome, rules: &SettleRules) -> Settlement {
    let valid = table.lines.iter().map(|(_, p)| payable_stake(stake, *p, rules)).min().unwrap_or(stake);
    let mut s = settle(valid, table.pays(outcome), rules);
    let void = stake - valid;
    s.stake = stake;
    s.returned = s.returned + void;
    s.void = void;
    s
}

/// Settle `stake`, all of it valid, on a line that pays `pays`.
pub fn settle(stake: Money, pays: Pays, rules: &SettleRules) -> Settlement {
    assert!(stake.0 >= 0, "stakes are never negative");
    let mut s = Settlement {
        stake,
        returned: Money::ZERO,
        lost: Money::ZERO,
        won: Money::ZERO,
        commission: Money::ZERO,
        void: Money::ZERO,
    };
    match pays {
        Pays::Lose => s.lost = stake,
        Pays::Push => s.returned = stake,
        Pays::Odds(odds) => {
            let (n, d) = odds.exact_win(stake.0);
            s.returned = stake;
            s.won = Money(to_chip(n, d, rules.chip.0, rules.fractional));
        }
        Pays::LessCommission { odds, .. } => {
            let gross = odds.exact_win(stake.0);
            let net = pays.net_odds().expect("commission line wins").exact_win(stake.0);
            let gross = to_chip(gross.0, gross.1, rules.chip.0, rules.fractional);
            let net = to_chip(net.0, net.1, rules.chip.0, rules.fractional);
            s.returned = stake;
            s.won = Money(gross);
            s.commission = Money(gross - net);
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(chip: i64, fractional: FractionalPayout, unpayable: UnpayableStake) -> SettleRules {
        SettleRules { chip: Money(chip), fractional, unpayable }
    }

    #[test]
    fn nsw_5_8_pays_up_to_the_next_chip() {
        let r = rules(100, FractionalPayout::UpToChip, UnpayableStake::Accept);
        // $10 on Banker at 19:20 is $9.50 exactly; with $1 chips NSW 5.8 pays $10.
        let s = settle(Money(1000), "19:20".parse().unwrap(), &r);
        assert_eq!((s.returned, s.won, s.commission), (Money(1000), Money(1000), Money(0)));
        // $20 pays exactly $19.
        let s = settle(Money(2000), "19:20".parse().unwrap(), &r);
        assert_eq!(s.won, Money(1900));
        // Even Money Baccarat, Banker wins on 6 at 1:2: $15 pays $7.50 -> $8.
        let s = settle(Money(1500), "1:2".parse().unwrap(), &r);
        assert_eq!(s.won, Money(800));
        // With 50c chips it is exact.
        let r50 = rules(50, FractionalPayout::UpToChip, UnpayableStake::Accept);
        assert_eq!(settle(Money(1500), "1:2".parse().unwrap(), &r50).won, Money(750));
    }

    #[test]
    fn au_5_13_voids_the_unpayable_part_of_a_banker_wager() {
        let r = rules(100, FractionalPayout::UpToChip, UnpayableStake::VoidExcess);
        let line: Pays = "1:1 less 5%".parse().unwrap();
        // With $1 chips only multiples of $20 can be paid exactly (a $20 win less $1).
        assert_eq!(payable_stake(Money(2500), line, &r), Money(2000));
        let table = PayTable {
            bet: crate::bet::Bet::Banker,
            name: "commission".into(),
            rule: "AU 5.10(b)".into(),
            lines: vec![(Outcome::Win, line), (Outcome::Tie, Pays::Push)],
        };
        let s = settle_wager(Money(2500), &table, Outcome::Win, &r);
        assert_eq!(s.void, Money(500));
        assert_eq!(s.returned, Money(2500));
        assert_eq!((s.won, s.commission), (Money(2000), Money(100)));
        assert_eq!(s.player_net(), Money(1900));
        // A loss takes only the valid part; the void $5 comes back.
        let s = settle_wager(Money(2500), &table, Outcome::Lose, &r);
        assert_eq!((s.lost, s.returned, s.void), (Money(2000), Money(500), Money(500)));
        assert_eq!(s.player_net(), Money(-2000));
        // Where unpayable stakes are accepted, the whole stake plays.
        let accept = rules(100, FractionalPayout::UpToChip, UnpayableStake::Accept);
        let s = settle_wager(Money(2500), &table, Outcome::Win, &accept);
        assert_eq!((s.void, s.won, s.commission), (Money(0), Money(2500), Money(100)));
    }

    #[test]
    fn push_and_void_return_the_stake() {
        let r = rules(100, FractionalPayout::UpToChip, UnpayableStake::Accept);
        let s = settle(Money(700), Pays::Push, &r);
        assert_eq!(s.player_net(), Money(0));
        assert_eq!(Settlement::void(Money(700)).player_net(), Money(0));
    }
}
