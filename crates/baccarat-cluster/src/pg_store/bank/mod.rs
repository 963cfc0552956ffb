//! The bank: players' money shared by every server of one PostgreSQL casino
//! (issue 14), so that tables owned by different servers can take wagers from
//! one wallet without any of them ever spending money it does not have.
//!
//! # Design, and why
//!
//! A server's ledger (`ledger/`) keeps a wallet's balance in memory and its
//! single writer checks every hold against it: that is what makes a wager's
//! hold cost microseconds. Two servers cannot both do that for one wallet,
//! since neither sees the other's holds. A conditional update on the wallet's
//! row in each server's commit would catch an overdraft, but only after the
//! writer had already taken the wager into its engine and its batch.
//!
//! So a wallet is split the way a casino splits a player's money between the
//! cage and the chips on a table (and an online operator between its wallet
//! and a game server's "transfer wallet"):
//!
//! * **The bank** (this module) holds each player's money that no table
//!   holds, in one row per player (`baccarat_bank.wallets`), which the
//!   database keeps at or above zero (a `CHECK`, and a conditional update).
//! * **An allotment** moves money from the bank to one *partition* (a set of
//!   tables one server owns, under one lease): the bank's row goes down and
//!   the partition's position for that player goes up, in one transaction
//!   that also proves the partition's lease epoch (the fencing token). The
//!   partition's own ledger then holds that money in the player's wallet
//!   there, and its writer takes holds against it as today, with no round
//!   trip. Two partitions can never both spend one chip: the bank's row is
//!   the only place they take money from, and it refuses to go below zero.
//! * **A return** moves money back: the wallet's row goes up, the
//!   partition's position down. A position is the net of what the partition
//!   took and gave back for that player, and goes below zero when the player
//!   takes winnings home: a partition pays winners out of its own house money.
//!   So the bank cannot tell an honest return of winnings from money a
//!   dishonest server made up; what shows that is the partition's own chain,
//!   whose coups `verify` replays against the rules, and its ledger's account
//!   at the bank, which must mirror its positions.
//! * **Deposits and withdrawals** at the cage change the bank's row only; a
//!   withdrawal, like an allotment, is refused rather than overdraw. A
//!   server makes a deposit at its partition's cage: in the partition's own
//!   commit, which records it (`caged`) in the partition's chain.
//!
//! **What pins the bank's chain.** The bank has no anchor file of its own:
//! every move a server makes is recorded in a partition's chain, which that
//! partition's anchor file signs (an allotment by the bank's record number
//! and hash; a deposit and a return by reference, in the same transaction).
//! So a forger who edits a move, or rewrites the chain from an edit on,
//! hashes and all, changes a record some partition's anchored chain names;
//! and one who appends a move of his own (a deposit minting money) has made
//! it at no partition's cage, or at one whose chain does not record it.
//! [`verify::check_partition`] names both; the bank is checked whole by
//! checking every partition.
//!
//! Every move is a record of the bank's own SHA-256 chain (`audit::Chain`),
//! written in the same transaction as the balances it changes, so
//! [`verify`](verify::verify) recomputes every wallet and every position from
//! the chain and compares. Every move carries an idempotency reference: a
//! retry with the same reference and the same move answers the first
//! record, and the same reference with another move is refused.
//!
//! Moves are serialised by a lock on the chain's head row: the chain needs one
//! order. A partition asks for all of a batch's short players at once, with
//! headroom, and keeps a playing player's money (`link.rs`,
//! `casino/bank_side.rs`), so moves are far fewer than wagers.
//!
//! # Where it is used, and what it does not do yet
//!
//! `serve --partition NAME` serves one partition (`casino/bank_side.rs`, the
//! writer's side in [`link`]); `verify --partition` checks the bank
//! ([`verify`]) and the partition's books against it. (A casino without
//! partitions cashes players out at its cage, `casino/cage.rs`; a
//! partition's server refuses a cash-out, naming why: the player's money
//! is at the bank, and a withdrawal there, which the bank may refuse, would
//! have to be made before the partition's writer answers, as a deposit's
//! read is (`link.rs`), not in its commit after. The bank's withdrawal is
//! there for that route when it is built.)
//! A player's money at the bank shows in `/api/me` at a partition's server
//! ([`wallet_in`]).

use serde::Serialize;

pub mod limits;
pub mod link;
mod moves;
pub mod verify;

pub use moves::{make_in, wallet_in, Bank, Made};

/// The bank's schema, apart from any partition's.
pub const SCHEMA: &str = "baccarat_bank";

