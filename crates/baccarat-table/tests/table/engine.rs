//! The table engine: coups as the rulebooks conduct them, wagers and limits,
//! refusals that name their rule and change nothing, shoes to their last coup, and
//! replay that reproduces the state.

use crate::common::*;

#[test]
fn a_whole_coup_settles_by_the_pay_tables_and_replays() {
    let (mut t, mut log) = rng_table("nsw-2021", "[bets.super_six]\n[bets.player_pair]\n", 7);
    assert!(matches!(log[0], Event::ShoeStarted { .. }));
    assert!(matches!(log[1], Event::Burned { .. }), "NSW 4.7.1 burn one");
    assert_eq!(t.shoe_progress(), Some((1, 416)), "the burned card counts as dealt");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    run(&mut t, &mut log, wager(1, Bet::Banker, 2000));
    run(&mut t, &mut log, wager(2, Bet::Player, 1000));
    run(&mut t, &mut log, wager(2, Bet::Tie, 1000));
    run(&mut t, &mut log, wager(3, Bet::SuperSix, 500));
    run(&mut t, &mut log, Command::CloseBetting);
    let ev = deal_out(&mut t, &mut log);
    let dealt: Vec<Card> =
        ev.iter().filter_map(|e| if let Event::CardDealt { card, .. } = e { Some(*card) } else { None }).collect();
    assert!((4..=6).contains(&dealt.len()));
    assert_eq!(t.shoe_progress(), Some((1 + dealt.len(), 416)));
    let (coup, _) = baccarat_rules::Coup::from_cards(&dealt).unwrap();
    let settled: Vec<_> = ev
        .iter()
        .filter_map(|e| {
            if let Event::WagerSettled { wager, settlement, .. } = e {
                Some((*wager, *settlement))
            } else {
                None
            }
        })
        .collect();
    assert_eq!(settled.len(), 4);
    let cfg = &t.setup().config;
    for (id, s) in &settled {
        let w = log
            .iter()
            .find_map(|e| {
                if let Event::WagerPlaced { wager } = e {
                    (wager.id == *id).then(|| wager.clone())
                } else {
                    None
                }
            })
            .unwrap();
        let want = baccarat_rules::settle_wager(
            w.amount,
            &cfg.offer(w.bet).unwrap().pay_table,
            w.bet.classify(&coup),
            &cfg.settle,
        );
        assert_eq!(*s, want, "{}", w.bet);
        assert_eq!(s.returned + s.lost, s.stake);
    }
    assert_eq!(t.phase(), Phase::Ready);
    assert_eq!(t.state().roads.entries().len(), 1);
    let replayed = Table::replay(setup("nsw-2021", "[bets.super_six]\n[bets.player_pair]\n"), &log);
    assert!(replayed == t, "replay differs");
    // Events serialise and come back the same (for the audit log).
    let json = serde_json::to_string(&log).unwrap();
    let back: Vec<Event> = serde_json::from_str(&json).unwrap();
    assert_eq!(back, log);
}

