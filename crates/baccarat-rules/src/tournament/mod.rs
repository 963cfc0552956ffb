//! Tournament conditions (NSW 15.4): what an operator publishes to every
//! tournament player before a tournament, as data, checked like a table
//! configuration.
//!
//! A conditions file (TOML) covers each item NSW 15.4.2 (a)-(k) lists: the
//! entry fee, the chips of each session, the wagers (compulsory, limits and
//! when they change), the structure (dealing method, rounds by coups or by
//! clock, tables, progression), the conduct (seating, the wagering order with a
//! marker, pass cards, undisclosed wagers), buy-backs, eligibility, the terms of
//! entry, the prizes, and the statements the rule requires. [`Conditions::new`]
//! is the only way to get one, and it names every problem by its field.
//! [`Conditions::published`] is the text players are given (NSW 15.4.1).
//!
//! Money is integer minor units; prize shares are whole percentages of an
//! integer pool, split exactly (the remainder of the division goes to first
//! place, so the pool is paid to the cent).

use serde::{Deserialize, Serialize};

use crate::bet::Bet;
use crate::cite::Cite;
use crate::errors::{toml_problem, Problems};
use crate::money::Money;
use crate::rulebook::{DealingStyle, Rulebook};
use crate::table_config::MAX_LIMIT;

mod published;

/// A conditions file as written.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ConditionsSpec {
    pub name: String,
    /// The rulebook it is played under; it must have rules for tournament
    /// play (NSW 15).
    pub rulebook: String,
    pub entry: EntrySpec,
    pub eligibility: EligibilitySpec,
    pub chips: ChipsSpec,
    pub wagers: WagersSpec,
    pub structure: StructureSpec,
    #[serde(default)]
    pub play: PlaySpec,
    #[serde(default)]
    pub buy_back: Option<BuyBackSpec>,
    pub prizes: PrizesSpec,
    /// Anything else the operator publishes with the conditions.
    #[serde(default)]
    pub notes: Vec<String>,
}

/// NSW 15.4.2 (a), (i); 15.4.3.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct EntrySpec {
    /// When the tournament starts, UTC, `YYYY-MM-DDTHH:MM:SSZ` (NSW 15.5.3:
    /// the Tournament Manager may move it with reasonable notice).
    pub starts: String,
    /// The entry fee, minor units (0: a freeroll).
    pub fee: i64,
    pub min_players: u32,
    pub max_players: u32,
    /// Until how many hours before the start a player may withdraw without
    /// financial penalty (the fee refunded).
    pub withdraw_hours_before_start: u32,
    /// Where the application form is, or how to apply.
    pub application: String,
    /// Whether each player must agree in writing to the rules and conditions
    /// before entry is accepted (NSW 15.4.3).
    #[serde(default)]
    pub agree_in_writing: bool,
}

/// NSW 15.4.2 (h).
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct EligibilitySpec {
    /// The operator reserves the right to refuse any application (h)(ii).
    #[serde(default)]
    pub may_refuse_any: bool,
    /// General selection criteria, if any (h)(iii).
    #[serde(default)]
    pub criteria: Vec<String>,
}

/// NSW 15.4.2 (b); 15.1.1 "buy-in"; 15.6.2.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ChipsSpec {
    /// Tournament chips each player receives at the start of a session.
    pub per_session: i64,
    /// Money a player pays for them before each session (0: allocated free).
    #[serde(default)]
    pub buy_in: i64,
}

/// NSW 15.4.2 (c), (d); 15.6.4, 15.6.11-15.6.15.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct WagersSpec {
    /// A wager on every coup (NSW 15.6.4); `false` only where the conditions
    /// say otherwise.
    #[serde(default = "yes")]
    pub compulsory: bool,
    /// Minimum and maximum per coup; wagers are in units of the minimum
    /// (NSW 15.6.14).
    pub min: i64,
    pub max: i64,
    /// The wagers open to players (default: banker, player, tie).
    #[serde(default = "main_bets")]
    pub bets: Vec<String>,
    /// The time within which each wager must be made (NSW 15.6.11), seconds.
    #[serde(default)]
    pub time_limit_seconds: Option<u32>,
    /// The points in each session where the limits change (NSW 15.4.2(d),
    /// 15.6.15), in order.
    #[serde(default)]
    pub changes: Vec<LimitChange>,
}

