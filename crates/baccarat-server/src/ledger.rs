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
//! idempotency keys answered recently (`keys.rs` says which, and how older ones
//! within the retention window are found in the store). Every transfer and
//! every answer goes to the store with the batch that made it ([`Changes`]),
//! and memory forgets it.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use baccarat_rules::Money;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub use crate::keys::{key_id, AnswerRow, KeyId, KeyMemory, DEFAULT_KEY_RETENTION_MS};

pub type AccountId = u64;
pub type TransferId = u64;

/// What a batch returned: its transfers' ids, or why it was refused.
pub type Answer = Result<Vec<TransferId>, LedgerError>;

/// What an account is for.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AccountKind {
    /// Money outside the system (chips bought, cashed out); may go negative.
    Cage,
    Wallet {
        player: baccarat_table::engine::PlayerId,
    },
    /// Stakes in play at a table.
    Escrow {
        table: u32,
    },
    /// The house's side of a table's wagers.
    House {
        table: u32,
    },
    /// Commission taken on Banker wins (AU 5.10(b)).
    Commission {
        table: u32,
    },
    /// Antes collected (AU 14.6).
    Antes {
        table: u32,
    },
    /// A tournament's prize pool: every entry fee goes in (NSW 15.3.2).
    PrizePool {
        tournament: u32,
    },
    /// A player's casino promotional tokens (NSW 1.1): wagered like chips,
    /// never cashed; a winning wager's winnings are paid in chips.
    Tokens {
        player: baccarat_table::engine::PlayerId,
    },
    /// Where promotional tokens are issued from and retired to: its balance
    /// is minus the tokens outstanding, so it may go negative, as the cage.
    TokenIssuer,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Account {
    pub id: AccountId,
    pub kind: AccountKind,
    /// Credits less debits, posted.
    pub balance: i64,
    /// Sum of this account's pending (held) debits.
    pub held: i64,
}

impl Account {
    pub fn available(&self) -> i64 {
        self.balance - self.held
    }

    pub fn may_go_negative(&self) -> bool {
        matches!(self.kind, AccountKind::Cage | AccountKind::TokenIssuer)
    }
}

/// One operation of a batch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Op {
    /// Move money now.
    Transfer { debit: AccountId, credit: AccountId, amount: Money, memo: String },
    /// Reserve money on the debit account (a wager).
    Hold { debit: AccountId, credit: AccountId, amount: Money, memo: String },
    /// Complete a hold, for at most its amount; the rest is released.
    Post { hold: TransferId, amount: Money },
    /// Release a hold.
    Void { hold: TransferId },
}

/// A transfer as recorded; immutable once written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Transfer {
    pub id: TransferId,
    pub debit: AccountId,
    pub credit: AccountId,
    pub amount: Money,
    pub kind: TransferKind,
    pub memo: String,
    /// The audit event that explains this transfer (reconciled by `verify`).
    #[serde(default)]
    pub cause: Cause,
}

/// What caused a batch of transfers: the audit record that explains it. Every
/// transfer the server makes names one, so `verify` can reconcile the ledger
/// with the audit log both ways (DESIGN 12).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(tag = "cause", rename_all = "snake_case")]
pub enum Cause {
    /// No cause recorded (the ledger's own tests; a transfer the server made
    /// never has this, and `verify` reports one that does).
    #[default]
    None,
    /// Chips from the cage, recorded as record `seq` of the casino's own chain.
    Deposit { seq: u64 },
    /// A table's float from the cage, recorded when the table was configured.
    Float { table: u32 },
    /// A wager's hold, and later its settlement or release.
    Wager { table: u32, wager: baccarat_table::engine::WagerId },
    /// A tournament's money (an entry fee, its refund, a prize), recorded as
    /// record `seq` of the casino's own chain.
    Tournament { seq: u64 },
    /// A promotional prize paid (NSW 16), recorded as record `seq` of the
    /// casino's own chain.
    Promotion { seq: u64 },
    /// What a bet slip placed, kept with its idempotency answer (never on a
    /// transfer): bit `i` of `accepted` is set if line `i` was placed, and
    /// the placed lines are wagers `first`, `first + 1`, … in line order (one
    /// writer places a slip's lines one after another at one table, and a
    /// table numbers its wagers in order). A retry is answered from it alone,
    /// so a slip writes one answer, not one per line as well (their index
    /// inserts cost a third of the committer's time: `casino::slip`).
    Slip { table: u32, first: baccarat_table::engine::WagerId, accepted: u32 },
}

