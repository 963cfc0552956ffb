//! The exposure monitor's read model (issue 50, part 3): every table's
//! offered wagers priced after every card it shows, the alerts raised, and
//! the thresholds they are raised at. What the pit console and the
//! surveillance page read (`GET /api/exposure`).
//!
//! # Design
//!
//! - **Where the cards come from.** The coup feed folds each table's
//!   committed events into its [`ShownCards`] (`coup_feed.rs`), so a
//!   checkpoint carries what was shown and a restart replays the tail into
//!   it; the feed says which tables' knowledge a batch changed.
//! - **Where the offers come from.** The writer, which holds the engines,
//!   copies a table's offers and current maxima ([`ExposureInput`]) into the
//!   batch's view changes only when one of its events can change what is
//!   known or the limits ([`concerns_exposure`]): a batch of wagers copies
//!   nothing.
//! - **Where the pricing runs.** On the publisher, once the batch is durable
//!   and before it is answered (`publish.rs`), so the views a client reads
//!   after its answer include the card it dealt. About 20 µs a table each
//!   time a card is shown (`exposure.rs`), nothing for a wager.
//! - **Alerts** are raised when an offer crosses its table's threshold (it
//!   was at or below it, and is above it now): one alert per crossing, naming
//!   the table, the shoe, the coup, the record and the card that made it so.
//!   The last [`ALERTS`] are kept in memory. The rulebooks are silent on
//!   game protection; the threshold is the casino's ([`Thresholds`]).

use std::collections::{BTreeMap, HashMap, VecDeque};

use baccarat_core::TableId;
use baccarat_math::Ratio;
use baccarat_rules::{Bet, Card, Money, Offer};
use baccarat_table::Event;
use serde::Serialize;

use crate::exposure::{exposure_of, ShownCards, TableExposure, DEFAULT_THRESHOLD};

/// How many alerts are kept, newest last.
pub const ALERTS: usize = 500;

/// Whether an event can change what a table has shown, or its limits: the
/// writer copies the table's offers for pricing only then.
pub fn concerns_exposure(e: &Event) -> bool {
    matches!(
        e,
        Event::ShoeStarted { .. }
            | Event::Burned { .. }
            | Event::CardDealt { .. }
            | Event::HandExposed { .. }
            | Event::CoupCompleted { .. }
            | Event::Irregularity { .. }
            | Event::Reconstructed { .. }
            | Event::CoupClosed { .. }
            | Event::LimitsChanged { .. }
            | Event::PersonalLimitsSet { .. }
    )
}

/// A table's offers as the writer copies them for pricing.
#[derive(Clone, Debug)]
pub struct ExposureInput {
    pub table: TableId,
    pub decks: u32,
    /// Each offer with its maximum at the table's current limits (NSW 6.7).
    pub offers: Vec<(Offer, Money)>,
    /// The shoe and coup the table is at.
    pub shoe: u64,
    pub coup: u64,
    /// What the table's public feed shows a counter ([`reveals`]).
    pub reveals: Vec<String>,
}

impl ExposureInput {
    /// The input of a casino table, as its engine stands.
    pub fn of(table: TableId, engine: &baccarat_table::Table) -> ExposureInput {
        let setup = engine.setup();
        let offers =
            setup.config.offers.iter().map(|o| (o.clone(), crate::exposure::largest_stake(engine, o))).collect();
        let s = engine.state();
        ExposureInput {
            table,
            decks: setup.config.decks,
            offers,
            shoe: s.shoe_number,
            coup: s.coup_number,
            reveals: reveals(setup.config.dealing),
        }
    }
}

/// What a table's public feed (its view, its WebSocket, the coup feed and
/// recall) shows anyone watching, by its dealing style: everything the
/// monitor counts, so a counter watching the feed can know exactly what the
/// monitor knows. The rulebooks make the cards public (each coup is dealt
/// and called in view); the roads are the casino's own display.
pub fn reveals(style: baccarat_rules::DealingStyle) -> Vec<String> {
    use baccarat_table::Handling;
    let dealt = match baccarat_table::handling(style) {
        Handling::FaceUp => "each card as it is dealt, face up (NSW 8.6; AU 8.6)",
        Handling::DealerReveals => "the four initial cards when the dealer turns them (AU 8.19); third cards as dealt (AU 9.7)",
        Handling::Squeeze | Handling::BankerMarker => {
            "each hand's cards when the hand is exposed after the squeeze (NSW 8.8-8.16, 8.17-8.26; AU 8.9-8.16); a no-bet coup's as dealt (NSW 12.4)"
        }
    };
    [
        dealt,
        "every card of each completed coup: the coup's result and the recall",
        "the roads and the shoe's statistics: every result, with pairs and naturals marked",
        "a burned card turned face up or shown on request (NSW 4.7.2-4.7.3; AU 7.7; EU 3.1.1)",
        "how many cards are dealt of the shoe",
    ]
    .map(String::from)
    .to_vec()
}

