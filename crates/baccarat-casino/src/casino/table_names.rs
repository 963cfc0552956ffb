//! A table's name is unique in the casino (issue 47), compared trimmed and
//! without regard to case ("Salon 9" and " salon 9" are one name).
//!
//! The rulebooks say nothing of table names; a floor calls a table by its
//! name, so two of one name would be one too many. A create under a name
//! already taken answers that table if it asks for the same table (the same
//! rulebook, configuration and mode, the configurations compared as parsed,
//! so a comment or the order of lines does not matter): a retry, or a setup
//! script run twice, makes no second table and writes nothing. Any other
//! definition is refused (`table_exists`) naming each difference, field by
//! field ("max: 500000 here, 300000 asked"), or, where the parsed fields do
//! not say it, the lines of the TOML that differ.
//!
//! A closed table keeps its name (`closing.rs`): a casino does not reuse it,
//! so that its records, reports and the people who knew the table never
//! mean two tables by one name. A table closing keeps it too.
//!
//! The writer decides, one request after another, so two creates of one
//! name racing each other make one table: the second finds the first.

use baccarat_core::TableId;
use baccarat_rules::TableConfig;

use super::{setup, Casino, CasinoTable, Code, Commit, Mode, Reply};
use baccarat_rules::Money;

/// A name as it is compared: trimmed, in lower case.
fn folded(name: &str) -> String {
    name.trim().to_lowercase()
}

impl Casino {
    /// The table called `name` (trimmed, any case), closed or not. (A
    /// casino that made two of one name before names were unique finds the
    /// first.)
    pub fn table_named(&self, name: &str) -> Option<&CasinoTable> {
        let name = folded(name);
        self.tables.values().find(|t| folded(&t.name) == name)
    }

    /// `Request::CreateTable`: a new table under a name no table has, or
    /// the table already called so if it is the one asked for.
    pub(super) fn create_named(
        &mut self,
        name: &str,
        rulebook: &str,
        config: &str,
        mode: Mode,
        float: Money,
        commit: &mut Commit,
    ) -> Reply {
        let name = name.trim();
        if let Some(t) = self.table_named(name) {
            return same_table(t, rulebook, config, mode);
        }
        let next = self.tables.keys().next_back().map_or(Some(1), |k| k.0.checked_add(1));
        let Some(id) = next.map(TableId) else {
            return Reply::refused(Code::Config, format!("no table number is left: the last is {}", u32::MAX));
        };
        match self.create_table(id, name, rulebook, config, mode, float, commit) {
            Ok(()) => Reply::Table { table: id },
            Err(message) => Reply::refused(Code::Config, message.to_string()),
        }
    }
}

/// The answer to a create under the name of table `t`: that table if it is
/// the same, else the refusal naming what differs. A definition that makes
/// no table at all is refused as a new one would be (`config`).
fn same_table(t: &CasinoTable, rulebook: &str, config: &str, mode: Mode) -> Reply {
    let (id, name) = (t.id, &t.name);
    if !t.closure.is_open() {
        return Reply::refused(
            Code::TableExists,
            format!("name: table {id} {name:?} is closed for good, and a closed table's name is not reused"),
        );
    }
    let asked = match setup(rulebook, config) {
        Ok((s, _)) => s.config,
        Err(e) => return Reply::refused(Code::Config, e.to_string()),
    };
    let row = t.row();
    let mut d = Vec::new();
    if t.mode != mode {
        d.push(format!("mode: {} here, {} asked", t.mode.id(), mode.id()));
    }
    if row.rulebook != rulebook {
        d.push(format!("rulebook: {} here, {rulebook} asked", row.rulebook));
    } else {
        let here = &t.engine.setup().config;
        d.extend(differences(here, &asked));
        if d.is_empty() && format!("{here:?}") != format!("{asked:?}") {
            d.extend(lines_apart(&row.config, config));
        }
    }
    if d.is_empty() {
        return Reply::ExistingTable { table: id };
    }
    Reply::refused(
        Code::TableExists,
        format!("name: table {id} is called {name:?} already, with another definition: {}", d.join("; ")),
    )
}

