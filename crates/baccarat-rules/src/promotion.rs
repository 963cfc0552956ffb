//! Promotional prizes (NSW 16): a promotion's terms and conditions as data,
//! checked like a table configuration.
//!
//! A terms file (TOML) holds every item NSW 16.7 lists, and each prize with the
//! details 16.7.11 asks for its kind. [`Terms::new`] names every problem by its
//! field and rule:
//!
//! * a prize that consists of or includes what NSW 16.5 excludes (tobacco, a
//!   firearm, ammunition or an imitation firearm, a prohibited weapon, more than
//!   20 litres of liquor), whether listed in `includes` or named in its
//!   description;
//! * a cash alternative offered for slots or casino dollars (NSW 16.3);
//! * a cash prize over $10,000 whose winner cannot choose cash, crossed cheque
//!   or electronic funds transfer (NSW 16.4);
//! * a prize over $10,000 without a scrutineer (NSW 16.2; the rule says "may",
//!   the issue makes it required);
//! * a closing time after the draw.
//!
//! The draw itself is `baccarat_table::draw`: committed before the closing
//! time, recomputable by anyone from the entries and the revealed seed.

use serde::{Deserialize, Serialize};

use crate::bet::Bet;
use crate::errors::{toml_problem, Problems};
use crate::money::Money;
use crate::table_config::MAX_LIMIT;

/// The value above which a prize needs a scrutineer and a cash prize is paid
/// as the winner chooses (NSW 16.2, 16.4): $10,000.00.
pub const LARGE_PRIZE: Money = Money(1_000_000);

/// Most of one prize drawn.
const MAX_COUNT: u32 = 10_000;

/// Most litres of liquor a prize may include (NSW 16.5.4).
pub const LIQUOR_LITRES: u32 = 20;

/// A terms file as written.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TermsSpec {
    pub name: String,
    /// How prizes are awarded (NSW 16.7.1).
    pub awarded: String,
    /// When and where they may be awarded (NSW 16.7.2).
    pub when_where: String,
    /// Who is eligible (NSW 16.7.3).
    pub eligibility: String,
    /// The minimum wager that earns an entry (NSW 16.7.4), minor units.
    #[serde(default)]
    pub minimum_wager: i64,
    /// The wagers that earn entries (default: banker, player, tie).
    #[serde(default = "main_bets")]
    pub bets: Vec<String>,
    /// Entries per qualifying wager.
    #[serde(default = "one")]
    pub entries_per_wager: u32,
    /// The closing time for entries (NSW 16.7.6), UTC, `YYYY-MM-DDTHH:MM:SSZ`.
    pub closes: String,
    /// The draw's place and time (NSW 16.7.7).
    pub draw_at: String,
    pub draw_place: String,
    /// How a prize is claimed, and whether entrants must be present (16.7.8).
    pub claim: String,
    #[serde(default)]
    pub present_required: bool,
    /// How winners are notified (NSW 16.7.9; 16.8: within 2 days when they
    /// need not be present).
    pub notify: String,
    /// How results are published (NSW 16.7.10).
    pub results: String,
    /// Any qualification, reservation or guarantee (NSW 16.7.5).
    #[serde(default)]
    pub reservations: Vec<String>,
    /// Whether a player wins at most one prize.
    #[serde(default = "yes")]
    pub one_prize_per_player: bool,
    /// The scrutineer overseeing the draw (NSW 16.2).
    #[serde(default)]
    pub scrutineer: Option<String>,
    pub prizes: Vec<PrizeSpec>,
}

fn main_bets() -> Vec<String> {
    ["banker", "player", "tie"].map(String::from).to_vec()
}

fn one() -> u32 {
    1
}

fn yes() -> bool {
    true
}

/// What a prize is (NSW 16.3, 16.7.11).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum PrizeKind {
    Cash,
    Goods,
    Service,
    /// Machinery or an electric appliance (16.7.11.1).
    Machinery,
    /// A motor vehicle (16.7.11.2).
    MotorVehicle,
    /// Travel (16.7.11.3).
    Travel,
    /// Real estate (16.7.11.4).
    RealEstate,
    SlotsDollars,
    CasinoDollars,
    /// Casino promotional tokens (NSW 1.1), wagered under rule 5.2.
    PromotionalTokens,
}

