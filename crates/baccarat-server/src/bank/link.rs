//! A partition's server and the bank, on the writer (`writer.rs`): before a
//! request is handled, a wager whose wallet here is short is funded from the
//! bank, and a deposit is made at the bank (the cage of a partitioned
//! casino). See `casino/bank_side.rs` for the partition's books.
//!
//! The bank is asked synchronously, on the writer: a transaction of a few
//! statements, only for a wager whose wallet here lacks money (a player's
//! first of a coup, since idle money goes back after each batch) and for a
//! deposit. Every other request is handled without it.

use baccarat_rules::Money;
use baccarat_table::engine::PlayerId;

use super::{Bank, BankError, Move, MoveKind};
use crate::casino::{Casino, Code, Reply, Request};
use crate::ledger::LedgerError;
use crate::pg_store::Lease;
use crate::store::Commit;

/// The writer's connection to the bank, for partition `partition`.
pub struct BankLink {
    bank: Bank,
    lease: Lease,
    partition: String,
    /// Allotments asked for by this server (their references).
    asked: u64,
}

impl BankLink {
    /// Connect to the bank through the partition's URL (its search path finds
    /// the partition's lease), writing under `lease`.
    pub fn connect(url: &str, partition: &str, lease: Lease) -> Result<BankLink, String> {
        let bank = Bank::connect(url).map_err(|e| format!("the bank: {e}"))?;
        Ok(BankLink { bank, lease, partition: partition.to_string(), asked: 0 })
    }

    /// The bank itself (a start reads the allotments it has not recorded).
    pub fn bank(&mut self) -> &mut Bank {
        &mut self.bank
    }

    /// Before `req` is handled: fund a wager from the bank, or answer a
    /// deposit (made at the bank) in its place.
    pub fn before(&mut self, casino: &mut Casino, req: &Request, commit: &mut Commit) -> Option<Reply> {
        match req {
            Request::Deposit { player, amount, key } => Some(self.deposit(casino, *player, *amount, key)),
            Request::Wager { player, amount, ante, .. } => {
                self.fund(casino, *player, *amount + *ante, commit);
                None
            }
            Request::Wagers { player, slip, .. } => {
                let need = slip.iter().fold(Money::ZERO, |m, l| m + l.amount + l.ante);
                self.fund(casino, *player, need, commit);
                None
            }
            _ => None,
        }
    }

    /// Chips in at the bank: the idempotency key is the bank's reference, so
    /// a retry answers the first deposit and the key with another amount is
    /// refused. The balance is the player's at the bank and here.
    fn deposit(&mut self, casino: &Casino, player: PlayerId, amount: Money, key: &str) -> Reply {
        let m = Move {
            kind: MoveKind::Deposit,
            player: player.0,
            amount: amount.0,
            partition: None,
            reference: format!("cage:{player}:{key}"),
        };
        match self.bank.make(&m, None) {
            Ok(made) => {
                let here = casino.balance(player).map_or(0, |b| b.0 .0);
                Reply::Deposit { balance: Money(made.body.wallet + here) }
            }
            Err(BankError::Reused(_)) => LedgerError::KeyReused(key.to_string()).into(),
            Err(BankError::Invalid { field, why }) => Reply::refused(Code::Wallet, format!("{field}: {why}")),
            Err(e) => Reply::refused(Code::Wallet, format!("the bank could not take the deposit: {e}")),
        }
    }

    /// Take from the bank what the wallet here lacks of `need` (all the bank
    /// holds, if that is less): the casino refuses the wager itself if it
    /// is still short.
    fn fund(&mut self, casino: &mut Casino, player: PlayerId, need: Money, commit: &mut Commit) {
        let have = casino.balance(player).map_or(Money::ZERO, |b| b.1);
        let mut ask = need.0 - have.0;
        while ask > 0 {
            self.asked += 1;
            let m = Move {
                kind: MoveKind::Allot,
                player: player.0,
                amount: ask,
                partition: Some(self.partition.clone()),
                reference: format!("{}:e{}:a{}", self.partition, self.lease.epoch, self.asked),
            };
            match self.bank.make(&m, Some(&self.lease)) {
                Ok(made) => {
                    let r = &made.record;
                    if let Err(e) = casino.allotted(player, Money(ask), r.seq, &r.hash, commit) {
                        eprintln!("bank: allotment {} not recorded here: {e}", r.seq);
                    }
                    return;
                }
                Err(BankError::Short { available, .. }) if available > 0 && available < ask => ask = available,
                Err(BankError::Short { .. }) => return,
                Err(BankError::Fenced(why)) => {
                    eprintln!("bank: {why}; stopping, since nothing more this server writes is accepted");
                    std::process::exit(75);
                }
                Err(e) => {
                    eprintln!("bank: no allotment for player {player}: {e}");
                    return;
                }
            }
        }
    }
}
