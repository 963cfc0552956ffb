//! Closing a table for good (`closing.rs`): at once when no coup is in
//! play, every chip it held to the cage to the cent; after its coup's
//! settlement otherwise; refused wagers and commands after; kept through a
//! checkpoint and a replay; and reconciled with the ledger as `verify` does.

use baccarat_core::{TableId, UserId};
use std::collections::{BTreeSet, HashMap};

use baccarat_rules::{Bet, Money};
use baccarat_table::{Command, Phase, PlayerId, Spot};

use super::closing::Closure;
use super::{Actor, Casino, Code, Mode, Reply, Request, SlipLine};
use crate::audit::{Body, CasinoEvent, CASINO_CHAIN};
use crate::ledger::{AccountKind, Cause, Transfer, TransferKind};
use crate::store::{Commit, SqliteStore, Store};
use crate::trust::Role;

const CONFIG: &str = "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 100000\n";
const ADMIN: Actor = Actor::Person { user: UserId(1), role: Role::Admin };

/// A casino whose every batch is stored, as the writer and committer do.
struct Floor {
    c: Casino,
    store: SqliteStore,
}

impl Floor {
    /// Table 1 ("Salon", RNG, with the default float) and players 1 to 4
    /// with 1,000.00 each.
    fn new() -> Floor {
        let mut f = Floor { c: Casino::new(), store: SqliteStore::memory().unwrap() };
        let create = Request::CreateTable {
            name: "Salon".into(),
            rulebook: "nsw-2021".into(),
            config: CONFIG.into(),
            mode: Mode::Rng,
            float: None,
        };
        assert_eq!(f.ask(create), Reply::Table { table: TableId(1) });
        for p in 1..=4 {
            f.ask(Request::Deposit {
                player: PlayerId(p),
                amount: Money(100_000),
                key: format!("in{p}").parse().unwrap(),
            });
        }
        f
    }

    /// One batch: the request, then the settlements it leaves (`settle.rs`).
    fn ask(&mut self, r: Request) -> Reply {
        let mut commit = Commit::default();
        let reply = self.c.handle(r, &mut commit);
        self.c.settle_some(&mut commit);
        self.store.commit(&commit).unwrap();
        reply
    }

    /// One batch with the request alone (a big coup's settlement left to
    /// the batches after it).
    fn ask_alone(&mut self, r: Request) -> Reply {
        let mut commit = Commit::default();
        let reply = self.c.handle(r, &mut commit);
        self.store.commit(&commit).unwrap();
        reply
    }

    fn server(&mut self, command: Command) -> Reply {
        self.ask(Request::Table { table: TableId(1), command, by: Actor::Server })
    }

    fn open_betting(&mut self) {
        assert!(matches!(self.ask(Request::NewShoe { table: TableId(1) }), Reply::Events { .. }));
        let r = self.server(Command::OpenBetting { no_bet: false, closes_at: None });
        assert!(matches!(r, Reply::Events { .. }), "{r:?}");
    }

    fn wager(&mut self, p: u32, bet: Bet, amount: i64, key: &str) -> Reply {
        let spot = Spot::Box(p as u8);
        self.ask(Request::Wager {
            table: TableId(1),
            player: PlayerId(p),
            spot,
            bet,
            amount: Money(amount),
            ante: Money::ZERO,
            key: key.parse().unwrap(),
        })
    }

    /// No more bets, and the cards to the coup's end.
    fn deal_out(&mut self) {
        assert!(matches!(self.server(Command::CloseBetting), Reply::Events { .. }));
        for _ in 0..8 {
            if !matches!(self.c.phase(TableId(1)), Some(Phase::Closed | Phase::Dealing)) {
                return;
            }
            self.server(Command::DealNext);
        }
        panic!("the coup did not end");
    }

    fn balance(&self, kind: AccountKind) -> i64 {
        self.c.ledger.find(&kind).and_then(|a| self.c.ledger.account(a)).map_or(0, |a| a.balance)
    }

    /// What the table's accounts hold, and the cage.
    fn money(&self) -> [i64; 4] {
        [
            self.balance(AccountKind::House { table: TableId(1) }),
            self.balance(AccountKind::Commission { table: TableId(1) }),
            self.balance(AccountKind::Antes { table: TableId(1) }),
            self.balance(AccountKind::Cage),
        ]
    }

