//! Dealing styles: who handles each hand's cards, and what each client may see.

use crate::common::*;

#[test]
fn method_b_highest_wager_squeezes_and_the_hands_are_never_out_together() {
    let (mut t, mut log) = live_table("nsw-2021", "dealing = \"method_b\"\n");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    run(&mut t, &mut log, seat_wager(1, 1, Bet::Player, 2000));
    run(&mut t, &mut log, seat_wager(2, 5, Bet::Player, 2000));
    run(&mut t, &mut log, seat_wager(3, 3, Bet::Banker, 1000));
    let mut ev = Vec::new();
    for c in ["2H", "3S", "3D", "KC"] {
        ev = card(&mut t, &mut log, c);
    }
    // NSW 8.10: equal highest wagers: the seat nearest the dealer's right (seat 5).
    assert!(ev
        .iter()
        .any(|e| matches!(e, Event::HandPassed { side: baccarat_rules::Side::Player, to: Some(PlayerId(2)), .. })));
    assert_eq!(shown(&t, None), [None, None, None, None], "nobody else sees a card before it is exposed");
    assert_eq!(shown(&t, Some(1)), [None, None, None, None]);
    assert_eq!(shown(&t, Some(2)), [Some("2H".into()), None, Some("3D".into()), None]);
    // NSW 8.13 / 8.15.2: nothing more is dealt while a hand is out.
    refused(
        &mut t,
        Command::CardIn { card: "5C".parse().unwrap(), to: None, face_up: false },
        "exposed before another card",
    );
    refused(
        &mut t,
        Command::Expose { side: baccarat_rules::Side::Player, player: Some(PlayerId(1)) },
        "only the player holding the hand",
    );
    let ev = run(&mut t, &mut log, Command::Expose { side: baccarat_rules::Side::Player, player: Some(PlayerId(2)) });
    assert!(ev
        .iter()
        .any(|e| matches!(e, Event::HandPassed { side: baccarat_rules::Side::Banker, to: Some(PlayerId(3)), .. })));
    assert_eq!(shown(&t, None), [Some("2H".into()), None, Some("3D".into()), None]);
    // Player 3 declines: nobody else bet on Banker, so the dealer keeps and turns it (NSW 8.14).
    let ev = run(&mut t, &mut log, Command::DeclineCards { player: PlayerId(3) });
    assert!(ev.iter().any(|e| matches!(e, Event::HandExposed { side: baccarat_rules::Side::Banker, by: None })));
    // Player 5 draws; the third card goes face down to the Player's holder again (NSW 8.16).
    let ev = card(&mut t, &mut log, "5C");
    assert!(ev
        .iter()
        .any(|e| matches!(e, Event::HandPassed { side: baccarat_rules::Side::Player, to: Some(PlayerId(2)), .. })));
    assert_eq!(shown(&t, None)[4], None);
    run(&mut t, &mut log, Command::Expose { side: baccarat_rules::Side::Player, player: Some(PlayerId(2)) });
    // Banker 3 with a third card 5 draws (NSW 9.4); the dealer holds the Banker's hand.
    let ev = card(&mut t, &mut log, "AD");
    assert!(ev.iter().any(|e| matches!(e, Event::CoupCompleted { .. })), "{ev:?}");
    assert!(Table::replay(setup("nsw-2021", "dealing = \"method_b\"\n"), &log) == t);
}

