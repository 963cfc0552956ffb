//! The ledger's invariants over the whole log, summed from its transfers.

use std::collections::HashMap;

use crate::ledger::{Account, AccountId, Cause, Transfer, TransferId, TransferKind};

/// The ledger's invariants over the whole log, from its transfers in id
/// order: what is kept is per account (the replayed balance) and per open
/// hold, never per transfer.
#[derive(Default)]
pub(super) struct LedgerSums {
    /// Each account's posted transfers, credits less debits (`i128`: a forged
    /// amount cannot overflow the sum).
    replayed: HashMap<AccountId, i128>,
    /// Holds still open: id -> (debit, amount, cause).
    open: HashMap<TransferId, (AccountId, i64, Cause)>,
}

impl LedgerSums {
    /// Take the next transfer; returns the cause of the open hold a posting or
    /// release closed.
    pub(super) fn feed(&mut self, t: &Transfer) -> Option<Cause> {
        let mut closed = None;
        match t.kind {
            TransferKind::Pending => {
                self.open.insert(t.id, (t.debit, t.amount.0, t.cause));
            }
            TransferKind::PostOf(h) | TransferKind::VoidOf(h) => closed = self.open.remove(&h).map(|o| o.2),
            TransferKind::Posted => {}
        }
        if matches!(t.kind, TransferKind::Posted | TransferKind::PostOf(_)) {
            *self.replayed.entry(t.debit).or_default() -= i128::from(t.amount.0);
            *self.replayed.entry(t.credit).or_default() += i128::from(t.amount.0);
        }
        closed
    }

    /// The invariants: balances sum to zero; each account holds what its open
    /// holds sum to and its balance is the sum of its transfers; none but the
    /// cage is below zero available. The first broken one, as the ledger
    /// would name it.
    pub(super) fn check(&self, accounts: &[Account]) -> Result<(), String> {
        let sum: i128 = accounts.iter().map(|a| i128::from(a.balance)).sum();
        if sum != 0 {
            return Err(format!("balances sum to {sum}, not 0"));
        }
        let mut held: HashMap<AccountId, i128> = HashMap::new();
        for (debit, amount, _) in self.open.values() {
            *held.entry(*debit).or_default() += i128::from(*amount);
        }
        for a in accounts {
            if i128::from(a.held) != held.get(&a.id).copied().unwrap_or(0) {
                return Err(format!("account {} holds {} but its pending transfers sum otherwise", a.id, a.held));
            }
            if i128::from(a.balance) != self.replayed.get(&a.id).copied().unwrap_or(0) {
                return Err(format!("account {} balance {} is not the sum of its transfers", a.id, a.balance));
            }
            if !a.may_go_negative() && i128::from(a.balance) - i128::from(a.held) < 0 {
                return Err(format!("account {} is negative", a.id));
            }
        }
        Ok(())
    }
}