    /// The last record of table 1's chain, decoded.
    fn last_record(&self) -> Body {
        let head = self.store.head(TableId(1)).unwrap().unwrap();
        Body::decode(&head.body).unwrap()
    }
}

/// Every transfer the store holds, reconciled with every chain's records as
/// `verify` does (`reconcile`), after `alter` (a forger's hand) touched the
/// transfers: the problems found.
fn reconcile(store: &SqliteStore, alter: impl Fn(&mut Vec<Transfer>)) -> Vec<String> {
    use baccarat_core::reconcile::{Detail, Reconciler, Sums};
    let records = |table| {
        let mut v = Vec::new();
        store
            .each_record_after(table, 0, &mut |r| {
                v.push(r);
                Ok(())
            })
            .unwrap();
        v
    };
    let mut transfers = Vec::new();
    store
        .each_transfer_after(0, &mut |t| {
            transfers.push(t);
            Ok(())
        })
        .unwrap();
    alter(&mut transfers);
    let mut books = Reconciler::new(&store.accounts().unwrap());
    let chains: Vec<TableId> =
        std::iter::once(CASINO_CHAIN).chain(store.tables().unwrap().iter().map(|r| r.id)).collect();
    for &table in &chains {
        let mut sums = Sums::default();
        let mut reading = books.chain(table);
        for r in records(table) {
            reading
                .feed(r.seq, &Body::decode(&r.body).unwrap(), &mut |c, at, e| books.expect_into(&mut sums, c, at, e));
        }
        let read = reading.finish();
        books.close(table, read, sums);
    }
    let mut open: HashMap<crate::ledger::TransferId, Cause> = HashMap::new();
    for t in &transfers {
        let of_hold = match t.kind {
            TransferKind::Pending => open.insert(t.id, t.cause).and(None),
            TransferKind::PostOf(h) | TransferKind::VoidOf(h) => open.remove(&h).map(|c| c == t.cause),
            TransferKind::Posted => None,
        };
        books.transfer(t, of_hold);
    }
    for round in books.rounds() {
        let mut d = Detail::new(&round);
        for &table in round.parts.keys().filter(|t| books.reconciled(**t)) {
            let mut reading = books.chain(table);
            for r in records(table) {
                reading.feed(r.seq, &Body::decode(&r.body).unwrap(), &mut |c, _, e| d.expect(c, e));
            }
        }
        transfers.iter().for_each(|t| d.transfer(t.clone()));
        books.settle(d);
    }
    books.finish()
}

#[test]
fn a_quiet_table_closes_at_once_and_every_chip_it_held_goes_to_the_cage() {
    let mut f = Floor::new();
    f.open_betting();
    assert!(matches!(f.wager(1, Bet::Banker, 10_000, "a"), Reply::Wager { .. }));
    assert!(matches!(f.wager(2, Bet::Player, 20_000, "b"), Reply::Wager { .. }));
    f.deal_out();
    let [house, commission, antes, cage] = f.money();
    assert!(house > 0);
    let r = f.ask(Request::CloseTable { table: TableId(1), by: ADMIN });
    let credited = Money(house + commission + antes);
    assert_eq!(r, Reply::TableClosed { table: TableId(1), closed: true, closing: false, credited: Some(credited) });
    let wire = serde_json::to_value(&r).unwrap();
    assert_eq!(
        wire,
        serde_json::json!({ "result": "table_closed", "table": 1, "closed": true, "credited": credited.0 })
    );
    // To the cent: the cage has what the table held, the table nothing.
    assert_eq!(f.money(), [0, 0, 0, cage + credited.0]);
    let sum: i64 = f.c.ledger.accounts().map(|a| a.balance).sum();
    assert_eq!(sum, 0, "the ledger's balances still sum to zero");
    assert!(f.c.ledger.check().is_ok());
    assert!(matches!(f.c.handle(Request::CheckLedger, &mut Commit::default()), Reply::Ledger { ok: true, .. }));
    // The record: who, and how much, in the table's own chain.
    let b = f.last_record();
    let Some(CasinoEvent::TableClosed { credited: c, by: UserId(1), commission: m, antes: a, at_ms }) = b.casino else {
        panic!("{:?}", b.casino)
    };
    assert_eq!((c, m, a), (credited, Money(commission), Money(antes)));
    assert!(at_ms > 0, "dated by the writer's clock");
    assert_eq!(b.by, Some(ADMIN));
    assert_eq!(f.c.tables[&TableId(1)].closure, Closure::Closed);
    assert_eq!(reconcile(&f.store, |_| {}), Vec::<String>::new());
}

