use super::*;
use crate::ids::TableId;
use baccarat_table::PlayerId;

fn setup() -> (Ledger, AccountId, AccountId, AccountId, AccountId) {
    let mut l = Ledger::new();
    let cage = l.open(AccountKind::Cage);
    let wallet = l.open(AccountKind::Wallet { player: PlayerId(1) });
    let escrow = l.open(AccountKind::Escrow { table: TableId(1) });
    let house = l.open(AccountKind::House { table: TableId(1) });
    l.apply("buy-in", &[Op::Transfer { debit: cage, credit: wallet, amount: Money(10_000), memo: "chips".into() }])
        .unwrap();
    l.apply("float", &[Op::Transfer { debit: cage, credit: house, amount: Money(1_000_000), memo: "float".into() }])
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
        l.apply(key, &[Op::Hold { debit: wallet, credit: escrow, amount: Money(amount), memo: key.into() }]).unwrap()[0]
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
    assert_eq!(taken.iter().map(|t| (t.id, t.amount)).collect::<Vec<_>>(), vec![(a, Money(1000)), (b, Money(2000))]);
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
        Op::Post { hold: TransferId(999), amount: Money(1) },
    ];
    assert_eq!(l.apply("k", &bad), Err(LedgerError::NotPending(TransferId(999))));
    assert_eq!(l.account(wallet), before.account(wallet), "nothing of a refused batch applies");
    assert_eq!(l.transfer_count(), before.transfer_count());
    // The same key returns the first answer; a different request under it is refused.
    assert_eq!(l.apply("k", &bad), Err(LedgerError::NotPending(TransferId(999))));
    let good = [Op::Hold { debit: wallet, credit: escrow, amount: Money(100), memo: "ok".into() }];
    assert!(matches!(l.apply("k", &good), Err(LedgerError::KeyReused(_))));
    let first = l.apply("k2", &good).unwrap();
    assert_eq!(l.apply("k2", &good).unwrap(), first);
    assert_eq!(l.account(wallet).unwrap().held, 100, "the retry did not hold twice");
}

#[test]
fn void_releases_and_refusals_name_the_reason() {
    let (mut l, cage, wallet, escrow, _) = setup();
    let hold =
        l.apply("w", &[Op::Hold { debit: wallet, credit: escrow, amount: Money(500), memo: "w".into() }]).unwrap()[0];
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
                let hold = holds.get(b % holds.len().max(1)).copied().unwrap_or(TransferId(9999));
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

/// A transfer's id and a key's id read and write as the numbers they were
/// before they had types (issue 46): checkpoints, stored answers and index
/// rows written then read the same now.
#[test]
fn typed_ids_keep_their_bytes() {
    let t = TransferId(42);
    assert_eq!(serde_json::to_string(&t).unwrap(), "42");
    assert_eq!(serde_json::from_str::<TransferId>("42").unwrap(), t);
    assert_eq!(format!("{t} {t:?}"), "42 42");
    assert_eq!("42".parse::<TransferId>().unwrap(), t);
    assert!("-1".parse::<TransferId>().is_err());
    let answer: Answer = Ok(vec![TransferId(7), TransferId(9)]);
    assert_eq!(serde_json::to_string(&answer).unwrap(), r#"{"Ok":[7,9]}"#);
    assert_eq!(TransferId(u64::MAX).next(), None);
    let k = crate::ledger::key_id("wager:7:k1");
    assert_eq!(crate::ledger::KeyId::from_le_bytes(k.to_le_bytes()), k);
    assert_eq!(format!("{k:x}"), format!("{:x}", k.0));
}
