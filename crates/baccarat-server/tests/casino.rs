//! The casino core: wagers held, coups settled into the ledger, every event in the
//! audit chain, retries answered once, and everything durable in the store.

use baccarat_rules::{Bet, Money};
use baccarat_server::audit::verify;
use baccarat_server::auth::Role;
use baccarat_server::casino::{Casino, Code, Mode, Reply, Request};
use baccarat_server::ledger::Ledger;
use baccarat_server::store::{Commit, SqliteStore, Store};
use baccarat_server::trust::Actor;
use baccarat_table::engine::PlayerId;
use baccarat_table::engine::{Command, Phase, Spot};

const CONFIG: &str = "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 100000\n[bets.player_pair]\n";

fn casino() -> (Casino, Commit) {
    let mut c = Casino::new();
    let mut commit = Commit::default();
    c.create_table(1, "NSW", "nsw-2021", CONFIG, Mode::Rng, Money(100_000_000), &mut commit).unwrap();
    for p in 1..=3 {
        c.handle(Request::Deposit { player: PlayerId(p), amount: Money(100_000), key: "start".into() }, &mut commit);
    }
    (c, commit)
}

fn wager(player: u32, bet: Bet, amount: i64, key: &str) -> Request {
    Request::Wager {
        table: 1,
        player: PlayerId(player),
        spot: Spot::Box(player as u8),
        bet,
        amount: Money(amount),
        key: key.into(),
        ante: Money::ZERO,
    }
}

#[test]
fn a_coup_end_to_end_through_the_ledger_and_the_audit_chain() {
    let (mut c, mut commit) = casino();
    assert!(matches!(c.handle(Request::NewShoe { table: 1 }, &mut commit), Reply::Events { .. }));
    c.handle(
        Request::Table {
            table: 1,
            command: Command::OpenBetting { no_bet: false, closes_at: None },
            by: Actor::Server,
        },
        &mut commit,
    );
    let first = c.handle(wager(1, Bet::Banker, 5000, "a"), &mut commit);
    let Reply::Wager { balance, .. } = first.clone() else { panic!("{first:?}") };
    assert_eq!(balance, Money(95_000));
    // A retry with the same key returns the first answer and holds nothing more.
    assert_eq!(c.handle(wager(1, Bet::Banker, 5000, "a"), &mut commit), first);
    assert_eq!(c.balance(PlayerId(1)).unwrap().1, Money(95_000));
    c.handle(wager(2, Bet::Player, 3000, "b"), &mut commit);
    c.handle(wager(3, Bet::PlayerPair, 1000, "c"), &mut commit);
    // Refused by the rules: nothing held.
    let r = c.handle(wager(3, Bet::Tie, 50, "d"), &mut commit);
    assert!(matches!(&r, Reply::Refused { rule: Some(rule), .. } if rule.contains("NSW 6.1")), "{r:?}");
    let r = c.handle(wager(2, Bet::Tie, 200_000, "e"), &mut commit);
    assert!(r.code() == Some(Code::Wallet), "{r:?}");
    c.handle(Request::Table { table: 1, command: Command::CloseBetting, by: Actor::Server }, &mut commit);
    while matches!(c.phase(1), Some(Phase::Closed | Phase::Dealing)) {
        c.handle(Request::Table { table: 1, command: Command::DealNext, by: Actor::Server }, &mut commit);
    }
    assert_eq!(c.phase(1), Some(Phase::Ready));
    c.ledger.check().unwrap();
    let total: i64 = (1..=3).map(|p| c.balance(PlayerId(p)).unwrap().0 .0).sum();
    let nets: i64 = (1..=3).map(|p| c.balance(PlayerId(p)).unwrap().0 .0 - 100_000).sum();
    assert_eq!(total, 300_000 + nets);
    for p in 1..=3 {
        let (bal, avail) = c.balance(PlayerId(p)).unwrap();
        assert_eq!(bal, avail, "no hold is left after settlement");
    }

    // Every event is in the chain, with its rulebook and engine.
    let records: Vec<_> = commit.records.iter().filter(|(t, _)| *t == 1).map(|(_, r)| r.clone()).collect();
    verify(&records).unwrap();
    // The first record is the table's configuration; the first engine event names its rulebook.
    assert!(records[0].body.contains("table_configured"));
    assert!(records[1].body.contains("\"rulebook\":\"nsw-2021\"") && records[1].body.contains("rulebook_sha256"));
    assert!(records.iter().any(|r| r.body.contains("wager_settled")));
    // The coup's opening record names the rulebook, its version hash and the
    // engine; its wager records lean on it through the chain.
    for r in records.iter().filter(|r| r.body.contains("\"event\":{")) {
        let header = r.body.contains("\"rulebook_sha256\"") && r.body.contains("\"engine\"");
        let wager = r.body.contains("\"wager_placed\"") || r.body.contains("\"wager_settled\"");
        assert_eq!(header, !wager, "{}", r.body);
    }

    // The store takes it all in one transaction and gives back the same books.
    let mut store = SqliteStore::memory().unwrap();
    store.commit(&commit).unwrap();
    let snap = store.load().unwrap();
    let l = Ledger::restore(snap.accounts, snap.transfers, snap.answers).unwrap();
    for p in 1..=3 {
        let id = l.find(&baccarat_server::ledger::AccountKind::Wallet { player: PlayerId(p) }).unwrap();
        assert_eq!(Money(l.account(id).unwrap().balance), c.balance(PlayerId(p)).unwrap().0);
    }
}

