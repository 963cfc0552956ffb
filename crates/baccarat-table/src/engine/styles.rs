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

use baccarat_rules::{DealingStyle, Side};

use super::{Emit, Position};

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

pub(super) fn side_of(p: Position) -> Side {
    if p.is_player() {
        Side::Player
    } else {
        Side::Banker
    }
}
