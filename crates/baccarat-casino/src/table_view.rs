//! What the outside sees of each table: a read model whose changes are prepared
//! by the writer for the tables each batch touched, and made visible by the
//! committer once that batch is durable. Cards appear only
//! as the engine's view shows them — to everyone once exposed, and to the player
//! squeezing a hand while it is out with them (kept apart in `private`, never
//! serialised with the public view) — so nothing about the shoe leaks before a
//! card is exposed.

use baccarat_core::TableId;
use baccarat_rules::Cite;
use std::collections::{HashMap, HashSet};

use baccarat_rules::{Card, DealingStyle, Money, Side};
use baccarat_table::Board;
use baccarat_table::{Phase, PlayerId, Position};
use serde::Serialize;

use crate::casino::closing::Closure;
use crate::casino::{Casino, CasinoTable};
use crate::exposure_watch::{concerns_exposure, ExposureInput};
use crate::ledger::AccountKind;
use crate::store::Commit;
use crate::trust::Mode;

/// A coup's cards as one viewer may see them.
pub type CardsView = Vec<(Position, Option<Card>)>;

/// One line of a pay table as the layout prints it.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct PayLine {
    pub outcome: String,
    pub pays: String,
}

/// The ante of an Ante Up table (AU 14).
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct AnteView {
    pub amount: Money,
    pub waived_at: Option<Money>,
    pub rule: String,
}

/// A wager the table offers, with its limits and pay table.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct OfferView {
    pub bet: String,
    pub name: String,
    pub min: Money,
    pub max: Money,
    pub pay_table: String,
    /// The rule that prints the pay table.
    pub rule: String,
    pub lines: Vec<PayLine>,
}

/// Who holds a hand's cards to squeeze, while they are out.
#[derive(Clone, Debug, Serialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct HandOut {
    pub side: Side,
    pub player: PlayerId,
    /// When it went out to them (the writer's clock, ms): the squeeze's time
    /// counts from here, for the pacer and for a page loaded mid-squeeze.
    pub since_ms: u64,
    /// Their name, as the table's WebSocket shows it (everyone at a table
    /// sees who is squeezing): the server fills it in from its people; the
    /// read model, the lobby and `GET /api/tables/{id}` leave it out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// A table's dealing style as its view shows it (the style's own name).
/// Its `Default` is an empty view's placeholder, kept in the read model: the
/// rules' `DealingStyle` has none, so that no configuration takes a style
/// without naming it or its rulebook's first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(transparent)]
pub struct ViewDealing(pub DealingStyle);

impl Default for ViewDealing {
    fn default() -> ViewDealing {
        ViewDealing(DealingStyle::MethodA)
    }
}

