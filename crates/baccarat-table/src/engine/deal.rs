//! The shoe and the cards: starting a shoe, dealing, live card input and the
//! irregularities of NSW 12 and AU 12.

use baccarat_rules::{banker_draws, player_action, BurnProcedure, Card, PlayerAction, Settlement};

use super::{coup_of, totals, Emit, Event, IrregularityKind, Phase, Position, Refusal, ShoeSource};
use crate::shoe::{Cut, CutRules};
use crate::shuffle::{Seed, SHUFFLE_ALGORITHM};

/// The position due next for a coup with `cards` dealt, or `None` once the coup
/// is complete. NSW 7.3 and 9; AU 8.4 and 9.
pub fn due(cards: &[(Position, Card, bool)]) -> Option<Position> {
    if cards.len() < 4 {
        return Some(Position::INITIAL[cards.len()]);
    }
    let has = |p: Position| cards.iter().any(|c| c.0 == p);
    let (pt, bt) = initial_totals(cards);
    match player_action(pt, bt) {
        PlayerAction::Natural => None,
        PlayerAction::Stand => (banker_draws(bt, None) && !has(Position::Banker3)).then_some(Position::Banker3),
        PlayerAction::Draw => match cards.iter().find(|c| c.0 == Position::Player3) {
            None => Some(Position::Player3),
            Some(p3) => (banker_draws(bt, Some(p3.1.point())) && !has(Position::Banker3)).then_some(Position::Banker3),
        },
    }
}

fn initial_totals(cards: &[(Position, Card, bool)]) -> (u8, u8) {
    let initial: Vec<(Position, Card, bool)> =
        cards.iter().filter(|c| Position::INITIAL.contains(&c.0)).copied().collect();
    totals(&initial)
}

/// Assign cards in dealing order to the positions they are due at.
pub fn positions(cards: &[Card]) -> Vec<(Position, Card, bool)> {
    let mut out: Vec<(Position, Card, bool)> = Vec::new();
    for &c in cards {
        match due(&out) {
            Some(p) => out.push((p, c, true)),
            None => break,
        }
    }
    out
}

pub fn start_shoe(
    o: &mut Emit,
    source: ShoeSource,
    cut: Option<Cut>,
    burn: Option<BurnProcedure>,
    show_burn: bool,
) -> Result<(), Refusal> {
    let t = &*o.t;
    match t.phase() {
        super::Phase::NoShoe | Phase::Ready | Phase::ShoeOver => {}
        _ => return Err(Refusal::new("NSW 3.10", "the cards may be replaced only when no coup is in progress")),
    }
    if let Some(b) = burn {
        if !t.rb().procedures.burn.contains(&b) {
            return Err(Refusal::new(
                t.cite("burn"),
                format!("{} does not provide the burn {b:?}; it provides {:?}", t.rb().id, t.rb().procedures.burn),
            ));
        }
    }
    let decks = t.setup.config.decks;
    let rules = CutRules::from_profile(&t.rb().config);
    let continuous = matches!(source, ShoeSource::Continuous { .. });
    let set = match &source {
        ShoeSource::ShufflerSet { set, .. } => {
            let rule = t.cite("card_sets");
            if !t.rb().config.procedures.card_sets {
                return Err(Refusal::new(rule, "this rulebook does not use two sets of cards"));
            }
            if !(1..=2).contains(set) || t.state.set == Some(*set) {
                return Err(Refusal::new(rule, format!("the next shoe uses the other set, not set {set}")));
            }
            Some(*set)
        }
        _ => None,
    };
    let (seed, commitment, algorithm, preshuffled, live_decks) = match &source {
        ShoeSource::Shuffle { seed } | ShoeSource::Continuous { seed } | ShoeSource::ShufflerSet { seed, .. } => {
            let s = Seed::from_hex(seed).ok_or_else(|| Refusal::new("shuffle", "the seed must be 64 hex digits"))?;
            (Some(s.hex()), Some(s.commitment_hex()), Some(SHUFFLE_ALGORITHM.to_string()), None, None)
        }
        ShoeSource::PreShuffled { cards } => {
            let mut count = vec![0u32; 52];
            for c in cards {
                count[c.index()] += 1;
            }
            if let Some(i) = count.iter().position(|&n| n != decks) {
                let c = Card::from_index(i).expect("<52");
                return Err(Refusal::new(
                    t.cite("missing_or_foreign"),
                    format!(
                        "a pre-shuffled stack for {decks} decks holds each card {decks} times; {c} appears {} times",
                        count[i]
                    ),
                ));
            }
            (None, None, None, Some(cards.clone()), None)
        }
        ShoeSource::Live { decks: d } => {
            if *d != decks {
                return Err(Refusal::new(
                    t.rb().decks_rule.clone(),
                    format!("this table deals {decks} decks, not {d}"),
                ));
            }
            (None, None, None, None, Some(*d))
        }
    };
    if live_decks.is_none() {
        if let Some(c) = cut {
            rules.check(c, 52 * decks as usize).map_err(|e| Refusal::new(t.cite("cut"), e.to_string()))?;
        }
    }
    if matches!(t.phase(), Phase::Ready) {
        let shoe = t.state.shoe_number;
        o.emit(Event::ShoeEnded {
            shoe,
            seed: o.t.state.seed.clone(),
            reason: "the cards were replaced (NSW 3.10)".into(),
        });
    }
    let shoe = o.t.state.shoe_number + 1;
    let rule = o.t.cite("cut");
    let (cut, rule) = if continuous { (None, o.t.cite("shuffler")) } else { (cut, rule) };
    o.emit(Event::ShoeStarted {
        shoe,
        seed,
        commitment,
        algorithm,
        preshuffled,
        live_decks,
        continuous,
        set,
        cut,
        rule,
    });
    match burn {
        Some(BurnProcedure::ThreeNoBetCoups) => {
            let rule = o.t.cite("no_bet_coup");
            o.emit(Event::Burned { procedure: BurnProcedure::ThreeNoBetCoups, cards: vec![], shown: None, rule });
        }
        Some(b) => {
            if let Some(mut shoe) = o.t.state.shoe.clone() {
                let burned = shoe.burn(b, show_burn).map_err(|e| Refusal::new(o.t.cite("burn"), e.to_string()))?;
                let rule = o.t.cite("burn");
                o.emit(Event::Burned { procedure: b, cards: burned.cards, shown: burned.shown, rule });
            }
        }
        None => {}
    }
    Ok(())
}

