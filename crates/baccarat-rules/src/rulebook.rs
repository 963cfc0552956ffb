//! Rulebook profiles: what one rulebook permits, read from TOML and validated.
//!
//! A [`RulebookConfig`] is the file as written; [`Rulebook`] is the checked form,
//! built by `TryFrom` (parse, don't validate). A `Rulebook` always has: known wager
//! ids; pay tables that price every outcome class of their wager and nothing else;
//! variants whose Player and Banker tables exist; deck counts within the shoe's;
//! exclusions that name known wagers; quotes only for cited keys.

use crate::ante::{AnteConfig, AnteRules};
use indexmap::IndexMap;

use serde::{Deserialize, Serialize};

use crate::bet::{Bet, Outcome};
use crate::errors::{toml_problem, Problems};
use crate::paytable::{PayTable, Pays};
use crate::settle::{FractionalPayout, UnpayableStake};

/// The most decks any of the rulebooks deals from (NSW 3.1, AU 3.4, EU 1.3, resort:
/// 8). A bound, not a rule: a profile may allow fewer.
pub const MAX_DECKS: u32 = 8;

/// A rulebook profile as written in TOML.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RulebookConfig {
    pub id: String,
    pub title: String,
    /// The rulebook text this profile transcribes.
    pub source: String,
    pub shoe: ShoeConfig,
    pub settlement: SettlementConfig,
    pub limits: LimitsConfig,
    #[serde(default)]
    pub ante: Option<AnteConfig>,
    pub procedures: ProceduresConfig,
    #[serde(default)]
    pub layouts: Vec<LayoutConfig>,
    pub variants: IndexMap<String, VariantConfig>,
    pub bets: IndexMap<String, BetConfig>,
    #[serde(default)]
    pub exclusions: Vec<ExclusionConfig>,
    pub conduct: ConductConfig,
    /// What each irregularity and procedure leads to where the rulebooks differ.
    pub remedies: crate::RemediesConfig,
    /// Where the rulebook says each thing the table engine enforces, by key (see
    /// [`CITATION_KEYS`]); the engine names these in refusals and events.
    #[serde(default)]
    pub citations: IndexMap<String, String>,
    /// The text of each citation, quoted verbatim from the rulebook, by the same
    /// keys: what staff are shown at an irregularity or refusal. Keys the
    /// rulebook is silent on have no quote.
    #[serde(default)]
    pub quotes: IndexMap<String, String>,
}

