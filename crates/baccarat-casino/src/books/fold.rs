//! The day's books as a fold over the records: each chain is fed in sequence
//! order (the casino's and each table's, in any order of chains), and only
//! what the next record needs is kept (the coup in progress's wagers, the
//! day's sums), so a history of any length is read in bounded memory.

use baccarat_core::TableId;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use baccarat_rules::{Bet, Money, TableConfig};
use baccarat_table::{Event, PlayerId, WagerId};

use std::sync::Arc;

use super::cage::{cage_move, casino_time, CageMove};
use super::rating::{per_hour, spans, AcrossLine, Played, Rated, RatingLine, Ratings, Seat, TablePace, TakingLine};
use super::report::{hold_bp, Cash, DayReport, Figures, PlayerLine, TableLine};
use super::taking::{across, Found, MIN_WAGERS, Z_FLAG};
use super::theo::{round, Edges, Theo};
use super::worth::{Known, Snapshot};
use crate::audit::{Body, CasinoEvent};

/// What the books keep of a wager until it settles.
#[derive(Clone)]
struct Placed {
    player: PlayerId,
    bet: Bet,
    token: bool,
    at_ms: Option<u64>,
    /// What the table had shown when it was placed (ratings only).
    known: Option<Arc<Snapshot>>,
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
    /// For the ratings only: what the table has shown, the coup in
    /// progress and what was known as its betting opened, the day's coups,
    /// and each player's seat.
    known: Known,
    coup_no: u64,
    opened: Option<Arc<Snapshot>>,
    played: Vec<Played>,
    seats: BTreeMap<PlayerId, Seat>,
}

impl TableBooks {
    fn decks(&self) -> Option<u32> {
        self.config.as_ref().map(|c| c.decks)
    }

