//! A table's events checked against its rules: the shoe, the coups, the
//! wagers' outcomes and settlements.

use baccarat_core::TableId;
use std::collections::HashMap;

use baccarat_rules::{settle_wager, Card, CoupSummary, Money, Outcome, Settlement, TableConfig};
use baccarat_table::Seed;
use baccarat_table::{shuffled, Cut, CutRules, Shoe};
use baccarat_table::{DealtCard, Event, Position, Wager, WagerId};

/// A table's events against its rules, one at a time: the shoe as reshuffled
/// from its seed and cut, and the current coup (its wagers and cards). The
/// engine keeps a coup's wagers from its `BettingOpened` to the next, and
/// settles, reduces, withdraws and returns only those; so does this.
pub(super) struct TableRules {
    id: TableId,
    rb: baccarat_rules::Rulebook,
    cfg: TableConfig,
    /// The cards the shoe should deal next, for shuffled shoes.
    shoe: Option<Shoe>,
    wagers: HashMap<WagerId, Wager>,
    cards: Vec<(Position, Card)>,
    coup: Option<baccarat_rules::Coup>,
    closes_at: Option<u64>,
    pub(super) shoes: usize,
    pub(super) coups: usize,
    pub(super) settled: usize,
    pub(super) problems: Vec<String>,
}

impl TableRules {
    pub(super) fn new(id: TableId, rb: baccarat_rules::Rulebook, cfg: TableConfig) -> TableRules {
        TableRules {
            id,
            rb,
            cfg,
            shoe: None,
            wagers: HashMap::new(),
            cards: Vec::new(),
            coup: None,
            closes_at: None,
            shoes: 0,
            coups: 0,
            settled: 0,
            problems: Vec::new(),
        }
    }

    fn p(&mut self, seq: u64, what: String) {
        self.problems.push(format!("table {} record {seq}: {what}", self.id));
    }

    pub(super) fn feed(&mut self, seq: u64, e: &Event) {
        match e {
            Event::ShoeStarted { seed, commitment, preshuffled, cut, .. } => {
                self.shoe_started(seq, seed.as_ref(), commitment.as_deref(), preshuffled.as_deref(), cut.as_ref())
            }
            Event::Burned { procedure, cards: burned, .. } => {
                if let Some(s) = self.shoe.as_mut() {
                    match s.burn(*procedure, false) {
                        Ok(b) if b.cards == *burned => {}
                        _ => self.p(seq, "the burned cards are not the shoe's".into()),
                    }
                }
            }
            Event::CuttingCardOut { .. } => {
                if let Some(s) = self.shoe.as_mut() {
                    if !s.take_cutting_card() {
                        self.p(seq, "the cutting card came out where the cut did not put it".into());
                    }
                }
            }
            Event::BettingOpened { closes_at: close, .. } => {
                self.cards.clear();
                self.wagers.clear();
                self.coup = None;
                self.closes_at = *close;
            }
            Event::WagerPlaced { wager } => {
                if let (Some(close), Some(at)) = (self.closes_at, wager.at_ms) {
                    if at > close {
                        self.p(
                            seq,
                            format!("wager {} was accepted at {at} ms, after betting closed at {close} ms", wager.id),
                        );
                    }
                }
                self.wagers.insert(wager.id, wager.clone());
            }
            Event::WagerReduced { wager, to, .. } => {
                if let Some(w) = self.wagers.get_mut(wager) {
                    w.amount = *to;
                }
            }
            Event::CardDealt { position, card, .. } => self.card_dealt(seq, *position, *card),
            Event::Reconstructed { cards: rc, .. } => {
                self.cards = baccarat_table::positions_of(rc);
            }
            Event::CoupCompleted { summary, .. } => self.coup_completed(seq, summary),
            Event::WagerSettled { wager, outcome, settlement, .. } => {
                self.wager_settled(seq, *wager, outcome.as_ref(), settlement)
            }
            _ => {}
        }
    }