/// How the game is conducted where the rulebooks differ.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ConductConfig {
    /// A wager on both Banker and Player: NSW 5.6.6 needs a supervisor's approval;
    /// AU 5.2(c) allows it.
    pub banker_and_player: Permission,
    /// Whether side bets need a main wager from the same player (AU 11A.2 and
    /// siblings: "at the time of placement of his/her initial wager"); NSW 10.4
    /// lets a supervisor impose it, which a table configuration can do.
    pub side_bets_need_main_wager: bool,
    /// At most one wager of each side bet per player per coup (NSW 10.5, 10.12 …).
    pub one_side_bet_each: bool,
    /// Who receives a hand's cards when wagers tie: NSW 8.10 the seat nearest the
    /// dealer's right, then counter-clockwise; AU 8.9(b) the lowest-numbered seat.
    pub equal_wager_order: SeatOrder,
    /// Minutes a raised table minimum must be on a sign before it applies to the
    /// players already at the table (NSW 6.7: 20). `None`: no notice is required.
    #[serde(default)]
    pub minimum_notice_minutes: Option<u32>,
    /// Whether a player may appoint a nominee to place wagers and handle cards
    /// for them (AU 2.3, 15.3-15.4).
    #[serde(default)]
    pub nominees: bool,
    /// Whether a supervisor may let a player wager above the table's maximum,
    /// with a sign for that player (NSW 6.8; EU's "personal limit marker": a
    /// limit "different from the table's limit"). Elsewhere a personal limit
    /// stays within the table's. Either way the casino's ceiling and the float
    /// bound it.
    #[serde(default)]
    pub personal_max_above_table: bool,
    /// Whether wagers may be placed with promotional tokens, winnings paid in
    /// chips (NSW 1.1 "Casino Promotional Token"; 5.2); the citation
    /// `promotional_tokens` is its reference, this is the switch.
    #[serde(default)]
    pub promotional_tokens: bool,
    pub rule: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Permission {
    Allowed,
    NeedsApproval,
    Forbidden,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SeatOrder {
    /// NSW 8.10-8.11: nearest the dealer's right (the highest-numbered seat, seats
    /// numbered from the dealer's left), then counter-clockwise.
    NearestDealerRight,
    /// AU 8.9(b): the lowest-numbered seat, then counter-clockwise.
    LowestSeat,
}

/// The citation keys the table engine uses.
pub const CITATION_KEYS: &[&str] = &[
    "wagers_closed",
    "withdraw_losing",
    "combination",
    "limits",
    "minimum_unit",
    "differential",
    "side_bet_needs_main",
    "one_side_bet",
    "supervisor_refusal",
    "invalid_bet_returned",
    "insufficient_cards",
    "cutting_card",
    "last_coup",
    "burn",
    "cut",
    "no_bet_coup",
    "unauthorised_player_third",
    "excess_card",
    "face_up_first",
    "face_up_within",
    "missing_or_foreign",
    "misdeal",
    "scanner_discrepancy",
    "invalidated",
    "shuffler_malfunction",
    "wrong_hand",
    "ante",
    "personal_limits",
    "nominee",
    "late_wagers",
    "card_sets",
    "minimum_change",
    "promotional_tokens",
    "shuffler",
    "banker_unpayable",
    "dealing",
    "tournament",
];

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ShoeConfig {
    pub decks: Vec<u32>,
    pub rule: String,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SettlementConfig {
    pub fractional_payout: FractionalPayout,
    pub unpayable_stake: UnpayableStake,
    pub rule: String,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsConfig {
    /// Whether a maximum table differential may be set (NSW 6.1; AU 5.17; EU 6.1).
    pub table_differential: bool,
    pub rule: String,
}

/// Shoe and dealing procedures; read by the table engine.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ProceduresConfig {
    pub burn: Vec<BurnProcedure>,
    pub burn_rule: String,
    /// The cutting card goes at least this many cards in from either end.
    pub cut_min_from_either_end: u32,
    /// The dealer then puts it at least this many cards from the back.
    pub cutting_card_min_from_back: u32,
    pub cut_rule: String,
    pub dealing: Vec<DealingStyle>,
    pub dealing_rule: String,
    /// What happens to a coup interrupted by a failure of the table system (a
    /// server crash mid-coup): completed from the recorded shoe, or void with
    /// every wager returned. Default: complete.
    #[serde(default)]
    pub interrupted_coup: InterruptedCoup,
    /// The rule the policy follows.
    #[serde(default)]
    pub interrupted_coup_rule: Option<String>,
    /// Two sets of cards used in turn with a non-continuous shuffler (AU 3.4(a));
    /// the citation `card_sets` is its reference, this is the switch.
    #[serde(default)]
    pub card_sets: bool,
}

/// The interrupted-coup policy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InterruptedCoup {
    /// The cards are intact and in order, so the coup continues (NSW 13.2).
    #[default]
    Complete,
    /// The coup is void and every wager returned (NSW 13.4; AU 12.6).
    Void,
}

/// The burn procedures the rulebooks name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BurnProcedure {
    /// NSW 4.7.1: burn the first card face down.
    BurnOne,
    /// NSW 4.7.2; AU 7.7(b): burn one, shown on request.
    BurnOneShown,
    /// NSW 4.7.3/4.8; AU 7.7(a)/4.1A; EU 3.1.1: turn one, burn as many as its value.
    TurnAndBurn,
    /// EU 3.1.2: three coups without bets.
    ThreeNoBetCoups,
}

/// The dealing styles the rulebooks name. No style is a default: a table's
/// is the one its configuration names, else its rulebook's first
/// (`TableConfig`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum DealingStyle {
    /// NSW 8.5-8.7.
    MethodA,
    /// NSW 8.8-8.16.
    MethodB,
    /// NSW 8.17-8.26.
    MethodC,
    /// AU 8.6-8.7.
    StyleA,
    /// AU 8.8-8.18.
    StyleB,
    /// AU 8.19-8.20.
    StyleC,
    /// AU 15.
    International,
    /// Resort: face-up dealing.
    FaceUp,
    /// Resort: face-down (squeezing).
    Squeeze,
    /// EU 5.1: players with the highest bets hold the cards.
    PlayersHoldCards,
}

