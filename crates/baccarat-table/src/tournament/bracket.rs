//! A whole tournament (NSW 15.4.2(e), 15.5, 15.10): the entrants, each round's
//! tables seated by draw, who advances from each table and as wildcards,
//! play-offs for a tie across the last place advancing, and the final
//! placings with their prizes.
//!
//! # Design
//!
//! The tournament holds one [`Session`] per table of the round in play. Its
//! caller (the server, or a test) drives each session's coups. When the round
//! is over, [`Tournament::end_round`] takes the standings: the top
//! `advance_per_table` of each table and then the wildcards, the highest
//! counts among the rest (NSW 15.10.2). A tie across the last place that
//! advances is not guessed: the round's end names the players who must play
//! it off (NSW 15.10.3), and [`Tournament::play_off`] records the order their
//! play-off gave. Seating is by a draw from a committed seed (NSW 15.5.4,
//! "seating = draw"), so it can be recomputed; boxes are dealt round-robin so
//! tables differ by one player at most. The final's standings, then everyone
//! out before it (later rounds first, within a round as the sessions placed
//! them), give the placings; prizes are the conditions' shares of the pool
//! (NSW 15.3.2), in that order.

use baccarat_rules::tournament::{Conditions, RoundSpec};
use baccarat_rules::{Money, TableConfig};

use super::session::{Session, SessionRules};
use crate::engine::{PlayerId, Refusal};
use crate::shuffle::{shuffle, Seed};

/// A tournament in progress.
#[derive(Clone, Debug)]
pub struct Tournament {
    pub conditions: Conditions,
    config: TableConfig,
    pub entrants: Vec<PlayerId>,
    /// The round in play (0 = the first).
    pub round: usize,
    /// Its tables.
    pub tables: Vec<Session>,
    /// Players out, each round's in its order (best first), latest round last.
    out: Vec<Vec<PlayerId>>,
    /// Play-off orders decided for ties of the round in play.
    decided: Vec<Vec<PlayerId>>,
    /// The play-off in progress (NSW 15.10.3), if any.
    pub playoff: Option<Session>,
    /// The round's sessions are over: a round's end was asked for (and a
    /// play-off called), so no more coups are played at its tables (NSW
    /// 15.5.8: the counts at the session's end decide).
    pub frozen: bool,
    /// Players disqualified: their position is cancelled (NSW 15.5.6.2); they
    /// are neither placed nor paid.
    pub disqualified: Vec<PlayerId>,
    /// The final placings, once the final is over (winner first).
    pub placings: Vec<PlayerId>,
}

/// How a round ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RoundEnd {
    /// These go on to the next round, which is seated.
    Advanced(Vec<PlayerId>),
    /// These are tied across the last place advancing and must play off
    /// (NSW 15.10.3).
    PlayOff(Vec<PlayerId>),
    /// The final is over: the placings are set.
    Finished,
}

fn refuse(rule: &str, message: impl Into<String>) -> Refusal {
    Refusal::new(rule.to_string(), message.into())
}

impl Tournament {
    /// A tournament of `entrants` (NSW 15.4.2(i): between the minimum and the
    /// maximum), its first round seated by a draw from `seed`.
    pub fn new(
        conditions: Conditions,
        config: TableConfig,
        entrants: &[PlayerId],
        seed: &Seed,
    ) -> Result<Tournament, Refusal> {
        let e = &conditions.spec.entry;
        let n = entrants.len() as u32;
        if n < e.min_players || n > e.max_players {
            return Err(refuse(
                "NSW 15.4.2(i)",
                format!("{n} entrants: the conditions take {} to {}", e.min_players, e.max_players),
            ));
        }
        let mut sorted = entrants.to_vec();
        sorted.sort_by_key(|p| p.0);
        if sorted.windows(2).any(|w| w[0] == w[1]) {
            return Err(refuse("NSW 15.4.2(i)", "a player is entered twice"));
        }
        let mut t = Tournament {
            conditions,
            config,
            entrants: entrants.to_vec(),
            round: 0,
            tables: Vec::new(),
            out: Vec::new(),
            decided: Vec::new(),
            playoff: None,
            frozen: false,
            disqualified: Vec::new(),
            placings: Vec::new(),
        };
        t.seat(sorted, seed);
        Ok(t)
    }

