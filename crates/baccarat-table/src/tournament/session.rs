//! Play at one table for one session (NSW 15.5-15.10): tournament
//! chips, the compulsory wager within the session's limits, the wagering order
//! with a marker, pass cards, undisclosed wagers, the late and the absent
//! player, elimination, and the session's placings.
//!
//! # Design
//!
//! A [`Session`] is the tournament layer over a table's coups: it takes each
//! player's action for the coup, closes wagering, takes the coup's cards (dealt
//! by the table as usual: NSW 15.2.1 keeps the ordinary rules) and settles the
//! stakes in tournament chips with the table's own pay tables. Tournament chips
//! are counted here and never touch a wallet (NSW 15.1.1, 15.6.1, 15.6.8).
//! Every refusal names its rule. Only the NSW rulebook has tournament rules
//! (`baccarat_rules::tournament` refuses the others), so the rules are cited
//! as NSW's.
//!
//! * Wagers (NSW 15.6.4, 15.6.14): at least the minimum, at most the maximum,
//!   in whole units of the minimum, within the chips held, on a wager the
//!   conditions allow. An electronic table refuses a wager that breaks these
//!   when it is made rather than correcting it later, except where the rule
//!   itself adjusts (undisclosed wagers, NSW 15.8.3).
//! * Once made, a wager is neither altered nor removed (NSW 15.9.5).
//! * With a marker (NSW 15.9) the player on the marker wagers first and the
//!   others follow to their left; a wager out of turn is refused (15.9.4). The
//!   marker is on the first player in play for the first coup and moves one
//!   player on each coup (boxes of players out are skipped).
//! * A pass card (NSW 15.7) stands in for a wager.
//! * An undisclosed wager (NSW 15.8) is committed as the SHA-256 of its form
//!   (`bet|amount|salt`), so no other player can learn it, and revealed after
//!   "no more bets"; a reveal that does not match its commitment is refused.
//!   A wager outside the rules is adjusted as NSW 15.8.3 says.
//! * A player who has not wagered in time has the minimum wagered (NSW
//!   15.6.12); an absent player has the minimum deducted, for at most three
//!   coups (NSW 15.5.6.1). Wagering closes only when every player has acted.
//! * A player who cannot wager the minimum before a coup is eliminated (NSW
//!   15.6.13). Players out in the same coup are placed by NSW 15.10.4.
//! * At the session's end the highest counts advance (NSW 15.10.2); a tie for
//!   the last place advancing needs a play-off (NSW 15.10.3), which is reported,
//!   not guessed.

use std::collections::BTreeMap;

use baccarat_rules::{settle_wager, Bet, Coup, Money, TableConfig};
use sha2::{Digest, Sha256};

use crate::engine::{PlayerId, Refusal};

/// The session's limits and what players may use, from the conditions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionRules {
    pub min: Money,
    pub max: Money,
    /// From coup `n` on, new (min, max) (NSW 15.6.15).
    pub changes: Vec<(u32, Money, Money)>,
    pub chips: Money,
    pub bets: Vec<Bet>,
    pub marker: bool,
    pub pass_cards: u32,
    pub undisclosed: u32,
    /// Players who go on from this table (NSW 15.10.1).
    pub advance: u32,
    /// Coups in the session, if it is counted in coups rather than by the
    /// clock (NSW 15.4.2(e)); a play-off has none: it goes on until an order
    /// is determined (NSW 15.10.3).
    pub coups: Option<u32>,
}

impl SessionRules {
    /// The rules of round `round` (0 = the first) of checked conditions.
    pub fn of(c: &baccarat_rules::tournament::Conditions, round: usize) -> SessionRules {
        let s = &c.spec;
        SessionRules {
            min: Money(s.wagers.min),
            max: Money(s.wagers.max),
            changes: s.wagers.changes.iter().map(|ch| (ch.from_coup, Money(ch.min), Money(ch.max))).collect(),
            chips: Money(s.chips.per_session),
            bets: c.bets.clone(),
            marker: s.play.marker,
            pass_cards: s.play.pass_cards,
            undisclosed: s.play.undisclosed_wagers,
            advance: s.structure.rounds.get(round).map_or(0, |r| r.advance_per_table),
            coups: s.structure.rounds.get(round).and_then(|r| r.coups),
        }
    }

