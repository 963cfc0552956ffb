//! The game in time: the shoe and its procedures, the coup, and the roads.
//! Deterministic: randomness (a [`Seed`]) comes in as an input.
//!
//! The surface is the list below (issue 46: modules private, what others
//! use named once here). Two modules stay public as namespaces, because
//! their names read better with the module in front: `draw` (the
//! promotions' published drawing procedure: `draw::draw`, `draw::listing`)
//! and `tournament` (NSW 15's tournament play: `tournament::Session`,
//! `tournament::Action`).
//!
//! ```
//! use baccarat_table::{fresh, shuffled, Seed};
//!
//! // A six-deck shoe is 312 cards, and the same seed shuffles it the same way.
//! let cards = fresh(6);
//! assert_eq!(cards.len(), 312);
//! assert_eq!(shuffled(6, &Seed::from_u64(7)).0, shuffled(6, &Seed::from_u64(7)).0);
//! ```

mod chunks;
pub mod draw;
mod engine;
mod roads;
mod shoe;
mod shuffle;
pub mod tournament;

pub use chunks::{Chunks, CHUNK};
pub use engine::{
    coup_from_positions, handling, positions_of, Command, DealtCard, Event, Handling, IrregularityKind, Phase,
    PlayerId, Position, Refusal, RefusalKind, ShoeSource, Spot, State, Table, TableSetup, Wager, WagerId,
};
pub use roads::{lay_out, Board, Mark, RoadEntry, RoadResult, Roads, ShoeStats, DERIVED, ROWS};
pub use shoe::{fresh, shuffled, shuffled_from, Cut, CutRules, Draw, Shoe};
pub use shuffle::{hex, shuffle, shuffle_with, Seed, Stream, SHUFFLE_ALGORITHM};
