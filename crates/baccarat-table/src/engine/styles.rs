//! Dealing styles: who handles each hand's cards and when each client sees them.
//!
//! * Face up (NSW Method A; AU Style A; the resort's and EU's face-up dealing):
//!   every card is dealt face up (NSW 8.6; AU 8.6). No-bet coups are always dealt
//!   this way (NSW 12.4).
//! * Dealer reveals (AU Style C): the four initial cards go face down and the
//!   dealer turns them over (AU 8.19); third cards face up (AU 9.7).
//! * Squeeze (NSW Method B; AU Style B and International Baccarat; the resort's
//!   squeezing; EU 5.1): after the initial deal the Player's hand goes face down to
//!   the seated player with the highest wager on it, then, once exposed, the
//!   Banker's hand likewise (NSW 8.8-8.13; AU 8.9-8.16); third cards the same way
//!   (NSW 8.16; AU 9.8). Equal wagers go by the profile's seat order (NSW 8.10 the
//!   seat nearest the dealer's right; AU 8.9(b) the lowest-numbered seat); a
//!   refusal passes the cards on; with no taker the dealer keeps the hand (NSW
//!   8.14; AU 8.18). The two hands are never out at once (NSW 8.13; AU 8.16).
//! * Banker marker (NSW Method C): the designated player receives the Banker's
//!   hand; the dealer keeps and turns the Player's (NSW 8.22-8.24). The marker is
//!   released when the Banker's hand loses, or passed on (NSW 8.19, 8.26).
//!
//! Seats are numbered from the dealer's left, so the seat nearest the dealer's
//! right is the highest-numbered one.

use baccarat_rules::{Bet, DealingStyle, SeatOrder, Side};

use super::{Emit, Event, Phase, PlayerId, Position, Refusal, Spot};

/// How a style handles the cards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handling {
    FaceUp,
    DealerReveals,
    Squeeze,
    BankerMarker,
}

pub fn handling(style: DealingStyle) -> Handling {
    use DealingStyle::*;
    match style {
        MethodA | StyleA | FaceUp => Handling::FaceUp,
        StyleC => Handling::DealerReveals,
        MethodB | StyleB | International | Squeeze | PlayersHoldCards => Handling::Squeeze,
        MethodC => Handling::BankerMarker,
    }
}

/// The handling in force for the coup in progress.
pub fn current(o: &Emit) -> Handling {
    if o.t.state.coup.no_bet {
        Handling::FaceUp
    } else {
        handling(o.t.setup.config.dealing)
    }
}

/// Whether a card goes out face up.
pub fn dealt_face_up(o: &Emit, position: Position) -> bool {
    match current(o) {
        Handling::FaceUp => true,
        Handling::DealerReveals => matches!(position, Position::Player3 | Position::Banker3),
        Handling::Squeeze | Handling::BankerMarker => false,
    }
}

fn side_of(p: Position) -> Side {
    if p.is_player() {
        Side::Player
    } else {
        Side::Banker
    }
}

fn hidden(o: &Emit, side: Side) -> bool {
    o.t.state.coup.cards.iter().any(|c| side_of(c.0) == side && !c.2)
}

