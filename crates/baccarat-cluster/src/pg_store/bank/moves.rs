//! The bank's moves, each one transaction: the partition's fence, the chain's
//! head locked, the reference looked up, the balances changed under their
//! conditions, and the move's record appended (design in `bank/mod.rs`).

use postgres::{Client, Transaction};

use super::{check, BankError, LossDay, Move, MoveBody, MoveKind, MIGRATIONS, SCHEMA};
use crate::audit::{Chain, Record};
use crate::pg_store::Lease;
use crate::store::StoreError;

/// A move the bank made (or had made before, for a retry).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Made {
    pub record: Record,
    pub body: MoveBody,
    /// The reference had been used for this very move: this is the first
    /// answer again, and nothing moved now.
    pub replayed: bool,
}

/// A connection to the bank.
pub struct Bank {
    client: Client,
}

impl Bank {
    /// Connect to the casino's database at `url` and make the bank's schema
    /// where it is missing.
    pub fn connect(url: &str) -> Result<Bank, BankError> {
        let mut client = crate::pg_store::connect_client(url)?;
        migrate(&mut client)?;
        Ok(Bank { client })
    }

    /// Make `m`, under `fence` (the partition's lease, for an allotment or a
    /// return, checked in the same transaction): the move's record, or why it
    /// was refused, with nothing written.
    pub fn make(&mut self, m: &Move, fence: Option<&Lease>) -> Result<Made, BankError> {
        let mut tx = self.client.transaction()?;
        let made = make_in(&mut tx, m, fence)?;
        tx.commit()?;
        Ok(made)
    }

    /// Make several moves in one transaction (one commit, one fsync), each
    /// under `fence`: each move's record or why it was refused. A refused
    /// move writes nothing, and the others go on; a move refused as
    /// [`BankError::Short`] is made again for what the wallet holds, if
    /// anything (`partial`). A failure of the database (or the fence)
    /// refuses them all.
    pub fn make_all(&mut self, moves: &[Move], fence: Option<&Lease>, partial: bool) -> Vec<Result<Made, BankError>> {
        let mut tx = match self.client.transaction() {
            Ok(tx) => tx,
            Err(e) => return moves.iter().map(|_| Err(BankError::Store(StoreError::Pg(e.to_string())))).collect(),
        };
        let mut out = Vec::with_capacity(moves.len());
        for m in moves {
            let made = match make_in(&mut tx, m, fence) {
                Err(BankError::Short { available, .. }) if partial && available > 0 => {
                    make_in(&mut tx, &Move { amount: available, ..m.clone() }, fence)
                }
                Err(BankError::Limited { limit, net, .. }) if partial && limit > net => {
                    // As much as the limit leaves, and then what the bank holds.
                    match make_in(&mut tx, &Move { amount: limit - net, ..m.clone() }, fence) {
                        Err(BankError::Short { available, .. }) if available > 0 => {
                            make_in(&mut tx, &Move { amount: available, ..m.clone() }, fence)
                        }
                        other => other,
                    }
                }
                other => other,
            };
            // The transaction is spoilt, or no longer ours: nothing of it stands.
            match &made {
                Err(BankError::Fenced(why)) => {
                    return moves.iter().map(|_| Err(BankError::Fenced(why.clone()))).collect()
                }
                Err(BankError::Store(e)) => {
                    let why = e.to_string();
                    return moves.iter().map(|_| Err(BankError::Store(StoreError::Pg(why.clone())))).collect();
                }
                _ => {}
            }
            out.push(made);
        }
        if let Err(e) = tx.commit() {
            let why = e.to_string();
            return moves.iter().map(|_| Err(BankError::Store(StoreError::Pg(why.clone())))).collect();
        }
        out
    }

    /// A player's money at the bank (0 for a player it has never seen).
    pub fn wallet(&mut self, player: u32) -> Result<i64, BankError> {
        wallet_in(&mut self.client, player)
    }