#[derive(Clone, Debug, Default, Serialize, schemars::JsonSchema)]
pub struct TableView {
    pub id: TableId,
    pub name: String,
    pub rulebook: String,
    pub rulebook_title: String,
    pub variant: String,
    pub variant_title: String,
    /// `rng` or `live`.
    pub mode: Mode,
    pub open: bool,
    pub dealing: ViewDealing,
    pub decks: u32,
    /// The limits sign (NSW 6.1; AU 5.17): chip unit, minimum, maximum and the
    /// table differential.
    pub chip: Money,
    pub min: Money,
    pub max: Money,
    pub differential: Option<Money>,
    /// A higher minimum announced, and when it takes effect (NSW 6.7).
    #[schemars(with = "Option<[i64; 2]>")]
    pub announced_minimum: Option<(Money, u64)>,
    pub bets: Vec<String>,
    pub offers: Vec<OfferView>,
    /// An Ante Up table's ante and the initial wager at which it is waived, as
    /// on its sign (AU 14.3-14.4).
    pub ante: Option<AnteView>,
    pub phase: PhaseView,
    pub shoe: u64,
    pub coup: u64,
    /// The coup's cards as everyone may see them (`null`: not exposed yet).
    #[schemars(with = "Vec<[Option<String>; 2]>")]
    pub cards: Vec<(Position, Option<Card>)>,
    /// The position the next card goes to (the live console's prompt).
    pub due: Option<Position>,
    /// A hand out with a player to squeeze; everyone else waits.
    pub out: Option<HandOut>,
    /// The last result: "B", "P" or "T".
    pub last: Option<String>,
    /// The roads' raw results this shoe, as B/P/T.
    pub results: String,
    /// Every road of the shoe, laid out for drawing.
    pub roads: Board,
    /// The shoe's results counted, as players read them beside the roads.
    pub stats: baccarat_table::ShoeStats,
    /// Cards dealt of the shoe, and its size.
    pub dealt: usize,
    pub shoe_size: usize,
    pub seed_commitment: Option<String>,
    /// Milliseconds since the epoch when betting closes, while it is open (the
    /// deadline recorded with `betting_opened`).
    pub closes_at_ms: Option<u64>,
    /// Why the table is stopped, if an invariant broke (a supervisor may void
    /// its coup).
    pub halted: Option<String>,
    /// Players' own limits, each on a sign at the table (NSW 6.8):
    /// `(player, min, max)`.
    #[schemars(with = "Vec<[i64; 3]>")]
    pub personal_limits: Vec<(PlayerId, Money, Money)>,
    /// Closed for good (`casino/closing.rs`): no wager, no command, no pace;
    /// the table stays in the lobby and the records.
    pub closed: bool,
    /// Closing for good once its coup in play settles: no new wager.
    pub closing: bool,
    /// The players seated, as the lobby's table card shows them: the
    /// distinct players with a wager in the coup in progress or in one of
    /// the last three coups that took wagers (a seat is kept through three
    /// coups sat out, NSW 14.10). The engine keeps the count as wagers
    /// arrive (`baccarat_table`'s `seated.rs`), so that building this view
    /// costs the writer nothing that grows with the coup's wagers.
    pub players: u32,
    /// Cards a player may see that others may not: the hand they squeeze.
    #[serde(skip)]
    pub private: Vec<(PlayerId, CardsView)>,
    /// The refusal a new wager gets here, while the table takes none and is
    /// not halted: the HTTP threads give it without the writer
    /// (`http/early.rs`).
    #[serde(skip)]
    pub wagers_closed: Option<crate::casino::Reply>,
    /// The table (not halted) is still recording its last coup's settlement
    /// in chunks (`casino/settle.rs`): a single wager gets `settling` there,
    /// and a slip the table's refusal line by line (`http/early.rs`).
    #[serde(skip)]
    pub settling: bool,
}

impl TableView {
    /// The cards as `viewer` may see them.
    pub fn cards_for(&self, viewer: Option<PlayerId>) -> &[(Position, Option<Card>)] {
        viewer.and_then(|v| self.private.iter().find(|(p, _)| *p == v)).map_or(&self.cards, |(_, c)| c)
    }
}

/// The read model.
#[derive(Clone, Debug, Default)]
pub struct Views {
    pub tables: Vec<TableView>,
    pub balances: HashMap<PlayerId, (Money, Money)>,
    /// Each player's promotional tokens (NSW 1.1): (balance, available).
    pub tokens: HashMap<PlayerId, (Money, Money)>,
    /// Batches committed so far.
    pub version: u64,
}

/// The engine's [`Phase`] as the view names it to the outside (the page's
/// `phase.*` texts, the pacer): the same phases, [`Phase::Closed`] called by
/// the dealer's words "no more bets" (NSW 7.1; AU 8.2). A type of its own
/// because the engine's `Phase` keeps its serde names (`NoShoe`, `Closed`, …)
/// for the engine's state; this one serializes, anywhere, as the view's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PhaseView {
    #[default]
    NoShoe,
    Ready,
    Betting,
    NoMoreBets,
    Dealing,
    Reconstruction,
    ShoeOver,
}

impl PhaseView {
    pub const ALL: [PhaseView; 7] = [
        PhaseView::NoShoe,
        PhaseView::Ready,
        PhaseView::Betting,
        PhaseView::NoMoreBets,
        PhaseView::Dealing,
        PhaseView::Reconstruction,
        PhaseView::ShoeOver,
    ];
}

