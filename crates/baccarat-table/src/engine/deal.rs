//! The shoe and the cards: starting a shoe, dealing the card due, and live
//! card input. What a card does to the coup is `flow.rs`'s; the
//! irregularities (NSW 12; AU 12; EU 4) are `irregular.rs`'s.

use baccarat_rules::Cite;
use baccarat_rules::{banker_draws, player_action, BurnProcedure, Card, PlayerAction};

use super::flow::{after_card, end_shoe, void_coup};
use super::{
    totals, DealtCard, Emit, Event, IrregularityKind, Phase, Position, Refusal, RefusalKind, ShoeSource, Table,
};
use crate::shoe::{Cut, CutRules};
use crate::shuffle::{Seed, SHUFFLE_ALGORITHM};

/// The position due next for a coup with `cards` dealt, or `None` once the coup
/// is complete. NSW 7.3 and 9; AU 8.4 and 9.
pub fn due(cards: &[DealtCard]) -> Option<Position> {
    if cards.len() < 4 {
        return Some(Position::INITIAL[cards.len()]);
    }
    let has = |p: Position| cards.iter().any(|c| c.position == p);
    let (pt, bt) = initial_totals(cards);
    match player_action(pt, bt) {
        PlayerAction::Natural => None,
        PlayerAction::Stand => (banker_draws(bt, None) && !has(Position::Banker3)).then_some(Position::Banker3),
        PlayerAction::Draw => match cards.iter().find(|c| c.position == Position::Player3) {
            None => Some(Position::Player3),
            Some(p3) => {
                (banker_draws(bt, Some(p3.card.point())) && !has(Position::Banker3)).then_some(Position::Banker3)
            }
        },
    }
}

fn initial_totals(cards: &[DealtCard]) -> (u8, u8) {
    let initial: Vec<DealtCard> = cards.iter().filter(|c| Position::INITIAL.contains(&c.position)).copied().collect();
    totals(&initial)
}

/// Assign cards in dealing order to the positions they are due at.
pub fn positions(cards: &[Card]) -> Vec<DealtCard> {
    let mut out: Vec<DealtCard> = Vec::new();
    for &c in cards {
        match due(&out) {
            Some(p) => out.push(DealtCard { position: p, card: c, exposed: true }),
            None => break,
        }
    }
    out
}

/// Start a shoe (NSW 3.10, 4; AU 6-7): every check first, in order (no coup
/// in progress, a burn the rulebook provides, the card set, the stack, the
/// cut), then the events: the last shoe ended, the new one started, its burn.
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
                t.cite(Cite::Burn),
                format!("{} does not provide the burn {b:?}; it provides {:?}", t.rb().id, t.rb().procedures.burn),
            ));
        }
    }
    let decks = t.setup.config.decks;
    let rules = CutRules::from_profile(&t.rb().config);
    let continuous = matches!(source, ShoeSource::Continuous { .. });
    let set = card_set(t, &source)?;
    let Provenance { seed, commitment, algorithm, preshuffled, live_decks } = provenance(t, &source, decks)?;
    if live_decks.is_none() {
        if let Some(c) = cut {
            rules.check(c, 52 * decks as usize).map_err(|e| Refusal::new(t.cite(Cite::Cut), e.to_string()))?;
        }
    }
    if matches!(t.phase(), Phase::Ready) {
        let shoe = t.state.shoe_number;
        o.emit(Event::ShoeEnded { shoe, seed: o.t.state.seed, reason: "the cards were replaced (NSW 3.10)".into() });
    }
    let shoe = o.t.state.shoe_number + 1;
    let rule = o.t.cite(Cite::Cut);
    let (cut, rule) = if continuous { (None, o.t.cite(Cite::Shuffler)) } else { (cut, rule) };
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
    burn_at_start(o, burn, show_burn)
}

/// The card set a shoe uses, where two are used in turn (AU 3.4(a)): set 1
/// or 2, and not the set of the shoe before.
fn card_set(t: &Table, source: &ShoeSource) -> Result<Option<u8>, Refusal> {
    Ok(match source {
        ShoeSource::ShufflerSet { set, .. } => {
            let rule = t.cite(Cite::CardSets);
            if !t.rb().config.procedures.card_sets {
                return Err(Refusal::new(rule, "this rulebook does not use two sets of cards"));
            }
            if !(1..=2).contains(set) || t.state.set == Some(*set) {
                return Err(Refusal::new(rule, format!("the next shoe uses the other set, not set {set}")));
            }
            Some(*set)
        }
        _ => None,
    })
}

/// Where a shoe's cards come from, as its `ShoeStarted` event records it.
struct Provenance {
    seed: Option<Seed>,
    commitment: Option<String>,
    algorithm: Option<String>,
    preshuffled: Option<Vec<Card>>,
    live_decks: Option<u32>,
}