    /// A shoe started: reshuffled from its seed (which must match its
    /// published commitment), or its pre-shuffled stack, and cut as recorded
    /// where the rulebook allows that cut.
    fn shoe_started(
        &mut self,
        seq: u64,
        seed: Option<&Seed>,
        commitment: Option<&str>,
        preshuffled: Option<&[Card]>,
        cut: Option<&Cut>,
    ) {
        self.shoes += 1;
        self.shoe = None;
        let stack = match (seed, preshuffled) {
            // A malformed seed does not decode: the record is reported
            // unreadable where it is read.
            (Some(s), _) => {
                if commitment != Some(&s.commitment_hex()) {
                    self.p(seq, "the seed does not match its published commitment".into());
                }
                Some(shuffled(self.cfg.decks, s).0)
            }
            (None, Some(cards)) => Some(cards.to_vec()),
            _ => None,
        };
        if let Some(stack) = stack {
            self.shoe = match cut {
                Some(c) => match Shoe::cut(stack, *c, &CutRules::from_profile(&self.rb.config)) {
                    Ok(s) => Some(s),
                    Err(e) => {
                        self.p(seq, format!("recorded cut is not allowed: {e}"));
                        None
                    }
                },
                None => Some(Shoe::uncut(stack)),
            };
        }
    }

    /// A card dealt: the shuffled shoe's next, where the shoe is known.
    fn card_dealt(&mut self, seq: u64, position: Position, card: Card) {
        if let Some(s) = self.shoe.as_mut() {
            match s.draw() {
                baccarat_table::Draw::Card(c) if c == card => {}
                baccarat_table::Draw::Card(c) => self.p(seq, format!("dealt {card} where the shuffled shoe holds {c}")),
                baccarat_table::Draw::Empty => self.p(seq, "dealt a card from an empty shoe".into()),
            }
        }
        self.cards.push((position, card));
    }

    /// A coup completed: its cards, as dealt to their positions, make the
    /// recorded result under the tableau.
    fn coup_completed(&mut self, seq: u64, summary: &CoupSummary) {
        self.coups += 1;
        let positioned: Vec<DealtCard> =
            self.cards.iter().map(|(p, c)| DealtCard { position: *p, card: *c, exposed: true }).collect();
        match baccarat_table::coup_from_positions(&positioned) {
            Some(c) => {
                if c.summary() != *summary {
                    self.p(seq, format!("the cards make {:?}, not the recorded {:?}", c.summary(), summary));
                }
                self.coup = Some(c);
            }
            None => {
                self.p(seq, "the recorded cards are not a coup dealt by the tableau".into());
                self.coup = None;
            }
        }
    }

    /// A wager settled: its outcome the rules', its settlement the pay
    /// table's (without an ante), a void wager returned whole.
    fn wager_settled(&mut self, seq: u64, wager: WagerId, outcome: Option<&Outcome>, settlement: &Settlement) {
        self.settled += 1;
        let Some(w) = self.wagers.get(&wager) else {
            self.p(seq, format!("settles unknown wager {wager}"));
            return;
        };
        let mut found = Vec::new();
        match (outcome, &self.coup) {
            (Some(o), Some(c)) => {
                let want = w.bet.classify(c);
                if want != *o {
                    found.push(format!("wager {wager}: outcome {o}, the rules say {want}"));
                }
                if let Some(offer) = self.cfg.offer(w.bet) {
                    let s = settle_wager(w.amount, &offer.pay_table, want, &self.cfg.settle);
                    if self.cfg.ante.is_none() && s != *settlement {
                        found.push(format!("wager {wager}: settlement {settlement:?}, the pay table gives {s:?}"));
                    }
                }
            }
            (None, _) => {
                if settlement.returned + settlement.lost != w.amount || settlement.won != Money::ZERO {
                    found.push(format!("void wager {wager} is not returned whole"));
                }
            }
            (Some(_), None) => found.push(format!("wager {wager} settled without a result")),
        }
        for what in found {
            self.p(seq, what);
        }
    }
}
