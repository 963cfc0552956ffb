//! Irregularities, all in one place: a card drawn in excess or out of turn
//! (NSW 12.2-12.3; AU 12.1-12.2; EU 4.3), cards found face up (NSW 12.3, 12.5;
//! AU 12.3-12.4), a missing or foreign card (NSW 12.11), a misdeal and its
//! reconstruction (NSW 12.1; AU 12.6; EU 4.2), a scanner that disagrees with
//! the cards (NSW 12.13), an invalidated game (NSW 14.4-14.5), a failed
//! shuffler (NSW 13), an interrupted coup, and cards passed to the wrong player
//! (NSW 12.15; AU 15.9; EU 5.1.7-5.1.8). Each remedy cites the table's own rule,
//! and where the rulebooks differ the profile's `[remedies]` chooses.

use baccarat_rules::Cite;
use baccarat_rules::{Card, Money, Settlement};

use super::deal::{card_in, positions};
use super::flow::{after_card, close_coup, end_shoe, void_coup};
use super::{Emit, Event, IrregularityKind, Phase, PlayerId, Position, Refusal, RefusalKind};

fn in_coup(o: &Emit) -> bool {
    matches!(o.t.state.phase, Phase::Betting | Phase::Closed | Phase::Dealing | Phase::Reconstruction)
}

