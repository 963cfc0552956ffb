//! Money in integer minor units, and exact odds.
//!
//! No floats anywhere on this path (DESIGN principle 4).

use std::fmt;
use std::str::FromStr;

/// An amount of money in minor units (cents). Signed so that a balance change can
/// be written as one value; amounts at rest are never negative.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(transparent)]
pub struct Money(pub i64);

impl Money {
    pub const ZERO: Money = Money(0);

    pub fn minor(self) -> i64 {
        self.0
    }

    pub fn checked_add(self, o: Money) -> Option<Money> {
        self.0.checked_add(o.0).map(Money)
    }

    pub fn checked_sub(self, o: Money) -> Option<Money> {
        self.0.checked_sub(o.0).map(Money)
    }
}

impl std::ops::Add for Money {
    type Output = Money;
    fn add(self, o: Money) -> Money {
        Money(self.0 + o.0)
    }
}

impl std::ops::Sub for Money {
    type Output = Money;
    fn sub(self, o: Money) -> Money {
        Money(self.0 - o.0)
    }
}

impl fmt::Display for Money {
    /// Shown as major.minor with two decimals, e.g. `12.50`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let a = self.0.unsigned_abs();
        write!(f, "{sign}{}.{:02}", a / 100, a % 100)
    }
}

/// Net odds `a:b` as a rulebook writes them: a winning wager of `b` is paid `a`
/// (NSW 11.1.3 "19 to 20"; AU 5.11 "1 to 2 (e.g. $100 pays $50)").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Odds {
    pub win: u32,
    pub stake: u32,
}

impl Odds {
    pub const fn new(win: u32, stake: u32) -> Odds {
        Odds { win, stake }
    }

    /// The exact winnings on `stake` as a fraction `(numerator, denominator)`.
    pub fn exact_win(self, stake: i64) -> (i128, i128) {
        (stake as i128 * self.win as i128, self.stake as i128)
    }
}

impl fmt::Display for Odds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.win, self.stake)
    }
}

/// Odds text that is not `a:b` with whole numbers, `b` at least 1.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not odds: write net odds as a:b, e.g. 19:20, 8:1 or 1:2")]
pub struct ParseOddsError(pub String);

impl FromStr for Odds {
    type Err = ParseOddsError;
    fn from_str(s: &str) -> Result<Odds, ParseOddsError> {
        let err = || ParseOddsError(s.to_string());
        let (a, b) = s.trim().split_once(':').ok_or_else(err)?;
        let win: u32 = a.trim().parse().map_err(|_| err())?;
        let stake: u32 = b.trim().parse().map_err(|_| err())?;
        if stake == 0 || win == 0 || win > 100_000 || stake > 100_000 {
            return Err(err());
        }
        Ok(Odds { win, stake })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odds_parse_and_print() {
        for s in ["19:20", "8:1", "1:2", "500:1"] {
            assert_eq!(s.parse::<Odds>().unwrap().to_string(), s);
        }
        for bad in ["19", "a:b", "1:0", "0:1", "-1:2", "1:2:3"] {
            assert!(bad.parse::<Odds>().is_err(), "{bad}");
        }
    }

    #[test]
    fn money_displays_minor_units() {
        assert_eq!(Money(1250).to_string(), "12.50");
        assert_eq!(Money(-5).to_string(), "-0.05");
        assert_eq!(Money(0).to_string(), "0.00");
    }
}