#[test]
fn refusals_name_their_rule_and_change_nothing() {
    let (mut t, mut log) = rng_table("nsw-2021", "[bets.player_pair]\n", 3);
    refused(&mut t, wager(1, Bet::Player, 1000), "NSW 5.4");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    refused(&mut t, wager(1, Bet::Player, 900), "NSW 6.1, 6.4-6.5: 9.00 is below the player minimum 10.00");
    refused(&mut t, wager(1, Bet::Player, 1050), "NSW 6.1.1: 10.50 is not a whole number of 1.00 chips");
    refused(&mut t, wager(1, Bet::Player, 100_100), "at most 1000.00");
    refused(&mut t, wager(1, Bet::TigerTie, 1000), "does not offer tiger_tie");
    refused(
        &mut t,
        Command::PlaceWager {
            player: PlayerId(1),
            spot: Spot::Box(15),
            bet: Bet::Player,
            amount: Money(1000),
            ante: Money(0),
            token: false,
            at_ms: None,
        },
        "box 15 is not on this layout",
    );
    refused(
        &mut t,
        Command::PlaceWager {
            player: PlayerId(1),
            spot: Spot::Standing,
            bet: Bet::Player,
            amount: Money(1000),
            ante: Money(0),
            token: false,
            at_ms: None,
        },
        "no area for standing players",
    );
    run(&mut t, &mut log, wager(1, Bet::PlayerPair, 500));
    refused(&mut t, wager(1, Bet::PlayerPair, 500), "NSW 10.5");
    run(&mut t, &mut log, Command::CloseBetting);
    refused(&mut t, wager(2, Bet::Banker, 1000), "wagers are closed once \"no more bets\" is called");
    let id =
        match log.iter().rev().find_map(|e| if let Event::WagerPlaced { wager } = e { Some(wager.id) } else { None }) {
            Some(i) => i,
            None => unreachable!(),
        };
    refused(&mut t, Command::WithdrawWager { player: PlayerId(1), wager: id }, "NSW 5.4");
    deal_out(&mut t, &mut log);
    refused(
        &mut t,
        Command::WithdrawWager { player: PlayerId(1), wager: id },
        "NSW 5.4: no wager may be withdrawn until a decision and settlement",
    );
    refused(&mut t, Command::DealNext, "no card is due");
}

#[test]
fn au_wager_rules() {
    let (mut t, mut log) = rng_table("au-casino", "[bets.tie]\npay_table = \"8_to_1\"\n[bets.dragon_bonus_player]\npay_table = \"table_1\"\n[ante]\namount = 100\nwaived_at = 5000\n", 4);
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    // AU 11B.2: a side bet goes with an initial wager.
    refused(&mut t, wager(1, Bet::DragonBonusPlayer, 1000), "AU 11A.2, 11B.2");
    // AU 14.5: the ante comes with the wager.
    refused(&mut t, wager(1, Bet::Player, 1000), "AU 14.4-14.7: this wager needs an ante of 1.00");
    let with_ante = |player: u32, bet: Bet, amount: i64| Command::PlaceWager {
        player: PlayerId(player),
        spot: Spot::Box(player as u8),
        bet,
        amount: Money(amount),
        ante: Money(100),
        token: false,
        at_ms: None,
    };
    // AU 5.12: $25 on Banker cannot be paid exactly at 1:1 less 5% with $1 chips.
    refused(&mut t, with_ante(1, Bet::Banker, 2500), "AU 5.12-5.13");
    run(&mut t, &mut log, with_ante(1, Bet::Banker, 2000));
    // AU 5.2(c): Banker and Player together need no approval.
    run(&mut t, &mut log, with_ante(1, Bet::Player, 1000));
    run(&mut t, &mut log, wager(1, Bet::DragonBonusPlayer, 1000));
    // AU 14.4: waived at 50.00.
    run(&mut t, &mut log, wager(2, Bet::Banker, 6000));
    run(&mut t, &mut log, Command::CloseBetting);
    let ev = deal_out(&mut t, &mut log);
    let antes: Vec<Money> =
        ev.iter().filter_map(|e| if let Event::WagerSettled { ante, .. } = e { Some(*ante) } else { None }).collect();
    assert_eq!(antes, [Money(100), Money(100), Money(0), Money(0)]);
}

