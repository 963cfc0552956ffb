//! The cage (`cage.rs`): cash-outs, fills and credits move exactly what they
//! say, once, and a refusal changes nothing; each is a record and a
//! transfer that reconcile, and they survive a checkpoint and a restart.

use baccarat_core::{TableId, UserId};
use std::collections::BTreeSet;
use std::sync::Arc;

use baccarat_rules::{Bet, Money};
use baccarat_table::{Command, PlayerId, Spot};

use super::{Casino, Code, Mode, Reply, Request, SelfLimitsChange};
use crate::audit::{Body, CasinoEvent, CASINO_CHAIN};
use crate::ledger::{AccountKind, Cause, Transfer};
use crate::store::{Commit, SqliteStore, Store};
use crate::trust::Actor;

const CONFIG: &str = "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 1000000\n";
const P: PlayerId = PlayerId(1);
const ADMIN: UserId = UserId(9);
/// 2026-11-24 00:00 UTC, the clock of every test here.
const T: u64 = 1_795_478_400_000;

/// A casino with table 1 (a float of `float`), player 1 holding 10,000.00,
/// and betting open.
fn casino(float: i64, commit: &mut Commit) -> Casino {
    let mut c = Casino::new();
    c.clock = Arc::new(|| T);
    c.create_table(TableId(1), "NSW", "nsw-2021", CONFIG, Mode::Rng, Money(float), commit).unwrap();
    c.handle(Request::Deposit { player: P, amount: Money(1_000_000), key: "in".parse().unwrap() }, commit);
    c.handle(Request::NewShoe { table: TableId(1) }, commit);
    let open = Command::OpenBetting { no_bet: false, closes_at: None };
    c.handle(Request::Table { table: TableId(1), command: open, by: Actor::Server }, commit);
    c
}

fn cash_out(amount: i64, key: &str) -> Request {
    Request::CashOut { player: P, amount: Money(amount), key: key.parse().unwrap(), by: ADMIN }
}

fn wager(amount: i64, key: &str) -> Request {
    Request::Wager {
        table: TableId(1),
        player: P,
        spot: Spot::Box(1),
        bet: Bet::Banker,
        amount: Money(amount),
        ante: Money::ZERO,
        key: key.parse().unwrap(),
    }
}

fn cage(c: &Casino) -> i64 {
    c.ledger.account(c.ledger.find(&AccountKind::Cage).unwrap()).unwrap().balance
}

/// The casino's chain's records, decoded.
fn casino_events(commit: &Commit) -> Vec<(u64, CasinoEvent)> {
    let bodies = commit.records.iter().filter(|(t, _)| *t == CASINO_CHAIN);
    bodies.filter_map(|(_, r)| Body::decode(&r.body).unwrap().casino.map(|e| (r.seq, e))).collect()
}

fn transfers(commit: &Commit) -> Vec<Transfer> {
    commit.ledger.iter().flat_map(|ch| ch.transfers.clone()).collect()
}

/// Whether a commit wrote anything at all.
fn wrote_nothing(commit: &Commit) -> bool {
    commit.records.is_empty()
        && commit.tables.is_empty()
        && commit.ledger.iter().all(|ch| ch.transfers.is_empty() && ch.accounts.is_empty() && ch.answer.is_none())
}

#[test]
fn a_cash_out_moves_exactly_its_amount_and_is_recorded_with_its_transfer() {
    let mut commit = Commit::default();
    let mut c = casino(100_000_000, &mut commit);
    let cage_before = cage(&c);
    let mut out = Commit::default();
    let r = c.handle(cash_out(250_000, "out-1"), &mut out);
    assert_eq!(r, Reply::CashOut { balance: Money(750_000), cashed_out: Money(250_000) });
    assert_eq!(c.balance(P), Some((Money(750_000), Money(750_000))));
    assert_eq!(cage(&c), cage_before + 250_000);
    let events = casino_events(&out);
    let want = CasinoEvent::CashedOut { player: P, amount: Money(250_000), key: "out-1".into(), by: ADMIN, at_ms: T };
    assert_eq!(events.iter().map(|e| &e.1).collect::<Vec<_>>(), vec![&want]);
    let seq = events[0].0;
    let moved = transfers(&out);
    let wallet = c.ledger.find(&AccountKind::Wallet { player: P }).unwrap();
    let cage_id = c.ledger.find(&AccountKind::Cage).unwrap();
    assert_eq!(moved.len(), 1);
    assert_eq!((moved[0].debit, moved[0].credit, moved[0].amount), (wallet, cage_id, Money(250_000)));
    assert_eq!(moved[0].cause, Cause::Cage { seq }, "the transfer names its record");
    assert!(c.ledger.check().is_ok());
}