/// One version of the game and the layout it is played on: AU 2.2 names three
/// (Mini, Midi and full Baccarat) and AU 3.1 gives each its boxes (up to 7, 9
/// and 14 numbered sets of wagering areas, with areas for standing players
/// only at full Baccarat). A table configuration chooses one by `name`
/// (`TableConfigSpec::layout`); a rulebook with one layout (NSW 2.1: 14
/// boxes; EU 1.1: ten seats) has nothing to choose.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct LayoutConfig {
    /// The name a table configuration chooses it by.
    pub name: String,
    /// The numbered boxes, 1 to this (AU 3.1).
    pub boxes: u32,
    /// How many players may wager on one box (AU 5.7: one at full Baccarat;
    /// AU 5.8(a): up to three at Mini and Midi Baccarat).
    pub players_per_box: u32,
    /// Whether the layout has an area for standing players (AU 3.1(c), 5.6(a)).
    #[serde(default)]
    pub standing_players: bool,
    pub rule: String,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct VariantConfig {
    pub title: String,
    pub rule: String,
    /// Name of a pay table under `bets.player.pay_tables`.
    pub player: String,
    /// Name of a pay table under `bets.banker.pay_tables`.
    pub banker: String,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BetConfig {
    pub rule: String,
    /// Deck counts with which this wager may be offered, if narrower than the shoe's.
    #[serde(default)]
    pub decks: Option<Vec<u32>>,
    #[serde(default)]
    pub decks_rule: Option<String>,
    pub pay_tables: IndexMap<String, PayTableConfig>,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PayTableConfig {
    pub rule: String,
    /// Outcome id -> pay line ("a:b", "a:b less N%", "push", "lose").
    pub pays: IndexMap<String, String>,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ExclusionConfig {
    pub rule: String,
    pub offered: Vec<String>,
    pub excludes: Vec<String>,
}

/// A game variant: the Player and Banker pay tables that go together.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variant {
    pub id: String,
    pub title: String,
    pub rule: String,
    pub player: PayTable,
    pub banker: PayTable,
}

/// What a rulebook permits for one wager.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BetRules {
    pub bet: Bet,
    pub rule: String,
    /// `None`: any of the shoe's deck counts.
    pub decks: Option<Vec<u32>>,
    pub decks_rule: Option<String>,
    pub pay_tables: Vec<PayTable>,
}

impl BetRules {
    pub fn allows_decks(&self, decks: u32) -> bool {
        self.decks.as_ref().is_none_or(|d| d.contains(&decks))
    }

    pub fn pay_table(&self, name: &str) -> Option<&PayTable> {
        self.pay_tables.iter().find(|t| t.name == name)
    }
}

/// Wagers that may not be offered at the same table (AU 11A.1A, 11C.2, 11D.2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exclusion {
    pub rule: String,
    pub offered: Vec<Bet>,
    pub excludes: Vec<Bet>,
}

/// A validated rulebook profile.
#[derive(Clone, Debug)]
pub struct Rulebook {
    pub id: String,
    pub title: String,
    pub source: String,
    pub decks: Vec<u32>,
    pub decks_rule: String,
    pub fractional_payout: FractionalPayout,
    pub unpayable_stake: UnpayableStake,
    pub settlement_rule: String,
    pub table_differential: bool,
    pub limits_rule: String,
    pub ante: Option<AnteRules>,
    pub procedures: ProceduresConfig,
    pub layouts: Vec<LayoutConfig>,
    pub variants: Vec<Variant>,
    pub bets: Vec<BetRules>,
    pub exclusions: Vec<Exclusion>,
    /// The profile as written, for display and audit.
    pub config: RulebookConfig,
}

impl Rulebook {
    /// Where this rulebook says `key` (one of [`CITATION_KEYS`]); a rulebook that
    /// is silent says so, naming itself.
    pub fn cite(&self, key: crate::Cite) -> String {
        self.config.citations.get(key.key()).cloned().unwrap_or_else(|| format!("{}: not stated", self.id))
    }

    /// The rule text that [`Rulebook::cite`] names for `key`, quoted verbatim
    /// from the rulebook; `None` where the profile quotes none (the rulebook is
    /// silent, or the key is not cited).
    pub fn quote(&self, key: crate::Cite) -> Option<&str> {
        self.config.quotes.get(key.key()).map(String::as_str)
    }

    /// Parse and validate a profile from TOML text.
    pub fn from_toml(text: &str) -> Result<Rulebook, Problems> {
        let subject = "rulebook profile";
        let config: RulebookConfig = toml::from_str(text).map_err(|e| toml_problem(subject, text, &e))?;
        Rulebook::try_from(config)
    }