#[test]
fn au_style_b_offers_equal_wagers_to_the_lowest_seat_and_style_c_turns_all_four() {
    let extra = "dealing = \"style_b\"\n[bets.tie]\npay_table = \"8_to_1\"\n";
    let (mut t, mut log) = live_table("au-casino", extra);
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    run(&mut t, &mut log, seat_wager(1, 2, Bet::Player, 2000));
    run(&mut t, &mut log, seat_wager(2, 6, Bet::Player, 2000));
    let mut ev = Vec::new();
    for c in ["2H", "3S", "4D", "KC"] {
        ev = card(&mut t, &mut log, c);
    }
    assert!(
        ev.iter()
            .any(|e| matches!(e, Event::HandPassed { side: baccarat_rules::Side::Player, to: Some(PlayerId(1)), .. })),
        "AU 8.9(b)"
    );
    let (mut t, mut log) = live_table("au-casino", "dealing = \"style_c\"\n[bets.tie]\npay_table = \"8_to_1\"\n");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    for c in ["2H", "3S", "4D"] {
        card(&mut t, &mut log, c);
    }
    assert_eq!(shown(&t, None), [None, None, None], "AU 8.19: face down until the dealer turns them");
    card(&mut t, &mut log, "KC");
    assert_eq!(shown(&t, None), [Some("2H".into()), Some("3S".into()), Some("4D".into()), Some("KC".into())]);
}

#[test]
fn method_c_marker_holds_the_banker_hand_until_it_loses() {
    let extra = "dealing = \"method_c\"\n";
    let (mut t, mut log) = live_table("nsw-2021", extra);
    refused(&mut t, Command::TakeMarker { player: PlayerId(9), seat: 0 }, "must be seated");
    run(&mut t, &mut log, Command::TakeMarker { player: PlayerId(9), seat: 14 });
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    run(&mut t, &mut log, seat_wager(9, 14, Bet::Banker, 2000));
    run(&mut t, &mut log, seat_wager(1, 1, Bet::Player, 2000));
    let mut ev = Vec::new();
    for c in ["9H", "3S", "KD", "2C"] {
        ev = card(&mut t, &mut log, c);
    }
    // NSW 8.23-8.24: the dealer keeps and turns the Player's hand; the Banker's goes to the marker.
    assert!(ev.iter().any(|e| matches!(e, Event::HandExposed { side: baccarat_rules::Side::Player, by: None })));
    assert!(ev
        .iter()
        .any(|e| matches!(e, Event::HandPassed { side: baccarat_rules::Side::Banker, to: Some(PlayerId(9)), .. })));
    let ev = run(&mut t, &mut log, Command::Expose { side: baccarat_rules::Side::Banker, player: Some(PlayerId(9)) });
    // Player 9 natural beats Banker 5: the marker is released (NSW 8.26).
    assert!(ev.iter().any(|e| matches!(e, Event::MarkerReleased { from_seat: 14, .. })));
    assert_eq!(t.state().marker, None);
    assert!(Table::replay(setup("nsw-2021", extra), &log) == t);
}

#[test]
fn au_15_international_baccarat_cards_go_to_the_nominee() {
    let extra = "dealing = \"international\"\n[bets.tie]\npay_table = \"8_to_1\"\n";
    let (mut t, mut log) = live_table("au-casino", extra);
    run(&mut t, &mut log, Command::AppointNominee { player: PlayerId(1), nominee: Some(PlayerId(50)) });
    refused(
        &mut t,
        Command::AppointNominee { player: PlayerId(2), nominee: Some(PlayerId(50)) },
        "one other player at a time",
    );
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    run(&mut t, &mut log, seat_wager(1, 1, Bet::Player, 5000));
    let mut ev = Vec::new();
    for c in ["2H", "3S", "4D", "KC"] {
        ev = card(&mut t, &mut log, c);
    }
    assert!(ev
        .iter()
        .any(|e| matches!(e, Event::HandPassed { side: baccarat_rules::Side::Player, to: Some(PlayerId(50)), .. })));
    assert_eq!(shown(&t, Some(50)), [Some("2H".into()), None, Some("4D".into()), None]);
    assert_eq!(shown(&t, Some(1)), [None, None, None, None]);
    run(&mut t, &mut log, Command::Expose { side: baccarat_rules::Side::Player, player: Some(PlayerId(50)) });
    let (mut t, _) = live_table("nsw-2021", "");
    refused(&mut t, Command::AppointNominee { player: PlayerId(1), nominee: Some(PlayerId(2)) }, "no nominees");
}