#[test]
fn a_replayed_key_answers_again_and_moves_nothing_and_another_amount_is_refused() {
    let mut commit = Commit::default();
    let mut c = casino(100_000_000, &mut commit);
    let first = c.handle(cash_out(100_000, "k"), &mut commit);
    let chain = c.chain.len();
    let mut again = Commit::default();
    assert_eq!(c.handle(cash_out(100_000, "k"), &mut again), first);
    assert!(wrote_nothing(&again), "a retry writes nothing");
    let other = c.handle(cash_out(200_000, "k"), &mut again);
    assert_eq!(other.code(), Some(Code::Idempotency), "{other:?}");
    assert!(wrote_nothing(&again));
    assert_eq!((c.balance(P).unwrap().0, c.chain.len()), (Money(900_000), chain));
    // The same client key at another route is another key.
    let fill = c.handle(
        Request::Fill { table: TableId(1), amount: Money(100), key: "k".parse().unwrap(), by: ADMIN },
        &mut again,
    );
    assert!(matches!(fill, Reply::Float { table: TableId(1), .. }), "{fill:?}");
}

#[test]
fn a_cash_out_beyond_the_free_balance_is_refused_naming_both_figures_and_changes_nothing() {
    let mut commit = Commit::default();
    let mut c = casino(100_000_000, &mut commit);
    assert!(matches!(c.handle(wager(700_000, "w"), &mut commit), Reply::Wager { .. }));
    let (chain, cage_before) = (c.chain.len(), cage(&c));
    let mut refused = Commit::default();
    let r = c.handle(cash_out(500_000, "big"), &mut refused);
    let Reply::Refused { code: Code::Ledger, message, .. } = &r else { panic!("{r:?}") };
    assert_eq!(
        message,
        "cash-out 5000.00 is more than the 3000.00 free in the wallet (10000.00 less 7000.00 in open wagers)"
    );
    assert!(wrote_nothing(&refused), "a refusal writes nothing");
    assert_eq!((c.balance(P), c.chain.len(), cage(&c)), (Some((Money(1_000_000), Money(300_000))), chain, cage_before));
    // The refusal bound no key: all that is free may go under it.
    let r = c.handle(cash_out(300_000, "big"), &mut refused);
    assert_eq!(r, Reply::CashOut { balance: Money(700_000), cashed_out: Money(300_000) });
    // No wallet at all: nothing is free, and none is opened.
    let r = c.handle(
        Request::CashOut { player: PlayerId(77), amount: Money(1), key: "x".parse().unwrap(), by: ADMIN },
        &mut refused,
    );
    assert!(
        matches!(&r, Reply::Refused { code: Code::Ledger, message, .. } if message.contains("the 0.00 free")),
        "{r:?}"
    );
    assert!(c.ledger.find(&AccountKind::Wallet { player: PlayerId(77) }).is_none());
    for bad in [0, -5, baccarat_rules::MAX_LIMIT + 1] {
        let r = c.handle(cash_out(bad, &format!("bad{bad}")), &mut Commit::default());
        assert!(
            matches!(&r, Reply::Refused { code: Code::Ledger, message, .. } if message.starts_with("amount:")),
            "{r:?}"
        );
    }
}

