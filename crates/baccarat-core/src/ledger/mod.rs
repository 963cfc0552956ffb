//! A double-entry ledger with holds, in the manner of TigerBeetle (DESIGN
//! principle 6).
//!
//! * Every transfer moves a positive amount from one account (debit) to another
//!   (credit), so the sum of all balances is always zero.
//! * A wager is a *pending* transfer (a hold) from the player's wallet to the
//!   table's escrow: the amount stays in the wallet's balance but is no longer
//!   available, so a player's money is never in two places. Settlement *posts* the
//!   hold, then pays out of escrow; a void coup *voids* the hold.
//! * Only the cage, which stands for money outside the system, may go negative.
//!   Every other account's available balance (balance less pending debits) stays at
//!   or above zero: a transfer that would break this is refused.
//! * A batch of operations applies whole or not at all, and carries an idempotency
//!   key: a retry with the same key and the same operations returns the first
//!   answer; the same key with different operations is refused.
//! * The invariants are checked after every batch on the accounts it touched (on
//!   write: their balance changes sum to zero and none is negative) and in full by
//!   [`Ledger::check`] (on read). A refused batch is undone from an undo log, so a
//!   batch costs in proportion to its own size, not the ledger's.
//!
//! # What it keeps in memory
//!
//! What is live, never what is history: the accounts, the open holds, and the
//! idempotency keys answered recently (`ledger/keys.rs` says which, and how older ones
//! within the retention window are found in the store). Every transfer and
//! every answer goes to the store with the batch that made it ([`Changes`]),
//! and memory forgets it.
//!
//! # Where it is
//!
//! * `mod.rs`: the [`Ledger`] itself and its core: accounts, open holds, and
//!   applying a batch's operations whole or not at all (the undo log, the
//!   write-time check).
//! * `batches.rs`: the ways a batch comes in, each reporting its [`Changes`]:
//!   under an idempotency key (the answers and keys), or as the server's own
//!   postings.
//! * `types.rs`: accounts, operations, transfers, refusals, and [`Changes`].
//! * `cause.rs`: [`Cause`], the audit record behind a transfer.
//! * `check.rs`: the read-time checks, [`Ledger::check`] and [`check_log`].

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use baccarat_rules::Money;

pub use crate::ledger::keys::{key_id, AnswerRow, KeyId, KeyMemory, DEFAULT_KEY_RETENTION_MS};

pub mod answered;
mod batches;
mod cause;
mod check;
pub mod keys;
#[cfg(test)]
mod tests;
mod types;

pub use self::cause::Cause;
pub use self::check::check_log;
pub use self::types::{
    Account, AccountId, AccountKind, Answer, Changes, LedgerError, Op, Transfer, TransferId, TransferKind,
};

/// The ledger's state.
#[derive(Clone, Debug)]
pub struct Ledger {
    accounts: BTreeMap<AccountId, Account>,
    /// Transfers of the batch in progress, until [`Changes`] takes them.
    fresh: Vec<Transfer>,
    /// The last transfer id given.
    last_transfer: TransferId,
    /// Open holds, whole (a settlement posts them; a check reads them).
    /// Shared with the checkpoint that copies them (`Casino::checkpoint`
    /// clones the map's `Arc`s, not 450,000 transfers and their memos: that
    /// copy had held the writer 30–60 ms under `loadgen`).
    pending: BTreeMap<TransferId, Arc<Transfer>>,
    /// The idempotency keys answered within the retention window (`ledger/keys.rs`).
    pub keys: KeyMemory,
    next_account: AccountId,
    /// Each account by what it is for (every wager looks up its wallet).
    by_kind: HashMap<AccountKind, AccountId>,
    /// Accounts opened since [`Ledger::take_opened`] was last called.
    opened: Vec<AccountId>,
    /// The cause of the batch being applied, written on each of its transfers.
    cause: Cause,
}

impl Default for Ledger {
    fn default() -> Ledger {
        Ledger {
            accounts: BTreeMap::new(),
            fresh: Vec::new(),
            last_transfer: TransferId(0),
            pending: BTreeMap::new(),
            keys: KeyMemory::default(),
            next_account: AccountId(0),
            by_kind: HashMap::new(),
            opened: Vec::new(),
            cause: Cause::None,
        }
    }
}

/// How to take back one change of a refused batch.
enum Undo {
    Account(Account),
    Added(TransferId),
    Removed(Arc<Transfer>),
}

