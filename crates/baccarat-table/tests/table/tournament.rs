//! Tournament play at one table (NSW 15.5-15.10): each rule the session
//! enforces, with the refusal naming it, and chips settled with the table's
//! own pay tables.

use baccarat_rules::{profiles, Bet, Card, Coup, Money, TableConfig};
use baccarat_table::tournament::{commitment, Action, Session, SessionRules};
use baccarat_table::PlayerId;

const CONFIG: &str = "rulebook = \"nsw-2021\"\nchip = 100\nmin = 100\nmax = 1000000000\n";

fn rules(marker: bool) -> SessionRules {
    SessionRules {
        min: Money(1000),
        max: Money(10_000),
        changes: vec![(3, Money(2000), Money(20_000))],
        chips: Money(20_000),
        bets: vec![Bet::Banker, Bet::Player, Bet::Tie],
        marker,
        pass_cards: 1,
        undisclosed: 1,
        advance: 1,
        coups: None,
    }
}

fn session(marker: bool, boxes: u8) -> Session {
    let rb = profiles::builtin("nsw-2021").unwrap();
    let cfg = TableConfig::from_toml(&rb, CONFIG).unwrap();
    let players: Vec<(u8, PlayerId)> = (1..=boxes).map(|b| (b, PlayerId(100 + b as u32))).collect();
    Session::new(rules(marker), cfg, &players)
}

fn p(b: u8) -> PlayerId {
    PlayerId(100 + b as u32)
}

fn coup(cards: &str) -> Coup {
    let cards: Vec<Card> = cards.split_whitespace().map(|c| c.parse().unwrap()).collect();
    Coup::from_cards(&cards).unwrap().0
}

/// Banker 9 against Player 0.
fn banker_wins() -> Coup {
    coup("2H KS 3D 9C 5S")
}

/// Player 9 against Banker 2.
fn player_wins() -> Coup {
    coup("9H KS KD 2C")
}

fn wager(bet: Bet, amount: i64) -> Action {
    Action::Wager { bet, amount: Money(amount) }
}

fn refused(r: Result<(), baccarat_table::Refusal>, rule: &str) {
    let e = r.expect_err(rule);
    assert_eq!(e.rule(), rule, "{}", e.message);
}

#[test]
fn nsw_15_6_14_wagers_are_within_the_limits_in_units_of_the_minimum_and_the_chips_held() {
    let mut s = session(false, 2);
    refused(s.act(1, p(1), wager(Bet::Banker, 500)), "NSW 15.6.14");
    refused(s.act(1, p(1), wager(Bet::Banker, 1500)), "NSW 15.6.14");
    refused(s.act(1, p(1), wager(Bet::Banker, 11_000)), "NSW 15.6.14");
    refused(s.act(1, p(1), wager(Bet::PlayerPair, 1000)), "NSW 15.4.2(f)");
    refused(s.act(2, p(1), wager(Bet::Banker, 1000)), "NSW 15.6.10");
    s.act(1, p(1), wager(Bet::Banker, 10_000)).unwrap();
    refused(s.act(1, p(1), wager(Bet::Player, 1000)), "NSW 15.9.5");
    // From coup 3 the limits double (NSW 15.6.15).
    assert_eq!(s.rules.limits(2), (Money(1000), Money(10_000)));
    assert_eq!(s.rules.limits(3), (Money(2000), Money(20_000)));
}

#[test]
fn nsw_15_9_the_marker_sets_the_order_and_moves_each_coup() {
    let mut s = session(true, 3);
    assert_eq!((s.marker(), s.turn()), (Some(1), Some(1)));
    refused(s.act(2, p(2), wager(Bet::Banker, 1000)), "NSW 15.9.4");
    s.act(1, p(1), wager(Bet::Banker, 1000)).unwrap();
    refused(s.act(3, p(3), wager(Bet::Banker, 1000)), "NSW 15.9.4");
    s.act(2, p(2), wager(Bet::Player, 1000)).unwrap();
    s.act(3, p(3), Action::Pass).unwrap();
    s.close().unwrap();
    s.settle(&banker_wins()).unwrap();
    // Coup 2: box two first, then three, then one.
    assert_eq!((s.marker(), s.turn()), (Some(2), Some(2)));
    s.act(2, p(2), wager(Bet::Banker, 1000)).unwrap();
    s.act(3, p(3), wager(Bet::Banker, 1000)).unwrap();
    assert_eq!(s.turn(), Some(1));
}

