//! Effect of removal: the exact change in each wager's expected value when one
//! card of a rank (or one given card, where suits decide the wager) leaves the
//! shoe.
//!
//! Each EV is the report's exact fraction, over `N^(6) L` for a shoe of `N`
//! cards (`L` the lcm of the paid lines' denominators); the changes are exact
//! fractions too (`i128`; every denominator divides `N (N-1)^(6) L`, below
//! 2^72, and every numerator is at most the largest payout times that).
//!
//! Removing a card the dealer has not yet shown is the same, on average, as not
//! removing it: a coup dealt after one card is burned unseen has the law of a
//! coup dealt from the full shoe (exchangeability). So `Σ_c n_c · EoR(c) = 0`
//! exactly, over the cards or over the ranks; the tests check it. The change in
//! the Player's chance of winning from removing one card at 8 decks matches a
//! published table to its ten decimals (tests/math/published.rs).

use baccarat_rules::{Bet, Rank, Rulebook};

use crate::bets::{needs_suits, BetOdds};
use crate::closed::ShoeOdds;
use crate::report::{needs_triples, report_from, Report};
use crate::shoe::{Shoe, MIN_CARDS};

/// An exact fraction, reduced, with a positive denominator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ratio {
    pub num: i128,
    pub den: i128,
}

impl Ratio {
    pub fn new(num: i128, den: i128) -> Ratio {
        let g = gcd(num.unsigned_abs(), den.unsigned_abs()).max(1) as i128;
        let s = if den < 0 { -1 } else { 1 };
        Ratio { num: s * num / g, den: s * den / g }
    }

    /// For printing only; the figures are the exact fraction.
    pub fn to_f64(self) -> f64 {
        self.num as f64 / self.den as f64
    }
}

impl std::ops::Add for Ratio {
    type Output = Ratio;
    fn add(self, o: Ratio) -> Ratio {
        let g = gcd(self.den.unsigned_abs(), o.den.unsigned_abs()) as i128;
        Ratio::new(self.num * (o.den / g) + o.num * (self.den / g), self.den / g * o.den)
    }
}

impl std::ops::Neg for Ratio {
    type Output = Ratio;
    fn neg(self) -> Ratio {
        Ratio { num: -self.num, den: self.den }
    }
}

impl std::ops::Sub for Ratio {
    type Output = Ratio;
    fn sub(self, o: Ratio) -> Ratio {
        self + -o
    }
}

fn gcd(a: u128, b: u128) -> u128 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// One wager under one pay table: its EV and the effect of removing each card.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Eor {
    pub bet: Bet,
    pub pay_table: String,
    /// Expected net return per unit staked from the shoe, exactly.
    pub ev: Ratio,
    /// By rank, Ace first: the change in EV from removing one card of that rank
    /// (for a wager that sees suits, the average over the rank's cards, weighted
    /// by their counts). `None` when the shoe holds no such card.
    pub by_rank: [Option<Ratio>; 13],
    /// By card (rank-major, suit-minor), for a wager that sees suits, when the
    /// shoe's suits are known.
    pub by_card: Option<[Option<Ratio>; 52]>,
}

/// The effect of removal of every wager `rb` prices for `shoe` (see [`report`]
/// for `decks`), or why there is none.
///
/// [`report`]: crate::report
pub fn effect_of_removal(rb: &Rulebook, shoe: &Shoe, decks: Option<u32>) -> Result<(Report, Vec<Eor>), String> {
    let n = shoe.len();
    if n <= MIN_CARDS {
        return Err(format!("--shoe: {n} cards; removing one would leave fewer than a coup can need ({MIN_CARDS})"));
    }
    let t = needs_triples(rb);
    let base = report_from(&ShoeOdds::counted(shoe, t), rb, shoe, decks);
    // The reports of the shoe less each card (suits known) or each rank.
    let removed: Vec<(usize, Report)> = if shoe.suits_known() {
        (0..52)
            .filter_map(|c| shoe.without_card(c).map(|s| (c, report_from(&ShoeOdds::counted(&s, t), rb, &s, decks))))
            .collect()
    } else {
        (0..13)
            .filter_map(|r| shoe.without_rank(r).map(|s| (r, report_from(&ShoeOdds::counted(&s, t), rb, &s, decks))))
            .collect()
    };
    let eors = base.bets.iter().map(|b| eor_of(b, shoe, &removed)).collect();
    Ok((base, eors))
}

/// One wager's changes in EV.
fn eor_of(b: &BetOdds, shoe: &Shoe, removed: &[(usize, Report)]) -> Eor {
    let ev = Ratio::new(b.ev_num, b.ev_den);
    let change = |r: &Report| {
        let x = r.bets.iter().find(|x| x.bet == b.bet && x.pay_table == b.pay_table).expect("the same wagers");
        Ratio::new(x.ev_num, x.ev_den) - ev
    };
    let mut by_rank = [None; 13];
    let mut by_card = None;
    if shoe.suits_known() {
        let mut cards = [None; 52];
        let mut sums = [(Ratio::new(0, 1), 0i128); 13];
        for (c, r) in removed {
            let k = shoe.card_counts()[*c] as i128;
            let d = change(r);
            cards[*c] = Some(d);
            sums[c / 4].0 = sums[c / 4].0 + Ratio::new(k * d.num, d.den);
            sums[c / 4].1 += k;
        }
        for (rank, &(sum, k)) in sums.iter().enumerate().filter(|(_, (_, k))| *k > 0) {
            by_rank[rank] = Some(Ratio::new(sum.num, sum.den * k));
        }
        by_card = needs_suits(b.bet).then_some(cards);
    } else {
        for (rank, r) in removed {
            by_rank[*rank] = Some(change(r));
        }
    }
    Eor { bet: b.bet, pay_table: b.pay_table.clone(), ev, by_rank, by_card }
}

/// The rank symbols in `by_rank` order.
pub fn rank_symbols() -> [&'static str; 13] {
    Rank::ALL.map(|r| r.symbol())
}