    /// Seat `players` at the round's tables by a draw from `seed`.
    fn seat(&mut self, mut players: Vec<PlayerId>, seed: &Seed) {
        let round = &self.conditions.spec.structure.rounds[self.round];
        let tables = (round.tables as usize).max(1);
        shuffle(&mut players, &Seed::derive(seed, self.round as u64));
        let mut seats: Vec<Vec<(u8, PlayerId)>> = vec![Vec::new(); tables];
        for (i, p) in players.into_iter().enumerate() {
            let t = &mut seats[i % tables];
            t.push((t.len() as u8 + 1, p));
        }
        let rules = SessionRules::of(&self.conditions, self.round);
        self.tables = seats.iter().map(|s| Session::new(rules.clone(), self.config.clone(), s)).collect();
        self.decided.clear();
        self.frozen = false;
    }

    fn is_final(&self) -> bool {
        self.round + 1 == self.conditions.spec.structure.rounds.len()
    }

    /// The round's players in order (best first): each table's standings with
    /// any decided play-off applied, interleaved into one ranking by chips.
    fn ranked(&self, table: usize) -> Vec<PlayerId> {
        let s = &self.tables[table];
        let (order, _) = s.standings();
        let mut players: Vec<PlayerId> = order.iter().map(|b| s.seats[b].player).collect();
        for d in &self.decided {
            // Put the play-off's players who sit here in the order it gave,
            // in the places they held together.
            let order: Vec<PlayerId> = d.iter().copied().filter(|p| players.contains(p)).collect();
            let at: Vec<usize> = players.iter().enumerate().filter(|(_, p)| d.contains(p)).map(|(i, _)| i).collect();
            for (slot, p) in at.into_iter().zip(order) {
                players[slot] = p;
            }
        }
        players
    }

    fn chips(&self, p: PlayerId) -> Money {
        self.tables
            .iter()
            .flat_map(|s| s.seats.values())
            .find(|s| s.player == p)
            .filter(|s| s.out.is_none())
            .map_or(Money::ZERO, |s| s.chips)
    }

    /// The configuration the tables deal and settle under.
    pub fn config(&self) -> &TableConfig {
        &self.config
    }

    /// The session at table `table` of the round (the play-off's is
    /// `tables.len()`).
    pub fn session(&self, table: usize) -> Option<&Session> {
        if table == self.tables.len() {
            self.playoff.as_ref()
        } else {
            self.tables.get(table)
        }
    }

    pub fn session_mut(&mut self, table: usize) -> Option<&mut Session> {
        if table == self.tables.len() {
            self.playoff.as_mut()
        } else {
            self.tables.get_mut(table)
        }
    }

    /// Where `player` plays now: (table, box). A player in a play-off plays
    /// there (its table is `tables.len()`).
    pub fn seat_of(&self, player: PlayerId) -> Option<(usize, u8)> {
        if let Some(b) = self.playoff.as_ref().and_then(|s| s.box_of(player)) {
            return Some((self.tables.len(), b));
        }
        self.tables.iter().enumerate().find_map(|(i, s)| s.box_of(player).map(|b| (i, b)))
    }

    /// After each coup of a play-off: once the players' counts differ (or
    /// one is left in play), the order is determined (NSW 15.10.3) and
    /// recorded; returns it.
    pub fn check_play_off(&mut self) -> Option<Vec<PlayerId>> {
        let po = self.playoff.as_ref()?;
        if po.coup_open() {
            return None;
        }
        let play = po.in_play();
        let mut counts: Vec<Money> = play.iter().map(|b| po.seats[b].chips).collect();
        counts.sort();
        counts.dedup();
        if counts.len() < play.len() && play.len() > 1 {
            return None;
        }
        let (order, _) = po.standings();
        let order: Vec<PlayerId> = order.iter().map(|b| po.seats[b].player).collect();
        self.playoff = None;
        self.decided.push(order.clone());
        Some(order)
    }

