//! The coup's progress, in one place: what happens after a card, after the
//! deal, at "no more bets", at the result, at a void and at the end of a shoe.
//!
//! # Design
//!
//! Commands (`deal.rs`, `wagers.rs`, `hands.rs`, `irregular.rs`) decide
//! whether they are allowed and emit their own events; then they call down
//! into this module to move the coup on. This module calls only the dealing
//! style's helpers (`styles.rs`) below it, never a command, so the flow reads
//! top to bottom: command → flow → style.

use baccarat_rules::Cite;
use baccarat_rules::{Bet, Money, SeatOrder, Settlement, Side};

use super::styles::{current, side_of, Handling};
use super::{coup_of, Emit, Event, Phase, PlayerId, Refusal, Spot, WagerId};

/// After a card: pass or turn hands as the dealing style requires, and complete
/// the coup once nothing more is due and every card is face up.
pub(super) fn after_card(o: &mut Emit) -> Result<(), Refusal> {
    if o.t.state.phase != Phase::Dealing {
        return Ok(());
    }
    after_deal(o);
    let all_up = o.t.state.coup.cards.iter().all(|c| c.exposed);
    if o.t.due().is_none() && o.t.state.out.is_none() && all_up {
        complete(o);
    }
    Ok(())
}

/// Result, settlement, and the end of the shoe if this was the last coup.
pub(super) fn complete(o: &mut Emit) {
    let coup = coup_of(&o.t.state.coup.cards);
    let number = o.t.state.coup.number;
    o.emit(Event::CoupCompleted { coup: number, summary: coup.summary() });
    // NSW 8.20, 8.26: the designated player keeps the marker until the Banker loses.
    if let Some((_, seat)) = o.t.state.marker {
        if coup.winner() == baccarat_rules::Winner::Player {
            let rule = format!("{} (the Banker's hand lost)", o.t.cite(Cite::Dealing));
            o.emit(Event::MarkerReleased { from_seat: seat, rule });
        }
    }
    let chunk = o.t.settle_chunk;
    settle_some(o, chunk);
}

/// Settle the completed coup's next `max` wagers not settled yet, in the
/// order they were placed, and close the coup once none is left.
///
/// No wager of a coup is settled before its result (a void settles every
/// wager and closes the coup in one command), and the settlement goes in
/// placement order, so it resumes at the wager after the last one settled:
/// each chunk costs its own length, not the coup's.
pub(super) fn settle_some(o: &mut Emit, max: usize) {
    let coup = coup_of(&o.t.state.coup.cards);
    let cfg = &o.t.setup.config;
    let s = &o.t.state;
    let from = s.last_settled.last().and_then(|w| s.coup.wagers.position(*w)).map_or(0, |i| i + 1);
    let mut settled = Vec::new();
    let mut rest = s.coup.wagers.iter_from(from).peekable();
    while settled.len() < max {
        let Some(w) = rest.next() else { break };
        let offer = cfg.offer(w.bet).expect("wagers are on offered bets");
        let outcome = w.bet.classify(&coup);
        let (settlement, ante) = match (&cfg.ante, w.bet.is_main()) {
            (Some(a), true) => {
                let s = baccarat_rules::settle_with_ante(w.amount, w.ante, a, &offer.pay_table, outcome, &cfg.settle);
                (s.wager, s.ante_collected)
            }
            _ => (
                baccarat_rules::settle_wager(w.amount, &offer.pay_table, outcome, &cfg.settle),
                baccarat_rules::Money::ZERO,
            ),
        };
        let pays = offer.pay_table.pays(outcome).report();
        settled.push(Event::WagerSettled { wager: w.id, outcome: Some(outcome), pays, settlement, ante });
    }
    let done = rest.peek().is_none();
    drop(rest);
    for e in settled {
        o.emit(e);
    }
    if done {
        close_coup(o);
    }
}

pub(super) fn close_coup(o: &mut Emit) {
    let coup = o.t.state.coup.number;
    o.emit(Event::CoupClosed { coup });
    if o.t.state.coups_left == Some(0) {
        let rule = o.t.cite(Cite::LastCoup);
        end_shoe(o, format!("the last coup is over ({rule})"));
    }
}