fn yes() -> bool {
    true
}

fn main_bets() -> Vec<String> {
    ["banker", "player", "tie"].map(String::from).to_vec()
}

/// New limits from a coup of each session on.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LimitChange {
    pub from_coup: u32,
    pub min: i64,
    pub max: i64,
}

/// NSW 15.4.2 (e).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct StructureSpec {
    /// One of the rulebook's dealing methods, as its profile names it.
    pub dealing: String,
    /// Players seated at each tournament table.
    pub seats_per_table: u32,
    pub rounds: Vec<RoundSpec>,
}

/// One round (or session) of the tournament.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RoundSpec {
    pub name: String,
    /// Tables active in it.
    pub tables: u32,
    /// Its length: a number of coups, or minutes on the clock (one of them).
    #[serde(default)]
    pub coups: Option<u32>,
    #[serde(default)]
    pub minutes: Option<u32>,
    /// Players who go on from each table (the highest chip counts, NSW
    /// 15.10.2); 0 in the final.
    #[serde(default)]
    pub advance_per_table: u32,
    /// Players who also go on with the highest counts among the rest.
    #[serde(default)]
    pub wildcards: u32,
    /// Whether players eliminated in it play a repechage for a place in the
    /// next round.
    #[serde(default)]
    pub repechage: bool,
}

/// How tables and boxes are allocated (NSW 15.5.4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Seating {
    /// By random draw.
    #[default]
    Draw,
    /// By the Tournament Manager.
    Manager,
}

/// NSW 15.4.2 (f); 15.5.4, 15.7-15.9.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PlaySpec {
    #[serde(default)]
    pub seating: Seating,
    /// Wagering in order with a marker (NSW 15.9): box one first on the
    /// first coup, box two on the second, and so on.
    #[serde(default)]
    pub marker: bool,
    /// Pass cards each player is given per heat (NSW 15.7).
    #[serde(default)]
    pub pass_cards: u32,
    /// Undisclosed wagers each player may make per session (NSW 15.8).
    #[serde(default)]
    pub undisclosed_wagers: u32,
}

/// NSW 15.4.2 (g).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BuyBackSpec {
    /// How many times an eliminated player may buy back in.
    pub times: u32,
    /// What it costs, minor units (it goes to the prize pool, NSW 15.3.2).
    pub price: i64,
    /// The last round (1 = the first) in which it is offered.
    pub until_round: u32,
}