#[test]
fn nsw_banker_and_player_need_approval_and_the_differential_applies() {
    let (mut t, mut log) = rng_table("nsw-2021", "differential = 5000\n", 5);
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    run(&mut t, &mut log, wager(1, Bet::Banker, 5000));
    let ev = run(&mut t, &mut log, wager(1, Bet::Player, 1000));
    let combo = match &ev[0] {
        Event::WagerPlaced { wager } => wager.clone(),
        e => panic!("{e:?}"),
    };
    assert!(combo.needs_approval, "NSW 5.6.6");
    run(&mut t, &mut log, wager(2, Bet::Player, 1000));
    run(&mut t, &mut log, wager(3, Bet::Player, 1000));
    run(&mut t, &mut log, wager(4, Bet::Banker, 6000));
    run(&mut t, &mut log, wager(5, Bet::Banker, 2000));
    let ev = run(&mut t, &mut log, wager(5, Bet::Player, 1000));
    let approved = match &ev[0] {
        Event::WagerPlaced { wager } => wager.id,
        e => panic!("{e:?}"),
    };
    refused(&mut t, Command::ApproveWager { wager: WagerId(combo.id.0 - 1) }, "needs no approval");
    run(&mut t, &mut log, Command::ApproveWager { wager: approved });
    // Player 1's combination was not approved: returned at "no more bets". Then
    // Banker 13,000 vs Player 3,000 exceeds 5,000: the Banker side is cut pro rata
    // towards 8,000, each wager down to whole chips (NSW 6.2).
    let ev = run(&mut t, &mut log, Command::CloseBetting);
    assert!(ev
        .iter()
        .any(|e| matches!(e, Event::WagerReturned { wager, rule } if *wager == combo.id && rule.contains("NSW 5.6"))));
    let reduced: Vec<Money> = ev
        .iter()
        .filter_map(|e| {
            if let Event::WagerReduced { to, rule, .. } = e {
                assert!(rule.contains("NSW 6.2"));
                Some(*to)
            } else {
                None
            }
        })
        .collect();
    assert_eq!(reduced, [Money(3000), Money(3600), Money(1200)]);
}

#[test]
fn a_shuffled_shoe_runs_to_its_last_coup() {
    let (mut t, mut log) = rng_table("nsw-2021", "", 11);
    let mut coups = 0;
    while t.phase() != Phase::ShoeOver {
        run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
        run(&mut t, &mut log, wager(1, Bet::Banker, 1000));
        run(&mut t, &mut log, Command::CloseBetting);
        deal_out(&mut t, &mut log);
        coups += 1;
        assert!(coups < 100);
    }
    let cut_at = log.iter().position(|e| matches!(e, Event::CuttingCardOut { .. })).expect("the cutting card came out");
    let after = log[cut_at..].iter().filter(|e| matches!(e, Event::CoupClosed { .. })).count();
    let coups_left = match &log[cut_at] {
        Event::CuttingCardOut { coups_left, .. } => *coups_left as usize,
        _ => unreachable!(),
    };
    assert_eq!(after, coups_left);
    assert!(
        matches!(log.last(), Some(Event::ShoeEnded { seed: Some(_), .. })),
        "the seed is revealed when the shoe ends"
    );
    assert_eq!(t.state().roads.entries().len(), coups);
    assert!(Table::replay(setup("nsw-2021", ""), &log) == t);
}

#[test]
fn an_uncut_pre_shuffled_shoe_runs_out_and_the_coup_is_void() {
    let s = setup("nsw-2021", "decks = 3\n");
    let cards = baccarat_table::fresh(3);
    let mut t = Table::new(s);
    let mut log = Vec::new();
    run(
        &mut t,
        &mut log,
        Command::StartShoe { source: ShoeSource::PreShuffled { cards }, cut: None, burn: None, show_burn: false },
    );
    let mut voided = false;
    while t.phase() != Phase::ShoeOver {
        run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
        run(&mut t, &mut log, wager(2, Bet::Player, 1000));
        run(&mut t, &mut log, Command::CloseBetting);
        let ev = deal_out(&mut t, &mut log);
        voided |= kinds(&ev).contains(&IrregularityKind::InsufficientCards);
    }
    assert!(voided, "NSW 12.6");
    let bad = vec!["AS".parse().unwrap(); 156];
    let mut t2 = Table::new(setup("nsw-2021", "decks = 3\n"));
    refused(
        &mut t2,
        Command::StartShoe { source: ShoeSource::PreShuffled { cards: bad }, cut: None, burn: None, show_burn: false },
        "NSW 12.11",
    );
    // A malformed seed is refused where it arrives, as the command is read.
    let bad = r#"{"command":"start_shoe","source":{"shuffle":{"seed":"zz"}},"cut":null,"burn":null,"show_burn":false}"#;
    let e = serde_json::from_str::<Command>(bad).unwrap_err();
    assert!(e.to_string().contains("64 hex digits"), "{e}");
    refused(
        &mut t2,
        Command::StartShoe {
            source: ShoeSource::Shuffle { seed: Seed::from_u64(1) },
            cut: Some(Cut { at: 10, from_back: 20 }),
            burn: None,
            show_burn: false,
        },
        "NSW 4.5-4.6",
    );
}