    pub fn bet(&self, bet: Bet) -> Option<&BetRules> {
        self.bets.iter().find(|b| b.bet == bet)
    }

    pub fn variant(&self, id: &str) -> Option<&Variant> {
        self.variants.iter().find(|v| v.id == id)
    }

    /// The largest deck count the rulebook allows, the default for a table.
    pub fn default_decks(&self) -> u32 {
        self.decks.iter().copied().max().unwrap_or(MAX_DECKS)
    }

    /// The layout a table plays on when its configuration names none: the
    /// profile's first (AU: Mini Baccarat, as every AU table was before the
    /// version became a setting). A profile that lists none is silent, and
    /// gets 14 boxes of one player each, the most any rulebook prints (NSW 2.1;
    /// AU 3.1(c)), with no standing players.
    pub fn default_layout(&self) -> LayoutConfig {
        self.layouts.first().cloned().unwrap_or_else(|| LayoutConfig {
            name: "standard".into(),
            boxes: 14,
            players_per_box: 1,
            standing_players: false,
            rule: format!("{}: not stated", self.id),
        })
    }

    /// The layout called `name`, if the profile lists it.
    pub fn layout(&self, name: &str) -> Option<&LayoutConfig> {
        self.layouts.iter().find(|l| l.name == name)
    }
}

impl TryFrom<RulebookConfig> for Rulebook {
    type Error = Problems;

    /// Check a profile, listing every problem at once (DESIGN principle 2),
    /// in the order of the file: id, shoe, ante, procedures, features,
    /// layouts, wagers, variants, exclusions, citations and quotes.
    fn try_from(c: RulebookConfig) -> Result<Rulebook, Problems> {
        let mut p = Problems::new(format!("profile {}", if c.id.is_empty() { "?" } else { &c.id }));
        if c.id.is_empty() || !c.id.chars().all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '-') {
            p.push("id", "must be non-empty lowercase letters, digits and '-'");
        }
        check_decks(&mut p, "shoe.decks", &c.shoe.decks, None);
        let ante = ante_rules(&mut p, &c);
        check_card_bounds(&mut p, &c);
        check_features_cited(&mut p, &c);
        check_layouts(&mut p, &c);
        let bets = bet_rules(&mut p, &c);
        let variants = variants(&mut p, &c, &bets);
        let exclusions = exclusions(&mut p, &c);
        check_citations(&mut p, &c);
        let rb = Rulebook {
            id: c.id.clone(),
            title: c.title.clone(),
            source: c.source.clone(),
            decks: c.shoe.decks.clone(),
            decks_rule: c.shoe.rule.clone(),
            fractional_payout: c.settlement.fractional_payout,
            unpayable_stake: c.settlement.unpayable_stake,
            settlement_rule: c.settlement.rule.clone(),
            table_differential: c.limits.table_differential,
            limits_rule: c.limits.rule.clone(),
            ante,
            procedures: c.procedures.clone(),
            layouts: c.layouts.clone(),
            variants,
            bets,
            exclusions,
            config: c,
        };
        p.into_result(rb)
    }
}

/// The ante's bound as a fraction of the table minimum (AU 1.0 "Ante"), if
/// the profile has Ante Up Baccarat.
fn ante_rules(p: &mut Problems, c: &RulebookConfig) -> Option<AnteRules> {
    c.ante.as_ref().and_then(|a| match parse_fraction(&a.max_fraction_of_minimum) {
        Some((n, d)) => Some(AnteRules { max_num: n, max_den: d, rule: a.rule.clone() }),
        None => {
            p.push("ante.max_fraction_of_minimum", "must be a fraction n/d between 0 and 1, e.g. \"1/8\"");
            None
        }
    })
}

/// The cut and the cutting card's place are counted in cards: a bound of no
/// card, or beyond the largest shoe, is no bound a dealer can keep.
fn check_card_bounds(p: &mut Problems, c: &RulebookConfig) {
    for (name, bound) in [
        ("procedures.cut_min_from_either_end", c.procedures.cut_min_from_either_end),
        ("procedures.cutting_card_min_from_back", c.procedures.cutting_card_min_from_back),
    ] {
        if bound == 0 || bound > 52 * MAX_DECKS {
            p.push(name, format!("{bound} cards is not a usable bound (1 to {})", 52 * MAX_DECKS));
        }
    }
}

