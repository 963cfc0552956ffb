//! The gaming day's books: per table and for the casino, what was wagered,
//! what the house won, its hold and its theoretical win, the chips moved
//! between the cage and the tables, the coups, the wagers and the players;
//! per player, what they wagered and won and for how long they played; the
//! cage's cash. Computed from the records alone (the audit chains), by a
//! pure fold ([`DayBooks`]), so that the report route and `verify` compute
//! the same figures and a saved report can be checked against the records
//! ([`differences`]).
//!
//! # Where the rulebooks are silent, and what is chosen
//!
//! The rulebooks have no gaming day, no drop, hold or theoretical win, and no
//! fills or credits; they ask for a drop box beside each table for the cash
//! exchanged there (NSW 2.4; AU 3.1). An electronic table exchanges no cash:
//!
//! * **The gaming day** (`gaming_day.rs`): a zone and a cut-off hour, as
//!   casinos keep it; UTC 06:00 until set.
//! * **Which day a wager is in.** A coup belongs to one gaming day whole, so
//!   that its stakes and its payouts are in the same day: the day holding the
//!   coup's time, the latest of its betting deadline (`betting_opened`'s
//!   `closes_at`) and the times its wagers were accepted (`at_ms`, the
//!   writer's clock). A coup straddling the cut-off (wagers before it, the
//!   deadline after) is the next day's. A coup with neither (a live table's,
//!   with no wager) is dated by the last time its chain told, and only its
//!   count depends on it.
//! * **The drop** is the chips wagered that stood: each settled wager's valid
//!   stake (its stake less any part void under AU 5.13). A wager withdrawn or
//!   returned before the deal (NSW 5.4, 14.12), or voided with its coup
//!   (NSW 12.11.2), was never at risk and is not in it. A wager made with
//!   promotional tokens is not chips (NSW 1.1) and not in the drop; it counts
//!   among the wagers, and what it wins is paid in chips, from the house.
//! * **The house's win**: stakes lost (chips; a lost token goes to its
//!   issuer) plus commission (AU 5.10(b)) plus antes collected (AU 14.6),
//!   less winnings paid: exactly what the table's house, commission and antes
//!   accounts gained from the day's wagers in the ledger (a test checks it to
//!   the cent). **Hold** is win over drop in basis points, truncated.
//! * **Theo** (`theo.rs`): each wager in the drop times its bet's exact house
//!   edge under the table's pay table for a full shoe of its decks, summed
//!   exactly per table and rounded once to the cent, half away from zero; the
//!   casino's is the sum of its tables' (so the rows add up). An ante is not
//!   priced.
//! * **Fills and credits**: the chips (cents) moved from the cage to a
//!   table's float and back (`cage.rs`), by the day of the movement.
//! * **Coups**: coups dealt to a result (a voided coup is not played).
//!   **Players**: distinct players with a wager in the drop, or a token wager.
//! * **A player's minutes**: from their first wager's time in the day to the
//!   time of their last coup in it, rounded up to a minute (the records have
//!   no sessions: a player who leaves and returns is counted throughout).
//! * **Cash**: deposits (chips bought at the cage) and cash-outs, by the day
//!   each was made (`cage.rs`).
//! * **Which tables are listed**: those with a coup, a wager, a fill or a
//!   credit that day. Tournaments and promotions are not table play and are
//!   not in these books.

mod cage;
#[cfg(test)]
mod calibrate;
mod csv;
mod fold;
mod gaming_day;
#[cfg(test)]
mod ledger_tests;
mod rating;
mod rating_csv;
mod report;
mod taking;
#[cfg(test)]
mod tests;
mod theo;
mod worth;

pub use cage::{cage_move, casino_time, CageMove};
pub use csv::to_csv;
pub use fold::DayBooks;
pub use gaming_day::{
    parse_date, Calendar, GamingDay, GamingDayError, DEFAULT_CUTOFF_HOUR, DEFAULT_ZONE, FIRST_DATE, LAST_DATE,
};
pub use jiff::civil::Date;
pub use rating::{AcrossLine, RatingLine, Ratings, TablePace, TakingLine, WagerSeen};
pub use rating_csv::ratings_csv;
pub use report::{differences, hold_bp, Cash, DayReport, Figures, PlayerLine, TableLine};
pub use taking::{MIN_WAGERS, Z_FLAG};

use crate::audit::{Body, CasinoEvent};
use baccarat_core::TableId;
use baccarat_table::PlayerId;

impl Calendar {
    /// Fold the casino chain's next record: a gaming day set (one whose zone
    /// this build's database no longer knows keeps the setting before it).
    pub fn record(&mut self, e: &CasinoEvent) {
        if let CasinoEvent::GamingDaySet { zone, cutoff_hour, at_ms, .. } = e {
            if let Ok(day) = GamingDay::parse(zone, i64::from(*cutoff_hour)) {
                self.set(*at_ms, day);
            }
        }
    }
}

/// The report's head for `date` under `calendar`: the date, its setting and
/// its window, with no figures yet.
pub fn head(calendar: &Calendar, date: Date) -> DayReport {
    let day = calendar.in_force(date);
    let (from_ms, to_ms) = calendar.window(date);
    DayReport {
        date: date.to_string(),
        zone: day.zone().to_string(),
        cutoff_hour: day.cutoff_hour(),
        from_ms,
        to_ms,
        ..DayReport::default()
    }
}

/// The day's report from whole chains in memory: the casino's events, and
/// each table's records in order. The same fold the store's readers feed a
/// record at a time.
pub fn day_report(
    date: Date,
    casino: &[CasinoEvent],
    tables: &[(TableId, Vec<Body>)],
    names: &dyn Fn(PlayerId) -> Option<String>,
) -> DayReport {
    let (books, head) = fold_whole(date, casino, tables, DayBooks::new);
    books.finish(head, names)
}

/// The day's ratings and surveillance report from whole chains in memory,
/// as [`day_report`] makes its report.
pub fn ratings(
    date: Date,
    casino: &[CasinoEvent],
    tables: &[(TableId, Vec<Body>)],
    names: &dyn Fn(PlayerId) -> Option<String>,
) -> Ratings {
    let (books, head) = fold_whole(date, casino, tables, DayBooks::rating);
    books.ratings(&head, names)
}

/// Whole chains folded into books for `date` (`make` chooses which), with
/// the report's head.
fn fold_whole(
    date: Date,
    casino: &[CasinoEvent],
    tables: &[(TableId, Vec<Body>)],
    make: fn((u64, u64)) -> DayBooks,
) -> (DayBooks, DayReport) {
    let mut calendar = Calendar::default();
    casino.iter().for_each(|e| calendar.record(e));
    let head = head(&calendar, date);
    let mut books = make((head.from_ms, head.to_ms));
    casino.iter().for_each(|e| books.casino_record(e));
    for (table, records) in tables {
        records.iter().for_each(|b| books.table_record(*table, b));
    }
    (books, head)
}
