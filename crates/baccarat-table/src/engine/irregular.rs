//! Irregularities a supervisor reports: a scanner that disagrees with the cards
//! (NSW 12.13), an invalidated game (NSW 14.4-14.5), a failed shuffler (NSW 13),
//! and cards passed to the wrong player (NSW 12.15; AU 15.9; EU 5.1.7-5.1.8).

use baccarat_rules::{Card, Money, Settlement};

use super::deal::{after_card, close_coup, positions, void_coup};
use super::{Emit, Event, IrregularityKind, Phase, PlayerId, Refusal};

fn in_coup(o: &Emit) -> bool {
    matches!(o.t.state.phase, Phase::Betting | Phase::Closed | Phase::Dealing | Phase::Reconstruction)
}

/// NSW 12.13: confirm the actual cards, or void the coup.
pub fn scanner(o: &mut Emit, confirmed: Option<Vec<Card>>) -> Result<(), Refusal> {
    let rule = o.t.cite("scanner_discrepancy");
    if o.t.state.phase != Phase::Dealing {
        return Err(Refusal::new(rule, "a scanner discrepancy is resolved while the coup is dealt, before settlement"));
    }
    o.emit(Event::Irregularity { kind: IrregularityKind::ScannerDiscrepancy, card: None, rule: rule.clone() });
    match confirmed {
        None => {
            void_coup(o, rule);
            Ok(())
        }
        Some(cards) => {
            if positions(&cards).len() != cards.len() || cards.len() < 4 {
                return Err(Refusal::new(rule, "the confirmed cards are not a coup in dealing order"));
            }
            o.emit(Event::Reconstructed { cards, rule });
            o.emit(Event::Resumed);
            after_card(o)
        }
    }
}

/// NSW 14.4-14.5: the outcome is invalidated; wagers are refunded, or forfeited
/// for the players named.
pub fn invalidate(o: &mut Emit, forfeit: Vec<PlayerId>, reason: Option<String>) -> Result<(), Refusal> {
    let key = reason.as_deref().unwrap_or("invalidated");
    if reason.is_some() && !o.t.rb().config.citations.contains_key(key) {
        return Err(Refusal::new(
            o.t.cite("invalidated"),
            format!("reason: {} cites no rule {key:?} to invalidate a game by", o.t.rb().id),
        ));
    }
    let rule = o.t.cite(key);
    if !in_coup(o) {
        return Err(Refusal::new(rule, "no coup is in progress"));
    }
    o.emit(Event::Irregularity { kind: IrregularityKind::Invalidated, card: None, rule: rule.clone() });
    let coup = o.t.state.coup.number;
    o.emit(Event::CoupVoided { coup, rule: rule.clone() });
    let wagers: Vec<_> = o.t.state.coup.wagers.iter().map(|w| (w.id, w.player, w.amount)).collect();
    for (id, player, amount) in wagers {
        let (settlement, pays) = if forfeit.contains(&player) {
            let s = Settlement {
                stake: amount,
                returned: Money::ZERO,
                lost: amount,
                won: Money::ZERO,
                commission: Money::ZERO,
                void: Money::ZERO,
            };
            (s, "forfeit")
        } else {
            (Settlement::void(amount), "void")
        };
        o.emit(Event::WagerSettled { wager: id, outcome: None, pays: pays.into(), settlement, ante: Money::ZERO });
    }
    close_coup(o);
    Ok(())
}

/// NSW 13: a disadvantaging failure ends the coup with wagers returned (13.4);
/// with another device the game simply continues (13.2-13.3); without one, each
/// player may take their wagers back and the coup is finished from a card shoe
/// (13.5).
pub fn shuffler(o: &mut Emit, disadvantage: bool, other_device: bool) -> Result<(), Refusal> {
    let rule = o.t.cite("shuffler_malfunction");
    if o.t.state.phase != Phase::Dealing {
        return Err(Refusal::new(rule, "NSW 13.1.2: the rule applies in a coup for which cards have been dealt"));
    }
    o.emit(Event::Irregularity { kind: IrregularityKind::ShufflerMalfunction, card: None, rule: rule.clone() });
    if disadvantage {
        void_coup(o, format!("{rule} (13.4)"));
    } else if !other_device {
        o.emit(Event::WithdrawalsOffered { rule: format!("{rule} (13.5.1)") });
    }
    Ok(())
}

/// The table system failed mid-coup and restarted from its record: recorded,
/// then the coup completes or is void by the profile's policy.
/// `void`: a supervisor voids it whatever the policy (the server stopped the
/// table because an invariant broke).
pub fn interrupted(o: &mut Emit, void: bool) -> Result<(), Refusal> {
    let p = &o.t.rb().config.procedures;
    let rule = p.interrupted_coup_rule.clone().unwrap_or_else(|| format!("{}: not stated", o.t.rb().id));
    let policy = p.interrupted_coup;
    if !matches!(o.t.state.phase, Phase::Closed | Phase::Dealing | Phase::Reconstruction) {
        return Err(Refusal::new(rule, "no coup is being dealt"));
    }
    o.emit(Event::Irregularity { kind: IrregularityKind::Interrupted, card: None, rule: rule.clone() });
    if void || policy == baccarat_rules::InterruptedCoup::Void {
        void_coup(o, rule);
    }
    Ok(())
}

/// Cards passed to the wrong player: the result stands (NSW 12.15; EU 5.1.7-5.1.8),
/// or, under AU 15.9, the operator may void the hand at a player's request.
pub fn wrong_hand(o: &mut Emit, void_hand: bool) -> Result<(), Refusal> {
    let rule = o.t.cite("wrong_hand");
    if o.t.state.phase != Phase::Dealing {
        return Err(Refusal::new(rule, "no hand is being dealt"));
    }
    let remedy = o.t.rb().config.remedies.wrong_hand_void.clone();
    let dealing = o.t.setup.config.dealing;
    if void_hand && !remedy.value.styles.contains(&dealing) {
        return Err(Refusal::new(remedy.rule, format!("the result stands: no hand is voided at a {dealing:?} table")));
    }
    o.emit(Event::Irregularity { kind: IrregularityKind::WrongHand, card: None, rule: rule.clone() });
    if void_hand && remedy.value.complete_round {
        // AU 15.9: the wagers are void, and the round is still dealt to its end.
        let ids: Vec<_> = o.t.state.coup.wagers.iter().map(|w| w.id).collect();
        for wager in ids {
            o.emit(Event::WagerReturned { wager, rule: remedy.rule.clone() });
        }
    } else if void_hand {
        void_coup(o, rule);
    }
    Ok(())
}