/// A feature is a setting; its citation is its reference, and a feature
/// switched on without one would be refused under "not stated".
fn check_features_cited(p: &mut Problems, c: &RulebookConfig) {
    for (on, path, key) in [
        (c.procedures.card_sets, "procedures.card_sets", "card_sets"),
        (c.conduct.promotional_tokens, "conduct.promotional_tokens", "promotional_tokens"),
        (c.conduct.personal_max_above_table, "conduct.personal_max_above_table", "personal_limits"),
    ] {
        if on && !c.citations.contains_key(key) {
            p.push(path, format!("switched on without its rule: add citations.{key}"));
        }
    }
}

/// Each layout's boxes (NSW 2.1; AU 3.1) and players per box (AU 5.8), and
/// names that are unique.
fn check_layouts(p: &mut Problems, c: &RulebookConfig) {
    for (i, l) in c.layouts.iter().enumerate() {
        if l.boxes == 0 || l.boxes > 14 || l.players_per_box == 0 || l.players_per_box > 3 {
            p.push(
                format!("layouts[{i}]"),
                "boxes must be 1 to 14 (NSW 2.1; AU 3.1) and players_per_box 1 to 3 (AU 5.8)",
            );
        }
        // A table chooses its layout by name: two of one name would make
        // the choice ambiguous.
        if c.layouts[..i].iter().any(|o| o.name == l.name) {
            p.push(format!("layouts[{i}].name"), format!("{:?} names another layout too", l.name));
        }
    }
}

/// The wagers the profile prints, each with its decks and pay tables; the
/// main wagers must be among them (NSW 5.1; AU 5.1).
fn bet_rules(p: &mut Problems, c: &RulebookConfig) -> Vec<BetRules> {
    let mut bets = Vec::new();
    for (id, bc) in &c.bets {
        let path = format!("bets.{id}");
        let Some(bet) = Bet::from_id(id) else {
            p.push(&path, format!("unknown wager id {id:?}; known: {}", known_bets()));
            continue;
        };
        if let Some(d) = &bc.decks {
            check_decks(p, &format!("{path}.decks"), d, Some(&c.shoe.decks));
        }
        if bc.pay_tables.is_empty() {
            p.push(format!("{path}.pay_tables"), "a wager needs at least one pay table");
        }
        let mut tables = Vec::new();
        for (name, tc) in &bc.pay_tables {
            if let Some(t) = pay_table(p, &format!("{path}.pay_tables.{name}"), bet, name, tc) {
                tables.push(t);
            }
        }
        bets.push(BetRules {
            bet,
            rule: bc.rule.clone(),
            decks: bc.decks.clone(),
            decks_rule: bc.decks_rule.clone(),
            pay_tables: tables,
        });
    }
    for main in [Bet::Player, Bet::Banker, Bet::Tie] {
        if !c.bets.contains_key(main.id()) {
            p.push(
                format!("bets.{}", main.id()),
                "every rulebook has the Player, Banker and Tie wagers (NSW 5.1; AU 5.1)",
            );
        }
    }
    bets
}

/// The variants, each naming a Player and a Banker pay table the wagers
/// print; at least one.
fn variants(p: &mut Problems, c: &RulebookConfig, bets: &[BetRules]) -> Vec<Variant> {
    let find_table = |bet: Bet, name: &str| bets.iter().find(|b| b.bet == bet).and_then(|b| b.pay_table(name)).cloned();
    let mut variants = Vec::new();
    if c.variants.is_empty() {
        p.push("variants", "a rulebook needs at least one variant");
    }
    for (id, v) in &c.variants {
        let player = find_table(Bet::Player, &v.player);
        let banker = find_table(Bet::Banker, &v.banker);
        if player.is_none() {
            p.push(
                format!("variants.{id}.player"),
                format!("no pay table {:?} under bets.player.pay_tables", v.player),
            );
        }
        if banker.is_none() {
            p.push(
                format!("variants.{id}.banker"),
                format!("no pay table {:?} under bets.banker.pay_tables", v.banker),
            );
        }
        if let (Some(player), Some(banker)) = (player, banker) {
            variants.push(Variant { id: id.clone(), title: v.title.clone(), rule: v.rule.clone(), player, banker });
        }
    }
    variants
}