    /// Player `player`'s money at the bank, and the move made under
    /// `reference` if the bank has made one, as of one moment (one
    /// statement's snapshot).
    pub fn wallet_and_move(&mut self, player: u32, reference: &str) -> Result<(i64, Option<MoveBody>), BankError> {
        let row = self.client.query_one(
            &format!(
                "SELECT COALESCE((SELECT balance FROM {SCHEMA}.wallets WHERE player = $1), 0)::bigint,
                        (SELECT body FROM {SCHEMA}.log WHERE ref = $2)"
            ),
            &[&(player as i64), &reference],
        )?;
        let body: Option<String> = row.get(1);
        let made = body
            .map(|b| serde_json::from_str(&b))
            .transpose()
            .map_err(|e| StoreError::Corrupt(format!("the bank's move under {reference:?}: unreadable: {e}")))?;
        Ok((row.get(0), made))
    }

    /// What partition `partition` holds of player `player`'s money.
    pub fn position(&mut self, partition: &str, player: u32) -> Result<i64, BankError> {
        let row = self.client.query_opt(
            &format!("SELECT amount FROM {SCHEMA}.positions WHERE partition = $1 AND player = $2"),
            &[&partition, &(player as i64)],
        )?;
        Ok(row.map_or(0, |r| r.get(0)))
    }

    /// The moves of `partition` after the bank's record `after`, in order: what
    /// a partition's recovery reads to learn of allotments it made but had not
    /// yet written in its own ledger when it stopped.
    pub fn moves_of(&mut self, partition: &str, after: u64) -> Result<Vec<(Record, MoveBody)>, BankError> {
        let rows = self.client.query(
            &format!("SELECT seq, prev, body, hash FROM {SCHEMA}.log WHERE partition = $1 AND seq > $2 ORDER BY seq"),
            &[&partition, &(after as i64)],
        )?;
        rows.iter()
            .map(|r| {
                let rec = crate::pg_store::record_of(r);
                let body = decode(&rec)?;
                Ok((rec, body))
            })
            .collect()
    }

    /// Run `f` on the connection: for tests that tamper as a forger would,
    /// and for [`verify`](super::verify::verify).
    pub fn with_client<T>(&mut self, f: impl FnOnce(&mut Client) -> T) -> T {
        f(&mut self.client)
    }
}

/// Make the bank's schema and bring it to the latest version, one migrator
/// at a time.
fn migrate(c: &mut Client) -> Result<(), BankError> {
    let mut tx = c.transaction()?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&crate::pg_store::BANK_MIGRATION_LOCK])?;
    tx.batch_execute(&format!(
        "CREATE SCHEMA IF NOT EXISTS {SCHEMA}; CREATE TABLE IF NOT EXISTS {SCHEMA}.version (version INTEGER NOT NULL)"
    ))?;
    let version: Option<i32> = tx.query_opt(&format!("SELECT version FROM {SCHEMA}.version"), &[])?.map(|r| r.get(0));
    if version.is_none() {
        tx.execute(&format!("INSERT INTO {SCHEMA}.version (version) VALUES (0)"), &[])?;
    }
    let version = version.unwrap_or(0) as usize;
    if version > MIGRATIONS.len() {
        return Err(StoreError::Corrupt(format!(
            "the bank's schema is version {version}, newer than this server's {}",
            MIGRATIONS.len()
        ))
        .into());
    }
    for (i, m) in MIGRATIONS.iter().enumerate().skip(version) {
        tx.batch_execute(m)?;
        tx.execute(&format!("UPDATE {SCHEMA}.version SET version = $1"), &[&((i + 1) as i32)])?;
    }
    tx.commit()?;
    Ok(())
}

/// A record's body, read.
pub(super) fn decode(r: &Record) -> Result<MoveBody, BankError> {
    serde_json::from_str(&r.body)
        .map_err(|e| StoreError::Corrupt(format!("the bank's record {}: unreadable: {e}", r.seq)).into())
}