/// The alert thresholds: a default, and any table's own. An offer alerts
/// when its exact EV is above its table's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Thresholds {
    pub default: Ratio,
    pub tables: BTreeMap<TableId, Ratio>,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds { default: DEFAULT_THRESHOLD, tables: BTreeMap::new() }
    }
}

impl Thresholds {
    pub fn of(&self, table: TableId) -> Ratio {
        self.tables.get(&table).copied().unwrap_or(self.default)
    }
}

/// Parse a threshold: the player's expected return per unit staked, as a
/// decimal (`0`, `-0.005`, `0.01`) or a percentage (`1.5%`), kept exact.
pub fn parse_threshold(s: &str) -> Result<Ratio, String> {
    let t = s.trim();
    let (digits, scale) = match t.strip_suffix('%') {
        Some(p) => (p.trim(), 100i128),
        None => (t, 1),
    };
    let (neg, body) = match digits.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, digits.strip_prefix('+').unwrap_or(digits)),
    };
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    let ok = |p: &str| p.chars().all(|c| c.is_ascii_digit());
    if body.is_empty() || !ok(int) || !ok(frac) || int.len() + frac.len() == 0 || int.len() + frac.len() > 18 {
        return Err(format!("{s:?} is not an expected return such as 0, -0.005 or 1.5%"));
    }
    let num: i128 = format!("{int}{frac}").parse().map_err(|_| format!("{s:?} is not a number"))?;
    let den = 10i128.pow(frac.len() as u32) * scale;
    let r = Ratio::new(if neg { -num } else { num }, den);
    if r.num.abs() >= r.den {
        return Err(format!("{s:?}: an expected return per unit staked lies between -1 and 1"));
    }
    Ok(r)
}

/// An offer crossing its table's threshold.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ExposureAlert {
    /// Increasing, from the server's clock (milliseconds × 1000, plus one
    /// for each alert within the same millisecond): later alerts, also after
    /// a restart, have larger numbers.
    pub id: u64,
    pub table: TableId,
    pub shoe: u64,
    pub coup: u64,
    /// The table's record that made it so (its place in the table's chain):
    /// the last in its batch that showed a card.
    pub seq: u64,
    /// The cards that record showed: one dealt face up, a hand's two or
    /// three when it is exposed, a completed coup's not yet shown (empty: a
    /// limit changed, or the server started with the wager above).
    pub cards: Vec<Card>,
    /// The wager (`player_pair`, …) and its pay table.
    pub bet: Bet,
    pub pay_table: String,
    /// The exact EV, reduced (`"num/den"`), and as a percentage for display.
    pub ev: String,
    pub ev_percent: f64,
    pub at_ms: u64,
}

/// One offered wager as the monitor shows it.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct OfferWatch {
    pub bet: Bet,
    pub pay_table: String,
    /// The player's expected net return per unit staked: exact
    /// (`"num/den"`), and as a percentage for display only.
    pub ev: String,
    pub ev_percent: f64,
    pub alert: bool,
    /// The offer's maximum at the table's current limits.
    pub max: Money,
    /// The player's expected gain on a maximum wager, rounded down to whole
    /// minor units (toward the house); negative is the house's expected win.
    pub exposure: Money,
}

/// A table as the monitor shows it.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct TableWatch {
    pub table: TableId,
    pub shoe: u64,
    pub coup: u64,
    /// The table's alert threshold, exactly (`"num/den"`) and in percent.
    pub threshold: String,
    pub threshold_percent: f64,
    /// Cards not yet shown this shoe: the pool the EVs are over.
    pub unseen: u32,
    /// Cards shown this shoe.
    pub shown: u32,
    pub offers: Vec<OfferWatch>,
    /// Why nothing is priced (too few unseen cards), if so.
    pub unpriced: Option<String>,
    pub alert: bool,
    /// What the table's public feed shows a counter: everything the EVs
    /// are priced from.
    pub reveals: Vec<String>,
}

/// Every table's latest pricing and the alerts.
#[derive(Debug, Default)]
pub struct Exposures {
    thresholds: Thresholds,
    tables: BTreeMap<TableId, TableWatch>,
    /// Each table's offers as last copied (a batch that shows a card
    /// without a copy reuses them).
    inputs: HashMap<TableId, ExposureInput>,
    alerts: VecDeque<ExposureAlert>,
    next_alert: u64,
}

/// What made a table's pricing change: the record and the cards it showed.
#[derive(Clone, Debug, Default)]
pub struct Cause {
    pub seq: u64,
    pub cards: Vec<Card>,
}