/// The bank's migrations, in order (their version in `baccarat_bank.version`).
const MIGRATIONS: &[&str] = &[
    // 1: wallets, positions, the chain of moves and its head.
    "CREATE TABLE baccarat_bank.wallets (player BIGINT PRIMARY KEY,
       balance BIGINT NOT NULL CHECK (balance >= 0));
     CREATE TABLE baccarat_bank.positions (partition TEXT NOT NULL, player BIGINT NOT NULL,
       amount BIGINT NOT NULL, PRIMARY KEY (partition, player));
     CREATE TABLE baccarat_bank.log (seq BIGINT PRIMARY KEY, ref TEXT NOT NULL UNIQUE,
       partition TEXT, prev TEXT NOT NULL, body TEXT NOT NULL, hash TEXT NOT NULL,
       at TIMESTAMPTZ NOT NULL DEFAULT now());
     CREATE INDEX log_partition ON baccarat_bank.log (partition, seq) WHERE partition IS NOT NULL;
     CREATE TABLE baccarat_bank.head (one BOOLEAN PRIMARY KEY DEFAULT true CHECK (one),
       seq BIGINT NOT NULL, hash TEXT NOT NULL);
     INSERT INTO baccarat_bank.head (seq, hash) VALUES (0, repeat('0', 64));",
    // 2: players' own limits, shared by the partitions (`limits.rs`).
    "CREATE TABLE baccarat_bank.limits (seq BIGINT PRIMARY KEY, player BIGINT NOT NULL,
       partition TEXT NOT NULL, body TEXT NOT NULL, at TIMESTAMPTZ NOT NULL DEFAULT now());
     CREATE TABLE baccarat_bank.limits_head (one BOOLEAN PRIMARY KEY DEFAULT true CHECK (one),
       seq BIGINT NOT NULL);
     INSERT INTO baccarat_bank.limits_head (seq) VALUES (0);",
    // 3: each player's money gone out to tables each day, net of what came
    // back (never below zero): their loss limit across partitions.
    "CREATE TABLE baccarat_bank.days (player BIGINT NOT NULL, day BIGINT NOT NULL,
       net BIGINT NOT NULL CHECK (net >= 0), PRIMARY KEY (player, day));",
    // 4: the day's first allotment, from which a play-time limit counts.
    "ALTER TABLE baccarat_bank.days ADD COLUMN first_ms BIGINT;",
];

pub use baccarat_core::{cage_reference, LossDay, Move, MoveBody, MoveKind, MAX_REFERENCE};