#[test]
fn nsw_15_6_8_and_15_7_chips_settle_with_the_tables_pay_tables() {
    let mut s = session(false, 3);
    s.act(1, p(1), wager(Bet::Banker, 10_000)).unwrap();
    s.act(2, p(2), wager(Bet::Player, 4000)).unwrap();
    s.act(3, p(3), Action::Pass).unwrap();
    s.close().unwrap();
    let r = s.settle(&banker_wins()).unwrap();
    // Banker pays 1:1 less 5% commission at an NSW table.
    assert_eq!(r[0].after, Money(20_000 + 9_500));
    assert_eq!(r[1].after, Money(16_000));
    assert_eq!(r[2].after, Money(20_000), "a pass card risks nothing");
    assert_eq!(s.seats[&1].chips, Money(29_500));
    // One pass card a heat (NSW 15.7.1).
    refused(s.act(3, p(3), Action::Pass), "NSW 15.7.1");
}

#[test]
fn nsw_15_6_12_no_more_bets_waits_for_everyone_and_a_late_player_wagers_the_minimum() {
    let mut s = session(false, 2);
    s.act(1, p(1), wager(Bet::Tie, 1000)).unwrap();
    refused(s.close(), "NSW 15.6.4");
    refused(s.act(2, p(2), Action::Late { bet: Bet::Banker, amount: Money(2000) }), "NSW 15.6.12");
    s.act(2, p(2), Action::Late { bet: Bet::Banker, amount: Money(1000) }).unwrap();
    s.close().unwrap();
    refused(s.act(2, p(2), wager(Bet::Player, 1000)), "NSW 15.8.2.7");
    let r = s.settle(&player_wins()).unwrap();
    assert_eq!((r[0].after, r[1].after), (Money(19_000), Money(19_000)));
}

#[test]
fn nsw_15_5_6_1_an_absent_player_has_the_minimum_deducted_for_three_coups_at_most() {
    let mut s = session(false, 2);
    for _ in 1..=3 {
        s.act(1, p(1), wager(Bet::Banker, 2000)).unwrap();
        s.act(2, p(2), Action::Absent).unwrap();
        s.close().unwrap();
        let r = s.settle(&player_wins()).unwrap();
        assert!(r[1].notes[0].contains("NSW 15.5.6.1"), "{:?}", r[1]);
    }
    // 1,000 + 1,000 + 2,000 (the third coup's minimum).
    assert_eq!(s.seats[&2].chips, Money(16_000));
    refused(s.act(2, p(2), Action::Absent), "NSW 15.5.6.1");
}

