//! The two books, the bank's and each partition's: money moved between
//! them once, in both or in neither, and what a forger does to either named.

use super::*;
use baccarat_core::TableId;

/// One player with 10,000 at the bank wagers at tables of two partitions at
/// once: the second partition gets only what the first left, a wager beyond
/// it is refused by the wallet, and after both coups settle and the idle
/// money goes back, every chip is at the bank (or won by a house), and the
/// two sides' books agree. A deposit at a partition is refused: money comes
/// from the bank.
#[test]
fn one_players_wagers_at_two_partitions_never_spend_more_than_the_bank_holds() {
    let db = database("partition_wagers");
    let mut east = Part::new(&db, "east");
    let mut west = Part::new(&db, "west");
    let mut bank = Bank::connect(&db).unwrap();
    deposit(&mut east, 1, 10_000);
    deposit(&mut east, 2, 10_000);

    match east.step(Request::Deposit { player: PlayerId(1), amount: Money(500), key: "d".parse().unwrap() }) {
        Reply::Refused { code: Code::Wallet, message, .. } => assert!(message.contains("partition east"), "{message}"),
        other => panic!("{other:?}"),
    }

    east.open_betting();
    west.open_betting();
    assert!(matches!(east.wager(1, 6_000, "e1"), Reply::Wager { .. }));
    assert!(matches!(east.wager(2, 2_000, "e2"), Reply::Wager { .. }));
    match west.wager(1, 6_000, "w1") {
        Reply::Refused { code: Code::Wallet, .. } => {}
        other => panic!("only 4,000 is left at the bank: {other:?}"),
    }
    assert!(matches!(west.wager(1, 4_000, "w2"), Reply::Wager { .. }), "what is left is taken");
    assert_eq!(bank.wallet(1).unwrap(), 0, "all of player 1's money is held at the two tables");
    assert_eq!((east.wallet(1), west.wallet(1)), ((6_000, 0), (4_000, 0)));
    assert_eq!(east.sweep(), 0, "nothing idle while held");
    books_agree(&mut [&mut east, &mut west], &mut bank);

    east.finish_coup();
    west.finish_coup();
    // (The shoes are the OS's: who won differs from run to run, and what
    // follows holds whoever did.)
    east.sweep();
    west.sweep();
    for p in [&east, &west] {
        for player in [1, 2] {
            assert_eq!(p.wallet(player), (0, 0), "partition {}: player {player}'s money went back", p.name);
        }
    }
    books_agree(&mut [&mut east, &mut west], &mut bank);
    // Every chip is at the bank or was won by a house: the houses' results
    // are what the players' balances at the bank moved by.
    let house = |p: &Part| {
        p.casino
            .ledger
            .accounts()
            .filter(|a| !matches!(a.kind, AccountKind::Cage | AccountKind::Bank | AccountKind::Wallet { .. }))
            .map(|a| a.balance)
            .sum::<i64>()
            - 100_000_000
    };
    let players = bank.wallet(1).unwrap() + bank.wallet(2).unwrap();
    assert_eq!(players + house(&east) + house(&west), 20_000, "nothing made or lost");

    // The partition's own audit: its ledger reconciles with its chains,
    // bank moves included.
    let snap = east.store.load().unwrap();
    let f = baccarat_server::verify::verify(&snap);
    assert!(f.problems.is_empty(), "{:?}", f.problems);
}