/// The shoe's provenance: a seed and its commitment for a shuffle here; a
/// pre-shuffled stack that holds each card once per deck; a live shoe of the
/// table's deck count.
fn provenance(t: &Table, source: &ShoeSource, decks: u32) -> Result<Provenance, Refusal> {
    let (seed, commitment, algorithm, preshuffled, live_decks) = match source {
        ShoeSource::Shuffle { seed } | ShoeSource::Continuous { seed } | ShoeSource::ShufflerSet { seed, .. } => {
            (Some(*seed), Some(seed.commitment_hex()), Some(SHUFFLE_ALGORITHM.to_string()), None, None)
        }
        ShoeSource::PreShuffled { cards } => {
            let mut count = vec![0u32; 52];
            for c in cards {
                count[c.index()] += 1;
            }
            if let Some(i) = count.iter().position(|&n| n != decks) {
                let c = Card::from_index(i).expect("<52");
                return Err(Refusal::new(
                    t.cite(Cite::MissingOrForeign),
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
    Ok(Provenance { seed, commitment, algorithm, preshuffled, live_decks })
}

/// The burn that follows a new shoe: three no-bet coups due, or cards burned
/// from the shoe just started (a live shoe has no stack here to burn from).
fn burn_at_start(o: &mut Emit, burn: Option<BurnProcedure>, show_burn: bool) -> Result<(), Refusal> {
    match burn {
        Some(BurnProcedure::ThreeNoBetCoups) => {
            let rule = o.t.cite(Cite::NoBetCoup);
            o.emit(Event::Burned { procedure: BurnProcedure::ThreeNoBetCoups, cards: vec![], shown: None, rule });
        }
        Some(b) => {
            if let Some(mut shoe) = o.t.state.shoe.clone() {
                let burned = shoe.burn(b, show_burn).map_err(|e| Refusal::new(o.t.cite(Cite::Burn), e.to_string()))?;
                let rule = o.t.cite(Cite::Burn);
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
        return Err(Refusal::new(o.t.cite(Cite::WagersClosed), "no card is due: close betting first"));
    };
    if o.t.state.live.is_some() {
        return Err(Refusal::of(
            RefusalKind::LiveShoe,
            "a live shoe's cards come from the dealer's console or the scanner",
        ));
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
        let rule = o.t.cite(if first { Cite::LastCoup } else { Cite::CuttingCard });
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
            let rule = o.t.cite(Cite::InsufficientCards);
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
            o.t.cite(Cite::Dealing),
            format!("the {side:?} hand is out with a player; it is exposed before another card is dealt"),
        )),
        None => Ok(()),
    }
}

/// A card from a live shoe.
pub fn card_in(o: &mut Emit, card: Card, to: Option<Position>, face_up: bool) -> Result<(), Refusal> {
    let Some(live) = o.t.state.live.as_ref() else {
        // A stack whose order is recorded (shuffled here, or pre-shuffled:
        // NSW 1.1, 4.3; EU 2.1.1) is dealt in that order; no one names its cards.
        return Err(Refusal::of(
            RefusalKind::ShuffledShoe,
            "this shoe's order is recorded (shuffled here or pre-shuffled): deal_next deals its next card",
        ));
    };
    if live.seen[card.index()] >= live.decks {
        return super::irregular::missing_or_foreign(o, Some(card));
    }
    match o.t.state.phase {
        Phase::NoShoe | Phase::ShoeOver => Err(Refusal::new(o.t.cite(Cite::Cut), "no shoe is in play")),
        Phase::Reconstruction => {
            Err(Refusal::new(o.t.cite(Cite::Misdeal), "the coup is being reconstructed; resume it first"))
        }
        Phase::Ready => super::irregular::excess(o, card, to, face_up),
        Phase::Betting | Phase::Closed | Phase::Dealing => {
            hand_out(o)?;
            if o.t.state.phase == Phase::Betting {
                // NSW 5.4: the first card out closes the wagers.
                super::flow::close(o)?;
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
                    let rule = o.t.cite(Cite::UnauthorisedPlayerThird);
                    o.emit(Event::Irregularity { kind: IrregularityKind::PlayerThirdToBanker, card: Some(card), rule });
                }
                Some(p) => {
                    return Err(Refusal::new(
                        o.t.cite(Cite::Misdeal),
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

/// The cutting card came out of a live shoe.
pub fn live_cutting_card(o: &mut Emit) -> Result<(), Refusal> {
    if o.t.state.live.is_none() {
        return Err(Refusal::of(RefusalKind::ShuffledShoe, "the engine takes the cutting card out of its own shoe"));
    }
    if o.t.state.coups_left.is_some() {
        return Err(Refusal::new(o.t.cite(Cite::CuttingCard), "the cutting card is already out"));
    }
    let first = o.t.state.phase != Phase::Dealing;
    let rule = o.t.cite(if first { Cite::LastCoup } else { Cite::CuttingCard });
    o.emit(Event::CuttingCardOut { coups_left: if first { 1 } else { 2 }, rule });
    Ok(())
}
