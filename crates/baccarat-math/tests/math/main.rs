//! The odds crate's integration tests, one binary: a module per area.

mod brute_force;
mod count;
mod eor;
mod fast_path;
mod fast_report;
mod monte_carlo;
mod published;
mod rng_evidence;
mod simulate;