impl From<Phase> for PhaseView {
    fn from(p: Phase) -> PhaseView {
        match p {
            Phase::NoShoe => PhaseView::NoShoe,
            Phase::Ready => PhaseView::Ready,
            Phase::Betting => PhaseView::Betting,
            Phase::Closed => PhaseView::NoMoreBets,
            Phase::Dealing => PhaseView::Dealing,
            Phase::Reconstruction => PhaseView::Reconstruction,
            Phase::ShoeOver => PhaseView::ShoeOver,
        }
    }
}

fn view(t: &CasinoTable, old: Option<&TableView>, now_ms: u64) -> TableView {
    let s = t.engine.state();
    let setup = t.engine.setup();
    let cfg = &setup.config;
    let results: String = s.roads.entries().iter().map(|e| e.result.letter()).collect();
    // The board changes only when a coup completes.
    let roads = match old {
        Some(o) if o.results == results && o.shoe == s.shoe_number => o.roads.clone(),
        _ => s.roads.board(),
    };
    let offers = offers_of(t, old);
    let out = hand_out(t, old, now_ms);
    let private = out.iter().map(|h| (h.player, t.engine.view(Some(h.player)))).collect();
    TableView {
        id: t.id,
        name: t.name.clone(),
        rulebook: setup.rulebook.id.clone(),
        rulebook_title: setup.rulebook.config.title.clone(),
        variant: cfg.variant.id.clone(),
        variant_title: cfg.variant.title.clone(),
        mode: t.mode,
        open: t.open,
        dealing: ViewDealing(cfg.dealing),
        decks: cfg.decks,
        chip: cfg.settle.chip,
        min: s.minimum.unwrap_or(cfg.min),
        // The sign's maximum: the main wagers' (Banker's), as it now stands.
        max: t.engine.offer_limits(baccarat_rules::Bet::Banker).map_or(cfg.max, |l| l.1),
        differential: cfg.differential,
        announced_minimum: s.announced,
        bets: cfg.offers.iter().map(|o| o.bet.id().to_string()).collect(),
        offers,
        ante: cfg.ante.as_ref().map(|a| AnteView {
            amount: a.amount,
            waived_at: a.waived_at,
            rule: setup.rulebook.cite(Cite::Ante),
        }),
        phase: t.engine.phase().into(),
        shoe: s.shoe_number,
        coup: s.coup_number,
        cards: t.engine.view(None),
        due: t.engine.due(),
        out,
        last: results.chars().last().map(|c| c.to_string()),
        results,
        stats: s.roads.stats(),
        roads,
        dealt: t.engine.shoe_progress().map_or(0, |p| p.0),
        shoe_size: t.engine.shoe_progress().map_or(52 * cfg.decks as usize, |p| p.1),
        seed_commitment: t.commitment.clone(),
        closes_at_ms: (t.engine.phase() == Phase::Betting).then_some(t.engine.state().closes_at).flatten(),
        halted: t.halted.clone(),
        personal_limits: t.engine.state().personal.clone(),
        closed: t.closure == Closure::Closed,
        closing: matches!(t.closure, Closure::Closing { .. }),
        players: u32::try_from(s.seated.count()).unwrap_or(u32::MAX),
        private,
        // As the writer refuses (`Casino::not_taking_wagers`): a table
        // closing or closed for good before the engine's own refusal.
        wagers_closed: match &t.halted {
            None => {
                t.closure.wager_refusal(t.id).or_else(|| t.engine.wagers_closed(None).map(crate::casino::Reply::from))
            }
            Some(_) => None,
        },
        settling: t.halted.is_none() && t.engine.settling(),
    }
}