#[test]
fn nsw_15_8_an_undisclosed_wager_is_hidden_until_revealed_and_adjusted_by_the_rule() {
    // (amount written, what it plays as, the rule applied)
    let cases = [
        (Money(5000), Money(5000), None),
        (Money(500), Money(1000), Some("15.8.3.1")),
        (Money(15_000), Money(10_000), Some("15.8.3.2")),
    ];
    for (written, plays, rule) in cases {
        let mut s = session(false, 2);
        let c = commitment(Bet::Banker, written, "secret");
        s.act(1, p(1), Action::Undisclosed { commitment: c, with: None }).unwrap();
        s.act(2, p(2), wager(Bet::Player, 1000)).unwrap();
        refused(s.reveal(1, Some((Bet::Banker, written)), "secret"), "NSW 15.8.2.6");
        s.close().unwrap();
        refused(s.settle(&banker_wins()).map(|_| ()), "NSW 15.8.2.6");
        refused(s.reveal(1, Some((Bet::Player, written)), "secret"), "NSW 15.8.2.1");
        refused(s.reveal(1, Some((Bet::Banker, written)), "guess"), "NSW 15.8.2.1");
        s.reveal(1, Some((Bet::Banker, written)), "secret").unwrap();
        let r = s.settle(&banker_wins()).unwrap();
        assert_eq!(r[0].stakes, vec![(Bet::Banker, plays)]);
        // It settles as the same wager made in chips would have.
        let mut open = session(false, 2);
        open.act(1, p(1), wager(Bet::Banker, plays.0)).unwrap();
        open.act(2, p(2), wager(Bet::Player, 1000)).unwrap();
        open.close().unwrap();
        assert_eq!(r[0].after, open.settle(&banker_wins()).unwrap()[0].after);
        assert!(r[0].after > Money(20_000));
        match rule {
            Some(rule) => assert!(r[0].notes.iter().any(|n| n.contains(rule)), "{:?}", r[0]),
            None => assert!(r[0].notes.is_empty()),
        }
        refused(s.act(1, p(1), Action::Undisclosed { commitment: c, with: None }), "NSW 15.8.1");
    }
    // A blank form: the minimum is deducted (NSW 15.8.3.4).
    let mut s = session(false, 2);
    let blank: [u8; 32] = {
        use sha2::Digest;
        sha2::Sha256::digest("blank|s").into()
    };
    s.act(1, p(1), Action::Undisclosed { commitment: blank, with: None }).unwrap();
    s.act(2, p(2), wager(Bet::Player, 1000)).unwrap();
    s.close().unwrap();
    s.reveal(1, None, "s").unwrap();
    let r = s.settle(&banker_wins()).unwrap();
    assert_eq!(r[0].after, Money(19_000));
    assert!(r[0].notes[0].contains("15.8.3.4"));
}

#[test]
fn nsw_15_10_4_players_out_in_the_same_coup_are_placed_by_their_residual_chips() {
    let mut s = session(false, 4);
    // Coup 1 and 2: boxes 1-3 lose big on Player, box 4 wins.
    for _ in 0..2 {
        s.act(1, p(1), wager(Bet::Player, 9000)).unwrap();
        s.act(2, p(2), wager(Bet::Player, 9000)).unwrap();
        s.act(3, p(3), wager(Bet::Player, 10_000)).unwrap();
        s.act(4, p(4), wager(Bet::Banker, 1000)).unwrap();
        s.close().unwrap();
        s.settle(&banker_wins()).unwrap();
    }
    // Box 1 and 2 have 2,000 left, box 3 none: all below coup 3's minimum
    // of 2,000? Boxes 1 and 2 hold exactly 2,000 and stay; box 3 is out.
    assert_eq!(s.in_play(), vec![1, 2, 4]);
    assert_eq!(s.out_order, vec![3]);
    // Coup 3: boxes 1 and 2 wager their last 2,000 and lose.
    s.act(1, p(1), wager(Bet::Player, 2000)).unwrap();
    s.act(2, p(2), wager(Bet::Player, 2000)).unwrap();
    s.act(4, p(4), wager(Bet::Banker, 2000)).unwrap();
    s.close().unwrap();
    s.settle(&banker_wins()).unwrap();
    assert_eq!(s.in_play(), vec![4]);
    // Equal residual (0) and equal wagers: box 1's chips were removed first.
    assert_eq!(s.out_order, vec![3, 1, 2]);
    let (order, play_off) = s.standings();
    assert_eq!(order, vec![4, 2, 1, 3]);
    assert!(play_off.is_empty());
}

#[test]
fn nsw_15_10_3_a_tie_for_the_last_place_that_advances_calls_for_a_play_off() {
    let mut s = session(false, 3);
    for b in 1..=3 {
        s.act(b, p(b), Action::Pass).unwrap();
    }
    s.close().unwrap();
    s.settle(&banker_wins()).unwrap();
    let (_, play_off) = s.standings();
    assert_eq!(play_off, vec![1, 2, 3], "all level at 20,000 with one place to advance (NSW 15.10.3)");
}

