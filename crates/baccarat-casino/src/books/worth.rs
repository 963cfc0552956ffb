//! What each offered wager was worth when a coup's betting was open: its
//! exact EV, and its variance, from the cards the table had shown by then
//! (issue 50, parts 4 and 5).
//!
//! The ratings and the surveillance report price a wager as the exposure
//! monitor does (`exposure.rs`): from the unseen cards, which the table's
//! own events give ([`ShownCards`] folds them). Nothing is stored with the
//! wager: any reader of the chain computes the same figure, as `verify`
//! recomputes the day's books. A coup's [`Snapshot`] is taken as its
//! betting opens (or as a wager is placed, should a card be shown in
//! between), and priced once, lazily, when a wager or a session needs it.

use std::sync::{Arc, OnceLock};

use baccarat_math::Ratio;
use baccarat_rules::{Bet, Offer};
use baccarat_table::Event;

use crate::exposure::{price_offers, ShownCards};

/// One offer's worth from one pool of unseen cards, per unit staked.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Worth {
    pub bet: Bet,
    /// The player's exact expected net return.
    pub ev: Ratio,
    /// The variance of the net return (a statistic, not money: `f64`).
    pub var: f64,
}

/// The unseen cards at one moment, and their prices once asked for.
pub struct Snapshot {
    pub unseen: [u32; 52],
    worth: OnceLock<Vec<Worth>>,
}

impl Snapshot {
    pub fn new(unseen: [u32; 52]) -> Snapshot {
        Snapshot { unseen, worth: OnceLock::new() }
    }

    /// Every offer priced from this pool (empty when it cannot be).
    pub fn worth(&self, offers: &[Offer]) -> &[Worth] {
        self.worth.get_or_init(|| priced(offers, &self.unseen))
    }

    /// `bet`'s worth from this pool, if it is offered and can be priced.
    pub fn of(&self, offers: &[Offer], bet: Bet) -> Option<Worth> {
        self.worth(offers).iter().find(|w| w.bet == bet).copied()
    }

    /// The unseen cards by rank (A … K).
    pub fn ranks(&self) -> [u32; 13] {
        std::array::from_fn(|r| self.unseen[r * 4..r * 4 + 4].iter().sum())
    }
}

fn priced(offers: &[Offer], unseen: &[u32; 52]) -> Vec<Worth> {
    let Ok(p) = price_offers(offers, unseen) else { return Vec::new() };
    p.into_iter()
        .map(|(o, b)| {
            let m = b.ev_num as f64 / b.ev_den as f64;
            let m2 = b.ev2_num as f64 / b.ev2_den as f64;
            Worth { bet: o.bet, ev: Ratio::new(b.ev_num, b.ev_den), var: (m2 - m * m).max(0.0) }
        })
        .collect()
}

/// One table's knowledge as its chain is read: what it has shown, and the
/// snapshot of it wagers are priced from.
#[derive(Default)]
pub struct Known {
    shown: ShownCards,
    current: Option<Arc<Snapshot>>,
    /// The shoe in play (`ShoeStarted`), for the report's lines.
    pub shoe: u64,
}

impl Known {
    /// Fold the chain's next event.
    pub fn observe(&mut self, e: &Event) {
        if let Event::ShoeStarted { shoe, .. } = e {
            self.shoe = *shoe;
        }
        if self.shown.observe(e) {
            self.current = None;
        }
    }

    /// The table was configured again: its offers or decks may differ, so
    /// nothing priced before is reused.
    pub fn reconfigured(&mut self) {
        self.current = None;
    }

    /// The snapshot of what is known now, for a shoe of `decks` decks.
    pub fn now(&mut self, decks: u32) -> Arc<Snapshot> {
        let shown = &self.shown;
        self.current.get_or_insert_with(|| Arc::new(Snapshot::new(shown.unseen(decks)))).clone()
    }
}
