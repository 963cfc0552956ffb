//! A tournament's play as everyone may see it (the player's page, the
//! leaderboard, `GET /api/tournaments/{id}/play`): each table's coup, limits,
//! marker and whose turn it is, every seat's chips, cards and what it did
//! this coup, the standings, the last coup, the shoes' commitments and the
//! seeds of rounds that are over, and at the end the placings and prizes.
//!
//! What it withholds: the round's shoe seed until the round is over, and an
//! undisclosed wager's form until every undisclosed wager at its table is
//! shown (NSW 15.8: "not revealed to any other tournament player at the
//! table until after the calling of 'no more bets'"; the commitment alone
//! is public before). Tables are numbered from 1 here; the play-off's table
//! comes after the round's.
//!
//! The view is a type (issue 46), so the API document derives its schema
//! (`PlayView`) rather than describing it beside the code. It owns what it
//! shows: the server names the players in it (`name_players`) after letting
//! go of the read model's lock, since a name may be read from the database.

use std::collections::BTreeMap;

use baccarat_core::TournamentId;
use baccarat_rules::{Bet, Money};
use baccarat_table::tournament::{Action, Seat, Session, Stake};
use baccarat_table::{PlayerId, Seed};
use schemars::JsonSchema;
use serde::Serialize;

use super::tournament_play::{LastCoup, Play};

/// The play as the public sees it: `GET /api/tournaments/{id}/play`, and
/// the `play` of the tournament's WebSocket messages.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct PlayView {
    pub tournament: TournamentId,
    pub name: String,
    /// The wagers the conditions allow (NSW 15.4.2(c)).
    pub bets: Vec<Bet>,
    /// Pass cards each player has per session (NSW 15.7).
    pub pass_cards: u32,
    /// Undisclosed wagers each player may make per session (NSW 15.8).
    pub undisclosed_wagers: u32,
    /// The round in play, from 1.
    pub round: usize,
    /// Its name, as the conditions give it.
    pub round_name: Option<String>,
    pub rounds: usize,
    /// The time within which each wager must be made (NSW 15.6.11).
    pub time_limit_seconds: Option<u32>,
    /// The round's tables, then the play-off's if one is being played.
    pub tables: Vec<PlayTable>,
    /// The leaderboard: everyone seated this round, most chips first; those
    /// out after, by the coup they went out in (latest first).
    pub standings: Vec<Standing>,
    pub shoes: Vec<RoundShoe>,
    pub disqualified: Vec<Disqualified>,
    /// The final placings, winner first, once the final is over.
    pub placings: Vec<PlayerId>,
    /// The prizes paid from the pool (NSW 15.3.2), once the final is over.
    pub prizes: Option<Vec<Prize>>,
    /// The names of those placed, by id: some are seated no more (out in an
    /// earlier round). Null for a player the server cannot name.
    pub names: BTreeMap<PlayerId, Option<String>>,
}

/// One table of the round (or its play-off).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct PlayTable {
    /// Numbered from 1; the play-off's follows the round's.
    pub table: usize,
    pub play_off: bool,
    /// The coup being played, from 1.
    pub coup: u32,
    /// The coups the session has: none for a play-off, played until an
    /// order is decided (NSW 15.10.3).
    pub coups: Option<u32>,
    pub over: bool,
    /// This coup's minimum and maximum wager: they may change during the
    /// session (NSW 15.6.15).
    pub min: Money,
    pub max: Money,
    /// The box with the marker, which wagers first (NSW 15.9).
    pub marker: Option<u8>,
    /// The box whose turn it is to wager; none once "no more bets" is
    /// called or the session is over.
    pub turn: Option<u8>,
    /// "No more bets" has been called.
    pub closed: bool,
    /// Since when (the records' clock, ms) the time to wager counts (NSW
    /// 15.6.11-15.6.12).
    pub turn_since_ms: u64,
    pub seats: Vec<PlaySeat>,
    /// The table's last coup this round.
    pub last: Option<LastCoup>,
}

