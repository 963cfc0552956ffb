//! The day's books as a fold over the records: each chain is fed in sequence
//! order (the casino's and each table's, in any order of chains), and only
//! what the next record needs is kept (the coup in progress's wagers, the
//! day's sums), so a history of any length is read in bounded memory.

use baccarat_core::TableId;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use baccarat_rules::{Bet, Money, TableConfig};
use baccarat_table::{Event, PlayerId, WagerId};

use super::cage::{cage_move, casino_time, CageMove};
use super::report::{hold_bp, Cash, DayReport, Figures, PlayerLine, TableLine};
use super::theo::{Edges, Theo};
use crate::audit::{Body, CasinoEvent};

/// What the books keep of a wager until it settles.
#[derive(Clone, Copy)]
struct Placed {
    player: PlayerId,
    bet: Bet,
    token: bool,
    at_ms: Option<u64>,
}

/// One table's sums for the day, and what its chain's next record needs.
#[derive(Default)]
struct TableBooks {
    name: String,
    /// The configuration in force, parsed (`None` before the first, or one
    /// its rulebook no longer reads: then no theo).
    config: Option<TableConfig>,
    /// The latest time the chain told (ms).
    clock: u64,
    /// The coup in progress: its wagers, its time so far, and whether it
    /// is the day's (decided once its result or its void is recorded).
    wagers: HashMap<WagerId, Placed>,
    coup_time: Option<u64>,
    coup_in_day: Option<bool>,
    figures: Figures,
    theo: Theo,
    players: BTreeSet<PlayerId>,
    active: bool,
}

/// A player's sums for the day.
#[derive(Default)]
struct PlayerBooks {
    wagered: Money,
    won: Money,
    first_ms: u64,
    last_ms: u64,
}

/// The fold (see the module doc). Pure: it reads nothing but what it is fed.
pub struct DayBooks {
    window: (u64, u64),
    tables: BTreeMap<TableId, TableBooks>,
    players: BTreeMap<PlayerId, PlayerBooks>,
    cash: Cash,
    casino_clock: u64,
    edges: Edges,
}

impl DayBooks {
    /// Books for the day `[from_ms, to_ms)`.
    pub fn new(window: (u64, u64)) -> DayBooks {
        DayBooks {
            window,
            tables: BTreeMap::new(),
            players: BTreeMap::new(),
            cash: Cash::default(),
            casino_clock: 0,
            edges: Edges::default(),
        }
    }

    fn in_day(&self, ms: u64) -> bool {
        self.window.0 <= ms && ms < self.window.1
    }

    /// The casino's chain's next record.
    pub fn casino_record(&mut self, e: &CasinoEvent) {
        self.casino_clock = self.casino_clock.max(casino_time(e).unwrap_or(0));
        if !self.in_day(self.casino_clock) {
            return;
        }
        match cage_move(e) {
            Some(CageMove::Deposit(m)) => self.cash.deposits = self.cash.deposits + m,
            Some(CageMove::CashOut(m)) => self.cash.cash_outs = self.cash.cash_outs + m,
            Some(CageMove::Fill { table, amount }) => self.table_cage(table, amount, Money::ZERO),
            Some(CageMove::Credit { table, amount }) => self.table_cage(table, Money::ZERO, amount),
            None => {}
        }
    }

    fn table_cage(&mut self, table: TableId, fill: Money, credit: Money) {
        let t = self.tables.entry(table).or_default();
        t.figures.fills = t.figures.fills + fill;
        t.figures.credits = t.figures.credits + credit;
        t.active = true;
    }

    /// Table `table`'s chain's next record.
    pub fn table_record(&mut self, table: TableId, b: &Body) {
        if let Some(c) = &b.casino {
            self.table_casino_event(table, c);
        }
        let Some(e) = &b.event else { return };
        let t = self.tables.entry(table).or_default();
        match e {
            Event::BettingOpened { closes_at, .. } => {
                t.wagers.clear();
                t.coup_time = *closes_at;
                t.coup_in_day = None;
            }
            Event::WagerPlaced { wager } => {
                let placed = Placed { player: wager.player, bet: wager.bet, token: wager.token, at_ms: wager.at_ms };
                t.wagers.insert(wager.id, placed);
                t.coup_time = t.coup_time.max(wager.at_ms);
            }
            Event::CoupCompleted { .. } => {
                let played = decide(t, self.window);
                t.figures.coups += u64::from(played);
                t.active |= played;
            }
            Event::CoupVoided { .. } => {
                decide(t, self.window);
            }
            // `decide` decides a coup once; asking again only reads it.
            Event::WagerSettled { wager, settlement, ante, .. } if decide(t, self.window) => {
                self.settled(table, *wager, settlement, *ante);
            }
            _ => {}
        }
    }