    /// What is known now, if the table can be priced.
    fn known_now(&mut self) -> Option<Arc<Snapshot>> {
        let decks = self.decks()?;
        Some(self.known.now(decks))
    }
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
    /// Whether the ratings are gathered too (they price wagers: costly).
    rate: bool,
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
            rate: false,
        }
    }

    /// Books for the day that also gather its ratings ([`Self::ratings`]).
    pub fn rating(window: (u64, u64)) -> DayBooks {
        DayBooks { rate: true, ..DayBooks::new(window) }
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
        let rate = self.rate;
        let t = self.tables.entry(table).or_default();
        if rate {
            t.known.observe(e);
        }
        match e {
            Event::BettingOpened { closes_at, coup, .. } => {
                t.wagers.clear();
                t.coup_time = *closes_at;
                t.coup_in_day = None;
                t.coup_no = *coup;
                t.opened = if rate { t.known_now() } else { None };
            }
            Event::WagerPlaced { wager } => {
                let known = if rate { t.known_now() } else { None };
                let placed =
                    Placed { player: wager.player, bet: wager.bet, token: wager.token, at_ms: wager.at_ms, known };
                t.wagers.insert(wager.id, placed);
                t.coup_time = t.coup_time.max(wager.at_ms);
            }
            Event::CoupCompleted { .. } => {
                let played = decide(t, self.window);
                t.figures.coups += u64::from(played);
                t.active |= played;
                if let (true, true, Some(known)) = (rate, played, t.opened.clone()) {
                    let at = t.coup_time.unwrap_or(t.clock);
                    t.played.push(Played { shoe: t.known.shoe, coup: t.coup_no, at, known });
                }
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
            t.known.reconfigured();
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
        let placed = t.wagers.get(&wager).cloned();
        let token = placed.as_ref().is_some_and(|p| p.token);
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
        let edge = t
            .config
            .as_ref()
            .and_then(|c| c.offer(p.bet).map(|o| (c, o)))
            .filter(|_| !token)
            .and_then(|(config, offer)| self.edges.edge(&config.rulebook, config.decks, p.bet, &offer.pay_table));
        if let Some(edge) = edge {
            t.theo.add(edge, chips);
        }
        let coup_time = t.coup_time.unwrap_or(t.clock);
        match (self.rate, token, p.known.clone()) {
            (true, true, _) => t.seats.entry(p.player).or_default().token_won(Money::ZERO - house),
            (true, false, Some(known)) => {
                let worth = t.config.as_ref().and_then(|c| known.of(&c.offers, p.bet));
                let at = p.at_ms.unwrap_or(coup_time);
                let coup = t.played.len().saturating_sub(1);
                let won = Money::ZERO - house;
                let rated = Rated { coup, bet: p.bet, stake: chips, won, at, edge, worth, known };
                t.seats.entry(p.player).or_default().add(rated, &t.played);
            }
            _ => {}
        }
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

impl DayBooks {
    /// The day's ratings and surveillance report, from books made by
    /// [`DayBooks::rating`] (`head`: the report's date and window), players
    /// named by `names`.
    pub fn ratings(self, head: &DayReport, names: &dyn Fn(PlayerId) -> Option<String>) -> Ratings {
        let mut out = Ratings {
            date: head.date.clone(),
            zone: head.zone.clone(),
            cutoff_hour: head.cutoff_hour,
            from_ms: head.from_ms,
            to_ms: head.to_ms,
            z_flag: Z_FLAG,
            min_wagers: MIN_WAGERS,
            ..Ratings::default()
        };
        let mut by_player: BTreeMap<(PlayerId, Bet), Vec<(TableId, Found)>> = BTreeMap::new();
        for (id, t) in self.tables.iter().filter(|(_, t)| t.active) {
            out.tables.push(pace(*id, t));
            let offers = t.config.as_ref().map_or(&[][..], |c| &c.offers[..]);
            for (p, seat) in &t.seats {
                let name = names(*p).unwrap_or_default();
                let line = seat.rating(p.0, *id);
                out.players.push(RatingLine { name: name.clone(), table_name: t.name.clone(), ..line });
                for (bet, f, wagers_seen) in seat.taking(&t.played, offers) {
                    by_player.entry((*p, bet)).or_default().push((*id, f.clone()));
                    out.taking.push(TakingLine {
                        player: p.0,
                        name: name.clone(),
                        table: *id,
                        table_name: t.name.clone(),
                        bet,
                        coups: f.coups,
                        wagers: f.wagers,
                        positive_wagers: f.positive_wagers,
                        positive_coups: f.positive_coups,
                        ev_taken_percent: f.ev_taken * 100.0,
                        rank_correlation: f.rank_correlation,
                        slope: f.slope,
                        z: f.z,
                        flagged: f.flagged,
                        wagers_seen,
                    });
                }
            }
        }
        out.taking.sort_by(|a, b| b.z.total_cmp(&a.z));
        out.across = across_lines(by_player, names);
        out
    }
}

/// The lines of [`Ratings::across`]: each player's wager at two or more
/// tables, their tests combined (`taking::across`), most suspicious first.
fn across_lines(
    by_player: BTreeMap<(PlayerId, Bet), Vec<(TableId, Found)>>,
    names: &dyn Fn(PlayerId) -> Option<String>,
) -> Vec<AcrossLine> {
    let mut lines: Vec<AcrossLine> = by_player
        .into_iter()
        .filter(|(_, seats)| seats.len() >= 2)
        .map(|((player, bet), seats)| {
            let found: Vec<Found> = seats.iter().map(|s| s.1.clone()).collect();
            AcrossLine {
                player: player.0,
                name: names(player).unwrap_or_default(),
                bet,
                tables: seats.iter().map(|s| s.0).collect(),
                found: across(&found),
            }
        })
        .collect();
    lines.sort_by(|a, b| b.found.z.total_cmp(&a.found.z));
    lines
}

/// A table's pace over the day: its coups over its time in play.
fn pace(id: TableId, t: &TableBooks) -> TablePace {
    let minutes = spans(t.played.iter().map(|p| (p.at, p.at))).div_ceil(60_000);
    let theo = t.theo.cents();
    TablePace {
        table: id,
        name: t.name.clone(),
        coups: t.figures.coups,
        minutes,
        coups_per_hour: per_hour(t.figures.coups as f64, minutes),
        theo,
        theo_per_hour: (minutes > 0).then(|| Money(round(i128::from(theo.0) * 60, i128::from(minutes)) as i64)),
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
