//! The figures of a counting run and their 95% intervals.
//!
//! Every figure is a mean per shoe or a ratio of two sums over shoes; shoes are
//! independent (each is its own shuffle), coups of one shoe are not, so each
//! interval is taken over shoes: the normal interval of a mean, or the
//! linearised (delta-method) interval of a ratio estimator
//! `Σx / Σy`, whose variance is `Σ(x - R·y)² / ((n-1) · n · ȳ²)`. Floats appear
//! only here, in the printed statistics, never in a sum.

use crate::count::{CountTotals, BET, COUPS, FLAT, STAKED, WIN};

/// z for a two-sided 95% interval.
const Z95: f64 = 1.959964;

/// A figure and its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    pub value: f64,
    pub lo: f64,
    pub hi: f64,
}

impl Estimate {
    fn new(value: f64, half: f64) -> Estimate {
        Estimate { value, lo: value - half, hi: value + half }
    }

    /// Scaled by a constant (a unit change, or per coup to per hour).
    pub fn times(self, k: f64) -> Estimate {
        let (a, b) = (self.lo * k, self.hi * k);
        Estimate { value: self.value * k, lo: a.min(b), hi: a.max(b) }
    }

    /// Whether `x` lies in the interval.
    pub fn contains(&self, x: f64) -> bool {
        self.lo <= x && x <= self.hi
    }
}

/// The figures the issue asks of a counting strategy, in units of one bet.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CountReport {
    pub shoes: u64,
    /// The player's advantage per unit staked: win ÷ units bet.
    pub advantage: Estimate,
    /// Share of the coups (that carry wagers) on which the strategy bets.
    pub share_bet: Estimate,
    pub bets_per_shoe: Estimate,
    pub units_per_shoe: Estimate,
    pub coups_per_shoe: Estimate,
    /// Expected win per shoe, in units.
    pub win_per_shoe: Estimate,
    /// Expected win per hour at `decisions_per_hour` coups an hour, in units.
    pub win_per_hour: Estimate,
    pub decisions_per_hour: u32,
    /// The return of one unit on every coup (minus the house edge): a check on
    /// the wager and the deal, against the exact odds.
    pub flat_return: Estimate,
}

fn mean(t: &CountTotals, a: usize) -> Estimate {
    let n = t.shoes as f64;
    let m = t.sum[a] as f64 / n;
    let ss = t.sum_prod[a][a] as f64 - n * m * m;
    let var = if n > 1.0 { (ss / (n - 1.0)).max(0.0) / n } else { f64::INFINITY };
    Estimate::new(m, Z95 * var.sqrt())
}

fn ratio(t: &CountTotals, x: usize, y: usize) -> Estimate {
    let n = t.shoes as f64;
    if t.sum[y] == 0 {
        return Estimate { value: 0.0, lo: f64::NEG_INFINITY, hi: f64::INFINITY };
    }
    let r = t.sum[x] as f64 / t.sum[y] as f64;
    let ybar = t.sum[y] as f64 / n;
    let ss = t.sum_prod[x][x] as f64 - 2.0 * r * t.sum_prod[x][y] as f64 + r * r * t.sum_prod[y][y] as f64;
    let var = if n > 1.0 { (ss / (n - 1.0)).max(0.0) / (n * ybar * ybar) } else { f64::INFINITY };
    Estimate::new(r, Z95 * var.sqrt())
}

impl CountTotals {
    /// The report, with the win per hour at `decisions_per_hour` coups an hour.
    pub fn report(&self, decisions_per_hour: u32) -> CountReport {
        let unit = 1.0 / self.scale as f64;
        CountReport {
            shoes: self.shoes,
            advantage: ratio(self, WIN, STAKED).times(unit),
            share_bet: ratio(self, BET, COUPS),
            bets_per_shoe: mean(self, BET),
            units_per_shoe: mean(self, STAKED),
            coups_per_shoe: mean(self, COUPS),
            win_per_shoe: mean(self, WIN).times(unit),
            win_per_hour: ratio(self, WIN, COUPS).times(unit * decisions_per_hour as f64),
            decisions_per_hour,
            flat_return: ratio(self, FLAT, COUPS).times(unit),
        }
    }
}