/// EU 3.1.2: three no-bet coups start the shoe; "if a player wants to bet
/// during one of those coups, remaining no-bet coups may be played when the
/// player wants". A profile that did not allow the deferral would refuse.
#[test]
fn eu_3_1_2_a_player_may_bet_during_the_no_bet_coups() {
    let start = |t: &mut Table, log: &mut Vec<Event>| {
        run(
            t,
            log,
            Command::StartShoe {
                source: ShoeSource::Shuffle { seed: Seed::from_u64(8) },
                cut: Some(Cut { at: 100, from_back: 20 }),
                burn: Some(baccarat_rules::BurnProcedure::ThreeNoBetCoups),
                show_burn: false,
            },
        );
    };
    let mut t = Table::new(setup("european-casino", ""));
    let mut log = Vec::new();
    start(&mut t, &mut log);
    run(&mut t, &mut log, Command::OpenBetting { no_bet: true, closes_at: None });
    run(&mut t, &mut log, Command::CloseBetting);
    deal_out(&mut t, &mut log);
    assert_eq!(t.state().no_bet_coups_due, 2);
    // A player wants to bet: the coup takes wagers; two no-bet coups remain due.
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    run(&mut t, &mut log, wager(1, Bet::Player, 1000));
    run(&mut t, &mut log, Command::CloseBetting);
    deal_out(&mut t, &mut log);
    assert_eq!(t.state().no_bet_coups_due, 2);
    for _ in 0..2 {
        run(&mut t, &mut log, Command::OpenBetting { no_bet: true, closes_at: None });
        run(&mut t, &mut log, Command::CloseBetting);
        deal_out(&mut t, &mut log);
    }
    assert_eq!(t.state().no_bet_coups_due, 0);

    // Without the deferral in the profile, the three come first.
    let text = profiles::builtin_text("european-casino")
        .unwrap()
        .replace("defer_no_bet_coups = { value = true,", "defer_no_bet_coups = { value = false,");
    let rb = baccarat_rules::Rulebook::from_toml(&text).unwrap();
    let spec: TableConfigSpec =
        toml::from_str("rulebook = \"european-casino\"\nchip = 100\nmin = 1000\nmax = 100000\n").unwrap();
    let cfg = TableConfig::new(&rb, &spec).unwrap();
    let mut t = Table::new(TableSetup::new(rb, cfg, None).unwrap());
    start(&mut t, &mut log);
    refused(&mut t, Command::OpenBetting { no_bet: false, closes_at: None }, "EU 3.1.2-3.3");
}