/// Where a batch began: what a refusal rolls back to.
#[derive(Clone, Copy)]
struct Mark {
    fresh: usize,
    last: TransferId,
}

impl Ledger {
    pub fn new() -> Ledger {
        Ledger::default()
    }

    pub fn open(&mut self, kind: AccountKind) -> AccountId {
        if let Some(&id) = self.by_kind.get(&kind) {
            return id;
        }
        self.next_account.0 += 1;
        let id = self.next_account;
        self.by_kind.insert(kind.clone(), id);
        self.accounts.insert(id, Account { id, kind, balance: 0, held: 0 });
        self.opened.push(id);
        id
    }

    pub fn account(&self, id: AccountId) -> Option<&Account> {
        self.accounts.get(&id)
    }

    pub fn accounts(&self) -> impl Iterator<Item = &Account> {
        self.accounts.values()
    }

    /// How many transfers were ever made (the last id given).
    pub fn transfer_count(&self) -> u64 {
        self.last_transfer.0
    }

    /// The id of the last transfer made (0 before the first).
    pub fn last_transfer(&self) -> TransferId {
        self.last_transfer
    }

    /// An open hold by its id.
    pub fn hold(&self, id: TransferId) -> Option<&Transfer> {
        self.pending.get(&id).map(|t| &**t)
    }

    pub fn find(&self, kind: &AccountKind) -> Option<AccountId> {
        self.by_kind.get(kind).copied()
    }

    /// The accounts opened since the last call, for the store to write.
    pub fn take_opened(&mut self) -> Changes {
        let accounts = std::mem::take(&mut self.opened).into_iter().map(|id| self.accounts[&id].clone()).collect();
        Changes { accounts, ..Changes::default() }
    }

    /// The holds still pending.
    pub fn pending(&self) -> impl Iterator<Item = &Transfer> {
        self.pending.values().map(|t| &**t)
    }

    /// What a checkpoint copies of the ledger: its open holds and accounts.
    pub fn live_items(&self) -> u64 {
        (self.pending.len() + self.accounts.len()) as u64
    }

    /// The holds still pending, shared (for a checkpoint).
    pub fn pending_shared(&self) -> impl Iterator<Item = &Arc<Transfer>> {
        self.pending.values()
    }

    fn mark(&self) -> Mark {
        Mark { fresh: self.fresh.len(), last: self.last_transfer }
    }

    /// Rebuild a ledger from what the store kept: the accounts, the holds
    /// still open, the last transfer id, and the answers still within the
    /// retention window; then check it.
    pub fn restore(
        accounts: Vec<Account>,
        pending: Vec<Arc<Transfer>>,
        last_transfer: TransferId,
        keys: KeyMemory,
    ) -> Result<Ledger, LedgerError> {
        let mut l = Ledger::new();
        for a in accounts {
            l.next_account = l.next_account.max(a.id);
            l.by_kind.insert(a.kind.clone(), a.id);
            l.accounts.insert(a.id, a);
        }
        for t in pending {
            l.pending.insert(t.id, t);
        }
        l.last_transfer = last_transfer;
        l.keys = keys;
        l.check()?;
        Ok(l)
    }

    /// Apply every op or none: on any refusal, every change is taken back.
    fn apply_atomic(&mut self, ops: &[Op]) -> Answer {
        let mark = self.mark();
        let mut undo = Vec::new();
        let answer = self.apply_all(ops, &mut undo).and_then(|ids| self.check_touched(&undo).map(|_| ids));
        if answer.is_err() {
            self.roll_back(mark, undo);
        }
        answer
    }

    /// Take back every change since `mark`, newest first.
    fn roll_back(&mut self, mark: Mark, undo: Vec<Undo>) {
        {
            self.fresh.truncate(mark.fresh);
            self.last_transfer = mark.last;
            for u in undo.into_iter().rev() {
                match u {
                    Undo::Account(a) => {
                        self.accounts.insert(a.id, a);
                    }
                    Undo::Added(id) => {
                        self.pending.remove(&id);
                    }
                    Undo::Removed(t) => {
                        self.pending.insert(t.id, t);
                    }
                }
            }
        }
    }

    fn apply_all(&mut self, ops: &[Op], undo: &mut Vec<Undo>) -> Result<Vec<TransferId>, LedgerError> {
        ops.iter().map(|op| self.apply_one(op, undo)).collect()
    }

