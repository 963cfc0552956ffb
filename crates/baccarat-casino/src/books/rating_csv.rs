//! A day's ratings as one CSV file, as the day's report is (`csv.rs`: money
//! in major units with two decimals, exactly; CRLF; names defused): two
//! blocks, each with its own header row, separated by an empty line:
//!
//! 1. `player,name,table,table_name,minutes,decisions,decisions_per_hour,
//!    wagers,wagered,average_bet,theo,theo_shoe,won,expected_won,band,
//!    within_band`: one row per player and table;
//! 2. `table,name,coups,minutes,coups_per_hour,theo,theo_per_hour`: one row
//!    per table.
//!
//! A rate is written with one decimal (a statistic, not money); empty when
//! there was no time to measure it by.

use super::csv::{line, text};
use super::rating::Ratings;

/// The ratings as CSV (see the module doc).
pub fn ratings_csv(r: &Ratings) -> String {
    let mut out = String::new();
    line(
        &mut out,
        "player,name,table,table_name,minutes,decisions,decisions_per_hour,wagers,wagered,average_bet,theo,\
         theo_shoe,won,expected_won,band,within_band",
    );
    for p in &r.players {
        let row = format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            p.player,
            text(&p.name),
            p.table,
            text(&p.table_name),
            p.minutes,
            p.decisions,
            rate(p.decisions_per_hour),
            p.wagers,
            p.wagered,
            p.average_bet,
            p.theo,
            p.theo_shoe,
            p.won,
            p.expected_won,
            p.band,
            p.within_band
        );
        line(&mut out, &row);
    }
    line(&mut out, "");
    line(&mut out, "table,name,coups,minutes,coups_per_hour,theo,theo_per_hour");
    for t in &r.tables {
        let per_hour = t.theo_per_hour.map(|m| m.to_string()).unwrap_or_default();
        let row = format!(
            "{},{},{},{},{},{},{}",
            t.table,
            text(&t.name),
            t.coups,
            t.minutes,
            rate(t.coups_per_hour),
            t.theo,
            per_hour
        );
        line(&mut out, &row);
    }
    out
}

fn rate(r: Option<f64>) -> String {
    r.map(|x| format!("{x:.1}")).unwrap_or_default()
}