#[test]
fn a_close_verify_cannot_match_is_reported() {
    let mut f = Floor::new();
    f.ask(Request::CloseTable { table: TableId(1), by: ADMIN });
    // The float moved back, but 1.00 less than the record says.
    let problems = reconcile(&f.store, |ts| {
        let t = ts.iter_mut().find(|t| t.cause == Cause::Closed { table: TableId(1) }).expect("the close's transfer");
        t.amount = t.amount - Money(100);
    });
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].contains("table 1's close"), "{problems:?}");
    // And a close with no record: its transfer is unexplained.
    let problems = reconcile(&f.store, |ts| {
        let mut extra = ts.last().unwrap().clone();
        extra.id = crate::ledger::TransferId(extra.id.0 + 1);
        extra.cause = Cause::Closed { table: TableId(2) };
        ts.push(extra);
    });
    assert!(problems.iter().any(|p| p.contains("no audit event explains it")), "{problems:?}");
}

#[test]
fn a_table_closing_during_a_coup_takes_no_wager_and_closes_when_it_settles() {
    let mut f = Floor::new();
    f.open_betting();
    assert!(matches!(f.wager(1, Bet::Banker, 10_000, "a"), Reply::Wager { .. }));
    let closing = Reply::TableClosed { table: TableId(1), closed: false, closing: true, credited: None };
    assert_eq!(f.ask(Request::CloseTable { table: TableId(1), by: ADMIN }), closing);
    assert_eq!(
        serde_json::to_value(&closing).unwrap(),
        serde_json::json!({ "result": "table_closed", "table": 1, "closed": false, "closing": true })
    );
    assert_eq!(f.last_record().casino, Some(CasinoEvent::TableClosing { by: UserId(1) }));
    // Nothing new comes into play: a wager, a slip, a staff wager.
    let held = f.c.balance(PlayerId(2)).unwrap();
    assert_eq!(f.wager(2, Bet::Player, 5_000, "b").code(), Some(Code::Closed));
    let line = SlipLine { spot: Spot::Box(2), bet: Bet::Player, amount: Money(5_000), ante: Money::ZERO };
    let slip =
        f.ask(Request::Wagers { table: TableId(1), player: PlayerId(2), slip: vec![line], key: "s".parse().unwrap() });
    assert!(matches!(&slip, Reply::Wagers { results, .. } if results[0].code() == Some(Code::Closed)), "{slip:?}");
    assert_eq!(f.c.balance(PlayerId(2)).unwrap(), held);
    assert_eq!(f.ask(Request::SetOpen { table: TableId(1), open: true }).code(), Some(Code::Closed));
    // Asked again: the same answer, and nothing recorded.
    let len = f.c.tables[&TableId(1)].chain.len();
    assert_eq!(f.ask(Request::CloseTable { table: TableId(1), by: ADMIN }), closing);
    assert_eq!(f.c.tables[&TableId(1)].chain.len(), len);
    // The coup is dealt out; its settlement closes the table in the same step.
    let cage = f.money()[3];
    f.deal_out();
    assert_eq!(f.c.tables[&TableId(1)].closure, Closure::Closed);
    assert!(f.c.tables[&TableId(1)].holds.is_empty());
    assert_eq!(f.c.balance(PlayerId(1)).map(|b| b.0 == b.1), Some(true), "the wager settled: nothing held");
    let Some(CasinoEvent::TableClosed { credited, by: UserId(1), .. }) = f.last_record().casino else { panic!() };
    assert_eq!(f.money(), [0, 0, 0, cage + credited.0]);
    assert_eq!(f.server(Command::OpenBetting { no_bet: false, closes_at: None }).code(), Some(Code::Closed));
    assert_eq!(f.ask(Request::NewShoe { table: TableId(1) }).code(), Some(Code::Closed));
    assert_eq!(reconcile(&f.store, |_| {}), Vec::<String>::new());
}

