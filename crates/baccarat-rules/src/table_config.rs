//! A table configuration: the operator's choice within a rulebook.
//!
//! [`TableConfig::new`] is the only way to get one, and it refuses anything the
//! rulebook forbids, listing every reason: a deck count the rulebook does not
//! allow (NSW 3.1), a side bet without the decks it needs (NSW 3.1), wagers that
//! exclude each other (AU 11A.1A, 11C.2, 11D.2), a pay table the rulebook does not
//! print, an ante above its bound (AU 1.0 "Ante"), limits that do not fit, or a
//! version of the game (its layout: AU 2.2, 3.1) the rulebook does not list.

use crate::ante::{Ante, AnteSpec};
use indexmap::IndexMap;

use serde::{Deserialize, Serialize};

use crate::bet::Bet;
use crate::errors::{toml_problem, Problems};
use crate::money::Money;
use crate::paytable::PayTable;
use crate::rulebook::{BetRules, DealingStyle, LayoutConfig, Rulebook, Variant};
use crate::settle::SettleRules;

/// The largest amount any limit may name, in minor units (ten billion major
/// units). A bound so that every sum of wagers fits comfortably in `i64`.
pub const MAX_LIMIT: i64 = 1_000_000_000_000;

/// A table configuration as written in TOML.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TableConfigSpec {
    pub rulebook: String,
    /// Default: the largest deck count the rulebook allows.
    #[serde(default)]
    pub decks: Option<u32>,
    /// Default: the rulebook's first variant.
    #[serde(default)]
    pub variant: Option<String>,
    /// The version of the game, by the name of one of the profile's layouts
    /// (AU 2.2: `mini`, `midi` or `full` Baccarat, with up to 7, 9 or 14
    /// boxes and, at full Baccarat only, standing players: AU 3.1, 5.6-5.7).
    /// Default: the profile's first (AU: Mini Baccarat).
    #[serde(default)]
    pub layout: Option<String>,
    /// The smallest chip, in minor units.
    pub chip: i64,
    /// Table minimum and maximum for the main wagers (NSW 6.1; AU 5.8-5.9).
    pub min: i64,
    pub max: i64,
    /// Maximum table differential (NSW 6.1; AU 5.17; EU 6.1).
    #[serde(default)]
    pub differential: Option<i64>,
    #[serde(default)]
    pub ante: Option<AnteSpec>,
    /// Dealing style; default: the rulebook's first (NSW 8.1; AU 8.5).
    #[serde(default)]
    pub dealing: Option<DealingStyle>,
    /// Side bets only with a main wager (a supervisor's restriction, NSW 10.4);
    /// default: the rulebook's rule.
    #[serde(default)]
    pub side_bets_need_main_wager: Option<bool>,
    /// Side bets offered, and optional limits for any wager.
    #[serde(default)]
    pub bets: IndexMap<String, OfferSpec>,
    /// What a wager that needs a supervisor's approval (NSW 5.6.6-5.6.7)
    /// does here. Default: `refuse` at an RNG table, `supervisor` at a live
    /// table (the server chooses by the table's mode).
    #[serde(default)]
    pub approvals: Option<Approvals>,
}

/// What a table does with a wager that the rulebook takes only with a Casino
/// Supervisor's approval (NSW 5.6.6-5.6.7: Banker and Player together, with or
/// without a Tie). The rulebooks assume a supervisor in the pit; a table no
/// supervisor watches (an RNG table) must not hold such a wager for no one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Approvals {
    /// Refused when it is placed, naming the rule: the player can wager on one
    /// side at once, and nothing waits.
    Refuse,
    /// Placed and held for a supervisor until "no more bets" (the deadline); an
    /// unapproved one is returned then, naming the rule (NSW 5.6.6 as written).
    Supervisor,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct OfferSpec {
    #[serde(default)]
    pub pay_table: Option<String>,
    #[serde(default)]
    pub min: Option<i64>,
    #[serde(default)]
    pub max: Option<i64>,
}

/// One wager offered at the table, with its one pay table and limits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Offer {
    pub bet: Bet,
    pub pay_table: PayTable,
    pub min: Money,
    pub max: Money,
}

/// A configuration that its rulebook permits.
#[derive(Clone, Debug)]
pub struct TableConfig {
    pub rulebook: String,
    pub decks: u32,
    pub variant: Variant,
    /// The version of the game and its layout: its boxes, players per box and
    /// whether standing players wager (AU 2.2, 3.1, 5.6-5.8).
    pub layout: LayoutConfig,
    /// Player, Banker and Tie first, then side bets in id order.
    pub offers: Vec<Offer>,
    pub min: Money,
    pub max: Money,
    pub differential: Option<Money>,
    pub ante: Option<Ante>,
    pub dealing: DealingStyle,
    pub side_bets_need_main_wager: bool,
    pub settle: SettleRules,
    /// As configured; `None`: the table mode's default ([`TableConfigSpec::approvals`]).
    pub approvals: Option<Approvals>,
}