/// The writer handles one request at a time: of a cash-out and a wager that
/// together exceed the wallet, whichever comes first is taken and the other
/// refused, in either order.
#[test]
fn a_cash_out_racing_a_wager_lets_exactly_one_win() {
    for cash_out_first in [true, false] {
        let mut commit = Commit::default();
        let mut c = casino(100_000_000, &mut commit);
        let (a, b) = (cash_out(600_000, "out"), wager(600_000, "bet"));
        let (first, second) = if cash_out_first { (a, b) } else { (b, a) };
        let r1 = c.handle(first, &mut commit);
        let r2 = c.handle(second, &mut commit);
        assert!(r1.code().is_none(), "the first is taken: {r1:?}");
        let want = if cash_out_first { Code::Wallet } else { Code::Ledger };
        assert_eq!(r2.code(), Some(want), "the second is refused: {r2:?}");
        assert_eq!(c.balance(P).unwrap().1, Money(400_000));
        assert!(c.ledger.check().is_ok() && c.holds_problem().is_none());
    }
}

#[test]
fn fills_and_credits_move_exactly_between_the_cage_and_the_float() {
    let mut commit = Commit::default();
    let mut c = casino(5_000_000, &mut commit);
    let cage_before = cage(&c);
    let fill = Request::Fill { table: TableId(1), amount: Money(1_000_000), key: "f".parse().unwrap(), by: ADMIN };
    let mut out = Commit::default();
    assert_eq!(c.handle(fill.clone(), &mut out), Reply::Float { table: TableId(1), float: Money(6_000_000) });
    let credit = Request::Credit { table: TableId(1), amount: Money(2_500_000), key: "c".parse().unwrap(), by: ADMIN };
    assert_eq!(c.handle(credit.clone(), &mut out), Reply::Float { table: TableId(1), float: Money(3_500_000) });
    assert_eq!(cage(&c), cage_before + 1_500_000);
    let events: Vec<CasinoEvent> = casino_events(&out).into_iter().map(|e| e.1).collect();
    assert_eq!(
        events,
        vec![
            CasinoEvent::Filled { table: TableId(1), amount: Money(1_000_000), key: "f".into(), by: ADMIN, at_ms: T },
            CasinoEvent::Credited { table: TableId(1), amount: Money(2_500_000), key: "c".into(), by: ADMIN, at_ms: T },
        ]
    );
    let house = c.tables[&TableId(1)].accounts.house;
    let cage_id = c.ledger.find(&AccountKind::Cage).unwrap();
    let seqs: Vec<u64> = casino_events(&out).iter().map(|e| e.0).collect();
    let moved: Vec<_> = transfers(&out).iter().map(|t| (t.debit, t.credit, t.amount, t.cause)).collect();
    assert_eq!(
        moved,
        vec![
            (cage_id, house, Money(1_000_000), Cause::Cage { seq: seqs[0] }),
            (house, cage_id, Money(2_500_000), Cause::Cage { seq: seqs[1] }),
        ]
    );
    // Replayed: the same answers, nothing moved.
    let mut again = Commit::default();
    assert_eq!(c.handle(fill, &mut again), Reply::Float { table: TableId(1), float: Money(3_500_000) });
    assert_eq!(c.handle(credit, &mut again), Reply::Float { table: TableId(1), float: Money(3_500_000) });
    assert!(wrote_nothing(&again));
    let none = c.handle(
        Request::Fill { table: TableId(5), amount: Money(1), key: "f".parse().unwrap(), by: ADMIN },
        &mut again,
    );
    assert_eq!(none.code(), Some(Code::NoTable));
    assert!(wrote_nothing(&again));
}

#[test]
fn a_credit_that_would_leave_the_float_short_of_the_open_wagers_is_refused_naming_both() {
    let mut commit = Commit::default();
    let mut c = casino(5_000_000, &mut commit);
    assert!(matches!(c.handle(wager(500_000, "w"), &mut commit), Reply::Wager { .. }));
    let (float, liability) = (c.float_of(TableId(1)), c.tables[&TableId(1)].liability);
    assert!(liability > Money::ZERO && float == Money(5_000_000));
    let over = float - liability + Money(1);
    let mut refused = Commit::default();
    let r = c.handle(
        Request::Credit { table: TableId(1), amount: over, key: "c".parse().unwrap(), by: ADMIN },
        &mut refused,
    );
    let Reply::Refused { code: Code::Float, message, .. } = &r else { panic!("{r:?}") };
    let left = liability - Money(1);
    assert_eq!(
        message,
        &format!(
            "credit {over} would leave table 1's float at {left} (it is {float}), short of the {liability} its open \
             wagers could win at best"
        )
    );
    assert!(wrote_nothing(&refused));
    assert_eq!(c.float_of(TableId(1)), float);
    // Exactly to the open wagers' best-line win is allowed.
    let exact = float - liability;
    let r = c.handle(
        Request::Credit { table: TableId(1), amount: exact, key: "c".parse().unwrap(), by: ADMIN },
        &mut commit,
    );
    assert_eq!(r, Reply::Float { table: TableId(1), float: liability });
    // And then no wager more can be covered.
    assert_eq!(c.handle(wager(1_000, "w2"), &mut commit).code(), Some(Code::Float));
}

