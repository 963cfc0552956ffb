//! The game in time: the shoe and its procedures, the coup, and the roads.
//! Deterministic: randomness (a [`shuffle::Seed`]) comes in as an input.

pub mod chunks;
pub mod draw;
pub mod engine;
pub mod roads;
pub mod shoe;
pub mod shuffle;
pub mod tournament;
