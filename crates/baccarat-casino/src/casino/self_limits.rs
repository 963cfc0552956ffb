//! A player's own limits (responsible gaming): a loss limit and a play-time
//! limit per day, and a cool-off. The player sets them; the writer enforces
//! them on every wager it places (`Casino::wager`), so no page, retry, second
//! tab or direct API call gets round them.
//!
//! The rulebooks set no such tools; these follow the usual conditions of
//! operators' pre-commitment schemes:
//!
//! * **Tighter at once, looser a day later.** A lower limit (or a first one)
//!   is in force immediately; a higher one, or none, only after
//!   [`LOOSEN_DELAY_MS`], so a limit set in a calm moment holds through a
//!   heated one. Each limit on its own; asking for a tighter one also cancels
//!   a loosening still waiting.
//! * **A cool-off** stops every wager, with the wallet or with promotional
//!   tokens, until it ends. It can be made longer, never shorter.
//! * **A day is a UTC day.** At the player's first wager of the day with a
//!   limit in force, the writer records the day's *base*: the wallet's
//!   available balance then. A deposit raises the base by its amount, so
//!   chips bought do not buy more loss; a cash-out lowers it by its amount,
//!   so chips taken home are not counted as lost (nor a deposit as won).
//!   The day's loss is the base less what is available now: stakes on the
//!   table count as lost until they are settled, so a wager is refused when
//!   losing it could take the day past the limit, and a win gives room back
//!   (the limit is on the net loss).
//! * **Minutes** count from the day's first wager; at the limit, wagers are
//!   refused until the next day.
//!
//! Every change is a record in the casino's chain (`LimitsSet`, `CoolOff`,
//! `PlayDay`) and the state is in each checkpoint; recovery folds the chain's
//! tail into it in order, deposits included ([`apply`]), so a restart enforces
//! exactly what was in force.

use std::collections::BTreeMap;

use baccarat_rules::Money;
use baccarat_table::PlayerId;
use serde::{Deserialize, Serialize};

use crate::audit::CasinoEvent;

/// How long a looser limit waits before it is in force: 24 hours.
pub const LOOSEN_DELAY_MS: u64 = 24 * 3_600_000;

/// The longest play-time limit: a whole day, in minutes.
pub const MAX_MINUTES: u32 = 1_440;

/// The longest cool-off a player may ask for at once: a year, in hours.
pub const MAX_COOL_OFF_HOURS: u64 = 8_760;

/// A day, in ms (limits count UTC days).
pub const DAY_MS: u64 = 86_400_000;

/// One limit: the value in force, and a looser one waiting for its time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limit<T> {
    pub now: Option<T>,
    /// (the value, from when): a loosening, in force from `.1`.
    pub later: Option<(Option<T>, u64)>,
}

impl<T: Ord + Copy> Limit<T> {
    /// The value in force at `ms`.
    pub fn at(&self, ms: u64) -> Option<T> {
        match self.later {
            Some((v, from)) if ms >= from => v,
            _ => self.now,
        }
    }

    /// Ask for `v` at `ms`: at once if it is no looser than what is in force,
    /// else from `ms + LOOSEN_DELAY_MS`.
    fn ask(&mut self, v: Option<T>, ms: u64) {
        let current = self.at(ms);
        let tighter = match (current, v) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(c), Some(n)) => n <= c,
        };
        if tighter {
            *self = Limit { now: v, later: None };
        } else {
            *self = Limit { now: current, later: Some((v, ms + LOOSEN_DELAY_MS)) };
        }
    }
}

/// The day's play, for the limits: its UTC day number, the base its loss is
/// measured from, and when its first wager was placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayDay {
    pub day: u64,
    pub base: Money,
    pub first_ms: u64,
}

/// A player's limits, as the writer holds them (and a checkpoint carries them).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SelfLimits {
    pub player: PlayerId,
    pub loss_per_day: Limit<Money>,
    pub minutes_per_day: Limit<u32>,
    /// No wager before this time (ms since the epoch); 0 for none.
    pub cool_off_until: u64,
    pub day: Option<PlayDay>,
    /// At a partition: the day (UTC day number) and time of the player's
    /// first allotment that day at any partition, as the bank counted it
    /// (`bank/limits.rs`): a day opened here counts its minutes from it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_elsewhere: Option<(u64, u64)>,
}

