//! Player rating and who is taking it (issue 50, parts 4 and 5): each
//! player's play at each table in a gaming day, as the fold of its records
//! (`fold.rs`) gathers it, and the lines `GET /api/ratings` and
//! `GET /api/protection` answer.
//!
//! # What is chosen (the rulebooks are silent on rating)
//!
//! * **A seat** is a player's play at one table in one gaming day. Its
//!   **time** is the sum of its spans: a span runs from a wager's time (the
//!   coup's, on a table that keeps none) to its coup's time, and a gap of
//!   more than [`BREAK_MS`] between one coup and the player's next wager ends
//!   it (a player who leaves for dinner is not rated for dinner).
//! * **Decisions** are the coups the player had a wager in that stood; per
//!   hour, over the seat's time. **Average bet** is chips wagered per
//!   decision.
//! * **Theo** is the day books' (`theo.rs`): each wager's stake times its
//!   bet's exact house edge for a fresh shoe, summed exactly, rounded once
//!   per seat. **Theo at placement** (`theo_shoe`) prices each wager from
//!   the cards the table had shown when its coup's betting was open
//!   (`worth.rs`): what the wager was really worth. It is summed in
//!   millionths of a cent (each wager's part rounded to the nearest; the sum
//!   is off by under a cent for a million wagers) and rounded once.
//! * **The band**: the player's actual result (`won`, their net, exactly
//!   the ledger's) against the expected (`-theo_shoe`), with a 95% band of
//!   `1.96 · √(Σ stake² · variance)` from each wager's exact variance at
//!   placement (a statistic: `f64`, rounded to the cent).
//! * **A table's pace**: its coups dealt to a result over its time (spans of
//!   coups, split by the same break), and its theo per hour.

use std::collections::BTreeMap;
use std::sync::Arc;

use baccarat_core::TableId;
use baccarat_rules::{Bet, Money, Offer};
use serde::{Deserialize, Serialize};

use super::taking::{self, Across, Point};
use super::theo::{round, Edge, Theo};
use super::worth::{Snapshot, Worth};

/// A gap longer than this between a coup and the next ends a span (30 min).
pub const BREAK_MS: u64 = 30 * 60_000;

/// How many of a seat's wagers of each kind the surveillance report lists:
/// those of highest EV.
pub const SEEN: usize = 10;

/// A coup of the day dealt to a result, with what was known as its betting
/// was open.
pub struct Played {
    pub shoe: u64,
    pub coup: u64,
    pub at: u64,
    pub known: Arc<Snapshot>,
}

/// One wager of a seat, as the fold hands it over at its settlement.
pub struct Rated {
    /// Its coup's place in the table's [`Played`] list.
    pub coup: usize,
    pub bet: Bet,
    pub stake: Money,
    /// The player's net on it (negative: the house won).
    pub won: Money,
    /// When it was accepted (the coup's time, on a table keeping none).
    pub at: u64,
    pub edge: Option<Edge>,
    pub worth: Option<Worth>,
    pub known: Arc<Snapshot>,
}

/// A seat's sums (see the module doc).
#[derive(Default)]
pub struct Seat {
    wagers: u64,
    wagered: Money,
    won: Money,
    theo: Theo,
    theo_shoe_micro: i128,
    variance: f64,
    /// (coup, bet, stake in cents), in the order settled.
    stakes: Vec<(usize, Bet, i64)>,
    /// (wager's time, coup's time) per wager.
    times: Vec<(u64, u64)>,
    seen: BTreeMap<Bet, Vec<WagerSeen>>,
}

impl Seat {
    pub fn add(&mut self, w: Rated, played: &[Played]) {
        self.wagers += 1;
        self.wagered = self.wagered + w.stake;
        self.won = self.won + w.won;
        if let Some(e) = w.edge {
            self.theo.add(e, w.stake);
        }
        let at = played.get(w.coup).map_or(w.at, |p| p.at);
        self.times.push((w.at.min(at), at));
        self.stakes.push((w.coup, w.bet, w.stake.0));
        let Some(worth) = w.worth else { return };
        // −stake × ev, in millionths of a cent.
        let micro = i128::from(w.stake.0) * 1_000_000;
        self.theo_shoe_micro -= round(micro * worth.ev.num, worth.ev.den);
        self.variance += (w.stake.0 as f64).powi(2) * worth.var;
        let p = played.get(w.coup);
        self.seen(WagerSeen {
            shoe: p.map_or(0, |p| p.shoe),
            coup: p.map_or(0, |p| p.coup),
            bet: w.bet,
            stake: w.stake,
            ev: format!("{}/{}", worth.ev.num, worth.ev.den),
            ev_percent: worth.ev.to_f64() * 100.0,
            unseen: w.known.ranks(),
        });
    }