impl PrizeKind {
    fn monetary(self) -> bool {
        self == PrizeKind::Cash
    }

    /// The details NSW 16.7.11 requires for the kind.
    fn details(self) -> &'static [&'static str] {
        match self {
            PrizeKind::Machinery => &["make", "model", "accessories"],
            PrizeKind::MotorVehicle => &["make", "model", "accessories", "registration_included"],
            PrizeKind::Travel => &["persons", "included", "restrictions", "spending_money"],
            PrizeKind::RealEstate => &["dwelling", "plans", "contract", "easements", "address", "included"],
            _ => &[],
        }
    }

    fn rule(self) -> &'static str {
        match self {
            PrizeKind::Machinery => "NSW 16.7.11.1",
            PrizeKind::MotorVehicle => "NSW 16.7.11.2",
            PrizeKind::Travel => "NSW 16.7.11.3",
            PrizeKind::RealEstate => "NSW 16.7.11.4",
            _ => "NSW 16.7.11",
        }
    }
}

/// Something NSW 16.5 excludes from a prize.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Includes {
    Tobacco,
    Firearm,
    Ammunition,
    ImitationFirearm,
    ProhibitedWeapon,
    Liquor,
}

/// How a cash prize is paid (NSW 16.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Payment {
    Cash,
    CrossedCheque,
    Eft,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PrizeSpec {
    pub description: String,
    pub kind: PrizeKind,
    /// Its value, minor units.
    pub value: i64,
    /// How many of it are drawn.
    #[serde(default = "one")]
    pub count: u32,
    /// Whether the winner may take a cash alternative (NSW 16.3).
    #[serde(default)]
    pub cash_alternative: bool,
    /// What it includes that NSW 16.5 speaks of.
    #[serde(default)]
    pub includes: Vec<Includes>,
    #[serde(default)]
    pub liquor_litres: u32,
    /// How a cash prize may be paid (NSW 16.4).
    #[serde(default)]
    pub payment: Vec<Payment>,
    /// The details NSW 16.7.11 asks for its kind.
    #[serde(default)]
    pub details: std::collections::BTreeMap<String, String>,
    /// Conditions on receiving, using or accepting it (NSW 16.7.11).
    #[serde(default)]
    pub conditions: Vec<String>,
}

/// Checked terms.
#[derive(Clone, Debug)]
pub struct Terms {
    pub spec: TermsSpec,
    pub closes_ms: u64,
    pub draw_ms: u64,
    pub bets: Vec<Bet>,
}

/// Words in a description that name what NSW 16.5 excludes.
const EXCLUDED_WORDS: [(&str, &str); 12] = [
    ("tobacco", "NSW 16.5.1"),
    ("cigar", "NSW 16.5.1"),
    ("cigarette", "NSW 16.5.1"),
    ("vape", "NSW 16.5.1"),
    ("firearm", "NSW 16.5.2"),
    ("rifle", "NSW 16.5.2"),
    ("shotgun", "NSW 16.5.2"),
    ("pistol", "NSW 16.5.2"),
    ("ammunition", "NSW 16.5.2"),
    ("crossbow", "NSW 16.5.3"),
    ("taser", "NSW 16.5.3"),
    ("knuckle", "NSW 16.5.3"),
];

impl Terms {
    /// Read and check a terms file.
    pub fn from_toml(text: &str) -> Result<Terms, Problems> {
        let spec: TermsSpec = toml::from_str(text).map_err(|e| toml_problem("promotion terms", text, &e))?;
        Terms::new(spec)
    }