#[test]
fn nsw_15_4_2_a_sessions_rules_come_from_the_published_conditions() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tournaments/eight.toml");
    let c = baccarat_rules::tournament::Conditions::from_toml(&std::fs::read_to_string(path).unwrap()).unwrap();
    let r = SessionRules::of(&c, 1);
    assert_eq!((r.min, r.max, r.chips), (Money(500_000), Money(10_000_000), Money(50_000_000)));
    assert_eq!(r.limits(13), (Money(1_000_000), Money(20_000_000)));
    assert_eq!((r.marker, r.pass_cards, r.undisclosed, r.advance), (true, 1, 1, 2));
    assert_eq!(r.bets, vec![Bet::Banker, Bet::Player, Bet::Tie]);
}

const CUP: &str = r#"
name = "Test Cup"
rulebook = "nsw-2021"
[entry]
starts = "2026-12-05T10:00:00Z"
fee = 100000
min_players = 6
max_players = 8
withdraw_hours_before_start = 24
application = "at the tournament desk"
[eligibility]
[chips]
per_session = 10000
[wagers]
min = 1000
max = 5000
[structure]
dealing = "method_a"
seats_per_table = 4
rounds = [
  { name = "Heat", tables = 2, coups = 3, advance_per_table = 2 },
  { name = "Final", tables = 1, coups = 3 },
]
[play]
marker = true
pass_cards = 1
[prizes]
places = [{ percent = 60 }, { percent = 40 }]
payment = "cash"
"#;

/// Play `coups` coups at `s`, each player acting in the marker's order as
/// `choose(box, coup)` says, every coup a Banker win.
fn play_session(s: &mut Session, coups: u32, choose: impl Fn(u8, u32) -> Action) {
    for _ in 0..coups {
        let coup = s.coup;
        while let Some(b) = s.turn() {
            let player = s.seats[&b].player;
            s.act(b, player, choose(b, coup)).unwrap();
        }
        s.close().unwrap();
        s.settle(&banker_wins()).unwrap();
    }
}

