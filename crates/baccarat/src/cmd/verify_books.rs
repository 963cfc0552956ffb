//! `baccarat verify --day DATE` and `--report FILE`: a gaming day's books
//! recomputed from the records (`baccarat_server::verify::day_in`), printed,
//! or compared with a saved report figure by figure.

use std::path::Path;

use anyhow::{bail, Context, Result};
use baccarat_casino::books::{parse_date, DayReport};
use baccarat_core::store::Db;

/// Print day `day`'s report, or check the report in `report` (whose own
/// date says which day).
pub fn run(db: &Db, day: Option<&str>, report: Option<&Path>) -> Result<()> {
    if let Some(file) = report {
        return check(db, file);
    }
    let date = parse_date(day.unwrap_or_default()).map_err(|e| anyhow::anyhow!("--day: {e}"))?;
    let r = baccarat_server::verify::day_in(db, date, &|_| None).map_err(anyhow::Error::msg)?;
    println!("{}", serde_json::to_string_pretty(&r)?);
    Ok(())
}

fn check(db: &Db, file: &Path) -> Result<()> {
    let text = std::fs::read_to_string(file).with_context(|| format!("--report: cannot read {}", file.display()))?;
    let saved: DayReport =
        serde_json::from_str(&text).with_context(|| format!("--report: {} is not a day's report", file.display()))?;
    let differences = baccarat_server::verify::check_report(db, &saved).map_err(anyhow::Error::msg)?;
    if differences.is_empty() {
        println!("report {} (gaming day {}) agrees with the records", file.display(), saved.date);
        return Ok(());
    }
    for d in &differences {
        println!("{d}");
    }
    bail!("report {}: {} figure(s) differ from the records", file.display(), differences.len())
}