impl SelfLimits {
    fn new(player: PlayerId) -> SelfLimits {
        SelfLimits {
            player,
            loss_per_day: Limit::default(),
            minutes_per_day: Limit::default(),
            cool_off_until: 0,
            day: None,
            first_elsewhere: None,
        }
    }

    /// At a partition: the player's day began at `first_ms` elsewhere (the
    /// bank's first allotment of the day, or another partition's first
    /// wager): its minutes count from the earliest known.
    fn began_elsewhere(&mut self, first_ms: u64) {
        let day = first_ms / DAY_MS;
        let first = match self.first_elsewhere {
            Some((d, g)) if d == day => g.min(first_ms),
            _ => first_ms,
        };
        self.first_elsewhere = Some((day, first));
        if let Some(d) = self.day.as_mut().filter(|d| d.day == day) {
            d.first_ms = d.first_ms.min(first);
        }
    }

    /// Whether a day begun elsewhere at `first_ms` is news here: no earlier
    /// start of that day is known.
    pub fn would_learn(&self, first_ms: u64) -> bool {
        let day = first_ms / DAY_MS;
        let known = [
            self.first_elsewhere.filter(|(d, _)| *d == day).map(|(_, f)| f),
            self.day.filter(|d| d.day == day).map(|d| d.first_ms),
        ];
        known.into_iter().flatten().all(|f| first_ms < f)
    }

    /// May a wager of `held` (stake and ante) be placed at `now`, with
    /// `available` in the account it comes from (`token`: promotional tokens,
    /// which are not the player's money, so only the cool-off and the minutes
    /// apply)? On success, the day to record if this wager opens one.
    pub fn admit(&self, now: u64, available: Money, held: Money, token: bool) -> Result<Option<PlayDay>, LimitRefusal> {
        if now < self.cool_off_until {
            return Err(LimitRefusal::CoolOff { until_ms: self.cool_off_until });
        }
        let (loss, minutes) = (self.loss_per_day.at(now), self.minutes_per_day.at(now));
        if loss.is_none() && minutes.is_none() {
            return Ok(None);
        }
        let today = now / DAY_MS;
        let (day, new) = match self.day {
            Some(d) if d.day == today => (d, false),
            _ => {
                // At a partition, the minutes count from the day's first
                // wager at any partition, as far as the bank has seen it.
                let first = match self.first_elsewhere {
                    Some((d, f)) if d == today => f.min(now),
                    _ => now,
                };
                (PlayDay { day: today, base: available, first_ms: first }, true)
            }
        };
        if let Some(m) = minutes {
            let end = day.first_ms + u64::from(m) * 60_000;
            if now >= end {
                return Err(LimitRefusal::Minutes { minutes: m, reached_ms: end, opens_ms: (today + 1) * DAY_MS });
            }
        }
        if let (Some(limit), false) = (loss, token) {
            let lost = day.base - available;
            if lost + held > limit {
                return Err(LimitRefusal::Loss {
                    limit,
                    lost: lost.max(Money::ZERO),
                    room: (limit - lost).max(Money::ZERO),
                    held,
                    resets_ms: (today + 1) * DAY_MS,
                });
            }
        }
        Ok(new.then_some(day))
    }

    /// What the player's page shows, at `now` with `available` in the wallet.
    pub fn view(&self, now: u64, available: Money) -> SelfLimitsView {
        let today = now / DAY_MS;
        let day = self.day.filter(|d| d.day == today);
        let loss = self.loss_per_day.at(now);
        let minutes = self.minutes_per_day.at(now);
        let lost = day.map_or(Money::ZERO, |d| d.base - available);
        SelfLimitsView {
            loss_per_day: loss,
            loss_per_day_later: Later::waiting(self.loss_per_day.later, now),
            minutes_per_day: minutes,
            minutes_per_day_later: Later::waiting(self.minutes_per_day.later, now),
            cool_off_until_ms: (self.cool_off_until > now).then_some(self.cool_off_until),
            today: Today {
                lost: lost.max(Money::ZERO),
                loss_left: loss.map(|l| (l - lost).max(Money::ZERO)),
                first_wager_ms: day.map(|d| d.first_ms),
                minutes_left: minutes.map(|m| {
                    day.map_or(u64::from(m), |d| {
                        (d.first_ms + u64::from(m) * 60_000).saturating_sub(now).div_ceil(60_000)
                    })
                }),
                resets_at_ms: (today + 1) * DAY_MS,
            },
        }
    }
}