/// The seated players to offer a hand to, best first (NSW 8.8-8.11; AU 8.9).
fn candidates(o: &Emit, side: Side) -> Vec<PlayerId> {
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
fn pass(o: &mut Emit, side: Side) {
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
    let rule = o.t.cite("dealing");
    o.emit(Event::HandPassed { side, to, rule });
    if to.is_none() {
        o.emit(Event::HandExposed { side, by: None });
    }
}

/// After a card: pass or turn hands as the style requires.
pub fn after_deal(o: &mut Emit) {
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

/// The holder (or the dealer) exposes a hand.
pub fn expose(o: &mut Emit, side: Side, player: Option<PlayerId>) -> Result<(), Refusal> {
    let rule = o.t.cite("dealing");
    if o.t.state.out != Some(side) {
        return Err(Refusal::new(rule, format!("the {side:?} hand is not out to be exposed")));
    }
    let holder = o.t.state.holder.get(side).expect("a hand out has a holder");
    if player.is_some() && player != Some(holder) {
        return Err(Refusal::new(rule, "only the player holding the hand may expose it"));
    }
    o.emit(Event::HandExposed { side, by: player });
    after_deal(o);
    super::deal::after_card(o)
}

/// The player offered the cards declines; they go to the next candidate.
pub fn decline(o: &mut Emit, player: PlayerId) -> Result<(), Refusal> {
    let rule = o.t.cite("dealing");
    let Some(side) = o.t.state.out else {
        return Err(Refusal::new(rule, "no hand is out"));
    };
    if *o.t.state.holder.get(side) != Some(player) {
        return Err(Refusal::new(rule, "only the player offered the cards may decline them"));
    }
    o.emit(Event::CardsDeclined { side, player, rule });
    pass(o, side);
    if o.t.state.out.is_none() {
        // No one else takes the cards: the dealer turned them (NSW 8.14; AU
        // 8.18), and the coup goes on as after any exposure — the other hand
        // is passed, or the coup completes. (It used to stop here, and a coup
        // with no card due stayed in Dealing for ever.)
        after_deal(o);
        return super::deal::after_card(o);
    }
    Ok(())
}

/// Method C: accept the Banker marker (NSW 8.17-8.18).
pub fn take_marker(o: &mut Emit, player: PlayerId, seat: u8) -> Result<(), Refusal> {
    let rule = o.t.cite("dealing");
    if handling(o.t.setup.config.dealing) != Handling::BankerMarker {
        return Err(Refusal::new(rule, "this table does not deal by Method C"));
    }
    if !matches!(o.t.phase(), Phase::Ready | Phase::Betting) {
        return Err(Refusal::new(rule, "the marker changes hands between coups"));
    }
    if o.t.state.marker.is_some() {
        return Err(Refusal::new(rule, "another player holds the Banker marker"));
    }
    if seat == 0 || seat as u32 > o.t.setup.layout.boxes {
        return Err(Refusal::new(rule, "NSW 8.2.1: the designated player must be seated"));
    }
    o.emit(Event::MarkerTaken { player, seat, rule });
    Ok(())
}

/// Method C: pass the marker on after a coup (NSW 8.19).
pub fn pass_marker(o: &mut Emit, player: PlayerId) -> Result<(), Refusal> {
    let rule = o.t.cite("dealing");
    match o.t.state.marker {
        Some((p, seat)) if p == player => {
            if !matches!(o.t.phase(), Phase::Ready | Phase::Betting) {
                return Err(Refusal::new(rule, "NSW 8.19: the role may be passed after a coup"));
            }
            o.emit(Event::MarkerReleased { from_seat: seat, rule });
            Ok(())
        }
        _ => Err(Refusal::new(rule, "this player does not hold the Banker marker")),
    }
}

/// AU 2.3: a nominee, announced by a supervisor, acts for one player at a time.
pub fn appoint_nominee(o: &mut Emit, player: PlayerId, nominee: Option<PlayerId>) -> Result<(), Refusal> {
    let rule = o.t.cite("nominee");
    if !o.t.rb().config.conduct.nominees {
        return Err(Refusal::new(rule, "this rulebook has no nominees"));
    }
    if let Some(n) = nominee {
        if n == player || o.t.state.nominees.iter().any(|x| x.1 == n && x.0 != player) {
            return Err(Refusal::new(rule, "AU 2.3(d): a nominee acts for one other player at a time"));
        }
    }
    if o.t.state.out.is_some() {
        return Err(Refusal::new(rule, "not while a hand is out"));
    }
    o.emit(Event::NomineeAppointed { player, nominee, rule });
    Ok(())
}