/// Shuffled or pre-shuffled shoe: deal the card that is due.
pub fn deal_next(o: &mut Emit) -> Result<(), Refusal> {
    hand_out(o)?;
    let Some(pos) = o.t.due() else {
        return Err(Refusal::new(o.t.cite("wagers_closed"), "no card is due: close betting first"));
    };
    if o.t.state.live.is_some() {
        return Err(Refusal::new("live shoe", "a live shoe's cards come from the dealer's console or the scanner"));
    }
    if o.t.state.coup.cards.is_empty() {
        if let Some(c) = o.t.state.carried {
            let face_up = super::styles::dealt_face_up(o, pos);
            o.emit(Event::CardDealt { position: pos, card: c, face_up });
            return after_card(o);
        }
    }
    let shoe = o.t.state.shoe.as_ref().expect("a shoe is in play while dealing");
    if shoe.cutting_card_next() && o.t.state.coups_left.is_none() {
        let first = o.t.state.coup.cards.is_empty();
        let rule = o.t.cite(if first { "last_coup" } else { "cutting_card" });
        o.emit(Event::CuttingCardOut { coups_left: if first { 1 } else { 2 }, rule });
    }
    let shoe = o.t.state.shoe.as_ref().expect("shoe");
    match shoe.peek() {
        Some(card) => {
            let face_up = super::styles::dealt_face_up(o, pos);
            o.emit(Event::CardDealt { position: pos, card, face_up });
            after_card(o)
        }
        None => {
            let rule = o.t.cite("insufficient_cards");
            o.emit(Event::Irregularity { kind: IrregularityKind::InsufficientCards, card: None, rule: rule.clone() });
            void_coup(o, rule.clone());
            end_shoe(o, format!("no cards left ({rule})"));
            Ok(())
        }
    }
}

/// Refuse to deal while a hand is out with a player (NSW 8.13, 8.15.2; AU 8.16).
fn hand_out(o: &Emit) -> Result<(), Refusal> {
    match o.t.state.out {
        Some(side) => Err(Refusal::new(
            o.t.cite("dealing"),
            format!("the {side:?} hand is out with a player; it is exposed before another card is dealt"),
        )),
        None => Ok(()),
    }
}

/// After a card: pass or turn hands as the dealing style requires, and complete
/// the coup once nothing more is due and every card is face up.
pub(super) fn after_card(o: &mut Emit) -> Result<(), Refusal> {
    if o.t.state.phase != Phase::Dealing {
        return Ok(());
    }
    super::styles::after_deal(o);
    let all_up = o.t.state.coup.cards.iter().all(|c| c.2);
    if o.t.due().is_none() && o.t.state.out.is_none() && all_up {
        complete(o);
    }
    Ok(())
}