/// A cash-out is money leaving, not a loss; the day's room under a loss
/// limit is what it was (and a deposit is not a win).
#[test]
fn a_cash_out_is_not_a_loss_under_the_players_own_limit() {
    let mut commit = Commit::default();
    let mut c = casino(100_000_000, &mut commit);
    let set = SelfLimitsChange::Set { loss_per_day: Some(Money(10_000)), minutes_per_day: None };
    c.handle(Request::SelfLimits { player: P, change: set }, &mut commit);
    assert!(matches!(c.handle(wager(6_000, "w1"), &mut commit), Reply::Wager { .. }), "opens the day");
    assert!(c.handle(cash_out(500_000, "home"), &mut commit).code().is_none());
    assert_eq!(c.handle(wager(4_100, "w2"), &mut commit).code(), Some(Code::SelfLimit), "no more room than before");
    assert!(matches!(c.handle(wager(4_000, "w3"), &mut commit), Reply::Wager { .. }), "and no less");
    c.handle(Request::Deposit { player: P, amount: Money(100_000), key: "more".parse().unwrap() }, &mut commit);
    assert_eq!(c.handle(wager(1_000, "w4"), &mut commit).code(), Some(Code::SelfLimit), "a deposit is no win");
}

#[test]
fn a_cash_out_at_a_partition_is_refused_naming_why() {
    let mut commit = Commit::default();
    let mut c = casino(100_000_000, &mut commit);
    c.set_partition("east");
    let mut refused = Commit::default();
    let r = c.handle(cash_out(1_000, "k"), &mut refused);
    let Reply::Refused { code: Code::Wallet, message, .. } = &r else { panic!("{r:?}") };
    assert!(message.contains("partition east") && message.contains("at the bank"), "{message}");
    assert!(wrote_nothing(&refused));
}

/// Balances, the chain and the keys survive a checkpoint and the tail after
/// it, and a restart from the whole log: a key answered before answers
/// again after, moving nothing.
#[test]
fn cage_movements_survive_a_checkpoint_and_a_restart() {
    let mut store = SqliteStore::memory().unwrap();
    let mut commit = Commit::default();
    let mut c = casino(5_000_000, &mut commit);
    c.handle(cash_out(100_000, "o1"), &mut commit);
    c.handle(
        Request::Fill { table: TableId(1), amount: Money(700_000), key: "f1".parse().unwrap(), by: ADMIN },
        &mut commit,
    );
    store.commit(&commit).unwrap();
    let cp = c.checkpoint();
    let mut tail = Commit::default();
    c.handle(cash_out(50_000, "o2"), &mut tail);
    c.handle(
        Request::Credit { table: TableId(1), amount: Money(200_000), key: "c1".parse().unwrap(), by: ADMIN },
        &mut tail,
    );
    store.commit(&tail).unwrap();
    let from_checkpoint = super::recover(&store, Some(cp), super::Keys::Since(0), &BTreeSet::new()).unwrap().casino;
    let from_log = Casino::recover(&store).unwrap();
    for mut r in [from_checkpoint, from_log] {
        let accounts = |c: &Casino| c.ledger.accounts().cloned().collect::<Vec<_>>();
        assert_eq!(accounts(&r), accounts(&c));
        assert_eq!(r.chain.len(), c.chain.len());
        assert_eq!(r.float_of(TableId(1)), Money(5_500_000));
        r.clock = Arc::new(|| T);
        let mut again = Commit::default();
        let retry = r.handle(cash_out(100_000, "o1"), &mut again);
        assert_eq!(retry, Reply::CashOut { balance: Money(850_000), cashed_out: Money(100_000) });
        let retry = r.handle(
            Request::Credit { table: TableId(1), amount: Money(200_000), key: "c1".parse().unwrap(), by: ADMIN },
            &mut again,
        );
        assert_eq!(retry, Reply::Float { table: TableId(1), float: Money(5_500_000) });
        assert!(wrote_nothing(&again));
    }
}