/// A player's limits as their page shows them (`GET /api/me/limits`): in
/// force, a looser one waiting for its time, the cool-off, today's play.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct SelfLimitsView {
    /// The net loss allowed per UTC day, in minor units; null: none.
    pub loss_per_day: Option<Money>,
    /// A looser loss limit (or none), in force from its time.
    pub loss_per_day_later: Option<Later<Money>>,
    /// Minutes of play per UTC day from the day's first wager; null: none.
    #[schemars(range(min = 1, max = MAX_MINUTES))]
    pub minutes_per_day: Option<u32>,
    /// A looser play-time limit (or none), in force from its time.
    pub minutes_per_day_later: Option<Later<u32>>,
    /// No wagers until then (ms since the epoch); null: no cool-off.
    pub cool_off_until_ms: Option<u64>,
    pub today: Today,
}

/// A loosening waiting for its time: the value (null: no limit) from `at_ms`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Later<T> {
    pub value: Option<T>,
    pub at_ms: u64,
}

impl<T> Later<T> {
    /// A limit's loosening, if it is still to come at `now`.
    fn waiting(later: Option<(Option<T>, u64)>, now: u64) -> Option<Self> {
        later.filter(|l| now < l.1).map(|(value, at_ms)| Later { value, at_ms })
    }
}

/// Today's play (a UTC day) as the limits count it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Today {
    /// The net loss so far (stakes on the table count as lost until settled).
    pub lost: Money,
    /// What may still be lost today; null: no loss limit.
    pub loss_left: Option<Money>,
    /// The day's first wager with a limit in force (ms); null: none yet.
    pub first_wager_ms: Option<u64>,
    /// Minutes of play left today; null: no play-time limit.
    pub minutes_left: Option<u64>,
    /// When the day's count starts again (the next UTC midnight, ms).
    pub resets_at_ms: u64,
}

/// The view of a player who set nothing.
pub fn view_of(all: &BTreeMap<PlayerId, SelfLimits>, player: PlayerId, now: u64, available: Money) -> SelfLimitsView {
    all.get(&player).cloned().unwrap_or_else(|| SelfLimits::new(player)).view(now, available)
}

/// Fold a casino record into the limits (the writer, and recovery).
pub fn apply(all: &mut BTreeMap<PlayerId, SelfLimits>, e: &CasinoEvent) {
    match e {
        CasinoEvent::LimitsSet { player, loss_per_day, minutes_per_day, at_ms, .. } => {
            let s = all.entry(*player).or_insert_with(|| SelfLimits::new(*player));
            s.loss_per_day.ask(*loss_per_day, *at_ms);
            s.minutes_per_day.ask(*minutes_per_day, *at_ms);
        }
        CasinoEvent::CoolOff { player, until, .. } => {
            let s = all.entry(*player).or_insert_with(|| SelfLimits::new(*player));
            s.cool_off_until = s.cool_off_until.max(*until);
        }
        CasinoEvent::PlayDay { player, day, base, first_ms, shared: None } => {
            let s = all.entry(*player).or_insert_with(|| SelfLimits::new(*player));
            s.day = Some(PlayDay { day: *day, base: *base, first_ms: *first_ms });
        }
        // Another partition's: the day began there then.
        CasinoEvent::PlayDay { player, first_ms, shared: Some(_), .. } => {
            let s = all.entry(*player).or_insert_with(|| SelfLimits::new(*player));
            s.began_elsewhere(*first_ms);
        }
        // Money in or out that is no wager's: the day's loss is measured
        // past it. (At a partition, money comes from the bank and goes back
        // to it, `casino/bank_side.rs`: neither is a win or a loss.)
        CasinoEvent::Deposit { player, amount, .. } | CasinoEvent::Allotted { player, amount, .. } => {
            if let Some(d) = all.get_mut(player).and_then(|s| s.day.as_mut()) {
                d.base = d.base + *amount;
            }
            if let (CasinoEvent::Allotted { day_first_ms: Some(f), .. }, Some(s)) = (e, all.get_mut(player)) {
                s.began_elsewhere(*f);
            }
        }
        // A cash-out is money leaving, not a loss: the base goes down with
        // it, so the day's loss (base less available) does not move.
        CasinoEvent::Returned { player, amount, .. } | CasinoEvent::CashedOut { player, amount, .. } => {
            if let Some(d) = all.get_mut(player).and_then(|s| s.day.as_mut()) {
                d.base = d.base - *amount;
            }
        }
        _ => {}
    }
}

