//! The cage (issue 47): chips out of a player's wallet (a cash-out), and
//! chips between the cage and a table's float (a fill, a credit).
//!
//! The rulebooks are silent on the cage: they govern the game at the table,
//! not how chips reach it or leave the casino. What is chosen here is what a
//! cage does on paper, in the ledger's terms:
//!
//! * **Each movement is a record and one transfer.** A record of the
//!   casino's chain (`CashedOut`, `Filled`, `Credited`, naming the amount,
//!   the client's key and the admin `by`) and one ledger transfer whose cause
//!   is that record ([`Cause::Cage`]), so `verify` finds a transfer without
//!   its record and a record without its transfer (`reconcile/`).
//! * **Idempotent by the client's key**, scoped to the route and the player
//!   or table (as a deposit's is): the same key with the same amount answers
//!   again and moves nothing (the balance as it now stands, as a deposit's
//!   retry answers); the key with another amount is refused
//!   (`idempotency`). A refusal binds no key and writes nothing, so the same
//!   key may be sent again once the refusal's cause is gone.
//! * **A cash-out takes only what is free**: the wallet's balance less the
//!   stakes its open wagers hold, the figures named when refused. The writer
//!   handles one request at a time, so a cash-out and a wager that together
//!   exceed the wallet cannot both be taken: whichever comes first is.
//! * **A credit leaves the float covering the coup**: the float less the
//!   credit must still cover the most the open wagers could win together,
//!   as a wager is checked against it (`float.rs`, `wager.rs`).
//! * **At a partition** of a PostgreSQL casino the players' money is at the
//!   bank, not here (`bank_side.rs`): a cash-out there would have to take it
//!   from the bank, which this casino does not do; it is refused, naming
//!   why. Fills and credits move the partition's own cage and floats, and
//!   are taken.

use baccarat_core::{TableId, UserId};
use baccarat_rules::{Money, MAX_LIMIT};
use baccarat_table::PlayerId;
use sha2::{Digest, Sha256};

use super::protocol::cage_key;
use super::{no_table, Casino, Code, Reply};
use crate::audit::CasinoEvent;
use crate::ledger::keys::IdempotencyKey;
use crate::ledger::{AccountKind, Cause, LedgerError, Op};
use crate::store::Commit;

/// Which way chips move at the cage: the route, in the key's scope and the
/// request's digest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CageMove {
    /// From a player's wallet to the cage.
    CashOut,
    /// From the cage to a table's float.
    Fill,
    /// From a table's float to the cage.
    Credit,
}

impl CageMove {
    /// The route's name, as keys and digests spell it.
    pub fn name(self) -> &'static str {
        match self {
            CageMove::CashOut => "cash-out",
            CageMove::Fill => "fill",
            CageMove::Credit => "credit",
        }
    }
}

/// What a request asks of the cage, checked and ready to apply.
struct Movement {
    key: String,
    request: [u8; 32],
    op: Op,
    event: CasinoEvent,
}

impl Casino {
    /// A cash-out: `amount` from `player`'s wallet to the cage, by admin
    /// `by`, under the client's `key` (module docs). The answer is the
    /// wallet's balance after it.
    pub(super) fn cash_out(
        &mut self,
        player: PlayerId,
        amount: Money,
        key: IdempotencyKey,
        by: UserId,
        commit: &mut Commit,
    ) -> Reply {
        if let Some(p) = &self.bank.partition {
            return Reply::refused(
                Code::Wallet,
                format!(
                    "this server serves partition {p}, whose players' money is at the bank: a cash-out is not made \
                     at a partition's cage"
                ),
            );
        }
        let ledger_key = cage_key(CageMove::CashOut, player.0, key.as_str());
        let request = digest(CageMove::CashOut, player.0, amount);
        let answer =
            |c: &Casino| Reply::CashOut { balance: c.balance(player).map_or(Money::ZERO, |b| b.0), cashed_out: amount };
        match self.cage_retried(&ledger_key, request, key.as_str()) {
            Some(Ok(())) => return answer(self),
            Some(Err(r)) => return r,
            None => {}
        }
        if let Err(r) = amount_ok(amount) {
            return r;
        }
        // The wallet is not opened for a refusal: it writes nothing.
        let wallet = self.ledger.find(&AccountKind::Wallet { player });
        let (balance, held) = wallet
            .and_then(|w| self.ledger.account(w))
            .map_or((Money::ZERO, Money::ZERO), |a| (Money(a.balance), Money(a.held)));
        let free = balance - held;
        let Some(wallet) = wallet.filter(|_| amount <= free) else {
            return Reply::refused(
                Code::Ledger,
                format!(
                    "cash-out {amount} is more than the {free} free in the wallet ({balance} less {held} in open wagers)"
                ),
            );
        };
        let op = Op::Transfer { debit: wallet, credit: self.cage, amount, memo: "cash-out".into() };
        let event = CasinoEvent::CashedOut { player, amount, key: key.into_string(), by, at_ms: (self.clock)() };
        match self.cage_move(Movement { key: ledger_key, request, op, event }, commit) {
            Ok(()) => answer(self),
            Err(r) => r,
        }
    }

