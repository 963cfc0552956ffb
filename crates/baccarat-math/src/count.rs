//! Counting strategies played through the real shoe (`simulate --count`).
//!
//! A strategy gives each rank a tag; the running count is the sum of the tags
//! of every card the player has seen (each coup's cards, and a burn card the
//! dealer turns face up: NSW 4.7.2-4.7.3; AU 7.7; EU 3.1.1), starting from
//! `start` (non-zero for an unbalanced count). The true count is the running
//! count over the decks not yet out of the shoe: cards burned face down are
//! out of the shoe but unseen, so they move the divisor and not the count.
//! Before each coup that carries wagers the strategy bets the units its ramp
//! gives for the count (none below the trigger), and the coup settles them.
//!
//! The comparison `count >= threshold` is exact: thresholds are kept in
//! hundredths and the true count is never divided out (`rc · 52 · 100 >=
//! t · cards_left`), so no shoe is bet or skipped by a rounding.
//!
//! Shoes are dealt by [`crate::sim::watch_shoe`] (the same cards as
//! `simulate`), summed per shoe with integers, and the intervals are taken
//! over shoes ([`CountTotals::report`]), because coups of one shoe are not
//! independent.

use std::sync::atomic::{AtomicU64, Ordering};

use baccarat_rules::{CoupSummary, PayTable, Winner};
use baccarat_table::Seed;

use crate::sim::{watch_shoe, Procedure, Rows, Seen, SimWager, PAIR_KEYS};

/// Whether the trigger and ramp read the running or the true count, or the
/// wager's exact EV.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CountKind {
    /// Running count ÷ decks left in the shoe.
    True,
    /// The running count itself (an unbalanced count with a start value).
    Running,
    /// The exact EV, in percent of the stake, of a Player's or Banker's Pair
    /// over the cards not yet seen: `P = Σ n_r (n_r - 1) / (N (N - 1))` (NSW
    /// 10.6-10.7), a perfect counter's play. `win` and `lose` are the wager's
    /// scaled net returns for a pair and for none.
    ExactPair { win: i64, lose: i64 },
}

/// A counting strategy: tags by rank, and units to bet by count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Strategy {
    /// Tag of each rank, A (index 0) to K (index 12).
    pub tags: [i32; 13],
    /// The running count at the start of a shoe.
    pub start: i32,
    pub kind: CountKind,
    /// `(threshold in hundredths, units)`, thresholds strictly ascending and
    /// units at least 1: at a count of at least a threshold, bet its units.
    /// The first threshold is the trigger.
    pub ramp: Vec<(i64, u32)>,
}

impl Strategy {
    /// Units to bet with running count `rc` and `cards_left` cards not yet
    /// out of the shoe (0: do not bet); for [`CountKind::ExactPair`], see
    /// [`Strategy::units_exact_pair`].
    #[inline]
    pub fn units(&self, rc: i64, cards_left: usize) -> u32 {
        // Count ≥ t/100  ⇔  rc·100 ≥ t (running)  ⇔  rc·52·100 ≥ t·cards_left (true).
        match self.kind {
            CountKind::Running => self.units_for(rc * 100, 1),
            CountKind::True => self.units_for(rc * 5200, cards_left as i64),
            CountKind::ExactPair { .. } => 0,
        }
    }

    /// Units to bet on a pair wager with `unseen[r]` cards of rank `r` not yet
    /// seen, `scale` the unit of its net returns: EV% ≥ t/100 ⇔
    /// `100·100·(S·win + (D-S)·lose) ≥ t·D·scale`, `D = N (N-1)`, exactly.
    #[inline]
    pub fn units_exact_pair(&self, unseen: &[u32; 13], scale: i64) -> u32 {
        let CountKind::ExactPair { win, lose } = self.kind else {
            return 0;
        };
        let n: i64 = unseen.iter().map(|&x| x as i64).sum();
        let d = n * (n - 1);
        let s: i64 = unseen.iter().map(|&x| x as i64 * (x as i64 - 1)).sum();
        self.units_for(10_000 * (s * win + (d - s) * lose), d * scale)
    }

    /// The ramp's units for a reading `lhs` against thresholds `t · per`.
    #[inline]
    fn units_for(&self, lhs: i64, per: i64) -> u32 {
        let mut units = 0;
        for &(t, u) in &self.ramp {
            if lhs >= t * per {
                units = u;
            } else {
                break;
            }
        }
        units
    }
}

/// The wager a strategy bets.
#[derive(Clone, Debug)]
pub enum CountWager {
    /// A wager and pay table of the rulebook.
    Rulebook(PayTable),
    /// EZ Baccarat's Dragon 7, an analysis wager no rulebook here offers:
    /// pays 40 to 1 when the Banker wins with a three-card 7, else loses.
    Dragon7,
    /// EZ Baccarat's Panda 8, an analysis wager no rulebook here offers: pays
    /// 25 to 1 when the Player wins with a three-card 8, else loses.
    Panda8,
}

impl CountWager {
    /// The id used in strategy files and reports.
    pub fn id(&self) -> String {
        match self {
            CountWager::Rulebook(t) => format!("{} ({})", t.bet.id(), t.name),
            CountWager::Dragon7 => "dragon_7 (40 to 1)".into(),
            CountWager::Panda8 => "panda_8 (25 to 1)".into(),
        }
    }
}

/// The EZ Baccarat analysis wagers' net return for a coup result.
pub fn ez_net(w: &CountWager, s: &CoupSummary) -> Option<i32> {
    match w {
        CountWager::Dragon7 => {
            Some(if s.winner() == Winner::Banker && s.banker_cards == 3 && s.banker_total == 7 { 40 } else { -1 })
        }
        CountWager::Panda8 => {
            Some(if s.winner() == Winner::Player && s.player_cards == 3 && s.player_total == 8 { 25 } else { -1 })
        }
        CountWager::Rulebook(_) => None,
    }
}

