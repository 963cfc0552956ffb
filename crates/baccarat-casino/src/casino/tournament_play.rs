//! Tournament play at the casino (NSW 15.5-15.11): the Tournament Manager
//! starts the tournament, calls "no more bets", deals, ends rounds and
//! disqualifies; players wager, pass and make undisclosed wagers from their
//! allocated box. The rules themselves are `baccarat_table::tournament`.
//!
//! # Design
//!
//! Every step is a record of the casino's chain ([`CasinoEvent`]) holding
//! everything the step drew from outside: the seating seed, each round's
//! shoe seed, and each coup's cards. [`Play::apply`] folds a record into the
//! play state; it is the only way the state changes, in the writer, in
//! recovery, in the pages' read model and in `verify`, so all four agree by
//! construction. The writer applies a step before recording it and records
//! nothing that is refused (each session method checks before it changes
//! anything). A checkpoint keeps a tournament's play as the list of its play
//! records and replays them on restore: a tournament is a few thousand
//! records, and one code path is worth more than a second serialisation.
//!
//! Cards come from an RNG shoe per table per round: 8 decks (the table
//! configuration's) shuffled by the recorded algorithm from a seed the
//! writer draws from the OS when the round is seated. Its SHA-256 commitment
//! is public at once; the seed is withheld from every page until the round
//! ends (NSW 15.2.1 keeps the ordinary rules of dealing, so no one may know
//! the cards). A coup starts a fresh shoe when fewer than [`CUT_FROM_BACK`]
//! cards remain, as the cutting card would. `verify` deals the shoes again
//! from the revealed seeds and checks every recorded card.
//!
//! An undisclosed wager (NSW 15.8) is a commitment only: the player's page
//! keeps the form and its secret and reveals them after "no more bets". No
//! one at the casino can see the form before then, and a player who does not
//! reveal in time is taken to have shown no amount or type (NSW 15.8.3.4).
//! The pages show a table's revealed forms only once every undisclosed wager
//! at it is revealed or dealt, so no one decides after seeing another's.

use std::collections::BTreeMap;

use baccarat_rules::tournament::Conditions;
use baccarat_rules::{Card, Coup, Money, TableConfig};
use baccarat_table::shuffled;
use baccarat_table::tournament::{Action, RoundEnd, Session, Tournament as Bracket};
use baccarat_table::Seed;
use baccarat_table::{PlayerId, Refusal};
use serde::Serialize;

use crate::audit::CasinoEvent;

/// A coup starts a fresh shoe when fewer cards than this remain: the
/// cutting card's place (NSW 4.6 puts it at least this far from the back).
pub const CUT_FROM_BACK: usize = 16;

pub use baccarat_table::tournament::{PlayAction, Stake};

/// How one table's last coup went, for the pages.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct LastCoup {
    pub coup: u32,
    pub cards: Vec<Card>,
    pub seats: Vec<SeatCoup>,
}

/// How one seat's stakes settled in that coup: its chips before and after,
/// and the rules applied (NSW 15.8.3 adjustments, a deduction).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct SeatCoup {
    #[serde(rename = "box")]
    pub box_no: u8,
    pub player: PlayerId,
    pub stakes: Vec<Stake>,
    pub before: Money,
    pub after: Money,
    pub notes: Vec<String>,
}

/// Where a table's cards come from: its shoe this round and the place in it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct ShoePlace {
    shoe: u64,
    next: usize,
}

/// A tournament in play.
#[derive(Clone, Debug)]
pub struct Play {
    pub bracket: Bracket,
    /// The round's shoe seed. Withheld from every page until the round ends.
    shoe_seed: Seed,
    /// Each round's shoe commitment, and its seed once the round is over.
    pub shoes: Vec<(String, Option<Seed>)>,
    places: BTreeMap<usize, ShoePlace>,
    /// Each table's last coup this round (the play-off's at `tables.len()`).
    pub last: BTreeMap<usize, LastCoup>,
    /// Who was disqualified, under which rule, and why.
    pub disqualified: Vec<(PlayerId, String, String)>,
    /// The prizes paid, once the final is over (NSW 15.3.2).
    pub paid: Option<Vec<(PlayerId, Money)>>,
    /// The records this play was folded from (a checkpoint keeps them).
    pub log: Vec<CasinoEvent>,
    /// When the round began, each table's coup began, and each table's turn
    /// last moved (records' times): the clock of a timed round (NSW 15.5.5)
    /// and of the time to wager (NSW 15.6.11-15.6.12).
    pub round_since: u64,
    coup_since: BTreeMap<usize, u64>,
    turn_since: BTreeMap<usize, u64>,
}