/// The table's offers as its sign shows them: built once (kept from `old`),
/// with the limits as a supervisor altered them (NSW 6.7) laid over.
fn offers_of(t: &CasinoTable, old: Option<&TableView>) -> Vec<OfferView> {
    let cfg = &t.engine.setup().config;
    let mut offers = match old {
        Some(o) if !o.offers.is_empty() => o.offers.clone(),
        _ => cfg
            .offers
            .iter()
            .map(|o| OfferView {
                bet: o.bet.id().to_string(),
                name: o.bet.to_string(),
                min: o.min,
                max: o.max,
                pay_table: o.pay_table.name.clone(),
                rule: o.pay_table.rule.clone(),
                lines: o
                    .pay_table
                    .lines
                    .iter()
                    .map(|(k, p)| PayLine { outcome: k.to_string(), pays: p.to_string() })
                    .collect(),
            })
            .collect(),
    };
    // Limits as a supervisor altered them (NSW 6.7).
    for (view, offer) in offers.iter_mut().zip(&cfg.offers) {
        if let Some((min, max)) = t.engine.offer_limits(offer.bet) {
            (view.min, view.max) = (min, max);
        }
    }
    offers
}

/// The hand out with a player to squeeze, if any: the same hand, still out
/// with the same player, keeps the time it went out.
fn hand_out(t: &CasinoTable, old: Option<&TableView>, now_ms: u64) -> Option<HandOut> {
    let s = t.engine.state();
    s.out.and_then(|side| {
        s.holder.get(side).map(|player| {
            // The same hand, still out with the same player, keeps its time.
            let same = old.filter(|o| o.coup == s.coup_number).and_then(|o| o.out.as_ref());
            let since_ms = same.filter(|h| h.side == side && h.player == player).map_or(now_ms, |h| h.since_ms);
            HandOut { side, player, since_ms, name: None }
        })
    })
}

impl Views {
    /// Build every table's view and every balance (on start).
    pub fn rebuild(&mut self, c: &Casino) {
        self.version += 1;
        let now = (c.clock)();
        self.tables = c.tables.values().map(|t| view(t, None, now)).collect();
        self.balances = c
            .ledger
            .accounts()
            .filter_map(|a| match a.kind {
                AccountKind::Wallet { player } => Some((player, (Money(a.balance), Money(a.available())))),
                _ => None,
            })
            .collect();
        self.tokens = c
            .ledger
            .accounts()
            .filter_map(|a| match a.kind {
                AccountKind::Tokens { player } => Some((player, (Money(a.balance), Money(a.available())))),
                _ => None,
            })
            .collect();
    }

    /// What one batch changed, prepared on the writer (it reads the casino):
    /// the tables it recorded events for (or redefined), any table whose
    /// countdown moved, and the wallets it touched. It stays proportional to the
    /// batch rather than to the casino. Applied with [`Views::apply`] once the
    /// batch is durable.
    pub fn changes(&self, c: &Casino, commit: &Commit) -> ViewChanges {
        let mut touched: HashSet<TableId> = commit.records.iter().map(|(t, _)| *t).collect();
        touched.extend(commit.tables.iter().map(|t| t.id));
        let now = (c.clock)();
        let tables = if self.tables.len() != c.tables.len() {
            let old: HashMap<TableId, &TableView> = self.tables.iter().map(|v| (v.id, v)).collect();
            c.tables.values().map(|t| view(t, old.get(&t.id).copied(), now)).collect()
        } else {
            self.tables
                .iter()
                .filter(|v| touched.contains(&v.id))
                .filter_map(|v| c.tables.get(&v.id).map(|t| view(t, Some(v), now)))
                .collect()
        };
        let (mut balances, mut tokens) = (Vec::new(), Vec::new());
        for ch in &commit.ledger {
            for a in &ch.accounts {
                match a.kind {
                    AccountKind::Wallet { player } => balances.push((player, (Money(a.balance), Money(a.available())))),
                    AccountKind::Tokens { player } => tokens.push((player, (Money(a.balance), Money(a.available())))),
                    _ => {}
                }
            }
        }
        let exposure = exposure_inputs(c, commit);
        ViewChanges { all: self.tables.len() != c.tables.len(), tables, balances, tokens, exposure }
    }