/// Result, settlement, and the end of the shoe if this was the last coup.
fn complete(o: &mut Emit) {
    let coup = coup_of(&o.t.state.coup.cards);
    let number = o.t.state.coup.number;
    o.emit(Event::CoupCompleted { coup: number, summary: coup.summary() });
    // NSW 8.20, 8.26: the designated player keeps the marker until the Banker loses.
    if let Some((_, seat)) = o.t.state.marker {
        if coup.winner() == baccarat_rules::Winner::Player {
            let rule = format!("{} (the Banker's hand lost)", o.t.cite("dealing"));
            o.emit(Event::MarkerReleased { from_seat: seat, rule });
        }
    }
    let cfg = &o.t.setup.config;
    let mut settled = Vec::new();
    for w in o.t.state.coup.wagers.iter() {
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
    for e in settled {
        o.emit(e);
    }
    close_coup(o);
}

pub(super) fn close_coup(o: &mut Emit) {
    let coup = o.t.state.coup.number;
    o.emit(Event::CoupClosed { coup });
    if o.t.state.coups_left == Some(0) {
        let rule = o.t.cite("last_coup");
        end_shoe(o, format!("the last coup is over ({rule})"));
    }
}

/// Void the coup in progress: every wager returned whole.
pub fn void_coup(o: &mut Emit, rule: String) {
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

fn end_shoe(o: &mut Emit, reason: String) {
    if o.t.state.phase == Phase::ShoeOver {
        return;
    }
    let shoe = o.t.state.shoe_number;
    let seed = o.t.state.seed.clone();
    o.emit(Event::ShoeEnded { shoe, seed, reason });
}

/// A card from a live shoe.
pub fn card_in(o: &mut Emit, card: Card, to: Option<Position>, face_up: bool) -> Result<(), Refusal> {
    let Some(live) = o.t.state.live.as_ref() else {
        return Err(Refusal::new("shuffled shoe", "this table deals from its own shuffled shoe; use deal_next"));
    };
    if live.seen[card.index()] >= live.decks {
        return missing_or_foreign(o, Some(card));
    }
    match o.t.state.phase {
        Phase::NoShoe | Phase::ShoeOver => Err(Refusal::new(o.t.cite("cut"), "no shoe is in play")),
        Phase::Reconstruction => {
            Err(Refusal::new(o.t.cite("misdeal"), "the coup is being reconstructed; resume it first"))
        }
        Phase::Ready => excess(o, card, to, face_up),
        Phase::Betting | Phase::Closed | Phase::Dealing => {
            hand_out(o)?;
            if o.t.state.phase == Phase::Betting {
                // NSW 5.4: the first card out closes the wagers.
                super::wagers::close(o)?;
            }
            if o.t.state.coup.cards.is_empty() {
                if let Some(c) = o.t.state.carried {
                    let up = super::styles::dealt_face_up(o, Position::Player1);
                    o.emit(Event::CardDealt { position: Position::Player1, card: c, face_up: up });
                }
            }
            let due = o.t.due().expect("a card is due while dealing");
            match to {
                None => {}
                Some(p) if p == due => {}
                Some(Position::Player3) if due == Position::Banker3 => {
                    let rule = o.t.cite("unauthorised_player_third");
                    o.emit(Event::Irregularity { kind: IrregularityKind::PlayerThirdToBanker, card: Some(card), rule });
                }
                Some(p) => {
                    return Err(Refusal::new(
                        o.t.cite("misdeal"),
                        format!("the card due is {due:?}, not {p:?}; if cards went out of order, report a misdeal"),
                    ));
                }
            }
            let _ = face_up; // the console's flag matters only for a card not due
            let up = super::styles::dealt_face_up(o, due);
            o.emit(Event::CardDealt { position: due, card, face_up: up });
            after_card(o)
        }
    }
}

/// A card that arrives when none is due.
fn excess(o: &mut Emit, card: Card, to: Option<Position>, face_up: bool) -> Result<(), Refusal> {
    if o.t.state.carried.is_some() {
        return Err(Refusal::new(o.t.cite("misdeal"), "a card is already held for the next coup; report a misdeal"));
    }
    // An undisclosed Banker third card: the profile's remedy (NSW 12.3 a no-bet
    // coup; AU 12.2(a) the next round's first card, with wagers).
    let banker = &o.t.rb().config.remedies.undisclosed_banker_excess;
    let (kind, rule) = match (to, face_up) {
        (Some(Position::Player3), false) => {
            (IrregularityKind::PlayerThirdToNextCoup, o.t.cite("unauthorised_player_third"))
        }
        (Some(Position::Player3), true) => {
            (IrregularityKind::PlayerThirdToNoBetCoup, o.t.cite("unauthorised_player_third"))
        }
        (Some(Position::Banker3), false) => match banker.value {
            baccarat_rules::ExcessCard::NoBetCoup => (IrregularityKind::ExcessCardToNoBetCoup, banker.rule.clone()),
            baccarat_rules::ExcessCard::NextCoup => (IrregularityKind::ExcessCardToNextCoup, banker.rule.clone()),
        },
        (_, true) => (IrregularityKind::ExcessCardToNoBetCoup, o.t.cite("excess_card")),
        (_, false) => (IrregularityKind::ExcessCardToNextCoup, o.t.cite("excess_card")),
    };
    o.emit(Event::Irregularity { kind, card: Some(card), rule });
    Ok(())
}

/// A card found face up in a live shoe.
pub fn face_up_in_shoe(o: &mut Emit, card: Card) -> Result<(), Refusal> {
    if o.t.state.live.is_none() {
        return Err(Refusal::new("shuffled shoe", "only a live shoe can hold a face-up card"));
    }
    match o.t.state.phase {
        Phase::Dealing => {
            let rule = o.t.cite("face_up_within");
            o.emit(Event::Irregularity { kind: IrregularityKind::FaceUpWithinCoup, card: Some(card), rule });
            card_in(o, card, None, true)
        }
        Phase::Ready | Phase::Betting | Phase::Closed => {
            if o.t.state.carried.is_some() {
                return Err(Refusal::new(
                    o.t.cite("misdeal"),
                    "a card is already held for the next coup; report a misdeal",
                ));
            }
            let rule = o.t.cite("face_up_first");
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
        _ => Err(Refusal::new(o.t.cite("face_up_first"), "no shoe is in play")),
    }
}

/// The cutting card came out of a live shoe.
pub fn live_cutting_card(o: &mut Emit) -> Result<(), Refusal> {
    if o.t.state.live.is_none() {
        return Err(Refusal::new("shuffled shoe", "the engine takes the cutting card out of its own shoe"));
    }
    if o.t.state.coups_left.is_some() {
        return Err(Refusal::new(o.t.cite("cutting_card"), "the cutting card is already out"));
    }
    let first = o.t.state.phase != Phase::Dealing;
    let rule = o.t.cite(if first { "last_coup" } else { "cutting_card" });
    o.emit(Event::CuttingCardOut { coups_left: if first { 1 } else { 2 }, rule });
    Ok(())
}

/// A missing or foreign card (NSW 12.11): the coup is void and the decks are checked.
pub fn missing_or_foreign(o: &mut Emit, card: Option<Card>) -> Result<(), Refusal> {
    if matches!(o.t.state.phase, Phase::NoShoe | Phase::ShoeOver) {
        return Err(Refusal::new(o.t.cite("missing_or_foreign"), "no shoe is in play"));
    }
    let rule = o.t.cite("missing_or_foreign");
    let kind = if card.is_some() { IrregularityKind::ForeignCard } else { IrregularityKind::MissingCard };
    o.emit(Event::Irregularity { kind, card, rule: rule.clone() });
    void_coup(o, rule.clone());
    end_shoe(o, format!("the remaining cards are removed and checked ({rule})"));
    Ok(())
}

/// A misdeal (NSW 12.1; AU 12.6): reconstruct, or void.
pub fn misdeal(o: &mut Emit, reconstructed: Option<Vec<Card>>) -> Result<(), Refusal> {
    if o.t.state.phase != Phase::Dealing {
        return Err(Refusal::new(o.t.cite("misdeal"), "a misdeal can be reported only while a coup is being dealt"));
    }
    let rule = o.t.cite("misdeal");
    match reconstructed {
        None => {
            o.emit(Event::Irregularity { kind: IrregularityKind::Misdeal, card: None, rule: rule.clone() });
            void_coup(o, rule);
            Ok(())
        }
        Some(cards) => {
            let mut dealt: Vec<Card> = o.t.state.coup.cards.iter().map(|c| c.1).collect();
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
        return Err(Refusal::new(o.t.cite("misdeal"), "no reconstruction is in progress"));
    }
    o.emit(Event::Resumed);
    after_card(o)
}
