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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::books::rating::{RatingLine, TablePace};
    use baccarat_core::TableId;
    use baccarat_rules::Money;

    /// A player who names themselves a formula opens as text; money is in
    /// major units exactly; an unmeasured rate is empty.
    #[test]
    fn a_formula_name_is_defused_and_money_is_exact() {
        let line = RatingLine {
            player: 7,
            name: "=HYPERLINK(\"x\")".into(),
            table: TableId(5),
            table_name: "Pit, \"east\"".into(),
            minutes: 61,
            decisions: 3,
            decisions_per_hour: Some(2.95),
            wagers: 4,
            wagered: Money(12_345),
            average_bet: Money(4_115),
            theo: Money(-7),
            theo_shoe: Money(130),
            won: Money(-2_000),
            expected_won: Money(-130),
            band: Money(9_801),
            within_band: true,
        };
        let pace = TablePace { table: TableId(5), name: "@pit".into(), coups: 9, minutes: 0, ..TablePace::default() };
        let r = Ratings { players: vec![line], tables: vec![pace], ..Ratings::default() };
        let rows: Vec<String> = ratings_csv(&r).split("\r\n").map(str::to_string).collect();
        assert_eq!(rows[1], "7,\"'=HYPERLINK(\"\"x\"\")\",5,\"Pit, \"\"east\"\"\",61,3,3.0,4,123.45,41.15,-0.07,1.30,-20.00,-1.30,98.01,true");
        assert_eq!(rows[4], "5,'@pit,9,0,,0.00,");
    }
}