/// A tournament end to end from its conditions: eight entrants seated by
/// draw at two tables, a heat with a three-way tie for the last place
/// advancing settled by a play-off (NSW 15.10.3), a final, the placings, and
/// the prize pool of every entry fee (NSW 15.3.2) paid 60/40.
#[test]
fn a_tournament_runs_from_registration_to_prizes() {
    use baccarat_rules::tournament::Conditions;
    use baccarat_table::tournament::{RoundEnd, Tournament};
    use baccarat_table::Seed;
    let c = Conditions::from_toml(CUP).unwrap();
    let cfg = TableConfig::from_toml(&profiles::builtin("nsw-2021").unwrap(), CONFIG).unwrap();
    let players: Vec<PlayerId> = (1..=8).map(PlayerId).collect();
    let too_few = Tournament::new(c.clone(), cfg.clone(), &players[..5], &Seed::from_u64(1)).unwrap_err();
    assert_eq!(too_few.rule(), "NSW 15.4.2(i)");
    let mut t = Tournament::new(c, cfg.clone(), &players, &Seed::from_u64(7)).unwrap();
    assert_eq!(t.tables.len(), 2);
    assert!(t.tables.iter().all(|s| s.seats.len() == 4), "two tables of four");
    // The seating is the draw's: the same seed seats the same way.
    let again = Tournament::new(t.conditions.clone(), cfg.clone(), &players, &Seed::from_u64(7)).unwrap();
    let seated = |t: &Tournament| {
        t.tables.iter().map(|s| s.seats.values().map(|x| x.player).collect::<Vec<_>>()).collect::<Vec<_>>()
    };
    assert_eq!(seated(&again), seated(&t));

    // Table 0: box 1 wins on Banker; boxes 2-4 lose the same on Player: a
    // three-way tie for the second place advancing. Table 1: box 1 and box 2
    // win, boxes 3 and 4 lose.
    play_session(&mut t.tables[0], 3, |b, _| {
        wager(if b == 1 { Bet::Banker } else { Bet::Player }, if b == 1 { 5000 } else { 1000 })
    });
    play_session(&mut t.tables[1], 3, |b, _| {
        wager(if b <= 2 { Bet::Banker } else { Bet::Player }, if b == 1 { 5000 } else { 1000 })
    });
    let tied = match t.end_round(&Seed::from_u64(8)).unwrap() {
        RoundEnd::PlayOff(tied) => tied,
        other => panic!("{other:?}"),
    };
    assert_eq!(tied.len(), 3);
    // The play-off: a session among the three; one coup orders them.
    let rules = t.tables[0].rules.clone();
    let seats: Vec<(u8, PlayerId)> = tied.iter().enumerate().map(|(i, p)| (i as u8 + 1, *p)).collect();
    let mut po = Session::new(SessionRules { marker: false, ..rules }, cfg.clone(), &seats);
    for (b, amount) in [(1u8, 3000i64), (2, 2000), (3, 1000)] {
        po.act(b, seats[b as usize - 1].1, wager(Bet::Banker, amount)).unwrap();
    }
    po.close().unwrap();
    po.settle(&banker_wins()).unwrap();
    let (order, still_tied) = po.standings();
    assert!(still_tied.is_empty());
    let order: Vec<PlayerId> = order.iter().map(|b| po.seats[b].player).collect();
    t.play_off(order.clone()).unwrap();
    let finalists = match t.end_round(&Seed::from_u64(8)).unwrap() {
        RoundEnd::Advanced(f) => f,
        other => panic!("{other:?}"),
    };
    assert_eq!(finalists.len(), 4);
    assert!(finalists.contains(&order[0]) && !finalists.contains(&order[1]), "the play-off's winner goes on");
    assert_eq!((t.round, t.tables.len()), (1, 1));

    // The final: the player on box 1 wins most.
    play_session(&mut t.tables[0], 3, |b, _| {
        wager(if b == 1 { Bet::Banker } else { Bet::Player }, 1000 * (5 - b as i64))
    });
    assert_eq!(t.end_round(&Seed::from_u64(9)).unwrap(), RoundEnd::Finished);
    assert_eq!(t.placings.len(), 8, "everyone is placed");
    let winner = t.tables[0].seats[&1].player;
    assert_eq!(t.placings[0], winner);
    let prizes = t.prizes();
    assert_eq!(prizes, vec![(winner, Money(480_000)), (t.placings[1], Money(320_000))]);
    assert_eq!(prizes.iter().map(|p| p.1 .0).sum::<i64>(), 8 * 100_000, "every entry fee is paid out");
}

/// NSW 15.5.7, 15.11.4: a disqualified player's position is cancelled, any
/// action of theirs this coup is void, and they are placed below everyone
/// else out of the session; they cannot act again, nor be disqualified twice.
#[test]
fn nsw_15_5_7_a_disqualified_player_is_out_and_placed_last() {
    let mut s = session(false, 3);
    s.act(1, p(1), wager(Bet::Banker, 1000)).unwrap();
    s.act(2, p(2), wager(Bet::Player, 5000)).unwrap();
    s.disqualify(2, "NSW 15.6.7", "chips concealed").unwrap();
    assert_eq!(s.action(2), None, "the wager of a disqualified player is void");
    refused(s.disqualify(2, "NSW 15.6.7", "again"), "NSW 15.6.7");
    refused(s.act(2, p(2), wager(Bet::Banker, 1000)), "NSW 15.6.13");
    s.act(3, p(3), wager(Bet::Banker, 1000)).unwrap();
    s.close().unwrap();
    let r = s.settle(&player_wins()).unwrap();
    assert_eq!(r.len(), 2, "box 2 neither wins nor loses");
    assert_eq!(s.seats[&2].chips, Money(20_000));
    // Box 3 goes out later, on chips, yet is placed above box 2.
    let mut t = session(false, 3);
    t.disqualify(2, "NSW 15.11.4", "advice sought during play").unwrap();
    t.act(1, p(1), wager(Bet::Banker, 1000)).unwrap();
    t.act(3, p(3), wager(Bet::Banker, 10_000)).unwrap();
    t.close().unwrap();
    t.settle(&player_wins()).unwrap();
    t.act(1, p(1), wager(Bet::Banker, 1000)).unwrap();
    t.act(3, p(3), wager(Bet::Banker, 10_000)).unwrap();
    t.close().unwrap();
    t.settle(&player_wins()).unwrap();
    let (order, _) = t.standings();
    assert_eq!(order, vec![1, 3, 2]);
}