impl TableConfig {
    /// Parse a configuration from TOML and check it against `rulebook`.
    pub fn from_toml(rulebook: &Rulebook, text: &str) -> Result<TableConfig, Problems> {
        let spec: TableConfigSpec = toml::from_str(text).map_err(|e| toml_problem("table config", text, &e))?;
        TableConfig::new(rulebook, &spec)
    }

    /// The offer for a wager, if the table offers it.
    pub fn offer(&self, bet: Bet) -> Option<&Offer> {
        self.offers.iter().find(|o| o.bet == bet)
    }

    /// Check `spec` against `rulebook`, listing every problem at once (DESIGN
    /// principle 2) in the order an operator reads the file: the rulebook, the
    /// decks, the variant and layout, the limits, the ante, the offers, the
    /// exclusions, the dealing style, the side-bet rule.
    pub fn new(rb: &Rulebook, spec: &TableConfigSpec) -> Result<TableConfig, Problems> {
        let mut p = Problems::new(format!("table config for {}", rb.id));
        if spec.rulebook != rb.id {
            p.push("rulebook", format!("names {:?} but is being checked against {:?}", spec.rulebook, rb.id));
        }
        let decks = spec.decks.unwrap_or_else(|| rb.default_decks());
        if !rb.decks.contains(&decks) {
            p.push("decks", format!("{} allows {:?} decks, not {decks} ({})", rb.id, rb.decks, rb.decks_rule));
        }
        let variant_id = spec.variant.clone().unwrap_or_else(|| rb.variants[0].id.clone());
        let variant = rb.variant(&variant_id).cloned();
        if variant.is_none() {
            let ids: Vec<&str> = rb.variants.iter().map(|v| v.id.as_str()).collect();
            p.push("variant", format!("{} has no variant {variant_id:?}; its variants are {}", rb.id, ids.join(", ")));
        }
        let layout = layout(&mut p, rb, spec.layout.as_deref());
        limits(&mut p, rb, spec);
        let ante = ante(&mut p, rb, spec);
        let check = OfferCheck { rb, spec, decks, variant_id: &variant_id, variant: variant.as_ref() };
        let (offers, offered) = check.offers(&mut p);
        exclusions(&mut p, rb, &offered);
        let dealing = dealing(&mut p, rb, spec);
        if spec.side_bets_need_main_wager == Some(false) && rb.config.conduct.side_bets_need_main_wager {
            p.push(
                "side_bets_need_main_wager",
                format!("{} always requires a main wager with a side bet ({})", rb.id, rb.config.conduct.rule),
            );
        }
        let settle = SettleRules {
            chip: Money(spec.chip.max(1)),
            fractional: rb.fractional_payout,
            unpayable: rb.unpayable_stake,
        };
        match variant {
            Some(variant) if p.is_empty() => Ok(TableConfig {
                rulebook: rb.id.clone(),
                decks,
                variant,
                layout,
                offers,
                min: Money(spec.min),
                max: Money(spec.max),
                differential: spec.differential.map(Money),
                ante,
                dealing: dealing.expect("checked above"),
                side_bets_need_main_wager: spec
                    .side_bets_need_main_wager
                    .unwrap_or(rb.config.conduct.side_bets_need_main_wager),
                settle,
                approvals: spec.approvals,
            }),
            _ => Err(p),
        }
    }
}

/// One amount of money the configuration names (a limit, an ante, a
/// threshold): 1 to [`MAX_LIMIT`] minor units, and a whole number of the
/// smallest chip when the chip itself is valid (a bad chip is reported once,
/// at `chip`, not again at every amount).
fn amount(p: &mut Problems, chip: i64, path: &str, v: i64) {
    let chip_ok = (1..=MAX_LIMIT).contains(&chip);
    if !(1..=MAX_LIMIT).contains(&v) {
        p.push(path, format!("{v} must be 1 to {MAX_LIMIT} minor units"));
    } else if chip_ok && v % chip != 0 {
        p.push(path, format!("{} is not a whole number of {} chips", Money(v), Money(chip)));
    }
}