/// A seat at a table: its player, chips and what they did this coup.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct PlaySeat {
    #[serde(rename = "box")]
    pub box_no: u8,
    pub player: PlayerId,
    /// The player's name, as the server gives it; null if it has none.
    pub name: Option<String>,
    pub chips: Money,
    /// Pass cards left this session.
    pub pass_cards: u32,
    /// Undisclosed wagers left this session.
    pub undisclosed: u32,
    /// Coups the player was absent from (NSW 15.5.6.1).
    pub absences: u32,
    /// Once the player is out: the coup and why.
    pub out: Option<SeatOut>,
    /// What the player did this coup; null before they act.
    pub acted: Option<Acted>,
    /// The undisclosed wager's form once every one at the table is shown;
    /// null until then, and for a seat that made none.
    pub revealed: Option<Revealed>,
}

/// The coup a player went out in, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct SeatOut {
    pub coup: u32,
    pub why: String,
}

/// What a player did for the coup, as the table shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Acted {
    Wager {
        bet: Bet,
        amount: Money,
    },
    /// The minimum, wagered for a player who did not wager in time (NSW 15.6.12).
    Late {
        bet: Bet,
        amount: Money,
    },
    /// A pass card (NSW 15.7).
    Pass,
    /// Absent: the minimum deducted (NSW 15.5.6.1).
    Absent,
    /// An undisclosed wager: only its commitment (SHA-256, hex) until it is
    /// shown (NSW 15.8), with any wager in chips beside it (15.8.2.4).
    Undisclosed {
        commitment: String,
        with: Option<Stake>,
    },
}

/// An undisclosed wager as shown, once every undisclosed wager at the table
/// is (NSW 15.8): its form, or "not shown" when the form shows no amount or
/// type (NSW 15.8.3.4).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub enum Revealed {
    #[serde(rename = "not shown")]
    NotShown,
    #[serde(untagged)]
    Shown(Stake),
}

/// A line of the leaderboard.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Standing {
    pub player: PlayerId,
    pub name: Option<String>,
    /// The table the player sits at, from 1.
    pub table: usize,
    #[serde(rename = "box")]
    pub box_no: u8,
    pub chips: Money,
    pub out: bool,
}

/// A round's shoe: its commitment, published before the round, and its
/// seed once the round is over, so anyone can check the cards dealt.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct RoundShoe {
    /// From 1.
    pub round: usize,
    pub commitment: String,
    pub seed: Option<Seed>,
}

/// A player disqualified, the rule cited and why (NSW 15.5.6.2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Disqualified {
    pub player: PlayerId,
    pub name: Option<String>,
    pub rule: String,
    pub why: String,
}

/// A prize paid (NSW 15.3.2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Prize {
    pub player: PlayerId,
    pub name: Option<String>,
    pub prize: Money,
}

impl From<&Action> for Acted {
    fn from(a: &Action) -> Acted {
        match a {
            Action::Wager { bet, amount } => Acted::Wager { bet: *bet, amount: *amount },
            Action::Late { bet, amount } => Acted::Late { bet: *bet, amount: *amount },
            Action::Pass => Acted::Pass,
            Action::Absent => Acted::Absent,
            Action::Undisclosed { commitment, with } => Acted::Undisclosed {
                commitment: baccarat_table::hex(commitment),
                with: with.map(|(bet, amount)| Stake { bet, amount }),
            },
        }
    }
}

/// One seat; `all_shown` when every undisclosed wager at its table is shown
/// (before, none is revealed: NSW 15.8).
fn play_seat(s: &Session, all_shown: bool, b: u8, seat: &Seat) -> PlaySeat {
    let revealed = match (all_shown, s.revealed(b)) {
        (true, Some(Some((bet, amount)))) => Some(Revealed::Shown(Stake { bet: *bet, amount: *amount })),
        (true, Some(None)) => Some(Revealed::NotShown),
        _ => None,
    };
    PlaySeat {
        box_no: b,
        player: seat.player,
        name: None,
        chips: seat.chips,
        pass_cards: seat.pass_cards,
        undisclosed: seat.undisclosed,
        absences: seat.absences,
        out: seat.out.as_ref().map(|(coup, why)| SeatOut { coup: *coup, why: why.clone() }),
        acted: s.action(b).map(Acted::from),
        revealed,
    }
}

