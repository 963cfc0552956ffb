//! The outcome distribution of every wager, and its price under a pay table.
//!
//! Each wager is counted over the coarsest card classes that decide it (see
//! [`Basis`]): point values for the wagers that see only the result, ranks for
//! pairs, ranks and suits for Perfect Pair and Lucky Match. Every count is over the
//! same denominator, ordered six-card sequences (see `exact.rs`), so each wager's
//! counts add up to exactly [`SummaryTable::total`] — a check the tests make.
//! The outcome of every class is decided by the rules crate's classifier called
//! on representative cards, never by a copy of the rule here.

use baccarat_rules::{
    banker_draws, player_action, Basis, Bet, Card, CoupSummary, Outcome, PayTable, Pays, PlayerAction, Rank, Side, Suit,
};

use crate::exact::{falling, SummaryTable};
use crate::shoe::Shoe;

/// Counts of ordered six-card sequences by outcome, summing to `total`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Distribution {
    pub bet: Bet,
    pub total: u64,
    /// In the order first seen; `Lose` included when it can happen.
    pub counts: Vec<(Outcome, u64)>,
}

impl Distribution {
    fn new(bet: Bet, total: u64) -> Distribution {
        Distribution { bet, total, counts: Vec::new() }
    }

    pub(crate) fn add(&mut self, o: Outcome, n: u64) {
        if n == 0 {
            return;
        }
        match self.counts.iter_mut().find(|(k, _)| *k == o) {
            Some((_, c)) => *c += n,
            None => self.counts.push((o, n)),
        }
    }

    pub fn count(&self, o: Outcome) -> u64 {
        self.counts.iter().find(|(k, _)| *k == o).map_or(0, |(_, c)| *c)
    }
}

/// A wager whose outcome depends on suits cannot be priced from rank counts.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0} depends on suits; give the shoe as 52 counts by rank and suit")]
pub struct NeedsSuits(pub Bet);

/// Whether the wager's outcome depends on suits (AU 11A Perfect Pair, 11D Lucky Match).
pub fn needs_suits(bet: Bet) -> bool {
    matches!(bet, Bet::PerfectPairPlayer | Bet::PerfectPairBanker | Bet::LuckyMatchPlayer | Bet::LuckyMatchBanker)
}

fn rep(rank: usize) -> Card {
    Card::new(Rank::ALL[rank], Suit::Clubs)
}

/// The outcome distribution of `bet` for `shoe`, whose value-level result table
/// is `table` (from [`crate::summary_table`] on the same shoe).
pub fn distribution(bet: Bet, shoe: &Shoe, table: &SummaryTable) -> Result<Distribution, NeedsSuits> {
    if needs_suits(bet) && !shoe.suits_known() {
        return Err(NeedsSuits(bet));
    }
    let n = shoe.len() as u64;
    let mut d = Distribution::new(bet, table.total);
    match bet.basis() {
        Basis::Summary => {
            for (i, &c) in table.counts.iter().enumerate() {
                d.add(bet.classify_summary(&CoupSummary::from_index(i)), c);
            }
        }
        Basis::Initial(_) => add_initial(&mut d, shoe, n),
        Basis::HandCards(side) => add_hand_cards(&mut d, shoe, side, n),
        Basis::BothInitial => add_both_initial(&mut d, shoe, n),
    }
    debug_assert_eq!(d.counts.iter().map(|(_, c)| c).sum::<u64>(), d.total);
    Ok(d)
}

/// A wager on one hand's two initial cards: they are two of the six
/// positions and the other four are free; by rank, or by card where suits
/// decide it.
fn add_initial(d: &mut Distribution, shoe: &Shoe, n: u64) {
    let bet = d.bet;
    // The hand's two initial cards are two of the six positions; the
    // other four are free.
    let rest = falling(n - 2, 4);
    if needs_suits(bet) {
        let k = shoe.card_counts();
        for a in 0..52 {
            for b in 0..52 {
                let w = k[a] as u64 * (k[b] as u64).saturating_sub(u64::from(a == b));
                let cards = [Card::from_index(a).expect("<52"), Card::from_index(b).expect("<52")];
                d.add(bet.classify_initial(cards), w * rest);
            }
        }
    } else {
        let k = shoe.rank_counts();
        for a in 0..13 {
            for b in 0..13 {
                let w = k[a] as u64 * (k[b] as u64).saturating_sub(u64::from(a == b));
                d.add(bet.classify_initial([rep(a), rep(b)]), w * rest);
            }
        }
    }
}