/// What differs between two parsed configurations of one rulebook, field by
/// field, in the words of the TOML (amounts in minor units, as written).
pub fn differences(here: &TableConfig, asked: &TableConfig) -> Vec<String> {
    let mut d = Vec::new();
    let mut field = |name: &str, h: String, a: String| {
        if h != a {
            d.push(format!("{name}: {h} here, {a} asked"));
        }
    };
    let opt = |m: Option<baccarat_rules::Money>| m.map_or("none".to_string(), |m| m.0.to_string());
    let wire = |v: serde_json::Result<serde_json::Value>| match v {
        Ok(serde_json::Value::String(s)) => s,
        Ok(serde_json::Value::Null) => "default".to_string(),
        other => format!("{other:?}"),
    };
    field("decks", here.decks.to_string(), asked.decks.to_string());
    field("variant", here.variant.id.clone(), asked.variant.id.clone());
    field("layout", here.layout.name.clone(), asked.layout.name.clone());
    field("chip", here.settle.chip.0.to_string(), asked.settle.chip.0.to_string());
    field("min", here.min.0.to_string(), asked.min.0.to_string());
    field("max", here.max.0.to_string(), asked.max.0.to_string());
    field("differential", opt(here.differential), opt(asked.differential));
    field("ante.amount", opt(here.ante.as_ref().map(|a| a.amount)), opt(asked.ante.as_ref().map(|a| a.amount)));
    field(
        "ante.waived_at",
        opt(here.ante.as_ref().and_then(|a| a.waived_at)),
        opt(asked.ante.as_ref().and_then(|a| a.waived_at)),
    );
    field("dealing", wire(serde_json::to_value(here.dealing)), wire(serde_json::to_value(asked.dealing)));
    field(
        "side_bets_need_main_wager",
        here.side_bets_need_main_wager.to_string(),
        asked.side_bets_need_main_wager.to_string(),
    );
    field("approvals", wire(serde_json::to_value(here.approvals)), wire(serde_json::to_value(asked.approvals)));
    d.extend(offers_apart(here, asked));
    d
}

/// The wagers offered, each one's pay table and limits. An offer's limit
/// that is the table's own on both sides is said once, as the table's.
fn offers_apart(here: &TableConfig, asked: &TableConfig) -> Vec<String> {
    let mut d = Vec::new();
    for h in &here.offers {
        let bet = h.bet.id();
        let Some(a) = asked.offer(h.bet) else {
            d.push(format!("bets.{bet}: offered here, not asked"));
            continue;
        };
        if h.pay_table.name != a.pay_table.name {
            d.push(format!("bets.{bet}.pay_table: {} here, {} asked", h.pay_table.name, a.pay_table.name));
        }
        if h.min != a.min && !(h.min == here.min && a.min == asked.min) {
            d.push(format!("bets.{bet}.min: {} here, {} asked", h.min.0, a.min.0));
        }
        if h.max != a.max && !(h.max == here.max && a.max == asked.max) {
            d.push(format!("bets.{bet}.max: {} here, {} asked", h.max.0, a.max.0));
        }
    }
    for a in asked.offers.iter().filter(|a| here.offer(a.bet).is_none()) {
        d.push(format!("bets.{}: not offered here, asked", a.bet.id()));
    }
    d
}

/// The lines of two TOML texts that differ (trimmed, blank lines and
/// comments left out): where the parsed fields did not name a difference.
fn lines_apart(here: &str, asked: &str) -> Vec<String> {
    let lines = |s: &str| -> Vec<String> {
        s.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).map(String::from).collect()
    };
    let (h, a) = (lines(here), lines(asked));
    let mut d: Vec<String> =
        h.iter().filter(|l| !a.contains(l)).map(|l| format!("config: `{l}` here, not asked")).collect();
    d.extend(a.iter().filter(|l| !h.contains(l)).map(|l| format!("config: `{l}` asked, not here")));
    if d.is_empty() {
        d.push("config: the configurations differ".to_string());
    }
    d
}