#[test]
fn withdrawn_and_refused_wagers_release_their_holds() {
    let (mut c, mut commit) = casino();
    c.handle(Request::NewShoe { table: 1 }, &mut commit);
    c.handle(
        Request::Table {
            table: 1,
            command: Command::OpenBetting { no_bet: false, closes_at: None },
            by: Actor::Server,
        },
        &mut commit,
    );
    let Reply::Wager { wager: w1, .. } = c.handle(wager(1, Bet::Player, 5000, "x"), &mut commit) else { panic!() };
    let Reply::Wager { wager: w2, .. } = c.handle(wager(2, Bet::Banker, 5000, "y"), &mut commit) else { panic!() };
    c.handle(Request::Withdraw { table: 1, player: PlayerId(1), wager: w1 }, &mut commit);
    let supervisor = Actor::Person { user: 90, role: Role::Supervisor };
    c.handle(Request::Table { table: 1, command: Command::RefuseWager { wager: w2 }, by: supervisor }, &mut commit);
    assert_eq!(c.balance(PlayerId(1)).unwrap(), (Money(100_000), Money(100_000)));
    assert_eq!(c.balance(PlayerId(2)).unwrap(), (Money(100_000), Money(100_000)));
    c.ledger.check().unwrap();
}

/// DESIGN 9, "a limit on everything": a casino runs at most `MAX_TABLES` tables
/// and a coup takes at most `MAX_WAGERS_PER_COUP` wagers; past either, the
/// request is refused and nothing changes.
#[test]
fn tables_and_wagers_per_coup_are_bounded() {
    use baccarat_server::casino::{MAX_TABLES, MAX_WAGERS_PER_COUP};
    let mut c = Casino::new();
    let mut commit = Commit::default();
    let config = "rulebook = \"nsw-2021\"\nchip = 100\nmin = 100\nmax = 10000000000\n";
    for id in 1..=MAX_TABLES as u32 {
        c.create_table(id, "T", "nsw-2021", config, Mode::Rng, Money(100_000_000), &mut commit).unwrap();
    }
    let r = c.handle(
        Request::CreateTable {
            name: "one more".into(),
            rulebook: "nsw-2021".into(),
            config: config.into(),
            mode: Mode::Rng,
        },
        &mut commit,
    );
    assert!(matches!(&r, Reply::Refused { message, .. } if message.contains("at most")), "{r:?}");
    assert_eq!(c.tables.len(), MAX_TABLES);

    c.handle(Request::Deposit { player: PlayerId(1), amount: Money(1_000_000_000_000), key: "in".into() }, &mut commit);
    c.handle(Request::NewShoe { table: 1 }, &mut commit);
    c.handle(
        Request::Table {
            table: 1,
            command: Command::OpenBetting { no_bet: false, closes_at: None },
            by: Actor::Server,
        },
        &mut commit,
    );
    let mut commit = Commit::default();
    for i in 0..MAX_WAGERS_PER_COUP {
        let r = c.handle(wager(1, Bet::Banker, 100, &format!("w{i}")), &mut commit);
        assert!(matches!(r, Reply::Wager { .. }), "wager {i}: {r:?}");
    }
    let before = c.balance(PlayerId(1)).unwrap();
    let r = c.handle(wager(1, Bet::Banker, 100, "over"), &mut commit);
    assert!(r.code() == Some(Code::Bounds), "{r:?}");
    assert_eq!(c.balance(PlayerId(1)).unwrap(), before, "nothing held for the refused wager");
}
