//! A day's report as one CSV file that a spreadsheet opens as it is: three
//! blocks, each with its own header row, separated by an empty line:
//!
//! 1. `row,table,name,drop,win,hold_bp,theo,fills,credits,coups,wagers,players`:
//!    one `table` row per table, then the `casino` row (table and name empty);
//! 2. `player,name,wagered,won,minutes`: one row per player;
//! 3. `date,zone,cutoff_hour,from_ms,to_ms,deposits,cash_outs`: the day and
//!    its cash.
//!
//! Money is written in major units with two decimals (`1234.50`), exactly (no
//! floats), so a spreadsheet reads it as the number it is; the JSON report
//! keeps cents. An empty `hold_bp` is no drop. Lines end in CRLF (RFC 4180).
//! A name is quoted where it holds a comma, a quote or a line break, and one
//! that a spreadsheet would take for a formula (`=`, `+`, `-`, `@`, a tab or
//! a carriage return first) is written with a `'` before it, so that opening
//! the file runs nothing a player chose as their name.

use std::fmt::Write;

use super::report::{DayReport, Figures};

/// The report as CSV (see the module doc).
pub fn to_csv(r: &DayReport) -> String {
    let mut out = String::new();
    line(&mut out, "row,table,name,drop,win,hold_bp,theo,fills,credits,coups,wagers,players");
    for t in &r.tables {
        let row = format!("table,{},{},{}", t.table, text(&t.name), figures(&t.figures));
        line(&mut out, &row);
    }
    line(&mut out, &format!("casino,,,{}", figures(&r.casino)));
    line(&mut out, "");
    line(&mut out, "player,name,wagered,won,minutes");
    for p in &r.players {
        line(&mut out, &format!("{},{},{},{},{}", p.player, text(&p.name), p.wagered, p.won, p.minutes));
    }
    line(&mut out, "");
    line(&mut out, "date,zone,cutoff_hour,from_ms,to_ms,deposits,cash_outs");
    let day = format!(
        "{},{},{},{},{},{},{}",
        text(&r.date),
        text(&r.zone),
        r.cutoff_hour,
        r.from_ms,
        r.to_ms,
        r.cash.deposits,
        r.cash.cash_outs
    );
    line(&mut out, &day);
    out
}

pub(super) fn line(out: &mut String, s: &str) {
    let _ = write!(out, "{s}\r\n");
}

fn figures(f: &Figures) -> String {
    let hold = f.hold_bp.map(|h| h.to_string()).unwrap_or_default();
    format!("{},{},{},{},{},{},{},{},{}", f.drop, f.win, hold, f.theo, f.fills, f.credits, f.coups, f.wagers, f.players)
}

/// A text cell: defused (a formula's first character) and quoted as needed.
pub(super) fn text(s: &str) -> String {
    let defused = if s.starts_with(['=', '+', '-', '@', '\t', '\r']) { format!("'{s}") } else { s.to_string() };
    if defused.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", defused.replace('"', "\"\""))
    } else {
        defused
    }
}
