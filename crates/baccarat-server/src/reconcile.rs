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

/// Reconcile `snap`'s ledger with the decoded records of every chain.
pub fn reconcile(snap: &Snapshot, bodies: &HashMap<u32, Vec<(u64, Body)>>) -> Vec<String> {
    let mut problems = Vec::new();
    let by_kind: HashMap<&AccountKind, AccountId> = snap.accounts.iter().map(|a| (&a.kind, a.id)).collect();
    let acct = |k: AccountKind| by_kind.get(&k).copied();
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
    let mut expected: BTreeMap<Cause, Vec<Expected>> = BTreeMap::new();
    let cage = acct(AccountKind::Cage);
    for (seq, b) in bodies.get(&CASINO_CHAIN).into_iter().flatten() {
        if let Some(CasinoEvent::Deposit { player, amount, .. }) = &b.casino {
            let wallet = acct(AccountKind::Wallet { player: *player });
            if let (Some(c), Some(w)) = (cage, wallet) {
                expected.insert(Cause::Deposit { seq: *seq }, vec![(TransferKind::Posted, c, w, *amount)]);
            } else {
                problems
                    .push(format!("the casino's chain record {seq}: a deposit to player {player}, who has no wallet"));
            }
        }
    }
    for (&table, records) in bodies.iter().filter(|(t, _)| **t != CASINO_CHAIN) {
        let accounts = (|| {
            Some(TableAccounts {
                escrow: acct(AccountKind::Escrow { table })?,
                house: acct(AccountKind::House { table })?,
                commission: acct(AccountKind::Commission { table })?,
                antes: acct(AccountKind::Antes { table })?,
            })
        })();
        let Some(accounts) = accounts else {
            problems.push(format!("table {table}: its ledger accounts are missing"));
            continue;
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
                    let Some(w) = acct(AccountKind::Wallet { player: wager.player }) else {
                        problems
                            .push(format!("table {table} record {seq}: wager {} by a player with no wallet", wager.id));
                        continue;
                    };
                    wallets.insert(wager.id, w);
                    (wager.id, vec![(TransferKind::Pending, w, accounts.escrow, wager.amount)])
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
    }
    for (cause, want) in &expected {
        let got = by_cause.remove(cause).unwrap_or_default();
        if let Some(why) = differs(want, &got) {
            problems.push(format!("ledger: {} does not match its audit event: {why}", describe(*cause)));
        }
    }
    for (cause, got) in by_cause {
        let ids: Vec<String> = got.iter().map(|t| t.id.to_string()).collect();
        problems.push(format!(
            "ledger: transfer {} names {} but no audit event explains it",
            ids.join(", "),
            describe(cause)
        ));
    }
    problems.extend(unanswered(snap));
    problems
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
