//! `GET /api/tables/{id}/audit`'s answer (`http/staff.rs::audit`): the last
//! coups of a table step by step, read back from the audit chain, and the
//! table's voids after the cards were out, per person and per shoe.
//!
//! A record's command and event, and a void, are kept as the chain holds
//! them (JSON objects): the recall shows what was recorded, in the record's
//! own form, and `verify` is what checks it.

use std::collections::BTreeMap;

use baccarat_core::TableId;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};

/// The recall of a table.
#[derive(Serialize, JsonSchema)]
pub struct Recall {
    #[schemars(with = "u32")]
    pub table: TableId,
    pub coups: Vec<RecalledCoup>,
    pub voids: VoidReport,
}

/// One coup: what it was dealt under, and each record from its opening.
#[derive(Serialize, JsonSchema)]
pub struct RecalledCoup {
    pub coup: u64,
    /// The rulebook profile, its SHA-256 and the engine's version, as the
    /// coup's opening record names them.
    pub rulebook: Option<String>,
    pub rulebook_sha256: Option<String>,
    pub engine: Option<String>,
    pub records: Vec<RecalledRecord>,
}

/// One record of the chain: its place, its hash, who issued it, and what
/// happened (a shoe's seed withheld while the shoe is in play).
#[derive(Serialize, JsonSchema)]
pub struct RecalledRecord {
    pub seq: u64,
    pub hash: String,
    #[schemars(with = "Option<Map<String, Value>>")]
    pub by: Option<Value>,
    #[schemars(with = "Option<Map<String, Value>>")]
    pub event: Option<Value>,
}

/// The table's voids after the cards were out, and their counts by who
/// voided (`role id`, or `server`) and by shoe.
#[derive(Serialize, JsonSchema)]
pub struct VoidReport {
    #[schemars(with = "Vec<Map<String, Value>>")]
    pub list: Vec<Value>,
    pub by_person: BTreeMap<String, usize>,
    pub by_shoe: BTreeMap<u64, usize>,
}