    /// Make a batch's changes visible.
    pub fn apply(&mut self, ch: ViewChanges) {
        self.version += 1;
        if ch.all {
            self.tables = ch.tables;
        } else {
            for t in ch.tables {
                if let Some(v) = self.tables.iter_mut().find(|v| v.id == t.id) {
                    *v = t;
                }
            }
        }
        self.balances.extend(ch.balances);
        self.tokens.extend(ch.tokens);
    }
}

/// What one batch changed in the read model.
pub struct ViewChanges {
    /// Every table (the set of tables changed), or only the changed ones.
    all: bool,
    tables: Vec<TableView>,
    balances: Vec<(PlayerId, (Money, Money))>,
    tokens: Vec<(PlayerId, (Money, Money))>,
    /// The offers of the tables whose shown cards or limits may have changed,
    /// for the exposure monitor (`exposure_watch.rs`).
    exposure: Vec<ExposureInput>,
}

/// The offers to price again after `commit`: those of each table one of
/// whose events can change what it has shown or its limits, and of each
/// table made or configured again (its offers are new: a table made while
/// the server runs is priced from its full shoe at once).
fn exposure_inputs(c: &Casino, commit: &Commit) -> Vec<ExposureInput> {
    let mut out: Vec<ExposureInput> = Vec::new();
    let made = commit.tables.iter().map(|r| r.id);
    let changed = commit.events.iter().filter(|(_, _, e)| concerns_exposure(e)).map(|(t, _, _)| *t);
    for table in made.chain(changed) {
        if !out.iter().any(|i| i.table == table) {
            if let Some(t) = c.tables.get(&table) {
                out.push(ExposureInput::of(table, &t.engine));
            }
        }
    }
    out
}

/// Who a batch's changes concern, for the sockets' wake-ups
/// (`baccarat-server`'s `publish/wakes.rs`).
impl ViewChanges {
    /// Whether the set of tables changed (a table created): every view is
    /// new, and every socket is woken.
    pub fn all(&self) -> bool {
        self.all
    }

    /// The views of the tables the batch touched, as they will be (the
    /// publisher compares them with the views as they are, for the sockets
    /// that show the view alone).
    pub fn tables(&self) -> &[TableView] {
        &self.tables
    }

    /// The tables whose views the batch changed (every table, when
    /// [`ViewChanges::all`]).
    pub fn table_ids(&self) -> impl Iterator<Item = TableId> + '_ {
        self.tables.iter().map(|t| t.id)
    }

    /// The offers to price again (taken once, by the publisher).
    pub fn take_exposure(&mut self) -> Vec<ExposureInput> {
        std::mem::take(&mut self.exposure)
    }

    /// The players whose wallet or promotional tokens the batch changed.
    pub fn players(&self) -> impl Iterator<Item = PlayerId> + '_ {
        self.balances.iter().chain(&self.tokens).map(|(p, _)| *p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The typed phase, mode and dealing style go out as the strings the view
    /// always carried (the page, the loadgen and the OpenAPI schema read them).
    #[test]
    fn phase_mode_and_dealing_serialize_as_before() {
        let names = ["no_shoe", "ready", "betting", "no_more_bets", "dealing", "reconstruction", "shoe_over"];
        for (p, name) in PhaseView::ALL.into_iter().zip(names) {
            let v = serde_json::to_value(TableView { phase: p, ..TableView::default() }).unwrap();
            assert_eq!(v["phase"], name, "{p:?}");
        }
        let engine = [
            Phase::NoShoe,
            Phase::Ready,
            Phase::Betting,
            Phase::Closed,
            Phase::Dealing,
            Phase::Reconstruction,
            Phase::ShoeOver,
        ];
        assert_eq!(engine.map(PhaseView::from), PhaseView::ALL);
        for mode in Mode::ALL {
            let v = serde_json::to_value(TableView { mode, ..TableView::default() }).unwrap();
            assert_eq!(v["mode"], mode.id());
        }
        let v = serde_json::to_value(TableView {
            dealing: ViewDealing(DealingStyle::PlayersHoldCards),
            ..TableView::default()
        });
        assert_eq!(v.unwrap()["dealing"], "players_hold_cards");
    }
}