/// Make `m` inside `tx` (a transaction of the bank's own, or a partition's
/// commit, which then makes its returns with its batch): nothing is written
/// unless the whole transaction commits, and a refusal writes nothing in it.
pub fn make_in(tx: &mut Transaction<'_>, m: &Move, fence: Option<&Lease>) -> Result<Made, BankError> {
    check(m)?;
    // An allotment or a return proves its partition's lease here. (A
    // deposit at a partition's cage is made in that partition's own commit,
    // which proves the lease itself when it has one.)
    if m.kind.has_position() {
        prove_lease(tx, m, fence)?;
    }
    let (seq, hash, made) = lock_head(tx, m)?;
    if let Some(made) = made {
        return Ok(made);
    }
    let player = m.player as i64;
    within_loss_limit(tx, m, player)?;
    let wallet = move_wallet(tx, m, player)?;
    let (position, day_first_ms) = count_position_and_day(tx, m, player)?;
    let body = MoveBody {
        bank: m.clone(),
        epoch: fence.filter(|_| m.kind.has_position()).map(|l| l.epoch),
        wallet,
        position,
        day_first_ms,
    };
    let mut chain = Chain::resume(seq as u64, &hash)
        .ok_or_else(|| StoreError::Corrupt(format!("the bank's head: {hash:?} is not a hash")))?;
    let record = chain.append(serde_json::to_string(&body).expect("a move serialises"));
    tx.execute(
        &format!(
            "WITH l AS (INSERT INTO {SCHEMA}.log (seq, ref, partition, prev, body, hash)
                 VALUES ($1, $2, $3, $4, $5, $6))
             UPDATE {SCHEMA}.head SET seq = $1, hash = $6"
        ),
        &[&(record.seq as i64), &m.reference, &m.partition, &record.prev, &record.body, &record.hash],
    )?;
    Ok(Made { record, body, replayed: false })
}

/// An allotment's or a return's partition still holds its lease, proved in
/// the move's transaction (the update locks the lease's row until it ends).
fn prove_lease(tx: &mut Transaction<'_>, m: &Move, fence: Option<&Lease>) -> Result<(), BankError> {
    let Some(l) = fence else {
        return Err(BankError::Invalid {
            field: "partition",
            why: "an allotment or a return is made under its partition's lease".into(),
        });
    };
    let held = tx.execute(
        "UPDATE leases SET tbl = tbl WHERE tbl = $1 AND owner = $2 AND epoch = $3",
        &[&(l.table.0 as i64), &l.owner, &l.epoch],
    )?;
    if held == 0 {
        return Err(BankError::Fenced(format!(
            "partition {}: this server ({}) no longer holds its lease (epoch {}); nothing moved",
            m.partition.as_deref().unwrap_or_default(),
            l.owner,
            l.epoch
        )));
    }
    Ok(())
}

/// The bank's chain head (number, hash), locked: one move at a time, in
/// the chain's order; and the move already made under this reference, if
/// any (a retry's first answer; another move under it is refused). (Each
/// statement from here is a round trip under the bank's one lock, which
/// every partition's moves wait for: they are as few as the move allows.)
fn lock_head(tx: &mut Transaction<'_>, m: &Move) -> Result<(i64, String, Option<Made>), BankError> {
    let head = tx.query_one(
        &format!(
            "SELECT h.seq, h.hash, l.seq, l.prev, l.body, l.hash FROM {SCHEMA}.head h
             LEFT JOIN {SCHEMA}.log l ON l.ref = $1 FOR UPDATE OF h"
        ),
        &[&m.reference],
    )?;
    let (seq, hash): (i64, String) = (head.get(0), head.get(1));
    if let Some(first) = head.get::<_, Option<i64>>(2) {
        let record = Record { seq: first as u64, prev: head.get(3), body: head.get(4), hash: head.get(5) };
        let body = decode(&record)?;
        if body.bank != *m {
            return Err(BankError::Reused(m.reference.clone()));
        }
        return Ok((seq, hash, Some(Made { record, body, replayed: true })));
    }
    Ok((seq, hash, None))
}

