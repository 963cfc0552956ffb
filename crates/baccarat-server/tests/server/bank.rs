//! The bank (`bank/`) against a real PostgreSQL: players' money shared by the
//! partitions of one casino, taken by allotments that the database refuses
//! to overdraw and given back by returns, each under the partition's lease,
//! each move a record of the bank's chain that `bank::verify` recomputes.

use baccarat_cluster::pg_store::bank::verify::verify;
use baccarat_cluster::pg_store::bank::{Bank, BankError, LossDay, Move, MoveKind};
use baccarat_cluster::pg_store::{Lease, PgStore};
use baccarat_core::TableId;

use super::pg::database;

fn deposit(player: u32, amount: i64, reference: &str) -> Move {
    Move { kind: MoveKind::Deposit, player, amount, partition: None, reference: reference.into(), loss_day: None }
}

fn withdrawal(player: u32, amount: i64, reference: &str) -> Move {
    Move { kind: MoveKind::Withdrawal, player, amount, partition: None, reference: reference.into(), loss_day: None }
}

/// An allotment to `partition` of `amount` for `player`, as a partition's
/// writer asks for one (without a day's count).
pub(crate) fn allot(partition: &str, player: u32, amount: i64, reference: &str) -> Move {
    Move {
        kind: MoveKind::Allot,
        player,
        amount,
        partition: Some(partition.into()),
        reference: reference.into(),
        loss_day: None,
    }
}

fn give_back(partition: &str, player: u32, amount: i64, reference: &str) -> Move {
    Move {
        kind: MoveKind::Return,
        player,
        amount,
        partition: Some(partition.into()),
        reference: reference.into(),
        loss_day: None,
    }
}

/// A database with the casino's schema (its leases) and the bank's, and a
/// partition lease for each name, numbered from 1001: the leases.
fn casino(name: &str, partitions: &[&str]) -> (String, Vec<Lease>) {
    let url = database(name);
    let mut store = PgStore::connect(&url).unwrap();
    let leases = partitions
        .iter()
        .enumerate()
        .map(|(i, p)| store.acquire(TableId(1001 + i as u32), &format!("{p}-server"), 60_000).unwrap().unwrap())
        .collect();
    Bank::connect(&url).unwrap();
    (url, leases)
}

/// Money is where the moves put it: at the bank, or allotted to a partition.
/// An allotment or a withdrawal of more than the bank holds is refused and
/// names what it holds; the chain verifies, and its totals balance.
#[test]
fn each_move_leaves_the_money_where_it_says_and_none_overdraws() {
    let (url, leases) = casino("bank_moves", &["east", "west"]);
    let (east, west) = (&leases[0], &leases[1]);
    let mut bank = Bank::connect(&url).unwrap();
    let made = bank.make(&deposit(1, 1_000, "d1"), None).unwrap();
    assert_eq!((made.record.seq, made.body.wallet, made.replayed), (1, 1_000, false));
    let made = bank.make(&allot("east", 1, 300, "a1"), Some(east)).unwrap();
    assert_eq!((made.body.wallet, made.body.position, made.body.epoch), (700, Some(300), Some(east.epoch)));
    match bank.make(&allot("west", 1, 800, "a2"), Some(west)) {
        Err(BankError::Short { player: 1, available: 700, asked: 800 }) => {}
        other => panic!("{other:?}"),
    }
    bank.make(&give_back("east", 1, 100, "r1"), Some(east)).unwrap();
    let e = bank.make(&withdrawal(1, 900, "w1"), None).unwrap_err();
    assert_eq!(e.to_string(), "player 1: the bank holds 800, less than the 900 asked (nothing moved)");
    bank.make(&withdrawal(1, 800, "w2"), None).unwrap();
    assert_eq!(
        (bank.wallet(1).unwrap(), bank.position("east", 1).unwrap(), bank.position("west", 1).unwrap()),
        (0, 200, 0)
    );

    let r = bank.with_client(verify).unwrap();
    assert!(r.ok(), "{:?}", r.problems);
    assert_eq!((r.moves, r.deposited, r.withdrawn, r.at_bank), (4, 1_000, 800, 0));
    assert_eq!(r.allotted.get("east"), Some(&200));
    assert_eq!(r.deposited - r.withdrawn, r.at_bank + r.allotted.values().sum::<i64>(), "nothing made or lost");
    // The east partition's moves, for its recovery.
    let of_east = bank.moves_of("east", 0).unwrap();
    assert_eq!(
        of_east.iter().map(|(r, b)| (r.seq, b.bank.kind)).collect::<Vec<_>>(),
        [(2, MoveKind::Allot), (3, MoveKind::Return)]
    );
    assert_eq!(bank.moves_of("east", 2).unwrap().len(), 1);
}