    /// The write-time check: the touched accounts' balance changes sum to zero and
    /// none is below zero available but those that issue (the cage, and the
    /// issuer of promotional tokens: [`Account::may_go_negative`]).
    fn check_touched(&self, undo: &[Undo]) -> Result<(), LedgerError> {
        let mut before: BTreeMap<AccountId, i64> = BTreeMap::new();
        for u in undo {
            if let Undo::Account(a) = u {
                before.entry(a.id).or_insert(a.balance);
            }
        }
        let mut delta: i128 = 0;
        for (id, b) in before {
            let a = &self.accounts[&id];
            delta += (a.balance - b) as i128;
            if !a.may_go_negative() && a.available() < 0 {
                return Err(LedgerError::Invariant(format!("account {id} would be negative")));
            }
        }
        if delta != 0 {
            return Err(LedgerError::Invariant(format!("a batch changed the balances' sum by {delta}")));
        }
        Ok(())
    }

    fn acct<'a>(&'a mut self, id: AccountId, undo: &mut Vec<Undo>) -> Result<&'a mut Account, LedgerError> {
        let a = self.accounts.get_mut(&id).ok_or(LedgerError::NoAccount(id))?;
        undo.push(Undo::Account(a.clone()));
        Ok(a)
    }

    fn covered(&self, id: AccountId, amount: i64) -> Result<(), LedgerError> {
        let a = self.accounts.get(&id).ok_or(LedgerError::NoAccount(id))?;
        if !a.may_go_negative() && a.available() < amount {
            return Err(LedgerError::Insufficient {
                account: id,
                available: Money(a.available()),
                needed: Money(amount),
            });
        }
        Ok(())
    }

    fn record(
        &mut self,
        debit: AccountId,
        credit: AccountId,
        amount: i64,
        kind: TransferKind,
        memo: &str,
    ) -> TransferId {
        self.last_transfer = TransferId(self.last_transfer.0 + 1);
        let id = self.last_transfer;
        let cause = self.cause;
        self.fresh.push(Transfer { id, debit, credit, amount: Money(amount), kind, memo: memo.to_string(), cause });
        id
    }

    fn apply_one(&mut self, op: &Op, undo: &mut Vec<Undo>) -> Result<TransferId, LedgerError> {
        match op {
            Op::Transfer { debit, credit, amount, memo } | Op::Hold { debit, credit, amount, memo } => {
                if amount.0 <= 0 {
                    return Err(LedgerError::Amount(*amount));
                }
                if debit == credit {
                    return Err(LedgerError::SameAccount);
                }
                self.acct(*credit, undo)?;
                self.covered(*debit, amount.0)?;
                if matches!(op, Op::Hold { .. }) {
                    self.acct(*debit, undo)?.held += amount.0;
                    let id = self.record(*debit, *credit, amount.0, TransferKind::Pending, memo);
                    let hold = self.fresh.last().expect("just recorded").clone();
                    self.pending.insert(id, Arc::new(hold));
                    undo.push(Undo::Added(id));
                    Ok(id)
                } else {
                    self.acct(*debit, undo)?.balance -= amount.0;
                    self.acct(*credit, undo)?.balance += amount.0;
                    Ok(self.record(*debit, *credit, amount.0, TransferKind::Posted, memo))
                }
            }
            Op::Post { hold, amount } => {
                let h = self.pending.get(hold).ok_or(LedgerError::NotPending(*hold))?;
                let (debit, credit, held) = (h.debit, h.credit, h.amount.0);
                if amount.0 < 0 || amount.0 > held {
                    return Err(LedgerError::PostTooLarge { hold: *hold, amount: *amount, held: Money(held) });
                }
                let h = self.pending.remove(hold).expect("found above");
                undo.push(Undo::Removed(h));
                let d = self.acct(debit, undo)?;
                d.held -= held;
                d.balance -= amount.0;
                self.acct(credit, undo)?.balance += amount.0;
                Ok(self.record(debit, credit, amount.0, TransferKind::PostOf(*hold), "post"))
            }
            Op::Void { hold } => {
                let h = self.pending.remove(hold).ok_or(LedgerError::NotPending(*hold))?;
                let (debit, credit, held) = (h.debit, h.credit, h.amount.0);
                undo.push(Undo::Removed(h));
                self.acct(debit, undo)?.held -= held;
                Ok(self.record(debit, credit, 0, TransferKind::VoidOf(*hold), "void"))
            }
        }
    }
}