/// `verify`'s reconciliation (`reconcile/`) of `records` and `transfers`:
/// its problems.
fn reconcile(c: &Casino, records: &[(TableId, crate::audit::Record)], transfers: &[Transfer]) -> Vec<String> {
    use baccarat_core::reconcile::{Detail, Reconciler, Sums};
    let accounts: Vec<_> = c.ledger.accounts().cloned().collect();
    let mut books = Reconciler::new(&accounts);
    let chains: BTreeSet<TableId> = records.iter().map(|r| r.0).collect();
    let bodies = |table: TableId| {
        let of = records.iter().filter(move |(t, _)| *t == table);
        of.map(|(_, r)| (r.seq, Body::decode(&r.body).unwrap()))
    };
    for &table in &chains {
        let mut sums = Sums::default();
        let read = {
            let b = &books;
            let mut reading = b.chain(table);
            for (seq, body) in bodies(table) {
                reading.feed(seq, &body, &mut |cause, at, e| b.expect_into(&mut sums, cause, at, e));
            }
            reading.finish()
        };
        books.close(table, read, sums);
    }
    for t in transfers {
        books.transfer(t, None);
    }
    for round in books.rounds() {
        let mut d = Detail::new(&round);
        for &table in round.parts.keys().filter(|t| books.reconciled(**t)) {
            let mut reading = books.chain(table);
            for (seq, body) in bodies(table) {
                reading.feed(seq, &body, &mut |cause, _, e| d.expect(cause, e));
            }
        }
        transfers.iter().for_each(|t| d.transfer(t.clone()));
        books.settle(d);
    }
    books.finish()
}

/// Each movement's transfer reconciles with its record; a transfer no
/// record explains, a record whose transfer is gone, and a transfer of
/// another amount are each named.
#[test]
fn verify_reconciles_each_movement_with_its_record_and_names_a_forgery() {
    let mut commit = Commit::default();
    let mut c = casino(5_000_000, &mut commit);
    c.handle(cash_out(100_000, "o"), &mut commit);
    c.handle(
        Request::Fill { table: TableId(1), amount: Money(300_000), key: "f".parse().unwrap(), by: ADMIN },
        &mut commit,
    );
    c.handle(
        Request::Credit { table: TableId(1), amount: Money(200_000), key: "c".parse().unwrap(), by: ADMIN },
        &mut commit,
    );
    let (records, honest) = (commit.records.clone(), transfers(&commit));
    assert_eq!(reconcile(&c, &records, &honest), Vec::<String>::new());
    let cash_out = honest.iter().position(|t| t.memo == "cash-out").unwrap();
    let Cause::Cage { seq } = honest[cash_out].cause else { panic!("{:?}", honest[cash_out]) };

    // A forged payment to the cage naming a record that is no cage's.
    let mut forged = honest.clone();
    let id = crate::ledger::TransferId(forged.last().unwrap().id.0 + 1);
    forged.push(Transfer { id, cause: Cause::Cage { seq: 999 }, ..honest[cash_out].clone() });
    let p = reconcile(&c, &records, &forged);
    let want = format!(
        "ledger: transfer {id} names the cage's movement of the casino's chain record 999 but no audit event explains it"
    );
    assert_eq!(p, vec![want]);

    // The cash-out's record kept, its transfer gone.
    let mut gone = honest.clone();
    gone.remove(cash_out);
    let p = reconcile(&c, &records, &gone);
    assert_eq!(
        p,
        vec![format!(
            "ledger: the cage's movement of the casino's chain record {seq} does not match its audit event: 1 \
             transfers expected, 0 found"
        )]
    );

    // Its amount raised.
    let mut more = honest.clone();
    more[cash_out].amount = Money(100_001);
    let p = reconcile(&c, &records, &more);
    assert!(p.len() == 1 && p[0].contains(&format!("record {seq} does not match")), "{p:?}");
}