/// NSW 12.13: confirm the actual cards, or void the coup.
pub fn scanner(o: &mut Emit, confirmed: Option<Vec<Card>>) -> Result<(), Refusal> {
    let rule = o.t.cite(Cite::ScannerDiscrepancy);
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
    // The reason is a citation key, parsed here at the command's edge.
    let key = match reason.as_deref() {
        None => Cite::Invalidated,
        Some(k) => match Cite::parse(k).filter(|c| o.t.rb().config.citations.contains_key(c.key())) {
            Some(c) => c,
            None => {
                return Err(Refusal::new(
                    o.t.cite(Cite::Invalidated),
                    format!("reason: {} cites no rule {k:?} to invalidate a game by", o.t.rb().id),
                ))
            }
        },
    };
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
    let rule = o.t.cite(Cite::ShufflerMalfunction);
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
    let rule = o.t.cite(Cite::WrongHand);
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

/// A card that arrives when none is due.
pub(super) fn excess(o: &mut Emit, card: Card, to: Option<Position>, face_up: bool) -> Result<(), Refusal> {
    if o.t.state.carried.is_some() {
        return Err(Refusal::new(
            o.t.cite(Cite::Misdeal),
            "a card is already held for the next coup; report a misdeal",
        ));
    }
    // An undisclosed Banker third card: the profile's remedy (NSW 12.3 a no-bet
    // coup; AU 12.2(a) the next round's first card, with wagers).
    let banker = &o.t.rb().config.remedies.undisclosed_banker_excess;
    let (kind, rule) = match (to, face_up) {
        (Some(Position::Player3), false) => {
            (IrregularityKind::PlayerThirdToNextCoup, o.t.cite(Cite::UnauthorisedPlayerThird))
        }
        (Some(Position::Player3), true) => {
            (IrregularityKind::PlayerThirdToNoBetCoup, o.t.cite(Cite::UnauthorisedPlayerThird))
        }
        (Some(Position::Banker3), false) => match banker.value {
            baccarat_rules::ExcessCard::NoBetCoup => (IrregularityKind::ExcessCardToNoBetCoup, banker.rule.clone()),
            baccarat_rules::ExcessCard::NextCoup => (IrregularityKind::ExcessCardToNextCoup, banker.rule.clone()),
        },
        (_, true) => (IrregularityKind::ExcessCardToNoBetCoup, o.t.cite(Cite::ExcessCard)),
        (_, false) => (IrregularityKind::ExcessCardToNextCoup, o.t.cite(Cite::ExcessCard)),
    };
    o.emit(Event::Irregularity { kind, card: Some(card), rule });
    Ok(())
}

/// A card found face up in a live shoe.
pub fn face_up_in_shoe(o: &mut Emit, card: Card) -> Result<(), Refusal> {
    if o.t.state.live.is_none() {
        return Err(Refusal::of(RefusalKind::ShuffledShoe, "only a live shoe can hold a face-up card"));
    }
    match o.t.state.phase {
        Phase::Dealing => {
            let rule = o.t.cite(Cite::FaceUpWithin);
            o.emit(Event::Irregularity { kind: IrregularityKind::FaceUpWithinCoup, card: Some(card), rule });
            card_in(o, card, None, true)
        }
        Phase::Ready | Phase::Betting | Phase::Closed => {
            if o.t.state.carried.is_some() {
                return Err(Refusal::new(
                    o.t.cite(Cite::Misdeal),
                    "a card is already held for the next coup; report a misdeal",
                ));
            }
            let rule = o.t.cite(Cite::FaceUpFirst);
            // Wagers on the coup that becomes a no-bet coup are returned whole.
            let ids: Vec<_> = o.t.state.coup.wagers.iter().map(|w| w.id).collect();
            if o.t.state.phase != Phase::Ready {
                for id in ids {
                    o.emit(Event::WagerReturned { wager: id, rule: rule.clone() });
                }
            }
            o.emit(Event::Irregularity {
                kind: IrregularityKind::FirstCardFaceUp,
                card: Some(card),
                rule: rule.clone(),
            });
            if o.t.state.phase != Phase::Ready {
                // This coup is now the no-bet coup that starts with the card.
                let coup = o.t.state.coup.number;
                o.emit(Event::CoupVoided { coup, rule: rule.clone() });
                o.emit(Event::CoupClosed { coup });
            }
            Ok(())
        }
        _ => Err(Refusal::new(o.t.cite(Cite::FaceUpFirst), "no shoe is in play")),
    }
}

/// A missing or foreign card (NSW 12.11): the coup is void and the decks are checked.
pub fn missing_or_foreign(o: &mut Emit, card: Option<Card>) -> Result<(), Refusal> {
    if matches!(o.t.state.phase, Phase::NoShoe | Phase::ShoeOver) {
        return Err(Refusal::new(o.t.cite(Cite::MissingOrForeign), "no shoe is in play"));
    }
    let rule = o.t.cite(Cite::MissingOrForeign);
    let kind = if card.is_some() { IrregularityKind::ForeignCard } else { IrregularityKind::MissingCard };
    o.emit(Event::Irregularity { kind, card, rule: rule.clone() });
    void_coup(o, rule.clone());
    end_shoe(o, format!("the remaining cards are removed and checked ({rule})"));
    Ok(())
}

/// A misdeal (NSW 12.1; AU 12.6): reconstruct, or void.
pub fn misdeal(o: &mut Emit, reconstructed: Option<Vec<Card>>) -> Result<(), Refusal> {
    if o.t.state.phase != Phase::Dealing {
        return Err(Refusal::new(
            o.t.cite(Cite::Misdeal),
            "a misdeal can be reported only while a coup is being dealt",
        ));
    }
    let rule = o.t.cite(Cite::Misdeal);
    match reconstructed {
        None => {
            o.emit(Event::Irregularity { kind: IrregularityKind::Misdeal, card: None, rule: rule.clone() });
            void_coup(o, rule);
            Ok(())
        }
        Some(cards) => {
            let mut dealt: Vec<Card> = o.t.state.coup.cards.iter().map(|c| c.card).collect();
            let mut given = cards.clone();
            dealt.sort();
            given.sort();
            if dealt != given {
                return Err(Refusal::new(rule, "a reconstruction must use exactly the cards dealt in this coup"));
            }
            if positions(&cards).len() != cards.len() {
                return Err(Refusal::new(rule, "in that order the coup would be complete before its last card"));
            }
            o.emit(Event::Irregularity { kind: IrregularityKind::Misdeal, card: None, rule: rule.clone() });
            o.emit(Event::Reconstructed { cards, rule });
            Ok(())
        }
    }
}

/// Resume after a reconstruction. If every wager was withdrawn the coup is
/// finished as a no-bet coup (NSW 12.1.1).
pub fn resume(o: &mut Emit) -> Result<(), Refusal> {
    if o.t.state.phase != Phase::Reconstruction {
        return Err(Refusal::new(o.t.cite(Cite::Misdeal), "no reconstruction is in progress"));
    }
    o.emit(Event::Resumed);
    after_card(o)
}