#[test]
fn nsw_6_8_personal_limits_and_6_7_raised_minimum() {
    let (mut t, mut log) = live_table("nsw-2021", "");
    run(&mut t, &mut log, Command::SetPersonalLimits { player: PlayerId(7), min: Money(500), max: Money(500_000) });
    refused(&mut t, Command::SetPersonalLimits { player: PlayerId(7), min: Money(900), max: Money(800) }, "NSW 6.8");
    // NSW 6.7.1: raised now, without 20 minutes' notice: players present keep 10.00.
    run(&mut t, &mut log, Command::ChangeMinimum { minimum: Money(5000), at_ms: 0, present: vec![PlayerId(1)] });
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    run(&mut t, &mut log, wager(1, Bet::Player, 1000));
    refused(&mut t, wager(2, Bet::Player, 1000), "NSW 6.7: 10.00 is below the player minimum 50.00");
    run(&mut t, &mut log, wager(2, Bet::Player, 5000));
    // NSW 6.8: the personal sign's limits for player 7.
    run(&mut t, &mut log, wager(7, Bet::Banker, 500));
    refused(&mut t, Command::ChangeMinimum { minimum: Money(2000), at_ms: 0, present: vec![] }, "between coups");
    for c in ["9H", "2S", "KD", "KC"] {
        card(&mut t, &mut log, c);
    }
    // With notice given at least 20 minutes before, the raise applies to everyone.
    run(&mut t, &mut log, Command::AnnounceMinimum { minimum: Money(10_000), at_ms: 1_000 });
    let ev = run(
        &mut t,
        &mut log,
        Command::ChangeMinimum { minimum: Money(10_000), at_ms: 1_000 + 20 * 60_000, present: vec![PlayerId(1)] },
    );
    assert!(matches!(&ev[0], Event::MinimumChanged { grandfathered, .. } if grandfathered.is_empty()));
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    refused(&mut t, wager(1, Bet::Player, 5000), "below the player minimum 100.00");
    assert!(Table::replay(setup("nsw-2021", ""), &log) == t);
}

/// NSW 6.7: a supervisor alters a wager's limits, between coups: a side bet's
/// minimum and maximum, a main wager's maximum (its minimum only by
/// change_minimum, which keeps the notice). Wagers outside them are refused
/// naming the rule, and the change replays.
#[test]
fn nsw_6_7_a_supervisor_alters_a_wagers_limits_between_coups() {
    let (mut t, mut log) = live_table("nsw-2021", "[bets.player_pair]\n");
    let pair = t.offer_limits(Bet::PlayerPair).expect("the table offers the Player pair");
    run(&mut t, &mut log, Command::ChangeLimits { bet: Bet::Banker, min: None, max: Money(20_000) });
    run(&mut t, &mut log, Command::ChangeLimits { bet: Bet::PlayerPair, min: Some(Money(500)), max: Money(2_000) });
    assert_eq!(t.offer_limits(Bet::Banker), Some((Money(1000), Money(20_000))));
    assert_eq!(t.offer_limits(Bet::PlayerPair), Some((Money(500), Money(2_000))));
    assert_eq!(t.offer_limits(Bet::Player), Some((Money(1000), Money(100_000))), "one wager at a time");
    assert_ne!(pair, (Money(500), Money(2_000)));
    let main_min = Command::ChangeLimits { bet: Bet::Banker, min: Some(Money(5_000)), max: Money(20_000) };
    refused(&mut t, main_min, "change_minimum");
    refused(
        &mut t,
        Command::ChangeLimits { bet: Bet::PlayerPair, min: Some(Money(3_000)), max: Money(2_000) },
        "NSW 6.7",
    );
    refused(&mut t, Command::ChangeLimits { bet: Bet::PlayerPair, min: Some(Money(550)), max: Money(2_000) }, "chips");
    refused(&mut t, Command::ChangeLimits { bet: Bet::Banker, min: None, max: Money(500) }, "below the table minimum");
    refused(&mut t, Command::ChangeLimits { bet: Bet::DragonBonusPlayer, min: None, max: Money(500) }, "not offered");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    refused(&mut t, wager(1, Bet::Banker, 20_100), "at most 200.00");
    run(&mut t, &mut log, wager(1, Bet::Banker, 20_000));
    refused(&mut t, wager(2, Bet::PlayerPair, 400), "below the player_pair minimum 5.00");
    run(&mut t, &mut log, wager(2, Bet::PlayerPair, 500));
    refused(&mut t, wager(3, Bet::PlayerPair, 2_100), "at most 20.00");
    refused(&mut t, Command::ChangeLimits { bet: Bet::Banker, min: None, max: Money(50_000) }, "between coups");
    assert!(Table::replay(setup("nsw-2021", "[bets.player_pair]\n"), &log) == t);
}

