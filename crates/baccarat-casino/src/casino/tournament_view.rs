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

use baccarat_core::TournamentId;
use baccarat_rules::Money;
use baccarat_table::tournament::{Action, Session};
use serde_json::{json, Value};

use super::tournament_play::Play;

fn action(a: &Action) -> Value {
    match a {
        Action::Wager { bet, amount } => json!({ "kind": "wager", "bet": bet, "amount": amount }),
        Action::Late { bet, amount } => json!({ "kind": "late", "bet": bet, "amount": amount }),
        Action::Pass => json!({ "kind": "pass" }),
        Action::Absent => json!({ "kind": "absent" }),
        Action::Undisclosed { commitment, with } => json!({
            "kind": "undisclosed",
            "commitment": baccarat_table::hex(commitment),
            "with": with.map(|(bet, amount)| json!({ "bet": bet, "amount": amount })),
        }),
    }
}

fn table(p: &Play, index: usize, s: &Session) -> Value {
    let (min, max) = s.rules.limits(s.coup);
    let undisclosed: Vec<u8> =
        s.in_play().into_iter().filter(|b| matches!(s.action(*b), Some(Action::Undisclosed { .. }))).collect();
    let all_shown = undisclosed.iter().all(|b| s.revealed(*b).is_some());
    let seats: Vec<Value> = s
        .seats
        .iter()
        .map(|(b, seat)| {
            let revealed = match (all_shown, s.revealed(*b)) {
                (true, Some(Some((bet, amount)))) => json!({ "bet": bet, "amount": amount }),
                (true, Some(None)) => json!("not shown"),
                _ => Value::Null,
            };
            json!({
                "box": b,
                "player": seat.player,
                "chips": seat.chips,
                "pass_cards": seat.pass_cards,
                "undisclosed": seat.undisclosed,
                "absences": seat.absences,
                "out": seat.out.as_ref().map(|(coup, why)| json!({ "coup": coup, "why": why })),
                "acted": s.action(*b).map(action),
                "revealed": revealed,
            })
        })
        .collect();
    json!({
        "table": index + 1,
        "play_off": index == p.bracket.tables.len(),
        "coup": s.coup,
        "coups": s.rules.coups,
        "over": s.over(),
        "min": min,
        "max": max,
        "marker": s.marker(),
        "turn": if s.closed() || s.over() { None } else { s.turn() },
        "closed": s.closed(),
        "turn_since_ms": p.wager_since(index),
        "seats": seats,
        "last": p.last.get(&index),
    })
}

/// The play as the public sees it.
pub fn view(id: TournamentId, p: &Play) -> Value {
    let b = &p.bracket;
    let rounds = &b.conditions.spec.structure.rounds;
    let mut tables: Vec<Value> = b.tables.iter().enumerate().map(|(i, s)| table(p, i, s)).collect();
    if let Some(po) = &b.playoff {
        tables.push(table(p, b.tables.len(), po));
    }
    // The leaderboard: everyone seated this round, most chips first; those out
    // after, by the coup they went out in (latest first).
    let mut standings: Vec<(Money, u32, Value)> = Vec::new();
    for (i, s) in b.tables.iter().enumerate() {
        for (bx, seat) in &s.seats {
            let out_coup = seat.out.as_ref().map_or(u32::MAX, |o| o.0);
            let chips = if seat.out.is_some() { Money::ZERO } else { seat.chips };
            standings.push((
                chips,
                out_coup,
                json!({ "player": seat.player, "table": i + 1, "box": bx, "chips": seat.chips, "out": seat.out.is_some() }),
            ));
        }
    }
    standings.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
    let shoes: Vec<Value> = p
        .shoes
        .iter()
        .enumerate()
        .map(|(r, (commitment, seed))| json!({ "round": r + 1, "commitment": commitment, "seed": seed }))
        .collect();
    json!({
        "tournament": id,
        "name": b.conditions.spec.name,
        "bets": b.conditions.bets,
        "pass_cards": b.conditions.spec.play.pass_cards,
        "undisclosed_wagers": b.conditions.spec.play.undisclosed_wagers,
        "round": b.round + 1,
        "round_name": rounds.get(b.round).map(|r| r.name.clone()),
        "rounds": rounds.len(),
        "time_limit_seconds": b.conditions.spec.wagers.time_limit_seconds,
        "tables": tables,
        "standings": standings.into_iter().map(|s| s.2).collect::<Vec<_>>(),
        "shoes": shoes,
        "disqualified": p.disqualified.iter().map(|(pl, rule, why)| json!({ "player": pl, "rule": rule, "why": why })).collect::<Vec<_>>(),
        "placings": b.placings,
        "prizes": p.paid.as_ref().map(|v| v.iter().map(|(pl, m)| json!({ "player": pl, "prize": m })).collect::<Vec<_>>()),
    })
}