/// The smallest chip, the table minimum and maximum for the main wagers
/// (NSW 6.1; AU 5.8-5.9) and the table differential, only where the rulebook
/// provides one (NSW 6.1; AU 5.17; EU 6.1).
fn limits(p: &mut Problems, rb: &Rulebook, spec: &TableConfigSpec) {
    let chip = spec.chip;
    if !(1..=MAX_LIMIT).contains(&chip) {
        p.push("chip", format!("the smallest chip must be 1 to {MAX_LIMIT} minor units"));
    }
    amount(p, chip, "min", spec.min);
    amount(p, chip, "max", spec.max);
    if spec.min > spec.max {
        p.push("max", format!("maximum {} is below minimum {}", Money(spec.max), Money(spec.min)));
    }
    if let Some(d) = spec.differential {
        if !rb.table_differential {
            p.push("differential", format!("{} does not provide a table differential ({})", rb.id, rb.limits_rule));
        }
        amount(p, chip, "differential", d);
    }
}

/// The ante, only where the rulebook has Ante Up Baccarat, bounded by a share
/// of the table minimum (AU 1.0 "Ante"), its waiver threshold not below the
/// table minimum (AU 14.4).
fn ante(p: &mut Problems, rb: &Rulebook, spec: &TableConfigSpec) -> Option<Ante> {
    let a = spec.ante.as_ref()?;
    let Some(rules) = &rb.ante else {
        p.push("ante", format!("{} has no Ante Up Baccarat", rb.id));
        return None;
    };
    amount(p, spec.chip, "ante.amount", a.amount);
    // AU 1.0 "Ante": not more than 12.5% of the table minimum.
    if a.amount as i128 * rules.max_den as i128 > spec.min as i128 * rules.max_num as i128 {
        p.push(
            "ante.amount",
            format!(
                "{} is more than {}/{} of the table minimum {} ({})",
                Money(a.amount),
                rules.max_num,
                rules.max_den,
                Money(spec.min),
                rules.rule
            ),
        );
    }
    if let Some(w) = a.waived_at {
        amount(p, spec.chip, "ante.waived_at", w);
        if w < spec.min {
            p.push("ante.waived_at", "the waiver threshold is below the table minimum (AU 14.4)");
        }
    }
    Some(Ante { amount: Money(a.amount), waived_at: a.waived_at.map(Money) })
}

/// What each wager offered is checked against: the rulebook's wager rules,
/// the table's deck count (NSW 3.1) and the variant that fixes the Player and
/// Banker pay tables.
struct OfferCheck<'a> {
    rb: &'a Rulebook,
    spec: &'a TableConfigSpec,
    decks: u32,
    variant_id: &'a str,
    variant: Option<&'a Variant>,
}

