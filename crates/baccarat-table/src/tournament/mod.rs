//! Tournament play (NSW 15): a session at one table (`session.rs`), and the
//! tournament around it (`bracket.rs`): seating by draw, rounds, who
//! advances, play-offs, final placings and prizes.

mod bracket;
mod session;

pub use bracket::{RoundEnd, Tournament};
pub use session::{commitment, Action, Seat, SeatResult, Session, SessionRules};