/// Void the coup in progress: every wager returned whole.
pub(super) fn void_coup(o: &mut Emit, rule: String) {
    if !matches!(o.t.state.phase, Phase::Betting | Phase::Closed | Phase::Dealing | Phase::Reconstruction) {
        return;
    }
    let coup = o.t.state.coup.number;
    o.emit(Event::CoupVoided { coup, rule });
    let wagers: Vec<_> = o.t.state.coup.wagers.iter().map(|w| (w.id, w.amount)).collect();
    for (id, amount) in wagers {
        o.emit(Event::WagerSettled {
            wager: id,
            outcome: None,
            pays: "void".into(),
            settlement: Settlement::void(amount),
            ante: baccarat_rules::Money::ZERO,
        });
    }
    close_coup(o);
}

pub(super) fn end_shoe(o: &mut Emit, reason: String) {
    if o.t.state.phase == Phase::ShoeOver {
        return;
    }
    let shoe = o.t.state.shoe_number;
    let seed = o.t.state.seed;
    o.emit(Event::ShoeEnded { shoe, seed, reason });
}

pub(super) fn hidden(o: &Emit, side: Side) -> bool {
    o.t.state.coup.cards.iter().any(|c| side_of(c.position) == side && !c.exposed)
}

/// The seated players to offer a hand to, best first (NSW 8.8-8.11; AU 8.9).
pub(super) fn candidates(o: &Emit, side: Side) -> Vec<PlayerId> {
    let bet = if side == Side::Player { Bet::Player } else { Bet::Banker };
    let mut totals: Vec<(PlayerId, i64, u8)> = Vec::new();
    for w in o.t.state.coup.wagers.iter().filter(|w| w.bet == bet) {
        let Spot::Box(seat) = w.spot else { continue }; // AU 5.6(c): not standing players
        match totals.iter_mut().find(|t| t.0 == w.player) {
            Some(t) => t.1 += w.amount.0,
            None => totals.push((w.player, w.amount.0, seat)),
        }
    }
    let order = o.t.rb().config.conduct.equal_wager_order;
    totals.sort_by(|a, b| {
        b.1.cmp(&a.1).then(match order {
            SeatOrder::NearestDealerRight => b.2.cmp(&a.2),
            SeatOrder::LowestSeat => a.2.cmp(&b.2),
        })
    });
    let declined = &o.t.state.declined;
    totals.into_iter().map(|t| t.0).filter(|p| !declined.contains(&(side, *p))).collect()
}

/// Pass `side`'s hidden cards to whoever handles them, or have the dealer turn them.
pub(super) fn pass(o: &mut Emit, side: Side) {
    let to = match current(o) {
        Handling::Squeeze => candidates(o, side).first().copied(),
        Handling::BankerMarker if side == Side::Banker => o.t.state.marker.map(|m| m.0).filter(|p| {
            o.t.state.coup.wagers.iter().any(|w| w.player == *p && w.bet == Bet::Banker)
                && !o.t.state.declined.contains(&(side, *p))
        }),
        _ => None,
    };
    // AU 15.4: the cards go to the player's nominee where one acts for them.
    let to = to.map(|p| o.t.state.nominees.iter().find(|n| n.0 == p).map_or(p, |n| n.1));
    let rule = o.t.cite(Cite::Dealing);
    o.emit(Event::HandPassed { side, to, rule });
    if to.is_none() {
        o.emit(Event::HandExposed { side, by: None });
    }
}

/// After a card: pass or turn hands as the style requires.
pub(super) fn after_deal(o: &mut Emit) {
    let n = o.t.state.coup.cards.len();
    match current(o) {
        Handling::FaceUp => {}
        Handling::DealerReveals => {
            if n == 4 {
                o.emit(Event::HandExposed { side: Side::Player, by: None });
                o.emit(Event::HandExposed { side: Side::Banker, by: None });
            }
        }
        Handling::Squeeze | Handling::BankerMarker => {
            if n < 4 || o.t.state.out.is_some() {
                return;
            }
            for side in [Side::Player, Side::Banker] {
                if hidden(o, side) {
                    pass(o, side);
                    if o.t.state.out.is_some() {
                        return;
                    }
                }
            }
        }
    }
}

