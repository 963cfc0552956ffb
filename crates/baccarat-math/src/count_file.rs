//! The counting strategy file (`simulate --count FILE`), TOML like every other
//! configuration of the CLI, and its checks: a bad file is refused with a
//! message that names the field. The format is documented in
//! `docs/counting.md` and in `baccarat simulate --help`.
//!
//! ```toml
//! rulebook = "au-casino"   # the shoe procedures: burn, cut bounds (a profile file also)
//! decks = 8
//! cut_card = 14            # cards behind the cutting card
//! burn = "turn_and_burn"   # optional; default the rulebook's first burn
//! wager = "dragon_7"       # dragon_7, panda_8, or a rulebook wager id
//! pay_table = "table_1"    # with a rulebook wager that has several pay tables
//!
//! [count]
//! tags = [0, 0, 0, -1, -1, -1, -1, 2, 2, 0]  # A, 2 … 9, ten-values; or 13 tags A … K
//! start = 0                # running count at the start of a shoe
//! kind = "true"            # "true": running count ÷ decks left; "running";
//!                          # "exact": a pair wager's exact EV in percent (no tags)
//!
//! [bet]
//! trigger = 4              # bet one unit when the count is at least this
//! ramp = [[6, 2], [8, 4]]  # optional: [count, units] above the trigger
//! ```

use baccarat_rules::{Bet, BurnProcedure, Rulebook};
use serde::Deserialize;

use crate::count::{CountKind, CountPlan, CountWager, Strategy, WagerRow};
use crate::sim::Procedure;

/// A count as written: TOML gives integers and decimals apart.
#[derive(Clone, Copy, Debug)]
pub enum Number {
    Int(i64),
    Float(f64),
}

