//! The theoretical win: each wager's stake times its exact house edge.
//!
//! A wager's edge is its bet's under the pay table the table offered it at,
//! for a full shoe of the table's decks, from `baccarat-math`'s exact counts
//! of ordered six-card sequences (the edge the odds report prints, as an
//! exact fraction, not the float it prints). The edge is the game's over a
//! fresh shoe: the casino's expectation of a wager made without knowing the
//! cards already dealt. The sum over a table's wagers is kept exact (stakes
//! summed per edge, then one fraction) and rounded once, to the nearest
//! cent, a half cent away from zero.

use std::collections::BTreeMap;

use baccarat_math::{main_odds, price, summary_table, Shoe};
use baccarat_rules::{Bet, Money, PayTable};

/// An exact edge `(numerator, denominator)`, reduced, denominator positive.
pub type Edge = (i128, i128);

/// The edges priced so far, by rulebook, decks, bet and pay table: a table's
/// bet is priced once per report, not once per wager.
#[derive(Default)]
pub struct Edges {
    priced: BTreeMap<(String, u32, Bet, String), Option<Edge>>,
}

impl Edges {
    /// `bet`'s exact house edge under `table` with a full shoe of `decks`;
    /// `None` for a shoe `baccarat-math` cannot price (no such shoe).
    pub fn edge(&mut self, rulebook: &str, decks: u32, bet: Bet, table: &PayTable) -> Option<Edge> {
        let key = (rulebook.to_string(), decks, bet, table.name.clone());
        if let Some(e) = self.priced.get(&key) {
            return *e;
        }
        let e = price_edge(decks, bet, table);
        self.priced.insert(key, e);
        e
    }
}

fn price_edge(decks: u32, bet: Bet, table: &PayTable) -> Option<Edge> {
    let shoe = Shoe::decks(decks).ok()?;
    // The main and pair wagers by the fast path, the rest by enumeration:
    // the same figures either way (`baccarat-math`'s tests compare them).
    let d = match main_odds(&shoe.value_counts(), &shoe.rank_counts()).distribution(bet) {
        Some(d) => d,
        None => baccarat_math::distribution(bet, &shoe, &summary_table(&shoe.value_counts())).ok()?,
    };
    Some(price(&d, table).house_edge_exact())
}

/// Stakes summed per edge, for one exact sum at the end.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Theo {
    stakes: BTreeMap<Edge, i128>,
}

impl Theo {
    pub fn add(&mut self, edge: Edge, stake: Money) {
        *self.stakes.entry(edge).or_default() += i128::from(stake.0);
    }

    /// The exact sum, rounded once to the nearest cent (a half away from
    /// zero). Every edge of one shoe size shares the denominator of six-card
    /// sequences times small pay denominators, so the common denominator
    /// stays near 10^20 and the numerator within `i128` for any day's
    /// stakes; should it not, each edge's part is rounded on its own and
    /// summed (never a panic).
    pub fn cents(&self) -> Money {
        exact(&self.stakes)
            .unwrap_or_else(|| self.stakes.iter().map(|(&(n, d), &s)| round(s * n, d)).sum::<i128>())
            .try_into()
            .map(Money)
            .unwrap_or(Money(i64::MAX))
    }
}

fn exact(stakes: &BTreeMap<Edge, i128>) -> Option<i128> {
    let (mut num, mut den) = (0i128, 1i128);
    for (&(n, d), &s) in stakes {
        // num/den + s*n/d over lcm(den, d).
        let g = gcd(den, d);
        let lcm = (den / g).checked_mul(d)?;
        num = num.checked_mul(lcm / den)?.checked_add(s.checked_mul(n)?.checked_mul(lcm / d)?)?;
        den = lcm;
        let r = gcd(num.abs(), den);
        (num, den) = (num / r, den / r);
    }
    Some(round(num, den))
}

fn gcd(a: i128, b: i128) -> i128 {
    let (mut a, mut b) = (a.abs(), b.abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.max(1)
}

/// `num / den` to the nearest integer, a half away from zero (`den > 0`).
pub fn round(num: i128, den: i128) -> i128 {
    let q = num / den;
    let r = num % den;
    if 2 * r.abs() >= den {
        q + num.signum()
    } else {
        q
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_is_once_and_half_away_from_zero() {
        assert_eq!(round(5, 2), 3);
        assert_eq!(round(-5, 2), -3);
        assert_eq!(round(4, 3), 1);
        assert_eq!(round(-4, 3), -1);
        // Three stakes of 1 cent at an edge of 1/3: each alone rounds to 0,
        // the sum is exactly 1 cent.
        let mut t = Theo::default();
        t.add((1, 3), Money(1));
        t.add((1, 6), Money(2));
        t.add((1, 9), Money(3));
        assert_eq!(t.cents(), Money(1), "1/3 + 2/6 + 3/9 = 1");
    }

    #[test]
    fn the_banker_edge_is_the_odds_reports() {
        let rb = baccarat_rules::profiles::builtin("nsw-2021").unwrap();
        let banker = rb.bet(Bet::Banker).unwrap().pay_table("commission").unwrap().clone();
        let (n, d) = Edges::default().edge("nsw-2021", 8, Bet::Banker, &banker).unwrap();
        // 1.0579 % (the crate's doc example).
        assert!((n as f64 / d as f64 - 0.010579).abs() < 1e-6, "{n}/{d}");
    }
}