    /// The Tournament Manager moves `player` to table `to` of the round (NSW
    /// 15.5.1, 15.5.4: the manager designates the tables and allocates the
    /// playing areas), between coups at both tables, to the lowest free box:
    /// the player keeps their chips, pass cards and undisclosed wagers.
    /// Returns the box.
    pub fn move_player(&mut self, player: PlayerId, to: usize) -> Result<u8, Refusal> {
        if !self.placings.is_empty() {
            return Err(refuse("NSW 15.5.8", "the tournament is over"));
        }
        if self.playoff.as_ref().is_some_and(|s| s.box_of(player).is_some()) {
            return Err(refuse("NSW 15.10.3", format!("player {player} is in the play-off")));
        }
        if self.frozen {
            return Err(refuse("NSW 15.5.8", "the round's sessions are over"));
        }
        let (from, b) = self
            .tables
            .iter()
            .enumerate()
            .find_map(|(i, s)| s.box_of(player).map(|b| (i, b)))
            .ok_or_else(|| refuse("NSW 15.5.4", format!("player {player} has no seat in this round")))?;
        if to >= self.tables.len() || to == from {
            return Err(refuse(
                "NSW 15.5.1",
                format!("table {}: the round's tables are 1 to {}, other than the player's", to + 1, self.tables.len()),
            ));
        }
        if let Some((coup, why)) = &self.tables[from].seats[&b].out {
            return Err(refuse("NSW 15.6.13", format!("player {player} is out since coup {coup}: {why}")));
        }
        for t in [from, to] {
            if self.tables[t].coup_open() {
                return Err(refuse("NSW 15.5.4", format!("table {} has a coup in play", t + 1)));
            }
        }
        let seats = self.conditions.spec.structure.seats_per_table.clamp(1, 255) as u8;
        let free = (1..=seats)
            .find(|n| !self.tables[to].seats.contains_key(n))
            .ok_or_else(|| refuse("NSW 15.5.4", format!("table {} has no free box", to + 1)))?;
        let seat = self.tables[from].seats.remove(&b).expect("found");
        self.tables[to].seats.insert(free, seat);
        Ok(free)
    }

    /// The Tournament Manager disqualifies `player` (NSW 15.5.7, 15.11.4).
    pub fn disqualify(&mut self, player: PlayerId, rule: &str, why: &str) -> Result<(), Refusal> {
        if !self.placings.is_empty() {
            return Err(refuse("NSW 15.5.8", "the tournament is over"));
        }
        let (t, b) = self
            .seat_of(player)
            .ok_or_else(|| refuse(rule, format!("player {player} is not playing in this round")))?;
        if t == self.tables.len() {
            // Out of the play-off means last of it, and out of the round.
            self.playoff.as_mut().expect("seated").disqualify(b, rule, why)?;
            if let Some((t, b)) = self.tables.iter().enumerate().find_map(|(i, s)| s.box_of(player).map(|b| (i, b))) {
                self.tables[t].disqualify(b, rule, why)?;
            }
        } else {
            self.tables[t].disqualify(b, rule, why)?;
        }
        self.disqualified.push(player);
        Ok(())
    }

