//! A player's own limits at every partition (`bank/limits.rs`).

use super::*;

/// A player's own limits are theirs at every partition (`bank/limits.rs`):
/// a loss limit asked at west is in force at east once east's writer reads
/// the bank's log of limits, and a cool-off asked at east stops wagers at
/// west. A recovered partition (from its chain, or a checkpoint) keeps
/// them and folds nothing twice. A record written into the log by hand with
/// an old time cannot loosen a limit at once.
#[test]
fn a_players_own_limits_hold_at_every_partition() {
    use baccarat_casino::casino::{recover, Keys, SelfLimitsChange};
    use baccarat_cluster::pg_store::bank::link::BankLink;
    let (db, mut east, mut west) = two_with_money("partition_limits");
    let link = |p: &Part| link_of(&db, p);
    let (mut east_link, mut west_link) = (link(&east), link(&west));
    let ask = ask_limits;
    let poll = |p: &mut Part, l: &mut BankLink| {
        let mut commit = Commit::default();
        l.poll(&mut p.casino, &mut commit);
        p.store.commit(&commit).unwrap();
        commit.records.len()
    };
    let limit = SelfLimitsChange::Set { loss_per_day: Some(Money(5_000)), minutes_per_day: None };
    match ask(&mut west, &mut west_link, limit) {
        Some(Reply::SelfLimits { view }) => assert_eq!(view.loss_per_day, Some(Money(5_000)), "{view:?}"),
        other => panic!("{other:?}"),
    }
    east.open_betting();
    west.open_betting();
    assert!(matches!(east.wager(1, 6_000, "before"), Reply::Wager { .. }), "east has not read the log yet");
    assert_eq!(poll(&mut east, &mut east_link), 1, "one change folded in");
    assert_eq!(poll(&mut east, &mut east_link), 0, "and only once");
    match east.wager(1, 6_000, "after") {
        Reply::Refused { code: Code::SelfLimit, message, .. } => assert!(message.contains("loss limit"), "{message}"),
        other => panic!("6,000 against a limit of 5,000: {other:?}"),
    }
    assert!(matches!(east.wager(1, 5_000, "within"), Reply::Wager { .. }));

    // A cool-off asked at east stops wagers at west.
    assert!(matches!(
        ask(&mut east, &mut east_link, SelfLimitsChange::CoolOff { hours: 24 }),
        Some(Reply::SelfLimits { .. })
    ));
    assert!(matches!(west.wager(1, 1_000, "w-before"), Reply::Wager { .. }), "west has not read the log yet");
    assert_eq!(poll(&mut west, &mut west_link), 1);
    match west.wager(1, 1_000, "w-after") {
        Reply::Refused { code: Code::SelfLimit, message, .. } => {
            assert!(message.contains("taking a break"), "{message}")
        }
        other => panic!("{other:?}"),
    }

    // A forger lifts the loss limit with a record dated two days ago: it
    // waits a day from when east reads it, as any loosening does.
    let old = CasinoEventForged::lift(1_795_000_000_000 - 2 * 86_400_000);
    Bank::connect(&partition_url(&db, "east").unwrap())
        .unwrap()
        .with_client(|c| baccarat_cluster::pg_store::bank::limits::share(c, "east", &old))
        .unwrap();
    poll(&mut east, &mut east_link);
    let now = (east.casino.clock)();
    let s = &east.casino.self_limits[&PlayerId(1)];
    assert_eq!(s.loss_per_day.at(now), Some(Money(5_000)), "still in force");
    assert_eq!(s.loss_per_day.at(now + 86_400_000 - 60_000 - 1), Some(Money(5_000)));

    // Recovered from its chain, and from a checkpoint: the same limits, and
    // the log read again folds nothing.
    let none = std::collections::BTreeSet::new();
    let cp = east.casino.checkpoint();
    for from in [None, Some(cp)] {
        let mut casino = recover(&east.store, from, Keys::Since(0), &none).unwrap().casino;
        casino.clock = east.casino.clock.clone();
        casino.set_partition("east");
        assert_eq!(casino.bank.limits_seq, east.casino.bank.limits_seq);
        assert_eq!(casino.self_limits, east.casino.self_limits);
        let mut commit = Commit::default();
        link(&east).poll(&mut casino, &mut commit);
        assert!(commit.records.is_empty(), "nothing folded twice");
    }
}

/// What a forger writes into the bank's log of limits.
struct CasinoEventForged;

impl CasinoEventForged {
    fn lift(at_ms: u64) -> baccarat_core::audit::CasinoEvent {
        baccarat_core::audit::CasinoEvent::LimitsSet {
            player: PlayerId(1),
            loss_per_day: None,
            minutes_per_day: None,
            at_ms,
            shared: None,
        }
    }
}