impl OfferCheck<'_> {
    /// The offers that pass, and every wager offered (the main wagers always,
    /// then side bets as listed), which the exclusions are checked against
    /// even where an offer itself has a problem.
    fn offers(&self, p: &mut Problems) -> (Vec<Offer>, Vec<Bet>) {
        let mut offers = Vec::new();
        let mut offered: Vec<Bet> = vec![Bet::Player, Bet::Banker, Bet::Tie];
        for (id, _) in &self.spec.bets {
            match Bet::from_id(id) {
                Some(b) if !b.is_main() => offered.push(b),
                Some(_) => {}
                None => p.push(format!("bets.{id}"), format!("unknown wager id {id:?}")),
            }
        }
        for bet in offered.iter().copied() {
            if let Some(offer) = self.offer(p, bet) {
                offers.push(offer);
            }
        }
        (offers, offered)
    }

    /// One wager: the rulebook offers it, with the decks it needs (NSW 3.1),
    /// one pay table, and limits that fit; `None` if it cannot be offered.
    fn offer(&self, p: &mut Problems, bet: Bet) -> Option<Offer> {
        let (rb, spec) = (self.rb, self.spec);
        let path = format!("bets.{}", bet.id());
        let o = spec.bets.get(bet.id()).cloned().unwrap_or_default();
        let Some(rules) = rb.bet(bet) else {
            p.push(&path, format!("{} does not offer the {bet} wager", rb.id));
            return None;
        };
        if !rules.allows_decks(self.decks) {
            p.push(
                &path,
                format!(
                    "{bet} needs {:?} decks, not {} ({})",
                    rules.decks.as_deref().unwrap_or(&[]),
                    self.decks,
                    rules.decks_rule.as_deref().unwrap_or(&rules.rule)
                ),
            );
        }
        let table = self.pay_table(p, bet, rules, &path, o.pay_table.as_ref());
        let chip = spec.chip;
        let min = o.min.unwrap_or(if bet.is_main() { spec.min } else { chip.max(1) });
        let max = o.max.unwrap_or(spec.max);
        if o.min.is_some() {
            amount(p, chip, &format!("{path}.min"), min);
        }
        if o.max.is_some() {
            amount(p, chip, &format!("{path}.max"), max);
        }
        if min > max {
            p.push(format!("{path}.max"), format!("maximum {} is below minimum {}", Money(max), Money(min)));
        }
        table.map(|pay_table| Offer { bet, pay_table, min: Money(min), max: Money(max) })
    }

    /// The wager's one pay table: the variant's for Player and Banker (a name
    /// that differs is refused), else the one named, else the rulebook's only
    /// one; where it prints several, the operator must choose.
    fn pay_table(
        &self,
        p: &mut Problems,
        bet: Bet,
        rules: &BetRules,
        path: &str,
        name: Option<&String>,
    ) -> Option<PayTable> {
        let fixed = match (bet, self.variant) {
            (Bet::Player, Some(v)) => Some(v.player.clone()),
            (Bet::Banker, Some(v)) => Some(v.banker.clone()),
            _ => None,
        };
        match (fixed, name) {
            (Some(t), Some(name)) if *name != t.name => {
                p.push(
                    format!("{path}.pay_table"),
                    format!(
                        "variant {:?} pays {bet} by table {:?}, not {name:?} ({})",
                        self.variant_id, t.name, t.rule
                    ),
                );
                None
            }
            (Some(t), _) => Some(t),
            (None, Some(name)) => {
                let t = rules.pay_table(name).cloned();
                if t.is_none() {
                    let names: Vec<&str> = rules.pay_tables.iter().map(|t| t.name.as_str()).collect();
                    p.push(
                        format!("{path}.pay_table"),
                        format!("{} has no {bet} pay table {name:?}; choose one of {}", self.rb.id, names.join(", ")),
                    );
                }
                t
            }
            (None, None) if rules.pay_tables.len() == 1 => Some(rules.pay_tables[0].clone()),
            (None, None) => {
                let names: Vec<&str> = rules.pay_tables.iter().map(|t| t.name.as_str()).collect();
                p.push(format!("{path}.pay_table"), format!("choose one of {} ({})", names.join(", "), rules.rule));
                None
            }
        }
    }
}

/// Wagers that exclude each other may not both be offered at one table
/// (AU 11A.1A, 11C.2, 11D.2): one problem per exclusion rule that clashes.
fn exclusions(p: &mut Problems, rb: &Rulebook, offered: &[Bet]) {
    for e in &rb.exclusions {
        let has = |b: &Bet| offered.contains(b);
        if e.offered.iter().any(has) {
            let clash: Vec<&str> = e.excludes.iter().filter(|b| has(b)).map(|b| b.id()).collect();
            if !clash.is_empty() {
                let mine: Vec<&str> = e.offered.iter().filter(|b| has(b)).map(|b| b.id()).collect();
                p.push(
                    "bets",
                    format!(
                        "{}: {} may not be offered with {} at the same table",
                        e.rule,
                        mine.join(", "),
                        clash.join(", ")
                    ),
                );
            }
        }
    }
}

/// The dealing style: as configured, else the rulebook's first; one the
/// rulebook does not name is refused (NSW 8.1; AU 8.5).
fn dealing(p: &mut Problems, rb: &Rulebook, spec: &TableConfigSpec) -> Option<DealingStyle> {
    let dealing = spec.dealing.or_else(|| rb.procedures.dealing.first().copied());
    match dealing {
        Some(d) if rb.procedures.dealing.contains(&d) => {}
        Some(d) => p.push(
            "dealing",
            format!("{} deals by {:?}, not {d:?} ({})", rb.id, rb.procedures.dealing, rb.procedures.dealing_rule),
        ),
        None => p.push("dealing", format!("{} names no dealing style", rb.id)),
    }
    dealing
}

/// The layout `name` chooses (AU 2.2: the version of the game), or the
/// rulebook's default; a name the profile does not list is a problem that
/// names each layout it does, with its boxes and rule.
fn layout(p: &mut Problems, rb: &Rulebook, name: Option<&str>) -> LayoutConfig {
    let Some(name) = name else { return rb.default_layout() };
    if let Some(l) = rb.layout(name) {
        return l.clone();
    }
    let listed: Vec<String> =
        rb.layouts.iter().map(|l| format!("{} ({} boxes, {})", l.name, l.boxes, l.rule)).collect();
    let have =
        if listed.is_empty() { "it lists none".to_string() } else { format!("its layouts are {}", listed.join(", ")) };
    p.push("layout", format!("{} has no layout {name:?}; {have}", rb.id));
    rb.default_layout()
}
