//! `GET /api/rulebooks` and `POST /api/tables/check` (`http/rulebooks.rs`):
//! the choices each built-in profile allows a table configuration, and a
//! configuration's problems.

use std::sync::OnceLock;

use baccarat_rules::{profiles, Bet, BetRules, DealingStyle, LayoutConfig, Money, PayTable, Rulebook};
use schemars::JsonSchema;
use serde::Serialize;

/// Every built-in profile's choices, and the bounds of every amount.
#[derive(Serialize, JsonSchema)]
pub struct Rulebooks {
    pub rulebooks: &'static [RulebookChoices],
    pub limits: AmountLimits,
}

/// Every amount of a configuration is `min` to `max` minor units, and no
/// table maximum is above the casino's `ceiling`.
#[derive(Serialize, JsonSchema)]
pub struct AmountLimits {
    #[schemars(range(min = 1, max = 1))]
    pub min: i64,
    #[schemars(range(min = baccarat_rules::MAX_LIMIT, max = baccarat_rules::MAX_LIMIT))]
    pub max: i64,
    pub ceiling: Money,
}

/// One profile as a table configuration may choose within it: the field
/// names are `TableConfigSpec`'s, each with its choices, its default (what
/// a configuration that names none gets) and the rule that allows them.
#[derive(Serialize, JsonSchema)]
pub struct RulebookChoices {
    pub id: String,
    pub title: String,
    pub source: String,
    pub decks: Choice<u32, u32>,
    pub variants: Vec<VariantChoice>,
    pub layouts: Vec<LayoutConfig>,
    pub default_layout: String,
    pub dealing: Choice<DealingStyle, Option<DealingStyle>>,
    pub differential: Allowed,
    pub ante: Option<AnteChoice>,
    pub side_bets_need_main_wager: Always,
    pub bets: Vec<BetChoice>,
    pub exclusions: Vec<ExclusionChoice>,
}

/// Values to choose among, the one taken when none is named, and the rule.
#[derive(Serialize, JsonSchema)]
pub struct Choice<T, D> {
    pub choices: Vec<T>,
    pub default: D,
    pub rule: String,
}

/// A variant: the Player and Banker pay tables that go together.
#[derive(Serialize, JsonSchema)]
pub struct VariantChoice {
    pub id: String,
    pub title: String,
    pub rule: String,
    pub player: String,
    pub banker: String,
}

/// Whether a table differential may be set, and the rule.
#[derive(Serialize, JsonSchema)]
pub struct Allowed {
    pub allowed: bool,
    pub rule: String,
}

/// The largest ante, as a fraction of the minimum wager, and the rule.
#[derive(Serialize, JsonSchema)]
pub struct AnteChoice {
    pub max_num: i64,
    pub max_den: i64,
    pub rule: String,
}

/// Whether a side bet always needs a main wager beside it, and the rule.
#[derive(Serialize, JsonSchema)]
pub struct Always {
    pub always: bool,
    pub rule: String,
}

/// A wager the profile offers, with every pay table it prints.
#[derive(Serialize, JsonSchema)]
pub struct BetChoice {
    pub bet: Bet,
    pub main: bool,
    pub rule: String,
    pub decks: Option<Vec<u32>>,
    pub decks_rule: Option<String>,
    pub pay_tables: Vec<PayTableChoice>,
}

/// A pay table: its name, the rule that prints it, its lines.
#[derive(Serialize, JsonSchema)]
pub struct PayTableChoice {
    pub name: String,
    pub rule: String,
    pub lines: Vec<PayTableLine>,
}

/// An outcome and what it pays, as the rulebook writes it.
#[derive(Serialize, JsonSchema)]
pub struct PayTableLine {
    pub outcome: String,
    pub pays: String,
}

/// Wagers a table may not offer together, by their ids.
#[derive(Serialize, JsonSchema)]
pub struct ExclusionChoice {
    pub rule: String,
    pub offered: Vec<Bet>,
    pub excludes: Vec<Bet>,
}

/// The profiles' choices, made once: the profiles are built in.
pub fn choices() -> &'static [RulebookChoices] {
    static CHOICES: OnceLock<Vec<RulebookChoices>> = OnceLock::new();
    CHOICES.get_or_init(|| profiles::all().iter().map(rulebook).collect())
}

/// One profile as a table configuration may choose within it.
fn rulebook(r: &Rulebook) -> RulebookChoices {
    let dealing = &r.procedures.dealing;
    let conduct = &r.config.conduct;
    RulebookChoices {
        id: r.id.clone(),
        title: r.title.clone(),
        source: r.source.clone(),
        decks: Choice { choices: r.decks.clone(), default: r.default_decks(), rule: r.decks_rule.clone() },
        variants: r.variants.iter().map(variant).collect(),
        layouts: r.layouts.clone(),
        default_layout: r.default_layout().name.clone(),
        dealing: Choice {
            choices: dealing.clone(),
            default: dealing.first().copied(),
            rule: r.procedures.dealing_rule.clone(),
        },
        differential: Allowed { allowed: r.table_differential, rule: r.limits_rule.clone() },
        ante: r.ante.as_ref().map(|a| AnteChoice { max_num: a.max_num, max_den: a.max_den, rule: a.rule.clone() }),
        side_bets_need_main_wager: Always { always: conduct.side_bets_need_main_wager, rule: conduct.rule.clone() },
        bets: bets(r),
        exclusions: r
            .exclusions
            .iter()
            .map(|e| ExclusionChoice { rule: e.rule.clone(), offered: e.offered.clone(), excludes: e.excludes.clone() })
            .collect(),
    }
}

fn variant(v: &baccarat_rules::Variant) -> VariantChoice {
    VariantChoice {
        id: v.id.clone(),
        title: v.title.clone(),
        rule: v.rule.clone(),
        player: v.player.name.clone(),
        banker: v.banker.name.clone(),
    }
}

/// The wagers, main ones first (Player, Banker, Tie), then side bets in id
/// order, as a table lists its offers.
fn bets(r: &Rulebook) -> Vec<BetChoice> {
    let mut list: Vec<&BetRules> = r.bets.iter().collect();
    list.sort_by_key(|b| (!b.bet.is_main(), if b.bet.is_main() { "" } else { b.bet.id() }, b.bet));
    list.into_iter()
        .map(|b| BetChoice {
            bet: b.bet,
            main: b.bet.is_main(),
            rule: b.rule.clone(),
            decks: b.decks.clone(),
            decks_rule: b.decks_rule.clone(),
            pay_tables: b.pay_tables.iter().map(pay_table).collect(),
        })
        .collect()
}

fn pay_table(t: &PayTable) -> PayTableChoice {
    let lines = t.lines.iter().map(|(o, p)| PayTableLine { outcome: o.to_string(), pays: p.to_string() }).collect();
    PayTableChoice { name: t.name.clone(), rule: t.rule.clone(), lines }
}

/// A configuration checked: `ok` with no problems, or every problem with
/// the field it is at.
#[derive(Serialize, JsonSchema)]
pub struct Checked {
    pub ok: bool,
    pub problems: Vec<ConfigProblem>,
}

/// One problem: the field (`path`, as `baccarat table check` names it) and
/// what is wrong.
#[derive(Serialize, JsonSchema)]
pub struct ConfigProblem {
    pub path: String,
    pub message: String,
}