    /// End the round in play (every table's session is over): who advances,
    /// a play-off that must be played first, or the final's end. A play-off
    /// is seated by a draw from `next_seed`, as is the next round.
    pub fn end_round(&mut self, next_seed: &Seed) -> Result<RoundEnd, Refusal> {
        if !self.placings.is_empty() {
            return Err(refuse("NSW 15.5.8", "the tournament is over"));
        }
        if self.playoff.is_some() {
            return Err(refuse("NSW 15.10.3", "the play-off is not decided yet"));
        }
        let round = self.conditions.spec.structure.rounds[self.round].clone();
        let k = if self.is_final() { usize::MAX } else { round.advance_per_table as usize };
        self.check_sessions_over(&round)?;
        // The round's counts are final from here (NSW 15.5.8).
        self.frozen = true;
        let mut going: Vec<PlayerId> = Vec::new();
        let mut rest: Vec<PlayerId> = Vec::new();
        for t in 0..self.tables.len() {
            let ranked = self.ranked(t);
            let in_play = ranked.iter().filter(|p| self.chips(**p) > Money::ZERO).count();
            if self.is_final() {
                if let Some(tied) = self.tie_for_a_place(&ranked, in_play) {
                    self.seat_play_off(&tied, next_seed)?;
                    return Ok(RoundEnd::PlayOff(tied));
                }
            }
            let take = k.min(in_play);
            // A tie across this table's last place advancing (NSW 15.10.3).
            if take < in_play && take > 0 {
                let edge = self.chips(ranked[take - 1]);
                let tied: Vec<PlayerId> = ranked.iter().copied().filter(|p| self.chips(*p) == edge).collect();
                if self.undecided(&tied) {
                    self.seat_play_off(&tied, next_seed)?;
                    return Ok(RoundEnd::PlayOff(tied));
                }
            }
            going.extend(&ranked[..take]);
            rest.extend(&ranked[take..]);
        }
        if self.is_final() {
            self.place_finalists(going, rest);
            return Ok(RoundEnd::Finished);
        }
        // Wildcards: the highest counts among the rest still in play.
        let mut wild: Vec<PlayerId> = rest.iter().copied().filter(|p| self.chips(*p) > Money::ZERO).collect();
        wild.sort_by_key(|p| std::cmp::Reverse(self.chips(*p)));
        let w = (round.wildcards as usize).min(wild.len());
        if w > 0 && w < wild.len() {
            let edge = self.chips(wild[w - 1]);
            let tied: Vec<PlayerId> = wild.iter().copied().filter(|p| self.chips(*p) == edge).collect();
            if self.undecided(&tied) {
                self.seat_play_off(&tied, next_seed)?;
                return Ok(RoundEnd::PlayOff(tied));
            }
            self.in_play_off_order(&mut wild, &tied);
        }
        going.extend(&wild[..w]);
        let out: Vec<PlayerId> = rest.into_iter().filter(|p| !going.contains(p)).collect();
        self.out.push(out);
        self.round += 1;
        self.seat(going.clone(), next_seed);
        Ok(RoundEnd::Advanced(going))
    }

    /// Every table's session is over (NSW 15.5.5): no coup in play, and a
    /// session counted in coups has played them, or who progresses from it
    /// is determined (NSW 15.5.5.1).
    fn check_sessions_over(&self, round: &RoundSpec) -> Result<(), Refusal> {
        for (i, s) in self.tables.iter().enumerate() {
            if s.coup_open() {
                return Err(refuse("NSW 15.5.5", format!("table {} has a coup in play", i + 1)));
            }
            // A session counted in coups ends after them; earlier only once who
            // progresses is determined (NSW 15.5.5.1). One timed by the clock
            // ends when the Tournament Manager says its time is up.
            let goes_on = if self.is_final() { 1 } else { round.advance_per_table as usize };
            let determined = s.in_play().len() <= goes_on;
            if round.coups.is_some() && !s.over() && !determined {
                return Err(refuse(
                    "NSW 15.5.5.1",
                    format!("table {} has coups to play and who progresses from it is not determined yet", i + 1),
                ));
            }
        }
        Ok(())
    }