/// The day's money gone out to tables, net, against the loss limit: a
/// refusal writes nothing.
fn within_loss_limit(tx: &mut Transaction<'_>, m: &Move, player: i64) -> Result<(), BankError> {
    if let Some(LossDay { day, limit: Some(limit), .. }) = m.loss_day {
        let net: i64 = tx
            .query_opt(
                &format!("SELECT net FROM {SCHEMA}.days WHERE player = $1 AND day = $2"),
                &[&player, &(day as i64)],
            )?
            .map_or(0, |r| r.get(0));
        if net.saturating_add(m.amount) > limit {
            return Err(BankError::Limited { player: m.player, limit, net });
        }
    }
    Ok(())
}

/// The wallet's new balance. Only a debit of the wallet can be refused, and
/// it comes first: a refusal writes nothing, even inside a partition's own
/// transaction.
fn move_wallet(tx: &mut Transaction<'_>, m: &Move, player: i64) -> Result<i64, BankError> {
    if !m.kind.debits_wallet() {
        return Ok(tx
            .query_one(
                &format!(
                    "INSERT INTO {SCHEMA}.wallets AS w (player, balance) VALUES ($1, $2)
                 ON CONFLICT (player) DO UPDATE SET balance = w.balance + excluded.balance RETURNING balance"
                ),
                &[&player, &m.amount],
            )?
            .get(0));
    }
    let taken = tx.query_opt(
        &format!(
            "UPDATE {SCHEMA}.wallets SET balance = balance - $2 WHERE player = $1 AND balance >= $2 RETURNING balance"
        ),
        &[&player, &m.amount],
    )?;
    match taken {
        Some(r) => Ok(r.get(0)),
        None => {
            let available = tx
                .query_opt(&format!("SELECT balance FROM {SCHEMA}.wallets WHERE player = $1"), &[&player])?
                .map_or(0, |r| r.get(0));
            Err(BankError::Short { player: m.player, available, asked: m.amount })
        }
    }
}

/// The partition's position, and the day's count: out adds to it, back
/// takes from it, never below zero (money that came back from yesterday's
/// tables, or a win, buys no more than the limit today); the day's first
/// allotment is kept. One statement for both. The position after, and the
/// day's first allotment (for a move that gives its time).
fn count_position_and_day(
    tx: &mut Transaction<'_>,
    m: &Move,
    player: i64,
) -> Result<(Option<i64>, Option<u64>), BankError> {
    let change = if m.kind == MoveKind::Allot { m.amount } else { -m.amount };
    let partition = m.partition.as_ref().filter(|_| m.kind.has_position());
    let (day, at) = match m.loss_day {
        Some(LossDay { day, at_ms, .. }) => (Some(day as i64), at_ms.map(|t| t as i64)),
        None => (None, None),
    };
    let (position, first): (Option<i64>, Option<i64>) = if partition.is_some() || day.is_some() {
        let row = tx.query_one(
            &format!(
                "WITH pos AS (INSERT INTO {SCHEMA}.positions AS q (partition, player, amount)
                     SELECT $1::text, $2::bigint, $3::bigint WHERE $1::text IS NOT NULL
                     ON CONFLICT (partition, player) DO UPDATE SET amount = q.amount + excluded.amount
                     RETURNING amount),
                 days AS (INSERT INTO {SCHEMA}.days AS d (player, day, net, first_ms)
                     SELECT $2::bigint, $4::bigint, GREATEST($3::bigint, 0), $5::bigint WHERE $4::bigint IS NOT NULL
                     ON CONFLICT (player, day) DO UPDATE SET net = GREATEST(d.net + $3::bigint, 0),
                       first_ms = LEAST(d.first_ms, $5::bigint)
                     RETURNING first_ms)
                 SELECT (SELECT amount FROM pos), (SELECT first_ms FROM days)"
            ),
            &[&partition, &player, &change, &day, &at],
        )?;
        (row.get(0), row.get(1))
    } else {
        (None, None)
    };
    Ok((position, at.and(first).map(|f| f as u64)))
}

/// A player's money at the bank, on any connection to the casino (0 for a
/// player it has never seen).
pub fn wallet_in(c: &mut Client, player: u32) -> Result<i64, BankError> {
    let row = c.query_opt(&format!("SELECT balance FROM {SCHEMA}.wallets WHERE player = $1"), &[&(player as i64)])?;
    Ok(row.map_or(0, |r| r.get(0)))
}