#[test]
fn a_coup_settled_in_chunks_closes_the_table_after_its_last_chunk() {
    let mut f = Floor::new();
    f.open_betting();
    for i in 0..(super::settle::FIRST_CHUNK as u32 + 20) {
        let r = f.wager(1 + i % 4, Bet::Banker, 1_000, &format!("w{i}"));
        assert!(matches!(r, Reply::Wager { .. }), "{r:?}");
    }
    f.ask(Request::CloseTable { table: TableId(1), by: ADMIN });
    f.ask_alone(Request::Table { table: TableId(1), command: Command::CloseBetting, by: Actor::Server });
    while !f.c.settling() {
        f.ask_alone(Request::Table { table: TableId(1), command: Command::DealNext, by: Actor::Server });
    }
    assert!(
        matches!(f.c.tables[&TableId(1)].closure, Closure::Closing { by: UserId(1) }),
        "still settling: not closed yet"
    );
    assert!(f.c.tables[&TableId(1)].coup_in_play());
    let mut commit = Commit::default();
    f.c.settle_all(&mut commit);
    f.store.commit(&commit).unwrap();
    assert_eq!(f.c.tables[&TableId(1)].closure, Closure::Closed);
    assert_eq!(f.money()[..3], [0, 0, 0]);
    assert_eq!(reconcile(&f.store, |_| {}), Vec::<String>::new());
}

#[test]
fn a_closed_table_refuses_wagers_commands_and_a_second_close() {
    let mut f = Floor::new();
    f.open_betting();
    // Closed at once while betting is open, with no wager in it.
    assert!(matches!(
        f.ask(Request::CloseTable { table: TableId(1), by: ADMIN }),
        Reply::TableClosed { closed: true, .. }
    ));
    let before = f.c.balance(PlayerId(1));
    assert_eq!(f.wager(1, Bet::Banker, 10_000, "late").code(), Some(Code::Closed));
    let token = Request::TokenWager {
        table: TableId(1),
        player: PlayerId(1),
        spot: Spot::Box(1),
        bet: Bet::Banker,
        amount: Money(1_000),
        key: "t".parse().unwrap(),
    };
    assert_eq!(f.ask(token).code(), Some(Code::Closed));
    assert_eq!(f.c.balance(PlayerId(1)), before, "nothing held");
    let dealer = Actor::Person { user: UserId(2), role: Role::Dealer };
    for (command, by) in [(Command::CloseBetting, Actor::Server), (Command::DealNext, dealer)] {
        assert_eq!(f.ask(Request::Table { table: TableId(1), command, by }).code(), Some(Code::Closed));
    }
    assert_eq!(f.ask(Request::CloseTable { table: TableId(1), by: ADMIN }).code(), Some(Code::Closed), "closing twice");
    let cage = f.balance(AccountKind::Cage);
    for fill in [
        Request::Fill { table: TableId(1), amount: Money(10_000), key: "f".parse().unwrap(), by: UserId(1) },
        Request::Credit { table: TableId(1), amount: Money(1), key: "c".parse().unwrap(), by: UserId(1) },
    ] {
        assert_eq!(f.ask(fill).code(), Some(Code::Closed), "no fill or credit at a closed table");
    }
    assert_eq!(f.balance(AccountKind::Cage), cage);
    assert_eq!(f.ask(Request::SetOpen { table: TableId(1), open: false }).code(), Some(Code::Closed));
    assert_eq!(f.ask(Request::VoidHalted { table: TableId(1), by: ADMIN }).code(), Some(Code::Halted));
    // It stays: its accounts, its chain, its name, its view.
    assert!(f.c.tables.contains_key(&TableId(1)));
    let mut views = crate::table_view::Views::default();
    views.rebuild(&f.c);
    let v = serde_json::to_value(&views.tables[0]).unwrap();
    assert_eq!((v["closed"].clone(), v["closing"].clone()), (serde_json::json!(true), serde_json::json!(false)));
    assert_eq!(views.tables[0].wagers_closed.as_ref().and_then(Reply::code), Some(Code::Closed));
    // A restart resumes no coup at it.
    assert!(f.c.resume_interrupted(&mut Commit::default()).is_empty());
}