/// A wager on `side`'s cards by rank and suit (AU 11D Lucky Match): its two
/// initial cards, and a third identical card where the hand draws one.
fn add_hand_cards(d: &mut Distribution, shoe: &Shoe, side: Side, n: u64) {
    let bet = d.bet;
    let rest = falling(n - 2, 4);
    let k = shoe.card_counts();
    for a in 0..52 {
        for b in 0..52 {
            let w = k[a] as u64 * (k[b] as u64).saturating_sub(u64::from(a == b));
            let (ca, cb) = (Card::from_index(a).expect("<52"), Card::from_index(b).expect("<52"));
            let mut two = w * rest;
            if a == b {
                // Of these, the sequences where the hand draws a third
                // identical card are the Lucky Triple Match (AU 11D.9).
                let three = triple_count(shoe, side, a);
                d.add(bet.classify_hand_cards(&[ca, ca, ca]), three);
                two -= three;
            }
            d.add(bet.classify_hand_cards(&[ca, cb]), two);
        }
    }
}

/// A wager on both hands' initial cards by rank: the four initial positions
/// drawn in dealing order (Player, Banker, Player, Banker), the other two
/// free.
fn add_both_initial(d: &mut Distribution, shoe: &Shoe, n: u64) {
    let bet = d.bet;
    let k = shoe.rank_counts().map(|x| x as u64);
    let rest = falling(n - 4, 2);
    let mut c = k;
    for p1 in 0..13 {
        let w1 = c[p1];
        if w1 == 0 {
            continue;
        }
        c[p1] -= 1;
        for b1 in 0..13 {
            let w2 = w1 * c[b1];
            if w2 == 0 {
                continue;
            }
            c[b1] -= 1;
            for p2 in 0..13 {
                let w3 = w2 * c[p2];
                if w3 == 0 {
                    continue;
                }
                c[p2] -= 1;
                for b2 in 0..13 {
                    let w4 = w3 * c[b2];
                    if w4 != 0 {
                        d.add(bet.classify_both_initial([rep(p1), rep(p2)], [rep(b1), rep(b2)]), w4 * rest);
                    }
                }
                c[p2] += 1;
            }
            c[b1] += 1;
        }
        c[p1] += 1;
    }
}

/// Ordered six-card sequences in which `side`'s first three cards are all the
/// card `x` (rank and suit) and that hand draws its third card.
fn triple_count(shoe: &Shoe, side: Side, x: usize) -> u64 {
    let n = shoe.len() as u64;
    let nx = shoe.card_counts()[x] as u64;
    if nx < 3 {
        return 0;
    }
    let v = Rank::ALL[x / 4].point() as usize;
    let mut d = shoe.value_counts().map(|c| c as u64);
    d[v] -= 3;
    let own = ((2 * v) % 10) as u8;
    let mut ways = 0u64;
    // The other hand's two initial cards.
    for o1 in 0..10 {
        let w1 = d[o1];
        if w1 == 0 {
            continue;
        }
        d[o1] -= 1;
        for o2 in 0..10 {
            let w2 = w1 * d[o2];
            if w2 == 0 {
                continue;
            }
            d[o2] -= 1;
            let other = ((o1 + o2) % 10) as u8;
            match side {
                Side::Player => {
                    if player_action(own, other) == PlayerAction::Draw {
                        // Banker's third position is free.
                        ways += w2 * (n - 5);
                    }
                }
                Side::Banker => match player_action(other, own) {
                    PlayerAction::Natural => {}
                    PlayerAction::Stand => {
                        if banker_draws(own, None) {
                            ways += w2 * (n - 5);
                        }
                    }
                    PlayerAction::Draw => {
                        for p3 in 0..10 {
                            if banker_draws(own, Some(p3 as u8)) {
                                ways += w2 * d[p3];
                            }
                        }
                    }
                },
            }
            d[o2] += 1;
        }
        d[o1] += 1;
    }
    nx * (nx - 1) * (nx - 2) * ways
}

/// One line of a priced wager: an outcome as the pay table pays it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutcomeOdds {
    pub outcome: Outcome,
    pub count: u64,
    pub pays: Pays,
}

