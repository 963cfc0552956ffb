//! Live card input and the irregularities of NSW 12-13, AU 12 and EU 4-5.

use crate::common::*;

#[test]
fn live_cards_follow_the_due_positions_and_the_first_card_closes_betting() {
    let (mut t, mut log) = live_table("nsw-2021", "");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    run(&mut t, &mut log, wager(1, Bet::Player, 1000));
    assert_eq!(t.due(), None, "no card is due while betting is open");
    let ev = card(&mut t, &mut log, "6H");
    assert!(matches!(ev[0], Event::BettingClosed { .. }), "NSW 5.4: the first card closes betting");
    assert_eq!(t.due(), Some(Position::Banker1));
    card(&mut t, &mut log, "3S");
    card(&mut t, &mut log, "KD");
    assert_eq!(t.due(), Some(Position::Banker2));
    card(&mut t, &mut log, "KC");
    // Player 6 stands; Banker 3 draws (NSW 9.5).
    assert_eq!(t.due(), Some(Position::Banker3));
    let ev = card(&mut t, &mut log, "2C");
    assert!(ev.iter().any(|e| matches!(e, Event::CoupCompleted { summary, .. } if summary.banker_total == 5)));
    assert_eq!(t.phase(), Phase::Ready);
    assert!(Table::replay(setup("nsw-2021", ""), &log) == t);
}

#[test]
fn nsw_12_2_unauthorised_player_third_card_becomes_the_bankers_third() {
    let (mut t, mut log) = live_table("nsw-2021", "");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    for c in ["6H", "3S", "KD", "KC"] {
        card(&mut t, &mut log, c);
    }
    let ev = run(
        &mut t,
        &mut log,
        Command::CardIn { card: "2C".parse().unwrap(), to: Some(Position::Player3), face_up: true },
    );
    assert_eq!(kinds(&ev), [IrregularityKind::PlayerThirdToBanker]);
    assert!(ev.iter().any(|e| matches!(e, Event::CardDealt { position: Position::Banker3, .. })));
    assert!(ev.iter().any(|e| matches!(e, Event::Irregularity { rule, .. } if rule.contains("NSW 12.2"))));
}

#[test]
fn nsw_12_2_and_au_12_1_the_card_goes_to_the_next_coup_or_a_void_hand() {
    for (face_up, want, no_bet) in [
        (false, IrregularityKind::PlayerThirdToNextCoup, false),
        (true, IrregularityKind::PlayerThirdToNoBetCoup, true),
    ] {
        let (mut t, mut log) = live_table("au-casino", "[bets.tie]\npay_table = \"8_to_1\"\n");
        run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
        // Player 7, Banker 7: both stand; the coup is complete.
        for c in ["7H", "7S", "KD", "KC"] {
            card(&mut t, &mut log, c);
        }
        assert_eq!(t.phase(), Phase::Ready);
        let ev = run(
            &mut t,
            &mut log,
            Command::CardIn { card: "9D".parse().unwrap(), to: Some(Position::Player3), face_up },
        );
        assert_eq!(kinds(&ev), [want]);
        assert!(ev.iter().any(|e| matches!(e, Event::Irregularity { rule, .. } if rule.contains("AU 12.1"))));
        let ev = run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
        assert!(
            matches!(&ev[0], Event::BettingOpened { no_bet: n, first_card: Some(c), .. } if *n == no_bet && c.to_string() == "9D")
        );
        if no_bet {
            refused(&mut t, wager(1, Bet::Player, 1000), "no wagers are permitted in a no-bet coup");
        }
        // The held card is the coup's first card; the next card in is the Banker's.
        let ev = card(&mut t, &mut log, "2S");
        let dealt: Vec<(Position, String)> = ev
            .iter()
            .filter_map(|e| {
                if let Event::CardDealt { position, card, .. } = e {
                    Some((*position, card.to_string()))
                } else {
                    None
                }
            })
            .collect();
        assert_eq!(dealt, [(Position::Player1, "9D".to_string()), (Position::Banker1, "2S".to_string())]);
        assert!(Table::replay(setup("au-casino", "[bets.tie]\npay_table = \"8_to_1\"\n"), &log) == t);
    }
}

#[test]
fn nsw_12_3_excess_banker_card_starts_a_no_bet_coup() {
    let (mut t, mut log) = live_table("nsw-2021", "");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    for c in ["7H", "7S", "KD", "KC"] {
        card(&mut t, &mut log, c);
    }
    let ev = run(
        &mut t,
        &mut log,
        Command::CardIn { card: "4D".parse().unwrap(), to: Some(Position::Banker3), face_up: false },
    );
    assert_eq!(kinds(&ev), [IrregularityKind::ExcessCardToNoBetCoup]);
    let ev = run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    assert!(matches!(&ev[0], Event::BettingOpened { no_bet: true, rule: Some(r), .. } if r.contains("NSW 12.4")));
}