    /// A promotional token's wager settled: its winnings are the player's
    /// (NSW 1.1), but it is not chips wagered, nor rated.
    pub fn token_won(&mut self, won: Money) {
        self.won = self.won + won;
    }

    /// Keep the [`SEEN`] wagers of highest EV of each kind.
    fn seen(&mut self, w: WagerSeen) {
        let kept = self.seen.entry(w.bet).or_default();
        kept.push(w);
        kept.sort_by(|a, b| b.ev_percent.total_cmp(&a.ev_percent));
        kept.truncate(SEEN);
    }

    /// The seat's rating line.
    pub fn rating(&self, player: u32, table: TableId) -> RatingLine {
        let decisions = self.decisions();
        let minutes = spans(self.times.iter().copied()).div_ceil(60_000);
        let theo_shoe = Money(round(self.theo_shoe_micro, 1_000_000) as i64);
        let band = Money((1.96 * self.variance.sqrt()).round() as i64);
        RatingLine {
            player,
            name: String::new(),
            table,
            table_name: String::new(),
            minutes,
            decisions,
            decisions_per_hour: per_hour(decisions as f64, minutes),
            wagers: self.wagers,
            wagered: self.wagered,
            average_bet: Money(if decisions == 0 { 0 } else { self.wagered.0 / decisions as i64 }),
            theo: self.theo.cents(),
            theo_shoe,
            won: self.won,
            expected_won: Money(-theo_shoe.0),
            band,
            within_band: (self.won.0 + theo_shoe.0).abs() <= band.0,
        }
    }

    fn decisions(&self) -> u64 {
        let mut coups: Vec<usize> = self.stakes.iter().map(|s| s.0).collect();
        coups.sort_unstable();
        coups.dedup();
        coups.len() as u64
    }

    /// The test of `taking.rs` on each wager the seat made, over the coups
    /// from its first wager to its last.
    pub fn taking(&self, played: &[Played], offers: &[Offer]) -> Vec<(Bet, taking::Found, Vec<WagerSeen>)> {
        let (Some(first), Some(last)) = (self.stakes.iter().map(|s| s.0).min(), self.stakes.iter().map(|s| s.0).max())
        else {
            return Vec::new();
        };
        let mut bets: Vec<Bet> = self.stakes.iter().map(|s| s.1).collect();
        bets.sort();
        bets.dedup();
        let mut staked: BTreeMap<(usize, Bet), i64> = BTreeMap::new();
        self.stakes.iter().for_each(|&(c, b, s)| *staked.entry((c, b)).or_default() += s);
        bets.into_iter()
            .map(|bet| {
                let points: Vec<Point> = (first..=last)
                    .filter_map(|c| {
                        let ev = played.get(c)?.known.of(offers, bet)?.ev.to_f64();
                        Some(Point { stake: staked.get(&(c, bet)).copied().unwrap_or(0) as f64, ev })
                    })
                    .collect();
                let seen = self.seen.get(&bet).cloned().unwrap_or_default();
                (bet, taking::test(&points), seen)
            })
            .collect()
    }
}

/// The time covered by spans of (start, end) times, a gap of more than
/// [`BREAK_MS`] ending a span.
pub fn spans(times: impl Iterator<Item = (u64, u64)>) -> u64 {
    let mut t: Vec<(u64, u64)> = times.collect();
    t.sort_unstable_by_key(|x| (x.1, x.0));
    let mut total = 0;
    let mut span: Option<(u64, u64)> = None;
    for (start, end) in t {
        span = match span {
            Some((s, e)) if start <= e.saturating_add(BREAK_MS) => Some((s.min(start), e.max(end))),
            other => {
                total += other.map_or(0, |(s, e)| e - s);
                Some((start, end))
            }
        };
    }
    total + span.map_or(0, |(s, e)| e - s)
}

/// `count` per hour over `minutes` (`None`: no time to measure by).
pub fn per_hour(count: f64, minutes: u64) -> Option<f64> {
    (minutes > 0).then(|| count * 60.0 / minutes as f64)
}