/// NSW 15.8.3.4: a form not shown before the cards are drawn counts as one
/// that shows no amount or type; it is taken so once, and only for a box
/// that made an undisclosed wager after "no more bets".
#[test]
fn nsw_15_8_3_4_an_undisclosed_form_not_shown_in_time_has_the_minimum_deducted() {
    let mut s = session(false, 2);
    let c = commitment(Bet::Banker, Money(5000), "k");
    s.act(1, p(1), Action::Undisclosed { commitment: c, with: Some((Bet::Player, Money(1000))) }).unwrap();
    s.act(2, p(2), wager(Bet::Player, 1000)).unwrap();
    refused(s.unshown(1), "NSW 15.8.2.6");
    s.close().unwrap();
    refused(s.unshown(2), "NSW 15.8.2");
    s.unshown(1).unwrap();
    refused(s.unshown(1), "NSW 15.8.2.6");
    // Taken as not shown, it is not shown later.
    refused(s.reveal(1, Some((Bet::Banker, Money(5000))), "k"), "NSW 15.8.2.6");
    assert_eq!(s.revealed(1), Some(&None));
    let r = s.settle(&player_wins()).unwrap();
    // The chips beside it play (won 1,000); the minimum is deducted.
    assert_eq!(r[0].after, Money(20_000 + 1000 - 1000));
    assert!(r[0].notes[0].contains("15.8.3.4"), "{:?}", r[0]);
}

/// NSW 15.4.2(e): a session counted in coups ends after them; a coup with no
/// one having acted cannot be dealt.
#[test]
fn nsw_15_4_2_e_a_session_ends_after_its_coups() {
    let mut s = Session::new(
        SessionRules { coups: Some(1), ..rules(false) },
        TableConfig::from_toml(&profiles::builtin("nsw-2021").unwrap(), CONFIG).unwrap(),
        &[(1, p(1)), (2, p(2))],
    );
    assert!(!s.over());
    s.act(1, p(1), wager(Bet::Banker, 1000)).unwrap();
    assert!(s.coup_open());
    s.act(2, p(2), Action::Pass).unwrap();
    s.close().unwrap();
    s.settle(&banker_wins()).unwrap();
    assert!(s.over() && !s.coup_open());
    refused(s.act(1, p(1), wager(Bet::Banker, 1000)), "NSW 15.4.2(e)");
}