#[test]
fn nsw_12_17_invalid_bet_returned_and_promotional_tokens() {
    let (mut t, mut log) = live_table("nsw-2021", "");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    let ev = run(
        &mut t,
        &mut log,
        Command::PlaceWager {
            player: PlayerId(1),
            spot: Spot::Box(1),
            bet: Bet::Banker,
            amount: Money(2000),
            ante: Money(0),
            token: true,
            at_ms: None,
        },
    );
    let token = match &ev[0] {
        Event::WagerPlaced { wager } => wager.clone(),
        _ => unreachable!(),
    };
    assert!(token.token);
    let ev = run(&mut t, &mut log, wager(2, Bet::Player, 1000));
    let other = match &ev[0] {
        Event::WagerPlaced { wager } => wager.id,
        _ => unreachable!(),
    };
    refused(&mut t, Command::InvalidBet { wager: other }, "NSW 14.12");
    card(&mut t, &mut log, "9H");
    let ev = run(&mut t, &mut log, Command::InvalidBet { wager: other });
    assert!(matches!(&ev[0], Event::WagerReturned { rule, .. } if rule.contains("NSW 12.17")));
    assert_eq!(t.state().coup.wagers.len(), 1);
    // AU has no promotional tokens.
    let (mut t, mut log) = live_table("au-casino", "[bets.tie]\npay_table = \"8_to_1\"\n");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    refused(
        &mut t,
        Command::PlaceWager {
            player: PlayerId(1),
            spot: Spot::Box(1),
            bet: Bet::Player,
            amount: Money(1000),
            ante: Money(0),
            token: true,
            at_ms: None,
        },
        "no promotional tokens",
    );
}

#[test]
fn au_5_8_up_to_three_players_a_box_within_the_maximum() {
    let (mut t, mut log) = live_table("au-casino", "[bets.tie]\npay_table = \"8_to_1\"\n");
    assert_eq!(t.setup().config.layout.name, "mini");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    for p in 1..=3 {
        run(
            &mut t,
            &mut log,
            Command::PlaceWager {
                player: PlayerId(p),
                spot: Spot::Box(2),
                bet: Bet::Player,
                amount: Money(30_000),
                ante: Money(0),
                token: false,
                at_ms: None,
            },
        );
    }
    refused(
        &mut t,
        Command::PlaceWager {
            player: PlayerId(4),
            spot: Spot::Box(2),
            bet: Bet::Tie,
            amount: Money(1000),
            ante: Money(0),
            token: false,
            at_ms: None,
        },
        "already has 3 players",
    );
    refused(
        &mut t,
        Command::PlaceWager {
            player: PlayerId(1),
            spot: Spot::Box(2),
            bet: Bet::Player,
            amount: Money(20_000),
            ante: Money(0),
            token: false,
            at_ms: None,
        },
        "AU 3.1(a), 5.8",
    );
}

#[test]
fn au_7_2_continuous_shuffler_never_reaches_a_cutting_card() {
    let s = setup("au-casino", "decks = 4\n[bets.tie]\npay_table = \"8_to_1\"\n");
    let mut t = Table::new(s);
    let mut log = Vec::new();
    run(
        &mut t,
        &mut log,
        Command::StartShoe {
            source: ShoeSource::Continuous { seed: Seed::from_u64(3) },
            cut: None,
            burn: None,
            show_burn: false,
        },
    );
    // Far more coups than 208 cards could deal without the cards going back in.
    for _ in 0..200 {
        run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
        run(&mut t, &mut log, wager(1, Bet::Banker, 2000));
        run(&mut t, &mut log, Command::CloseBetting);
        deal_out(&mut t, &mut log);
        assert_eq!(t.phase(), Phase::Ready);
    }
    assert!(!log.iter().any(|e| matches!(e, Event::CuttingCardOut { .. } | Event::ShoeEnded { .. })));
    assert!(
        matches!(&log[0], Event::ShoeStarted { continuous: true, cut: None, rule, .. } if rule.contains("AU 3.4(a), 7.2"))
    );
    assert!(Table::replay(setup("au-casino", "decks = 4\n[bets.tie]\npay_table = \"8_to_1\"\n"), &log) == t);
}

