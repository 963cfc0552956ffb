//! The invariants on read: over the ledger in memory, and over a whole log.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{Account, AccountId, KeyMemory, Ledger, LedgerError, Transfer, TransferId, TransferKind};

impl Ledger {
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
    let last = transfers.iter().map(|t| t.id).max().unwrap_or_default();
    let pending = pending.into_values().map(Arc::new).collect();
    Ledger::restore(accounts.to_vec(), pending, last, KeyMemory::default()).map(|_| ())
}
