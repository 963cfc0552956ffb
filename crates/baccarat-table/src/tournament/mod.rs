//! Tournament play (NSW 15): a session at one table (`session.rs`), and the
//! tournament around it (`bracket.rs`): seating by draw, rounds, who
//! advances, play-offs, final placings and prizes.

mod bracket;
mod play_action;
mod session;

pub use bracket::{RoundEnd, Tournament};
pub use play_action::{PlayAction, Stake};
pub use session::{commitment, Action, Seat, SeatResult, Session, SessionRules};