#[test]
fn nsw_12_12_wagers_reopened_before_any_card_is_exposed() {
    let (mut t, mut log) = live_table("nsw-2021", "dealing = \"method_b\"\n");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    run(&mut t, &mut log, seat_wager(1, 1, Bet::Player, 2000));
    card(&mut t, &mut log, "2H");
    refused(&mut t, seat_wager(2, 2, Bet::Banker, 1000), "wagers are closed");
    run(&mut t, &mut log, Command::ReopenWagers);
    run(&mut t, &mut log, seat_wager(2, 2, Bet::Banker, 1000));
    run(&mut t, &mut log, Command::CloseBetting);
    for c in ["3S", "3D", "KC"] {
        card(&mut t, &mut log, c);
    }
    // The Player's hand is out: cards exposed from here, so no reopening.
    run(&mut t, &mut log, Command::Expose { side: baccarat_rules::Side::Player, player: Some(PlayerId(1)) });
    refused(&mut t, Command::ReopenWagers, "NSW 12.12");
    // Method A deals face up: never.
    let (mut t, mut log) = live_table("nsw-2021", "");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    card(&mut t, &mut log, "2H");
    refused(&mut t, Command::ReopenWagers, "Method A");
}

#[test]
fn au_3_4_two_sets_of_cards_alternate() {
    let s = setup("au-casino", "[bets.tie]\npay_table = \"8_to_1\"\n");
    let mut t = Table::new(s);
    let mut log = Vec::new();
    let start = |seed: u64, set: u8| Command::StartShoe {
        source: ShoeSource::ShufflerSet { seed: Seed::from_u64(seed), set },
        cut: Some(Cut { at: 100, from_back: 20 }),
        burn: None,
        show_burn: false,
    };
    run(&mut t, &mut log, start(1, 1));
    assert_eq!(t.state().set, Some(1));
    refused(&mut t, start(2, 1), "AU 3.4(a), 7.1: the next shoe uses the other set");
    let ev = run(&mut t, &mut log, start(2, 2));
    assert!(matches!(&ev[0], Event::ShoeEnded { .. }), "the first set's shoe ends, revealing its seed");
    let mut t2 = Table::new(setup("nsw-2021", ""));
    refused(&mut t2, start(1, 1), "does not use two sets");
}

/// NSW 10.4: a supervisor may require side bets to go with a main wager; the
/// table's configuration says so and the engine honours it (it used to copy
/// the profile's default and drop the table's choice).
#[test]
fn nsw_10_4_a_tables_side_bet_restriction_is_honoured() {
    let (mut t, mut log) = rng_table("nsw-2021", "side_bets_need_main_wager = true\n[bets.player_pair]\n", 9);
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    refused(&mut t, wager(1, Bet::PlayerPair, 1000), "NSW 10.4");
    run(&mut t, &mut log, wager(1, Bet::Player, 1000));
    run(&mut t, &mut log, wager(1, Bet::PlayerPair, 1000));
    // Without the restriction the side bet stands alone (NSW's default).
    let (mut t, mut log) = rng_table("nsw-2021", "[bets.player_pair]\n", 9);
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    run(&mut t, &mut log, wager(1, Bet::PlayerPair, 1000));
}