    /// The (min, max) of coup `coup` (1 = the first).
    pub fn limits(&self, coup: u32) -> (Money, Money) {
        self.changes.iter().rev().find(|(from, _, _)| coup >= *from).map_or((self.min, self.max), |c| (c.1, c.2))
    }
}

/// What a player did for the coup.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    Wager {
        bet: Bet,
        amount: Money,
    },
    /// The minimum, wagered for a player who did not wager in time (NSW 15.6.12).
    Late {
        bet: Bet,
        amount: Money,
    },
    Pass,
    /// An undisclosed wager's commitment, with any wager made in chips beside
    /// it (NSW 15.8.2.4).
    Undisclosed {
        commitment: [u8; 32],
        with: Option<(Bet, Money)>,
    },
    /// Absent: the minimum deducted (NSW 15.5.6.1).
    Absent,
}

/// One seat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seat {
    pub player: PlayerId,
    pub chips: Money,
    pub pass_cards: u32,
    pub undisclosed: u32,
    pub absences: u32,
    /// The coup the player went out in, and why.
    pub out: Option<(u32, String)>,
}

/// How one seat's coup settled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatResult {
    pub box_no: u8,
    /// Stakes that played (an undisclosed wager as adjusted).
    pub stakes: Vec<(Bet, Money)>,
    pub before: Money,
    pub after: Money,
    /// Rules applied to it (NSW 15.8.3 adjustments, a deduction).
    pub notes: Vec<String>,
}

/// A table's session.
#[derive(Clone, Debug)]
pub struct Session {
    pub rules: SessionRules,
    config: TableConfig,
    /// By box number.
    pub seats: BTreeMap<u8, Seat>,
    /// The coup being played (1 = the first).
    pub coup: u32,
    actions: BTreeMap<u8, Action>,
    /// Undisclosed wagers revealed this coup: `None` when the form shows no
    /// amount or type (NSW 15.8.3.4).
    revealed: BTreeMap<u8, Option<(Bet, Money)>>,
    closed: bool,
    /// Players out, in the order they went out (first out first).
    pub out_order: Vec<u8>,
}

fn refuse(rule: &str, message: impl Into<String>) -> Refusal {
    Refusal::new(rule.to_string(), message.into())
}

/// The commitment of an undisclosed wager's form (NSW 15.8.2.1): what the
/// player writes, hashed with a secret of theirs.
pub fn commitment(bet: Bet, amount: Money, salt: &str) -> [u8; 32] {
    Sha256::digest(format!("{}|{}|{salt}", bet.id(), amount.0)).into()
}

impl Session {
    /// Seat `players` (box, player) with the session's chips and cards.
    pub fn new(rules: SessionRules, config: TableConfig, players: &[(u8, PlayerId)]) -> Session {
        let seats = players
            .iter()
            .map(|&(b, player)| {
                let seat = Seat {
                    player,
                    chips: rules.chips,
                    pass_cards: rules.pass_cards,
                    undisclosed: rules.undisclosed,
                    absences: 0,
                    out: None,
                };
                (b, seat)
            })
            .collect();
        let mut s = Session {
            rules,
            config,
            seats,
            coup: 1,
            actions: BTreeMap::new(),
            revealed: BTreeMap::new(),
            closed: false,
            out_order: Vec::new(),
        };
        s.eliminate_short();
        s
    }

    /// Boxes still in play, in box order.
    pub fn in_play(&self) -> Vec<u8> {
        self.seats.iter().filter(|(_, s)| s.out.is_none()).map(|(b, _)| *b).collect()
    }

    /// The box holding the marker this coup (NSW 15.9.2), if there is a marker.
    pub fn marker(&self) -> Option<u8> {
        let play = self.in_play();
        (self.rules.marker && !play.is_empty()).then(|| play[(self.coup as usize - 1) % play.len()])
    }