    /// A casino event in a table's own chain: its configuration (name and
    /// pay tables), or chips back to the cage as it closes.
    fn table_casino_event(&mut self, table: TableId, c: &CasinoEvent) {
        if let CasinoEvent::TableConfigured { name, rulebook, config, .. } = c {
            let t = self.tables.entry(table).or_default();
            t.name = name.clone();
            t.config = baccarat_rules::profiles::builtin(rulebook)
                .ok()
                .and_then(|rb| TableConfig::from_toml(&rb, config).ok());
        }
        let clock = self.tables.get(&table).map_or(0, |t| t.clock);
        if let (Some(CageMove::Credit { amount, .. }), true) = (cage_move(c), self.in_day(clock)) {
            self.table_cage(table, Money::ZERO, amount);
        }
    }

    /// A wager of the day's coup settled: its money into the table's, the
    /// casino's and its player's sums.
    fn settled(&mut self, table: TableId, wager: WagerId, s: &baccarat_rules::Settlement, ante: Money) {
        let t = self.tables.get_mut(&table).expect("fed above");
        let placed = t.wagers.get(&wager).copied();
        let token = placed.is_some_and(|p| p.token);
        // A lost token goes back to its issuer, not to the house (NSW 1.1).
        let lost = if token { Money::ZERO } else { s.lost };
        let house = lost + s.commission + ante - s.won;
        let valid = s.stake - s.void;
        t.figures.win = t.figures.win + house;
        if valid <= Money::ZERO {
            return;
        }
        t.figures.wagers += 1;
        t.active = true;
        let chips = if token { Money::ZERO } else { valid };
        t.figures.drop = t.figures.drop + chips;
        let Some(p) = placed else { return };
        t.players.insert(p.player);
        if let Some(offer) = t.config.as_ref().and_then(|c| c.offer(p.bet).map(|o| (c, o))).filter(|_| !token) {
            let (config, offer) = offer;
            if let Some(edge) = self.edges.edge(&config.rulebook, config.decks, p.bet, &offer.pay_table) {
                t.theo.add(edge, chips);
            }
        }
        let coup_time = t.coup_time.unwrap_or(t.clock);
        let me = self.players.entry(p.player).or_insert(PlayerBooks { first_ms: u64::MAX, ..PlayerBooks::default() });
        me.wagered = me.wagered + chips;
        me.won = me.won - house;
        me.first_ms = me.first_ms.min(p.at_ms.unwrap_or(coup_time));
        me.last_ms = me.last_ms.max(coup_time);
    }

    /// The report, with table `names` as their chains last recorded them and
    /// players' names from `names` (the people file's; "" if unknown).
    pub fn finish(self, head: DayReport, names: &dyn Fn(PlayerId) -> Option<String>) -> DayReport {
        let mut casino = Figures::default();
        let mut everyone = BTreeSet::new();
        let mut tables = Vec::new();
        for (id, t) in self.tables.into_iter().filter(|(_, t)| t.active) {
            let mut f = t.figures;
            f.theo = t.theo.cents();
            f.players = t.players.len() as u64;
            f.hold_bp = hold_bp(f.win, f.drop);
            add(&mut casino, &f);
            everyone.extend(t.players);
            tables.push(TableLine { table: id, name: t.name, figures: f });
        }
        casino.players = everyone.len() as u64;
        casino.hold_bp = hold_bp(casino.win, casino.drop);
        let players = self
            .players
            .into_iter()
            .map(|(p, b)| PlayerLine {
                player: p.0,
                name: names(p).unwrap_or_default(),
                wagered: b.wagered,
                won: b.won,
                minutes: b.last_ms.saturating_sub(b.first_ms).div_ceil(60_000),
            })
            .collect();
        DayReport { tables, casino, players, cash: self.cash, ..head }
    }
}

/// Whether the coup in progress is the day's, decided once: by its time
/// (the latest of its betting deadline and its wagers' times), or, with
/// none, by the last time its chain told.
fn decide(t: &mut TableBooks, window: (u64, u64)) -> bool {
    if let Some(d) = t.coup_in_day {
        return d;
    }
    let at = t.coup_time.unwrap_or(t.clock);
    t.clock = t.clock.max(at);
    let d = window.0 <= at && at < window.1;
    t.coup_in_day = Some(d);
    d
}

fn add(sum: &mut Figures, f: &Figures) {
    sum.drop = sum.drop + f.drop;
    sum.win = sum.win + f.win;
    sum.theo = sum.theo + f.theo;
    sum.fills = sum.fills + f.fills;
    sum.credits = sum.credits + f.credits;
    sum.coups += f.coups;
    sum.wagers += f.wagers;
}