impl Exposures {
    pub fn new(thresholds: Thresholds) -> Exposures {
        Exposures { thresholds, ..Exposures::default() }
    }

    /// Price `table` (an input given replaces the one kept) from `shown`,
    /// raising an alert for each offer that crossed its threshold.
    pub fn price(&mut self, input: Option<ExposureInput>, table: TableId, shown: &ShownCards, why: Cause, now_ms: u64) {
        if let Some(i) = input {
            self.inputs.insert(i.table, i);
        }
        let Some(input) = self.inputs.get(&table) else { return };
        let threshold = self.thresholds.of(table);
        let offers: Vec<Offer> = input.offers.iter().map(|(o, _)| o.clone()).collect();
        let max = |o: &Offer| input.offers.iter().find(|(p, _)| p.bet == o.bet).map_or(o.max, |(_, m)| *m);
        let x = exposure_of(&offers, max, &shown.unseen(input.decks), threshold);
        let watch = watch_of(input, &x, threshold, shown);
        let before = self.tables.get(&table);
        let crossed: Vec<&OfferWatch> = watch
            .offers
            .iter()
            .filter(|o| o.alert)
            .filter(|o| !before.is_some_and(|b| b.shoe == watch.shoe && was_alert(b, o)))
            .collect();
        let mut new = Vec::new();
        for o in crossed {
            // Numbered from the clock (a thousand a millisecond), so that
            // a client's `after` still holds across a restart or failover.
            self.next_alert = (self.next_alert + 1).max(now_ms.saturating_mul(1000));
            new.push(ExposureAlert {
                id: self.next_alert,
                table,
                shoe: watch.shoe,
                coup: watch.coup,
                seq: why.seq,
                cards: why.cards.clone(),
                bet: o.bet,
                pay_table: o.pay_table.clone(),
                ev: o.ev.clone(),
                ev_percent: o.ev_percent,
                at_ms: now_ms,
            });
        }
        for a in new {
            if self.alerts.len() == ALERTS {
                self.alerts.pop_front();
            }
            self.alerts.push_back(a);
        }
        self.tables.insert(table, watch);
    }

    /// Whether `input` would price `table` otherwise than as it was last
    /// priced: a maximum changed (NSW 6.7), or the shoe or coup moved on.
    pub fn offers_changed(&self, input: &ExposureInput) -> bool {
        self.inputs.get(&input.table).is_none_or(|old| {
            old.shoe != input.shoe
                || old.coup != input.coup
                || old.offers.iter().map(|(_, m)| m).ne(input.offers.iter().map(|(_, m)| m))
        })
    }

    /// Forget the alerts raised so far: a start's first pricing of every
    /// table is no crossing (the wagers above their thresholds then are
    /// flagged in the tables, not alerted again).
    pub fn started(&mut self) {
        self.alerts.clear();
    }

    /// Every table's latest pricing.
    pub fn tables(&self) -> impl Iterator<Item = &TableWatch> {
        self.tables.values()
    }

    pub fn table(&self, t: TableId) -> Option<&TableWatch> {
        self.tables.get(&t)
    }

    /// The alerts kept, oldest first, after alert `after` (0: all).
    pub fn alerts(&self, after: u64) -> impl Iterator<Item = &ExposureAlert> {
        self.alerts.iter().filter(move |a| a.id > after)
    }

    pub fn thresholds(&self) -> &Thresholds {
        &self.thresholds
    }
}

/// Whether `o`'s wager alerted in the table's previous pricing.
fn was_alert(before: &TableWatch, o: &OfferWatch) -> bool {
    before.offers.iter().any(|b| b.bet == o.bet && b.pay_table == o.pay_table && b.alert)
}

fn exact(r: Ratio) -> String {
    format!("{}/{}", r.num, r.den)
}

fn percent(r: Ratio) -> f64 {
    r.to_f64() * 100.0
}

fn watch_of(input: &ExposureInput, x: &TableExposure, threshold: Ratio, shown: &ShownCards) -> TableWatch {
    let offers = x
        .offers
        .iter()
        .map(|o| OfferWatch {
            bet: o.bet,
            pay_table: o.pay_table.clone(),
            ev: exact(o.ev),
            ev_percent: percent(o.ev),
            alert: o.alert,
            max: o.max,
            exposure: Money(o.exposure_minor),
        })
        .collect();
    TableWatch {
        table: input.table,
        shoe: input.shoe,
        coup: input.coup,
        threshold: exact(threshold),
        threshold_percent: percent(threshold),
        unseen: x.unseen,
        shown: shown.shown().iter().sum(),
        offers,
        unpriced: x.unpriced.clone(),
        alert: x.alert,
        reveals: input.reveals.clone(),
    }
}

#[cfg(test)]
#[path = "exposure_watch_tests.rs"]
mod tests;