/// NSW 15.4.2 (j); 15.3.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PrizesSpec {
    /// What the operator adds to the pool (NSW 15.3.1), minor units.
    #[serde(default)]
    pub added: i64,
    /// A pool guaranteed if at least so many enter (NSW 15.3.3).
    #[serde(default)]
    pub guarantee: Option<Guarantee>,
    /// The places paid, first place first: a whole percentage of the pool, or
    /// a fixed prize the operator adds (cash, goods or services).
    pub places: Vec<PlaceSpec>,
    /// How prizes are paid.
    pub payment: String,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Guarantee {
    pub amount: i64,
    pub min_entries: u32,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PlaceSpec {
    #[serde(default)]
    pub percent: Option<u32>,
    #[serde(default)]
    pub prize: Option<String>,
}

/// Checked tournament conditions.
#[derive(Clone, Debug)]
pub struct Conditions {
    pub spec: ConditionsSpec,
    /// `entry.starts`, ms since the epoch.
    pub starts_ms: u64,
    pub rulebook: Rulebook,
    pub dealing: DealingStyle,
    pub bets: Vec<Bet>,
}

/// Most players a tournament takes, tables in a round, wildcards: bounds so
/// that every count and sum of fees fits (a conditions file is input).
pub const MAX_PLAYERS: u32 = 100_000;
const MAX_TABLES: u32 = 10_000;

/// Most coups in a round, minutes in a round, seconds to wager.
const MAX_COUPS: u32 = 1_000;
const MAX_MINUTES: u32 = 24 * 60;
const MAX_WAGER_SECONDS: u32 = 600;

impl Conditions {
    /// Read and check a conditions file.
    pub fn from_toml(text: &str) -> Result<Conditions, Problems> {
        let spec: ConditionsSpec = toml::from_str(text).map_err(|e| toml_problem("tournament conditions", text, &e))?;
        Conditions::new(spec)
    }

    /// Check conditions against their rulebook and themselves; every problem
    /// is named by its field and, where one applies, the rule.
    pub fn new(spec: ConditionsSpec) -> Result<Conditions, Problems> {
        let mut p = Problems::new(format!("tournament conditions {:?}", spec.name));
        if spec.name.trim().is_empty() {
            p.push("name", "is empty");
        }
        let rulebook = match crate::profiles::builtin(&spec.rulebook) {
            Ok(rb) => Some(rb),
            Err(e) => {
                p.push("rulebook", e.to_string());
                None
            }
        };
        if let Some(rb) = &rulebook {
            if !rb.config.citations.contains_key(Cite::Tournament.key()) {
                p.push("rulebook", format!("{} has no rules for tournament play (NSW 15 has)", rb.id));
            }
        }
        check_entry(&spec.entry, &mut p);
        money(&mut p, "chips.per_session", spec.chips.per_session, 1);
        money(&mut p, "chips.buy_in", spec.chips.buy_in, 0);
        check_wagers(&spec, &mut p);
        let bets = check_bets(&spec.wagers.bets, rulebook.as_ref(), &mut p);
        let dealing = check_structure(&spec, rulebook.as_ref(), &mut p);
        check_play(&spec, &mut p);
        if let Some(b) = &spec.buy_back {
            if b.times == 0 {
                p.push("buy_back.times", "is 0: leave buy_back out when there is none");
            }
            money(&mut p, "buy_back.price", b.price, 0);
            if b.until_round == 0 || b.until_round as usize >= spec.structure.rounds.len() {
                p.push(
                    "buy_back.until_round",
                    format!(
                        "{} is not a round before the last (1 to {})",
                        b.until_round,
                        spec.structure.rounds.len().saturating_sub(1)
                    ),
                );
            }
        }
        check_prizes(&spec, &mut p);
        match (rulebook, dealing, crate::promotion::utc_ms(&spec.entry.starts)) {
            (Some(rulebook), Some(dealing), Some(starts_ms)) if p.is_empty() => {
                Ok(Conditions { spec, starts_ms, rulebook, dealing, bets })
            }
            _ => Err(p),
        }
    }
}

/// A money field: at least `floor`, at most [`MAX_LIMIT`].
fn money(p: &mut Problems, path: &str, v: i64, floor: i64) {
    if v < floor {
        p.push(path, format!("{} is below {}", Money(v), Money(floor)));
    } else if v > MAX_LIMIT {
        p.push(path, format!("{} is above the largest amount, {}", Money(v), Money(MAX_LIMIT)));
    }
}

fn check_entry(e: &EntrySpec, p: &mut Problems) {
    if crate::promotion::utc_ms(&e.starts).is_none() {
        p.push("entry.starts", format!("{:?} is not a UTC time YYYY-MM-DDTHH:MM:SSZ", e.starts));
    }
    money(p, "entry.fee", e.fee, 0);
    if e.min_players < 2 {
        p.push("entry.min_players", "a tournament needs at least 2 players");
    }
    if e.max_players > MAX_PLAYERS {
        p.push("entry.max_players", format!("{} is more than {MAX_PLAYERS}", e.max_players));
    }
    if e.max_players < e.min_players {
        p.push("entry.max_players", format!("{} is below entry.min_players ({})", e.max_players, e.min_players));
    }
    if e.application.trim().is_empty() {
        p.push("entry.application", "say where the application form is (NSW 15.4.2(i))");
    }
}

/// Limits: positive, max at least min and in units of it (NSW 15.6.14), and
/// within the chips a player starts with.
fn limits(p: &mut Problems, at: &str, min: i64, max: i64, chips: i64) {
    money(p, &format!("{at}min"), min, 1);
    money(p, &format!("{at}max"), max, 1);
    if min > 0 && max > 0 {
        if max < min {
            p.push(format!("{at}max"), format!("{} is below the minimum {}", Money(max), Money(min)));
        } else if max % min != 0 {
            p.push(
                format!("{at}max"),
                format!("{} is not a whole number of minimums ({}): NSW 15.6.14", Money(max), Money(min)),
            );
        }
        if chips > 0 && min > chips {
            p.push(
                format!("{at}min"),
                format!("{} is more than the {} chips a player starts with: NSW 15.6.13", Money(min), Money(chips)),
            );
        }
    }
}

fn check_wagers(s: &ConditionsSpec, p: &mut Problems) {
    let w = &s.wagers;
    limits(p, "wagers.", w.min, w.max, s.chips.per_session);
    if let Some(t) = w.time_limit_seconds {
        if !(1..=MAX_WAGER_SECONDS).contains(&t) {
            p.push("wagers.time_limit_seconds", format!("{t} is not between 1 and {MAX_WAGER_SECONDS}"));
        }
    }
    let mut last = 1;
    for (i, c) in w.changes.iter().enumerate() {
        let at = format!("wagers.changes[{i}].");
        if c.from_coup <= last {
            p.push(format!("{at}from_coup"), format!("{} must come after coup {last}", c.from_coup));
        }
        last = last.max(c.from_coup);
        limits(p, &at, c.min, c.max, s.chips.per_session);
    }
}

fn check_bets(ids: &[String], rb: Option<&Rulebook>, p: &mut Problems) -> Vec<Bet> {
    if ids.is_empty() {
        p.push("wagers.bets", "names no wager");
    }
    let mut out = Vec::new();
    for (i, id) in ids.iter().enumerate() {
        match Bet::from_id(id) {
            None => p.push(format!("wagers.bets[{i}]"), format!("{id:?} is not a wager")),
            Some(b) if out.contains(&b) => p.push(format!("wagers.bets[{i}]"), format!("{id} is named twice")),
            Some(b) => {
                if rb.is_some_and(|rb| rb.bet(b).is_none()) {
                    p.push(format!("wagers.bets[{i}]"), format!("{id} is not offered under this rulebook"));
                }
                out.push(b);
            }
        }
    }
    out
}

/// The structure (NSW 15.4.2(e)): a dealing method of the rulebook, seats a
/// table that fit its layout, rounds that each eliminate someone and a final
/// at one table, and no more places paid than the final seats.
fn check_structure(s: &ConditionsSpec, rb: Option<&Rulebook>, p: &mut Problems) -> Option<DealingStyle> {
    let st = &s.structure;
    let dealing = check_dealing(&st.dealing, rb, p);
    let boxes = rb.and_then(|rb| rb.layouts.iter().map(|l| l.boxes).max()).unwrap_or(u32::MAX);
    if st.seats_per_table < 2 || st.seats_per_table > boxes {
        p.push(
            "structure.seats_per_table",
            format!("{} is not between 2 and the layout's {boxes} boxes", st.seats_per_table),
        );
    }
    if st.rounds.is_empty() {
        p.push("structure.rounds", "there is no round");
    }
    let seats = st.seats_per_table;
    let mut players = s.entry.max_players;
    for (i, r) in st.rounds.iter().enumerate() {
        let last = i + 1 == st.rounds.len();
        players = check_round(p, i, r, last, seats, players);
    }
    if let Some(last) = st.rounds.last() {
        let places = s.prizes.places.len() as u32;
        let finalists =
            if st.rounds.len() == 1 { s.entry.min_players } else { players.min(last.tables.saturating_mul(seats)) };
        if places > finalists {
            p.push("prizes.places", format!("{places} places are paid but the final seats {finalists} players"));
        }
    }
    dealing
}

/// The dealing method, by its name in the rulebook's own spelling; one the
/// rulebook does not list is refused, naming those it does.
fn check_dealing(dealing: &str, rb: Option<&Rulebook>, p: &mut Problems) -> Option<DealingStyle> {
    use serde::de::IntoDeserializer;
    let named: Result<DealingStyle, serde::de::value::Error> = DealingStyle::deserialize(dealing.into_deserializer());
    match named {
        Ok(d) if rb.is_none_or(|rb| rb.procedures.dealing.contains(&d)) => Some(d),
        _ => {
            let named = rb.map(|rb| {
                rb.procedures
                    .dealing
                    .iter()
                    .filter_map(|d| toml::Value::try_from(d).ok().and_then(|v| v.as_str().map(String::from)))
                    .collect::<Vec<_>>()
                    .join(", ")
            });
            p.push(
                "structure.dealing",
                format!("{:?} is not a dealing method of the rulebook ({})", dealing, named.unwrap_or_default()),
            );
            None
        }
    }
}

/// Round `i`, which at most `players` enter: a name, a length in coups or in
/// minutes, tables enough for its players; the last is the final at one table
/// from which nobody advances, any other eliminates someone. Returns how many
/// players can enter the next round.
fn check_round(p: &mut Problems, i: usize, r: &RoundSpec, last: bool, seats: u32, players: u32) -> u32 {
    let at = format!("structure.rounds[{i}].");
    if r.name.trim().is_empty() {
        p.push(format!("{at}name"), "is empty");
    }
    match (r.coups, r.minutes) {
        (Some(c), None) if (1..=MAX_COUPS).contains(&c) => {}
        (None, Some(m)) if (1..=MAX_MINUTES).contains(&m) => {}
        (Some(_), Some(_)) | (None, None) => {
            p.push(format!("{at}coups"), "give the round's length as coups or as minutes (one of them)")
        }
        (Some(c), None) => p.push(format!("{at}coups"), format!("{c} is not between 1 and {MAX_COUPS}")),
        (None, Some(m)) => p.push(format!("{at}minutes"), format!("{m} is not between 1 and {MAX_MINUTES}")),
    }
    if r.tables == 0 || r.tables > MAX_TABLES {
        p.push(format!("{at}tables"), format!("{} is not between 1 and {MAX_TABLES}", r.tables));
    } else if u64::from(players) > u64::from(r.tables) * u64::from(seats) {
        p.push(format!("{at}tables"), format!("{players} players do not fit {} tables of {seats} seats", r.tables));
    }
    if last {
        if r.advance_per_table > 0 || r.wildcards > 0 || r.repechage {
            p.push(format!("{at}advance_per_table"), "the last round is the final: nobody advances from it");
        }
        if r.tables != 1 {
            p.push(format!("{at}tables"), "the final is played at one table");
        }
        return players;
    }
    if r.advance_per_table == 0 || r.advance_per_table > seats {
        p.push(format!("{at}advance_per_table"), format!("{} is not between 1 and {seats}", r.advance_per_table));
    }
    if r.wildcards > MAX_PLAYERS {
        p.push(format!("{at}wildcards"), format!("{} is more than {MAX_PLAYERS}", r.wildcards));
    }
    let going_on = u64::from(r.tables) * u64::from(r.advance_per_table) + u64::from(r.wildcards);
    let going_on = u32::try_from(going_on).unwrap_or(u32::MAX);
    if going_on >= players {
        p.push(
            format!("{at}advance_per_table"),
            format!("{going_on} of at most {players} players advance: the round eliminates nobody"),
        );
    }
    going_on.min(players)
}

fn check_play(s: &ConditionsSpec, p: &mut Problems) {
    let shortest = s.structure.rounds.iter().filter_map(|r| r.coups).min();
    if let Some(c) = shortest {
        if s.play.pass_cards >= c {
            p.push(
                "play.pass_cards",
                format!("{} pass cards would let a player sit out a round of {c} coups", s.play.pass_cards),
            );
        }
        if s.play.undisclosed_wagers > c {
            p.push(
                "play.undisclosed_wagers",
                format!("{} is more than the {c} coups of a round", s.play.undisclosed_wagers),
            );
        }
    }
}

fn check_prizes(s: &ConditionsSpec, p: &mut Problems) {
    let pr = &s.prizes;
    money(p, "prizes.added", pr.added, 0);
    if pr.payment.trim().is_empty() {
        p.push("prizes.payment", "say how prizes are paid (NSW 15.4.2(j))");
    }
    if pr.places.is_empty() {
        p.push("prizes.places", "no place is paid");
    }
    let mut percent = 0u32;
    for (i, pl) in pr.places.iter().enumerate() {
        match (pl.percent, &pl.prize) {
            (Some(0), None) => p.push(format!("prizes.places[{i}].percent"), "is 0"),
            (Some(n), None) => percent = percent.saturating_add(n),
            (None, Some(t)) if !t.trim().is_empty() => {}
            _ => p.push(format!("prizes.places[{i}]"), "give a percent of the pool or a prize (one of them)"),
        }
    }
    let pool_may_grow = s.entry.fee > 0 || pr.added > 0 || s.buy_back.as_ref().is_some_and(|b| b.price > 0);
    if percent > 100 {
        p.push("prizes.places", format!("the shares add up to {percent}% of the pool"));
    } else if pool_may_grow && percent != 100 {
        p.push(
            "prizes.places",
            format!(
                "the shares add up to {percent}%: every entry fee goes to the pool for distribution (NSW 15.3.2), so \
                 the shares must add up to 100%"
            ),
        );
    }
    if let Some(g) = &pr.guarantee {
        money(p, "prizes.guarantee.amount", g.amount, 1);
        if g.min_entries < s.entry.min_players || g.min_entries > s.entry.max_players {
            p.push(
                "prizes.guarantee.min_entries",
                format!("{} is not between entry.min_players and entry.max_players", g.min_entries),
            );
        }
    }
}

impl Conditions {
    /// The conditions with new limits and points where they change (NSW
    /// 15.4.2(d)), checked again, and their text as published: the notice
    /// NSW 15.6.15 requires is this text, given before the start.
    pub fn with_limits(&self, min: i64, max: i64, changes: Vec<LimitChange>) -> Result<(Conditions, String), Problems> {
        let mut spec = self.spec.clone();
        spec.wagers.min = min;
        spec.wagers.max = max;
        spec.wagers.changes = changes;
        let text = toml::to_string(&spec).map_err(|e| {
            let mut p = Problems::new(format!("tournament conditions {:?}", spec.name));
            p.push("wagers", format!("cannot be written: {e}"));
            p
        })?;
        Ok((Conditions::new(spec)?, text))
    }

    /// Until when (ms) a player may withdraw with the fee refunded (NSW
    /// 15.4.2(i)).
    pub fn withdraw_until_ms(&self) -> u64 {
        self.starts_ms.saturating_sub(u64::from(self.spec.entry.withdraw_hours_before_start) * 3_600_000)
    }

    /// The prize pool with `entrants` entries (and no buy-backs): every entry
    /// fee (NSW 15.3.2) plus what the operator adds, or the guarantee if it
    /// applies and is more (NSW 15.3.3).
    pub fn pool(&self, entrants: u32) -> Money {
        let s = &self.spec;
        // Fees and additions are bounded (MAX_LIMIT, MAX_PLAYERS) when the
        // conditions are checked, so this fits; it saturates, never wraps.
        let mut pool = s.entry.fee.saturating_mul(entrants as i64).saturating_add(s.prizes.added);
        if let Some(g) = &s.prizes.guarantee {
            if entrants >= g.min_entries {
                pool = pool.max(g.amount);
            }
        }
        Money(pool)
    }

    /// Each place's cash share of `pool`, first place first: whole
    /// percentages, rounded down, the remainder to first place.
    pub fn shares(&self, pool: Money) -> Vec<Money> {
        let mut out: Vec<Money> = self
            .spec
            .prizes
            .places
            .iter()
            .map(|pl| Money(pl.percent.map_or(0, |n| (i128::from(pool.0) * i128::from(n) / 100) as i64)))
            .collect();
        let percent: u32 = self.spec.prizes.places.iter().filter_map(|pl| pl.percent).sum();
        if percent == 100 {
            let paid: i64 = out.iter().map(|m| m.0).sum();
            if let Some(first) = out.iter_mut().find(|m| m.0 > 0) {
                first.0 += pool.0 - paid;
            }
        }
        out
    }
}