    /// A fill (`CageMove::Fill`: cage to float) or a credit
    /// (`CageMove::Credit`: float to cage) of `amount` at `table`, by admin
    /// `by`, under the client's `key` (module docs). A credit that would
    /// leave the float short of what the open wagers could win is refused,
    /// naming both. The answer is the float after it.
    pub(super) fn fill_or_credit(
        &mut self,
        way: CageMove,
        table: TableId,
        amount: Money,
        key: IdempotencyKey,
        by: UserId,
        commit: &mut Commit,
    ) -> Reply {
        let Some(t) = self.tables.get(&table) else { return no_table(table) };
        let (house, liability) = (t.accounts.house, t.liability);
        let ledger_key = cage_key(way, table.0, key.as_str());
        let request = digest(way, table.0, amount);
        match self.cage_retried(&ledger_key, request, key.as_str()) {
            Some(Ok(())) => return Reply::Float { table, float: self.float_of(table) },
            Some(Err(r)) => return r,
            None => {}
        }
        if let Err(r) = amount_ok(amount) {
            return r;
        }
        // A closed table's float went back to the cage for good
        // (`closing.rs`): it takes no fill or credit after.
        if self.tables.get(&table).is_some_and(|t| t.closure == super::closing::Closure::Closed) {
            return Reply::refused(Code::Closed, format!("table {table} is closed for good: its float is at the cage"));
        }
        let (op, event) = match way {
            CageMove::Fill => (
                Op::Transfer { debit: self.cage, credit: house, amount, memo: format!("fill table {table}") },
                CasinoEvent::Filled { table, amount, key: key.into_string(), by, at_ms: (self.clock)() },
            ),
            CageMove::CashOut => return Reply::refused(Code::Engine, "a cash-out moves no table's float"),
            CageMove::Credit => {
                let float = self.float_of(table);
                let left = float - amount;
                if left < liability {
                    return Reply::refused(
                        Code::Float,
                        format!(
                            "credit {amount} would leave table {table}'s float at {left} (it is {float}), short of the \
                             {liability} its open wagers could win at best"
                        ),
                    );
                }
                (
                    Op::Transfer { debit: house, credit: self.cage, amount, memo: format!("credit table {table}") },
                    CasinoEvent::Credited { table, amount, key: key.into_string(), by, at_ms: (self.clock)() },
                )
            }
        };
        match self.cage_move(Movement { key: ledger_key, request, op, event }, commit) {
            Ok(()) => Reply::Float { table, float: self.float_of(table) },
            Err(r) => r,
        }
    }

    /// Table `table`'s float now: its house account's available balance,
    /// the figure a wager is checked against (`wager.rs`).
    pub fn float_of(&self, table: TableId) -> Money {
        let house = self.tables.get(&table).map(|t| t.accounts.house);
        Money(house.and_then(|h| self.ledger.account(h)).map_or(0, |a| a.available()))
    }

    /// Whether `ledger_key` answered before: `None`, a new request;
    /// `Some(Ok)`, the same request answered (answer it again, moving
    /// nothing); `Some(Err)`, the refusal to give (the key used for another
    /// amount, or the store unreadable).
    fn cage_retried(&mut self, ledger_key: &str, request: [u8; 32], key: &str) -> Option<Result<(), Reply>> {
        match self.ledger.bound(ledger_key) {
            Err(e) => Some(Err(e.into())),
            Ok(None) => None,
            Ok(Some((seen, _, _))) if seen != request => Some(Err(LedgerError::KeyReused(key.to_string()).into())),
            Ok(Some((_, answer, _))) => Some(answer.map(|_| ()).map_err(Reply::from)),
        }
    }

    /// Apply a checked movement: its transfer, caused by the record it is
    /// about to be, then the key bound to it, then the record. A transfer
    /// the ledger refuses binds no key and records nothing.
    fn cage_move(&mut self, m: Movement, commit: &mut Commit) -> Result<(), Reply> {
        let seq = self.chain.len() + 1;
        let cause = Cause::Cage { seq };
        let (answer, changes) = self.ledger.apply_internal(std::slice::from_ref(&m.op), cause);
        if let Err(e) = answer {
            return Err(e.into());
        }
        commit.ledger.push(changes);
        let bound = self.ledger.bind(&m.key, m.request, &answer, cause);
        commit.ledger.push(bound);
        let recorded = self.casino_event(m.event, commit);
        debug_assert_eq!(recorded, seq);
        Ok(())
    }
}

/// A movement's amount: whole minor units above zero, at most `MAX_LIMIT`
/// (the bound every amount of the API has).
fn amount_ok(amount: Money) -> Result<(), Reply> {
    if (1..=MAX_LIMIT).contains(&amount.0) {
        return Ok(());
    }
    Err(Reply::refused(Code::Ledger, format!("amount: {amount} is not between 0.01 and {}", Money(MAX_LIMIT))))
}

/// What a cage key is bound to: the route, the player or table, and the
/// amount (who asked is not part of it: another admin's retry is the same
/// request).
fn digest(way: CageMove, id: u32, amount: Money) -> [u8; 32] {
    Sha256::digest(format!("{}|{id}|{}", way.name(), amount.0)).into()
}