#[test]
fn face_up_cards_in_the_shoe() {
    let (mut t, mut log) = live_table("nsw-2021", "");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    run(&mut t, &mut log, wager(1, Bet::Banker, 2000));
    // NSW 12.3: the first card found face up: no bets this coup; the wager comes back.
    let ev = run(&mut t, &mut log, Command::FaceUpInShoe { card: "5H".parse().unwrap() });
    assert_eq!(kinds(&ev), [IrregularityKind::FirstCardFaceUp]);
    assert!(ev.iter().any(|e| matches!(e, Event::WagerReturned { rule, .. } if rule.contains("NSW 12.3"))));
    let ev = run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    assert!(matches!(&ev[0], Event::BettingOpened { no_bet: true, .. }));
    card(&mut t, &mut log, "9C");
    // NSW 12.5: face up within a coup, it plays as dealt.
    let ev = run(&mut t, &mut log, Command::FaceUpInShoe { card: "KH".parse().unwrap() });
    assert_eq!(kinds(&ev), [IrregularityKind::FaceUpWithinCoup]);
    assert!(ev.iter().any(|e| matches!(e, Event::CardDealt { position: Position::Player2, .. })));
}

#[test]
fn nsw_12_11_a_foreign_card_voids_the_coup_and_ends_the_shoe() {
    let (mut t, mut log) = live_table("nsw-2021", "decks = 3\n");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    run(&mut t, &mut log, wager(1, Bet::Player, 1000));
    for c in ["AS", "AS", "AS"] {
        card(&mut t, &mut log, c);
    }
    // A fourth ace of spades cannot come from three decks.
    let ev = card(&mut t, &mut log, "AS");
    assert_eq!(kinds(&ev), [IrregularityKind::ForeignCard]);
    assert!(ev
        .iter()
        .any(|e| matches!(e, Event::WagerSettled { outcome: None, settlement, .. } if settlement.void == Money(1000))));
    assert!(matches!(ev.last(), Some(Event::ShoeEnded { reason, .. }) if reason.contains("NSW 12.11")));
    assert_eq!(t.phase(), Phase::ShoeOver);
    refused(&mut t, Command::OpenBetting { no_bet: false, closes_at: None }, "start a shoe first");
}

#[test]
fn nsw_12_1_misdeal_void_or_reconstructed_with_withdrawal() {
    let (mut t, mut log) = live_table("nsw-2021", "");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    run(&mut t, &mut log, wager(1, Bet::Player, 1000));
    card(&mut t, &mut log, "2H");
    refused(
        &mut t,
        Command::CardIn { card: "3S".parse().unwrap(), to: Some(Position::Player2), face_up: true },
        "report a misdeal",
    );
    let ev = run(&mut t, &mut log, Command::Misdeal { reconstructed: None });
    assert!(ev.iter().any(|e| matches!(e, Event::CoupVoided { rule, .. } if rule.contains("NSW 12.1"))));
    assert_eq!(t.phase(), Phase::Ready);
    // A reconstruction: the cards in their proper order; then each player may withdraw.
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    let ev = run(&mut t, &mut log, wager(1, Bet::Player, 1000));
    let id = match &ev[0] {
        Event::WagerPlaced { wager } => wager.id,
        _ => unreachable!(),
    };
    for c in ["2H", "3S", "4D"] {
        card(&mut t, &mut log, c);
    }
    refused(
        &mut t,
        Command::Misdeal { reconstructed: Some(vec!["2H".parse().unwrap(), "3S".parse().unwrap()]) },
        "exactly the cards dealt",
    );
    let order: Vec<Card> = ["3S", "2H", "4D"].iter().map(|c| c.parse().unwrap()).collect();
    run(&mut t, &mut log, Command::Misdeal { reconstructed: Some(order) });
    assert_eq!(t.phase(), Phase::Reconstruction);
    run(&mut t, &mut log, Command::WithdrawWager { player: PlayerId(1), wager: id });
    run(&mut t, &mut log, Command::ResumeCoup);
    assert_eq!(t.due(), Some(Position::Banker2));
    assert!(Table::replay(setup("nsw-2021", ""), &log) == t);
}

#[test]
fn cutting_card_during_a_coup_means_one_more_coup() {
    let (mut t, mut log) = live_table("nsw-2021", "");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    card(&mut t, &mut log, "7H");
    let ev = run(&mut t, &mut log, Command::CuttingCardOut);
    assert!(matches!(&ev[0], Event::CuttingCardOut { coups_left: 2, rule } if rule.contains("NSW 4.9")));
    for c in ["7S", "KD", "KC"] {
        card(&mut t, &mut log, c);
    }
    assert_eq!(t.phase(), Phase::Ready, "NSW 4.9: complete the coup, then one more");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    let mut last = Vec::new();
    for c in ["9H", "2S", "KH", "KS"] {
        last = card(&mut t, &mut log, c);
    }
    assert!(matches!(last.last(), Some(Event::ShoeEnded { .. })));
    // NSW 4.10: out as a coup's first card, that coup is the last.
    let (mut t, mut log) = live_table("nsw-2021", "");
    let ev = run(&mut t, &mut log, Command::CuttingCardOut);
    assert!(matches!(&ev[0], Event::CuttingCardOut { coups_left: 1, rule } if rule.contains("NSW 4.10")));
}

