//! The ledger and the audit log reconcile, both ways (DESIGN 12).
//!
//! Every transfer names its cause ([`Cause`]): a deposit record of the casino's
//! chain, a table's configuration (its float), or a wager. From the audit log
//! alone this module works out every transfer that must exist — a deposit's
//! chips, a float, a wager's hold, and its release or settlement postings
//! exactly as `postings.rs` makes them from the recorded settlement — and
//! compares them with the transfers in the ledger. A transfer without its
//! cause (a forged payment from the cage, with the balances adjusted to match)
//! and a cause without its transfer (a deleted or altered posting) are both
//! reported. So is a hold, deposit or float whose idempotency answer is gone:
//! a retry of it would be applied twice.

use std::collections::{BTreeMap, HashMap, HashSet};

use baccarat_rules::Money;
use baccarat_table::engine::{Event, WagerId};

use crate::audit::{Body, CasinoEvent, CASINO_CHAIN};
use crate::ledger::{AccountId, AccountKind, Answer, Cause, Op, Transfer, TransferKind};
use crate::postings::{settlement_ops, TableAccounts};
use crate::store::Snapshot;

/// A transfer as the audit log says it must be: kind, debit, credit, amount.
/// `PostOf`/`VoidOf` name the hold by its place in the wager's list (0).
type Expected = (TransferKind, AccountId, AccountId, Money);

/// Reconciles a snapshot's ledger with its chains, one chain at a time.
pub struct Reconciler<'a> {
    snap: &'a Snapshot,
    by_kind: HashMap<&'a AccountKind, AccountId>,
    /// The transfers not yet explained, by cause.
    by_cause: BTreeMap<Cause, Vec<&'a Transfer>>,
    problems: Vec<String>,
}