    /// Whose turn it is to act, with a marker: the first in order from the
    /// marker who has not acted (NSW 15.9.3).
    pub fn turn(&self) -> Option<u8> {
        let m = self.marker()?;
        let play = self.in_play();
        let start = play.iter().position(|b| *b == m).unwrap_or(0);
        (0..play.len()).map(|i| play[(start + i) % play.len()]).find(|b| !self.actions.contains_key(b))
    }

    fn seat(&self, box_no: u8, player: PlayerId) -> Result<&Seat, Refusal> {
        let s = self
            .seats
            .get(&box_no)
            .ok_or_else(|| refuse("NSW 15.6.10", format!("box {box_no} is not a tournament seat")))?;
        if s.player != player {
            return Err(refuse(
                "NSW 15.6.10",
                format!("player {player} may wager only from their own box, not box {box_no}"),
            ));
        }
        if let Some((coup, why)) = &s.out {
            return Err(refuse(
                "NSW 15.6.13",
                format!("player {player} is out of the session since coup {coup}: {why}"),
            ));
        }
        Ok(s)
    }

    /// Check a wager in chips against the coup's limits and the chips held.
    fn check_wager(&self, seat: &Seat, bet: Bet, amount: Money, beside: Money) -> Result<(), Refusal> {
        if !self.rules.bets.contains(&bet) {
            return Err(refuse("NSW 15.4.2(f)", format!("{} is not a wager of this tournament", bet.id())));
        }
        let (min, max) = self.rules.limits(self.coup);
        if amount < min || amount > max {
            return Err(refuse(
                "NSW 15.6.14",
                format!("a wager is at least {min} and at most {max} this coup; {amount} is not"),
            ));
        }
        if amount.0 % min.0 != 0 {
            return Err(refuse("NSW 15.6.14", format!("wagers are in units of the minimum {min}; {amount} is not")));
        }
        if amount + beside > seat.chips {
            return Err(refuse(
                "NSW 15.6.8",
                format!("{} tournament chips are held; {} is more", seat.chips, amount + beside),
            ));
        }
        Ok(())
    }

    /// Every coup of a session counted in coups has been played, or no one is
    /// left in play.
    pub fn over(&self) -> bool {
        self.rules.coups.is_some_and(|n| self.coup > n) || self.in_play().is_empty()
    }

    /// A coup is under way: someone has acted, or wagering is closed.
    pub fn coup_open(&self) -> bool {
        self.closed || !self.actions.is_empty()
    }

    /// Whether wagering is closed ("no more bets") for the coup.
    pub fn closed(&self) -> bool {
        self.closed
    }

    /// What box `box_no` did this coup, if it has acted.
    pub fn action(&self, box_no: u8) -> Option<&Action> {
        self.actions.get(&box_no)
    }

    /// Whether box `box_no`'s undisclosed wager has been revealed this coup
    /// (or taken as not shown).
    pub fn revealed(&self, box_no: u8) -> Option<&Option<(Bet, Money)>> {
        self.revealed.get(&box_no)
    }

    /// The box of `player`, in play or not.
    pub fn box_of(&self, player: PlayerId) -> Option<u8> {
        self.seats.iter().find(|(_, s)| s.player == player).map(|(b, _)| *b)
    }

