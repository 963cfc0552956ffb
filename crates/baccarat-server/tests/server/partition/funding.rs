//! What a partition takes from the bank for a request
//! (`casino/funding.rs`), and what it gives back.

use super::*;
use baccarat_core::{TableId, TournamentId};

/// A cash prize paid at a partition (a promotion's draw, NSW 16.7.7) to a
/// player who never played there goes back to the bank a while later, as
/// any money in a wallet there does: it does not wait in the partition's
/// wallet for an allotment that may never come.
#[test]
fn a_prize_paid_at_a_partition_goes_back_to_the_bank() {
    use baccarat_casino::casino::bank_side::RETURN_AFTER_MS;
    let db = database("partition_prize");
    let mut east = Part::new(&db, "east");
    let terms =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../promotions/friday-draw.toml")).unwrap();
    east.now.store(1_796_083_200_000, std::sync::atomic::Ordering::Relaxed); // before entries close
    assert_eq!(east.step(Request::CreatePromotion { terms }), Reply::Promotion { promotion: 1 });
    east.now.store(1_796_374_800_000, std::sync::atomic::Ordering::Relaxed); // after the draw's time
    let draw = Request::DrawPromotion { promotion: 1, entries: vec![(PlayerId(9), 1)], scrutineer: None };
    assert_eq!(east.step(draw), Reply::Promotion { promotion: 1 });
    let cash = east.wallet(9).0;
    assert_eq!(cash, 2_500_000, "the cash prize, in the wallet here");
    let mut bank = Bank::connect(&db).unwrap();
    let give_back = |east: &mut Part| {
        let mut commit = Commit::default();
        let n = east.casino.return_idle(&mut commit);
        east.store.commit(&commit).unwrap();
        n
    };
    assert_eq!(give_back(&mut east), 0, "not at once");
    east.wait(RETURN_AFTER_MS);
    assert_eq!(give_back(&mut east), 1);
    assert_eq!((east.wallet(9), bank.wallet(9).unwrap()), ((0, 0), cash));
    books_agree(&mut [&mut east], &mut bank);
}

/// A tournament's entry fee at a partition comes from the bank as a
/// wager's stake does (NSW 15.3.2: the fee into the prize pool), for a
/// player who holds nothing at that partition; a withdrawal's refund goes
/// back to the bank in its turn.
#[test]
fn a_tournament_entry_fee_at_a_partition_is_funded_from_the_bank() {
    use baccarat_casino::casino::bank_side::RETURN_AFTER_MS;
    let (db, mut east, _west) = two_with_money("partition_tournament");
    let mut link = link_of(&db, &east);
    let conditions = crate::tournament::cup("2026-12-05T10:00:00Z", 25_000);
    east.now.store(1_796_083_200_000, std::sync::atomic::Ordering::Relaxed); // 2026-12-01
    let created = east.step(Request::CreateTournament { conditions });
    assert!(matches!(created, Reply::Tournament { tournament: TournamentId(1), .. }), "{created:?}");
    assert_eq!(east.wallet(1), (0, 0), "nothing at east");
    let entered = writer_step(
        &mut east,
        &mut link,
        Request::EnterTournament { tournament: TournamentId(1), player: PlayerId(1) },
    );
    assert!(matches!(entered, Reply::Tournament { tournament: TournamentId(1), entrants: 1 }), "{entered:?}");
    let mut bank = Bank::connect(&db).unwrap();
    let at_bank = bank.wallet(1).unwrap();
    assert!(at_bank <= 75_000, "the fee came from the bank: {at_bank}");
    let withdrawn = east.step(Request::WithdrawFromTournament { tournament: TournamentId(1), player: PlayerId(1) });
    assert!(matches!(withdrawn, Reply::Tournament { tournament: TournamentId(1), entrants: 0 }), "{withdrawn:?}");
    east.wait(RETURN_AFTER_MS);
    let mut commit = Commit::default();
    east.casino.return_idle(&mut commit);
    east.store.commit(&commit).unwrap();
    assert_eq!((east.wallet(1), bank.wallet(1).unwrap()), ((0, 0), 100_000), "every chip back at the bank");
    books_agree(&mut [&mut east], &mut bank);
}

