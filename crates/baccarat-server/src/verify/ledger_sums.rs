//! The ledger's invariants over the whole log, summed from its transfers.
//!
//! # Memory
//!
//! What grows here is the holds open at once, the live state: after a crash
//! in the middle of sixteen coups of about 75 k wagers each, about a million
//! of them (the map had grown to 2^21 buckets): 100 MB of `verify`'s 106 MB
//! heap at its peak (heaptrack).
//! So an open hold keeps its cause as a 64-bit fingerprint, keyed afresh
//! for each run ([`RandomState`]), not as the 24-byte `Cause`: 32 bytes an
//! entry instead of 48. The cause is only ever compared, with the cause of
//! the transfer that posts or releases the hold; a forger who does not know
//! the run's key cannot make two causes meet but by a 2^-64 chance.

use std::collections::hash_map::RandomState;
use std::collections::HashMap;
use std::hash::BuildHasher;

use crate::ledger::{Account, AccountId, LedgerError, Transfer, TransferId, TransferKind};

/// The ledger's invariants over the whole log, from its transfers in id
/// order: what is kept is per account (the replayed balance) and per open
/// hold, never per transfer.
#[derive(Default)]
pub(super) struct LedgerSums {
    /// Each account's posted transfers, credits less debits (`i128`: a forged
    /// amount cannot overflow the sum).
    replayed: HashMap<AccountId, i128>,
    /// Holds still open: id -> (debit, amount, the cause's fingerprint).
    open: HashMap<TransferId, (AccountId, i64, u64)>,
    /// The fingerprints' key, this run's own.
    key: RandomState,
}

impl LedgerSums {
    /// Take the next transfer. For a posting or release of a hold that was
    /// open, whether its cause is the hold's; `None` for any other transfer.
    pub(super) fn feed(&mut self, t: &Transfer) -> Option<bool> {
        let mut closed = None;
        match t.kind {
            TransferKind::Pending => {
                self.open.insert(t.id, (t.debit, t.amount.0, self.key.hash_one(t.cause)));
            }
            TransferKind::PostOf(h) | TransferKind::VoidOf(h) => {
                closed = self.open.remove(&h).map(|o| o.2 == self.key.hash_one(t.cause));
            }
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
    pub(super) fn check(&self, accounts: &[Account]) -> Result<(), LedgerError> {
        let sum: i128 = accounts.iter().map(|a| i128::from(a.balance)).sum();
        if sum != 0 {
            return Err(LedgerError::Invariant(format!("balances sum to {sum}, not 0")));
        }
        let mut held: HashMap<AccountId, i128> = HashMap::new();
        for (debit, amount, _) in self.open.values() {
            *held.entry(*debit).or_default() += i128::from(*amount);
        }
        for a in accounts {
            if i128::from(a.held) != held.get(&a.id).copied().unwrap_or(0) {
                return Err(LedgerError::Invariant(format!(
                    "account {} holds {} but its pending transfers sum otherwise",
                    a.id, a.held
                )));
            }
            if i128::from(a.balance) != self.replayed.get(&a.id).copied().unwrap_or(0) {
                return Err(LedgerError::Invariant(format!(
                    "account {} balance {} is not the sum of its transfers",
                    a.id, a.balance
                )));
            }
            if !a.may_go_negative() && i128::from(a.balance) - i128::from(a.held) < 0 {
                return Err(LedgerError::Invariant(format!("account {} is negative", a.id)));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use baccarat_core::TableId;
    use baccarat_rules::Money;
    use baccarat_table::WagerId;

    use super::*;
    use crate::ledger::Cause;

    fn t(id: u64, kind: TransferKind, cause: Cause) -> Transfer {
        Transfer {
            id: TransferId(id),
            debit: crate::ledger::AccountId(7),
            credit: crate::ledger::AccountId(8),
            amount: Money(100),
            kind,
            memo: String::new(),
            cause,
        }
    }

    #[test]
    fn a_closing_transfer_is_told_whether_its_cause_is_its_holds() {
        let wager = |w| Cause::Wager { table: TableId(1), wager: WagerId(w) };
        let mut l = LedgerSums::default();
        assert_eq!(l.feed(&t(1, TransferKind::Pending, wager(1))), None);
        assert_eq!(l.feed(&t(2, TransferKind::Pending, wager(2))), None);
        assert_eq!(l.feed(&t(3, TransferKind::Pending, wager(3))), None);
        assert_eq!(l.feed(&t(4, TransferKind::PostOf(TransferId(1)), wager(1))), Some(true));
        // Another wager's cause, or another table's, is not the hold's.
        assert_eq!(l.feed(&t(5, TransferKind::VoidOf(TransferId(2)), wager(9))), Some(false));
        let elsewhere = Cause::Wager { table: TableId(2), wager: WagerId(3) };
        assert_eq!(l.feed(&t(6, TransferKind::PostOf(TransferId(3)), elsewhere)), Some(false));
        // A hold closed already, or never open, closes nothing.
        assert_eq!(l.feed(&t(7, TransferKind::PostOf(TransferId(1)), wager(1))), None);
        assert_eq!(l.feed(&t(8, TransferKind::Posted, wager(1))), None);
        assert!(l.open.is_empty());
    }
}