/// Two partitions, each on its own connection, allot from the same four
/// wallets at once, asking for more in all than the wallets hold. Whatever
/// the interleaving, no wallet goes below zero, every granted allotment is
/// in the partition's position, and what was refused named a balance below
/// what it asked.
#[test]
fn two_partitions_allotting_at_once_never_overdraw() {
    let (url, leases) = casino("bank_race", &["east", "west"]);
    let mut bank = Bank::connect(&url).unwrap();
    for p in 1..=4 {
        bank.make(&deposit(p, 10_000, &format!("d{p}")), None).unwrap();
    }
    let runs: Vec<_> = leases
        .into_iter()
        .zip(["east", "west"])
        .map(|(lease, name)| {
            let url = url.clone();
            std::thread::spawn(move || {
                let mut bank = Bank::connect(&url).unwrap();
                let (mut granted, mut refused) = ([0i64; 5], 0);
                let mut x: u64 = 0x9e37_79b9_7f4a_7c15 ^ (u64::from(name.as_bytes()[0]) << 32);
                for i in 0..150 {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let (player, amount) = ((x % 4) as u32 + 1, ((x >> 8) % 400) as i64 + 1);
                    match bank.make(&allot(name, player, amount, &format!("{name}-{i}")), Some(&lease)) {
                        Ok(m) => {
                            assert!(m.body.wallet >= 0);
                            granted[player as usize] += amount;
                        }
                        Err(BankError::Short { available, asked, .. }) => {
                            assert!(available < asked);
                            refused += 1;
                        }
                        Err(e) => panic!("{e}"),
                    }
                }
                (name, granted, refused)
            })
        })
        .collect();
    let results: Vec<_> = runs.into_iter().map(|r| r.join().unwrap()).collect();
    let refused: i32 = results.iter().map(|r| r.2).sum();
    assert!(refused > 0, "the partitions asked for more than the wallets held, so some asks were refused");
    for p in 1..=4u32 {
        let granted: i64 = results.iter().map(|r| r.1[p as usize]).sum();
        assert!(granted <= 10_000, "player {p}: {granted} allotted from 10,000");
        assert_eq!(bank.wallet(p).unwrap(), 10_000 - granted, "player {p}");
        for (name, g, _) in &results {
            assert_eq!(bank.position(name, p).unwrap(), g[p as usize], "{name}, player {p}");
        }
    }
    let r = bank.with_client(verify).unwrap();
    assert!(r.ok(), "{:?}", r.problems);
    assert_eq!(r.deposited, r.at_bank + r.allotted.values().sum::<i64>());
}

/// A partition whose lease another server has taken (a new epoch) moves
/// nothing, whatever it still believes.
#[test]
fn a_partition_that_lost_its_lease_moves_nothing() {
    let (url, leases) = casino("bank_fence", &["east"]);
    let stale = &leases[0];
    let mut bank = Bank::connect(&url).unwrap();
    bank.make(&deposit(7, 500, "d"), None).unwrap();
    bank.make(&allot("east", 7, 200, "a1"), Some(stale)).unwrap();
    let mut other = PgStore::connect(&url).unwrap();
    other.with_client(|c| c.execute("UPDATE leases SET expires_at = now() - interval '1 second'", &[]).unwrap());
    let new = other.acquire(stale.table, "east-standby", 60_000).unwrap().unwrap();
    assert_eq!(new.epoch, stale.epoch + 1);
    for m in [allot("east", 7, 100, "a2"), give_back("east", 7, 100, "r1")] {
        match bank.make(&m, Some(stale)) {
            Err(BankError::Fenced(why)) => assert!(why.contains("partition east") && why.contains("epoch 1"), "{why}"),
            other => panic!("{other:?}"),
        }
    }
    assert_eq!((bank.wallet(7).unwrap(), bank.position("east", 7).unwrap()), (300, 200), "nothing moved");
    // The new owner goes on.
    bank.make(&give_back("east", 7, 200, "r2"), Some(&new)).unwrap();
    let r = bank.with_client(verify).unwrap();
    assert!(r.ok(), "{:?}", r.problems);
    assert_eq!((r.moves, r.at_bank), (3, 500));
}