/// A wager priced under one pay table, exactly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BetOdds {
    pub bet: Bet,
    pub pay_table: String,
    pub rule: String,
    pub total: u64,
    pub outcomes: Vec<OutcomeOdds>,
    /// Expected net return per unit staked, exactly: `ev_num / ev_den`.
    pub ev_num: i128,
    pub ev_den: i128,
    /// Expected squared return, exactly: `ev2_num / ev2_den`.
    pub ev2_num: i128,
    pub ev2_den: i128,
}

impl BetOdds {
    /// House edge per initial wager (positive when the house wins), with pushes
    /// counted as pushes.
    pub fn house_edge(&self) -> f64 {
        -(self.ev_num as f64 / self.ev_den as f64)
    }

    /// The house edge as an exact reduced fraction `(num, den)`.
    pub fn house_edge_exact(&self) -> (i128, i128) {
        let g = gcd(self.ev_num.unsigned_abs(), self.ev_den.unsigned_abs()) as i128;
        (-self.ev_num / g, self.ev_den / g)
    }

    /// Standard deviation of the net return per unit staked.
    pub fn std_dev(&self) -> f64 {
        let m = self.ev_num as f64 / self.ev_den as f64;
        let m2 = self.ev2_num as f64 / self.ev2_den as f64;
        (m2 - m * m).max(0.0).sqrt()
    }

    pub fn probability(&self, o: &OutcomeOdds) -> f64 {
        o.count as f64 / self.total as f64
    }
}

/// [`gcd`] of pay-line denominators, small enough for `u64` (and its faster
/// division).
fn gcd64(a: u64, b: u64) -> u64 {
    if b == 0 {
        a.max(1)
    } else {
        gcd64(b, a % b)
    }
}

fn gcd(a: u128, b: u128) -> u128 {
    if b == 0 {
        a.max(1)
    } else {
        gcd(b, a % b)
    }
}

/// The line an outcome is reported under in a pay table: its own if the table
/// prices it, else its parent's, else `lose`.
pub fn reported_outcome(table: &PayTable, o: Outcome) -> Outcome {
    let priced = |x: Outcome| table.lines.iter().any(|(k, _)| *k == x);
    if priced(o) {
        return o;
    }
    match table.bet.outcomes().iter().find(|x| x.outcome == o).and_then(|x| x.parent) {
        Some(p) if priced(p) => p,
        _ => Outcome::Lose,
    }
}

/// Price a distribution under a pay table. Outcome classes the table does not
/// price are reported under the line that pays them (their parent, or `lose`).
pub fn price(d: &Distribution, table: &PayTable) -> BetOdds {
    assert_eq!(d.bet, table.bet, "pay table of another wager");
    let mut outcomes: Vec<OutcomeOdds> = Vec::new();
    for &(o, count) in &d.counts {
        let shown = reported_outcome(table, o);
        match outcomes.iter_mut().find(|x| x.outcome == shown) {
            Some(x) => x.count += count,
            None => outcomes.push(OutcomeOdds { outcome: shown, count, pays: table.pays(shown) }),
        }
    }
    // Lines in the wager's own order, `lose` last.
    let order = |o: Outcome| d.bet.outcomes().iter().position(|x| x.outcome == o).unwrap_or(usize::MAX);
    outcomes.sort_by_key(|x| order(x.outcome));
    // Exact moments over the common denominator of the pay lines.
    let lcm = outcomes.iter().fold(1u64, |l, x| {
        let b = x.pays.net_return().1 as u64;
        l / gcd64(l, b) * b
    });
    let (mut ev, mut ev2) = (0i128, 0i128);
    for x in &outcomes {
        let (a, b) = x.pays.net_return();
        let scaled = a as i128 * (lcm / b as u64) as i128;
        ev += x.count as i128 * scaled;
        ev2 += x.count as i128 * scaled * scaled;
    }
    BetOdds {
        bet: d.bet,
        pay_table: table.name.clone(),
        rule: table.rule.clone(),
        total: d.total,
        outcomes,
        ev_num: ev,
        ev_den: d.total as i128 * lcm as i128,
        ev2_num: ev2,
        ev2_den: d.total as i128 * lcm as i128 * lcm as i128,
    }
}
