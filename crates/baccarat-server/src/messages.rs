//! What a table's WebSocket sends, as types (issue 46): the message a
//! viewer is sent after every durable change (`http/play.rs::message`) and
//! the pit's part of it (`http/staff.rs::pit_push`); and what a
//! tournament's sends (`http/tournament_play.rs::message`). Built from these
//! rather than patched into a JSON tree by string keys, so a field renamed
//! in a view cannot leave the message behind; the API document carries
//! their schemas (`TableMessage`, `PitPush`, `PitView`, `TournamentMessage`)
//! and tests check messages as sent against them.
//!
//! The deltas (`http/delta.rs`) are taken between messages as JSON, so the
//! push turns each into a tree once; the frames' numbering is in
//! `http/table_push.rs`.

use std::collections::BTreeMap;

use baccarat_casino::casino::tournament_view::PlayView;
use baccarat_casino::casino::tournaments::TournamentSummary;
use baccarat_casino::{CoupFeed, TableView, WagerLine};
use baccarat_rules::Money;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

/// A table's message: the table as the viewer may see it and what is
/// theirs, or only `{"table": null}` once the table is gone.
#[derive(Serialize, JsonSchema)]
#[serde(untagged)]
pub enum TableMessage {
    Seen(Box<Seen>),
    Gone(Gone),
}

/// The table is gone (closed for good since the socket opened).
#[derive(Serialize, JsonSchema)]
pub struct Gone {
    /// Always null.
    #[schemars(with = "Option<bool>", extend("enum" = [null]))]
    pub table: Option<bool>,
}

/// What one viewer sees of a table now.
#[derive(Serialize, JsonSchema)]
pub struct Seen {
    /// The table's view; a squeezing player sees their own hand's cards,
    /// and everyone the squeezing player's name.
    pub table: TableView,
    /// The coup's result once complete (as the coup's feed holds it).
    pub result: Option<baccarat_casino::CoupResult>,
    /// Why the coup was voided, if it was.
    pub void: Option<String>,
    /// A player's wallet and what their open wagers leave free of it; null
    /// for anyone else.
    pub balance: Option<Money>,
    pub available: Option<Money>,
    /// A player's own wagers in this coup; null for anyone else.
    pub mine: Option<Mine>,
    /// The server's clock (ms): the time left to wager counts from it.
    pub now_ms: u64,
    /// How long a player may hold a hand out at an RNG table before the
    /// dealer exposes it (NSW 8.15.2: the dealer turns over what the players
    /// have not exposed; the rulebook sets no time: `--squeeze-seconds`).
    pub squeeze_ms: u64,
    /// The pit's own data, for a dealer, supervisor or admin.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pit: Option<PitPush>,
}

/// A player's wagers in the coup.
#[derive(Serialize, JsonSchema)]
pub struct Mine {
    /// The coup's number; null before the table's first.
    pub coup: Option<u64>,
    pub wagers: Vec<WagerLine>,
}

/// What the pit console needs beyond the table, as it changes.
#[derive(Serialize, JsonSchema)]
pub struct PitPush {
    /// The coup's every wager, approvals among them.
    pub coup: CoupFeed,
    /// The wagers' players' names, by their ids.
    pub names: BTreeMap<String, String>,
    /// The rule-bearing events, newest first.
    pub notices: Vec<baccarat_casino::Notice>,
    /// The table's shoes.
    pub shoes: Vec<baccarat_casino::ShoeLine>,
    /// The squeeze's time, in seconds (as `squeeze_ms`).
    pub squeeze_seconds: u64,
}

/// `GET /api/tables/{id}/pit`: the push, the table and the rulebook's
/// rules with their text (which do not change), for a first load.
#[derive(Serialize, JsonSchema)]
pub struct PitView {
    #[serde(flatten)]
    pub push: PitPush,
    pub table: TableView,
    pub rules: Vec<RuleQuote>,
}

/// A rule the profile cites, with its text where the profile quotes it.
#[derive(Serialize, JsonSchema)]
pub struct RuleQuote {
    pub key: String,
    pub cite: String,
    pub quote: Option<String>,
}

impl TableMessage {
    /// As JSON, for the deltas between messages and the comparison of one
    /// with the last sent.
    pub fn tree(&self) -> Value {
        serde_json::to_value(self).expect("messages serialise")
    }
}

/// What a tournament's WebSocket sends after every durable change to it
/// (`http/tournament_play.rs::message`). Nothing in it is secret: the play
/// withholds what is (NSW 15.8).
#[derive(Serialize, JsonSchema)]
pub struct TournamentMessage {
    /// The tournament as listed (without its conditions' text).
    pub tournament: Option<TournamentSummary>,
    /// The play as `GET /api/tournaments/{id}/play` answers it, its players
    /// named; null before the start.
    pub play: Option<PlayView>,
    /// The server's clock (ms): the time left to wager counts from it.
    pub now_ms: u64,
}