/// A partition pays winners out of its own house money, so a player may
/// take home more than was allotted: the return is taken, the position goes
/// below zero, and the books still balance. A move refused inside a
/// partition's own transaction writes nothing there, even if that
/// transaction then commits.
#[test]
fn a_return_brings_winnings_home_and_a_refusal_writes_nothing() {
    let (url, leases) = casino("bank_winnings", &["east"]);
    let east = &leases[0];
    let mut bank = Bank::connect(&url).unwrap();
    bank.make(&deposit(1, 1_000, "d1"), None).unwrap();
    bank.make(&allot("east", 1, 400, "a1"), Some(east)).unwrap();
    let made = bank.make(&give_back("east", 1, 1_000, "r1"), Some(east)).unwrap();
    assert_eq!((made.body.wallet, made.body.position), (1_600, Some(-600)), "400 staked, 600 won");
    bank.with_client(|c| {
        let mut tx = c.transaction().unwrap();
        let e = baccarat_cluster::pg_store::bank::make_in(&mut tx, &withdrawal(1, 1_601, "w1"), None).unwrap_err();
        assert!(matches!(e, BankError::Short { available: 1_600, .. }), "{e}");
        let e =
            baccarat_cluster::pg_store::bank::make_in(&mut tx, &allot("east", 1, 1_601, "a2"), Some(east)).unwrap_err();
        assert!(matches!(e, BankError::Short { .. }), "{e}");
        tx.commit().unwrap();
    });
    assert_eq!((bank.wallet(1).unwrap(), bank.position("east", 1).unwrap()), (1_600, -600));
    let r = bank.with_client(verify).unwrap();
    assert!(r.ok(), "{:?}", r.problems);
    assert_eq!((r.moves, r.at_bank, r.allotted.get("east")), (3, 1_600, Some(&-600)));
    assert_eq!(r.deposited - r.withdrawn, r.at_bank + r.allotted.values().sum::<i64>());
}