impl Cause {
    /// The cause as the store keeps it: `deposit:SEQ`, `float:TABLE`,
    /// `wager:TABLE:WAGER`, `tournament:SEQ`, `promotion:SEQ`, or empty.
    pub fn encode(self) -> String {
        match self {
            Cause::None => String::new(),
            Cause::Deposit { seq } => format!("deposit:{seq}"),
            Cause::Float { table } => format!("float:{table}"),
            Cause::Wager { table, wager } => format!("wager:{table}:{wager}"),
            Cause::Tournament { seq } => format!("tournament:{seq}"),
            Cause::Promotion { seq } => format!("promotion:{seq}"),
            Cause::Slip { table, first, accepted } => format!("slip:{table}:{first}:{accepted}"),
        }
    }

    /// Parse what [`Cause::encode`] wrote.
    pub fn parse(s: &str) -> Option<Cause> {
        use baccarat_table::engine::WagerId;
        let mut p = s.split(':');
        let c = match (p.next()?, p.next(), p.next(), p.next()) {
            ("", None, None, None) => Cause::None,
            ("deposit", Some(n), None, None) => Cause::Deposit { seq: n.parse().ok()? },
            ("float", Some(t), None, None) => Cause::Float { table: t.parse().ok()? },
            ("tournament", Some(n), None, None) => Cause::Tournament { seq: n.parse().ok()? },
            ("promotion", Some(n), None, None) => Cause::Promotion { seq: n.parse().ok()? },
            ("wager", Some(t), Some(w), None) => {
                Cause::Wager { table: t.parse().ok()?, wager: WagerId(w.parse().ok()?) }
            }
            ("slip", Some(t), Some(w), Some(a)) => {
                Cause::Slip { table: t.parse().ok()?, first: WagerId(w.parse().ok()?), accepted: a.parse().ok()? }
            }
            _ => return None,
        };
        p.next().is_none().then_some(c)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TransferKind {
    Posted,
    Pending,
    /// Posting of the hold with this id.
    PostOf(TransferId),
    /// Voiding of the hold with this id.
    VoidOf(TransferId),
}

/// Why a batch was refused; nothing of it was applied.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
pub enum LedgerError {
    #[error("account {0} does not exist")]
    NoAccount(AccountId),
    #[error("amount {0} must be positive")]
    Amount(Money),
    #[error("a transfer needs two different accounts")]
    SameAccount,
    #[error("account {account} has {available} available, {needed} needed: balances may not go negative")]
    Insufficient { account: AccountId, available: Money, needed: Money },
    #[error("hold {0} is not pending (unknown, posted or voided)")]
    NotPending(TransferId),
    #[error("posting {amount} exceeds hold {hold} of {held}")]
    PostTooLarge { hold: TransferId, amount: Money, held: Money },
    #[error("idempotency key {0:?} was used for a different request")]
    KeyReused(String),
    #[error("ledger invariant broken: {0}")]
    Invariant(String),
    /// The store could not be read to find a key (retry later).
    #[error("{0}")]
    Unavailable(String),
}

/// What one batch changed, for the store to write in the same transaction as the
/// events it belongs to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Changes {
    pub transfers: Vec<Transfer>,
    /// The touched accounts as they are after the batch.
    pub accounts: Vec<Account>,
    /// The idempotency key's answer, for the store's answer log.
    pub answer: Option<AnswerRow>,
}

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
    /// The idempotency keys answered within the retention window (`keys.rs`).
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
            last_transfer: 0,
            pending: BTreeMap::new(),
            keys: KeyMemory::default(),
            next_account: 0,
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

fn digest(ops: &[Op]) -> [u8; 32] {
    Sha256::digest(serde_json::to_vec(ops).expect("ops serialise")).into()
}

impl Ledger {
    pub fn new() -> Ledger {
        Ledger::default()
    }