fn refuse(rule: &str, message: impl Into<String>) -> Refusal {
    Refusal::new(rule.to_string(), message.into())
}

/// The table configuration tournament tables deal and settle under: the
/// conditions' rulebook with its own pay tables (NSW 15.2.1), in chips of one
/// minor unit, so that a count is exact.
pub fn table_config(c: &Conditions) -> Result<TableConfig, TableConfigError> {
    let max = c.spec.wagers.changes.iter().map(|ch| ch.max).chain([c.spec.wagers.max]).max().unwrap_or(1);
    let text = format!("rulebook = \"{}\"\nchip = 1\nmin = 1\nmax = {}\n", c.spec.rulebook, max.max(1));
    TableConfig::from_toml(&c.rulebook, &text).map_err(TableConfigError)
}

/// The tournament's table configuration does not check (NSW 15.4.2(e)).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the tournament's table: {0}")]
pub struct TableConfigError(#[source] pub baccarat_rules::Problems);

/// The cards of shoe `shoe` of table `table` in a round whose seed is `seed`.
pub fn shoe_cards(seed: &Seed, table: usize, shoe: u64, decks: u32) -> Vec<Card> {
    let s = Seed::derive(&Seed::derive(seed, table as u64), shoe);
    shuffled(decks, &s).0
}

impl Play {
    /// Seat the first round (the `TournamentStarted` record).
    pub fn start(
        conditions: &Conditions,
        entrants: &[PlayerId],
        seating: &Seed,
        shoe_seed: Option<&Seed>,
        at_ms: u64,
    ) -> Result<Play, Refusal> {
        let shoe_seed = shoe_seed.ok_or_else(|| refuse("NSW 15.2.1", "the record's shoe seed is withheld"))?;
        let config = table_config(conditions).map_err(|m| refuse("NSW 15.4.2(e)", m.to_string()))?;
        let bracket = Bracket::new(conditions.clone(), config, entrants, seating)?;
        Ok(Play {
            bracket,
            shoe_seed: *shoe_seed,
            shoes: vec![(shoe_seed.commitment_hex(), None)],
            places: BTreeMap::new(),
            last: BTreeMap::new(),
            disqualified: Vec::new(),
            paid: None,
            log: Vec::new(),
            round_since: at_ms,
            coup_since: BTreeMap::new(),
            turn_since: BTreeMap::new(),
        })
    }

    /// Since when table `table`'s player on turn has had to wager: with a
    /// marker, since the turn moved to them; without, since the coup began.
    pub fn wager_since(&self, table: usize) -> u64 {
        let coup = self.coup_since.get(&table).copied().unwrap_or(self.round_since);
        match self.bracket.session(table) {
            Some(s) if s.rules.marker => self.turn_since.get(&table).copied().unwrap_or(coup).max(coup),
            _ => coup,
        }
    }

    fn decks(&self) -> u32 {
        self.bracket.config().decks
    }

    /// The next coup's cards at `table`, from the round's shoe (the writer).
    pub fn next_cards(&self, table: usize) -> Result<Vec<Card>, Refusal> {
        let place = self.place(table);
        let cards = shoe_cards(&self.shoe_seed, table, place.shoe, self.decks());
        let (_, used) =
            Coup::from_cards(&cards[place.next..]).map_err(|_| refuse("NSW 15.2.1", "the shoe ran out of cards"))?;
        Ok(cards[place.next..place.next + used].to_vec())
    }

    fn place(&self, table: usize) -> ShoePlace {
        let p = self.places.get(&table).copied().unwrap_or_default();
        if 52 * self.decks() as usize - p.next < CUT_FROM_BACK {
            ShoePlace { shoe: p.shoe + 1, next: 0 }
        } else {
            p
        }
    }

    fn session(&mut self, table: u32) -> Result<&mut Session, Refusal> {
        let n = self.bracket.tables.len();
        // Once the round's end is asked for, its tables play no more (NSW
        // 15.5.8); only a play-off does.
        if self.bracket.frozen && (table as usize) < n {
            return Err(refuse("NSW 15.5.8", "the round's sessions are over: the counts are taken"));
        }
        self.bracket
            .session_mut(table as usize)
            .ok_or_else(|| refuse("NSW 15.5.1", format!("table {table} is not in play (the round has {n})")))
    }

    fn seat(&self, player: PlayerId) -> Result<(usize, u8), Refusal> {
        if self.paid.is_some() {
            return Err(refuse("NSW 15.5.8", "the tournament is over"));
        }
        self.bracket
            .seat_of(player)
            .ok_or_else(|| refuse("NSW 15.6.10", format!("player {player} has no seat in this round")))
    }

    /// Fold one play record in. Refused, it changes nothing.
    pub fn apply(&mut self, e: &CasinoEvent) -> Result<Option<RoundEnd>, Refusal> {
        let out = self.fold(e)?;
        self.log.push(e.clone());
        Ok(out)
    }

    /// One play record's change, each kind of record by its own step.
    fn fold(&mut self, e: &CasinoEvent) -> Result<Option<RoundEnd>, Refusal> {
        match e {
            CasinoEvent::TournamentActed { player, action, at_ms, .. } => {
                self.acted(*player, action, *at_ms)?;
                Ok(None)
            }
            CasinoEvent::TournamentNoMoreBets { table, .. } => {
                self.session(*table)?.close()?;
                Ok(None)
            }
            CasinoEvent::TournamentRevealed { player, form, salt, .. } => {
                let (t, b) = self.seat(*player)?;
                let s = self.session(t as u32)?;
                match salt {
                    Some(salt) => s.reveal(b, form.map(|f| (f.bet, f.amount)), salt)?,
                    None => s.unshown(b)?,
                }
                Ok(None)
            }
            CasinoEvent::TournamentDealt { table, cards, at_ms, .. } => {
                self.dealt(*table, cards, *at_ms)?;
                Ok(None)
            }
            CasinoEvent::TournamentDisqualified { player, rule, why, .. } => {
                self.disqualified(*player, rule, why)?;
                Ok(None)
            }
            CasinoEvent::TournamentMoved { player, table, .. } => {
                self.seat(*player)?;
                self.bracket.move_player(*player, *table as usize)?;
                Ok(None)
            }
            CasinoEvent::TournamentRoundEnded { seating, shoe_seed, at_ms, .. } => {
                self.round_ended(seating, *shoe_seed, *at_ms).map(Some)
            }
            CasinoEvent::TournamentPaid { prizes, top_up, .. } => {
                self.paid_out(prizes, *top_up)?;
                Ok(None)
            }
            _ => Ok(None),
        }
    }

    /// A player's (or the Tournament Manager's) action at their box.
    fn acted(&mut self, player: PlayerId, action: &PlayAction, at_ms: u64) -> Result<(), Refusal> {
        let (t, b) = self.seat(player)?;
        let s = self.bracket.session(t).expect("seated");
        let min = s.rules.limits(s.coup).0;
        // A late player's minimum only once their time to wager, of
        // which the conditions gave notice, has run out (NSW 15.6.11,
        // 15.6.12).
        if let PlayAction::Late { .. } = action {
            let Some(limit) = self.bracket.conditions.spec.wagers.time_limit_seconds else {
                return Err(refuse("NSW 15.6.11", "the conditions give no time to wager, so no player is late"));
            };
            let due = self.wager_since(t).saturating_add(u64::from(limit) * 1000);
            if at_ms < due {
                return Err(refuse("NSW 15.6.12", format!("box {b} has {} ms left to wager", due - at_ms)));
            }
        }
        let a = match action {
            PlayAction::Wager { bet, amount } => Action::Wager { bet: *bet, amount: *amount },
            PlayAction::Pass => Action::Pass,
            PlayAction::Absent => Action::Absent,
            PlayAction::Late { bet } => Action::Late { bet: *bet, amount: min },
            PlayAction::Undisclosed { commitment, with } => Action::Undisclosed {
                commitment: unhex32(commitment)
                    .ok_or_else(|| refuse("NSW 15.8.2.1", "commitment: 64 lower-case hex digits"))?,
                with: with.map(|s| (s.bet, s.amount)),
            },
        };
        self.session(t as u32)?.act(b, player, a)?;
        self.turn_since.insert(t, at_ms);
        Ok(())
    }

    /// A coup dealt at `table`: its cards the next of the table's committed
    /// shoe, its boxes settled (NSW 15.2.1, 15.6.4).
    fn dealt(&mut self, table: u32, cards: &[Card], at_ms: u64) -> Result<(), Refusal> {
        let t = table as usize;
        // The cards must be the next of the table's committed shoe: a
        // forged card in the log does not replay.
        if self.bracket.session(t).is_some() && self.next_cards(t)? != cards {
            return Err(refuse("NSW 15.2.1", format!("table {}: the cards are not its shoe's next", t + 1)));
        }
        let (coup, used) = Coup::from_cards(cards).map_err(|_| refuse("NSW 15.2.1", "too few cards for a coup"))?;
        if used != cards.len() {
            return Err(refuse("NSW 15.2.1", format!("a coup takes {used} cards, not {}", cards.len())));
        }
        let mut place = self.place(t);
        let s = self.session(table)?;
        if !s.closed() {
            return Err(refuse("NSW 15.6.4", "call \"no more bets\" first"));
        }
        let number = s.coup;
        let seats = settle(s, &coup)?;
        self.last.insert(t, LastCoup { coup: number, cards: cards.to_vec(), seats });
        place.next += used;
        self.places.insert(t, place);
        self.coup_since.insert(t, at_ms);
        self.turn_since.insert(t, at_ms);
        if t == self.bracket.tables.len() {
            self.bracket.check_play_off();
        }
        Ok(())
    }

    /// A player disqualified, on one of the grounds the rules give.
    fn disqualified(&mut self, player: PlayerId, rule: &str, why: &str) -> Result<(), Refusal> {
        self.seat(player)?;
        if !matches!(rule, "NSW 15.5.6.2" | "NSW 15.5.7" | "NSW 15.6.5" | "NSW 15.6.7" | "NSW 15.11.4") {
            return Err(refuse(
                "NSW 15.5.7",
                format!(
                    "rule: {rule:?} is not a ground for disqualification (NSW 15.5.6.2, 15.5.7, 15.6.5, 15.6.7, \
                     15.11.4)"
                ),
            ));
        }
        self.bracket.disqualify(player, rule, why)?;
        self.disqualified.push((player, rule.to_string(), why.to_string()));
        Ok(())
    }

    /// The round ended (NSW 15.5.5, 15.10): who goes on, a play-off, or the
    /// final's placings; a next round deals from the recorded fresh seed.
    fn round_ended(&mut self, seating: &Seed, shoe_seed: Option<Seed>, at_ms: u64) -> Result<RoundEnd, Refusal> {
        self.round_may_end(at_ms)?;
        let next = shoe_seed;
        if next.is_none() && self.bracket.round + 1 < self.bracket.conditions.spec.structure.rounds.len() {
            return Err(refuse("NSW 15.2.1", "the record's shoe seed is withheld"));
        }
        let end = self.bracket.end_round(seating)?;
        match &end {
            RoundEnd::Advanced(_) => {
                // The round's seed is revealed; the next round deals
                // from a fresh one.
                if let Some(last) = self.shoes.last_mut() {
                    last.1 = Some(self.shoe_seed);
                }
                let next = next.expect("checked before the round ended");
                self.shoe_seed = next;
                self.shoes.push((next.commitment_hex(), None));
                self.places.clear();
                self.last.clear();
                self.round_since = at_ms;
                self.coup_since.clear();
                self.turn_since.clear();
            }
            RoundEnd::Finished => {
                if let Some(last) = self.shoes.last_mut() {
                    last.1 = Some(self.shoe_seed);
                }
            }
            RoundEnd::PlayOff(_) => {
                let po = self.bracket.tables.len();
                self.coup_since.insert(po, at_ms);
                self.turn_since.insert(po, at_ms);
            }
        }
        Ok(end)
    }

    /// A round timed by the clock ends when its time is up, or earlier only
    /// once who progresses is determined (NSW 15.5.5.1).
    fn round_may_end(&self, at_ms: u64) -> Result<(), Refusal> {
        let b = &self.bracket;
        let rounds = &b.conditions.spec.structure.rounds;
        if let Some(minutes) = rounds[b.round].minutes {
            let goes_on = if b.round + 1 == rounds.len() { 1 } else { rounds[b.round].advance_per_table as usize };
            let determined = b.tables.iter().all(|s| s.in_play().len() <= goes_on);
            let ends = self.round_since.saturating_add(u64::from(minutes) * 60_000);
            if at_ms < ends && !determined && !b.frozen {
                return Err(refuse(
                    "NSW 15.5.5.1",
                    format!(
                        "the round's {minutes} minutes have {} s to run, and who progresses is not determined",
                        (ends - at_ms).div_ceil(1000)
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The prizes paid: the pool held every fee of those entered (NSW
    /// 15.3.2); the cage adds what the conditions promise beyond it.
    fn paid_out(&mut self, prizes: &[(PlayerId, Money)], top_up: Money) -> Result<(), Refusal> {
        let c = &self.bracket.conditions;
        let n = self.bracket.entrants.len() as u32;
        let fees = Money(c.spec.entry.fee.saturating_mul(i64::from(n)));
        if top_up != Money((c.pool(n) - fees).0.max(0)) {
            return Err(refuse("NSW 15.3.3", "the pool's top-up is not what the conditions promise"));
        }
        if self.bracket.placings.is_empty() {
            return Err(refuse("NSW 15.5.8", "prizes are paid once the final is over"));
        }
        if self.paid.is_some() {
            return Err(refuse("NSW 15.3.2", "the prizes are paid already"));
        }
        if *prizes != self.bracket.prizes() {
            return Err(refuse("NSW 15.3.2", "the prizes are not the conditions' shares of the pool"));
        }
        self.paid = Some(prizes.to_vec());
        Ok(())
    }

    /// The table the play-off uses (after the round's tables).
    pub fn playoff_table(&self) -> u32 {
        self.bracket.tables.len() as u32
    }
}

/// Settle a closed session's coup. A form not revealed by the time the
/// cards are drawn shows no amount or type (NSW 15.8.3.4); `settle` refuses
/// before it changes anything, and the forms taken as not shown are put back
/// if it does.
fn settle(s: &mut Session, coup: &Coup) -> Result<Vec<SeatCoup>, Refusal> {
    let unshown: Vec<u8> = s
        .in_play()
        .into_iter()
        .filter(|b| matches!(s.action(*b), Some(Action::Undisclosed { .. })) && s.revealed(*b).is_none())
        .collect();
    let before = s.clone();
    for b in unshown {
        s.unshown(b)?;
    }
    let results = match s.settle(coup) {
        Ok(r) => r,
        Err(r) => {
            *s = before;
            return Err(r);
        }
    };
    let seats = results
        .iter()
        .map(|r| SeatCoup {
            box_no: r.box_no,
            player: s.seats[&r.box_no].player,
            stakes: r.stakes.iter().map(|(bet, amount)| Stake { bet: *bet, amount: *amount }).collect(),
            before: r.before,
            after: r.after,
            notes: r.notes.clone(),
        })
        .collect();
    Ok(seats)
}

fn unhex32(s: &str) -> Option<[u8; 32]> {
    if s.len() != 64 || !s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, b) in out.iter_mut().enumerate() {
        *b = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}