fn table(p: &Play, index: usize, s: &Session) -> PlayTable {
    let (min, max) = s.rules.limits(s.coup);
    let undisclosed: Vec<u8> =
        s.in_play().into_iter().filter(|b| matches!(s.action(*b), Some(Action::Undisclosed { .. }))).collect();
    let all_shown = undisclosed.iter().all(|b| s.revealed(*b).is_some());
    PlayTable {
        table: index + 1,
        play_off: index == p.bracket.tables.len(),
        coup: s.coup,
        coups: s.rules.coups,
        over: s.over(),
        min,
        max,
        marker: s.marker(),
        turn: if s.closed() || s.over() { None } else { s.turn() },
        closed: s.closed(),
        turn_since_ms: p.wager_since(index),
        seats: s.seats.iter().map(|(b, x)| play_seat(s, all_shown, *b, x)).collect(),
        last: p.last.get(&index).cloned(),
    }
}

/// The leaderboard: everyone seated this round, most chips first; those out
/// after, by the coup they went out in (latest first).
fn standings(p: &Play) -> Vec<Standing> {
    let mut standings: Vec<(Money, u32, Standing)> = Vec::new();
    for (i, s) in p.bracket.tables.iter().enumerate() {
        for (bx, seat) in &s.seats {
            let out_coup = seat.out.as_ref().map_or(u32::MAX, |o| o.0);
            let chips = if seat.out.is_some() { Money::ZERO } else { seat.chips };
            let line = Standing {
                player: seat.player,
                name: None,
                table: i + 1,
                box_no: *bx,
                chips: seat.chips,
                out: seat.out.is_some(),
            };
            standings.push((chips, out_coup, line));
        }
    }
    standings.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
    standings.into_iter().map(|s| s.2).collect()
}

/// The play as the public sees it, its players not yet named
/// ([`PlayView::name_players`]).
pub fn view(id: TournamentId, p: &Play) -> PlayView {
    let b = &p.bracket;
    let rounds = &b.conditions.spec.structure.rounds;
    let mut tables: Vec<PlayTable> = b.tables.iter().enumerate().map(|(i, s)| table(p, i, s)).collect();
    if let Some(po) = &b.playoff {
        tables.push(table(p, b.tables.len(), po));
    }
    let shoes = p
        .shoes
        .iter()
        .enumerate()
        .map(|(r, (commitment, seed))| RoundShoe { round: r + 1, commitment: commitment.clone(), seed: *seed })
        .collect();
    let disqualified = p
        .disqualified
        .iter()
        .map(|(pl, rule, why)| Disqualified { player: *pl, name: None, rule: rule.clone(), why: why.clone() })
        .collect();
    let prizes =
        p.paid.as_ref().map(|v| v.iter().map(|(pl, m)| Prize { player: *pl, name: None, prize: *m }).collect());
    PlayView {
        tournament: id,
        name: b.conditions.spec.name.clone(),
        bets: b.conditions.bets.clone(),
        pass_cards: b.conditions.spec.play.pass_cards,
        undisclosed_wagers: b.conditions.spec.play.undisclosed_wagers,
        round: b.round + 1,
        round_name: rounds.get(b.round).map(|r| r.name.clone()),
        rounds: rounds.len(),
        time_limit_seconds: b.conditions.spec.wagers.time_limit_seconds,
        tables,
        standings: standings(p),
        shoes,
        disqualified,
        placings: b.placings.clone(),
        prizes,
        names: b.placings.iter().map(|pl| (*pl, None)).collect(),
    }
}

impl PlayView {
    /// Put each player's name beside their id, wherever the view names one
    /// (`name` says it, or `None`).
    pub fn name_players(&mut self, name: impl Fn(PlayerId) -> Option<String>) {
        for seat in self.tables.iter_mut().flat_map(|t| t.seats.iter_mut()) {
            seat.name = name(seat.player);
        }
        for s in &mut self.standings {
            s.name = name(s.player);
        }
        for d in &mut self.disqualified {
            d.name = name(d.player);
        }
        for p in self.prizes.iter_mut().flatten() {
            p.name = name(p.player);
        }
        for (p, n) in &mut self.names {
            *n = name(*p);
        }
    }
}
