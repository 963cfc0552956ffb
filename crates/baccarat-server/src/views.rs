//! What the outside sees: a read model refreshed by the writer after each
//! durable batch. Cards appear only as the engine's public view shows them, so
//! nothing about the shoe leaks before a card is exposed.

use std::collections::HashMap;

use baccarat_rules::{Card, Money};
use baccarat_table::engine::{Phase, PlayerId, Position};
use serde::Serialize;

use crate::casino::Casino;

#[derive(Clone, Debug, Default, Serialize)]
pub struct TableView {
    pub id: u32,
    pub name: String,
    pub rulebook: String,
    pub variant: String,
    pub decks: u32,
    pub min: Money,
    pub max: Money,
    pub bets: Vec<String>,
    pub phase: String,
    pub shoe: u64,
    pub coup: u64,
    /// The coup's cards as everyone may see them (`null`: not exposed yet).
    pub cards: Vec<(Position, Option<Card>)>,
    /// The last result: "B", "P" or "T".
    pub last: Option<String>,
    /// The roads' raw results this shoe, as B/P/T.
    pub results: String,
    /// Cards dealt of the shoe, and its size.
    pub dealt: usize,
    pub shoe_size: usize,
    pub seed_commitment: Option<String>,
    /// Milliseconds since the epoch when betting closes, while it is open.
    pub closes_at_ms: Option<u64>,
}

/// The read model.
#[derive(Clone, Debug, Default)]
pub struct Views {
    pub tables: Vec<TableView>,
    pub balances: HashMap<PlayerId, (Money, Money)>,
    /// Batches committed so far.
    pub version: u64,
}

fn phase_name(p: Phase) -> &'static str {
    match p {
        Phase::NoShoe => "no_shoe",
        Phase::Ready => "ready",
        Phase::Betting => "betting",
        Phase::Closed => "no_more_bets",
        Phase::Dealing => "dealing",
        Phase::Reconstruction => "reconstruction",
        Phase::ShoeOver => "shoe_over",
    }
}

impl Views {
    /// Refresh from the casino (called on the writer thread after a commit).
    pub fn refresh(&mut self, c: &Casino, closes_at: &HashMap<u32, u64>) {
        self.version += 1;
        self.tables = c
            .tables
            .values()
            .map(|t| {
                let s = t.engine.state();
                let cfg = &t.engine.setup().config;
                let results: String = s.roads.entries().iter().map(|e| e.result.letter()).collect();
                let commitment = t.commitment.clone();
                TableView {
                    id: t.id,
                    name: t.name.clone(),
                    rulebook: t.engine.setup().rulebook.id.clone(),
                    variant: cfg.variant.id.clone(),
                    decks: cfg.decks,
                    min: cfg.min,
                    max: cfg.max,
                    bets: cfg.offers.iter().map(|o| o.bet.id().to_string()).collect(),
                    phase: phase_name(t.engine.phase()).into(),
                    shoe: s.shoe_number,
                    coup: s.coup_number,
                    cards: t.engine.view(None),
                    last: results.chars().last().map(|c| c.to_string()),
                    results,
                    dealt: t.engine.shoe_progress().map_or(0, |p| p.0),
                    shoe_size: t.engine.shoe_progress().map_or(52 * cfg.decks as usize, |p| p.1),
                    seed_commitment: commitment,
                    closes_at_ms: (t.engine.phase() == Phase::Betting).then(|| closes_at.get(&t.id).copied()).flatten(),
                }
            })
            .collect();
        self.balances = c
            .ledger
            .accounts()
            .filter_map(|a| match a.kind {
                crate::ledger::AccountKind::Wallet { player } => {
                    Some((player, (Money(a.balance), Money(a.available()))))
                }
                _ => None,
            })
            .collect();
    }
}
