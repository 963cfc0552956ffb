//! A player's hands and roles: exposing a hand held to squeeze, passing the
//! cards on, the Banker marker of Method C and nominees (NSW 8; AU 2.3, 8,
//! 15.3-15.4). Commands: each decides and then moves the coup on through
//! `flow.rs`.

use super::styles::{handling, Handling};
use super::{Emit, Event, Phase, PlayerId, Refusal};
use baccarat_rules::Cite;
use baccarat_rules::Side;

/// The holder (or the dealer) exposes a hand.
pub fn expose(o: &mut Emit, side: Side, player: Option<PlayerId>) -> Result<(), Refusal> {
    let rule = o.t.cite(Cite::Dealing);
    if o.t.state.out != Some(side) {
        return Err(Refusal::new(rule, format!("the {side:?} hand is not out to be exposed")));
    }
    let holder = o.t.state.holder.get(side).expect("a hand out has a holder");
    if player.is_some() && player != Some(holder) {
        return Err(Refusal::new(rule, "only the player holding the hand may expose it"));
    }
    o.emit(Event::HandExposed { side, by: player });
    super::flow::after_deal(o);
    super::flow::after_card(o)
}

/// The player offered the cards declines; they go to the next candidate.
pub fn decline(o: &mut Emit, player: PlayerId) -> Result<(), Refusal> {
    let rule = o.t.cite(Cite::Dealing);
    let Some(side) = o.t.state.out else {
        return Err(Refusal::new(rule, "no hand is out"));
    };
    if *o.t.state.holder.get(side) != Some(player) {
        return Err(Refusal::new(rule, "only the player offered the cards may decline them"));
    }
    o.emit(Event::CardsDeclined { side, player, rule });
    super::flow::pass(o, side);
    if o.t.state.out.is_none() {
        // No one else takes the cards: the dealer turned them (NSW 8.14; AU
        // 8.18), and the coup goes on as after any exposure — the other hand
        // is passed, or the coup completes. (It used to stop here, and a coup
        // with no card due stayed in Dealing for ever.)
        super::flow::after_deal(o);
        return super::flow::after_card(o);
    }
    Ok(())
}

/// Method C: accept the Banker marker (NSW 8.17-8.18).
pub fn take_marker(o: &mut Emit, player: PlayerId, seat: u8) -> Result<(), Refusal> {
    let rule = o.t.cite(Cite::Dealing);
    if handling(o.t.setup.config.dealing) != Handling::BankerMarker {
        return Err(Refusal::new(rule, "this table does not deal by Method C"));
    }
    if !matches!(o.t.phase(), Phase::Ready | Phase::Betting) {
        return Err(Refusal::new(rule, "the marker changes hands between coups"));
    }
    if o.t.state.marker.is_some() {
        return Err(Refusal::new(rule, "another player holds the Banker marker"));
    }
    if seat == 0 || seat as u32 > o.t.setup.config.layout.boxes {
        return Err(Refusal::new(rule, "NSW 8.2.1: the designated player must be seated"));
    }
    o.emit(Event::MarkerTaken { player, seat, rule });
    Ok(())
}

/// Method C: pass the marker on after a coup (NSW 8.19).
pub fn pass_marker(o: &mut Emit, player: PlayerId) -> Result<(), Refusal> {
    let rule = o.t.cite(Cite::Dealing);
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
    let rule = o.t.cite(Cite::Nominee);
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