/// Why a player's own limit refuses a wager (the rulebooks set no such
/// tools: module docs), in the player-facing sentences they were: a
/// cool-off, the day's minutes, or the day's loss.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LimitRefusal {
    /// A cool-off the player set runs until `until_ms`.
    #[error("You are taking a break until {} (a cool-off you set): no wagers until then.", at(.until_ms))]
    CoolOff { until_ms: u64 },
    /// The day's `minutes`, reached at `reached_ms`; open again at `opens_ms`.
    #[error(
        "You set a limit of {minutes} minutes of play a day, reached at {}: wagers open again at {}.",
        at(.reached_ms),
        at(.opens_ms)
    )]
    Minutes { minutes: u32, reached_ms: u64, opens_ms: u64 },
    /// The day's loss `limit`: `lost` so far, `room` left, `held` asked.
    #[error(
        "You set a loss limit of {limit} a day: today {lost} is lost or on the table, so at most {room} more \
         may be staked, and this wager is {held}. It resets at {}.",
        at(.resets_ms)
    )]
    Loss { limit: Money, lost: Money, room: Money, held: Money, resets_ms: u64 },
}

/// [`utc`] of a field, for the messages above.
fn at(ms: &u64) -> String {
    utc(*ms)
}

/// `YYYY-MM-DD HH:MM UTC`.
fn utc(ms: u64) -> String {
    let (y, m, d) = baccarat_core::civil_date(ms);
    let minute = (ms % DAY_MS) / 60_000;
    format!("{y:04}-{m:02}-{d:02} {:02}:{:02} UTC", minute / 60, minute % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: PlayerId = PlayerId(7);
    const T: u64 = 1_795_478_400_000; // 2026-11-24 00:00 UTC

    fn set(all: &mut BTreeMap<PlayerId, SelfLimits>, loss: Option<i64>, minutes: Option<u32>, at_ms: u64) {
        let e = CasinoEvent::LimitsSet {
            player: P,
            loss_per_day: loss.map(Money),
            minutes_per_day: minutes,
            at_ms,
            shared: None,
        };
        apply(all, &e);
    }

    #[test]
    fn tighter_is_at_once_and_looser_a_day_later() {
        let mut all = BTreeMap::new();
        set(&mut all, Some(50_000), None, T);
        assert_eq!(all[&P].loss_per_day.at(T), Some(Money(50_000)), "a first limit is at once");
        set(&mut all, Some(20_000), None, T + 1);
        assert_eq!(all[&P].loss_per_day.at(T + 1), Some(Money(20_000)), "lower is at once");
        set(&mut all, Some(90_000), None, T + 2);
        assert_eq!(all[&P].loss_per_day.at(T + 2), Some(Money(20_000)), "higher waits");
        assert_eq!(all[&P].loss_per_day.at(T + 2 + LOOSEN_DELAY_MS - 1), Some(Money(20_000)));
        assert_eq!(all[&P].loss_per_day.at(T + 2 + LOOSEN_DELAY_MS), Some(Money(90_000)));
        set(&mut all, None, None, T + 3);
        assert_eq!(all[&P].loss_per_day.at(T + 3 + LOOSEN_DELAY_MS), None, "removing waits too");
        assert_eq!(all[&P].loss_per_day.at(T + 3 + LOOSEN_DELAY_MS - 1), Some(Money(20_000)));
        // Asking for a tighter one cancels the loosening that waits.
        set(&mut all, Some(20_000), None, T + 4);
        assert_eq!(all[&P].loss_per_day.at(T + 10 * LOOSEN_DELAY_MS), Some(Money(20_000)));
        // The minutes go their own way.
        set(&mut all, Some(20_000), Some(60), T + 5);
        assert_eq!(all[&P].minutes_per_day.at(T + 5), Some(60));
    }

    #[test]
    fn the_days_loss_counts_stakes_on_the_table_and_deposits_do_not_buy_more() {
        let mut all = BTreeMap::new();
        set(&mut all, Some(10_000), None, T);
        let s = &all[&P];
        // First wager of the day: base 100,000 available.
        let day = s.admit(T + 1, Money(100_000), Money(6_000), false).unwrap().expect("opens the day");
        apply(
            &mut all,
            &CasinoEvent::PlayDay { player: P, day: day.day, base: day.base, first_ms: day.first_ms, shared: None },
        );
        // 6,000 on the table: 4,000 more may be staked, not 4,001.
        let s = &all[&P];
        assert_eq!(s.admit(T + 2, Money(94_000), Money(4_000), false), Ok(None));
        let e = s.admit(T + 2, Money(94_000), Money(4_001), false).unwrap_err().to_string();
        assert!(e.contains("loss limit of 100.00") && e.contains("60.00") && e.contains("40.00"), "{e}");
        // A deposit raises the base: still 4,000 more.
        apply(&mut all, &CasinoEvent::Deposit { player: P, amount: Money(50_000), key: "k".into(), at_ms: None });
        let s = &all[&P];
        assert!(s.admit(T + 3, Money(144_000), Money(4_001), false).is_err());
        assert!(s.admit(T + 3, Money(144_000), Money(4_000), false).is_ok());
        // At a partition, money from the bank and back is neither a win nor
        // a loss: the room stays 4,000 through both.
        let bank = |e: CasinoEvent, all: &mut BTreeMap<PlayerId, SelfLimits>| apply(all, &e);
        let allotted = CasinoEvent::Allotted {
            player: P,
            amount: Money(20_000),
            bank_seq: 1,
            bank_hash: "h".into(),
            day_first_ms: None,
        };
        bank(allotted, &mut all);
        assert!(all[&P].admit(T + 3, Money(164_000), Money(4_001), false).is_err());
        assert!(all[&P].admit(T + 3, Money(164_000), Money(4_000), false).is_ok());
        bank(CasinoEvent::Returned { player: P, amount: Money(20_000), reference: "r".into() }, &mut all);
        let s = &all[&P];
        assert!(s.admit(T + 3, Money(144_000), Money(4_001), false).is_err());
        assert!(s.admit(T + 3, Money(144_000), Money(4_000), false).is_ok());
        // A win gives room back: the limit is on the net loss.
        assert!(s.admit(T + 4, Money(160_000), Money(14_000), false).is_ok());
        // Promotional tokens are not the player's money.
        assert!(s.admit(T + 4, Money(0), Money(50_000), true).is_ok());
        // The next day starts again from what is available then.
        let next = s.admit(T + DAY_MS, Money(90_000), Money(10_000), false).unwrap().expect("a new day");
        assert_eq!((next.base, next.day), (Money(90_000), T / DAY_MS + 1));
    }

    #[test]
    fn the_minutes_count_from_the_days_first_wager_and_a_cool_off_stops_everything() {
        let mut all = BTreeMap::new();
        set(&mut all, None, Some(30), T);
        apply(
            &mut all,
            &CasinoEvent::PlayDay { player: P, day: T / DAY_MS, base: Money(0), first_ms: T + 60_000, shared: None },
        );
        let s = &all[&P];
        assert!(s.admit(T + 60_000 + 30 * 60_000 - 1, Money(1), Money(1), false).is_ok());
        let e = s.admit(T + 60_000 + 30 * 60_000, Money(1), Money(1), true).unwrap_err().to_string();
        assert!(e.contains("30 minutes") && e.contains("2026-11-25 00:00 UTC"), "{e}");
        assert!(s.admit(T + DAY_MS, Money(1), Money(1), false).is_ok(), "a new day");
        apply(&mut all, &CasinoEvent::CoolOff { player: P, until: T + 5 * DAY_MS, shared: None });
        apply(&mut all, &CasinoEvent::CoolOff { player: P, until: T + DAY_MS, shared: None });
        let s = &all[&P];
        assert_eq!(s.cool_off_until, T + 5 * DAY_MS, "never shorter");
        let e = s.admit(T + 4 * DAY_MS, Money(1), Money(1), true).unwrap_err().to_string();
        assert!(e.contains("until 2026-11-29 00:00 UTC"), "{e}");
        assert!(s.admit(T + 5 * DAY_MS, Money(1), Money(1), false).is_ok());
    }

    /// Another partition's day opening (`PlayDay` with `shared`) moves the
    /// minutes' start earlier, never later, and leaves the loss base alone;
    /// it is news only while no earlier start of that day is known.
    #[test]
    fn a_day_begun_elsewhere_counts_the_minutes_from_the_earliest_start() {
        let mut all = BTreeMap::new();
        set(&mut all, Some(10_000), Some(30), T);
        let here = CasinoEvent::PlayDay {
            player: P,
            day: T / DAY_MS,
            base: Money(50_000),
            first_ms: T + 600_000,
            shared: None,
        };
        apply(&mut all, &here);
        assert!(
            all[&P].would_learn(T + 60_000) && !all[&P].would_learn(T + 600_000) && !all[&P].would_learn(T + 700_000)
        );
        let elsewhere =
            |first_ms| CasinoEvent::PlayDay { player: P, day: T / DAY_MS, base: Money(1), first_ms, shared: Some(7) };
        apply(&mut all, &elsewhere(T + 60_000));
        apply(&mut all, &elsewhere(T + 300_000));
        let s = &all[&P];
        assert_eq!(s.day.map(|d| (d.first_ms, d.base)), Some((T + 60_000, Money(50_000))), "earliest start, own base");
        assert!(s.admit(T + 60_000 + 30 * 60_000 - 1, Money(50_000), Money(1), false).is_ok());
        assert!(s.admit(T + 60_000 + 30 * 60_000, Money(50_000), Money(1), false).is_err());
        // Yesterday's start is not today's.
        apply(&mut all, &elsewhere(T - DAY_MS));
        assert_eq!(all[&P].day.map(|d| d.first_ms), Some(T + 60_000));
        // A player with no day here yet opens it from the start elsewhere.
        let mut fresh = BTreeMap::new();
        set(&mut fresh, None, Some(30), T);
        apply(&mut fresh, &elsewhere(T + 60_000));
        let day = fresh[&P].admit(T + 120_000, Money(1), Money(1), false).unwrap().expect("a day opened here");
        assert_eq!(day.first_ms, T + 60_000);
    }
}

#[cfg(test)]
mod refusal_tests {
    use super::{utc, LimitRefusal};
    use baccarat_rules::Money;

    /// The refusals read as the sentences they replaced, byte for byte (the
    /// player reads them; tests match on them).
    #[test]
    fn refusals_read_as_before() {
        let e = LimitRefusal::Minutes { minutes: 30, reached_ms: 5, opens_ms: 86_400_000 };
        assert_eq!(
            e.to_string(),
            format!(
                "You set a limit of 30 minutes of play a day, reached at {}: wagers open again at {}.",
                utc(5),
                utc(86_400_000)
            )
        );
        let e =
            LimitRefusal::Loss { limit: Money(100), lost: Money(60), room: Money(40), held: Money(41), resets_ms: 0 };
        assert_eq!(
            e.to_string(),
            format!(
                "You set a loss limit of {} a day: today {} is lost or on the table, so at most {} more may be \
                 staked, and this wager is {}. It resets at {}.",
                Money(100),
                Money(60),
                Money(40),
                Money(41),
                utc(0)
            )
        );
    }
}
