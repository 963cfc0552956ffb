//! `baccarat admin gaming-day …` and `baccarat admin report day …`: the
//! casino's gaming day and a day's books (issue 47's contract, "The books").

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Subcommand;
use reqwest::Method;
use serde_json::{json, Value};

use super::amount::shown;
use super::client::{with_query, Client};
use super::Shown;

#[derive(Subcommand, Debug, PartialEq)]
pub enum GamingDayCommand {
    /// Set the gaming day: a time zone (IANA, e.g. Australia/Sydney) and the
    /// cut-off hour (0 to 23) at which one day ends and the next begins. It
    /// applies from the next gaming day that has not begun.
    Set {
        zone: String,
        #[arg(value_parser = clap::value_parser!(u8).range(0..=23))]
        hour: u8,
    },
    /// The gaming day as set.
    Show,
}

#[derive(Subcommand, Debug, PartialEq)]
pub enum ReportCommand {
    /// One gaming day's books: per table and for the casino, per player, and
    /// the cage's cash.
    Day {
        /// The gaming day, YYYY-MM-DD [default: the gaming day in
        /// progress, as the server's gaming day setting counts it].
        #[arg(value_parser = date_arg)]
        date: Option<String>,
        /// The server's CSV instead of its JSON.
        #[arg(long, conflicts_with = "json")]
        csv: bool,
        /// Write the report (JSON, or CSV with --csv) to this file, e.g. for
        /// `baccarat verify --report FILE`.
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

/// A date's shape, YYYY-MM-DD; whether the day exists is the server's to say.
pub fn date_arg(s: &str) -> Result<String, String> {
    let b = s.as_bytes();
    let shaped = b.len() == 10
        && b.iter().enumerate().all(|(i, c)| if i == 4 || i == 7 { *c == b'-' } else { c.is_ascii_digit() });
    if shaped {
        Ok(s.to_string())
    } else {
        Err(format!("{s:?} is not a date: YYYY-MM-DD, e.g. 2026-05-01"))
    }
}

pub async fn gaming_day(c: &Client, cmd: GamingDayCommand) -> Result<Shown> {
    let v = match cmd {
        GamingDayCommand::Set { zone, hour } => {
            let body = json!({ "zone": zone, "cutoff_hour": hour });
            c.call(Method::POST, "/api/casino/gaming-day", Some(body)).await?
        }
        GamingDayCommand::Show => c.call(Method::GET, "/api/casino/gaming-day", None).await?,
    };
    let mut text = format!("gaming day: {}, cut-off {}", v["zone"].as_str().unwrap_or("?"), hour(&v["cutoff_hour"]));
    // A change runs from a gaming day not yet begun: say which, and which
    // day is in progress, lest the operator think it counts today.
    if let Some(from) = v["from"].as_str() {
        text.push_str(&format!(", from the gaming day {from}"));
    }
    if let Some(today) = v["today"].as_str() {
        text.push_str(&format!(" (in progress: {today})"));
    }
    Ok(Shown::new(v, text))
}

pub async fn report(c: &Client, cmd: ReportCommand) -> Result<Shown> {
    let ReportCommand::Day { date, csv, out } = cmd;
    let date = match date {
        Some(d) => d,
        None => today(c).await?,
    };
    let format = csv.then(|| "csv".to_string());
    let path = with_query("/api/reports/day", &[("date", Some(date.clone())), ("format", format)]);
    let v = c.call(Method::GET, &path, None).await?;
    let body = match &v {
        Value::String(text) => text.clone(),
        v => format!("{}\n", serde_json::to_string_pretty(v)?),
    };
    match out {
        Some(file) => {
            write_whole(&file, &body)?;
            let text = format!("wrote the report of {date} to {}", file.display());
            Ok(Shown::new(json!({ "date": date, "out": file }), text))
        }
        None if csv => Ok(Shown::new(v, body.trim_end().to_string())),
        None => {
            let text = summary(&v);
            Ok(Shown::new(v, text))
        }
    }
}

/// The gaming day in progress, as the server counts it.
async fn today(c: &Client) -> Result<String> {
    let v = c.call(Method::GET, "/api/casino/gaming-day", None).await?;
    v["today"].as_str().map(str::to_string).with_context(|| format!("the server named no gaming day in progress: {v}"))
}

/// Write `body` to `file` whole or not at all: a report cut short by a full
/// disk would be checked against the records and found wrong.
fn write_whole(file: &Path, body: &str) -> Result<()> {
    let tmp = file.with_extension(format!("tmp-{}", std::process::id()));
    std::fs::write(&tmp, body).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, file).with_context(|| {
        let _ = std::fs::remove_file(&tmp);
        format!("cannot write {}", file.display())
    })
}

/// The day's books as lines: the day, each table, the casino, each player,
/// the cage.
fn summary(v: &Value) -> String {
    let mut lines = vec![format!(
        "gaming day {} ({}, from {})",
        v["date"].as_str().unwrap_or("?"),
        v["zone"].as_str().unwrap_or("?"),
        hour(&v["cutoff_hour"])
    )];
    for t in v["tables"].as_array().into_iter().flatten() {
        lines.push(format!("table {} {}: {}", t["table"], t["name"], figures(t)));
    }
    lines.push(format!("casino: {}", figures(&v["casino"])));
    for p in v["players"].as_array().into_iter().flatten() {
        lines.push(format!(
            "player {} {}: wagered {}, won {}, {} min",
            p["player"],
            p["name"],
            shown(&p["wagered"]),
            shown(&p["won"]),
            p["minutes"]
        ));
    }
    let cash = &v["cash"];
    lines.push(format!("cage: deposits {}, cash-outs {}", shown(&cash["deposits"]), shown(&cash["cash_outs"])));
    lines.join("\n")
}

/// A table's (or the casino's) figures on one line.
fn figures(t: &Value) -> String {
    format!(
        "drop {}, win {}, hold {}, theo {}, fills {}, credits {}, {} coups, {} wagers, {} players",
        shown(&t["drop"]),
        shown(&t["win"]),
        hold(&t["hold_bp"]),
        shown(&t["theo"]),
        shown(&t["fills"]),
        shown(&t["credits"]),
        t["coups"],
        t["wagers"],
        t["players"]
    )
}

/// Basis points as a percentage with two decimals (integers only); `n/a`
/// where there was no drop.
fn hold(bp: &Value) -> String {
    match bp.as_i64() {
        Some(bp) => {
            let sign = if bp < 0 { "-" } else { "" };
            let a = bp.unsigned_abs();
            format!("{sign}{}.{:02}%", a / 100, a % 100)
        }
        None => "n/a".to_string(),
    }
}

fn hour(h: &Value) -> String {
    h.as_u64().map_or_else(|| "?".to_string(), |h| format!("{h:02}:00"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_date_is_shaped_yyyy_mm_dd() {
        assert_eq!(date_arg("2026-05-01"), Ok("2026-05-01".into()));
        for bad in ["2026-5-1", "20260501", "2026/05/01", "2026-05-01&format=csv", "", "yyyy-mm-dd"] {
            assert!(date_arg(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_hold_is_shown_from_integer_basis_points() {
        assert_eq!(hold(&json!(1234)), "12.34%");
        assert_eq!(hold(&json!(-5)), "-0.05%");
        assert_eq!(hold(&json!(null)), "n/a");
    }

    #[test]
    fn the_books_read_as_lines() {
        let fig = json!({"drop": 100000, "win": 12000, "hold_bp": 1200, "theo": 1123, "fills": 0, "credits": 0,
            "coups": 14, "wagers": 30, "players": 3});
        let mut t = fig.clone();
        t["table"] = json!(1);
        t["name"] = json!("Salon");
        let v = json!({"date": "2026-05-01", "zone": "Australia/Sydney", "cutoff_hour": 6, "tables": [t],
            "casino": fig, "players": [{"player": 9, "name": "bo", "wagered": 5000, "won": -500, "minutes": 35}],
            "cash": {"deposits": 100000, "cash_outs": 2000}});
        let s = summary(&v);
        let lines: Vec<&str> = s.lines().collect();
        assert_eq!(lines[0], "gaming day 2026-05-01 (Australia/Sydney, from 06:00)");
        assert_eq!(
            lines[1],
            "table 1 \"Salon\": drop 1000.00, win 120.00, hold 12.00%, theo 11.23, fills 0.00, credits 0.00, \
             14 coups, 30 wagers, 3 players"
        );
        assert!(lines[2].starts_with("casino: drop 1000.00"));
        assert_eq!(lines[3], "player 9 \"bo\": wagered 50.00, won -5.00, 35 min");
        assert_eq!(lines[4], "cage: deposits 1000.00, cash-outs 20.00");
    }
}
