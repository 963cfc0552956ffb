//! The folds of the events that change more than a field or two of the
//! [`State`], one method per event, called by [`Table::apply`](super::Table::apply)
//! (which a replay and a command both use). Each is called once per event of
//! its kind; the wager events, which come once per wager, stay inline there.

use baccarat_rules::{Bet, BurnProcedure, BySide, Card, CoupSummary, Money, Side};

use super::{
    count_live, road_entry, stack_to_shoe, CoupState, CoupWagers, DealtCard, IrregularityKind, LiveShoe, Phase,
    PlayerId, Position, State, TableSetup,
};
use crate::roads::Roads;
use crate::shoe::{Cut, Shoe};
use crate::shuffle::Seed;

/// The shoe a started shoe deals from: shuffled from its seed, or the stack
/// recorded as pre-shuffled, cut as recorded; `None` for a live shoe.
pub(super) fn shoe_in_play(
    setup: &TableSetup,
    seed: &Option<Seed>,
    preshuffled: &Option<Vec<Card>>,
    cut: Option<Cut>,
) -> Option<Shoe> {
    if let Some(seed) = seed {
        let (cards, _) = crate::shoe::shuffled(setup.config.decks, seed);
        Some(stack_to_shoe(cards, cut, &setup.rulebook))
    } else {
        preshuffled.as_ref().map(|cards| stack_to_shoe(cards.clone(), cut, &setup.rulebook))
    }
}

impl State {
    /// A new shoe: nothing of the last one carries over (its roads, cards,
    /// no-bet coups and cutting card), and the table is ready for a coup.
    pub(super) fn shoe_started(
        &mut self,
        shoe: u64,
        seed: Option<Seed>,
        continuous: bool,
        set: Option<u8>,
        live_decks: Option<u32>,
        in_play: Option<Shoe>,
    ) {
        self.set = set;
        self.continuous = continuous.then_some(seed).flatten();
        self.shoe_number = shoe;
        self.seed = seed;
        self.coups_left = None;
        self.carried = None;
        self.forced_no_bet = false;
        self.no_bet_coups_due = 0;
        self.roads = Roads::new();
        self.coup = CoupState::default();
        self.live = live_decks.map(|d| LiveShoe { decks: d, seen: vec![0; 52] });
        self.shoe = in_play;
        self.phase = Phase::Ready;
    }

    /// Cards burned, or three no-bet coups due in their place; a live shoe
    /// counts the burned cards as seen.
    pub(super) fn burned(&mut self, procedure: &BurnProcedure, cards: &[Card]) {
        if procedure == &BurnProcedure::ThreeNoBetCoups {
            self.no_bet_coups_due = 3;
        } else if let Some(shoe) = self.shoe.as_mut() {
            let _ = shoe.burn(*procedure, false);
        } else if let Some(l) = self.live.as_mut() {
            for c in cards {
                l.seen[c.index()] += 1;
            }
        }
    }

    /// The cutting card is out (NSW 4.9-4.10): the coups still to complete.
    pub(super) fn cutting_card_out(&mut self, coups_left: u8) {
        if let Some(shoe) = self.shoe.as_mut() {
            shoe.take_cutting_card();
        }
        self.coups_left = Some(coups_left);
    }

    /// The shoe is over: no shoe is in play until the next starts.
    pub(super) fn shoe_ended(&mut self) {
        self.phase = Phase::ShoeOver;
        self.shoe = None;
        self.live = None;
    }

    /// A coup opens for wagers: nothing of the last coup's hands, holders or
    /// settlement stays, and a card carried over is its first card.
    pub(super) fn betting_opened(&mut self, coup: u64, no_bet: bool, first_card: Option<Card>, closes_at: Option<u64>) {
        self.coup = CoupState { number: coup, no_bet, wagers: CoupWagers::default(), cards: Vec::new() };
        self.closes_at = closes_at;
        self.coup_number = coup;
        self.forced_no_bet = false;
        self.last_settled.clear();
        self.holder = BySide::default();
        self.out = None;
        self.declined.clear();
        if first_card.is_some() {
            self.carried = first_card;
        }
        self.phase = Phase::Betting;
    }

    /// A card dealt to `position`: the card carried over, else the shoe's
    /// next (a live shoe counts it as seen). An exposed card ends wagers
    /// reopened after the first card.
    pub(super) fn card_dealt(&mut self, position: Position, card: Card, face_up: bool) {
        if self.carried == Some(card) && self.coup.cards.is_empty() {
            self.carried = None;
        } else if let Some(shoe) = self.shoe.as_mut() {
            let _ = shoe.draw();
        } else if let Some(l) = self.live.as_mut() {
            l.seen[card.index()] += 1;
        }
        self.coup.cards.push(DealtCard { position, card, exposed: face_up });
        if face_up {
            self.late_wagers = false;
        }
        self.phase = Phase::Dealing;
    }