    /// Check terms; every problem is named by its field and rule.
    pub fn new(spec: TermsSpec) -> Result<Terms, Problems> {
        let mut p = Problems::new(format!("promotion terms {:?}", spec.name));
        for (field, value, rule) in [
            ("name", &spec.name, "NSW 16.6"),
            ("awarded", &spec.awarded, "NSW 16.7.1"),
            ("when_where", &spec.when_where, "NSW 16.7.2"),
            ("eligibility", &spec.eligibility, "NSW 16.7.3"),
            ("draw_place", &spec.draw_place, "NSW 16.7.7"),
            ("claim", &spec.claim, "NSW 16.7.8"),
            ("notify", &spec.notify, "NSW 16.7.9"),
            ("results", &spec.results, "NSW 16.7.10"),
        ] {
            if value.trim().is_empty() {
                p.push(field, format!("is empty: the terms must state it ({rule})"));
            }
        }
        if !(0..=MAX_LIMIT).contains(&spec.minimum_wager) {
            p.push("minimum_wager", format!("{} is not between 0 and {}", Money(spec.minimum_wager), Money(MAX_LIMIT)));
        }
        if spec.entries_per_wager == 0 {
            p.push("entries_per_wager", "is 0: no wager would earn an entry");
        }
        let mut bets = Vec::new();
        for (i, id) in spec.bets.iter().enumerate() {
            match Bet::from_id(id) {
                Some(b) => bets.push(b),
                None => p.push(format!("bets[{i}]"), format!("{id:?} is not a wager")),
            }
        }
        let closes = utc_ms(&spec.closes);
        let draw = utc_ms(&spec.draw_at);
        if closes.is_none() {
            p.push("closes", format!("{:?} is not a UTC time YYYY-MM-DDTHH:MM:SSZ (NSW 16.7.6)", spec.closes));
        }
        if draw.is_none() {
            p.push("draw_at", format!("{:?} is not a UTC time YYYY-MM-DDTHH:MM:SSZ (NSW 16.7.7)", spec.draw_at));
        }
        if let (Some(c), Some(d)) = (closes, draw) {
            if c > d {
                p.push("closes", "entries close after the draw");
            }
        }
        if spec.prizes.is_empty() {
            p.push("prizes", "no prize is offered");
        }
        let mut large = false;
        for (i, pr) in spec.prizes.iter().enumerate() {
            large |= check_prize(&format!("prizes[{i}]."), pr, &mut p);
        }
        if large && spec.scrutineer.as_deref().is_none_or(|s| s.trim().is_empty()) {
            p.push("scrutineer", format!("a prize is worth more than {LARGE_PRIZE}: name the scrutineer (NSW 16.2)"));
        }
        match (closes, draw) {
            (Some(closes_ms), Some(draw_ms)) if p.is_empty() => Ok(Terms { spec, closes_ms, draw_ms, bets }),
            _ => Err(p),
        }
    }

    /// Entries a wager of `amount` on `bet` at `at_ms` earns (NSW 16.7.4,
    /// 16.7.6): none after the closing time, under the minimum, or on another
    /// wager.
    pub fn entries_for(&self, bet: Bet, amount: Money, at_ms: u64) -> u32 {
        let qualifies = at_ms <= self.closes_ms && amount.0 >= self.spec.minimum_wager && self.bets.contains(&bet);
        if qualifies {
            self.spec.entries_per_wager
        } else {
            0
        }
    }

    /// The prizes drawn, one per unit of each prize's count, in order.
    pub fn draws(&self) -> Vec<&PrizeSpec> {
        self.spec.prizes.iter().flat_map(|p| std::iter::repeat_n(p, p.count as usize)).collect()
    }
}