    /// A player acts for the coup from their box.
    pub fn act(&mut self, box_no: u8, player: PlayerId, action: Action) -> Result<(), Refusal> {
        if self.over() {
            return Err(refuse("NSW 15.4.2(e)", "the session is over: its coups are played"));
        }
        if self.closed {
            return Err(refuse("NSW 15.8.2.7", "wagering is closed for this coup"));
        }
        let seat = self.seat(box_no, player)?.clone();
        if self.actions.contains_key(&box_no) {
            return Err(refuse(
                "NSW 15.9.5",
                format!("box {box_no} has wagered this coup: a wager is not altered or removed"),
            ));
        }
        if let Some(turn) = self.turn() {
            if turn != box_no && !matches!(action, Action::Late { .. } | Action::Absent) {
                return Err(refuse("NSW 15.9.4", format!("box {turn} wagers before box {box_no}: wait your turn")));
            }
        }
        let (min, _) = self.rules.limits(self.coup);
        match &action {
            Action::Wager { bet, amount } => self.check_wager(&seat, *bet, *amount, Money::ZERO)?,
            Action::Late { bet, amount } => {
                if *amount != min {
                    return Err(refuse("NSW 15.6.12", format!("a late wager is restricted to the minimum {min}")));
                }
                self.check_wager(&seat, *bet, *amount, Money::ZERO)?;
            }
            Action::Pass => {
                if seat.pass_cards == 0 {
                    return Err(refuse("NSW 15.7.1", "no pass card is left this heat"));
                }
            }
            Action::Undisclosed { with, .. } => {
                if seat.undisclosed == 0 {
                    return Err(refuse("NSW 15.8.1", "no undisclosed wager is left this session"));
                }
                if let Some((bet, amount)) = with {
                    self.check_wager(&seat, *bet, *amount, Money::ZERO)?;
                }
            }
            Action::Absent => {
                if seat.absences >= 3 {
                    return Err(refuse(
                        "NSW 15.5.6.1",
                        "the minimum is deducted for at most three coups of absence; the Tournament Manager may disqualify",
                    ));
                }
            }
        }
        let s = self.seats.get_mut(&box_no).expect("checked");
        match &action {
            Action::Pass => s.pass_cards -= 1,
            Action::Undisclosed { .. } => s.undisclosed -= 1,
            Action::Absent => s.absences += 1,
            _ => {}
        }
        self.actions.insert(box_no, action);
        Ok(())
    }

    /// "No more bets": every player in play must have acted (NSW 15.6.4).
    pub fn close(&mut self) -> Result<(), Refusal> {
        if self.over() {
            return Err(refuse("NSW 15.4.2(e)", "the session is over: no coup is played"));
        }
        if self.actions.is_empty() {
            return Err(refuse("NSW 15.6.4", "no one in play has wagered this coup"));
        }
        if let Some(b) = self.in_play().into_iter().find(|b| !self.actions.contains_key(b)) {
            return Err(refuse(
                "NSW 15.6.4",
                format!("box {b} has not wagered: wager the minimum for them (NSW 15.6.12), or record them absent"),
            ));
        }
        self.closed = true;
        Ok(())
    }

    /// Reveal an undisclosed wager after "no more bets" (NSW 15.8.2.6): its
    /// form (`None`: it shows no amount or no type) and the secret it was
    /// committed with.
    pub fn reveal(&mut self, box_no: u8, form: Option<(Bet, Money)>, salt: &str) -> Result<(), Refusal> {
        if !self.closed {
            return Err(refuse("NSW 15.8.2.6", "undisclosed wagers are revealed after \"no more bets\""));
        }
        let Some(Action::Undisclosed { commitment: c, .. }) = self.actions.get(&box_no) else {
            return Err(refuse("NSW 15.8.2", format!("box {box_no} made no undisclosed wager this coup")));
        };
        if self.revealed.contains_key(&box_no) {
            return Err(refuse("NSW 15.8.2.6", format!("box {box_no}'s undisclosed wager is shown already")));
        }
        let shown = match form {
            Some((bet, amount)) => commitment(bet, amount, salt),
            None => Sha256::digest(format!("blank|{salt}")).into(),
        };
        if shown != *c {
            return Err(refuse(
                "NSW 15.8.2.1",
                format!("box {box_no}'s form is not the one recorded when it was made"),
            ));
        }
        self.revealed.insert(box_no, form);
        Ok(())
    }