/// The rule against wagers when betting is not open.
pub(super) fn not_open(o: &Emit) -> Refusal {
    not_open_at(o.t)
}

/// [`not_open`], from the table alone.
pub(super) fn not_open_at(t: &super::Table) -> Refusal {
    match t.phase() {
        Phase::Closed | Phase::Dealing | Phase::Reconstruction => Refusal::new(
            t.cite(Cite::WagersClosed),
            "wagers are closed once \"no more bets\" is called and the first card is drawn",
        ),
        _ => Refusal::new(t.cite(Cite::WagersClosed), "betting is not open"),
    }
}

/// "No more bets": unapproved combinations and side bets left without their main
/// wager are returned, and the table differential is applied pro rata.
pub(super) fn close(o: &mut Emit) -> Result<(), Refusal> {
    if o.t.phase() != Phase::Betting && !o.t.state.late_wagers {
        return Err(not_open(o));
    }
    let pending: Vec<WagerId> = o.t.state.coup.wagers.iter().filter(|w| w.needs_approval).map(|w| w.id).collect();
    for id in pending {
        let rule = format!("{}: Banker and Player together need a supervisor's approval", o.t.cite(Cite::Combination));
        o.emit(Event::WagerReturned { wager: id, rule });
    }
    if o.t.setup.config.side_bets_need_main_wager {
        let orphans: Vec<WagerId> = {
            let ws = &o.t.state.coup.wagers;
            ws.iter().filter(|w| !w.bet.is_main() && !ws.has_main(w.player)).map(|w| w.id).collect()
        };
        for id in orphans {
            let rule = o.t.cite(Cite::SideBetNeedsMain);
            o.emit(Event::WagerReturned { wager: id, rule });
        }
    }
    differential(o);
    // NSW 8.17: the designated player is required to wager on the Banker's hand.
    if let Some((p, seat)) = o.t.state.marker {
        if !o.t.state.coup.no_bet && !o.t.state.coup.wagers.has(p, &[Bet::Banker]) {
            let rule = format!("{} (no Banker wager from the designated player)", o.t.cite(Cite::Dealing));
            o.emit(Event::MarkerReleased { from_seat: seat, rule });
        }
    }
    let coup = o.t.state.coup.number;
    o.emit(Event::BettingClosed { coup });
    Ok(())
}

/// NSW 6.2; AU 5.18; EU 6.1.2: reduce the larger of Banker and Player pro rata so
/// the difference is within the table differential (ties and side bets excluded,
/// EU 6.1.3). Each reduced wager is rounded down to whole chips.
pub(super) fn differential(o: &mut Emit) {
    let cfg = &o.t.setup.config;
    let Some(limit) = cfg.differential else {
        return;
    };
    let total = |b: Bet| o.t.state.coup.wagers.iter().filter(|w| w.bet == b).fold(0i64, |a, w| a + w.amount.0);
    let (p, b) = (total(Bet::Player), total(Bet::Banker));
    let (big, small, side) = if p >= b { (p, b, Bet::Player) } else { (b, p, Bet::Banker) };
    if big - small <= limit.0 {
        return;
    }
    let target = small + limit.0;
    let chip = cfg.settle.chip.0;
    let rule = o.t.cite(Cite::Differential);
    let changes: Vec<(WagerId, Money)> =
        o.t.state
            .coup
            .wagers
            .iter()
            .filter(|w| w.bet == side)
            .map(|w| {
                let scaled = (w.amount.0 as i128 * target as i128 / big as i128) as i64;
                (w.id, Money(scaled / chip * chip))
            })
            .collect();
    for (id, to) in changes {
        if to.0 == 0 {
            o.emit(Event::WagerReturned { wager: id, rule: rule.clone() });
        } else {
            o.emit(Event::WagerReduced { wager: id, to, rule: rule.clone() });
        }
    }
}