/// A crash between the bank's transaction and the partition's: the bank
/// gave the money, the partition's batch never committed. A start recovers
/// the partition, takes from the bank every allotment after the last it
/// recorded (once: a second look takes nothing), and gives the idle money
/// back. An allotment recorded twice, or out of order, is refused.
#[test]
fn an_allotment_the_partition_never_recorded_is_taken_at_the_next_start() {
    use baccarat_casino::casino::{recover, Keys};
    let db = database("partition_orphan");
    let mut east = Part::new(&db, "east");
    let mut bank = Bank::connect(&db).unwrap();
    deposit(&mut east, 1, 10_000);
    east.open_betting();
    assert!(matches!(east.wager(1, 3_000, "e1"), Reply::Wager { .. }));
    // The writer's next allotment: made at the bank, then the server dies
    // before its batch (the allotment and the wager) commits.
    let lost = allot("east", 1, 2_500, "east:e1:a99");
    let made = east.bank.make(&lost, Some(&east.lease)).unwrap();
    let mut doomed = Commit::default();
    east.casino.allotted(PlayerId(1), Money(2_500), made.record.seq, &made.record.hash, &mut doomed).unwrap();
    drop(doomed);
    assert_eq!(bank.wallet(1).unwrap(), 4_500);

    let none = std::collections::BTreeSet::new();
    let mut casino = recover(&east.store, None, Keys::Since(0), &none).unwrap().casino;
    casino.clock = east.casino.clock.clone();
    casino.set_partition("east");
    assert_eq!(casino.bank.last_seq, made.record.seq - 1, "the first allotment was recorded, the second not");
    assert_eq!(casino.balance(PlayerId(1)).map(|b| b.0 .0), Some(3_000));
    east.casino = casino;
    let moves = east.bank.moves_of("east", east.casino.bank.last_seq).unwrap();
    let mut commit = Commit::default();
    assert_eq!(east.casino.take_missing_allotments(&moves, &mut commit), Ok(1));
    assert_eq!(east.casino.take_missing_allotments(&moves, &mut commit), Ok(0), "taken once");
    east.store.commit(&commit).unwrap();
    assert_eq!(east.wallet(1), (5_500, 2_500), "the lost allotment is here, beside the wager's hold");
    let e = east.casino.allotted(PlayerId(1), Money(1), made.record.seq, &made.record.hash, &mut Commit::default());
    assert!(e.unwrap_err().to_string().contains("not after the last one recorded"));

    east.finish_coup();
    east.sweep();
    assert_eq!(east.wallet(1), (0, 0));
    books_agree(&mut [&mut east], &mut bank);
    let f = baccarat_server::verify::verify(&east.store.load().unwrap());
    assert!(f.problems.is_empty(), "{:?}", f.problems);
    // From a checkpoint too: the last allotment recorded is kept in it.
    let cp = east.casino.checkpoint();
    assert_eq!(cp.bank_seq, made.record.seq);
    let from_cp = recover(&east.store, Some(cp), Keys::Since(0), &none).unwrap().casino;
    assert_eq!(from_cp.bank.last_seq, made.record.seq);
}

/// A partition that lost its lease gives nothing back: the batch that
/// carries a return is refused whole, at the bank and in the partition.
#[test]
fn a_stale_partition_gives_nothing_back() {
    let db = database("partition_stale");
    let mut east = Part::new(&db, "east");
    let mut bank = Bank::connect(&db).unwrap();
    deposit(&mut east, 1, 10_000);
    // 1,000 taken from the bank and not wagered: idle here.
    east.open_betting();
    let Reply::Wager { wager, .. } = east.wager(1, 1_000, "e1") else { panic!("placed") };
    let r = east.step(Request::Withdraw { table: TableId(1), player: PlayerId(1), wager });
    assert!(!matches!(r, Reply::Refused { .. }), "{r:?}");
    assert_eq!(east.wallet(1), (1_000, 1_000));
    let held_before = east.store.head(TableId(0)).unwrap().map(|r| r.seq);
    east.store.with_client(|c| c.execute("UPDATE leases SET expires_at = now() - interval '1 second'", &[]).unwrap());
    let mut standby = PgStore::connect(&partition_url(&db, "east").unwrap()).unwrap();
    standby.take_casino("east-standby", "http://127.0.0.1:2", 60_000).unwrap().unwrap();
    let mut commit = Commit::default();
    let before = bank.wallet(1).unwrap();
    east.wait(baccarat_casino::casino::bank_side::RETURN_AFTER_MS);
    assert_eq!(east.casino.return_idle(&mut commit), 1);
    let e = east.store.commit(&commit).unwrap_err();
    assert!(e.to_string().starts_with("fenced:"), "{e}");
    assert_eq!(bank.wallet(1).unwrap(), before, "nothing came back from a stale server");
    assert_eq!(east.store.head(TableId(0)).unwrap().map(|r| r.seq), held_before, "and its chain did not move");
}

/// A dishonest partition server (it holds the lease, so the bank takes its
/// moves) gives money "back" to the bank that its books never had, or takes
/// an allotment it never books: `verify --partition`'s check of its account
/// at the bank against its positions names the first, and notes the second
/// until the partition's next start records it.
#[test]
fn money_moved_at_the_bank_outside_the_partitions_books_is_named() {
    use baccarat_cluster::pg_store::bank::verify::check_partition;
    let db = database("partition_forged");
    let mut east = Part::new(&db, "east");
    deposit(&mut east, 1, 10_000);
    east.open_betting();
    assert!(matches!(east.wager(1, 2_000, "e1"), Reply::Wager { .. }));
    let url = partition_url(&db, "east").unwrap();
    let (report, notes, problems) = check_partition(&url, "east").unwrap();
    assert!(report.ok() && notes.is_empty() && problems.is_empty(), "{report:?} {notes:?} {problems:?}");

    let minted = Move {
        kind: MoveKind::Return,
        player: 1,
        amount: 5_000,
        partition: Some("east".into()),
        reference: "east:forged".into(),
        loss_day: None,
    };
    east.bank.make(&minted, Some(&east.lease)).unwrap();
    let (report, _, problems) = check_partition(&url, "east").unwrap();
    assert!(report.ok(), "the bank's own chain is sound: {report:?}");
    assert!(
        problems.iter().any(|p| p.contains("its account at the bank stands at -2000") && p.contains("net -3000")),
        "{problems:?}"
    );

    assert!(problems.iter().any(|p| p.contains("(Return of 5000 for player 1) is not in its books")), "{problems:?}");

    let unbooked = Move { kind: MoveKind::Allot, amount: 700, reference: "east:unbooked".into(), ..minted };
    let made = east.bank.make(&unbooked, Some(&east.lease)).unwrap();
    let (_, notes, _) = check_partition(&url, "east").unwrap();
    assert!(notes.iter().any(|n| n.contains(&format!("[{}]", made.record.seq)) && n.contains("(700)")), "{notes:?}");
}

