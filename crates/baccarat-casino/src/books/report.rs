//! A gaming day's report, as `GET /api/reports/day` answers it and as a saved
//! report file holds it; and the comparison of two, figure by figure, that
//! `verify --report` makes.

use baccarat_core::TableId;
use baccarat_rules::Money;
use serde::{Deserialize, Serialize};

/// The figures of a table, or of the casino (the sums of its tables').
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Figures {
    /// Chips wagered that stood (see `books/mod.rs`), in cents.
    pub drop: Money,
    /// The house's win (positive: the house won), in cents.
    pub win: Money,
    /// `win * 10000 / drop`, truncated toward zero; `null` when the drop is 0.
    pub hold_bp: Option<i64>,
    /// The theoretical win, rounded once per table to the cent.
    pub theo: Money,
    /// Chips from the cage to the table's float, and back.
    pub fills: Money,
    pub credits: Money,
    /// Coups dealt to a result.
    pub coups: u64,
    /// Wagers that stood, chips or promotional tokens.
    pub wagers: u64,
    /// Distinct players with a wager that stood.
    pub players: u64,
}

/// One table's line of the report.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableLine {
    pub table: TableId,
    pub name: String,
    #[serde(flatten)]
    pub figures: Figures,
}

/// One player's line.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerLine {
    pub player: u32,
    pub name: String,
    /// Chips wagered that stood.
    pub wagered: Money,
    /// The player's net: what the house's win from their wagers was, negated.
    pub won: Money,
    /// From their first wager of the day to their last coup's time, in whole
    /// minutes rounded up.
    pub minutes: u64,
}

/// The cage's cash over the day.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cash {
    pub deposits: Money,
    pub cash_outs: Money,
}

/// A gaming day's report.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DayReport {
    /// `YYYY-MM-DD`.
    pub date: String,
    pub zone: String,
    pub cutoff_hour: u8,
    /// The day as `[from_ms, to_ms)`, ms since the epoch.
    pub from_ms: u64,
    pub to_ms: u64,
    pub tables: Vec<TableLine>,
    pub casino: Figures,
    pub players: Vec<PlayerLine>,
    pub cash: Cash,
}

/// `win * 10000 / drop` in whole basis points, truncated toward zero.
pub fn hold_bp(win: Money, drop: Money) -> Option<i64> {
    (drop.0 != 0).then(|| (i128::from(win.0) * 10_000 / i128::from(drop.0)) as i64)
}

/// Each figure where `saved` differs from `found` (recomputed from the
/// records), named by where it is: `tables[2].win: 1500 in the report, 1400
/// in the records`. Names of players are not compared (they are the people
/// file's, not the records').
pub fn differences(saved: &DayReport, found: &DayReport) -> Vec<String> {
    use serde_json::{json, Value};
    let mut out = Vec::new();
    let mut say = |what: String, a: Value, b: Value| out.push(format!("{what}: {a} in the report, {b} in the records"));
    macro_rules! each {
        ($at:expr, $a:expr, $b:expr, [$($f:ident),*]) => {
            {
                $(if $a.$f != $b.$f { say(format!("{}.{}", $at, stringify!($f)), json!($a.$f), json!($b.$f)); })*
            }
        };
    }
    each!("report", saved, found, [date, zone, cutoff_hour, from_ms, to_ms]);
    each!("casino", saved.casino, found.casino, [drop, win, hold_bp, theo, fills, credits, coups, wagers, players]);
    each!("cash", saved.cash, found.cash, [deposits, cash_outs]);
    for t in &found.tables {
        match saved.tables.iter().find(|s| s.table == t.table) {
            Some(s) => {
                let at = format!("table {}", t.table);
                each!(at, s, t, [name]);
                each!(at, s.figures, t.figures, [drop, win, hold_bp, theo, fills, credits, coups, wagers, players]);
            }
            None => say(format!("table {}", t.table), json!("no line"), json!(t)),
        }
    }
    for s in saved.tables.iter().filter(|s| !found.tables.iter().any(|t| t.table == s.table)) {
        say(format!("table {}", s.table), json!(s), json!("no such table"));
    }
    for p in &found.players {
        match saved.players.iter().find(|s| s.player == p.player) {
            Some(s) => each!(format!("player {}", p.player), s, p, [wagered, won, minutes]),
            None => say(format!("player {}", p.player), json!("no line"), json!(p)),
        }
    }
    for s in saved.players.iter().filter(|s| !found.players.iter().any(|p| p.player == s.player)) {
        say(format!("player {}", s.player), json!(s), json!("no play that day"));
    }
    out
}