impl<'de> Deserialize<'de> for Number {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Number, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Number;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a count such as 4 or 4.5")
            }
            fn visit_i64<E>(self, v: i64) -> Result<Number, E> {
                Ok(Number::Int(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Number, E> {
                i64::try_from(v).map(Number::Int).map_err(|_| E::custom("count too large"))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Number, E> {
                Ok(Number::Float(v))
            }
        }
        d.deserialize_any(V)
    }
}

/// The file as written.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CountSpec {
    /// A label for reports.
    pub name: Option<String>,
    /// A built-in rulebook or a profile file; the CLI loads it.
    pub rulebook: String,
    pub decks: u32,
    pub cut_card: usize,
    pub burn: Option<String>,
    pub wager: String,
    pub pay_table: Option<String>,
    pub count: CountSection,
    pub bet: BetSection,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CountSection {
    /// Required except with `kind = "exact"`, which reads the cards themselves.
    #[serde(default)]
    pub tags: Vec<i32>,
    #[serde(default)]
    pub start: i32,
    #[serde(default)]
    pub kind: Kind,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    #[default]
    True,
    Running,
    /// The exact EV (percent) of a Player's or Banker's Pair from the unseen cards.
    Exact,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BetSection {
    pub trigger: Number,
    #[serde(default)]
    pub ramp: Vec<(Number, u32)>,
}

/// The largest tag, count threshold and units a file may give (bounds that
/// keep every sum far inside `i64`).
const MAX_TAG: i32 = 1_000;
const MAX_THRESHOLD: f64 = 100_000.0;
const MAX_UNITS: u32 = 10_000;

impl CountSpec {
    /// Parse the TOML text; a wrong type or an unknown field is refused with
    /// the line that holds it, so the message names the field.
    pub fn from_toml(text: &str) -> Result<CountSpec, String> {
        toml::from_str(text).map_err(|e| {
            let msg = e.message().trim().to_string();
            match e.span() {
                Some(span) => {
                    let n = text[..span.start.min(text.len())].matches('\n').count();
                    let line = text.lines().nth(n).unwrap_or("").trim();
                    format!("line {} `{line}`: {msg}", n + 1)
                }
                None => msg,
            }
        })
    }

    /// Check the strategy against `rb` and build the plan to run.
    pub fn plan(&self, rb: &Rulebook) -> Result<CountPlan, String> {
        if !rb.decks.contains(&self.decks) {
            return Err(format!(
                "decks: {} allows {:?} decks, not {} ({})",
                rb.id, rb.decks, self.decks, rb.decks_rule
            ));
        }
        let cards = 52 * self.decks as usize;
        if self.cut_card == 0 || self.cut_card + 52 > cards {
            return Err(format!(
                "cut_card: {} cards behind the cutting card is outside 1 to {}",
                self.cut_card,
                cards - 52
            ));
        }
        let mut procedure = Procedure::for_rulebook(rb, self.decks, self.cut_card);
        if let Some(b) = &self.burn {
            let burn = parse_burn(b).map_err(|e| format!("burn: {e}"))?;
            if !rb.procedures.burn.contains(&burn) {
                return Err(format!("burn: {} does not name {b} ({})", rb.id, rb.procedures.burn_rule));
            }
            procedure.burn = Some(burn);
        }
        let wager = self.wager(rb)?;
        let row = WagerRow::new(&wager).map_err(|e| format!("wager: {e}"))?;
        let mut strategy = self.strategy()?;
        if self.count.kind == Kind::Exact {
            strategy.kind = exact_pair(&wager, &row)?;
        }
        Ok(CountPlan { procedure, strategy, wager, row })
    }

    /// The cutting card is deeper than the rulebook's minimum allows (NSW 4.6):
    /// a study of what such a cut would give, not a table's procedure.
    pub fn below_rulebook_minimum(&self, rb: &Rulebook) -> bool {
        self.cut_card < rb.procedures.cutting_card_min_from_back as usize
    }

    fn wager(&self, rb: &Rulebook) -> Result<CountWager, String> {
        let ez = match self.wager.as_str() {
            "dragon_7" => Some(CountWager::Dragon7),
            "panda_8" => Some(CountWager::Panda8),
            _ => None,
        };
        if let Some(w) = ez {
            if let Some(t) = &self.pay_table {
                return Err(format!("pay_table: {} has one pay table; remove pay_table = {t:?}", self.wager));
            }
            return Ok(w);
        }
        let bet = Bet::from_id(&self.wager).ok_or_else(|| {
            format!("wager: {:?} is neither dragon_7, panda_8 nor a wager id (player, banker, tie, player_pair, dragon_bonus_player, …)", self.wager)
        })?;
        let rules = rb
            .bets
            .iter()
            .find(|b| b.bet == bet)
            .ok_or_else(|| format!("wager: {} does not offer {}", rb.id, self.wager))?;
        if !rules.allows_decks(self.decks) {
            return Err(format!(
                "wager: {} offers {} only with {:?} decks",
                rb.id,
                self.wager,
                rules.decks.as_deref().unwrap_or(&[])
            ));
        }
        let names = || rules.pay_tables.iter().map(|t| t.name.as_str()).collect::<Vec<_>>().join(", ");
        let table = match (&self.pay_table, rules.pay_tables.as_slice()) {
            (Some(name), _) => rules.pay_table(name).ok_or_else(|| {
                format!("pay_table: {} {} has no table {name:?}; its tables: {}", rb.id, self.wager, names())
            })?,
            (None, [only]) => only,
            (None, _) => {
                return Err(format!(
                    "pay_table: {} {} has several pay tables; name one of: {}",
                    rb.id,
                    self.wager,
                    names()
                ))
            }
        };
        Ok(CountWager::Rulebook(table.clone()))
    }

    fn strategy(&self) -> Result<Strategy, String> {
        let t = &self.count.tags;
        if let Some(x) = t.iter().find(|x| x.abs() > MAX_TAG) {
            return Err(format!("count.tags: {x} is outside -{MAX_TAG} to {MAX_TAG}"));
        }
        let tags: [i32; 13] = match t.len() {
            13 => std::array::from_fn(|r| t[r]),
            10 => std::array::from_fn(|r| t[r.min(9)]),
            0 if self.count.kind == Kind::Exact => [0; 13],
            n => return Err(format!("count.tags: {n} tags; give 10 (A, 2 … 9, ten-values) or 13 (A … K)")),
        };
        if self.count.start.abs() > MAX_TAG * 416 {
            return Err(format!("count.start: {} is outside ±{}", self.count.start, MAX_TAG * 416));
        }
        let kind = match self.count.kind {
            Kind::True => CountKind::True,
            Kind::Running => CountKind::Running,
            Kind::Exact => CountKind::ExactPair { win: 0, lose: 0 }, // set by `plan`
        };
        let mut ramp = vec![(hundredths(self.bet.trigger).map_err(|e| format!("bet.trigger: {e}"))?, 1)];
        for (i, &(at, units)) in self.bet.ramp.iter().enumerate() {
            let at = hundredths(at).map_err(|e| format!("bet.ramp[{i}]: {e}"))?;
            if at <= ramp[ramp.len() - 1].0 {
                return Err(format!("bet.ramp[{i}]: counts must rise above the trigger and each other"));
            }
            if units == 0 || units > MAX_UNITS {
                return Err(format!("bet.ramp[{i}]: {units} units is outside 1 to {MAX_UNITS}"));
            }
            ramp.push((at, units));
        }
        Ok(Strategy { tags, start: self.count.start, kind, ramp })
    }
}

/// The exact trigger's wager: a Player's or Banker's Pair (one outcome, a pair
/// of the hand's first two cards), with its scaled net returns from the row: a
/// pair on that hand's side (pair key 10 Player, 2 Banker) and none (key 0).
fn exact_pair(w: &CountWager, row: &WagerRow) -> Result<CountKind, String> {
    let key = match w {
        CountWager::Rulebook(t) if t.bet == Bet::PlayerPair => 10,
        CountWager::Rulebook(t) if t.bet == Bet::BankerPair => 2,
        _ => return Err(format!("count.kind: \"exact\" is priced for player_pair and banker_pair, not {}", w.id())),
    };
    Ok(CountKind::ExactPair { win: row.pairs[key] as i64, lose: row.pairs[0] as i64 })
}

/// A count threshold in hundredths, refused if it needs finer steps.
fn hundredths(x: Number) -> Result<i64, String> {
    let v = match x {
        Number::Int(i) => i as f64,
        Number::Float(f) => f,
    };
    if !v.is_finite() || v.abs() > MAX_THRESHOLD {
        return Err(format!("{v} is outside ±{MAX_THRESHOLD}"));
    }
    let h = (v * 100.0).round();
    if (v * 100.0 - h).abs() > 1e-6 {
        return Err(format!("{v} has more than two decimals"));
    }
    Ok(h as i64)
}

/// A burn procedure's profile name.
pub fn burn_id(b: BurnProcedure) -> &'static str {
    match b {
        BurnProcedure::BurnOne => "burn_one",
        BurnProcedure::BurnOneShown => "burn_one_shown",
        BurnProcedure::TurnAndBurn => "turn_and_burn",
        BurnProcedure::ThreeNoBetCoups => "three_no_bet_coups",
    }
}

/// A burn procedure by its profile name.
pub fn parse_burn(s: &str) -> Result<BurnProcedure, String> {
    match s {
        "burn_one" => Ok(BurnProcedure::BurnOne),
        "burn_one_shown" => Ok(BurnProcedure::BurnOneShown),
        "turn_and_burn" => Ok(BurnProcedure::TurnAndBurn),
        "three_no_bet_coups" => Ok(BurnProcedure::ThreeNoBetCoups),
        _ => Err(format!("{s:?}: use burn_one, burn_one_shown, turn_and_burn or three_no_bet_coups")),
    }
}