/// A deposit sent to a partition's server is paid into the bank by the
/// partition's commit, recorded in its chain, once under its idempotency
/// key: the same key again, before the commit and after it, answers the
/// first deposit, and the key with another amount is refused, either way.
#[test]
fn a_deposit_at_a_partitions_server_is_made_once_at_the_bank() {
    use baccarat_cluster::pg_store::bank::link::BankLink;
    use baccarat_cluster::pg_store::bank::verify::check_partition;
    let db = database("partition_deposit");
    let mut east = Part::new(&db, "east");
    let url = partition_url(&db, "east").unwrap();
    let mut link = BankLink::connect(&url, "east", east.lease.clone()).unwrap();
    let deposit =
        |amount: i64| Request::Deposit { player: PlayerId(4), amount: Money(amount), key: "cash-1".parse().unwrap() };
    let mut commit = Commit::default();
    for round in 0..2 {
        for _ in 0..2 {
            match link.before(&mut east.casino, &deposit(2_500), &mut commit) {
                Some(Reply::Deposit { balance }) => assert_eq!(balance, Money(2_500), "round {round}"),
                other => panic!("{other:?}"),
            }
        }
        match link.before(&mut east.casino, &deposit(9_999), &mut commit) {
            Some(Reply::Refused { message, .. }) => assert!(message.contains("cash-1"), "{message}"),
            other => panic!("{other:?}"),
        }
        assert_eq!(east.bank.wallet(4).unwrap(), if round == 0 { 0 } else { 2_500 }, "made with the commit");
        east.store.commit(&std::mem::take(&mut commit)).unwrap();
    }
    assert_eq!(east.bank.wallet(4).unwrap(), 2_500);
    assert_eq!(east.casino.chain.len(), 1, "one `caged` record in the partition's chain");
    let (report, notes, problems) = check_partition(&url, "east").unwrap();
    assert!(report.ok() && notes.is_empty() && problems.is_empty(), "{report:?} {notes:?} {problems:?}");
    // A second link (a restarted server: nothing in memory) answers the
    // retry from the bank.
    let mut again = BankLink::connect(&url, "east", east.lease.clone()).unwrap();
    let mut commit = Commit::default();
    assert!(matches!(again.before(&mut east.casino, &deposit(2_500), &mut commit), Some(Reply::Deposit { .. })));
    assert!(commit.bank.is_empty() && commit.records.is_empty(), "nothing made again");
}

/// Money stays at a partition while its player goes on playing, and goes
/// back to the bank once they have held nothing there for
/// `RETURN_AFTER_MS`: a hold restarts the wait.
#[test]
fn idle_money_goes_back_a_while_after_the_last_hold_closes() {
    use baccarat_casino::casino::bank_side::RETURN_AFTER_MS;
    let db = database("partition_idle");
    let mut east = Part::new(&db, "east");
    let mut bank = Bank::connect(&db).unwrap();
    deposit(&mut east, 1, 10_000);
    east.open_betting();
    let Reply::Wager { wager, .. } = east.wager(1, 4_000, "e1") else { panic!("placed") };
    let give_back = |east: &mut Part| {
        let mut commit = Commit::default();
        let n = east.casino.return_idle(&mut commit);
        east.store.commit(&commit).unwrap();
        n
    };
    east.wait(RETURN_AFTER_MS * 5);
    assert_eq!(give_back(&mut east), 0, "held: it stays");
    assert!(!matches!(
        east.step(Request::Withdraw { table: TableId(1), player: PlayerId(1), wager }),
        Reply::Refused { .. }
    ));
    assert_eq!(give_back(&mut east), 0, "held a moment ago: it stays");
    east.wait(RETURN_AFTER_MS - 1);
    assert_eq!(give_back(&mut east), 0, "not yet a while");
    assert_eq!(bank.wallet(1).unwrap(), 6_000);
    east.wait(1);
    assert_eq!(give_back(&mut east), 1, "a while after the last hold closed");
    assert_eq!((bank.wallet(1).unwrap(), east.wallet(1)), (10_000, (0, 0)));
}