    pub fn open(&mut self, kind: AccountKind) -> AccountId {
        if let Some(&id) = self.by_kind.get(&kind) {
            return id;
        }
        self.next_account += 1;
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
        self.last_transfer
    }

    /// An open hold by its id.
    pub fn hold(&self, id: TransferId) -> Option<&Transfer> {
        self.pending.get(&id).map(|t| &**t)
    }

    /// Set the time requests are answered at (keys' retention runs on it).
    pub fn set_time(&mut self, now_ms: u64) {
        self.keys.set_time(now_ms);
    }

    /// How long keys are remembered.
    pub fn set_retention(&mut self, ms: u64) {
        self.keys.set_retention(ms);
    }

    /// Keys in memory now.
    pub fn keys(&self) -> usize {
        self.keys.len()
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

    /// The holds still pending, shared (for a checkpoint).
    pub fn pending_shared(&self) -> impl Iterator<Item = &Arc<Transfer>> {
        self.pending.values()
    }

    /// The answer already given under `key`, if any.
    pub fn answer(&mut self, key: &str) -> Result<Option<Answer>, LedgerError> {
        Ok(self.keys.find(key)?.map(|b| b.answer()))
    }

    /// What `key` has answered, with the digest of the request it was bound to
    /// and the cause of what it did.
    pub fn bound(&mut self, key: &str) -> Result<Option<([u8; 32], Answer, Cause)>, LedgerError> {
        Ok(self.keys.find(key)?.map(|b| (b.request, b.answer(), b.cause)))
    }

    /// Apply `ops` under `key`, bound to the digest of the client's request
    /// (not of the ops: a wager's ops name its id, which a retry does not know).
    /// A retry with the same request answers again and changes nothing; the
    /// same key for another request is refused with [`LedgerError::KeyReused`].
    pub fn apply_bound(&mut self, key: &str, request: [u8; 32], ops: &[Op], cause: Cause) -> (Answer, Changes) {
        match self.keys.find(key) {
            Ok(Some(b)) => {
                let a = if b.request == request { b.answer() } else { Err(LedgerError::KeyReused(key.to_string())) };
                return (a, Changes::default());
            }
            Ok(None) => {}
            // Not known to be new: refused, and not remembered.
            Err(e) => return (Err(e), Changes::default()),
        }
        let mark = self.mark();
        self.cause = cause;
        let answer = self.apply_atomic(ops);
        self.cause = Cause::None;
        let row = self.keys.remember(key, request, &answer, cause);
        (answer, self.changes_since(mark, Some(row)))
    }

    /// Bind a new `key` to `request` with an answer already made, and report
    /// it: a bet slip's, whose lines' holds were applied each on its own
    /// ([`Ledger::apply_internal`]) and whose answer names them all.
    pub fn bind(&mut self, key: &str, request: [u8; 32], answer: &Answer, cause: Cause) -> Changes {
        let mark = self.mark();
        let row = self.keys.remember(key, request, answer, cause);
        self.changes_since(mark, Some(row))
    }

    /// Apply `ops` and report what changed (nothing, for a retried key). The
    /// key is bound to the ops themselves.
    pub fn apply_logged(&mut self, key: &str, ops: &[Op], cause: Cause) -> (Answer, Changes) {
        self.apply_bound(key, digest(ops), ops, cause)
    }

    /// Apply `ops` atomically without an idempotency key, and report what
    /// changed: for the server's own postings (a coup's settlements, released
    /// holds), which the table's event log already makes exactly-once — a hold is
    /// settled or released once, and after a restart only holds still pending
    /// are. It saves a digest and an answer per wager on the settlement path.
    pub fn apply_internal(&mut self, ops: &[Op], cause: Cause) -> (Answer, Changes) {
        let mark = self.mark();
        self.cause = cause;
        let answer = self.apply_atomic(ops);
        self.cause = Cause::None;
        (answer, self.changes_since(mark, None))
    }

    /// Apply several batches, each with its own cause, atomically as one: all
    /// apply, or none does (a coup's settlement: each wager's postings name that
    /// wager, and the coup settles whole or not at all).
    pub fn apply_caused(&mut self, batches: &[(Cause, Vec<Op>)]) -> (Answer, Changes) {
        let mark = self.mark();
        let mut undo = Vec::new();
        let mut ids = Vec::new();
        let mut result = Ok(());
        for (cause, ops) in batches {
            self.cause = *cause;
            match self.apply_all(ops, &mut undo) {
                Ok(mut i) => ids.append(&mut i),
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        self.cause = Cause::None;
        let answer = result.and_then(|_| self.check_touched(&undo)).map(|_| ids);
        if answer.is_err() {
            self.roll_back(mark, undo);
        }
        (answer, self.changes_since(mark, None))
    }

    fn mark(&self) -> Mark {
        Mark { fresh: self.fresh.len(), last: self.last_transfer }
    }

    /// What changed since `mark`: its transfers leave memory for the store.
    fn changes_since(&mut self, mark: Mark, answer: Option<AnswerRow>) -> Changes {
        let transfers: Vec<Transfer> = self.fresh.drain(mark.fresh..).collect();
        let mut touched: Vec<AccountId> = transfers.iter().flat_map(|t| [t.debit, t.credit]).collect();
        touched.sort();
        touched.dedup();
        let accounts = touched.iter().map(|id| self.accounts[id].clone()).collect();
        Changes { transfers, accounts, answer }
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

    /// Apply `ops` atomically under idempotency key `key`.
    pub fn apply(&mut self, key: &str, ops: &[Op]) -> Result<Vec<TransferId>, LedgerError> {
        let d = digest(ops);
        if let Some(b) = self.keys.find(key)? {
            return if b.request == d { b.answer() } else { Err(LedgerError::KeyReused(key.to_string())) };
        }
        let answer = self.apply_atomic(ops);
        self.keys.remember(key, d, &answer, Cause::None);
        self.fresh.clear();
        answer
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
    /// none but the cage is below zero available.
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
        self.last_transfer += 1;
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

    /// The invariants memory can check: balances sum to zero; holds match the
    /// pending transfers; no account but the cage is below zero available.
    /// (That each balance is the sum of its transfers is checked where the
    /// transfers are: recovery, from a checkpoint's balances and the tail, and
    /// `verify`, over the whole log.)
    pub fn check(&self) -> Result<(), LedgerError> {
        let sum: i128 = self.accounts.values().map(|a| a.balance as i128).sum();
        if sum != 0 {
            return Err(LedgerError::Invariant(format!("balances sum to {sum}, not 0")));
        }
        let mut held: BTreeMap<AccountId, i64> = BTreeMap::new();
        for t in self.pending.values() {
            *held.entry(t.debit).or_default() += t.amount.0;
        }
        for a in self.accounts.values() {
            if a.held != held.get(&a.id).copied().unwrap_or(0) {
                return Err(LedgerError::Invariant(format!(
                    "account {} holds {} but its pending transfers sum otherwise",
                    a.id, a.held
                )));
            }
            if !a.may_go_negative() && a.available() < 0 {
                return Err(LedgerError::Invariant(format!("account {} is negative", a.id)));
            }
        }
        Ok(())
    }
}

/// The invariants over a whole log held in memory (tests, and small
/// databases): the ledger's own checks on the holds still open, and every
/// account's balance equal to the sum of its posted transfers.
pub fn check_log(accounts: &[Account], transfers: &[Transfer]) -> Result<(), LedgerError> {
    let mut pending: BTreeMap<TransferId, Transfer> = BTreeMap::new();
    let mut replayed: BTreeMap<AccountId, i64> = BTreeMap::new();
    for t in transfers {
        match t.kind {
            TransferKind::Pending => {
                pending.insert(t.id, t.clone());
            }
            TransferKind::PostOf(h) | TransferKind::VoidOf(h) => {
                pending.remove(&h);
            }
            TransferKind::Posted => {}
        }
        if matches!(t.kind, TransferKind::Posted | TransferKind::PostOf(_)) {
            *replayed.entry(t.debit).or_default() -= t.amount.0;
            *replayed.entry(t.credit).or_default() += t.amount.0;
        }
    }
    for a in accounts {
        if a.balance != replayed.get(&a.id).copied().unwrap_or(0) {
            return Err(LedgerError::Invariant(format!(
                "account {} balance {} is not the sum of its transfers",
                a.id, a.balance
            )));
        }
    }
    let last = transfers.iter().map(|t| t.id).max().unwrap_or(0);
    let pending = pending.into_values().map(Arc::new).collect();
    Ledger::restore(accounts.to_vec(), pending, last, KeyMemory::default()).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;
    use baccarat_table::engine::PlayerId;

    fn setup() -> (Ledger, AccountId, AccountId, AccountId, AccountId) {
        let mut l = Ledger::new();
        let cage = l.open(AccountKind::Cage);
        let wallet = l.open(AccountKind::Wallet { player: PlayerId(1) });
        let escrow = l.open(AccountKind::Escrow { table: 1 });
        let house = l.open(AccountKind::House { table: 1 });
        l.apply("buy-in", &[Op::Transfer { debit: cage, credit: wallet, amount: Money(10_000), memo: "chips".into() }])
            .unwrap();
        l.apply(
            "float",
            &[Op::Transfer { debit: cage, credit: house, amount: Money(1_000_000), memo: "float".into() }],
        )
        .unwrap();
        (l, cage, wallet, escrow, house)
    }

    /// A checkpoint shares the open holds rather than copying them; settling
    /// or voiding one afterwards, or a refused batch rolled back, never
    /// changes what the checkpoint took.
    #[test]
    fn a_checkpoint_shares_the_holds_and_later_changes_do_not_reach_it() {
        let (mut l, _, wallet, escrow, house) = setup();
        let hold = |l: &mut Ledger, key: &str, amount: i64| {
            l.apply(key, &[Op::Hold { debit: wallet, credit: escrow, amount: Money(amount), memo: key.into() }])
                .unwrap()[0]
        };
        let (a, b) = (hold(&mut l, "w1", 1000), hold(&mut l, "w2", 2000));
        let taken: Vec<Arc<Transfer>> = l.pending_shared().cloned().collect();
        assert!(taken.iter().zip(l.pending_shared()).all(|(x, y)| Arc::ptr_eq(x, y)), "shared, not copied");
        let (r, _) = l.apply_internal(&[Op::Post { hold: a, amount: Money(1000) }], Cause::None);
        r.unwrap();
        // Refused as a whole: the void of b is rolled back, and b is held again.
        let (r, _) = l.apply_internal(
            &[
                Op::Void { hold: b },
                Op::Transfer { debit: wallet, credit: house, amount: Money(1_000_000), memo: "too much".into() },
            ],
            Cause::None,
        );
        assert!(r.is_err());
        assert_eq!(l.pending().map(|t| t.id).collect::<Vec<_>>(), vec![b]);
        assert_eq!(
            taken.iter().map(|t| (t.id, t.amount)).collect::<Vec<_>>(),
            vec![(a, Money(1000)), (b, Money(2000))]
        );
        assert!(taken.iter().all(|t| t.kind == TransferKind::Pending));
        l.check().unwrap();
    }

    /// The server's own postings: all or nothing, reported for the store, and
    /// no answer kept (a settlement is made once by the table's log, not by a key).
    #[test]
    fn internal_postings_are_atomic_and_keep_no_answer() {
        let (mut l, _, wallet, escrow, house) = setup();
        let hold = l
            .apply("w1", &[Op::Hold { debit: wallet, credit: escrow, amount: Money(4000), memo: "wager 1".into() }])
            .unwrap()[0];
        let before = l.clone();
        // The second op cannot be paid: nothing of the first stays either.
        let (a, ch) = l.apply_internal(
            &[
                Op::Post { hold, amount: Money(4000) },
                Op::Transfer { debit: wallet, credit: house, amount: Money(1_000_000), memo: "too much".into() },
            ],
            Cause::None,
        );
        assert!(a.is_err());
        assert!(ch.transfers.is_empty() && ch.answer.is_none());
        assert_eq!(l.account(wallet), before.account(wallet));
        assert_eq!(l.pending().count(), before.pending().count());
        let (a, ch) = l.apply_internal(
            &[
                Op::Post { hold, amount: Money(4000) },
                Op::Transfer { debit: house, credit: wallet, amount: Money(8000), memo: "win".into() },
            ],
            Cause::None,
        );
        assert_eq!(a.unwrap().len(), 2);
        assert_eq!(ch.transfers.len(), 2);
        assert!(ch.answer.is_none(), "no idempotency answer is written");
        assert_eq!(l.account(wallet).unwrap().balance, 14_000);
        l.check().unwrap();
    }

    #[test]
    fn a_wager_is_a_hold_then_posted_and_paid() {
        let (mut l, _, wallet, escrow, house) = setup();
        let hold = l
            .apply("w1", &[Op::Hold { debit: wallet, credit: escrow, amount: Money(4000), memo: "wager 1".into() }])
            .unwrap()[0];
        assert_eq!(l.account(wallet).unwrap().available(), 6000);
        assert_eq!(l.account(wallet).unwrap().balance, 10_000);
        // A second wager beyond what is available is refused: no money in two places.
        assert!(matches!(
            l.apply("w2", &[Op::Hold { debit: wallet, credit: escrow, amount: Money(7000), memo: "wager 2".into() }]),
            Err(LedgerError::Insufficient { .. })
        ));
        // Win at 1:1: post the stake, return it, pay the win.
        l.apply(
            "settle-1",
            &[
                Op::Post { hold, amount: Money(4000) },
                Op::Transfer { debit: escrow, credit: wallet, amount: Money(4000), memo: "stake back".into() },
                Op::Transfer { debit: house, credit: wallet, amount: Money(4000), memo: "win".into() },
            ],
        )
        .unwrap();
        assert_eq!(l.account(wallet).unwrap().balance, 14_000);
        assert_eq!(l.account(escrow).unwrap().balance, 0);
        l.check().unwrap();
    }

    #[test]
    fn batches_are_atomic_and_idempotent() {
        let (mut l, _, wallet, escrow, _) = setup();
        let before = l.clone();
        let bad = [
            Op::Hold { debit: wallet, credit: escrow, amount: Money(100), memo: "ok".into() },
            Op::Post { hold: 999, amount: Money(1) },
        ];
        assert_eq!(l.apply("k", &bad), Err(LedgerError::NotPending(999)));
        assert_eq!(l.account(wallet), before.account(wallet), "nothing of a refused batch applies");
        assert_eq!(l.transfer_count(), before.transfer_count());
        // The same key returns the first answer; a different request under it is refused.
        assert_eq!(l.apply("k", &bad), Err(LedgerError::NotPending(999)));
        let good = [Op::Hold { debit: wallet, credit: escrow, amount: Money(100), memo: "ok".into() }];
        assert!(matches!(l.apply("k", &good), Err(LedgerError::KeyReused(_))));
        let first = l.apply("k2", &good).unwrap();
        assert_eq!(l.apply("k2", &good).unwrap(), first);
        assert_eq!(l.account(wallet).unwrap().held, 100, "the retry did not hold twice");
    }

    #[test]
    fn void_releases_and_refusals_name_the_reason() {
        let (mut l, cage, wallet, escrow, _) = setup();
        let hold = l
            .apply("w", &[Op::Hold { debit: wallet, credit: escrow, amount: Money(500), memo: "w".into() }])
            .unwrap()[0];
        l.apply("v", &[Op::Void { hold }]).unwrap();
        assert_eq!(l.account(wallet).unwrap().available(), 10_000);
        assert_eq!(l.apply("v2", &[Op::Void { hold }]), Err(LedgerError::NotPending(hold)));
        assert_eq!(
            l.apply("z", &[Op::Transfer { debit: wallet, credit: wallet, amount: Money(1), memo: String::new() }]),
            Err(LedgerError::SameAccount)
        );
        assert_eq!(
            l.apply("n", &[Op::Transfer { debit: wallet, credit: cage, amount: Money(0), memo: String::new() }]),
            Err(LedgerError::Amount(Money(0)))
        );
        l.check().unwrap();
    }

    use proptest::prelude::*;

    proptest! {
        /// Random batches, many of them refused: every answer keeps the
        /// invariants, a refused batch changes nothing, and a retried key returns
        /// its first answer.
        #[test]
        fn random_batches_keep_the_invariants(batches in prop::collection::vec(prop::collection::vec((0u8..4, 0usize..6, 0usize..6, -5i64..3000), 1..4), 1..60), keys in prop::collection::vec(0u8..40, 60)) {
            let (mut l, ..) = setup();
            let ids: Vec<AccountId> = l.accounts().map(|a| a.id).collect();
            let mut holds: Vec<TransferId> = Vec::new();
            let mut answers: HashMap<String, (Vec<Op>, Answer)> = HashMap::new();
            for (i, batch) in batches.iter().enumerate() {
                let ops: Vec<Op> = batch.iter().map(|&(kind, a, b, amount)| {
                    let hold = holds.get(b % holds.len().max(1)).copied().unwrap_or(9999);
                    let (a, b) = (ids[a % ids.len()], ids[b % ids.len()]);
                    match kind {
                        0 => Op::Transfer { debit: a, credit: b, amount: Money(amount), memo: String::new() },
                        1 => Op::Hold { debit: a, credit: b, amount: Money(amount), memo: String::new() },
                        2 => Op::Post { hold, amount: Money(amount) },
                        _ => Op::Void { hold },
                    }
                }).collect();
                let key = format!("k{}", keys[i % keys.len()]);
                let before = (l.accounts().cloned().collect::<Vec<_>>(), l.transfer_count());
                let got = l.apply(&key, &ops);
                match answers.get(&key) {
                    Some((first_ops, first)) if *first_ops == ops => prop_assert_eq!(&got, first),
                    Some(_) => prop_assert!(matches!(got, Err(LedgerError::KeyReused(_)))),
                    None => {
                        answers.insert(key.clone(), (ops.clone(), got.clone()));
                    }
                }
                match &got {
                    Ok(new) => {
                        for (op, id) in ops.iter().zip(new) {
                            if matches!(op, Op::Hold { .. }) {
                                holds.push(*id);
                            }
                        }
                    }
                    Err(_) => prop_assert_eq!((l.accounts().cloned().collect::<Vec<_>>(), l.transfer_count()), before),
                }
                prop_assert!(l.check().is_ok(), "{:?}", l.check());
            }
        }
    }
}