/// A wager's integer net return (× `scale`) by coup summary index and pair key.
#[derive(Clone, Debug)]
pub struct WagerRow {
    pub summary: Vec<i32>,
    pub pairs: Vec<i32>,
    pub scale: i64,
}

impl WagerRow {
    /// A rulebook wager's row comes from the simulator's rows (the rules
    /// crate's classifiers and the pay table); an EZ wager's from [`ez_net`].
    pub fn new(w: &CountWager) -> Result<WagerRow, String> {
        match w {
            CountWager::Rulebook(t) => {
                let rows = Rows::new(&[SimWager { table: t.clone() }])?;
                let (summary, pairs) = rows.parts(0);
                Ok(WagerRow { summary, pairs, scale: rows.scale })
            }
            ez => Ok(WagerRow {
                summary: (0..CoupSummary::COUNT)
                    .map(|i| ez_net(ez, &CoupSummary::from_index(i)).expect("an EZ wager"))
                    .collect(),
                pairs: vec![0; PAIR_KEYS],
                scale: 1,
            }),
        }
    }

    #[inline]
    fn net(&self, k: crate::sim::CoupKeys) -> i64 {
        (self.summary[k.summary] + self.pairs[k.pairs]) as i64
    }
}

/// Everything one run needs.
#[derive(Clone, Debug)]
pub struct CountPlan {
    pub procedure: Procedure,
    pub strategy: Strategy,
    pub wager: CountWager,
    pub row: WagerRow,
}

/// The per-shoe quantities summed: win (scaled), units staked, coups bet,
/// coups, and the win of a flat bettor who bets one unit on every coup.
pub const VARS: usize = 5;
pub(crate) const WIN: usize = 0;
pub(crate) const STAKED: usize = 1;
pub(crate) const BET: usize = 2;
pub(crate) const COUPS: usize = 3;
pub(crate) const FLAT: usize = 4;

/// Sums over shoes of each per-shoe quantity and of every product of two:
/// integers, so parts add up exactly whatever the thread count.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CountTotals {
    pub shoes: u64,
    pub sum: [i128; VARS],
    pub sum_prod: [[i128; VARS]; VARS],
    /// The unit of the win sums ([`WagerRow::scale`]).
    pub scale: i64,
}

impl CountTotals {
    fn add_shoe(&mut self, x: [i64; VARS]) {
        self.shoes += 1;
        for a in 0..VARS {
            self.sum[a] += x[a] as i128;
            for b in 0..VARS {
                self.sum_prod[a][b] += x[a] as i128 * x[b] as i128;
            }
        }
    }

    fn merge(&mut self, o: &CountTotals) {
        self.shoes += o.shoes;
        for a in 0..VARS {
            self.sum[a] += o.sum[a];
            for b in 0..VARS {
                self.sum_prod[a][b] += o.sum_prod[a][b];
            }
        }
    }
}

/// Play one shoe: the per-shoe quantities ([`VARS`]).
fn play_one(plan: &CountPlan, tags: &[i64; 52], master: &Seed, index: u64) -> [i64; VARS] {
    let mut x = [0i64; VARS];
    let mut rc = plan.strategy.start as i64;
    let mut left = 52 * plan.procedure.decks as usize;
    let exact = matches!(plan.strategy.kind, CountKind::ExactPair { .. });
    let mut unseen = [4 * plan.procedure.decks; 13];
    watch_shoe(&plan.procedure, master, index, |seen| match seen {
        Seen::Burn { shown, hidden } => {
            if let Some(c) = shown {
                rc += tags[c as usize];
                unseen[c as usize / 4] -= 1;
            }
            left -= usize::from(shown.is_some()) + hidden;
        }
        Seen::Coup { keys, cards, bets } => {
            if bets {
                let net = plan.row.net(keys);
                let units = if exact {
                    plan.strategy.units_exact_pair(&unseen, plan.row.scale)
                } else {
                    plan.strategy.units(rc, left)
                } as i64;
                x[WIN] += units * net;
                x[STAKED] += units;
                x[BET] += i64::from(units > 0);
                x[COUPS] += 1;
                x[FLAT] += net;
            }
            for &c in cards {
                rc += tags[c as usize];
                unseen[c as usize / 4] -= 1;
            }
            left -= cards.len();
        }
    });
    x
}

/// Play shoes `range` of master seed `master`.
pub fn run_count_shoes(plan: &CountPlan, master: &Seed, range: std::ops::Range<u64>, done: &AtomicU64) -> CountTotals {
    let tags: [i64; 52] = std::array::from_fn(|c| plan.strategy.tags[c / 4] as i64);
    let mut t = CountTotals { scale: plan.row.scale, ..Default::default() };
    for i in range {
        t.add_shoe(play_one(plan, &tags, master, i));
        done.fetch_add(1, Ordering::Relaxed);
    }
    t
}

/// Play `shoes` shoes on `threads` threads; the result does not depend on
/// `threads` (shoe `i`'s cards depend only on the seed and `i`).
pub fn run_count(plan: &CountPlan, master: &Seed, shoes: u64, threads: usize, done: &AtomicU64) -> CountTotals {
    let threads = threads.clamp(1, 256) as u64;
    let mut total = CountTotals { scale: plan.row.scale, ..Default::default() };
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|k| {
                let range = shoes * k / threads..shoes * (k + 1) / threads;
                scope.spawn(move || run_count_shoes(plan, master, range, done))
            })
            .collect();
        for h in handles {
            total.merge(&h.join().expect("count simulation thread"));
        }
    });
    total
}