    /// In the final every place is decided: players level on chips play off
    /// for their places (NSW 15.1.1 "play-off": to determine a winner and/or
    /// placegetters). The first such tie over a paid place, if a play-off has
    /// not yet ordered it.
    fn tie_for_a_place(&self, ranked: &[PlayerId], in_play: usize) -> Option<Vec<PlayerId>> {
        let paid = self.conditions.spec.prizes.places.len();
        for (at, p) in ranked[..in_play].iter().enumerate().take(paid) {
            let level = self.chips(*p);
            let tied: Vec<PlayerId> = ranked[..in_play].iter().copied().filter(|q| self.chips(*q) == level).collect();
            let first = ranked.iter().position(|q| tied.contains(q)).unwrap_or(at);
            if first < paid && self.undecided(&tied) {
                return Some(tied);
            }
        }
        None
    }

    /// More than one player tied, and no play-off yet has ordered them all
    /// (NSW 15.10.3).
    fn undecided(&self, tied: &[PlayerId]) -> bool {
        tied.len() > 1 && !self.decided.iter().any(|d| tied.iter().all(|p| d.contains(p)))
    }

    /// The tied players, in the order their play-off gave, into the places
    /// they hold together (a play-off may have ordered more players than are
    /// tied here).
    fn in_play_off_order(&self, wild: &mut [PlayerId], tied: &[PlayerId]) {
        if let Some(d) = self.decided.iter().find(|d| tied.iter().all(|p| d.contains(p))) {
            let order: Vec<PlayerId> = d.iter().copied().filter(|p| tied.contains(p)).collect();
            let slots: Vec<usize> = wild.iter().enumerate().filter(|(_, p)| tied.contains(p)).map(|(i, _)| i).collect();
            for (slot, p) in slots.into_iter().zip(order) {
                wild[slot] = p;
            }
        }
    }

    /// The final's standings, then everyone out before it (later rounds
    /// first, within a round as the sessions placed them), less the
    /// disqualified: the placings.
    fn place_finalists(&mut self, going: Vec<PlayerId>, rest: Vec<PlayerId>) {
        self.placings = going.into_iter().chain(rest).collect();
        for r in self.out.iter().rev() {
            self.placings.extend(r);
        }
        let dq = &self.disqualified;
        self.placings.retain(|p| !dq.contains(p));
    }

    /// Seat the players tied across a place that advances for their play-off
    /// (NSW 15.10.3): the round's limits, a fresh allotment of chips, boxes by
    /// a draw, no marker, and coups until the counts differ.
    fn seat_play_off(&mut self, tied: &[PlayerId], seed: &Seed) -> Result<(), Refusal> {
        if tied.len() > usize::from(u8::MAX) {
            return Err(refuse(
                "NSW 15.10.3",
                format!("{} players are level: a play-off at one table seats at most 255", tied.len()),
            ));
        }
        let mut players = tied.to_vec();
        players.sort_by_key(|p| p.0);
        shuffle(&mut players, &Seed::derive(seed, u64::MAX));
        let seats: Vec<(u8, PlayerId)> = players.iter().enumerate().map(|(i, p)| (i as u8 + 1, *p)).collect();
        let rules =
            SessionRules { advance: 0, coups: None, marker: false, ..SessionRules::of(&self.conditions, self.round) };
        self.playoff = Some(Session::new(rules, self.config.clone(), &seats));
        Ok(())
    }

    /// Record the order a play-off gave (best first) for players a round's end
    /// named (NSW 15.10.3).
    pub fn play_off(&mut self, order: Vec<PlayerId>) -> Result<(), Refusal> {
        let mut a = order.clone();
        a.sort_by_key(|p| p.0);
        a.dedup();
        if a.len() != order.len() || order.iter().any(|p| self.chips(*p) == Money::ZERO) {
            return Err(refuse("NSW 15.10.3", "a play-off orders the players tied, each once"));
        }
        self.decided.push(order);
        self.playoff = None;
        Ok(())
    }

    /// Each place's prize (NSW 15.3.2): the pool's shares in placing order.
    pub fn prizes(&self) -> Vec<(PlayerId, Money)> {
        let pool = self.conditions.pool(self.entrants.len() as u32);
        self.placings.iter().copied().zip(self.conditions.shares(pool)).collect()
    }
}