/// Why the bank refused a move. Nothing of a refused move is written.
#[derive(Debug, thiserror::Error)]
pub enum BankError {
    /// A field of the move is not acceptable.
    #[error("{field}: {why}")]
    Invalid { field: &'static str, why: String },
    /// The wallet holds less than the move takes.
    #[error("player {player}: the bank holds {available}, less than the {asked} asked (nothing moved)")]
    Short { player: u32, available: i64, asked: i64 },
    /// The reference was used for another move.
    #[error("ref {0}: already used for another move")]
    Reused(String),
    /// The player's loss limit: the money gone out to tables today, net of
    /// what came back, would pass it.
    #[error("player {player}: {net} has gone out to tables today, net, against a loss limit of {limit} a day (nothing moved)")]
    Limited { player: u32, limit: i64, net: i64 },
    /// The partition's lease is no longer this server's.
    #[error("fenced: {0}")]
    Fenced(String),
    /// The database failed, or what it holds does not read.
    #[error("{0}")]
    Store(#[from] crate::store::StoreError),
}

impl From<crate::pg_store::ConnectError> for BankError {
    fn from(e: crate::pg_store::ConnectError) -> BankError {
        BankError::Store(e.into())
    }
}

impl From<postgres::Error> for BankError {
    fn from(e: postgres::Error) -> BankError {
        BankError::Store(crate::pg_store::pg_error(e))
    }
}

/// Check a move's fields before anything is asked of the database.
pub fn check(m: &Move) -> Result<(), BankError> {
    let invalid = |field, why: &str| Err(BankError::Invalid { field, why: why.to_string() });
    if m.amount <= 0 {
        return invalid("amount", "must be above zero (minor units)");
    }
    if m.reference.is_empty() || m.reference.len() > MAX_REFERENCE {
        return invalid("ref", "must be 1 to 200 bytes");
    }
    match m.loss_day {
        Some(_) if !m.kind.has_position() => return invalid("loss_day", "only an allotment or a return counts"),
        Some(LossDay { limit: Some(_), .. }) if m.kind != MoveKind::Allot => {
            return invalid("loss_day", "only an allotment is held to a limit")
        }
        Some(LossDay { limit: Some(l), .. }) if l <= 0 => return invalid("loss_day", "a limit is above zero"),
        Some(LossDay { day, .. }) if day > i64::MAX as u64 => return invalid("loss_day", "no such day"),
        Some(LossDay { at_ms: Some(_), .. }) if m.kind != MoveKind::Allot => {
            return invalid("loss_day", "only an allotment has a time")
        }
        Some(LossDay { day, at_ms: Some(at), .. }) if at / crate::casino::self_limits::DAY_MS != day => {
            return invalid("loss_day", "its time is not in its day")
        }
        _ => {}
    }
    match &m.partition {
        None if m.kind.has_position() => invalid("partition", "an allotment or a return names its partition"),
        None => Ok(()),
        Some(p) => crate::pg_store::partition_name(p)
            .map(|_| ())
            .map_err(|why| BankError::Invalid { field: "partition", why: why.to_string() }),
    }
}

/// One partition of a casino, as `baccarat partitions` lists it: where its
/// server is, so a client can be sent there.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PartitionInfo {
    pub name: String,
    /// Its lease: the instance holding it, where it serves, its epoch, and
    /// whether it is unexpired (none if no server has served it yet).
    pub instance: Option<String>,
    pub url: Option<String>,
    pub epoch: Option<i64>,
    pub live: bool,
    /// A server of the partition's own (its instance) asking for the lease
    /// (`pg_store::Claim::Home`): from a guest holding it, a hand-back under
    /// way. None if no one asks, or the holder is the asker.
    pub asked_by: Option<String>,
    /// Its tables (ids are the partition's own).
    pub tables: Vec<u32>,
    /// What it holds of players' money from the bank, net.
    pub allotted: i64,
}

/// Every partition of the casino at `url` (the casino's URL, or any of its
/// partitions'), by name, from one snapshot.
pub fn partitions(url: &str) -> Result<Vec<PartitionInfo>, BankError> {
    let mut c = crate::pg_store::connect_client(url)?;
    list(&mut c, true)
}

/// Every partition of the casino `c` is connected to, by name, from one
/// snapshot; what each holds from the bank only if `money` (it sums a row
/// per player: a route needs only where each partition is served).
pub fn list(c: &mut postgres::Client, money: bool) -> Result<Vec<PartitionInfo>, BankError> {
    use crate::pg_store::PARTITION_SCHEMA;
    let mut tx =
        c.build_transaction().isolation_level(postgres::IsolationLevel::RepeatableRead).read_only(true).start()?;
    let names = crate::pg_store::partition_names(&mut tx)?;
    let bank: bool =
        money && tx.query_one("SELECT to_regclass('baccarat_bank.positions') IS NOT NULL", &[])?.get::<_, bool>(0);
    let mut out = Vec::new();
    for name in names {
        let schema = format!("{PARTITION_SCHEMA}{name}");
        // A schema made but not yet migrated (its first server is starting)
        // has no tables yet: it is listed, served by no one.
        let migrated: bool = tx.query_one("SELECT to_regclass($1) IS NOT NULL", &[&format!("{schema}.leases")])?.get(0);
        let lease = match migrated {
            true => tx.query_opt(
                // (Who asks, read so that a schema a server has not yet
                // migrated to the asking's columns is listed too.)
                &format!(
                    "SELECT owner, url, epoch, expires_at > now(),
                       CASE WHEN (to_jsonb(l) ->> 'wanted_until')::timestamptz > now()
                         THEN NULLIF(to_jsonb(l) ->> 'wanted_by', '') END
                     FROM {schema}.leases l WHERE tbl = $1"
                ),
                &[&i64::from(crate::pg_store::CASINO_LEASE)],
            )?,
            false => None,
        };
        let tables: Vec<u32> = match migrated {
            true => tx
                .query(&format!("SELECT id FROM {schema}.tables ORDER BY id"), &[])?
                .iter()
                .map(|r| r.get::<_, i64>(0) as u32)
                .collect(),
            false => Vec::new(),
        };
        let allotted: i64 = match bank {
            true => tx
                .query_one(
                    "SELECT COALESCE(SUM(amount), 0)::bigint FROM baccarat_bank.positions WHERE partition = $1",
                    &[&name],
                )?
                .get(0),
            false => 0,
        };
        let (instance, url, epoch, live, asked_by) = match lease {
            Some(r) => {
                let owner: String = r.get(0);
                let url: String = r.get(1);
                let asker: Option<String> = r.get(4);
                let asked_by = asker.filter(|a| *a != owner).map(|a| crate::pg_store::instance_of(&a).to_string());
                let instance = crate::pg_store::instance_of(&owner).to_string();
                (Some(instance), Some(url).filter(|u| !u.is_empty()), Some(r.get(2)), r.get(3), asked_by)
            }
            None => (None, None, None, false, None),
        };
        out.push(PartitionInfo { name, instance, url, epoch, live, asked_by, tables, allotted });
    }
    tx.commit()?;
    Ok(out)
}
