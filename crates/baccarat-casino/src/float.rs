//! The house float covers the worst case of the coup (DESIGN 13: no settlement
//! can fail).
//!
//! # Design
//!
//! A wager is accepted only if everything it could win can be paid. Of the two
//! designs the issue allowed — a float that covers the coup's worst case, or a
//! house account allowed to go negative to a configured limit — this is the
//! first: the ledger's rule that only the cage may go negative stays whole, and
//! the check is made when the wager arrives, never discovered at settlement.
//!
//! The worst case is bounded simply and safely: each open wager's largest win
//! under its own pay table (`won`, before any lost stake of another wager comes
//! in), summed over the coup. Opposite wagers do not offset each other in the
//! bound, because settlement pays wager by wager and a bound that relied on the
//! order would be a bound on the order, not on the money. None of the four
//! rulebooks speaks of a table's float; they fix what a wager pays, and this
//! fixes that it can be paid.

use baccarat_rules::{settle_wager, settle_with_ante, Bet, Money, TableConfig};

/// The most a wager of `amount` on `bet` can win at this table (its pay table's
/// best line after the table's rounding; with an Ante Up table's ante, AU 14,
/// the same or less). `None` if the table does not offer the bet.
pub fn max_win(cfg: &TableConfig, bet: Bet, amount: Money, ante: Money) -> Option<Money> {
    let offer = cfg.offer(bet)?;
    let best = offer
        .pay_table
        .lines
        .iter()
        .map(|(outcome, _)| {
            let plain = settle_wager(amount, &offer.pay_table, *outcome, &cfg.settle).won;
            match (&cfg.ante, bet.is_main()) {
                (Some(a), true) => {
                    plain.max(settle_with_ante(amount, ante, a, &offer.pay_table, *outcome, &cfg.settle).wager.won)
                }
                _ => plain,
            }
        })
        .max()
        .unwrap_or(Money::ZERO);
    Some(best)
}

#[cfg(test)]
mod tests {
    use super::*;
    use baccarat_rules::profiles;

    fn cfg(rb: &str, toml: &str) -> TableConfig {
        TableConfig::from_toml(&profiles::builtin(rb).unwrap(), toml).unwrap()
    }

    #[test]
    fn the_largest_line_of_each_pay_table() {
        let c = cfg("nsw-2021", "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 500000\n[bets.player_pair]\n");
        // Player 1:1; Banker 19:20 rounded up to the chip (NSW 5.8); Tie 8:1; pairs 11:1.
        assert_eq!(max_win(&c, Bet::Player, Money(10_000), Money::ZERO), Some(Money(10_000)));
        assert_eq!(max_win(&c, Bet::Tie, Money(10_000), Money::ZERO), Some(Money(80_000)));
        assert_eq!(max_win(&c, Bet::PlayerPair, Money(10_000), Money::ZERO), Some(Money(110_000)));
        let banker = max_win(&c, Bet::Banker, Money(10_000), Money::ZERO).unwrap();
        assert!(banker >= Money(9_500) && banker <= Money(10_000), "{banker}");
        assert_eq!(max_win(&c, Bet::SuperSix, Money(10_000), Money::ZERO), None, "not offered");
    }
}