    /// An undisclosed wager whose form was not shown by the time the cards
    /// are to be drawn counts as one that shows no amount or type: the
    /// minimum is deducted (NSW 15.8.3.4).
    pub fn unshown(&mut self, box_no: u8) -> Result<(), Refusal> {
        if !self.closed {
            return Err(refuse("NSW 15.8.2.6", "undisclosed wagers are revealed after \"no more bets\""));
        }
        if !matches!(self.actions.get(&box_no), Some(Action::Undisclosed { .. })) {
            return Err(refuse("NSW 15.8.2", format!("box {box_no} made no undisclosed wager this coup")));
        }
        if self.revealed.contains_key(&box_no) {
            return Err(refuse("NSW 15.8.2.6", format!("box {box_no}'s undisclosed wager is revealed already")));
        }
        self.revealed.insert(box_no, None);
        Ok(())
    }

    /// The Tournament Manager disqualifies the player on `box_no` (NSW 15.5.6.2,
    /// 15.5.7, 15.6.5, 15.6.7, 15.11.4), citing `rule`: their position is
    /// cancelled, any action of theirs this coup is void, and they are placed
    /// below everyone else out of the session.
    pub fn disqualify(&mut self, box_no: u8, rule: &str, why: &str) -> Result<(), Refusal> {
        let Some(seat) = self.seats.get(&box_no) else {
            return Err(refuse(rule, format!("box {box_no} is not a tournament seat")));
        };
        if let Some((coup, was)) = &seat.out {
            return Err(refuse(rule, format!("box {box_no} is out of the session since coup {coup}: {was}")));
        }
        self.actions.remove(&box_no);
        self.revealed.remove(&box_no);
        // With no one's action left, the coup is not under way any more.
        if self.actions.is_empty() {
            self.closed = false;
        }
        let coup = self.coup;
        self.seats.get_mut(&box_no).expect("checked").out = Some((coup, format!("disqualified ({rule}): {why}")));
        self.out_order.insert(0, box_no);
        Ok(())
    }

    /// Settle the coup whose cards are `coup`, move the marker, and eliminate
    /// whoever cannot wager the next minimum (NSW 15.6.13).
    pub fn settle(&mut self, coup: &Coup) -> Result<Vec<SeatResult>, Refusal> {
        if !self.closed {
            return Err(refuse("NSW 15.6.4", "call \"no more bets\" first"));
        }
        let unrevealed: Vec<u8> = self
            .actions
            .iter()
            .filter(|(b, a)| matches!(a, Action::Undisclosed { .. }) && !self.revealed.contains_key(b))
            .map(|(b, _)| *b)
            .collect();
        if let Some(b) = unrevealed.first() {
            return Err(refuse("NSW 15.8.2.6", format!("box {b}'s undisclosed wager is not revealed yet")));
        }
        if self.actions.is_empty() {
            return Err(refuse("NSW 15.6.4", "no one in play has wagered this coup"));
        }
        let limits = self.rules.limits(self.coup);
        let mut results = Vec::new();
        for (&b, action) in &self.actions {
            results.push(self.seat_result(b, action, limits, coup)?);
        }
        for r in &results {
            self.seats.get_mut(&r.box_no).expect("a seat").chips = r.after;
        }
        // Who went out this coup, placed by NSW 15.10.4: more residual chips
        // last out; then the larger wager; then (equal wagers) chips removed
        // later, i.e. a higher box, as the dealer collects from box one up.
        self.coup += 1;
        self.actions.clear();
        self.revealed.clear();
        self.closed = false;
        let wagered: BTreeMap<u8, Money> =
            results.iter().map(|r| (r.box_no, r.stakes.iter().fold(Money::ZERO, |a, s| a + s.1))).collect();
        self.eliminate_short_with(&wagered);
        Ok(results)
    }