/// One seat's rating.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RatingLine {
    pub player: u32,
    pub name: String,
    pub table: TableId,
    pub table_name: String,
    /// Time at the table, in whole minutes rounded up (breaks left out).
    pub minutes: u64,
    /// Coups with a wager of the player's that stood.
    pub decisions: u64,
    /// Measured: decisions over the time at the table (`null`: no time).
    pub decisions_per_hour: Option<f64>,
    pub wagers: u64,
    /// Chips wagered that stood, in cents.
    pub wagered: Money,
    /// Chips wagered per decision, truncated to the cent.
    pub average_bet: Money,
    /// Σ stake × the bet's exact house edge for a fresh shoe (the day
    /// books' theo), rounded once to the cent.
    pub theo: Money,
    /// Σ stake × the bet's exact house edge from the cards shown when it
    /// was placed, rounded once to the cent.
    pub theo_shoe: Money,
    /// The player's net (the ledger's, to the cent).
    pub won: Money,
    /// What they could expect to have won: `-theo_shoe`.
    pub expected_won: Money,
    /// Half the 95% band around `expected_won`, in cents.
    pub band: Money,
    /// Whether `won` is within the band.
    pub within_band: bool,
}

/// One table's pace over the day.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TablePace {
    pub table: TableId,
    pub name: String,
    /// Coups dealt to a result.
    pub coups: u64,
    /// The table's time in play, in whole minutes rounded up.
    pub minutes: u64,
    pub coups_per_hour: Option<f64>,
    /// The day books' theo for the table.
    pub theo: Money,
    /// Theo per hour in play, rounded to the cent.
    pub theo_per_hour: Option<Money>,
}

/// A wager as the surveillance report shows it, with the cards behind it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WagerSeen {
    pub shoe: u64,
    pub coup: u64,
    pub bet: Bet,
    pub stake: Money,
    /// Its exact EV when placed (`"num/den"`), and in percent for display.
    pub ev: String,
    pub ev_percent: f64,
    /// The cards not yet shown when it was placed, by rank, A to K.
    pub unseen: [u32; 13],
}

/// One player's wagers of one kind at one table, tested (`taking.rs`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TakingLine {
    pub player: u32,
    pub name: String,
    pub table: TableId,
    pub table_name: String,
    pub bet: Bet,
    /// Coups of the session (from the player's first wager at the table to
    /// their last), and the player's wagers of this kind in them.
    pub coups: u64,
    pub wagers: u64,
    /// Wagers placed while the EV was above 0; coups at which it was.
    pub positive_wagers: u64,
    pub positive_coups: u64,
    /// The stake-weighted mean EV of the wagers, in percent.
    pub ev_taken_percent: f64,
    /// Spearman's rank correlation of stake with EV (`null`: a constant).
    pub rank_correlation: Option<f64>,
    /// Cents more staked per unit of EV (least squares; `null`: the EV
    /// never moved).
    pub slope: Option<f64>,
    pub z: f64,
    pub flagged: bool,
    /// The wagers of highest EV, with the cards behind each.
    pub wagers_seen: Vec<WagerSeen>,
}

/// One player's wagers of one kind at two or more tables in a gaming day,
/// their tables' tests taken together (`taking::across`): a counter who
/// spreads a few positive wagers over several tables, too few to be flagged
/// at any one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AcrossLine {
    pub player: u32,
    pub name: String,
    pub bet: Bet,
    /// The tables, in order of their ids.
    pub tables: Vec<TableId>,
    /// The tables' sessions summed (see [`TakingLine`]) and their `z`
    /// combined: Stouffer's, their sum over the square root of their number.
    #[serde(flatten)]
    pub found: Across,
}

/// A gaming day's ratings and surveillance report.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Ratings {
    pub date: String,
    pub zone: String,
    pub cutoff_hour: u8,
    pub from_ms: u64,
    pub to_ms: u64,
    pub players: Vec<RatingLine>,
    pub tables: Vec<TablePace>,
    /// Most suspicious first (largest `z`).
    pub taking: Vec<TakingLine>,
    /// Each player's wagers of one kind at two or more tables, taken
    /// together; most suspicious first.
    pub across: Vec<AcrossLine>,
    /// The flag's threshold and the fewest wagers it needs.
    pub z_flag: f64,
    pub min_wagers: u64,
}