/// A coup settled in chunks (`settle_in_chunks`, as the server paces a large
/// settlement) makes exactly the events, in the same order, as one settled at
/// once, and ends in the same table; while it is part-way no command runs.
#[test]
fn a_settlement_in_chunks_makes_the_same_events_as_one_at_once() {
    let extra = "[bets.player_pair]\n[bets.banker_pair]\n";
    for seed in 0..6u64 {
        for chunk in [1usize, 2, 3, 5, 11, 100] {
            let (mut whole, mut whole_log) = rng_table("nsw-2021", extra, seed);
            let (mut paced, mut paced_log) = rng_table("nsw-2021", extra, seed);
            paced.settle_in_chunks(chunk);
            for coup in 0..4 {
                let mut cmds = vec![Command::OpenBetting { no_bet: false, closes_at: None }];
                for p in 1..=7u32 {
                    for k in 0..(coup + p as usize) % 3 + 1 {
                        let bet = [Bet::Banker, Bet::Player, Bet::Tie, Bet::PlayerPair, Bet::BankerPair]
                            [(p as usize + coup + k) % 5];
                        cmds.push(wager(p, bet, 1000 * (k as i64 + 1)));
                    }
                }
                cmds.push(Command::CloseBetting);
                for c in cmds {
                    run(&mut whole, &mut whole_log, c.clone());
                    run(&mut paced, &mut paced_log, c);
                }
                deal_out(&mut whole, &mut whole_log);
                while matches!(paced.phase(), Phase::Closed | Phase::Dealing) {
                    if paced.settling() {
                        refused(&mut paced, Command::DealNext, "settling");
                        let next = paced.settle_next(chunk);
                        let settled = next.iter().filter(|e| matches!(e, Event::WagerSettled { .. })).count();
                        assert!(
                            (1..=chunk).contains(&settled)
                                || next.iter().any(|e| matches!(e, Event::CoupClosed { .. }))
                        );
                        paced_log.extend(next);
                    } else {
                        run(&mut paced, &mut paced_log, Command::DealNext);
                    }
                }
                assert!(!paced.settling());
                assert_eq!(paced_log, whole_log, "seed {seed} chunk {chunk} coup {coup}");
                assert!(paced == whole, "seed {seed} chunk {chunk} coup {coup}");
            }
        }
    }
}

/// A log cut anywhere inside a completed coup's settlement (after its result,
/// before it closed) is finished by `finish_settlement` with exactly the events
/// the completion made after the cut, leaving the same table; elsewhere it adds
/// nothing.
#[test]
fn a_settlement_cut_part_way_is_finished_exactly() {
    for seed in 0..12u64 {
        let extra = "[bets.player_pair]\n[bets.banker_pair]\n";
        let (mut t, mut log) = rng_table("nsw-2021", extra, seed);
        for coup in 0..3 {
            run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
            for p in 1..=6u32 {
                let bet =
                    [Bet::Banker, Bet::Player, Bet::Tie, Bet::PlayerPair, Bet::BankerPair][(p as usize + coup) % 5];
                run(&mut t, &mut log, wager(p, bet, 1000 * p as i64));
            }
            run(&mut t, &mut log, Command::CloseBetting);
            deal_out(&mut t, &mut log);
        }
        let setup = || setup("nsw-2021", extra);
        assert!(Table::replay(setup(), &log).clone().finish_settlement().is_empty(), "nothing to finish");
        let completed: Vec<usize> =
            log.iter().enumerate().filter(|(_, e)| matches!(e, Event::CoupCompleted { .. })).map(|(i, _)| i).collect();
        assert_eq!(completed.len(), 3);
        for &c in &completed {
            let closed = c + log[c..].iter().position(|e| matches!(e, Event::CoupClosed { .. })).unwrap();
            for cut in c + 1..=closed {
                let mut cut_table = Table::replay(setup(), &log[..cut]);
                let rest = cut_table.finish_settlement();
                // Exactly what the completion recorded after the cut, through
                // the coup's close (and the shoe's end, if the coup ended it).
                assert!(cut + rest.len() > closed, "seed {seed} cut {cut}: the coup is closed");
                assert_eq!(rest[..], log[cut..cut + rest.len()], "seed {seed} cut {cut}");
                let end = cut + rest.len();
                assert!(cut_table == Table::replay(setup(), &log[..end]), "seed {seed} cut {cut}");
            }
        }
    }
}