    /// One seat's result of the coup: what its action put at stake or had
    /// deducted, each stake settled on `coup` at the table's pay tables.
    fn seat_result(
        &self,
        b: u8,
        action: &Action,
        (min, max): (Money, Money),
        coup: &Coup,
    ) -> Result<SeatResult, Refusal> {
        let seat = &self.seats[&b];
        let mut notes = Vec::new();
        let mut stakes: Vec<(Bet, Money)> = Vec::new();
        let mut deduct = Money::ZERO;
        match action {
            Action::Wager { bet, amount } | Action::Late { bet, amount } => stakes.push((*bet, *amount)),
            Action::Pass => notes.push("a pass card (NSW 15.7)".into()),
            Action::Absent => {
                deduct = min.min(seat.chips);
                notes.push(format!("absent: the minimum {min} deducted (NSW 15.5.6.1)"));
            }
            Action::Undisclosed { with, .. } => {
                let beside = with.map_or(Money::ZERO, |w| w.1);
                if let Some(w) = with {
                    stakes.push(*w);
                }
                let room = seat.chips - beside;
                match self.revealed[&b] {
                    None => {
                        deduct = min.min(room);
                        notes.push(format!(
                            "the form shows no amount or type: the minimum {min} deducted (NSW 15.8.3.4)"
                        ));
                    }
                    Some((bet, amount)) => {
                        let adjusted = deemed(amount, room, (min, max), &mut notes);
                        if adjusted > Money::ZERO {
                            stakes.push((bet, adjusted));
                        }
                    }
                }
            }
        }
        let mut after = seat.chips - deduct;
        for (bet, amount) in &stakes {
            let offer = self
                .config
                .offer(*bet)
                .ok_or_else(|| refuse("NSW 15.4.2(f)", format!("{} is not offered at this table", bet.id())))?;
            let s = settle_wager(*amount, &offer.pay_table, bet.classify(coup), &self.config.settle);
            after = after - s.lost + s.won - s.commission;
        }
        Ok(SeatResult { box_no: b, stakes, before: seat.chips, after, notes })
    }

    fn eliminate_short(&mut self) {
        self.eliminate_short_with(&BTreeMap::new());
    }

    fn eliminate_short_with(&mut self, wagered: &BTreeMap<u8, Money>) {
        let (min, _) = self.rules.limits(self.coup);
        let mut short: Vec<u8> = self.in_play().into_iter().filter(|b| self.seats[b].chips < min).collect();
        short.sort_by_key(|b| (self.seats[b].chips, wagered.get(b).copied().unwrap_or(Money::ZERO), *b));
        for b in short {
            let coup = self.coup.saturating_sub(1).max(1);
            let why = format!("{} chips cannot wager the minimum {min} (NSW 15.6.13)", self.seats[&b].chips);
            self.seats.get_mut(&b).expect("a seat").out = Some((coup, why));
            self.out_order.push(b);
        }
    }

    /// The session's standings: players in play by chips (most first), then
    /// those out, last out first. `play_off`: players tied on chips across
    /// the last place that advances (NSW 15.10.3), if any.
    pub fn standings(&self) -> (Vec<u8>, Vec<u8>) {
        let mut play: Vec<u8> = self.in_play();
        play.sort_by_key(|b| std::cmp::Reverse(self.seats[b].chips));
        let mut order = play.clone();
        order.extend(self.out_order.iter().rev());
        let k = self.rules.advance as usize;
        let mut play_off = Vec::new();
        if k > 0 && k < play.len() {
            let edge = self.seats[&play[k - 1]].chips;
            if self.seats[&play[k]].chips == edge && edge > Money::ZERO {
                play_off = play.iter().copied().filter(|b| self.seats[b].chips == edge).collect();
            }
        }
        (order, play_off)
    }
}

/// The amount an undisclosed wager's form is deemed to show (NSW 15.8.3):
/// more than the chips held (`room`, less any wager beside it), the chips
/// held or the maximum (15.8.3.3); above the maximum, the maximum (15.8.3.2);
/// below the minimum, the minimum (15.8.3.1). The rule applied is noted.
fn deemed(amount: Money, room: Money, (min, max): (Money, Money), notes: &mut Vec<String>) -> Money {
    if amount > room {
        notes.push("more than the chips held: deemed the chips held or the maximum (NSW 15.8.3.3)".into());
        room.min(max)
    } else if amount > max {
        notes.push("above the maximum: deemed the maximum (NSW 15.8.3.2)".into());
        max
    } else if amount < min {
        notes.push("below the minimum: deemed the minimum (NSW 15.8.3.1)".into());
        min.min(room)
    } else {
        amount
    }
}