    /// An irregularity that carries a card to the next coup (NSW 12.2; AU
    /// 12.2(a)), or to a no-bet coup (NSW 12.3; AU 12.1(b), 12.2(b), 12.3).
    pub(super) fn irregularity(&mut self, kind: &IrregularityKind, card: Option<Card>) {
        match kind {
            IrregularityKind::PlayerThirdToNextCoup | IrregularityKind::ExcessCardToNextCoup => {
                self.carried = card;
                count_live(self, card);
            }
            IrregularityKind::PlayerThirdToNoBetCoup
            | IrregularityKind::ExcessCardToNoBetCoup
            | IrregularityKind::FirstCardFaceUp => {
                self.carried = card;
                self.forced_no_bet = true;
                count_live(self, card);
            }
            _ => {}
        }
    }

    /// The coup's result is recorded on the roads; its wagers are being
    /// settled until it closes.
    pub(super) fn coup_completed(&mut self, summary: &CoupSummary) {
        let cards: Vec<Card> = self.coup.cards.iter().map(|c| c.card).collect();
        let entry = road_entry(&cards, summary);
        self.roads.push(entry);
        self.completed = true;
    }

    /// The coup is over: a continuous shuffler takes its cards back, a no-bet
    /// coup and a coup after the cutting card are counted, and the table is
    /// ready for the next.
    pub(super) fn coup_closed(&mut self, coup: u64) {
        let s = self;
        s.completed = false;
        // AU 7.2: a continuous shuffler takes the coup's cards back.
        if let (Some(seed), Some(shoe)) = (&s.continuous, s.shoe.as_mut()) {
            let used: Vec<Card> = s.coup.cards.iter().map(|c| c.card).collect();
            shoe.return_cards(&used, &mut crate::shuffle::Stream::with_nonce(seed, coup));
        }
        if s.coup.no_bet && s.no_bet_coups_due > 0 {
            s.no_bet_coups_due -= 1;
        }
        if let Some(n) = s.coups_left.as_mut() {
            *n = n.saturating_sub(1);
        }
        s.seated.coup_closed(s.coup.no_bet);
        s.coup.cards.clear();
        s.coup.wagers.clear();
        s.withdrawals_open = false;
        // Wagers reopened after the first card (NSW 12.12; AU 15.10) are
        // for that coup only: none is taken between coups.
        s.late_wagers = false;
        s.phase = Phase::Ready;
    }

    /// A hand's cards are turned face up: none stays with a player, and
    /// wagers reopened after the first card end.
    pub(super) fn hand_exposed(&mut self, side: Side) {
        self.late_wagers = false;
        for c in self.coup.cards.iter_mut().filter(|c| c.position.is_player() == (side == Side::Player)) {
            c.exposed = true;
        }
        if self.out == Some(side) {
            self.out = None;
        }
    }

    /// A hand's cards pass to a player to squeeze (`to`), or back to the
    /// dealer (`None`).
    pub(super) fn hand_passed(&mut self, side: Side, to: Option<PlayerId>) {
        match side {
            Side::Player => self.holder.player = to,
            Side::Banker => self.holder.banker = to,
        }
        self.out = to.map(|_| side);
    }

    /// A nominee acts for `player` (AU 2.3), or none does any longer.
    pub(super) fn nominee_appointed(&mut self, player: PlayerId, nominee: Option<PlayerId>) {
        self.nominees.retain(|n| n.0 != player);
        if let Some(n) = nominee {
            self.nominees.push((player, n));
        }
    }

    /// A player's personal limits (NSW 6.8), in place of any before.
    pub(super) fn personal_limits_set(&mut self, player: PlayerId, min: Money, max: Money) {
        self.personal.retain(|p| p.0 != player);
        self.personal.push((player, min, max));
    }

    /// The announced minimum takes effect (NSW 6.7); the players named keep
    /// an earlier one (NSW 6.7.1).
    pub(super) fn minimum_changed(&mut self, minimum: Money, grandfathered: &[(PlayerId, Money)]) {
        self.minimum = Some(minimum);
        self.grandfathered = grandfathered.to_vec();
        self.announced = None;
    }

    /// A supervisor alters a wager's limits (NSW 6.7), in place of any before.
    pub(super) fn limits_changed(&mut self, bet: Bet, min: Money, max: Money) {
        self.limits.retain(|l| l.0 != bet);
        self.limits.push((bet, min, max));
    }
}
