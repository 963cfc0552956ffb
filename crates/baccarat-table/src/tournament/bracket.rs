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

use baccarat_rules::tournament::Conditions;
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
            // Put the play-off's players in the order it gave, in the places
            // they held together.
            let at: Vec<usize> = players.iter().enumerate().filter(|(_, p)| d.contains(p)).map(|(i, _)| i).collect();
            if at.len() == d.len() {
                for (slot, p) in at.into_iter().zip(d) {
                    players[slot] = *p;
                }
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

    /// End the round in play (every table's session is over): who advances,
    /// a play-off that must be played first, or the final's end.
    pub fn end_round(&mut self, next_seed: &Seed) -> Result<RoundEnd, Refusal> {
        if !self.placings.is_empty() {
            return Err(refuse("NSW 15.5.8", "the tournament is over"));
        }
        let round = self.conditions.spec.structure.rounds[self.round].clone();
        let k = if self.is_final() { usize::MAX } else { round.advance_per_table as usize };
        let mut going: Vec<PlayerId> = Vec::new();
        let mut rest: Vec<PlayerId> = Vec::new();
        for t in 0..self.tables.len() {
            let ranked = self.ranked(t);
            let in_play = ranked.iter().filter(|p| self.chips(**p) > Money::ZERO).count();
            let take = k.min(in_play);
            // A tie across this table's last place advancing (NSW 15.10.3).
            if take < in_play && take > 0 {
                let edge = self.chips(ranked[take - 1]);
                let tied: Vec<PlayerId> = ranked.iter().copied().filter(|p| self.chips(*p) == edge).collect();
                if tied.len() > 1 && !self.decided.iter().any(|d| tied.iter().all(|p| d.contains(p))) {
                    return Ok(RoundEnd::PlayOff(tied));
                }
            }
            going.extend(&ranked[..take]);
            rest.extend(&ranked[take..]);
        }
        if self.is_final() {
            self.placings = going.into_iter().chain(rest).collect();
            for r in self.out.iter().rev() {
                self.placings.extend(r);
            }
            return Ok(RoundEnd::Finished);
        }
        // Wildcards: the highest counts among the rest still in play.
        let mut wild: Vec<PlayerId> = rest.iter().copied().filter(|p| self.chips(*p) > Money::ZERO).collect();
        wild.sort_by_key(|p| std::cmp::Reverse(self.chips(*p)));
        let w = (round.wildcards as usize).min(wild.len());
        if w > 0 && w < wild.len() {
            let edge = self.chips(wild[w - 1]);
            let tied: Vec<PlayerId> = wild.iter().copied().filter(|p| self.chips(*p) == edge).collect();
            if tied.len() > 1 && !self.decided.iter().any(|d| tied.iter().all(|p| d.contains(p))) {
                return Ok(RoundEnd::PlayOff(tied));
            }
            if let Some(d) = self.decided.iter().find(|d| tied.iter().all(|p| d.contains(p))) {
                let first = wild.iter().position(|p| tied.contains(p)).expect("tied are in wild");
                for (i, p) in d.iter().enumerate() {
                    wild[first + i] = *p;
                }
            }
        }
        going.extend(&wild[..w]);
        let out: Vec<PlayerId> = rest.into_iter().filter(|p| !going.contains(p)).collect();
        self.out.push(out);
        self.round += 1;
        self.seat(going.clone(), next_seed);
        Ok(RoundEnd::Advanced(going))
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
        Ok(())
    }

    /// Each place's prize (NSW 15.3.2): the pool's shares in placing order.
    pub fn prizes(&self) -> Vec<(PlayerId, Money)> {
        let pool = self.conditions.pool(self.entrants.len() as u32);
        self.placings.iter().copied().zip(self.conditions.shares(pool)).collect()
    }
}