impl<'a> Reconciler<'a> {
    pub fn new(snap: &'a Snapshot) -> Reconciler<'a> {
        let mut problems = Vec::new();
        let by_kind = snap.accounts.iter().map(|a| (&a.kind, a.id)).collect();
        let mut by_cause: BTreeMap<Cause, Vec<&Transfer>> = BTreeMap::new();
        for t in &snap.transfers {
            if t.cause == Cause::None {
                problems.push(format!(
                    "ledger: transfer {} ({} from account {} to {}) has no cause",
                    t.id, t.amount, t.debit, t.credit
                ));
            } else {
                by_cause.entry(t.cause).or_default().push(t);
            }
        }
        Reconciler { snap, by_kind, by_cause, problems }
    }

    fn acct(&self, k: AccountKind) -> Option<AccountId> {
        self.by_kind.get(&k).copied()
    }

    /// Check the transfers one chain's records call for.
    pub fn chain(&mut self, table: u32, records: &[(u64, Body)]) {
        let mut expected: BTreeMap<Cause, Vec<Expected>> = BTreeMap::new();
        let cage = self.acct(AccountKind::Cage);
        if table == CASINO_CHAIN {
            for (seq, b) in records {
                if let Some(CasinoEvent::Deposit { player, amount, .. }) = &b.casino {
                    match (cage, self.acct(AccountKind::Wallet { player: *player })) {
                        (Some(c), Some(w)) => {
                            expected.insert(Cause::Deposit { seq: *seq }, vec![(TransferKind::Posted, c, w, *amount)]);
                        }
                        _ => self.problems.push(format!(
                            "the casino's chain record {seq}: a deposit to player {player}, who has no wallet"
                        )),
                    }
                }
            }
            return self.compare(expected);
        }
        let accounts = (|| {
            Some(TableAccounts {
                escrow: self.acct(AccountKind::Escrow { table })?,
                house: self.acct(AccountKind::House { table })?,
                commission: self.acct(AccountKind::Commission { table })?,
                antes: self.acct(AccountKind::Antes { table })?,
            })
        })();
        let Some(accounts) = accounts else {
            self.problems.push(format!("table {table}: its ledger accounts are missing"));
            return;
        };
        let float = records.iter().find_map(|(_, b)| match &b.casino {
            Some(CasinoEvent::TableConfigured { float, .. }) => Some(*float),
            _ => None,
        });
        if let (Some(f), Some(c)) = (float.filter(|f| f.0 > 0), cage) {
            expected.insert(Cause::Float { table }, vec![(TransferKind::Posted, c, accounts.house, f)]);
        }
        let mut wallets: HashMap<WagerId, AccountId> = HashMap::new();
        for (seq, b) in records {
            let Some(e) = &b.event else { continue };
            let (wager, ops): (WagerId, Vec<Expected>) = match e {
                Event::WagerPlaced { wager } => {
                    let Some(w) = self.acct(AccountKind::Wallet { player: wager.player }) else {
                        self.problems
                            .push(format!("table {table} record {seq}: wager {} by a player with no wallet", wager.id));
                        continue;
                    };
                    wallets.insert(wager.id, w);
                    (wager.id, vec![(TransferKind::Pending, w, accounts.escrow, wager.amount + wager.ante)])
                }
                Event::WagerWithdrawn { wager } | Event::WagerReturned { wager, .. } => {
                    let w = wallets.get(wager).copied().unwrap_or_default();
                    (*wager, vec![(TransferKind::VoidOf(0), w, accounts.escrow, Money::ZERO)])
                }
                Event::WagerSettled { wager, settlement, ante, .. } => {
                    let w = wallets.get(wager).copied().unwrap_or_default();
                    let ops = settlement_ops(0, w, &accounts, settlement, *ante);
                    (*wager, ops.iter().map(|op| expect(op, w, accounts.escrow)).collect())
                }
                _ => continue,
            };
            expected.entry(Cause::Wager { table, wager }).or_default().extend(ops);
        }
        self.compare(expected);
    }

    fn compare(&mut self, expected: BTreeMap<Cause, Vec<Expected>>) {
        for (cause, want) in &expected {
            let got = self.by_cause.remove(cause).unwrap_or_default();
            if let Some(why) = differs(want, &got) {
                self.problems.push(format!("ledger: {} does not match its audit event: {why}", describe(*cause)));
            }
        }
    }

    /// What is left: transfers no audit event explained, and keyed transfers
    /// whose idempotency answer is gone.
    pub fn finish(mut self) -> Vec<String> {
        for (cause, got) in std::mem::take(&mut self.by_cause) {
            let ids: Vec<String> = got.iter().map(|t| t.id.to_string()).collect();
            self.problems.push(format!(
                "ledger: transfer {} names {} but no audit event explains it",
                ids.join(", "),
                describe(cause)
            ));
        }
        self.problems.extend(unanswered(self.snap));
        self.problems
    }
}

fn expect(op: &Op, wallet: AccountId, escrow: AccountId) -> Expected {
    match op {
        Op::Transfer { debit, credit, amount, .. } => (TransferKind::Posted, *debit, *credit, *amount),
        Op::Hold { debit, credit, amount, .. } => (TransferKind::Pending, *debit, *credit, *amount),
        Op::Post { amount, .. } => (TransferKind::PostOf(0), wallet, escrow, *amount),
        Op::Void { .. } => (TransferKind::VoidOf(0), wallet, escrow, Money::ZERO),
    }
}

/// Why the transfers `got` are not the ones `want`, if they are not.
fn differs(want: &[Expected], got: &[&Transfer]) -> Option<String> {
    if want.len() != got.len() {
        return Some(format!("{} transfers expected, {} found", want.len(), got.len()));
    }
    let hold = got.first().map(|t| t.id).unwrap_or_default();
    for (w, t) in want.iter().zip(got) {
        let kind = match w.0 {
            TransferKind::PostOf(_) => TransferKind::PostOf(hold),
            TransferKind::VoidOf(_) => TransferKind::VoidOf(hold),
            k => k,
        };
        if (kind, w.1, w.2, w.3) != (t.kind, t.debit, t.credit, t.amount) {
            return Some(format!(
                "transfer {} is {:?} {} from {} to {}; the record calls for {:?} {} from {} to {}",
                t.id, t.kind, t.amount, t.debit, t.credit, kind, w.3, w.1, w.2
            ));
        }
    }
    None
}

fn describe(c: Cause) -> String {
    match c {
        Cause::None => "no cause".into(),
        Cause::Deposit { seq } => format!("the deposit of the casino's chain record {seq}"),
        Cause::Float { table } => format!("table {table}'s float"),
        Cause::Wager { table, wager } => format!("table {table} wager {wager}"),
    }
}

/// Every hold, deposit and float was made under an idempotency key whose
/// answer must still be kept: without it a retry would be applied again.
fn unanswered(snap: &Snapshot) -> Vec<String> {
    let mut answered: HashSet<u64> = HashSet::new();
    for (key, _, json) in &snap.answers {
        match serde_json::from_str::<Answer>(json) {
            Ok(Ok(ids)) => answered.extend(ids),
            Ok(Err(_)) => {}
            Err(e) => return vec![format!("ledger: the answer for key {key:?} is unreadable: {e}")],
        }
    }
    let missing: Vec<String> = snap
        .transfers
        .iter()
        .filter(|t| matches!(t.cause, Cause::Deposit { .. } | Cause::Float { .. }) || t.kind == TransferKind::Pending)
        .filter(|t| !answered.contains(&t.id))
        .map(|t| t.id.to_string())
        .collect();
    if missing.is_empty() {
        return vec![];
    }
    let shown: Vec<&str> = missing.iter().take(10).map(String::as_str).collect();
    vec![format!(
        "ledger: {} keyed transfers have no idempotency answer (deleted?): {}{}",
        missing.len(),
        shown.join(", "),
        if missing.len() > 10 { ", …" } else { "" }
    )]
}
