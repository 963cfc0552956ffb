//! Pay tables: what each outcome class of a wager pays, as data.

use std::fmt;
use std::str::FromStr;

use crate::bet::{Bet, Outcome};
use crate::money::{Odds, ParseOddsError};

/// What one line of a pay table pays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pays {
    /// Net odds, e.g. 19:20 (NSW 11.1.3) or 8:1.
    Odds(Odds),
    /// Odds less a commission on the amount won, e.g. "1:1 less 5%" (AU 5.10(b);
    /// EU "with a house edge"). Pays the same as its net odds; the commission is
    /// shown and booked apart.
    LessCommission {
        odds: Odds,
        percent: u32,
    },
    /// Standoff: the wager neither wins nor loses (NSW 1.1 "Standoff").
    Push,
    Lose,
}

impl Pays {
    /// The net odds a winning line pays, if it wins.
    pub fn net_odds(self) -> Option<Odds> {
        match self {
            Pays::Odds(o) => Some(o),
            Pays::LessCommission { odds, percent } => {
                let win = odds.win as u64 * (100 - percent as u64);
                let stake = odds.stake as u64 * 100;
                let g = gcd(win, stake);
                Some(Odds::new((win / g) as u32, (stake / g) as u32))
            }
            Pays::Push | Pays::Lose => None,
        }
    }

    /// The net return per unit staked as an exact fraction (num, den): -1 for a
    /// loss, 0 for a push, a/b for a win at a:b.
    pub fn net_return(self) -> (i64, i64) {
        match self {
            Pays::Lose => (-1, 1),
            Pays::Push => (0, 1),
            p => {
                let o = p.net_odds().expect("winning line");
                (o.win as i64, o.stake as i64)
            }
        }
    }

    /// The report text: net odds such as `19:20`, or `push` / `lose`.
    pub fn report(self) -> String {
        match self {
            Pays::Push => "push".into(),
            Pays::Lose => "lose".into(),
            p => p.net_odds().expect("winning line").to_string(),
        }
    }
}

pub(crate) fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a.max(1)
    } else {
        gcd(b, a % b)
    }
}

impl fmt::Display for Pays {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Pays::Odds(o) => write!(f, "{o}"),
            Pays::LessCommission { odds, percent } => write!(f, "{odds} less {percent}%"),
            Pays::Push => f.write_str("push"),
            Pays::Lose => f.write_str("lose"),
        }
    }
}

/// Text that is not a pay line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a pay line: write net odds \"a:b\", \"a:b less N%\", \"push\" or \"lose\"")]
pub struct ParsePaysError(pub String);

impl From<ParseOddsError> for ParsePaysError {
    fn from(e: ParseOddsError) -> Self {
        ParsePaysError(e.0)
    }
}

impl FromStr for Pays {
    type Err = ParsePaysError;
    fn from_str(s: &str) -> Result<Pays, ParsePaysError> {
        let t = s.trim();
        match t {
            "push" => return Ok(Pays::Push),
            "lose" => return Ok(Pays::Lose),
            _ => {}
        }
        let err = || ParsePaysError(s.to_string());
        if let Some((odds, rest)) = t.split_once(" less ") {
            let odds: Odds = odds.parse().map_err(|_| err())?;
            let pct = rest.trim().strip_suffix('%').ok_or_else(err)?;
            let percent: u32 = pct.trim().parse().map_err(|_| err())?;
            if percent == 0 || percent >= 100 {
                return Err(err());
            }
            return Ok(Pays::LessCommission { odds, percent });
        }
        Ok(Pays::Odds(t.parse().map_err(|_| err())?))
    }
}

/// A named pay table for one wager: a price for each outcome class.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PayTable {
    pub bet: Bet,
    /// The table's name within its wager, e.g. `scale_one` or `8_to_1`.
    pub name: String,
    /// The rule that prints it, e.g. `AU 11A.7 Pay Scale One`.
    pub rule: String,
    /// Lines as priced in the profile, in the wager's outcome order.
    pub lines: Vec<(Outcome, Pays)>,
}

impl PayTable {
    /// What `outcome` pays: its own line, else its parent's, else it loses.
    pub fn pays(&self, outcome: Outcome) -> Pays {
        let line = |o: Outcome| self.lines.iter().find(|(k, _)| *k == o).map(|(_, p)| *p);
        if let Some(p) = line(outcome) {
            return p;
        }
        let parent = self.bet.outcomes().iter().find(|d| d.outcome == outcome).and_then(|d| d.parent);
        parent.and_then(line).unwrap_or(Pays::Lose)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pay_lines_parse() {
        assert_eq!("push".parse::<Pays>().unwrap(), Pays::Push);
        let c: Pays = "1:1 less 5%".parse().unwrap();
        assert_eq!(c.net_odds(), Some(Odds::new(19, 20)));
        assert_eq!(c.report(), "19:20");
        assert_eq!("19:20".parse::<Pays>().unwrap().report(), "19:20");
        for bad in ["1:1 less 0%", "1:1 less 100%", "1:1 less x%", "win", "1:1 less 5"] {
            assert!(bad.parse::<Pays>().is_err(), "{bad}");
        }
        assert_eq!(Pays::Lose.net_return(), (-1, 1));
        assert_eq!("1:2".parse::<Pays>().unwrap().net_return(), (1, 2));
    }

    #[test]
    fn finer_outcomes_fall_back_to_their_parent() {
        let t = PayTable {
            bet: Bet::Banker,
            name: "commission".into(),
            rule: "NSW 11.1.3".into(),
            lines: vec![(Outcome::Win, "19:20".parse().unwrap()), (Outcome::Tie, Pays::Push)],
        };
        assert_eq!(t.pays(Outcome::WinOnSix), "19:20".parse().unwrap());
        assert_eq!(t.pays(Outcome::Tie), Pays::Push);
        assert_eq!(t.pays(Outcome::Lose), Pays::Lose);
    }
}
