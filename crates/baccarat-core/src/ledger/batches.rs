//! The ways a batch comes in: under an idempotency key, answered once and
//! again on a retry, or as the server's own postings; each reports what it
//! changed ([`Changes`]) for the store.

use sha2::{Digest, Sha256};

use super::{AccountId, Answer, AnswerRow, Cause, Changes, Ledger, LedgerError, Mark, Op, Transfer, TransferId};

fn digest(ops: &[Op]) -> [u8; 32] {
    Sha256::digest(serde_json::to_vec(ops).expect("ops serialise")).into()
}

impl Ledger {
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

    /// What changed since `mark`: its transfers leave memory for the store.
    fn changes_since(&mut self, mark: Mark, answer: Option<AnswerRow>) -> Changes {
        let transfers: Vec<Transfer> = self.fresh.drain(mark.fresh..).collect();
        let mut touched: Vec<AccountId> = transfers.iter().flat_map(|t| [t.debit, t.credit]).collect();
        touched.sort();
        touched.dedup();
        let accounts = touched.iter().map(|id| self.accounts[id].clone()).collect();
        Changes { transfers, accounts, answer }
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
}