/// Nothing is taken from the bank for a request its table will refuse
/// whatever the wallet holds (`casino/funding.rs`): a wager above the
/// table's maximum, below its minimum, not in whole chips or on a bet it
/// does not offer, a slip's lines of that kind, a retry of a key already
/// answered, a wager while betting is closed. Each allotment counts against
/// the player's loss limit at every partition until its money comes back,
/// so only the slip's placeable line is funded, and the day's count at the
/// bank is that allotment alone.
#[test]
fn nothing_is_taken_from_the_bank_for_a_wager_the_table_refuses() {
    use baccarat_casino::casino::SlipLine;
    use baccarat_cluster::pg_store::bank::link::HEADROOM;
    let (db, mut east, _west) = two_with_money("partition_refused_funding");
    let more = baccarat_cluster::pg_store::bank::cage_reference("east", 1, "more");
    let mut commit = Commit::default();
    east.casino.caged(PlayerId(1), Money(900_000), &more, &mut commit).unwrap();
    east.store.commit(&commit).unwrap();
    let mut link = link_of(&db, &east);
    let mut bank = Bank::connect(&db).unwrap();
    east.open_betting();
    let on = |bet: Bet, amount: i64, key: &str| Request::Wager {
        table: TableId(1),
        player: PlayerId(1),
        spot: Spot::Box(1),
        bet,
        amount: Money(amount),
        ante: Money::ZERO,
        key: key.parse().unwrap(),
    };
    let refused = [
        (on(Bet::Banker, 200_000, "over"), "at most 1000.00"),
        (on(Bet::Banker, 500, "under"), "minimum"),
        (on(Bet::Banker, 1_050, "chips"), "whole number"),
        (on(Bet::PlayerPair, 1_000, "offer"), "does not offer"),
    ];
    for (req, why) in refused {
        match writer_step(&mut east, &mut link, req) {
            Reply::Refused { message, .. } => assert!(message.contains(why), "{why}: {message}"),
            other => panic!("{why}: {other:?}"),
        }
        assert_eq!((east.wallet(1), bank.wallet(1).unwrap()), ((0, 0), 1_000_000), "{why}: nothing moved");
    }

    let line =
        |amount: i64| SlipLine { spot: Spot::Box(1), bet: Bet::Banker, amount: Money(amount), ante: Money::ZERO };
    let slip = Request::Wagers {
        table: TableId(1),
        player: PlayerId(1),
        slip: vec![line(1_000), line(200_000)],
        key: "slip".parse().unwrap(),
    };
    match writer_step(&mut east, &mut link, slip) {
        Reply::Wagers { results, .. } => {
            assert!(matches!(results[..], [Reply::Wager { .. }, Reply::Refused { .. }]), "{results:?}")
        }
        other => panic!("{other:?}"),
    }
    let funded = 1_000 * (1 + HEADROOM);
    assert_eq!(bank.wallet(1).unwrap(), 1_000_000 - funded, "the placeable line alone, with its headroom");
    assert_eq!(east.wallet(1), (funded, funded - 1_000));

    // The rest staked, then sent again: answered as first, nothing taken.
    let rest = funded - 1_000;
    let first = writer_step(&mut east, &mut link, on(Bet::Banker, rest, "rest"));
    assert!(matches!(first, Reply::Wager { .. }), "{first:?}");
    assert_eq!(east.wallet(1), (funded, 0));
    let again = writer_step(&mut east, &mut link, on(Bet::Banker, rest, "rest"));
    assert_eq!(again.clone(), first, "the first answer");
    assert_eq!(bank.wallet(1).unwrap(), 1_000_000 - funded, "a retry takes nothing");

    east.table(Command::CloseBetting);
    assert!(matches!(writer_step(&mut east, &mut link, on(Bet::Banker, 1_000, "late")), Reply::Refused { .. }));
    assert_eq!(bank.wallet(1).unwrap(), 1_000_000 - funded, "nor a wager after betting closed");

    let mut c = postgres::Client::connect(&db, postgres::NoTls).unwrap();
    let day: i64 = c.query_one("SELECT net FROM baccarat_bank.days WHERE player = 1", &[]).unwrap().get(0);
    assert_eq!(day, funded, "the day's count is the one allotment");
}