/// The wagers that exclude each other (AU 11A.1A, 11C.2, 11D.2), each naming
/// only wagers of this rulebook.
fn exclusions(p: &mut Problems, c: &RulebookConfig) -> Vec<Exclusion> {
    let mut exclusions = Vec::new();
    for (i, e) in c.exclusions.iter().enumerate() {
        let mut ids = |field: &str, list: &[String]| -> Vec<Bet> {
            list.iter()
                .filter_map(|id| {
                    let b = Bet::from_id(id).filter(|b| c.bets.contains_key(b.id()));
                    if b.is_none() {
                        p.push(format!("exclusions[{i}].{field}"), format!("{id:?} is not a wager of this rulebook"));
                    }
                    b
                })
                .collect()
        };
        let offered = ids("offered", &e.offered);
        let excludes = ids("excludes", &e.excludes);
        exclusions.push(Exclusion { rule: e.rule.clone(), offered, excludes });
    }
    exclusions
}

/// Citation keys are the known ones; a quote is the text of a citation the
/// profile gives, and not empty (where the rulebook is silent the key is
/// omitted).
fn check_citations(p: &mut Problems, c: &RulebookConfig) {
    for key in c.citations.keys() {
        if crate::Cite::parse(key).is_none() {
            p.push(format!("citations.{key}"), format!("unknown key; the keys are {}", CITATION_KEYS.join(", ")));
        }
    }
    for (key, text) in &c.quotes {
        if crate::Cite::parse(key).is_none() {
            p.push(format!("quotes.{key}"), format!("unknown key; the keys are {}", CITATION_KEYS.join(", ")));
        } else if !c.citations.contains_key(key) {
            p.push(format!("quotes.{key}"), "no citation for this key under [citations]; a quote is the cited text");
        } else if text.trim().is_empty() {
            p.push(format!("quotes.{key}"), "an empty quote; omit the key where the rulebook is silent");
        }
    }
}

fn known_bets() -> String {
    Bet::ALL.iter().map(|b| b.id()).collect::<Vec<_>>().join(", ")
}

fn check_decks(p: &mut Problems, path: &str, decks: &[u32], within: Option<&[u32]>) {
    if decks.is_empty() {
        p.push(path, "list at least one deck count");
    }
    for &d in decks {
        if d == 0 || d > MAX_DECKS {
            p.push(path, format!("{d} decks is outside 1 to {MAX_DECKS}"));
        } else if let Some(w) = within {
            if !w.contains(&d) {
                p.push(path, format!("{d} decks is not among the shoe's deck counts {w:?}"));
            }
        }
    }
}

/// Parse "n/d" with 0 < n/d <= 1.
fn parse_fraction(s: &str) -> Option<(i64, i64)> {
    let (n, d) = s.split_once('/')?;
    let (n, d): (i64, i64) = (n.trim().parse().ok()?, d.trim().parse().ok()?);
    (n > 0 && d > 0 && n <= d).then_some((n, d))
}

/// Check and build one pay table.
fn pay_table(p: &mut Problems, path: &str, bet: Bet, name: &str, tc: &PayTableConfig) -> Option<PayTable> {
    let before = p.problems.len();
    let defs = bet.outcomes();
    let mut lines: Vec<(Outcome, Pays)> = Vec::new();
    for (key, text) in &tc.pays {
        let Some(d) = defs.iter().find(|d| d.outcome.id() == *key) else {
            let names: Vec<String> = defs.iter().map(|d| d.outcome.id()).collect();
            p.push(
                format!("{path}.pays.{key}"),
                format!("{bet} has no outcome {key:?}; its outcomes are {}", names.join(", ")),
            );
            continue;
        };
        match text.parse::<Pays>() {
            Ok(pays) => lines.push((d.outcome, pays)),
            Err(e) => p.push(format!("{path}.pays.{key}"), e.to_string()),
        }
    }
    for d in defs.iter().filter(|d| d.parent.is_none()) {
        if !tc.pays.contains_key(&d.outcome.id()) {
            p.push(format!("{path}.pays"), format!("no line for outcome {:?} ({})", d.outcome.id(), d.rule));
        }
    }
    if !lines.iter().any(|(_, pays)| pays.net_odds().is_some()) && p.problems.len() == before {
        p.push(format!("{path}.pays"), "a pay table needs at least one winning line");
    }
    lines.sort_by_key(|(o, _)| defs.iter().position(|d| d.outcome == *o));
    (p.problems.len() == before).then(|| PayTable { bet, name: name.to_string(), rule: tc.rule.clone(), lines })
}