#[test]
fn nsw_12_13_scanner_discrepancy_confirmed_or_void() {
    let (mut t, mut log) = dealing_table("nsw-2021", "", 1000);
    let cards: Vec<Card> = ["9H", "3S", "KD", "KC"].iter().map(|c| c.parse().unwrap()).collect();
    let ev = run(&mut t, &mut log, Command::ScannerDiscrepancy { confirmed: Some(cards) });
    assert!(ev.iter().any(|e| matches!(e, Event::CoupCompleted { summary, .. } if summary.player_total == 9)));
    let (mut t, mut log) = dealing_table("nsw-2021", "", 1000);
    let ev = run(&mut t, &mut log, Command::ScannerDiscrepancy { confirmed: None });
    assert!(ev.iter().any(|e| matches!(e, Event::CoupVoided { rule, .. } if rule.contains("NSW 12.13"))));
    assert_eq!(ev.iter().filter(|e| matches!(e, Event::WagerSettled { outcome: None, .. })).count(), 2);
}

#[test]
fn nsw_14_4_invalidation_refunds_or_forfeits() {
    let (mut t, mut log) = dealing_table("nsw-2021", "", 1000);
    let ev = run(&mut t, &mut log, Command::Invalidate { forfeit: vec![PlayerId(2)], reason: None });
    let nets: Vec<Money> =
        ev.iter()
            .filter_map(|e| {
                if let Event::WagerSettled { settlement, .. } = e {
                    Some(settlement.player_net())
                } else {
                    None
                }
            })
            .collect();
    assert_eq!(nets, [Money(0), Money(-1000)]);
}

#[test]
fn nsw_13_shuffler_malfunction() {
    let (mut t, mut log) = dealing_table("nsw-2021", "", 1000);
    let ev = run(&mut t, &mut log, Command::ShufflerMalfunction { disadvantage: true, other_device: true });
    assert!(ev.iter().any(|e| matches!(e, Event::CoupVoided { rule, .. } if rule.contains("13.4"))));
    let (mut t, mut log) = dealing_table("nsw-2021", "", 1000);
    run(&mut t, &mut log, Command::ShufflerMalfunction { disadvantage: false, other_device: true });
    assert_eq!(t.phase(), Phase::Dealing, "NSW 13.2: the game continues");
    let (mut t, mut log) = dealing_table("nsw-2021", "", 1000);
    run(&mut t, &mut log, Command::ShufflerMalfunction { disadvantage: false, other_device: false });
    assert_eq!(t.phase(), Phase::Reconstruction, "NSW 13.5.1: each player may take their wager back");
    let id = t.state().coup.wagers.nth(0).unwrap().id;
    run(&mut t, &mut log, Command::WithdrawWager { player: PlayerId(1), wager: id });
    run(&mut t, &mut log, Command::ResumeCoup);
    assert_eq!(t.state().coup.wagers.len(), 1);
}

#[test]
fn wrong_hand_stands_except_where_au_15_9_voids_it() {
    let (mut t, mut log) = dealing_table("nsw-2021", "", 1000);
    refused(&mut t, Command::WrongHand { void_hand: true }, "NSW 12.15");
    run(&mut t, &mut log, Command::WrongHand { void_hand: false });
    assert_eq!(t.phase(), Phase::Dealing);
    // AU 15.9 is International Baccarat's: at a Style A table the result stands.
    let tie = "[bets.tie]\npay_table = \"8_to_1\"\n";
    let (mut t, _) = dealing_table("au-casino", &format!("dealing = \"style_a\"\n{tie}"), 2000);
    refused(&mut t, Command::WrongHand { void_hand: true }, "AU 15.9");
    // At an International table the hands are voided and "the round of play
    // shall be completed even where all hands have been voided".
    let (mut t, mut log) = dealing_table("au-casino", &format!("dealing = \"international\"\n{tie}"), 2000);
    let ev = run(&mut t, &mut log, Command::WrongHand { void_hand: true });
    let returned =
        ev.iter().filter(|e| matches!(e, Event::WagerReturned { rule, .. } if rule.contains("AU 15.9"))).count();
    assert_eq!(returned, 2, "both wagers are void");
    assert!(!ev.iter().any(|e| matches!(e, Event::CoupVoided { .. } | Event::CoupClosed { .. })), "the round goes on");
    let mut ev = Vec::new();
    for c in ["9C", "9D", "5H", "5S"] {
        if t.phase() != Phase::Dealing {
            break;
        }
        if let Some(side) = t.state().out {
            ev.extend(run(&mut t, &mut log, Command::Expose { side, player: None }));
        }
        if t.due().is_some() {
            ev.extend(card(&mut t, &mut log, c));
        }
        while let Some(side) = t.state().out {
            ev.extend(run(&mut t, &mut log, Command::Expose { side, player: None }));
        }
    }
    assert!(ev.iter().any(|e| matches!(e, Event::CoupCompleted { .. })), "the round was completed: {ev:?}");
    assert!(!ev.iter().any(|e| matches!(e, Event::WagerSettled { .. })), "nothing left to settle");
}