/// A retry with the same reference answers the first record and moves
/// nothing; the reference used for another move is refused.
#[test]
fn a_reference_moves_money_once() {
    let (url, leases) = casino("bank_ref", &["east"]);
    let mut bank = Bank::connect(&url).unwrap();
    let first = bank.make(&deposit(3, 250, "cage-17"), None).unwrap();
    let again = bank.make(&deposit(3, 250, "cage-17"), None).unwrap();
    assert!(again.replayed && !first.replayed);
    assert_eq!(again.record, first.record);
    assert_eq!(bank.wallet(3).unwrap(), 250);
    for m in [deposit(3, 251, "cage-17"), withdrawal(3, 250, "cage-17"), allot("east", 3, 250, "cage-17")] {
        let fence = m.partition.as_ref().map(|_| &leases[0]);
        match bank.make(&m, fence) {
            Err(e @ BankError::Reused(_)) => assert_eq!(e.to_string(), "ref cage-17: already used for another move"),
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(bank.wallet(3).unwrap(), 250);
}

/// Bad input is refused by the field it is in, before the database is asked.
#[test]
fn a_bad_move_is_refused_by_its_field() {
    let (url, leases) = casino("bank_fields", &["east"]);
    let mut bank = Bank::connect(&url).unwrap();
    let long = "x".repeat(201);
    let cases: [(Move, Option<&Lease>, &str); 8] = [
        (allot("East", 1, 5, "bad-name"), Some(&leases[0]), "partition"),
        (deposit(1, 0, "z"), None, "amount"),
        (deposit(1, -5, "n"), None, "amount"),
        (deposit(1, 5, ""), None, "ref"),
        (deposit(1, 5, &long), None, "ref"),
        (Move { partition: None, ..allot("east", 1, 5, "p") }, Some(&leases[0]), "partition"),
        (Move { partition: Some("East cage".into()), ..deposit(1, 5, "q") }, None, "partition"),
        (allot("east", 1, 5, "no-fence"), None, "partition"),
    ];
    for (m, fence, field) in cases {
        match bank.make(&m, fence) {
            Err(BankError::Invalid { field: f, .. }) => assert_eq!(f, field, "{m:?}"),
            other => panic!("{m:?}: {other:?}"),
        }
    }
    assert_eq!(bank.with_client(verify).unwrap().moves, 0, "nothing was written");
}

/// A forger with write access to the database: a balance raised, a
/// position lowered, a move's amount edited, a move deleted. `verify` names
/// each. (A forger who rewrites the whole chain from the edit on, hashes and
/// all, or appends a move of his own, is caught by the partitions' anchored
/// chains, which record every move a server makes: `partition.rs`.)
#[test]
fn verify_names_what_a_forger_changed() {
    let cases = [
        (
            "UPDATE baccarat_bank.wallets SET balance = balance + 500 WHERE player = 1",
            "player 1: the bank holds 1200, its chain says 700",
        ),
        (
            "UPDATE baccarat_bank.positions SET amount = 0",
            "partition east holds 0 of player 1's money, its chain says 300",
        ),
        (
            "UPDATE baccarat_bank.log SET body = replace(body, '\"amount\":300', '\"amount\":30') WHERE seq = 2",
            "the bank's chain: record 2: its hash does not match its contents (altered)",
        ),
        ("DELETE FROM baccarat_bank.log WHERE seq = 2", "the bank's chain: record 3: expected record 2"),
        ("UPDATE baccarat_bank.head SET seq = 2", "the bank's head row says record 2"),
    ];
    for (i, (sql, expect)) in cases.into_iter().enumerate() {
        let (url, leases) = casino(&format!("bank_forge{i}"), &["east"]);
        let mut bank = Bank::connect(&url).unwrap();
        bank.make(&deposit(1, 1_000, "d1"), None).unwrap();
        bank.make(&allot("east", 1, 300, "a1"), Some(&leases[0])).unwrap();
        bank.make(&deposit(2, 50, "d2"), None).unwrap();
        let honest = bank.with_client(verify).unwrap();
        assert!(honest.ok(), "{:?}", honest.problems);
        bank.with_client(|c| c.batch_execute(sql).unwrap());
        let r = bank.with_client(verify).unwrap();
        assert!(r.problems.iter().any(|p| p.contains(expect)), "{sql}: {:?}", r.problems);
    }
}

/// A writer's batch asks for several allotments in one transaction: each is
/// made or refused on its own, a short one made for what the wallet holds
/// (`partial`), and the refused ones write nothing.
#[test]
fn several_moves_in_one_transaction_each_made_or_refused_on_its_own() {
    let (url, leases) = casino("bank_many", &["east"]);
    let mut bank = Bank::connect(&url).unwrap();
    bank.make(&deposit(1, 1_000, "d1"), None).unwrap();
    let asks = [allot("east", 1, 600, "a1"), allot("east", 2, 100, "a2"), allot("east", 1, 600, "a3")];
    let made = bank.make_all(&asks, Some(&leases[0]), true);
    assert_eq!(made[0].as_ref().unwrap().body.bank.amount, 600);
    assert!(matches!(made[1], Err(BankError::Short { player: 2, available: 0, .. })), "{:?}", made[1]);
    let third = made[2].as_ref().unwrap();
    assert_eq!((third.body.bank.amount, third.body.wallet, third.body.bank.reference.as_str()), (400, 0, "a3"));
    let none = bank.make_all(&[allot("east", 1, 1, "a4")], Some(&leases[0]), false);
    assert!(matches!(none[0], Err(BankError::Short { available: 0, .. })));
    let r = bank.with_client(verify).unwrap();
    assert!(r.ok(), "{:?}", r.problems);
    assert_eq!((r.moves, r.at_bank, r.allotted.get("east")), (3, 0, Some(&1_000)));
}

/// A player's money gone out to tables each day, net of what came back,
/// never below zero, stops at their loss limit across partitions: an
/// allotment past it is refused (in a batch, made for what the limit
/// leaves), a return gives room back, a win brought home buys no more than
/// the limit, and the next day counts afresh. `verify` recounts the days
/// from the chain and names a count a forger lowered.
#[test]
fn money_at_tables_each_day_stops_at_the_loss_limit() {
    let (url, leases) = casino("bank_days", &["east", "west"]);
    let mut bank = Bank::connect(&url).unwrap();
    bank.make(&deposit(1, 100_000, "d1"), None).unwrap();
    // An allotment's time: a second into its day (returns have none).
    let day =
        |d: u64, limit: Option<i64>| Some(LossDay { day: d, limit, at_ms: limit.map(|_| d * 86_400_000 + 1_000) });
    let out = |p: &str, amount: i64, r: &str, d| Move { loss_day: d, ..allot(p, 1, amount, r) };
    let back = |p: &str, amount: i64, r: &str, d| Move { loss_day: d, ..give_back(p, 1, amount, r) };
    let earliest = Some(LossDay { day: 10, limit: Some(5_000), at_ms: Some(10 * 86_400_000 + 500) });
    let first = bank.make(&out("east", 3_000, "e1", earliest), Some(&leases[0])).unwrap();
    assert_eq!(first.body.day_first_ms, Some(10 * 86_400_000 + 500));
    match bank.make(&out("west", 3_000, "w1", day(10, Some(5_000))), Some(&leases[1])) {
        Err(BankError::Limited { player: 1, limit: 5_000, net: 3_000 }) => {}
        other => panic!("{other:?}"),
    }
    let made = bank.make_all(&[out("west", 3_000, "w2", day(10, Some(5_000)))], Some(&leases[1]), true);
    assert_eq!(made[0].as_ref().unwrap().body.bank.amount, 2_000, "what the limit leaves");
    assert_eq!(made[0].as_ref().unwrap().body.day_first_ms, Some(10 * 86_400_000 + 500), "the day's first, at east");
    bank.make(&back("east", 3_000, "e2", day(10, None)), Some(&leases[0])).unwrap();
    bank.make(&out("east", 3_000, "e3", day(10, Some(5_000))), Some(&leases[0])).unwrap();
    // West brings 12,000 home (a win of 10,000): the count goes to zero,
    // not below, so the day still allows 5,000 and no more.
    bank.make(&back("west", 12_000, "w3", day(10, None)), Some(&leases[1])).unwrap();
    bank.make(&out("west", 5_000, "w4", day(10, Some(5_000))), Some(&leases[1])).unwrap();
    assert!(matches!(
        bank.make(&out("west", 1, "w5", day(10, Some(5_000))), Some(&leases[1])),
        Err(BankError::Limited { net: 5_000, .. })
    ));
    bank.make(&out("west", 5_000, "w6", day(11, Some(5_000))), Some(&leases[1])).unwrap();
    let bad = Move { loss_day: day(10, Some(5_000)), ..deposit(1, 5, "d2") };
    assert!(matches!(bank.make(&bad, None), Err(BankError::Invalid { field: "loss_day", .. })));
    let elsewhen = Some(LossDay { day: 10, limit: None, at_ms: Some(11 * 86_400_000) });
    let bad = out("west", 5, "w7", elsewhen);
    assert!(matches!(bank.make(&bad, Some(&leases[1])), Err(BankError::Invalid { field: "loss_day", .. })));
    let r = bank.with_client(verify).unwrap();
    assert!(r.ok(), "{:?}", r.problems);
    bank.with_client(|c| {
        c.batch_execute("UPDATE baccarat_bank.days SET net = 0, first_ms = first_ms + 1 WHERE day = 10").unwrap()
    });
    let r = bank.with_client(verify).unwrap();
    for named in [
        "player 1 on day 10: the bank counts 0 gone out to tables, its chain says 5000",
        "player 1 on day 10: the bank has the day's first allotment at Some(864000501), its chain says Some(864000500)",
    ] {
        assert!(r.problems.iter().any(|p| p.contains(named)), "{named}: {:?}", r.problems);
    }
}
