//! The resort's house rules: they cite only the table's limits; every other
//! choice is an assumption in the profile (see docs/conformance.md).

use super::*;
use baccarat_rules::Cite;

/// The resort's sign: wagers within the table's minimum and maximum.
#[test]
fn resort_limits_on_the_sign() {
    let (mut t, mut log) = started("resort-house", "");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    let rule = t.rb().cite(Cite::Limits);
    refused(&mut t, wager(1, Bet::Player, 500), &rule);
}