#[test]
fn only_an_admin_closes_a_table_and_a_refusal_writes_nothing() {
    let mut f = Floor::new();
    for by in [
        Actor::Server,
        Actor::Person { user: UserId(3), role: Role::Supervisor },
        Actor::Person { user: UserId(4), role: Role::Dealer },
        Actor::Person { user: UserId(5), role: Role::Player },
    ] {
        let mut commit = Commit::default();
        let r = f.c.handle(Request::CloseTable { table: TableId(1), by }, &mut commit);
        assert_eq!(r.code(), Some(Code::Role), "{by:?}");
        assert!(commit.records.is_empty() && commit.ledger.is_empty(), "{by:?}");
    }
    let r = f.ask(Request::CloseTable { table: TableId(9), by: ADMIN });
    assert_eq!(r.code(), Some(Code::NoTable));
    assert_eq!(f.c.tables[&TableId(1)].closure, Closure::Open);
}

/// Table 1 closed at once; table 2 closing with a wager in play. Both stay
/// so through a replay of the whole history and through a checkpoint, and
/// table 2 still closes when its coup ends after the restart.
#[test]
fn closed_and_closing_survive_a_checkpoint_and_a_replay() {
    let mut f = Floor::new();
    let create = Request::CreateTable {
        name: "Two".into(),
        rulebook: "nsw-2021".into(),
        config: CONFIG.into(),
        mode: Mode::Rng,
        float: None,
    };
    assert_eq!(f.ask(create), Reply::Table { table: TableId(2) });
    f.ask(Request::CloseTable { table: TableId(1), by: ADMIN });
    f.ask(Request::NewShoe { table: TableId(2) });
    f.ask(Request::Table {
        table: TableId(2),
        command: Command::OpenBetting { no_bet: false, closes_at: None },
        by: Actor::Server,
    });
    let w = Request::Wager {
        table: TableId(2),
        player: PlayerId(1),
        spot: Spot::Box(1),
        bet: Bet::Banker,
        amount: Money(10_000),
        ante: Money::ZERO,
        key: "a".parse().unwrap(),
    };
    assert!(matches!(f.ask(w), Reply::Wager { .. }));
    f.ask(Request::CloseTable { table: TableId(2), by: ADMIN });
    let cp = f.c.checkpoint();
    // A checkpoint written before tables could close reads as open tables.
    let mut old = serde_json::to_value(&cp).unwrap();
    assert_eq!(old["tables"][0]["closure"], serde_json::json!({ "state": "closed" }));
    assert_eq!(old["tables"][1]["closure"], serde_json::json!({ "state": "closing", "by": 1 }));
    old["tables"].as_array_mut().unwrap().iter_mut().for_each(|t| drop(t.as_object_mut().unwrap().remove("closure")));
    let old: super::checkpoint::Checkpoint = serde_json::from_value(old).unwrap();
    assert!(old.tables.iter().all(|t| t.closure == Closure::Open));
    let cp: super::checkpoint::Checkpoint = serde_json::from_str(&serde_json::to_string(&cp).unwrap()).unwrap();
    let none = BTreeSet::new();
    for from in [None, Some(cp)] {
        let label = if from.is_some() { "from the checkpoint" } else { "replayed" };
        let mut c = super::recover(&f.store, from, super::Keys::Since(0), &none).unwrap().casino;
        assert_eq!(c.tables[&TableId(1)].closure, Closure::Closed, "{label}");
        assert_eq!(c.tables[&TableId(2)].closure, Closure::Closing { by: UserId(1) }, "{label}");
        assert_eq!(c.closing, BTreeSet::from([TableId(2)]), "{label}");
        let mut commit = Commit::default();
        let r = c.handle(
            Request::Wager {
                table: TableId(1),
                player: PlayerId(2),
                spot: Spot::Box(2),
                bet: Bet::Banker,
                amount: Money(1_000),
                ante: Money::ZERO,
                key: "x".parse().unwrap(),
            },
            &mut commit,
        );
        assert_eq!(r.code(), Some(Code::Closed), "{label}");
        // Table 2's coup is dealt out after the restart, and it closes.
        for command in [Command::CloseBetting].into_iter().chain(std::iter::repeat_n(Command::DealNext, 8)) {
            if matches!(c.tables[&TableId(2)].closure, Closure::Closed) {
                break;
            }
            c.handle(Request::Table { table: TableId(2), command, by: Actor::Server }, &mut commit);
        }
        assert_eq!(c.tables[&TableId(2)].closure, Closure::Closed, "{label}");
        assert!(c.closing.is_empty(), "{label}");
    }
}
