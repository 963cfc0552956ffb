//! Players' own limits, shared by every partition of a casino (responsible
//! gaming: `casino/self_limits.rs`).
//!
//! # Design, and why
//!
//! A player is one person at every partition: a cool-off set at one server
//! must stop their wagers at all of them, and a limit set at one is their
//! limit everywhere. Each partition's writer enforces the limits on every
//! wager from memory, as any casino does; what is shared is the *changes*.
//!
//! * A change asked at any partition's server (a `LimitsSet` or a
//!   `CoolOff` record, checked there as on any casino) is first appended to
//!   the bank's log of limits, [`share`], in the bank's one order (a lock on
//!   the log's head row, so a reader that has seen record `n` has seen every
//!   record before it).
//! * Every partition reads the log after the last record it took
//!   ([`shared_after`]): the asking server at once, every other with its next
//!   writer batch (at most every [`POLL_MS`]), and every server at its start.
//!   It records each change in its own chain, naming the log's record
//!   (`shared`), and folds it into its limits as its own (`Casino::adopt_limits`).
//!   So every partition applies the same changes in the same order, and
//!   its anchored chain says what it enforced and from when.
//! * What each folds is checked again, and a change's time (from which a
//!   looser limit waits a day) is taken no earlier than [`SKEW_MS`] before
//!   the partition's clock: a record written into the log by hand with an
//!   old time cannot loosen a limit at once.
//!
//! A cool-off set at one partition therefore stops wagers at another within
//! [`POLL_MS`] and that partition's next batch.
//!
//! **The day's loss across partitions.** Each partition counts the loss of
//! the wagers it takes against the limit, as any casino does. The bank also
//! counts, for each player and UTC day, the money gone out to tables (its
//! allotments) less what came back (its returns), never below zero: a
//! `days` row, changed in each move's own transaction and recounted by
//! `verify` from the moves' `loss_day`. An allotment for a player with a
//! loss limit names the limit, and the bank takes none past it (what the
//! limit leaves, in a batch); the partition then refuses the wager as the
//! limit's (`link.rs`). A player with a limit is allotted only what their
//! wagers lack, with no headroom, which would count against the limit at
//! every other partition until it came back. So what a player can lose in a
//! day across all partitions is their limit, and, at most, what a
//! partition still held for them when the day began (which that partition's
//! own count limits); a win brought back, or yesterday's money, buys no more
//! than the limit.
//!
//! **The day's minutes across partitions.** The bank also keeps each
//! player's first allotment of the day (`LossDay::at_ms`, the `days` row's
//! `first_ms`), and answers it with every allotment; the partition records
//! it (`allotted`'s `day_first_ms`) and counts a day it opens for the
//! player from it. A day a wager opens at a partition from money already
//! there (no allotment) goes into this log too, after the wager's batch
//! (`PlayDay`, `BankLink::share_days`): every other partition folds it like
//! a limit, within [`POLL_MS`] and its next batch, and counts the player's
//! minutes from the earliest start it knows. An earlier start only shortens
//! the minutes left, so a forged one can deny play, never extend it.

use postgres::Client;

use super::{BankError, SCHEMA};
use crate::audit::CasinoEvent;
use crate::store::StoreError;

/// How often a partition's writer reads the log of limits, at most (ms of
/// its clock); it reads it at once for a change asked of it.
pub const POLL_MS: u64 = 200;

pub use baccarat_core::SKEW_MS;

/// Append `e` (a `LimitsSet`, a `CoolOff`, or a day opened by a wager, a
/// `PlayDay`) to the bank's log of limits,
/// asked at partition `partition`: its record number.
pub fn share(c: &mut Client, partition: &str, e: &CasinoEvent) -> Result<u64, BankError> {
    let player = match e {
        CasinoEvent::LimitsSet { player, .. }
        | CasinoEvent::CoolOff { player, .. }
        | CasinoEvent::PlayDay { player, shared: None, .. } => player.0,
        _ => return Err(BankError::Invalid { field: "event", why: "only a player's own limits are shared".into() }),
    };
    let body = serde_json::to_string(e).expect("an event serialises");
    let mut tx = c.transaction()?;
    let seq: i64 = tx.query_one(&format!("UPDATE {SCHEMA}.limits_head SET seq = seq + 1 RETURNING seq"), &[])?.get(0);
    tx.execute(
        &format!("INSERT INTO {SCHEMA}.limits (seq, player, partition, body) VALUES ($1, $2, $3, $4)"),
        &[&seq, &(player as i64), &partition, &body],
    )?;
    tx.commit()?;
    Ok(seq as u64)
}

/// The log's records after `after`, in order (at most `limit`).
pub fn shared_after(c: &mut Client, after: u64, limit: i64) -> Result<Vec<(u64, CasinoEvent)>, BankError> {
    let rows = c.query(
        &format!("SELECT seq, body FROM {SCHEMA}.limits WHERE seq > $1 ORDER BY seq LIMIT $2"),
        &[&(after as i64), &limit],
    )?;
    rows.iter()
        .map(|r| {
            let (seq, body): (i64, String) = (r.get(0), r.get(1));
            let e = serde_json::from_str(&body).map_err(|e| {
                BankError::Store(StoreError::Corrupt(format!("the bank's limits record {seq}: unreadable: {e}")))
            })?;
            Ok((seq as u64, e))
        })
        .collect()
}