/// A dishonest partition books an allotment the bank made for one player
/// to another player's wallet: the totals still agree, but the record does
/// not match the bank's, and `verify --partition` names both sides.
#[test]
fn an_allotment_booked_to_another_player_is_named() {
    use baccarat_cluster::pg_store::bank::verify::check_partition;
    let db = database("partition_misbooked");
    let mut east = Part::new(&db, "east");
    deposit(&mut east, 1, 10_000);
    let alice = allot("east", 1, 3_000, "east:alice");
    let made = east.bank.make(&alice, Some(&east.lease)).unwrap();
    let mut commit = Commit::default();
    east.casino.allotted(PlayerId(2), Money(3_000), made.record.seq, &made.record.hash, &mut commit).unwrap();
    east.store.commit(&commit).unwrap();
    let (_, notes, problems) = check_partition(&partition_url(&db, "east").unwrap(), "east").unwrap();
    assert!(notes.is_empty(), "{notes:?}");
    let seq = made.record.seq;
    assert!(
        problems
            .iter()
            .any(|p| p.contains(&format!("to player 2 as the bank's record {seq}, which the bank has not made"))),
        "{problems:?}"
    );
    assert!(problems
        .iter()
        .any(|p| p.contains(&format!("record {seq} (Allot of 3000 for player 1) is not in its books"))));
}

/// Where each partition is served, for sending a client there: its lease's
/// instance, URL and epoch, its tables, and what it holds from the bank.
#[test]
fn the_casino_lists_its_partitions_and_where_they_are_served() {
    let db = database("partition_list");
    let mut east = Part::new(&db, "east");
    let _west = Part::new(&db, "west");
    deposit(&mut east, 1, 10_000);
    east.open_betting();
    assert!(matches!(east.wager(1, 2_500, "e1"), Reply::Wager { .. }));
    let list = baccarat_cluster::pg_store::bank::partitions(&db).unwrap();
    let seen: Vec<_> = list
        .iter()
        .map(|p| {
            (p.name.as_str(), p.instance.as_deref(), p.url.as_deref(), p.epoch, p.live, p.tables.clone(), p.allotted)
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("east", Some("east-server"), Some("http://127.0.0.1:1"), Some(1), true, vec![1], 2_500),
            ("west", Some("west-server"), Some("http://127.0.0.1:1"), Some(1), true, vec![1], 0),
        ]
    );
}

/// A forger with the database's credentials mints money at the bank: a
/// deposit appended to its chain, hashed as the bank hashes and with the
/// wallet and head rows to match, once naming no partition and once naming
/// east's cage. The bank's own chain is sound, and the
/// player could spend the money at any partition; but every deposit the
/// servers make is made at a partition's cage, in that partition's own
/// transaction and chain, so `verify --partition` names both forged ones.
#[test]
fn money_minted_at_the_bank_by_hand_is_named() {
    use baccarat_cluster::pg_store::bank::verify::check_partition;
    let db = database("partition_minted");
    let mut east = Part::new(&db, "east");
    deposit(&mut east, 1, 10_000);
    let url = partition_url(&db, "east").unwrap();
    let (report, notes, problems) = check_partition(&url, "east").unwrap();
    assert!(report.ok() && notes.is_empty() && problems.is_empty(), "{report:?} {notes:?} {problems:?}");
    assert_eq!(report.deposited, 10_000);

    let mut forger = Bank::connect(&url).unwrap();
    let mint = |partition: Option<&str>, reference: &str| Move {
        kind: MoveKind::Deposit,
        player: 1,
        amount: 1_000_000,
        partition: partition.map(String::from),
        reference: reference.into(),
        loss_day: None,
    };
    let loose = forger.make(&mint(None, "mint-1"), None).unwrap().record.seq;
    let named = forger.make(&mint(Some("east"), "mint-2"), None).unwrap().record.seq;
    assert_eq!(forger.wallet(1).unwrap(), 2_010_000, "the forged money is there to spend");
    let (report, _, problems) = check_partition(&url, "east").unwrap();
    assert!(report.ok(), "the bank's chain alone is sound: {:?}", report.problems);
    assert!(
        problems
            .iter()
            .any(|p| p
                .contains(&format!("record {loose}: a Deposit of 1000000 for player 1 made at no partition's cage"))),
        "{problems:?}"
    );
    assert!(
        problems
            .iter()
            .any(|p| p.contains(&format!("record {named} (Deposit of 1000000 for player 1) is not in its books"))),
        "{problems:?}"
    );
}