/// NSW 15.5.5.1: a round ends early only once who progresses from each
/// table is determined; NSW 15.10.3: a play-off is seated for players level
/// across the last place, and its order is decided by the counts after a
/// coup; in the final, players level for a place play off too.
#[test]
fn nsw_15_5_5_1_rounds_end_when_decided_and_level_players_play_off() {
    use baccarat_rules::tournament::Conditions;
    use baccarat_table::tournament::{RoundEnd, Tournament};
    use baccarat_table::Seed;
    let c = Conditions::from_toml(CUP).unwrap();
    let cfg = TableConfig::from_toml(&profiles::builtin("nsw-2021").unwrap(), CONFIG).unwrap();
    let players: Vec<PlayerId> = (1..=8).map(PlayerId).collect();
    let mut t = Tournament::new(c, cfg, &players, &Seed::from_u64(3)).unwrap();
    refused(t.end_round(&Seed::from_u64(4)).map(|_| ()), "NSW 15.5.5.1");
    // Everyone level at both tables after three coups of equal wagers.
    for table in 0..2 {
        play_session(&mut t.tables[table], 3, |_, _| wager(Bet::Banker, 1000));
    }
    let RoundEnd::PlayOff(tied) = t.end_round(&Seed::from_u64(4)).unwrap() else { panic!("a play-off") };
    assert_eq!(tied.len(), 4);
    refused(t.end_round(&Seed::from_u64(4)).map(|_| ()), "NSW 15.10.3");
    let at = t.tables.len();
    let (seat_t, _) = t.seat_of(tied[0]).unwrap();
    assert_eq!(seat_t, at, "a tied player plays at the play-off table");
    // A coup that leaves them level decides nothing; one that sets them
    // apart decides the order.
    let po = t.session_mut(at).unwrap();
    for b in 1..=4u8 {
        let pl = po.seats[&b].player;
        po.act(b, pl, wager(Bet::Banker, 1000)).unwrap();
    }
    po.close().unwrap();
    po.settle(&banker_wins()).unwrap();
    assert_eq!(t.check_play_off(), None);
    let po = t.session_mut(at).unwrap();
    for b in 1..=4u8 {
        let pl = po.seats[&b].player;
        po.act(b, pl, wager(Bet::Banker, 1000 * i64::from(b))).unwrap();
    }
    po.close().unwrap();
    po.settle(&banker_wins()).unwrap();
    let order = t.check_play_off().expect("decided");
    assert_eq!(order.len(), 4);
    assert!(t.playoff.is_none());
    // The other table's play-off, then the final is seated.
    let RoundEnd::PlayOff(tied2) = t.end_round(&Seed::from_u64(4)).unwrap() else { panic!("the second table's") };
    assert!(tied2.iter().all(|p| !tied.contains(p)));
    let winners = order[..2].to_vec();
    let po = t.session_mut(at).unwrap();
    for b in 1..=4u8 {
        let pl = po.seats[&b].player;
        po.act(b, pl, wager(Bet::Banker, 1000 * i64::from(b))).unwrap();
    }
    po.close().unwrap();
    po.settle(&banker_wins()).unwrap();
    t.check_play_off().expect("decided");
    let RoundEnd::Advanced(going) = t.end_round(&Seed::from_u64(5)).unwrap() else { panic!("the final") };
    assert!(winners.iter().all(|w| going.contains(w)), "the play-off's top two go on");
    // The final: all level again; the final's places are played off.
    play_session(&mut t.tables[0], 3, |_, _| wager(Bet::Player, 1000));
    let RoundEnd::PlayOff(level) = t.end_round(&Seed::from_u64(6)).unwrap() else { panic!("a final play-off") };
    assert_eq!(level.len(), 4);
}

/// NSW 15.5.1, 15.5.4: the Tournament Manager moves a player to another table
/// of the round between coups, to its lowest free box; the player keeps
/// their chips and cards. Not during a coup, not to a full table.
#[test]
fn nsw_15_5_4_the_tournament_manager_moves_a_player_between_coups() {
    use baccarat_rules::tournament::Conditions;
    use baccarat_table::tournament::Tournament;
    use baccarat_table::Seed;
    let c = Conditions::from_toml(CUP).unwrap();
    let cfg = TableConfig::from_toml(&profiles::builtin("nsw-2021").unwrap(), CONFIG).unwrap();
    let players: Vec<PlayerId> = (1..=6).map(PlayerId).collect();
    let mut t = Tournament::new(c, cfg, &players, &Seed::from_u64(11)).unwrap();
    assert_eq!((t.tables[0].seats.len(), t.tables[1].seats.len()), (3, 3));
    let mover = t.tables[0].seats[&2].player;
    // A coup under way at either table stops it.
    let first = t.tables[0].turn().unwrap();
    let p0 = t.tables[0].seats[&first].player;
    t.tables[0].act(first, p0, wager(Bet::Banker, 1000)).unwrap();
    refused(t.move_player(mover, 1).map(|_| ()), "NSW 15.5.4");
    play_session(&mut t.tables[0], 1, |_, _| wager(Bet::Banker, 1000));
    let chips = t.tables[0].seats[&2].chips;
    refused(t.move_player(mover, 0).map(|_| ()), "NSW 15.5.1");
    refused(t.move_player(mover, 2).map(|_| ()), "NSW 15.5.1");
    refused(t.move_player(PlayerId(99), 1).map(|_| ()), "NSW 15.5.4");
    assert_eq!(t.move_player(mover, 1).unwrap(), 4, "the lowest free box");
    assert_eq!(t.seat_of(mover), Some((1, 4)));
    assert_eq!(t.tables[1].seats[&4].chips, chips, "the chips go with the player");
    assert_eq!((t.tables[0].seats.len(), t.tables[1].seats.len()), (2, 4));
    // The table of four is full.
    let back = t.tables[0].seats.values().next().unwrap().player;
    refused(t.move_player(back, 1).map(|_| ()), "NSW 15.5.4");
}