/// Check one prize; whether it is large (NSW 16.2).
fn check_prize(at: &str, pr: &PrizeSpec, p: &mut Problems) -> bool {
    if pr.description.trim().is_empty() {
        p.push(format!("{at}description"), "is empty (NSW 16.7.11)");
    }
    if pr.value <= 0 || pr.value > MAX_LIMIT {
        p.push(format!("{at}value"), format!("{} is not between 0.01 and {}", Money(pr.value), Money(MAX_LIMIT)));
    }
    if pr.count == 0 || pr.count > MAX_COUNT {
        p.push(format!("{at}count"), format!("{} is not between 1 and {MAX_COUNT}", pr.count));
    }
    for inc in &pr.includes {
        let (rule, what) = match inc {
            Includes::Tobacco => ("NSW 16.5.1", "tobacco in any form"),
            Includes::Firearm => ("NSW 16.5.2", "a firearm"),
            Includes::Ammunition => ("NSW 16.5.2", "ammunition"),
            Includes::ImitationFirearm => ("NSW 16.5.2", "an imitation firearm"),
            Includes::ProhibitedWeapon => ("NSW 16.5.3", "a prohibited weapon"),
            Includes::Liquor => continue,
        };
        p.push(format!("{at}includes"), format!("a promotional prize may not include {what} ({rule})"));
    }
    if pr.includes.contains(&Includes::Liquor) != (pr.liquor_litres > 0) {
        p.push(format!("{at}liquor_litres"), "give the litres of liquor exactly when it includes liquor");
    }
    if pr.liquor_litres > LIQUOR_LITRES {
        p.push(
            format!("{at}liquor_litres"),
            format!(
                "{} litres is more than the {LIQUOR_LITRES} litres of liquor a prize may include (NSW 16.5.4)",
                pr.liquor_litres
            ),
        );
    }
    let text = pr.description.to_lowercase();
    for (word, rule) in EXCLUDED_WORDS {
        if text.contains(word) {
            p.push(
                format!("{at}description"),
                format!("names {word:?}, which a promotional prize may not include ({rule})"),
            );
        }
    }
    if pr.cash_alternative && matches!(pr.kind, PrizeKind::SlotsDollars | PrizeKind::CasinoDollars) {
        p.push(format!("{at}cash_alternative"), "slots and casino dollars have no cash alternative (NSW 16.3)");
    }
    if pr.cash_alternative && pr.kind.monetary() {
        p.push(format!("{at}cash_alternative"), "a cash prize needs no cash alternative (NSW 16.3)");
    }
    let large = pr.value > LARGE_PRIZE.0;
    if pr.kind.monetary() && large {
        let all = [Payment::Cash, Payment::CrossedCheque, Payment::Eft];
        if !all.iter().all(|m| pr.payment.contains(m)) {
            p.push(
                format!("{at}payment"),
                format!(
                    "a cash prize over {LARGE_PRIZE} is paid as the winner chooses: cash, crossed cheque, electronic \
                     funds transfer or a combination (NSW 16.4)"
                ),
            );
        }
    }
    for key in pr.kind.details() {
        if pr.details.get(*key).is_none_or(|v| v.trim().is_empty()) {
            p.push(format!("{at}details.{key}"), format!("is required for this kind of prize ({})", pr.kind.rule()));
        }
    }
    large
}

/// `YYYY-MM-DDTHH:MM:SSZ` as ms since the epoch (UTC only: terms are
/// published with an unambiguous time).
pub fn utc_ms(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    if b.len() != 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' || b[16] != b':' || b[19] != b'Z'
    {
        return None;
    }
    let num = |r: std::ops::Range<usize>| s.get(r)?.parse::<i64>().ok();
    let (y, m, d, hh, mm, ss) = (num(0..4)?, num(5..7)?, num(8..10)?, num(11..13)?, num(14..16)?, num(17..19)?);
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days_in = [31, if leap { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    if !(1970..=9999).contains(&y) || !(1..=12).contains(&m) || d < 1 || d > days_in[m as usize - 1] {
        return None;
    }
    if hh > 23 || mm > 59 || ss > 59 {
        return None;
    }
    // Howard Hinnant's days-from-civil.
    let (y2, m2) = if m <= 2 { (y - 1, m + 9) } else { (y, m - 3) };
    let era = y2.div_euclid(400);
    let yoe = y2 - era * 400;
    let doy = (153 * m2 + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(((days * 86_400 + hh * 3600 + mm * 60 + ss) * 1000) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_times_are_read_exactly_and_bad_ones_refused() {
        assert_eq!(utc_ms("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(utc_ms("2000-02-29T12:00:00Z"), Some(951_825_600_000));
        assert_eq!(utc_ms("2026-11-24T00:00:00Z"), Some(1_795_478_400_000));
        for bad in ["2026-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-11-24 00:00:00Z", "2026-11-24T24:00:00Z", ""]
        {
            assert_eq!(utc_ms(bad), None, "{bad}");
        }
    }
}
