//! The shared bank's log lines (`bank/`): the moves its chain records, and
//! the few constants a partition's casino needs to fold them. Only the
//! vocabulary lives here, low enough for the store and the casino to name it;
//! the bank's logic (PostgreSQL, leases, the link) stays in `bank/`.

use serde::{Deserialize, Serialize};

/// What a move does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MoveKind {
    /// Money in at the cage: the wallet goes up.
    Deposit,
    /// Money out at the cage: the wallet goes down, never below zero.
    Withdrawal,
    /// From the bank to a partition: the wallet down, the position up.
    Allot,
    /// From a partition back to the bank: the position down, the wallet up.
    Return,
}

impl MoveKind {
    /// Whether it takes money out of the wallet's row.
    pub fn debits_wallet(self) -> bool {
        matches!(self, MoveKind::Withdrawal | MoveKind::Allot)
    }

    /// Whether it moves money between the bank and a partition (its
    /// position there changes). Such a move must name its partition; a
    /// deposit or a withdrawal names the partition whose cage made it.
    pub fn has_position(self) -> bool {
        matches!(self, MoveKind::Allot | MoveKind::Return)
    }
}

/// A move asked of the bank.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Move {
    pub kind: MoveKind,
    pub player: u32,
    /// Minor units, above zero.
    pub amount: i64,
    /// The partition it is allotted to or returned from; for a deposit or a
    /// withdrawal, the partition whose cage made it, in that partition's
    /// own transaction (`casino/bank_side.rs`). An allotment or a return is
    /// made under its partition's lease.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition: Option<String>,
    /// The idempotency reference: one move per reference, ever.
    #[serde(rename = "ref")]
    pub reference: String,
    /// An allotment's or a return's UTC day, by the partition's clock, and
    /// for an allotment the player's loss limit in force then: the bank
    /// counts each player's money gone out to tables each day, net of what
    /// came back, and takes no allotment past the limit (`limits.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss_day: Option<LossDay>,
}

/// A day's count of a player's money at tables, for their loss limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LossDay {
    /// Days since the epoch (UTC).
    pub day: u64,
    /// The loss limit in force (an allotment, for a player with one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<i64>,
    /// An allotment's time (ms, the partition's clock): the bank keeps the
    /// day's first, from which a play-time limit counts at every partition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_ms: Option<u64>,
}

/// A move as the bank's chain records it: what was asked, and what it left.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveBody {
    pub bank: Move,
    /// The lease epoch the partition proved (allotments and returns).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epoch: Option<i64>,
    /// The wallet's balance at the bank after the move.
    pub wallet: i64,
    /// The partition's position for the player after the move: what it
    /// took from the bank for them less what it gave back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<i64>,
    /// After an allotment with its time: the player's first allotment of
    /// that day, at any partition (`LossDay::at_ms`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub day_first_ms: Option<u64>,
}

/// The bank's reference for a deposit at partition `partition`'s cage under
/// idempotency key `key` (a server's deposit route, and the demo chips of a
/// first start). A key is one deposit at one partition: the same key sent
/// to two partitions' cages is two deposits, as at two cashiers' windows.
pub fn cage_reference(partition: &str, player: u32, key: &str) -> String {
    format!("cage:{partition}:{player}:{key}")
}

/// The longest idempotency reference taken.
pub const MAX_REFERENCE: usize = 200;

/// The oldest a shared change's time may be, against the partition's clock
/// when it folds the change: an older one is taken as of then less this.
pub const SKEW_MS: u64 = 60_000;