/// A player's loss limit counts their money at every partition's tables
/// (`bank/limits.rs`, the bank's count of each day): with a limit of 5,000
/// asked at west, 4,000 staked at east leaves 1,000 for west, whose wager
/// of 2,000 is refused as the limit's (not as a short wallet: 96,000 is
/// still at the bank); once east's coup is over and what is left of its
/// money is back at the bank, the day's count is what was not brought back.
#[test]
fn a_loss_limit_counts_the_money_at_every_partitions_tables() {
    use baccarat_casino::casino::SelfLimitsChange;
    use baccarat_cluster::pg_store::bank::verify::check_partition;
    let (db, mut east, mut west) = two_with_money("partition_loss_days");
    let (mut east_link, mut west_link) = (link_of(&db, &east), link_of(&db, &west));
    let change = SelfLimitsChange::Set { loss_per_day: Some(Money(5_000)), minutes_per_day: None };
    let asked = ask_limits(&mut west, &mut west_link, change);
    assert!(matches!(asked, Some(Reply::SelfLimits { .. })), "{asked:?}");
    east.open_betting();
    west.open_betting();

    assert!(matches!(through_writer(&mut east, &mut east_link, 1, 4_000, "e1"), Reply::Wager { .. }));
    assert_eq!(east.wallet(1), (4_000, 0), "no headroom for a player with a loss limit");
    match through_writer(&mut west, &mut west_link, 1, 2_000, "w1") {
        Reply::Refused { code: Code::SelfLimit, message, .. } => {
            assert!(message.contains("counted at every table"), "{message}")
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(through_writer(&mut west, &mut west_link, 1, 1_000, "w2"), Reply::Wager { .. }));
    let days = || {
        let mut c = postgres::Client::connect(&db, postgres::NoTls).unwrap();
        c.query_one("SELECT net FROM baccarat_bank.days WHERE player = 1", &[]).unwrap().get::<_, i64>(0)
    };
    assert_eq!(days(), 5_000);
    let mut bank = Bank::connect(&db).unwrap();
    let before = bank.wallet(1).unwrap();
    east.finish_coup();
    east.sweep();
    let mut commit = Commit::default();
    east.casino.return_idle(&mut commit);
    east.store.commit(&commit).unwrap();
    let brought_back = bank.wallet(1).unwrap() - before;
    assert_eq!(days(), (5_000 - brought_back).max(0), "what came back from east ({brought_back}) is room again");
    books_agree(&mut [&mut east, &mut west], &mut bank);
    let (report, notes, problems) = check_partition(&partition_url(&db, "east").unwrap(), "east").unwrap();
    assert!(report.ok() && notes.is_empty() && problems.is_empty(), "{report:?} {notes:?} {problems:?}");
}

/// A play-time limit counts from the day's first wager at any partition:
/// the bank keeps each player's first allotment of the day, and a partition
/// where they start later that day counts their minutes from it. With 60
/// minutes a day, a player who began at east and moves to west 50 minutes
/// later has 10 minutes left there, not 60.
#[test]
fn a_play_time_limit_counts_from_the_first_wager_at_any_partition() {
    use baccarat_casino::casino::SelfLimitsChange;
    let (db, mut east, mut west) = two_with_money("partition_minutes");
    let (mut east_link, mut west_link) = (link_of(&db, &east), link_of(&db, &west));
    let change = SelfLimitsChange::Set { loss_per_day: None, minutes_per_day: Some(60) };
    assert!(matches!(ask_limits(&mut west, &mut west_link, change), Some(Reply::SelfLimits { .. })));
    east.open_betting();
    west.open_betting();
    let both_wait = |east: &Part, west: &Part, minutes: u64| {
        east.wait(minutes * 60_000);
        west.wait(minutes * 60_000);
    };
    assert!(matches!(through_writer(&mut east, &mut east_link, 1, 1_000, "e1"), Reply::Wager { .. }));
    both_wait(&east, &west, 50);
    assert!(matches!(through_writer(&mut west, &mut west_link, 1, 1_000, "w1"), Reply::Wager { .. }));
    both_wait(&east, &west, 11);
    match through_writer(&mut west, &mut west_link, 1, 1_000, "w2") {
        Reply::Refused { code: Code::SelfLimit, message, .. } => assert!(message.contains("60 minutes"), "{message}"),
        other => panic!("61 minutes after the first wager at east: {other:?}"),
    }
}

/// A day a wager opens at a partition from money already there (no
/// allotment, so the bank's count of the day has no first allotment from
/// it) counts at the others too: the partition puts it in the bank's log of
/// limits, and the others fold it in. With 20 minutes a day: money left at
/// east from yesterday opens today's play there at 00:10 UTC; at west, at
/// 00:35, the player's minutes are spent. East does not record its own day
/// again when the log brings it back.
#[test]
fn a_day_opened_with_money_already_at_a_partition_counts_at_the_others() {
    use baccarat_casino::casino::self_limits::DAY_MS;
    use baccarat_casino::casino::SelfLimitsChange;
    let (db, mut east, mut west) = two_with_money("partition_day_here");
    let (mut east_link, mut west_link) = (link_of(&db, &east), link_of(&db, &west));
    let change = SelfLimitsChange::Set { loss_per_day: None, minutes_per_day: Some(20) };
    assert!(matches!(ask_limits(&mut west, &mut west_link, change), Some(Reply::SelfLimits { .. })));
    east.open_betting();
    west.open_betting();
    // Yesterday at east: the bank's money for the wager, and headroom.
    assert!(matches!(through_writer(&mut east, &mut east_link, 1, 1_000, "e1"), Reply::Wager { .. }));
    assert!(east.wallet(1).1 >= 1_000, "money left at east: {:?}", east.wallet(1));
    let now = east.now.load(std::sync::atomic::Ordering::Relaxed);
    let to_0010 = DAY_MS - now % DAY_MS + 10 * 60_000;
    east.wait(to_0010);
    west.wait(to_0010);
    let allotments = east.casino.bank.last_seq;
    assert!(matches!(through_writer(&mut east, &mut east_link, 1, 1_000, "e2"), Reply::Wager { .. }));
    assert_eq!(east.casino.bank.last_seq, allotments, "today's first wager at east took nothing from the bank");
    let mut commit = Commit::default();
    east_link.poll(&mut east.casino, &mut commit);
    assert!(commit.records.is_empty(), "east's own day came back from the log and was recorded again");

    east.wait(25 * 60_000);
    west.wait(25 * 60_000);
    match through_writer(&mut west, &mut west_link, 1, 1_000, "w1") {
        Reply::Refused { code: Code::SelfLimit, message, .. } => assert!(message.contains("20 minutes"), "{message}"),
        other => panic!("25 minutes after today's first wager at east: {other:?}"),
    }
}

/// A record in the bank's log opening a player's day whose time is not on
/// the day it names (forged: a partition writes the day of its time) is
/// passed over, and read once; the same opening with its own day is folded
/// in, moving the start of the player's minutes earlier.
#[test]
fn a_day_opening_whose_time_is_not_on_its_day_is_passed_over() {
    use baccarat_casino::casino::self_limits::DAY_MS;
    use baccarat_casino::casino::SelfLimitsChange;
    use baccarat_core::audit::CasinoEvent;
    let (db, _east, mut west) = two_with_money("partition_day_forged");
    let mut west_link = link_of(&db, &west);
    let change = SelfLimitsChange::Set { loss_per_day: None, minutes_per_day: Some(20) };
    assert!(matches!(ask_limits(&mut west, &mut west_link, change), Some(Reply::SelfLimits { .. })));
    let now = (west.casino.clock)();
    let opening = |day: u64| CasinoEvent::PlayDay {
        player: PlayerId(1),
        day,
        base: Money::ZERO,
        first_ms: now - 60_000,
        shared: None,
    };
    let share = |e: &CasinoEvent| {
        Bank::connect(&partition_url(&db, "east").unwrap())
            .unwrap()
            .with_client(|c| baccarat_cluster::pg_store::bank::limits::share(c, "east", e))
            .unwrap();
    };
    let (before, seq_before) = (west.casino.self_limits.clone(), west.casino.bank.limits_seq);
    share(&opening((now - 60_000) / DAY_MS - 1));
    let mut commit = Commit::default();
    west_link.poll(&mut west.casino, &mut commit);
    assert!(commit.records.is_empty(), "a day opening not on its day was folded in: {:?}", commit.records);
    assert_eq!(west.casino.self_limits, before);
    let seq = west.casino.bank.limits_seq;
    assert!(seq > seq_before, "the record was read");
    west_link.poll(&mut west.casino, &mut commit);
    assert_eq!(west.casino.bank.limits_seq, seq, "read once");

    share(&opening((now - 60_000) / DAY_MS));
    west_link.poll(&mut west.casino, &mut commit);
    assert_eq!(commit.records.len(), 1, "the opening on its own day is folded in");
    let day = west.casino.self_limits[&PlayerId(1)].admit(now, Money(1), Money(1), false);
    assert_eq!(day.map(|d| d.map(|d| d.first_ms)), Ok(Some(now - 60_000)), "the minutes count from the start at east");
}