/// A table's play-off order decides a later wildcard tie among some of the
/// same players (NSW 15.10.3): each player advances once, in that order.
#[test]
fn nsw_15_10_3_a_play_off_order_decides_a_later_wildcard_tie_among_its_players() {
    use baccarat_rules::tournament::Conditions;
    use baccarat_table::tournament::{RoundEnd, Tournament};
    use baccarat_table::Seed;
    let cup = CUP.replace(
        "{ name = \"Heat\", tables = 2, coups = 3, advance_per_table = 2 }",
        "{ name = \"Heat\", tables = 2, coups = 3, advance_per_table = 1, wildcards = 1 }",
    );
    let c = Conditions::from_toml(&cup).unwrap();
    let cfg = TableConfig::from_toml(&profiles::builtin("nsw-2021").unwrap(), CONFIG).unwrap();
    let players: Vec<PlayerId> = (1..=6).map(PlayerId).collect();
    let mut t = Tournament::new(c, cfg, &players, &Seed::from_u64(5)).unwrap();
    // Table 0: three level. Table 1: box 1 wins big, the others lose.
    play_session(&mut t.tables[0], 3, |_, _| wager(Bet::Banker, 1000));
    play_session(&mut t.tables[1], 3, |b, _| if b == 1 { wager(Bet::Banker, 5000) } else { wager(Bet::Player, 1000) });
    let RoundEnd::PlayOff(tied) = t.end_round(&Seed::from_u64(6)).unwrap() else { panic!("a play-off") };
    assert_eq!(tied.len(), 3);
    let at = t.tables.len();
    let po = t.session_mut(at).unwrap();
    for b in 1..=3u8 {
        let p = po.seats[&b].player;
        po.act(b, p, wager(Bet::Banker, 1000 * i64::from(4 - b))).unwrap();
    }
    po.close().unwrap();
    po.settle(&banker_wins()).unwrap();
    let order = t.check_play_off().unwrap();
    // The second and third are level for the wildcard: the play-off's order
    // decides it, with no second play-off.
    let RoundEnd::Advanced(going) = t.end_round(&Seed::from_u64(7)).unwrap() else { panic!("advanced") };
    assert_eq!(going.len(), 3, "{going:?}");
    let mut unique = going.clone();
    unique.sort_by_key(|p| p.0);
    unique.dedup();
    assert_eq!(unique.len(), 3, "no one advances twice: {going:?}");
    assert!(going.contains(&order[0]) && going.contains(&order[1]) && !going.contains(&order[2]), "{going:?}");
}

/// A table cannot be jammed: "no more bets" with no one in play, or with
/// every action made void by a disqualification, leaves no coup open.
#[test]
fn nsw_15_6_4_no_more_bets_needs_someone_in_play_and_a_disqualification_can_empty_a_coup() {
    let mut s = session(false, 2);
    s.act(1, p(1), wager(Bet::Player, 10_000)).unwrap();
    s.act(2, p(2), wager(Bet::Player, 10_000)).unwrap();
    s.close().unwrap();
    s.settle(&banker_wins()).unwrap();
    s.act(1, p(1), wager(Bet::Player, 10_000)).unwrap();
    s.act(2, p(2), wager(Bet::Player, 10_000)).unwrap();
    s.close().unwrap();
    s.settle(&banker_wins()).unwrap();
    assert!(s.in_play().is_empty() && s.over());
    refused(s.close(), "NSW 15.4.2(e)");
    assert!(!s.coup_open());
    let mut s = session(false, 1);
    s.act(1, p(1), wager(Bet::Banker, 1000)).unwrap();
    s.close().unwrap();
    s.disqualify(1, "NSW 15.5.7", "a rule broken").unwrap();
    assert!(!s.coup_open(), "the coup with no action left is not under way");
}
